"""*duel* passes the conformance harness and works under jit, vmap and both."""

import os

import jax
import numpy as np
import pytest

from tcgjax.core.errors import ConfigError
from tcgjax.testing import api_test, assert_states_equal


def test_duel_passes_api_test(duel_env):
    """The conformance harness; its batched part (64 games x 300 random legal steps with
    auto-reset) is ``validate``'s random-play sweep (issue #33): every state validates and
    round-trips through JSON exactly."""
    report = api_test(duel_env, num_steps=300, batch_size=64, batch_steps=300, batch_check_every=1)
    assert report.single_steps > 200
    assert report.episodes_finished >= 3 and report.replays_checked == report.episodes_finished
    assert report.json_round_trips >= 20
    assert report.renders_checked == 3 * report.json_round_trips  # every viewer
    assert report.illegal_actions_checked > report.single_steps
    assert report.batched_episodes_finished >= 10
    assert report.batched_json_round_trips == 64 * 300
    assert report.states_validated == report.single_steps + 64 * 300


def test_api_test_refuses_a_bad_batch_check_every_before_playing(duel_env):
    for bad in (0, -3, 2.5, True, "20"):
        with pytest.raises(ConfigError, match="batch_check_every"):
            api_test(duel_env, num_steps=1, batch_size=1, batch_steps=1, batch_check_every=bad)


def test_batch_check_every_round_trips_every_game_at_every_kth_step(duel_env):
    report = api_test(duel_env, num_steps=5, batch_size=4, batch_steps=10, batch_check_every=3)
    # Steps 2, 5 and 8 of 10, all 4 games: validated and round-tripped through JSON.
    assert report.batched_json_round_trips == 12
    assert report.states_validated == report.single_steps + 12


def test_jit_vmap_match_single_games(duel_env):
    env = duel_env
    keys = jax.random.split(jax.random.PRNGKey(7), 4)
    init, step, observe = jax.jit(env.init), jax.jit(env.step), jax.jit(env.observe)
    batched = jax.jit(jax.vmap(env.init))(keys)
    vmapped = jax.vmap(env.init)(keys)
    for i in range(4):
        single = init(keys[i])
        assert_states_equal(jax.tree.map(lambda x, i=i: x[i], batched), single, "jit(vmap(init))")
        assert_states_equal(jax.tree.map(lambda x, i=i: x[i], vmapped), single, "vmap(init)")
    actions = np.argmax(np.asarray(batched.legal_action_mask), axis=-1)
    stepped = jax.jit(jax.vmap(env.step))(batched, actions, keys)
    for i in range(4):
        single = step(jax.tree.map(lambda x, i=i: x[i], batched), actions[i], keys[i])
        assert_states_equal(jax.tree.map(lambda x, i=i: x[i], stepped), single, "vmap(step)")
    obs = jax.jit(jax.vmap(env.observe, in_axes=(0, None)))(stepped, 1)
    for i in range(4):
        np.testing.assert_array_equal(
            obs[i], observe(jax.tree.map(lambda x, i=i: x[i], stepped), 1)
        )


def test_readme_observation_and_action_tables_match_code(duel_env):
    readme = os.path.join(
        os.path.dirname(__file__), "..", "..", "..", "tcgjax", "games", "duel", "README.md"
    )
    text = open(readme, encoding="utf-8").read()
    assert duel_env.observation_layout.table() in text
    assert duel_env.action_layout.table() in text
