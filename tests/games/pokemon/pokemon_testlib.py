"""Shared helpers of the Pokémon rule tests: one test registry (the shipped cards plus test-only
cards for what the shipped decks never reach, decision P4), the rules over it, readable views.

Every rule test builds its situation explicitly (:func:`tcgjax.games.pokemon.scenario.build_state`)
over :func:`shared_rules`, so ``apply`` and ``action_errors`` compile once per session."""

from __future__ import annotations

import functools

import jax
import numpy as np
import yaml

from tcgjax.core.cards import CardRegistry
from tcgjax.games.pokemon import cards as C
from tcgjax.games.pokemon import rules as R
from tcgjax.games.pokemon.decks import Deck

NO_ATTACKS: list = []


def pokemon(cid, name, stage, type_, hp, *, attacks=NO_ATTACKS, **more):
    """A test-only Pokémon entry in the card-file format (fields default to "none")."""
    entry = dict(
        id=cid, name=name, kind="pokemon", stage=stage, evolves_from="", type=type_, hp=hp,
        weakness="none", weakness_multiplier=0, resistance="none", resistance_value=0,
        retreat=1, prizes=1, tags=[], attacks=list(attacks), abilities=[], provides=[],
        damage_modifier=0, effects=[], text="",
    )  # fmt: skip
    entry.update(more)
    return entry


def attack(name, cost, damage):
    return dict(name=name, cost=list(cost), damage=damage, damage_mode="plain")


def basic_energy(cid, type_):
    return dict(
        id=cid, name=f"Test {type_} Energy", kind="basic_energy", stage="none", evolves_from="",
        type="none", hp=0, weakness="none", weakness_multiplier=0, resistance="none",
        resistance_value=0, retreat=0, prizes=0, tags=[], attacks=[], abilities=[],
        provides=[type_], damage_modifier=0, effects=[], text="",
    )  # fmt: skip


# Test-only cards (P4): a Fighting and a Grass attacker for Weakness and Resistance, a Pokémon V
# and its VMAX for 2 and 3 Prize cards, a free retreater, their basic Energy.
TEST_ENTRIES = [
    pokemon("t-fighter", "Test Fighter", "basic", "fighting", 100,
            attacks=[attack("Punch", ["fighting"], 30), attack("Big Punch", ["fighting"] * 2, 80)],
            weakness="psychic", weakness_multiplier=2),
    pokemon("t-sprout", "Test Sprout", "basic", "grass", 80,
            attacks=[attack("Vine", ["grass", "colorless"], 50)]),
    pokemon("t-volt-v", "Test Volt V", "basic", "lightning", 200, tags=["v"], prizes=2,
            weakness="fighting", weakness_multiplier=2, attacks=[attack("Zap", ["colorless"], 20)]),
    pokemon("t-volt-vmax", "Test Volt VMAX", "stage1", "lightning", 320, tags=["vmax"],
            prizes=3, evolves_from="Test Volt V", weakness="fighting", weakness_multiplier=2,
            attacks=[attack("Max Zap", ["lightning"], 120)]),
    pokemon("t-floater", "Test Floater", "basic", "psychic", 50, retreat=0,
            attacks=[attack("Tap", [], 10)]),
    basic_energy("t-e-fighting", "fighting"),
    basic_energy("t-e-grass", "grass"),
]  # fmt: skip

# Both players hold this deck: one of every shipped card, the test-only cards, a few more copies
# where situations need them (60 cards; the copy rule is a deck-file rule, not the engine's).
SHIPPED_IDS = (
    "sv1-142", "sv1-170", "sv1-175", "sv1-180", "sv1-181", "sv1-188", "sv1-194", "sv1-198",
    "sv2-151", "sv2-183", "sv2-78", "sv3-144", "sv3-145", "sv3-152", "sv3-154", "sv3-67",
    "sv3-68", "sv3-69", "sv3pt5-159", "sv4-136", "sv4-172", "sv4-173", "sv4-60", "sv4-68",
    "sv4pt5-82", "sv5-57", "sv5-58", "sv5-59", "sv6-74", "sve-4", "sve-8", "svp-104",
    "swsh9-151",
)  # fmt: skip
TEST_DECK = (
    list(SHIPPED_IDS)
    + ["sv2-151"] + ["sv3-152"] * 3 + ["sv3-67"]
    + ["t-fighter"] * 2 + ["t-sprout", "t-volt-v", "t-volt-vmax", "t-floater"]
    + ["sve-4"] * 6 + ["sve-8"] * 5 + ["swsh9-151"] + ["t-e-fighting"] * 2 + ["t-e-grass"] * 2
)  # fmt: skip


@functools.cache
def shared_registry() -> CardRegistry:
    with open(C.SHIPPED_CARDS) as fh:
        shipped = yaml.safe_load(fh)["cards"]
    registry = CardRegistry(C.SCHEMA, shipped + TEST_ENTRIES, source="pokemon test cards")
    C.check_card_rules(registry)
    return registry


@functools.cache
def shared_rules() -> R.PokemonRules:
    assert len(TEST_DECK) == R.DECK_SIZE, len(TEST_DECK)
    deck = Deck(name="test", source="<test deck>", cards=tuple(TEST_DECK))
    return R.PokemonRules((deck, deck), cards=shared_registry(), max_turns=60)


def names(rules: R.PokemonRules, state, zone: str, player: int) -> list[str]:
    """Card ids of a player zone, bottom to top."""
    return names_in(rules, state, int(R.zone_of(zone, player)))


def pile(rules: R.PokemonRules, state, player: int, slot: int) -> list[str]:
    """Card ids of a slot's pile, bottom to top."""
    return names_in(rules, state, int(R.slot_zone(player, slot)))


def names_in(rules: R.PokemonRules, state, zone: int) -> list[str]:
    board = jax.device_get(state.board)
    members = np.flatnonzero(np.asarray(board.zone) == zone)
    members = members[np.argsort(np.asarray(board.position)[members])]
    return [rules.cards.ids[int(board.definition[c])] for c in members]


def act(rules: R.PokemonRules, kind: str, offset: int = 0, *, card: str | None = None) -> int:
    """An action id: ``act(rules, "evolve", slot, card="sv3-68")`` (card-indexed kinds take the
    card id; ``evolve``/``attach`` then the slot as offset)."""
    if card is None:
        return rules.actions.encode(kind, offset)
    d = rules.cards.index(card)
    if kind in ("evolve", "attach"):
        return rules.actions.encode(kind, d * R.NUM_SLOTS + offset)
    return rules.actions.encode(kind, d)


# -------------------------------------------------------------------------------------------------
# Random play with the shipped decks, one compiled program for every test that needs it


ROLLOUT_GAMES, ROLLOUT_STEPS = 64, 300


@functools.cache
def shipped_env():
    """``tcgjax.make("pokemon")`` (the shipped decks), one per test process."""
    import tcgjax

    return tcgjax.make("pokemon")


@functools.cache
def random_rollout():
    """``rollout(key) -> (states, ok)``: ``ROLLOUT_GAMES`` games of :func:`shipped_env` for
    ``ROLLOUT_STEPS`` random legal steps with auto-reset (a finished game starts over on the next
    step), jitted once per process (the random-play sweep of ``validate`` and the 100k-step
    conservation test share it: one trace, one compile). ``states``: the state after every step,
    leaves ``[steps, games, ...]``; ``ok``: bool[steps, games], every card kept its zone's dense
    positions and the step set no error code."""
    import jax.numpy as jnp

    from tcgjax.wrappers import random_legal_action, reset_if_done

    env = shipped_env()
    games, num_zones = ROLLOUT_GAMES, env.board_layout.num_zones

    def dense(state):
        board = state.game.board
        member = board.zone[None, :] == jnp.arange(num_zones)[:, None]  # [Z, C]
        count = jnp.sum(member, axis=1)
        pos = jnp.where(member, board.position[None, :].astype(jnp.int32), 0)
        return jnp.all(jnp.sum(pos, axis=1) == count * (count - 1) // 2) & jnp.all(
            jnp.where(member, board.position[None, :] < count[:, None], True)
        )

    def body(state, key):
        k_reset, k_act, k_step = jax.random.split(key, 3)
        state = jax.vmap(lambda s, k: reset_if_done(env.init, s, k))(
            state, jax.random.split(k_reset, games)
        )
        action = random_legal_action(k_act, state.legal_action_mask)
        state = jax.vmap(env.step)(state, action, jax.random.split(k_step, games))
        return state, (state, jax.vmap(dense)(state) & (state.error == 0))

    @jax.jit
    def rollout(key):
        state = jax.vmap(env.init)(jax.random.split(key, games))
        _, out = jax.lax.scan(body, state, jax.random.split(key, ROLLOUT_STEPS))
        return out

    from suite_xla import compiled_for_running

    return compiled_for_running(rollout, jax.random.PRNGKey(0))


@functools.cache
def chien_pao_rules() -> R.PokemonRules:
    """The rules over the test registry with the shipped Chien-Pao ex deck in both seats: the
    situations of the cards that deck brings (``test_pokemon_chien_pao.py``)."""
    from tcgjax.games.pokemon.decks import load_deck

    deck = load_deck("chien_pao", shared_registry())
    return R.PokemonRules((deck, deck), cards=shared_registry(), max_turns=60)


# The Trainers the League Battle Decks share, shipped before a deck that holds them: a test deck
# of them with a few Pokémon and Energy, the Stadiums and Charmander, which discards one (60 cards;
# the engine does not apply the copy rule).
STAPLES_DECK = (
    ["sv1-189"] * 2 + ["sv1-190"] * 2 + ["sv2-185"] * 3 + ["sv2-172"] * 2 + ["sv1-196"] * 3
    + ["sv2-188"] * 3 + ["sv1-180"] * 4 + ["sv1-46"] * 4 + ["sv1-47"] * 2 + ["sv2-46"] * 4
    + ["sv2-44"] * 4 + ["svp-30"] + ["sve-3"] * 5 + ["sv1-197"] * 2 + ["sv2-173"] * 2
    + ["sv1-169"] * 2 + ["sv1-191"] * 2 + ["sv2-58"] * 2 + ["sv2-59", "sv2-60"]
    + ["sv1-166"] * 2 + ["sv5-144"] * 2
    + ["sv2-171"] * 2 + ["sv1-167", "sv4pt5-7", "sve-2"]  # Stadiums; Charmander
)  # fmt: skip


def _test_deck_rules(name: str, cards) -> R.PokemonRules:
    """The rules over the test registry with the test deck ``cards`` in both seats."""
    assert len(cards) == R.DECK_SIZE, len(cards)
    deck = Deck(name=name, source="<test deck>", cards=tuple(cards))
    return R.PokemonRules((deck, deck), cards=shared_registry(), max_turns=60)


@functools.cache
def staples_rules() -> R.PokemonRules:
    """The rules over the test registry with :data:`STAPLES_DECK` in both seats."""
    return _test_deck_rules("staples", STAPLES_DECK)


# -------------------------------------------------------------------------------------------------
# Situations and moves, for the deck-specific effect tests (test_pokemon_chien_pao.py,
# test_pokemon_staples.py)


def state_of(rules, p1, p2, **kw):
    """``build_state`` of the two players' descriptions."""
    from tcgjax.games.pokemon.scenario import build_state

    return build_state(rules, [p1, p2], **kw)


def run(apply, state, actions, key=None):
    """Apply the actions in order (one key each, folded from ``key``, default PRNGKey(0))."""
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0) if key is None else key
    for i, action in enumerate(actions):
        state, _ = apply(state, jnp.int32(action), jax.random.fold_in(key, i))
    return state


def phase(state) -> str:
    return R.PHASES[int(state.board.phase)]


def card_action(rules, kind, card_id) -> int:
    """The id of a card-indexed action (``play``, ``select_card``) on ``card_id``."""
    return act(rules, kind, card=card_id)


def slot_action(rules, k) -> int:
    return rules.actions.encode("select_slot", k)


def done_action(rules) -> int:
    return rules.actions.encode("done", 0)


def legal(errors, state) -> list[int]:
    """The action ids ``errors`` (a named ``action_errors``) calls ok."""
    return [a for a, e in enumerate(errors(state)) if e == "ok"]


# Cards of the League Battle Decks shipped before their decks (Charmander's line to Charizard ex,
# Rare Candy, Pidgey's line to Pidgeot ex, Artazon, Moltres, Prime Catcher, Drifloon, Zeraora,
# Bidoof's line, Regieleki, TM: Evolution, Miraidon ex, Regieleki V and VMAX, Forest Seal Stone,
# Leafy Camo Poncho), with Eelektross's line (an attack's gust, for Charmeleon's protection) and a
# few Trainers and Energy (60 cards).
LEAGUE_DECK = (
    ["sv4pt5-7"] * 2 + ["sv4pt5-8"] * 2 + ["sv3pt5-16"] * 3 + ["sv3pt5-17"] * 2
    + ["sv3pt5-146"] * 2 + ["sv5-157"] + ["sv1-89"] + ["swsh12-56"] * 2 + ["swsh9-120"] * 2
    + ["swsh9-121"] * 2 + ["swsh10-51"] * 2 + ["sv3-67", "sv3-68", "sv3-69"]
    + ["sv3-164"] * 2 + ["sv2-171"] + ["sv3-125"] * 2 + ["sv1-191"]
    + ["sve-2"] * 5 + ["sve-5"] * 3 + ["sve-4"] * 6 + ["sv4-178"] * 2
    + ["swsh12-57"] * 2 + ["sv1-181"] + ["sv2-172"] * 2 + ["swsh12-58"] * 2 + ["sv2-185"] * 2
    + ["sv1-81"] * 2
    + ["swsh12-156"] * 2 + ["swsh12-160"]
)  # fmt: skip


@functools.cache
def league_rules() -> R.PokemonRules:
    """The rules over the test registry with :data:`LEAGUE_DECK` in both seats."""
    return _test_deck_rules("league", LEAGUE_DECK)


# The Gardevoir ex League Battle Deck's own Pokémon, with Pokémon to meet them (Charmeleon's
# protection from attack effects, Cresselia's and Regieleki's two attacks), the Energy their
# attacks need (Water for Radiant Greninja and Lumineon V) and a few Trainers (60 cards).
GARDEVOIR_TEST_DECK = (
    ["sv1-86"] * 2 + ["swsh12-67"] * 3 + ["swsh12-68"] * 2 + ["swsh11-74"] * 2
    + ["swsh9-40"] * 2 + ["sv3pt5-151"] * 2 + ["swsh10-46"] * 2
    + ["sv4pt5-7"] * 2 + ["sv4pt5-8"] * 2 + ["swsh9-120"] * 2 + ["swsh9-121"] + ["swsh10-51"]
    + ["sv2-172"] * 2 + ["sv2-185"] * 2 + ["sv1-175"] + ["sv1-181"] * 2 + ["sv2-173"] * 2
    + ["sve-5"] * 15 + ["sve-3"] * 8 + ["sve-4"] * 3 + ["sve-2"] * 2
)  # fmt: skip


@functools.cache
def gardevoir_rules() -> R.PokemonRules:
    """The rules over the test registry with :data:`GARDEVOIR_TEST_DECK` in both seats."""
    return _test_deck_rules("gardevoir", GARDEVOIR_TEST_DECK)
