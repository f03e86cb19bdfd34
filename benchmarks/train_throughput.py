"""Training throughput vs pure-rollout throughput of the same env at the same batch, in one run.

``python benchmarks/train_throughput.py --config deployment [key=value ...] [--updates N]``

* **rollout**: random legal play with auto-reset, ``num_envs`` games x ``num_steps`` steps inside one
  jitted scan (the harness of ``throughput.py``), timed over ``--updates`` repetitions.
* **train**: the jitted PPO ``update`` of ``tcgjax.train.ppo`` (rollout with the policy network, per-seat
  GAE, ``update_epochs`` x ``num_minibatches`` Adam steps), timed over ``--updates`` updates; env steps
  per second including the updates.

Prints both and their ratio and appends a row to ``benchmarks/RESULTS.md`` (section "Training
throughput") unless ``--no-record``. Issue target: train >= 50% of rollout on the CPU.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import time

import jax

from tcgjax.train.config import load_config
from tcgjax.train.ppo import make_ppo

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = (
    "\n## Training throughput (PPO update vs pure rollout, same env and batch, one run)\n\n"
    "| date (UTC) | machine | jax | env | num_envs x num_steps | network | rollout steps/s "
    "| train steps/s | ratio | notes |\n|---|---|---|---|---|---|---|---|---|---|\n"
)


def _machine() -> str:
    device = jax.devices()[0]
    cpu = platform.processor() or "cpu"
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if "model name" in line)
    except (OSError, StopIteration):
        pass
    return f"{device.platform}: {cpu}, {os.cpu_count()} cores"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="deployment")
    parser.add_argument("--updates", type=int, default=10)
    parser.add_argument("--no-record", action="store_true")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args(argv)
    config = load_config(args.config, args.overrides)
    ppo = make_ppo(config)
    env, n, t = ppo.env, config.num_envs, config.num_steps

    import sys

    sys.path.insert(0, HERE)
    from tcgjax.bench import make_rollout  # the same harness as the rollout benchmark

    rollout = jax.jit(make_rollout(env.init, env.step, n, t))
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), n))
    jax.block_until_ready(rollout(state, jax.random.PRNGKey(1)))
    start = time.perf_counter()
    for i in range(args.updates):
        out = rollout(state, jax.random.PRNGKey(2 + i))
    jax.block_until_ready(out)
    rollout_sps = n * t * args.updates / (time.perf_counter() - start)

    update = jax.jit(ppo.update)
    runner = ppo.init(jax.random.PRNGKey(0))
    runner, metrics = update(runner)
    jax.block_until_ready(metrics)
    start = time.perf_counter()
    for _ in range(args.updates):
        runner, metrics = update(runner)
    jax.block_until_ready(metrics)
    train_sps = n * t * args.updates / (time.perf_counter() - start)
    ratio = train_sps / rollout_sps
    print(
        f"{env.id}: rollout {rollout_sps:,.0f} steps/s | train {train_sps:,.0f} steps/s | "
        f"ratio {ratio:.1%} (target >= 50%)"
    )
    if not args.no_record:
        path = os.path.join(HERE, "RESULTS.md")
        text = open(path).read()
        if "## Training throughput" not in text:
            text += HEADER
        row = (
            f"| {datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%dT%H:%M:%SZ')} | {_machine()} "
            f"| {jax.__version__} | {env.id} | {n} x {t} | MLP {list(config.hidden_sizes)}, "
            f"{config.update_epochs} epochs x {config.num_minibatches} minibatches "
            f"| {rollout_sps:,.0f} | {train_sps:,.0f} | {ratio:.1%} | opponent {config.opponent} |\n"
        )
        with open(path, "w") as fh:
            fh.write(text.rstrip("\n") + "\n" + row if text.rstrip().endswith("|") else text + row)


if __name__ == "__main__":
    main()
