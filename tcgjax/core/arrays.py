"""Array helpers for the hot paths of the games.

``take_static`` is ``x[indices]`` for indices known on the host (a NumPy array: a clipped range, a
fixed layout of ids). Written as a gather, such an indexing keeps the batch axis of ``x`` in the
middle of its result under ``vmap`` (``[n, batch, ...]``), and XLA on the CPU then fuses a transpose
into every consumer: in the Digimon mask the attack, digivolve and activation blocks spent 10-16 ms
a call at batch 4096 on that alone (the game README's performance log). Built from static slices,
broadcasts and one concatenation, the same values keep the batch axis first and cost a copy.

``count_true``, ``sum_along``, ``max_along``, ``min_along`` and ``any_along`` are integer
reductions over one axis (the ``C`` cards of a board, above all) that XLA on the CPU runs as one
kernel. A plain reduction over more than 32 elements is split by XLA's CPU pipeline in two (its
tree-reduction rewrite, meant for the precision of float sums: a windowed reduction to ``[..., 4]``
and then a reduction of that), each a separate kernel; in the Digimon step about 1,300 such pairs
ran a step at batch 4096. A reduction of two operands at once (a *variadic* one) is left whole, so
these helpers reduce a companion alongside the values and fold it back without changing them.
In a micro-benchmark (12 counts over ``[4096, 108]``) that is 3-6x faster than ``jnp.sum``; the
values are exactly those of the plain reductions.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

__all__ = [
    "take",
    "take_static",
    "materialize",
    "count_true",
    "sum_along",
    "max_along",
    "min_along",
    "any_along",
]


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


def _reduce_pair(values, companion, inits, combine, axis: int):
    """``lax.reduce`` of two operands of one shape over ``axis``: left whole by XLA's CPU tree
    rewrite, which only splits single-operand reductions (module doc)."""
    values = jnp.asarray(values)
    axes = (axis % values.ndim,)
    return jax.lax.reduce((values, companion), inits, combine, axes)


# The pair reductions' combining functions, defined once: ``lax.reduce`` caches its compiled
# reduction by the function object, so a new lambda per call would compile again at every eager
# call (~40 ms each: 240 compiles in one Digimon api_test before they were shared).
def _add_and_min(a, b):
    return a[0] + b[0], jnp.minimum(a[1], b[1])


def _add_both(a, b):
    return a[0] + b[0], a[1] + b[1]


def _max_and_min(a, b):
    return jnp.maximum(a[0], b[0]), jnp.minimum(a[1], b[1])


def _min_and_max(a, b):
    return jnp.minimum(a[0], b[0]), jnp.maximum(a[1], b[1])


def _integer(x: jax.Array, name: str) -> jax.Array:
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.integer):
        raise TypeError(f"{name}: integer arrays only, got {x.dtype}")
    return x


def count_true(mask: jax.Array, axis: int = -1) -> jax.Array:
    """``jnp.sum(mask, axis, dtype=int32)``: how many of ``mask`` (bool, any shape) are True
    along ``axis``, in one kernel (module doc). Returns int32, ``mask``'s shape without ``axis``."""
    x = jnp.asarray(mask, jnp.bool_).astype(jnp.int32)
    # The companion is the minimum of 0 and the 0/1 values: 0, never above the count.
    total, floor = _reduce_pair(x, x, (jnp.int32(0), jnp.int32(0)), _add_and_min, axis)
    return jnp.maximum(total, floor)


def sum_along(x: jax.Array, axis: int = -1) -> jax.Array:
    """``jnp.sum(x, axis, dtype=x.dtype)`` of an integer array (wrapping as it does), in one
    kernel: the positive and the negative parts are summed together (module doc). Returns ``x``'s
    dtype."""
    x = _integer(x, "sum_along")
    zero = jnp.zeros((), x.dtype)
    positive, negative = _reduce_pair(
        jnp.maximum(x, zero), jnp.minimum(x, zero), (zero, zero), _add_both, axis
    )
    return positive + negative


def _extreme(x: jax.Array, axis: int, name: str, largest: bool) -> jax.Array:
    """The maximum (``largest``) or minimum of an integer array along ``axis``, in one kernel: the
    companion reduction runs the other way from the dtype's far end, so it stays there and folding
    it back changes nothing (also along an empty axis, which gives the dtype's far end)."""
    x = _integer(x, name)
    info = jnp.iinfo(x.dtype)
    keep, combine = (jnp.maximum, _max_and_min) if largest else (jnp.minimum, _min_and_max)
    start = jnp.array(info.min if largest else info.max, x.dtype)
    value, companion = _reduce_pair(x, x, (start, start), combine, axis)
    return keep(value, companion)


def max_along(x: jax.Array, axis: int = -1) -> jax.Array:
    """``jnp.max(x, axis)`` of an integer array, in one kernel (module doc); the smallest value of
    the dtype along an empty axis. Returns ``x``'s dtype."""
    return _extreme(x, axis, "max_along", largest=True)


def min_along(x: jax.Array, axis: int = -1) -> jax.Array:
    """``jnp.min(x, axis)`` of an integer array, in one kernel (module doc); the largest value of
    the dtype along an empty axis. Returns ``x``'s dtype."""
    return _extreme(x, axis, "min_along", largest=False)


def any_along(mask: jax.Array, axis: int = -1) -> jax.Array:
    """``jnp.any(mask, axis)`` in one kernel (module doc). Returns bool, ``mask``'s shape without
    ``axis``."""
    return max_along(jnp.asarray(mask, jnp.bool_).astype(jnp.int8), axis) > 0
