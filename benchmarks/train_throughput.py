"""Training throughput vs pure-rollout throughput of the same env at the same batch, in one run.

``python benchmarks/train_throughput.py --config deployment [key=value ...] [--updates N]``

* **rollout**: random legal play with auto-reset, ``num_envs`` games x ``num_steps`` steps inside one
  jitted scan (the harness of ``throughput.py``), timed over ``--updates`` repetitions.
* **train**: the jitted PPO ``update`` of ``tcgjax.train.ppo`` (rollout with the policy network, per-seat
  GAE, ``update_epochs`` x ``num_minibatches`` Adam steps), timed over ``--updates`` updates; env steps
  per second including the updates.
* **where a training step's time goes**: the PPO's own rollout (env, opponent and policy forward, no
  learning) timed alone, so an update splits into env (the pure rollout's time for the same steps),
  policy and opponent (PPO rollout minus pure rollout) and learning (update minus PPO rollout); and
  each program's compile time (its first call minus one timed call).

Prints both and their ratio and appends a row to ``benchmarks/RESULTS.md`` (section "Training
throughput") unless ``--no-record``. Issue target: train >= 50% of rollout on the CPU.
"""

from __future__ import annotations

import argparse
import datetime
import os
import time

import jax

from tcgjax.bench import machine_description, make_rollout  # the rollout benchmark's harness
from tcgjax.train.config import load_config
from tcgjax.train.ppo import make_ppo

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = (
    "\n## Training throughput (PPO update vs pure rollout, same env and batch, one run)\n\n"
    "| date (UTC) | machine | jax | env | num_envs x num_steps | network | rollout steps/s "
    "| train steps/s | ratio | notes |\n|---|---|---|---|---|---|---|---|---|---|\n"
)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="deployment")
    parser.add_argument("--updates", type=int, default=10)
    parser.add_argument("--no-record", action="store_true")
    parser.add_argument("--note", default="", help="free text added to the notes column")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args(argv)
    config = load_config(args.config, args.overrides)
    ppo = make_ppo(config)
    env, n, t = ppo.env, config.num_envs, config.num_steps

    rollout = jax.jit(make_rollout(env.init, env.step, n, t))
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), n))
    rollout_first, rollout_s = _timed(
        lambda i: rollout(state, jax.random.PRNGKey(1 + i)), args.updates
    )
    rollout_sps = n * t / rollout_s

    runner = ppo.init(jax.random.PRNGKey(0))
    policy_rollout = jax.jit(ppo.rollout)
    policy_first, policy_s = _timed(
        lambda i: policy_rollout(runner, jax.random.PRNGKey(1 + i)), args.updates
    )

    update = jax.jit(ppo.update)
    carried = [runner]  # each update starts from the last one's runner

    def one_update(_):
        carried[0], metrics = update(carried[0])
        return metrics

    update_first, update_s = _timed(one_update, args.updates)
    train_sps = n * t / update_s
    ratio = train_sps / rollout_sps
    learn_s = max(update_s - policy_s, 0.0)
    split = (
        f"an update {update_s:.3f} s: env {rollout_s / update_s:.0%}, policy and opponent "
        f"{max(policy_s - rollout_s, 0.0) / update_s:.0%}, learning {learn_s / update_s:.0%}; "
        f"compile: rollout {rollout_first - rollout_s:.1f} s, PPO rollout "
        f"{policy_first - policy_s:.1f} s, update {update_first - update_s:.1f} s"
    )
    print(
        f"{env.id}: rollout {rollout_sps:,.0f} steps/s | train {train_sps:,.0f} steps/s | "
        f"ratio {ratio:.1%} (target >= 50%) | {split}"
    )
    if not args.no_record:
        path = os.path.join(HERE, "RESULTS.md")
        text = open(path).read()
        now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        row = (
            f"| {now} | {machine_description()} "
            f"| {jax.__version__} | {env.id} | {n} x {t} | {config.network} {list(config.hidden_sizes)}, "
            f"{config.update_epochs} epochs x {config.num_minibatches} minibatches "
            f"| {rollout_sps:,.0f} | {train_sps:,.0f} | {ratio:.1%} | opponent {config.opponent}; "
            f"{split}{'; ' + args.note if args.note else ''} |\n"
        )
        with open(path, "w") as fh:
            fh.write(_insert_row(text, row))


def _timed(call, repeats: int) -> tuple[float, float]:
    """``(seconds of call(0), its compile included; mean seconds of call(1..repeats))``, each
    waited on until its result is ready."""
    start = time.perf_counter()
    jax.block_until_ready(call(0))
    first = time.perf_counter() - start
    start = time.perf_counter()
    for i in range(repeats):
        out = call(i + 1)
    jax.block_until_ready(out)
    return first, (time.perf_counter() - start) / repeats


def _insert_row(text: str, row: str) -> str:
    """``text`` with ``row`` after the last row of the training-throughput table (the section is
    created at the end when absent), not after whatever table ends the file."""
    if "## Training throughput" not in text:
        text = text.rstrip("\n") + "\n" + HEADER
    head, _, tail = text.partition("## Training throughput")
    lines = tail.split("\n")
    first_row = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next(
        (i for i in range(first_row, len(lines)) if not lines[i].startswith("|")), len(lines)
    )
    lines.insert(end, row.rstrip("\n"))
    return head + "## Training throughput" + "\n".join(lines)


if __name__ == "__main__":
    main()
