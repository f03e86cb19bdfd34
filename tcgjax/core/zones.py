"""Zones: the zone-type registry, zone instances, and the pure commands that move cards.

This is the only mechanism that changes which zone a card is in (engine_data_model.md, OWNERSHIP). Every
game uses it; no game edits ``Board.zone`` or ``Board.position`` directly.

Representation (card-major, decision E2 "one source of truth"): each card stores its zone index and its
position inside that zone. Positions in a zone are always dense, ``0 .. count-1``; position ``count-1`` is
the *top* (the card a draw takes). Zone contents and counts are derived from these two arrays, never
stored twice. Unordered zones keep dense positions too (they name board slots) but their order carries no
rule meaning.

Every command returns ``CommandResult(board, error)``: when ``error != 0`` the board is returned
unchanged (never a silent drop, never a partial move); when the command applies, ``board.version`` is
incremented by one. All commands are pure, jittable and vmappable; the layout is static.

Shape letters: ``C`` cards, ``Z`` zone instances, ``P`` players.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp

from tcgjax.core import errors
from tcgjax.core.arrays import count_true, max_along
from tcgjax.core.tree import tree_where

if TYPE_CHECKING:  # pragma: no cover
    from tcgjax.core.board import Board, BoardLayout

__all__ = [
    "PUBLIC",
    "OWNER",
    "HIDDEN",
    "NO_OVERRIDE",
    "VISIBILITY_NAMES",
    "TOP",
    "BOTTOM",
    "ZoneType",
    "ZoneTypeRegistry",
    "CommandResult",
    "commit",
    "first_error",
    "zone_counts",
    "zone_count",
    "zone_slots",
    "card_at",
    "top_card",
    "contains",
    "move_card",
    "move_all",
    "move_all_under",
    "draw",
    "draw_n",
    "swap_zones",
    "shuffle",
    "noise_rank",
]

# Visibility values (zone-type defaults and per-card overrides).
PUBLIC, OWNER, HIDDEN = 0, 1, 2
NO_OVERRIDE = -1
VISIBILITY_NAMES = ("public", "owner", "hidden")

# Insertion positions for move_card: TOP appends above the current top; BOTTOM inserts at position 0.
TOP = -1
BOTTOM = 0
# Up to this many cards, shuffle ranks by pairwise comparison (O(C^2)) instead of sorting.
PAIRWISE_SHUFFLE_MAX_CARDS = 256


@dataclasses.dataclass(frozen=True)
class ZoneType:
    """A zone type declared by a game before play (engine_data_model.md, ZONE TYPE REGISTRY).

    Attributes:
      id: unique name, e.g. ``"deck"``; zone instance ids are ``<id>_<ownerId>`` (decision E1).
      ordered: whether card order carries meaning (decks, hands) or not (a board).
      visibility: default visibility, ``"public"``, ``"owner"`` or ``"hidden"``.
      max_size: capacity of each instance, or ``None`` for no limit beyond the number of cards.
    """

    id: str
    ordered: bool
    visibility: str
    max_size: int | None = None

    def __post_init__(self):
        if not isinstance(self.id, str) or not self.id.isidentifier():
            raise errors.ConfigError(f"zone type id must be an identifier, got {self.id!r}")
        if self.visibility not in VISIBILITY_NAMES:
            raise errors.ConfigError(
                f"zone type {self.id!r}: visibility {self.visibility!r} is not one of "
                f"{VISIBILITY_NAMES}"
            )
        if self.max_size is not None and (not isinstance(self.max_size, int) or self.max_size < 0):
            raise errors.ConfigError(
                f"zone type {self.id!r}: max_size must be a non-negative int or None, "
                f"got {self.max_size!r}"
            )


class ZoneTypeRegistry:
    """Zone types, registered at game build time and frozen before play.

    >>> reg = ZoneTypeRegistry()
    >>> reg.register(ZoneType("deck", ordered=True, visibility="hidden"))
    >>> reg.freeze()
    """

    def __init__(self):
        self._types: dict[str, ZoneType] = {}
        self._frozen = False

    def register(self, zone_type: ZoneType) -> None:
        if self._frozen:
            raise errors.ConfigError(
                f"zone type registry is frozen; cannot register {zone_type.id!r} during play"
            )
        if zone_type.id in self._types:
            raise errors.ConfigError(f"zone type {zone_type.id!r} is already registered")
        self._types[zone_type.id] = zone_type

    def freeze(self) -> ZoneTypeRegistry:
        self._frozen = True
        return self

    @property
    def frozen(self) -> bool:
        return self._frozen

    def __getitem__(self, type_id: str) -> ZoneType:
        try:
            return self._types[type_id]
        except KeyError:
            raise errors.ConfigError(
                f"unknown zone type {type_id!r}; registered: {sorted(self._types)}"
            ) from None

    def __contains__(self, type_id: str) -> bool:
        return type_id in self._types

    def __iter__(self):
        return iter(self._types.values())

    def __len__(self) -> int:
        return len(self._types)

    def index(self, type_id: str) -> int:
        self[type_id]
        return list(self._types).index(type_id)


class CommandResult(NamedTuple):
    """Result of a command: the (possibly unchanged) board and an int32 error code (0 = applied)."""

    board: Board
    error: jax.Array


# ---------------------------------------------------------------------------------------------------
# Queries (derived, never stored)


def zone_counts(layout: BoardLayout, board: Board) -> jax.Array:
    """Number of cards in every zone. Returns int32[Z]."""
    zone_ids = jnp.arange(layout.num_zones, dtype=board.zone.dtype)
    return count_true(board.zone[None, :] == zone_ids[:, None], axis=1)


def zone_count(board: Board, zone) -> jax.Array:
    """Number of cards in ``zone`` (int scalar). Returns int32[]."""
    return count_true(board.zone == zone)


def definition_counts(board: Board, selected: jax.Array, num_definitions: int) -> jax.Array:
    """Number of ``selected`` cards (bool[C]) of each definition. Returns int32[num_definitions].

    One scatter-add of the C cards: the one-hot ``[C, N]`` sum it replaces cost several times
    more under ``vmap`` on the CPU."""
    group = jnp.where(selected, 0, 1)
    return grouped_definition_counts(board, group, 1, num_definitions)[0]


def grouped_definition_counts(
    board: Board, group: jax.Array, num_groups: int, num_definitions: int
) -> jax.Array:
    """Cards of each definition in each group: ``group`` (int[C]) names every card's group, ``>=
    num_groups`` (or negative) for a card counted nowhere. One scatter-add of the C cards.
    Returns int32[num_groups, num_definitions]."""
    row = jnp.where((group >= 0) & (group < num_groups), group, num_groups)
    counts = jnp.zeros((num_groups + 1, num_definitions), jnp.int32)
    return counts.at[row, board.definition.astype(jnp.int32)].add(1)[:num_groups]


def contains(board: Board, zone, card) -> jax.Array:
    """Whether ``card`` is in ``zone``. Returns bool[]."""
    return board.zone[card] == zone


def card_at(board: Board, zone, position) -> jax.Array:
    """Card index at ``position`` of ``zone``, or -1 when there is none. Returns int32[]."""
    hit = (board.zone == zone) & (board.position == position)
    # Positions are distinct within a zone, so at most one card hits: one max-reduction (an
    # argmax's comparator, value then index, is several times slower under vmap on CPU), in one
    # kernel (``max_along``).
    cards = jnp.arange(board.zone.shape[0], dtype=jnp.int32)
    return max_along(jnp.where(hit, cards, -1))


def top_card(board: Board, zone) -> jax.Array:
    """The top card (highest position) of ``zone``, or -1 if empty. Returns int32[]."""
    return card_at(board, zone, zone_count(board, zone) - 1)


def zone_slots(board: Board, zone, num_slots: int) -> jax.Array:
    """Card index at each position ``0..num_slots-1`` of ``zone``, -1 padded. Returns int32[num_slots].

    ``num_slots`` is static; cards at positions ``>= num_slots`` are not returned.
    """
    # One scatter of the C cards (positions within a zone are distinct; the other cards land in
    # a dropped extra entry) rather than an [S, C] comparison: far less work under vmap.
    pos = board.position.astype(jnp.int32)
    dest = jnp.where((board.zone == zone) & (pos < num_slots), pos, num_slots)
    cards = jnp.arange(board.zone.shape[0], dtype=jnp.int32)
    return jnp.full(num_slots + 1, -1, jnp.int32).at[dest].set(cards)[:num_slots]


def zone_listing(
    board: Board,
    start: jax.Array,
    width: jax.Array,
    values: jax.Array,
    size: int,
    fill=-1,
    top_first: jax.Array | None = None,
) -> jax.Array:
    """Several zones listed end to end, by one scatter of the cards. Returns ``values.dtype[size]``.

    The card at position ``p`` of zone ``z`` puts ``values[card]`` at ``start[z] + p`` when
    ``start[z] >= 0`` and ``p < width[z]``; every other entry is ``fill``. With the tables chosen
    per observer this lists, say, my hand, the opponent's hand and both trashes at once (the
    Digimon observation): one scatter instead of one :func:`zone_slots` per zone, each of which
    costs a pass over the C cards under ``vmap``.

    Args:
      board: the board (C cards, Z zones).
      start: int32[Z], where each zone's list begins in the result; -1 for a zone not listed.
      width: int32[Z], how many positions of each zone are listed (cards above are left out).
        The lists must not overlap: ``start[z] + width[z] <= start`` of the next listed zone.
      values: [C], what each card contributes (its index, its id as seen, ...).
      size: static length of the result (at least every ``start[z] + width[z]``).
      fill: the value of an empty position.
      top_first: optional bool[Z]: the zones listed from the top (the last position) down, so
        entry 0 is the top card and cards below the ``width`` from the top are left out (a
        security stack whose entry ``i`` must be the ``i``-th card from the top).
    """
    zone = board.zone.astype(jnp.int32)
    pos = board.position.astype(jnp.int32)
    if top_first is not None:
        count = jnp.zeros(start.shape[0], jnp.int32).at[zone].add(1)  # cards per zone
        pos = jnp.where(jnp.asarray(top_first)[zone], count[zone] - 1 - pos, pos)
    first, limit = start[zone], width[zone]  # [C]
    # Cards of unlisted zones, or beyond their zone's width, land in a dropped extra entry.
    dest = jnp.where((first >= 0) & (pos < limit), first + pos, size)
    return jnp.full(size + 1, fill, values.dtype).at[dest].set(values)[:size]


# ---------------------------------------------------------------------------------------------------
# Commands


def commit(old: Board, new: Board, error: jax.Array) -> CommandResult:
    """Epilogue shared by every command: ``new`` with ``version + 1`` when ``error == 0``, else
    ``old`` unchanged (a rejected command changes nothing)."""
    ok = error == errors.OK
    new = new.replace(version=new.version + 1)
    board = tree_where(ok, new, old)
    return CommandResult(board, error.astype(jnp.int32))


def first_error(*checks) -> jax.Array:
    """The code of the first failing check, elementwise: ``checks`` are ``(failed, code)`` pairs,
    ``failed`` bool arrays that broadcast together, ``code`` an int; 0 (OK) where none fails.
    Returns int32 of the broadcast shape. Shared by the core commands and every game's rules."""
    shape = jnp.broadcast_shapes(*(jnp.shape(f) for f, _ in checks))
    err = jnp.full(shape, errors.OK, jnp.int32)
    for failed, code in reversed(checks):
        err = jnp.where(failed, jnp.int32(code), err)
    return err


_first_error = first_error


def move_card(layout: BoardLayout, board: Board, card, to_zone, position=TOP) -> CommandResult:
    """Move ``card`` into ``to_zone`` at ``position`` (``TOP``, ``BOTTOM`` or an index).

    The source zone closes the gap (cards above move down one); the destination opens one (cards at or
    above ``position`` move up one). Moving within the same zone re-inserts the card.

    Errors: ``card_out_of_range``, ``zone_out_of_range``, ``zone_full`` (destination at ``max_size``),
    ``position_out_of_range`` (``position`` beyond the destination's new top).

    Args:
      layout: the game's static ``BoardLayout``.
      board: the board to change.
      card: int[] card index in ``[0, C)``.
      to_zone: int[] zone index in ``[0, Z)``.
      position: int[]; ``TOP`` (-1) to put the card on top, ``BOTTOM`` (0) or any index in
        ``[0, count]`` where ``count`` is the destination size without the card.

    Returns:
      ``CommandResult(board, error)``.
    """
    card = jnp.asarray(card, jnp.int32)
    to_zone = jnp.asarray(to_zone, jnp.int32)
    position = jnp.asarray(position, jnp.int32)
    num_cards = board.zone.shape[0]
    card_ok = (card >= 0) & (card < num_cards)
    zone_ok = (to_zone >= 0) & (to_zone < layout.num_zones)
    safe_card = jnp.clip(card, 0, num_cards - 1)
    safe_zone = jnp.clip(to_zone, 0, layout.num_zones - 1)

    src_zone = board.zone[safe_card].astype(jnp.int32)
    src_pos = board.position[safe_card].astype(jnp.int32)
    same = src_zone == safe_zone
    dest_count = zone_count(board, safe_zone) - same.astype(jnp.int32)
    max_size = jnp.asarray(layout.zone_max_size)[safe_zone]
    insert_at = jnp.where(position == TOP, dest_count, position)
    error = _first_error(
        (~card_ok, errors.CARD_OUT_OF_RANGE),
        (~zone_ok, errors.ZONE_OUT_OF_RANGE),
        (dest_count >= max_size, errors.ZONE_FULL),
        ((insert_at < 0) | (insert_at > dest_count), errors.POSITION_OUT_OF_RANGE),
    )

    pos = board.position.astype(jnp.int32)
    zone = board.zone.astype(jnp.int32)
    others = jnp.arange(num_cards) != safe_card
    # Close the gap in the source zone.
    pos = jnp.where(others & (zone == src_zone) & (pos > src_pos), pos - 1, pos)
    # Open a slot in the destination zone.
    pos = jnp.where(others & (zone == safe_zone) & (pos >= insert_at), pos + 1, pos)
    pos = pos.at[safe_card].set(insert_at)
    zone = zone.at[safe_card].set(safe_zone)
    new = board.replace(
        zone=zone.astype(board.zone.dtype), position=pos.astype(board.position.dtype)
    )
    return commit(board, new, error)


def move_all(layout: BoardLayout, board: Board, from_zone, to_zone) -> CommandResult:
    """Move every card of ``from_zone`` onto the top of ``to_zone``, keeping their order (a whole
    digivolution stack moving between areas, a revealed pile going to the bottom of a deck, …).

    One pass over the cards, whatever the number moved. Moving a zone onto itself, or an empty zone,
    changes nothing but ``version``.

    Errors: ``zone_out_of_range`` (either zone), ``zone_full`` (the destination would exceed its
    ``max_size``).
    """
    from_zone = jnp.asarray(from_zone, jnp.int32)
    to_zone = jnp.asarray(to_zone, jnp.int32)
    zone = board.zone.astype(jnp.int32)
    moving = (zone == from_zone) & (from_zone != to_zone)
    dest_count = zone_count(board, to_zone)
    safe_zone = jnp.clip(to_zone, 0, layout.num_zones - 1)
    max_size = jnp.asarray(layout.zone_max_size)[safe_zone]
    error = _first_error(
        ((from_zone < 0) | (from_zone >= layout.num_zones), errors.ZONE_OUT_OF_RANGE),
        ((to_zone < 0) | (to_zone >= layout.num_zones), errors.ZONE_OUT_OF_RANGE),
        (dest_count + count_true(moving) > max_size, errors.ZONE_FULL),
    )
    new = board.replace(
        zone=jnp.where(moving, to_zone, zone).astype(board.zone.dtype),
        position=jnp.where(moving, board.position + dest_count, board.position).astype(
            board.position.dtype
        ),
    )
    return commit(board, new, error)


def move_all_under(layout: BoardLayout, board: Board, from_zone, to_zone) -> CommandResult:
    """Move every card of ``from_zone`` under the cards of ``to_zone``, keeping their order (the
    bottom card of ``from_zone`` becomes the bottom of ``to_zone``): a hand put on the bottom of a
    deck (shuffle the hand first for "in a random order").

    One pass over the cards. Moving a zone under itself, or an empty zone, changes nothing but
    ``version``.

    Errors: ``zone_out_of_range`` (either zone), ``zone_full`` (the destination would exceed its
    ``max_size``).
    """
    from_zone = jnp.asarray(from_zone, jnp.int32)
    to_zone = jnp.asarray(to_zone, jnp.int32)
    zone = board.zone.astype(jnp.int32)
    moving = (zone == from_zone) & (from_zone != to_zone)
    under = (zone == to_zone) & (from_zone != to_zone)
    moved = count_true(moving)
    dest_count = zone_count(board, to_zone)
    safe_zone = jnp.clip(to_zone, 0, layout.num_zones - 1)
    max_size = jnp.asarray(layout.zone_max_size)[safe_zone]
    error = _first_error(
        ((from_zone < 0) | (from_zone >= layout.num_zones), errors.ZONE_OUT_OF_RANGE),
        ((to_zone < 0) | (to_zone >= layout.num_zones), errors.ZONE_OUT_OF_RANGE),
        (dest_count + moved > max_size, errors.ZONE_FULL),
    )
    position = board.position.astype(jnp.int32)
    new = board.replace(
        zone=jnp.where(moving, to_zone, zone).astype(board.zone.dtype),
        position=jnp.where(under, position + moved, position).astype(board.position.dtype),
    )
    return commit(board, new, error)


def draw(layout: BoardLayout, board: Board, from_zone, to_zone) -> CommandResult:
    """Move the top card of ``from_zone`` onto the top of ``to_zone``.

    Errors: ``zone_out_of_range`` (source), ``zone_empty`` when ``from_zone`` has no card, then those of
    :func:`move_card`.
    """
    from_zone = jnp.asarray(from_zone, jnp.int32)
    card = top_card(board, from_zone)
    moved = move_card(layout, board, jnp.maximum(card, 0), to_zone, TOP)
    error = _first_error(
        ((from_zone < 0) | (from_zone >= layout.num_zones), errors.ZONE_OUT_OF_RANGE),
        (card < 0, errors.ZONE_EMPTY),
    )
    error = jnp.where(error == errors.OK, moved.error, error)
    return CommandResult(tree_where(error == errors.OK, moved.board, board), error)


def draw_n(layout: BoardLayout, board: Board, from_zone, to_zone, n) -> CommandResult:
    """Move the top ``n`` cards of ``from_zone`` onto ``to_zone`` one by one, as ``n`` calls of
    :func:`draw` would (the old top card ends lowest of them), in one pass over the cards.

    ``n`` may be traced; ``n == 0`` changes nothing but ``version``. A caller that wants "as many as
    possible" clamps ``n`` to :func:`zone_count` first.

    Errors: ``zone_out_of_range`` (either zone, or the same zone twice), ``zone_empty`` when
    ``from_zone`` holds fewer than ``n`` cards (nothing moves), ``zone_full`` (the destination would
    exceed its ``max_size``).
    """
    from_zone = jnp.asarray(from_zone, jnp.int32)
    to_zone = jnp.asarray(to_zone, jnp.int32)
    n = jnp.asarray(n, jnp.int32)
    zone = board.zone.astype(jnp.int32)
    pos = board.position.astype(jnp.int32)
    count = zone_count(board, from_zone)
    dest_count = zone_count(board, to_zone)
    safe_zone = jnp.clip(to_zone, 0, layout.num_zones - 1)
    max_size = jnp.asarray(layout.zone_max_size)[safe_zone]
    error = _first_error(
        ((from_zone < 0) | (from_zone >= layout.num_zones), errors.ZONE_OUT_OF_RANGE),
        (
            (to_zone < 0) | (to_zone >= layout.num_zones) | (to_zone == from_zone),
            errors.ZONE_OUT_OF_RANGE,
        ),
        ((n < 0) | (count < n), errors.ZONE_EMPTY),
        (dest_count + n > max_size, errors.ZONE_FULL),
    )
    moving = (zone == from_zone) & (pos >= count - n)
    new = board.replace(
        zone=jnp.where(moving, to_zone, zone).astype(board.zone.dtype),
        position=jnp.where(moving, dest_count + (count - 1 - pos), pos).astype(
            board.position.dtype
        ),
    )
    return commit(board, new, error)


def swap_zones(layout: BoardLayout, board: Board, zone_a, zone_b) -> CommandResult:
    """Exchange the whole contents of two zones, keeping each pile's order (an Active Pokémon and a
    Benched one trading places with everything attached). Swapping a zone with itself changes
    nothing but ``version``.

    Errors: ``zone_out_of_range`` (either zone), ``zone_full`` (a pile larger than the other zone's
    ``max_size``).
    """
    zone_a = jnp.asarray(zone_a, jnp.int32)
    zone_b = jnp.asarray(zone_b, jnp.int32)
    zone = board.zone.astype(jnp.int32)
    in_a, in_b = zone == zone_a, zone == zone_b
    sizes = jnp.asarray(layout.zone_max_size)
    safe_a = jnp.clip(zone_a, 0, layout.num_zones - 1)
    safe_b = jnp.clip(zone_b, 0, layout.num_zones - 1)
    error = _first_error(
        ((zone_a < 0) | (zone_a >= layout.num_zones), errors.ZONE_OUT_OF_RANGE),
        ((zone_b < 0) | (zone_b >= layout.num_zones), errors.ZONE_OUT_OF_RANGE),
        (
            (count_true(in_a) > sizes[safe_b]) | (count_true(in_b) > sizes[safe_a]),
            errors.ZONE_FULL,
        ),
    )
    new_zone = jnp.where(in_a, zone_b, jnp.where(in_b, zone_a, zone))
    return commit(board, board.replace(zone=new_zone.astype(board.zone.dtype)), error)


def noise_rank(noise: jax.Array, among: jax.Array | None = None) -> jax.Array:
    """Rank of each entry of ``noise`` (float ``[n]``) among the entries where ``among`` (bool
    ``[n]``, default all) holds, ties broken by index: with i.i.d. uniform noise, a uniform random
    permutation of those entries. Returns int32[n].

    A pairwise ``n x n`` compare: several times faster than a sort on CPU under ``vmap`` for
    card-game sizes (benchmarks/RESULTS.md). Used by :func:`shuffle` and by games that lay out a
    shuffled setup directly."""
    idx = jnp.arange(noise.shape[0])
    before = (noise[None, :] < noise[:, None]) | (
        (noise[None, :] == noise[:, None]) & (idx[None, :] < idx[:, None])
    )
    if among is not None:
        before &= among[None, :]
    return count_true(before, axis=1)


def shuffle(layout: BoardLayout, board: Board, zone, key: jax.Array) -> CommandResult:
    """Uniformly permute the positions of the cards in ``zone`` using ``key`` (consumed).

    Errors: ``zone_out_of_range``.
    """
    zone = jnp.asarray(zone, jnp.int32)
    in_zone = board.zone == zone
    noise = jax.random.uniform(key, board.zone.shape)
    num_cards = board.zone.shape[0]
    if num_cards <= PAIRWISE_SHUFFLE_MAX_CARDS:
        rank = noise_rank(noise, in_zone)
    else:
        # Cards outside the zone sort after every card inside it.
        order = jnp.argsort(jnp.where(in_zone, noise, 2.0))
        rank = jnp.zeros_like(order).at[order].set(jnp.arange(num_cards, dtype=order.dtype))
    pos = jnp.where(in_zone, rank, board.position).astype(board.position.dtype)
    error = _first_error(((zone < 0) | (zone >= layout.num_zones), errors.ZONE_OUT_OF_RANGE))
    return commit(board, board.replace(position=pos), error)
