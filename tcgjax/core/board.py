"""The engine data model (engine_data_model.md) as fixed-size arrays.

``Board`` is the generic TCG state every game embeds: players, cards, zones and the turn state. Its
static companion ``BoardLayout`` holds what is fixed when a game is built: the frozen zone-type
registry, the zone instances, the card registry, attribute and phase names.

State fields (shape letters: ``C`` cards, ``P`` players, ``Kc``/``Kp`` attribute counts):

=====================  ============  ========  ==============================================
field                  shape         dtype     meaning
=====================  ============  ========  ==============================================
``definition``         ``[C]``       int16     card definition index in the ``CardRegistry``
``owner``              ``[C]``       int8      owning player
``zone``               ``[C]``       int8      zone instance index (see :mod:`tcgjax.core.zones`)
``position``           ``[C]``       int16     position in the zone, dense ``0..count-1``
``visibility``         ``[C]``       int8      override: -1 none, 0 public, 1 owner, 2 hidden
``card_attributes``    ``[C, Kc]``   int16     base card attributes named by the game
``player_attributes``  ``[P, Kp]``   int16     player attributes named by the game
``active_player``      ``[]``        int8      ``turnState.activePlayerId``
``turn_number``        ``[]``        int16     ``turnState.turnNumber``
``phase``              ``[]``        int8      ``turnState.phase`` (index into layout phases)
``version``            ``[]``        int32     incremented by every applied command
=====================  ============  ========  ==============================================

Ids (decision E1) are the JSON view of indices: players ``player1``.., cards ``card_001``.. in creation
order, zones ``<zoneType>_<ownerId>`` or ``<zoneType>`` when shared.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax.core import errors
from tcgjax.core.cards import CardRegistry
from tcgjax.core.zones import NO_OVERRIDE, VISIBILITY_NAMES, CommandResult, ZoneTypeRegistry
from tcgjax.core.zones import commit as _apply

__all__ = [
    "Board",
    "BoardLayout",
    "player_id",
    "card_id",
    "parse_player_id",
    "parse_card_id",
    "new_board",
    "change_owner",
    "set_visibility",
    "set_turn",
    "draw_matchup",
]


def player_id(index: int) -> str:
    """E1: ``player1``, ``player2``, ... for player indices 0, 1, ..."""
    return f"player{index + 1}"


def card_id(index: int) -> str:
    """E1: ``card_001``, ``card_002``, ... in creation order (zero-padded to at least 3 digits)."""
    return f"card_{index + 1:03d}"


def parse_player_id(text: str, num_players: int) -> int:
    if not (isinstance(text, str) and text.startswith("player") and text[6:].isdigit()):
        raise ValueError(f"not a player id: {text!r}")
    index = int(text[6:]) - 1
    if not 0 <= index < num_players or player_id(index) != text:
        raise ValueError(f"no such player: {text!r}")
    return index


def parse_card_id(text: str, num_cards: int) -> int:
    if not (isinstance(text, str) and text.startswith("card_") and text[5:].isdigit()):
        raise ValueError(f"not a card id: {text!r}")
    index = int(text[5:]) - 1
    if not 0 <= index < num_cards or card_id(index) != text:
        raise ValueError(f"no such card: {text!r}")
    return index


@struct.dataclass
class Board:
    """The engine state of one game (see the module docstring for every field)."""

    definition: jax.Array
    owner: jax.Array
    zone: jax.Array
    position: jax.Array
    visibility: jax.Array
    card_attributes: jax.Array
    player_attributes: jax.Array
    active_player: jax.Array
    turn_number: jax.Array
    phase: jax.Array
    version: jax.Array


@dataclasses.dataclass(frozen=True, eq=False)
class BoardLayout:
    """Static description of a game's board, built once per env and frozen.

    Args:
      num_players: ``P``.
      zone_types: the game's registry; it is frozen here.
      zones: zone instances as ``(zone_type_id, owner)`` pairs, owner a player index or ``None`` for a
        shared zone. Their order defines zone indices.
      cards: the card registry whose indices ``Board.definition`` holds.
      num_cards: ``C``, the fixed number of card instances in a game.
      card_attributes: names of the ``Kc`` generic card attributes.
      player_attributes: names of the ``Kp`` player attributes.
      phases: names of the game's phases (``turnState.phase``).
    """

    num_players: int
    zone_types: ZoneTypeRegistry
    zones: tuple[tuple[str, int | None], ...]
    cards: CardRegistry
    num_cards: int
    card_attributes: tuple[str, ...] = ()
    player_attributes: tuple[str, ...] = ()
    phases: tuple[str, ...] = ("main",)

    def __post_init__(self):
        self.zone_types.freeze()
        zones = tuple((t, o) for t, o in self.zones)
        object.__setattr__(self, "zones", zones)
        for type_id, owner in zones:
            self.zone_types[type_id]
            if owner is not None and not 0 <= owner < self.num_players:
                raise errors.ConfigError(f"zone {type_id!r}: owner {owner!r} is not a player index")
        ids = [self.zone_id(z) for z in range(len(zones))]
        if len(set(ids)) != len(ids):
            raise errors.ConfigError(f"duplicate zone instances: {ids}")
        if len(zones) > 127 or self.num_cards > 32767 or self.num_players > 127:
            raise errors.ConfigError("board too large for int8 zones / int16 positions")

        def table(fn, dtype):
            arr = np.asarray([fn(t, o) for t, o in zones], dtype=dtype)
            arr.setflags(write=False)
            return arr

        big = self.num_cards
        object.__setattr__(self, "zone_type", table(lambda t, o: self.zone_types.index(t), np.int8))
        object.__setattr__(self, "zone_owner", table(lambda t, o: -1 if o is None else o, np.int8))
        object.__setattr__(
            self,
            "zone_max_size",
            table(
                lambda t, o: (
                    big
                    if self.zone_types[t].max_size is None
                    else min(self.zone_types[t].max_size, big)
                ),
                np.int32,
            ),
        )
        object.__setattr__(
            self, "zone_ordered", table(lambda t, o: self.zone_types[t].ordered, np.bool_)
        )
        object.__setattr__(
            self,
            "zone_visibility",
            table(lambda t, o: VISIBILITY_NAMES.index(self.zone_types[t].visibility), np.int8),
        )

    @property
    def num_zones(self) -> int:
        return len(self.zones)

    def zone_id(self, zone: int) -> str:
        type_id, owner = self.zones[zone]
        return type_id if owner is None else f"{type_id}_{player_id(owner)}"

    def zone_index(self, type_id: str, owner: int | None = None) -> int:
        """Index of the zone instance ``(type_id, owner)``; raises ``ConfigError`` if absent."""
        try:
            return self.zones.index((type_id, owner))
        except ValueError:
            raise errors.ConfigError(f"no zone ({type_id!r}, owner={owner!r})") from None

    def zone_index_by_id(self, zone_id: str) -> int:
        for z in range(self.num_zones):
            if self.zone_id(z) == zone_id:
                return z
        raise ValueError(f"no such zone: {zone_id!r}")


def new_board(
    layout: BoardLayout,
    cards: Sequence[tuple[int, int, int]],
    *,
    player_attributes: np.ndarray | None = None,
    active_player: int = 0,
    phase: int = 0,
) -> Board:
    """Create a board host-side: card ``i`` is ``cards[i] = (definition, owner, zone)``.

    Cards are stacked in each zone in list order (the first card listed for a zone is at the bottom,
    position 0). Card attributes start at 0, the turn number at 1, the version at 0.
    """
    if len(cards) != layout.num_cards:
        raise errors.ConfigError(f"expected {layout.num_cards} cards, got {len(cards)}")
    for i, (definition, owner, zone) in enumerate(cards):
        if not 1 <= definition < len(layout.cards):
            raise errors.ConfigError(
                f"card {card_id(i)}: definition {definition} not in the registry"
            )
        if not 0 <= owner < layout.num_players:
            raise errors.ConfigError(f"card {card_id(i)}: owner {owner} is not a player index")
        if not 0 <= zone < layout.num_zones:
            raise errors.ConfigError(f"card {card_id(i)}: zone {zone} is not a zone index")
    definition = np.asarray([c[0] for c in cards], np.int16)
    owner = np.asarray([c[1] for c in cards], np.int8)
    zone = np.asarray([c[2] for c in cards], np.int8)
    position = np.zeros(len(cards), np.int16)
    for z in range(layout.num_zones):
        members = np.flatnonzero(zone == z)
        if len(members) > layout.zone_max_size[z]:
            raise errors.ConfigError(
                f"zone {layout.zone_id(z)!r} holds {len(members)} cards, max_size is "
                f"{layout.zone_max_size[z]}"
            )
        position[members] = np.arange(len(members))
    if player_attributes is None:
        player_attributes = np.zeros((layout.num_players, len(layout.player_attributes)), np.int16)
    return Board(
        definition=jnp.asarray(definition),
        owner=jnp.asarray(owner),
        zone=jnp.asarray(zone),
        position=jnp.asarray(position),
        visibility=jnp.full(len(cards), NO_OVERRIDE, jnp.int8),
        card_attributes=jnp.zeros((len(cards), len(layout.card_attributes)), jnp.int16),
        player_attributes=jnp.asarray(player_attributes, jnp.int16),
        active_player=jnp.int8(active_player),
        turn_number=jnp.int16(1),
        phase=jnp.int8(phase),
        version=jnp.int32(0),
    )


def change_owner(layout: BoardLayout, board: Board, card, new_owner) -> CommandResult:
    """Command: make ``new_owner`` own ``card`` (its zone does not change).

    Errors: ``card_out_of_range``, ``player_out_of_range``.
    """
    card = jnp.asarray(card, jnp.int32)
    new_owner = jnp.asarray(new_owner, jnp.int32)
    num_cards = board.owner.shape[0]
    error = jnp.where(
        (card < 0) | (card >= num_cards),
        errors.CARD_OUT_OF_RANGE,
        jnp.where(
            (new_owner < 0) | (new_owner >= layout.num_players), errors.PLAYER_OUT_OF_RANGE, 0
        ),
    )
    safe = jnp.clip(card, 0, num_cards - 1)
    new = board.replace(owner=board.owner.at[safe].set(new_owner.astype(board.owner.dtype)))
    return _apply(board, new, error)


def set_visibility(layout: BoardLayout, board: Board, card, override) -> CommandResult:
    """Command: set ``card``'s visibility override (-1 none, 0 public, 1 owner, 2 hidden).

    Errors: ``card_out_of_range``, ``visibility_out_of_range``.
    """
    del layout
    card = jnp.asarray(card, jnp.int32)
    override = jnp.asarray(override, jnp.int32)
    num_cards = board.visibility.shape[0]
    error = jnp.where(
        (card < 0) | (card >= num_cards),
        errors.CARD_OUT_OF_RANGE,
        jnp.where((override < NO_OVERRIDE) | (override > 2), errors.VISIBILITY_OUT_OF_RANGE, 0),
    )
    safe = jnp.clip(card, 0, num_cards - 1)
    new = board.replace(visibility=board.visibility.at[safe].set(override.astype(jnp.int8)))
    return _apply(board, new, error)


def set_turn(board: Board, *, active_player=None, turn_number=None, phase=None) -> Board:
    """Update ``turnState`` fields (a turn-state patch, so it increments ``version`` too)."""
    new = board
    if active_player is not None:
        new = new.replace(active_player=jnp.asarray(active_player, jnp.int8))
    if turn_number is not None:
        new = new.replace(turn_number=jnp.asarray(turn_number, jnp.int16))
    if phase is not None:
        new = new.replace(phase=jnp.asarray(phase, jnp.int8))
    return new.replace(version=new.version + 1)


def draw_matchup(
    board: Board, pair_definitions: np.ndarray, key: jax.Array
) -> tuple[Board, jax.Array, jax.Array]:
    """Draw a game's matchup in ``init``: with more than one row of ``pair_definitions``
    (``[P, C]``: the card instances' definitions per matchup), a uniform index ``pair`` and the
    board's ``definition`` set to its row; with one row nothing is drawn and ``key`` is returned
    unsplit (the games of a single matchup do not change). Returns ``(board, pair int32[],
    key)``, the key to go on with."""
    if len(pair_definitions) == 1:  # static
        return board, jnp.int32(0), key
    key, key_pair = jax.random.split(key)
    pair = jax.random.randint(key_pair, (), 0, len(pair_definitions))
    definitions = jnp.asarray(pair_definitions)[pair].astype(board.definition.dtype)
    return board.replace(definition=definitions), pair, key
