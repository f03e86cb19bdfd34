"""Record legal-action masks of real states of every game, for the action-design tests.

``tests/train/test_train_designs.py`` checks the ``factored`` and ``pointer`` distributions on
masks that real play produces, selection phases included, without compiling a game in the test
session: this tool plays random legal games (``tcgjax.wrappers.random_play``, every state kept
here) and keeps, per game and phase, a spread of masks: the one with the most legal ids, the
one with the fewest and others in between, up to ``--per-phase``. Written as JSON
``{game: [{"phase": name, "legal": [ids]}, ...]}`` with the env's version.

Usage::

    python tools/record_masks.py            # writes tests/train/data/legal_masks.json
    python tools/record_masks.py --env pokemon   # only that game's masks, the others kept
"""

from __future__ import annotations

import argparse
import json
import os

import jax
import numpy as np

import tcgjax
from tcgjax.wrappers import random_play

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "train", "data", "legal_masks.json")


def _phase_names(env, game) -> np.ndarray:
    board = getattr(game, "board", None)
    if board is not None:
        names = np.asarray(env.board_layout.phases)
        return names[np.asarray(board.phase).astype(int)]
    from tcgjax.games.deployment.scenario import PHASES

    return np.asarray(PHASES)[np.asarray(game.phase).astype(int)]


def record(env_id: str, games: int, steps: int, per_phase: int, seed: int = 0) -> list[dict]:
    env = tcgjax.make(env_id)
    rollout = jax.jit(lambda key: random_play(env, key, games, steps))
    states = jax.device_get(rollout(jax.random.key(seed)))
    flat = jax.tree.map(lambda x: x.reshape((x.shape[0] * x.shape[1],) + x.shape[2:]), states)
    live = ~(flat.terminated | flat.truncated)
    phases = _phase_names(env, flat.game)
    masks = flat.legal_action_mask
    out = []
    for phase in sorted(set(phases[live])):
        rows = np.flatnonzero(live & (phases == phase))
        counts = masks[rows].sum(-1)
        # A spread over the legal-id counts of this phase: the extremes and evenly between.
        order = rows[np.argsort(counts, kind="stable")]
        picks = np.unique(np.linspace(0, len(order) - 1, per_phase).round().astype(int))
        seen = set()
        for i in picks:
            legal = tuple(int(a) for a in np.flatnonzero(masks[order[i]]))
            if legal not in seen:
                seen.add(legal)
                out.append({"phase": str(phase), "legal": list(legal)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--per-phase", type=int, default=6)
    parser.add_argument(
        "--env",
        action="append",
        default=None,
        help="record only this game (repeatable); the others keep their recorded masks",
    )
    args = parser.parse_args()
    data = {"recorded_with": "tools/record_masks.py", "games": {}}
    if args.env:
        unknown = sorted(set(args.env) - set(tcgjax.available_envs()))
        if unknown:
            parser.error(f"unknown env {unknown}; have {tcgjax.available_envs()}")
        with open(OUT) as fh:
            data = json.load(fh)
    for env_id in args.env or tcgjax.available_envs():
        env = tcgjax.make(env_id)
        data["games"][env_id] = {
            "version": env.version,
            "num_actions": env.num_actions,
            "masks": record(env_id, args.games, args.steps, args.per_phase),
        }
        phases = sorted({m["phase"] for m in data["games"][env_id]["masks"]})
        print(env_id, len(data["games"][env_id]["masks"]), "masks; phases:", phases)
    with open(OUT, "w") as fh:
        json.dump(data, fh, indent=None, separators=(",", ":"))
        fh.write("\n")


if __name__ == "__main__":
    main()
