"""Shared test settings and helpers for the train tests."""

import jax
import jax.numpy as jnp
from suite_xla import compiled_for_running

from tcgjax.wrappers import random_legal_action

# configs/ppo/deployment.yaml shrunk: 4 updates of 16 envs x 8 steps. The checkpoint and run tests
# use the same list so their compiled update is shared through JAX's persistent cache.
TINY = [
    "num_envs=16",
    "num_steps=8",
    "hidden_sizes=[32]",
    "num_minibatches=2",
    "update_epochs=2",
    "total_timesteps=512",  # 4 updates
    "eval_games=8",
    "eval_every=2",
    "checkpoint_every=2",
]


def sweep(env, policy, key, steps, random_play, versus):
    """One jitted scan over ``random_play`` games where each step is ``policy``'s action or a
    random legal one (coin flip) and ``versus`` games of ``policy`` (seat = game index % 2)
    against the random player; ``policy`` is asked at every state of both groups.

    Returns per step ``legal``, ``live``, ``action``, the step's ``error`` (``[T, B]``) and per versus game
    ``seat``, ``reward`` (the policy's reward on the game's last step), ``done``."""
    batch = random_play + versus
    num_actions = env.num_actions
    in_versus = jnp.arange(batch) >= random_play
    seat = jnp.arange(batch) % 2

    def body(carry, key):
        state, reward = carry
        k_h, k_r, k_coin, k_step = jax.random.split(key, 4)
        h = jax.vmap(policy)(state, jax.random.split(k_h, batch))
        safe = jnp.clip(h, 0, num_actions - 1)
        legal = (h == safe) & jnp.take_along_axis(state.legal_action_mask, safe[:, None], 1)[:, 0]
        was_done = state.terminated | state.truncated
        r = random_legal_action(k_r, state.legal_action_mask)
        coin = jax.random.bernoulli(k_coin, 0.5, (batch,))
        action = jnp.where(
            in_versus, jnp.where(state.current_player == seat, h, r), jnp.where(coin, h, r)
        )
        state = jax.vmap(env.step)(state, action, jax.random.split(k_step, batch))
        ended = ~was_done & (state.terminated | state.truncated)
        mine = jnp.take_along_axis(state.rewards, seat[:, None], 1)[:, 0]
        reward = jnp.where(ended & ~state.truncated, mine, reward)
        return (state, reward), (legal, ~was_done, h, state.error)

    @jax.jit
    def run(key):
        k_init, k_run = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(k_init, batch))
        carry = (state, jnp.zeros(batch))
        (state, reward), (legal, live, action, error) = jax.lax.scan(
            body, carry, jax.random.split(k_run, steps)
        )
        done = state.terminated | state.truncated
        versus_only = slice(random_play, None)
        return (
            legal,
            live,
            action,
            error,
            seat[versus_only],
            reward[versus_only],
            done[versus_only],
        )

    return jax.device_get(compiled_for_running(run, key)(key))
