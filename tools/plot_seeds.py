"""Plot evaluation win rates of several runs (e.g. seeds) on one figure.

``python tools/plot_seeds.py OUT.png RUN_DIR [RUN_DIR ...]`` — reads each run's metrics.jsonl
(``train.run`` layout) and draws win rate vs env steps against each evaluated opponent.
"""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(out: str, runs: list[str]) -> None:
    opponents = ("random", "heuristic")
    fig, axes = plt.subplots(1, len(opponents), figsize=(10, 3.5), sharey=True)
    for run in runs:
        with open(os.path.join(run, "metrics.jsonl")) as fh:
            rows = [json.loads(line) for line in fh]
        evals = [r for r in rows if r["kind"] == "eval"]
        label = os.path.basename(run.rstrip("/")).rsplit("-", 1)[-1]
        for ax, opp in zip(axes, opponents, strict=True):
            points = [(r["env_steps"], r["vs"][opp]["win_rate"]) for r in evals if opp in r["vs"]]
            if points:
                ax.plot(*zip(*points, strict=True), marker="o", ms=3, label=label)
    for ax, opp in zip(axes, opponents, strict=True):
        ax.set_title(f"greedy policy vs {opp}")
        ax.set_xlabel("env steps")
        ax.grid(alpha=0.3)
        ax.axhline(0.95 if opp == "random" else 0.6, color="grey", ls="--", lw=1)
    axes[0].set_ylabel("win rate")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
