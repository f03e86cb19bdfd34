"""Gymnasium and PettingZoo adapters, for every registered game (one parametrized suite: a game
registered later passes the same checks by construction).

Each game's tests share one ``Env`` per worker (``game_env``) and run in one xdist group, so the
wrappers' jitted functions compile once per game.
"""

from __future__ import annotations

import importlib.util
import os
import warnings

import gymnasium
import jax
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import tcgjax
from tcgjax.core.errors import ConfigError, IllegalActionError
from tcgjax.wrappers import gymnasium as tcg_gym
from tcgjax.wrappers import pettingzoo as tcg_pz

GAMES = tcgjax.available_envs()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Warnings the checkers emit for any env of this shape, which are not defects: the observation
# vector has no finite bound common to all games (-inf/inf is the honest Box), and PettingZoo's
# play test inspects the observation dict as if it were an array.
KNOWN_WARNINGS = (
    "A Box observation space minimum value is -infinity",
    "A Box observation space maximum value is infinity",
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)


def per_game(test):
    return pytest.mark.parametrize("game", GAMES)(test)


_ENVS: dict[str, tcgjax.Env] = {}


@pytest.fixture
def game_env(game):
    """One Env per game per worker: every wrapper of it shares the compiled functions."""
    if game not in _ENVS:
        _ENVS[game] = tcgjax.make(game)
    return _ENVS[game]


def unexpected(caught) -> list[str]:
    return [
        str(w.message)
        for w in caught
        if not any(known in str(w.message) for known in KNOWN_WARNINGS)
    ]


def masked_choice(rng: np.random.Generator, mask) -> int:
    return int(rng.choice(np.flatnonzero(np.asarray(mask))))


# --------------------------------------------------------------------------------------------------
# Gymnasium


def test_every_game_is_registered_with_gymnasium():
    for game in GAMES:
        single = gymnasium.make(tcg_gym.gymnasium_id(game))
        assert isinstance(single.unwrapped, tcg_gym.TcgjaxEnv)
        assert single.unwrapped.game.id == game
        vector = gymnasium.make_vec(
            tcg_gym.gymnasium_id(game), num_envs=2, vectorization_mode="vector_entry_point"
        )
        assert isinstance(vector, tcg_gym.TcgjaxVectorEnv)
        assert vector.num_envs == 2 and vector.game.id == game
    assert tcg_gym.gymnasium_id("digimon") == "tcgjax/Digimon-v0"


@per_game
def test_gymnasium_check_env_passes(game_env):
    env = tcg_gym.TcgjaxEnv(game_env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    assert unexpected(caught) == []


@per_game
def test_gymnasium_episode_is_one_seat_against_the_opponent(game_env):
    env = tcg_gym.TcgjaxEnv(game_env, agent_seat=1)
    # Jitted (eager observe would dispatch op by op), and the PettingZoo wrapper's own: one compile.
    observe = tcg_pz._jitted_observe(game_env)
    rng = np.random.default_rng(0)
    observation, info = env.reset(seed=7)
    total, steps, done = 0.0, 0, False
    while not done:
        assert env.observation_space.contains(observation)
        # The agent acts only on its own turns; the three views of the mask agree.
        assert int(env.state.current_player) == 1
        mask = env.action_masks()
        np.testing.assert_array_equal(mask, info["action_mask"])
        np.testing.assert_array_equal(mask, observation["action_mask"].astype(bool))
        np.testing.assert_array_equal(mask, np.asarray(env.state.legal_action_mask))
        # The seat's own view (equal up to float rounding: the wrapper's is computed in the jit).
        np.testing.assert_allclose(
            observation["observation"], np.asarray(observe(env.state, 1)), rtol=1e-6
        )
        observation, reward, terminated, truncated, info = env.step(masked_choice(rng, mask))
        assert info["error"] == 0
        total += reward
        steps += 1
        done = terminated or truncated
    state = env.state
    assert bool(state.terminated) == terminated and bool(state.truncated) == truncated
    # The agent's return is its seat's result of the game.
    assert total == pytest.approx(float(state.rewards[1]) if terminated else total)
    if terminated:
        assert total in (-1.0, 0.0, 1.0)
    np.testing.assert_allclose(observation["observation"], np.asarray(observe(state, 1)), rtol=1e-6)
    with pytest.raises(ResetNeeded):
        env.step(0)


@per_game
def test_gymnasium_illegal_action_changes_nothing_and_names_the_rule(game_env):
    env = tcg_gym.TcgjaxEnv(game_env)
    observation, info = env.reset(seed=3)
    before = env.state
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    after, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["error"] != 0 and info["rule"] == game_env.error_codes.name(info["error"])
    np.testing.assert_array_equal(after["observation"], observation["observation"])
    same = jax.tree.map(lambda a, b: bool(np.array_equal(a, b)), before.game, env.state.game)
    assert all(jax.tree.leaves(same))
    for bad in (3.0, "5", None, np.True_, game_env.num_actions, -1):
        with pytest.raises(IllegalActionError):
            env.step(bad)


@per_game
def test_gymnasium_same_seed_same_episode(game_env):
    def play(seed):
        env = tcg_gym.TcgjaxEnv(game_env)
        rng = np.random.default_rng(1)
        observation, info = env.reset(seed=seed)
        trace = [observation["observation"]]
        for _ in range(12):
            observation, reward, terminated, truncated, info = env.step(
                masked_choice(rng, info["action_mask"])
            )
            trace.append(observation["observation"])
            if terminated or truncated:
                break
        return np.stack(trace[: len(trace)])

    first, again, other = play(11), play(11), play(12)
    np.testing.assert_array_equal(first, again)
    assert first.shape != other.shape or not np.array_equal(first, other)


@per_game
def test_vector_env_steps_every_game_and_resets_on_the_next_step(game_env):
    num = 3
    env = tcg_gym.TcgjaxVectorEnv(game_env, num_envs=num)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    rng = np.random.default_rng(0)
    observations, infos = env.reset(seed=5)
    assert env.observation_space.contains(observations)
    ended = np.zeros(num, bool)
    for _ in range(2000):
        actions = np.array([masked_choice(rng, row) for row in infos["action_mask"]])
        before = env.states.step_count
        observations, rewards, terminated, truncated, infos = env.step(actions)
        assert env.observation_space.contains(observations)
        np.testing.assert_array_equal(env.action_masks(), infos["action_mask"])
        if ended.any():
            # NEXT_STEP: the games that ended last step are new games now, reward 0, flags off.
            fresh = env.states
            assert np.all(rewards[ended] == 0.0)
            assert not np.any(terminated[ended] | truncated[ended])
            assert np.all(np.asarray(fresh.step_count)[ended] < np.asarray(before)[ended])
            assert np.all(np.asarray(fresh.current_player)[ended] == 0)
            # The others went on from where they were.
            going = ~ended
            assert np.all(np.asarray(fresh.step_count)[going] > np.asarray(before)[going])
            break
        assert np.all(infos["error"] == 0)
        ended = terminated | truncated
        if ended.any():
            assert np.all(np.isin(rewards[terminated], (-1.0, 0.0, 1.0)))
    else:
        pytest.fail("no game ended in 2000 steps")
    for bad in (np.zeros(num + 1, int), np.full(num, 1.5), np.full(num, game_env.num_actions)):
        with pytest.raises(IllegalActionError):
            env.step(bad)


def test_wrapper_options_are_checked(duel_env):
    with pytest.raises(ConfigError, match="opponent"):
        tcg_gym.TcgjaxEnv(duel_env, opponent="strongest")
    with pytest.raises(ConfigError, match="agent_seat"):
        tcg_gym.TcgjaxEnv(duel_env, agent_seat=2)
    with pytest.raises(ConfigError, match="num_envs"):
        tcg_gym.TcgjaxVectorEnv(duel_env, num_envs=0)
    with pytest.raises(ResetNeeded):
        tcg_gym.TcgjaxEnv(duel_env).step(0)
    with pytest.raises(ConfigError, match="render_mode='human'"):
        tcg_gym.TcgjaxEnv(duel_env, render_mode="human")
    with pytest.raises(ConfigError, match="render_mode='ansi'"):
        tcg_gym.TcgjaxVectorEnv(duel_env, render_mode="ansi")  # one game: game.render
    with pytest.raises(ConfigError, match="render_mode='rgb_array'"):
        tcg_pz.TcgjaxAECEnv(duel_env, render_mode="rgb_array")


@per_game
def test_ansi_render_is_the_text_picture_from_the_agents_seat(game_env):
    env = tcg_gym.TcgjaxEnv(game_env, agent_seat=1, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text == game_env.render(env.state, viewer=1).text
    assert "player 2 (viewer)" in text or "viewer: player 2" in text
    assert tcg_gym.TcgjaxEnv(game_env).render() is None  # no render mode
    aec = tcg_pz.TcgjaxAECEnv(game_env, render_mode="ansi")
    assert aec.render() is None  # before reset
    aec.reset(seed=0)
    assert aec.render() == game_env.render(aec.state).text  # the spectator's view


def test_an_illegal_opponent_action_raises_naming_it(duel_env):
    def stubborn(state, key):
        del key
        return jax.numpy.argmin(state.legal_action_mask)  # the first illegal action

    env = tcg_gym.TcgjaxEnv(duel_env, opponent=stubborn, agent_seat=1)
    first = jax.jit(duel_env.init)(jax.random.PRNGKey(0))
    assert bool(~first.legal_action_mask.all())
    # The move is named in the position the opponent chose it in (a card at a hand position:
    # the first illegal id of a duel's first turn is a play).
    named = r"opponent policy chose action (\d) \((play|cast) .*hand \1\)\), which is illegal"
    with pytest.raises(IllegalActionError, match=named):
        for seed in range(8):  # some seed makes seat 0, the opponent, act first
            env.reset(seed=seed)
    # Under illegal_action="lose" the game is over when the error is seen: the id's name.
    lose = tcg_gym.TcgjaxEnv(
        tcgjax.make("duel", illegal_action="lose"), opponent=stubborn, agent_seat=1
    )
    with pytest.raises(IllegalActionError, match=r"chose action (\d) \(id play\[\1\]\)"):
        for seed in range(8):
            lose.reset(seed=seed)


def test_heuristic_opponent_plays_the_other_seat(duel_env):
    env = tcg_gym.TcgjaxEnv(duel_env, opponent="heuristic")
    observation, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        assert int(env.state.current_player) == 0
        observation, reward, terminated, truncated, info = env.step(
            masked_choice(rng, info["action_mask"])
        )
        done = terminated or truncated
    assert terminated


# --------------------------------------------------------------------------------------------------
# PettingZoo


@per_game
def test_pettingzoo_api_test_passes(game_env):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(tcg_pz.TcgjaxAECEnv(game_env), num_cycles=400)
    assert unexpected(caught) == []


@per_game
def test_pettingzoo_seed_test_passes(game_env):
    seed_test(lambda: tcg_pz.TcgjaxAECEnv(game_env), num_cycles=60)


@per_game
def test_pettingzoo_agent_to_act_is_the_current_player(game_env):
    env = tcg_pz.TcgjaxAECEnv(game_env)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for agent in env.agent_iter(max_iter=3000):
        observation, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        assert agent == tcg_pz.agent_name(int(env.state.current_player))
        for other in env.agents:
            if other != agent:  # only the agent to act has a mask
                assert not env.observe(other)["action_mask"].any()
        np.testing.assert_array_equal(
            observation["action_mask"].astype(bool), np.asarray(env.state.legal_action_mask)
        )
        env.step(masked_choice(rng, observation["action_mask"]))
    assert env.agents == []
    final = env.state
    assert bool(final.terminated | final.truncated)


# --------------------------------------------------------------------------------------------------
# sb3-contrib MaskablePPO (examples/maskable_ppo.py)


def _example(name: str):
    path = os.path.join(ROOT, "examples", f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"{name}_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@per_game
def test_maskable_ppo_trains_through_the_wrapper_and_plays_only_legal_actions(game_env):
    example = _example("maskable_ppo")
    result = example.train_and_evaluate(
        game_env, timesteps=256, n_steps=128, batch_size=64, eval_games=2, seed=0
    )
    assert result["timesteps"] >= 256  # two rollouts of 128 and their updates ran
    # sb3 read the wrapper's masks: the (untrained) masked policy never chose an illegal action.
    assert result["illegal"] == 0 and result["actions"] > 0
    assert result["wins"] + result["losses"] + result["draws"] + result["truncated"] == 2


def test_maskable_ppo_example_command_line(capsys, tmp_path, monkeypatch):
    # sb3's default logger would make its folder here (SB3_LOGDIR) even at verbose=0.
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3"))
    example = _example("maskable_ppo")
    result = example.main(
        ["--env", "duel", "--timesteps", "128", "--n-steps", "64", "--eval-games", "1"]
    )
    assert result["env"] == "duel" and result["illegal"] == 0
    assert "MaskablePPO on duel vs random" in capsys.readouterr().out
    assert not (tmp_path / "sb3").exists(), "the example left sb3's logger folder behind"
    with pytest.raises(SystemExit):
        example.main(["--env", "chess"])  # not a registered game
