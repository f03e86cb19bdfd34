"""The deployment game's invariants (``rules.validate``, through ``env.validate``): one JSON state per
invariant, each a reachable state of the scripted game (``test_deployment_json``'s docstring) with
one fact edited, rejected by ``from_json`` with a ``SerializationError`` naming the field and the
broken rule. The same ``validate`` runs in the random-play invariant tests and in ``api_test``."""

import copy
import json
import math

import jax
import jax.numpy as jnp
import pytest
from test_deployment_json import scripted_states, view

import tcgjax


def _set(*pairs):
    """An edit: ``(path, value)`` pairs, a path being a tuple of keys into the JSON view."""

    def edit(data):
        for path, value in pairs:
            target = data
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
        return data

    return edit


def _unit(uid, **fields):
    return _set(*((("units", uid, k), v) for k, v in fields.items()))


def _deployer(player):
    """Make ``player`` the current deployer in both places the view says it (D8 + turnState)."""
    return _set(
        (("turnState", "activePlayerId"), player),
        (("deployment_state", "current_deployer"), player),
    )


def _eliminate_red(data):
    """Every red unit at 0 HP, with blue_sniper credited with the damage (conservation holds)."""
    lost = 0
    for uid in ("red_infantry", "red_sniper", "red_tank"):
        lost += {"red_infantry": 3, "red_sniper": 2, "red_tank": 5}[uid]
        data["units"][uid]["hp"] = 0
    data["units"]["blue_sniper"]["damageDealt"] = lost
    return data


@pytest.fixture(scope="module")
def states(deployment_env, deployment_step):
    return scripted_states(deployment_env, deployment_step)


# (name, state, edit, field the message starts with, fragment of the message)
CASES = [
    # Each unit's own facts.
    ("hp_above_max", "mid_skirmish", _unit("red_tank", hp=6), "units.red_tank.hp", "[0, 5]"),
    ("hp_negative", "mid_skirmish", _unit("red_tank", hp=-1), "units.red_tank.hp", "[0, 5]"),
    (
        "undeployed_unit_damaged",
        "mid_deployment_player2",
        _unit("red_tank", hp=4),
        "units.red_tank.hp",
        "undeployed unit cannot have been damaged",
    ),
    (
        "unit_on_wall_in_skirmish",
        "mid_skirmish",
        _unit("blue_tank", col=3, row=1),
        "units.blue_tank.col",
        "is a wall (4.2.5)",
    ),
    (
        "unit_on_wall_in_deployment",
        "mid_deployment_player2",
        _unit("blue_tank", col=3, row=4),
        "units.blue_tank.col",
        "is a wall (4.2.5)",
    ),
    (
        "moves_above_move_value",
        "mid_skirmish",
        _unit("blue_infantry", movesLeft=3),
        "units.blue_infantry.movesLeft",
        "outside [0, move=2]",
    ),
    (
        "opponent_has_moves",
        "mid_skirmish",
        _unit("red_infantry", movesLeft=1),
        "units.red_infantry.movesLeft",
        "only the player whose turn it is",
    ),
    (
        "moves_during_deployment",
        "mid_deployment_player2",
        _unit("blue_infantry", movesLeft=1),
        "units.blue_infantry.movesLeft",
        "only the player whose turn it is",
    ),
    (
        "has_shot_in_movement",
        "mid_movement",
        _unit("blue_sniper", hasShot=True),
        "units.blue_sniper.hasShot",
        "outside the shooting phase",
    ),
    (
        "dead_unit_has_shot",
        "mid_skirmish",
        _unit("blue_sniper", hasShot=True, hp=0),
        "units.blue_sniper.hasShot",
        "outside the shooting phase",
    ),
    (
        "opponent_has_shot",
        "mid_skirmish",
        _unit("red_sniper", hasShot=True),
        "units.red_sniper.hasShot",
        "outside the shooting phase",
    ),
    # Occupancy and pools.
    (
        "two_units_one_hex",
        "mid_skirmish",
        _unit("blue_tank", col=5, row=2),
        "units.red_infantry.col",
        "already holds blue_tank (4.2.7)",
    ),
    (
        "unit_outside_its_pool",
        "mid_deployment_player2",
        _unit("blue_tank", col=2, row=0),
        "units.blue_tank.col",
        "outside its pool (4.2.6)",
    ),
    # The deployment record.
    (
        "deployment_steps_disagree",
        "mid_deployment_player2",
        _set((("deploymentSteps",), 5)),
        "deploymentSteps",
        "!= 4 deployed units",
    ),
    (
        "order_of_undeployed_unit",
        "mid_deployment_player2",
        _unit("red_tank", deployOrder=4),
        "units.red_tank.deployOrder",
        "not deployed",
    ),
    (
        "hex_slot_outside_pool",
        "mid_skirmish",
        _unit("blue_tank", deployHexSlot=12),
        "units.blue_tank.deployHexSlot",
        "not a slot of its pool",
    ),
    (
        "hex_slot_not_the_unit_hex",
        "mid_deployment_player2",
        _unit("blue_tank", deployHexSlot=0),
        "units.blue_tank.deployHexSlot",
        "not the hex the unit is on",
    ),
    (
        "order_outside_steps",
        "mid_deployment_player2",
        _unit("blue_tank", deployOrder=7),
        "units.blue_tank.deployOrder",
        "outside [0, 4)",
    ),
    (
        "orders_repeat",
        "mid_skirmish",
        _unit("blue_tank", deployOrder=0),
        "units",
        "not 0..5, once each",
    ),
    (
        "second_deployer_first",
        "mid_skirmish",
        _set(
            (("units", "red_infantry", "deployOrder"), 0),
            (("units", "blue_infantry", "deployOrder"), 3),
        ),
        "units",
        "(7.1)",
    ),
    # Phase, deployer, turn.
    (
        "deployer_without_units_left",
        "mid_deployment_player2",
        _deployer("player1"),
        "deployment_state.current_deployer",
        "player1 deploys while player2 has units left (3.3, 7.1)",
    ),
    (
        "turn_during_deployment",
        "mid_deployment_player2",
        _set((("turnState", "turnNumber"), 1)),
        "turnState.turnNumber",
        "during deployment",
    ),
    (
        "turn_above_max_turns",
        "mid_skirmish",
        _set((("turnState", "turnNumber"), 9)),
        "turnState.turnNumber",
        "[1, max_turns=8]",
    ),
    (
        "turn_zero_in_skirmish",
        "mid_skirmish",
        _set((("turnState", "turnNumber"), 0)),
        "turnState.turnNumber",
        "[1, max_turns=8]",
    ),
    # Damage conservation.
    (
        "damage_during_deployment",
        "mid_deployment_player2",
        _unit("blue_infantry", damageDealt=1),
        "units",
        "damageDealt during deployment",
    ),
    (
        "damage_not_conserved",
        "mid_skirmish",
        _unit("blue_sniper", damageDealt=2),
        "units",
        "damageDealt by player1's units (2) != HP lost by player2's units",
    ),
    (
        "damage_not_conserved_by_the_second_player",
        "mid_skirmish",
        _unit("red_sniper", damageDealt=7),
        "units",
        "damageDealt by player2's units",
    ),
    (
        "damage_negative",
        "mid_skirmish",
        _set(
            (("units", "blue_sniper", "damageDealt"), -1),
            (("units", "blue_tank", "damageDealt"), 2),  # player1's total dealt stays 1
        ),
        "units.blue_sniper.damageDealt",
        "< 0",
    ),
    # Outcome and end reason.
    (
        "end_reason_of_ongoing_game",
        "mid_skirmish",
        _set((("endReason",), "turn_limit")),
        "endReason",
        "cannot end a game as 'ongoing'",
    ),
    (
        "deadlock_in_skirmish",
        "mid_skirmish",
        _set(
            (("outcome",), "deadlock"),
            (("endReason",), "deadlock"),
            (("env", "terminated"), True),
        ),
        "outcome",
        "only during deployment",
    ),
    (
        "ongoing_after_elimination",
        "mid_skirmish",
        _eliminate_red,
        "outcome",
        "'ongoing' although a side has no unit left",
    ),
    (
        "elimination_with_both_sides_alive",
        "terminal",
        _set((("endReason",), "elimination")),
        "outcome",
        "by elimination, but the units disagree",
    ),
    (
        "turn_limit_result_disagrees_with_hp",
        "terminal",
        _set((("outcome",), "player2_won"), (("env", "rewards"), [-1.0, 1.0])),
        "outcome",
        "surviving HP [10, 9]",
    ),
    (
        "turn_limit_outside_first_players_movement",
        "terminal",
        _set((("phase",), "shooting"), (("turnState", "phase"), "shooting")),
        "endReason",
        "not in the movement phase of first_player player1",
    ),
    (
        "forfeit_won_by_the_player_to_act",
        "mid_skirmish",
        _set(
            (("outcome",), "player1_won"),
            (("endReason",), "illegal_action"),
            (("env", "terminated"), True),
            (("env", "rewards"), [1.0, -1.0]),
        ),
        "endReason",
        "the player to act, was the one who could forfeit",
    ),
    # Env fields (owned by the core's env.validate).
    (
        "terminated_without_outcome",
        "mid_skirmish",
        _set((("env", "terminated"), True)),
        "env.terminated",
        "not over",
    ),
    (
        "outcome_without_terminated",
        "terminal",
        _set((("env", "terminated"), False)),
        "env.terminated",
        "is over",
    ),
    (
        "unknown_error_code",
        "mid_skirmish",
        _set((("env", "error"), 31)),
        "env.error",
        "not an error code",
    ),
    (
        "rewards_not_finite",
        "mid_skirmish",
        _set((("env", "rewards"), [math.nan, 0.0])),
        "env.rewards",
        "not finite",
    ),
    (
        "rewards_not_zero_sum",
        "terminal",
        _set((("env", "rewards"), [1.0, 1.0])),
        "env.rewards",
        "sum to zero",
    ),
    (
        "truncated_before_max_steps",
        "mid_skirmish",
        _set((("env", "truncated"), True)),
        "env.truncated",
        "only at max_steps",
    ),
    (
        "step_count_past_max_steps",
        "mid_skirmish",
        _set((("env", "stepCount"), 10**6)),
        "env.stepCount",
        "max_steps",
    ),
]


@pytest.mark.parametrize(
    ("state_name", "edit", "field", "fragment"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_from_json_rejects_a_state_breaking_one_invariant(
    deployment_env,
    states,
    state_name,
    edit,
    field,
    fragment,
):
    data = view(deployment_env, states[state_name])
    tcgjax.from_json(deployment_env, json.dumps(data))  # the unedited state loads
    data = edit(copy.deepcopy(data))
    with pytest.raises(tcgjax.SerializationError) as info:
        tcgjax.from_json(deployment_env, json.dumps(data))
    message = str(info.value)
    assert message.startswith(field + ":"), f"{message!r} does not start with {field!r}"
    assert "unreachable state" in message, message
    assert fragment in message, f"{fragment!r} not in {message!r}"


def test_validate_accepts_every_state_of_the_scripted_game(deployment_env, states):
    for name, state in states.items():
        deployment_env.validate(state)  # raises on any broken invariant
        assert name


def test_validate_takes_one_game(deployment_env, states):
    batch = jax.tree.map(lambda *xs: jnp.stack(xs), states["init"], states["mid_skirmish"])
    with pytest.raises(tcgjax.TcgjaxError, match="one game"):
        deployment_env.validate(batch)


def test_validate_refuses_a_unit_below_the_off_board_marker(deployment_env, states):
    """(-1, -1) marks a unit off the board; (-2, -2) is no hex and no marker (JSON loading refuses
    it before ``validate`` runs, so the state is edited directly)."""
    state = states["mid_deployment_player2"]
    game = state.game
    off_board = int(jnp.argmax(game.col < 0))  # a unit not deployed yet
    assert int(game.col[off_board]) == -1 and int(game.row[off_board]) == -1
    broken = state.replace(
        game=game.replace(col=game.col.at[off_board].set(-2), row=game.row.at[off_board].set(-2))
    )
    with pytest.raises(tcgjax.TcgjaxError, match=r"\(-2, -2\) is neither \(-1, -1\) nor a hex"):
        deployment_env.validate(broken)
