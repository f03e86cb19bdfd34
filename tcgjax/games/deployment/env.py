"""The deployment wargame env: ``tcgjax.make("deployment", scenario="small")``.

A thin adapter over :class:`~tcgjax.games.deployment.rules.DeploymentRules`: observation (spec
section 6, named slices from the viewer's side), the JSON view of decision D8, the checked API's
deadlock error (D5), and host-side ``decode_action`` / ``encode_deploy`` / ``checked_deploy``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core.board import player_id
from tcgjax.core.checked import checked_step, rule_error
from tcgjax.core.env import Env, State, StepResult
from tcgjax.core.errors import IllegalActionError, SerializationError
from tcgjax.core.observation import ObservationLayout
from tcgjax.games.deployment import render
from tcgjax.games.deployment import rules as R
from tcgjax.games.deployment.hexgrid import DIRECTIONS
from tcgjax.games.deployment.scenario import (
    PHASES,
    PLAYERS,
    DeploymentDeadlockError,
    Scenario,
    load_scenario,
)

__all__ = [
    "DeploymentEnv",
    "DeployAction",
    "MoveAction",
    "ShootAction",
    "decode_action",
    "encode_deploy",
    "checked_deploy",
    "observation_layout",
]

UNIT_FEATURES = ("exists", "alive", "hp", "col", "row", "moves_left", "has_shot")


def observation_layout(scenario: Scenario) -> ObservationLayout:
    """The observation's named slices for ``scenario`` (me = the viewer, first)."""
    U, H = scenario.max_unit_slots, scenario.num_hexes
    return ObservationLayout(
        [
            ("phase", (3,), "one-hot: deployment, movement, shooting"),
            ("is_my_turn", (1,), "1 if the viewer is the active deployer / player"),
            ("active_deployer", (2,), "6.1: one-hot (me, opponent) during deployment, else 0"),
            ("remaining_units", (2, U), "6.2: unit slots still to deploy (me, opponent)"),
            ("occupancy", (2, H), "6.3: hexes (flat col*rows+row) holding my / enemy living units"),
            ("active_pool", (H,), "6.4: the active deployer's pool during deployment, else 0"),
            ("legal_placement_exists", (1,), "6.5: at least one deploy action is legal"),
            (
                "units",
                (2, U, len(UNIT_FEATURES)),
                "per unit slot (me, opponent): exists, alive, hp/max_hp, col/(cols-1) and "
                "row/(rows-1) (0 while not deployed), moves_left/move, has_shot",
            ),
            ("turn", (1,), "skirmish round / max_turns (0 during deployment)"),
        ]
    )


class DeployAction(NamedTuple):
    unit_id: str | None
    col: int
    row: int


class MoveAction(NamedTuple):
    unit_id: str | None
    direction: str


class ShootAction(NamedTuple):
    unit_id: str | None
    target_id: str | None


class DeploymentEnv(Env):
    """Two-player hex skirmish whose first phase is the active deployment (see ``rules``).

    Options:
      scenario: a shipped scenario name (``"small"``, ``"walls"``, ``"overlap"``), a path to a YAML
        file, or a dict with the same keys. Validated at construction (``ConfigError``,
        ``DeploymentDeadlockError``).
      illegal_action, max_steps: see :class:`tcgjax.Env`; the default ``max_steps`` is a bound no
        game can reach (every game ends by its turn limit first).
    """

    id = "deployment"
    version = "2"
    num_players = 2
    rule_errors = R.RULE_ERRORS
    game_state_type = R.DeploymentState

    def __init__(
        self,
        *,
        scenario: str | os.PathLike | Mapping[str, Any] = "small",
        illegal_action: str = "reject",
        max_steps: int | None = None,
    ):
        self.scenario = load_scenario(scenario)
        self.rules = R.DeploymentRules(self.scenario)
        s = self.scenario
        self.action_layout = self.rules.actions
        self.observation_layout = observation_layout(s)
        # Static per scenario, so not repeated in every step's observation (gymnax's split of
        # per-episode parameters from per-step state): float32[H], 1 on walls, flat hex order.
        self.wall_plane = jnp.asarray(s.tables["wall"], jnp.float32)
        # Reciprocals for the observation's normalisations (multiply, never divide, per step).
        self._inv_hp = jnp.asarray(1.0 / np.maximum(s.tables["unit_hp"], 1), jnp.float32)
        self._inv_move = jnp.asarray(1.0 / np.maximum(s.tables["unit_move"], 1), jnp.float32)
        per_turn = sum(u.move + 1 for u in s.units) + 4
        self.default_max_steps = len(s.units) + 1 + (s.max_turns + 1) * per_turn
        r = s.rewards
        self.zero_sum = r["win"] == -r["loss"] and r["draw"] == 0.0
        self.rewards_mid_game = r["deployment_shaping"] != 0.0  # each placement is rewarded
        super().__init__(
            illegal_action=illegal_action,
            max_steps=max_steps,
            scenario=dict(scenario) if isinstance(scenario, Mapping) else os.fspath(scenario),
        )

    # -- hooks -----------------------------------------------------------------------------------

    def _init_game(self, key: jax.Array) -> R.DeploymentState:
        del key  # deterministic setup
        return self.rules.init()

    def _apply_action(self, game, action, key) -> StepResult:
        del key
        return StepResult(*self.rules.apply(game, action))

    def _legal_action_mask(self, game) -> jax.Array:
        return self.rules.legal_action_mask(game)

    def _action_error(self, game, action) -> jax.Array:
        return self.rules.action_error(game, action)

    def _current_player(self, game) -> jax.Array:
        return game.active_player.astype(jnp.int32)

    def _is_terminal(self, game) -> jax.Array:
        return game.outcome != R.ONGOING

    def _forfeit(self, game, loser) -> R.DeploymentState:
        return self.rules.forfeit(game, loser)

    def _validate_game(self, game) -> None:
        self.rules.validate(game)

    def _picture(self, state: State, viewer: int | None):
        return render.picture(self, state, viewer)

    def _observation_bound_table(self) -> dict:
        """Every slice in [0, 1] (see ``Env.observation_bounds``): one-hots and flags, and the
        normalised unit features, which the rules keep within their scale: hp in [0, max_hp],
        moves_left in [0, move], col and row on the board (0 while not deployed), turn in
        [0, max_turns] (the turn limit clamps it back to max_turns)."""
        return {name: (0.0, 1.0) for name in self.observation_layout.slices}

    def _observe(self, game: R.DeploymentState, player: jax.Array) -> jax.Array:
        s, t, rules = self.scenario, self.rules.t, self.rules
        U, H = s.max_unit_slots, s.num_hexes
        deploying = game.phase == R.DEPLOYMENT
        occupancy = rules.occupancy(game)
        deploy_legal = rules.deploy_legal(game, occupancy)
        alive = rules.alive(game)
        # Rows (player1, player2) -> (me, opponent): a select between two static orders.
        by_seat = lambda x: jnp.where(player == 0, x, x[::-1])  # noqa: E731
        occ = by_seat(jnp.any(rules.unit_on_hex(game).reshape(2, U, H), axis=1))  # [2, H]
        active_pool = R.pick(game.active_player, t["pool_plane"])
        placed = (game.col >= 0).astype(jnp.float32)
        units = jnp.stack(
            [
                t["unit_exists"].astype(jnp.float32),
                alive.astype(jnp.float32),
                game.hp * self._inv_hp,
                game.col * (1.0 / max(s.cols - 1, 1)) * placed,
                game.row * (1.0 / max(s.rows - 1, 1)) * placed,
                game.moves_left * self._inv_move,
                game.has_shot * placed,
            ],
            axis=-1,
        )
        return self.observation_layout.pack(
            {
                "phase": jax.nn.one_hot(game.phase, 3),
                "is_my_turn": (game.active_player == player)[None],
                "active_deployer": jax.nn.one_hot(jnp.where(game.active_player == player, 0, 1), 2)
                * deploying,
                "remaining_units": by_seat((t["unit_exists"] & (game.col < 0)).reshape(2, U)),
                "occupancy": occ,
                "active_pool": active_pool * deploying,
                "legal_placement_exists": jnp.any(deploy_legal)[None],
                "units": by_seat(units.reshape(2, U, -1)),
                "turn": (game.turn / s.max_turns)[None],
            }
        )

    # -- checked API (D5) ------------------------------------------------------------------------

    def _check_action_host(self, state: State, action: int) -> None:
        if action != self.action_layout.start("pass_deployment"):
            return
        if int(state.game.phase) != R.DEPLOYMENT or not bool(state.legal_action_mask[action]):
            return  # the generic check names the broken rule
        raise DeploymentDeadlockError(deadlock_message(self, state.game))

    # -- JSON view (D8) --------------------------------------------------------------------------

    json_game_keys = (
        "phase",
        "deployment_state",
        "units",
        "turnState",
        "outcome",
        "endReason",
        "deploymentSteps",
    )

    def to_json_game(self, game: R.DeploymentState) -> dict:
        s = self.scenario
        g = jax.tree.map(np.asarray, game)
        ids = s.unit_ids
        exists = np.asarray(s.tables["unit_exists"])
        deployed = [ids[i] for i in range(len(ids)) if exists[i] and g.col[i] >= 0]
        units = {}
        for i, uid in enumerate(ids):
            if not exists[i]:
                continue
            units[uid] = {
                "id": uid,
                "owner": player_id(i // s.max_unit_slots),
                "col": int(g.col[i]),
                "row": int(g.row[i]),
                "hp": int(g.hp[i]),
                "movesLeft": int(g.moves_left[i]),
                "hasShot": bool(g.has_shot[i]),
                "deployOrder": int(g.deploy_order[i]),
                "deployHexSlot": int(g.deploy_hex_slot[i]),
                "damageDealt": int(g.damage_dealt[i]),
            }
        return {
            "phase": PHASES[int(g.phase)],
            "deployment_state": {
                "current_deployer": player_id(int(g.active_player)),
                "deployable_units_by_player": {
                    player_id(p): [u for u in s.units_by_player[p] if u not in deployed]
                    for p in range(2)
                },
                "deployed_units": deployed,
                "deployment_pools_by_player": {
                    player_id(p): [list(h) for h in sorted(s.pools[p])] for p in range(2)
                },
                "deployment_complete": len(deployed) == len(s.units),
                "active_unit_id": None,
            },
            "units": units,
            "turnState": {
                "activePlayerId": player_id(int(g.active_player)),
                "turnNumber": int(g.turn),
                "phase": PHASES[int(g.phase)],
            },
            "outcome": R.OUTCOMES[int(g.outcome)],
            "endReason": R.END_REASONS[int(g.end_reason)],
            "deploymentSteps": int(g.deploy_steps),
        }

    def from_json_game(self, data: dict, template: R.DeploymentState) -> R.DeploymentState:
        """Inverse of :meth:`to_json_game`; the derived views must agree with the unit positions."""
        s = self.scenario
        for key in self.json_game_keys:
            if key not in data:
                raise SerializationError(f"{key}: missing field")
        cols = {
            name: np.array(np.zeros(getattr(template, name).shape, getattr(template, name).dtype))
            for name in (
                "col",
                "row",
                "hp",
                "moves_left",
                "has_shot",
                "deploy_order",
                "deploy_hex_slot",
                "damage_dealt",
            )
        }
        cols["col"][:] = -1
        cols["row"][:] = -1
        cols["deploy_order"][:] = -1
        cols["deploy_hex_slot"][:] = -1
        units = data["units"]
        expected_ids = [u for u in s.unit_ids if u]
        if not isinstance(units, dict):
            raise SerializationError("units: expected an object")
        missing = [u for u in expected_ids if u not in units]
        if missing:
            raise SerializationError(f"units.{missing[0]}: missing unit")
        unknown = sorted(set(units) - set(expected_ids))
        if unknown:
            raise SerializationError(f"units.{unknown[0]}: unknown unit")
        fields = {
            "col": "col",
            "row": "row",
            "hp": "hp",
            "movesLeft": "moves_left",
            "hasShot": "has_shot",
            "deployOrder": "deploy_order",
            "deployHexSlot": "deploy_hex_slot",
            "damageDealt": "damage_dealt",
        }
        for uid in expected_ids:
            entry, g = units[uid], s.unit_index(uid)
            path = f"units.{uid}"
            if not isinstance(entry, dict) or set(entry) != set(fields) | {"id", "owner"}:
                raise SerializationError(
                    f"{path}: expected the fields {sorted(fields)} + id, owner"
                )
            if entry["id"] != uid or entry["owner"] != player_id(g // s.max_unit_slots):
                raise SerializationError(f"{path}.owner: does not match the scenario")
            for key, name in fields.items():
                value = entry[key]
                is_bool = name == "has_shot"
                if (
                    (not isinstance(value, bool))
                    if is_bool
                    else (isinstance(value, bool) or not isinstance(value, int))
                ):
                    raise SerializationError(f"{path}.{key}: wrong type {value!r}")
                info = None if is_bool else np.iinfo(cols[name].dtype)
                if info is not None and not info.min <= value <= info.max:
                    raise SerializationError(f"{path}.{key}: {value} out of range")
                cols[name][g] = value
            if (
                (cols["col"][g] < 0) != (cols["row"][g] < 0)
                or cols["col"][g] >= s.cols
                or cols["row"][g] >= s.rows
                or min(cols["col"][g], cols["row"][g]) < -1
            ):
                raise SerializationError(
                    f"{path}.col: ({cols['col'][g]}, {cols['row'][g]}) is "
                    f"neither (-1, -1) nor a hex of the board"
                )

        def index(table, value, path):
            if value not in table:
                raise SerializationError(f"{path}: {value!r} not one of {list(table)}")
            return table.index(value)

        phase = index(PHASES, data["phase"], "phase")
        turn = data["turnState"]
        if not isinstance(turn, dict) or set(turn) != {"activePlayerId", "turnNumber", "phase"}:
            raise SerializationError("turnState: expected activePlayerId, turnNumber, phase")
        if turn["phase"] != data["phase"]:
            raise SerializationError("turnState.phase: differs from phase")
        active = index(PLAYERS, turn["activePlayerId"], "turnState.activePlayerId")
        turn_number = turn["turnNumber"]
        steps = data["deploymentSteps"]
        for path, value in (("turnState.turnNumber", turn_number), ("deploymentSteps", steps)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**15:
                raise SerializationError(f"{path}: expected a small non-negative integer")
        # Host arrays: the core validates them and moves the state to the device in one call.
        game = template.replace(
            phase=np.int8(phase),
            active_player=np.int8(active),
            turn=np.int16(turn_number),
            outcome=np.int8(index(R.OUTCOMES, data["outcome"], "outcome")),
            end_reason=np.int8(index(R.END_REASONS, data["endReason"], "endReason")),
            deploy_steps=np.int16(steps),
            **cols,
        )
        # Reachability (the rules' invariants) is checked by the core's env.validate after this.
        # The D8 views are derived: they must say exactly what the positions say.
        expected_view = self.to_json_game(game)["deployment_state"]
        if data["deployment_state"] != expected_view:
            raise SerializationError(
                "deployment_state: inconsistent with the unit positions or the scenario "
                f"(expected {expected_view!r})"
            )
        return game


def deadlock_message(env: DeploymentEnv, game: R.DeploymentState) -> str:
    """The D5 message: active player, remaining units, each pool's size, the occupied hexes."""
    s = env.scenario
    g = jax.tree.map(np.asarray, game)
    player = int(g.active_player)
    remaining = {
        player_id(p): [u for u in s.units_by_player[p] if g.col[s.unit_index(u)] < 0]
        for p in range(2)
    }
    occupied = sorted(
        (int(g.col[i]), int(g.row[i]))
        for i in range(len(s.unit_ids))
        if s.unit_ids[i] and g.col[i] >= 0 and g.hp[i] > 0
    )
    return (
        f"deployment deadlock: active player {player_id(player)} has units left "
        f"{remaining[player_id(player)]} but no legal placement; remaining units {remaining}; "
        f"pool sizes { {player_id(p): len(s.pools[p]) for p in range(2)} }; "
        f"occupied hexes {[list(h) for h in occupied]}"
    )


# -- host-side action helpers (D1-D3) ---------------------------------------------------------------


def decode_action(env: DeploymentEnv, state: State, index: int):
    """What action ``index`` means in ``state`` (same state → same meaning, 5.1).

    Returns ``DeployAction(unit_id, col, row)`` (``unit_id`` None / ``(-1, -1)`` for an empty slot),
    ``"pass_deployment"``, ``MoveAction(unit_id, direction)``, ``ShootAction(unit_id, target_id)``
    or ``"end_phase"``, for the player to act in ``state``.
    """
    s, layout = env.scenario, env.action_layout
    name, offset = layout.decode(int(index))
    player = int(state.game.active_player)
    ids = s.unit_ids
    U = s.max_unit_slots
    unit = lambda p, slot: ids[p * U + slot] or None  # noqa: E731
    if name == "deploy":
        u, h = divmod(offset, s.max_hex_slots)
        flat = int(s.tables["pool_hex"][player, h])
        col, row = s.unflat(flat) if flat >= 0 else (-1, -1)
        return DeployAction(unit(player, u), col, row)
    if name == "move":
        u, d = divmod(offset, len(DIRECTIONS))
        return MoveAction(unit(player, u), DIRECTIONS[d])
    if name == "shoot":
        u, target = divmod(offset, U)
        return ShootAction(unit(player, u), unit(1 - player, target))
    return name


def _illegal(env, code_name: str, detail: str) -> IllegalActionError:
    return rule_error(env, env.error_codes.code(code_name), f"deploy_unit {detail}")


def encode_deploy(env: DeploymentEnv, state: State, unit_id: str, col: int, row: int) -> int:
    """Action index of ``deploy_unit {unit_id, col, row}`` for the current deployer (D3).

    Raises:
      IllegalActionError: when no index can express it: the unit is not the deployer's
        (``not_deployers_unit``), the hex is off the board (``out_of_bounds``) or not in the
        deployer's pool (``outside_pool``).
    """
    s = env.scenario
    player = int(state.game.active_player)
    detail = f"{{unitId: {unit_id!r}, col: {col}, row: {row}}} by {player_id(player)}"
    if unit_id not in s.units_by_player[player]:
        raise _illegal(env, "not_deployers_unit", detail)
    if not (0 <= col < s.cols and 0 <= row < s.rows):
        raise _illegal(env, "out_of_bounds", detail)
    pool = sorted(s.pools[player])
    if (col, row) not in pool:
        raise _illegal(env, "wall" if (col, row) in s.walls else "outside_pool", detail)
    u = s.units_by_player[player].index(unit_id)
    return u * s.max_hex_slots + pool.index((col, row))


def checked_deploy(
    env: DeploymentEnv, state: State, unit_id: str, col: int, row: int, key: jax.Array
) -> State:
    """The semantic action ``deploy_unit {unitId, col, row}`` (spec 4.1) through the checked API.

    Checks the eight conditions of 4.2 in order and raises ``IllegalActionError`` naming the first
    that fails (``wrong_phase``, ``not_deployers_unit``, ``already_deployed``, ``out_of_bounds``,
    ``wall``, ``outside_pool``, ``occupied``, ``scenario_restriction``); nothing changes then.
    """
    player = int(state.game.active_player)
    detail = f"{{unitId: {unit_id!r}, col: {col}, row: {row}}} by {player_id(player)}"
    if bool(state.terminated | state.truncated) or int(state.game.phase) != R.DEPLOYMENT:
        raise _illegal(env, "wrong_phase", detail)
    s = env.scenario
    if unit_id in s.units_by_player[player] and int(state.game.col[s.unit_index(unit_id)]) >= 0:
        raise _illegal(env, "already_deployed", detail)
    if (
        unit_id in s.units_by_player[player]
        and 0 <= col < s.cols
        and 0 <= row < s.rows
        and (col, row) in s.walls
    ):
        raise _illegal(env, "wall", detail)
    index = encode_deploy(env, state, unit_id, col, row)
    try:
        return checked_step(env, state, index, key)
    except IllegalActionError as exc:  # name the semantic action, not only the index
        raise _illegal(env, exc.rule, f"{detail} (action {index})") from exc
