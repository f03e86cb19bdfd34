"""How many action ids are legal at once, per game: the measured maximum behind the pointer
design's ``max_options`` default (``tcgjax.train.designs.MAX_LEGAL_ACTIONS``).

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
from tcgjax.wrappers import random_play


def legal_counts(env: tcgjax.Env, games: int, steps: int, seed: int = 0) -> np.ndarray:
    """int32[S * N]: the number of legal ids at every live state of a random-play rollout."""

    def legal_or_finished(state):
        live = ~(state.terminated | state.truncated)
        return jnp.where(live, jnp.sum(state.legal_action_mask, axis=-1), -1).astype(jnp.int32)

    rollout = jax.jit(lambda key: random_play(env, key, games, steps, legal_or_finished))
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
