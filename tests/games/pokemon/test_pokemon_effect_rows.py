"""Effect-row options the shipped cards never use, with test-only cards (P4), so that the
interpreter's arithmetic is pinned beyond what the two decks reach: a ``min_energy_on_self``
condition counting one Energy type only (the shipped use is a passive HP bonus, computed
elsewhere), extra damage per attached Energy of any type (``energy_type: none``: every unit
counts), and extra damage per damage counter on a Defending Pokémon with 9 or more counters."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import pytest
import yaml
from pokemon_testlib import TEST_ENTRIES, act, pokemon

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
]  # fmt: skip
DECK = (
    ["t-typed", "t-any", "t-counter"] * 4
    + ["t-wall"] * 4
    + ["sve-4"] * 20  # basic Lightning Energy
    + ["sve-8"] * 20  # basic Metal Energy
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
def attack_with():
    """``attack_with(attacker pile, defender damage)``: the first attack of the attacker (player 1's
    Active, turn 3) on Test Wall; returns the damage on the wall."""
    rules = row_rules()
    apply = jax.jit(rules.apply)

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
