"""sb3-contrib's ``MaskablePPO`` on a tcgjax game, through the Gymnasium wrapper, with no glue code.

    python examples/maskable_ppo.py --env duel --timesteps 20000 --opponent random

The agent plays seat 0 of ``tcgjax.wrappers.gymnasium.TcgjaxEnv`` against the opponent policy; the
wrapper's ``action_masks()`` is what ``MaskablePPO`` reads at every step, so the policy only ever
samples legal actions. After training, ``--eval-games`` episodes are played with the masked policy
(deterministic) and the table reports wins, losses, draws and any illegal action (there must be
none). This is the one-game-at-a-time path researchers use today (``benchmarks/vs_sb3.py`` puts its
training speed next to tcgjax's own PPO, which steps thousands of games in one jitted call).
"""

from __future__ import annotations

import argparse
import time

import tcgjax
from tcgjax.core.env import Env
from tcgjax.wrappers.gymnasium import TcgjaxEnv


def make_model(env: TcgjaxEnv, *, n_steps: int, batch_size: int, seed: int):
    """A ``MaskablePPO`` with a ``MultiInputPolicy`` (the observation is a ``Dict`` of the board
    vector and the mask); sb3's defaults otherwise."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    model = MaskablePPO(
        "MultiInputPolicy",
        env,
        n_steps=n_steps,
        batch_size=batch_size,
        seed=seed,
        verbose=0,
        device="cpu",
    )
    # sb3's default logger makes a /tmp/SB3-<time> folder for every model, even at verbose=0
    # (it writes nothing there): a logger with no outputs keeps the file system clean.
    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


def evaluate(model, env: TcgjaxEnv, games: int, seed: int) -> dict:
    """``games`` episodes of the masked policy (deterministic). Returns counts of the agent's
    ``wins``/``losses``/``draws``, ``truncated`` games, ``illegal`` actions (must be 0) and the
    agent's ``actions``."""
    counts = dict(wins=0, losses=0, draws=0, truncated=0, illegal=0, actions=0)
    for game in range(games):
        observation, info = env.reset(seed=seed + game)
        done = False
        while not done:
            mask = env.action_masks()
            action, _ = model.predict(observation, action_masks=mask, deterministic=True)
            action = int(action)
            counts["illegal"] += int(not mask[action])
            observation, reward, terminated, truncated, info = env.step(action)
            counts["illegal"] += int(info["error"] != 0)
            counts["actions"] += 1
            done = terminated or truncated
        if truncated:
            counts["truncated"] += 1
        else:
            outcome = float(env.state.rewards[env.agent_seat])
            counts["wins" if outcome > 0 else "losses" if outcome < 0 else "draws"] += 1
    return counts


def train_and_evaluate(
    env: str | Env = "duel",
    *,
    timesteps: int = 20_000,
    opponent: str = "random",
    n_steps: int = 512,
    batch_size: int = 64,
    eval_games: int = 50,
    seed: int = 0,
) -> dict:
    """Train ``MaskablePPO`` for ``timesteps`` agent steps, then evaluate. Returns the evaluation
    counts plus ``timesteps`` (done), ``train_seconds`` and ``train_fps`` (agent steps per second,
    as sb3 counts them)."""
    gym_env = TcgjaxEnv(env, opponent=opponent)
    model = make_model(gym_env, n_steps=n_steps, batch_size=batch_size, seed=seed)
    start = time.perf_counter()
    model.learn(total_timesteps=timesteps)
    seconds = time.perf_counter() - start
    result = evaluate(model, gym_env, eval_games, seed=10_000 + seed)
    result.update(
        env=gym_env.game.id,
        timesteps=int(model.num_timesteps),
        train_seconds=seconds,
        train_fps=model.num_timesteps / seconds,
    )
    return result


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="duel", choices=tcgjax.available_envs())
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--opponent", default="random", choices=("random", "heuristic"))
    parser.add_argument("--n-steps", type=int, default=512, help="rollout length per update")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--eval-games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    result = train_and_evaluate(
        args.env,
        timesteps=args.timesteps,
        opponent=args.opponent,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        eval_games=args.eval_games,
        seed=args.seed,
    )
    finished = result["wins"] + result["losses"] + result["draws"]
    rate = result["wins"] / finished if finished else float("nan")
    print(
        f"MaskablePPO on {result['env']} vs {args.opponent}: {result['timesteps']} steps in "
        f"{result['train_seconds']:.1f} s ({result['train_fps']:,.0f} steps/s); "
        f"{args.eval_games} games: win rate {rate:.1%} (W {result['wins']} / L "
        f"{result['losses']} / D {result['draws']} / truncated {result['truncated']}), "
        f"illegal actions {result['illegal']}"
    )
    return result


if __name__ == "__main__":
    main()
