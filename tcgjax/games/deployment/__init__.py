"""Hex wargame with an active deployment phase (``deployment_phase_v1.md``, decisions D1–D8)."""

from tcgjax.games.deployment.env import (
    DeployAction,
    DeploymentEnv,
    MoveAction,
    ShootAction,
    checked_deploy,
    decode_action,
    encode_deploy,
)
from tcgjax.games.deployment.metrics import (
    DeploymentAttempts,
    deployment_metrics,
    init_attempts,
    update_attempts,
)
from tcgjax.games.deployment.scenario import DeploymentDeadlockError, Scenario, load_scenario

__all__ = [
    "DeploymentAttempts",
    "deployment_metrics",
    "init_attempts",
    "update_attempts",
    "DeploymentEnv",
    "DeploymentDeadlockError",
    "DeployAction",
    "MoveAction",
    "ShootAction",
    "Scenario",
    "checked_deploy",
    "decode_action",
    "encode_deploy",
    "load_scenario",
]
