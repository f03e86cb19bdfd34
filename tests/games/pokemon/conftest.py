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


@pytest.fixture(scope="session")
def rules():
    return shared_rules()


@pytest.fixture(scope="session")
def apply(rules):
    return jax.jit(rules.apply)


@pytest.fixture(scope="session")
def errors(rules):
    """``action_errors`` as readable names: ``errors(state)[action] -> "ok" | rule name``."""
    return named_errors(rules)


@pytest.fixture(scope="session")
def cp_rules():
    """The rules with the Chien-Pao ex deck in both seats (``pokemon_testlib.chien_pao_rules``)."""
    from pokemon_testlib import chien_pao_rules

    return chien_pao_rules()


@pytest.fixture(scope="session")
def cp_apply(cp_rules):
    return jax.jit(cp_rules.apply)


@pytest.fixture(scope="session")
def cp_errors(cp_rules):
    return named_errors(cp_rules)


@pytest.fixture(scope="session")
def st_rules():
    """The rules with the staples test deck in both seats (``pokemon_testlib.staples_rules``)."""
    from pokemon_testlib import staples_rules

    return staples_rules()


@pytest.fixture(scope="session")
def st_apply(st_rules):
    return jax.jit(st_rules.apply)


@pytest.fixture(scope="session")
def st_errors(st_rules):
    return named_errors(st_rules)


@pytest.fixture(scope="session")
def lg_rules():
    """The rules with the League cards' test deck in both seats (``pokemon_testlib.league_rules``)."""
    from pokemon_testlib import league_rules

    return league_rules()


@pytest.fixture(scope="session")
def lg_apply(lg_rules):
    return jax.jit(lg_rules.apply)


@pytest.fixture(scope="session")
def lg_errors(lg_rules):
    return named_errors(lg_rules)


@pytest.fixture(scope="session")
def gv_rules():
    """The rules with the Gardevoir ex cards' test deck in both seats
    (``pokemon_testlib.gardevoir_rules``)."""
    from pokemon_testlib import gardevoir_rules

    return gardevoir_rules()


@pytest.fixture(scope="session")
def gv_apply(gv_rules):
    return jax.jit(gv_rules.apply)


@pytest.fixture(scope="session")
def gv_errors(gv_rules):
    return named_errors(gv_rules)
