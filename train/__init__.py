"""Training entry points. Masked PPO arrives with its own issue; `train.run` is `make train`."""
