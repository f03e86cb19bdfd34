"""Replays (decision E3): ``{commandLog, randomTape, initialState}`` plus env id, version and options.

Record a game with a :class:`Recorder`; ``export()`` gives a JSON-ready dict; :func:`run` re-simulates it
and returns the final state, equal array-by-array to the recorded one.

* ``commandLog``: one entry per applied action, ``{"type": "action", "payload": {"playerId",
  "action", "actionName"}, "timestamp": i}``. The timestamp is the entry's logical index (never the
  wall clock, so a replay is deterministic). Each entry is self-sufficient.
* ``randomTape``: ``{"values": [[k0, k1], ...], "index": 0}``, the PRNG key (raw ``uint32[2]``) each
  step consumed, in order, and the read index a replay starts from.
* ``initialState``: the JSON view of the starting state (:mod:`tcgjax.core.serialization`).
* ``final``: ``{"stepCount", "sha256"}`` of the recorded final state's JSON, checked by :func:`run`.

:func:`run` raises :class:`ReplayError` when the env id/version does not match, a command is
malformed or illegal at its point in the log (the error names the rule), the tape runs out, or the final
state differs from the recorded digest (a tampered but legal log).
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core.board import player_id
from tcgjax.core.checked import _compiled, check_action, checked_step
from tcgjax.core.env import Env, State
from tcgjax.core.errors import IllegalActionError, ReplayError, SerializationError, TcgjaxError
from tcgjax.core.serialization import state_from_dict, state_to_dict, to_json

__all__ = ["Recorder", "run", "key_to_tape", "digest"]


def key_to_tape(key: jax.Array) -> list[int]:
    """A PRNG key (raw ``uint32[2]`` or typed) as the two ints stored on the tape."""
    if jnp.issubdtype(jnp.asarray(key).dtype, jax.dtypes.prng_key):
        key = jax.random.key_data(key)
    values = np.asarray(key, np.uint32).reshape(-1).tolist()
    if len(values) != 2:
        raise ReplayError(f"randomTape: expected a threefry key of 2 uint32, got {len(values)}")
    return values


def digest(env: Env, state: State) -> str:
    """sha256 of the canonical JSON of ``state``."""
    return hashlib.sha256(to_json(env, state).encode()).hexdigest()


class Recorder:
    """Records a game as it is played. Only legal actions are recorded (others raise).

    >>> rec = Recorder(env, env.init(key))
    >>> state = rec.step(action, step_key)
    >>> replay = rec.export()
    """

    def __init__(self, env: Env, state: State):
        self.env = env
        self.state = state
        self._initial = state_to_dict(env, state)
        self._commands: list[dict[str, Any]] = []
        self._tape: list[list[int]] = []

    def step(self, action: int, key: jax.Array) -> State:
        """Apply ``action`` with ``key`` via :func:`tcgjax.checked_step`, log it, return the state."""
        actor = int(self.state.current_player)
        self.state = checked_step(self.env, self.state, action, key)
        self._commands.append(
            {
                "type": "action",
                "payload": {
                    "playerId": player_id(actor),
                    "action": int(action),
                    "actionName": self.env.action_name(int(action)),
                },
                "timestamp": len(self._commands),
            }
        )
        self._tape.append(key_to_tape(key))
        return self.state

    def export(self) -> dict[str, Any]:
        """The replay as a JSON-ready dict."""
        return {
            "envId": self.env.id,
            "envVersion": self.env.version,
            "options": dict(self.env.options),
            "initialState": copy.deepcopy(self._initial),
            "commandLog": copy.deepcopy(self._commands),
            "randomTape": {"values": [list(v) for v in self._tape], "index": 0},
            "final": {
                "stepCount": int(self.state.step_count),
                "sha256": digest(self.env, self.state),
            },
        }


def _field(obj: Any, key: str, path: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise ReplayError(f"{path}.{key}: missing field")
    return obj[key]


def run(replay: dict[str, Any], env: Env | None = None) -> State:
    """Re-simulate ``replay`` and return its final state (equal to the recorded one).

    Args:
      replay: a dict from :meth:`Recorder.export` (e.g. after ``json.load``).
      env: the env to use; by default ``tcgjax.make(envId, **options)``.

    Raises:
      ReplayError: see the module docstring; the message names the command index and the rule.
    """
    from tcgjax.registry import make

    env_id = _field(replay, "envId", "replay")
    options = _field(replay, "options", "replay")
    if env is None:
        try:
            env = make(env_id, **options)
        except TcgjaxError as exc:
            raise ReplayError(f"replay.envId/options: cannot make the env: {exc}") from exc
    if env.id != env_id or _field(replay, "envVersion", "replay") != env.version:
        raise ReplayError(
            f"replay is for {env_id!r} v{replay.get('envVersion')!r}, env is {env.id!r} v{env.version!r}"
        )
    if dict(env.options) != dict(options):
        raise ReplayError(f"replay.options {options!r} != env options {env.options!r}")
    try:
        state = state_from_dict(env, _field(replay, "initialState", "replay"))
    except SerializationError as exc:
        raise ReplayError(f"replay.initialState: {exc}") from exc
    commands = _field(replay, "commandLog", "replay")
    tape = _field(replay, "randomTape", "replay")
    values, index = _field(tape, "values", "randomTape"), _field(tape, "index", "randomTape")
    if not isinstance(commands, list) or not isinstance(values, list) or not isinstance(index, int):
        raise ReplayError("replay: commandLog and randomTape.values must be lists, index an int")
    _, step = _compiled(env)
    for i, command in enumerate(commands):
        path = f"commandLog[{i}]"
        if (
            not isinstance(command, dict)
            or command.get("type") != "action"
            or set(command) != {"type", "payload", "timestamp"}
        ):
            raise ReplayError(f"{path}: malformed command {command!r}")
        payload = command["payload"]
        action = payload.get("action") if isinstance(payload, dict) else None
        if isinstance(action, bool) or not isinstance(action, int):
            raise ReplayError(f"{path}.payload.action: expected an int, got {action!r}")
        if payload.get("playerId") != player_id(int(state.current_player)):
            raise ReplayError(
                f"{path}.payload.playerId: {payload.get('playerId')!r} is not the player to act "
                f"({player_id(int(state.current_player))})"
            )
        if index >= len(values):
            raise ReplayError(
                f"{path}: randomTape exhausted at index {index} ({len(values)} values)"
            )
        raw = values[index]
        if not (
            isinstance(raw, list)
            and len(raw) == 2
            and all(isinstance(v, int) and 0 <= v < 2**32 for v in raw)
        ):
            raise ReplayError(f"randomTape.values[{index}]: not a key of 2 uint32: {raw!r}")
        index += 1
        key = jnp.asarray(raw, jnp.uint32)
        try:
            check_action(env, state, action)
        except IllegalActionError as exc:
            raise ReplayError(f"{path}: illegal at this point of the log: {exc}") from exc
        state = step(state, action, key)
    final = replay.get("final")
    if final is not None:
        if not isinstance(final, dict) or set(final) != {"stepCount", "sha256"}:
            raise ReplayError("replay.final: expected {stepCount, sha256}")
        if int(state.step_count) != final["stepCount"] or digest(env, state) != final["sha256"]:
            raise ReplayError(
                "replay.final: the re-simulated final state differs from the recorded one "
                "(tampered log, tape or initial state)"
            )
    return state
