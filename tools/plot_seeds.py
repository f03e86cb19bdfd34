"""Plot evaluation win rates of several runs (e.g. seeds) on one figure.

``python tools/plot_seeds.py OUT.png RUN_DIR [RUN_DIR ...]`` — reads each run's metrics.jsonl
(``tcgjax.train.run`` layout) and draws win rate vs env steps: the training episodes' win rate against
the opponent the run trains with (a moving mean over 8 updates), then the greedy policy's
evaluations against each evaluated opponent.
"""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(out: str, runs: list[str]) -> None:
    opponents = ("random", "heuristic")
    fig, axes = plt.subplots(1, 1 + len(opponents), figsize=(15, 3.5), sharex=True, sharey=True)
    window = 8
    for run in runs:
        with open(os.path.join(run, "metrics.jsonl")) as fh:
            rows = [json.loads(line) for line in fh]
        evals = [r for r in rows if r["kind"] == "eval"]
        label = os.path.basename(run.rstrip("/")).rsplit("-", 1)[-1]
        train = [(r["env_steps"], r["win_rate"]) for r in rows if r["kind"] == "train"]
        if len(train) >= window:
            steps = [s for s, _ in train][window - 1 :]
            rates = [sum(w for _, w in train[i - window + 1 : i + 1]) / window
                     for i in range(window - 1, len(train))]  # fmt: skip
            axes[0].plot(steps, rates, label=label)
        for ax, opp in zip(axes[1:], opponents, strict=True):
            points = [(r["env_steps"], r["vs"][opp]["win_rate"]) for r in evals if opp in r["vs"]]
            if points:
                ax.plot(*zip(*points, strict=True), marker="o", ms=3, label=label)
    axes[0].set_title(f"training episodes (mean of {window} updates)")
    axes[0].set_xlabel("env steps")
    axes[0].grid(alpha=0.3)
    for ax, opp in zip(axes[1:], opponents, strict=True):
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
