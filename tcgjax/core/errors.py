"""Exceptions and the integer error codes carried by jitted states.

Host-side code raises exceptions derived from :class:`TcgjaxError`. Jitted code cannot raise, so it
reports a broken rule through an ``int32`` code stored in ``State.error`` (0 = no error). Codes below
``FIRST_GAME_CODE`` are owned by the core (action range, zone commands); each game appends its own rule
codes after them through :class:`ErrorCodes`, so one table names every code an env can produce.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

__all__ = [
    "TcgjaxError",
    "ConfigError",
    "CardDataError",
    "IllegalActionError",
    "SerializationError",
    "ReplayError",
    "InvalidStateError",
    "PlayerError",
    "OutputError",
    "RuleError",
    "ErrorCodes",
    "CORE_ERRORS",
    "FIRST_GAME_CODE",
    "OK",
    "ACTION_OUT_OF_RANGE",
    "ACTION_NOT_LEGAL",
    "CARD_OUT_OF_RANGE",
    "ZONE_OUT_OF_RANGE",
    "ZONE_FULL",
    "ZONE_EMPTY",
    "POSITION_OUT_OF_RANGE",
    "PLAYER_OUT_OF_RANGE",
    "VISIBILITY_OUT_OF_RANGE",
]


class TcgjaxError(Exception):
    """Base class of every exception raised by tcgjax."""


class ConfigError(TcgjaxError, ValueError):
    """An env option, scenario or training config is malformed (names the key and value)."""


class CardDataError(TcgjaxError, ValueError):
    """A card data file is malformed. The message names the file, the card id and the field."""

    def __init__(self, path: str, card_id: str | None, field: str | None, problem: str):
        self.path, self.card_id, self.field, self.problem = path, card_id, field, problem
        where = f"{path}"
        if card_id is not None:
            where += f", card {card_id!r}"
        if field is not None:
            where += f", field {field!r}"
        super().__init__(f"{where}: {problem}")


class IllegalActionError(TcgjaxError, ValueError):
    """Raised by :func:`tcgjax.checked_step` for an action the rules forbid; names the broken rule."""

    def __init__(self, message: str, *, code: int | None = None, rule: str | None = None):
        self.code, self.rule = code, rule
        super().__init__(message)


class SerializationError(TcgjaxError, ValueError):
    """A JSON state is malformed or does not match the env. The message names the field."""


class InvalidStateError(TcgjaxError, ValueError):
    """A state breaks an invariant of its game (``env.validate``): it cannot be reached by the rules.

    ``field`` is the JSON path of the broken fact (``units.blue_1.hp``, ``env.terminated``);
    ``from_json`` re-raises it as a :class:`SerializationError` with the same path.
    """

    def __init__(self, field: str, problem: str):
        self.field, self.problem = field, problem
        super().__init__(f"{field}: {problem}")


class PlayerError(TcgjaxError, ValueError):
    """A player index given to a host-side call is not a player of the env."""


class ReplayError(TcgjaxError, ValueError):
    """A replay cannot be reproduced: tampered log, exhausted random tape, wrong env or digest."""


class OutputError(TcgjaxError, OSError):
    """A file the library was asked to write cannot be written (a missing folder, a directory, no
    permission, not a path). The message names the file; also an ``OSError``, so that code
    catching the operating system's errors still catches it."""


@dataclasses.dataclass(frozen=True)
class RuleError:
    """One error code: a short stable ``name`` and a human ``message`` explaining the rule."""

    name: str
    message: str


OK = 0
ACTION_OUT_OF_RANGE = 1
ACTION_NOT_LEGAL = 2
CARD_OUT_OF_RANGE = 3
ZONE_OUT_OF_RANGE = 4
ZONE_FULL = 5
ZONE_EMPTY = 6
POSITION_OUT_OF_RANGE = 7
PLAYER_OUT_OF_RANGE = 8
VISIBILITY_OUT_OF_RANGE = 9

CORE_ERRORS: tuple[RuleError, ...] = (
    RuleError("ok", "no error"),
    RuleError("action_out_of_range", "the action id is outside [0, num_actions)"),
    RuleError("action_not_legal", "the action is not in the legal action mask"),
    RuleError("card_out_of_range", "the card index is outside [0, num_cards)"),
    RuleError("zone_out_of_range", "the zone index is outside [0, num_zones)"),
    RuleError("zone_full", "the destination zone is at its max_size"),
    RuleError("zone_empty", "the source zone has no card to take"),
    RuleError("position_out_of_range", "the insertion position is past the end of the zone"),
    RuleError("player_out_of_range", "the player index is outside [0, num_players)"),
    RuleError("visibility_out_of_range", "the visibility override is not none/public/owner/hidden"),
)
FIRST_GAME_CODE = 32


class ErrorCodes:
    """The frozen table of every error code an env can set: core codes, then the game's own.

    Game codes start at ``FIRST_GAME_CODE``; ``codes.code(name)`` gives the integer to use in jitted
    code, ``codes.name(code)`` / ``codes.message(code)`` explain a code found in ``State.error``.
    """

    def __init__(self, game_errors: Sequence[RuleError] = ()):
        table: dict[int, RuleError] = dict(enumerate(CORE_ERRORS))
        for i, err in enumerate(game_errors):
            table[FIRST_GAME_CODE + i] = err
        names = [e.name for e in table.values()]
        if len(set(names)) != len(names):
            raise ConfigError(f"duplicate error code names: {sorted(names)}")
        self._table = table
        self._by_name = {e.name: c for c, e in table.items()}

    def code(self, name: str) -> int:
        try:
            return self._by_name[name]
        except KeyError:
            raise ConfigError(f"unknown error code name {name!r}") from None

    def name(self, code: int) -> str:
        return self._table[int(code)].name if int(code) in self._table else f"unknown_{int(code)}"

    def message(self, code: int) -> str:
        err = self._table.get(int(code))
        return err.message if err else f"unknown error code {int(code)}"

    def items(self):
        return sorted(self._table.items())
