"""Env registry: ``{env_id: "module:Class"}`` entry points, imported lazily by :func:`make`."""

from __future__ import annotations

import importlib
import inspect

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
    return cls(**options)
