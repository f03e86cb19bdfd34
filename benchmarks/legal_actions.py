"""How many action ids are legal at once, per game: the measured maximum behind the pointer
design's ``max_options`` default (``train.designs.MAX_LEGAL_ACTIONS``).

``N`` games are played with uniformly random legal actions and auto-reset for ``S`` steps (one
jitted ``lax.scan``); at every live state the number of legal ids is counted. Printed per game: the
maximum, the 99.9th and 99th percentiles and the mean, over every state visited, and the phase
of the state where the maximum was seen is not kept (the count is all the design needs).

A random player visits the states a learner visits early; a trained one may reach states with
more options, which is why the pointer design counts and logs every overflow instead of trusting
this number (``pointer_overflow`` in the training log).

Usage::

    python benchmarks/legal_actions.py                      # every registered game
    python benchmarks/legal_actions.py --env digimon --games 512 --steps 3000
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np

import tcgjax
from tcgjax.wrappers import random_legal_action, reset_if_done


def legal_counts(env: tcgjax.Env, games: int, steps: int, seed: int = 0) -> np.ndarray:
    """int32[S * N]: the number of legal ids at every live state of a random-play rollout."""
    reset = jax.vmap(reset_if_done, in_axes=(None, 0, 0))

    @jax.jit
    def rollout(key):
        k0, k1 = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(k0, games))

        def body(state, key):
            k_reset, k_act, k_step = jax.random.split(key, 3)
            state = reset(env.init, state, jax.random.split(k_reset, games))
            live = ~(state.terminated | state.truncated)
            count = jnp.where(live, jnp.sum(state.legal_action_mask, axis=-1), -1)
            action = random_legal_action(k_act, state.legal_action_mask)
            state = jax.vmap(env.step)(state, action, jax.random.split(k_step, games))
            return state, count.astype(jnp.int32)

        _, counts = jax.lax.scan(body, state, jax.random.split(k1, steps))
        return counts

    counts = np.asarray(rollout(jax.random.key(seed))).reshape(-1)
    return counts[counts >= 0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", action="append", help="game id (repeatable); default: all")
    parser.add_argument("--games", type=int, default=256)
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args()
    for env_id in args.env or tcgjax.available_envs():
        counts = legal_counts(tcgjax.make(env_id), args.games, args.steps)
        print(
            f"{env_id:12s} states {counts.size:>9,d}  max {counts.max():>4d}  "
            f"p99.9 {np.percentile(counts, 99.9):>6.1f}  p99 {np.percentile(counts, 99):>6.1f}  "
            f"mean {counts.mean():>6.2f}"
        )


if __name__ == "__main__":
    main()
