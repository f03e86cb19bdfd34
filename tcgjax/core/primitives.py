"""Effect primitives both card games' interpreters run, written once.

A card game's interpreter (Digimon's ``interpreter`` / ``selections``, Pokémon's ``effects``) reads
an effect row and applies it as selects over the state. What the rows of both games do alike lives
here or in :mod:`tcgjax.core.zones` (draw, reveal, move a card between zones: ``draw``, ``draw_n``,
``move_card``) and :mod:`tcgjax.core.effects` (the queue of rows and the pending choice):

* **Durations** — "until the end of this turn / of the opponent's next turn / of your next turn"
  (Digimon rules 1-9, Pokémon's "during your opponent's next turn"): :func:`last_turn` is the last
  turn number an effect lasting that long is in force, :func:`in_force` whether it is in force on a
  turn. Both games number turns globally (turn 1, 2, 3, ... alternating players).
* **Counting "for each"** — :func:`for_each`: a row's amount times a count (of Energy, damage
  counters, Prize cards taken, digivolution cards per two).
* **Searching a pile** — :class:`CardFilters`: which card definitions each distinct filter of a
  card file's effect rows lets a search (or any choice of cards) take, as a host-built table. The
  device does one gather per candidate, whatever the number of distinct filters, so a card pool
  that grows adds table rows, not branches.

Every device function is pure and works under ``jit`` and ``vmap``; :class:`CardFilters` is built
on the host, once per card registry.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

__all__ = [
    "CONTROLLERS_NEXT_TURN",
    "DURATIONS",
    "OPPONENTS_NEXT_TURN",
    "THIS_TURN",
    "CardFilters",
    "for_each",
    "in_force",
    "last_turn",
]

# How long a timed effect lasts, seen from the player who controls it.
THIS_TURN, OPPONENTS_NEXT_TURN, CONTROLLERS_NEXT_TURN = 0, 1, 2
DURATIONS = ("this_turn", "opponents_next_turn", "controllers_next_turn")
# Turns from now to the last turn in force, by [duration, controller is the turn player]: the
# opponent's next turn is the next one when the controller's turn is on, else the one after it.
_TURNS_AHEAD = np.asarray([[0, 0], [2, 1], [1, 2]], np.int32)


def last_turn(duration, turn, controller_is_active) -> jax.Array:
    """The last turn number in which an effect lasting ``duration`` from now is in force.

    Args:
      duration: int, one of :data:`THIS_TURN`, :data:`OPPONENTS_NEXT_TURN`,
        :data:`CONTROLLERS_NEXT_TURN` (any shape broadcasting with the others; a value outside them
        is clipped into range, so callers check their rows on load).
      turn: int, the current turn number.
      controller_is_active: bool, the effect's controller is the turn player.

    Returns:
      int32 of the broadcast shape: ``turn`` for this turn; ``turn + 1`` or ``turn + 2`` for a next
      turn, by whose turn it is now.
    """
    duration = jnp.clip(jnp.asarray(duration, jnp.int32), 0, len(DURATIONS) - 1)
    mine = jnp.asarray(controller_is_active).astype(jnp.int32)
    return jnp.asarray(turn, jnp.int32) + jnp.asarray(_TURNS_AHEAD)[duration, mine]


def in_force(last, turn) -> jax.Array:
    """bool: an effect whose last turn is ``last`` (from :func:`last_turn`) is in force on turn
    ``turn`` (it ends when that turn ends). Shapes broadcast."""
    return jnp.asarray(last, jnp.int32) >= jnp.asarray(turn, jnp.int32)


def for_each(amount, count, per=1) -> jax.Array:
    """int32: ``amount`` for each ``per`` of ``count`` (``amount * (count // per)``: "+10 for each
    Energy", "+1000 DP for every 2 digivolution cards"). ``count`` >= 0, ``per`` >= 1; shapes
    broadcast."""
    count = jnp.asarray(count, jnp.int32)
    return jnp.asarray(amount, jnp.int32) * (count // jnp.asarray(per, jnp.int32))


@dataclasses.dataclass(frozen=True)
class CardFilters:
    """Which card definitions each effect row's card filter passes, as two host-built tables.

    Attributes:
      row_filter: int16[D, R], the filter of row ``r`` of definition ``d`` (0 = no filter: every
        card passes; also every padding row).
      passes: bool[F, D], filter ``f`` passes definition ``d`` (row 0 is all True).

    A game describes a row's filter by a hashable key (the row's filter columns) and gives the
    predicate of a key over all definitions; rows with equal keys share one filter, so ``F`` is
    the number of distinct filters in the card file, plus one.
    """

    row_filter: np.ndarray
    passes: np.ndarray

    @classmethod
    def build(
        cls,
        keys: Sequence[Sequence[Hashable | None]],
        num_rows: int,
        predicate: Callable[[Hashable], np.ndarray],
    ) -> CardFilters:
        """The tables of a card file.

        Args:
          keys: per definition (``D`` of them, the padding definition 0 first), the filter key of
            each of its effect rows, ``None`` for a row without a filter.
          num_rows: ``R``, the rows of the card table (at least the longest ``keys[d]``).
          predicate: a key's bool[D] over every definition (the padding definition's value is
            never read by a game that checks the candidate exists).
        """
        num_definitions = len(keys)
        row_filter = np.zeros((num_definitions, num_rows), np.int16)
        distinct: dict[Hashable, int] = {}
        for d, row_keys in enumerate(keys):
            if len(row_keys) > num_rows:
                raise ValueError(f"definition {d} has {len(row_keys)} rows, the table {num_rows}")
            for r, key in enumerate(row_keys):
                if key is not None:
                    row_filter[d, r] = distinct.setdefault(key, len(distinct) + 1)
        passes = np.ones((len(distinct) + 1, num_definitions), bool)
        for key, f in distinct.items():
            column = np.asarray(predicate(key), bool)
            if column.shape != (num_definitions,):
                raise ValueError(f"filter {key!r}: predicate shape {column.shape}")
            passes[f] = column
        return cls(row_filter, passes)

    @property
    def num_filters(self) -> int:
        """``F``: the distinct filters, plus the empty one."""
        return len(self.passes)

    def matches(self, definition, row, candidates) -> jax.Array:
        """bool: row ``row`` of definition ``definition`` (ints) lets a choice take cards of
        definition ``candidates`` (int array of any shape, valid definition indices). Returns bool
        of ``candidates``' shape broadcast with the others."""
        if self.num_filters == 1:  # host-known: no row filters (every card passes)
            return jnp.ones(jnp.shape(candidates), bool)
        f = jnp.asarray(self.row_filter)[definition, row].astype(jnp.int32)
        return jnp.asarray(self.passes)[f, candidates]
