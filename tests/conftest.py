"""Shared fixtures. Compiled functions are shared per session (session and module fixtures).

JAX's persistent compilation cache is OFF in the test session unless ``TCGJAX_TEST_CACHE=1``: in
two of four fresh-clone CI runs on 2026-11-26 a pytest worker died of a segmentation fault inside
XLA's CPU executable serialization (``executable.serialize()`` in the cache write, both times
under an eager ``vmap(reset_if_done)`` in ``tests/wrappers/test_wrappers_sampling.py``), after
which pytest-xdist hung. Without the cache nothing is serialized or deserialized; the suite pays
more compilation instead.
"""

import os

import jax
import pytest

if os.environ.get("TCGJAX_TEST_CACHE") == "1":
    jax.config.update(
        "jax_compilation_cache_dir", os.path.join(os.path.dirname(__file__), "..", ".jax_cache")
    )
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


@pytest.fixture(scope="session")
def duel_env():
    import tcgjax

    return tcgjax.make("duel")
