"""Shared helpers of the Digimon rule tests: test-only cards, readable zone views, checked steps."""

from __future__ import annotations

import functools
import importlib

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


# The rule-test modules whose cards make one shared test registry: their `apply` and
# `action_errors` then lower to the same programs, which compile once per session (the persistent
# compilation cache) instead of once per module. A card id means one card in all of them.
SHARED_POOL_MODULES = (
    "test_digimon_attack",
    "test_digimon_conditions",
    "test_digimon_continuous",
    "test_digimon_keywords",
    "test_digimon_st7_st8_primitives",
    "test_digimon_select",
    "test_digimon_selections",
    "test_digimon_tensor",
    "test_digimon_triggers",
)
FILLERS = 13  # 4 copies each: enough to pad an empty main deck to 50


@functools.cache
def shared_registry() -> CardRegistry:
    """Every card of :data:`SHARED_POOL_MODULES` (``ENTRIES``) and the filler Digimon."""
    pool: dict[str, dict] = {}
    for name in SHARED_POOL_MODULES:
        for entry in importlib.import_module(name).ENTRIES:
            if pool.setdefault(entry["id"], entry) != entry:
                raise AssertionError(f"test card {entry['id']} differs between {name} and another")
    fillers = [digimon(f"FILL{k}", 3, 1000, colors=("green",), cost=4) for k in range(FILLERS)]
    return CardRegistry(C.SCHEMA, list(pool.values()) + fillers, source="digimon test cards")


def make_rules(entries, main, eggs=("EGG",) * 4):
    """Rules for two identical decks over the shared test registry: ``main`` padded to 50 with
    4-copy filler Digimon; ``entries`` (the calling module's cards) must be in the pool."""
    registry = shared_registry()
    for entry in entries:
        assert entry["id"] in registry.ids, f"{entry['id']}: add its module to SHARED_POOL_MODULES"
    main = list(main)
    k = 0
    while len(main) < R.MAIN_DECK_SIZE:
        main += [f"FILL{k}"] * min(4, R.MAIN_DECK_SIZE - len(main))
        k += 1
    return R.DigimonRules(registry, [(list(eggs), main), (list(eggs), main)])


# The rule tests' key for an action's chance events (only a mulligan's redraw shuffles).
TEST_KEY = jax.random.PRNGKey(0)


def situation(rules, me, opponent, *, active=0, memory=3, **kw):
    """``build_state`` of the two players' descriptions, player ``active`` to act with
    ``memory`` (3 by default)."""
    from tcgjax.games.digimon.scenario import build_state

    return build_state(rules, [me, opponent], active=active, memory=memory, **kw)


def jit_apply(rules, key=TEST_KEY):
    """``jit(rules.apply)`` taking ``(state, action)``, with a fixed ``key``."""
    return jax.jit(functools.partial(rules.apply, key=key))


def code_name(code) -> str:
    return "ok" if int(code) == 0 else R.RULE_ERRORS[int(code) - R.FIRST_GAME_CODE].name


def zone_cards(rules, state, zone, player=None) -> list[str]:
    """Card numbers of a zone (a player zone name with ``player``, a shared zone name, or a zone
    index), bottom first."""
    b = jax.device_get(state.board)
    if isinstance(zone, str):  # a player zone with its player, or a shared zone ("revealed")
        z = rules.layout.zone_index(zone) if player is None else int(R.zone_of(zone, player))
    else:
        z = int(zone)
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


def starter_rules(decks) -> R.DigimonRules:
    """Rules over the shipped card file with the shipped decks ``decks`` (one per seat)."""
    from tcgjax.games.digimon.decks import load_deck

    registry = C.load_cards()
    loaded = [load_deck(d, registry) for d in decks]
    return R.DigimonRules(registry, [(d.eggs, d.main) for d in loaded])


def phase(state) -> str:
    return A.PHASES[int(state.board.phase)]


def legal(errors, state) -> list[int]:
    """The legal action ids of ``state`` (``errors``: the jitted ``action_errors``)."""
    return np.flatnonzero(np.asarray(errors(state)) == 0).tolist()


def printed_dp(rules, number) -> int:
    return int(rules.cards.numpy["dp"][rules.cards.index(number)])


def dp(perm, state, player=0, slot=0) -> int:
    """The DP of ``player``'s permanent in ``slot`` (``perm``: the jitted ``permanents``)."""
    return int(perm(state).dp[player, slot])


def checks(perm, state, player=0, slot=0) -> int:
    """<Security A.>: the number of extra cards the permanent checks."""
    return int(perm(state).security_attack[player, slot])
