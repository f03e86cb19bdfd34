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

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax.core import zones
from tcgjax.core.actions import ActionLayout
from tcgjax.core.errors import FIRST_GAME_CODE, InvalidStateError, RuleError
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
                ("deploy", self.U * self.Hs),
                ("pass_deployment", 1),
                ("move", self.U * NUM_DIRECTIONS),
                ("shoot", self.U * self.U),
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

    def validate(self, state: DeploymentState) -> None:
        """Raise ``InvalidStateError`` if ``state`` is not reachable under these rules.

        Host-side (NumPy on a device_get copy), for loaded and hand-built states; the field named is
        the D8 JSON path. Invariants, in order: each unit's own facts (empty slots untouched, hp
        within the scenario, an undeployed unit undamaged, on the board and not on a wall, moves and
        shots within the turn's allowance), then occupancy (one living unit per hex, 4.2.7) and
        pools (4.2.6) during deployment, the deployment record (``deployOrder``,
        ``deployHexSlot``, ``deploymentSteps`` agree with the positions), phase and completeness
        (3.2.5, 7.2), the current deployer (3.3, 7.1), the turn counter, damage conservation, and
        the outcome with its end reason.
        """
        s, t = self.scenario, {k: np.asarray(v) for k, v in self.scenario.tables.items()}
        g = jax.tree.map(np.asarray, state)
        phase, active = int(g.phase), int(g.active_player)
        outcome, reason = int(g.outcome), int(g.end_reason)
        exists, owner = t["unit_exists"], t["unit_owner"].astype(int)
        max_hp, move = t["unit_hp"].astype(int), t["unit_move"].astype(int)
        deploying = phase == DEPLOYMENT
        active_type = s.deployment_type == "active"

        def fail(field, problem):
            raise InvalidStateError(field, problem)

        if phase not in range(len(PHASES)):
            fail("phase", f"{phase} is not a phase")
        if active not in (0, 1):
            fail("turnState.activePlayerId", f"{active} is not a player")
        if outcome not in range(len(OUTCOMES)) or reason not in range(len(END_REASONS)):
            fail("outcome", f"outcome {outcome} / endReason {reason} unknown")
        placed = g.col >= 0
        # The phase agrees with the placements first: the per-unit allowances below depend on it.
        remaining = [bool(np.any(exists & ~placed & (owner == p))) for p in (0, 1)]
        complete = not any(remaining)
        if complete and deploying:
            fail("phase", "'deployment' with every unit placed (3.2.5)")
        if not complete and not deploying:
            fail("phase", f"{PHASES[phase]!r} with units left to deploy (7.2)")
        for i, uid in enumerate(s.unit_ids):
            if not exists[i]:
                untouched = (
                    g.col[i] == -1
                    and g.row[i] == -1
                    and g.hp[i] == max_hp[i]
                    and g.moves_left[i] == 0
                    and not g.has_shot[i]
                    and g.deploy_order[i] == -1
                    and g.deploy_hex_slot[i] == -1
                    and g.damage_dealt[i] == 0
                )
                if not untouched:
                    fail(f"units[{i}]", "an empty unit slot holds values")
                continue
            path = f"units.{uid}"
            hp, col, row = int(g.hp[i]), int(g.col[i]), int(g.row[i])
            if not 0 <= hp <= max_hp[i]:
                fail(f"{path}.hp", f"{hp} outside [0, {max_hp[i]}]")
            if (col < 0) != (row < 0) or col >= s.cols or row >= s.rows or min(col, row) < -1:
                fail(f"{path}.col", f"({col}, {row}) is neither (-1, -1) nor a hex of the board")
            if not placed[i] and hp != max_hp[i]:
                fail(f"{path}.hp", f"{hp}: an undeployed unit cannot have been damaged")
            if placed[i] and (col, row) in s.walls:
                fail(f"{path}.col", f"{[col, row]} is a wall (4.2.5)")
            moves = int(g.moves_left[i])
            if not 0 <= moves <= move[i]:
                fail(f"{path}.movesLeft", f"{moves} outside [0, move={move[i]}]")
            if moves and (deploying or owner[i] != active):
                fail(
                    f"{path}.movesLeft",
                    f"{moves}, but only the player whose turn it is has moves left",
                )
            if g.has_shot[i] and not (
                phase == SHOOTING and owner[i] == active and placed[i] and hp > 0
            ):
                fail(
                    f"{path}.hasShot",
                    "true outside the shooting phase of the unit's own turn, or for a unit "
                    "that is not on the board",
                )
        alive = exists & placed & (g.hp > 0)
        seen: dict[tuple[int, int], str] = {}
        for i, uid in enumerate(s.unit_ids):
            if not alive[i]:
                continue
            hex_ = (int(g.col[i]), int(g.row[i]))
            if hex_ in seen:
                fail(f"units.{uid}.col", f"{list(hex_)} already holds {seen[hex_]} (4.2.7)")
            seen[hex_] = uid
            if deploying and active_type and hex_ not in s.pools[owner[i]]:
                fail(f"units.{uid}.col", f"{list(hex_)} is outside its pool (4.2.6)")

        # The deployment record is derived from the placements, in order.
        deployed = exists & placed
        steps = int(g.deploy_steps)
        if not active_type:
            if (
                steps
                or np.any(g.deploy_order[exists] != -1)
                or np.any(g.deploy_hex_slot[exists] != -1)
            ):
                fail("deploymentSteps", "fixed deployment records no placement step")
        else:
            if steps != int(deployed.sum()):
                fail("deploymentSteps", f"{steps} != {int(deployed.sum())} deployed units")
            for i, uid in enumerate(s.unit_ids):
                if not exists[i]:
                    continue
                order, slot = int(g.deploy_order[i]), int(g.deploy_hex_slot[i])
                if not deployed[i]:
                    if order != -1 or slot != -1:
                        fail(f"units.{uid}.deployOrder", "set for a unit that is not deployed")
                    continue
                if not 0 <= slot < int(t["pool_size"][owner[i]]):
                    fail(f"units.{uid}.deployHexSlot", f"{slot} is not a slot of its pool")
                flat = int(g.col[i]) * s.rows + int(g.row[i])
                if deploying and int(t["pool_hex"][owner[i], slot]) != flat:
                    fail(f"units.{uid}.deployHexSlot", f"{slot} is not the hex the unit is on")
                if not 0 <= order < steps:
                    fail(f"units.{uid}.deployOrder", f"{order} outside [0, {steps})")
            orders = sorted(int(o) for o in g.deploy_order[deployed])
            if orders != list(range(steps)):
                fail("units", f"deployOrder values {orders} are not 0..{steps - 1}, once each")
            # 7.1: the first deployer places all their units before the other starts.
            first = s.first_deployer
            firsts = g.deploy_order[deployed & (owner == first)]
            others = g.deploy_order[deployed & (owner != first)]
            if others.size and (
                firsts.size != int((exists & (owner == first)).sum())
                or firsts.max(initial=-1) > others.min()
            ):
                fail(
                    "units",
                    "deployOrder: the second deployer placed a unit before the first "
                    "deployer had placed all theirs (7.1)",
                )

        if deploying:
            expected = s.first_deployer if remaining[s.first_deployer] else 1 - s.first_deployer
            if active != expected:
                fail(
                    "deployment_state.current_deployer",
                    f"player{active + 1} deploys while player{expected + 1} has units left "
                    "(3.3, 7.1)",
                )
        turn = int(g.turn)
        if deploying and turn != 0:
            fail("turnState.turnNumber", f"{turn} during deployment (must be 0)")
        if not deploying and not 1 <= turn <= s.max_turns:
            fail("turnState.turnNumber", f"{turn} outside [1, max_turns={s.max_turns}]")
        if deploying and np.any(g.damage_dealt):
            fail("units", "damageDealt during deployment")
        for p in (0, 1):
            dealt = int(g.damage_dealt[exists & (owner == p)].sum())
            lost = int((max_hp - g.hp)[exists & (owner == 1 - p)].sum())
            if dealt != lost:
                fail(
                    "units",
                    f"damageDealt by player{p + 1}'s units ({dealt}) != HP lost by "
                    f"player{2 - p}'s units ({lost})",
                )

        # The outcome and why the game ended.
        living = [bool(np.any(alive & (owner == p))) for p in (0, 1)]
        expected_reasons = {
            ONGOING: (END_NONE,),
            DEADLOCK: (END_DEADLOCK,),
            DRAW: (END_TURN_LIMIT,),
            PLAYER1_WON: (END_ELIMINATION, END_TURN_LIMIT, END_ILLEGAL),
            PLAYER2_WON: (END_ELIMINATION, END_TURN_LIMIT, END_ILLEGAL),
        }
        if reason not in expected_reasons[outcome]:
            fail("endReason", f"{END_REASONS[reason]!r} cannot end a game as {OUTCOMES[outcome]!r}")
        if outcome == DEADLOCK and not deploying:
            fail("outcome", "'deadlock' happens only during deployment (D5)")
        if not deploying and outcome in (ONGOING,) and not all(living):
            fail("outcome", "'ongoing' although a side has no unit left (elimination)")
        if reason == END_ELIMINATION:
            winner = outcome - PLAYER1_WON
            if not (living[winner] and not living[1 - winner]):
                fail("outcome", f"{OUTCOMES[outcome]!r} by elimination, but the units disagree")
        if reason == END_TURN_LIMIT:
            hp = [int(np.where(alive & (owner == p), g.hp, 0).sum()) for p in (0, 1)]
            result = PLAYER1_WON if hp[0] > hp[1] else PLAYER2_WON if hp[1] > hp[0] else DRAW
            if turn != s.max_turns or outcome != result:
                fail(
                    "outcome",
                    f"{OUTCOMES[outcome]!r} at the turn limit, but the surviving HP {hp} say "
                    f"{OUTCOMES[result]!r} (turn {turn})",
                )
