"""Shared builders for the core tests: one small hand-built board layout and host-side helpers.

The layout (2 players, Z = 8 zone instances, C = 8 cards)::

    zone index  id               type   ordered  visibility  max_size
    0           deck_player1     deck   yes      hidden      -
    1           deck_player2     deck   yes      hidden      -
    2           hand_player1     hand   yes      owner       3
    3           hand_player2     hand   yes      owner       3
    4           board_player1    board  no       public      2
    5           board_player2    board  no       public      2
    6           stack            stack  yes      public      -      (shared: owner None)
    7           limbo            limbo  no       owner       -      (shared: owner None)

Initial cards (``new_board``; listed bottom to top in each zone)::

    card  definition     owner  zone
    0     alpha_goblin   p1     deck_player1   (position 0)
    1     bolt           p1     deck_player1   (position 1)
    2     mid_knight     p1     deck_player1   (position 2, top)
    3     zeta_dragon    p2     deck_player2   (position 0)
    4     alpha_goblin   p2     deck_player2   (position 1, top)
    5     bolt           p1     hand_player1
    6     mid_knight     p2     board_player2
    7     zeta_dragon    p2     stack
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from tcgjax.core import board as board_lib
from tcgjax.core import cards as cards_lib
from tcgjax.core import errors, zones

DECK_P1, DECK_P2, HAND_P1, HAND_P2, BOARD_P1, BOARD_P2, STACK, LIMBO = range(8)

SCHEMA = cards_lib.CardSchema(
    (
        cards_lib.TextField("name"),
        cards_lib.EnumField("kind", ("creature", "spell")),
        cards_lib.IntField("cost", 0, 10),
        cards_lib.IntField("power", 0, 20),
        cards_lib.FlagsField("keywords", ("flying", "haste", "guard")),
    )
)

# Deliberately not in id order: the registry sorts ids.
ENTRIES = [
    {"id": "zeta_dragon", "name": "Dragon", "kind": "creature", "cost": 7, "power": 9,
     "keywords": ["flying", "guard"]},
    {"id": "alpha_goblin", "name": "Goblin", "kind": "creature", "cost": 1, "power": 1,
     "keywords": ["haste"]},
    {"id": "mid_knight", "name": "Knight", "kind": "creature", "cost": 3, "power": 4,
     "keywords": []},
    {"id": "bolt", "name": "Bolt", "kind": "spell", "cost": 2, "power": 0, "keywords": []},
]  # fmt: skip


def make_zone_types() -> zones.ZoneTypeRegistry:
    reg = zones.ZoneTypeRegistry()
    reg.register(zones.ZoneType("deck", ordered=True, visibility="hidden"))
    reg.register(zones.ZoneType("hand", ordered=True, visibility="owner", max_size=3))
    reg.register(zones.ZoneType("board", ordered=False, visibility="public", max_size=2))
    reg.register(zones.ZoneType("stack", ordered=True, visibility="public"))
    reg.register(zones.ZoneType("limbo", ordered=False, visibility="owner"))
    return reg


ZONES = (
    ("deck", 0),
    ("deck", 1),
    ("hand", 0),
    ("hand", 1),
    ("board", 0),
    ("board", 1),
    ("stack", None),
    ("limbo", None),
)


def make_layout() -> board_lib.BoardLayout:
    return board_lib.BoardLayout(
        num_players=2,
        zone_types=make_zone_types(),
        zones=ZONES,
        cards=cards_lib.CardRegistry(SCHEMA, ENTRIES),
        num_cards=8,
        card_attributes=("damage",),
        player_attributes=("life", "mana"),
        phases=("draw", "main", "end"),
    )


def initial_cards(layout: board_lib.BoardLayout) -> list[tuple[int, int, int]]:
    d = layout.cards.index
    return [
        (d("alpha_goblin"), 0, DECK_P1),
        (d("bolt"), 0, DECK_P1),
        (d("mid_knight"), 0, DECK_P1),
        (d("zeta_dragon"), 1, DECK_P2),
        (d("alpha_goblin"), 1, DECK_P2),
        (d("bolt"), 0, HAND_P1),
        (d("mid_knight"), 1, BOARD_P2),
        (d("zeta_dragon"), 1, STACK),
    ]


def stack_boards(boards):
    """Stack a list of boards into one batched board (leading axis ``B``)."""
    return jax.tree.map(lambda *x: jnp.stack(x), *boards)


def unstack_board(batched, i):
    return jax.tree.map(lambda x: x[i], batched)


def zone_lists(layout, board) -> list[list[int]]:
    """Host-side view: for every zone, its card indices ordered bottom (position 0) to top."""
    zone = [int(z) for z in board.zone]
    pos = [int(p) for p in board.position]
    out = []
    for z in range(layout.num_zones):
        members = [c for c in range(len(zone)) if zone[c] == z]
        out.append(sorted(members, key=lambda c: pos[c]))
    return out


def assert_dense(layout, board):
    """Positions of every zone are exactly ``0..count-1`` and counts respect max_size."""
    zone = [int(z) for z in board.zone]
    pos = [int(p) for p in board.position]
    for z in range(layout.num_zones):
        got = sorted(pos[c] for c in range(len(zone)) if zone[c] == z)
        assert got == list(range(len(got))), (layout.zone_id(z), got)
        assert len(got) <= int(layout.zone_max_size[z]), (layout.zone_id(z), len(got))
    assert all(0 <= z < layout.num_zones for z in zone), zone


def assert_boards_equal(a, b):
    for name, x, y in zip(
        a.__dataclass_fields__, jax.tree.leaves(a), jax.tree.leaves(b), strict=True
    ):
        assert x.dtype == y.dtype, name
        assert x.shape == y.shape, name
        assert bool(jnp.all(x == y)), (name, x, y)


# Zone of each card in a board where hand_player1 (3/3) and board_player2 (2/2) are full and the
# stack is empty: deck_player1 [0], deck_player2 [3, 4], hand_player1 [1, 2, 5],
# board_player2 [6, 7].
FULL_PLACEMENT = (DECK_P1, HAND_P1, HAND_P1, DECK_P2, DECK_P2, HAND_P1, BOARD_P2, BOARD_P2)


def board_with_zones(layout, zone_of_card, owners=None):
    """A ``new_board`` with the initial definitions, each card ``i`` in ``zone_of_card[i]``."""
    cards = [
        (d, o if owners is None else owners[i], zone_of_card[i])
        for i, (d, o, _) in enumerate(initial_cards(layout))
    ]
    return board_lib.new_board(layout, cards)


def reference_move(layout, lists, card, zone, position):
    """Pure-Python model of ``zones.move_card`` on ``lists`` (bottom-to-top card lists, mutated).

    Returns the expected error code; the lists are changed only when it is ``OK``.
    """
    num_cards = sum(len(z) for z in lists)
    if not 0 <= card < num_cards:
        return errors.CARD_OUT_OF_RANGE
    if not 0 <= zone < layout.num_zones:
        return errors.ZONE_OUT_OF_RANGE
    src = next(z for z, members in enumerate(lists) if card in members)
    dest_count = len(lists[zone]) - (src == zone)
    if dest_count >= int(layout.zone_max_size[zone]):
        return errors.ZONE_FULL
    at = dest_count if position == zones.TOP else position
    if not 0 <= at <= dest_count:
        return errors.POSITION_OUT_OF_RANGE
    lists[src].remove(card)
    lists[zone].insert(at, card)
    return errors.OK
