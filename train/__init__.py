"""Masked PPO (Flax) for tcgjax envs: `train.run` is the main job (`make train`)."""
