"""Who may see which card (engine_data_model.md, VISIBILITE).

Resolution: a card's override if it has one, else its zone type's default. ``public`` cards are seen by
everyone, ``owner`` cards only by the zone's owner (the card's owner in a shared zone), ``hidden`` cards
by nobody (a deck's cards, face-down cards). Encoders call these functions; they never decide
visibility themselves.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from tcgjax.core.board import Board, BoardLayout
from tcgjax.core.zones import NO_OVERRIDE, OWNER, PUBLIC

__all__ = [
    "effective_visibility",
    "is_visible_to",
    "visible_mask",
    "visible_definitions",
    "reveal_all",
]


def effective_visibility(layout: BoardLayout, board: Board) -> jax.Array:
    """Resolved visibility of every card (0 public, 1 owner, 2 hidden). Returns int8[C]."""
    default = jnp.asarray(layout.zone_visibility)[board.zone]
    return jnp.where(board.visibility != NO_OVERRIDE, board.visibility, default)


def visible_mask(layout: BoardLayout, board: Board, player) -> jax.Array:
    """Whether each card is visible to ``player``. Returns bool[C]."""
    vis = effective_visibility(layout, board)
    zone_owner = jnp.asarray(layout.zone_owner)[board.zone]
    owner = jnp.where(zone_owner >= 0, zone_owner, board.owner)
    return (vis == PUBLIC) | ((vis == OWNER) & (owner == player))


def is_visible_to(layout: BoardLayout, board: Board, card, player) -> jax.Array:
    """``ctx.isVisibleTo(cardId, playerId)``: whether ``player`` may see ``card``. Returns bool[]."""
    return visible_mask(layout, board, player)[card]


def visible_definitions(layout: BoardLayout, board: Board, player) -> jax.Array:
    """Each card's definition index as ``player`` sees it: -1 where hidden. Returns int32[C]."""
    return jnp.where(visible_mask(layout, board, player), board.definition.astype(jnp.int32), -1)


def reveal_all(board: Board) -> Board:
    """``board`` with every card's visibility overridden to ``public``: an encoder that reads
    visibility through this module then writes the omniscient view (every hand, deck and face-down
    card as it is). For training-time critics and analysis only; such a board is never a state of
    the game (no rule sets these overrides, and ``validate`` refuses them)."""
    return board.replace(visibility=jnp.full_like(board.visibility, PUBLIC))
