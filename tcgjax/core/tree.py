"""Pytree helpers shared by the core, the games and the trainers."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["tree_where"]


def tree_where(condition: jax.Array, on_true: Any, on_false: Any) -> Any:
    """Leafwise ``jnp.where(condition, on_true, on_false)`` over two pytrees of the same structure."""
    return jax.tree.map(lambda a, b: jnp.where(condition, a, b), on_true, on_false)
