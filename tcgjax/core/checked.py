"""``checked_step``: a host-side step that raises instead of setting an error code."""

from __future__ import annotations

import functools

import jax
import numpy as np

from tcgjax.core.board import player_id
from tcgjax.core.env import Env, State
from tcgjax.core.errors import IllegalActionError

__all__ = ["checked_step", "check_action", "rule_error"]


@functools.lru_cache(maxsize=32)
def _compiled(env: Env):
    return jax.jit(env.action_error), jax.jit(env.step)


def rule_error(env: Env, code: int, what: str) -> IllegalActionError:
    """The ``IllegalActionError`` for error ``code`` of ``env``; ``what`` names the action and actor."""
    rule = env.error_codes.name(code)
    return IllegalActionError(
        f"{env.id}: {what} is illegal: rule {rule!r}: {env.error_codes.message(code)}",
        code=code,
        rule=rule,
    )


def check_action(env: Env, state: State, action) -> None:
    """Raise if ``action`` may not be applied to ``state`` (one game); return None if it may.

    Raises:
      IllegalActionError: the game is over, the id is out of range, or the action breaks a rule; the
        message names the rule (see ``env.error_codes``), the action and the actor.
      Game-specific subclasses of ``TcgjaxError`` from the env's ``_check_action_host`` hook (e.g.
        the deployment game's ``DeploymentDeadlockError``).
    """
    if np.ndim(state.terminated) != 0:
        raise IllegalActionError("checked_step takes one game, not a batch")
    if (
        isinstance(action, bool)
        or not isinstance(action, int | np.integer)
        and np.ndim(action) != 0
    ):
        raise IllegalActionError(f"{env.id}: action must be one integer, got {action!r}")
    action_int = int(action)
    actor = player_id(int(state.current_player))
    if bool(state.terminated) or bool(state.truncated):
        why = "terminated" if bool(state.terminated) else "truncated"
        raise IllegalActionError(
            f"{env.id}: the game is over ({why}); action {action_int} is not applied",
            rule="game_over",
        )
    env._check_action_host(state, action_int)
    action_error, _ = _compiled(env)
    code = int(action_error(state, action_int))
    if code != 0:
        raise rule_error(
            env, code, f"action {action_int} ({env.action_name(action_int)}) by {actor}"
        )


def checked_step(env: Env, state: State, action, key: jax.Array) -> State:
    """Step one game with ``action`` after checking it on the host; raise on anything illegal.

    Meant for debugging, scripts and the specs' "explicit error" requirements: the check runs on the
    host (it can raise), the step itself is ``env.step`` (jitted once per env). A legal action gives
    exactly ``env.step(state, action, key)``; an illegal one raises and changes nothing.

    Raises:
      IllegalActionError: see :func:`check_action`.
    """
    check_action(env, state, action)
    _, step = _compiled(env)
    return step(state, int(action), key)
