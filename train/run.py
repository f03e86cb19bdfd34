"""``make train``: the main job — masked PPO with a progress bar, evaluations and checkpoints.

Usage::

    python -m tcgjax.train [--config NAME|PATH] [--env ID] [key=value ...]
    python -m tcgjax.train --resume RUN_DIR [--no-verify] [key=value ...]

The config is ``configs/ppo/<env>.yaml`` by default (``--env`` defaults to ``deployment``; without
that file, ``PPOConfig(env_id=<env>)`` defaults), then ``key=value`` overrides (``tcgjax.train.config``).
The jitted ``PPO.update`` runs in chunks: one compiled ``lax.fori_loop`` runs ``n`` updates (``n``
a traced argument, so every chunk size reuses the same program and a chunk ends at each
evaluation and checkpoint), sized so the progress bar refreshes about once a second. With
``num_seeds > 1`` the update is ``vmap``-ed over seeds (seed ``i`` starts from
``jax.random.key(seed + i)``); rows log the mean over seeds (summed episode counts) and evaluation
uses seed 0.

Every ``eval_every`` updates and at the end: :func:`tcgjax.train.evaluate.evaluation_table` (the greedy
policy against random, the game's heuristic, and the parameters of the previous checkpoint), and
for the deployment env the spec-section-9 metrics (``tcgjax.games.deployment.metrics``) of a separate
rollout, :func:`make_deployment_probe`. Every ``checkpoint_every`` updates, at update 0 and at the
end: an orbax checkpoint (:mod:`tcgjax.train.checkpoint`). Everything goes to
``<run_dir>/<env>-<YYYYmmdd-HHMMSS>-seed<seed>/``::

    config.yaml        the resolved PPOConfig (``--resume`` reads it back)
    metrics.jsonl      one "train" row per update (PPO.update's metrics, win_rate, sps); one
                       "eval" row per evaluation: "vs": {opponent: tcgjax.train.evaluate row}, and on
                       deployment every section-9 metric at top level (distributions as lists)
    tb/                TensorBoard events
    checkpoints/<u>/   orbax checkpoint at update u (runner state, config, step) and its digest
    curves.png         learning curves drawn from metrics.jsonl at the end
    eval.txt           the final evaluation table (also printed; with ``eval_baseline`` a row
                       against the game's shipped baseline)
    milestones.json    when the training win rate against the heuristic (heuristic or league
                       opponent) first reached 60% and 80%: update, env steps, wall seconds

A resumed run (``--resume RUN_DIR``) restores the latest checkpoint, drops the log rows written after
it, and continues; with the same config it reproduces the uninterrupted run bit for bit (the runner
carries its own PRNG key and update counter, and evaluation keys derive from the seed and the
update index, never from the training key). The checkpoint's digest is checked first, before
anything is compiled (:mod:`tcgjax.train.checkpoint`); a checkpoint that is missing, damaged, altered,
without a digest (``--no-verify`` reads one written before digests existed, unchecked), or that
does not fit the config (the keys that differ from the checkpoint's are named) stops the run with
exit status 2 and one line naming the checkpoint folder and the problem, as does a run directory
that is not a directory or a ``metrics.jsonl`` with a damaged row.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import yaml

import tcgjax
from tcgjax.core.errors import ConfigError, TcgjaxError
from tcgjax.core.tree import tree_where
from tcgjax.train import checkpoint, evaluate, logging_utils
from tcgjax.train.config import CONFIG_DIR, PPOConfig, load_config, short_repr
from tcgjax.train.networks import masked_distribution
from tcgjax.train.ppo import PPO, init_seeds, make_ppo
from tcgjax.wrappers import random_legal_action

__all__ = [
    "main",
    "cli",
    "make_chunk",
    "make_deployment_probe",
    "resolve_config",
    "check_finite",
    "TrainingDivergedError",
    "CHUNK_CAPACITY",
]

CHUNK_CAPACITY = 256  # most updates per jitted call (rows of the metrics buffer)
CHUNK_SECONDS = 1.0  # target wall time of one chunk (progress-bar refresh)
EVAL_STREAM = 0x45564C  # fold_in tag separating evaluation keys from the training key
SUM_OVER_SEEDS = ("episodes", "learner_wins", "learner_losses")
# Update metrics that must stay finite; a NaN or inf in any of them stops the run (never reported
# as a healthy one). ``params_finite`` is 1.0 iff every parameter is finite after the update.
FINITE_METRICS = ("loss", "actor_loss", "value_loss", "entropy", "grad_norm", "mean_value")


class TrainingDivergedError(TcgjaxError):
    """A training update produced a non-finite loss, gradient norm or parameter.

    Attributes: ``update`` (1-based update index) and ``metric`` (the first non-finite metric).
    """

    def __init__(self, update: int, metric: str, value: float):
        self.update, self.metric, self.value = update, metric, value
        what = "a parameter" if metric == "params_finite" else f"{metric} = {value}"
        super().__init__(
            f"training diverged at update {update}: {what} is not finite; the run is stopped "
            "(check lr and the env's rewards)"
        )


def check_finite(metrics: dict[str, Any], n: int, first_update: int) -> None:
    """Raise :class:`TrainingDivergedError` for the first of the ``n`` updates (rows of the
    ``metrics`` buffers, update ``first_update + 1`` in row 0) with a non-finite loss, gradient norm
    or parameter. ``metrics``: host arrays ``[n_rows, ...]`` (a seed axis after it is allowed)."""
    for i in range(n):
        for name in FINITE_METRICS:
            if name in metrics:
                value = np.asarray(metrics[name][i])
                if not np.all(np.isfinite(value)):
                    bad = value[~np.isfinite(value)] if value.ndim else value
                    raise TrainingDivergedError(first_update + i + 1, name, float(np.ravel(bad)[0]))
        if "params_finite" in metrics and not np.all(np.asarray(metrics["params_finite"][i]) > 0):
            raise TrainingDivergedError(first_update + i + 1, "params_finite", float("nan"))


# --------------------------------------------------------------------------------------------------
# Jitted pieces


def make_chunk(update, capacity: int = CHUNK_CAPACITY):
    """``chunk(runner, n) -> (runner, metrics)``: ``n <= capacity`` updates in one jitted call.

    ``n`` is traced (a ``lax.fori_loop`` with a dynamic trip count), so any chunk size reuses one
    compiled program and runs the same update body: chunking never changes the results. ``metrics``
    is ``update``'s metrics dict stacked into ``[capacity, ...]`` buffers; rows ``>= n`` are zeros.
    """

    def chunk(runner, n):
        shapes = jax.eval_shape(update, runner)[1]
        rows = jax.tree.map(lambda s: jnp.zeros((capacity,) + s.shape, s.dtype), shapes)

        def body(i, carry):
            runner, rows = carry
            runner, metrics = update(runner)
            rows = jax.tree.map(lambda buf, v: buf.at[i].set(v), rows, metrics)
            return runner, rows

        return jax.lax.fori_loop(0, n, body, (runner, rows))

    return jax.jit(chunk)


def make_deployment_probe(env: tcgjax.Env, network, num_games: int):
    """``probe(params, key) -> {metric: array}``: spec-section-9 metrics of the current policy.

    Plays ``num_games`` deployment games to the end (one ``lax.while_loop``, at most
    ``env.max_steps`` steps): the policy *sampled* from its masked distribution (as in training)
    in seat ``g % 2`` of game ``g``, a uniform random legal player in the other seat. The attempts
    accumulator counts the policy's own steps only, and the distributions and correlations cover its
    own units (``unit_scope="learner"``); ``winrate`` is its win rate against the random player.
    Returns :func:`tcgjax.games.deployment.metrics.deployment_metrics` of the final states.
    """
    from tcgjax.games.deployment import metrics as dm

    seat = jnp.arange(num_games, dtype=jnp.int32) % 2

    def done(state):
        return state.terminated | state.truncated

    @jax.jit
    def probe(params, key):
        k_init, k_run = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(k_init, num_games))

        def cond(carry):
            state, _, _, t = carry
            return (t < env.max_steps) & ~jnp.all(done(state))

        def body(carry):
            state, attempts, key, t = carry
            key, k_policy, k_random, k_step = jax.random.split(key, 4)
            logits, _ = network.apply(params, state.observation, state.legal_action_mask)
            dist = masked_distribution(logits, state.legal_action_mask)
            mine = state.current_player == seat
            action = jnp.where(
                mine,
                dist.sample(seed=k_policy).astype(jnp.int32),
                random_legal_action(k_random, state.legal_action_mask),
            )
            new = jax.vmap(env.step)(state, action, jax.random.split(k_step, num_games))
            attempts = tree_where(mine, dm.update_attempts(attempts, state, new), attempts)
            return new, attempts, key, t + 1

        carry = (state, dm.init_attempts((num_games,)), k_run, jnp.int32(0))
        state, attempts, _, _ = jax.lax.while_loop(cond, body, carry)
        return dm.deployment_metrics(env, state, attempts, seat, unit_scope="learner")

    return probe


# --------------------------------------------------------------------------------------------------
# Config and run directory


def resolve_config(args: argparse.Namespace) -> PPOConfig:
    """The run's config from ``--config`` / ``--env`` / overrides (or the run dir on ``--resume``)."""
    overrides = list(args.overrides)
    if args.resume:
        return load_config(os.path.join(args.resume, "config.yaml"), overrides)
    if args.env is not None:
        overrides = [f"env_id={args.env}"] + overrides
    path = args.config
    if path is None:
        env_id = args.env or PPOConfig.env_id
        default = os.path.join(CONFIG_DIR, f"{env_id}.yaml")
        path = default if os.path.exists(default) else None
    return load_config(path, overrides)


def _check_run_root(config: PPOConfig) -> None:
    """``run_dir`` (the folder new runs go in) must be a directory or not exist yet."""
    if os.path.exists(config.run_dir) and not os.path.isdir(config.run_dir):
        raise ConfigError(
            f"config key 'run_dir' = {config.run_dir!r}: a file, not a directory (new runs are "
            "created inside it)"
        )


def _new_run_dir(config: PPOConfig) -> str:
    _check_run_root(config)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = os.path.join(config.run_dir, f"{config.env_id}-{stamp}-seed{config.seed}")
    run_dir, k = base, 1
    while os.path.exists(run_dir):
        run_dir, k = f"{base}-{k}", k + 1
    try:
        os.makedirs(run_dir)
    except OSError as exc:
        raise ConfigError(
            f"config key 'run_dir' = {config.run_dir!r}: cannot create {run_dir}: "
            f"{exc.strerror or exc}"
        ) from None
    return run_dir


def _check_resume_dir(run_dir: str) -> None:
    """``--resume RUN_DIR`` must name an existing directory (checked before its config is read)."""
    if not os.path.exists(run_dir):
        raise checkpoint.CheckpointError(f"--resume {run_dir}: no such run directory")
    if not os.path.isdir(run_dir):
        raise checkpoint.CheckpointError(
            f"--resume {run_dir}: a file, not a run directory (give the folder holding "
            "config.yaml and checkpoints/)"
        )


def _write_config(run_dir: str, config: PPOConfig) -> None:
    with open(os.path.join(run_dir, "config.yaml"), "w", encoding="utf-8") as fh:
        yaml.safe_dump(checkpoint.config_to_dict(config), fh, sort_keys=False)


# --------------------------------------------------------------------------------------------------
# The job


class _Job:
    """What the loop needs besides the runner: the PPO pieces, the logger, the deployment probe and
    the latest evaluation table."""

    def __init__(self, ppo: PPO, config: PPOConfig, run_dir: str, logger, others=None):
        self.ppo, self.config, self.run_dir, self.log = ppo, config, run_dir, logger
        self.others = dict(others or {})
        self.num_seeds = config.num_seeds
        self.steps_per_update = config.num_envs * config.num_steps * config.num_seeds
        self.probe = (
            make_deployment_probe(ppo.env, ppo.network, config.eval_games)
            if ppo.env.id == "deployment"
            else None
        )
        self.table: dict[str, Any] | None = None

    def seed0(self, tree):
        return tree if self.num_seeds == 1 else jax.tree.map(lambda x: x[0], tree)

    def update_index(self, runner) -> int:
        return int(np.asarray(self.seed0(runner.update)))

    def rows(self, metrics, n: int, first_update: int, sps: float, wall_s: float):
        host = jax.device_get(metrics)
        out = []
        for i in range(n):
            row: dict[str, Any] = {}
            for name, value in host.items():
                if name == "env_steps":  # per-update constant; replaced by the cumulative count
                    continue
                v = np.asarray(value[i])
                row[name] = v.sum() if name in SUM_OVER_SEEDS else v.mean()
            update = first_update + i + 1
            episodes = float(row.get("episodes", 0))
            out.append(
                {
                    "update": update,
                    "env_steps": update * self.steps_per_update,
                    "wall_s": wall_s,
                    "sps": sps,
                    "win_rate": float(row.get("learner_wins", 0)) / episodes if episodes else None,
                    **row,
                }
            )
        return out

    def run_eval(self, runner, checkpoint_params, *, final: bool = False) -> None:
        update = self.update_index(runner)
        start = time.perf_counter()
        key = jax.random.fold_in(
            jax.random.fold_in(jax.random.key(self.config.seed), EVAL_STREAM), update
        )
        k_table, k_probe = jax.random.split(key)
        params = self.seed0(runner.params)
        table = evaluate.evaluation_table(
            self.ppo.env,
            self.ppo.network,
            params,
            k_table,
            self.config.eval_games,
            checkpoint_params=checkpoint_params,
            max_invalid=self.config.max_invalid,
            others=self.others,
        )
        row: dict[str, Any] = {
            "update": update,
            "env_steps": update * self.steps_per_update,
            "vs": table,
        }
        if final and self.config.action_design in ("flat", "factored"):
            # The masked policy with its mask removed (Huang & Ontanon): the final evaluation only.
            row["vs_mask_removed"] = evaluate.mask_removed_table(
                self.ppo.env,
                self.ppo.network,
                params,
                jax.random.fold_in(k_table, 1),
                self.config.eval_games,
                max_invalid=self.config.max_invalid,
            )
        if self.probe is not None:
            row.update(jax.device_get(self.probe(params, k_probe)))
        row["eval_s"] = time.perf_counter() - start
        headline = {
            f"vs_{name}": r["win_rate"] for name, r in table.items() if name != "checkpoint"
        }
        for name, r in row.get("vs_mask_removed", {}).items():
            headline[f"mask_removed_vs_{name}"] = r["win_rate"]
        self.log.log_eval(row, headline)
        summary = ", ".join(f"{name} {r['win_rate']:.1%}" for name, r in table.items())
        self.log.message(f"eval @ update {update}: win rate vs {summary} ({row['eval_s']:.1f}s)")
        self.table = table
        if "vs_mask_removed" in row:
            self.table = {
                **table,
                **{f"{n} (mask removed)": r for n, r in row["vs_mask_removed"].items()},
            }

    def save(self, runner) -> None:
        checkpoint.save(self.run_dir, runner, self.config, self.update_index(runner))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tcgjax.train", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--config", help="config name in configs/ppo or a YAML path")
    parser.add_argument("--env", choices=tcgjax.available_envs(), help="env id (sets env_id)")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its checkpoint")
    parser.add_argument(
        "--no-verify",
        action="store_true",
        help="with --resume: read the checkpoint without checking its digest (only for one "
        "written before checkpoints carried a digest)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    return parser


def _eval_others(config: PPOConfig, env: tcgjax.Env) -> dict[str, Any]:
    """The evaluation's rows beyond random, heuristic and checkpoint: the game's shipped baseline
    when ``eval_baseline`` (loaded before the run directory exists: a game without a baseline, or
    one trained on another observation or action layout, is refused with nothing written)."""
    if not config.eval_baseline:
        return {}
    from tcgjax.train.policies import load_policy

    try:
        return {"baseline": load_policy("baseline", env, greedy=True)}
    except ConfigError as exc:
        raise ConfigError(f"config key 'eval_baseline' = True: {exc}") from exc


def _start(args: argparse.Namespace):
    """``(config, ppo, runner, run_dir, changed, others)`` for a new run or a resumed one
    (``others``: :func:`_eval_others`)."""
    if args.resume:
        _check_resume_dir(args.resume)
    config = resolve_config(args)
    step = None
    if args.resume:
        # Before anything is compiled: a damaged checkpoint or log is refused in a second.
        step = checkpoint.latest_step(args.resume)
        if step is None:
            raise checkpoint.CheckpointError(
                f"{checkpoint.checkpoint_dir(args.resume)}: no checkpoint to restore"
            )
        if not args.no_verify:
            checkpoint.verify(args.resume, step)
        logging_utils.read_jsonl(os.path.join(args.resume, logging_utils.METRICS_FILE))
    else:
        _check_run_root(config)
    ppo = make_ppo(config)
    others = _eval_others(config, ppo.env)
    num_seeds = config.num_seeds
    keys = jax.vmap(jax.random.key)(config.seed + jnp.arange(num_seeds))
    # Jitted: eager init would compile hundreds of small ops one by one (seconds on CPU).
    runner = jax.jit(ppo.init)(keys[0]) if num_seeds == 1 else init_seeds(ppo, keys)
    changed: list[str] = []
    if args.resume:
        run_dir = args.resume
        restored = _restore(run_dir, runner, config, step, verify=not args.no_verify)
        runner = restored.runner
        changed = sorted(
            k for k, v in checkpoint.config_to_dict(config).items() if restored.config.get(k) != v
        )
        metrics_path = os.path.join(run_dir, logging_utils.METRICS_FILE)
        logging_utils.truncate_jsonl(metrics_path, restored.step)
    else:
        run_dir = _new_run_dir(config)
    _write_config(run_dir, config)
    return config, ppo, runner, run_dir, changed, others


def _restore(run_dir: str, template, config: PPOConfig, step: int, *, verify: bool):
    """:func:`checkpoint.restore` for ``--resume``: a checkpoint that does not fit ``config`` names
    the config keys that differ from the checkpoint's own first; the runner's update counter must
    be the checkpoint's step."""
    try:
        restored = checkpoint.restore(run_dir, template, step, verify=verify)
    except checkpoint.CheckpointError as exc:
        if not exc.mismatches:
            raise
        saved = checkpoint.saved_config(run_dir, step, verify=False)  # restore checked it
        differ = [
            f"{k}: {short_repr(saved[k]) if k in saved else '(absent)'} -> {short_repr(v)}"
            for k, v in checkpoint.config_to_dict(config).items()
            if saved.get(k, object()) != v
        ]
        more = f" (and {len(exc.mismatches) - 2} more)" if len(exc.mismatches) > 2 else ""
        raise checkpoint.CheckpointError(
            f"{checkpoint.step_dir(run_dir, step)}: the checkpoint does not fit this config; "
            f"keys that differ from the checkpoint's: {'; '.join(differ) or 'none'}; arrays: "
            + "; ".join(exc.mismatches[:2])
            + more,
            mismatches=exc.mismatches,
        ) from None
    update = np.asarray(restored.runner.update).reshape(-1)
    if not np.all(update == restored.step):
        raise checkpoint.CheckpointError(
            f"{checkpoint.step_dir(run_dir, restored.step)}: the runner's update counter is "
            f"{int(update[0])}, not the checkpoint's step {restored.step}"
        )
    return restored


def _train(job: _Job, runner, *, fresh: bool):
    """The update loop: chunks, evaluations and checkpoints. Returns the final runner."""
    config, log = job.config, job.log
    total = config.num_updates
    update_fn = job.ppo.update if job.num_seeds == 1 else jax.vmap(job.ppo.update)
    if fresh:
        job.save(runner)  # update 0: the first "previous checkpoint" opponent
    last_ckpt_params = job.seed0(runner.params)

    t0 = time.perf_counter()
    chunk = make_chunk(update_fn).lower(runner, jnp.int32(1)).compile()
    log.message(f"compiled the update in {time.perf_counter() - t0:.1f}s")

    u = saved = job.update_index(runner)
    n_next = 1
    while u < total:
        n = min(n_next, total - u, CHUNK_CAPACITY)
        for every in (config.eval_every, config.checkpoint_every):
            if every is not None:
                n = min(n, every - u % every)  # end the chunk at the next boundary
        t = time.perf_counter()
        runner, metrics = chunk(runner, jnp.int32(n))
        jax.block_until_ready(runner)
        dt = time.perf_counter() - t
        host = jax.device_get(metrics)
        log.log_updates(job.rows(host, n, u, n * job.steps_per_update / dt, log.wall_s))
        check_finite(host, n, u)  # after logging, so the diverged rows are on disk to inspect
        u += n
        n_next = max(1, min(CHUNK_CAPACITY, int(CHUNK_SECONDS / max(dt / n, 1e-6))))
        if config.eval_every is not None and u % config.eval_every == 0 and u < total:
            job.run_eval(runner, last_ckpt_params)
        if config.checkpoint_every is not None and u % config.checkpoint_every == 0 and u < total:
            job.save(runner)
            last_ckpt_params, saved = job.seed0(runner.params), u
    job.run_eval(runner, last_ckpt_params, final=True)  # at the end, always
    if saved != u:
        job.save(runner)
    return runner


def main(argv: list[str] | None = None) -> str:
    """Run (or resume) a training job; returns its run directory. See the module docstring."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.resume and (args.config or args.env):
        parser.error("--resume reads the run's config.yaml: give overrides, not --config/--env")
    if args.no_verify and not args.resume:
        parser.error("--no-verify goes with --resume")
    config, ppo, runner, run_dir, changed, others = _start(args)
    total = config.num_updates
    steps_per_update = config.num_envs * config.num_steps * config.num_seeds
    start_update = int(np.asarray(runner.update).reshape(-1)[0])
    print(
        f"tcgjax {tcgjax.__version__} | jax {jax.__version__} on {jax.devices()[0].platform} | "
        f"{config.env_id}: {total} updates x {steps_per_update:,} env steps "
        f"({config.num_seeds} seed(s), opponent {config.opponent}) | run dir {run_dir}",
        flush=True,
    )
    if args.resume:
        print(f"resumed at update {start_update}; config keys changed: {changed or 'none'}")
    logger = logging_utils.RunLogger(
        run_dir,
        total_env_steps=total * steps_per_update,
        initial_env_steps=start_update * steps_per_update,
        progress=not args.no_progress,
    )
    job = _Job(ppo, config, run_dir, logger, others)
    with logger:
        runner = _train(job, runner, fresh=not args.resume)
    curves = logging_utils.plot_curves(
        os.path.join(run_dir, logging_utils.METRICS_FILE),
        os.path.join(run_dir, logging_utils.CURVES_FILE),
    )
    text = evaluate.format_table(job.table)
    with open(os.path.join(run_dir, "eval.txt"), "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    print(f"final evaluation after {total} updates ({total * steps_per_update:,} env steps):")
    print(text)
    rows = logging_utils.read_jsonl(os.path.join(run_dir, logging_utils.METRICS_FILE))
    milestones = logging_utils.heuristic_milestones(rows, config.opponent)
    if milestones is not None:
        with open(
            os.path.join(run_dir, logging_utils.MILESTONES_FILE), "w", encoding="utf-8"
        ) as fh:
            json.dump(milestones, fh, indent=1)
        print(logging_utils.format_milestones(milestones))
    print(f"run dir: {run_dir} (curves: {os.path.basename(curves)})", flush=True)
    return run_dir


def cli(argv: list[str] | None = None) -> int:
    """``python -m tcgjax.train``: :func:`main` with errors as a message on stderr and exit status 2
    (a bad config: nothing was written; or a checkpoint that cannot be resumed from, named on one
    line) or 1 (training diverged: no evaluation table printed)."""
    try:
        main(argv)
    except checkpoint.CheckpointError as exc:
        print(f"checkpoint error: {exc}", file=sys.stderr)
        return 2
    except ConfigError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 2
    except TrainingDivergedError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(cli())  # JAX's persistent compilation cache: on with import tcgjax
