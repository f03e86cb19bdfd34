"""Array helpers for the hot paths of the games.

``take_static`` is ``x[indices]`` for indices known on the host (a NumPy array: a clipped range, a
fixed layout of ids). Written as a gather, such an indexing keeps the batch axis of ``x`` in the
middle of its result under ``vmap`` (``[n, batch, ...]``), and XLA on the CPU then fuses a transpose
into every consumer: in the Digimon mask the attack, digivolve and activation blocks spent 10-16 ms
a call at batch 4096 on that alone (the game README's performance log). Built from static slices,
broadcasts and one concatenation, the same values keep the batch axis first and cost a copy.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["take", "take_static", "materialize"]


def take_static(x: jax.Array, indices, axis: int = 0) -> jax.Array:
    """``jnp.take(x, indices, axis)`` for host-known, in-range ``indices``, without a gather.

    Args:
      x: any array; ``axis`` is indexed.
      indices: a NumPy (or Python) integer array of any shape, each in ``[0, x.shape[axis])``
        (negative indices are refused rather than wrapped: the callers clip on purpose).
      axis: the axis of ``x`` to index (static).

    Returns:
      ``x.shape[:axis] + indices.shape + x.shape[axis + 1:]``, equal to ``jnp.take(x, indices,
      axis)``. Runs of consecutive indices become one slice each, runs of a repeated index one
      broadcast slice, so a clipped range ``min(arange(n), k)`` is two pieces.

    Raises:
      TypeError: ``indices`` is a traced or device array (use ordinary indexing then).
      ValueError: an index outside ``[0, x.shape[axis])``, or an empty ``indices``.
    """
    if isinstance(indices, jax.Array):
        raise TypeError("take_static: indices must be known on the host (a NumPy array)")
    idx = np.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"take_static: indices must be integers, got {idx.dtype}")
    axis = axis % x.ndim
    size = x.shape[axis]
    flat = idx.reshape(-1)
    if flat.size == 0:
        raise ValueError("take_static: indices is empty")
    if flat.min() < 0 or flat.max() >= size:
        raise ValueError(
            f"take_static: indices must lie in [0, {size}), got {flat.min()}..{flat.max()}"
        )
    pieces = []
    start = 0
    while start < flat.size:
        stop = start + 1
        if stop < flat.size and flat[stop] == flat[start]:
            while stop < flat.size and flat[stop] == flat[start]:
                stop += 1
            one = jax.lax.slice_in_dim(x, int(flat[start]), int(flat[start]) + 1, axis=axis)
            shape = list(one.shape)
            shape[axis] = stop - start
            pieces.append(jnp.broadcast_to(one, tuple(shape)))
        else:
            while stop < flat.size and flat[stop] == flat[stop - 1] + 1:
                stop += 1
            first, last = int(flat[start]), int(flat[stop - 1])
            pieces.append(jax.lax.slice_in_dim(x, first, last + 1, axis=axis))
        start = stop
    out = pieces[0] if len(pieces) == 1 else jnp.concatenate(pieces, axis=axis)
    return out.reshape(x.shape[:axis] + idx.shape + x.shape[axis + 1 :])


def materialize(x: jax.Array) -> jax.Array:
    """``x`` itself, meant to be computed once into its own buffer before its consumers read it.

    XLA fuses cheap elementwise producers into their consumers, and when a consumer broadcasts
    (a per-attacker check read by each of the 300 attack ids) the producer is recomputed for each
    element it feeds. ``jax.lax.optimization_barrier`` does not stop it on the CPU (the barrier is
    removed before fusion); ``x`` goes through a maximum over a pair (``x`` and the smallest value
    of its dtype), a reduction, which XLA keeps as its own kernel in small programs (0.55 -> 0.30
    ms in a micro-benchmark; the Digimon mask on its own). It is a hint, not a guarantee: in the
    whole Digimon step XLA was seen rewriting this size-2 reduction into an elementwise maximum
    and fusing it again. The values are always ``x``'s.

    Args:
      x: a bool, integer or float32 array of any shape.

    Returns:
      The same values, dtype and shape.
    """
    x = jnp.asarray(x)
    if x.dtype == jnp.bool_:
        return materialize(x.astype(jnp.int8)) != 0
    if x.dtype == jnp.float32:
        # By bit pattern: the maximum of a pattern and the smallest int32 is the pattern.
        bits = jax.lax.bitcast_convert_type(x, jnp.int32)
        return jax.lax.bitcast_convert_type(materialize(bits), jnp.float32)
    if not jnp.issubdtype(x.dtype, jnp.integer):
        raise TypeError(f"materialize: bool, integer or float32 arrays only, got {x.dtype}")
    low = jnp.full(x.shape, jnp.iinfo(x.dtype).min, x.dtype)
    return jnp.max(jnp.stack([x, low]), axis=0)


def take(x: jax.Array, indices, axis: int = 0) -> jax.Array:
    """``jnp.take(x, indices, axis)`` for in-range indices: :func:`take_static` when they are
    known on the host (a NumPy array), a gather when they are traced. Lets one rules function
    serve the whole mask (every id, host-known layouts) and a single id (a traced index)."""
    if isinstance(indices, np.ndarray | int | np.integer):
        return take_static(x, np.asarray(indices), axis)
    return jnp.take(x, indices, axis=axis)
