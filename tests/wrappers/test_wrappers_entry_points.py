"""Issue #33: the wrappers' entry points. One seed rule for every wrapper (``check_seed``), named
errors before ``reset`` and after the end, and an opponent's action must be an integer id."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from gymnasium.error import ResetNeeded

import tcgjax
from tcgjax.core.errors import ConfigError, IllegalActionError, PlayerError
from tcgjax.wrappers import gymnasium as tcg_gym
from tcgjax.wrappers import pettingzoo as tcg_pz
from tcgjax.wrappers.seeding import SEED_LIMIT, check_seed

# Every wrapper that takes a seed, as "reset it with this seed".
WRAPPERS = {
    "gymnasium": lambda env: tcg_gym.TcgjaxEnv(env).reset,
    "gymnasium_vector": lambda env: tcg_gym.TcgjaxVectorEnv(env, num_envs=2).reset,
    "pettingzoo": lambda env: tcg_pz.TcgjaxAECEnv(env).reset,
}
GOOD_SEEDS = [0, 7, SEED_LIMIT - 1, np.int64(3), np.uint32(5), None]
BAD_SEEDS = [
    True,
    False,
    np.bool_(True),
    -1,
    np.int64(-1),
    SEED_LIMIT,
    2**63,
    2**70,
    np.uint64(2**63),
    1.5,
    2.0,
    np.float32(1),
    "1",
    [1],
    jnp.int32(3),
]


def test_the_seed_rule():
    assert SEED_LIMIT == 2**32  # jax.random.PRNGKey keeps 32 bits of a seed without x64
    for seed in GOOD_SEEDS:
        value = check_seed(seed, "here")
        assert value is None if seed is None else (type(value) is int and value == int(seed))
    for seed in BAD_SEEDS:
        with pytest.raises(
            ConfigError, match=r"^here: seed=.* must be None or an int in \[0, 2\*\*32\)"
        ):
            check_seed(seed, "here")


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_every_wrapper_refuses_the_same_seeds(duel_env, wrapper, seed):
    with pytest.raises(ConfigError, match=r"env 'duel': seed=.* must be None or an int in"):
        WRAPPERS[wrapper](duel_env)(seed=seed)


def test_every_wrapper_accepts_the_same_seeds(duel_env):
    for wrapper in sorted(WRAPPERS):
        reset = WRAPPERS[wrapper](duel_env)
        for seed in GOOD_SEEDS:
            reset(seed=seed)


# --------------------------------------------------------------------------------------------------
# Before reset, after the end


def test_pettingzoo_before_reset_is_a_named_reset_error(duel_env):
    env = tcg_pz.TcgjaxAECEnv(duel_env)
    for call in (lambda: env.step(0), lambda: env.observe("player_0"), env.last):
        with pytest.raises(tcg_gym.ResetNeededError, match="reset") as info:
            call()
        assert isinstance(info.value, tcgjax.TcgjaxError) and isinstance(info.value, ResetNeeded)


def test_gymnasium_before_reset_is_a_named_reset_error(duel_env):
    for call in (
        lambda: tcg_gym.TcgjaxEnv(duel_env).step(0),
        lambda: tcg_gym.TcgjaxEnv(duel_env).action_masks(),
        lambda: tcg_gym.TcgjaxEnv(duel_env, render_mode="ansi").render(),
        lambda: tcg_gym.TcgjaxVectorEnv(duel_env, num_envs=2).step(np.zeros(2, int)),
        lambda: tcg_gym.TcgjaxVectorEnv(duel_env, num_envs=2).action_masks(),
    ):
        with pytest.raises(tcg_gym.ResetNeededError, match="reset"):
            call()


def _play_to_the_end(env):
    """Both agents play their first legal action until the game ends; returns before the dead
    steps."""
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))


def test_pettingzoo_after_the_end(duel_env):
    env = tcg_pz.TcgjaxAECEnv(duel_env)
    env.reset(seed=0)
    _play_to_the_end(env)
    # A finished agent may only step None (PettingZoo's rule, a ValueError): named here.
    with pytest.raises(
        IllegalActionError, match=r"player_\d has finished the game .* may only step None, got 0"
    ) as info:
        env.step(0)
    assert isinstance(info.value, ValueError)
    while env.agents:
        env.step(None)
    for action in (None, 0):
        with pytest.raises(tcg_gym.ResetNeededError, match="every agent has left"):
            env.step(action)
    env.observe("player_0")  # the final observation stays readable
    env.reset(seed=1)
    assert env.agents == ["player_0", "player_1"]


@pytest.mark.parametrize("agent", ["player_2", "x", 0, None])
def test_pettingzoo_names_an_unknown_agent(duel_env, agent):
    env = tcg_pz.TcgjaxAECEnv(duel_env)
    env.reset(seed=0)
    with pytest.raises(PlayerError, match=rf"agent {agent!r} is not one of \['player_0', "):
        env.observe(agent)


# --------------------------------------------------------------------------------------------------
# The opponent's actions


@pytest.mark.parametrize(
    "returned",
    [
        lambda: 1.5,
        lambda: jnp.float32(1.0),
        lambda: jnp.bool_(True),
        lambda: True,
        lambda: jnp.zeros(2, jnp.int32),
    ],
    ids=["float", "jnp_float", "jnp_bool", "bool", "vector"],
)
@pytest.mark.parametrize("vector", [False, True])
def test_an_opponent_action_must_be_one_integer_id(duel_env, returned, vector):
    def opponent(state, key):
        del state, key
        return returned()

    make = tcg_gym.TcgjaxVectorEnv if vector else tcg_gym.TcgjaxEnv
    kwargs = {"num_envs": 2} if vector else {}
    env = make(duel_env, opponent=opponent, agent_seat=1, **kwargs)
    with pytest.raises(
        IllegalActionError, match=r"opponent policy must return one integer id"
    ) as e:
        env.reset(seed=0)
    assert e.value.rule == "action_not_an_integer"
