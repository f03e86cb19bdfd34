"""Auto-reset for batched rollouts, and uniform random legal actions.

A rollout loop body is::

    state = reset_if_done(env.init, state, reset_key)      # finished games restart
    action = random_legal_action(action_key, state.legal_action_mask)
    state = env.step(state, action, step_key)

so every action is chosen from the mask of the state it is applied to, and the finishing step's state
(its rewards and final observation) is seen by the loop before the reset replaces it.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from tcgjax.core.env import State, tree_where

__all__ = ["reset_if_done", "random_legal_action"]


def random_legal_action(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """Sample uniformly among the legal actions. ``legal_action_mask``: bool[..., A]. int32[...]."""
    logits = jnp.where(legal_action_mask, 0.0, jnp.finfo(jnp.float32).min)
    return jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)


def reset_if_done(init_fn: Callable[[jax.Array], State], state: State, key: jax.Array) -> State:
    """``init_fn(key)`` where ``state`` is terminated or truncated, else ``state``. One game; vmap
    it (with per-game keys) for a batch."""
    done = state.terminated | state.truncated
    return tree_where(done, init_fn(key), state)
