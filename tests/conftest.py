"""Shared fixtures. Compiled functions are shared per session; JAX's persistent cache is on."""

import os

import jax
import pytest

jax.config.update(
    "jax_compilation_cache_dir", os.path.join(os.path.dirname(__file__), "..", ".jax_cache")
)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


@pytest.fixture(scope="session")
def duel_env():
    import tcgjax

    return tcgjax.make("duel")
