"""Trained agents as policies: a run directory or a shipped baseline -> ``(state, key) -> action``.

:func:`load_policy` returns a :class:`tcgjax.train.evaluate.NetworkPolicy`: a pure function of one
game's ``State`` and a key (jittable, vmappable; its parameters are pytree leaves), the greedy
action of the trained actor over the legal actions unless ``greedy=False``. Anything that takes an
opponent policy takes it: the CLI's and the Gymnasium wrapper's ``opponent``, ``tcgjax.search``,
``tcgjax.train.evaluate``.

Two sources:

* a **run directory** of ``python -m tcgjax.train`` (its ``config.yaml`` and an orbax checkpoint
  under ``checkpoints/``, digest checked): the latest checkpoint, or ``step``; with ``num_seeds >
  1`` the first seed's parameters (the one the run evaluates);
* a **shipped baseline** (``"baseline"``: the game's own; :func:`baselines` lists them): a small
  agent per game trained by ``python -m tcgjax.train`` with the shipped config, kept as package
  data in ``tcgjax/train/baselines/<env id>/``: ``config.yaml`` (the run's config), ``params.msgpack``
  (the actor-critic's parameters, ``flax.serialization``), ``eval.txt`` (its final evaluation
  table) and ``digest.json`` (the SHA-256 of the other three, checked on load).
  :func:`export_baseline` writes that folder from a run directory.

The env a policy plays must be the game it was trained on with the same observation shape and
number of actions (an observation of another layout would be read wrongly: Pokémon's ``v1``
encoding for an agent trained on ``v2.1``); a mismatch is refused naming both. Other options (a
turn limit, decks) may differ.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from typing import Any

import flax.serialization
import jax
import jax.numpy as jnp
import numpy as np

import tcgjax
from tcgjax.core.env import Env
from tcgjax.core.errors import ConfigError
from tcgjax.train import checkpoint
from tcgjax.train.config import PPOConfig, load_config
from tcgjax.train.evaluate import NetworkPolicy, network_policy

__all__ = ["load_policy", "opponent_policy", "baselines", "export_baseline", "BASELINE_DIR"]

BASELINE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "baselines")
_BASELINE_FILES = ("config.yaml", "params.msgpack", "eval.txt")


def baselines() -> tuple[str, ...]:
    """The env ids with a shipped baseline, sorted."""
    if not os.path.isdir(BASELINE_DIR):
        return ()
    return tuple(
        sorted(
            name
            for name in os.listdir(BASELINE_DIR)
            if os.path.isfile(os.path.join(BASELINE_DIR, name, "digest.json"))
        )
    )


def _check_env(config: PPOConfig, env: Env, source: str) -> None:
    """The policy reads ``env``'s observation and chooses among its ids: the game, the observation
    shape and the number of actions must be those it was trained with. Other options (a turn
    limit, decks, rules variants) may differ: the mask keeps its moves legal."""
    trained = tcgjax.make(config.env_id, **config.env_options)
    if (env.id, tuple(env.observation_shape), env.num_actions) != (
        trained.id,
        tuple(trained.observation_shape),
        trained.num_actions,
    ):
        raise ConfigError(
            f"{source}: trained on {config.env_id!r} with options {dict(config.env_options)} "
            f"(observation {tuple(trained.observation_shape)}, {trained.num_actions} actions); "
            f"this env is {env.id!r} with options {dict(env.options)} (observation "
            f"{tuple(env.observation_shape)}, {env.num_actions} actions)"
        )


def _template(network, env: Env, config: PPOConfig) -> Any:
    """The parameters' structure, shapes and dtypes (nothing is computed or compiled)."""
    obs = jax.ShapeDtypeStruct((1, *env.observation_shape), jnp.float32)
    mask = jax.ShapeDtypeStruct((1, env.num_actions), jnp.bool_)
    args = (obs, mask)
    if config.critic != "shared":
        views = 2 if config.critic == "omniscient" else 1
        args += (jax.ShapeDtypeStruct((1, views, env.observation_shape[-1]), jnp.float32),)
    return jax.eval_shape(network.init, jax.random.key(0), *args)


# The card ids a baseline's card-embedding rows stand for, in row order (optional): with it the
# rows follow their cards when the game's card file grows anywhere in its sorted ids (a reprint
# numbered BT1-... sorts before ST1-...), not only at its end. Covered by the digest.
CARD_IDS_FILE = "card_ids.json"


def _digest(folder: str) -> dict[str, str]:
    out = {}
    optional = (CARD_IDS_FILE,) if os.path.exists(os.path.join(folder, CARD_IDS_FILE)) else ()
    for name in _BASELINE_FILES + optional:
        with open(os.path.join(folder, name), "rb") as fh:
            out[name] = hashlib.sha256(fh.read()).hexdigest()
    return out


def _from_run(run_dir: str, env: Env | None, step: int | None) -> tuple[Any, Any, PPOConfig, Env]:
    from tcgjax.train.ppo import make_network, make_ppo

    config = load_config(os.path.join(run_dir, "config.yaml"))
    env = env if env is not None else tcgjax.make(config.env_id, **config.env_options)
    _check_env(config, env, run_dir)
    ppo = make_ppo(config, env)
    abstract = jax.eval_shape(ppo.init, jax.random.key(config.seed))
    if config.num_seeds > 1:
        abstract = jax.tree.map(
            lambda x: jax.ShapeDtypeStruct((config.num_seeds, *x.shape), x.dtype), abstract
        )
    # Only structure, shapes and dtypes are read from the template; PRNG keys go in as keys.
    abstract = jax.tree.map(
        lambda x: (
            (jax.random.split(jax.random.key(0), x.shape) if x.shape else jax.random.key(0))
            if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)
            else x
        ),
        abstract,
    )
    params = checkpoint.restore(run_dir, abstract, step).runner.params
    if config.num_seeds > 1:
        params = jax.tree.map(lambda x: x[0], params)
    return make_network(config, env), params, config, env


def _from_baseline(env_id: str) -> tuple[Any, Any, PPOConfig, Env]:
    from tcgjax.train.ppo import make_network

    folder = os.path.join(BASELINE_DIR, env_id)
    if env_id not in baselines():
        raise ConfigError(f"no shipped baseline for {env_id!r}; shipped: {list(baselines())}")
    with open(os.path.join(folder, "digest.json"), encoding="utf-8") as fh:
        expected = json.load(fh)
    found = _digest(folder)
    if found != expected:
        bad = sorted(
            name for name in set(found) | set(expected) if found.get(name) != expected.get(name)
        )
        raise ConfigError(f"{folder}: {bad} do not match digest.json (altered or damaged)")
    config = load_config(os.path.join(folder, "config.yaml"))
    env = tcgjax.make(config.env_id, **config.env_options)
    network = make_network(config, env)
    template = _template(network, env, config)
    with open(os.path.join(folder, "params.msgpack"), "rb") as fh:
        stored = flax.serialization.msgpack_restore(fh.read())
    try:
        params = flax.serialization.from_state_dict(template, stored)
    except (ValueError, KeyError) as exc:
        raise ConfigError(f"{folder}/params.msgpack does not fit its config: {exc}") from None
    ids_path = os.path.join(folder, CARD_IDS_FILE)
    trained_ids = None
    if os.path.exists(ids_path):
        with open(ids_path, encoding="utf-8") as fh:
            trained_ids = json.load(fh)
    params = _card_tables_by_id(template, params, trained_ids, env, ids_path)
    for (path, want), got in zip(
        jax.tree_util.tree_leaves_with_path(template), jax.tree.leaves(params), strict=True
    ):
        if (tuple(want.shape), want.dtype) != (np.shape(got), np.asarray(got).dtype):
            raise ConfigError(
                f"{folder}/params.msgpack: {jax.tree_util.keystr(path)} is "
                f"{np.asarray(got).dtype}{list(np.shape(got))}, the config's network wants "
                f"{want.dtype}{list(want.shape)}"
            )
    params = jax.tree.map(jnp.asarray, params)
    return network, params, config, env


def _card_tables_by_id(template, params, trained_ids, env: Env, source: str):
    """``params`` with each card-embedding table's rows moved to the env's card ids: row ``k``
    was trained for card ``trained_ids[k]`` (``source``, the baseline's ``card_ids.json``); it
    goes to that card's index in the env's registry. Cards the baseline never saw get zero rows;
    a trained card no longer in the registry is dropped. Without ``trained_ids`` (a baseline
    with no ``card_ids.json``) a table with fewer rows than the registry stands for its first
    rows (a card file grown by appending); any other shape difference is left for the caller's
    check to refuse.

    Raises:
      ConfigError: the file is not a list of card ids, or does not match a table's rows.
    """
    # Only an env with a card-embedding network (a card registry) reaches the lookups below.
    registry_ids = list(getattr(getattr(env.rules, "cards", None), "ids", ()))
    if trained_ids is not None and not (
        isinstance(trained_ids, list) and all(isinstance(c, str) for c in trained_ids)
    ):
        raise ConfigError(f"{source}: expected a JSON list of card ids, the embedding's row order")
    index = {cid: i for i, cid in enumerate(registry_ids)}

    def move(path, want, got):
        names = [str(getattr(k, "key", k)) for k in path]
        got = np.asarray(got)
        if "card_embedding" not in names or got.ndim != 2 or len(want.shape) != 2:
            return got
        ids = trained_ids
        if ids is None:
            if got.shape[1] != want.shape[1] or not got.shape[0] < want.shape[0]:
                return got
            ids = registry_ids[: got.shape[0]]
        elif got.shape[0] != len(ids) or got.shape[1] != want.shape[1]:
            raise ConfigError(
                f"{source}: {len(ids)} card ids for a card embedding of {list(got.shape)}"
            )
        out = np.zeros(want.shape, got.dtype)
        for k, cid in enumerate(ids):
            if cid in index:
                out[index[cid]] = got[k]
        return out

    return jax.tree_util.tree_map_with_path(move, template, params)


def opponent_policy(env: Env, opponent: Any) -> Any:
    """An opponent as a pure one-game policy ``(state, key) -> int32[] action`` for ``env``: the
    one place the CLI, ``tcgjax serve`` and the wrappers resolve ``opponent``.

    ``"random"`` (uniform over the legal actions), ``"heuristic"`` (the game's scripted player),
    ``"baseline"`` (the game's shipped trained agent), a run directory of ``python -m
    tcgjax.train`` (:func:`load_policy`), or a callable, returned as it is.

    Raises:
      ConfigError: anything else, or a trained agent that cannot be loaded for this env (each
        names the opponent).
    """
    if callable(opponent):
        return opponent
    from tcgjax.train import opponents  # here: it imports every game's rules

    if opponent == "random":
        return opponents.random_policy(env)
    if opponent == "heuristic":
        return opponents.heuristic_policy(env)
    known = isinstance(opponent, str | os.PathLike) and (
        opponent == "baseline" or os.path.isdir(opponent)
    )
    if not known:
        raise ConfigError(
            f"env {env.id!r}: opponent={opponent!r} must be 'random', 'heuristic', 'baseline', a "
            "run directory or a callable (state, key) -> action: it is neither 'baseline' nor a "
            "run directory (no such folder)"
        )
    return load_policy(opponent, env)


def load_policy(
    source: str | os.PathLike,
    env: Env | None = None,
    *,
    greedy: bool = True,
    step: int | None = None,
) -> NetworkPolicy:
    """The trained actor of ``source`` as a one-game policy ``(state, key) -> int32[] action``.

    Args:
      source: ``"baseline"`` (the shipped baseline of ``env``'s game), or a run directory of
        ``python -m tcgjax.train`` (a path).
      env: the env the policy will play; default the one it was trained on. A ``"baseline"``
        needs it (which game's).
      greedy: the most probable legal action (default); False samples the actor's distribution.
      step: a run directory's checkpoint step (default the latest).

    Raises:
      ConfigError: an unknown source, a game without a baseline, a digest that does not match, a
        checkpoint that cannot be read (``CheckpointError``), or an env other than the one the
        policy was trained on (id or options); each names the source.
    """
    source = os.fspath(source) if isinstance(source, os.PathLike) else source
    if not isinstance(source, str) or not source:
        raise ConfigError(
            f"load_policy(source={source!r}): expected 'baseline' or a run directory (a path)"
        )
    if source == "baseline":
        if env is None:
            raise ConfigError("load_policy('baseline') needs env= (whose game's baseline)")
        network, params, config, trained = _from_baseline(env.id)
        _check_env(config, env, os.path.join(BASELINE_DIR, env.id))
    elif os.path.isdir(source):
        network, params, config, trained = _from_run(source, env, step)
    else:
        raise ConfigError(
            f"load_policy: {source!r} is neither 'baseline' nor a run directory (no such folder)"
        )
    del trained
    return network_policy(network, params, greedy=greedy)


def export_baseline(run_dir: str, out_dir: str, *, step: int | None = None) -> str:
    """Write the baseline folder of a run's checkpoint (see the module docstring) to ``out_dir``
    (created; an existing one is replaced). Returns ``out_dir``."""
    network, params, config, env = _from_run(run_dir, None, step)
    del network, env
    eval_txt = os.path.join(run_dir, "eval.txt")
    if not os.path.isfile(eval_txt):
        raise ConfigError(f"{run_dir}: no eval.txt (a run that has not finished)")
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    with open(os.path.join(run_dir, "config.yaml"), encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    # Where the run was written is no fact about the agent: the default folder, not this machine's.
    lines = [f"run_dir: {PPOConfig.run_dir}" if ln.startswith("run_dir:") else ln for ln in lines]
    with open(os.path.join(out_dir, "config.yaml"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    shutil.copyfile(eval_txt, os.path.join(out_dir, "eval.txt"))
    state = jax.tree.map(np.asarray, flax.serialization.to_state_dict(params))
    with open(os.path.join(out_dir, "params.msgpack"), "wb") as fh:
        fh.write(flax.serialization.msgpack_serialize(state))
    with open(os.path.join(out_dir, "digest.json"), "w", encoding="utf-8") as fh:
        json.dump(_digest(out_dir), fh, indent=1, sort_keys=True)
        fh.write("\n")
    return out_dir


def main(argv: list[str] | None = None) -> int:
    """``python -m tcgjax.train.policies RUN_DIR OUT_DIR [--step N]``: :func:`export_baseline`."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m tcgjax.train.policies",
        description="write the baseline folder (config, parameters, evaluation, digest) of a run",
    )
    parser.add_argument("run_dir")
    parser.add_argument("out_dir")
    parser.add_argument("--step", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        print(export_baseline(args.run_dir, args.out_dir, step=args.step))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
