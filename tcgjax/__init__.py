"""tcgjax: JAX-native functional environments for trading-card games and wargames.

>>> import jax, tcgjax
>>> env = tcgjax.make("duel")
>>> state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), 1024))
"""

from importlib.util import find_spec as _find_spec

from tcgjax import compilation_cache, replay, testing, wrappers
from tcgjax._version import __version__
from tcgjax.core.actions import ActionLayout
from tcgjax.core.board import Board, BoardLayout
from tcgjax.core.cards import CardRegistry, CardSchema
from tcgjax.core.checked import checked_step
from tcgjax.core.env import Env, State
from tcgjax.core.errors import (
    CardDataError,
    ConfigError,
    IllegalActionError,
    InvalidStateError,
    OutputError,
    PlayerError,
    ReplayError,
    SerializationError,
    TcgjaxError,
)
from tcgjax.core.observation import ObservationLayout
from tcgjax.core.serialization import from_json, from_json_batch, to_json
from tcgjax.core.visibility import is_visible_to
from tcgjax.core.zones import ZoneType, ZoneTypeRegistry
from tcgjax.registry import available_envs, make, register

compilation_cache.configure()  # on by default: see tcgjax.compilation_cache

# Gymnasium has no plugin discovery: where it is installed, `import tcgjax` registers the ids
# tcgjax/<Game>-v0, so a plain gymnasium.make("tcgjax/Duel-v0") works after it (~80 ms). Without
# importing tcgjax first, gymnasium.make("tcgjax.wrappers.gymnasium:tcgjax/Duel-v0") does the same.
if _find_spec("gymnasium") is not None:
    from tcgjax.wrappers import gymnasium as _gymnasium  # noqa: F401  (registers the ids)


__all__ = [
    "__version__",
    "make",
    "available_envs",
    "register",
    "Env",
    "State",
    "checked_step",
    "to_json",
    "from_json",
    "from_json_batch",
    "replay",
    "wrappers",
    "testing",
    "is_visible_to",
    "ActionLayout",
    "ObservationLayout",
    "Board",
    "BoardLayout",
    "CardRegistry",
    "CardSchema",
    "ZoneType",
    "ZoneTypeRegistry",
    "TcgjaxError",
    "ConfigError",
    "CardDataError",
    "IllegalActionError",
    "InvalidStateError",
    "PlayerError",
    "SerializationError",
    "ReplayError",
    "OutputError",
]
