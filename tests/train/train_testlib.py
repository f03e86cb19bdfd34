"""Shared test settings for the train tests."""

# configs/ppo/deployment.yaml shrunk: 4 updates of 16 envs x 8 steps. The checkpoint and run tests
# use the same list so their compiled update is shared through JAX's persistent cache (same xdist
# group).
TINY = [
    "num_envs=16",
    "num_steps=8",
    "hidden_sizes=[32]",
    "num_minibatches=2",
    "update_epochs=2",
    "total_timesteps=512",  # 4 updates
    "eval_games=8",
    "eval_every=2",
    "checkpoint_every=2",
]
