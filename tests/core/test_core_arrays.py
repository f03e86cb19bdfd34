"""``take_static`` / ``take`` / ``materialize``: the values of ``jnp.take`` and of the input, under
jit, vmap and both, and no gather in the program where the point is to avoid one. The one-kernel
reductions: the values of ``jnp``'s, and no split (``reduce-window``) in the compiled program."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tcgjax.core.arrays import (
    any_along,
    count_true,
    materialize,
    max_along,
    min_along,
    sum_along,
    take,
    take_static,
)

INDEX_PATTERNS = {
    "clipped range": np.minimum(np.arange(20), 11),
    "one index": np.array([3]),
    "reversed": np.arange(12)[::-1].copy(),
    "scattered with repeats": np.array([5, 5, 0, 1, 2, 9, 9, 9, 4]),
    "two-dimensional": np.array([[0, 1, 2], [2, 2, 11]]),
    "scalar": np.int64(7),
}


@pytest.mark.parametrize("name", list(INDEX_PATTERNS))
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_take_static_equals_take_under_jit_and_vmap(name, axis):
    idx = INDEX_PATTERNS[name]
    x = jnp.arange(12**3, dtype=jnp.int32).reshape(12, 12, 12)
    want = np.take(np.asarray(x), idx, axis=axis)
    got = take_static(x, idx, axis)
    np.testing.assert_array_equal(np.asarray(got), want)
    assert got.dtype == x.dtype
    jitted = jax.jit(lambda x: take_static(x, idx, axis))(x)
    np.testing.assert_array_equal(np.asarray(jitted), want)
    # vmap over the first axis: each game indexes its own [12, 12] (axis counted without it).
    inner_axis = 0 if axis == 0 else axis if axis < 0 else axis - 1
    per_game = jax.jit(jax.vmap(lambda g: take_static(g, idx, inner_axis)))(x)
    np.testing.assert_array_equal(
        np.asarray(per_game), np.stack([np.take(np.asarray(g), idx, inner_axis) for g in x])
    )


def test_take_static_builds_no_gather():
    idx = np.minimum(np.arange(20), 11)
    program = jax.jit(jax.vmap(lambda g: take_static(g, idx))).lower(jnp.zeros((8, 12))).as_text()
    assert "gather" not in program
    gathered = jax.jit(jax.vmap(lambda g: g[idx])).lower(jnp.zeros((8, 12))).as_text()
    assert "gather" in gathered  # the comparison the helper exists for


def test_take_static_default_axis_is_the_first():
    x = jnp.arange(24).reshape(4, 6)
    np.testing.assert_array_equal(
        np.asarray(take_static(x, np.array([3, 0]))), np.asarray(x)[[3, 0]]
    )


def _pieces(idx):
    """The slices and broadcasts ``take_static`` builds for ``idx`` on a [12] vector."""
    jaxpr = jax.make_jaxpr(lambda x: take_static(x, idx))(jnp.zeros(12)).jaxpr
    return [
        e.primitive.name for e in jaxpr.eqns if e.primitive.name in ("slice", "broadcast_in_dim")
    ]


def test_take_static_lays_each_run_out_as_one_piece():
    # A clipped range: one slice for 0..11, one broadcast slice for the repeated 11.
    assert _pieces(np.minimum(np.arange(20), 11)) == ["slice", "slice", "broadcast_in_dim"]
    assert _pieces(np.arange(3, 9)) == ["slice"]  # one run, one slice, no concatenation
    # Descending indices are runs of one each.
    assert _pieces(np.array([5, 4, 3])) == ["slice", "slice", "slice"]
    # A run, a repeat, a run: 2, 3 | 3, 3 | 4 ... (a repeat is its own piece).
    assert _pieces(np.array([2, 3, 3, 3, 7, 8])) == ["slice", "slice", "broadcast_in_dim", "slice"]


@pytest.mark.parametrize(
    "indices, error, match",
    [
        (jnp.arange(3), TypeError, "known on the host"),
        (np.array([0.0, 1.0]), TypeError, "integers"),
        (np.array([-1, 0]), ValueError, r"\[0, 12\)"),
        (np.array([0, 12]), ValueError, r"\[0, 12\)"),
        (np.array([], np.int32), ValueError, "empty"),
    ],
)
def test_take_static_refuses_what_it_cannot_lay_out(indices, error, match):
    with pytest.raises(error, match=match):
        take_static(jnp.zeros(12), indices)


def test_take_dispatches_on_where_the_indices_live():
    x = jnp.arange(12) * 10
    np.testing.assert_array_equal(np.asarray(take(x, np.array([2, 2, 5]))), [20, 20, 50])
    # A traced index (one id of the checked API) is a gather with the same meaning.
    got = jax.jit(lambda x, i: take(x, i))(x, jnp.array([4, 0]))
    np.testing.assert_array_equal(np.asarray(got), [40, 0])
    np.testing.assert_array_equal(np.asarray(take(x, 3)), 30)


@pytest.mark.parametrize("dtype", [jnp.bool_, jnp.int8, jnp.int16, jnp.int32])
def test_materialize_is_the_identity(dtype):
    info = None if dtype == jnp.bool_ else jnp.iinfo(dtype)
    if info is None:
        x = jnp.array([[True, False, True], [False, False, True]])
    else:
        x = jnp.array([[info.min, -1, 0], [1, 7, info.max]], dtype)
    for fn in (materialize, jax.jit(materialize), jax.jit(jax.vmap(materialize))):
        got = fn(x)
        assert got.dtype == x.dtype and got.shape == x.shape
        np.testing.assert_array_equal(np.asarray(got), np.asarray(x))


def test_materialize_keeps_a_reduction_in_the_program():
    # The reduction is what keeps XLA from fusing the value into each consumer; a trivial one
    # (over a size-1 axis) would be simplified away.
    program = jax.jit(lambda x: materialize(x > 0)).lower(jnp.zeros(4, jnp.int32))
    assert "reduce" in program.compile().as_text()


def test_materialize_keeps_float32_bit_for_bit():
    x = jnp.array([-jnp.inf, -1.5, -0.0, 0.0, 1e-38, 3.25, jnp.inf, jnp.nan], jnp.float32)
    for fn in (materialize, jax.jit(materialize), jax.jit(jax.vmap(materialize))):
        got = np.asarray(fn(x))
        np.testing.assert_array_equal(got.view(np.int32), np.asarray(x).view(np.int32))


def test_materialize_refuses_other_floats():
    with pytest.raises(TypeError, match="bool, integer or float32"):
        materialize(jnp.zeros(3, jnp.float16))


REDUCTIONS = {
    "count_true": (count_true, lambda x, axis: np.sum(x != 0, axis=axis).astype(np.int32)),
    "any_along": (any_along, lambda x, axis: np.any(x != 0, axis=axis)),
    "sum_along": (sum_along, lambda x, axis: np.sum(x, axis=axis, dtype=x.dtype)),
    "max_along": (max_along, lambda x, axis: np.max(x, axis=axis)),
    "min_along": (min_along, lambda x, axis: np.min(x, axis=axis)),
}


def _reduction_input(name, dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    if name in ("count_true", "any_along"):
        return rng.random(shape) < 0.3
    if name == "sum_along":  # both signs, and sums that wrap in int8 / int16 as jnp.sum's do
        return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
    # Extremes of the dtype included: max/min must see them.
    x = rng.integers(-50, 50, shape).astype(dtype)
    x.flat[0], x.flat[-1] = info.min, info.max
    return x


@pytest.mark.parametrize("name", list(REDUCTIONS))
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32])
@pytest.mark.parametrize(
    ("shape", "axis"), [((7, 108), -1), ((108, 5), 0), ((3, 20), 1), ((40,), 0)]
)
def test_one_kernel_reductions_equal_numpy_under_jit_and_vmap(name, dtype, shape, axis):
    fn, reference = REDUCTIONS[name]
    x = _reduction_input(name, dtype, shape)
    want = reference(x, axis)
    for got in (fn(x, axis), jax.jit(lambda x: fn(x, axis))(x)):
        np.testing.assert_array_equal(np.asarray(got), want)
        assert np.asarray(got).dtype == want.dtype
    if len(shape) == 2 and axis in (-1, 1):  # a batch of rows, each reduced on its own
        batched = jax.jit(jax.vmap(lambda row: fn(row, 0)))(x)
        np.testing.assert_array_equal(np.asarray(batched), want)


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_one_kernel_reductions_default_to_the_last_axis(name):
    # Three axes of different lengths: only the last one gives the expected shape and values.
    fn, reference = REDUCTIONS[name]
    x = _reduction_input(name, np.int16, (2, 3, 4), seed=1)
    got = np.asarray(fn(x))
    assert got.shape == (2, 3)
    np.testing.assert_array_equal(got, reference(x, -1))


def test_one_kernel_reductions_are_not_split_by_xla():
    # What they are for: on the CPU (always present; the backend these helpers target), jnp's
    # reduction over 108 values compiles to a reduce-window and a reduce; these to one reduce.
    x = jax.device_put(jnp.zeros((64, 108), jnp.int32), jax.devices("cpu")[0])
    plain = jax.jit(lambda x: jnp.max(x, axis=-1)).lower(x).compile().as_text()
    assert "reduce-window" in plain, "XLA's CPU pipeline no longer splits: the helpers can go"
    for name, (fn, _) in REDUCTIONS.items():
        program = jax.jit(fn).lower(x).compile().as_text()
        assert "reduce-window" not in program, name


def test_empty_axis_gives_the_identity_and_floats_are_refused():
    empty = np.zeros((3, 0), np.int16)
    np.testing.assert_array_equal(np.asarray(max_along(empty)), np.full(3, -(2**15), np.int16))
    np.testing.assert_array_equal(np.asarray(min_along(empty)), np.full(3, 2**15 - 1, np.int16))
    np.testing.assert_array_equal(np.asarray(sum_along(empty)), np.zeros(3, np.int16))
    np.testing.assert_array_equal(np.asarray(count_true(empty != 0)), np.zeros(3, np.int32))
    np.testing.assert_array_equal(np.asarray(any_along(empty != 0)), np.zeros(3, bool))
    for fn in (sum_along, max_along, min_along):
        with pytest.raises(TypeError, match="integer arrays only"):
            fn(jnp.ones(4, jnp.float32))


def test_eager_reductions_compile_once_per_shape():
    # Host code (validate, pictures, tests) calls these outside jit: a second call on the same
    # shape must reuse the compiled reduction, not build a new one (a fresh combining function per
    # call did: ~40 ms each, 240 compiles in one Digimon api_test).
    compiled = []

    def listener(event, duration, **_):
        if event == "/jax/core/compile/backend_compile_duration":
            compiled.append(duration)

    x = np.arange(-6, 6, dtype=np.int16).reshape(3, 4)
    calls = [
        (fn, x != 0 if name in ("count_true", "any_along") else x)
        for name, (fn, _) in REDUCTIONS.items()
    ]
    for fn, arg in calls:  # first calls: compile what they need
        fn(arg)
    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        for fn, arg in calls:
            fn(arg)
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    assert compiled == []
