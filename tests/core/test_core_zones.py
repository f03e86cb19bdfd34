"""Zone commands and queries (tcgjax/core/zones.py), on the hand-built layout of ``core_testlib``.

Every situation is constructed explicitly; randomness only enters through ``shuffle`` with fixed
keys.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from core_testlib import (
    BOARD_P1,
    BOARD_P2,
    DECK_P1,
    DECK_P2,
    FULL_PLACEMENT,
    HAND_P1,
    HAND_P2,
    LIMBO,
    STACK,
    ZONES,
    assert_boards_equal,
    assert_dense,
    board_with_zones,
    initial_cards,
    make_layout,
    make_zone_types,
    reference_move,
    stack_boards,
    zone_lists,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from tcgjax.core import board as board_lib
from tcgjax.core import errors, zones
from tcgjax.core.board import new_board
from tcgjax.core.zones import BOTTOM, TOP

INITIAL_LISTS = [[0, 1, 2], [3, 4], [5], [], [], [6], [7], []]


@pytest.fixture(scope="module")
def full_board(layout):
    return board_with_zones(layout, FULL_PLACEMENT)


def _applied(board, result, expected_lists, layout):
    assert int(result.error) == errors.OK
    assert int(result.board.version) == int(board.version) + 1
    assert zone_lists(layout, result.board) == expected_lists
    assert_dense(layout, result.board)
    # A move never changes what a card is or who owns it.
    np.testing.assert_array_equal(result.board.definition, board.definition)
    np.testing.assert_array_equal(result.board.owner, board.owner)
    np.testing.assert_array_equal(result.board.visibility, board.visibility)


def _rejected(board, result, code):
    assert int(result.error) == code, errors.CORE_ERRORS[int(result.error)].name
    assert result.error.dtype == jnp.int32
    assert_boards_equal(result.board, board)


# -------------------------------------------------------------------------------------------------
# The starting board


def test_new_board_stacks_cards_in_list_order(layout, board0):
    assert zone_lists(layout, board0) == INITIAL_LISTS
    np.testing.assert_array_equal(board0.position, [0, 1, 2, 0, 1, 0, 0, 0])
    assert int(board0.version) == 0
    assert int(board0.turn_number) == 1
    np.testing.assert_array_equal(board0.visibility, [-1] * 8)
    assert board0.card_attributes.shape == (8, 1)
    assert board0.player_attributes.shape == (2, 2)
    assert_dense(layout, board0)


# -------------------------------------------------------------------------------------------------
# Queries


def test_zone_counts(layout, board0, full_board):
    np.testing.assert_array_equal(zones.zone_counts(layout, board0), [3, 2, 1, 0, 0, 1, 1, 0])
    np.testing.assert_array_equal(zones.zone_counts(layout, full_board), [1, 2, 3, 0, 0, 2, 0, 0])
    assert zones.zone_counts(layout, board0).dtype == jnp.int32


@pytest.mark.parametrize(
    ("zone", "count"), [(DECK_P1, 3), (DECK_P2, 2), (HAND_P1, 1), (HAND_P2, 0), (STACK, 1)]
)
def test_zone_count(board0, zone, count):
    got = zones.zone_count(board0, zone)
    assert int(got) == count
    assert got.dtype == jnp.int32


def test_definition_counts(layout, board0):
    d = layout.cards.index
    n = len(layout.cards)
    in_decks = (board0.zone == DECK_P1) | (board0.zone == DECK_P2)
    counts = zones.definition_counts(board0, in_decks, n)
    expected = np.zeros(n, np.int32)
    for name in ("alpha_goblin", "alpha_goblin", "bolt", "mid_knight", "zeta_dragon"):
        expected[d(name)] += 1
    np.testing.assert_array_equal(counts, expected)
    assert counts.dtype == jnp.int32
    # Nothing selected counts nothing; under vmap each board counts its own selection.
    np.testing.assert_array_equal(zones.definition_counts(board0, board0.zone < 0, n), 0)
    selections = jnp.stack([in_decks, board0.zone == STACK])
    batched = jax.jit(jax.vmap(zones.definition_counts, (None, 0, None)), static_argnums=2)(
        board0, selections, n
    )
    np.testing.assert_array_equal(batched[0], expected)
    np.testing.assert_array_equal(batched[1], np.eye(n, dtype=np.int32)[d("zeta_dragon")])
    # Grouped: decks by player (groups 0 and 1), every other card in no group (-1 or >= 2).
    group = jnp.where(board0.zone == DECK_P1, 0, jnp.where(board0.zone == DECK_P2, 1, -1))
    group = jnp.where(board0.zone == STACK, 5, group)
    grouped = zones.grouped_definition_counts(board0, group, 2, n)
    assert grouped.shape == (2, n) and grouped.dtype == jnp.int32
    np.testing.assert_array_equal(grouped.sum(axis=0), expected)
    np.testing.assert_array_equal(
        grouped[1], np.eye(n, dtype=np.int32)[[d("zeta_dragon"), d("alpha_goblin")]].sum(0)
    )


def test_zone_slots(board0):
    np.testing.assert_array_equal(zones.zone_slots(board0, DECK_P1, 4), [0, 1, 2, -1])
    # num_slots below the count truncates: only the bottom slots come back.
    np.testing.assert_array_equal(zones.zone_slots(board0, DECK_P1, 2), [0, 1])
    np.testing.assert_array_equal(zones.zone_slots(board0, HAND_P2, 3), [-1, -1, -1])
    np.testing.assert_array_equal(zones.zone_slots(board0, STACK, 1), [7])
    assert zones.zone_slots(board0, DECK_P1, 4).dtype == jnp.int32


def _listing_tables(listed):
    """``{zone: (start, width)}`` -> the int32[8] start and width tables of ``zone_listing``."""
    start, width = np.full(len(ZONES), -1, np.int32), np.zeros(len(ZONES), np.int32)
    for zone, (first, size) in listed.items():
        start[zone], width[zone] = first, size
    return jnp.asarray(start), jnp.asarray(width)


def test_zone_listing_lays_zones_end_to_end(board0):
    # board0: DECK_P1 [0, 1, 2], DECK_P2 [3, 4], HAND_P1 [5], BOARD_P2 [6], STACK [7].
    values = jnp.arange(8, dtype=jnp.int32) * 10
    start, width = _listing_tables({DECK_P2: (0, 3), DECK_P1: (3, 2), STACK: (5, 1)})
    listing = zones.zone_listing(board0, start, width, values, 7)
    # DECK_P2 padded to its width 3, DECK_P1 cut to its bottom 2, STACK, one spare entry; the
    # unlisted HAND_P1 and BOARD_P2 cards go nowhere.
    np.testing.assert_array_equal(listing, [30, 40, -1, 0, 10, 70, -1])
    assert listing.dtype == jnp.int32
    floats = zones.zone_listing(board0, start, width, values.astype(jnp.float32), 6, fill=0.5)
    np.testing.assert_array_equal(floats, [30.0, 40.0, 0.5, 0.0, 10.0, 70.0])
    assert floats.dtype == jnp.float32


def test_zone_listing_follows_positions(layout, board0):
    reordered = zones.move_card(layout, board0, 2, DECK_P1, BOTTOM).board  # DECK_P1 [2, 0, 1]
    start, width = _listing_tables({DECK_P1: (1, 3)})
    listing = zones.zone_listing(reordered, start, width, jnp.arange(8, dtype=jnp.int32), 4)
    np.testing.assert_array_equal(listing, [-1, 2, 0, 1])
    # Each listed zone's slice equals zone_slots of that zone.
    np.testing.assert_array_equal(listing[1:], zones.zone_slots(reordered, DECK_P1, 3))


def test_zone_listing_lists_a_zone_top_first(board0):
    # DECK_P1 [0, 1, 2] from the top: 2 first; width 2 keeps the top two. DECK_P2 [3, 4] as usual.
    start, width = _listing_tables({DECK_P1: (0, 2), DECK_P2: (2, 3)})
    top_first = jnp.zeros(len(ZONES), bool).at[DECK_P1].set(True)
    values = jnp.arange(8, dtype=jnp.int32)
    listing = zones.zone_listing(board0, start, width, values, 5, top_first=top_first)
    np.testing.assert_array_equal(listing, [2, 1, 3, 4, -1])
    wide = _listing_tables({DECK_P1: (0, 4)})
    listing = zones.zone_listing(board0, *wide, values, 4, top_first=top_first)
    np.testing.assert_array_equal(listing, [2, 1, 0, -1])  # padded after the bottom card


def test_zone_slots_follow_positions_not_card_indices(layout, board0):
    # Put card 2 at the bottom of its deck: the slots are [2, 0, 1], not index order.
    moved = zones.move_card(layout, board0, 2, DECK_P1, BOTTOM).board
    np.testing.assert_array_equal(zones.zone_slots(moved, DECK_P1, 3), [2, 0, 1])
    assert int(zones.card_at(moved, DECK_P1, 0)) == 2
    assert int(zones.top_card(moved, DECK_P1)) == 1


@pytest.mark.parametrize(
    ("zone", "position", "card"),
    [(DECK_P1, 0, 0), (DECK_P1, 2, 2), (DECK_P1, 3, -1), (DECK_P1, -1, -1), (DECK_P2, 1, 4),
     (HAND_P2, 0, -1), (BOARD_P2, 0, 6)],
)  # fmt: skip
def test_card_at(board0, zone, position, card):
    got = zones.card_at(board0, zone, position)
    assert int(got) == card
    assert got.dtype == jnp.int32


@pytest.mark.parametrize(
    ("zone", "card"), [(DECK_P1, 2), (DECK_P2, 4), (HAND_P1, 5), (HAND_P2, -1), (LIMBO, -1)]
)
def test_top_card(board0, zone, card):
    assert int(zones.top_card(board0, zone)) == card


def test_contains(board0):
    for card, zone in enumerate([DECK_P1] * 3 + [DECK_P2] * 2 + [HAND_P1, BOARD_P2, STACK]):
        for z in range(8):
            got = zones.contains(board0, z, card)
            assert got.dtype == jnp.bool_
            assert bool(got) == (z == zone), (card, z)


# -------------------------------------------------------------------------------------------------
# move_card


def test_move_to_top_closes_source_gap_and_opens_destination(layout, board0):
    # Card 0 is at the bottom of deck_player1: cards 1 and 2 move down one.
    result = zones.move_card(layout, board0, 0, HAND_P1, TOP)
    _applied(board0, result, [[1, 2], [3, 4], [5, 0], [], [], [6], [7], []], layout)
    np.testing.assert_array_equal(np.asarray(result.board.position)[[1, 2, 0, 5]], [0, 1, 1, 0])


def test_move_default_position_is_top(layout, board0):
    a = zones.move_card(layout, board0, 3, STACK)
    b = zones.move_card(layout, board0, 3, STACK, TOP)
    assert_boards_equal(a.board, b.board)
    assert zone_lists(layout, a.board)[STACK] == [7, 3]


def test_move_to_bottom(layout, board0):
    result = zones.move_card(layout, board0, 2, STACK, BOTTOM)
    _applied(board0, result, [[0, 1], [3, 4], [5], [], [], [6], [2, 7], []], layout)


def test_move_to_an_index(layout, board0):
    # Card 3 (bottom of deck_player2) goes between cards 0 and 1 of deck_player1.
    result = zones.move_card(layout, board0, 3, DECK_P1, 1)
    _applied(board0, result, [[0, 3, 1, 2], [4], [5], [], [], [6], [7], []], layout)
    assert int(result.board.owner[3]) == 1  # moving into p1's deck does not change the owner


def test_move_at_index_equal_to_count_is_top(layout, board0):
    a = zones.move_card(layout, board0, 4, DECK_P1, 3)
    b = zones.move_card(layout, board0, 4, DECK_P1, TOP)
    assert int(a.error) == 0
    assert_boards_equal(a.board, b.board)


@pytest.mark.parametrize(
    ("card", "position", "order"),
    [
        (0, TOP, [1, 2, 0]),
        (0, 2, [1, 2, 0]),
        (2, BOTTOM, [2, 0, 1]),
        (0, 1, [1, 0, 2]),
        (2, 1, [0, 2, 1]),
        (1, 1, [0, 1, 2]),  # re-inserted where it was: applied, nothing moves
        (2, TOP, [0, 1, 2]),
    ],
)
def test_move_within_same_zone(layout, board0, card, position, order):
    result = zones.move_card(layout, board0, card, DECK_P1, position)
    _applied(board0, result, [order] + INITIAL_LISTS[1:], layout)


def test_move_within_same_zone_past_new_top_is_rejected(layout, board0):
    # Without the card, deck_player1 holds 2 cards: valid positions are 0..2.
    _rejected(board0, zones.move_card(layout, board0, 0, DECK_P1, 3), errors.POSITION_OUT_OF_RANGE)


def test_move_into_unordered_zone_keeps_dense_slots(layout, board0):
    r1 = zones.move_card(layout, board0, 5, BOARD_P1, TOP)
    r2 = zones.move_card(layout, r1.board, 2, BOARD_P1, BOTTOM)
    _applied(r1.board, r2, [[0, 1], [3, 4], [], [], [2, 5], [6], [7], []], layout)
    assert int(r2.board.version) == 2


def test_move_within_a_full_zone_is_allowed(layout, full_board):
    # hand_player1 is at max_size 3; re-ordering its own card does not need a free slot.
    result = zones.move_card(layout, full_board, 5, HAND_P1, BOTTOM)
    expected = zone_lists(layout, full_board)
    expected[HAND_P1] = [5, 1, 2]
    _applied(full_board, result, expected, layout)


@pytest.mark.parametrize(
    ("card", "zone", "position", "code"),
    [
        (8, STACK, TOP, errors.CARD_OUT_OF_RANGE),
        (-1, STACK, TOP, errors.CARD_OUT_OF_RANGE),
        (100, STACK, TOP, errors.CARD_OUT_OF_RANGE),
        (0, 8, TOP, errors.ZONE_OUT_OF_RANGE),
        (0, -1, TOP, errors.ZONE_OUT_OF_RANGE),
        (0, 1000, TOP, errors.ZONE_OUT_OF_RANGE),
        (0, STACK, 2, errors.POSITION_OUT_OF_RANGE),  # stack has 1 card: 0..1 are valid
        (0, STACK, -2, errors.POSITION_OUT_OF_RANGE),
        (0, HAND_P2, 1, errors.POSITION_OUT_OF_RANGE),  # empty zone: only 0 is valid
        # The first failing check wins.
        (8, 8, 5, errors.CARD_OUT_OF_RANGE),
        (0, 8, 5, errors.ZONE_OUT_OF_RANGE),
    ],
)
def test_move_errors_change_nothing(layout, board0, card, zone, position, code):
    _rejected(board0, zones.move_card(layout, board0, card, zone, position), code)


@pytest.mark.parametrize("position", [TOP, BOTTOM, 1, 3, 7, -2])
def test_move_into_full_zone_is_rejected_not_dropped(layout, full_board, position):
    # hand_player1 holds 3/3: any push is zone_full (checked before the position).
    result = zones.move_card(layout, full_board, 0, HAND_P1, position)
    _rejected(full_board, result, errors.ZONE_FULL)
    assert int(zones.zone_count(result.board, DECK_P1)) == 1  # the card stayed where it was


def test_move_into_full_board_zone(layout, full_board):
    _rejected(full_board, zones.move_card(layout, full_board, 3, BOARD_P2, TOP), errors.ZONE_FULL)
    # After one card leaves, there is room again.
    freed = zones.move_card(layout, full_board, 6, STACK).board
    result = zones.move_card(layout, freed, 3, BOARD_P2, TOP)
    assert int(result.error) == 0
    assert zone_lists(layout, result.board)[BOARD_P2] == [7, 3]


def test_version_counts_applied_commands_only(jitted, board0):
    b = board0
    script = [(0, STACK, TOP, 0), (8, STACK, TOP, 3), (1, STACK, BOTTOM, 0), (1, 99, TOP, 4)]
    for card, zone, position, code in script:
        result = jitted.move_card(b, card, zone, position)
        assert int(result.error) == code
        b = result.board
    assert int(b.version) == 2


# -------------------------------------------------------------------------------------------------
# draw


def test_draw_takes_the_top_card(layout, board0):
    result = zones.draw(layout, board0, DECK_P1, HAND_P1)
    _applied(board0, result, [[0, 1], [3, 4], [5, 2], [], [], [6], [7], []], layout)


def test_draw_until_empty(layout, jitted, board0):
    b = board0
    for expected_card in (2, 1, 0):
        assert int(zones.top_card(b, DECK_P1)) == expected_card
        result = jitted.draw(b, DECK_P1, STACK)
        assert int(result.error) == 0
        b = result.board
    assert zone_lists(layout, b)[STACK] == [7, 2, 1, 0]
    assert int(b.version) == 3
    _rejected(b, jitted.draw(b, DECK_P1, STACK), errors.ZONE_EMPTY)


@pytest.mark.parametrize(
    ("src", "dst", "code"),
    [
        (HAND_P2, HAND_P1, errors.ZONE_EMPTY),
        (LIMBO, STACK, errors.ZONE_EMPTY),
        (DECK_P1, 8, errors.ZONE_OUT_OF_RANGE),
        (DECK_P1, -3, errors.ZONE_OUT_OF_RANGE),
    ],
)
def test_draw_errors_change_nothing(layout, board0, src, dst, code):
    _rejected(board0, zones.draw(layout, board0, src, dst), code)


@pytest.mark.parametrize("src", [-1, 8, 100])
def test_draw_from_out_of_range_zone_is_rejected(layout, board0, src):
    result = zones.draw(layout, board0, src, STACK)
    assert int(result.error) == errors.ZONE_OUT_OF_RANGE
    assert_boards_equal(result.board, board0)


def test_draw_into_full_zone_is_rejected(layout, full_board):
    _rejected(full_board, zones.draw(layout, full_board, DECK_P1, HAND_P1), errors.ZONE_FULL)


# -------------------------------------------------------------------------------------------------
# draw_n and swap_zones


def test_draw_n_moves_the_top_cards_as_repeated_draws_would(layout, board0):
    # The deck's top card (2) is drawn first, so it ends lowest of the drawn cards.
    result = zones.draw_n(layout, board0, DECK_P1, STACK, 2)
    _applied(board0, result, [[0], [3, 4], [5], [], [], [6], [7, 2, 1], []], layout)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_draw_n_equals_n_draws(layout, board0, n):
    expected = board0
    for _ in range(n):
        expected = zones.draw(layout, expected, DECK_P1, STACK).board
    result = jax.jit(functools.partial(zones.draw_n, layout))(board0, DECK_P1, STACK, n)
    assert int(result.error) == 0
    assert zone_lists(layout, result.board) == zone_lists(layout, expected)
    assert int(result.board.version) == 1  # one command, whatever n


@pytest.mark.parametrize(
    ("src", "dst", "n", "code"),
    [
        (DECK_P1, STACK, 4, errors.ZONE_EMPTY),  # 3 cards, 4 asked: nothing moves
        (DECK_P1, STACK, -1, errors.ZONE_EMPTY),
        (DECK_P1, DECK_P1, 1, errors.ZONE_OUT_OF_RANGE),
        (DECK_P1, 8, 1, errors.ZONE_OUT_OF_RANGE),
        (-1, STACK, 1, errors.ZONE_OUT_OF_RANGE),
        (8, STACK, 1, errors.ZONE_OUT_OF_RANGE),  # the first index past the 8 zones
        (DECK_P1, HAND_P1, 3, errors.ZONE_FULL),  # the hand holds 1 of at most 3
    ],
)
def test_draw_n_errors_change_nothing(layout, board0, src, dst, n, code):
    _rejected(board0, zones.draw_n(layout, board0, src, dst, n), code)


def test_draw_n_fills_a_zone_exactly_to_its_max_size(layout, board0):
    result = zones.draw_n(layout, board0, DECK_P1, HAND_P1, 2)
    _applied(board0, result, [[0], [3, 4], [5, 2, 1], [], [], [6], [7], []], layout)


def test_zone_types_are_immutable_once_declared():
    # A registry hands out its ZoneType objects: a caller must not be able to change the
    # capacity or visibility of a type that boards were laid out with.
    deck = make_zone_types()["deck"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        deck.max_size = 1


def test_draw_n_into_the_first_zone(layout, board0):
    # Zone 0 (deck_player1) is a destination like any other.
    result = zones.draw_n(layout, board0, DECK_P2, DECK_P1, 2)
    _applied(board0, result, [[0, 1, 2, 4, 3], [], [5], [], [], [6], [7], []], layout)


def test_moves_check_the_capacity_of_the_last_zone_itself():
    # The last zone instance is a hand (at most 3) right after an unlimited one: its own
    # max_size, not its neighbour's, bounds what may enter it.
    layout = board_lib.BoardLayout(
        num_players=2,
        zone_types=make_zone_types(),
        zones=(*ZONES[:3], *ZONES[4:], ("hand", 1)),
        cards=make_layout().cards,
        num_cards=8,
        card_attributes=("damage",),
        player_attributes=("life", "mana"),
        phases=("draw", "main", "end"),
    )
    last = layout.num_zones - 1
    bolt = layout.cards.index("bolt")
    # Cards 0-3 in deck_player2 (zone 1), 4-5 in the last zone, 6-7 in deck_player1 (zone 0).
    board = new_board(layout, [(bolt, 1, 1)] * 4 + [(bolt, 1, last)] * 2 + [(bolt, 0, 0)] * 2)
    assert int(zones.draw_n(layout, board, 1, last, 1).error) == errors.OK
    _rejected(board, zones.draw_n(layout, board, 1, last, 2), errors.ZONE_FULL)
    assert int(zones.move_card(layout, board, 0, last, TOP).error) == errors.OK
    once = zones.move_card(layout, board, 0, last, TOP).board
    _rejected(once, zones.move_card(layout, once, 1, last, TOP), errors.ZONE_FULL)
    _rejected(board, zones.move_all(layout, board, 1, last), errors.ZONE_FULL)
    assert int(zones.move_all(layout, board, 0, last).error) == errors.ZONE_FULL  # 2 + 2 > 3
    _rejected(board, zones.swap_zones(layout, board, 1, last), errors.ZONE_FULL)
    _rejected(board, zones.swap_zones(layout, board, last, 1), errors.ZONE_FULL)


def test_swap_zones_exchanges_piles_keeping_their_order(layout, board0):
    result = zones.swap_zones(layout, board0, DECK_P1, STACK)
    _applied(board0, result, [[7], [3, 4], [5], [], [], [6], [0, 1, 2], []], layout)
    # Swapping with an empty zone moves the pile; with itself, nothing moves.
    result = zones.swap_zones(layout, board0, DECK_P2, BOARD_P1)
    _applied(board0, result, [[0, 1, 2], [], [5], [], [3, 4], [6], [7], []], layout)
    result = zones.swap_zones(layout, board0, DECK_P1, DECK_P1)
    _applied(board0, result, zone_lists(layout, board0), layout)


@pytest.mark.parametrize(
    ("a", "b", "code"),
    [
        (DECK_P1, BOARD_P1, errors.ZONE_FULL),  # 3 cards into a board of at most 2
        (BOARD_P2, DECK_P1, errors.ZONE_FULL),  # the same, from the other side
        (DECK_P1, 8, errors.ZONE_OUT_OF_RANGE),
        (-1, DECK_P1, errors.ZONE_OUT_OF_RANGE),
        (DECK_P1, -1, errors.ZONE_OUT_OF_RANGE),  # each bound of each zone on its own
        (8, DECK_P1, errors.ZONE_OUT_OF_RANGE),
    ],
)
def test_swap_zones_errors_change_nothing(layout, board0, a, b, code):
    _rejected(board0, zones.swap_zones(layout, board0, a, b), code)


def test_draw_n_and_swap_zones_batched(layout, board0):
    boards = _batch(layout, board0)
    results = _assert_batched_matches(
        functools.partial(zones.draw_n, layout),
        boards,
        [[DECK_P1, DECK_P1, DECK_P2, DECK_P1], [STACK, HAND_P1, STACK, STACK], [1, 2, 2, 4]],
    )
    assert [int(r.error) for r in results] == [0, errors.ZONE_FULL, 0, errors.ZONE_EMPTY]
    results = _assert_batched_matches(
        functools.partial(zones.swap_zones, layout),
        boards,
        [[DECK_P1, DECK_P1, STACK, DECK_P1], [BOARD_P1, STACK, DECK_P2, 9]],
    )
    assert [int(r.error) for r in results] == [errors.ZONE_FULL, 0, 0, errors.ZONE_OUT_OF_RANGE]


# -------------------------------------------------------------------------------------------------
# shuffle


def _shuffled_order(layout, board, zone, seed):
    result = zones.shuffle(layout, board, zone, jax.random.PRNGKey(seed))
    return result, tuple(zone_lists(layout, result.board)[zone])


@pytest.fixture(scope="module")
def big_deck_board(layout):
    # Five cards in deck_player1 (0, 1, 2, 3, 4) so shuffles have 120 possible orders.
    return board_with_zones(layout, (DECK_P1,) * 5 + (HAND_P1, BOARD_P2, STACK))


def test_shuffle_permutes_only_the_zone(layout, jitted, big_deck_board):
    b = big_deck_board
    orders = set()
    for seed in range(12):
        result = jitted.shuffle(b, DECK_P1, jax.random.PRNGKey(seed))
        assert int(result.error) == 0
        assert int(result.board.version) == 1
        assert_dense(layout, result.board)
        lists = zone_lists(layout, result.board)
        assert sorted(lists[DECK_P1]) == [0, 1, 2, 3, 4]
        assert lists[:DECK_P1] + lists[DECK_P1 + 1 :] == (
            zone_lists(layout, b)[:DECK_P1] + zone_lists(layout, b)[DECK_P1 + 1 :]
        )
        # Only positions inside the zone may change; every other field is untouched.
        np.testing.assert_array_equal(result.board.zone, b.zone)
        np.testing.assert_array_equal(result.board.position[5:], b.position[5:])
        for name in ("definition", "owner", "visibility", "card_attributes", "turn_number"):
            np.testing.assert_array_equal(getattr(result.board, name), getattr(b, name))
        orders.add(tuple(lists[DECK_P1]))
    assert len(orders) >= 2, orders


def test_shuffle_same_key_same_result(layout, jitted, big_deck_board):
    key = jax.random.PRNGKey(42)
    a = jitted.shuffle(big_deck_board, DECK_P1, key)
    b = jitted.shuffle(big_deck_board, DECK_P1, key)
    assert_boards_equal(a.board, b.board)
    # The eager path gives the same result as the jitted one.
    assert_boards_equal(zones.shuffle(layout, big_deck_board, DECK_P1, key).board, a.board)


def test_shuffle_is_uniform_over_permutations(layout, board0):
    # 6000 fixed keys over a 3-card deck: every one of the 6 orders appears about 1000 times.
    keys = jax.random.split(jax.random.PRNGKey(7), 6000)
    fn = jax.jit(jax.vmap(functools.partial(zones.shuffle, layout), in_axes=(None, None, 0)))
    pos = np.asarray(fn(board0, DECK_P1, keys).board.position[:, :3])
    perms, counts = np.unique(pos, axis=0, return_counts=True)
    assert sorted(map(tuple, perms)) == sorted(itertools.permutations(range(3)))
    assert counts.min() > 850 and counts.max() < 1150, counts


def test_shuffle_of_empty_zone_only_bumps_version(layout, board0):
    result = zones.shuffle(layout, board0, HAND_P2, jax.random.PRNGKey(0))
    assert int(result.error) == 0
    assert int(result.board.version) == 1
    assert_boards_equal(result.board.replace(version=board0.version), board0)


@pytest.mark.parametrize("zone", [-1, 8, 50])
def test_shuffle_zone_out_of_range(layout, board0, zone):
    _rejected(
        board0,
        zones.shuffle(layout, board0, zone, jax.random.PRNGKey(0)),
        errors.ZONE_OUT_OF_RANGE,
    )


# -------------------------------------------------------------------------------------------------
# commit


def test_commit_keeps_new_or_old(board0):
    new = board0.replace(turn_number=jnp.int16(5))
    ok = zones.commit(board0, new, jnp.int32(0))
    assert int(ok.error) == 0 and int(ok.board.turn_number) == 5 and int(ok.board.version) == 1
    bad = zones.commit(board0, new, jnp.int32(errors.ZONE_FULL))
    assert int(bad.error) == errors.ZONE_FULL
    assert_boards_equal(bad.board, board0)


# -------------------------------------------------------------------------------------------------
# ZoneType / ZoneTypeRegistry


def test_zone_type_registry_basics():
    reg = zones.ZoneTypeRegistry()
    deck = zones.ZoneType("deck", ordered=True, visibility="hidden")
    hand = zones.ZoneType("hand", ordered=True, visibility="owner", max_size=7)
    reg.register(deck)
    reg.register(hand)
    assert len(reg) == 2
    assert "deck" in reg and "grave" not in reg
    assert reg["hand"] is hand
    assert reg.index("deck") == 0 and reg.index("hand") == 1
    assert list(reg) == [deck, hand]
    assert not reg.frozen
    assert reg.freeze() is reg
    assert reg.frozen


def test_frozen_registry_rejects_register():
    reg = zones.ZoneTypeRegistry().freeze()
    with pytest.raises(errors.ConfigError, match="frozen"):
        reg.register(zones.ZoneType("deck", ordered=True, visibility="hidden"))
    assert len(reg) == 0


def test_registry_errors():
    reg = zones.ZoneTypeRegistry()
    reg.register(zones.ZoneType("deck", ordered=True, visibility="hidden"))
    with pytest.raises(errors.ConfigError, match="already registered"):
        reg.register(zones.ZoneType("deck", ordered=False, visibility="public"))
    with pytest.raises(errors.ConfigError, match="unknown zone type 'grave'"):
        reg["grave"]
    with pytest.raises(errors.ConfigError):
        reg.index("grave")


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(id="deck", ordered=True, visibility="secret"),
        dict(id="deck", ordered=True, visibility="PUBLIC"),
        dict(id="deck", ordered=True, visibility="hidden", max_size=-1),
        dict(id="deck", ordered=True, visibility="hidden", max_size=2.5),
        dict(id="deck", ordered=True, visibility="hidden", max_size="3"),
        dict(id="my deck", ordered=True, visibility="hidden"),
        dict(id="", ordered=True, visibility="hidden"),
        dict(id=3, ordered=True, visibility="hidden"),
    ],
)
def test_zone_type_validation(kwargs):
    with pytest.raises(errors.ConfigError):
        zones.ZoneType(**kwargs)


def test_zone_type_max_size_zero_and_none_are_valid():
    assert zones.ZoneType("void", ordered=False, visibility="public", max_size=0).max_size == 0
    assert zones.ZoneType("deck", ordered=True, visibility="hidden").max_size is None


# -------------------------------------------------------------------------------------------------
# Retrace guard


def test_jitted_move_card_traces_once(layout, board0):
    def move(board, card, zone, position):
        return zones.move_card(layout, board, card, zone, position)

    fn = jax.jit(chex.assert_max_traces(move, n=1))
    b = board0
    for card, zone, position in [(0, STACK, TOP), (1, HAND_P1, 0), (9, 3, 1), (2, DECK_P2, 1)]:
        b = fn(b, card, zone, position).board
    assert int(b.version) == 3


# -------------------------------------------------------------------------------------------------
# jit / vmap: every command and query, batched results equal per-item results


def _batch(layout, board0):
    """Four different boards: initial, after a draw, with full zones, with a reordered deck."""
    drawn = zones.draw(layout, board0, DECK_P1, HAND_P1).board
    full = board_with_zones(layout, FULL_PLACEMENT)
    reordered = zones.move_card(layout, board0, 2, DECK_P1, BOTTOM).board
    return [board0, drawn, full, reordered]


def _assert_batched_matches(fn, boards, args, in_axes=0):
    """``fn(board, *args)`` eager per item == jit per item == vmap == jit(vmap)."""
    args = [jnp.asarray(a) for a in args]
    per_item = [fn(b, *[a[i] for a in args]) for i, b in enumerate(boards)]
    jitted = jax.jit(fn)
    batched_board = stack_boards(boards)
    vmapped = jax.vmap(fn, in_axes=in_axes)(batched_board, *args)
    jit_vmapped = jax.jit(jax.vmap(fn, in_axes=in_axes))(batched_board, *args)
    for i, (b, expected) in enumerate(zip(boards, per_item, strict=True)):
        got_jit = jitted(b, *[a[i] for a in args])
        for leaf_e, leaf_j, leaf_v, leaf_jv in zip(
            jax.tree.leaves(expected),
            jax.tree.leaves(got_jit),
            jax.tree.leaves(vmapped),
            jax.tree.leaves(jit_vmapped),
            strict=True,
        ):
            np.testing.assert_array_equal(leaf_j, leaf_e)
            np.testing.assert_array_equal(leaf_v[i], leaf_e)
            np.testing.assert_array_equal(leaf_jv[i], leaf_e)
            assert leaf_v.dtype == leaf_e.dtype == leaf_jv.dtype
    return per_item


def test_move_card_batched(layout, board0):
    boards = _batch(layout, board0)
    # One applied move, one bad card, one zone_full, one bad position: mixed outcomes in one batch.
    cards, dests, positions = [0, 8, 0, 2], [HAND_P1, STACK, HAND_P1, STACK], [TOP, 0, 0, -2]
    results = _assert_batched_matches(
        functools.partial(zones.move_card, layout), boards, [cards, dests, positions]
    )
    assert [int(r.error) for r in results] == [
        errors.OK,
        errors.CARD_OUT_OF_RANGE,
        errors.ZONE_FULL,
        errors.POSITION_OUT_OF_RANGE,
    ]


def test_draw_batched(layout, board0):
    boards = _batch(layout, board0)
    results = _assert_batched_matches(
        functools.partial(zones.draw, layout),
        boards,
        [[DECK_P1, DECK_P1, DECK_P1, HAND_P2], [STACK, HAND_P1, HAND_P1, STACK]],
    )
    assert [int(r.error) for r in results] == [0, 0, errors.ZONE_FULL, errors.ZONE_EMPTY]


def test_move_all_under_batched(layout, board0):
    results = _assert_batched_matches(
        functools.partial(zones.move_all_under, layout),
        _batch(layout, board0),
        [[DECK_P1, DECK_P2, DECK_P1, -1], [STACK, DECK_P1, HAND_P1, STACK]],
    )
    assert [int(r.error) for r in results] == [0, 0, errors.ZONE_FULL, errors.ZONE_OUT_OF_RANGE]


def test_shuffle_batched(layout, board0):
    keys = jax.random.split(jax.random.PRNGKey(3), 4)
    results = _assert_batched_matches(
        functools.partial(zones.shuffle, layout),
        _batch(layout, board0),
        [[DECK_P1, DECK_P2, 8, HAND_P1], keys],
    )
    assert [int(r.error) for r in results] == [0, 0, errors.ZONE_OUT_OF_RANGE, 0]


def test_queries_batched(layout, board0):
    boards = _batch(layout, board0)
    zs = [DECK_P1, HAND_P1, HAND_P1, DECK_P1]
    counts = _assert_batched_matches(functools.partial(zones.zone_counts, layout), boards, [])
    np.testing.assert_array_equal(counts[2], [1, 2, 3, 0, 0, 2, 0, 0])
    count = _assert_batched_matches(zones.zone_count, boards, [zs])
    assert [int(c) for c in count] == [3, 2, 3, 3]
    tops = _assert_batched_matches(zones.top_card, boards, [zs])
    assert [int(c) for c in tops] == [2, 2, 5, 1]
    at = _assert_batched_matches(zones.card_at, boards, [zs, [0, 1, 1, 0]])
    assert [int(c) for c in at] == [0, 2, 2, 2]
    slots = _assert_batched_matches(lambda b, z: zones.zone_slots(b, z, 3), boards, [zs])
    np.testing.assert_array_equal(np.stack(slots), [[0, 1, 2], [5, 2, -1], [1, 2, 5], [2, 0, 1]])
    start, width = _listing_tables({DECK_P1: (0, 3), HAND_P1: (3, 2)})
    listing = _assert_batched_matches(
        lambda b: zones.zone_listing(b, start, width, jnp.arange(8, dtype=jnp.int32), 5), boards, []
    )
    np.testing.assert_array_equal(
        np.stack(listing), [[0, 1, 2, 5, -1], [0, 1, -1, 5, 2], [0, -1, -1, 1, 2], [2, 0, 1, 5, -1]]
    )
    has = _assert_batched_matches(zones.contains, boards, [zs, [2, 2, 0, 0]])
    assert [bool(h) for h in has] == [True, True, False, True]


# -------------------------------------------------------------------------------------------------
# Properties (hypothesis): random command scripts against a pure-Python reference model

_LAYOUT = make_layout()
_BOARD0 = new_board(_LAYOUT, initial_cards(_LAYOUT))
_STEPS = 16
MOVE, DRAW = 0, 1
_JIT_MOVE = jax.jit(functools.partial(zones.move_card, _LAYOUT))
_JIT_SHUFFLE = jax.jit(functools.partial(zones.shuffle, _LAYOUT))


@jax.jit
def _run_script(board, ops, a, b, c):
    """Apply ``_STEPS`` commands in a scan; returns every intermediate board and error code."""

    def step(board, x):
        op, a, b, c = x
        result = jax.lax.cond(
            op == MOVE,
            lambda: zones.move_card(_LAYOUT, board, a, b, c),
            lambda: zones.draw(_LAYOUT, board, a, b),
        )
        return result.board, result

    return jax.lax.scan(step, board, (ops, a, b, c))[1]


_commands = st.lists(
    st.one_of(
        # move_card(card, zone, position); includes invalid cards, zones and positions.
        st.tuples(
            st.just(MOVE),
            st.integers(-2, 9),
            st.integers(-2, 9),
            st.sampled_from([TOP, TOP, -3, 0, 1, 2, 3, 5]),
        ),
        # draw(from_zone, to_zone)
        st.tuples(st.just(DRAW), st.integers(-1, 8), st.integers(-1, 8), st.just(0)),
    ),
    min_size=_STEPS,
    max_size=_STEPS,
)


@settings(max_examples=50, deadline=None, database=None)
@given(script=_commands)
def test_random_command_scripts_match_reference_model(script):
    ops, a, b, c = (jnp.asarray(col, jnp.int32) for col in zip(*script, strict=True))
    steps = _run_script(_BOARD0, ops, a, b, c)
    arrays = jax.tree.map(np.asarray, steps)
    lists = [list(z) for z in INITIAL_LISTS]
    applied = 0
    prev = _BOARD0
    for i, (op, x, y, z) in enumerate(script):
        board_i = jax.tree.map(lambda leaf, i=i: leaf[i], arrays.board)
        err = int(arrays.error[i])
        if op == MOVE:
            expected = reference_move(_LAYOUT, lists, x, y, z)
        elif not 0 <= x < _LAYOUT.num_zones:
            expected = None  # an out-of-range source: rejected as empty or out of range
            assert err in (errors.ZONE_EMPTY, errors.ZONE_OUT_OF_RANGE), (i, err)
        elif not lists[x]:
            expected = errors.ZONE_EMPTY
        else:
            expected = reference_move(_LAYOUT, lists, lists[x][-1], y, zones.TOP)
        if expected is not None:
            assert err == expected, (i, script[i], err, expected)
        applied += err == errors.OK
        assert zone_lists(_LAYOUT, board_i) == lists, (i, script[i])
        assert_dense(_LAYOUT, board_i)
        assert int(board_i.version) == applied
        # Cards are conserved: definitions and owners never change under moves and draws.
        np.testing.assert_array_equal(board_i.definition, _BOARD0.definition)
        np.testing.assert_array_equal(board_i.owner, _BOARD0.owner)
        if err != errors.OK:
            assert_boards_equal(board_i, prev)
        prev = board_i


@settings(max_examples=40, deadline=None, database=None)
@given(
    moves=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), min_size=0, max_size=6),
    zone=st.integers(-1, 8),
    seed=st.integers(0, 2**31 - 1),
)
def test_shuffle_after_any_moves_keeps_zones_and_density(moves, zone, seed):
    board = _BOARD0
    for card, dest in moves:
        board = _JIT_MOVE(board, card, dest, zones.TOP).board
    before = zone_lists(_LAYOUT, board)
    result = _JIT_SHUFFLE(board, zone, jax.random.PRNGKey(seed))
    after = zone_lists(_LAYOUT, result.board)
    assert_dense(_LAYOUT, result.board)
    np.testing.assert_array_equal(result.board.zone, board.zone)
    if 0 <= zone < _LAYOUT.num_zones:
        assert int(result.error) == 0
        assert int(result.board.version) == int(board.version) + 1
        assert sorted(after[zone]) == sorted(before[zone])
        assert after[:zone] + after[zone + 1 :] == before[:zone] + before[zone + 1 :]
    else:
        assert int(result.error) == errors.ZONE_OUT_OF_RANGE
        assert_boards_equal(result.board, board)


def test_shuffle_pairwise_and_sort_paths_agree(layout, board0, monkeypatch):
    """The O(C^2) pairwise-rank shuffle and the argsort fallback give the same permutation."""
    keys = [jax.random.PRNGKey(i) for i in range(20)]
    fast = [zones.shuffle(layout, board0, DECK_P1, k).board.position for k in keys]
    monkeypatch.setattr(zones, "PAIRWISE_SHUFFLE_MAX_CARDS", 0)
    slow = [zones.shuffle(layout, board0, DECK_P1, k).board.position for k in keys]
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert len({tuple(np.asarray(p)) for p in fast}) > 1


# -------------------------------------------------------------------------------------------------
# move_all


def test_move_all_keeps_the_order_on_top_of_the_destination(layout, board0):
    # deck_player1 [0, 1, 2] onto stack [7]: the stack becomes [7, 0, 1, 2].
    result = zones.move_all(layout, board0, DECK_P1, STACK)
    _applied(board0, result, [[], [3, 4], [5], [], [], [6], [7, 0, 1, 2], []], layout)


def test_move_all_of_an_empty_zone_or_onto_itself_moves_nothing(layout, board0):
    for src, dst in ((LIMBO, STACK), (DECK_P1, DECK_P1)):
        result = zones.move_all(layout, board0, src, dst)
        assert int(result.error) == 0
        assert zone_lists(layout, result.board) == zone_lists(layout, board0)
        assert int(result.board.version) == int(board0.version) + 1


def test_move_all_may_fill_a_zone_exactly(layout, board0):
    # The two cards of deck_player2 fill board_player1 (at most 2) to its capacity.
    result = zones.move_all(layout, board0, DECK_P2, BOARD_P1)
    _applied(board0, result, [[0, 1, 2], [], [5], [], [3, 4], [6], [7], []], layout)


def test_move_all_under_keeps_the_order_below_the_destination(layout, board0):
    # deck_player1 [0, 1, 2] under stack [7]: the stack becomes [0, 1, 2, 7].
    result = zones.move_all_under(layout, board0, DECK_P1, STACK)
    _applied(board0, result, [[], [3, 4], [5], [], [], [6], [0, 1, 2, 7], []], layout)
    # And under a zone of several cards: deck_player2 [3, 4] under deck_player1 [0, 1, 2].
    result = zones.move_all_under(layout, board0, DECK_P2, DECK_P1)
    _applied(board0, result, [[3, 4, 0, 1, 2], [], [5], [], [], [6], [7], []], layout)


def test_move_all_under_of_an_empty_zone_or_itself_moves_nothing(layout, board0):
    for src, dst in ((LIMBO, STACK), (DECK_P1, DECK_P1)):
        result = zones.move_all_under(layout, board0, src, dst)
        assert int(result.error) == 0
        assert zone_lists(layout, result.board) == zone_lists(layout, board0)


def test_move_all_under_into_a_zone_without_room_is_rejected(layout, board0):
    _rejected(board0, zones.move_all_under(layout, board0, DECK_P1, HAND_P1), errors.ZONE_FULL)
    _rejected(board0, zones.move_all_under(layout, board0, DECK_P1, 8), errors.ZONE_OUT_OF_RANGE)
    _rejected(board0, zones.move_all_under(layout, board0, -1, STACK), errors.ZONE_OUT_OF_RANGE)
    # Exactly full is allowed: deck_player2's 2 cards under the empty board_player1 (max 2).
    result = zones.move_all_under(layout, board0, DECK_P2, BOARD_P1)
    _applied(board0, result, [[0, 1, 2], [], [5], [], [3, 4], [6], [7], []], layout)


def test_move_all_into_a_zone_without_room_is_rejected(layout, board0):
    # hand_player1 (max 3) holds 1 card; deck_player1 has 3.
    _rejected(board0, zones.move_all(layout, board0, DECK_P1, HAND_P1), errors.ZONE_FULL)
    _rejected(board0, zones.move_all(layout, board0, DECK_P1, 99), errors.ZONE_OUT_OF_RANGE)
    _rejected(board0, zones.move_all(layout, board0, -1, STACK), errors.ZONE_OUT_OF_RANGE)
    # The first index past the 8 zones, as source and as destination.
    _rejected(board0, zones.move_all(layout, board0, 8, STACK), errors.ZONE_OUT_OF_RANGE)
    _rejected(board0, zones.move_all(layout, board0, DECK_P1, 8), errors.ZONE_OUT_OF_RANGE)
