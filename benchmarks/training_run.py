"""One training run's row for ``benchmarks/RESULTS.md``: how fast it trained, when it first beat the
heuristic at 60% and 80%, and where its final evaluation ended (issue 37 points 4 and 5).

``python benchmarks/training_run.py RUN_DIR [--wall-s S] [--note TEXT] [--no-record]``

Reads the run directory of ``python -m tcgjax.train``: ``config.yaml``, ``metrics.jsonl`` (a run
cut short by ``timeout`` keeps every row it logged: the batch-size guide stops runs at a fixed wall
time that way) and its final evaluation row, if any. ``--wall-s``: the process's wall time
(compilation included), as the caller measured it; the log's own ``wall_s`` starts after the env
and network are built. Prints the row and appends it to the section "Training runs on an
accelerator" unless ``--no-record``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics

import jax

from tcgjax.bench import append_rows, machine_description
from tcgjax.train import logging_utils
from tcgjax.train.config import load_config

HERE = os.path.dirname(os.path.abspath(__file__))
TITLE = (
    "## Training runs on an accelerator (issue 37 points 4 and 5)\n\n"
    "Each row: one run of `python -m tcgjax.train`, read by `benchmarks/training_run.py`. *to 60% / "
    "80%*: the training win rate against the heuristic, pooled over at least 256 games "
    "(`milestones.json`), first at that level: seconds of the logger's clock (the update's "
    "compilation included) and env steps. *final*: the evaluation at the end, greedy, win rate."
)
COLUMNS = (
    "date (UTC)",
    "machine",
    "jax",
    "game",
    "config",
    "num_envs",
    "wall s",
    "env steps",
    "train steps/s (median)",
    "to 60%",
    "to 80%",
    "final vs random / heuristic / baseline",
    "notes",
)


def summarize(run_dir: str) -> dict:
    """The run's numbers: ``config`` (PPOConfig), ``env_steps``, ``sps`` (median of the logged
    updates, None if none), ``milestones`` (:func:`logging_utils.heuristic_milestones`) and
    ``final`` (``{opponent: win rate}`` of the last evaluation row, ``{}`` if it never ran)."""
    config = load_config(os.path.join(run_dir, "config.yaml"))
    rows = logging_utils.read_jsonl(os.path.join(run_dir, logging_utils.METRICS_FILE))
    train = [r for r in rows if r.get("kind") == "train"]
    evals = [r for r in rows if r.get("kind") == "eval"]
    speeds = [float(r["sps"]) for r in train if r.get("sps")]
    return {
        "config": config,
        "env_steps": int(train[-1]["env_steps"]) if train else 0,
        "sps": statistics.median(speeds) if speeds else None,
        "milestones": logging_utils.heuristic_milestones(rows, config.opponent),
        "final": {name: r["win_rate"] for name, r in evals[-1]["vs"].items()} if evals else {},
    }


def _reached(hit: dict | None) -> str:
    return "not reached" if hit is None else f"{hit['wall_s']:.0f} s, {hit['env_steps']:,}"


def format_row(run_dir: str, summary: dict, wall_s: float | None, note: str) -> str:
    config, milestones = summary["config"], summary["milestones"] or {}
    final = summary["final"]
    finals = " / ".join(
        f"{final[name]:.1%}" if name in final else "-"
        for name in ("random", "heuristic", "baseline")
    )
    sps = f"{summary['sps']:,.0f}" if summary["sps"] is not None else "-"
    cells = [
        datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%MZ"),
        machine_description(),
        jax.__version__,
        config.env_id,
        os.path.basename(os.path.normpath(run_dir)),
        f"{config.num_envs:,}",
        f"{wall_s:.0f}" if wall_s is not None else "-",
        f"{summary['env_steps']:,}",
        sps,
        _reached(milestones.get("0.6")) if milestones else "-",
        _reached(milestones.get("0.8")) if milestones else "-",
        finals if final else "no final evaluation (stopped)",
        note,
    ]
    return "| " + " | ".join(cells) + " |"


def record(path: str, row: str) -> None:
    """``row`` after the last row of this section's table in ``path`` (the section, with its
    explanation and header, at the end when it is not there yet): ``tcgjax.bench.append_rows``."""
    append_rows(path, [row], columns=COLUMNS, title=TITLE)


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--wall-s", type=float, default=None)
    parser.add_argument("--note", default="")
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args(argv)
    row = format_row(args.run_dir, summarize(args.run_dir), args.wall_s, args.note)
    print(row)
    if not args.no_record:
        record(os.path.join(HERE, "RESULTS.md"), row)
    return row


if __name__ == "__main__":
    main()
