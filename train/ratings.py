"""Ratings: a round robin between players of one game, rated with OpenSkill.

A win rate says how one agent fares against the one opponent it was measured against; a rating
places every player on one scale. :func:`round_robin` plays every pair of players ``games``
games (half in each seat, :func:`tcgjax.train.evaluate.evaluate_against`); :func:`rate` feeds
the games to OpenSkill's Bradley-Terry model (the ``openskill`` package, Joshua et al. 2024),
one game at a time, and reports each player's ``mu`` (skill), ``sigma`` (its uncertainty) and
``ordinal`` = ``mu - 3 sigma`` (a conservative rating: 99.7% sure the skill is above it).
Draws (truncated games included) are ties.

OpenSkill updates online, so the order of games matters a little: the games are fed round by
round (game ``g`` of every pair, then game ``g + 1``), each pair's wins, draws and losses in an
order drawn with ``seed``: the same results and seed give the same table.

Command line (a run directory of ``python -m tcgjax.train``; its checkpoints play sampled, not
greedy, so that two copies of one policy do not replay one game; ``--runs`` adds the latest
checkpoint of other runs of the same game, named by their folder)::

    python -m tcgjax.train.ratings runs/duel-... --games 256 --players random heuristic baseline \
        --runs runs/duel-other-1 runs/duel-other-2

writes ``ratings.md`` (the table and the score of every pair), ``ratings.json`` and
``ratings.png`` into the run directory (or ``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence

import jax
import numpy as np

from tcgjax.core.env import Env
from tcgjax.core.errors import ConfigError, TcgjaxError
from tcgjax.train.evaluate import evaluate_against
from tcgjax.train.opponents import Policy, heuristic_policy, random_policy

__all__ = ["round_robin", "rate", "format_ratings", "plot_ratings", "main"]

#: Players the command line knows by name, besides a run's checkpoints.
NAMED_PLAYERS = ("random", "heuristic", "baseline")


def round_robin(
    env: Env, players: Mapping[str, Policy], key: jax.Array, games: int
) -> dict[tuple[str, str], dict]:
    """Every pair of ``players`` (in their order) plays ``games`` games, the first of the pair in
    seat 0 for the even-numbered ones. Returns ``{(a, b): evaluate-style dict for a}``."""
    names = list(players)
    if len(names) < 2:
        raise ConfigError(f"round_robin: needs two players or more, got {names}")
    results = {}
    for i, (a, k) in enumerate(zip(names[:-1], jax.random.split(key, len(names) - 1), strict=True)):
        opponents = {b: players[b] for b in names[i + 1 :]}
        for b, summary in evaluate_against(env, players[a], opponents, k, games).items():
            results[(a, b)] = summary
    return results


def rate(results: Mapping[tuple[str, str], Mapping], *, seed: int = 0) -> list[dict]:
    """OpenSkill ratings from :func:`round_robin`'s results, best first.

    Returns one dict a player: ``player``, ``mu``, ``sigma``, ``ordinal``, ``games``, ``score``
    (wins plus half the draws, per game, over all its games)."""
    from openskill.models import BradleyTerryFull

    model = BradleyTerryFull()
    names = list(dict.fromkeys(n for pair in results for n in pair))
    ratings = {n: model.rating(name=n) for n in names}
    rng = np.random.default_rng(seed)
    sequences = {}
    for pair, r in results.items():
        outcomes = np.array([1] * r["wins"] + [0] * r["draws"] + [-1] * r["losses"])
        sequences[pair] = outcomes[rng.permutation(len(outcomes))]
    for g in range(max(len(s) for s in sequences.values())):
        for (a, b), outcomes in sequences.items():
            if g >= len(outcomes):
                continue
            ranks = {1: [0, 1], 0: [0, 0], -1: [1, 0]}[int(outcomes[g])]
            [[ratings[a]], [ratings[b]]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
    played = dict.fromkeys(names, 0)
    scored = dict.fromkeys(names, 0.0)
    for (a, b), r in results.items():
        for name, points in (
            (a, r["wins"] + 0.5 * r["draws"]),
            (b, r["losses"] + 0.5 * r["draws"]),
        ):
            played[name] += r["games"]
            scored[name] += points
    table = [
        {
            "player": n,
            "mu": float(ratings[n].mu),
            "sigma": float(ratings[n].sigma),
            "ordinal": float(ratings[n].ordinal()),
            "games": played[n],
            "score": scored[n] / played[n],
        }
        for n in names
    ]
    return sorted(table, key=lambda row: -row["ordinal"])


def format_ratings(table: Sequence[Mapping], results: Mapping[tuple[str, str], Mapping]) -> str:
    """Markdown: the ratings, then each pair's score (row player against column player)."""
    lines = [
        "| rank | player | mu | sigma | ordinal (mu - 3 sigma) | games | score |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for i, row in enumerate(table, 1):
        lines.append(
            f"| {i} | {row['player']} | {row['mu']:.2f} | {row['sigma']:.2f} | "
            f"{row['ordinal']:.2f} | {row['games']} | {row['score']:.3f} |"
        )
    names = [row["player"] for row in table]
    score = {}
    for (a, b), r in results.items():
        score[(a, b)] = r["score"]
        score[(b, a)] = 1.0 - r["score"]
    lines += ["", "Score of the row player against the column player (wins + draws / 2):", ""]
    lines.append("| | " + " | ".join(names) + " |")
    lines.append("|---|" + "---:|" * len(names))
    for a in names:
        cells = ["" if a == b else f"{score[(a, b)]:.3f}" for b in names]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot_ratings(table: Sequence[Mapping], path: str, title: str = "") -> None:
    """A bar per player (best on top): ``mu`` with a ``3 sigma`` whisker each side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(reversed(table))
    fig, ax = plt.subplots(figsize=(6, 0.45 * len(rows) + 1.2))
    ax.barh(
        [r["player"] for r in rows],
        [r["mu"] for r in rows],
        xerr=[3 * r["sigma"] for r in rows],
        color="#4c72b0",
        capsize=3,
    )
    ax.set_xlabel("OpenSkill mu (whiskers: 3 sigma)")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _players(run_dir: str, names: Sequence[str], steps, greedy: bool, runs: Sequence[str] = ()):
    import tcgjax
    from tcgjax.train import checkpoint
    from tcgjax.train.config import load_config
    from tcgjax.train.policies import load_policy

    config = load_config(os.path.join(run_dir, "config.yaml"))
    env = tcgjax.make(config.env_id, **config.env_options)
    players: dict[str, Policy] = {}
    for step in steps or checkpoint.all_steps(run_dir):
        players[f"update {step}"] = load_policy(run_dir, env, greedy=greedy, step=step)
    for other in runs:  # other runs of the same env: their latest checkpoint
        players[os.path.basename(os.path.normpath(other))] = load_policy(other, env, greedy=greedy)
    for name in names:
        if name == "random":
            players[name] = random_policy(env)
        elif name == "heuristic":
            players[name] = heuristic_policy(env)
        elif name == "baseline":
            players[name] = load_policy("baseline", env, greedy=greedy)
        else:
            raise ConfigError(f"--players: unknown player {name!r}: one of {NAMED_PLAYERS}")
    return env, players


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tcgjax.train.ratings", description=__doc__.splitlines()[0]
    )
    parser.add_argument("run_dir", help="a run directory of python -m tcgjax.train")
    parser.add_argument("--games", type=int, default=256, help="games a pair (half each seat)")
    parser.add_argument("--players", nargs="*", default=["random", "heuristic"])
    parser.add_argument("--steps", type=int, nargs="*", help="checkpoint steps (default: all)")
    parser.add_argument(
        "--runs", nargs="*", default=[], help="other run directories (their latest checkpoint)"
    )
    parser.add_argument("--greedy", action="store_true", help="checkpoints play greedy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="folder of the outputs (default: the run directory)")
    args = parser.parse_args(argv)
    try:
        if args.games < 1 or not 0 <= args.seed < 2**32:
            raise ConfigError("--games must be >= 1 and --seed in [0, 2**32)")
        env, players = _players(args.run_dir, args.players, args.steps, args.greedy, args.runs)
        results = round_robin(env, players, jax.random.PRNGKey(args.seed), args.games)
        table = rate(results, seed=args.seed)
        out = args.out or args.run_dir
        os.makedirs(out, exist_ok=True)
        text = format_ratings(table, results)
        with open(os.path.join(out, "ratings.md"), "w") as fh:
            fh.write(f"# Ratings: {env.id}, {args.games} games a pair\n\n" + text)
        with open(os.path.join(out, "ratings.json"), "w") as fh:
            pairs = [{"a": a, "b": b, **r} for (a, b), r in results.items()]
            json.dump({"ratings": table, "pairs": pairs}, fh, indent=1)
        plot_ratings(
            table, os.path.join(out, "ratings.png"), f"{env.id}: {args.games} games a pair"
        )
    except (TcgjaxError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
