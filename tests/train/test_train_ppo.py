"""Masked PPO pieces: masked distribution, per-seat GAE, stability, and a short learning run."""

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tcgjax.train.config import PPOConfig
from tcgjax.train.networks import greedy_action, masked_distribution
from tcgjax.train.ppo import Transition, make_ppo, per_seat_gae, sgd_indices

# ---------------------------------------------------------------------------------------------
# Masked categorical

sample = jax.jit(lambda key, logits, mask: masked_distribution(logits, mask).sample(seed=key))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.booleans(), min_size=16, max_size=16).filter(any),
    st.lists(st.floats(-30, 30), min_size=16, max_size=16),
    st.integers(0, 2**31 - 1),
)
def test_masked_sampling_never_picks_an_illegal_action(bits, logits, seed):
    mask = jnp.asarray(bits)
    draws = jax.vmap(sample, in_axes=(0, None, None))(
        jax.random.split(jax.random.PRNGKey(seed), 64), jnp.asarray(logits, jnp.float32), mask
    )
    assert bool(jnp.all(mask[draws]))
    assert bool(mask[greedy_action(jnp.asarray(logits, jnp.float32), mask)])


def _reference(logits, mask, action):
    """float64 NumPy log-prob and entropy over the legal actions only."""
    legal = np.asarray(logits, np.float64)[np.asarray(mask)]
    log_z = np.log(np.sum(np.exp(legal - legal.max()))) + legal.max()
    log_p = legal - log_z
    index = int(np.flatnonzero(np.asarray(mask)).tolist().index(action))
    return log_p[index], -np.sum(np.exp(log_p) * log_p)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.booleans(), min_size=12, max_size=12).filter(any),
    st.lists(st.floats(-20, 20), min_size=12, max_size=12),
    st.data(),
)
def test_masked_log_prob_and_entropy_match_float64_reference(bits, logits, data):
    mask = np.asarray(bits)
    action = data.draw(st.sampled_from(np.flatnonzero(mask).tolist()))
    dist = masked_distribution(jnp.asarray(logits, jnp.float32), jnp.asarray(mask))
    ref_log_p, ref_entropy = _reference(logits, mask, action)
    np.testing.assert_allclose(float(dist.log_prob(action)), ref_log_p, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(float(dist.entropy()), ref_entropy, rtol=1e-4, atol=1e-4)


def test_no_nan_with_one_legal_action_and_large_action_spaces():
    for num_actions in (2, 2120, 10_000):
        mask = jnp.zeros(num_actions, bool).at[num_actions // 3].set(True)
        logits = jax.random.normal(jax.random.PRNGKey(num_actions), (num_actions,)) * 50
        dist = masked_distribution(logits, mask)
        assert float(dist.entropy()) == 0.0
        assert float(dist.log_prob(num_actions // 3)) == 0.0

        def objective(lg, mask=mask, legal=num_actions // 3):
            dist = masked_distribution(lg, mask)
            return dist.entropy() - dist.log_prob(legal)

        grads = jax.grad(objective)(logits)
        assert bool(jnp.all(jnp.isfinite(grads)))
        assert int(sample(jax.random.PRNGKey(0), logits, mask)) == num_actions // 3


# ---------------------------------------------------------------------------------------------
# Per-seat GAE


def _traj(actor, rewards, value, terminated, truncated=None, truncation_values=None):
    t = len(actor)
    rewards = jnp.asarray(rewards, jnp.float32)[:, None, :]
    return Transition(
        observation=jnp.zeros((t, 1, 1)),
        legal_action_mask=jnp.ones((t, 1, 1), bool),
        action=jnp.zeros((t, 1), jnp.int32),
        log_prob=jnp.zeros((t, 1)),
        value=jnp.asarray(value, jnp.float32)[:, None],
        rewards=rewards,
        actor=jnp.asarray(actor, jnp.int32)[:, None],
        terminated=jnp.asarray(terminated)[:, None],
        truncated=jnp.asarray(truncated if truncated is not None else [False] * t)[:, None],
        truncation_values=jnp.asarray(
            truncation_values if truncation_values is not None else np.zeros((t, 2)), jnp.float32
        )[:, None, :],
        weight=jnp.ones((t, 1)),
        learner_outcome=jnp.zeros((t, 1)),
        episode_done=jnp.asarray(terminated)[:, None],
        invalid=jnp.zeros((t, 1), bool),
        forfeit=jnp.zeros((t, 1), bool),
        overflow=jnp.zeros((t, 1), bool),
        critic_observation=jnp.zeros((t, 1, 0)),
    )


def test_gae_by_hand_non_alternating_turns():
    """Seat 0 acts twice, then seat 1 acts and wins (terminal rewards +1 for seat 1, -1 seat 0)."""
    g, lam = 0.9, 0.8
    traj = _traj(
        actor=[0, 0, 1],
        rewards=[[0, 0], [0, 0], [-1, 1]],
        value=[0.1, 0.2, 0.5],
        terminated=[False, False, True],
    )
    adv, tgt = per_seat_gae(traj, jnp.array([[7.0, 7.0]]), g, lam)
    # Seat 1 at t=2: r=+1, terminal -> delta = 1 - 0.5.
    a2 = 1 - 0.5
    # Seat 0 at t=1: its next turn never comes; it receives -1 at t=2 (episode ends): r=-1, v'=0.
    a1 = -1 - 0.2
    # Seat 0 at t=0: next own transition is t=1: delta = 0 + g*0.2 - 0.1; gae = delta + g*lam*a1.
    a0 = (g * 0.2 - 0.1) + g * lam * a1
    np.testing.assert_allclose(np.asarray(adv)[:, 0], [a0, a1, a2], rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(tgt)[:, 0], np.array([a0, a1, a2]) + [0.1, 0.2, 0.5], rtol=1e-6
    )


def test_gae_bootstraps_across_the_rollout_end_and_truncation():
    g, lam = 0.5, 1.0
    # Alternating seats, no terminal: the last transitions bootstrap with each seat's last value.
    traj = _traj(
        actor=[0, 1], rewards=[[0, 0], [0, 0]], value=[1.0, 2.0], terminated=[False, False]
    )
    adv, _ = per_seat_gae(traj, jnp.array([[3.0, 4.0]]), g, lam)
    np.testing.assert_allclose(np.asarray(adv)[:, 0], [g * 3.0 - 1.0, g * 4.0 - 2.0], rtol=1e-6)
    # Truncated after t=1: bootstrap with the truncation values, not with last_values.
    traj = _traj(
        actor=[0, 1],
        rewards=[[0, 0], [0, 0]],
        value=[1.0, 2.0],
        terminated=[False, False],
        truncated=[False, True],
        truncation_values=[[0, 0], [5.0, 6.0]],
    )
    adv, _ = per_seat_gae(traj, jnp.array([[100.0, 100.0]]), g, lam)
    np.testing.assert_allclose(np.asarray(adv)[:, 0], [g * 5.0 - 1.0, g * 6.0 - 2.0], rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# The SGD batch (sgd_fraction): the learner's transitions, not the opponent's


def test_sgd_indices_put_every_learner_transition_first_in_random_order():
    weight = jnp.zeros(20, jnp.float32).at[jnp.array([1, 4, 5, 9, 13, 17])].set(1.0)
    learner = {1, 4, 5, 9, 13, 17}
    orders = []
    for seed in range(4):
        idx = np.asarray(sgd_indices(jax.random.PRNGKey(seed), weight, 10))
        assert idx.shape == (10,) and len(set(idx)) == 10
        assert set(idx[:6]) == learner  # all six learner transitions, before any padding
        assert not set(idx[6:]) & learner
        orders.append(tuple(idx[:6]))
    assert len(set(orders)) > 1  # the learner's order is shuffled, not sorted
    # Fewer places than learner transitions: only learner transitions, a random subset.
    subsets = {
        tuple(sorted(np.asarray(sgd_indices(jax.random.PRNGKey(s), weight, 4)))) for s in range(8)
    }
    assert all(set(sub) <= learner for sub in subsets) and len(subsets) > 1
    # The whole batch: a plain permutation.
    full = np.asarray(sgd_indices(jax.random.PRNGKey(0), weight, 20))
    assert sorted(full) == list(range(20))


def test_sgd_fraction_gives_the_same_update_when_every_learner_transition_fits():
    """The opponent's transitions weigh 0 in the loss, so leaving them out of a one-minibatch
    epoch changes the gradient only by float rounding; the metrics report the learner's share."""
    common = dict(
        env_id="duel",
        num_envs=16,
        num_steps=8,
        total_timesteps=16 * 8 * 4,
        hidden_sizes=(16,),
        opponent="random",
        update_epochs=1,
        num_minibatches=1,
    )
    results = []
    for fraction in (None, 0.75):
        ppo = make_ppo(PPOConfig(**common, sgd_fraction=fraction))
        # Jitted init: eagerly, vmap(env.init) would dispatch (and compile) op by op.
        runner, metrics = jax.jit(ppo.update)(jax.jit(ppo.init)(jax.random.PRNGKey(3)))
        results.append((runner.params, metrics))
    (full_params, full_metrics), (kept_params, kept_metrics) = results
    share = float(full_metrics["learner_share"])
    assert 0.25 < share < 0.75, share  # about half the moves are the opponent's
    assert float(kept_metrics["learner_share"]) == share
    assert float(full_metrics["sgd_dropped"]) == 0.0 == float(kept_metrics["sgd_dropped"])
    changed = jax.tree.map(lambda a, b: float(jnp.max(jnp.abs(a - b))), full_params, kept_params)
    assert max(jax.tree.leaves(changed)) < 1e-5, changed
    moved = jax.tree.map(
        lambda a, b: float(jnp.max(jnp.abs(a - b))),
        full_params,
        jax.jit(ppo.init)(jax.random.PRNGKey(3)).params,
    )
    assert max(jax.tree.leaves(moved)) > 1e-4  # the update did change the parameters
    # A batch too small for the learner's transitions drops some, and says how many.
    ppo = make_ppo(PPOConfig(**common, sgd_fraction=0.25))
    _, metrics = jax.jit(ppo.update)(jax.jit(ppo.init)(jax.random.PRNGKey(3)))
    expected = (share * 128 - 32) / (share * 128)
    np.testing.assert_allclose(float(metrics["sgd_dropped"]), expected, rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# A short run learns


def test_short_training_beats_random_clearly():
    """Seeded and small: win rate of the trained policy vs random rises by a clear margin."""
    from tcgjax.train.evaluate import evaluate, network_policy, random_policy

    config = PPOConfig(
        env_id="deployment",
        num_envs=64,
        num_steps=32,
        total_timesteps=64 * 32 * 30,
        hidden_sizes=(64, 64),
        opponent="random",
        lr=2e-3,
        update_epochs=4,
        num_minibatches=4,
    )
    ppo = make_ppo(config)
    key = jax.random.PRNGKey(0)
    runner = jax.jit(ppo.init)(key)
    env = ppo.env

    def win_rate(params):
        result = evaluate(
            env,
            network_policy(ppo.network, params, greedy=True),
            random_policy(env),
            jax.random.PRNGKey(1),
            256,
        )
        return result["win_rate"]

    before = win_rate(runner.params)
    update = jax.jit(ppo.update)
    for _ in range(config.num_updates):
        runner, metrics = update(runner)
        assert all(bool(jnp.isfinite(v)) for v in metrics.values())
    after = win_rate(runner.params)
    assert after >= before + 0.2 and after >= 0.8, (before, after)


def test_vmap_train_over_seeds():
    """``jax.vmap(make_train(config))`` trains several seeds in one program; seeds differ."""
    from tcgjax.train.ppo import make_train

    config = PPOConfig(
        env_id="duel",
        num_envs=8,
        num_steps=8,
        total_timesteps=8 * 8 * 2,
        hidden_sizes=(16,),
        update_epochs=1,
        num_minibatches=2,
    )
    train = jax.jit(jax.vmap(make_train(config)))
    runner, metrics = train(jax.random.split(jax.random.PRNGKey(0), 2))
    assert metrics["entropy"].shape == (2, config.num_updates)
    assert bool(jnp.all(jnp.isfinite(metrics["value_loss"])))
    kernels = runner.params["params"]["Dense_0"]["kernel"]
    assert kernels.shape[0] == 2 and not np.allclose(kernels[0], kernels[1])
    assert np.asarray(runner.update).tolist() == [config.num_updates] * 2
