"""Training steps/s of each action design against ``flat``, same game, config and batch, one run.

``python benchmarks/design_throughput.py --config duel [--designs flat,unmasked,factored,pointer]
[--rounds 5] [--updates 3] [key=value ...]``

For each design the jitted PPO ``update`` of ``tcgjax.train.ppo`` is compiled (wall time reported), then
the designs are timed **round-robin**: ``--rounds`` rounds, each running ``--updates`` updates of
every design in turn, so that the CPU's drift over minutes (up to a third here) falls on every
design alike. Reported per design: the median over rounds of env steps per second (rollout, GAE and
the SGD epochs included), its ratio to ``flat``, the compile time, and the jaxpr size of the update
(equations). Appends rows to ``benchmarks/RESULTS.md`` (section "Action designs") unless
``--no-record``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import time

import jax

from tcgjax.train.config import load_config
from tcgjax.train.ppo import make_ppo

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = (
    "\n## Action designs: training steps/s against flat (same config and batch, one run, "
    "round-robin)\n\n"
    "| date (UTC) | machine | jax | config | design | update eqns | compile s | train steps/s "
    "| vs flat | notes |\n|---|---|---|---|---|---:|---:|---:|---:|---|\n"
)


def _count_eqns(jaxpr) -> int:
    total = 0
    for eqn in jaxpr.eqns:
        total += 1
        for value in eqn.params.values():
            for sub in value if isinstance(value, list | tuple) else [value]:
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    total += _count_eqns(inner)
    return total


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="duel")
    parser.add_argument("--designs", default="flat,unmasked,factored,pointer")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--updates", type=int, default=3)
    parser.add_argument("--note", default="")
    parser.add_argument("--no-record", action="store_true")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args(argv)
    designs = args.designs.split(",")
    runs = {}
    for design in designs:
        config = load_config(args.config, [*args.overrides, f"action_design={design}"])
        ppo = make_ppo(config)
        runner = jax.jit(ppo.init)(jax.random.key(0))
        eqns = _count_eqns(jax.make_jaxpr(ppo.update)(runner).jaxpr)
        started = time.perf_counter()
        update = jax.jit(ppo.update).lower(runner).compile()
        compile_s = time.perf_counter() - started
        runner, _ = update(runner)  # warm
        jax.block_until_ready(runner)
        runs[design] = {"config": config, "update": update, "runner": runner, "eqns": eqns,
                        "compile_s": compile_s, "sps": []}  # fmt: skip
        print(f"{design}: compiled in {compile_s:.1f} s, {eqns} equations", flush=True)
    for _ in range(args.rounds):
        for run in runs.values():
            runner = run["runner"]
            started = time.perf_counter()
            for _ in range(args.updates):
                runner, _ = run["update"](runner)
            jax.block_until_ready(runner)
            elapsed = time.perf_counter() - started
            run["runner"] = runner
            c = run["config"]
            run["sps"].append(args.updates * c.num_envs * c.num_steps / elapsed)
    flat = statistics.median(runs["flat"]["sps"]) if "flat" in runs else None
    rows = []
    import sys

    sys.path.insert(0, HERE)
    from tcgjax.bench import machine_description

    machine = machine_description()
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M")
    for design, run in runs.items():
        sps = statistics.median(run["sps"])
        ratio = f"{sps / flat:.2f}x" if flat else "n/a"
        c = run["config"]
        print(f"{design:10s} {sps:>10,.0f} steps/s  {ratio:>6s}  compile {run['compile_s']:.1f} s")
        rows.append(
            f"| {date} | {machine} | {jax.__version__} | `{args.config}` "
            f"({c.num_envs} x {c.num_steps}, {c.network}) | `{design}` | {run['eqns']:,} | "
            f"{run['compile_s']:.1f} | {sps:,.0f} | {ratio} | {args.note} |"
        )
    if not args.no_record:
        path = os.path.join(HERE, "RESULTS.md")
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        if HEADER.strip().splitlines()[0] not in text:
            text = text.rstrip("\n") + "\n" + HEADER
        else:
            text = text.rstrip("\n") + "\n"
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
