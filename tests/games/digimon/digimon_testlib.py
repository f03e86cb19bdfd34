"""Shared helpers of the Digimon rule tests: test-only cards, readable zone views, checked steps."""

from __future__ import annotations

import jax
import numpy as np

from tcgjax.core.cards import CardRegistry
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import cards as C
from tcgjax.games.digimon import rules as R

BASE = dict(dna=[], dna_cost=-1, keywords=[], inherited_keywords=[], effects=[], text="")


def digimon(cid, level, dp, *, cost=3, colors=("red",), digivolve=(), **more):
    """A test-only Digimon card entry."""
    return dict(BASE, id=cid, name=cid, kind="digimon", colors=list(colors), level=level,
                play_cost=cost, dp=dp, digivolve=list(digivolve), **more)  # fmt: skip


def other(cid, kind, *, cost=1, colors=("red",), **more):
    """A test-only Digi-Egg (``kind="digi_egg"``), Tamer or Option entry."""
    egg = kind == "digi_egg"
    return dict(BASE, id=cid, name=cid, kind=kind, colors=list(colors), level=2 if egg else 0,
                play_cost=-1 if egg else cost, dp=0, digivolve=[], **more)  # fmt: skip


def make_rules(entries, main, eggs=("EGG",) * 4, *, fillers="FILL"):
    """Rules for two identical decks: ``main`` padded to 50 with 4-copy filler Digimon."""
    main = list(main)
    extra = []
    while len(main) < R.MAIN_DECK_SIZE:
        cid = f"{fillers}{len(extra)}"
        extra.append(digimon(cid, 3, 1000, colors=("green",), cost=4))
        main += [cid] * min(4, R.MAIN_DECK_SIZE - len(main))
    registry = CardRegistry(C.SCHEMA, list(entries) + extra, source="test-cards")
    return R.DigimonRules(registry, [(list(eggs), main), (list(eggs), main)])


def code_name(code) -> str:
    return "ok" if int(code) == 0 else R.RULE_ERRORS[int(code) - R.FIRST_GAME_CODE].name


def zone_cards(rules, state, zone, player=None) -> list[str]:
    """Card numbers of a zone (a player zone name with ``player``, or a zone index), bottom first."""
    b = jax.device_get(state.board)
    z = int(R.zone_of(zone, player)) if isinstance(zone, str) else int(zone)
    members = np.flatnonzero(np.asarray(b.zone) == z)
    members = members[np.argsort(np.asarray(b.position)[members])]
    return [rules.cards.ids[int(b.definition[c])] for c in members]


def stack(rules, state, player, slot) -> list[str]:
    return zone_cards(rules, state, int(R.SLOT_ZONES[player, slot]))


def step_ok(rules, apply, errors, state, action):
    """Apply a legal ``action`` (asserting it is legal), validate the result, return it."""
    code = int(errors(state)[action])
    assert code == 0, f"{A.decode(int(state.board.phase), action).name}: {code_name(code)}"
    new, rewards = apply(state, action)
    rules.validate(new)
    return new, rewards
