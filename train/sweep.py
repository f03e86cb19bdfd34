"""Sweeps: one command trains a grid of configs over several seeds and reports honest statistics.

Usage::

    python -m tcgjax.train.sweep designs_duel          # a shipped sweep: run (resumes), summarize
    python -m tcgjax.train.sweep my_sweep.yaml --backend ray --address auto
    python -m tcgjax.train.sweep designs_duel --summary-only

A sweep file (YAML; every key checked, an unknown one is an error naming the file)::

    name: designs_duel            # the folder under out_dir
    base: duel                    # a config of configs/ppo (or a path); default: PPOConfig()
    overrides: [total_timesteps=500000]   # key=value for every trial (tcgjax.train.config syntax)
    grid:                         # the trials: every combination, in this order
      action_design: [flat, unmasked, factored, pointer]
    seeds: 3                      # seeds per trial: one program, the seeds vmapped (num_seeds)
    eval_every: 5                 # updates between evaluations (the curves' points)
    eval_games: 500               # games per opponent per seed and evaluation
    bootstrap_reps: 2000          # rliable's bootstrap replicates for the intervals (bands: 1/4)
    out_dir: runs/sweeps          # default

**Trials.** A trial is one point of the grid with all its seeds: its config is ``base`` +
``overrides`` + the point (+ ``num_seeds``), trained by ``tcgjax.train.ppo`` with the seeds ``seed ..
seed + seeds - 1`` vmapped in one compiled update. Each evaluation plays every seed's greedy policy
against random and the game's heuristic (``tcgjax.train.evaluate.evaluation_table``); the last also plays
the masked designs with their mask removed (``mask_removed_table``). A trial writes
``<out>/<name>/<trial>/trial.jsonl`` (a "train" row per update with per-seed arrays, an "eval"
row per evaluation) and, when it is finished, ``done.json``: a finished trial is never run again.
Trials are independent processes: ``--backend local`` runs them one after another (``--jobs``
side by side), ``--backend ray`` submits each as a Ray task to a running cluster
(``--address``; without one, a local Ray instance), for a user who outgrows one machine (every node
needs this repository and its virtualenv).

**Statistics** (``summary.json``, ``summary.md``), with rliable (Agarwal et al., 2021) over the
seeds: per trial the interquartile mean of the final win rates against random and against the
heuristic with 95% stratified-bootstrap intervals; the probability that each trial improves on
each other; performance profiles; steps to 80% against random (per seed, the first evaluation at or
above it); training steps/s (env steps per second of update time, compilation excluded: a design's
speed is part of its cost) and the invalid-choice rates. ``sweep.png``: win rate against random and
against the heuristic over env steps and over training wall time (IQM with bootstrap bands), and
the performance profiles. The bootstrap's random state is fixed (``BOOTSTRAP_SEED``), so a summary
is a function of the trials' files.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import json
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import yaml

from tcgjax.core.errors import ConfigError
from tcgjax.core.files import DuplicateKeyError, yaml_loads
from tcgjax.train.config import CONFIG_DIR, PPOConfig, load_config, short_repr

__all__ = [
    "Sweep",
    "Trial",
    "load_sweep",
    "trials",
    "trial_config",
    "run_trial",
    "run_sweep",
    "summarize",
    "main",
]

# The shipped sweeps (package data, like the configs): a sweep given by name is read from here.
SWEEP_DIR = os.path.join(os.path.dirname(CONFIG_DIR), "sweeps")
SWEEP_KEYS = (
    "name",
    "base",
    "overrides",
    "grid",
    "seeds",
    "eval_every",
    "eval_games",
    "bootstrap_reps",
    "out_dir",
)
BOOTSTRAP_SEED = 0
BOOTSTRAP_REPS = 2000
TARGET_VS_RANDOM = 0.8
TRIAL_FILE, DONE_FILE = "trial.jsonl", "done.json"


@dataclasses.dataclass(frozen=True)
class Sweep:
    """A parsed sweep file (see the module docstring)."""

    name: str
    base: str | None
    overrides: tuple[str, ...]
    grid: tuple[tuple[str, tuple[Any, ...]], ...]
    seeds: int
    eval_every: int
    eval_games: int
    out_dir: str
    source: str
    bootstrap_reps: int = BOOTSTRAP_REPS

    @property
    def folder(self) -> str:
        return os.path.join(self.out_dir, self.name)


@dataclasses.dataclass(frozen=True)
class Trial:
    """One grid point: ``name`` (``key=value,key=value``, the trial's folder) and its overrides."""

    index: int
    name: str
    assignment: tuple[tuple[str, Any], ...]

    def overrides(self) -> list[str]:
        return [f"{k}={json.dumps(v)}" for k, v in self.assignment]


def _positive(source: str, key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**31:
        raise ConfigError(f"{source}: sweep key {key!r} = {short_repr(value)}: a positive int")
    return value


def load_sweep(path: str) -> Sweep:
    """Read and check a sweep file (a path, or the name of a shipped sweep: ``designs_duel`` is
    ``configs/sweeps/designs_duel.yaml``, package data of tcgjax); every trial's config is built
    once here, so a bad grid value is refused before anything runs.

    Raises:
      ConfigError: unreadable file, unknown or missing key, wrong type, or a trial whose config
        is refused (named by its grid point).
    """
    if not os.path.splitext(path)[1] and os.sep not in path:
        path = os.path.join(SWEEP_DIR, path + ".yaml")
    source = os.path.normpath(path)
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml_loads(fh.read())
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read sweep: {exc.strerror}") from exc
    except (yaml.YAMLError, DuplicateKeyError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{source}: not a valid sweep file: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{source}: not a sweep: nested too deeply") from None
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: top level must be a mapping of sweep keys")
    unknown = sorted(str(k) for k in data if k not in SWEEP_KEYS)
    if unknown:
        raise ConfigError(f"{source}: unknown sweep key {unknown[0]!r}; known: {list(SWEEP_KEYS)}")
    name = data.get("name")
    if not isinstance(name, str) or not name or os.sep in name or name.startswith("."):
        raise ConfigError(f"{source}: sweep key 'name' = {short_repr(name)}: a folder name")
    base = data.get("base")
    if base is not None and not isinstance(base, str):
        raise ConfigError(f"{source}: sweep key 'base' = {short_repr(base)}: a config name or path")
    overrides = data.get("overrides", []) or []
    if not isinstance(overrides, list) or not all(isinstance(o, str) for o in overrides):
        raise ConfigError(f"{source}: sweep key 'overrides': a list of key=value strings")
    grid = data.get("grid")
    if not isinstance(grid, Mapping) or not grid:
        raise ConfigError(f"{source}: sweep key 'grid': a mapping of config keys to value lists")
    for key, values in grid.items():
        if not isinstance(key, str) or not isinstance(values, list) or not values:
            raise ConfigError(
                f"{source}: grid key {short_repr(key)}: a config key with a non-empty list of values"
            )
        if key in ("seed", "num_seeds"):
            raise ConfigError(f"{source}: grid key {key!r}: seeds are the sweep's 'seeds' key")
    out_dir = data.get("out_dir", os.path.join("runs", "sweeps"))
    if not isinstance(out_dir, str) or not out_dir:
        raise ConfigError(f"{source}: sweep key 'out_dir' = {short_repr(out_dir)}: a folder")
    if base is not None and not os.path.isabs(base) and os.sep in base:
        base = os.path.join(os.path.dirname(os.path.abspath(path)), base)
    sweep = Sweep(
        name=name,
        base=base,
        overrides=tuple(overrides),
        grid=tuple((k, tuple(v)) for k, v in grid.items()),
        seeds=_positive(source, "seeds", data.get("seeds", 3)),
        eval_every=_positive(source, "eval_every", data.get("eval_every", 5)),
        eval_games=_positive(source, "eval_games", data.get("eval_games", 500)),
        out_dir=out_dir,
        source=source,
        bootstrap_reps=_positive(
            source, "bootstrap_reps", data.get("bootstrap_reps", BOOTSTRAP_REPS)
        ),
    )
    for trial in trials(sweep):
        try:
            trial_config(sweep, trial)
        except ConfigError as exc:
            raise ConfigError(f"{source}: trial {trial.name!r}: {exc}") from None
    return sweep


def trials(sweep: Sweep) -> list[Trial]:
    """Every combination of the grid's values, in file order (the last key varies fastest)."""
    keys = [k for k, _ in sweep.grid]
    out = []
    for index, values in enumerate(itertools.product(*(v for _, v in sweep.grid))):
        assignment = tuple(zip(keys, values, strict=True))
        name = ",".join(f"{k}={v}" for k, v in assignment)
        out.append(Trial(index, name, assignment))
    return out


def trial_config(sweep: Sweep, trial: Trial) -> PPOConfig:
    """The trial's config: ``base`` + ``overrides`` + its grid point, ``num_seeds = seeds``."""
    return load_config(
        sweep.base, [*sweep.overrides, *trial.overrides(), f"num_seeds={sweep.seeds}"]
    )


# --------------------------------------------------------------------------------------------------
# One trial


def _write_row(fh, row: Mapping[str, Any]) -> None:
    fh.write(json.dumps(row, allow_nan=False) + "\n")
    fh.flush()


def _seed_table(table: Mapping[str, Mapping[str, Any]], key: str = "win_rate") -> dict[str, float]:
    return {name: float(row[key]) for name, row in table.items()}


def run_trial(config: PPOConfig, folder: str, *, eval_every: int, eval_games: int) -> dict:
    """Train ``config`` (its ``num_seeds`` seeds vmapped) and write ``folder/trial.jsonl`` and,
    at the end, ``folder/done.json`` (returned). An unfinished folder is started over."""
    import jax
    import jax.numpy as jnp

    from tcgjax.train import evaluate
    from tcgjax.train.ppo import init_seeds, make_ppo
    from tcgjax.train.run import check_finite, make_chunk

    os.makedirs(folder, exist_ok=True)
    for stale in (TRIAL_FILE, DONE_FILE):
        if os.path.exists(os.path.join(folder, stale)):
            os.remove(os.path.join(folder, stale))
    ppo = make_ppo(config)
    seeds = config.num_seeds
    keys = jax.vmap(jax.random.key)(config.seed + jnp.arange(seeds))
    runner = init_seeds(ppo, keys)
    started = time.perf_counter()
    chunk = make_chunk(jax.vmap(ppo.update)).lower(runner, jnp.int32(1)).compile()
    compile_s = time.perf_counter() - started
    steps_per_update = config.num_envs * config.num_steps  # per seed
    total = config.num_updates
    train_s = 0.0
    eval_key = jax.random.key(config.seed + 0x5EED)
    masked_design = config.action_design in ("flat", "factored")

    def evaluation(update: int, final: bool) -> dict:
        rows: dict[str, list] = {}
        for i in range(seeds):
            params = jax.tree.map(lambda x, i=i: x[i], runner.params)
            key = jax.random.fold_in(jax.random.fold_in(eval_key, update), i)
            table = evaluate.evaluation_table(
                ppo.env, ppo.network, params, key, eval_games, max_invalid=config.max_invalid
            )
            for name, value in _seed_table(table).items():
                rows.setdefault(f"vs_{name}", []).append(value)
            if ppo.config.action_design == "unmasked":
                for name, value in _seed_table(table, "invalid_choice_rate").items():
                    rows.setdefault(f"invalid_rate_vs_{name}", []).append(value)
            if final and masked_design:
                removed = evaluate.mask_removed_table(
                    ppo.env,
                    ppo.network,
                    params,
                    jax.random.fold_in(key, 1),
                    eval_games,
                    max_invalid=config.max_invalid,
                )
                for name, value in _seed_table(removed).items():
                    rows.setdefault(f"mask_removed_vs_{name}", []).append(value)
                for name, value in _seed_table(removed, "invalid_choice_rate").items():
                    rows.setdefault(f"mask_removed_invalid_rate_vs_{name}", []).append(value)
        return rows

    with open(os.path.join(folder, TRIAL_FILE), "w", encoding="utf-8") as fh:
        _write_row(fh, {"kind": "config", "config": _jsonable(config.to_dict())})
        _write_row(fh, {"kind": "eval", "update": 0, "env_steps": 0, "train_s": 0.0,
                        **evaluation(0, final=False)})  # fmt: skip
        update = 0
        while update < total:
            n = min(eval_every - update % eval_every, total - update)
            t = time.perf_counter()
            runner, metrics = chunk(runner, jnp.int32(n))
            jax.block_until_ready(runner)
            dt = time.perf_counter() - t
            train_s += dt
            host = jax.device_get(metrics)
            check_finite(host, n, update)
            for i in range(n):
                episodes = np.asarray(host["episodes"][i], float)
                wins = np.asarray(host["learner_wins"][i], float)
                row = {
                    "kind": "train",
                    "update": update + i + 1,
                    "env_steps": (update + i + 1) * steps_per_update,
                    "sps": n * steps_per_update * seeds / dt,
                    "win_rate": np.where(episodes > 0, wins / np.maximum(episodes, 1), 0.0),
                }
                for name in ("invalid_attempt_rate", "forfeits", "pointer_overflow", "entropy"):
                    row[name] = np.asarray(host[name][i], float)
                _write_row(fh, _jsonable(row))
            update += n
            final = update == total
            _write_row(
                fh,
                {
                    "kind": "eval",
                    "update": update,
                    "env_steps": update * steps_per_update,
                    "train_s": train_s,
                    **evaluation(update, final),
                },
            )
    done = {
        "updates": total,
        "env_steps": total * steps_per_update,
        "seeds": seeds,
        "compile_s": compile_s,
        "train_s": train_s,
        "train_sps": total * steps_per_update * seeds / max(train_s, 1e-9),
    }
    with open(os.path.join(folder, DONE_FILE), "w", encoding="utf-8") as fh:
        json.dump(done, fh)
    return done


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _trial_folder(sweep: Sweep, trial: Trial) -> str:
    return os.path.join(sweep.folder, trial.name)


def _is_done(sweep: Sweep, trial: Trial) -> bool:
    return os.path.exists(os.path.join(_trial_folder(sweep, trial), DONE_FILE))


def _run_trial_index(sweep_path: str, index: int, out_dir: str | None) -> dict:
    """Run trial ``index`` of the sweep file in this process (what each backend's task runs)."""
    sweep = _with_out_dir(load_sweep(sweep_path), out_dir)
    trial = trials(sweep)[index]
    config = trial_config(sweep, trial)
    return run_trial(
        config,
        _trial_folder(sweep, trial),
        eval_every=sweep.eval_every,
        eval_games=sweep.eval_games,
    )


def _with_out_dir(sweep: Sweep, out_dir: str | None) -> Sweep:
    return sweep if out_dir is None else dataclasses.replace(sweep, out_dir=out_dir)


# --------------------------------------------------------------------------------------------------
# Backends


def _trial_command(sweep_path: str, index: int, out_dir: str | None) -> list[str]:
    command = [sys.executable, "-m", "tcgjax.train.sweep", sweep_path, "--trial", str(index)]
    if out_dir is not None:
        command += ["--out", out_dir]
    return command


def _run_local(sweep: Sweep, pending: Sequence[Trial], out_dir: str | None, jobs: int) -> None:
    """Each trial in a process of its own, ``jobs`` at a time."""
    running: list[tuple[Trial, subprocess.Popen]] = []
    queue = list(pending)
    failed = []
    while queue or running:
        while queue and len(running) < jobs:
            trial = queue.pop(0)
            print(f"[sweep] {sweep.name}: trial {trial.name} started", flush=True)
            running.append(
                (trial, subprocess.Popen(_trial_command(sweep.source, trial.index, out_dir)))
            )
        time.sleep(0.2)
        for item in list(running):
            trial, proc = item
            if proc.poll() is not None:
                running.remove(item)
                if proc.returncode != 0:
                    failed.append(trial.name)
                print(
                    f"[sweep] {sweep.name}: trial {trial.name} ended ({proc.returncode})",
                    flush=True,
                )
    if failed:
        raise RuntimeError(f"sweep {sweep.name}: trials failed: {failed}")


def _ray_task(sweep_path: str, index: int, out_dir: str | None, cwd: str) -> dict:
    """A Ray task: the trial as a process of its own in the worker's node (the same command as
    the local backend; JAX runs in that process, not in the long-lived Ray worker)."""
    done = subprocess.run(
        _trial_command(sweep_path, index, out_dir), cwd=cwd, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"trial {index} failed:\n{done.stderr[-4000:]}")
    return {"index": index}


def _run_ray(
    sweep: Sweep, pending: Sequence[Trial], out_dir: str | None, address: str | None
) -> None:
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1)(_ray_task)
        cwd = os.getcwd()
        refs = [task.remote(os.path.abspath(sweep.source), t.index, out_dir, cwd) for t in pending]
        ray.get(refs)
    finally:
        if started_here:
            ray.shutdown()


def run_sweep(
    sweep: Sweep,
    *,
    backend: str = "local",
    jobs: int = 1,
    address: str | None = None,
    out_dir: str | None = None,
) -> dict:
    """Run the sweep's unfinished trials on ``backend`` (``local`` or ``ray``), then
    :func:`summarize`. Returns the summary."""
    # Every trial process writes where this sweep reads: its folder, as an absolute path.
    out_dir = os.path.abspath(out_dir or sweep.out_dir)
    sweep = _with_out_dir(sweep, out_dir)
    os.makedirs(sweep.folder, exist_ok=True)
    pending = [t for t in trials(sweep) if not _is_done(sweep, t)]
    skipped = len(trials(sweep)) - len(pending)
    if skipped:
        print(f"[sweep] {sweep.name}: {skipped} finished trial(s) kept", flush=True)
    if pending:
        if backend == "local":
            _run_local(sweep, pending, out_dir, jobs)
        elif backend == "ray":
            _run_ray(sweep, pending, out_dir, address)
        else:
            raise ConfigError(f"--backend {backend!r}: one of ('local', 'ray')")
    return summarize(sweep)


# --------------------------------------------------------------------------------------------------
# Statistics


def read_trial(folder: str) -> dict:
    """A finished trial's rows: ``{"config", "evals": [eval rows], "train": [train rows],
    "done"}``."""
    rows = []
    with open(os.path.join(folder, TRIAL_FILE), encoding="utf-8") as fh:
        for line in fh:
            rows.append(json.loads(line))
    with open(os.path.join(folder, DONE_FILE), encoding="utf-8") as fh:
        done = json.load(fh)
    return {
        "config": next(r["config"] for r in rows if r["kind"] == "config"),
        "evals": [r for r in rows if r["kind"] == "eval"],
        "train": [r for r in rows if r["kind"] == "train"],
        "done": done,
    }


@contextlib.contextmanager
def _quiet_bootstrap():
    """rliable hands arch a ``RandomState`` (how its results stay reproducible), which arch 7
    deprecates with a FutureWarning on every call: silenced here, the behaviour is the same."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=FutureWarning, module="arch")
        yield


def _interval(scores: Mapping[str, np.ndarray], reps: int):
    """rliable's IQM with 95% stratified-bootstrap intervals of ``{trial: float[seeds]}``."""
    from rliable import library as rly
    from rliable import metrics

    points, intervals = rly.get_interval_estimates(
        {k: np.asarray(v, float)[:, None] for k, v in scores.items()},
        lambda x: np.array([metrics.aggregate_iqm(x)]),
        reps=reps,
        random_state=np.random.RandomState(BOOTSTRAP_SEED),
    )
    return {k: float(points[k][0]) for k in scores}, {
        k: [float(intervals[k][0, 0]), float(intervals[k][1, 0])] for k in scores
    }


def _improvement(scores: Mapping[str, np.ndarray], reps: int):
    """P(trial x improves on trial y) for each ordered pair, with its bootstrap interval."""
    from rliable import library as rly
    from rliable import metrics

    names = list(scores)
    pairs = {
        f"{x} > {y}": (np.asarray(scores[x], float)[:, None], np.asarray(scores[y], float)[:, None])
        for x in names
        for y in names
        if x != y
    }
    if not pairs:
        return {}
    points, intervals = rly.get_interval_estimates(
        pairs,
        metrics.probability_of_improvement,
        reps=reps,
        random_state=np.random.RandomState(BOOTSTRAP_SEED),
    )
    return {
        k: {
            "p": float(np.ravel(points[k])[0]),
            "ci": [float(np.ravel(intervals[k])[0]), float(np.ravel(intervals[k])[1])],
        }
        for k in pairs
    }


def _steps_to(evals: Sequence[Mapping[str, Any]], key: str, target: float, seeds: int) -> list:
    """Per seed, the env steps of the first evaluation at or above ``target`` (None: never)."""
    out: list = []
    for i in range(seeds):
        hit = next((r["env_steps"] for r in evals if key in r and r[key][i] >= target), None)
        out.append(hit)
    return out


def summarize(sweep: Sweep, *, plot: bool = True) -> dict:
    """The sweep's statistics from its finished trials' files (module docstring); writes
    ``summary.json``, ``summary.md`` and (``plot``) ``sweep.png`` in the sweep's folder."""
    with _quiet_bootstrap():
        return _summarize(sweep, plot)


def _summarize(sweep: Sweep, plot: bool) -> dict:
    runs = {}
    for trial in trials(sweep):
        if _is_done(sweep, trial):
            runs[trial.name] = read_trial(_trial_folder(sweep, trial))
    summary: dict[str, Any] = {
        "sweep": sweep.name,
        "folder": sweep.folder,
        "trials": {},
        "source": sweep.source,
    }
    if not runs:
        return summary
    final = {name: run["evals"][-1] for name, run in runs.items()}
    opponents = [k for k in ("vs_random", "vs_heuristic") if all(k in f for f in final.values())]
    stats: dict[str, Any] = {}
    for key in opponents:
        scores = {name: np.asarray(f[key], float) for name, f in final.items()}
        iqm, ci = _interval(scores, sweep.bootstrap_reps)
        stats[key] = {
            "iqm": iqm,
            "ci": ci,
            "improvement": _improvement(scores, sweep.bootstrap_reps),
        }
    for name, run in runs.items():
        f = final[name]
        entry = {
            "config": {k: v for k, v in trial_assignment(sweep, name)},
            "seeds": run["done"]["seeds"],
            "env_steps": run["done"]["env_steps"],
            "train_sps": run["done"]["train_sps"],
            "compile_s": run["done"]["compile_s"],
            "final": {k: v for k, v in f.items() if k not in ("kind", "update", "train_s")},
            "steps_to_80_vs_random": _steps_to(
                run["evals"], "vs_random", TARGET_VS_RANDOM, run["done"]["seeds"]
            ),
            "invalid_attempt_rate_last": float(np.mean(run["train"][-1]["invalid_attempt_rate"]))
            if run["train"]
            else 0.0,
            "pointer_overflow_max": max(
                (float(np.max(r["pointer_overflow"])) for r in run["train"]), default=0.0
            ),
        }
        for key in opponents:
            entry[f"{key}_iqm"] = stats[key]["iqm"][name]
            entry[f"{key}_ci"] = stats[key]["ci"][name]
        summary["trials"][name] = entry
    summary["improvement"] = {key: stats[key]["improvement"] for key in opponents}
    os.makedirs(sweep.folder, exist_ok=True)
    with open(os.path.join(sweep.folder, "summary.json"), "w", encoding="utf-8") as fh:
        json.dump(summary, fh, indent=1)
    with open(os.path.join(sweep.folder, "summary.md"), "w", encoding="utf-8") as fh:
        fh.write(format_summary(summary) + "\n")
    if plot:
        plot_sweep(sweep, runs, os.path.join(sweep.folder, "sweep.png"))
    return summary


def trial_assignment(sweep: Sweep, name: str) -> tuple[tuple[str, Any], ...]:
    return next(t.assignment for t in trials(sweep) if t.name == name)


def format_summary(summary: Mapping[str, Any]) -> str:
    """A Markdown table of a summary: one row per trial."""
    has_heuristic = any("vs_heuristic_iqm" in t for t in summary["trials"].values())
    head = "| trial | seeds | vs random IQM [95% CI] |"
    rule = "|---|---:|---|"
    if has_heuristic:
        head += " vs heuristic IQM [95% CI] |"
        rule += "---|"
    head += " steps to 80% vs random (per seed) | train steps/s | invalid rate | mask removed vs random |"
    rule += "---|---:|---:|---|"
    lines = [head, rule]
    for name, t in summary["trials"].items():
        cells = [f"`{name}`", str(t["seeds"]), _ci(t["vs_random_iqm"], t["vs_random_ci"])]
        if has_heuristic:
            cells.append(_ci(t.get("vs_heuristic_iqm"), t.get("vs_heuristic_ci")))
        steps = ", ".join("never" if s is None else f"{s:,}" for s in t["steps_to_80_vs_random"])
        removed = t["final"].get("mask_removed_vs_random")
        removed_rate = t["final"].get("mask_removed_invalid_rate_vs_random")
        cells += [
            steps,
            f"{t['train_sps']:,.0f}",
            f"{t['invalid_attempt_rate_last']:.3f}",
            "n/a"
            if removed is None
            else f"{np.mean(removed):.0%} (invalid {np.mean(removed_rate):.1%})",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _ci(point, ci) -> str:
    if point is None:
        return "n/a"
    return f"{point:.0%} [{ci[0]:.0%}, {ci[1]:.0%}]"


def plot_sweep(sweep: Sweep, runs: Mapping[str, Mapping[str, Any]], path: str) -> None:
    """Win rate vs random and vs the heuristic over env steps and training time (IQM over seeds,
    bootstrap band) and the final performance profiles, one PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from rliable import library as rly
    from rliable import plot_utils

    opponents = [
        k for k in ("vs_random", "vs_heuristic") if all(k in r["evals"][-1] for r in runs.values())
    ]
    from rliable import metrics

    fig, axes = plt.subplots(len(opponents), 3, figsize=(15, 4 * len(opponents)), squeeze=False)
    for row, key in enumerate(opponents):
        bands = {}  # per trial: IQM and its bootstrap band at each evaluation (both x axes)
        for name, run in runs.items():
            scores = {
                str(i): np.asarray(r[key], float)[:, None] for i, r in enumerate(run["evals"])
            }
            points, intervals = rly.get_interval_estimates(
                scores,
                lambda s: np.array([metrics.aggregate_iqm(s)]),
                reps=max(sweep.bootstrap_reps // 4, 1),
                random_state=np.random.RandomState(BOOTSTRAP_SEED),
            )
            bands[name] = [
                np.asarray([v[str(i)][j] for i in range(len(run["evals"]))])
                for v, j in ((points, 0), (intervals, (0, 0)), (intervals, (1, 0)))
            ]
        for col, axis_key in enumerate(("env_steps", "train_s")):
            ax = axes[row, col]
            for name, run in runs.items():
                x = np.asarray([r[axis_key] for r in run["evals"]], float)
                y, lo, hi = bands[name]
                ax.plot(x, y, label=name)
                ax.fill_between(x, lo, hi, alpha=0.2)
            ax.set_xlabel("env steps per seed" if axis_key == "env_steps" else "training time, s")
            ax.set_ylabel(f"win rate {key.replace('_', ' ')} (IQM)")
            ax.set_ylim(-0.02, 1.02)
            ax.grid(alpha=0.3)
        final = {
            name: np.asarray(run["evals"][-1][key], float)[:, None] for name, run in runs.items()
        }
        taus = np.linspace(0.0, 1.0, 51)
        profiles, cis = rly.create_performance_profile(
            final, taus, reps=max(sweep.bootstrap_reps // 4, 1)
        )
        plot_utils.plot_performance_profiles(
            profiles,
            taus,
            performance_profile_cis=cis,
            ax=axes[row, 2],
            xlabel=f"final win rate {key.replace('_', ' ')} (tau)",
            colors={name: f"C{i}" for i, name in enumerate(runs)},  # the curves' colours
            labelsize="medium",
            ticklabelsize="medium",
        )
        axes[row, 0].legend(fontsize=8)
    fig.suptitle(f"sweep {sweep.name}: IQM over {sweep.seeds} seeds, 95% bootstrap bands")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# --------------------------------------------------------------------------------------------------
# Command line


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tcgjax.train.sweep", description=__doc__.splitlines()[0]
    )
    parser.add_argument("sweep", help="a sweep file (configs/sweeps/NAME.yaml)")
    parser.add_argument("--backend", choices=("local", "ray"), default="local")
    parser.add_argument("--jobs", type=int, default=1, help="local trials side by side")
    parser.add_argument("--address", default=None, help="Ray cluster address (default: local)")
    parser.add_argument("--out", default=None, help="folder for the sweep (default: out_dir)")
    parser.add_argument("--summary-only", action="store_true", help="summarize finished trials")
    parser.add_argument("--trial", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be >= 1")
    try:
        if args.trial is not None:
            # A trial run again (elsewhere, or by another backend) compiles nothing: import tcgjax
            # switched JAX's persistent compilation cache on (tcgjax.compilation_cache).
            _run_trial_index(args.sweep, args.trial, args.out)
            return 0
        sweep = _with_out_dir(load_sweep(args.sweep), args.out)
        if args.summary_only:
            summary = summarize(sweep)
        else:
            summary = run_sweep(sweep, backend=args.backend, jobs=args.jobs, address=args.address)
    except ConfigError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 2
    print(format_summary(summary) if summary.get("trials") else "no finished trial yet")
    print(f"sweep folder: {sweep.folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
