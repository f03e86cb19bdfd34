"""``random_legal_action``, ``reset_if_done`` and ``random_play``."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tcgjax
from tcgjax.wrappers import auto_reset, random_legal_action, random_play, reset_if_done

sample_many = jax.jit(jax.vmap(random_legal_action, in_axes=(0, None)), static_argnums=())


@pytest.mark.parametrize("num_actions", [5, 300, 2120])  # one prefix count, blocks of 64
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


def _reference(key, mask):
    """The k-th legal id by a plain prefix count (the definition every path must match)."""
    counts = jnp.cumsum(mask, axis=-1, dtype=jnp.int32)
    total = counts[..., -1]
    k = auto_reset._kth(key, total)
    return jnp.where(total > 0, jnp.sum(counts <= k[..., None], axis=-1, dtype=jnp.int32), 0)


@pytest.mark.parametrize("num_actions", [40, 256, 257, 2120, 2176])
def test_every_path_picks_the_reference_action(num_actions):
    """The one-count path (<= 256 ids) and the blocked path (more; 2120 leaves a partial last
    block, 2176 fills 34 blocks of 64) pick the same id as a plain prefix count, including
    masks whose only legal ids are at either end, in the last block, or every id."""
    rows = jax.random.bernoulli(jax.random.PRNGKey(1), 0.3, (64, num_actions))
    rows = rows.at[0].set(False).at[0, num_actions - 1].set(True)  # only the last id
    rows = rows.at[1].set(False).at[1, 0].set(True)  # only the first id
    rows = rows.at[2].set(True)  # every id
    rows = rows.at[3].set(False)  # none: action 0
    rows = rows.at[4].set(False).at[4, -(num_actions % 64 or 64) :].set(True)  # last block only
    rows = rows.at[5].set(jax.random.bernoulli(jax.random.PRNGKey(5), 0.01, (num_actions,)))
    for seed in range(3):
        key = jax.random.PRNGKey(seed)
        np.testing.assert_array_equal(random_legal_action(key, rows), _reference(key, rows))


def test_prefix_count_paths_agree(monkeypatch):
    mask = jax.random.bernoulli(jax.random.PRNGKey(1), 0.3, (64, 40))
    key = jax.random.PRNGKey(2)
    fast = random_legal_action(key, mask)
    monkeypatch.setattr(auto_reset, "_MATMUL_CUMSUM_MAX_ACTIONS", 0)
    blocked = random_legal_action(key, mask)
    monkeypatch.setattr(auto_reset, "_BLOCK", 1024)  # one block: its count is a cumsum
    slow = random_legal_action(key, mask)
    np.testing.assert_array_equal(fast, _reference(key, mask))
    np.testing.assert_array_equal(blocked, fast)
    np.testing.assert_array_equal(slow, fast)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=70).filter(any), st.integers(0, 2**31 - 1))
def test_never_picks_an_illegal_action(bits, seed):
    mask = jnp.asarray(bits)
    padded = jnp.zeros(70, bool).at[: len(bits)].set(mask)  # one shape: compiled once
    action = int(jax.jit(random_legal_action)(jax.random.PRNGKey(seed), padded))
    assert bool(padded[action])


@functools.cache
def _batch_init(env):
    """``jit(vmap(env.init))``, compiled once per env (an eager ``vmap(init)`` would dispatch and
    compile op by op)."""
    return jax.jit(jax.vmap(env.init))


def test_reset_if_done_replaces_only_finished_games(duel_env):
    # Eager vmap (no jit around reset_if_done): the batching rule's gather path runs op by op.
    env = duel_env
    states = _batch_init(env)(jax.random.split(jax.random.PRNGKey(3), 2))
    states = states.replace(terminated=jnp.array([True, False]), step_count=jnp.array([7, 7]))
    fresh = _batch_init(env)(jax.random.split(jax.random.PRNGKey(4), 2))
    out = jax.vmap(reset_if_done, in_axes=(None, 0, 0))(
        env.init, states, jax.random.split(jax.random.PRNGKey(4), 2)
    )
    tcgjax.testing.assert_states_equal(
        jax.tree.map(lambda x: x[0], out), jax.tree.map(lambda x: x[0], fresh), "reset game"
    )
    tcgjax.testing.assert_states_equal(
        jax.tree.map(lambda x: x[1], out), jax.tree.map(lambda x: x[1], states), "kept game"
    )


@pytest.mark.parametrize("num_actions", [5, 300])  # one prefix count, blocks
def test_all_false_row_gives_action_zero(num_actions):
    mask = jnp.zeros((3, num_actions), bool).at[1, num_actions - 1].set(True)
    actions = random_legal_action(jax.random.PRNGKey(0), mask)
    assert actions.tolist() == [0, num_actions - 1, 0]


@functools.partial(jax.jit, static_argnums=0)
def _reference_reset(env, states, keys):
    done = states.terminated | states.truncated
    fresh = jax.vmap(env.init)(keys)
    return jax.vmap(tcgjax.core.tree.tree_where)(done, fresh, states)


@functools.partial(jax.jit, static_argnums=(0, 3))
def _batched_reset(init, states, keys, skip_rare_work):
    """``jit(vmap(reset_if_done))``, one compile per value of the flag: ``skip_rare_work`` is
    only a cache key, the monkeypatched ``SKIP_RARE_WORK`` is what tracing reads."""
    del skip_rare_work
    return jax.vmap(reset_if_done, in_axes=(None, 0, 0))(init, states, keys)


@pytest.mark.parametrize(
    "finished", [[], [5], [0, 3, 4, 9, 10, 11, 40, 63, 64, 65, 69], list(range(70))]
)
@pytest.mark.parametrize("skip", [True, False], ids=["gathered", "select"])
def test_batched_reset_initialises_exactly_the_finished_games(
    duel_env, finished, skip, monkeypatch
):
    monkeypatch.setattr(tcgjax.core.tree, "SKIP_RARE_WORK", skip)
    # 70 games: the batching rule initialises 2 at a time, so 11 or 70 finished games take
    # several rounds; every game must still get init(its own key) or keep its state.
    env, batch = duel_env, 70
    keys = jax.random.split(jax.random.PRNGKey(5), batch)
    states = _batch_init(env)(jax.random.split(jax.random.PRNGKey(6), batch))
    done = jnp.zeros(batch, bool).at[jnp.asarray(finished, jnp.int32)].set(True)
    states = states.replace(
        terminated=done & (jnp.arange(batch) % 2 == 0),
        truncated=done & (jnp.arange(batch) % 2 == 1),
        step_count=jnp.full(batch, 9, jnp.int32),
    )
    got = _batched_reset(env.init, states, keys, skip)
    tcgjax.testing.assert_states_equal(got, _reference_reset(env, states, keys), "batch")
    assert int(jnp.sum(got.step_count == 0)) == len(finished)


def test_reset_of_one_game_and_of_a_batch_of_batches(duel_env):
    env = duel_env
    state = env.init(jax.random.PRNGKey(1)).replace(terminated=jnp.bool_(True))
    one = jax.jit(reset_if_done, static_argnums=0)(env.init, state, jax.random.PRNGKey(2))
    tcgjax.testing.assert_states_equal(one, env.init(jax.random.PRNGKey(2)), "one game")

    keys = jax.random.split(jax.random.PRNGKey(7), 6).reshape(2, 3, -1)
    states = jax.jit(jax.vmap(jax.vmap(env.init)))(keys)
    states = states.replace(terminated=jnp.array([[True, False, False], [False, False, True]]))
    new_keys = jax.random.split(jax.random.PRNGKey(8), 6).reshape(2, 3, -1)
    nested = jax.vmap(jax.vmap(reset_if_done, in_axes=(None, 0, 0)), in_axes=(None, 0, 0))
    got = jax.jit(nested, static_argnums=0)(env.init, states, new_keys)
    want = jax.vmap(lambda s, k: _reference_reset(env, s, k))(states, new_keys)
    tcgjax.testing.assert_states_equal(got, want, "batch of batches")


def test_reset_with_one_key_for_the_batch(duel_env):
    # An unbatched key is broadcast: every finished game gets the same new game.
    env = duel_env
    states = _batch_init(env)(jax.random.split(jax.random.PRNGKey(9), 3))
    states = states.replace(terminated=jnp.array([True, False, True]))
    key = jax.random.PRNGKey(10)
    broadcast_key = jax.vmap(reset_if_done, in_axes=(None, 0, None))
    got = jax.jit(broadcast_key, static_argnums=0)(env.init, states, key)
    want = _reference_reset(env, states, jnp.stack([key] * 3))
    tcgjax.testing.assert_states_equal(got, want, "one key")


def test_random_play_records_the_states_it_acts_on_and_restarts_finished_games(duel_env):
    """Each step's record is of the state the random action is applied to: never a finished game
    (it was restarted first), always with a legal id; over 150 steps some game restarts."""

    def record(state):
        done = state.terminated | state.truncated
        return state.step_count, state.legal_action_mask.sum(-1), done

    play = jax.jit(lambda key: random_play(duel_env, key, 3, 150, record))
    steps, legal, done = (np.asarray(x) for x in play(jax.random.PRNGKey(1)))
    assert steps.shape == legal.shape == done.shape == (150, 3)
    assert not done.any() and (legal >= 1).all()
    np.testing.assert_array_equal(steps[0], 0)  # the games start fresh
    restarts = np.diff(steps, axis=0) < 0
    assert restarts.any(), "no game finished and restarted in 150 random steps"
    assert (np.diff(steps, axis=0)[~restarts] == 1).all(), "otherwise one step at a time"
    again = play(jax.random.PRNGKey(1))[0]
    np.testing.assert_array_equal(np.asarray(again), steps)  # a function of the key
