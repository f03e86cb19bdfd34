"""The seed rule shared by every wrapper that takes a seed (Gymnasium, its vector env, PettingZoo).

A seed is ``None`` (fresh entropy, or the wrapper's own continuation; see each wrapper) or an
integer in ``[0, 2**32)``: a Python ``int`` or a NumPy integer scalar, never a ``bool``, a float
(even ``2.0``), a string or an array. Anything else raises :class:`tcgjax.ConfigError` naming the
wrapper and the value; nothing is rounded, wrapped or hashed into range.

Why ``2**32``: ``jax.random.PRNGKey(seed)`` keeps the low 32 bits of its seed when 64-bit types are
off (JAX's default), so seeds ``s`` and ``s + 2**32`` would give the same key, hence the same game,
in silence (and it raises ``OverflowError`` from ``2**63``); negative seeds wrap onto the same keys.
Gymnasium's own rule (``seeding.np_random``: a non-negative Python int) is narrowed to the same
range so that every wrapper accepts the same seeds. Stable-Baselines3 draws its seeds below
``2**32`` too.
"""

from __future__ import annotations

import numpy as np

from tcgjax.core.errors import ConfigError
from tcgjax.core.serialization import _show

__all__ = ["check_seed", "SEED_LIMIT"]

#: Seeds are integers in ``[0, SEED_LIMIT)``.
SEED_LIMIT = 2**32


def check_seed(seed, where: str) -> int | None:
    """``seed`` as a Python int (or None) if it follows the seed rule (module docstring).

    Args:
      seed: the seed a caller passed.
      where: who takes it, for the message (``"env 'duel'"``).

    Raises:
      ConfigError: naming ``where`` and the value, for anything but None or an integer in
        ``[0, 2**32)``.
    """
    if seed is None:
        return None
    if (
        isinstance(seed, bool | np.bool_)
        or not isinstance(seed, int | np.integer)
        or not 0 <= int(seed) < SEED_LIMIT
    ):
        raise ConfigError(
            f"{where}: seed={_show(seed)} must be None or an int in [0, 2**32) (a Python or NumPy "
            "integer, not a bool; jax.random.PRNGKey keeps 32 bits of a seed)"
        )
    return int(seed)
