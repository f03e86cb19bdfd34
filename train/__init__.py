"""Masked PPO (Flax) for tcgjax envs: `tcgjax.train.run` is the main job (`make train`)."""
