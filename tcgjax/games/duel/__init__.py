"""*duel*: the minimal two-player example card game, built only on the tcgjax core."""

from tcgjax.games.duel.env import DuelEnv

__all__ = ["DuelEnv"]
