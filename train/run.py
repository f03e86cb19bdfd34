"""``make train``: the main job.

Until the masked-PPO issue lands, the main job is a jitted random-play rollout of every registered
env (or ``--env ID``) under ``jit(vmap(step))`` with auto-reset, printing steps/s and finished games,
so a fresh clone can check the whole stack end to end on its built-in defaults.
"""

from __future__ import annotations

import argparse
import time

import jax

import tcgjax
from tcgjax.wrappers import random_legal_action, reset_if_done


def make_rollout(env: tcgjax.Env, batch: int, steps: int):
    """One jitted program: ``steps`` random legal steps of ``batch`` games with auto-reset.

    Returns ``rollout(key) -> (finished games, rewards of player 1 summed over finished games)``.
    """

    def body(carry, key):
        state, finished, p1_return = carry
        k_reset, k_act, k_step = jax.random.split(key, 3)
        state = jax.vmap(reset_if_done, in_axes=(None, 0, 0))(
            env.init, state, jax.random.split(k_reset, batch)
        )
        action = random_legal_action(k_act, state.legal_action_mask)
        state = jax.vmap(env.step)(state, action, jax.random.split(k_step, batch))
        done = state.terminated | state.truncated
        return (state, finished + done.sum(), p1_return + state.rewards[:, 0].sum()), None

    @jax.jit
    def rollout(key):
        k_init, k_run = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(k_init, batch))
        carry = (state, jax.numpy.int32(0), jax.numpy.float32(0))
        (_, finished, p1_return), _ = jax.lax.scan(body, carry, jax.random.split(k_run, steps))
        return finished, p1_return

    return rollout


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", choices=tcgjax.available_envs(), help="one env (default: all)")
    parser.add_argument("--batch", type=int, default=1024, help="games in parallel")
    parser.add_argument("--steps", type=int, default=500, help="steps per game slot")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    envs = [args.env] if args.env else list(tcgjax.available_envs())
    print(
        f"tcgjax {tcgjax.__version__} | jax {jax.__version__} on {jax.devices()[0].platform} | "
        f"random-play rollout (masked PPO comes with its own issue)"
    )
    for env_id in envs:
        env = tcgjax.make(env_id)
        rollout = make_rollout(env, args.batch, args.steps)
        key = jax.random.PRNGKey(args.seed)
        start = time.perf_counter()
        jax.block_until_ready(rollout(key))
        compile_s = time.perf_counter() - start
        start = time.perf_counter()
        finished, p1_return = jax.block_until_ready(rollout(jax.random.fold_in(key, 1)))
        run_s = time.perf_counter() - start
        sps = args.batch * args.steps / run_s
        finished = int(finished)
        mean = float(p1_return) / max(finished, 1)
        print(
            f"{env_id:>12}: {sps:>12,.0f} steps/s | batch {args.batch} x {args.steps} steps | "
            f"compile+first run {compile_s:.1f}s | {finished} games finished | "
            f"player1 mean reward {mean:+.3f}"
        )


if __name__ == "__main__":
    main()
