"""The effect primitives both card games share (tcgjax/core/primitives.py): durations, counting
"for each" and the card-filter table, each under jit, vmap and both."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tcgjax.core.primitives import (
    CONTROLLERS_NEXT_TURN,
    DURATIONS,
    OPPONENTS_NEXT_TURN,
    THIS_TURN,
    CardFilters,
    for_each,
    in_force,
    last_turn,
)

# (duration, controller is the turn player) -> turns from now to the last turn in force. Turn 7
# is the controller's when they are the turn player; the opponent plays turns 8 and the
# controller 9 in the first case, the controller 8 in the second.
LAST_TURN_CASES = [
    (THIS_TURN, True, 7),
    (THIS_TURN, False, 7),
    (OPPONENTS_NEXT_TURN, True, 8),  # my turn 7: the opponent's next is 8
    (OPPONENTS_NEXT_TURN, False, 9),  # their turn 7: my turn 8, theirs again 9
    (CONTROLLERS_NEXT_TURN, True, 9),  # my turn 7: theirs 8, mine 9
    (CONTROLLERS_NEXT_TURN, False, 8),  # their turn 7 (a [Security] effect): mine is 8
]


@pytest.mark.parametrize("duration, mine, expected", LAST_TURN_CASES)
def test_last_turn_counts_whose_turn_comes_next(duration, mine, expected):
    last = last_turn(duration, 7, mine)
    assert int(last) == expected and last.dtype == jnp.int32
    # In force through its last turn, over when that turn ends.
    assert bool(in_force(last, expected)) and not bool(in_force(last, expected + 1))
    assert bool(in_force(last, 7))


def test_durations_are_named_in_their_order():
    assert [DURATIONS[d] for d in (THIS_TURN, OPPONENTS_NEXT_TURN, CONTROLLERS_NEXT_TURN)] == [
        "this_turn",
        "opponents_next_turn",
        "controllers_next_turn",
    ]


def test_a_duration_outside_the_table_is_clipped_into_it():
    # Documented: the lookup stays in range (games check their rows on load). Below the table is
    # this turn, above it the controller's next turn.
    assert int(last_turn(-1, 7, True)) == 7 and int(last_turn(-5, 7, False)) == 7
    assert int(last_turn(3, 7, True)) == 9 and int(last_turn(9, 7, False)) == 8


def test_no_effect_is_in_force_on_turn_one_when_its_field_says_zero():
    # The games keep 0 for "no effect" in per-slot fields: turn numbers start at 1.
    assert not bool(in_force(jnp.int16(0), jnp.int16(1)))


def test_durations_under_jit_and_vmap_match_one_by_one():
    durations = jnp.asarray([c[0] for c in LAST_TURN_CASES])
    mine = jnp.asarray([c[1] for c in LAST_TURN_CASES])
    expected = [c[2] for c in LAST_TURN_CASES]
    batched = jax.jit(jax.vmap(last_turn, in_axes=(0, None, 0)))(durations, 7, mine)
    assert batched.tolist() == expected
    assert jax.vmap(last_turn, in_axes=(0, None, 0))(durations, 7, mine).tolist() == expected
    assert jax.jit(last_turn)(durations, 7, mine).tolist() == expected
    forced = jax.jit(jax.vmap(in_force, in_axes=(0, None)))(batched, 8)
    assert forced.tolist() == [False, False, True, True, True, True]


@pytest.mark.parametrize(
    "amount, count, per, expected",
    [(10, 3, 1, 30), (20, 0, 1, 0), (1000, 5, 2, 2000), (1000, 1, 2, 0), (-10, 4, 1, -40)],
)
def test_for_each_counts_whole_groups(amount, count, per, expected):
    assert int(for_each(amount, count, per)) == expected


def test_for_each_under_jit_and_vmap():
    counts = jnp.asarray([0, 1, 2, 3, 4, 5])
    every_two = jax.jit(jax.vmap(lambda c: for_each(1000, c, 2)))(counts)
    assert every_two.tolist() == [0, 0, 1000, 1000, 2000, 2000]
    assert jax.vmap(for_each, in_axes=(None, 0))(10, counts).tolist() == [0, 10, 20, 30, 40, 50]


# Five definitions (0 is padding), each with a kind and a level: rows filter by one or both.
KIND = np.asarray([0, 1, 1, 2, 1])
LEVEL = np.asarray([0, 3, 5, 0, 6])


def predicate(key):
    kind, max_level = key
    return (KIND == kind) & ((max_level < 0) | (LEVEL <= max_level))


def build():
    keys = [
        [],  # padding
        [None, (1, 4)],  # row 1: a kind-1 card of level 4 or lower
        [(1, -1)],  # any kind-1 card
        [(1, 4), None, (2, -1)],  # the same filter as definition 1's row 1: one table row
        [],
    ]
    return CardFilters.build(keys, num_rows=3, predicate=predicate)


def test_card_filters_share_one_row_per_distinct_filter():
    filters = build()
    assert filters.num_filters == 4  # none, (1, 4), (1, -1), (2, -1)
    assert filters.row_filter.tolist() == [[0, 0, 0], [0, 1, 0], [2, 0, 0], [1, 0, 3], [0, 0, 0]]
    assert filters.passes.tolist() == [
        [True] * 5,
        [False, True, False, False, False],
        [False, True, True, False, True],
        [False, False, False, True, False],
    ]


def test_card_filters_match_candidates_by_row():
    filters = build()
    candidates = jnp.arange(5)
    assert filters.matches(1, 1, candidates).tolist() == [False, True, False, False, False]
    assert filters.matches(1, 0, candidates).tolist() == [True] * 5  # a row with no filter
    assert filters.matches(3, 2, candidates).tolist() == [False, False, False, True, False]
    # Under jit and vmap: a batch of (definition, row) pairs, each against every candidate.
    pick = jax.jit(jax.vmap(filters.matches, in_axes=(0, 0, None)))
    got = pick(jnp.asarray([2, 3]), jnp.asarray([0, 0]), candidates)
    assert got.tolist() == [[False, True, True, False, True], [False, True, False, False, False]]


def test_card_filters_without_any_filter_pass_everything_with_no_table_lookup():
    filters = CardFilters.build([[], [None, None]], num_rows=2, predicate=predicate)
    assert filters.num_filters == 1
    assert jax.jit(filters.matches)(1, 1, jnp.asarray([[0, 1]])).tolist() == [[True, True]]
    program = jax.make_jaxpr(filters.matches)(1, 1, jnp.asarray([0, 1]))
    assert not [e for e in program.jaxpr.eqns if e.primitive.name == "gather"]
    # With a filter, one gather of the row's filter and one of the candidates.
    program = jax.make_jaxpr(build().matches)(1, 1, jnp.asarray([0, 1]))
    assert [e.primitive.name for e in program.jaxpr.eqns].count("gather") >= 1


def test_card_filters_refuse_a_definition_longer_than_the_table_and_a_bad_predicate():
    with pytest.raises(ValueError, match="definition 1 has 3 rows, the table 2"):
        CardFilters.build([[], [None, None, (1, 4)]], num_rows=2, predicate=predicate)
    with pytest.raises(ValueError, match=r"filter \(1, 4\): predicate shape \(4,\)"):
        CardFilters.build([[], [(1, 4)]], num_rows=1, predicate=lambda key: np.ones(4, bool))


def test_card_filters_cannot_be_changed_after_they_are_built():
    # A jitted step has the tables baked in: a later change would not reach it, so none is allowed.
    filters = build()
    with pytest.raises(dataclasses.FrozenInstanceError):
        filters.passes = np.zeros_like(filters.passes)
