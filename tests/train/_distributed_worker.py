"""Subprocess for ``test_train_distributed``: a few PPO updates on forced CPU devices, saved to npz.

The device count must be fixed before JAX is imported, hence one process per configuration::

    python _distributed_worker.py OUT.npz --devices 8                  # mesh over all 8 devices
    python _distributed_worker.py OUT.npz --devices 1 --plain          # jax.jit(ppo.update), no mesh
    python _distributed_worker.py OUT.npz --devices 2 \\
        --coordinator 127.0.0.1:PORT --num-processes 2 --process-id I  # one process of a global mesh

Saved: ``param/<path>`` (final params), ``metric/<name>`` (``[U]``, one per update),
``env/<path>`` (final env state, gathered), ``learner_seat``, ``shard_rows`` (env rows on each
local device), ``params_replicated``, ``num_devices``, ``process_count``, ``errors``; with 2
local devices ``shard_runner_*``, on the 8-device mesh ``grad/*`` (:func:`gradient_average_check`).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys

NUM_UPDATES = 3


def tiny_config():
    from tcgjax.train.config import PPOConfig

    # max_steps=10 truncates games inside the run (resets, truncation values, seat swaps); the
    # snapshot opponent adds replicated snapshots and learner-only weights to the sharded program.
    return PPOConfig(
        env_id="deployment",
        env_options={"max_steps": 10},
        num_envs=16,
        num_steps=8,
        update_epochs=2,
        num_minibatches=2,
        hidden_sizes=(32,),
        total_timesteps=16 * 8 * NUM_UPDATES,
        opponent="snapshot",
        snapshot_pool_size=2,
        snapshot_every=2,
    )


def shard_runner_check(ppo, mesh, key, runner) -> dict:
    """A runner held in full by every process, placed by ``shard_runner``, is the same runner."""
    import jax
    import numpy as np

    from tcgjax.train import distributed

    placed = distributed.shard_runner(jax.jit(ppo.init)(key), mesh)
    same = jax.tree.map(np.array_equal, distributed.to_host(placed), distributed.to_host(runner))
    return {
        "shard_runner_matches": np.array(all(jax.tree.leaves(same))),
        "shard_runner_sharded": np.array(
            placed.env_state.observation.sharding == runner.env_state.observation.sharding
        ),
    }


def gradient_average_check(ppo, mesh) -> dict:
    """The gradient of a loss averaged over a batch sharded on ``mesh`` vs the mean of per-shard
    gradients (explicit data-parallel averaging): GSPMD inserts the all-reduce by itself."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import NamedSharding, PartitionSpec

    from tcgjax.train.distributed import BATCH_AXIS

    k_obs, k_net = jax.random.split(jax.random.key(3))
    obs = jax.random.normal(k_obs, (4 * mesh.size,) + tuple(ppo.env.observation_shape))
    params = ppo.network.init(k_net, obs[:1])

    def loss(params, obs):
        logits, value = ppo.network.apply(params, obs)
        return jnp.mean(jax.nn.logsumexp(logits, axis=-1) + value**2)

    grad = jax.jit(
        jax.grad(loss),
        in_shardings=(
            NamedSharding(mesh, PartitionSpec()),
            NamedSharding(mesh, PartitionSpec(BATCH_AXIS)),
        ),
    )
    hlo = grad.lower(params, obs).compile().as_text()
    sharded = grad(params, obs)
    per_shard = [jax.grad(loss)(params, chunk) for chunk in jnp.split(obs, mesh.size)]
    averaged = jax.tree.map(lambda *g: sum(g) / len(g), *per_shard)
    leaves = lambda tree: np.concatenate([np.ravel(x) for x in jax.tree.leaves(tree)])
    return {
        "grad/sharded": leaves(sharded),
        "grad/averaged": leaves(averaged),
        "grad/all_reduce": np.array("all-reduce(" in hlo),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--devices", type=int, required=True, help="forced CPU devices here")
    parser.add_argument("--plain", action="store_true", help="single-device jax.jit, no mesh")
    parser.add_argument("--coordinator")
    parser.add_argument("--num-processes", type=int, default=1)
    parser.add_argument("--process-id", type=int, default=0)
    args = parser.parse_args()

    os.environ["JAX_PLATFORMS"] = "cpu"
    flags = os.environ.get("XLA_FLAGS", "")
    os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={args.devices}"
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

    import jax
    import numpy as np

    from tcgjax.core.errors import ConfigError
    from tcgjax.train import distributed
    from tcgjax.train.ppo import make_ppo

    if args.coordinator:
        port = args.coordinator.rsplit(":", 1)[1]
        distributed.initialize_distributed(
            args.coordinator,
            args.num_processes,
            args.process_id,
            coordinator_bind_address=f"127.0.0.1:{port}",
            initialization_timeout=90,
        )
    assert jax.local_device_count() == args.devices, jax.local_devices()

    config = tiny_config()
    ppo = make_ppo(config)
    key = jax.random.key(7)
    errors = []
    extra = {}
    if args.plain:
        runner = jax.jit(ppo.init)(key)
        update = jax.jit(ppo.update)
    else:
        mesh = distributed.make_mesh()
        # The SGD phase is data-parallel too: minibatches are sharded along the batch axis.
        ppo = make_ppo(config, minibatch_sharding=distributed.minibatch_sharding(mesh))
        runner = distributed.sharded_init(ppo, mesh)(key)
        update = distributed.sharded_update(ppo, mesh)
        if mesh.size > 1:  # an env batch the mesh cannot split is refused up front
            odd = make_ppo(dataclasses.replace(config, num_envs=mesh.size * 2 + 1))
            try:
                distributed.sharded_update(odd, mesh)
            except ConfigError as exc:
                errors.append(str(exc))
        if args.devices == 2:  # the 2-device run and both processes of the 2 x 2 run
            extra.update(shard_runner_check(ppo, mesh, key, runner))
        if args.num_processes == 1 and mesh.size == 8:
            extra.update(gradient_average_check(ppo, mesh))
    metrics = []
    for _ in range(NUM_UPDATES):
        runner, m = update(runner)
        metrics.append(m)

    out = {
        f"param/{jax.tree_util.keystr(path)}": leaf
        for path, leaf in jax.tree_util.tree_leaves_with_path(distributed.to_host(runner.params))
    }
    out.update(
        {
            f"env/{jax.tree_util.keystr(path)}": leaf
            for path, leaf in jax.tree_util.tree_leaves_with_path(
                distributed.to_host(runner.env_state)
            )
        }
    )
    for name in metrics[0]:
        out[f"metric/{name}"] = np.stack([np.asarray(m[name]) for m in metrics])
    out["learner_seat"] = distributed.to_host(runner.learner_seat)
    out["shard_rows"] = np.array(
        [s.data.shape[0] for s in runner.env_state.observation.addressable_shards]
    )
    out["params_replicated"] = np.array(
        all(x.sharding.is_fully_replicated for x in jax.tree.leaves(runner.params))
    )
    out["num_devices"] = np.array(jax.device_count())
    out["process_count"] = np.array(jax.process_count())
    out["errors"] = np.array(errors, dtype=str)
    out.update(extra)
    np.savez(args.out, **out)
    if args.coordinator:
        jax.distributed.shutdown()


if __name__ == "__main__":
    main()
