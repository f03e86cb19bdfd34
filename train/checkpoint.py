"""Orbax checkpoints of a training run: the whole ``RunnerState``, the config and the update index.

A run directory holds ``checkpoints/<step>/`` (one orbax ``CheckpointManager`` step per save) with
three items:

* ``runner``: every array of the :class:`tcgjax.train.ppo.RunnerState` (params, optimizer state, env states,
  learner seats, snapshot pool, PRNG key, update counter), saved with ``StandardSave`` so dtypes and
  values come back exactly;
* ``config``: the ``PPOConfig`` as a plain dict (:func:`config_to_dict`), as JSON;
* ``meta``: ``{"step": step}`` as JSON;

and, written after orbax has finished, ``tcgjax_digest.json`` (:data:`DIGEST_FILE`): the size and
SHA-256 of every file orbax wrote for that step, plus a SHA-256 of that list. Orbax keeps no
checksum, so without it a checkpoint with a few bytes overwritten restores silently and training
resumes on altered parameters. :func:`restore` (and :func:`verify`) check it *before orbax reads
anything*: a file whose bytes differ, one truncated or extended, one missing, one added, or a
damaged digest file is refused with a :class:`CheckpointError` naming ``checkpoints/<step>`` and
the file. Digesting the files rather than the restored arrays covers what a restore would not
compare (the config and meta items, orbax's own metadata and index files), and refuses damage
before orbax parses it, so no damaged file reaches orbax's own error paths (KeyErrors, JSON and
TensorStore errors). The digest detects damage and edits, not a forger who rewrites the digest
file too. A step without a digest file (written before digests existed, or a save cut short
between orbax's commit and the digest) is refused too; ``restore(..., verify=False)`` (``python
-m tcgjax.train.run --resume RUN_DIR --no-verify``) reads it unchecked, explicitly.

Because the runner carries its own PRNG key and update counter, restoring a checkpoint and running
the remaining updates reproduces an uninterrupted run bit for bit (``tests/train`` checks it).
Typed PRNG keys (``jax.random.key``) are stored as their raw ``key_data`` and rewrapped on restore.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp

from tcgjax.core.errors import ConfigError
from tcgjax.core.files import json_loads
from tcgjax.train.config import short_repr

__all__ = [
    "Checkpoint",
    "CheckpointError",
    "DIGEST_FILE",
    "verify",
    "saved_config",
    "step_dir",
    "config_to_dict",
    "save",
    "restore",
    "latest_step",
    "all_steps",
    "checkpoint_dir",
]

CHECKPOINT_SUBDIR = "checkpoints"
DIGEST_FILE = "tcgjax_digest.json"  # in each step's folder, written after orbax's save
DIGEST_FORMAT = "tcgjax-checkpoint-digest"
DIGEST_VERSION = 1
_CHUNK = 1 << 20  # bytes read at a time while hashing


class CheckpointError(ConfigError):
    """A checkpoint cannot be restored: none there, a run directory that is a file, a file altered,
    truncated, missing or added since the save (the digest), no digest, a meta item orbax cannot
    read, or arrays that do not fit the template (the config changed). The message is one line
    naming the checkpoint folder (``<run_dir>/checkpoints/<step>``) and the problem.

    A :class:`ConfigError` (what :func:`restore` raised before digests existed), so ``python -m
    tcgjax.train.run`` reports it with exit status 2. ``mismatches``: for arrays that do not fit the
    template, one ``"path: stored ..., template ..."`` line per leaf (empty otherwise).
    """

    def __init__(self, message: str, *, mismatches: Sequence[str] = ()):
        super().__init__(message)
        self.mismatches = tuple(mismatches)


class Checkpoint(NamedTuple):
    """What :func:`restore` returns."""

    runner: Any  # the template's pytree type, filled with the saved arrays
    config: dict[str, Any]  # config_to_dict(PPOConfig) of the run that saved it
    step: int  # the update index it was saved at


def config_to_dict(config: Any) -> dict[str, Any]:
    """A plain, JSON/YAML-able dict of a ``PPOConfig`` (or a copy of a mapping).

    Built field by field: ``dataclasses.asdict`` (hence ``PPOConfig.to_dict``) deep-copies fields
    and cannot copy the read-only ``env_options`` and ``league_shares`` mappings.
    """
    if isinstance(config, Mapping):
        return dict(config)
    out = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    out["env_options"] = dict(out["env_options"])
    out["league_shares"] = dict(out["league_shares"])
    out["hidden_sizes"] = list(out["hidden_sizes"])
    return out


def checkpoint_dir(run_dir: str) -> str:
    """Absolute path of ``run_dir``'s checkpoint folder (orbax wants absolute paths)."""
    return os.path.abspath(os.path.join(run_dir, CHECKPOINT_SUBDIR))


def step_dir(run_dir: str, step: int) -> str:
    """Absolute path of the folder of checkpoint ``step`` (orbax names it by the step number)."""
    return os.path.join(checkpoint_dir(run_dir), str(int(step)))


def _check_folders(run_dir: str) -> None:
    """A run directory, or its checkpoint folder, that is a file: named here, not left to the OS's
    or orbax's exception."""
    for path in (run_dir, checkpoint_dir(run_dir)):
        if os.path.exists(path) and not os.path.isdir(path):
            raise CheckpointError(
                f"{os.path.abspath(path)}: not a directory (a run directory holds "
                f"{CHECKPOINT_SUBDIR}/<step>/ folders)"
            )


def _manager(run_dir: str, *, create: bool) -> ocp.CheckpointManager:
    options = ocp.CheckpointManagerOptions(create=create, enable_async_checkpointing=False)
    handlers = {
        "runner": ocp.StandardCheckpointHandler(),
        "config": ocp.JsonCheckpointHandler(),
        "meta": ocp.JsonCheckpointHandler(),
    }
    return ocp.CheckpointManager(checkpoint_dir(run_dir), options=options, item_handlers=handlers)


def _one_line(exc: BaseException, limit: int = 200) -> str:
    """The first line of an exception's message, at most ``limit`` characters."""
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------------------------------
# The digest


def _raise_walk_error(exc: OSError) -> None:
    raise exc


def _files(folder: str) -> list[str]:
    """Every file under ``folder`` as a ``/``-separated relative path, sorted, the digest left out.

    Raises OSError when a folder cannot be listed (never skipped silently)."""
    out = []
    for root, _, names in os.walk(folder, onerror=_raise_walk_error):
        for name in names:
            rel = os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/")
            if rel != DIGEST_FILE:
                out.append(rel)
    return sorted(out)


def _hash_file(path: str) -> tuple[int, str]:
    """``(size in bytes, SHA-256 hex digest)`` of the file at ``path``."""
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def _manifest_digest(step: int, files: Mapping[str, Mapping[str, Any]]) -> str:
    """SHA-256 of the step and the file list in canonical JSON: the digest file's own check."""
    canonical = json.dumps({"step": step, "files": files}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _write_digest(folder: str, step: int) -> None:
    """Write :data:`DIGEST_FILE` for the finished save in ``folder`` (atomically: a temporary file
    renamed into place, so a step has a complete digest or none)."""
    files = {}
    for rel in _files(folder):
        size, sha = _hash_file(os.path.join(folder, rel))
        files[rel] = {"bytes": size, "sha256": sha}
    manifest = {
        "format": DIGEST_FORMAT,
        "version": DIGEST_VERSION,
        "step": step,
        "algorithm": "sha256",
        "files": files,
        "digest": _manifest_digest(step, files),
    }
    tmp = os.path.join(folder, DIGEST_FILE + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=True)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, os.path.join(folder, DIGEST_FILE))


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_sha256(x: Any) -> bool:
    return isinstance(x, str) and len(x) == 64 and all(c in "0123456789abcdef" for c in x)


_MANIFEST_FIELDS = ("format", "version", "step", "algorithm", "files", "digest")


def _read_manifest(folder: str, step: int) -> dict[str, dict[str, Any]]:
    """The checked ``files`` table of ``folder``'s digest file; raises :class:`CheckpointError`."""
    path = os.path.join(folder, DIGEST_FILE)
    where = f"{folder}: {DIGEST_FILE}"
    if not os.path.isfile(path):
        raise CheckpointError(
            f"{folder}: no {DIGEST_FILE}: the checkpoint was written before checkpoints carried a "
            "digest, or its save was cut short; refused, since nothing shows that it is intact "
            "(checkpoint.restore(..., verify=False), or python -m tcgjax.train --resume RUN_DIR "
            "--no-verify, reads it unchecked)"
        )
    try:
        with open(path, encoding="utf-8") as fh:
            manifest = json_loads(fh.read())
    except (OSError, UnicodeDecodeError) as exc:
        raise CheckpointError(
            f"{where}: cannot read: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, DuplicateKeyError, huge ints
        raise CheckpointError(f"{where}: not a JSON digest file: {_one_line(exc)}") from None
    if not isinstance(manifest, dict):
        raise CheckpointError(f"{where}: not a JSON object")
    for name in _MANIFEST_FIELDS:
        if name not in manifest:
            raise CheckpointError(f"{where}: field {name!r} is missing")
    extra = sorted(set(manifest) - set(_MANIFEST_FIELDS))
    if extra:
        raise CheckpointError(f"{where}: unknown field {short_repr(extra[0])}")
    expected = {"format": DIGEST_FORMAT, "version": DIGEST_VERSION, "algorithm": "sha256"}
    for name, want in expected.items():
        have = manifest[name]
        if type(have) is not type(want) or have != want:
            raise CheckpointError(f"{where}: field {name!r} is {short_repr(have)}, not {want!r}")
    if not _is_int(manifest["step"]):
        raise CheckpointError(
            f"{where}: field 'step' is {short_repr(manifest['step'])}, not an int"
        )
    if manifest["step"] != step:
        raise CheckpointError(
            f"{where}: records step {manifest['step']}, but this is the folder of step {step} "
            "(a digest file from another step?)"
        )
    files = manifest["files"]
    if not isinstance(files, dict):
        raise CheckpointError(f"{where}: field 'files' is not an object")
    for rel, entry in files.items():
        if (
            not isinstance(entry, dict)
            or set(entry) != {"bytes", "sha256"}
            or not _is_int(entry["bytes"])
            or entry["bytes"] < 0
            or not _is_sha256(entry["sha256"])
        ):
            raise CheckpointError(
                f"{where}: files[{short_repr(rel)}] is not {{'bytes': int >= 0, 'sha256': 64 hex}}"
            )
    if not _is_sha256(manifest["digest"]) or manifest["digest"] != _manifest_digest(step, files):
        raise CheckpointError(
            f"{where}: the manifest's own digest does not match its entries: the digest file was "
            "damaged or edited"
        )
    return files


def _verify_folder(folder: str, step: int) -> None:
    files = _read_manifest(folder, step)
    try:
        found = _files(folder)
    except OSError as exc:
        raise CheckpointError(f"{folder}: cannot list its files: {exc}") from None
    problems = [
        f"{rel}: missing (the digest lists it, {files[rel]['bytes']} bytes)"
        for rel in sorted(set(files) - set(found))
    ]
    problems += [
        f"{rel}: not in the digest (added after the save)" for rel in found if rel not in files
    ]
    for rel in found:
        if rel not in files:
            continue
        want = files[rel]
        try:
            size, sha = _hash_file(os.path.join(folder, rel))
        except OSError as exc:
            problems.append(f"{rel}: cannot read: {exc.strerror or exc}")
            continue
        if size != want["bytes"]:
            problems.append(
                f"{rel}: {size} bytes, the digest recorded {want['bytes']} (truncated or extended)"
            )
        elif sha != want["sha256"]:
            problems.append(
                f"{rel}: its bytes differ from the digest (sha256 {sha[:16]}..., recorded "
                f"{want['sha256'][:16]}...): altered or damaged since the save"
            )
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise CheckpointError(f"{folder}: {problems[0]}{more}")


def verify(run_dir: str, step: int | None = None) -> int:
    """Check a checkpoint of ``run_dir`` against its digest without reading it; returns its step.

    Args:
      run_dir: the run directory given to :func:`save`.
      step: which step; default the latest.

    Raises:
      CheckpointError: no such checkpoint, no digest file or a damaged one, or a file missing,
        added, truncated or altered since the save (named, with the checkpoint folder).
    """
    step = _pick_step(run_dir, step)
    _verify_folder(step_dir(run_dir, step), step)
    return step


# --------------------------------------------------------------------------------------------------
# Save and restore


def _mismatches(stored: Any, abstract: Any) -> list[str]:
    """Leaves whose stored dtype or shape differs from the template's (orbax would cast dtypes
    silently, which would break bit-exact resumption), or that only one of the two has."""
    flat_stored = ocp.tree.to_flat_dict(stored)
    flat_want = ocp.tree.to_flat_dict(ocp.tree.serialize_tree(abstract, keep_empty_nodes=True))
    out = []
    for path, want in flat_want.items():
        name = ".".join(map(str, path))
        if not hasattr(want, "dtype"):
            continue  # an empty node (a zero-size leaf): not stored
        have = flat_stored.get(path)
        if not hasattr(have, "dtype"):
            out.append(f"{name}: not in the checkpoint")
        elif np.dtype(have.dtype) != np.dtype(want.dtype) or tuple(have.shape) != tuple(want.shape):
            out.append(
                f"{name}: stored {np.dtype(have.dtype)}{list(have.shape)}, "
                f"template {np.dtype(want.dtype)}{list(want.shape)}"
            )
    for path, have in flat_stored.items():
        if hasattr(have, "dtype") and not hasattr(flat_want.get(path), "dtype"):
            out.append(f"{'.'.join(map(str, path))}: not in the template")
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
    """Write ``runner`` (any pytree of arrays), ``config`` and ``step`` to ``run_dir/checkpoints/step``,
    then its digest (:data:`DIGEST_FILE`).

    Synchronous: the files are complete when it returns. Saving a step that already exists
    overwrites it.

    Args:
      run_dir: the run directory (created if missing).
      runner: the ``RunnerState`` (or any pytree of arrays).
      config: a ``PPOConfig`` or a JSON-able mapping.
      step: the update index (``int(runner.update)`` for a ``RunnerState``).

    Raises:
      CheckpointError: ``run_dir`` or its checkpoint folder is a file.
    """
    step = int(step)
    config_dict = config_to_dict(config)
    _check_folders(run_dir)
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
    folder = step_dir(run_dir, step)
    if not saved or not os.path.isdir(folder):
        raise RuntimeError(f"{checkpoint_dir(run_dir)}: orbax did not save step {step}")
    _write_digest(folder, step)


def all_steps(run_dir: str) -> list[int]:
    """The saved steps of ``run_dir``, ascending (empty if there is no checkpoint).

    Raises:
      CheckpointError: ``run_dir`` or its checkpoint folder is a file.
    """
    _check_folders(run_dir)
    if not os.path.isdir(checkpoint_dir(run_dir)):
        return []
    with _manager(run_dir, create=False) as mngr:
        return sorted(mngr.all_steps())


def latest_step(run_dir: str) -> int | None:
    """The last saved step of ``run_dir``, or None."""
    steps = all_steps(run_dir)
    return steps[-1] if steps else None


def _pick_step(run_dir: str, step: int | None) -> int:
    steps = all_steps(run_dir)
    if not steps:
        raise CheckpointError(f"{checkpoint_dir(run_dir)}: no checkpoint to restore")
    if step is None:
        step = steps[-1]
    if step not in steps:
        raise CheckpointError(
            f"{checkpoint_dir(run_dir)}: no checkpoint at step {short_repr(step)}; have {steps}"
        )
    if not os.path.isdir(step_dir(run_dir, step)):
        raise CheckpointError(f"{step_dir(run_dir, step)}: not a directory")
    return int(step)


def restore(
    run_dir: str, template_runner: Any, step: int | None = None, *, verify: bool = True
) -> Checkpoint:
    """Read a checkpoint of ``run_dir`` into the structure, shapes and dtypes of ``template_runner``.

    Args:
      run_dir: the run directory given to :func:`save`.
      template_runner: a pytree like the saved one (e.g. ``ppo.init(any_key)``); only its structure,
        shapes and dtypes are used, never its values.
      step: which step; default the latest.
      verify: check the checkpoint's digest first (the default). ``False`` reads a checkpoint
        without one (written before checkpoints carried a digest) unchecked: only for that.

    Returns:
      ``Checkpoint(runner, config, step)``.

    Raises:
      CheckpointError (a :class:`ConfigError`): no checkpoint in ``run_dir``, no such step, a
        digest that does not match the files (or none, with ``verify``), a leaf whose stored dtype
        or shape differs from the template's or that only one of them has (orbax itself would
        cast the dtype silently), or an item orbax cannot read. One line, naming the checkpoint
        folder.
    """
    step = _pick_step(run_dir, step)
    folder = step_dir(run_dir, step)
    if verify:
        _verify_folder(folder, step)
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, _to_saveable(template_runner))
    # Orbax reports a damaged item with whatever its layers raise (KeyError, AttributeError,
    # JSONDecodeError, TensorStore's bare Exception, ...): each becomes a named CheckpointError.
    try:
        with _manager(run_dir, create=False) as mngr:
            try:
                stored = mngr.item_metadata(step).runner.tree
            except Exception as exc:
                raise CheckpointError(
                    f"{folder}: the runner item's metadata cannot be read (runner/_METADATA "
                    f"missing or damaged?): {type(exc).__name__}: {_one_line(exc)}"
                ) from exc
            bad = _mismatches(stored, abstract)
            if bad:
                more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
                raise CheckpointError(
                    f"{folder}: the checkpoint does not fit the template (was the config "
                    "changed?): " + "; ".join(bad[:3]) + more,
                    mismatches=bad,
                )
            restored = mngr.restore(
                step,
                args=ocp.args.Composite(
                    runner=ocp.args.StandardRestore(abstract),
                    config=ocp.args.JsonRestore(),
                    meta=ocp.args.JsonRestore(),
                ),
            )
    except CheckpointError:
        raise
    except Exception as exc:
        raise CheckpointError(
            f"{folder}: orbax cannot read the checkpoint: {type(exc).__name__}: {_one_line(exc)}"
        ) from exc
    meta = restored.meta
    if not isinstance(meta, Mapping) or set(meta) != {"step"} or meta["step"] != step:
        raise CheckpointError(
            f"{folder}: the meta item is {short_repr(meta)}, not {{'step': {step}}}"
        )
    config = restored.config
    if not isinstance(config, Mapping):
        raise CheckpointError(f"{folder}: the config item is not a mapping")
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
        raise CheckpointError(f"{folder}: more arrays than the template has")
    runner = jax.tree.unflatten(treedef, arrays)
    return Checkpoint(runner=runner, config=dict(config), step=step)


def saved_config(run_dir: str, step: int | None = None, *, verify: bool = True) -> dict[str, Any]:
    """The config item of a checkpoint of ``run_dir`` (``config_to_dict`` of the run that saved
    it), without reading its arrays; ``step`` and ``verify`` as for :func:`restore`.

    Raises:
      CheckpointError: as :func:`restore`, for the digest and the config item.
    """
    step = _pick_step(run_dir, step)
    folder = step_dir(run_dir, step)
    if verify:
        _verify_folder(folder, step)
    try:
        with _manager(run_dir, create=False) as mngr:
            config = mngr.restore(
                step, args=ocp.args.Composite(config=ocp.args.JsonRestore())
            ).config
    except Exception as exc:  # orbax's own exceptions, as in restore
        raise CheckpointError(
            f"{folder}: orbax cannot read the config item: {type(exc).__name__}: {_one_line(exc)}"
        ) from exc
    if not isinstance(config, Mapping):
        raise CheckpointError(f"{folder}: the config item is not a mapping")
    return dict(config)
