"""Env wrappers (auto-reset; Gymnasium/PettingZoo adapters come with later issues)."""

from tcgjax.wrappers.auto_reset import random_legal_action, reset_if_done

__all__ = ["reset_if_done", "random_legal_action"]
