"""Env registry: ``{env_id: "module:Class"}`` entry points, imported lazily by :func:`make`."""

from __future__ import annotations

import importlib
import inspect
import weakref

from tcgjax.core.env import Env
from tcgjax.core.errors import ConfigError
from tcgjax.core.serialization import _show

__all__ = ["make", "available_envs", "register"]

_ENTRY_POINTS: dict[str, str] = {
    "deployment": "tcgjax.games.deployment.env:DeploymentEnv",
    "digimon": "tcgjax.games.digimon.env:DigimonEnv",
    "duel": "tcgjax.games.duel.env:DuelEnv",
    "pokemon": "tcgjax.games.pokemon.env:PokemonEnv",
}


def register(env_id: str, entry_point: str) -> None:
    """Register ``entry_point`` (``"package.module:ClassName"``) under ``env_id``."""
    if env_id in _ENTRY_POINTS:
        raise ConfigError(f"env id {env_id!r} is already registered")
    if ":" not in entry_point:
        raise ConfigError(f"entry point {entry_point!r} must look like 'package.module:ClassName'")
    _ENTRY_POINTS[env_id] = entry_point


def available_envs() -> tuple[str, ...]:
    """Ids accepted by :func:`make`, sorted."""
    return tuple(sorted(_ENTRY_POINTS))


def make(env_id: str, **options) -> Env:
    """Build the env ``env_id`` with keyword ``options`` (e.g. ``illegal_action="lose"``).

    Envs are immutable, so the same id and options give the same object while it is in use
    (anything still holds it): the compiled programs cached per env (``checked_step``, replays,
    the wrappers, the CLI) are reused, never compiled a second time in the process.

    Raises:
      ConfigError: an env id that is not a registered id (or not a string), or an option the
        env does not accept (names it and lists the accepted ones), or an invalid option value.
    """
    if not isinstance(env_id, str):
        raise ConfigError(
            f"env id {_show(env_id)} is not a string (an env id); available: "
            f"{list(available_envs())}"
        )
    try:
        entry_point = _ENTRY_POINTS[env_id]
    except KeyError:
        raise ConfigError(
            f"unknown env id {env_id!r}; available: {list(available_envs())}"
        ) from None
    module_name, class_name = entry_point.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    accepted = [
        name
        for name, p in inspect.signature(cls.__init__).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ConfigError(f"env {env_id!r}: unknown option {unknown[0]!r}; accepted: {accepted}")
    key = _options_key(env_id, options)
    if key is None:  # an option value that cannot be a dict key (a NumPy array, ...)
        return cls(**options)
    env = _MADE.get(key)
    if env is None or type(env) is not cls:
        env = cls(**options)
        # The same env asked for with its defaults spelled out (a replay's options) is the same.
        full = _options_key(env_id, dict(getattr(env, "options", options)))
        if full is not None:
            known = _MADE.get(full)
            env = known if known is not None and type(known) is cls else env
            _remember(full, env)
        _remember(key, env)
    return env


def _remember(key: tuple, env: Env) -> None:
    _MADE[key] = env


# An env is an immutable description of its game, so make() with the same id and options returns
# the same object while it is in use: every per-env cache (checked_step's and the replays' jitted
# programs, the wrappers', the CLI's) then serves it, and replaying a recorded game compiles
# nothing again. Weak values: an env nobody holds any more is forgotten (a notebook's display of
# states, tcgjax.core.render.display_env, counts the live envs of a game).
_MADE: weakref.WeakValueDictionary[tuple, Env] = weakref.WeakValueDictionary()


def _frozen(value):
    if isinstance(value, dict):
        return ("dict", tuple(sorted((repr(k), _frozen(v)) for k, v in value.items())))
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(_frozen(v) for v in value))
    hash(value)  # TypeError for anything else unhashable
    return (type(value).__name__, value)


def _options_key(env_id: str, options: dict) -> tuple | None:
    try:
        return (env_id, _frozen(options))
    except TypeError:
        return None
