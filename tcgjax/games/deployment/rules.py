"""Rules of the hex wargame with an active deployment phase (``deployment_phase_v1.md``, D1–D8).

Pure rules: no RL import. A game has three phases, one discrete action space for all of them.

**Deployment** (spec 3–7). The current deployer places their units one per step, player by player
(3.3): ``deploy(u, h)`` puts unit slot ``u`` (the deployer's units sorted by id, D1) on hex slot ``h``
(their pool sorted by ``(col, row)``, D2) at index ``u * max_hex_slots + h`` (D3). It is legal iff
the eight conditions of 4.2 hold (D4). The deployer switches only when they have no unit left (7.1);
once every unit of both players is placed, ``deployment_complete`` holds and the phase becomes
``post_deployment_start_phase`` (7.2) with ``first_player`` to act. ``pass_deployment`` is legal only
when no deploy is legal; since pools are fixed and occupancy only grows, it ends the episode as a
deadlock with zero rewards (D5). Unplaced units sit at ``(-1, -1)``.

**Skirmish.** Players alternate turns of two phases. *Movement*: ``move(u, d)`` moves a unit one hex in
direction ``d`` (see :mod:`hexgrid`) onto a free, in-board, non-wall hex; each unit has ``move`` such
steps per turn, so it travels up to its move value through free hexes. *Shooting*: ``shoot(u, t)``:
a unit that has not shot this turn hits enemy unit slot ``t`` within its ``range`` (hex distance) for
``damage`` HP; a unit at 0 HP is removed from the board (it stops occupying its hex and acting; its
last position is kept so that "deployed" stays a fact of its coordinates, E2). ``end_phase`` is always
legal in the skirmish: movement → shooting → the opponent's movement. A side with no unit left loses
("elimination"); after ``max_turns`` rounds the side with more total HP wins, equal HP is a draw
("turn_limit"). Rewards ``win``/``loss``/``draw`` and the optional zero-sum ``deployment_shaping``
(+s to the deployer, -s to the opponent per placement) come from the scenario (spec 8).

Simplifications: no line of sight (walls block movement only), no terrain, no morale.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax.core import zones
from tcgjax.core.actions import ActionLayout
from tcgjax.core.errors import FIRST_GAME_CODE, RuleError
from tcgjax.core.invariants import InvariantTable
from tcgjax.core.invariants import row as _row
from tcgjax.core.invariants import scalar as _scalar
from tcgjax.core.tree import tree_where
from tcgjax.games.deployment.scenario import PHASES, Scenario

DEPLOYMENT, MOVEMENT, SHOOTING = 0, 1, 2
ONGOING, PLAYER1_WON, PLAYER2_WON, DRAW, DEADLOCK = 0, 1, 2, 3, 4
OUTCOMES = ("ongoing", "player1_won", "player2_won", "draw", "deadlock")
END_NONE, END_ELIMINATION, END_TURN_LIMIT, END_DEADLOCK, END_ILLEGAL = 0, 1, 2, 3, 4
END_REASONS = ("none", "elimination", "turn_limit", "deadlock", "illegal_action")
NUM_DIRECTIONS = 6

RULE_ERRORS = (
    # The eight conditions of spec 4.2, in its order.
    RuleError("wrong_phase", "4.2.1: the action does not belong to the current phase"),
    RuleError("not_deployers_unit", "4.2.2: the unit does not belong to the current deployer"),
    RuleError("already_deployed", "4.2.3: the unit is already in deployed_units"),
    RuleError("out_of_bounds", "4.2.4: (col, row) is outside the board"),
    RuleError("wall", "4.2.5: (col, row) is a wall"),
    RuleError("outside_pool", "4.2.6: (col, row) is not in the deployer's deployment pool"),
    RuleError("occupied", "4.2.7: (col, row) already holds a unit"),
    RuleError(
        "scenario_restriction", "4.2.8: the scenario's deployment_restrictions forbid this hex"
    ),
    RuleError("pass_with_legal_deploy", "5.3/D4: pass_deployment only when no deploy is legal"),
    RuleError("unit_cannot_act", "no living unit of the active player in that unit slot"),
    RuleError("no_moves_left", "the unit has used all its movement this turn"),
    RuleError("move_off_board", "the destination hex is off the board"),
    RuleError("move_into_wall", "the destination hex is a wall"),
    RuleError("move_into_occupied", "the destination hex holds a unit"),
    RuleError("already_shot", "the unit has already shot this turn"),
    RuleError("no_target", "no living enemy unit in that target slot"),
    RuleError("out_of_range", "the target is farther than the unit's range"),
)
CODES = {e.name: FIRST_GAME_CODE + i for i, e in enumerate(RULE_ERRORS)}


@struct.dataclass
class DeploymentState:
    """Rules state. ``U2 = 2 * max_unit_slots`` units, global index ``player * max_unit_slots + slot``.

    Attributes:
      phase: int8[] — 0 deployment, 1 movement, 2 shooting (``PHASES``).
      active_player: int8[] — ``current_deployer`` during deployment, the acting player after.
      col, row: int8[U2] — unit positions; ``(-1, -1)`` while not deployed (invariant 3.2.2).
      hp: int8[U2] — hit points; 0 = removed (or an empty slot).
      moves_left: int8[U2] — movement steps left this turn.
      has_shot: bool[U2] — the unit shot this turn.
      turn: int16[] — skirmish round, 0 during deployment.
      outcome: int8[] — index into ``OUTCOMES``; ``end_reason``: int8[] into ``END_REASONS``.
      deploy_steps: int16[] — placements applied so far (spec 9 ``deployment_steps``).
      deploy_order: int8[U2] — placement index at which each unit was deployed, -1 if not.
      deploy_hex_slot: int16[U2] — the ``hex_slot`` chosen for each unit, -1 if not deployed.
      damage_dealt: int16[U2] — damage each unit dealt (placement → damage metric).
    """

    phase: jax.Array
    active_player: jax.Array
    col: jax.Array
    row: jax.Array
    hp: jax.Array
    moves_left: jax.Array
    has_shot: jax.Array
    turn: jax.Array
    outcome: jax.Array
    end_reason: jax.Array
    deploy_steps: jax.Array
    deploy_order: jax.Array
    deploy_hex_slot: jax.Array
    damage_dealt: jax.Array


def pick(player: jax.Array, pair: jax.Array) -> jax.Array:
    """``pair[player]`` for a leading axis of 2, as a select: under ``vmap`` a gather with a traced
    index is several times slower on CPU than choosing between two static slices."""
    return jnp.where(player == 0, pair[0], pair[1])


def _first_error(*checks):
    """The code of the first failing ``(failed, rule name)`` check, elementwise; 0 if none fails."""
    return zones.first_error(*((failed, CODES[name]) for failed, name in checks))


class DeploymentRules:
    """Static rules object for one scenario: tables as device constants, pure methods."""

    def __init__(self, scenario: Scenario):
        self.scenario = s = scenario
        self.U = s.max_unit_slots
        self.Hs = s.max_hex_slots
        self.num_units = 2 * self.U
        self.actions = ActionLayout(
            [
                ("deploy", (self.U, self.Hs)),  # unit x hex slot
                ("pass_deployment", 1),
                ("move", (self.U, NUM_DIRECTIONS)),  # unit x direction
                ("shoot", (self.U, self.U)),  # shooter x target
                ("end_phase", 1),
            ]
        )
        self.t = {name: jnp.asarray(arr) for name, arr in s.tables.items()}
        self.post_phase = PHASES.index(s.post_deployment_start_phase)

    # -- setup ---------------------------------------------------------------------------------

    def init(self) -> DeploymentState:
        t, n = self.t, self.num_units
        fixed = self.scenario.deployment_type == "fixed"
        state = DeploymentState(
            phase=jnp.int8(DEPLOYMENT),
            active_player=jnp.int8(self.scenario.first_deployer),
            col=jnp.full(n, -1, jnp.int8),
            row=jnp.full(n, -1, jnp.int8),
            hp=t["unit_hp"],
            moves_left=jnp.zeros(n, jnp.int8),
            has_shot=jnp.zeros(n, jnp.bool_),
            turn=jnp.int16(0),
            outcome=jnp.int8(ONGOING),
            end_reason=jnp.int8(0),
            deploy_steps=jnp.int16(0),
            deploy_order=jnp.full(n, -1, jnp.int8),
            deploy_hex_slot=jnp.full(n, -1, jnp.int16),
            damage_dealt=jnp.zeros(n, jnp.int16),
        )
        if fixed:
            state = self._start_skirmish(state.replace(col=t["fixed_col"], row=t["fixed_row"]))
        return state

    # -- derived facts (never stored, E2) --------------------------------------------------------

    def flat(self, state: DeploymentState) -> jax.Array:
        """Flat hex index of every unit, -1 if not deployed. int32[U2]."""
        placed = state.col >= 0
        return jnp.where(placed, state.col.astype(jnp.int32) * self.scenario.rows + state.row, -1)

    def deployed(self, state: DeploymentState) -> jax.Array:
        """bool[U2]: the unit is in ``deployed_units`` (it has coordinates, invariant 3.2.1)."""
        return self.t["unit_exists"] & (state.col >= 0)

    def alive(self, state: DeploymentState) -> jax.Array:
        """bool[U2]: deployed and not removed."""
        return self.deployed(state) & (state.hp > 0)

    def unit_on_hex(self, state: DeploymentState) -> jax.Array:
        """bool[U2, H]: living unit g stands on hex h. A compare, not a scatter: under ``vmap`` on
        CPU a [U2, H] compare is several times cheaper than a scatter for these sizes."""
        hexes = jnp.arange(self.scenario.num_hexes)
        return self.alive(state)[:, None] & (self.flat(state)[:, None] == hexes[None, :])

    def occupancy(self, state: DeploymentState) -> jax.Array:
        """bool[H]: hexes holding a living unit."""
        return jnp.any(self.unit_on_hex(state), axis=0)

    def remaining(self, state: DeploymentState) -> jax.Array:
        """bool[2]: the player still has units to deploy."""
        undeployed = self.t["unit_exists"] & (state.col < 0)
        return jnp.stack([jnp.any(undeployed & (self.t["unit_owner"] == p)) for p in range(2)])

    def deployment_complete(self, state: DeploymentState) -> jax.Array:
        """bool[]: every unit of both players is deployed (invariant 3.2.4)."""
        return ~jnp.any(self.remaining(state))

    # -- legality: one elementwise function per branch -------------------------------------------

    def deploy_errors(self, state: DeploymentState, u, h, occupancy) -> jax.Array:
        """Error code of ``deploy(u, h)`` for the current deployer, elementwise over ``u``, ``h``."""
        t = self.t
        player = state.active_player.astype(jnp.int32)
        g = player * self.U + u
        target = t["pool_hex"][player, h].astype(jnp.int32)
        safe = jnp.maximum(target, 0)
        return _first_error(
            (state.phase != DEPLOYMENT, "wrong_phase"),
            (~t["unit_exists"][g], "not_deployers_unit"),
            (state.col[g] >= 0, "already_deployed"),
            (target < 0, "outside_pool"),
            (t["wall"][safe], "wall"),
            (occupancy[safe], "occupied"),
            (~t["restriction_allowed"][g, h], "scenario_restriction"),
        )

    def move_errors(self, state: DeploymentState, u, d, occupancy) -> jax.Array:
        t = self.t
        g = state.active_player.astype(jnp.int32) * self.U + u
        here = jnp.maximum(self.flat(state)[g], 0)
        target = t["neighbours"][here, d].astype(jnp.int32)
        safe = jnp.maximum(target, 0)
        return _first_error(
            (state.phase != MOVEMENT, "wrong_phase"),
            (~self.alive(state)[g], "unit_cannot_act"),
            (state.moves_left[g] <= 0, "no_moves_left"),
            (target < 0, "move_off_board"),
            (t["wall"][safe], "move_into_wall"),
            (occupancy[safe], "move_into_occupied"),
        )

    def shoot_errors(self, state: DeploymentState, u, target) -> jax.Array:
        t = self.t
        player = state.active_player.astype(jnp.int32)
        g = player * self.U + u
        g2 = (1 - player) * self.U + target
        alive, flat = self.alive(state), jnp.maximum(self.flat(state), 0)
        return _first_error(
            (state.phase != SHOOTING, "wrong_phase"),
            (~alive[g], "unit_cannot_act"),
            (state.has_shot[g], "already_shot"),
            (~alive[g2], "no_target"),
            (t["distance"][flat[g], flat[g2]] > t["unit_range"][g], "out_of_range"),
        )

    def deploy_legal(self, state: DeploymentState, occupancy) -> jax.Array:
        """bool[U, Hs]: ``deploy(u, h)`` is legal (D4). The fast boolean form of
        :meth:`deploy_errors` (an outer product of unit and hex conditions); tests check both agree."""
        t, player = self.t, state.active_player
        exists = pick(player, t["unit_exists"].reshape(2, self.U))
        undeployed = exists & (pick(player, state.col.reshape(2, self.U)) < 0)
        pool = pick(player, t["pool_hex"]).astype(jnp.int32)
        safe = jnp.maximum(pool, 0)
        hex_ok = (pool >= 0) & ~t["wall"][safe] & ~occupancy[safe]
        allowed = pick(player, t["restriction_allowed"].reshape(2, self.U, self.Hs))
        return (state.phase == DEPLOYMENT) & undeployed[:, None] & hex_ok[None, :] & allowed

    def legal_action_mask(self, state: DeploymentState) -> jax.Array:
        """bool[A] in action-index order; never all False before the game ends."""
        occupancy = self.occupancy(state)
        units = jnp.arange(self.U)
        deploy = self.deploy_legal(state, occupancy)
        can_pass = (state.phase == DEPLOYMENT) & ~jnp.any(deploy)
        move = (
            self.move_errors(state, units[:, None], jnp.arange(NUM_DIRECTIONS)[None, :], occupancy)
            == 0
        )
        shoot = self.shoot_errors(state, units[:, None], units[None, :]) == 0
        end = state.phase != DEPLOYMENT
        return jnp.concatenate(
            [deploy.reshape(-1), can_pass[None], move.reshape(-1), shoot.reshape(-1), end[None]]
        )

    def action_error(self, state: DeploymentState, action: jax.Array) -> jax.Array:
        """int32[] error code of one action (0 = legal), from the same elementwise rules."""
        a = self.actions
        occupancy = self.occupancy(state)
        u, h = jnp.divmod(jnp.clip(action, 0, a.size("deploy") - 1), self.Hs)
        deploy = self.deploy_errors(state, u, h, occupancy)
        any_deploy = jnp.any(self.deploy_legal(state, occupancy))
        pass_code = _first_error(
            (state.phase != DEPLOYMENT, "wrong_phase"), (any_deploy, "pass_with_legal_deploy")
        )
        mu, d = jnp.divmod(
            jnp.clip(action - a.start("move"), 0, a.size("move") - 1), NUM_DIRECTIONS
        )
        move = self.move_errors(state, mu, d, occupancy)
        su, target = jnp.divmod(jnp.clip(action - a.start("shoot"), 0, a.size("shoot") - 1), self.U)
        shoot = self.shoot_errors(state, su, target)
        end = _first_error((state.phase == DEPLOYMENT, "wrong_phase"))
        return jnp.stack([deploy, pass_code, move, shoot, end])[self._kind(action)]

    def _kind(self, action: jax.Array) -> jax.Array:
        """Branch of an action index: 0 deploy, 1 pass, 2 move, 3 shoot, 4 end_phase."""
        a = self.actions
        return (
            (action >= a.start("pass_deployment")).astype(jnp.int32)
            + (action >= a.start("move"))
            + (action >= a.start("shoot"))
            + (action >= a.start("end_phase"))
        )

    def action_errors(self, state: DeploymentState) -> jax.Array:
        """Error code of every action (0 = legal), in action-index order. int32[A]."""
        occupancy = self.occupancy(state)
        units = jnp.arange(self.U)
        deploy = self.deploy_errors(state, units[:, None], jnp.arange(self.Hs)[None, :], occupancy)
        any_deploy = jnp.any(deploy == 0)
        pass_code = _first_error(
            (state.phase != DEPLOYMENT, "wrong_phase"), (any_deploy, "pass_with_legal_deploy")
        )
        move = self.move_errors(
            state, units[:, None], jnp.arange(NUM_DIRECTIONS)[None, :], occupancy
        )
        shoot = self.shoot_errors(state, units[:, None], units[None, :])
        end = _first_error((state.phase == DEPLOYMENT, "wrong_phase"))
        return jnp.concatenate(
            [deploy.reshape(-1), pass_code[None], move.reshape(-1), shoot.reshape(-1), end[None]]
        )

    # -- transitions ---------------------------------------------------------------------------

    def apply(self, state: DeploymentState, action: jax.Array) -> tuple[DeploymentState, jax.Array]:
        """Apply a legal action. Returns ``(state, rewards float32[2])``."""
        branches = (self._deploy, self._pass, self._move, self._shoot, self._end_phase)
        return jax.lax.switch(self._kind(action), branches, state, action)

    def _rewards_at_end(self, state: DeploymentState) -> jax.Array:
        r = self.scenario.rewards
        outcome = state.outcome
        p1 = jnp.where(
            outcome == PLAYER1_WON,
            r["win"],
            jnp.where(
                outcome == PLAYER2_WON, r["loss"], jnp.where(outcome == DRAW, r["draw"], 0.0)
            ),
        )
        p2 = jnp.where(
            outcome == PLAYER2_WON,
            r["win"],
            jnp.where(
                outcome == PLAYER1_WON, r["loss"], jnp.where(outcome == DRAW, r["draw"], 0.0)
            ),
        )
        return jnp.stack([p1, p2]).astype(jnp.float32)

    def _deploy(self, state: DeploymentState, action):
        player = state.active_player.astype(jnp.int32)
        u, h = action // self.Hs, action % self.Hs
        g = player * self.U + u
        target = self.t["pool_hex"][player, h].astype(jnp.int32)
        state = self._place(state, g, target)
        state = state.replace(
            deploy_order=state.deploy_order.at[g].set(state.deploy_steps.astype(jnp.int8)),
            deploy_hex_slot=state.deploy_hex_slot.at[g].set(h.astype(jnp.int16)),
            deploy_steps=state.deploy_steps + 1,
        )
        shaping = self.scenario.rewards["deployment_shaping"]
        rewards = jnp.where(jnp.arange(2) == player, shaping, -shaping).astype(jnp.float32)
        remaining = self.remaining(state)
        # 7.1: switch deployer only when the current one has no unit left.
        next_player = jnp.where(remaining[player], player, 1 - player).astype(jnp.int8)
        state = state.replace(active_player=next_player)
        done = ~jnp.any(remaining)  # 7.2: every unit of both players is placed.
        return tree_where(done, self._start_skirmish(state), state), rewards

    def _place(self, state: DeploymentState, g, flat) -> DeploymentState:
        """Put unit ``g`` on flat hex ``flat`` (``col * rows + row``)."""
        rows = self.scenario.rows
        return state.replace(
            col=state.col.at[g].set((flat // rows).astype(jnp.int8)),
            row=state.row.at[g].set((flat % rows).astype(jnp.int8)),
        )

    def _start_skirmish(self, state: DeploymentState) -> DeploymentState:
        first = jnp.int8(self.scenario.first_player)
        return self._start_turn(
            state.replace(phase=jnp.int8(self.post_phase), active_player=first, turn=jnp.int16(1)),
            first,
        )

    def _start_turn(self, state: DeploymentState, player) -> DeploymentState:
        mine = self.t["unit_owner"] == player
        return state.replace(
            moves_left=jnp.where(mine, self.t["unit_move"], 0).astype(jnp.int8),
            has_shot=jnp.zeros_like(state.has_shot),
        )

    def _pass(self, state: DeploymentState, action):
        del action  # D5: pass_deployment resolves to a deadlock, zero rewards.
        state = state.replace(outcome=jnp.int8(DEADLOCK), end_reason=jnp.int8(END_DEADLOCK))
        return state, jnp.zeros(2, jnp.float32)

    def _move(self, state: DeploymentState, action):
        offset = action - self.actions.start("move")
        u, d = offset // NUM_DIRECTIONS, offset % NUM_DIRECTIONS
        g = state.active_player.astype(jnp.int32) * self.U + u
        here = jnp.maximum(self.flat(state)[g], 0)
        target = self.t["neighbours"][here, d].astype(jnp.int32)
        state = self._place(state, g, target)
        state = state.replace(moves_left=state.moves_left.at[g].add(-1))
        return state, jnp.zeros(2, jnp.float32)

    def _shoot(self, state: DeploymentState, action):
        offset = action - self.actions.start("shoot")
        player = state.active_player.astype(jnp.int32)
        g = player * self.U + offset // self.U
        g2 = (1 - player) * self.U + offset % self.U
        dealt = jnp.minimum(self.t["unit_damage"][g], state.hp[g2])
        state = state.replace(
            hp=state.hp.at[g2].add(-dealt),
            has_shot=state.has_shot.at[g].set(True),
            damage_dealt=state.damage_dealt.at[g].add(dealt.astype(jnp.int16)),
        )
        enemy_left = jnp.any(self.alive(state) & (self.t["unit_owner"] == 1 - player))
        outcome = jnp.where(enemy_left, state.outcome, PLAYER1_WON + player).astype(jnp.int8)
        state = state.replace(
            outcome=outcome,
            end_reason=jnp.where(enemy_left, state.end_reason, END_ELIMINATION).astype(jnp.int8),
        )
        return state, self._rewards_at_end(state)

    def _end_phase(self, state: DeploymentState, action):
        del action
        player = state.active_player.astype(jnp.int32)
        to_shooting = state.phase == MOVEMENT
        opponent = (1 - player).astype(jnp.int8)
        new_round = opponent == self.scenario.first_player
        next_turn = state.turn + new_round.astype(jnp.int16)
        handed = self._start_turn(
            state.replace(phase=jnp.int8(MOVEMENT), active_player=opponent, turn=next_turn),
            opponent,
        )
        state = tree_where(to_shooting, state.replace(phase=jnp.int8(SHOOTING)), handed)
        # Turn limit: after max_turns rounds the side with more total HP wins.
        over = state.turn > self.scenario.max_turns
        alive_hp = jnp.where(self.alive(state), state.hp, 0).astype(jnp.int32)
        hp1 = jnp.sum(jnp.where(self.t["unit_owner"] == 0, alive_hp, 0))
        hp2 = jnp.sum(jnp.where(self.t["unit_owner"] == 1, alive_hp, 0))
        result = jnp.where(hp1 > hp2, PLAYER1_WON, jnp.where(hp2 > hp1, PLAYER2_WON, DRAW))
        state = state.replace(
            outcome=jnp.where(over, result, state.outcome).astype(jnp.int8),
            end_reason=jnp.where(over, END_TURN_LIMIT, state.end_reason).astype(jnp.int8),
            turn=jnp.where(over, self.scenario.max_turns, state.turn).astype(jnp.int16),
        )
        return state, self._rewards_at_end(state)

    def forfeit(self, state: DeploymentState, loser: jax.Array) -> DeploymentState:
        """``loser`` made an illegal move under ``illegal_action="lose"``: the other side wins."""
        winner = (PLAYER1_WON + 1 - loser).astype(jnp.int8)
        return state.replace(outcome=winner, end_reason=jnp.int8(END_ILLEGAL))

    # -- invariants (host side) ------------------------------------------------------------------

    @functools.cached_property
    def invariants(self) -> InvariantTable:
        """The ordered table of what every reachable state satisfies (:func:`_invariants`), built
        once per rules object."""
        return _invariants()

    def facts(self, state: DeploymentState) -> _Facts:
        """The host view of one state the invariants read (:class:`_Facts`)."""
        return _facts(self, state)

    def validate(self, state: DeploymentState) -> None:
        """Raise ``InvalidStateError(path, problem)`` if ``state`` is not reachable under these
        rules: the first row of :attr:`invariants` (:func:`_invariants`) it breaks.

        Host-side (NumPy on a device_get copy), for loaded and hand-built states; the path named
        is the D8 JSON path. The rows, in order: the phase, active player, outcome and end reason
        in range; the phase agrees with the placements (3.2.5, 7.2); each unit's own facts (empty
        slots untouched, hp within the scenario, an undeployed unit undamaged, on the board and
        not on a wall, moves and shots within the turn's allowance); occupancy (one living unit
        per hex, 4.2.7) and pools (4.2.6) during deployment; the deployment record
        (``deploymentSteps``, ``deployOrder``, ``deployHexSlot`` agree with the positions and
        7.1's order); the current deployer (3.3, 7.1); the turn counter; damage (never
        negative, none during deployment, conserved); the outcome with its end reason and the
        state it leaves (who was active, in which phase).
        """
        self.invariants.validate(self.facts(state))


# -- the invariant table (host side) ---------------------------------------------------------------


class _Facts(NamedTuple):
    """One deployment state as host numpy arrays, plus what the invariants derive once.

    ``g``: the state (numpy leaves); ``scenario``; ``t``: the scenario's tables (numpy);
    ``exists``, ``owner``, ``max_hp``, ``move`` per unit slot from the tables; ``phase``,
    ``active``, ``outcome``, ``reason``, ``turn``, ``steps`` the scalars as ints; ``deploying``
    the phase is deployment; ``active_type`` the scenario deploys actively (not ``fixed``);
    ``placed`` bool[U2] the unit has coordinates; ``deployed`` an existing placed unit;
    ``alive`` deployed with hp above 0; ``remaining`` [2] a player has a unit left to deploy;
    ``living`` [2] a player has a living unit.
    """

    g: DeploymentState
    scenario: Scenario
    t: dict
    exists: np.ndarray
    owner: np.ndarray
    max_hp: np.ndarray
    move: np.ndarray
    phase: int
    active: int
    outcome: int
    reason: int
    turn: int
    steps: int
    deploying: bool
    active_type: bool
    placed: np.ndarray
    deployed: np.ndarray
    alive: np.ndarray
    remaining: list
    living: list


def _facts(rules: DeploymentRules, state: DeploymentState) -> _Facts:
    s = rules.scenario
    t = {name: np.asarray(arr) for name, arr in s.tables.items()}
    g = jax.tree.map(np.asarray, state)
    exists, owner = t["unit_exists"], t["unit_owner"].astype(int)
    placed = g.col >= 0
    deployed = exists & placed
    alive = deployed & (g.hp > 0)
    return _Facts(
        g=g,
        scenario=s,
        t=t,
        exists=exists,
        owner=owner,
        max_hp=t["unit_hp"].astype(int),
        move=t["unit_move"].astype(int),
        phase=int(g.phase),
        active=int(g.active_player),
        outcome=int(g.outcome),
        reason=int(g.end_reason),
        turn=int(g.turn),
        steps=int(g.deploy_steps),
        deploying=int(g.phase) == DEPLOYMENT,
        active_type=s.deployment_type == "active",
        placed=placed,
        deployed=deployed,
        alive=alive,
        remaining=[bool(np.any(exists & ~placed & (owner == p))) for p in (0, 1)],
        living=[bool(np.any(alive & (owner == p))) for p in (0, 1)],
    )


def _units(f: _Facts):
    """``(slot, path)`` of every existing unit (``units.<unit_id>``), in slot order."""
    return [(i, f"units.{uid}") for i, uid in enumerate(f.scenario.unit_ids) if f.exists[i]]


def _check_phase_agrees(f: _Facts):
    complete = not any(f.remaining)
    if complete and f.deploying:
        return "'deployment' with every unit placed (3.2.5)"
    if not complete and not f.deploying:
        return f"{PHASES[f.phase]!r} with units left to deploy (7.2)"
    return None


def _check_empty_slots(f: _Facts):
    g = f.g
    for i in np.flatnonzero(~f.exists):
        untouched = (
            g.col[i] == -1
            and g.row[i] == -1
            and g.hp[i] == f.max_hp[i]
            and g.moves_left[i] == 0
            and not g.has_shot[i]
            and g.deploy_order[i] == -1
            and g.deploy_hex_slot[i] == -1
            and g.damage_dealt[i] == 0
        )
        if not untouched:
            return f"units[{i}]", "an empty unit slot holds values"
    return None


def _check_hp_range(f: _Facts):
    for i, path in _units(f):
        hp = int(f.g.hp[i])
        if not 0 <= hp <= f.max_hp[i]:
            return f"{path}.hp", f"{hp} outside [0, {f.max_hp[i]}]"
    return None


def _check_coordinates(f: _Facts):
    s = f.scenario
    for i, path in _units(f):
        col, row = int(f.g.col[i]), int(f.g.row[i])
        if (col < 0) != (row < 0) or col >= s.cols or row >= s.rows or min(col, row) < -1:
            return f"{path}.col", f"({col}, {row}) is neither (-1, -1) nor a hex of the board"
    return None


def _check_undeployed_undamaged(f: _Facts):
    for i, path in _units(f):
        if not f.placed[i] and f.g.hp[i] != f.max_hp[i]:
            return f"{path}.hp", f"{int(f.g.hp[i])}: an undeployed unit cannot have been damaged"
    return None


def _check_not_on_wall(f: _Facts):
    for i, path in _units(f):
        col, row = int(f.g.col[i]), int(f.g.row[i])
        if f.placed[i] and (col, row) in f.scenario.walls:
            return f"{path}.col", f"{[col, row]} is a wall (4.2.5)"
    return None


def _check_moves_range(f: _Facts):
    for i, path in _units(f):
        moves = int(f.g.moves_left[i])
        if not 0 <= moves <= f.move[i]:
            return f"{path}.movesLeft", f"{moves} outside [0, move={f.move[i]}]"
    return None


def _check_moves_whose_turn(f: _Facts):
    # _start_turn gives moves to the player whose turn starts and zeroes everyone else's.
    for i, path in _units(f):
        moves = int(f.g.moves_left[i])
        if moves and (f.deploying or f.owner[i] != f.active):
            return (
                f"{path}.movesLeft",
                f"{moves}, but only the player whose turn it is has moves left",
            )
    return None


def _check_has_shot(f: _Facts):
    # _start_turn clears every has_shot; only shoot sets one, for a living unit of the shooter.
    for i, path in _units(f):
        if f.g.has_shot[i] and not (f.phase == SHOOTING and f.owner[i] == f.active and f.alive[i]):
            return (
                f"{path}.hasShot",
                "true outside the shooting phase of the unit's own turn, or for a unit "
                "that is not on the board",
            )
    return None


def _check_one_per_hex(f: _Facts):
    seen: dict[tuple[int, int], str] = {}
    for i, path in _units(f):
        if not f.alive[i]:
            continue
        hex_ = (int(f.g.col[i]), int(f.g.row[i]))
        if hex_ in seen:
            return f"{path}.col", f"{list(hex_)} already holds {seen[hex_]} (4.2.7)"
        seen[hex_] = f.scenario.unit_ids[i]
    return None


def _check_in_pool(f: _Facts):
    if not (f.deploying and f.active_type):
        return None
    for i, path in _units(f):
        hex_ = (int(f.g.col[i]), int(f.g.row[i]))
        if f.alive[i] and hex_ not in f.scenario.pools[f.owner[i]]:
            return f"{path}.col", f"{list(hex_)} is outside its pool (4.2.6)"
    return None


def _check_fixed_record(f: _Facts):
    g, exists = f.g, f.exists
    if f.active_type:
        return None
    if f.steps or np.any(g.deploy_order[exists] != -1) or np.any(g.deploy_hex_slot[exists] != -1):
        return "fixed deployment records no placement step"
    return None


def _check_step_count(f: _Facts):
    deployed = int(f.deployed.sum())
    if f.active_type and f.steps != deployed:
        return f"{f.steps} != {deployed} deployed units"
    return None


def _check_undeployed_record(f: _Facts):
    for i, path in _units(f):
        if f.active_type and not f.deployed[i]:
            if f.g.deploy_order[i] != -1 or f.g.deploy_hex_slot[i] != -1:
                return f"{path}.deployOrder", "set for a unit that is not deployed"
    return None


def _check_hex_slot_in_pool(f: _Facts):
    for i, path in _units(f):
        slot = int(f.g.deploy_hex_slot[i])
        if f.active_type and f.deployed[i] and not 0 <= slot < int(f.t["pool_size"][f.owner[i]]):
            return f"{path}.deployHexSlot", f"{slot} is not a slot of its pool"
    return None


def _check_hex_slot_is_the_hex(f: _Facts):
    # Units move only in the skirmish: during deployment each stands where it was placed (D3).
    if not (f.active_type and f.deploying):
        return None
    for i, path in _units(f):
        if not f.deployed[i]:
            continue
        slot = int(f.g.deploy_hex_slot[i])
        flat = int(f.g.col[i]) * f.scenario.rows + int(f.g.row[i])
        if int(f.t["pool_hex"][f.owner[i], slot]) != flat:
            return f"{path}.deployHexSlot", f"{slot} is not the hex the unit is on"
    return None


def _check_order_range(f: _Facts):
    for i, path in _units(f):
        order = int(f.g.deploy_order[i])
        if f.active_type and f.deployed[i] and not 0 <= order < f.steps:
            return f"{path}.deployOrder", f"{order} outside [0, {f.steps})"
    return None


def _check_orders_once_each(f: _Facts):
    if not f.active_type:
        return None
    orders = sorted(int(o) for o in f.g.deploy_order[f.deployed])
    if orders != list(range(f.steps)):
        return f"deployOrder values {orders} are not 0..{f.steps - 1}, once each"
    return None


def _check_first_deployer_first(f: _Facts):
    if not f.active_type:
        return None
    first = f.scenario.first_deployer
    firsts = f.g.deploy_order[f.deployed & (f.owner == first)]
    others = f.g.deploy_order[f.deployed & (f.owner != first)]
    if others.size and (
        firsts.size != int((f.exists & (f.owner == first)).sum())
        or firsts.max(initial=-1) > others.min()
    ):
        return (
            "deployOrder: the second deployer placed a unit before the first deployer had "
            "placed all theirs (7.1)"
        )
    return None


def _check_current_deployer(f: _Facts):
    if not f.deploying:
        return None
    first = f.scenario.first_deployer
    expected = first if f.remaining[first] else 1 - first
    if f.active != expected:
        return f"player{f.active + 1} deploys while player{expected + 1} has units left (3.3, 7.1)"
    return None


def _check_turn_in_deployment(f: _Facts):
    if f.deploying and f.turn != 0:
        return f"{f.turn} during deployment (must be 0)"
    return None


def _check_turn_in_skirmish(f: _Facts):
    max_turns = f.scenario.max_turns
    if not f.deploying and not 1 <= f.turn <= max_turns:
        return f"{f.turn} outside [1, max_turns={max_turns}]"
    return None


def _check_damage_not_negative(f: _Facts):
    for i, path in _units(f):
        if f.g.damage_dealt[i] < 0:
            return (
                f"{path}.damageDealt",
                f"{int(f.g.damage_dealt[i])} < 0 (a shot deals min(damage, hp))",
            )
    return None


def _check_no_damage_in_deployment(f: _Facts):
    if f.deploying and np.any(f.g.damage_dealt):
        return "damageDealt during deployment"
    return None


def _check_damage_conserved(f: _Facts):
    for p in (0, 1):
        dealt = int(f.g.damage_dealt[f.exists & (f.owner == p)].sum())
        lost = int((f.max_hp - f.g.hp)[f.exists & (f.owner == 1 - p)].sum())
        if dealt != lost:
            return (
                f"damageDealt by player{p + 1}'s units ({dealt}) != HP lost by "
                f"player{2 - p}'s units ({lost})"
            )
    return None


_EXPECTED_REASONS = {
    ONGOING: (END_NONE,),
    DEADLOCK: (END_DEADLOCK,),
    DRAW: (END_TURN_LIMIT,),
    PLAYER1_WON: (END_ELIMINATION, END_TURN_LIMIT, END_ILLEGAL),
    PLAYER2_WON: (END_ELIMINATION, END_TURN_LIMIT, END_ILLEGAL),
}


def _check_reason_fits_outcome(f: _Facts):
    if f.reason not in _EXPECTED_REASONS[f.outcome]:
        return f"{END_REASONS[f.reason]!r} cannot end a game as {OUTCOMES[f.outcome]!r}"
    return None


def _check_deadlock_in_deployment(f: _Facts):
    if f.outcome == DEADLOCK and not f.deploying:
        return "'deadlock' happens only during deployment (D5)"
    return None


def _check_ongoing_sides(f: _Facts):
    if not f.deploying and f.outcome == ONGOING and not all(f.living):
        return "'ongoing' although a side has no unit left (elimination)"
    return None


def _check_elimination(f: _Facts):
    if f.reason == END_ELIMINATION:
        winner = f.outcome - PLAYER1_WON
        if not (f.living[winner] and not f.living[1 - winner]):
            return f"{OUTCOMES[f.outcome]!r} by elimination, but the units disagree"
    return None


def _check_turn_limit(f: _Facts):
    if f.reason != END_TURN_LIMIT:
        return None
    hp = [int(np.where(f.alive & (f.owner == p), f.g.hp, 0).sum()) for p in (0, 1)]
    result = PLAYER1_WON if hp[0] > hp[1] else PLAYER2_WON if hp[1] > hp[0] else DRAW
    if f.turn != f.scenario.max_turns or f.outcome != result:
        return (
            f"{OUTCOMES[f.outcome]!r} at the turn limit, but the surviving HP {hp} say "
            f"{OUTCOMES[result]!r} (turn {f.turn})"
        )
    return None


def _check_elimination_state(f: _Facts):
    # Only shoot removes a unit: the shooter's shot in their own shooting phase ends the game.
    if f.reason == END_ELIMINATION:
        winner = f.outcome - PLAYER1_WON
        if f.phase != SHOOTING or f.active != winner:
            return (
                f"'elimination' in {PHASES[f.phase]!r} with player{f.active + 1} active, not "
                f"in the shooting phase of the winner player{winner + 1}"
            )
    return None


def _check_turn_limit_state(f: _Facts):
    # _end_phase detects the limit as it hands the turn to first_player for a new round: the
    # state is that player's movement phase (turn clamped back to max_turns).
    first = f.scenario.first_player
    if f.reason == END_TURN_LIMIT and (f.phase != MOVEMENT or f.active != first):
        return (
            f"'turn_limit' in {PHASES[f.phase]!r} with player{f.active + 1} active, not in the "
            f"movement phase of first_player player{first + 1} (the round that never starts)"
        )
    return None


def _check_forfeit_state(f: _Facts):
    # forfeit: the actor (the active player) made the illegal move and the other side wins.
    if f.reason == END_ILLEGAL and f.outcome != PLAYER1_WON + 1 - f.active:
        return (
            f"{OUTCOMES[f.outcome]!r} by 'illegal_action', but player{f.active + 1}, the player "
            "to act, was the one who could forfeit"
        )
    return None


def _invariants() -> InvariantTable:
    """The rows of :meth:`DeploymentRules.validate`, in the order they are checked (ranges first,
    so that a later row may index by a field an earlier one bounded; the phase's agreement with
    the placements before the per-unit allowances that depend on it)."""
    all_unit_fields = "col row hp moves_left has_shot deploy_order deploy_hex_slot damage_dealt"
    rows = [
        _row("phase", "phase", "the phase is one of PHASES",
             lambda f: _scalar(f.phase, lambda v: 0 <= v < len(PHASES),
                               lambda v: f"{v} is not a phase")),
        _row("active_player", "turnState.activePlayerId", "the active player is 0 or 1",
             lambda f: _scalar(f.active, lambda v: v in (0, 1), lambda v: f"{v} is not a player")),
        _row("outcome end_reason", "outcome", "outcome and end reason are known values",
             lambda f: None if 0 <= f.outcome < len(OUTCOMES) and 0 <= f.reason < len(END_REASONS)
             else f"outcome {f.outcome} / endReason {f.reason} unknown"),
        _row("phase col", "phase",
             "'deployment' exactly while a unit is left to deploy (3.2.5, 7.2)",
             _check_phase_agrees),
        _row(all_unit_fields, "units[N]",
             "an empty unit slot keeps its initial values (off the board, the table's hp, no "
             "moves, no shot, no record, no damage)", _check_empty_slots),
        _row("hp", "units.UNIT.hp", "hp within [0, the unit's hp]", _check_hp_range),
        _row("col row", "units.UNIT.col", "(col, row) is (-1, -1) or a hex of the board",
             _check_coordinates),
        _row("hp col", "units.UNIT.hp", "an undeployed unit is undamaged",
             _check_undeployed_undamaged),
        _row("col row", "units.UNIT.col", "no unit on a wall (4.2.5)", _check_not_on_wall),
        _row("moves_left", "units.UNIT.movesLeft", "moves left within [0, the unit's move]",
             _check_moves_range),
        _row("moves_left phase active_player", "units.UNIT.movesLeft",
             "moves left only for the active player's units, none during deployment",
             _check_moves_whose_turn),
        _row("has_shot phase active_player", "units.UNIT.hasShot",
             "a unit has shot only in its own turn's shooting phase, alive on the board",
             _check_has_shot),
        _row("col row hp", "units.UNIT.col", "one living unit per hex (4.2.7)",
             _check_one_per_hex),
        _row("col row phase", "units.UNIT.col",
             "during an active deployment each unit stands in its owner's pool (4.2.6)",
             _check_in_pool),
        _row("deploy_steps deploy_order deploy_hex_slot", "deploymentSteps",
             "a fixed deployment records no placement step", _check_fixed_record),
        _row("deploy_steps", "deploymentSteps",
             "an active deployment counts one step per deployed unit (spec 9)",
             _check_step_count),
        _row("deploy_order deploy_hex_slot", "units.UNIT.deployOrder",
             "an undeployed unit has no deployOrder or deployHexSlot (-1)",
             _check_undeployed_record),
        _row("deploy_hex_slot", "units.UNIT.deployHexSlot",
             "a deployed unit's hex slot is a slot of its owner's pool (D2)",
             _check_hex_slot_in_pool),
        _row("deploy_hex_slot", "units.UNIT.deployHexSlot",
             "during deployment a unit stands on its hex slot's hex (D3)",
             _check_hex_slot_is_the_hex),
        _row("deploy_order", "units.UNIT.deployOrder",
             "a deployed unit's order within [0, deploymentSteps)", _check_order_range),
        _row("deploy_order", "units", "the deployed units' orders are 0..steps-1, once each",
             _check_orders_once_each),
        _row("deploy_order", "units",
             "the first deployer places all their units before the other starts (7.1)",
             _check_first_deployer_first),
        _row("active_player", "deployment_state.current_deployer",
             "the first deployer deploys while they have a unit left, then the other (3.3, 7.1)",
             _check_current_deployer),
        _row("turn", "turnState.turnNumber", "turn 0 during deployment",
             _check_turn_in_deployment),
        _row("turn", "turnState.turnNumber", "the skirmish's turn within [1, max_turns]",
             _check_turn_in_skirmish),
        _row("damage_dealt", "units.UNIT.damageDealt", "a unit's damage dealt is not negative",
             _check_damage_not_negative),
        _row("damage_dealt", "units", "no damage dealt during deployment",
             _check_no_damage_in_deployment),
        _row("damage_dealt hp", "units",
             "the damage a player's units dealt is the HP the other player's units lost",
             _check_damage_conserved),
        _row("end_reason outcome", "endReason",
             "the end reason fits the outcome (none while ongoing, deadlock for a deadlock, "
             "turn_limit for a draw; elimination, turn_limit or illegal_action for a win)",
             _check_reason_fits_outcome),
        _row("outcome", "outcome", "'deadlock' only during deployment (D5)",
             _check_deadlock_in_deployment),
        _row("outcome", "outcome", "a skirmish that goes on has living units on both sides",
             _check_ongoing_sides),
        _row("outcome", "outcome",
             "an elimination: the winner has living units, the loser none", _check_elimination),
        _row("outcome", "outcome",
             "a turn-limit end: at turn max_turns, the side with more surviving HP wins, equal "
             "HP draws", _check_turn_limit),
        _row("end_reason phase active_player", "endReason",
             "'elimination' leaves the winner's shooting phase (only a shot removes a unit)",
             _check_elimination_state),
        _row("end_reason phase active_player", "endReason",
             "'turn_limit' leaves first_player's movement phase (the limit is met as the next "
             "round would start)", _check_turn_limit_state),
        _row("end_reason active_player", "endReason",
             "'illegal_action': the active player forfeited, the other side won",
             _check_forfeit_state),
    ]  # fmt: skip
    return InvariantTable(rows)
