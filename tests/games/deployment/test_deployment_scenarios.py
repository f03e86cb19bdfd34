"""Scenario loading and validation at ``tcgjax.make("deployment", scenario=...)`` (D6, D7, spec 8).

A scenario is a shipped name, a YAML path or a dict. Every key is required and checked; errors name
the key and the offending value. Also: the ``fixed`` deployment type, ``first_deployer``,
``first_player``, ``post_deployment_start_phase`` and the config-driven rewards, each shown on an
explicit situation (no random draw).
"""

import copy
import json
import re

import jax
import numpy as np
import pytest
import yaml
from deployment_testlib import SHIPPED, shipped_dict

import tcgjax
from tcgjax.games.deployment import DeploymentDeadlockError, decode_action, encode_deploy

KEY = jax.random.PRNGKey(0)

# D7 / the scenario module docstring: every key the spec names, all required.
REQUIRED = (
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


def make(scenario):
    return tcgjax.make("deployment", scenario=scenario)


def init(env):
    """The initial state, through ``jit`` (eager ``init`` runs op by op and is much slower)."""
    return jax.jit(env.init)(KEY)


def raises_config(scenario, *fragments):
    """``make`` raises ConfigError (not a subclass) whose message contains every fragment."""
    with pytest.raises(tcgjax.ConfigError) as info:
        make(scenario)
    assert not isinstance(info.value, DeploymentDeadlockError)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


def game_json(env, state):
    return json.loads(tcgjax.to_json(env, state))


def small_fixed(**changes):
    """The small scenario with every unit at a fixed position (columns 1 and 5)."""
    d = shipped_dict("small")
    d["deployment_type"] = "fixed"
    d["fixed_positions"] = {
        "blue_infantry": [1, 0],
        "blue_sniper": [0, 3],
        "blue_tank": [1, 5],
        "red_infantry": [5, 0],
        "red_sniper": [6, 2],
        "red_tank": [5, 4],
    }
    d.update(changes)
    return d


# --------------------------------------------------------------------------------------------------
# Accepted forms


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_scenario_loads_and_starts_in_deployment(name):
    env = make(name)
    raw = shipped_dict(name)
    state = init(env)
    view = game_json(env, state)
    assert view["phase"] == "deployment"
    assert view["deployment_state"]["current_deployer"] == raw["first_deployer"]
    assert int(state.current_player) == ("player1", "player2").index(raw["first_deployer"])
    expected_units = {
        p: sorted(u["id"] for u in raw["units"] if u["owner"] == p) for p in ("player1", "player2")
    }
    assert view["deployment_state"]["deployable_units_by_player"] == expected_units
    assert view["deployment_state"]["deployed_units"] == []
    pools = raw["deployment_pools_by_player"]
    assert view["deployment_state"]["deployment_pools_by_player"] == {
        p: sorted(pools[p]) for p in ("player1", "player2")
    }
    assert all((u["col"], u["row"]) == (-1, -1) for u in view["units"].values())
    # D3: the deployment branch is [0, U * Hs + 1), pass_deployment last.
    deploy_dim = raw["deployment_max_unit_slots"] * raw["deployment_max_hex_slots"]
    assert env.action_layout.start("deploy") == 0
    assert env.action_layout.start("pass_deployment") == deploy_dim
    assert env.num_actions > deploy_dim + 1


def test_yaml_path_and_dict_give_the_same_game_as_the_shipped_name(tmp_path):
    path = tmp_path / "my_scenario.yaml"
    path.write_text(yaml.safe_dump(shipped_dict("walls")), encoding="utf-8")
    by_name = make("walls")
    by_path = make(str(path))
    by_dict = make(shipped_dict("walls"))
    expected = game_json(by_name, init(by_name))
    assert game_json(by_path, init(by_path)) == expected
    assert game_json(by_dict, init(by_dict)) == expected
    assert by_path.num_actions == by_dict.num_actions == by_name.num_actions


def test_yaml_path_as_pathlib_path(tmp_path):
    # The env documents "a path to a YAML file"; load_scenario accepts os.PathLike.
    path = tmp_path / "my_scenario.yaml"
    path.write_text(yaml.safe_dump(shipped_dict("small")), encoding="utf-8")
    env = make(path)
    assert env.scenario.units_by_player[0] == ("blue_infantry", "blue_sniper", "blue_tank")


def test_edited_yaml_file_is_what_gets_loaded(tmp_path):
    d = shipped_dict("small")
    d["walls"] = [[2, 2]]
    d["units"][0]["hp"] = 7
    path = tmp_path / "edited.yaml"
    path.write_text(yaml.safe_dump(d), encoding="utf-8")
    env = make(str(path))
    view = game_json(env, init(env))
    assert view["units"]["blue_infantry"]["hp"] == 7
    assert env.scenario.walls == ((2, 2),)


def test_unknown_shipped_name_and_missing_file(tmp_path):
    raises_config("no_such_scenario", "no_such_scenario", "cannot read scenario")
    missing = str(tmp_path / "absent.yaml")
    raises_config(missing, "absent.yaml", "cannot read scenario")


def test_invalid_yaml_and_non_mapping_yaml(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("board: {cols: 7, rows: [\n", encoding="utf-8")
    raises_config(str(bad), "bad.yaml", "not valid YAML")
    a_list = tmp_path / "list.yaml"
    a_list.write_text("- 1\n- 2\n", encoding="utf-8")
    raises_config(str(a_list), "list.yaml", "expected a mapping")


# --------------------------------------------------------------------------------------------------
# D7: required, unknown and ill-typed keys


@pytest.mark.parametrize("key", REQUIRED)
def test_every_required_key_missing_names_the_key(key):
    d = shipped_dict("small")
    del d[key]
    raises_config(d, "missing required key", key)


@pytest.mark.parametrize(
    ("section", "key"),
    [
        ("board", "cols"),
        ("board", "rows"),
        ("rewards", "win"),
        ("rewards", "loss"),
        ("rewards", "draw"),
        ("rewards", "deployment_shaping"),
        ("deployment_pools_by_player", "player2"),
    ],
)
def test_missing_nested_key_names_it(section, key):
    d = shipped_dict("small")
    del d[section][key]
    raises_config(d, "missing required key", f"{section}.{key}")


@pytest.mark.parametrize("key", ["id", "owner", "hp", "move", "range", "damage"])
def test_missing_unit_key_names_it(key):
    d = shipped_dict("small")
    del d["units"][2][key]
    raises_config(d, "missing required key", f"units[2].{key}")


def test_unknown_top_level_key():
    d = shipped_dict("small")
    d["seed"] = 3
    raises_config(d, "unknown key", "seed")


def test_unknown_unit_key():
    d = shipped_dict("small")
    d["units"][1]["armor"] = 2
    raises_config(d, "unknown key", "units[1].armor")


def test_unknown_rewards_key():
    d = shipped_dict("small")
    d["rewards"]["kill_bonus"] = 0.1
    raises_config(d, "unknown key", "rewards.kill_bonus")


def test_unknown_board_key():
    d = shipped_dict("small")
    d["board"]["layers"] = 2
    raises_config(d, "unknown key", "board.layers")


def _set(path, value):
    """A mutator setting ``d[path...] = value`` (path: keys and list indices)."""

    def mutate(d):
        target = d
        for p in path[:-1]:
            target = target[p]
        target[path[-1]] = value

    return mutate


@pytest.mark.parametrize(
    ("path", "value", "key"),
    [
        (("board",), [7, 6], "board"),
        (("board", "cols"), "7", "board.cols"),
        (("board", "rows"), 6.0, "board.rows"),
        (("board", "cols"), 0, "board.cols"),
        (("board", "cols"), True, "board.cols"),
        (("walls",), {"a": 1}, "walls"),
        (("walls", 0), [3], "walls[0]"),
        (("walls", 1), [3, "4"], "walls[1]"),
        (("walls", 1), "3,4", "walls[1]"),
        (("units",), [], "units"),
        (("units",), {"blue": 1}, "units"),
        (("units", 0), "blue_infantry", "units[0]"),
        (("units", 0, "id"), 5, "units[0].id"),
        (("units", 0, "id"), "", "units[0].id"),
        (("units", 1, "hp"), 2.5, "units[1].hp"),
        (("units", 1, "hp"), 0, "units[1].hp"),
        (("units", 1, "hp"), "2", "units[1].hp"),
        (("units", 2, "move"), -1, "units[2].move"),
        (("units", 3, "range"), None, "units[3].range"),
        (("units", 4, "damage"), False, "units[4].damage"),
        (("deployment_max_unit_slots",), 3.0, "deployment_max_unit_slots"),
        (("deployment_max_hex_slots",), "12", "deployment_max_hex_slots"),
        (("deployment_pools_by_player",), [[0, 0]], "deployment_pools_by_player"),
        (("deployment_pools_by_player", "player1"), {"0": 0}, "deployment_pools_by_player"),
        (("deployment_restrictions",), [], "deployment_restrictions"),
        (("deployment_restrictions",), {"blue_tank": [0, 0]}, "deployment_restrictions"),
        (("fixed_positions",), [], "fixed_positions"),
        (("max_turns",), "8", "max_turns"),
        (("max_turns",), 0, "max_turns"),
        (("rewards",), [1.0, -1.0, 0.0, 0.0], "rewards"),
        (("rewards", "win"), "1.0", "rewards.win"),
        (("rewards", "loss"), None, "rewards.loss"),
        (("rewards", "draw"), True, "rewards.draw"),
    ],
)
def test_wrong_types_and_values_name_the_key(path, value, key):
    d = shipped_dict("small")
    _set(path, value)(d)
    raises_config(d, key, repr(value) if not isinstance(value, list | dict) else key)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_reward_is_a_config_error(value):
    # Spec 8: rewards come from the config; a NaN/inf constant would make every reward non-finite.
    d = shipped_dict("small")
    d["rewards"]["win"] = value
    raises_config(d, "rewards.win")


# --------------------------------------------------------------------------------------------------
# Hexes outside the board, duplicates, capacities


@pytest.mark.parametrize(
    ("mutate", "key", "value"),
    [
        (lambda d: d["walls"].append([7, 0]), "walls[2]", "[7, 0]"),
        (lambda d: d["walls"].append([0, -1]), "walls[2]", "[0, -1]"),
        (
            lambda d: d["deployment_pools_by_player"]["player1"].__setitem__(3, [0, 6]),
            "deployment_pools_by_player.player1[3]",
            "[0, 6]",
        ),
        (
            lambda d: d["deployment_pools_by_player"]["player2"].__setitem__(0, [-1, 0]),
            "deployment_pools_by_player.player2[0]",
            "[-1, 0]",
        ),
        (
            lambda d: d["deployment_restrictions"].update(blue_tank=[[0, 0], [9, 9]]),
            "deployment_restrictions.blue_tank[1]",
            "[9, 9]",
        ),
    ],
)
def test_out_of_board_hex_names_key_and_value(mutate, key, value):
    d = shipped_dict("small")
    mutate(d)
    message = raises_config(d, key, value)
    assert "7x6" in message  # the board it is outside of


def test_out_of_board_fixed_position_names_key_and_value():
    d = small_fixed()
    d["fixed_positions"]["red_tank"] = [5, 6]
    raises_config(d, "fixed_positions.red_tank", "[5, 6]", "outside")


def test_duplicate_unit_id():
    d = shipped_dict("small")
    d["units"][1]["id"] = "blue_infantry"
    raises_config(d, "units[1].id", "'blue_infantry'", "duplicate unit id")


def test_duplicate_unit_id_across_players():
    d = shipped_dict("small")
    d["units"][4]["id"] = "blue_sniper"
    raises_config(d, "units[4].id", "'blue_sniper'", "duplicate unit id")


def test_duplicate_hex_in_a_pool():
    d = shipped_dict("small")
    d["deployment_pools_by_player"]["player2"][4] = [5, 1]  # already at index 1
    raises_config(d, "deployment_pools_by_player.player2[4]", "[5, 1]", "duplicate hex")


def test_duplicate_wall():
    d = shipped_dict("small")
    d["walls"].append([3, 1])
    raises_config(d, "walls[2]", "[3, 1]", "duplicate hex")


def test_more_units_than_unit_slots():
    d = shipped_dict("small")
    d["units"].append(
        {"id": "red_scout", "owner": "player2", "hp": 2, "move": 3, "range": 1, "damage": 1}
    )
    raises_config(d, "deployment_max_unit_slots", "player2 has 4 units")


def test_exactly_as_many_units_as_slots_is_fine():
    d = shipped_dict("small")
    d["deployment_max_unit_slots"] = 3
    assert make(d).scenario.max_unit_slots == 3


def test_more_pool_hexes_than_hex_slots():
    d = shipped_dict("small")
    d["deployment_pools_by_player"]["player1"].append([2, 0])
    raises_config(d, "deployment_max_hex_slots", "12", "player1's pool has 13 hexes")


def test_player_without_units():
    d = shipped_dict("small")
    d["units"] = [u for u in d["units"] if u["owner"] == "player1"]
    raises_config(d, "units", "player2", "at least one unit")


# --------------------------------------------------------------------------------------------------
# Unknown phases, deployment types and players


@pytest.mark.parametrize("phase", ["combat", "deployment", "Movement", None])
def test_unknown_post_deployment_start_phase(phase):
    d = shipped_dict("small")
    d["post_deployment_start_phase"] = phase
    raises_config(d, "post_deployment_start_phase", repr(phase))


@pytest.mark.parametrize("kind", ["random", "Active", "", None])
def test_unknown_deployment_type(kind):
    d = shipped_dict("small")
    d["deployment_type"] = kind
    raises_config(d, "deployment_type", repr(kind))


@pytest.mark.parametrize(
    ("path", "value", "key"),
    [
        (("first_deployer",), "player3", "first_deployer"),
        (("first_deployer",), 1, "first_deployer"),
        (("first_player",), "red", "first_player"),
        (("units", 0, "owner"), "player0", "units[0].owner"),
        (("units", 5, "owner"), "Player2", "units[5].owner"),
    ],
)
def test_unknown_player_names(path, value, key):
    d = shipped_dict("small")
    _set(path, value)(d)
    raises_config(d, key, repr(value))


def test_unknown_player_in_pools():
    d = shipped_dict("small")
    d["deployment_pools_by_player"]["player3"] = [[2, 0]]
    raises_config(d, "unknown key", "deployment_pools_by_player.player3")


def test_unknown_unit_in_restrictions():
    d = shipped_dict("small")
    d["deployment_restrictions"] = {"green_tank": [[0, 0]]}
    raises_config(d, "deployment_restrictions.green_tank", "unknown unit id")


# --------------------------------------------------------------------------------------------------
# fixed_positions


def test_fixed_positions_must_be_empty_when_active():
    d = shipped_dict("small")
    d["fixed_positions"] = {"blue_tank": [0, 0]}
    raises_config(d, "fixed_positions", "'blue_tank'", "'active'")


def test_fixed_requires_a_position_for_every_unit():
    d = small_fixed()
    del d["fixed_positions"]["red_sniper"]
    raises_config(d, "missing required key", "fixed_positions.red_sniper")


def test_fixed_position_on_a_wall():
    d = small_fixed()
    d["fixed_positions"]["blue_sniper"] = [3, 4]
    raises_config(d, "fixed_positions.blue_sniper", "[3, 4]", "wall")


def test_fixed_position_shared_by_two_units():
    d = small_fixed()
    d["fixed_positions"]["red_tank"] = [5, 0]  # red_infantry's hex
    message = raises_config(d, "[5, 0]", "another unit")
    assert re.search(r"fixed_positions\.(red_tank|red_infantry)", message)


def test_fixed_position_for_an_unknown_unit():
    d = small_fixed()
    d["fixed_positions"]["green_tank"] = [2, 2]
    raises_config(d, "fixed_positions.green_tank", "unknown unit id")


def test_fixed_position_malformed():
    d = small_fixed()
    d["fixed_positions"]["blue_tank"] = [1]
    raises_config(d, "fixed_positions.blue_tank", "[1]")


# --------------------------------------------------------------------------------------------------
# D6: deadlock detected at make


def test_pool_smaller_than_units_is_a_deadlock_at_make():
    d = shipped_dict("small")
    d["deployment_pools_by_player"]["player2"] = [[5, 0], [6, 5]]
    with pytest.raises(DeploymentDeadlockError) as info:
        make(d)
    message = str(info.value)
    assert "player2" in message
    assert "3 units" in message
    for uid in ("red_infantry", "red_sniper", "red_tank"):
        assert uid in message
    assert "2 usable hexes" in message
    assert "pool size 2" in message


def test_pool_with_walls_removed_smaller_than_units_is_a_deadlock():
    # Three pool hexes for three units, but one of them is a wall: only 2 usable.
    d = shipped_dict("small")
    d["deployment_pools_by_player"]["player1"] = [[0, 0], [1, 1], [1, 2]]
    d["walls"].append([1, 1])
    with pytest.raises(DeploymentDeadlockError) as info:
        make(d)
    message = str(info.value)
    assert "player1" in message and "3 units" in message
    assert "2 usable hexes" in message and "pool size 3" in message
    assert "[1, 1]" in message  # the wall inside the pool
    for uid in ("blue_infantry", "blue_sniper", "blue_tank"):
        assert uid in message


def test_pool_exactly_as_large_as_units_is_fine():
    d = shipped_dict("small")
    d["deployment_pools_by_player"]["player1"] = [[0, 0], [1, 1], [1, 2]]
    env = make(d)
    assert env.scenario.pools[0] == ((0, 0), (1, 1), (1, 2))


def test_restriction_leaving_a_unit_no_usable_hex_is_a_deadlock():
    d = shipped_dict("small")
    # (3, 3) is on the board but not in player1's pool.
    d["deployment_restrictions"] = {"blue_sniper": [[3, 3]]}
    with pytest.raises(DeploymentDeadlockError) as info:
        make(d)
    message = str(info.value)
    assert "player1" in message and "blue_sniper" in message and "[3, 3]" in message


def test_restriction_to_a_wall_inside_the_pool_is_a_deadlock():
    d = shipped_dict("small")
    d["walls"].append([6, 2])
    d["deployment_restrictions"] = {"red_tank": [[6, 2]]}
    with pytest.raises(DeploymentDeadlockError, match=r"player2.*red_tank"):
        make(d)


def test_satisfiable_restriction_loads():
    d = shipped_dict("small")
    d["deployment_restrictions"] = {"blue_tank": [[0, 0], [3, 3]]}
    env = make(d)
    assert env.scenario.restrictions == {"blue_tank": ((0, 0), (3, 3))}


def test_deadlock_error_is_a_tcgjax_error():
    assert issubclass(DeploymentDeadlockError, tcgjax.TcgjaxError)
    d = shipped_dict("small")
    d["deployment_pools_by_player"]["player1"] = [[0, 0]]
    with pytest.raises(tcgjax.TcgjaxError):
        make(d)


def test_small_pools_are_no_deadlock_for_fixed_deployment():
    # D6 is about active deployment; a fixed scenario never deploys from its pools.
    d = small_fixed()
    d["deployment_pools_by_player"] = {"player1": [[0, 0]], "player2": [[6, 0]]}
    env = make(d)
    assert env.scenario.deployment_type == "fixed"


# --------------------------------------------------------------------------------------------------
# fixed deployment, first_deployer, first_player, post_deployment_start_phase (no stepping needed)


@pytest.mark.parametrize(
    ("phase", "first_player"),
    [("movement", "player2"), ("shooting", "player1"), ("shooting", "player2")],
)
def test_fixed_scenario_starts_in_post_deployment_phase_at_the_given_positions(phase, first_player):
    d = small_fixed(
        post_deployment_start_phase=phase, first_player=first_player, first_deployer="player1"
    )
    env = make(d)
    state = init(env)
    view = game_json(env, state)
    assert view["phase"] == phase
    assert view["turnState"]["phase"] == phase
    assert view["turnState"]["activePlayerId"] == first_player
    assert int(state.current_player) == ("player1", "player2").index(first_player)
    ds = view["deployment_state"]
    assert ds["deployment_complete"] is True
    assert sorted(ds["deployed_units"]) == sorted(d["fixed_positions"])
    assert ds["deployable_units_by_player"] == {"player1": [], "player2": []}
    for uid, (col, row) in d["fixed_positions"].items():
        assert (view["units"][uid]["col"], view["units"][uid]["row"]) == (col, row), uid
        g = env.scenario.unit_index(uid)
        assert (int(state.game.col[g]), int(state.game.row[g])) == (col, row)
    assert not bool(state.terminated)
    mask = np.asarray(state.legal_action_mask)
    layout = env.action_layout
    deploy_and_pass = slice(layout.start("deploy"), layout.start("pass_deployment") + 1)
    assert not mask[deploy_and_pass].any()  # nothing left to deploy
    assert mask[layout.start("end_phase")]
    shoot = slice(layout.start("shoot"), layout.start("end_phase"))
    move = slice(layout.start("move"), layout.start("shoot"))
    if phase == "shooting":
        assert not mask[move].any()
    else:
        assert not mask[shoot].any() and mask[move].any()


@pytest.mark.parametrize("first_deployer", ["player1", "player2"])
def test_first_deployer_is_honoured_at_init(first_deployer):
    d = shipped_dict("small")
    d["first_deployer"] = first_deployer
    d["first_player"] = "player1"
    env = make(d)
    state = init(env)
    seat = ("player1", "player2").index(first_deployer)
    assert int(state.current_player) == seat
    view = game_json(env, state)
    assert view["phase"] == "deployment"
    assert view["deployment_state"]["current_deployer"] == first_deployer
    # Only the first deployer's units can be placed: the pass action and the first deploy index
    # are resolved against that player's pool.
    mask = np.asarray(state.legal_action_mask)
    assert mask[: 3 * 12].all() and not mask[3 * 12]
    first = decode_action(env, state, 0)
    pool = sorted(d["deployment_pools_by_player"][first_deployer])
    assert (first.col, first.row) == tuple(pool[0])
    assert first.unit_id == sorted(u["id"] for u in d["units"] if u["owner"] == first_deployer)[0]


# --------------------------------------------------------------------------------------------------
# Stepped scenario: first_deployer / first_player / shooting start and config rewards


def tiny(**changes):
    """One unit a side on a 4x2 board; a single shot (damage 1, range 5) kills (hp 1)."""
    d = {
        "board": {"cols": 4, "rows": 2},
        "walls": [[2, 1]],
        "units": [
            {"id": "blue", "owner": "player1", "hp": 1, "move": 1, "range": 5, "damage": 1},
            {"id": "red", "owner": "player2", "hp": 1, "move": 1, "range": 5, "damage": 1},
        ],
        "deployment_type": "active",
        "fixed_positions": {},
        "deployment_pools_by_player": {"player1": [[0, 1], [0, 0]], "player2": [[3, 0], [3, 1]]},
        "deployment_max_unit_slots": 1,
        "deployment_max_hex_slots": 2,
        "deployment_restrictions": {},
        "first_deployer": "player1",
        "post_deployment_start_phase": "movement",
        "first_player": "player1",
        "max_turns": 3,
        "rewards": {"win": 1.0, "loss": -1.0, "draw": 0.0, "deployment_shaping": 0.0},
    }
    d.update(copy.deepcopy(changes))
    return d


@pytest.fixture(scope="module")
def rewarded():
    """The tiny scenario with rewards win 2 / loss -2 / draw 0.5 / shaping 0.25, player2 deploying
    first, player2 acting first in the skirmish, which starts in shooting (one env, compiled once)."""
    d = tiny(
        rewards={"win": 2.0, "loss": -2.0, "draw": 0.5, "deployment_shaping": 0.25},
        first_deployer="player2",
        first_player="player2",
        post_deployment_start_phase="shooting",
    )
    env = make(d)
    return env, jax.jit(env.step)


def _step_checked(env, step, state, action):
    stepped = step(state, action, KEY)
    assert int(stepped.error) == 0, env.error_codes.name(int(stepped.error))
    return stepped


def test_first_deployer_first_player_shooting_start_and_config_rewards(rewarded):
    env, step = rewarded
    layout = env.action_layout
    state = init(env)
    assert int(state.current_player) == 1  # first_deployer: player2
    assert game_json(env, state)["phase"] == "deployment"

    # player2 places red: shaping +0.25 to the deployer, -0.25 to the other.
    state = _step_checked(env, step, state, encode_deploy(env, state, "red", 3, 1))
    np.testing.assert_array_equal(np.asarray(state.rewards), [-0.25, 0.25])
    assert int(state.current_player) == 0  # player2 has no unit left (7.1)
    assert game_json(env, state)["phase"] == "deployment"

    # player1 places blue: shaping for player1, then the skirmish starts in shooting with
    # first_player (player2), although player1 deployed last.
    state = _step_checked(env, step, state, encode_deploy(env, state, "blue", 0, 0))
    np.testing.assert_array_equal(np.asarray(state.rewards), [0.25, -0.25])
    view = game_json(env, state)
    assert view["phase"] == "shooting"
    assert view["deployment_state"]["deployment_complete"] is True
    assert int(state.current_player) == 1
    assert not bool(state.terminated)

    # player2's red shoots blue (distance 3 <= range 5): blue is eliminated, player2 wins.
    shoot = layout.start("shoot")  # unit slot 0 (red) at target slot 0 (blue)
    assert bool(state.legal_action_mask[shoot])
    state = _step_checked(env, step, state, shoot)
    assert bool(state.terminated) and not bool(state.truncated)
    np.testing.assert_array_equal(np.asarray(state.rewards), [-2.0, 2.0])
    view = game_json(env, state)
    assert view["outcome"] == "player2_won"
    assert view["endReason"] == "elimination"
    assert view["units"]["blue"]["hp"] == 0


def test_win_reward_for_player1(rewarded):
    env, step = rewarded
    layout = env.action_layout
    state = init(env)
    state = _step_checked(env, step, state, encode_deploy(env, state, "red", 3, 0))
    state = _step_checked(env, step, state, encode_deploy(env, state, "blue", 0, 1))
    # player2 acts first: it ends its shooting phase without shooting; player1 moves in turn.
    state = _step_checked(env, step, state, layout.start("end_phase"))
    np.testing.assert_array_equal(np.asarray(state.rewards), [0.0, 0.0])
    assert int(state.current_player) == 0
    assert game_json(env, state)["phase"] == "movement"
    state = _step_checked(env, step, state, layout.start("end_phase"))
    assert game_json(env, state)["phase"] == "shooting"
    state = _step_checked(env, step, state, layout.start("shoot"))
    assert bool(state.terminated)
    np.testing.assert_array_equal(np.asarray(state.rewards), [2.0, -2.0])
    assert game_json(env, state)["outcome"] == "player1_won"


def test_draw_reward_at_the_turn_limit(rewarded):
    env, step = rewarded
    end = env.action_layout.start("end_phase")
    state = init(env)
    state = _step_checked(env, step, state, encode_deploy(env, state, "red", 3, 1))
    state = _step_checked(env, step, state, encode_deploy(env, state, "blue", 0, 1))
    ends = 0
    while not bool(state.terminated):
        np.testing.assert_array_equal(
            np.asarray(state.rewards), [0.0, 0.0] if ends else [0.25, -0.25]
        )
        state = _step_checked(env, step, state, end)
        ends += 1
        assert ends <= 4 * 3, "max_turns 3 must end the game"
    view = game_json(env, state)
    assert (view["outcome"], view["endReason"]) == ("draw", "turn_limit")
    np.testing.assert_array_equal(np.asarray(state.rewards), [0.5, 0.5])


def test_default_rewards_of_a_shipped_scenario_are_plus_minus_one_and_no_shaping():
    # The shipped files set the rewards explicitly (spec 8: no constant in code).
    env = make(shipped_dict("small"))
    assert env.scenario.rewards == {
        "win": 1.0,
        "loss": -1.0,
        "draw": 0.0,
        "deployment_shaping": 0.0,
    }


def test_rewards_are_read_from_the_config_not_constants():
    d = tiny(rewards={"win": 3.5, "loss": -0.5, "draw": 0.25, "deployment_shaping": -0.1})
    env = make(d)
    assert env.scenario.rewards == {
        "win": 3.5,
        "loss": -0.5,
        "draw": 0.25,
        "deployment_shaping": -0.1,
    }
    # Not zero-sum any more: the env must say so (api_test relies on it).
    assert env.zero_sum is False
    assert make(tiny()).zero_sum is True


def test_shaping_is_zero_when_config_says_zero():
    env = make(tiny(first_deployer="player1"))
    state = init(env)
    stepped = jax.jit(env.step)(state, encode_deploy(env, state, "blue", 0, 1), KEY)
    assert int(stepped.error) == 0
    np.testing.assert_array_equal(np.asarray(stepped.rewards), [0.0, 0.0])


def test_scenario_dict_is_not_mutated_by_make():
    d = shipped_dict("overlap")
    before = copy.deepcopy(d)
    make(d)
    assert d == before


def test_env_options_record_the_scenario_for_replays():
    assert make("small").options["scenario"] == "small"
    d = shipped_dict("small")
    assert make(d).options["scenario"] == d
    assert json.loads(json.dumps(make(d).options["scenario"])) == d


def test_d6_restrictions_that_cannot_all_hold_at_once_deadlock_at_make():
    """Two units each restricted to the same single hex: each alone has a hex, together they do not
    (a maximum matching of units to distinct usable hexes is smaller than the unit count)."""
    data = shipped_dict("small")
    data["deployment_restrictions"] = {"blue_infantry": [[0, 0]], "blue_sniper": [[0, 0]]}
    with pytest.raises(DeploymentDeadlockError, match="cannot all be placed at once"):
        tcgjax.make("deployment", scenario=data)
    data["deployment_restrictions"] = {"blue_infantry": [[0, 0]], "blue_sniper": [[0, 0], [0, 1]]}
    env = tcgjax.make(
        "deployment", scenario=data
    )  # a matching exists: infantry (0,0), sniper (0,1)
    assert env.scenario.restrictions["blue_sniper"] == ((0, 0), (0, 1))


def test_d6_is_per_player_overlap_deadlocks_surface_at_runtime():
    """D6 checks each player's own pool. Identical 3-hex pools with 3 units a side pass it: the
    resulting deadlock is met at runtime through pass_deployment (D5), explicitly, never hidden."""
    data = shipped_dict("small")
    shared = [[0, 0], [0, 1], [0, 2]]
    data["deployment_pools_by_player"] = {"player1": shared, "player2": shared}
    env = tcgjax.make("deployment", scenario=data)
    state = jax.jit(env.init)(jax.random.PRNGKey(0))
    for unit_id, hex_ in zip(("blue_infantry", "blue_sniper", "blue_tank"), shared, strict=True):
        state = tcgjax.checked_step(
            env, state, encode_deploy(env, state, unit_id, *hex_), jax.random.PRNGKey(1)
        )
    pass_index = env.action_layout.start("pass_deployment")
    assert np.flatnonzero(state.legal_action_mask).tolist() == [pass_index]
    with pytest.raises(DeploymentDeadlockError, match="player2"):
        tcgjax.checked_step(env, state, pass_index, jax.random.PRNGKey(2))
