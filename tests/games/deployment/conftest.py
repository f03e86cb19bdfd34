"""Shared fixtures for the deployment game tests (envs are built once per session)."""

import copy

import jax
import pytest
import yaml

import tcgjax
from tcgjax.games.deployment.scenario import SCENARIO_DIR

SHIPPED = ("small", "walls", "overlap")


def shipped_dict(name: str = "small") -> dict:
    """A fresh, mutable dict of a shipped scenario (edit it to build explicit situations)."""
    with open(f"{SCENARIO_DIR}/{name}.yaml", encoding="utf-8") as fh:
        return copy.deepcopy(yaml.safe_load(fh))


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
