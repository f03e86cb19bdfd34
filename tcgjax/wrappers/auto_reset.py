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
done unless :data:`tcgjax.core.tree.SKIP_RARE_WORK` is off; then it is the select.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from tcgjax.core.arrays import count_true, sum_along
from tcgjax.core.env import State
from tcgjax.core.tree import when_some

__all__ = ["reset_if_done", "random_legal_action", "random_play"]

_MATMUL_CUMSUM_MAX_ACTIONS = 256
# Above _MATMUL_CUMSUM_MAX_ACTIONS actions, random_legal_action counts by blocks of _BLOCK ids.
_BLOCK = 64
# Under vmap, finished games are initialised this fraction of the batch at a time (at least one).
_RESET_CHUNK_DIVISOR = 32


def random_legal_action(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """Sample uniformly among the legal actions. ``legal_action_mask``: bool[..., A]. int32[...].

    One uniform draw per game picks the k-th legal action (cumulative count), instead of a
    Gumbel draw per action as ``jax.random.categorical`` does: A times fewer random bits, which
    matters when a rollout step costs about a microsecond per game. Large action spaces (the
    Digimon game's 2120 ids) count in blocks of :data:`_BLOCK` ids: the block holding the k-th
    legal action is found from the per-block counts and only its ids are counted one by one (a
    full prefix count is a reduce-window on the CPU that cost ~17 ms a step at batch 4096, 4x
    the blocked count). Every path picks the same action for the same key.

    A row with no legal action (which an env's mask never is: terminal masks are all True) gives
    action 0, a valid id, never ``A``.
    """
    num_actions = legal_action_mask.shape[-1]
    if num_actions > _MATMUL_CUMSUM_MAX_ACTIONS:
        return _blocked_sample(key, legal_action_mask)
    counts = _prefix_counts(legal_action_mask)  # [..., A]
    total = counts[..., -1]
    k = _kth(key, total)
    # counts is non-decreasing, so the first index with counts > k is the number with counts <= k
    # (a sum is cheaper than an argmax on CPU).
    index = count_true(counts <= k[..., None])
    return jnp.where(total > 0, index, 0)


def _prefix_counts(values: jax.Array) -> jax.Array:
    """int32[..., n]: running sums of each row of ``values`` (bool, or small non-negative
    integers: the counts of a mask's blocks)."""
    n = values.shape[-1]
    if n <= _MATMUL_CUMSUM_MAX_ACTIONS:
        # A product with an upper-triangular matrix: exact for these sizes (sums far below 2**24)
        # and about 2x faster than cumsum (a reduce-window) on CPU.
        upper = jnp.triu(jnp.ones((n, n), jnp.float32))
        return (values.astype(jnp.float32) @ upper).astype(jnp.int32)
    return jnp.cumsum(values, axis=-1, dtype=jnp.int32)


def _kth(key: jax.Array, total: jax.Array) -> jax.Array:
    """int32[...]: a uniform rank in ``[0, total)`` (0 where ``total`` is 0)."""
    u = jax.random.uniform(key, total.shape)
    return jnp.minimum((u * total).astype(jnp.int32), jnp.maximum(total - 1, 0))


def _blocked_sample(key: jax.Array, mask: jax.Array) -> jax.Array:
    """:func:`random_legal_action` by blocks: the k-th legal id is in the first block whose
    cumulative count exceeds k, at the rank ``k - (legal ids before the block)`` inside it."""
    num_actions = mask.shape[-1]
    num_blocks = -(-num_actions // _BLOCK)
    # int8 throughout (a block has at most 64 ids): a bool-to-int32 sum costs 4x as much on the
    # CPU. The reductions are one kernel each (``tcgjax.core.arrays``): ~2.3x faster at 4096 x
    # 2120 than jnp's, which XLA splits in two.
    padded = jnp.pad(
        mask.astype(jnp.int8), [(0, 0)] * (mask.ndim - 1) + [(0, num_blocks * _BLOCK - num_actions)]
    )
    blocks = padded.reshape(mask.shape[:-1] + (num_blocks, _BLOCK))
    per_block = sum_along(blocks).astype(jnp.int32)  # [..., B]
    through = _prefix_counts(per_block)  # [..., B] legal ids up to the end of each block
    total = through[..., -1]
    k = _kth(key, total)
    block = jnp.minimum(count_true(through <= k[..., None]), num_blocks - 1)
    before = sum_along(jnp.where(jnp.arange(num_blocks) < block[..., None], per_block, 0))
    ids = jnp.take_along_axis(blocks, block[..., None, None], axis=-2)[..., 0, :]  # [..., BLOCK]
    inside = count_true(_prefix_counts(ids) <= (k - before)[..., None])
    return jnp.where(total > 0, block * _BLOCK + inside, 0)


def reset_if_done(init_fn: Callable[[jax.Array], State], state: State, key: jax.Array) -> State:
    """``init_fn(key)`` where ``state`` is terminated or truncated, else ``state``. One game; vmap
    it (with per-game keys) for a batch: under ``vmap`` only the finished games are initialised
    (module docstring; :func:`tcgjax.core.tree.when_some`), with the same result."""

    def fresh(state, key):
        del state
        return init_fn(key)

    done = state.terminated | state.truncated
    return when_some(done, fresh, state, key, chunk_divisor=_RESET_CHUNK_DIVISOR)


def random_play(
    env: Any,
    key: jax.Array,
    num_games: int,
    num_steps: int,
    record: Callable[[State], Any] = lambda state: state,
) -> Any:
    """Uniform random legal play of ``num_games`` games for ``num_steps`` steps, each finished game
    restarted (the loop body of the module docstring, vmapped).

    ``record`` maps the batch of states each step acts on (leading axis ``num_games``) to what the
    caller keeps (default: the whole states; a statistic keeps memory small on long rollouts).
    Returns its outputs stacked over the steps: leading axes ``[num_steps, num_games]``. Pure: jit
    it with ``env``, ``num_games``, ``num_steps`` and ``record`` static (``functools.partial``).
    """
    reset = jax.vmap(reset_if_done, in_axes=(None, 0, 0))
    k_init, k_steps = jax.random.split(key)
    state = jax.vmap(env.init)(jax.random.split(k_init, num_games))

    def body(state, key):
        k_reset, k_act, k_step = jax.random.split(key, 3)
        state = reset(env.init, state, jax.random.split(k_reset, num_games))
        action = random_legal_action(k_act, state.legal_action_mask)
        new = jax.vmap(env.step)(state, action, jax.random.split(k_step, num_games))
        return new, record(state)

    _, recorded = jax.lax.scan(body, state, jax.random.split(k_steps, num_steps))
    return recorded
