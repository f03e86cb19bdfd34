"""Env wrappers: auto-reset and sampling here; the ecosystem adapters are their own modules,
imported on demand (they need the ``ecosystem`` extra: gymnasium, pettingzoo):

* ``tcgjax.wrappers.gymnasium``: ``TcgjaxEnv`` (one seat, ``gymnasium.Env``), ``TcgjaxVectorEnv``
  (a jitted batch, ``gymnasium.vector.VectorEnv``), ids ``tcgjax/<Game>-v0``;
* ``tcgjax.wrappers.pettingzoo``: ``TcgjaxAECEnv`` (``pettingzoo.AECEnv``).
"""

from tcgjax.wrappers.auto_reset import random_legal_action, random_play, reset_if_done

__all__ = ["reset_if_done", "random_legal_action", "random_play"]
