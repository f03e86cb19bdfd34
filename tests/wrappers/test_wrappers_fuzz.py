"""Issue #33: the wrappers' seed, reset and step arguments under random input (Hypothesis, fixed
budgets). Each call either works (and then the seed or action was a valid one) or raises a
``TcgjaxError`` (``ConfigError`` for a seed, ``IllegalActionError`` for an action,
``ResetNeededError`` out of order, ``PlayerError`` for an agent), never anything else. One duel
``Env`` is shared, so each wrapper compiles once."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tcgjax
from tcgjax.core.errors import ConfigError, IllegalActionError
from tcgjax.wrappers import gymnasium as tcg_gym
from tcgjax.wrappers import pettingzoo as tcg_pz

SEED_LIMIT = 2**32  # the seed rule of every wrapper (tcgjax.wrappers.seeding)
FUZZ = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

SEEDS = st.one_of(
    st.none(),
    st.integers(0, SEED_LIMIT - 1),
    st.integers(-(2**80), 2**80),
    st.sampled_from([-1, SEED_LIMIT, 2**63, 2**64, True, False, np.bool_(False)]),
    st.integers(0, 2**64 - 1).map(np.uint64),
    st.integers(-(2**63), 2**63 - 1).map(np.int64),
    st.floats(),
    st.text(max_size=3),
    st.sampled_from([[0], (0,), {}, b"0"]),
)

ACTIONS = st.one_of(
    st.integers(-3, 12),
    st.integers(-(2**70), 2**70),
    st.sampled_from([2**31, 2**63, 10**30]),
    st.integers(-3, 12).map(np.int64),
    st.integers(0, 12).map(np.uint8),
    st.floats(),
    st.booleans(),
    st.sampled_from([None, "0", [0], np.zeros(1, int), np.bool_(True), np.float32(1.0)]),
)


def _valid_seed(seed) -> bool:
    if seed is None:
        return True
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, int | np.integer):
        return False
    return 0 <= int(seed) < SEED_LIMIT


def _valid_action(action, num_actions) -> bool:
    if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer):
        return False
    return 0 <= int(action) < num_actions


@pytest.fixture(scope="module")
def wrappers(duel_env):
    return {
        "gymnasium": tcg_gym.TcgjaxEnv(duel_env),
        "vector": tcg_gym.TcgjaxVectorEnv(duel_env, num_envs=3),
    }


def _reset(env, seed) -> None:
    """``env.reset(seed=seed)``: it works exactly for the seeds of the rule; a refused seed
    leaves the env to be reset with seed 0."""
    try:
        env.reset(seed=seed)
    except ConfigError as exc:
        assert not _valid_seed(seed), exc
        assert "seed=" in str(exc)
        env.reset(seed=0)
        return
    assert _valid_seed(seed)


@FUZZ
@given(seed=SEEDS, actions=st.lists(ACTIONS, min_size=1, max_size=8))
def test_gymnasium_reset_and_steps_with_any_arguments(duel_env, wrappers, seed, actions):
    env = wrappers["gymnasium"]
    _reset(env, seed)
    over = False
    for action in actions:
        try:
            observation, reward, terminated, truncated, info = env.step(action)
        except IllegalActionError as exc:
            assert not _valid_action(action, duel_env.num_actions), exc
            continue
        except tcg_gym.ResetNeededError:
            assert over
            return
        assert _valid_action(action, duel_env.num_actions)
        assert env.observation_space.contains(observation) and isinstance(reward, float)
        over = terminated or truncated


ARRAYS = st.one_of(
    st.lists(st.integers(-2, 12), min_size=3, max_size=3).map(np.array),
    st.lists(st.integers(-2, 12), min_size=0, max_size=5).map(np.array),
    st.lists(st.floats(0, 9), min_size=3, max_size=3).map(np.array),
    st.lists(st.booleans(), min_size=3, max_size=3).map(np.array),
    st.sampled_from([None, 0, "abc", [[0, 0, 0]], np.zeros((3, 1), int), [2**40, 0, 0]]),
)


@FUZZ
@given(seed=SEEDS, actions=st.lists(ARRAYS, min_size=1, max_size=4))
def test_vector_reset_and_steps_with_any_arguments(duel_env, wrappers, seed, actions):
    env = wrappers["vector"]
    _reset(env, seed)
    for batch in actions:
        try:
            env.step(batch)
        except IllegalActionError:
            continue
        array = np.asarray(batch)
        assert array.shape == (3,) and np.issubdtype(array.dtype, np.integer)
        assert array.dtype != np.bool_ and np.all((array >= 0) & (array < duel_env.num_actions))


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("reset"), SEEDS),
        st.tuples(st.just("step"), ACTIONS),
        st.tuples(st.just("step"), st.just("legal")),
        st.tuples(st.just("observe"), st.sampled_from(["player_0", "player_1", "player_2", 0])),
        st.tuples(st.just("last"), st.booleans()),
    ),
    max_size=12,
)


@FUZZ
@given(operations=OPERATIONS)
def test_pettingzoo_in_any_order(duel_env, operations):
    env = tcg_pz.TcgjaxAECEnv(duel_env)
    for name, argument in operations:
        try:
            if name == "reset":
                _reset(env, argument)
            elif name == "step" and argument == "legal" and env.state is not None and env.agents:
                mask = env.observe(env.agent_selection)["action_mask"]
                env.step(int(np.flatnonzero(mask)[0]) if mask.any() else None)
            elif name == "step":
                env.step(None if argument == "legal" else argument)
            elif name == "observe":
                env.observe(argument)
            else:
                env.last(argument)
        except tcgjax.TcgjaxError as exc:
            assert str(exc)
