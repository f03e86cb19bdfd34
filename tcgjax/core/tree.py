"""Pytree helpers shared by the core, the games and the trainers.

``when_any`` is how the games keep rare work off the hot path under ``vmap``: a ``lax.cond`` whose
predicate varies per game becomes a select, so both branches run for every game of the batch;
``when_any`` lifts the predicate to the whole batch (:func:`batch_any`), so the work runs once for
the batch when at least one game needs it and not at all otherwise, and each game still gets
exactly ``fn(x)`` where its own predicate holds and ``x`` elsewhere.

``when_some`` goes one step further for work that a few games of a large batch need at once (an
effect row to resolve, a finished game to reset): under ``vmap`` it gathers just those games, a
chunk of the batch at a time, runs ``fn`` on them and scatters the results back, so the batch pays
for the games that need the work rather than for all of them.

That pays on every backend measured. On the CPU a batch's work is done sequentially by a few
cores. On a GPU a conditional costs a launch decision (the predicate read back), but one step of a
large batch takes milliseconds, so the work skipped dominates: one H100 at batch 65536 ran the
Digimon rollout 2.2x and the Pokemon one 6.7x faster with real conditionals than with selects
(``benchmarks/RESULTS.md``, 2026-11-26). :data:`SKIP_RARE_WORK` chooses: ``True`` (default) real
conditionals, ``False`` the plain select everywhere (tests exercise both). The result is the same
either way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap

from tcgjax.core.arrays import any_along

__all__ = [
    "tree_where",
    "batch_any",
    "when_any",
    "when_some",
    "skips_rare_work",
    "SKIP_RARE_WORK",
]

T = TypeVar("T")

#: ``True``: skip rare work (real conditionals, the default on every backend); ``False``: plain
#: selects. Read when a function is traced, so set it before ``jit``.
SKIP_RARE_WORK: bool = True


def skips_rare_work() -> bool:
    """Whether :func:`when_any`, :func:`when_some` (and the batched auto-reset) use real
    conditionals (module doc)."""
    return bool(SKIP_RARE_WORK)


def tree_where(condition: jax.Array, on_true: Any, on_false: Any) -> Any:
    """Leafwise ``jnp.where(condition, on_true, on_false)`` over two pytrees of the same structure.

    A leaf that is the same array (or tracer) on both sides, under a scalar condition, is returned
    as it is, not selected: the result then still *is* that input, which lets :func:`when_some`
    see that a function passed it through unchanged."""
    scalar = jnp.ndim(condition) == 0

    def where(a, b):
        if a is b and scalar and isinstance(a, jax.Array):
            return a
        return jnp.where(condition, a, b)

    return jax.tree.map(where, on_true, on_false)


@custom_vmap
def batch_any(predicate: jax.Array) -> jax.Array:
    """bool[]: ``predicate`` (bool[]) for one game; under ``vmap``, whether it holds for *any* game
    of the batch (an unbatched value, reduced over every ``vmap`` level it is batched in).

    Only for deciding whether to run work at all (:func:`when_any`): a game must never read it as
    a fact about itself, since it depends on the rest of the batch."""
    return predicate


@batch_any.def_vmap
def _batch_any_rule(axis_size, in_batched, predicate):
    del axis_size
    (batched,) = in_batched
    reduced = any_along(predicate, axis=0) if batched else predicate
    # Recurse so that an enclosing vmap (vmap of vmap) reduces its own axis as well.
    return batch_any(reduced), False


def when_any(predicate: jax.Array, fn: Callable[[T], T], operand: T) -> T:
    """``fn(operand)`` where ``predicate`` (bool[]) holds, else ``operand``, for one game.

    Same result as ``tree_where(predicate, fn(operand), operand)``, under ``jit``, ``vmap`` and
    both; but under ``vmap`` ``fn`` runs only if some game of the batch needs it (a real
    ``lax.cond`` on :func:`batch_any`), instead of for every game at every call (unless
    :data:`SKIP_RARE_WORK` is off). ``fn`` must be pure and keep the pytree structure, shapes and dtypes
    of ``operand``.
    """
    predicate = jnp.asarray(predicate, jnp.bool_)
    if not skips_rare_work():
        return tree_where(predicate, fn(operand), operand)

    def run(operand):
        return tree_where(predicate, fn(operand), operand)

    return jax.lax.cond(batch_any(predicate), run, lambda operand: operand, operand)


#: ``when_some`` gathers this fraction of the batch at a time by default (at least one game).
DEFAULT_CHUNK_DIVISOR = 16


def when_some(
    predicate: jax.Array,
    fn: Callable[..., T],
    operand: T,
    *args: Any,
    chunk_divisor: int = DEFAULT_CHUNK_DIVISOR,
) -> T:
    """``fn(operand, *args)`` where ``predicate`` (bool[]) holds, else ``operand``, for one game.

    Same result as ``tree_where(predicate, fn(operand, *args), operand)`` under ``jit``, ``vmap``
    and both. Where :func:`skips_rare_work` holds, under ``vmap`` (a batch of ``N`` games) only the
    games whose predicate holds run ``fn``: their indices are gathered ``max(1, N //
    chunk_divisor)`` at a time and ``vmap(fn)`` runs on that chunk, in a loop that ends when none is
    left (no iteration when no game needs the work). The cost is that of the games that need the
    work plus one gather and one scatter of their state, instead of ``fn`` for the whole batch.
    Leaves that ``fn`` returns unchanged (read from its jaxpr, through nested ``jit``,
    ``tree_where`` and ``when_some``) are not scattered back, nor gathered when ``fn`` does not
    read them: in the Digimon step that removed a third of the gathers and scatters and
    ~1.2x of the step's time at batch 4096 on the CPU.

    ``fn`` must be pure, keep the pytree structure, shapes and dtypes of ``operand``, and read
    every per-game value through ``operand`` or ``args``, never through a closure: a batched value
    captured by ``fn`` could not be gathered with its game (``when_any`` has no such restriction).
    """
    predicate = jnp.asarray(predicate, jnp.bool_)

    def select(predicate, operand, *args):
        return tree_where(predicate, fn(operand, *args), operand)

    if not skips_rare_work():
        return select(predicate, operand, *args)
    # One trace of ``fn``, not two: ``custom_vmap`` traces ``select`` for one game and the rule
    # below vmaps ``fn`` again; through ``jit`` the second use batches the cached trace.
    fn = jax.jit(fn)
    kept = _passed_through(fn, operand, args)
    gathered = custom_vmap(select)

    @gathered.def_vmap
    def gathered_rule(axis_size, in_batched, predicate, operand, *args):
        inputs = jax.tree.map(
            lambda x, batched: x if batched else jnp.broadcast_to(x, (axis_size, *jnp.shape(x))),
            [predicate, operand, *args],
            list(in_batched),
        )
        predicate, operand, *args = inputs
        chunk = max(1, axis_size // chunk_divisor)
        out = _run_gathered(fn, predicate, operand, args, axis_size, chunk, kept)
        return out, jax.tree.map(lambda _: True, out)

    out = gathered(predicate, operand, *args)
    # The leaves ``fn`` passes through are the operand's own, so that an enclosing ``when_some``
    # sees them passed through as well (and skips their scatter too).
    leaves = [
        x if same else o
        for x, o, same in zip(jax.tree.leaves(operand), jax.tree.leaves(out), kept, strict=True)
    ]
    return jax.tree.unflatten(jax.tree.structure(out), leaves)


def _passed_through(fn, operand, args) -> list[bool]:
    """Per leaf of ``operand`` (one game): whether ``fn`` returns that leaf unchanged (its
    result's leaf is the same input variable, through any nesting of ``jit``). Read from the
    jaxpr of ``fn`` (a ``jit`` function, whose trace ``when_some`` reuses); those leaves need no
    scatter back, and their gather disappears when ``fn`` does not read them."""
    one = jax.tree.map(lambda x: jax.ShapeDtypeStruct(jnp.shape(x), jnp.result_type(x)), args)
    closed = jax.make_jaxpr(fn)(
        jax.tree.map(lambda x: jax.ShapeDtypeStruct(jnp.shape(x), jnp.result_type(x)), operand),
        *one,
    )
    source = _forwarded_inputs(closed.jaxpr)
    return [source[i] == i for i in range(len(jax.tree.leaves(operand)))]


def _forwarded_inputs(jaxpr) -> list[int | None]:
    """For each output variable of ``jaxpr``: the index of the input variable it is (looking
    through ``jit`` equations), or ``None`` when it is computed."""
    origin = {id(var): i for i, var in enumerate(jaxpr.invars)}
    for eqn in jaxpr.eqns:
        if eqn.primitive.name not in ("jit", "pjit"):
            continue
        inner = _forwarded_inputs(eqn.params["jaxpr"].jaxpr)
        for out, src in zip(eqn.outvars, inner, strict=True):
            if src is not None and id(eqn.invars[src]) in origin:
                origin[id(out)] = origin[id(eqn.invars[src])]
    return [origin.get(id(var)) for var in jaxpr.outvars]


def _run_gathered(fn, predicate, operand, args, batch: int, chunk: int, kept: list[bool]):
    """``operand`` (a batch of ``batch`` games) with ``fn`` applied to each game whose predicate
    holds, ``chunk`` games per iteration. Each iteration takes the first ``chunk`` games still
    waiting, by their rank among them (one cumulative sum and one scatter of their indices into
    ``chunk`` places; past the last one, the fill index ``batch`` is dropped by the scatters
    back); the games left are those of rank beyond ``chunk``. Leaves that ``fn`` passes through
    unchanged (``kept``) are neither carried through the loop nor scattered back."""
    leaves = jax.tree.leaves(operand)
    games = jnp.arange(batch, dtype=jnp.int32)

    def body(carry):
        written, remaining = carry
        rank = jnp.cumsum(remaining, dtype=jnp.int32)  # 1-based among the games left
        place = jnp.where(remaining & (rank <= chunk), rank - 1, chunk)
        index = jnp.full(chunk, batch, jnp.int32).at[place].set(games, mode="drop")
        safe = jnp.minimum(index, batch - 1)
        picked_operand, picked_args = jax.tree.map(lambda x: x[safe], (operand, args))
        result = jax.tree.leaves(jax.vmap(fn)(picked_operand, *picked_args))
        changed = (r for r, same in zip(result, kept, strict=True) if not same)
        written = [x.at[index].set(r, mode="drop") for x, r in zip(written, changed, strict=True)]
        return written, remaining & (rank > chunk)

    initial = [x for x, same in zip(leaves, kept, strict=True) if not same]
    written = iter(
        jax.lax.while_loop(lambda carry: any_along(carry[1], 0), body, (initial, predicate))[0]
    )
    out = [x if same else next(written) for x, same in zip(leaves, kept, strict=True)]
    return jax.tree.unflatten(jax.tree.structure(operand), out)
