"""Effect-row options the shipped cards never use, with test-only cards (P4), so that the
interpreter's arithmetic is pinned beyond what the two decks reach: a ``min_energy_on_self``
condition counting one Energy type only (the shipped use is a passive HP bonus, computed
elsewhere), extra damage per attached Energy of any type (``energy_type: none``: every unit
counts), and extra damage per damage counter on a Defending Pokémon with 9 or more counters.

Then a row with two gates (issue #32): Eelektross's Suction Shock paralyzes only when the switch
happened *and* the coin shows heads. Which way the coin falls for a key is read from a witness, a
test-only Pokémon with the attack's rows as they were (one gate a row: the paralysis needs heads
alone), which reads the same coin as Eelektross (the same rows in the same order, the same key)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import yaml
from pokemon_testlib import TEST_ENTRIES, act, attack, pile, pokemon

from tcgjax.core.cards import CardRegistry
from tcgjax.games.pokemon import cards as C
from tcgjax.games.pokemon import rules as R
from tcgjax.games.pokemon.decks import Deck
from tcgjax.games.pokemon.scenario import build_state


def plus_attack(name, cost, damage):
    return dict(name=name, cost=list(cost), damage=damage, damage_mode="plus")


ROW_ENTRIES = [
    # 10, and 50 more if at least 2 Lightning Energy units are attached to it.
    pokemon("t-typed", "Test Typed", "basic", "lightning", 150,
            attacks=[plus_attack("Typed Charge", ["colorless"], 10)],
            effects=[{"where": "attack0", "op": "extra_damage", "gate": "condition",
                      "condition": "min_energy_on_self", "condition_value": 2,
                      "energy_type": "lightning", "amount": 50}]),
    # 10, and 10 more per Energy unit of any type attached to it.
    pokemon("t-any", "Test Any", "basic", "colorless", 150,
            attacks=[plus_attack("Any Charge", ["colorless"], 10)],
            effects=[{"where": "attack0", "op": "extra_damage_per_energy", "amount": 10,
                      "target": "self"}]),
    # 10, and 10 more per damage counter on the Defending Pokémon.
    pokemon("t-counter", "Test Counter", "basic", "colorless", 150,
            attacks=[plus_attack("Count Up", ["colorless"], 10)],
            effects=[{"where": "attack0", "op": "extra_damage_per_counter", "amount": 10,
                      "target": "opponent_active"}]),
    pokemon("t-wall", "Test Wall", "basic", "colorless", 300),
    # The witness: Suction Shock with its rows as they were, one gate a row (the switch, 60 damage
    # if it happened, Paralyzed on heads whether it happened or not).
    pokemon("t-old-suction", "Test Old Suction", "basic", "lightning", 160,
            attacks=[attack("Suction Shock", ["lightning"], 0)],
            effects=[{"where": "attack0", "op": "gust", "target": "opponent_bench"},
                     {"where": "attack0", "op": "damage", "gate": "previous", "amount": 60,
                      "target": "opponent_active"},
                     {"where": "attack0", "op": "apply_status", "gate": "heads",
                      "status": "paralyzed", "target": "opponent_active"}]),
]  # fmt: skip
DECK = (
    ["t-typed", "t-any", "t-counter"] * 4
    + ["t-wall"] * 4
    + ["sv3-67", "sv3-68", "sv3-69", "t-old-suction"]  # Tynamo, Eelektrik, Eelektross, witness
    + ["sve-4"] * 20  # basic Lightning Energy
    + ["sve-8"] * 16  # basic Metal Energy
    + ["swsh9-151"] * 4  # Double Turbo Energy: 2 Colorless units, -20 damage
)


@functools.cache
def row_rules() -> R.PokemonRules:
    with open(C.SHIPPED_CARDS) as fh:
        shipped = yaml.safe_load(fh)["cards"]
    registry = CardRegistry(
        C.SCHEMA, shipped + TEST_ENTRIES + ROW_ENTRIES, source="pokemon effect-row test cards"
    )
    C.check_card_rules(registry)
    deck = Deck(name="rows", source="<row test deck>", cards=tuple(DECK))
    return R.PokemonRules((deck, deck), cards=registry, max_turns=60)


@pytest.fixture(scope="module")
def apply():
    return jax.jit(row_rules().apply)


@pytest.fixture(scope="module")
def attack_with(apply):
    """``attack_with(attacker pile, defender damage)``: the first attack of the attacker (player 1's
    Active, turn 3) on Test Wall; returns the damage on the wall."""
    rules = row_rules()

    def run(attacker, defender_damage=0):
        state = build_state(
            rules,
            [{"slots": [attacker]}, {"slots": [["t-wall"]], "damage": {0: defender_damage}}],
            turn=3,
        )
        state, _ = apply(state, jnp.int32(act(rules, "attack", 0)), jax.random.PRNGKey(0))
        assert int(state.board.active_player) == 1, "the attack ended the turn"
        return int(state.damage[1, 0])

    return run


@pytest.mark.parametrize(
    ("energy", "bonus"),
    [
        (["sve-4", "sve-4"], 50),  # 2 Lightning: the condition holds
        (["sve-4"], 0),
        (["sve-4", "sve-8"], 0),  # 1 Lightning and 1 Metal: 2 units, but only 1 of the type
        (["sve-8", "sve-8", "sve-8"], 0),  # Metal only
    ],
)
def test_a_min_energy_condition_counts_only_its_energy_type(attack_with, energy, bonus):
    assert attack_with(["t-typed", *energy]) == 10 + bonus


@pytest.mark.parametrize(
    ("energy", "damage"),
    [
        (["sve-4"], 10 + 10),
        (["sve-4", "sve-8"], 10 + 20),  # one unit of each type: both count
        (["sve-8", "sve-4", "sve-8"], 10 + 30),
        (["swsh9-151", "sve-8"], 10 + 30 - 20),  # DTE: 2 Colorless units, then its -20
    ],
)
def test_extra_damage_per_energy_of_any_type_counts_every_unit(attack_with, energy, damage):
    assert attack_with(["t-any", *energy]) == damage


@pytest.mark.parametrize("counters", [0, 5, 9, 12])
def test_extra_damage_per_counter_counts_tens_of_damage(attack_with, counters):
    before = 10 * counters
    assert attack_with(["t-counter", "sve-4"], before) == before + 10 + 10 * counters


# -------------------------------------------------------------------------------------------------
# Two gates on a row: Suction Shock's paralysis needs the switch ("if you do") and heads.

KEYS = [jax.random.PRNGKey(k) for k in range(16)]
EELEKTROSS = ["sv3-67", "sv3-68", "sv3-69", "sve-4"]
WITNESS = ["t-old-suction", "sve-4"]
OPPONENT_BENCH = 6 + 1  # select_slot: the opponent's slots come after the player's 6


def suction_shock_states(attacker, bench):
    """Player 1's ``attacker`` against Test Wall, with Test Counter on the opponent's Bench or no
    Bench, and the actions of Suction Shock (with a Bench: attack, then choose the Bench's one
    Pokémon)."""
    rules = row_rules()
    slots = [["t-wall"], ["t-counter"]] if bench else [["t-wall"]]
    state = build_state(rules, [{"slots": [attacker]}, {"slots": slots}], turn=3)
    actions = [act(rules, "attack", 0)]
    if bench:
        actions.append(rules.actions.encode("select_slot", OPPONENT_BENCH))
    return state, actions


def suction_shock(apply, attacker, *, bench, key):
    """The state after ``attacker``'s Suction Shock, one key per action folded from ``key``."""
    state, actions = suction_shock_states(attacker, bench)
    for i, action in enumerate(actions):
        state, _ = apply(state, jnp.int32(action), jax.random.fold_in(key, i))
    assert int(state.board.active_player) == 1, "the attack ended the turn"
    return state


def paralyzed(state):
    return R.ROTATED[int(state.rotated[1])] == "paralyzed"


def key_showing(apply, coin, *, bench):
    """A key whose Suction Shock coin shows ``coin`` in this situation, read from the witness
    (its paralysis needs heads alone)."""
    for key in KEYS:
        if paralyzed(suction_shock(apply, WITNESS, bench=bench, key=key)) == (coin == "heads"):
            return key
    raise AssertionError(f"no key of {len(KEYS)} shows {coin}")


@pytest.mark.parametrize("coin", ["heads", "tails"])
def test_suction_shock_without_a_bench_does_nothing_to_the_active(apply, coin):
    """No Benched Pokémon: nothing is switched, so neither the 60 damage nor the paralysis."""
    s = suction_shock(apply, EELEKTROSS, bench=False, key=key_showing(apply, coin, bench=False))
    assert pile(row_rules(), s, 1, 0) == ["t-wall"]
    assert int(s.damage[1, 0]) == 0
    assert not paralyzed(s)


@pytest.mark.parametrize("coin", ["heads", "tails"])
def test_suction_shock_switches_deals_60_and_paralyzes_on_heads(apply, coin):
    s = suction_shock(apply, EELEKTROSS, bench=True, key=key_showing(apply, coin, bench=True))
    rules = row_rules()
    assert pile(rules, s, 1, 0) == ["t-counter"] and pile(rules, s, 1, 1) == ["t-wall"]
    assert int(s.damage[1, 0]) == 60 and int(s.damage[1, 1]) == 0
    assert paralyzed(s) == (coin == "heads")


def test_a_one_gate_row_plays_as_before(apply):
    """The witness's rows have one gate each, as every row had: its paralysis needs heads only,
    so it paralyzes on heads with or without a switch, and its 60 damage needs the switch."""
    for bench in (False, True):
        seen = set()
        for key in KEYS:
            s = suction_shock(apply, WITNESS, bench=bench, key=key)
            assert int(s.damage[1, 0]) == (60 if bench else 0)
            seen.add(paralyzed(s))
        assert seen == {True, False}


def test_two_gates_under_vmap_match_the_single_games(apply):
    """The four Suction Shock situations in one batch (each at the step that flips its coin)."""
    rules = row_rules()
    states, actions, keys, singles = [], [], [], []
    for bench in (False, True):
        for coin in ("heads", "tails"):
            key = key_showing(apply, coin, bench=bench)
            state, acts = suction_shock_states(EELEKTROSS, bench)
            for i, action in enumerate(acts[:-1]):
                state, _ = apply(state, jnp.int32(action), jax.random.fold_in(key, i))
            last = jax.random.fold_in(key, len(acts) - 1)
            states.append(state)
            actions.append(acts[-1])
            keys.append(last)
            singles.append(apply(state, jnp.int32(acts[-1]), last)[0])
    batch = jax.tree.map(lambda *xs: jnp.stack(xs), *states)
    vmapped, _ = jax.jit(jax.vmap(rules.apply))(batch, jnp.asarray(actions), jnp.stack(keys))
    for i, single in enumerate(singles):
        for a, b in zip(jax.tree.leaves(single), jax.tree.leaves(vmapped), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b)[i])
    assert [paralyzed(s) for s in singles] == [False, False, True, False]


def test_the_activation_kinds_keep_the_numbers_saved_states_record():
    # A JSON state or replay records ``game.effect_kind`` as a number (core/serialization), and
    # the validator names them in this order ("none, attack, Trainer, Ability or Stadium"):
    # renumbering a kind would misread every saved state of a pending activation.
    from tcgjax.games.pokemon import effects as E

    kinds = (E.NO_EFFECT, E.ATTACK, E.TRAINER, E.ABILITY, E.STADIUM)
    assert kinds == (0, 1, 2, 3, 4)
