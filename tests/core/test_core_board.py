"""Board, BoardLayout, E1 ids and the non-zone commands (tcgjax/core/board.py)."""

from __future__ import annotations

import functools
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from core_testlib import (
    BOARD_P1,
    DECK_P1,
    HAND_P1,
    STACK,
    ZONES,
    assert_boards_equal,
    initial_cards,
    make_layout,
    make_zone_types,
    stack_boards,
    zone_lists,
)

import tcgjax
from tcgjax.core import board as board_lib
from tcgjax.core import cards as cards_lib
from tcgjax.core import errors
from tcgjax.core.board import (
    BoardLayout,
    card_id,
    change_owner,
    new_board,
    parse_card_id,
    parse_player_id,
    player_id,
    set_turn,
    set_visibility,
)

# -------------------------------------------------------------------------------------------------
# E1 ids


def test_player_ids():
    assert [player_id(i) for i in range(3)] == ["player1", "player2", "player3"]
    for i in range(12):
        assert parse_player_id(player_id(i), 12) == i


def test_card_ids():
    assert card_id(0) == "card_001"
    assert card_id(41) == "card_042"
    assert card_id(998) == "card_999"
    assert card_id(999) == "card_1000"
    for i in (0, 1, 9, 99, 998, 999, 1500):
        assert parse_card_id(card_id(i), 2000) == i


@pytest.mark.parametrize(
    "text",
    ["player0", "player3", "player01", "Player1", "p1", "player", "player-1", "player1 ", 1, None],
)
def test_parse_player_id_errors(text):
    with pytest.raises(ValueError):
        parse_player_id(text, 2)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("card_000", "no such card"),
        ("card_009", "no such card"),
        ("card_1", "no such card"),
        ("card_0001", "no such card"),
        ("card_abc", "not a card id"),
        ("card_x01", "not a card id"),
        ("card_-1", "not a card id"),
        ("card001", "not a card id"),
        ("", "not a card id"),
        (3, "not a card id"),
        (None, "not a card id"),
    ],
)
def test_parse_card_id_errors(text, why):
    """Every malformed id is refused with a message naming it (never a bare int() error)."""
    with pytest.raises(ValueError, match=f"^{why}: {re.escape(repr(text))}$"):
        parse_card_id(text, 8)


def test_zone_ids(layout):
    ids = [layout.zone_id(z) for z in range(layout.num_zones)]
    assert ids == [
        "deck_player1",
        "deck_player2",
        "hand_player1",
        "hand_player2",
        "board_player1",
        "board_player2",
        "stack",
        "limbo",
    ]
    for z, zid in enumerate(ids):
        assert layout.zone_index_by_id(zid) == z
        assert layout.zone_index(*layout.zones[z]) == z
    assert layout.zone_index("hand", 1) == 3
    assert layout.zone_index("stack") == STACK
    with pytest.raises(errors.ConfigError):
        layout.zone_index("hand", None)
    with pytest.raises(errors.ConfigError):
        layout.zone_index("grave", 0)
    with pytest.raises(ValueError):
        layout.zone_index_by_id("hand_player3")


# -------------------------------------------------------------------------------------------------
# BoardLayout


def test_layout_tables(layout):
    assert layout.num_zones == 8
    np.testing.assert_array_equal(layout.zone_type, [0, 0, 1, 1, 2, 2, 3, 4])
    np.testing.assert_array_equal(layout.zone_owner, [0, 1, 0, 1, 0, 1, -1, -1])
    # max_size None means "no limit beyond the number of cards" (C = 8).
    np.testing.assert_array_equal(layout.zone_max_size, [8, 8, 3, 3, 2, 2, 8, 8])
    np.testing.assert_array_equal(layout.zone_ordered, [1, 1, 1, 1, 0, 0, 1, 0])
    np.testing.assert_array_equal(layout.zone_visibility, [2, 2, 1, 1, 0, 0, 0, 1])
    assert layout.zone_types.frozen


@pytest.mark.parametrize(
    "name", ["zone_type", "zone_owner", "zone_max_size", "zone_ordered", "zone_visibility"]
)
def test_layout_tables_are_read_only(layout, name):
    with pytest.raises(ValueError):
        getattr(layout, name)[0] = 1


def test_layout_freezes_its_zone_type_registry(layout):
    with pytest.raises(errors.ConfigError, match="frozen"):
        layout.zone_types.register(tcgjax.ZoneType("grave", ordered=True, visibility="public"))


def test_max_size_above_num_cards_is_clipped():
    reg = tcgjax.ZoneTypeRegistry()
    reg.register(tcgjax.ZoneType("big", ordered=True, visibility="public", max_size=100))
    layout = BoardLayout(1, reg, (("big", 0),), make_layout().cards, 4)
    np.testing.assert_array_equal(layout.zone_max_size, [4])


def _layout_with(zones, num_players=2):
    return BoardLayout(num_players, make_zone_types(), zones, make_layout().cards, 8)


@pytest.mark.parametrize(
    ("zones", "match"),
    [
        (ZONES + (("grave", 0),), "unknown zone type 'grave'"),
        ((("deck", 2),), "owner 2"),
        ((("deck", -1),), "owner -1"),
        ((("deck", 0), ("hand", 0), ("deck", 0)), "duplicate zone"),
        ((("stack", None), ("stack", None)), "duplicate zone"),
    ],
)
def test_layout_validation(zones, match):
    with pytest.raises(errors.ConfigError, match=match):
        _layout_with(zones)


@pytest.mark.parametrize(
    ("num_players", "num_zones", "num_cards", "fits"),
    [
        (127, 1, 8, True),  # zone owners and players are int8
        (128, 1, 8, False),
        (2, 127, 8, True),  # zone ids are int8
        (2, 128, 8, False),
        (2, 1, 32767, True),  # positions are int16
        (2, 1, 32768, False),
    ],
)
def test_layout_size_limits(num_players, num_zones, num_cards, fits):
    """Each dimension is refused on its own past its dtype's range, and accepted at the limit."""
    reg = tcgjax.ZoneTypeRegistry()
    for z in range(num_zones):
        reg.register(tcgjax.ZoneType(f"z{z}", ordered=True, visibility="public"))
    zones = tuple((f"z{z}", None) for z in range(num_zones))
    build = functools.partial(BoardLayout, num_players, reg, zones, make_layout().cards, num_cards)
    if fits:
        assert build().num_cards == num_cards
    else:
        with pytest.raises(errors.ConfigError, match="board too large"):
            build()


def test_layout_accepts_zone_order_as_given():
    layout = _layout_with((("stack", None), ("hand", 1), ("deck", 0)))
    assert [layout.zone_id(z) for z in range(3)] == ["stack", "hand_player2", "deck_player1"]


# -------------------------------------------------------------------------------------------------
# new_board


def test_new_board_fields(layout):
    life = np.array([[20, 3], [18, 4]])
    board = new_board(
        layout, initial_cards(layout), player_attributes=life, active_player=1, phase=2
    )
    np.testing.assert_array_equal(board.player_attributes, life)
    assert board.player_attributes.dtype == jnp.int16
    assert int(board.active_player) == 1 and int(board.phase) == 2
    np.testing.assert_array_equal(board.definition, [1, 2, 3, 4, 1, 2, 3, 4])
    np.testing.assert_array_equal(board.owner, [0, 0, 0, 1, 1, 0, 1, 1])
    dtypes = {
        "definition": jnp.int16,
        "owner": jnp.int8,
        "zone": jnp.int8,
        "position": jnp.int16,
        "visibility": jnp.int8,
        "card_attributes": jnp.int16,
        "player_attributes": jnp.int16,
        "active_player": jnp.int8,
        "turn_number": jnp.int16,
        "phase": jnp.int8,
        "version": jnp.int32,
    }
    for name, dtype in dtypes.items():
        assert getattr(board, name).dtype == dtype, name


def test_one_matchup_draws_nothing_and_several_draw_each_row_uniformly(layout):
    board = new_board(layout, initial_cards(layout))
    key = jax.random.key(7)
    one = np.array([[4, 3, 2, 1, 4, 3, 2, 1]])
    same, pair, key_after = board_lib.draw_matchup(board, one, key)
    # One matchup: the board as dealt, pair 0, and the key unsplit (single-matchup games unchanged).
    assert_boards_equal(same, board)
    assert int(pair) == 0
    assert jax.random.key_data(key_after).tolist() == jax.random.key_data(key).tolist()

    rows = np.array([[1] * 8, [2] * 8, [3] * 8])
    draw = jax.jit(jax.vmap(lambda k: board_lib.draw_matchup(board, rows, k)))
    drawn, pairs, keys_after = draw(jax.random.split(key, 600))
    counts = np.bincount(np.asarray(pairs), minlength=3)
    assert counts.sum() == 600 and len(counts) == 3 and counts.min() > 150  # 0, 1 and 2, uniform
    np.testing.assert_array_equal(np.asarray(drawn.definition), rows[np.asarray(pairs)])
    assert drawn.definition.dtype == board.definition.dtype
    assert not np.array_equal(jax.random.key_data(keys_after[0]), jax.random.key_data(key))


def test_new_board_over_capacity(layout):
    cards = initial_cards(layout)
    cards[0] = (cards[0][0], 0, BOARD_P1)
    cards[1] = (cards[1][0], 0, BOARD_P1)
    new_board(layout, cards)  # 2 cards: exactly max_size
    cards[2] = (cards[2][0], 0, BOARD_P1)
    with pytest.raises(errors.ConfigError, match="board_player1"):
        new_board(layout, cards)


@pytest.mark.parametrize(
    "index, bad, match",
    [
        (0, 0, "definition 0"),
        (0, 99, "definition 99"),
        (1, 2, "owner 2"),
        (2, 8, "zone 8"),
        (2, -1, "zone -1"),
    ],
)
def test_new_board_rejects_invalid_indices(layout, index, bad, match):
    cards = [list(c) for c in initial_cards(layout)]
    cards[3][index] = bad
    with pytest.raises(errors.ConfigError, match=f"card_004: {match}"):
        new_board(layout, [tuple(c) for c in cards])


@pytest.mark.parametrize("n", [7, 9])
def test_new_board_wrong_number_of_cards(layout, n):
    cards = (initial_cards(layout) * 2)[:n]
    with pytest.raises(errors.ConfigError, match="expected 8 cards"):
        new_board(layout, cards)


# -------------------------------------------------------------------------------------------------
# change_owner, set_visibility, set_turn


def test_change_owner(layout, board0, jitted):
    result = jitted.change_owner(board0, 5, 1)
    assert int(result.error) == 0
    np.testing.assert_array_equal(result.board.owner, [0, 0, 0, 1, 1, 1, 1, 1])
    assert int(result.board.version) == 1
    # The card does not move.
    assert zone_lists(layout, result.board) == zone_lists(layout, board0)
    np.testing.assert_array_equal(result.board.position, board0.position)
    assert result.board.owner.dtype == jnp.int8
    back = jitted.change_owner(board0, 3, 0)  # to the first player: id 0 is a player
    assert int(back.error) == 0 and int(back.board.owner[3]) == 0


@pytest.mark.parametrize(
    ("card", "owner", "code"),
    [
        (8, 0, errors.CARD_OUT_OF_RANGE),
        (-1, 0, errors.CARD_OUT_OF_RANGE),
        (0, 2, errors.PLAYER_OUT_OF_RANGE),
        (0, -1, errors.PLAYER_OUT_OF_RANGE),
        (9, 5, errors.CARD_OUT_OF_RANGE),  # card is checked first
    ],
)
def test_change_owner_errors(layout, board0, card, owner, code):
    result = change_owner(layout, board0, card, owner)
    assert int(result.error) == code
    assert result.error.dtype == jnp.int32
    assert_boards_equal(result.board, board0)


@pytest.mark.parametrize("override", [-1, 0, 1, 2])
def test_set_visibility(board0, jitted, override):
    result = jitted.set_visibility(board0, 3, override)
    assert int(result.error) == 0
    expected = np.full(8, -1)
    expected[3] = override
    np.testing.assert_array_equal(result.board.visibility, expected)
    assert int(result.board.version) == 1


@pytest.mark.parametrize(
    ("card", "override", "code"),
    [
        (8, 0, errors.CARD_OUT_OF_RANGE),
        (-1, 0, errors.CARD_OUT_OF_RANGE),
        (0, 3, errors.VISIBILITY_OUT_OF_RANGE),
        (0, -2, errors.VISIBILITY_OUT_OF_RANGE),
        (8, 3, errors.CARD_OUT_OF_RANGE),
    ],
)
def test_set_visibility_errors(layout, board0, card, override, code):
    result = set_visibility(layout, board0, card, override)
    assert int(result.error) == code
    assert_boards_equal(result.board, board0)


def test_set_turn(board0):
    b = set_turn(board0, active_player=1)
    assert int(b.active_player) == 1 and int(b.turn_number) == 1 and int(b.phase) == 0
    assert int(b.version) == 1
    b = set_turn(b, turn_number=2, phase=1)
    assert (int(b.active_player), int(b.turn_number), int(b.phase), int(b.version)) == (1, 2, 1, 2)
    b = set_turn(b)  # an empty patch still counts as a patch
    assert int(b.version) == 3
    assert b.active_player.dtype == jnp.int8
    assert b.turn_number.dtype == jnp.int16
    assert b.phase.dtype == jnp.int8
    # Cards are untouched.
    for name in ("definition", "owner", "zone", "position", "visibility"):
        np.testing.assert_array_equal(getattr(b, name), getattr(board0, name))


def test_set_turn_under_jit_and_vmap(board0):
    fn = lambda b, p, t: set_turn(b, active_player=p, turn_number=t, phase=2)  # noqa: E731
    boards = stack_boards([board0, board0.replace(version=jnp.int32(5))])
    out = jax.jit(jax.vmap(fn))(boards, jnp.array([1, 0]), jnp.array([3, 4]))
    np.testing.assert_array_equal(out.active_player, [1, 0])
    np.testing.assert_array_equal(out.turn_number, [3, 4])
    np.testing.assert_array_equal(out.phase, [2, 2])
    np.testing.assert_array_equal(out.version, [1, 6])
    single = jax.jit(fn)(board0, 1, 3)
    assert_boards_equal(single, jax.tree.map(lambda x: x[0], out))


def test_owner_and_visibility_commands_batched(layout, board0):
    drawn = jax.jit(functools.partial(tcgjax.core.zones.draw, layout))(board0, DECK_P1, HAND_P1)
    boards = [board0, drawn.board, board0]
    batched = stack_boards(boards)
    for fn, cards, values in [
        (functools.partial(change_owner, layout), [5, 2, 8], [1, 1, 0]),
        (functools.partial(set_visibility, layout), [0, 2, 1], [0, 3, 2]),
    ]:
        per_item = [fn(b, c, v) for b, c, v in zip(boards, cards, values, strict=True)]
        args = (jnp.array(cards), jnp.array(values))
        for out in (jax.vmap(fn)(batched, *args), jax.jit(jax.vmap(fn))(batched, *args)):
            for i, expected in enumerate(per_item):
                got = jax.tree.map(lambda x, i=i: x[i], out)
                assert int(got.error) == int(expected.error)
                assert_boards_equal(got.board, expected.board)
    assert [int(change_owner(layout, b, 8, 0).error) for b in boards] == [3, 3, 3]


def test_board_is_a_pytree_with_every_field(board0):
    leaves = jax.tree.leaves(board0)
    assert len(leaves) == len(board_lib.Board.__dataclass_fields__) == 11
    moved = jax.tree.map(lambda x: x, board0)
    assert_boards_equal(moved, board0)


def test_registry_gather_by_board_definitions(layout, board0):
    cost = jax.jit(lambda b: layout.cards["cost"][b.definition])(board0)
    np.testing.assert_array_equal(cost, [1, 2, 3, 7, 1, 2, 3, 7])
    assert isinstance(layout.cards, cards_lib.CardRegistry)
