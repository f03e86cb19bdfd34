"""Gumbel MuZero search (``mctx``) with a tcgjax env's own ``step`` as the simulator, played against
random, the game's heuristic and, given a PPO run, the raw PPO policy: one evaluation table.

    python examples/search.py --env duel --simulations 16 --games 128
    python examples/search.py --env digimon --simulations 8 --games 32 --ppo-run runs/digimon-...

``--evaluator`` picks the search's prior and value (``tcgjax.search``): ``rollout`` (uniform prior,
one random playout per leaf, default), ``uniform`` (value 0: only the rewards the tree reaches) or
``ppo`` (the PPO network's logits and value, AlphaZero-style; needs ``--ppo-run``). The search sees
the true state (hidden cards included) and plans against one sampled outcome per chance step: read
``tcgjax/search.py`` before comparing it with players that do not.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import jax

import tcgjax
from tcgjax import search
from tcgjax.train import checkpoint
from tcgjax.train.config import load_config
from tcgjax.train.evaluate import evaluate_against, format_table, network_policy
from tcgjax.train.opponents import HEURISTICS, heuristic_policy, random_policy
from tcgjax.train.ppo import make_network, make_ppo


def load_ppo(run_dir: str, env: tcgjax.Env):
    """``(network, params)`` of the latest checkpoint of a ``tcgjax.train.run`` run directory."""
    config = load_config(os.path.join(run_dir, "config.yaml"), [])
    if config.env_id != env.id:
        raise tcgjax.ConfigError(f"{run_dir}: a run of {config.env_id!r}, not {env.id!r}")
    ppo = make_ppo(config, env)
    template = jax.jit(ppo.init)(jax.random.key(config.seed))
    params = checkpoint.restore(run_dir, template).runner.params
    return make_network(config, env), params


def main(argv: list[str] | None = None) -> dict[str, dict]:
    """Run the evaluation; print and return the table (``{opponent: tcgjax.train.evaluate row}``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="duel", choices=tcgjax.available_envs())
    parser.add_argument("--simulations", type=int, default=16, help="simulations per move")
    parser.add_argument("--games", type=int, default=128, help="games per opponent")
    parser.add_argument("--evaluator", default="rollout", choices=("rollout", "uniform", "ppo"))
    parser.add_argument("--rollout-steps", type=int, default=200, help="playout length cap")
    parser.add_argument("--ppo-run", help="a tcgjax.train.run directory: adds the PPO policy row")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.simulations < 1 or args.games < 1:
        parser.error("--simulations and --games must be >= 1")
    if args.evaluator == "ppo" and not args.ppo_run:
        parser.error("--evaluator ppo needs --ppo-run")

    env = tcgjax.make(args.env)
    opponents = {"random": random_policy(env)}
    if env.id in HEURISTICS:
        opponents["heuristic"] = heuristic_policy(env)
    evaluate = {
        "rollout": lambda: search.rollout_evaluator(env, max_steps=args.rollout_steps),
        "uniform": lambda: search.uniform_evaluator(env),
    }
    if args.ppo_run:
        network, params = load_ppo(args.ppo_run, env)
        opponents["ppo"] = network_policy(network, params, greedy=True)
        evaluate["ppo"] = lambda: search.network_evaluator(network.apply, params)
    player = search.search_policy(
        env, num_simulations=args.simulations, evaluate=evaluate[args.evaluator]()
    )
    start = time.time()
    table = evaluate_against(env, player, opponents, jax.random.PRNGKey(args.seed), args.games)
    print(
        f"{env.id}: Gumbel MuZero search, {args.simulations} simulations/move, "
        f"{args.evaluator} evaluator, {args.games} games per opponent "
        f"({time.time() - start:.0f} s with compilation)"
    )
    print(format_table(table))
    return table


if __name__ == "__main__":
    main(sys.argv[1:])
