"""``when_any`` / ``batch_any``: the same per-game result as ``tree_where`` under jit, vmap and
both, with the work skipped for a batch in which no game needs it (the point of the helper)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tcgjax.core import tree
from tcgjax.core.tree import batch_any, tree_where, when_any


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


@pytest.mark.parametrize(
    ("setting", "backend", "expected"),
    [(None, "cpu", True), (None, "gpu", False), (True, "gpu", True), (False, "cpu", False)],
)
def test_the_policy_follows_the_backend_unless_forced(monkeypatch, setting, backend, expected):
    monkeypatch.setattr(tree, "SKIP_RARE_WORK", setting)
    monkeypatch.setattr(jax, "default_backend", lambda: backend)
    assert tree.skips_rare_work() is expected
