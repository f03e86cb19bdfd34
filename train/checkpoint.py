"""Orbax checkpoints of a training run: the whole ``RunnerState``, the config and the update index.

A run directory holds ``checkpoints/<step>/`` (one orbax ``CheckpointManager`` step per save) with
three items:

* ``runner``: every array of the :class:`train.ppo.RunnerState` (params, optimizer state, env states,
  learner seats, snapshot pool, PRNG key, update counter), saved with ``StandardSave`` so dtypes and
  values come back exactly;
* ``config``: the ``PPOConfig`` as a plain dict (:func:`config_to_dict`), as JSON;
* ``meta``: ``{"step": step}`` as JSON.

Because the runner carries its own PRNG key and update counter, restoring a checkpoint and running
the remaining updates reproduces an uninterrupted run bit for bit (``tests/train`` checks it).
Typed PRNG keys (``jax.random.key``) are stored as their raw ``key_data`` and rewrapped on restore.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp

from tcgjax.core.errors import ConfigError

__all__ = [
    "Checkpoint",
    "config_to_dict",
    "save",
    "restore",
    "latest_step",
    "all_steps",
    "checkpoint_dir",
]

CHECKPOINT_SUBDIR = "checkpoints"


class Checkpoint(NamedTuple):
    """What :func:`restore` returns."""

    runner: Any  # the template's pytree type, filled with the saved arrays
    config: dict[str, Any]  # config_to_dict(PPOConfig) of the run that saved it
    step: int  # the update index it was saved at


def config_to_dict(config: Any) -> dict[str, Any]:
    """A plain, JSON/YAML-able dict of a ``PPOConfig`` (or a copy of a mapping).

    Built field by field: ``dataclasses.asdict`` (hence ``PPOConfig.to_dict``) deep-copies fields
    and cannot copy the read-only ``env_options`` mapping.
    """
    if isinstance(config, Mapping):
        return dict(config)
    out = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    out["env_options"] = dict(out["env_options"])
    out["hidden_sizes"] = list(out["hidden_sizes"])
    return out


def checkpoint_dir(run_dir: str) -> str:
    """Absolute path of ``run_dir``'s checkpoint folder (orbax wants absolute paths)."""
    return os.path.abspath(os.path.join(run_dir, CHECKPOINT_SUBDIR))


def _manager(run_dir: str, *, create: bool) -> ocp.CheckpointManager:
    options = ocp.CheckpointManagerOptions(create=create, enable_async_checkpointing=False)
    handlers = {
        "runner": ocp.StandardCheckpointHandler(),
        "config": ocp.JsonCheckpointHandler(),
        "meta": ocp.JsonCheckpointHandler(),
    }
    return ocp.CheckpointManager(checkpoint_dir(run_dir), options=options, item_handlers=handlers)


def _mismatches(stored: Any, abstract: Any) -> list[str]:
    """Leaves whose stored dtype or shape differs from the template's (orbax would cast dtypes
    silently, which would break bit-exact resumption)."""
    flat_stored = ocp.tree.to_flat_dict(stored)
    out = []
    for path, want in ocp.tree.to_flat_dict(
        ocp.tree.serialize_tree(abstract, keep_empty_nodes=True)
    ).items():
        have = flat_stored.get(path)
        if have is None:
            continue  # a structure mismatch: orbax names it
        if np.dtype(have.dtype) != np.dtype(want.dtype) or tuple(have.shape) != tuple(want.shape):
            out.append(
                f"{'.'.join(map(str, path))}: stored {np.dtype(have.dtype)}{list(have.shape)}, "
                f"template {np.dtype(want.dtype)}{list(want.shape)}"
            )
    return out


def _is_typed_key(x: Any) -> bool:
    return hasattr(x, "dtype") and jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)


def _is_empty(x: Any) -> bool:
    return not _is_typed_key(x) and int(np.size(x)) == 0


def _to_saveable(tree: Any) -> Any:
    """Typed keys as their raw data; zero-size arrays (e.g. a board without card attributes) as
    ``None``: orbax refuses to write them, and the template restores their (empty) value."""
    return jax.tree.map(
        lambda x: None if _is_empty(x) else jax.random.key_data(x) if _is_typed_key(x) else x,
        tree,
    )


def save(run_dir: str, runner: Any, config: Any, step: int) -> None:
    """Write ``runner`` (any pytree of arrays), ``config`` and ``step`` to ``run_dir/checkpoints/step``.

    Synchronous: the files are complete when it returns. Saving a step that already exists
    overwrites it.

    Args:
      run_dir: the run directory (created if missing).
      runner: the ``RunnerState`` (or any pytree of arrays).
      config: a ``PPOConfig`` or a JSON-able mapping.
      step: the update index (``int(runner.update)`` for a ``RunnerState``).
    """
    step = int(step)
    config_dict = config_to_dict(config)
    with _manager(run_dir, create=True) as mngr:
        if step in mngr.all_steps():
            mngr.delete(step)
        saved = mngr.save(
            step,
            args=ocp.args.Composite(
                runner=ocp.args.StandardSave(_to_saveable(runner)),
                config=ocp.args.JsonSave(config_dict),
                meta=ocp.args.JsonSave({"step": step}),
            ),
            force=True,  # also a step below the latest (the manager skips those by default)
        )
        mngr.wait_until_finished()
    if not saved:
        raise RuntimeError(f"{checkpoint_dir(run_dir)}: orbax did not save step {step}")


def all_steps(run_dir: str) -> list[int]:
    """The saved steps of ``run_dir``, ascending (empty if there is no checkpoint)."""
    if not os.path.isdir(checkpoint_dir(run_dir)):
        return []
    with _manager(run_dir, create=False) as mngr:
        return sorted(mngr.all_steps())


def latest_step(run_dir: str) -> int | None:
    """The last saved step of ``run_dir``, or None."""
    steps = all_steps(run_dir)
    return steps[-1] if steps else None


def restore(run_dir: str, template_runner: Any, step: int | None = None) -> Checkpoint:
    """Read a checkpoint of ``run_dir`` into the structure, shapes and dtypes of ``template_runner``.

    Args:
      run_dir: the run directory given to :func:`save`.
      template_runner: a pytree like the saved one (e.g. ``ppo.init(any_key)``); only its structure,
        shapes and dtypes are used, never its values.
      step: which step; default the latest.

    Returns:
      ``Checkpoint(runner, config, step)``.

    Raises:
      ConfigError: no checkpoint in ``run_dir``, no such step, or a leaf whose stored dtype or
        shape differs from the template's (orbax itself would cast the dtype silently).
    """
    steps = all_steps(run_dir)
    if not steps:
        raise ConfigError(f"{checkpoint_dir(run_dir)}: no checkpoint to restore")
    if step is None:
        step = steps[-1]
    if step not in steps:
        raise ConfigError(f"{checkpoint_dir(run_dir)}: no checkpoint at step {step}; have {steps}")
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, _to_saveable(template_runner))
    with _manager(run_dir, create=False) as mngr:
        bad = _mismatches(mngr.item_metadata(step).runner.tree, abstract)
        if bad:
            raise ConfigError(
                f"{checkpoint_dir(run_dir)}/{step}: the checkpoint does not fit the template "
                f"(was the config changed?): " + "; ".join(bad[:5])
            )
        restored = mngr.restore(
            step,
            args=ocp.args.Composite(
                runner=ocp.args.StandardRestore(abstract),
                config=ocp.args.JsonRestore(),
                meta=ocp.args.JsonRestore(),
            ),
        )
    leaves = iter(jax.tree.leaves(restored.runner))
    template_leaves, treedef = jax.tree.flatten(template_runner)
    arrays = []
    for t in template_leaves:
        if _is_empty(t):  # not stored: its empty value is all there is
            arrays.append(jnp.zeros(np.shape(t), t.dtype))
            continue
        x = next(leaves)
        arrays.append(
            jax.random.wrap_key_data(x, impl=jax.random.key_impl(t)) if _is_typed_key(t) else x
        )
    if next(leaves, None) is not None:
        raise ConfigError(f"{checkpoint_dir(run_dir)}/{step}: more arrays than the template has")
    runner = jax.tree.unflatten(treedef, arrays)
    config = restored.config
    if not isinstance(config, Mapping):
        raise ConfigError(f"{checkpoint_dir(run_dir)}/{step}: config item is not a mapping")
    return Checkpoint(
        runner=runner, config=dict(config), step=int(np.asarray(restored.meta["step"]))
    )
