"""League training (``opponent: league``): the slots' opponents, PFSP weights and win rates from
explicit numbers, the config's errors, a league rollout against a plain one, and the pool and its
win rates saved with a checkpoint."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tcgjax.core.errors import ConfigError
from tcgjax.train import checkpoint
from tcgjax.train import league as L
from tcgjax.train.config import PPOConfig, load_config
from tcgjax.train.ppo import make_ppo

SMALL = dict(
    env_id="duel",
    num_envs=8,
    num_steps=40,
    hidden_sizes=(16,),
    num_minibatches=2,
    update_epochs=1,
    total_timesteps=8 * 40 * 4,
    snapshot_pool_size=2,
)


def test_slots_are_dealt_by_share_in_opponent_order():
    shares = {"self": 0.25, "snapshot": 0.5, "random": 0.25}
    np.testing.assert_array_equal(L.slot_opponents(shares, 8), [0, 0, 1, 1, 1, 1, 3, 3])
    # Thirds of 8: the largest remainders take the two slots left over, first ones first.
    thirds = L.slot_opponents({"self": 1 / 3, "snapshot": 1 / 3, "heuristic": 1 / 3}, 8)
    np.testing.assert_array_equal(np.bincount(thirds, minlength=4), [3, 3, 2, 0])
    assert L.slot_opponents({"heuristic": 1.0}, 5).tolist() == [2] * 5


def test_pfsp_weights_favour_the_snapshots_that_beat_the_learner():
    win_rate = jnp.array([0.5, 1.0, 0.0, 0.75])
    raw = np.array([0.25, 0.0, 1.0, 0.0625])  # (1 - p) ** 2
    np.testing.assert_allclose(L.pfsp_weights(win_rate, 2.0), raw / raw.sum(), rtol=1e-6)
    np.testing.assert_allclose(L.pfsp_weights(win_rate, 0.0), [0.25] * 4)  # power 0: uniform
    # The learner beats every snapshot every time: no preference left, uniform.
    np.testing.assert_allclose(L.pfsp_weights(jnp.ones(3), 2.0), [1 / 3] * 3, rtol=1e-6)


def test_win_rates_average_the_update_s_games_against_the_snapshot_played():
    win_rate = jnp.array([0.5, 0.3, 0.2])
    finished = jnp.array([[True, False], [False, True], [True, False]])
    outcome = jnp.array([[1.0, -1.0], [0.0, 0.0], [-1.0, 1.0]])  # a win, a draw, a loss
    new, games, score = L.update_win_rates(win_rate, jnp.int32(1), finished, outcome)
    assert (float(games), float(score)) == (3.0, 1.5)
    # Half the games won: 0.3 + 0.1 * (0.5 - 0.3) at index 1, the others untouched.
    np.testing.assert_allclose(new, [0.5, 0.32, 0.2], rtol=1e-6)
    new, _, _ = L.update_win_rates(win_rate, jnp.int32(2), finished[:1], outcome[:1])
    np.testing.assert_allclose(new, [0.5, 0.3, 0.2 + L.PFSP_AVERAGING * (1.0 - 0.2)], rtol=1e-6)
    # No game finished against it: its rate stays.
    none = jnp.zeros_like(finished)
    np.testing.assert_allclose(
        L.update_win_rates(win_rate, jnp.int32(0), none, outcome)[0], win_rate
    )


@pytest.mark.parametrize(
    ("override", "match"),
    [
        ("league_shares={boss: 1.0}", "unknown opponent 'boss'"),
        ("league_shares={self: 1.2, random: -0.2}", r"'league_shares.random' = -0.2"),
        ("league_shares={self: 0.5, random: 0.4}", "sum to 0.9, not 1"),
        ("league_shares={self: true}", r"'league_shares.self' = True: expected a number"),
        ("league_shares={self: .nan}", r"'league_shares.self' = nan: must be finite"),
        ("league_shares=[self]", "'league_shares'"),
        ("pfsp_power=-1", "'pfsp_power' = -1.0"),
    ],
)
def test_league_config_errors_name_the_key(override, match):
    with pytest.raises(ConfigError, match=match):
        load_config(None, ["opponent=league", override])


def _first_legal(state, key):
    """A deterministic scripted opponent (the lowest legal id): the same move whatever its key."""
    return jnp.argmax(state.legal_action_mask).astype(jnp.int32)


@pytest.mark.parametrize(
    ("shares", "plain"), [({"self": 1.0}, "self"), ({"heuristic": 1.0}, "heuristic")]
)
def test_a_league_of_one_opponent_plays_as_that_opponent(shares, plain):
    """A league whose every slot faces one opponent rolls out exactly as that opponent's own
    setting (same keys, same moves, same training weights)."""
    key = jax.random.PRNGKey(3)
    trajectories = []
    for config in (
        PPOConfig(**SMALL, opponent="league", league_shares=shares),
        PPOConfig(**SMALL, opponent=plain),
    ):
        ppo = make_ppo(config, opponent_policy=_first_legal)
        runner = jax.jit(ppo.init)(jax.random.PRNGKey(0))
        trajectories.append(jax.jit(ppo.rollout)(runner, key)[1])
    league, alone = trajectories
    for name in ("action", "weight", "actor", "rewards", "episode_done"):
        np.testing.assert_array_equal(getattr(league, name), getattr(alone, name), err_msg=name)
    assert float(jnp.sum(league.episode_done)) > 0, "some games end within the rollout"


@pytest.fixture(scope="module")
def league_run():
    """Two updates of a league over all four opponents (snapshots every update: slot 1 is
    written at update 1, slot 0 at update 2)."""
    shares = {"self": 0.25, "snapshot": 0.25, "heuristic": 0.25, "random": 0.25}
    config = PPOConfig(**SMALL, opponent="league", league_shares=shares, snapshot_every=1)
    ppo = make_ppo(config)
    update = jax.jit(ppo.update)
    runner = jax.jit(ppo.init)(jax.random.PRNGKey(0))
    trajectory = jax.jit(ppo.rollout)(runner, jax.random.PRNGKey(1))[1]
    runner, first = update(runner)
    runner, second = update(runner)
    return config, ppo, runner, (first, second), trajectory


def test_self_play_slots_train_on_every_move_and_the_others_on_the_learner_s(league_run):
    config, _, _, _, traj = league_run
    kinds = L.slot_opponents(config.league_shares, config.num_envs)
    weight, actor = np.asarray(traj.weight), np.asarray(traj.actor)
    assert (weight[:, kinds == L.SELF] == 1).all()
    others = weight[:, kinds != L.SELF]
    assert (others == 0).any() and (others == 1).any(), "the opponent's moves are not trained on"
    # In a non-self slot the learner's seat holds (until a game ends): one weight per actor.
    first_game = np.cumsum(np.asarray(traj.episode_done), axis=0) == 0
    for b in np.flatnonzero(kinds != L.SELF):
        seen = {
            (int(a), float(w))
            for a, w in zip(actor[first_game[:, b], b], weight[first_game[:, b], b], strict=True)
        }
        assert len({a for a, _ in seen}) == len(seen), (b, seen)


def test_each_update_logs_games_and_win_rates_per_opponent(league_run):
    config, _, runner, (first, second), _ = league_run
    for metrics in (first, second):
        for name in ("snapshot", "heuristic", "random"):
            games = float(metrics[f"league_games_vs_{name}"])
            rate = float(metrics[f"league_win_rate_vs_{name}"])
            assert games == int(games) >= 0 and 0.0 <= rate <= 1.0, (name, games, rate)
        assert int(metrics["league_snapshot_played"]) in (0, 1)
    assert float(first["league_snapshot_weight"]) == pytest.approx(0.5)  # both unknown at first
    # Update 2 wrote its snapshot into slot 0 (2 // 1 % 2): that slot is unknown again.
    assert float(runner.league_win_rate[0]) == L.UNKNOWN_WIN_RATE
    assert int(runner.update) == 2


def test_the_pool_and_its_win_rates_are_saved_with_the_checkpoint(league_run, tmp_path):
    config, ppo, runner, _, _ = league_run
    runner = runner._replace(league_win_rate=jnp.array([0.25, 0.875], jnp.float32))
    checkpoint.save(str(tmp_path), runner, config, int(runner.update))
    template = jax.jit(ppo.init)(jax.random.PRNGKey(9))
    restored = checkpoint.restore(str(tmp_path), template).runner
    np.testing.assert_array_equal(restored.league_win_rate, [0.25, 0.875])
    for a, b in zip(
        jax.tree.leaves(restored.snapshots), jax.tree.leaves(runner.snapshots), strict=True
    ):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(
        jax.tree.leaves(template.snapshots)[0], jax.tree.leaves(runner.snapshots)[0]
    ), "the restored pool is the saved one, not the template's"
