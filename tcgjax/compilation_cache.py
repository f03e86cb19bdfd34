"""JAX's persistent compilation cache, on by default for everything tcgjax runs.

A game's ``step`` takes seconds to a minute or two to compile (Digimon's batched step is the
largest); with the cache, a program compiled once on a machine loads from disk in every later
process: the CLI, the Gymnasium and PettingZoo wrappers, ``checked_step``, replays, training.

``import tcgjax`` switches the cache on in this folder, unless the user chose otherwise:

1. ``TCGJAX_COMPILATION_CACHE=0`` (or ``off``, ``false``, ``no``): tcgjax leaves JAX's cache settings
   alone (off, unless JAX was configured directly);
2. a cache folder already set for JAX (``JAX_COMPILATION_CACHE_DIR`` or
   ``jax.config.update("jax_compilation_cache_dir", ...)`` before ``import tcgjax``) is kept;
3. otherwise ``$TCGJAX_CACHE_DIR``, else ``$XDG_CACHE_HOME/tcgjax/jax``, else
   ``~/.cache/tcgjax/jax``.

Only programs that took at least a second to compile are written (JAX's default threshold), so
the folder holds the games' big programs, not every small helper. JAX keys each entry by the
program, the JAX and XLA versions and the device, so a stale entry is never used. Delete the
folder at any time to clear it. As JAX's documentation warns, the cache is trusted code: do not
point it at a folder others can write to.
"""

from __future__ import annotations

import os

import jax

__all__ = ["cache_dir", "configure", "default_cache_dir"]

#: Environment variable that turns tcgjax's default cache off ("0", "off", "false", "no").
ENV_SWITCH = "TCGJAX_COMPILATION_CACHE"
#: Environment variable naming the cache folder tcgjax sets by default.
ENV_DIR = "TCGJAX_CACHE_DIR"
_OFF = ("0", "off", "false", "no")


def default_cache_dir() -> str:
    """The folder tcgjax uses when neither JAX nor ``$TCGJAX_CACHE_DIR`` names one."""
    if os.environ.get(ENV_DIR):
        return os.path.abspath(os.path.expanduser(os.environ[ENV_DIR]))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tcgjax", "jax")


def cache_dir() -> str | None:
    """The persistent cache folder JAX uses now (None: the cache is off)."""
    return jax.config.jax_compilation_cache_dir or None


def configure() -> str | None:
    """Apply the rules of this module's docstring (``import tcgjax`` calls it once).

    Returns the cache folder now in use, or None when the cache is off.
    """
    if os.environ.get(ENV_SWITCH, "").strip().lower() in _OFF:
        return cache_dir()
    if cache_dir() is None:
        jax.config.update("jax_compilation_cache_dir", default_cache_dir())
    return cache_dir()
