"""Data-parallel PPO across devices and hosts with ``jax.sharding``.

One mesh axis, ``"batch"``, spans every device of every process. The env batch is split along it:
``env_state`` and ``learner_seat`` (leading ``[B]`` = ``num_envs``) are sharded, each device stepping
``B / D`` games; parameters, optimizer state, snapshots, the key and the update counter are
replicated. :func:`sharded_update` jits the unchanged ``PPO.update`` with those shardings and lets
the compiler (GSPMD / Shardy) partition it. The program's meaning does not depend on the mesh:
random keys are split exactly as on one device (threefry is partitionable), so 1, 2 or 8 devices
produce the same trajectories and, up to the order of float reductions, the same parameters.

How the compiler partitions today's ``PPO.update`` (read from the compiled HLO on 8 devices): the
rollout (env steps, policy and value forward passes) and the per-seat GAE run on each device's own
envs, with scalar all-reduces for ``any(truncated)`` and the episode counts. The minibatches are
drawn by one permutation of the whole ``[T * B]`` batch, so the trajectory is then all-gathered and
every device runs the epochs on full minibatches: the SGD phase is replicated, not split, and needs
no gradient all-reduce. Constraining the shuffled minibatches to :func:`minibatch_sharding`
(``jax.lax.with_sharding_constraint`` inside the update, a hook ``tcgjax.train.ppo`` does not have yet)
splits the SGD phase too; the loss, a mean over the global minibatch, then yields the average of
the per-device gradients, the compiler adding the all-reduce of the gradient sums.

Multi-host: call :func:`initialize_distributed` first in every process, then build the same mesh
(:func:`make_mesh` uses ``jax.devices()``, the global device list) and run the same program in
every process with the same config and key. :func:`sharded_init` creates the runner directly in
its global sharding (each process computes only the env slots of its own devices);
:func:`shard_runner` places a runner that every process holds in full (e.g. a restored checkpoint).
Replicated outputs (params, metrics) read back with ``np.asarray`` in every process; a sharded one
(``env_state``) with :func:`to_host`.

Example::

    mesh = make_mesh()                      # all devices, num_envs % mesh.size == 0
    init, update = sharded_init(ppo, mesh), sharded_update(ppo, mesh)
    runner = init(jax.random.key(config.seed))
    for _ in range(config.num_updates):
        runner, metrics = update(runner)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec

from tcgjax.core.errors import ConfigError
from tcgjax.train.ppo import PPO, RunnerState

__all__ = [
    "BATCH_AXIS",
    "initialize_distributed",
    "make_mesh",
    "minibatch_sharding",
    "runner_shardings",
    "shard_runner",
    "sharded_init",
    "sharded_update",
    "to_host",
]

BATCH_AXIS = "batch"


def initialize_distributed(
    coordinator_address: str,
    num_processes: int,
    process_id: int,
    *,
    local_device_ids: Sequence[int] | None = None,
    coordinator_bind_address: str | None = None,
    initialization_timeout: int = 300,
) -> None:
    """Join a multi-process JAX run (wraps :func:`jax.distributed.initialize`).

    Must run in every process before any other JAX call that touches a device. On CPU the
    cross-process collectives are gloo over TCP (``jax_cpu_collectives_implementation``, the
    default in JAX 0.10); on GPU/TPU the platform's own.

    Args:
      coordinator_address: ``"host:port"`` of process 0, reachable from every process.
      num_processes: number of processes in the run.
      process_id: this process's index in ``[0, num_processes)``.
      local_device_ids: restrict this process to these local devices (default: all).
      coordinator_bind_address: where process 0's coordinator listens (default ``[::]:port``,
        every interface); e.g. ``"127.0.0.1:port"`` for a single-machine run.
      initialization_timeout: seconds to wait for every process to join.
    """
    jax.distributed.initialize(
        coordinator_address=coordinator_address,
        num_processes=num_processes,
        process_id=process_id,
        local_device_ids=local_device_ids,
        coordinator_bind_address=coordinator_bind_address,
        initialization_timeout=initialization_timeout,
    )


def make_mesh(num_devices: int | None = None, *, devices: Sequence[Any] | None = None) -> Mesh:
    """A one-axis ``("batch",)`` mesh over ``num_devices`` devices (default: all, every process).

    Args:
      num_devices: mesh size; the first ``num_devices`` of ``devices``.
      devices: defaults to ``jax.devices()`` (global: every process's devices after
        :func:`initialize_distributed`).
    """
    devices = list(jax.devices() if devices is None else devices)
    num_devices = len(devices) if num_devices is None else num_devices
    if not 1 <= num_devices <= len(devices):
        raise ConfigError(f"make_mesh: num_devices={num_devices}, but {len(devices)} available")
    # Auto axes: the compiler propagates shardings through the unannotated PPO program.
    return jax.make_mesh(
        (num_devices,), (BATCH_AXIS,), axis_types=(AxisType.Auto,), devices=devices[:num_devices]
    )


def runner_shardings(mesh: Mesh) -> RunnerState:
    """The ``RunnerState`` sharding prefix tree: env batch split along ``"batch"``, rest replicated."""
    replicated = NamedSharding(mesh, PartitionSpec())
    batch = NamedSharding(mesh, PartitionSpec(BATCH_AXIS))
    return RunnerState(
        params=replicated,
        opt_state=replicated,
        env_state=batch,
        learner_seat=batch,
        snapshots=replicated,
        key=replicated,
        update=replicated,
        invalid_attempts=batch,
        league_win_rate=replicated,
    )


def minibatch_sharding(mesh: Mesh) -> NamedSharding:
    """Sharding of the update's shuffled minibatches ``[M, N / M, ...]``: rows split on ``"batch"``.

    Under it each device computes the loss terms and gradients of its own rows.
    """
    return NamedSharding(mesh, PartitionSpec(None, BATCH_AXIS))


def _check_divisible(ppo: PPO, mesh: Mesh) -> None:
    if ppo.config.num_envs % mesh.size:
        raise ConfigError(
            f"config key 'num_envs' = {ppo.config.num_envs}: must be a multiple of the "
            f"{mesh.size} devices of the mesh"
        )


def sharded_init(ppo: PPO, mesh: Mesh):
    """``init(key) -> RunnerState`` jitted to produce the runner in :func:`runner_shardings`.

    No host round trip: the env batch is created in place, partitioned like the rest of the
    program. In a multi-process run every process must pass the same key (JAX checks that).
    """
    _check_divisible(ppo, mesh)
    replicated = NamedSharding(mesh, PartitionSpec())
    init = jax.jit(ppo.init, in_shardings=replicated, out_shardings=runner_shardings(mesh))

    def sharded(key: jax.Array) -> RunnerState:
        return init(_put(key, replicated))

    return sharded


def shard_runner(runner: RunnerState, mesh: Mesh) -> RunnerState:
    """Place a runner, held in full by this process, in :func:`runner_shardings` on ``mesh``.

    Multi-process: every process must pass the same values (JAX checks that) and keeps only the
    shards of its own devices.
    """
    if runner.learner_seat.shape[0] % mesh.size:
        raise ConfigError(
            f"shard_runner: num_envs = {runner.learner_seat.shape[0]} is not a multiple of the "
            f"{mesh.size} devices of the mesh"
        )
    return jax.tree.map(
        lambda sharding, part: jax.tree.map(lambda x: _put(x, sharding), part),
        runner_shardings(mesh),
        runner,
    )


def _put(x: Any, sharding: NamedSharding) -> jax.Array:
    """``jax.device_put`` from host values, also onto devices of other processes.

    Multi-process ``device_put`` takes host (numpy) values that every process holds, so arrays
    are fetched first, and typed PRNG keys travel as their ``uint32`` data.
    """
    if isinstance(x, jax.Array) and jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
        data = _put(jax.random.key_data(x), sharding)
        return jax.random.wrap_key_data(data, impl=jax.random.key_impl(x))
    if isinstance(x, jax.Array) and not x.is_fully_addressable:
        return jax.device_put(x, sharding)  # already global: reshard
    return jax.device_put(np.asarray(x), sharding)


def sharded_update(ppo: PPO, mesh: Mesh, *, donate: bool = False):
    """``update(runner) -> (runner, metrics)``, jitted data-parallel over ``mesh``.

    The runner keeps its :func:`runner_shardings` across calls; metrics come back replicated.
    With ``donate=True`` the input runner's buffers are reused (do not touch it afterwards).
    """
    _check_divisible(ppo, mesh)
    shardings = runner_shardings(mesh)
    return jax.jit(
        ppo.update,
        in_shardings=(shardings,),
        out_shardings=(shardings, NamedSharding(mesh, PartitionSpec())),
        donate_argnums=(0,) if donate else (),
    )


def to_host(tree: Any) -> Any:
    """Numpy copies of a pytree of (possibly multi-process sharded) arrays, in every process.

    Typed PRNG keys come back as their ``uint32`` key data.
    """

    def fetch(x):
        if isinstance(x, jax.Array) and jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
            x = jax.random.key_data(x)
        if isinstance(x, jax.Array) and not (x.is_fully_addressable or x.is_fully_replicated):
            return np.asarray(multihost_utils.process_allgather(x, tiled=True))
        return np.asarray(x)

    return jax.tree.map(fetch, tree)
