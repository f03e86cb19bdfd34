"""Orbax checkpoints: a resumed run continues bit for bit like an uninterrupted one."""

import jax
import numpy as np
import pytest
from train_testlib import TINY

from tcgjax import ConfigError
from tcgjax.train import checkpoint
from tcgjax.train.config import load_config
from tcgjax.train.ppo import make_ppo
from tcgjax.train.run import make_chunk


def _leaves_with_paths(tree):
    return jax.tree_util.tree_flatten_with_path(tree)[0]


def assert_trees_identical(actual, expected):
    """Same structure, and every leaf has the same dtype, shape and bits."""
    assert jax.tree.structure(actual) == jax.tree.structure(expected)
    for (path, a), (_, b) in zip(
        _leaves_with_paths(actual), _leaves_with_paths(expected), strict=True
    ):
        name = jax.tree_util.keystr(path)
        if jax.dtypes.issubdtype(b.dtype, jax.dtypes.prng_key):
            assert jax.dtypes.issubdtype(a.dtype, jax.dtypes.prng_key), name
            a, b = jax.random.key_data(a), jax.random.key_data(b)
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        # Bitwise, so -0.0 vs 0.0 or two NaN payloads would differ too.
        assert a.tobytes() == b.tobytes(), f"{name} differs"


def test_resume_continues_bit_for_bit(tmp_path):
    config = load_config("deployment", TINY)
    n = config.num_updates
    assert n == 4
    ppo = make_ppo(config)
    chunk = make_chunk(ppo.update)
    start = jax.jit(ppo.init)(jax.random.key(7))

    straight, straight_metrics = chunk(start, np.int32(n))

    half, _ = chunk(start, np.int32(n // 2))
    checkpoint.save(str(tmp_path), half, config, int(half.update))
    del half

    # A "fresh process": new env, network and jitted update, and a template from another key.
    fresh = make_ppo(load_config("deployment", TINY))
    template = jax.jit(fresh.init)(jax.random.key(123))
    restored = checkpoint.restore(str(tmp_path), template)
    assert restored.step == n // 2 and int(restored.runner.update) == n // 2
    assert restored.config == checkpoint.config_to_dict(config)
    resumed, resumed_metrics = make_chunk(fresh.update)(restored.runner, np.int32(n - n // 2))

    assert int(resumed.update) == n
    assert_trees_identical(resumed, straight)  # params, opt_state, env_state, key, snapshots, ...
    for name, values in straight_metrics.items():
        np.testing.assert_array_equal(resumed_metrics[name][: n // 2], values[n // 2 : n], name)


def test_runner_round_trips_exactly_and_steps_are_listed(tmp_path):
    config = load_config("deployment", TINY)
    ppo = make_ppo(config)
    init = jax.jit(ppo.init)
    runners = {step: init(jax.random.key(step)) for step in (0, 3)}
    for step, runner in runners.items():
        checkpoint.save(str(tmp_path), runner, config, step)
    assert checkpoint.all_steps(str(tmp_path)) == [0, 3]
    assert checkpoint.latest_step(str(tmp_path)) == 3
    template = init(jax.random.key(99))
    assert_trees_identical(checkpoint.restore(str(tmp_path), template).runner, runners[3])
    assert_trees_identical(checkpoint.restore(str(tmp_path), template, step=0).runner, runners[0])
    # Saving an existing step replaces it.
    checkpoint.save(str(tmp_path), runners[3], config, 0)
    assert_trees_identical(checkpoint.restore(str(tmp_path), template, step=0).runner, runners[3])


def test_typed_and_raw_keys_and_plain_dict_configs(tmp_path):
    tree = {"typed": jax.random.key(5), "raw": jax.random.PRNGKey(5), "x": np.arange(3.0)}
    checkpoint.save(str(tmp_path), tree, {"note": "any JSON mapping"}, 11)
    out = checkpoint.restore(
        str(tmp_path), {"typed": jax.random.key(0), "raw": jax.random.PRNGKey(0), "x": np.zeros(3)}
    )
    assert out.step == 11 and out.config == {"note": "any JSON mapping"}
    assert_trees_identical(out.runner, tree)


def test_restore_errors(tmp_path):
    with pytest.raises(ConfigError, match="no checkpoint"):
        checkpoint.restore(str(tmp_path / "empty"), {"x": np.zeros(2)})
    assert checkpoint.latest_step(str(tmp_path / "empty")) is None
    checkpoint.save(str(tmp_path), {"x": np.ones(2)}, {}, 2)
    with pytest.raises(ConfigError, match="no checkpoint at step 5"):
        checkpoint.restore(str(tmp_path), {"x": np.zeros(2)}, step=5)
    # Orbax would cast a dtype silently; a changed config (other shapes) is named too.
    with pytest.raises(ConfigError, match=r"x: stored float64\[2\], template int32\[2\]"):
        checkpoint.restore(str(tmp_path), {"x": np.zeros(2, np.int32)})
    with pytest.raises(ConfigError, match=r"template float64\[3\]"):
        checkpoint.restore(str(tmp_path), {"x": np.zeros(3)})


def test_zero_size_leaves_round_trip(tmp_path):
    """A board without card attributes (Digimon: ``card_attributes`` is ``[C, 0]``) is saved:
    orbax refuses zero-size arrays, so they are left out and rebuilt from the template."""
    import jax.numpy as jnp

    tree = {
        "attributes": jnp.zeros((108, 0), jnp.int16),
        "zone": jnp.arange(5, dtype=jnp.int8),
        "nested": {"empty": jnp.zeros((0,), jnp.float32), "key": jax.random.key(3)},
    }
    checkpoint.save(str(tmp_path), tree, {"env_id": "digimon"}, 7)
    restored = checkpoint.restore(str(tmp_path), tree)
    assert restored.step == 7 and restored.config == {"env_id": "digimon"}
    assert_trees_identical(restored.runner, tree)
