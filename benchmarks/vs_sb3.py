"""sb3-contrib ``MaskablePPO`` (one game at a time, through the Gymnasium wrapper) next to tcgjax's
own PPO (thousands of games in one jitted update), same machine, same game, one run.

``python benchmarks/vs_sb3.py --env duel [--sb3-steps N] [--updates N] [key=value ...]``

* **sb3**: ``examples/maskable_ppo.py``'s model (``MultiInputPolicy``, sb3's defaults, ``n_steps``
  512) learning against the random opponent, on the host CPU (torch and the wrapper's JAX program
  both, also where an accelerator is present); after one warm-up rollout (the wrapper's jitted seat
  program compiles there), ``--sb3-steps`` agent steps are timed: sb3's own fps.
* **tcgjax**: the jitted ``update`` of ``tcgjax.train.ppo`` on JAX's default device (the accelerator if
  any) with ``configs/ppo/<env>.yaml`` (plus
  ``key=value`` overrides), timed over ``--updates`` updates after one warm-up update. Its env
  steps include the opponent seat's moves, so the comparison uses the learner's steps:
  env steps/s x ``learner_share`` (the fraction of the transitions that are the learner's), the
  same thing sb3 counts.

Prints both and their ratio (issue goal: >= 100x) and appends a row to ``benchmarks/RESULTS.md``
(section "sb3-contrib MaskablePPO vs tcgjax PPO") unless ``--no-record``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time

import jax

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TITLE = "## sb3-contrib MaskablePPO vs tcgjax PPO (same CPU, same game, one run)"
COLUMNS = (
    "date (UTC)",
    "machine",
    "env",
    "sb3 MaskablePPO learner steps/s",
    "tcgjax PPO config",
    "tcgjax learner steps/s",
    "ratio",
    "notes",
)


def sb3_fps(env_id: str, steps: int, seed: int = 0, torch_threads: int | None = None) -> float:
    """Agent steps per second of ``MaskablePPO.learn`` after a warm-up rollout; ``torch_threads``
    sets torch's intra-op threads (default: torch's own choice, one per core)."""
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    from maskable_ppo import make_model

    if torch_threads is not None:
        import torch

        # sb3's networks here are tiny: on a many-core host torch's default of one thread per
        # core mostly spins, and on a loaded one it oversubscribes (15x slower seen with two
        # threads on two busy cores); one thread is sb3's fastest setting for them.
        torch.set_num_threads(torch_threads)

    from tcgjax.wrappers.gymnasium import TcgjaxEnv

    # sb3 steps one game at a time on the host: its env runs on JAX's CPU backend (and torch on
    # the CPU, see make_model) even where an accelerator is present, as sb3's users run it; one
    # game per device call on a GPU would only add launch latency.
    with jax.default_device(jax.devices("cpu")[0]):
        env = TcgjaxEnv(env_id, opponent="random")
        model = make_model(env, n_steps=512, batch_size=64, seed=seed)
        model.learn(total_timesteps=512)  # warm-up: compiles the wrapper's program, builds torch
        done = model.num_timesteps
        start = time.perf_counter()
        model.learn(total_timesteps=steps, reset_num_timesteps=False)
        return (model.num_timesteps - done) / (time.perf_counter() - start)


def tcgjax_fps(env_id: str, updates: int, overrides: list[str]) -> tuple[float, str]:
    """Learner steps per second of the jitted PPO update (env steps x learner share), and a
    description of the config."""
    from tcgjax.train.config import load_config
    from tcgjax.train.ppo import make_ppo

    config = load_config(env_id, overrides)
    ppo = make_ppo(config)
    update = jax.jit(ppo.update)
    runner, metrics = update(jax.jit(ppo.init)(jax.random.PRNGKey(0)))
    jax.block_until_ready(metrics)
    shares = []
    start = time.perf_counter()
    for _ in range(updates):
        runner, metrics = update(runner)
        shares.append(metrics["learner_share"])
    jax.block_until_ready(runner)
    seconds = time.perf_counter() - start
    env_steps = config.num_envs * config.num_steps * updates
    share = float(sum(float(s) for s in shares) / len(shares))
    described = (
        f"{config.num_envs} x {config.num_steps}, {config.update_epochs} epochs x "
        f"{config.num_minibatches} minibatches, opponent {config.opponent}"
    )
    return env_steps * share / seconds, described


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="duel")
    parser.add_argument("--sb3-steps", type=int, default=4096)
    parser.add_argument("--updates", type=int, default=5)
    parser.add_argument("--torch-threads", type=int, default=None, help="torch threads for sb3")
    parser.add_argument("--no-record", action="store_true")
    parser.add_argument("--note", default="")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args(argv)
    sb3 = sb3_fps(args.env, args.sb3_steps, torch_threads=args.torch_threads)
    ours, described = tcgjax_fps(args.env, args.updates, args.overrides)
    ratio = ours / sb3
    print(
        f"{args.env}: sb3-contrib MaskablePPO {sb3:,.0f} learner steps/s | tcgjax PPO "
        f"{ours:,.0f} learner steps/s ({described}) | ratio {ratio:,.0f}x (goal >= 100x)"
    )
    if not args.no_record:
        sys.path.insert(0, HERE)
        from tcgjax.bench import append_rows, machine_description

        row = (
            f"| {datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%dT%H:%M:%SZ')} "
            f"| {machine_description()} | {args.env} | {sb3:,.0f} | {described} | {ours:,.0f} "
            f"| {ratio:,.0f}x | {args.note} |"
        )
        append_rows(os.path.join(HERE, "RESULTS.md"), [row], COLUMNS, TITLE)
    return {"sb3": sb3, "tcgjax": ours, "ratio": ratio}


if __name__ == "__main__":
    main()
