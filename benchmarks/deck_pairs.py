"""Every shipped deck against every shipped deck: the all-pairs check of the card pool.

For each card game and each ordered pair ``(a, b)`` of its shipped decks (``a`` in seat 1, ``b`` in
seat 2, mirror matches included), ``N`` games are played from their deals until every one ends:

* **random play** (both seats uniformly random among the legal moves, ``jit(vmap(step))``): no
  step may set an error code, and the game's ``validate`` (every invariant of the rules) must hold
  on every game still going, every ``--validate-every`` steps (10);
* **the scripted heuristic** (``tcgjax.train.opponents``: it reads card data, never card names) in
  seat 1 against random play in seat 2: every move it makes must be legal; its win rate is shown.

Games that reach the env's step limit count as truncated (not an error). Usage::

    python benchmarks/deck_pairs.py                       # both card games, 256 games a pair
    python benchmarks/deck_pairs.py --games 64 --env pokemon
    python benchmarks/deck_pairs.py --results benchmarks/RESULTS.md   # append the table there
    python benchmarks/deck_pairs.py --env digimon --involving st7 st8  # new decks vs the pool

A pair that fails raises (naming the game, the pair, the step and the error or invariant), so the
script exits non-zero.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import time

import jax
import jax.numpy as jnp
import numpy as np

import tcgjax
from tcgjax.train.policies import opponent_policy
from tcgjax.wrappers import random_legal_action

SHIPPED = {
    "digimon": "tcgjax.games.digimon.decks",
    "pokemon": "tcgjax.games.pokemon.decks",
}


def shipped_decks(game: str) -> tuple[str, ...]:
    import importlib

    return importlib.import_module(SHIPPED[game]).SHIPPED_DECKS


def play_pair(
    game: str, decks: tuple[str, str], games: int, seed: int, validate_every: int = 10
) -> dict:
    """Random play and heuristic play of ``games`` games of ``decks``; raises on any error code
    or broken invariant. Returns the pair's row (counts, heuristic win rate, seconds)."""
    started = time.perf_counter()
    env = tcgjax.make(game, decks=list(decks))
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))
    heuristic = jax.jit(jax.vmap(opponent_policy(env, "heuristic")))
    limit = int(env.options["max_steps"]) + 1
    row = {"game": game, "decks": f"{decks[0]} vs {decks[1]}", "games": games}
    for mode in ("random", "heuristic"):
        key = jax.random.PRNGKey(seed)
        key, k_init = jax.random.split(key)
        state = init(jax.random.split(k_init, games))
        steps = validated = 0
        returns = np.zeros((games, env.num_players))  # a finished game's steps pay nothing
        for t in range(limit):
            done = np.asarray(state.terminated | state.truncated)
            if done.all():
                break
            key, k_act, k_pol, k_step = jax.random.split(key, 4)
            action = random_legal_action(k_act, state.legal_action_mask)
            if mode == "heuristic":
                scripted = heuristic(state, jax.random.split(k_pol, games))
                action = jnp.where(state.current_player == 0, scripted, action)
            state = step(state, action, jax.random.split(k_step, games))
            errors = np.asarray(state.error)
            if errors.any():
                g = int(np.flatnonzero(errors)[0])
                raise AssertionError(
                    f"{game} {decks} ({mode}): step {t} of game {g}: error code {errors[g]}"
                )
            steps += int((~done).sum())
            returns += np.asarray(state.rewards)
            if mode == "random" and t % validate_every == 0:
                for g in np.flatnonzero(~done):
                    env.validate(jax.tree.map(lambda x, g=g: x[g], state))
                    validated += 1
        done = np.asarray(state.terminated | state.truncated)
        if not done.all():
            raise AssertionError(f"{game} {decks} ({mode}): games still running after {limit}")
        truncated = int(np.asarray(state.truncated).sum())
        row[f"{mode}_steps"] = steps
        row[f"{mode}_truncated"] = truncated
        if mode == "random":
            row["validated"] = validated
        else:
            row["heuristic_win"] = float((returns[:, 0] > 0).mean())
    row["seconds"] = round(time.perf_counter() - started, 1)
    return row


def table(rows: list[dict]) -> str:
    lines = [
        "| game | seat 1 vs seat 2 | games | random: steps, truncated, states validated | "
        "heuristic (seat 1) vs random: win, truncated | s |",
        "|---|---|---:|---|---|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['game']} | {r['decks']} | {r['games']} | {r['random_steps']:,}, "
            f"{r['random_truncated']}, {r['validated']:,} | {100 * r['heuristic_win']:.1f}%, "
            f"{r['heuristic_truncated']} | {r['seconds']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", nargs="*", default=sorted(SHIPPED), choices=sorted(SHIPPED))
    parser.add_argument("--games", type=int, default=256, help="games a pair (default 256)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--validate-every", type=int, default=10, help="steps between validates")
    parser.add_argument("--results", metavar="FILE", help="append the table to FILE")
    parser.add_argument(
        "--involving",
        nargs="*",
        metavar="DECK",
        help="only the pairs with one of these decks in a seat (new decks against the pool)",
    )
    args = parser.parse_args(argv)
    rows = []
    for game in args.env:
        for pair in itertools.product(shipped_decks(game), repeat=2):
            if args.involving and not set(pair) & set(args.involving):
                continue
            rows.append(play_pair(game, pair, args.games, args.seed, args.validate_every))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    text = table(rows)
    print(text)
    if args.results:
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        with open(args.results, "a", encoding="utf-8") as fh:
            fh.write(
                f"\n### Every deck against every deck ({stamp}, jax {jax.__version__}, "
                f"{jax.devices()[0].device_kind})\n\n{text}\n"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
