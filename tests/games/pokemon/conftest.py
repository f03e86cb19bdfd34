"""Fixtures of the Pokémon rule tests: the test rules and their jitted functions, compiled once."""

import jax
import numpy as np
import pytest
from pokemon_testlib import shared_rules

from tcgjax.games.pokemon import rules as R


def named_errors(rules):
    """``action_errors`` of ``rules``, jitted, as readable names: ``errors(state)[action] -> "ok" |
    rule name``."""
    jitted = jax.jit(rules.action_errors)
    names = {code: name for name, code in R.CODES.items()} | {0: "ok"}

    def named(state):
        return [names[int(c)] for c in np.asarray(jitted(state))]

    return named


def _deck_fixtures(prefix: str, build, doc: str) -> None:
    """Define the session fixtures ``{prefix}rules`` (``build()``), ``{prefix}apply`` (its
    ``apply``, jitted) and ``{prefix}errors`` (:func:`named_errors`) in this module: one trace and
    one compile per test deck and test session."""

    def rules_fixture():
        return build()

    rules_fixture.__doc__ = doc

    def apply_fixture(request):
        return jax.jit(request.getfixturevalue(f"{prefix}rules").apply)

    def errors_fixture(request):
        return named_errors(request.getfixturevalue(f"{prefix}rules"))

    for name, fn in (
        ("rules", rules_fixture),
        ("apply", apply_fixture),
        ("errors", errors_fixture),
    ):
        globals()[f"{prefix}{name}"] = pytest.fixture(scope="session", name=f"{prefix}{name}")(fn)


def _testlib(name: str):
    def build():
        import pokemon_testlib

        return getattr(pokemon_testlib, name)()

    return build


_deck_fixtures("", shared_rules, "The test registry's rules, the test deck in both seats.")
_deck_fixtures(
    "cp_",
    _testlib("chien_pao_rules"),
    "The rules with the Chien-Pao ex deck in both seats (``pokemon_testlib.chien_pao_rules``).",
)
_deck_fixtures(
    "st_",
    _testlib("staples_rules"),
    "The rules with the staples test deck in both seats (``pokemon_testlib.staples_rules``).",
)
_deck_fixtures(
    "lg_",
    _testlib("league_rules"),
    "The rules with the League cards' test deck in both seats (``pokemon_testlib.league_rules``).",
)
_deck_fixtures(
    "gv_",
    _testlib("gardevoir_rules"),
    "The rules with the Gardevoir ex cards' test deck in both seats "
    "(``pokemon_testlib.gardevoir_rules``).",
)
