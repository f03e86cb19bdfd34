"""Replays (decision E3): ``{commandLog, randomTape, initialState}`` plus env id, version and options.

Record a game with a :class:`Recorder`; ``export()`` gives a JSON-ready dict; :func:`run` re-simulates it
and returns the final state, equal array-by-array to the recorded one.

* ``commandLog``: one entry per applied action, ``{"type": "action", "payload": {"playerId",
  "action", "actionName"}, "timestamp": i}``. The timestamp is the entry's logical index (never the
  wall clock, so a replay is deterministic). Each entry is self-sufficient. ``actionName`` is the
  move's name in the position it was made in (``env.describe_action(state, action)``, every card
  named: ``block with Garurumon (field 0)``), redundant with ``action`` and checked on load.
* ``replayFormat``: ``3`` (:data:`REPLAY_FORMAT`). Format 3 digests the whole record
  (``final.record`` below); its move names are those of format 2. Format 2 (``actionName`` the
  move's name in its position, ``env.describe_action``) and format 1 (no ``replayFormat`` field:
  the phase-free id names, ``env.action_name(action)``: ``attack[0->field0]`` for that block) are
  older recordings; every format loads, and each command's name must be exactly its format's
  name, so an old recording replays as it was written and a new one cannot carry an old name (or
  any other text).
* ``randomTape``: ``{"values": [[k0, k1], ...], "index": 0}``, the PRNG key (raw ``uint32[2]``) each
  step consumed, in order, and the read index a replay starts from. Each command reads one key,
  and a tape must be read whole: ``len(values) - index`` is the number of commands, in every
  format (a key left over, or one missing, is refused before anything is re-simulated).
* ``initialState``: the JSON view of the starting state (:mod:`tcgjax.core.serialization`).
* ``final``: ``{"stepCount", "sha256", "record"}``: the recorded final state's step count and the
  sha256 of its JSON (:func:`digest`), and ``record``, the sha256 of each other field of the
  replay as recorded (``replayFormat``, ``envId``, ``envVersion``, ``options``, ``initialState``,
  ``commandLog``, ``randomTape``; of its canonical JSON: sorted keys, no spaces). :func:`run`
  re-simulates the game, then checks every field against its digest and the final state against
  its own, so that an edit is refused naming the edited field even where it leaves the final
  state unchanged (a key read by a step that draws no randomness, an initial field every game
  overwrites, an option the game never reaches). Formats 1 and 2 have no ``record``: their
  ``final`` digests the final state only, and an edit that leaves it unchanged goes unnoticed
  there. ``final`` is required unless the caller passes ``verify=False`` explicitly. The digests
  are unkeyed: they detect an edited or damaged file, not someone who recomputes them.

:func:`run` raises :class:`ReplayError` when a field of the envelope is missing, unknown or of the
wrong type (the message names it), the env id/version/options do not match, the tape is not read
whole, a command is malformed (its action not an integer id, its ``actionName`` not the move's
name in the replay's format, its timestamp not its index) or illegal at its point in the log (the
error names the rule), a field differs from its digest in ``final.record`` (the message names the
field), or the final state differs from the recorded digest.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core.board import player_id
from tcgjax.core.checked import _compiled, action_id, check_action, checked_step
from tcgjax.core.env import Env, State
from tcgjax.core.errors import IllegalActionError, ReplayError, SerializationError, TcgjaxError
from tcgjax.core.serialization import (
    _check_keys,
    _show,
    state_from_dict,
    state_to_dict,
    to_json,
)

__all__ = ["Recorder", "run", "frames", "key_to_tape", "digest", "REPLAY_FORMAT", "RECORD_FIELDS"]

# 3: format 2, with ``final.record`` (the digest of every field of the record); 2: ``actionName``
# is ``env.describe_action`` in the state before the move; 1 (no ``replayFormat`` field): the
# phase-free ``env.action_name``.
REPLAY_FORMAT = 3
REPLAY_FORMATS = (1, 2, 3)
# The fields ``final.record`` digests (format 3), in the order written.
RECORD_FIELDS = (
    "replayFormat",
    "envId",
    "envVersion",
    "options",
    "initialState",
    "commandLog",
    "randomTape",
)


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


def _field_digest(value: Any, path: str) -> str:
    """sha256 of ``value``'s canonical JSON (sorted keys, no spaces), or ``ReplayError`` naming
    ``path`` for a value JSON cannot hold."""
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:
        raise ReplayError(f"{path}: not JSON data: {_show(exc, 200)}") from None
    return hashlib.sha256(text.encode()).hexdigest()


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
        """The replay as a JSON-ready dict (format :data:`REPLAY_FORMAT`: ``final`` digests the
        final state and every other field).

        Raises:
          ReplayError: an env option JSON cannot hold (the replay could not be saved).
        """
        record = {
            "replayFormat": REPLAY_FORMAT,
            "envId": self.env.id,
            "envVersion": self.env.version,
            "options": dict(self.env.options),
            "initialState": copy.deepcopy(self._initial),
            "commandLog": copy.deepcopy(self._commands),
            "randomTape": {"values": [list(v) for v in self._tape], "index": 0},
        }
        return {
            **record,
            "final": {
                "stepCount": int(self.state.step_count),
                "sha256": digest(self.env, self.state),
                "record": {
                    name: _field_digest(record[name], f"replay.{name}") for name in RECORD_FIELDS
                },
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
        raise ReplayError(f"{path}.{key}: expected {what}, got {_show(value)}")
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
        raise ReplayError(f"randomTape.values[{index}]: not a key of 2 uint32: {_show(raw)}")
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


def _check_tape_length(values: list, index: int, commands: list) -> None:
    """Each command reads one key: the tape from ``index`` holds exactly one per command."""
    left = len(values) - index
    if left > len(commands):
        raise ReplayError(
            f"replay.randomTape.values: {len(values)} keys from index {index}, but the log's "
            f"{len(commands)} commands read one key each: a tape must be read whole "
            f"({left - len(commands)} left over)"
        )
    if left < len(commands):
        raise ReplayError(
            f"replay.commandLog[{left}]: randomTape exhausted at index {len(values)} "
            f"({len(values)} values from index {index} for {len(commands)} commands)"
        )


def _check_record(replay: dict[str, Any], record: dict[str, str]) -> None:
    """Every field of ``replay`` against its digest in ``final.record`` (format 3)."""
    for name in RECORD_FIELDS:
        if _field_digest(replay[name], f"replay.{name}") != record[name]:
            raise ReplayError(
                f"replay.{name}: differs from its digest in replay.final.record.{name} (edited "
                "after it was recorded)"
            )


def run(replay: dict[str, Any], env: Env | None = None, *, verify: bool = True) -> State:
    """Re-simulate ``replay`` and return its final state (equal to the recorded one).

    Args:
      replay: a dict from :meth:`Recorder.export` (e.g. after ``json.load``).
      env: the env to use; by default ``tcgjax.make(envId, **options)``.
      verify: check the replay's ``final`` digests (default): every field of the record (format
        3) and the re-simulated final state. A replay without ``final`` is refused unless the
        caller opts out explicitly with ``verify=False``; then ``final`` is not read and the log
        is still checked command by command (legality, actor, a tape read whole) but an edited
        initial state or a dropped trailing command cannot be detected.

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
    envelope (the tape's length included) is checked before the first state is yielded and every
    command before its state, as in :func:`run` (same arguments, same errors); the digests of
    ``final`` are checked after the last state is yielded, so a consumer that stops early (a
    viewer of the first moves) does not verify them."""
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
            f"replay.replayFormat: {_show(replay_format)} is not a known format (3: format 2 with "
            "every field digested in final.record; 2: moves named in their position, "
            "env.describe_action; 1, or no field: the phase-free id names of older recordings, "
            "env.action_name)"
        )
    env_id = _field(replay, "envId", "replay", str, "a string")
    version = _field(replay, "envVersion", "replay", str, "a string")
    options = _field(replay, "options", "replay", dict, "an object of env options")
    if not all(isinstance(name, str) for name in options):
        raise ReplayError(
            f"replay.options: expected an object of env options, got {_show(options)}"
        )
    initial = _field(replay, "initialState", "replay", dict, "a JSON state object")
    commands = _field(replay, "commandLog", "replay", list, "a list of commands")
    tape = _field(replay, "randomTape", "replay", dict, "an object {values, index}")
    _exact_keys(tape, ("values", "index"), "replay.randomTape")
    values = _field(tape, "values", "replay.randomTape", list, "a list of keys")
    index = _field(tape, "index", "replay.randomTape", int, "an int")
    if not 0 <= index <= len(values):
        raise ReplayError(
            f"replay.randomTape.index: {_show(index)} outside [0, {len(values)}] (the tape's "
            "length)"
        )
    _check_tape_length(values, index, commands)
    final = record = None
    if verify:
        final_fields = ("stepCount", "sha256") + (("record",) if replay_format >= 3 else ())
        final = _field(replay, "final", "replay", dict, f"an object {{{', '.join(final_fields)}}}")
        _exact_keys(final, final_fields, "replay.final")
        _field(final, "stepCount", "replay.final", int, "an int")
        _field(final, "sha256", "replay.final", str, "a hex string")
        if replay_format >= 3:
            record = _field(final, "record", "replay.final", dict, "an object of sha256 digests")
            _exact_keys(record, RECORD_FIELDS, "replay.final.record")
            for name in RECORD_FIELDS:
                _field(record, name, "replay.final.record", str, "a sha256 hex string")
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
        raise ReplayError(f"replay.options {_show(options, 400)} != env options {env.options!r}")
    try:
        state = state_from_dict(env, initial)
    except SerializationError as exc:
        raise ReplayError(f"replay.initialState: {exc}") from exc
    _, step = _compiled(env)
    yield env, state, None
    for i, command in enumerate(commands):
        path = f"replay.commandLog[{i}]"
        if not isinstance(command, dict):
            raise ReplayError(f"{path}: expected a command object, got {_show(command)}")
        _exact_keys(command, COMMAND_FIELDS, path)
        if command["type"] != "action":
            raise ReplayError(f"{path}.type: {_show(command['type'])} is not 'action'")
        timestamp = _field(command, "timestamp", path, int, "an int")
        if timestamp != i:
            raise ReplayError(f"{path}.timestamp: {_show(timestamp)} != its index {i} in the log")
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
                f"{path}.payload.playerId: {_show(payload['playerId'])} is not the player to act "
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
                f"{path}.payload.actionName: {_show(payload['actionName'], 200)} does not name "
                f"action {action} here: {_format_name(replay_format)} is {name!r}"
            )
        state = step(state, action, key)
        yield env, state, action
    if record is not None:
        _check_record(replay, record)
    if final is not None:
        if int(state.step_count) != final["stepCount"] or digest(env, state) != final["sha256"]:
            raise ReplayError(
                "replay.final: the re-simulated final state differs from the recorded one "
                "(tampered log, tape or initial state)"
            )
