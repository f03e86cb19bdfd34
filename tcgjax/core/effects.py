"""The records an effect interpreter keeps in the state: a queue of effect rows waiting to resolve
and the selection an effect row is waiting on.

Card effects are data: each card holds effect *rows* (timing, condition, primitive, arguments) and a
game's interpreter executes them one at a time. Two things outlive one ``step``: the rows still to
resolve (an attack's rows, a Trainer's, triggered rows) when one of them stops to ask a player, and
what that row asked. Both are small fixed-size records, so the state keeps a static shape:

* :class:`EffectQueue` — ``Q`` entries ``(card instance, row, slot, group)`` in resolution order,
  packed at the front, ``-1`` = empty. ``slot`` is where the card acts from (a game's slot index), or
  -1; ``group`` tells which entries one event triggered together (their order may be the
  controller's choice: simultaneous triggers), -1 for an entry whose place is settled.
* :class:`Selection` — the row waiting on a choice (``card`` -1 when none): the slot it acts from,
  how many choices are left, a game-defined ``stage`` of a multi-step choice (e.g. pick a card,
  then the Pokémon it goes to), the card picked at the previous stage, and the phase to return to.

Every function is pure and works under ``jit`` and ``vmap``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

__all__ = ["EffectQueue", "Selection"]


@struct.dataclass
class EffectQueue:
    """Effect rows waiting to resolve, in order (shapes for one game).

    Attributes:
      card: int16[Q], the card instance whose row it is (-1 = empty entry).
      row: int8[Q], the row index within the card's effect rows.
      slot: int8[Q], where the card acts from (a game's slot), -1 when not on a slot.
      group: int8[Q], the entries one event triggered at once share a group (>= 0; a game may let
        their controller choose the order among them); -1 for an entry whose place in the order
        is settled (a card's own rows in printed order, an effect used by a player, an order
        already chosen) and for an empty entry.
    """

    card: jax.Array
    row: jax.Array
    slot: jax.Array
    group: jax.Array

    @classmethod
    def empty(cls, size: int) -> EffectQueue:
        """A queue of ``size`` entries with nothing waiting."""
        return cls(
            card=jnp.full(size, -1, jnp.int16),
            row=jnp.full(size, -1, jnp.int8),
            slot=jnp.full(size, -1, jnp.int8),
            group=jnp.full(size, -1, jnp.int8),
        )

    @property
    def size(self) -> int:
        return self.card.shape[-1]

    def count(self) -> jax.Array:
        """Entries waiting. Returns int32[]."""
        return jnp.sum(self.card >= 0, dtype=jnp.int32)

    def is_empty(self) -> jax.Array:
        return self.card[0] < 0

    def head(self) -> tuple[jax.Array, jax.Array, jax.Array]:
        """``(card, row, slot)`` of the first entry, int32 (card -1 when empty)."""
        return (
            self.card[0].astype(jnp.int32),
            self.row[0].astype(jnp.int32),
            self.slot[0].astype(jnp.int32),
        )

    def next_group(self) -> jax.Array:
        """int8[]: a group number no waiting entry uses (the smallest), for the entries of a new
        event. A queue of ``Q`` entries uses at most ``Q`` groups, so it is at most ``Q``."""
        numbers = jnp.arange(self.size + 1, dtype=jnp.int32)
        used = jnp.any(
            (self.group.astype(jnp.int32)[None, :] == numbers[:, None]) & (self.card >= 0), axis=1
        )
        return jnp.argmin(used).astype(jnp.int8)  # the first False

    def pop(self) -> EffectQueue:
        """The queue without its first entry."""

        def shift(x):
            return jnp.roll(x, -1).at[-1].set(-1)

        return EffectQueue(
            card=shift(self.card),
            row=shift(self.row),
            slot=shift(self.slot),
            group=shift(self.group),
        )

    def push_front(self, card, row, slot, group=-1) -> EffectQueue:
        """The queue with ``(card, row, slot, group)`` first (the last entry drops if the queue is
        full: size the queue so that it never is)."""

        def put(x, v):
            return jnp.roll(x, 1).at[0].set(jnp.asarray(v, x.dtype))

        return EffectQueue(
            card=put(self.card, card),
            row=put(self.row, row),
            slot=put(self.slot, slot),
            group=put(self.group, group),
        )

    def to_front(self, chosen) -> EffectQueue:
        """The queue with the ``chosen`` entries (bool ``[Q]``) first, each part keeping its order,
        the chosen ones settled (group -1): a player's choice of which simultaneous effect
        resolves next."""
        index = jnp.arange(self.size, dtype=jnp.int32)
        chosen = jnp.asarray(chosen, bool) & (self.card >= 0)
        # Chosen entries, then the other waiting ones, then the empty ones (a stable order).
        key = jnp.where(chosen, index, jnp.where(self.card >= 0, self.size, 2 * self.size) + index)
        order = jnp.argsort(key)
        group = jnp.where(chosen, -1, self.group).astype(self.group.dtype)
        return EffectQueue(
            card=self.card[order], row=self.row[order], slot=self.slot[order], group=group[order]
        )

    def append(self, cards, rows, slots, valid, group=-1) -> EffectQueue:
        """Append the entries ``i`` with ``valid[i]`` (all ``[K]``; ``group`` a scalar or ``[K]``),
        keeping their order, after the waiting ones; entries beyond the queue's size drop (size it
        so that they never do)."""
        valid = jnp.asarray(valid, bool)
        rank = jnp.cumsum(valid) - 1  # position among the new entries
        dest = jnp.where(valid, self.count() + rank, self.size)  # size = dropped
        cards = jnp.where(valid, jnp.asarray(cards), -1)

        def put(x, v):
            return (
                jnp.concatenate([x, jnp.full(1, -1, x.dtype)])
                .at[dest]
                .set(jnp.asarray(v).astype(x.dtype))[: self.size]
            )

        groups = jnp.broadcast_to(jnp.asarray(group), valid.shape)
        return EffectQueue(
            card=put(self.card, cards),
            row=put(self.row, rows),
            slot=put(self.slot, slots),
            group=put(self.group, jnp.where(valid, groups, -1)),
        )


@struct.dataclass
class Selection:
    """The effect row waiting on a player's choice (shapes for one game; scalars).

    Attributes:
      card: int16[], the card instance whose row is resolving; -1 when nothing is pending.
      row: int8[], its row index.
      slot: int8[], where the card acts from (-1 when not on a slot).
      left: int8[], choices still to make.
      stage: int8[], which step of a multi-step choice comes next (game-defined; 0 first).
      picked: int16[], the card instance picked at the previous step (-1 none).
      resume: int8[], the phase to return to when the selection closes.
    """

    card: jax.Array
    row: jax.Array
    slot: jax.Array
    left: jax.Array
    stage: jax.Array
    picked: jax.Array
    resume: jax.Array

    @classmethod
    def none(cls) -> Selection:
        """No selection pending."""
        return cls(
            card=jnp.int16(-1),
            row=jnp.int8(-1),
            slot=jnp.int8(-1),
            left=jnp.int8(0),
            stage=jnp.int8(0),
            picked=jnp.int16(-1),
            resume=jnp.int8(-1),
        )

    def pending(self) -> jax.Array:
        return self.card >= 0

    @classmethod
    def open(cls, card, row, slot, left, resume, stage=0) -> Selection:
        """A selection for ``card``'s row ``row`` with ``left`` choices, returning to ``resume``."""
        return cls(
            card=jnp.asarray(card, jnp.int16),
            row=jnp.asarray(row, jnp.int8),
            slot=jnp.asarray(slot, jnp.int8),
            left=jnp.asarray(left, jnp.int8),
            stage=jnp.asarray(stage, jnp.int8),
            picked=jnp.int16(-1),
            resume=jnp.asarray(resume, jnp.int8),
        )
