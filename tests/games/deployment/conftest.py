"""Shared fixtures for the deployment game tests (envs are built once per session)."""

import jax
import pytest
from deployment_testlib import shipped_dict

import tcgjax


@pytest.fixture(scope="session")
def deployment_env():
    return tcgjax.make("deployment")


@pytest.fixture(scope="session")
def deployment_step(deployment_env):
    return jax.jit(deployment_env.step)


@pytest.fixture
def scenario_dict():
    """Factory: ``scenario_dict("small")`` returns a fresh dict copy of a shipped scenario."""
    return shipped_dict
