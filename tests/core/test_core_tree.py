"""``when_any`` / ``when_some`` / ``batch_any``: the same per-game result as ``tree_where`` under
jit, vmap and both, with the work skipped for a batch in which no game needs it (``when_any``) or
done only for the games that need it (``when_some``): the point of the helpers."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tcgjax.core import tree
from tcgjax.core.tree import batch_any, tree_where, when_any, when_some


@pytest.fixture(params=[True, False], ids=["conditionals", "selects"])
def skip_policy(request, monkeypatch):
    """Both ways ``when_any`` can be built (``SKIP_RARE_WORK``): the results must not differ."""
    monkeypatch.setattr(tree, "SKIP_RARE_WORK", request.param)
    return request.param


def _double_a(tree):
    return {"a": tree["a"] * 2, "b": tree["b"] + 1}


def _operand(n):
    return {"a": jnp.arange(n, dtype=jnp.int32), "b": jnp.arange(n, dtype=jnp.int8)}


def _expected(pred, operand):
    return tree_where(pred, _double_a(operand), operand)


def _assert_trees_equal(got, want):
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("flag", [True, False])
def test_one_game_unbatched_and_jitted(flag, skip_policy):
    operand = {"a": jnp.int32(5), "b": jnp.int8(1)}
    pred = jnp.bool_(flag)
    _assert_trees_equal(when_any(pred, _double_a, operand), _expected(pred, operand))
    _assert_trees_equal(
        jax.jit(when_any, static_argnums=1)(pred, _double_a, operand), _expected(pred, operand)
    )


@pytest.mark.parametrize("flags", [[True, False, True, False], [False] * 4, [True] * 4])
def test_vmap_and_jit_vmap_match_tree_where(flags, skip_policy):
    pred, operand = jnp.array(flags), _operand(4)
    per_game = jax.vmap(lambda p, x: when_any(p, _double_a, x))
    _assert_trees_equal(per_game(pred, operand), _expected(pred, operand))
    _assert_trees_equal(jax.jit(per_game)(pred, operand), _expected(pred, operand))


def test_vmap_of_vmap_reduces_both_axes(skip_policy):
    pred = jnp.array([[False, False, True], [False, False, False]])
    operand = {"a": jnp.arange(6, dtype=jnp.int32).reshape(2, 3), "b": jnp.zeros((2, 3), jnp.int8)}
    nested = jax.jit(jax.vmap(jax.vmap(lambda p, x: when_any(p, _double_a, x))))
    _assert_trees_equal(nested(pred, operand), _expected(pred, operand))
    any_of_batch = jax.jit(jax.vmap(jax.vmap(batch_any)))(pred)
    # batch_any is unbatched under vmap: every game sees the batch-wide answer.
    np.testing.assert_array_equal(np.asarray(any_of_batch), np.ones((2, 3), bool))


def test_unbatched_predicate_with_batched_operand(skip_policy):
    operand = _operand(3)
    got = jax.vmap(lambda x: when_any(jnp.bool_(True), _double_a, x))(operand)
    _assert_trees_equal(got, _double_a(operand))


def test_inside_a_batched_while_loop(skip_policy):
    # Games leave the loop at different iterations; the helper must still be exact per game.
    def count_down(n):
        def body(carry):
            i, total = carry
            total = when_any(i % 2 == 0, lambda t: t + i, total)
            return i - 1, total

        return jax.lax.while_loop(lambda c: c[0] > 0, body, (n, jnp.int32(0)))[1]

    n = jnp.array([1, 4, 7], jnp.int32)
    want = np.array([sum(i for i in range(1, k + 1) if i % 2 == 0) for k in (1, 4, 7)])
    np.testing.assert_array_equal(np.asarray(jax.jit(jax.vmap(count_down))(n)), want)


def _counting_double(calls):
    def fn(tree):
        jax.debug.callback(lambda: calls.append(1))
        return _double_a(tree)

    return fn


def test_work_is_skipped_when_no_game_of_the_batch_needs_it(monkeypatch):
    monkeypatch.setattr(tree, "SKIP_RARE_WORK", True)
    calls = []
    per_game = jax.jit(jax.vmap(lambda p, x: when_any(p, _counting_double(calls), x)))
    operand = _operand(4)
    jax.block_until_ready(per_game(jnp.zeros(4, bool), operand))
    assert calls == []
    jax.block_until_ready(per_game(jnp.array([False, True, False, False]), operand))
    assert calls == [1]  # once for the batch, not once per game


def test_selects_run_the_work_for_every_batch(monkeypatch):
    # The contrast that makes the test above meaningful: a select computes fn regardless.
    monkeypatch.setattr(tree, "SKIP_RARE_WORK", False)
    calls = []
    per_game = jax.jit(jax.vmap(lambda p, x: when_any(p, _counting_double(calls), x)))
    jax.block_until_ready(per_game(jnp.zeros(4, bool), _operand(4)))
    assert calls == [1]


@pytest.mark.parametrize("backend", ["cpu", "gpu", "tpu"])
def test_rare_work_is_skipped_by_default_on_every_backend(backend):
    """The default does not depend on the backend (measured faster on CPU and GPU alike)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jax, "default_backend", lambda: backend)
        assert tree.SKIP_RARE_WORK is True
        assert tree.skips_rare_work() is True
        patch.setattr(tree, "SKIP_RARE_WORK", False)
        assert tree.skips_rare_work() is False


# -- when_some ------------------------------------------------------------------------------------


def _add_key(tree, key):
    """A function of the operand and a per-game argument (``when_some`` passes it explicitly)."""
    return {"a": tree["a"] * 2 + key, "b": tree["b"] + 1}


def _expected_some(pred, operand, key):
    return tree_where(pred, _add_key(operand, key), operand)


@pytest.mark.parametrize("flag", [True, False])
def test_when_some_one_game(flag, skip_policy):
    operand, key, pred = {"a": jnp.int32(5), "b": jnp.int8(1)}, jnp.int32(7), jnp.bool_(flag)
    want = _expected_some(pred, operand, key)
    _assert_trees_equal(when_some(pred, _add_key, operand, key), want)
    jitted = jax.jit(lambda p, x, k: when_some(p, _add_key, x, k))
    _assert_trees_equal(jitted(pred, operand, key), want)


@pytest.mark.parametrize(
    "flags",
    [
        [True, False, True, False, False],
        [False] * 5,
        [True] * 5,
        [False, False, False, False, True],
    ],
)
@pytest.mark.parametrize("chunk_divisor", [1, 2, 16])
def test_when_some_gathers_each_game_with_its_own_arguments(flags, chunk_divisor, skip_policy):
    # chunk_divisor 2 on 5 games: chunks of 2, so 3 games needing the work take two iterations.
    pred, operand = jnp.array(flags), _operand(5)
    key = jnp.arange(100, 105, dtype=jnp.int32)
    per_game = jax.jit(
        jax.vmap(lambda p, x, k: when_some(p, _add_key, x, k, chunk_divisor=chunk_divisor))
    )
    _assert_trees_equal(per_game(pred, operand, key), _expected_some(pred, operand, key))


def test_when_some_with_unbatched_operand_or_argument(skip_policy):
    pred = jnp.array([True, False, True])
    operand = {"a": jnp.int32(3), "b": jnp.int8(0)}
    key = jnp.array([1, 2, 3], jnp.int32)
    got = jax.vmap(lambda p, k: when_some(p, _add_key, operand, k))(pred, key)
    want = jax.vmap(lambda p, k: _expected_some(p, operand, k))(pred, key)
    _assert_trees_equal(got, want)
    got = jax.vmap(lambda p, x: when_some(p, _add_key, x, jnp.int32(9)))(pred, _operand(3))
    _assert_trees_equal(got, _expected_some(pred, _operand(3), jnp.int32(9)))


def test_when_some_under_vmap_of_vmap_and_nested(skip_policy):
    pred = jnp.array([[False, True, True], [False, False, False]])
    operand = {"a": jnp.arange(6, dtype=jnp.int32).reshape(2, 3), "b": jnp.zeros((2, 3), jnp.int8)}
    key = jnp.arange(6, dtype=jnp.int32).reshape(2, 3) * 10

    def inner(t, k):  # a when_some inside the gathered function: it sees the chunk as its batch
        return when_some(t["a"] % 2 == 0, _add_key, t, k)

    nested = jax.jit(jax.vmap(jax.vmap(lambda p, x, k: when_some(p, inner, x, k))))
    want = tree_where(pred, tree_where(operand["a"] % 2 == 0, _add_key(operand, key), operand),
                      operand)  # fmt: skip
    _assert_trees_equal(nested(pred, operand, key), want)


def _counting_add(calls):
    """``_add_key`` that records how many games each run of it received (a host callback that sees
    the whole batch it is vmapped over)."""

    def record(a):
        calls.append(a.size)
        return np.zeros_like(a)

    def fn(tree, key):
        spec = jax.ShapeDtypeStruct(tree["a"].shape, tree["a"].dtype)
        zero = jax.pure_callback(record, spec, tree["a"], vmap_method="expand_dims")
        return _add_key({"a": tree["a"] + zero, "b": tree["b"]}, key)

    return fn


def test_when_some_runs_the_work_on_chunks_of_the_games_that_need_it(monkeypatch):
    monkeypatch.setattr(tree, "SKIP_RARE_WORK", True)
    calls = []
    per_game = jax.jit(
        jax.vmap(lambda p, x, k: when_some(p, _counting_add(calls), x, k, chunk_divisor=4))
    )
    operand, key = _operand(8), jnp.zeros(8, jnp.int32)
    jax.block_until_ready(per_game(jnp.zeros(8, bool), operand, key))
    assert calls == []  # no game needs it: fn never runs
    pred = jnp.array([0, 1, 0, 1, 1, 0, 0, 0], bool)
    got = per_game(pred, operand, key)
    jax.block_until_ready(got)
    assert calls == [2, 2]  # three games, chunks of 8 // 4 = 2: two runs of two games
    _assert_trees_equal(got, _expected_some(pred, operand, key))


def _pass_some_through(t, key):
    """Keeps ``kept`` (and passes it through nested jit), swaps ``a`` and ``b``, changes ``c``:
    only ``kept`` may skip its scatter back, a swapped leaf is not "unchanged"."""
    inner = jax.jit(lambda t: {"a": t["b"], "b": t["a"], "c": t["c"] + key, "kept": t["kept"]})
    return inner(t)


def test_when_some_leaves_passed_through_stay_and_the_others_are_written(skip_policy):
    pred = jnp.array([True, False, True, True])
    operand = {
        "a": jnp.arange(4, dtype=jnp.int32),
        "b": jnp.arange(10, 14, dtype=jnp.int32),
        "c": jnp.zeros(4, jnp.int16),
        "kept": jnp.arange(20, 24, dtype=jnp.int8),
    }
    key = jnp.arange(4, dtype=jnp.int16) + 1
    got = jax.jit(jax.vmap(lambda p, x, k: when_some(p, _pass_some_through, x, k)))(
        pred, operand, key
    )
    _assert_trees_equal(got, tree_where(pred, _pass_some_through(operand, key), operand))
    one = jax.tree.map(lambda x: x[0], operand)
    # The analysis itself: only the leaf returned as the same input variable is passed through.
    assert tree._passed_through(jax.jit(_pass_some_through), one, (key[0],)) == [
        False, False, False, True
    ]  # fmt: skip


def _compute_then_pass_through(t):
    """Computes ``c`` first (an equation that is not a ``jit``), then passes ``kept`` through a
    nested ``jit``: the analysis must look past the first equation."""
    c = t["c"] * 3
    return {"c": c, "kept": jax.jit(lambda x: x)(t["kept"])}


def test_passed_through_looks_at_every_equation_not_only_the_first():
    one = {"c": jnp.int16(2), "kept": jnp.int8(7)}
    assert tree._passed_through(jax.jit(_compute_then_pass_through), one, ()) == [False, True]


def _select_some(t, flag):
    """A ``tree_where`` whose branches share ``kept``: the same input on both sides."""
    return tree_where(flag, {"c": t["c"] + 1, "kept": t["kept"]}, t)


def test_tree_where_passes_a_leaf_shared_by_both_sides_through():
    # The result's leaf *is* the input (no select), so when_some sees it passed through.
    one = {"c": jnp.int16(2), "kept": jnp.int8(7)}
    assert tree._passed_through(jax.jit(_select_some), one, (jnp.bool_(True),)) == [False, True]
    shared = jnp.arange(3)
    assert tree_where(jnp.bool_(False), shared, shared) is shared
    # Under a batched condition the leaf is selected per game (still the same values).
    mask = jnp.array([True, False, True])
    np.testing.assert_array_equal(np.asarray(tree_where(mask, shared, shared)), [0, 1, 2])
