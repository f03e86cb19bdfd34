"""Say what a first compile is doing: the one slow moment of a host-side entry point.

The first call of a jitted game function in a process traces and compiles it: well under a second
for the small games, up to a minute or two for a card game's ``checked_step`` on a small CPU the
first time on a machine (``benchmarks/RESULTS.md``, "First use"); later processes load the program
from JAX's persistent compilation cache (:mod:`tcgjax.compilation_cache`) in seconds. The entry
points people call by hand (``checked_step``, replays, the CLI, the Gymnasium and PettingZoo
wrappers) wrap their jitted functions in :func:`announced`, so that first call logs one line before
it starts and one with the time it took, on the ``tcgjax`` logger::

    tcgjax: compiling digimon's step (first use in this process; ...)
    tcgjax: digimon's step ready in 41.3 s

The ``tcgjax`` logger writes to stderr at INFO level unless the program configured it first;
``logging.getLogger("tcgjax").setLevel(logging.WARNING)`` silences it.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import Any

import jax

__all__ = ["announced", "logger"]

logger = logging.getLogger("tcgjax")
if not logger.handlers and logger.level == logging.NOTSET:
    _handler = logging.StreamHandler(sys.stderr)
    _handler.setFormatter(logging.Formatter("tcgjax: %(message)s"))
    logger.addHandler(_handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # one line, not one more through the root logger's handlers


class _Announced:
    """``fn`` whose first call logs the compile it triggers (see the module docstring)."""

    def __init__(self, fn: Callable, what: str) -> None:
        self._fn = fn
        self._what = what
        self._done = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._done:
            return self._fn(*args, **kwargs)
        from tcgjax.compilation_cache import cache_dir

        folder = cache_dir()
        where = (
            f"a program compiled before on this machine loads from the cache in {folder}"
            if folder
            else "the compilation cache is off: every new process compiles it again"
        )
        logger.info(f"compiling {self._what} (first use in this process; {where})")
        start = time.perf_counter()
        out = jax.block_until_ready(self._fn(*args, **kwargs))
        self._done = True
        logger.info(f"{self._what} ready in {time.perf_counter() - start:.1f} s")
        return out

    def __getattr__(self, name: str) -> Any:  # lower(), trace(), ... of the jitted function
        return getattr(self._fn, name)


def announced(fn: Callable, what: str) -> Callable:
    """``fn`` (a jitted function) whose first call logs ``compiling <what>`` and then the seconds
    it took; later calls go straight to ``fn``. Host-side only: call the result with concrete
    arrays, never inside another traced function."""
    return _Announced(fn, what)
