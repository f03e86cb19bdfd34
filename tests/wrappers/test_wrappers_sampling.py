"""``random_legal_action`` and ``reset_if_done``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tcgjax
from tcgjax.wrappers import auto_reset, random_legal_action, reset_if_done

sample_many = jax.jit(jax.vmap(random_legal_action, in_axes=(0, None)), static_argnums=())


@pytest.mark.parametrize("num_actions", [5, 300])  # the matmul path and the cumsum path
def test_uniform_over_legal_actions_only(num_actions):
    mask = np.zeros(num_actions, bool)
    legal = [1, 3, num_actions - 1]
    mask[legal] = True
    draws = np.asarray(
        sample_many(jax.random.split(jax.random.PRNGKey(0), 30_000), jnp.asarray(mask))
    )
    assert set(np.unique(draws)) == set(legal)
    freq = np.bincount(draws, minlength=num_actions)[legal] / len(draws)
    np.testing.assert_allclose(freq, 1 / 3, atol=0.015)  # ~5 sigma for 30k draws


def test_paths_agree(monkeypatch):
    mask = jax.random.bernoulli(jax.random.PRNGKey(1), 0.3, (64, 40))
    key = jax.random.PRNGKey(2)
    fast = random_legal_action(key, mask)
    monkeypatch.setattr(auto_reset, "_MATMUL_CUMSUM_MAX_ACTIONS", 0)
    slow = random_legal_action(key, mask)
    np.testing.assert_array_equal(fast, slow)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=70).filter(any), st.integers(0, 2**31 - 1))
def test_never_picks_an_illegal_action(bits, seed):
    mask = jnp.asarray(bits)
    padded = jnp.zeros(70, bool).at[: len(bits)].set(mask)  # one shape: compiled once
    action = int(jax.jit(random_legal_action)(jax.random.PRNGKey(seed), padded))
    assert bool(padded[action])


def test_reset_if_done_replaces_only_finished_games(duel_env):
    env = duel_env
    keys = jax.random.split(jax.random.PRNGKey(3), 2)
    states = jax.vmap(env.init)(keys)
    states = states.replace(terminated=jnp.array([True, False]), step_count=jnp.array([7, 7]))
    fresh = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(4), 2))
    out = jax.vmap(reset_if_done, in_axes=(None, 0, 0))(
        env.init, states, jax.random.split(jax.random.PRNGKey(4), 2)
    )
    tcgjax.testing.assert_states_equal(
        jax.tree.map(lambda x: x[0], out), jax.tree.map(lambda x: x[0], fresh), "reset game"
    )
    tcgjax.testing.assert_states_equal(
        jax.tree.map(lambda x: x[1], out), jax.tree.map(lambda x: x[1], states), "kept game"
    )


@pytest.mark.parametrize("num_actions", [5, 300])  # both prefix-count paths
def test_all_false_row_gives_action_zero(num_actions):
    mask = jnp.zeros((3, num_actions), bool).at[1, num_actions - 1].set(True)
    actions = random_legal_action(jax.random.PRNGKey(0), mask)
    assert actions.tolist() == [0, num_actions - 1, 0]
