"""Fixtures shared by the Digimon rule tests: each test module defines its own ``rules`` (its
test-only cards); these compile that module's ``apply`` and ``action_errors`` once."""

import jax
import pytest


@pytest.fixture(scope="module")
def apply(rules):
    return jax.jit(rules.apply)


@pytest.fixture(scope="module")
def errors(rules):
    return jax.jit(rules.action_errors)
