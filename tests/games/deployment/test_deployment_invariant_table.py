"""``DeploymentRules.validate`` as one invariant table (issue #33 point 1): every field of the rules
state named by a row, each row refusing a state built from an explicit situation with one fact
edited (naming the field), every row with such a case, and the ends of a game the rules reach
(elimination, turn limit, deadlock, forfeit) accepted.

Situations: the scripted game on the ``small`` scenario (``test_deployment_json``'s docstring:
``init`` .. ``terminal``); ``line``, a fixed deployment on a 4x1 board (player 1: a1 at (0, 0), a2
at (1, 0); player 2: b1 at (3, 0) and an empty second unit slot) starting in player 1's shooting
phase, where a1 (damage 2) shoots b1 (2 HP) to end the game by elimination; ``deadlock``, an active
deployment on a 6x1 board whose pools overlap (player 1 fills columns 2 and 3, player 2 places b1
on column 5 and has no hex left for b2: ``pass_deployment``, D5); ``forfeit``, ``mid_skirmish``
after player 1, the player to act, forfeits.

The JSON-level cases are in ``test_deployment_validate.py``; the random-play sweep that validates
the states it meets is ``test_deployment_invariants.py``."""

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from test_deployment_json import scripted_states

import tcgjax
from tcgjax.core.invariants import leaf_paths
from tcgjax.games.deployment import encode_deploy
from tcgjax.games.deployment import rules as R

KEY = jax.random.PRNGKey(0)


def _unit(uid, owner, hp=2, move=1, damage=1):
    return {"id": uid, "owner": owner, "hp": hp, "move": move, "range": 5, "damage": damage}


def _scenario(**changes) -> dict:
    """A one-row board (hex distance is the column difference); ``changes`` override keys."""
    data = {
        "board": {"cols": 4, "rows": 1},
        "walls": [],
        "units": [],
        "deployment_type": "active",
        "fixed_positions": {},
        "deployment_pools_by_player": {"player1": [], "player2": []},
        "deployment_max_unit_slots": 2,
        "deployment_max_hex_slots": 3,
        "deployment_restrictions": {},
        "first_deployer": "player1",
        "post_deployment_start_phase": "movement",
        "first_player": "player1",
        "max_turns": 3,
        "rewards": {"win": 1.0, "loss": -1.0, "draw": 0.0, "deployment_shaping": 0.0},
    }
    data.update(changes)
    return data


LINE = _scenario(
    units=[_unit("a1", "player1", damage=2), _unit("a2", "player1"), _unit("b1", "player2")],
    deployment_type="fixed",
    fixed_positions={"a1": [0, 0], "a2": [1, 0], "b1": [3, 0]},
    deployment_pools_by_player={"player1": [[0, 0], [1, 0]], "player2": [[2, 0], [3, 0]]},
    post_deployment_start_phase="shooting",
)
DEADLOCK = _scenario(
    board={"cols": 6, "rows": 1},
    units=[_unit(u, "player1") for u in ("a1", "a2")] + [_unit(u, "player2") for u in ("b1", "b2")],
    deployment_pools_by_player={
        "player1": [[0, 0], [1, 0], [2, 0], [3, 0]],
        "player2": [[2, 0], [3, 0], [5, 0]],
    },
    deployment_max_hex_slots=4,
)


def _play(env, state, action):
    new = jax.jit(env.step)(state, action, KEY)
    assert int(new.error) == 0, env.error_codes.name(int(new.error))
    return new


@pytest.fixture(scope="module")
def envs(deployment_env):
    return {
        "small": deployment_env,
        "line": tcgjax.make("deployment", scenario=LINE),
        "deadlock": tcgjax.make("deployment", scenario=DEADLOCK),
    }


@pytest.fixture(scope="module")
def situations(envs, deployment_step):
    """``name -> (env, rules state)``; see the module docstring."""
    small = envs["small"]
    out = {name: (small, s.game) for name, s in scripted_states(small, deployment_step).items()}
    line = envs["line"]
    start = jax.jit(line.init)(KEY)
    out["line_start"] = (line, start.game)
    won = _play(line, start, line.action_layout.start("shoot"))  # a1 (slot 0) shoots b1 (slot 0)
    assert bool(won.terminated)
    out["line_won"] = (line, won.game)
    dead = envs["deadlock"]
    state = jax.jit(dead.init)(KEY)
    for uid, col in (("a1", 2), ("a2", 3), ("b1", 5)):
        state = _play(dead, state, encode_deploy(dead, state, uid, col, 0))
    state = _play(dead, state, dead.action_layout.start("pass_deployment"))
    out["deadlock"] = (dead, state.game)
    out["forfeit"] = (small, small.rules.forfeit(out["mid_skirmish"][1], jnp.int32(0)))
    return {name: (env, jax.device_get(game)) for name, (env, game) in out.items()}


# -- building broken states from a situation ------------------------------------------------------


def _set(**fields):
    """An edit of scalar fields (``phase=2``)."""

    def edit(r, g):
        return g.replace(**{k: jnp.asarray(v, getattr(g, k).dtype) for k, v in fields.items()})

    return edit


def _units(*edits):
    """An edit of per-unit fields: ``(unit id or slot, field, value)`` triples."""

    def edit(r, g):
        for unit, field, value in edits:
            i = r.scenario.unit_index(unit) if isinstance(unit, str) else unit
            column = jnp.asarray(getattr(g, field))
            g = g.replace(**{field: column.at[i].set(value)})
        return g

    return edit


def _killed(r, g, uid, by):
    """``g`` with ``uid`` at 0 HP and ``by`` credited with the damage (conservation holds)."""
    i, j = r.scenario.unit_index(uid), r.scenario.unit_index(by)
    return g.replace(
        damage_dealt=jnp.asarray(g.damage_dealt).at[j].add(int(g.hp[i])),
        hp=jnp.asarray(g.hp).at[i].set(0),
    )


def _eliminate_red(r, g):
    """Every red unit at 0 HP, blue_sniper credited with the damage (conservation holds)."""
    for uid in r.scenario.units_by_player[1]:
        g = _killed(r, g, uid, "blue_sniper")
    return g


def _kill_blue_infantry(r, g):
    """blue_infantry (slot 0, the first unit the rows visit) at 0 HP, red_sniper credited with the
    damage: a dead unit that a per-unit rule must step over, not stop at."""
    return _killed(r, g, "blue_infantry", "red_sniper")


def _red_tank_deployed_instead(r, g):
    """``mid_deployment_player2`` with red_tank, not red_infantry, as player 2's one placed unit
    (same hex, order and hex slot): undeployed red_infantry and red_sniper now precede a deployed
    unit in slot order, so a per-unit rule must step over them."""
    tank, infantry = r.scenario.unit_index("red_tank"), r.scenario.unit_index("red_infantry")
    for field in ("col", "row", "deploy_order", "deploy_hex_slot"):
        column = jnp.asarray(getattr(g, field))
        g = g.replace(**{field: column.at[tank].set(column[infantry]).at[infantry].set(-1)})
    return g


def _then(*edits):
    def edit(r, g):
        for one in edits:
            g = one(r, g)
        return g

    return edit


MOVEMENT, SHOOTING = R.MOVEMENT, R.SHOOTING

# (path, start of the rule's text, situation, how to break it)
CASES = [
    ("phase", "the phase is one of", "mid_skirmish", _set(phase=7)),
    ("turnState.activePlayerId", "the active player is 0", "mid_skirmish", _set(active_player=2)),
    ("outcome", "outcome and end reason are known", "mid_skirmish", _set(outcome=9)),
    ("outcome", "outcome and end reason are known", "mid_skirmish", _set(end_reason=-1)),
    ("phase", "'deployment' exactly while", "mid_deployment_player2", _set(phase=MOVEMENT)),
    ("phase", "'deployment' exactly while", "deployment_complete", _set(phase=R.DEPLOYMENT)),
    ("units[N]", "an empty unit slot keeps", "line_start", _units((3, "has_shot", True))),
    ("units[N]", "an empty unit slot keeps", "line_start", _units((3, "hp", 1))),
    ("units.UNIT.hp", "hp within", "mid_skirmish", _units(("red_tank", "hp", 6))),
    ("units.UNIT.hp", "hp within", "mid_skirmish", _units(("red_tank", "hp", -1))),
    ("units.UNIT.col", "(col, row) is (-1, -1)", "mid_deployment_player2",
     _units(("red_tank", "col", -2), ("red_tank", "row", -2))),
    ("units.UNIT.col", "(col, row) is (-1, -1)", "mid_skirmish", _units(("blue_tank", "row", 6))),
    # One past the last column (7 on the small board), and off the board on one axis only.
    ("units.UNIT.col", "(col, row) is (-1, -1)", "mid_skirmish", _units(("blue_tank", "col", 7))),
    ("units.UNIT.col", "(col, row) is (-1, -1)", "mid_skirmish", _units(("blue_tank", "row", -1))),
    ("units.UNIT.hp", "an undeployed unit is undamaged", "mid_deployment_player2",
     _units(("red_tank", "hp", 4))),
    ("units.UNIT.col", "no unit on a wall", "mid_skirmish",
     _units(("blue_tank", "col", 3), ("blue_tank", "row", 1))),
    ("units.UNIT.movesLeft", "moves left within", "mid_skirmish",
     _units(("blue_infantry", "moves_left", 3))),
    ("units.UNIT.movesLeft", "moves left within", "mid_skirmish",
     _units(("blue_infantry", "moves_left", -1))),
    ("units.UNIT.movesLeft", "moves left only for the active", "mid_skirmish",
     _units(("red_infantry", "moves_left", 1))),
    ("units.UNIT.movesLeft", "moves left only for the active", "mid_deployment_player2",
     _units(("blue_infantry", "moves_left", 1))),
    ("units.UNIT.hasShot", "a unit has shot only", "mid_movement",
     _units(("blue_sniper", "has_shot", True))),
    ("units.UNIT.hasShot", "a unit has shot only", "mid_skirmish",
     _units(("red_sniper", "has_shot", True))),
    ("units.UNIT.col", "one living unit per hex", "mid_skirmish",
     _units(("blue_tank", "col", 5), ("blue_tank", "row", 2))),
    # A dead unit first in slot order: the rule goes on to the living ones after it.
    ("units.UNIT.col", "one living unit per hex", "mid_skirmish",
     _then(_kill_blue_infantry, _units(("red_tank", "col", 5), ("red_tank", "row", 3)))),
    ("units.UNIT.col", "during an active deployment", "mid_deployment_player2",
     _units(("blue_tank", "col", 2), ("blue_tank", "row", 0))),
    ("deploymentSteps", "a fixed deployment records", "line_start", _set(deploy_steps=1)),
    ("deploymentSteps", "a fixed deployment records", "line_won", _units(("a1", "deploy_order", 0))),
    ("deploymentSteps", "an active deployment counts", "mid_deployment_player2",
     _set(deploy_steps=5)),
    ("units.UNIT.deployOrder", "an undeployed unit has no", "mid_deployment_player2",
     _units(("red_tank", "deploy_order", 4))),
    ("units.UNIT.deployHexSlot", "a deployed unit's hex slot", "mid_skirmish",
     _units(("blue_tank", "deploy_hex_slot", 12))),
    ("units.UNIT.deployHexSlot", "a deployed unit's hex slot", "mid_skirmish",
     _units(("blue_tank", "deploy_hex_slot", -1))),
    ("units.UNIT.deployHexSlot", "during deployment a unit stands", "mid_deployment_player2",
     _units(("blue_tank", "deploy_hex_slot", 0))),
    # Undeployed units first in slot order: the rule goes on to the deployed one after them.
    ("units.UNIT.deployHexSlot", "during deployment a unit stands", "mid_deployment_player2",
     _then(_red_tank_deployed_instead, lambda r, g: g.replace(
         deploy_hex_slot=jnp.asarray(g.deploy_hex_slot).at[r.scenario.unit_index("red_tank")].add(1)
     ))),
    ("units.UNIT.deployOrder", "a deployed unit's order", "mid_deployment_player2",
     _units(("blue_tank", "deploy_order", 7))),
    # Both ends: -1 (an undeployed unit's mark) and the step count itself (4 here).
    ("units.UNIT.deployOrder", "a deployed unit's order", "mid_deployment_player2",
     _units(("blue_tank", "deploy_order", -1))),
    ("units.UNIT.deployOrder", "a deployed unit's order", "mid_deployment_player2",
     _units(("blue_tank", "deploy_order", 4))),
    ("units", "the deployed units' orders", "mid_skirmish", _units(("blue_tank", "deploy_order", 0))),
    ("units", "the first deployer places all", "mid_skirmish",
     _units(("red_infantry", "deploy_order", 0), ("blue_infantry", "deploy_order", 3))),
    ("deployment_state.current_deployer", "the first deployer deploys", "mid_deployment_player2",
     _set(active_player=0)),
    ("turnState.turnNumber", "turn 0 during deployment", "mid_deployment_player2", _set(turn=1)),
    ("turnState.turnNumber", "the skirmish's turn within", "mid_skirmish", _set(turn=9)),
    ("turnState.turnNumber", "the skirmish's turn within", "mid_skirmish", _set(turn=0)),
    ("units.UNIT.damageDealt", "a unit's damage dealt is not negative", "mid_skirmish",
     _units(("blue_sniper", "damage_dealt", -1), ("blue_tank", "damage_dealt", 2))),
    ("units", "no damage dealt during deployment", "mid_deployment_player2",
     _units(("blue_infantry", "damage_dealt", 1))),
    ("units", "the damage a player's units dealt", "mid_skirmish",
     _units(("blue_sniper", "damage_dealt", 2))),
    ("units", "the damage a player's units dealt", "mid_skirmish",
     _units(("red_sniper", "damage_dealt", 7))),
    ("endReason", "the end reason fits", "mid_skirmish", _set(end_reason=R.END_TURN_LIMIT)),
    ("endReason", "the end reason fits", "deadlock", _set(end_reason=R.END_ILLEGAL)),
    ("outcome", "'deadlock' only during deployment", "mid_skirmish",
     _set(outcome=R.DEADLOCK, end_reason=R.END_DEADLOCK)),
    ("outcome", "a skirmish that goes on", "mid_skirmish", _eliminate_red),
    ("outcome", "an elimination: the winner", "terminal", _set(end_reason=R.END_ELIMINATION)),
    ("outcome", "a turn-limit end", "terminal", _set(outcome=R.PLAYER2_WON)),
    ("outcome", "a turn-limit end", "terminal", _set(turn=7)),
    # Red eliminated during player 1's movement: no shot could have done it.
    ("endReason", "'elimination' leaves the winner's shooting", "mid_movement",
     _then(_eliminate_red, _set(outcome=R.PLAYER1_WON, end_reason=R.END_ELIMINATION))),
    ("endReason", "'turn_limit' leaves first_player's movement", "terminal",
     _set(phase=SHOOTING)),
    ("endReason", "'illegal_action': the active player forfeited", "forfeit",
     _set(outcome=R.PLAYER1_WON)),
    # Each range's ends: one below its first value and its length (one past its last).
    ("phase", "the phase is one of", "mid_skirmish", _set(phase=-1)),
    ("phase", "the phase is one of", "mid_skirmish", _set(phase=len(R.PHASES))),
    ("outcome", "outcome and end reason are known", "mid_skirmish", _set(outcome=-1)),
    ("outcome", "outcome and end reason are known", "mid_skirmish",
     _set(outcome=len(R.OUTCOMES))),
    ("outcome", "outcome and end reason are known", "mid_skirmish",
     _set(end_reason=len(R.END_REASONS))),
]  # fmt: skip


def _row(rules, path, rule):
    rows = [row for row in rules.invariants.rows(path) if row.rule.startswith(rule)]
    assert len(rows) == 1, (path, rule)
    return rows[0]


def _path_matches(pattern: str, path: str) -> bool:
    """``path`` (``units.red_tank.hp``, ``units[3]``) is an instance of ``pattern``
    (``units.UNIT.hp``, ``units[N]``)."""
    regex = re.escape(pattern).replace("UNIT", r"[a-z0-9_]+").replace(r"\[N\]", r"\[\d+\]")
    return re.fullmatch(regex, path) is not None


# -- 1. every field is named ----------------------------------------------------------------------


def test_every_leaf_is_named(envs, situations):
    rules = envs["small"].rules
    state = situations["init"][1]
    assert rules.invariants.uncovered(state) == []
    # No stale names: every field a row names is a leaf of the state.
    assert rules.invariants.covered() <= set(leaf_paths(state))
    assert rules.invariants.exempt == {}


def test_the_table_is_built_once_per_rules_object(envs):
    rules = envs["small"].rules
    assert rules.invariants is rules.invariants


# -- 2. each invariant refuses a state that breaks it --------------------------------------------


def test_situations_break_nothing(situations):
    for name, (env, state) in situations.items():
        broken = env.rules.invariants.broken(env.rules.facts(state))
        assert [row.rule for row in broken] == [], name
        env.rules.validate(state)
    ends = {
        name: (R.OUTCOMES[int(g.outcome)], R.END_REASONS[int(g.end_reason)])
        for name, (_, g) in situations.items()
    }
    assert ends["terminal"] == ("player1_won", "turn_limit")
    assert ends["line_won"] == ("player1_won", "elimination")
    assert ends["deadlock"] == ("deadlock", "deadlock")
    assert ends["forfeit"] == ("player2_won", "illegal_action")


def test_cases_cover_every_row(envs):
    named = {(path, rule) for path, rule, _, _ in CASES}
    for row in envs["small"].rules.invariants:
        assert any(row.path == p and row.rule.startswith(r) for p, r in named), row.rule


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}:{c[1]}:{c[2]}" for c in CASES])
def test_each_invariant_refuses_what_breaks_it(situations, case):
    path, rule, situation, breaks = case
    env, start = situations[situation]
    rules = env.rules
    row = _row(rules, path, rule)
    state = breaks(rules, start)
    broken = rules.invariants.broken(rules.facts(state))
    assert row in broken, (path, rule, [b.rule for b in broken])
    # The row is the first one broken (a later row may fail on the same edit, never an earlier
    # one), so validate reports this row's field.
    assert broken[0] is row, (path, rule, [b.rule for b in broken])
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(state)
    assert _path_matches(path, info.value.field), (path, info.value.field)


def test_the_edits_that_step_over_units_break_nothing_by_themselves(situations):
    """The helpers above keep a state valid on their own, so each case's second edit is the only
    fact broken."""
    for name, edit in (
        ("mid_skirmish", _kill_blue_infantry),
        ("mid_deployment_player2", _red_tank_deployed_instead),
    ):
        env, g = situations[name]
        edited = edit(env.rules, g)
        assert env.rules.invariants.broken(env.rules.facts(edited)) == [], name
        env.rules.validate(edited)


def test_a_tie_between_the_deployers_orders_breaks_only_the_once_each_rule(situations):
    """The second deployer's first unit given the first deployer's last order: a duplicate order
    (refused by the once-each row), but no unit of the second deployer placed *before* the first
    deployer had finished, so the first-deployer row (7.1) holds: a tie is not "before"."""
    env, g = situations["mid_skirmish"]
    rules = env.rules
    facts = rules.facts(g)
    first = rules.scenario.first_deployer
    orders = np.asarray(g.deploy_order)
    owner = np.asarray(facts.owner)
    deployed = np.asarray(facts.deployed)
    last_of_first = orders[deployed & (owner == first)].max()
    others = np.flatnonzero(deployed & (owner != first))
    second = int(others[np.argmin(orders[others])])
    assert orders[second] == last_of_first + 1  # the second deployer's first unit
    tied = _units((second, "deploy_order", int(last_of_first)))(rules, g)
    once_each = _row(rules, "units", "the deployed units' orders are 0..steps-1, once each")
    assert rules.invariants.broken(rules.facts(tied)) == [once_each]


def test_the_field_named_is_the_broken_unit(situations):
    env, g = situations["mid_skirmish"]
    with pytest.raises(tcgjax.InvalidStateError) as info:
        env.rules.validate(_units(("red_sniper", "moves_left", 1))(env.rules, g))
    assert info.value.field == "units.red_sniper.movesLeft"
    env, g = situations["line_start"]
    with pytest.raises(tcgjax.InvalidStateError) as info:
        env.rules.validate(_units((3, "damage_dealt", 1))(env.rules, g))
    assert info.value.field == "units[3]"


# The problems name the players as the rules books do (player1, player2): each message below was
# checked by hand against its situation.
MESSAGES = [
    ("mid_deployment_player2", _set(active_player=0),
     "player1 deploys while player2 has units left (3.3, 7.1)"),
    ("mid_skirmish", _units(("blue_sniper", "damage_dealt", 2)),
     "damageDealt by player1's units (2) != HP lost by player2's units (1)"),
    ("mid_skirmish", _units(("red_sniper", "damage_dealt", 7)),
     "damageDealt by player2's units (7) != HP lost by player1's units (0)"),
    ("mid_movement",
     _then(_eliminate_red, _set(outcome=R.PLAYER1_WON, end_reason=R.END_ELIMINATION)),
     "'elimination' in 'movement' with player1 active, not in the shooting phase of the winner "
     "player1"),
    ("terminal", _set(phase=SHOOTING),
     "'turn_limit' in 'shooting' with player1 active, not in the movement phase of first_player "
     "player1 (the round that never starts)"),
    ("forfeit", _set(outcome=R.PLAYER1_WON),
     "'player1_won' by 'illegal_action', but player1, the player to act, was the one who could "
     "forfeit"),
]  # fmt: skip


@pytest.mark.parametrize("case", MESSAGES, ids=[m[2][:40] for m in MESSAGES])
def test_the_problem_names_the_players(situations, case):
    situation, breaks, problem = case
    env, start = situations[situation]
    with pytest.raises(tcgjax.InvalidStateError) as info:
        env.rules.validate(breaks(env.rules, start))
    assert info.value.problem == problem


def test_player2_as_first_deployer_and_player2_forfeiting_are_reachable():
    """The rows that compute the other player (7.1's deployer after the first deployer is done;
    the winner of a forfeit) from player 2's side: player 2 deploys both units first, then player
    1 places one and is the deployer; and player 2, the player to act, forfeits."""
    env = tcgjax.make("deployment", scenario={**DEADLOCK, "first_deployer": "player2"})
    state = jax.jit(env.init)(KEY)
    assert int(state.game.active_player) == 1
    for uid, col in (("b1", 5), ("b2", 3), ("a1", 0)):
        state = _play(env, state, encode_deploy(env, state, uid, col, 0))
    game = jax.device_get(state.game)
    assert int(game.phase) == R.DEPLOYMENT and int(game.active_player) == 0
    env.rules.validate(game)
    before = _play(
        env, jax.jit(env.init)(KEY), encode_deploy(env, jax.jit(env.init)(KEY), "b1", 5, 0)
    )
    assert int(before.game.active_player) == 1
    lost = jax.device_get(env.rules.forfeit(before.game, jnp.int32(1)))
    assert R.OUTCOMES[int(lost.outcome)] == "player1_won"
    env.rules.validate(lost)


def test_the_flat_hex_is_the_units_hex_or_minus_one(situations):
    """``rules.flat`` (the hex index the occupancy and the observation read): col * rows + row for
    a placed unit, -1 for one not deployed (its docstring's contract), mid-deployment where both
    kinds are present."""
    env, g = situations["mid_deployment_player2"]
    rules = env.rules
    flat = np.asarray(jax.jit(rules.flat)(g))
    col, row = np.asarray(g.col), np.asarray(g.row)
    placed = col >= 0
    assert placed.any() and (~placed).any()
    assert (flat[placed] == col[placed] * rules.scenario.rows + row[placed]).all()
    assert (flat[~placed] == -1).all()
