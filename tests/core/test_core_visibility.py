"""Who sees which card (tcgjax/core/visibility.py), on the layout of ``core_testlib``.

Initial board: cards 0-2 in deck_player1 and 3-4 in deck_player2 (hidden), card 5 in hand_player1
(owner), card 6 on board_player2 (public), card 7 on the shared public stack.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from core_testlib import (
    BOARD_P1,
    DECK_P2,
    HAND_P1,
    HAND_P2,
    LIMBO,
    STACK,
    board_with_zones,
    stack_boards,
)

import tcgjax
from tcgjax.core import board as board_lib
from tcgjax.core import visibility, zones
from tcgjax.core.zones import HIDDEN, NO_OVERRIDE, OWNER, PUBLIC

P1, P2 = 0, 1


def _mask(layout, board, player):
    return [bool(v) for v in visibility.visible_mask(layout, board, player)]


def _with_override(layout, board, card, override):
    result = board_lib.set_visibility(layout, board, card, override)
    assert int(result.error) == 0
    return result.board


def test_default_visibility_comes_from_zone_type(layout, board0):
    eff = visibility.effective_visibility(layout, board0)
    np.testing.assert_array_equal(eff, [HIDDEN] * 5 + [OWNER, PUBLIC, PUBLIC])
    assert eff.dtype == jnp.int8
    assert _mask(layout, board0, P1) == [False] * 5 + [True, True, True]
    assert _mask(layout, board0, P2) == [False] * 5 + [False, True, True]


@pytest.mark.parametrize(
    ("card", "override", "p1_sees", "p2_sees"),
    [
        (0, PUBLIC, True, True),  # a revealed deck card
        (0, OWNER, True, False),  # deck_player1's owner may look at it
        (3, OWNER, False, True),
        (6, HIDDEN, False, False),  # a face-down card on a public board
        (6, OWNER, False, True),  # owner of board_player2
        (5, PUBLIC, True, True),  # a revealed hand card
        (5, HIDDEN, False, False),
        (5, NO_OVERRIDE, True, False),  # back to the zone default
    ],
)
def test_override_beats_zone_default(layout, board0, card, override, p1_sees, p2_sees):
    board = _with_override(layout, board0, card, override)
    expected_vis = override if override != NO_OVERRIDE else [2, 2, 2, 2, 2, 1, 0, 0][card]
    assert int(visibility.effective_visibility(layout, board)[card]) == expected_vis
    assert bool(visibility.is_visible_to(layout, board, card, P1)) == p1_sees
    assert bool(visibility.is_visible_to(layout, board, card, P2)) == p2_sees
    # Only that card's visibility changed.
    for other in range(8):
        if other != card:
            assert _mask(layout, board, P1)[other] == _mask(layout, board0, P1)[other]
            assert _mask(layout, board, P2)[other] == _mask(layout, board0, P2)[other]


def test_override_survives_a_move(layout, board0):
    board = _with_override(layout, board0, 2, PUBLIC)
    board = zones.draw(layout, board, 0, HAND_P1).board  # card 2 is the top of deck_player1
    assert _mask(layout, board, P2)[2]  # still public in p1's hand
    board = _with_override(layout, board, 2, NO_OVERRIDE)
    assert not _mask(layout, board, P2)[2]
    assert _mask(layout, board, P1)[2]


def test_owner_zone_uses_the_zone_owner_not_the_card_owner(layout, board0):
    # Card 3 belongs to player 2 but sits in hand_player1: player 1 (the zone's owner) sees it.
    board = zones.move_card(layout, board0, 3, HAND_P1).board
    assert int(board.owner[3]) == P2
    assert bool(visibility.is_visible_to(layout, board, 3, P1))
    assert not bool(visibility.is_visible_to(layout, board, 3, P2))


def test_owner_visibility_in_a_shared_zone_uses_the_card_owner(layout):
    # limbo is shared (owner None) with default visibility "owner".
    board = board_with_zones(layout, (LIMBO, 0, 0, LIMBO, 1, HAND_P1, 5, STACK))
    assert int(board.owner[0]) == P1 and int(board.owner[3]) == P2
    assert _mask(layout, board, P1)[0] and not _mask(layout, board, P2)[0]
    assert _mask(layout, board, P2)[3] and not _mask(layout, board, P1)[3]
    # Changing the card's owner changes who sees it.
    board = board_lib.change_owner(layout, board, 0, P2).board
    assert _mask(layout, board, P2)[0] and not _mask(layout, board, P1)[0]
    # An "owner" override in the public shared stack also resolves to the card's owner (p2).
    board = _with_override(layout, board, 7, OWNER)
    assert _mask(layout, board, P2)[7] and not _mask(layout, board, P1)[7]


def test_is_visible_to_agrees_with_visible_mask(layout, board0):
    board = _with_override(layout, board0, 1, PUBLIC)
    board = _with_override(layout, board, 6, HIDDEN)
    for player in (P1, P2):
        mask = _mask(layout, board, player)
        for card in range(8):
            got = visibility.is_visible_to(layout, board, card, player)
            assert got.dtype == jnp.bool_
            assert bool(got) == mask[card]
    # The public re-export is the same function.
    assert tcgjax.is_visible_to is visibility.is_visible_to


def test_visible_definitions(layout, board0):
    defs = [int(d) for d in board0.definition]
    got1 = visibility.visible_definitions(layout, board0, P1)
    got2 = visibility.visible_definitions(layout, board0, P2)
    assert got1.dtype == jnp.int32
    np.testing.assert_array_equal(got1, [-1] * 5 + defs[5:])
    np.testing.assert_array_equal(got2, [-1] * 6 + defs[6:])


def test_permuting_opponent_hidden_cards_leaves_my_view_unchanged(layout):
    # Player 2 holds cards 3 (zeta_dragon) and 4 (alpha_goblin) in hand; player 1 must not tell
    # which is which, so swapping their definitions changes nothing player 1 observes.
    board = board_with_zones(layout, (0, 0, 0, HAND_P2, HAND_P2, HAND_P1, 5, STACK))
    swapped = board.replace(definition=board.definition.at[jnp.array([3, 4])].set(
        board.definition[jnp.array([4, 3])]))  # fmt: skip
    assert int(swapped.definition[3]) != int(board.definition[3])
    mine = visibility.visible_definitions(layout, board, P1)
    np.testing.assert_array_equal(visibility.visible_definitions(layout, swapped, P1), mine)
    # Player 2 does see the difference.
    assert not np.array_equal(
        visibility.visible_definitions(layout, swapped, P2),
        visibility.visible_definitions(layout, board, P2),
    )


def test_without_owner_zones_both_players_see_the_same(layout):
    # Nothing in any hand: both players see exactly the public cards (boards and stack).
    board = board_with_zones(layout, (0, 0, 0, DECK_P2, DECK_P2, BOARD_P1, 5, STACK))
    assert _mask(layout, board, P1) == [False] * 5 + [True, True, True]
    assert _mask(layout, board, P1) == _mask(layout, board, P2)


# -------------------------------------------------------------------------------------------------
# jit / vmap


def _boards(layout, board0):
    b1 = _with_override(layout, board0, 0, PUBLIC)
    b2 = board_with_zones(layout, (LIMBO, 0, 0, LIMBO, 1, HAND_P1, 5, STACK))
    b3 = zones.move_card(layout, board0, 3, HAND_P1).board
    return [board0, b1, b2, b3]


@pytest.mark.parametrize("name", ["visible_mask", "visible_definitions", "effective_visibility"])
def test_visibility_under_jit_and_vmap(layout, board0, name):
    fn = functools.partial(getattr(visibility, name), layout)
    if name == "effective_visibility":
        fn = (lambda f: lambda b, p: f(b))(fn)
    boards = _boards(layout, board0)
    expected = np.stack([np.stack([fn(b, p) for p in (P1, P2)]) for b in boards])  # [B, P, C]
    players = jnp.arange(2)
    batched = stack_boards(boards)
    over_players = jax.vmap(fn, in_axes=(None, 0))
    over_both = jax.vmap(over_players, in_axes=(0, None))
    for i, b in enumerate(boards):
        np.testing.assert_array_equal(jax.jit(over_players)(b, players), expected[i])
        for p in (P1, P2):
            np.testing.assert_array_equal(jax.jit(fn)(b, p), expected[i, p])
    np.testing.assert_array_equal(over_both(batched, players), expected)
    np.testing.assert_array_equal(jax.jit(over_both)(batched, players), expected)
    # A batch of boards each with its own viewer.
    per_board_viewer = jax.jit(jax.vmap(fn))(batched, jnp.array([0, 1, 1, 0]))
    np.testing.assert_array_equal(per_board_viewer, expected[np.arange(4), [0, 1, 1, 0]])


def test_is_visible_to_batched(layout, board0):
    boards = _boards(layout, board0)
    cards, players = jnp.array([0, 0, 3, 3]), jnp.array([1, 1, 1, 1])
    fn = functools.partial(visibility.is_visible_to, layout)
    expected = [bool(fn(b, c, p)) for b, c, p in zip(boards, cards, players, strict=True)]
    assert expected == [False, True, True, False]
    got = jax.jit(jax.vmap(fn))(stack_boards(boards), cards, players)
    assert [bool(g) for g in got] == expected
