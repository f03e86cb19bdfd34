"""Replays (decision E3): ``{commandLog, randomTape, initialState}`` plus env id, version and options.

Record a game with a :class:`Recorder`; ``export()`` gives a JSON-ready dict; :func:`run` re-simulates it
and returns the final state, equal array-by-array to the recorded one.

* ``commandLog``: one entry per applied action, ``{"type": "action", "payload": {"playerId",
  "action", "actionName"}, "timestamp": i}``. The timestamp is the entry's logical index (never the
  wall clock, so a replay is deterministic). Each entry is self-sufficient. ``actionName`` is the
  move's name in the position it was made in (``env.describe_action(state, action)``, every card
  named: ``block with Garurumon (field 0)``), redundant with ``action`` and checked on load.
* ``replayFormat``: ``2`` (:data:`REPLAY_FORMAT`), what ``actionName`` holds. A replay without the
  field is format 1, recorded before moves were named by their position: its names are the
  phase-free id names (``env.action_name(action)``: ``attack[0->field0]`` for that block). Both
  formats load; each command's name must be exactly its format's name, so an old recording
  replays as it was written and a new one cannot carry an old name (or any other text).
* ``randomTape``: ``{"values": [[k0, k1], ...], "index": 0}``, the PRNG key (raw ``uint32[2]``) each
  step consumed, in order, and the read index a replay starts from.
* ``initialState``: the JSON view of the starting state (:mod:`tcgjax.core.serialization`).
* ``final``: ``{"stepCount", "sha256"}`` of the recorded final state's JSON, checked by :func:`run`;
  required unless the caller passes ``verify=False`` explicitly.

:func:`run` raises :class:`ReplayError` when a field of the envelope is missing, unknown or of the
wrong type (the message names it), the env id/version/options do not match, a command is malformed
(its action not an integer id, its ``actionName`` not the move's name in the replay's format, its
timestamp not its index)
or illegal at its point in the log (the error names the rule), the tape index is out of range or the
tape runs out, or the final state differs from the recorded digest (a tampered but legal log).
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core.board import player_id
from tcgjax.core.checked import _compiled, action_id, check_action, checked_step
from tcgjax.core.env import Env, State
from tcgjax.core.errors import IllegalActionError, ReplayError, SerializationError, TcgjaxError
from tcgjax.core.serialization import _check_keys, state_from_dict, state_to_dict, to_json

__all__ = ["Recorder", "run", "frames", "key_to_tape", "digest", "REPLAY_FORMAT"]

# 2: ``actionName`` is ``env.describe_action`` in the state before the move; 1 (no
# ``replayFormat`` field): the phase-free ``env.action_name``.
REPLAY_FORMAT = 2
REPLAY_FORMATS = (1, 2)


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
        """Apply ``action`` with ``key`` via :func:`tcgjax.checked_step`, log it (named in the state
        before the move, ``env.describe_action``), return the state."""
        before = self.state
        actor = int(before.current_player)
        self.state = checked_step(self.env, before, action, key)
        action = action_id(self.env, action)
        self._commands.append(
            {
                "type": "action",
                "payload": {
                    "playerId": player_id(actor),
                    "action": action,
                    "actionName": self.env.describe_action(before, action),
                },
                "timestamp": len(self._commands),
            }
        )
        self._tape.append(key_to_tape(key))
        return self.state

    def export(self) -> dict[str, Any]:
        """The replay as a JSON-ready dict."""
        return {
            "replayFormat": REPLAY_FORMAT,
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


ENVELOPE_FIELDS = (
    "envId",
    "envVersion",
    "options",
    "initialState",
    "commandLog",
    "randomTape",
    "final",
)
COMMAND_FIELDS = ("type", "payload", "timestamp")
PAYLOAD_FIELDS = ("playerId", "action", "actionName")


def _field(obj: Any, key: str, path: str, kind: type | tuple[type, ...], what: str) -> Any:
    """``obj[key]``, which must exist and be an instance of ``kind`` (never a bool for int)."""
    if not isinstance(obj, dict) or key not in obj:
        raise ReplayError(f"{path}.{key}: missing field")
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        raise ReplayError(f"{path}.{key}: expected {what}, got {value!r}")
    return value


def _as_tuple(kind) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def _exact_keys(obj: dict, expected: tuple[str, ...], path: str) -> None:
    _check_keys(obj, expected, path, ReplayError)


def _tape_key(values: list, index: int, path: str) -> jax.Array:
    if index >= len(values):
        raise ReplayError(f"{path}: randomTape exhausted at index {index} ({len(values)} values)")
    raw = values[index]
    if not (
        isinstance(raw, list)
        and len(raw) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**32 for v in raw)
    ):
        raise ReplayError(f"randomTape.values[{index}]: not a key of 2 uint32: {raw!r}")
    return jnp.asarray(raw, jnp.uint32)


def _recorded_name(env: Env, state: State, action: int, replay_format: int) -> str:
    """The ``actionName`` a replay of ``replay_format`` holds for ``action`` in ``state``."""
    if replay_format == 1:
        return env.action_name(action)
    return env.describe_action(state, action)


def _format_name(replay_format: int) -> str:
    if replay_format == 1:
        return "in a format-1 replay (no replayFormat field) its phase-free id name"
    return "its name in this position (env.describe_action)"


def run(replay: dict[str, Any], env: Env | None = None, *, verify: bool = True) -> State:
    """Re-simulate ``replay`` and return its final state (equal to the recorded one).

    Args:
      replay: a dict from :meth:`Recorder.export` (e.g. after ``json.load``).
      env: the env to use; by default ``tcgjax.make(envId, **options)``.
      verify: check the re-simulated final state against the replay's ``final`` digest (default).
        A replay without ``final`` is refused unless the caller opts out explicitly with
        ``verify=False``; then the log is still checked command by command (legality, actor,
        tape) but an edited initial state or a dropped trailing command cannot be detected.

    Raises:
      ReplayError: see the module docstring; the message names the field, the command index and
        the rule.
    """
    final = None
    for _, state, _ in frames(replay, env, verify=verify):
        final = state
    return final


def frames(
    replay: dict[str, Any], env: Env | None = None, *, verify: bool = True
) -> Iterator[tuple[Env, State, int | None]]:
    """Re-simulate ``replay`` one step at a time: yields ``(env, state, action)``, first the
    initial state (action ``None``), then the state after each command with its action id. The
    envelope and every command are checked as in :func:`run` (same arguments, same errors); the
    final digest is checked after the last state is yielded, so a consumer that stops early
    (a viewer of the first moves) does not verify it."""
    from tcgjax.registry import make

    if not isinstance(replay, dict):
        raise ReplayError(f"replay: expected a JSON object (dict), got {type(replay).__name__}")
    if not isinstance(verify, bool):
        raise ReplayError(f"run(verify={verify!r}): expected True or False")
    expected = ENVELOPE_FIELDS if verify else tuple(f for f in ENVELOPE_FIELDS if f != "final")
    if "replayFormat" in replay:  # absent: format 1
        expected += ("replayFormat",)
    _exact_keys({k: v for k, v in replay.items() if verify or k != "final"}, expected, "replay")
    replay_format = replay.get("replayFormat", 1)
    if (
        isinstance(replay_format, bool)
        or not isinstance(replay_format, int)
        or replay_format not in REPLAY_FORMATS
    ):
        raise ReplayError(
            f"replay.replayFormat: {replay_format!r} is not a known format (2: moves named in "
            "their position, env.describe_action; 1, or no field: the phase-free id names "
            "of older recordings, env.action_name)"
        )
    env_id = _field(replay, "envId", "replay", str, "a string")
    version = _field(replay, "envVersion", "replay", str, "a string")
    options = _field(replay, "options", "replay", dict, "an object of env options")
    initial = _field(replay, "initialState", "replay", dict, "a JSON state object")
    commands = _field(replay, "commandLog", "replay", list, "a list of commands")
    tape = _field(replay, "randomTape", "replay", dict, "an object {values, index}")
    _exact_keys(tape, ("values", "index"), "replay.randomTape")
    values = _field(tape, "values", "replay.randomTape", list, "a list of keys")
    index = _field(tape, "index", "replay.randomTape", int, "an int")
    if not 0 <= index <= len(values):
        raise ReplayError(
            f"replay.randomTape.index: {index} outside [0, {len(values)}] (the tape's length)"
        )
    final = None
    if verify:
        final = _field(replay, "final", "replay", dict, "an object {stepCount, sha256}")
        _exact_keys(final, ("stepCount", "sha256"), "replay.final")
        _field(final, "stepCount", "replay.final", int, "an int")
        _field(final, "sha256", "replay.final", str, "a hex string")
    if env is None:
        try:
            env = make(env_id, **options)
        except TcgjaxError as exc:
            raise ReplayError(f"replay.envId/options: cannot make the env: {exc}") from exc
    if env.id != env_id or version != env.version:
        raise ReplayError(
            f"replay is for {env_id!r} v{version!r}, env is {env.id!r} v{env.version!r}"
        )
    if dict(env.options) != dict(options):
        raise ReplayError(f"replay.options {options!r} != env options {env.options!r}")
    try:
        state = state_from_dict(env, initial)
    except SerializationError as exc:
        raise ReplayError(f"replay.initialState: {exc}") from exc
    _, step = _compiled(env)
    yield env, state, None
    for i, command in enumerate(commands):
        path = f"replay.commandLog[{i}]"
        if not isinstance(command, dict):
            raise ReplayError(f"{path}: expected a command object, got {command!r}")
        _exact_keys(command, COMMAND_FIELDS, path)
        if command["type"] != "action":
            raise ReplayError(f"{path}.type: {command['type']!r} is not 'action'")
        timestamp = _field(command, "timestamp", path, int, "an int")
        if timestamp != i:
            raise ReplayError(f"{path}.timestamp: {timestamp} != its index {i} in the log")
        payload = _field(command, "payload", path, dict, "an object")
        _exact_keys(payload, PAYLOAD_FIELDS, f"{path}.payload")
        action = payload["action"]
        try:
            action = action_id(env, action)
        except IllegalActionError as exc:
            raise ReplayError(f"{path}.payload.action: {exc}") from exc
        actor = player_id(int(state.current_player))
        if payload["playerId"] != actor:
            raise ReplayError(
                f"{path}.payload.playerId: {payload['playerId']!r} is not the player to act "
                f"({actor})"
            )
        key = _tape_key(values, index, path)
        index += 1
        try:
            check_action(env, state, action)
        except IllegalActionError as exc:
            raise ReplayError(f"{path}: illegal at this point of the log: {exc}") from exc
        # The name is recomputed in the position the move is made in, by the recording's format.
        name = _recorded_name(env, state, action, replay_format)
        if payload["actionName"] != name:
            raise ReplayError(
                f"{path}.payload.actionName: {payload['actionName']!r} does not name action "
                f"{action} here: {_format_name(replay_format)} is {name!r}"
            )
        state = step(state, action, key)
        yield env, state, action
    if final is not None:
        if int(state.step_count) != final["stepCount"] or digest(env, state) != final["sha256"]:
            raise ReplayError(
                "replay.final: the re-simulated final state differs from the recorded one "
                "(tampered log, tape or initial state)"
            )
