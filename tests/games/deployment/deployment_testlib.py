"""Helpers shared by the deployment game's tests (a module of its own, not ``conftest``: a file
list that spans several test folders imports another folder's ``conftest`` under that name)."""

import copy

import yaml

from tcgjax.games.deployment.scenario import SCENARIO_DIR

SHIPPED = ("small", "walls", "overlap")


def shipped_dict(name: str = "small") -> dict:
    """A fresh, mutable dict of a shipped scenario (edit it to build explicit situations)."""
    with open(f"{SCENARIO_DIR}/{name}.yaml", encoding="utf-8") as fh:
        return copy.deepcopy(yaml.safe_load(fh))
