"""Fixtures shared by the Digimon rule tests: each test module defines its own ``rules`` (its
test-only cards); these compile that module's ``apply`` and ``action_errors`` once."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tcgjax.games.digimon import actions as A


@pytest.fixture(scope="module")
def apply(rules):
    from digimon_testlib import jit_apply

    return jit_apply(rules)


@pytest.fixture(scope="module")
def perm(rules):
    """``jit(rules.permanents)``: every permanent's derived DP, keywords, ... of a state."""
    return jax.jit(rules.permanents)


@pytest.fixture(scope="module")
def errors(rules):
    """``action_errors`` of a state, checked on every call against the per-id
    ``action_error`` (what ``env.step`` uses to name an illegal action's rule) for all 2120 ids:
    every rule test's situation, in every phase it reaches, also tests that the two agree."""
    whole = jax.jit(rules.action_errors)
    ids = jnp.arange(A.NUM_ACTIONS)
    each = jax.jit(jax.vmap(rules.action_error, in_axes=(None, 0)))

    def checked(state):
        codes = whole(state)
        one_by_one = np.asarray(each(state, ids))
        differ = np.flatnonzero(one_by_one != np.asarray(codes))
        assert differ.size == 0, (
            f"action_error disagrees with action_errors at ids {differ[:10].tolist()}: "
            f"{one_by_one[differ[:10]].tolist()} vs {np.asarray(codes)[differ[:10]].tolist()}"
        )
        return codes

    return checked
