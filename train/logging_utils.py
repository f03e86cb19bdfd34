"""Training logs: a progress bar, JSONL rows, TensorBoard events and learning-curve plots.

One :class:`RunLogger` per run writes, under the run directory:

* ``metrics.jsonl``: one JSON object per line. ``{"kind": "train", "update": u, "env_steps": ...,
  ...}`` after every update (the ``PPO.update`` metrics plus ``win_rate``, ``sps``, ``wall_s``), and
  ``{"kind": "eval", ...}`` after every evaluation (numbers, lists for distributions, nested mappings
  for tables). Rows are appended and flushed as they come, so an interrupted run keeps its log.
* ``tb/events.out.tfevents.*``: the same numbers for TensorBoard (``tensorboardX``), tagged
  ``train/<name>`` and ``eval/<name>`` (nested keys joined with ``/``), with ``env_steps`` as the
  step. 1-D lists become histograms (``add_histogram_raw``: bucket ``i`` holds value ``i``), 2-D
  lists become grey-scale images.
* ``curves.png``: :func:`plot_curves` draws the learning curves from ``metrics.jsonl`` (matplotlib,
  Agg backend, no display needed).

The progress bar (``tqdm``, on stderr) counts env steps and shows steps/s (``sps``), the learner's
training win rate over the last chunk (``win``: against its opponent, or itself in self-play) and
the latest evaluation's win rates (``vs_random``, ``vs_heuristic``).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from tcgjax.core.errors import ConfigError

__all__ = [
    "RunLogger",
    "to_jsonable",
    "flatten",
    "read_jsonl",
    "truncate_jsonl",
    "plot_curves",
    "METRICS_FILE",
    "TB_SUBDIR",
    "CURVES_FILE",
]

METRICS_FILE = "metrics.jsonl"
TB_SUBDIR = "tb"
CURVES_FILE = "curves.png"
MILESTONES_FILE = "milestones.json"

# Train-row keys drawn by plot_curves, in this order, when present.
TRAIN_CURVES = (
    "win_rate",
    "entropy",
    "actor_loss",
    "value_loss",
    "approx_kl",
    "clip_fraction",
    "mean_value",
    "sps",
)


def to_jsonable(value: Any) -> Any:
    """``value`` with arrays turned into Python numbers / nested lists (NaN and inf become None)."""
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        arr = np.asarray(value)
        if arr.ndim:
            return to_jsonable(arr.tolist())
        value = arr.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)


def flatten(row: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested mappings flattened to ``{"a/b": value}`` (lists and scalars kept as they are)."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, name + "/"))
        else:
            out[name] = value
    return out


def read_jsonl(path: str) -> list[dict[str, Any]]:
    """Every row of a JSONL file (none if it does not exist).

    Blank lines and a torn last line (no newline at its end: a crash cut the write short) are
    skipped. Any other line that is not a JSON object with an integer ``update`` raises
    :class:`tcgjax.ConfigError` naming the file and the line: a damaged log is never dropped in
    silence (a resume rewrites the file from these rows).
    """
    rows: list[dict[str, Any]] = []
    if not os.path.exists(path):
        return rows
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.readlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"{path}: cannot read the log: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        torn = number == len(lines) and not raw.endswith("\n")
        try:
            row = json.loads(line)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, ints past 4300 digits
            if torn:
                continue
            raise ConfigError(f"{path}, line {number}: not a JSON row: {exc}") from None
        update = row.get("update") if isinstance(row, dict) else None
        if not isinstance(update, int) or isinstance(update, bool):
            raise ConfigError(
                f"{path}, line {number}: not a log row (a JSON object with an integer 'update')"
            )
        rows.append(row)
    return rows


def truncate_jsonl(path: str, last_update: int) -> int:
    """Drop the rows of ``path`` logged after update ``last_update`` (for a resume); returns kept."""
    rows = [r for r in read_jsonl(path) if r["update"] <= last_update]
    if os.path.exists(path):
        with open(path, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row) + "\n")
    return len(rows)


class RunLogger:
    """JSONL + TensorBoard + progress bar for one run (see the module docstring).

    Args:
      run_dir: the run directory (must exist).
      total_env_steps: the bar's total.
      initial_env_steps: where the bar starts (a resumed run).
      progress: show the tqdm bar.
    """

    def __init__(
        self,
        run_dir: str,
        *,
        total_env_steps: int,
        initial_env_steps: int = 0,
        progress: bool = True,
    ):
        from tensorboardX import SummaryWriter
        from tqdm.auto import tqdm

        self.run_dir = run_dir
        self.metrics_path = os.path.join(run_dir, METRICS_FILE)
        self._jsonl = open(self.metrics_path, "a", encoding="utf-8")  # noqa: SIM115
        self.writer = SummaryWriter(logdir=os.path.join(run_dir, TB_SUBDIR), flush_secs=10)
        self.bar = tqdm(
            total=total_env_steps,
            initial=initial_env_steps,
            unit="step",
            unit_scale=True,
            dynamic_ncols=True,
            disable=not progress,
            desc="train",
        )
        self._start = time.perf_counter()
        self._postfix: dict[str, str] = {}

    @property
    def wall_s(self) -> float:
        """Seconds since this logger was created."""
        return time.perf_counter() - self._start

    def _write(self, row: Mapping[str, Any]) -> None:
        self._jsonl.write(json.dumps(to_jsonable(row)) + "\n")

    def _tensorboard(self, prefix: str, row: Mapping[str, Any], step: int) -> None:
        for name, value in flatten(to_jsonable(row)).items():
            if name in ("kind", "update", "env_steps"):
                continue
            tag = f"{prefix}/{name}"
            if isinstance(value, bool | int | float):
                self.writer.add_scalar(tag, float(value), step)
            elif isinstance(value, list) and value:
                self._tensorboard_array(tag, np.asarray(value, dtype=float), step)

    def _tensorboard_array(self, tag: str, arr: np.ndarray, step: int) -> None:
        if arr.ndim == 1 and np.all(np.isfinite(arr)):
            # A histogram whose bucket i (upper limit i + 0.5) holds arr[i]: slot distributions.
            index = np.arange(arr.size, dtype=float)
            self.writer.add_histogram_raw(
                tag,
                min=0.0,
                max=float(arr.size - 1),
                num=float(arr.sum()),
                sum=float((index * arr).sum()),
                sum_squares=float((index**2 * arr).sum()),
                bucket_limits=(index + 0.5).tolist(),
                bucket_counts=arr.tolist(),
                global_step=step,
            )
        elif arr.ndim == 2 and np.all(np.isfinite(arr)):
            top = max(float(arr.max()), 1e-12)
            self.writer.add_image(tag, np.clip(arr / top, 0.0, 1.0), step, dataformats="HW")

    def log_updates(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Log train rows (each with ``update`` and ``env_steps``) and advance the bar."""
        if not rows:
            return
        for row in rows:
            row = {"kind": "train", **row}
            self._write(row)
            self._tensorboard("train", row, int(row["env_steps"]))
        self._jsonl.flush()
        last = rows[-1]
        steps = int(last["env_steps"]) - int(self.bar.n)
        if last.get("sps") is not None:
            self._postfix["sps"] = f"{last['sps']:,.0f}"
        win = _recent_win_rate(rows)
        if win is not None:
            self._postfix["win"] = f"{win:.2f}"
        self.bar.set_postfix(self._postfix, refresh=False)
        self.bar.update(max(steps, 0))

    def log_eval(self, row: Mapping[str, Any], headline: Mapping[str, float] | None = None) -> None:
        """Log an evaluation row (with ``update`` and ``env_steps``); ``headline`` numbers (e.g.
        ``{"vs_random": 0.42}``) go on the progress bar."""
        row = {"kind": "eval", **row}
        self._write(row)
        self._jsonl.flush()
        self._tensorboard("eval", row, int(row["env_steps"]))
        if headline:
            self._postfix.update({name: f"{value:.2f}" for name, value in headline.items()})
            self.bar.set_postfix(self._postfix)

    def message(self, text: str) -> None:
        """Print a line without breaking the bar."""
        self.bar.write(text)

    def close(self) -> None:
        self.bar.close()
        self._jsonl.close()
        self.writer.close()

    def __enter__(self) -> RunLogger:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _games_vs_heuristic(row: Mapping[str, Any], opponent: str) -> tuple[float, float] | None:
    """``(games, score)`` of one train row against the scripted heuristic (score: wins plus half
    the draws), or None when the row's games against it cannot be told apart from others."""
    if opponent == "heuristic":
        games = float(row.get("episodes", 0))
        wins, losses = float(row.get("learner_wins", 0)), float(row.get("learner_losses", 0))
        return games, wins + (games - wins - losses) / 2.0
    if opponent == "league" and "league_games_vs_heuristic" in row:
        games = float(row["league_games_vs_heuristic"])
        return games, games * float(row["league_win_rate_vs_heuristic"])
    return None


def heuristic_milestones(
    rows: Sequence[Mapping[str, Any]],
    opponent: str,
    thresholds: Sequence[float] = (0.6, 0.8),
    min_games: int = 256,
) -> dict[str, dict[str, float] | None] | None:
    """When training first beat the scripted heuristic at each of ``thresholds``.

    The rate at an update is pooled over the fewest trailing updates (that one included) with at
    least ``min_games`` finished games against the heuristic (wins plus half the draws), so one
    lucky update of a few games does not count. Reads the train rows of ``metrics.jsonl``
    (``opponent``: the run's, ``"heuristic"`` or ``"league"``; others give None: their games
    against the heuristic are not logged apart; so does a league that never played it).

    Returns ``{"0.6": {"update", "env_steps", "wall_s", "win_rate"} or None (never reached), ...}``;
    ``wall_s`` is the logging process's seconds since it started (compilation of the update
    included; a resumed run starts again from 0).
    """
    window: list[tuple[float, float]] = []
    found: dict[str, dict[str, float] | None] = {f"{t:g}": None for t in thresholds}
    seen = False
    for row in rows:
        if row.get("kind", "train") != "train":
            continue
        counts = _games_vs_heuristic(row, opponent)
        if counts is None:
            continue
        seen = seen or counts[0] > 0
        window.append(counts)
        while len(window) > 1 and sum(g for g, _ in window[1:]) >= min_games:
            window.pop(0)
        games = sum(g for g, _ in window)
        if games < min_games:
            continue
        rate = sum(s for _, s in window) / games
        for t in thresholds:
            if found[f"{t:g}"] is None and rate >= t:
                found[f"{t:g}"] = {
                    "update": int(row["update"]),
                    "env_steps": int(row["env_steps"]),
                    "wall_s": float(row["wall_s"]),
                    "win_rate": rate,
                }
    return found if seen else None


def format_milestones(found: Mapping[str, Mapping[str, float] | None]) -> str:
    """One line: ``training vs the heuristic: >= 60% at 123 s (4,194,304 steps); >= 80%: not reached``."""
    parts = []
    for t, hit in found.items():
        label = f">= {float(t):.0%}"
        if hit is None:
            parts.append(f"{label}: not reached")
        else:
            parts.append(f"{label} at {hit['wall_s']:.0f} s ({hit['env_steps']:,} steps)")
    return "training vs the heuristic: " + "; ".join(parts)


def _recent_win_rate(rows: Iterable[Mapping[str, Any]]) -> float | None:
    wins = sum(float(r.get("learner_wins", 0)) for r in rows)
    episodes = sum(float(r.get("episodes", 0)) for r in rows)
    return wins / episodes if episodes else None


def _numeric_series(rows: Sequence[Mapping[str, Any]], key: str) -> tuple[list[float], list[float]]:
    xs, ys = [], []
    for row in rows:
        value = row.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            xs.append(float(row["env_steps"]))
            ys.append(float(value))
    return xs, ys


def _eval_groups(eval_rows: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Numeric eval keys (flattened) grouped into panels of comparable scale."""
    keys: list[str] = []
    for row in eval_rows:
        for key, value in row.items():
            if isinstance(value, int | float) and not isinstance(value, bool) and key not in keys:
                keys.append(key)
    groups = {
        "eval: win rate": [k for k in keys if k.endswith("/win_rate") or k == "winrate"],
        "eval: deployment action rates": [
            k for k in keys if k.startswith("deployment_") and k.endswith("_rate")
        ],
        "eval: placement correlations": [k for k in keys if k.endswith("_correlation")],
    }
    return {title: group for title, group in groups.items() if group}


def plot_curves(metrics_path: str, png_path: str) -> str:
    """Draw the learning curves of a ``metrics.jsonl`` into ``png_path`` (returns the path).

    One panel per train metric of :data:`TRAIN_CURVES` (moving average over ~2% of the updates,
    raw values faint), then evaluation panels against env steps: win rates (each table row's
    ``win_rate``, and the deployment probe's ``winrate``), the deployment action rates and the
    placement correlations (deployment env only).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_jsonl(metrics_path)
    train_rows = [r for r in rows if r.get("kind") == "train"]
    eval_rows = [flatten(r) for r in rows if r.get("kind") == "eval"]
    train_keys = [k for k in TRAIN_CURVES if _numeric_series(train_rows, k)[0]]
    groups = _eval_groups(eval_rows)
    panels = len(train_keys) + len(groups)
    cols = 3
    nrows = max(math.ceil(panels / cols), 1)
    fig, axes = plt.subplots(nrows, cols, figsize=(5 * cols, 3.2 * nrows), squeeze=False)
    flat_axes = list(axes.flat)
    for ax, key in zip(flat_axes, train_keys, strict=False):
        xs, ys = _numeric_series(train_rows, key)
        window = max(len(ys) // 50, 1)
        ax.plot(xs, ys, alpha=0.3 if window > 1 else 1.0, lw=0.8)
        if window > 1:
            smooth = np.convolve(ys, np.ones(window) / window, mode="valid")
            ax.plot(xs[window - 1 :], smooth, lw=1.5)
        ax.set_title(f"train: {key}")
    for ax, (title, keys) in zip(flat_axes[len(train_keys) :], groups.items(), strict=False):
        for key in keys:
            xs, ys = _numeric_series(eval_rows, key)
            ax.plot(xs, ys, marker="o", ms=3, label=key)
        ax.set_title(title)
        ax.legend(fontsize=6)
    for ax in flat_axes[:panels]:
        ax.set_xlabel("env steps")
        ax.grid(alpha=0.3)
    for ax in flat_axes[panels:]:
        ax.axis("off")
    if not panels:
        flat_axes[0].text(0.5, 0.5, "no metrics yet", ha="center", va="center")
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)
    return png_path
