"""Scenario configs of the deployment wargame: loading, validation (D6, D7) and static tables.

A scenario is a YAML file (``configs/deployment/*.yaml``) or a dict with exactly these keys, all
required (decision D7: no invented values):

=================================  ===============================================================
key                                meaning
=================================  ===============================================================
``board``                          ``{cols, rows}``
``walls``                          list of ``[col, row]``
``units``                          list of ``{id, owner, hp, move, range, damage}`` (owner: ``player1``/``2``)
``deployment_type``                ``active`` (agents place units) or ``fixed`` (``fixed_positions``)
``fixed_positions``                ``{unit_id: [col, row]}`` for every unit if ``fixed``; ``{}`` if ``active``
``deployment_pools_by_player``     ``{player1: [[col, row], ...], player2: [...]}``
``deployment_max_unit_slots``      unit slots per player in the action space (D1, D3)
``deployment_max_hex_slots``       hex slots per pool in the action space (D2, D3)
``deployment_restrictions``        ``{unit_id: [[col, row], ...]}`` allowed hexes per unit (4.2.8), or ``{}``
``first_deployer``                 ``player1`` or ``player2`` (3.3)
``post_deployment_start_phase``    ``movement`` or ``shooting`` (7.2)
``first_player``                   who acts first in the skirmish after deployment
``max_turns``                      skirmish turn limit
``rewards``                        ``{win, loss, draw, deployment_shaping}`` (section 8)
=================================  ===============================================================

Errors name the source, the key and the value: :class:`~tcgjax.core.errors.ConfigError`, or
:class:`DeploymentDeadlockError` when an active scenario cannot be deployed at all (D6).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import yaml

from tcgjax.core.errors import ConfigError, TcgjaxError
from tcgjax.core.files import DuplicateKeyError, yaml_loads
from tcgjax.games.deployment import hexgrid

__all__ = [
    "Scenario",
    "UnitSpec",
    "load_scenario",
    "DeploymentDeadlockError",
    "PHASES",
    "SCENARIO_DIR",
    "PLAYERS",
]

PHASES = ("deployment", "movement", "shooting")
POST_DEPLOYMENT_PHASES = ("movement", "shooting")
PLAYERS = ("player1", "player2")
# configs/deployment, reached through the package symlink so installed wheels ship the files too.
SCENARIO_DIR = os.path.join(os.path.dirname(__file__), "scenarios")
REQUIRED_KEYS = (
    "board",
    "walls",
    "units",
    "deployment_type",
    "fixed_positions",
    "deployment_pools_by_player",
    "deployment_max_unit_slots",
    "deployment_max_hex_slots",
    "deployment_restrictions",
    "first_deployer",
    "post_deployment_start_phase",
    "first_player",
    "max_turns",
    "rewards",
)
UNIT_KEYS = ("id", "owner", "hp", "move", "range", "damage")
REWARD_KEYS = ("win", "loss", "draw", "deployment_shaping")


class DeploymentDeadlockError(TcgjaxError):
    """Units remain to deploy but no legal placement can ever exist (spec 7.3, D5, D6)."""


@dataclasses.dataclass(frozen=True)
class UnitSpec:
    id: str
    owner: int
    hp: int
    move: int
    range: int
    damage: int


@dataclasses.dataclass(frozen=True, eq=False)
class Scenario:
    """A validated scenario with its static tables (NumPy, read-only). See the module docstring."""

    source: str
    cols: int
    rows: int
    walls: tuple[tuple[int, int], ...]
    units: tuple[UnitSpec, ...]
    deployment_type: str
    fixed_positions: Mapping[str, tuple[int, int]]
    pools: tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]
    max_unit_slots: int
    max_hex_slots: int
    restrictions: Mapping[str, tuple[tuple[int, int], ...]]
    first_deployer: int
    post_deployment_start_phase: str
    first_player: int
    max_turns: int
    rewards: Mapping[str, float]
    raw: Mapping[str, Any]

    # ---- derived static tables (built in __post_init__) --------------------------------------

    def __post_init__(self):
        cols, rows, slots = self.cols, self.rows, self.max_unit_slots
        hexes = cols * rows
        wall = np.zeros(hexes, np.bool_)
        for c, r in self.walls:
            wall[self.flat(c, r)] = True
        # Global unit index g = player * max_unit_slots + unit_slot (D1: slots sorted by unit_id).
        by_player = [
            sorted((u for u in self.units if u.owner == p), key=lambda u: u.id) for p in range(2)
        ]
        unit_ids = [""] * (2 * slots)
        stats = np.zeros((4, 2 * slots), np.int8)  # hp, move, range, damage
        exists = np.zeros(2 * slots, np.bool_)
        for p, units in enumerate(by_player):
            for u, unit in enumerate(units):
                g = p * slots + u
                unit_ids[g] = unit.id
                exists[g] = True
                stats[:, g] = (unit.hp, unit.move, unit.range, unit.damage)
        pool_hex = np.full((2, self.max_hex_slots), -1, np.int16)
        for p, pool in enumerate(self.pools):
            for h, (c, r) in enumerate(sorted(pool)):  # D2: sorted by (col, row)
                pool_hex[p, h] = self.flat(c, r)
        pool_plane = np.zeros((2, hexes), np.float32)
        for p, pool in enumerate(self.pools):
            for c, r in pool:
                pool_plane[p, self.flat(c, r)] = 1.0
        allowed = np.ones((2 * slots, self.max_hex_slots), np.bool_)
        for g, uid in enumerate(unit_ids):
            if uid in self.restrictions:
                ok = {self.flat(c, r) for c, r in self.restrictions[uid]}
                allowed[g] = [h in ok for h in pool_hex[g // slots]]
        fixed = np.full((2, 2 * slots), -1, np.int8)
        for g, uid in enumerate(unit_ids):
            if uid in self.fixed_positions:
                fixed[:, g] = self.fixed_positions[uid]
        tables = {
            "wall": wall,
            "neighbours": hexgrid.neighbour_table(cols, rows),
            "distance": hexgrid.distance_table(cols, rows),
            "pool_hex": pool_hex,
            "pool_plane": pool_plane,
            "pool_size": np.asarray([len(p) for p in self.pools], np.int16),
            "unit_exists": exists,
            "unit_owner": np.repeat(np.arange(2, dtype=np.int8), slots),
            "unit_hp": stats[0],
            "unit_move": stats[1],
            "unit_range": stats[2],
            "unit_damage": stats[3],
            "restriction_allowed": allowed,
            "fixed_col": fixed[0],
            "fixed_row": fixed[1],
        }
        for arr in tables.values():
            arr.setflags(write=False)
        object.__setattr__(self, "tables", tables)
        object.__setattr__(self, "unit_ids", tuple(unit_ids))
        object.__setattr__(
            self, "units_by_player", tuple(tuple(u.id for u in us) for us in by_player)
        )

    @property
    def num_hexes(self) -> int:
        return self.cols * self.rows

    def flat(self, col: int, row: int) -> int:
        return col * self.rows + row

    def unflat(self, flat: int) -> tuple[int, int]:
        return flat // self.rows, flat % self.rows

    def unit_index(self, unit_id: str) -> int:
        """Global unit index of ``unit_id`` (``player * max_unit_slots + unit_slot``)."""
        try:
            return self.unit_ids.index(unit_id) if unit_id else -1
        except ValueError:
            raise ConfigError(f"{self.source}: unknown unit id {unit_id!r}") from None


# --------------------------------------------------------------------------------------------------
# Loading and validation


def _err(source: str, key: str, value: Any, problem: str) -> ConfigError:
    return ConfigError(f"{source}: key {key!r} = {value!r}: {problem}")


def _int(source, key, value, low, high=None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _err(source, key, value, "expected an integer")
    if value < low or (high is not None and value > high):
        raise _err(source, key, value, f"must be in [{low}, {high if high is not None else 'inf'}]")
    return value


def _number(source, key, value) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _err(source, key, value, "expected a number")
    if not math.isfinite(value):
        raise _err(source, key, value, "expected a finite number")
    return float(value)


def _exact_keys(source, key, obj, expected) -> None:
    if not isinstance(obj, Mapping):
        raise _err(source, key, obj, "expected a mapping")
    missing = [k for k in expected if k not in obj]
    if missing:
        raise ConfigError(f"{source}: missing required key {key + '.' if key else ''}{missing[0]}")
    unknown = sorted(map(str, set(obj) - set(expected)))
    if unknown:
        raise ConfigError(
            f"{source}: unknown key {key + '.' if key else ''}{unknown[0]} (expected {list(expected)})"
        )


def _player(source, key, value) -> int:
    if value not in PLAYERS:
        raise _err(source, key, value, f"expected one of {list(PLAYERS)}")
    return PLAYERS.index(value)


def _hex(source, key, value, cols, rows) -> tuple[int, int]:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or any(isinstance(v, bool) or not isinstance(v, int) for v in value)
    ):
        raise _err(source, key, value, "expected [col, row]")
    col, row = value
    if not (0 <= col < cols and 0 <= row < rows):
        raise _err(source, key, value, f"hex outside the {cols}x{rows} board")
    return col, row


def _hex_list(source, key, value, cols, rows) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, list):
        raise _err(source, key, value, "expected a list of [col, row]")
    hexes = [_hex(source, f"{key}[{i}]", v, cols, rows) for i, v in enumerate(value)]
    seen = set()
    for i, h in enumerate(hexes):
        if h in seen:
            raise _err(source, f"{key}[{i}]", list(h), "duplicate hex")
        seen.add(h)
    return tuple(hexes)


def load_scenario(scenario: str | os.PathLike | Mapping[str, Any]) -> Scenario:
    """Load and validate a scenario from a YAML path, a shipped name (``"small"``) or a dict.

    Raises:
      ConfigError: unreadable file, missing/unknown key, wrong type, out-of-board hex, duplicate
        unit id, too many units or pool hexes for the slots, unknown phase or player; the message
        names the source, the key and the value.
      DeploymentDeadlockError: ``active`` deployment where a player's pool, walls removed, has fewer
        hexes than that player has units (D6).
    """
    if isinstance(scenario, Mapping):
        source, data = "<scenario dict>", dict(scenario)
    elif isinstance(scenario, str | os.PathLike):
        path = os.fspath(scenario)
        if isinstance(path, bytes):
            raise ConfigError(f"option scenario={scenario!r}: give the path as a str, not bytes")
        if not os.path.splitext(path)[1] and os.sep not in path:
            path = os.path.join(SCENARIO_DIR, path + ".yaml")
        source = os.path.normpath(path)
        try:
            with open(path, encoding="utf-8") as fh:
                data = yaml_loads(fh.read())
        except OSError as exc:
            raise ConfigError(f"{source}: cannot read scenario: {exc.strerror}") from exc
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{source}: not UTF-8 text: {exc}") from exc
        except DuplicateKeyError as exc:
            raise ConfigError(f"{source}: {exc}") from exc
        except yaml.YAMLError as exc:
            raise ConfigError(f"{source}: not valid YAML: {exc}") from exc
    else:
        raise ConfigError(
            f"option scenario={scenario!r}: expected a shipped scenario name, a path to a YAML "
            f"file or a mapping, got {type(scenario).__name__}"
        )
    _exact_keys(source, "", data, REQUIRED_KEYS)

    _exact_keys(source, "board", data["board"], ("cols", "rows"))
    cols = _int(source, "board.cols", data["board"]["cols"], 1, 60)
    rows = _int(source, "board.rows", data["board"]["rows"], 1, 60)
    walls = _hex_list(source, "walls", data["walls"], cols, rows)

    max_units = _int(source, "deployment_max_unit_slots", data["deployment_max_unit_slots"], 1, 60)
    max_hexes = _int(source, "deployment_max_hex_slots", data["deployment_max_hex_slots"], 1, 3600)

    if not isinstance(data["units"], list) or not data["units"]:
        raise _err(source, "units", data["units"], "expected a non-empty list of units")
    units, ids = [], set()
    for i, entry in enumerate(data["units"]):
        key = f"units[{i}]"
        _exact_keys(source, key, entry, UNIT_KEYS)
        uid = entry["id"]
        if not isinstance(uid, str) or not uid:
            raise _err(source, f"{key}.id", uid, "expected a non-empty string")
        if uid in ids:
            raise _err(source, f"{key}.id", uid, "duplicate unit id")
        ids.add(uid)
        units.append(
            UnitSpec(
                id=uid,
                owner=_player(source, f"{key}.owner", entry["owner"]),
                hp=_int(source, f"{key}.hp", entry["hp"], 1, 100),
                move=_int(source, f"{key}.move", entry["move"], 0, 20),
                range=_int(source, f"{key}.range", entry["range"], 0, 100),
                damage=_int(source, f"{key}.damage", entry["damage"], 0, 100),
            )
        )
    for p, name in enumerate(PLAYERS):
        count = sum(u.owner == p for u in units)
        if count == 0:
            raise _err(source, "units", name, "every player needs at least one unit")
        if count > max_units:
            raise _err(
                source,
                "deployment_max_unit_slots",
                max_units,
                f"{name} has {count} units, more than the unit slots",
            )

    deployment_type = data["deployment_type"]
    if deployment_type not in ("active", "fixed"):
        raise _err(source, "deployment_type", deployment_type, "expected 'active' or 'fixed'")

    pools_raw = data["deployment_pools_by_player"]
    _exact_keys(source, "deployment_pools_by_player", pools_raw, PLAYERS)
    pools = tuple(
        _hex_list(source, f"deployment_pools_by_player.{name}", pools_raw[name], cols, rows)
        for name in PLAYERS
    )
    for name, pool in zip(PLAYERS, pools, strict=True):
        if len(pool) > max_hexes:
            raise _err(
                source,
                "deployment_max_hex_slots",
                max_hexes,
                f"{name}'s pool has {len(pool)} hexes, more than the hex slots",
            )

    restrictions_raw = data["deployment_restrictions"]
    if not isinstance(restrictions_raw, Mapping):
        raise _err(source, "deployment_restrictions", restrictions_raw, "expected a mapping")
    restrictions = {}
    for uid, hexes in restrictions_raw.items():
        key = f"deployment_restrictions.{uid}"
        if uid not in ids:
            raise _err(source, key, uid, "unknown unit id")
        restrictions[uid] = _hex_list(source, key, hexes, cols, rows)

    fixed_raw = data["fixed_positions"]
    if not isinstance(fixed_raw, Mapping):
        raise _err(source, "fixed_positions", fixed_raw, "expected a mapping")
    fixed = {}
    if deployment_type == "active" and fixed_raw:
        raise _err(
            source,
            "fixed_positions",
            dict(fixed_raw),
            "must be {} when deployment_type is 'active'",
        )
    if deployment_type == "fixed":
        for uid in sorted(ids):
            if uid not in fixed_raw:
                raise ConfigError(f"{source}: missing required key fixed_positions.{uid}")
        occupied = set()
        for uid, pos in fixed_raw.items():
            key = f"fixed_positions.{uid}"
            if uid not in ids:
                raise _err(source, key, uid, "unknown unit id")
            hex_ = _hex(source, key, pos, cols, rows)
            if hex_ in walls:
                raise _err(source, key, pos, "hex is a wall")
            if hex_ in occupied:
                raise _err(source, key, pos, "hex already holds another unit")
            occupied.add(hex_)
            fixed[uid] = hex_

    phase = data["post_deployment_start_phase"]
    if phase not in POST_DEPLOYMENT_PHASES:
        raise _err(
            source,
            "post_deployment_start_phase",
            phase,
            f"unknown phase; expected one of {list(POST_DEPLOYMENT_PHASES)}",
        )

    _exact_keys(source, "rewards", data["rewards"], REWARD_KEYS)
    rewards = {k: _number(source, f"rewards.{k}", data["rewards"][k]) for k in REWARD_KEYS}

    scenario = Scenario(
        source=source,
        cols=cols,
        rows=rows,
        walls=walls,
        units=tuple(units),
        deployment_type=deployment_type,
        fixed_positions=fixed,
        pools=pools,
        max_unit_slots=max_units,
        max_hex_slots=max_hexes,
        restrictions=restrictions,
        first_deployer=_player(source, "first_deployer", data["first_deployer"]),
        post_deployment_start_phase=phase,
        first_player=_player(source, "first_player", data["first_player"]),
        max_turns=_int(source, "max_turns", data["max_turns"], 1, 10_000),
        rewards=rewards,
        raw=data,
    )
    if deployment_type == "active":
        _check_deployable(scenario)
    return scenario


def _check_deployable(s: Scenario) -> None:
    """D6: each player's pool, walls removed, must hold at least as many hexes as their units."""
    for p, name in enumerate(PLAYERS):
        usable = [h for h in s.pools[p] if h not in s.walls]
        units = s.units_by_player[p]
        if len(usable) < len(units):
            raise DeploymentDeadlockError(
                f"{s.source}: deployment deadlock at make: {name} has {len(units)} units "
                f"{list(units)} but its pool has {len(usable)} usable hexes "
                f"(pool size {len(s.pools[p])}, walls in pool "
                f"{[list(h) for h in s.pools[p] if h in s.walls]}); "
                f"pool sizes: {[len(pool) for pool in s.pools]}"
            )
        options = {
            uid: [h for h in s.restrictions.get(uid, usable) if h in usable] for uid in units
        }
        for uid in units:
            if not options[uid]:
                raise DeploymentDeadlockError(
                    f"{s.source}: deployment deadlock at make: {name}'s unit {uid!r} may only "
                    f"deploy on {[list(h) for h in s.restrictions[uid]]}, none of which is a "
                    f"usable hex of its pool"
                )
        placed = _max_matching(options)
        if placed < len(units):
            raise DeploymentDeadlockError(
                f"{s.source}: deployment deadlock at make: {name}'s units {list(units)} cannot all "
                f"be placed at once: their deployment_restrictions allow at most {placed} of them "
                f"on distinct usable hexes (pool sizes: {[len(pool) for pool in s.pools]})"
            )


def _max_matching(options: dict[str, list[tuple[int, int]]]) -> int:
    """Size of a maximum matching units -> distinct hexes (augmenting paths; tiny graphs)."""
    owner_of: dict[tuple[int, int], str] = {}

    def augment(uid: str, seen: set) -> bool:
        for hex_ in options[uid]:
            if hex_ in seen:
                continue
            seen.add(hex_)
            if hex_ not in owner_of or augment(owner_of[hex_], seen):
                owner_of[hex_] = uid
                return True
        return False

    return sum(augment(uid, set()) for uid in options)
