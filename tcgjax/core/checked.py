"""``checked_step``: a host-side step that raises instead of setting an error code."""

from __future__ import annotations

import functools

import jax
import numpy as np

from tcgjax.core import errors
from tcgjax.core.board import player_id
from tcgjax.core.env import Env, State
from tcgjax.core.errors import IllegalActionError
from tcgjax.core.first_use import announced
from tcgjax.core.serialization import _show

__all__ = ["checked_step", "check_action", "rule_error", "action_id"]


@functools.lru_cache(maxsize=32)
def _compiled(env: Env):
    """``(action_error, step)`` jitted once per env; their first calls say they compile."""
    return (
        announced(jax.jit(env.action_error), f"{env.id}'s rule check"),
        announced(jax.jit(env.step), f"{env.id}'s step"),
    )


def rule_error(env: Env, code: int, what: str) -> IllegalActionError:
    """The ``IllegalActionError`` for error ``code`` of ``env``; ``what`` names the action and actor."""
    rule = env.error_codes.name(code)
    return IllegalActionError(
        f"{env.id}: {what} is illegal: rule {rule!r}: {env.error_codes.message(code)}",
        code=code,
        rule=rule,
    )


def action_id(env: Env, action) -> int:
    """``action`` as a Python int in ``[0, env.num_actions)``, or raise ``IllegalActionError``.

    Accepted: a Python ``int`` or a NumPy integer scalar, or a 0-d NumPy/JAX array of an integer
    dtype (what ``jnp.argmax`` returns). Refused, whatever its value: ``bool`` and ``np.bool_``,
    floats (even ``3.0``), strings, ``None``, arrays with a dimension. An integer outside
    ``[0, num_actions)``, however large (beyond int32 included), is refused naming the id and
    the range; nothing is ever truncated, rounded or wrapped.
    """
    ok = isinstance(action, int | np.integer) and not isinstance(action, bool | np.bool_)
    if not ok and isinstance(action, np.ndarray | jax.Array) and np.ndim(action) == 0:
        dtype = np.dtype(action.dtype)
        ok = np.issubdtype(dtype, np.integer) and not isinstance(action, jax.core.Tracer)
    if not ok:
        raise IllegalActionError(
            f"{env.id}: an action must be one integer id in [0, {env.num_actions}), got "
            f"{_show(action)} ({type(action).__name__})",
            rule="action_not_an_integer",
        )
    value = int(action)
    if not 0 <= value < env.num_actions:
        raise IllegalActionError(
            f"{env.id}: action {_show(value)} is outside [0, {env.num_actions}): rule "
            f"'action_out_of_range': the action id is outside [0, num_actions)",
            code=errors.ACTION_OUT_OF_RANGE,
            rule="action_out_of_range",
        )
    return value


def check_action(env: Env, state: State, action) -> None:
    """Raise if ``action`` may not be applied to ``state`` (one game); return None if it may.

    Raises:
      IllegalActionError: the action is not an integer id (see :func:`action_id`), the game is
        over, the id is out of range, or the action breaks a rule; the message names the rule (see
        ``env.error_codes``), the action (its id and ``env.describe_action`` in ``state``) and
        the actor.
      Game-specific subclasses of ``TcgjaxError`` from the env's ``_check_action_host`` hook (e.g.
        the deployment game's ``DeploymentDeadlockError``).
    """
    if np.ndim(state.terminated) != 0:
        raise IllegalActionError("checked_step takes one game, not a batch")
    action_int = action_id(env, action)
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
    if code != 0:  # the move named as in this state (env.describe_action), e.g. a Digimon block
        name = env.describe_action(state, action_int)
        raise rule_error(env, code, f"action {action_int} ({name}) by {actor}")


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
    return step(state, action_id(env, action), key)
