"""Where an ``unmasked`` policy's illegal choices fall while it trains.

``python tools/unmasked_diagnosis.py --config deployment [--updates 60] [--every 10] [key=value ...]``

Trains ``action_design=unmasked`` on ``--config`` (plus the overrides) and, every ``--every``
updates, plays one rollout of the current policy and groups the learner's decisions by the action
kinds legal in the state (the game's ``action_layout`` ranges that hold a legal id: a phase of the
game, read from the mask alone, so it works for every game). Printed per group: the decisions, the
share of illegal choices and the kinds the illegal choices named. docs/research.md reads the
deployment game with it.
"""

from __future__ import annotations

import argparse
import collections

import jax
import numpy as np

from tcgjax.train.config import load_config
from tcgjax.train.designs import action_structure
from tcgjax.train.ppo import make_ppo


def report(traj, names: list[str], kind: np.ndarray) -> list[str]:
    """Per group of learner decisions with the same legal kinds: count, illegal share, and the
    kinds of the illegal choices (most frequent first)."""
    mask = np.asarray(traj.legal_action_mask).reshape(-1, kind.size)
    learner = np.asarray(traj.weight).reshape(-1) > 0
    invalid = np.asarray(traj.invalid).reshape(-1)
    action = np.asarray(traj.action).reshape(-1)
    legal_kinds = np.zeros((mask.shape[0], len(names)), bool)
    for i in range(len(names)):
        legal_kinds[:, i] = mask[:, kind == i].any(axis=1)
    groups: dict[tuple[str, ...], list[int]] = collections.defaultdict(list)
    for row in np.flatnonzero(learner):
        groups[tuple(n for n, on in zip(names, legal_kinds[row], strict=True) if on)].append(row)
    lines = []
    for legal, rows in sorted(groups.items(), key=lambda item: -len(item[1])):
        rows = np.asarray(rows)
        chosen = collections.Counter(names[kind[a]] for a in action[rows[invalid[rows]]])
        named = ", ".join(f"{k} {n}" for k, n in chosen.most_common(3)) or "-"
        lines.append(
            f"  legal {'+'.join(legal)}: {rows.size} decisions, illegal {invalid[rows].mean():.2f}"
            f" (named: {named})"
        )
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", default="deployment")
    parser.add_argument("--updates", type=int, default=60)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("overrides", nargs="*", help="key=value config overrides")
    args = parser.parse_args(argv)
    config = load_config(args.config, ["action_design=unmasked", *args.overrides])
    ppo = make_ppo(config)
    structure = action_structure(ppo.env)  # the kinds and each id's kind, as the designs read them
    names, kind = list(structure.kinds), structure.kind_of()
    runner = jax.jit(ppo.init)(jax.random.key(config.seed))
    update, rollout = jax.jit(ppo.update), jax.jit(ppo.rollout)
    for done in range(args.updates + 1):
        if done % args.every == 0:
            _, traj = rollout(runner, jax.random.key(done))
            print(f"after {done} updates:", flush=True)
            print("\n".join(report(traj, names, kind)), flush=True)
        if done < args.updates:
            runner, _ = update(runner)


if __name__ == "__main__":
    main()
