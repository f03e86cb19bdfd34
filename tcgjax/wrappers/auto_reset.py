"""Auto-reset for batched rollouts, and uniform random legal actions.

A rollout loop body is::

    state = reset_if_done(env.init, state, reset_key)      # finished games restart
    action = random_legal_action(action_key, state.legal_action_mask)
    state = env.step(state, action, step_key)

so every action is chosen from the mask of the state it is applied to, and the finishing step's state
(its rewards and final observation) is seen by the loop before the reset replaces it.

Under ``vmap``, ``reset_if_done`` does not compute ``init`` for every game of the batch at every
step (a select would: a new game's mask and observation cost about a step of the game): its batching
rule gathers the finished games, ``max(1, N // 32)`` at a time, and initialises only those, looping
until none is left. Every game gets exactly ``init_fn(its own key)`` where it is done and keeps its
state elsewhere, as the one-game definition says. Like :func:`tcgjax.core.tree.when_any`, this is
done where :func:`tcgjax.core.tree.skips_rare_work` says so (the CPU); elsewhere it is the select.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap

from tcgjax.core.env import State
from tcgjax.core.tree import skips_rare_work, tree_where

__all__ = ["reset_if_done", "random_legal_action"]

_MATMUL_CUMSUM_MAX_ACTIONS = 256
# Under vmap, finished games are initialised this fraction of the batch at a time (at least one).
_RESET_CHUNK_DIVISOR = 32


def random_legal_action(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """Sample uniformly among the legal actions. ``legal_action_mask``: bool[..., A]. int32[...].

    One uniform draw per game picks the k-th legal action (cumulative count), instead of a
    Gumbel draw per action as ``jax.random.categorical`` does: A times fewer random bits, which
    matters when a rollout step costs about a microsecond per game.

    A row with no legal action (which an env's mask never is: terminal masks are all True) gives
    action 0, a valid id, never ``A``.
    """
    num_actions = legal_action_mask.shape[-1]
    if num_actions <= _MATMUL_CUMSUM_MAX_ACTIONS:
        # Prefix counts as a product with an upper-triangular matrix: exact for these sizes and
        # about 2x faster than cumsum (a reduce-window) on CPU.
        upper = jnp.triu(jnp.ones((num_actions, num_actions), jnp.float32))
        counts = (legal_action_mask.astype(jnp.float32) @ upper).astype(jnp.int32)  # [..., A]
    else:
        counts = jnp.cumsum(legal_action_mask, axis=-1, dtype=jnp.int32)  # [..., A]
    total = counts[..., -1]
    u = jax.random.uniform(key, total.shape)
    k = jnp.minimum((u * total).astype(jnp.int32), jnp.maximum(total - 1, 0))  # k-th legal, 0-based
    # counts is non-decreasing, so the first index with counts > k is the number with counts <= k
    # (a sum is cheaper than an argmax on CPU).
    index = jnp.sum(counts <= k[..., None], axis=-1, dtype=jnp.int32)
    return jnp.where(total > 0, index, 0)


def reset_if_done(init_fn: Callable[[jax.Array], State], state: State, key: jax.Array) -> State:
    """``init_fn(key)`` where ``state`` is terminated or truncated, else ``state``. One game; vmap
    it (with per-game keys) for a batch: under ``vmap`` only the finished games are initialised
    (module docstring), with the same result."""

    def select(state, key):
        return tree_where(state.terminated | state.truncated, init_fn(key), state)

    if not skips_rare_work():
        return select(state, key)
    reset = custom_vmap(select)

    @reset.def_vmap
    def reset_batch(axis_size, in_batched, state, key):
        state_batched, key_batched = in_batched
        state = jax.tree.map(
            lambda x, b: x if b else jnp.broadcast_to(x, (axis_size, *x.shape)),
            state,
            state_batched,
        )
        key = key if key_batched else jnp.broadcast_to(key, (axis_size, *key.shape))
        out = _reset_finished(init_fn, state, key, axis_size)
        return out, jax.tree.map(lambda _: True, out)

    return reset(state, key)


def _reset_finished(init_fn, state: State, key: jax.Array, batch: int) -> State:
    """A batch of ``batch`` games: each finished one replaced by ``init_fn`` of its key, ``chunk``
    games per iteration (indices of finished games gathered by ``nonzero``; past the last one the
    fill index ``batch`` is dropped by the scatter)."""
    chunk = max(1, batch // _RESET_CHUNK_DIVISOR)

    def body(carry):
        state, remaining = carry
        index = jnp.nonzero(remaining, size=chunk, fill_value=batch)[0]  # int[chunk]
        fresh = jax.vmap(init_fn)(key[jnp.minimum(index, batch - 1)])
        state = jax.tree.map(lambda x, f: x.at[index].set(f, mode="drop"), state, fresh)
        return state, remaining.at[index].set(False, mode="drop")

    done = state.terminated | state.truncated
    return jax.lax.while_loop(lambda carry: jnp.any(carry[1]), body, (state, done))[0]
