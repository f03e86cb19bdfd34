"""Throughput of a tcgjax env under random legal play, optionally next to Pgx games (``tcgjax bench``).

Method
------
A batch of ``N`` games is played with uniformly random legal actions and auto-reset. One step of the
rollout, for the whole batch, is exactly the loop body documented in
:mod:`tcgjax.wrappers.auto_reset`::

    state  = vmap(reset_if_done)(init, state, reset_keys)    # finished games restart
    action = random_legal_action(action_key, state.legal_action_mask)
    state  = vmap(step)(state, action, step_keys)

Under ``vmap`` on the CPU, ``reset_if_done`` initialises only the games that are done (gathered
in chunks); elsewhere it computes ``init`` for every game and selects it where the game is done.
Either way the reset is part of every timed step, as in any training loop that uses the wrapper,
and the Pgx games go through the same wrapper. ``S`` such steps run inside one ``jax.lax.scan``
compiled with ``jax.jit``, so no Python dispatch is timed (``--steps``; default 200 for the
tcgjax env and 32 for the Pgx envs, whose chess step is slow on CPU; a given ``--steps`` applies
to every env).

The harness only needs an ``(init_fn, step_fn)`` pair whose states carry ``legal_action_mask``,
``terminated`` and ``truncated``; tcgjax envs and Pgx envs go through the same code, which is what
makes ``--compare-pgx`` a like-for-like comparison.

Figures reported per env:

* **compile s (step)**: ``jax.jit(jax.vmap(step)).lower(...).compile()`` for the batch shape,
  wall-clock (tracing + lowering + XLA compilation).
* **compile s (rollout)**: the same for the whole ``S``-step scan program (reset + action sampling +
  step), which is what a training loop pays.
* **steps/s**: ``N * S / t`` where ``t`` is the median wall-clock time of ``--repeats`` warm runs of
  the compiled rollout (after one untimed warm-up run), each ended by ``block_until_ready``. A
  step is one transition of one game; ``reset_if_done`` and action sampling are included.
* **bytes/state**: the sum of ``.nbytes`` over the leaves of one unbatched ``init(key)`` state.

The persistent compilation cache is switched off so compile times are real. With ``--results
FILE``, one row per env is appended to the markdown table in ``FILE`` (created if absent); a source
checkout's ``benchmarks/throughput.py`` runs this harness recording into ``benchmarks/RESULTS.md``
unless ``--no-record``.

Usage::

    tcgjax bench --env duel --batch 1024 --compare-pgx
    tcgjax bench --env digimon --batch 4096 --steps 100 --results my_results.md
    python benchmarks/throughput.py --env duel --batch 1024 --compare-pgx   # checkout: records
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp

import tcgjax
from tcgjax.wrappers.auto_reset import random_legal_action, reset_if_done

PGX_ENVS = ("chess", "go_9x9", "connect_four")
DEFAULT_STEPS = 200
# Pgx chess costs ~0.3 ms per game-step on a 2-core CPU: keep the default --compare-pgx run short.
PGX_DEFAULT_STEPS = 32
# connect_four is fast: time it over more steps so the run is long enough to measure.
PGX_STEP_FACTOR = {"connect_four": 4}
TABLE_COLUMNS = (
    "date (UTC)",
    "machine",
    "jax",
    "env",
    "batch",
    "steps",
    "steps/s",
    "compile s (step)",
    "compile s (rollout)",
    "bytes/state",
    "notes",
)
RESULTS_HEADER = """\
# Throughput results

Each row is one run of `benchmarks/throughput.py` for one env: `batch` games played with uniformly
random legal actions and auto-reset (`tcgjax.wrappers.auto_reset.reset_if_done` +
`random_legal_action`, then the env's `step`, all vmapped), `steps` steps inside a single jitted
`jax.lax.scan`, so Python overhead is not measured. The reset is part of every step (under `vmap`
on the CPU it initialises only the finished games, from 2026-11-24; before, and on accelerators,
`init` for every game, kept where the game is done); the Pgx games use the same wrapper.
Default `steps`: 200 for the tcgjax env, 32 for the Pgx envs (Pgx chess is slow on
CPU); `--steps N` applies to all.

* **steps/s**: `batch * steps / t`, `t` the median wall-clock time of 3 warm runs of the compiled
  rollout (`block_until_ready`); one step = one transition of one game, reset and action sampling
  included.
* **compile s (step)**: `jax.jit(jax.vmap(env.step)).lower(...).compile()` alone, for the batch
  shape. **compile s (rollout)**: the same for the whole scan program. Persistent compilation cache
  off.
* **bytes/state**: the sum of `.nbytes` over the leaves of one unbatched `env.init(key)` state.
* **notes**: spread of the timed runs; episodes that finished during one run and their mean
  length in steps (every run starts from fresh `init` states, so only episodes shorter than
  `steps` are seen: with few steps the mean is biased short); the share of the machine's CPU
  time that *other* processes used during the timed runs (from `/proc/stat`; well above 0% means
  the row is pessimistic).
* `pgx/...` rows time [Pgx](https://github.com/sotetsuk/pgx) envs with the very same harness
  (`--compare-pgx`), for reference.

Reproduce (appends rows here; add `--no-record` to only print):

```
make bench   # = .venv/bin/python benchmarks/throughput.py --env duel --batch 1024 --compare-pgx
.venv/bin/python benchmarks/throughput.py --env duel --batch 4096
```

Numbers from different machines, or from runs sharing the machine with other work, are not
comparable; compare rows with the same `machine` taken in the same run.

"""


@dataclasses.dataclass
class Result:
    """Measured figures for one env."""

    env: str
    batch: int
    steps: int
    steps_per_s: float
    compile_step_s: float
    compile_rollout_s: float
    bytes_per_state: int
    run_times: list[float]
    other_load: float
    episodes: int
    episode_steps: int
    num_actions: int
    step_jaxpr_eqns: int

    @property
    def median_s(self) -> float:
        return statistics.median(self.run_times)


def count_eqns(jaxpr: Any) -> int:
    """Equations of a (closed) jaxpr, counting those inside nested jaxprs (cond, scan, pjit...)."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    total = 0
    for eqn in jaxpr.eqns:
        total += 1
        for param in eqn.params.values():
            subs = param if isinstance(param, list | tuple) else [param]
            for sub in subs:
                if hasattr(sub, "eqns") or hasattr(getattr(sub, "jaxpr", None), "eqns"):
                    total += count_eqns(sub)
    return total


def state_nbytes(state: Any) -> int:
    """Sum of ``.nbytes`` over the array leaves of ``state``."""
    return int(sum(leaf.nbytes for leaf in jax.tree.leaves(state)))


def make_rollout(
    init_fn: Callable[[jax.Array], Any],
    step_fn: Callable[[Any, jax.Array, jax.Array], Any],
    batch: int,
    num_steps: int,
) -> Callable[[Any, jax.Array], tuple[Any, jax.Array, jax.Array]]:
    """``rollout(state, key) -> (state, episodes, episode_steps)``: ``num_steps`` batched steps.

    ``episodes`` (int32[]) counts the games that finished (terminated or truncated) during the
    rollout and ``episode_steps`` (int32[]) their total length in steps (counted from the start of
    the rollout for games that were already running then).
    """
    batched_reset = jax.vmap(partial(reset_if_done, init_fn))
    batched_step = jax.vmap(step_fn)

    def body(carry, _):
        state, key, length = carry
        key, k_reset, k_act, k_step = jax.random.split(key, 4)
        state = batched_reset(state, jax.random.split(k_reset, batch))
        action = random_legal_action(k_act, state.legal_action_mask)
        state = batched_step(state, action, jax.random.split(k_step, batch))
        length = length + 1
        done = state.terminated | state.truncated
        stats = jnp.stack([jnp.sum(done, dtype=jnp.int32), jnp.sum(jnp.where(done, length, 0))])
        return (state, key, jnp.where(done, 0, length)), stats

    def rollout(state, key):
        length = jnp.zeros(batch, jnp.int32)
        (state, _, _), stats = jax.lax.scan(body, (state, key, length), None, length=num_steps)
        episodes, episode_steps = jnp.sum(stats, axis=0)
        return state, episodes, episode_steps

    return rollout


def _busy_cpu_seconds() -> float | None:
    """CPU seconds all processes have spent busy since boot (Linux ``/proc/stat``), else None."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle + iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    """CPU seconds used by this process."""
    times = os.times()
    return times.user + times.system


class OtherLoad:
    """Measures the CPU share that *other* processes used during a ``with`` block, as a fraction
    of the whole machine (0 = the benchmark had the machine to itself); NaN where unknown."""

    def __enter__(self) -> OtherLoad:
        self._busy, self._own, self._wall = _busy_cpu_seconds(), _own_cpu(), time.perf_counter()
        self.fraction = float("nan")
        return self

    def __exit__(self, *exc) -> None:
        busy = _busy_cpu_seconds()
        if busy is None or self._busy is None:
            return
        wall = time.perf_counter() - self._wall
        other = (busy - self._busy) - (_own_cpu() - self._own)
        self.fraction = max(other, 0.0) / (wall * (os.cpu_count() or 1))


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def benchmark(
    name: str,
    init_fn: Callable[[jax.Array], Any],
    step_fn: Callable[[Any, jax.Array, jax.Array], Any],
    *,
    batch: int,
    steps: int,
    repeats: int,
    seed: int = 0,
) -> Result:
    """Time ``(init_fn, step_fn)`` with the random-play harness (see the module docstring)."""
    key_init, key_run = jax.random.split(jax.random.PRNGKey(seed))
    single = jax.jit(init_fn)(key_init)
    bytes_per_state = state_nbytes(single)
    num_actions = int(single.legal_action_mask.shape[-1])
    step_jaxpr_eqns = count_eqns(jax.make_jaxpr(step_fn)(single, jnp.int32(0), key_init))

    state = jax.jit(jax.vmap(init_fn))(jax.random.split(key_init, batch))
    jax.block_until_ready(state)

    actions = jnp.zeros((batch,), jnp.int32)
    step_keys = jax.random.split(key_run, batch)
    _, compile_step_s = _timed(
        lambda: jax.jit(jax.vmap(step_fn)).lower(state, actions, step_keys).compile()
    )

    rollout = make_rollout(init_fn, step_fn, batch, steps)
    compiled, compile_rollout_s = _timed(lambda: jax.jit(rollout).lower(state, key_run).compile())

    jax.block_until_ready(compiled(state, key_run))  # warm-up, untimed
    run_times, episodes, episode_steps = [], 0, 0
    with OtherLoad() as other_load:
        for i in range(repeats):
            key = jax.random.fold_in(key_run, i)
            out, seconds = _timed(lambda k=key: jax.block_until_ready(compiled(state, k)))
            run_times.append(seconds)
            episodes, episode_steps = int(out[1]), int(out[2])
    return Result(
        env=name,
        batch=batch,
        steps=steps,
        steps_per_s=batch * steps / statistics.median(run_times),
        compile_step_s=compile_step_s,
        compile_rollout_s=compile_rollout_s,
        bytes_per_state=bytes_per_state,
        run_times=run_times,
        other_load=other_load.fraction,
        episodes=episodes,
        episode_steps=episode_steps,
        num_actions=num_actions,
        step_jaxpr_eqns=step_jaxpr_eqns,
    )


# --------------------------------------------------------------------------------------------------
# Env adapters


# Games whose rules land in stages: measurable here (the per-game notes track their speed as the
# rules grow) but not registered with `tcgjax.make` until every rule holds.
IN_DEVELOPMENT: dict[str, tuple[str, str]] = {}  # unregistered games: id -> (module, class)


def tcgjax_env(env_id: str) -> tuple[Callable, Callable]:
    if env_id in IN_DEVELOPMENT:
        import importlib

        module, name = IN_DEVELOPMENT[env_id]
        env = getattr(importlib.import_module(module), name)()
    else:
        env = tcgjax.make(env_id)
    return env.init, env.step


def pgx_env(env_id: str) -> tuple[Callable, Callable]:
    try:
        import pgx
    except ImportError:
        sys.exit(
            "--compare-pgx needs pgx, which is not installed. Install the benchmark extra: "
            "pip install 'tcgjax[bench]'"
        )
    env = pgx.make(env_id)
    return env.init, env.step


# --------------------------------------------------------------------------------------------------
# Reporting


def machine_description() -> str:
    """Device kind (and host CPU model and core count), e.g. ``cpu: Intel Xeon, 2 cores``."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            models = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        if models:
            cpu = models[0]
    except OSError:
        pass
    host = f"{cpu}, {os.cpu_count()} cores"
    device = jax.devices()[0]
    if device.platform == "cpu":
        return f"cpu: {host}"
    return f"{device.platform}: {device.device_kind}; host {host}"


def row_notes(result: Result, extra: str) -> str:
    notes = [
        f"median of {len(result.run_times)} runs of {result.median_s:.3f} s "
        f"(min {min(result.run_times):.3f}, max {max(result.run_times):.3f})",
        f"{result.episodes} episodes finished per run",
        f"step jaxpr {result.step_jaxpr_eqns} eqns",
    ]
    if result.episodes:
        notes.append(f"mean length {result.episode_steps / result.episodes:.1f} steps")
    if result.other_load == result.other_load:  # not NaN
        notes.append(f"other processes used {result.other_load:.0%} of the CPU while timing")
    if extra:
        notes.append(extra)
    return "; ".join(notes)


def table_row(result: Result, date: str, machine: str, notes: str) -> str:
    cells = [
        date,
        machine,
        jax.__version__,
        result.env,
        str(result.batch),
        str(result.steps),
        f"{result.steps_per_s:,.0f}",
        f"{result.compile_step_s:.2f}",
        f"{result.compile_rollout_s:.2f}",
        f"{result.bytes_per_state:,}",
        notes.replace("|", "\\|"),
    ]
    return "| " + " | ".join(cells) + " |"


def append_rows(
    path: str,
    rows: list[str],
    columns: tuple[str, ...] = TABLE_COLUMNS,
    title: str | None = None,
) -> None:
    """Append ``rows`` to the table whose header row has ``columns`` in ``path`` (the file is
    created if absent; the table, after a ``title`` line if given, at the end if absent). The
    other benchmarks (``vs_sb3.py``) record their own tables through this too."""
    header = "| " + " | ".join(columns) + " |"
    separator = "|" + "|".join("---" for _ in columns) + "|"
    text = open(path).read() if os.path.exists(path) else RESULTS_HEADER
    lines = text.splitlines()
    try:
        start = lines.index(header)
    except ValueError:
        if lines and lines[-1].strip():
            lines.append("")
        if title is not None:
            lines += [title, ""]
        lines += [header, separator]
        start = len(lines) - 2
    end = start + 1
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    lines[end:end] = rows
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def print_summary(results: list[Result], machine: str) -> None:
    print(f"\nmachine: {machine}; jax {jax.__version__}; backend {jax.default_backend()}")
    head = (
        f"{'env':<14}{'batch':>7}{'steps':>7}{'steps/s':>14}{'run s':>9}"
        f"{'compile step s':>16}{'compile rollout s':>19}{'bytes/state':>13}{'actions':>9}"
        f"{'episodes':>10}"
    )
    print(head)
    print("-" * len(head))
    for r in results:
        print(
            f"{r.env:<14}{r.batch:>7}{r.steps:>7}{r.steps_per_s:>14,.0f}{r.median_s:>9.3f}"
            f"{r.compile_step_s:>16.2f}{r.compile_rollout_s:>19.2f}{r.bytes_per_state:>13,}"
            f"{r.num_actions:>9}{r.episodes:>10}"
        )
    base = results[0]
    for r in results[1:]:
        ratio = base.steps_per_s / r.steps_per_s
        print(f"{base.env} vs {r.env}: {ratio:.2f}x the steps/s")


def main(argv: list[str] | None = None, default_results: str | None = None) -> None:
    """Run the harness with command-line ``argv``.

    ``default_results``: the markdown file rows are appended to when neither ``--results`` nor
    ``--no-record`` is given (``benchmarks/throughput.py`` passes its RESULTS.md); None: record
    only with ``--results``.
    """
    parser = argparse.ArgumentParser(prog="tcgjax bench", description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--env", default="duel", choices=[*tcgjax.available_envs(), *IN_DEVELOPMENT]
    )
    parser.add_argument("--batch", type=int, default=1024, help="games played in parallel")
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help=f"scan steps per timed run, for every env (default: {DEFAULT_STEPS} for the tcgjax "
        f"env, {PGX_DEFAULT_STEPS} for Pgx envs)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed warm runs (median is used)")
    parser.add_argument(
        "--compare-pgx", action="store_true", help=f"also time Pgx {', '.join(PGX_ENVS)}"
    )
    parser.add_argument("--no-record", action="store_true", help="append no rows to any file")
    parser.add_argument(
        "--results",
        default=default_results,
        help="markdown file the rows are appended to"
        + (f" (default: {default_results})" if default_results else " (default: none)"),
    )
    parser.add_argument("--note", default="", help="free text added to the notes column")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--skip-rare-work",
        choices=("on", "off"),
        default="on",
        help="tcgjax.core.tree.SKIP_RARE_WORK: real conditionals for rare work (on, the "
        "library's default) or plain selects (off)",
    )
    args = parser.parse_args(argv)
    # They become JAX shapes, loop bounds and a PRNG seed: int32 sizes, a uint32 seed.
    if args.batch <= 0 or (args.steps is not None and args.steps <= 0) or args.repeats <= 0:
        parser.error("--batch, --steps and --repeats must be positive")
    for flag, value in (
        ("--batch", args.batch),
        ("--steps", args.steps),
        ("--repeats", args.repeats),
    ):
        if value is not None and value >= 2**31:
            parser.error(f"{flag} must be < 2**31")
    if not 0 <= args.seed < 2**32:
        parser.error("--seed must be an integer from 0 to 2**32 - 1")

    jax.config.update("jax_enable_compilation_cache", False)
    tcgjax.core.tree.SKIP_RARE_WORK = args.skip_rare_work == "on"
    if args.skip_rare_work == "off":
        args.note = "; ".join(filter(None, [f"SKIP_RARE_WORK {args.skip_rare_work}", args.note]))
    label = f"{args.env} (unregistered)" if args.env in IN_DEVELOPMENT else args.env
    targets = [(label, args.steps or DEFAULT_STEPS, *tcgjax_env(args.env))]
    if args.compare_pgx:
        pgx_steps = args.steps or PGX_DEFAULT_STEPS
        targets += [
            (f"pgx/{name}", pgx_steps * PGX_STEP_FACTOR.get(name, 1), *pgx_env(name))
            for name in PGX_ENVS
        ]

    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    machine = machine_description()
    results = []
    for name, steps, init_fn, step_fn in targets:
        print(f"{name}: batch {args.batch}, {steps} steps ...", flush=True)
        result = benchmark(
            name,
            init_fn,
            step_fn,
            batch=args.batch,
            steps=steps,
            repeats=args.repeats,
            seed=args.seed,
        )
        print(
            f"  {result.steps_per_s:,.0f} steps/s; compile {result.compile_step_s:.2f} s (step), "
            f"{result.compile_rollout_s:.2f} s (rollout)",
            flush=True,
        )
        results.append(result)
    print_summary(results, machine)
    for r in results:
        if r.other_load > 0.1:
            print(
                f"warning: other processes used {r.other_load:.0%} of the CPU while {r.env} was "
                "timed; its figures are pessimistic"
            )

    if not args.no_record and args.results:
        rows = [table_row(r, date, machine, row_notes(r, args.note)) for r in results]
        append_rows(args.results, rows)
        print(f"\nappended {len(rows)} row(s) to {args.results}")
