"""D8 JSON view of deployment states: spec names, exact round trips, explicit errors, replays.

Every state is built by an explicit action sequence on the ``small`` scenario (7x6 board, walls at
(3, 1) and (3, 4); player1 deploys in columns 0-1, player2 in columns 5-6):

* deployment: blue_infantry (1, 1), blue_sniper (1, 2), blue_tank (0, 2), then red_infantry (5, 2),
  red_sniper (5, 3), red_tank (6, 2); the skirmish starts in movement with player1;
* player1 moves blue_infantry SE (odd column: (1, 1) -> (2, 2)), ends movement, and blue_sniper
  (range 4) shoots red_infantry at distance 4 (HP 3 -> 2);
* then only ``end_phase`` until the turn limit: player1 wins on HP (10 against 9).
"""

import copy
import json

import jax
import numpy as np
import pytest
from deployment_testlib import shipped_dict

import tcgjax
from tcgjax.games.deployment import encode_deploy, hexgrid
from tcgjax.testing import assert_states_equal

KEY = jax.random.PRNGKey(0)
P1_DEPLOY = (("blue_infantry", 1, 1), ("blue_sniper", 1, 2), ("blue_tank", 0, 2))
P2_DEPLOY = (("red_infantry", 5, 2), ("red_sniper", 5, 3), ("red_tank", 6, 2))
SE = hexgrid.DIRECTIONS.index("SE")
D8_KEYS = {
    "current_deployer",
    "deployable_units_by_player",
    "deployed_units",
    "deployment_pools_by_player",
    "deployment_complete",
    "active_unit_id",
}


def _play(env, step, state, action):
    new = step(state, action, KEY)
    assert int(new.error) == 0, f"{env.action_name(action)}: {env.error_codes.name(int(new.error))}"
    return new


def _script(env):
    """The action indices of the module docstring's game, up to the mid-skirmish state, computed
    on the fly (deploy indices depend on the state: use encode_deploy)."""
    layout = env.action_layout
    slot = lambda uid: env.scenario.units_by_player[0].index(uid)  # noqa: E731
    red_slot = lambda uid: env.scenario.units_by_player[1].index(uid)  # noqa: E731
    U = env.scenario.max_unit_slots
    deploys = [lambda s, u=u, c=c, r=r: encode_deploy(env, s, u, c, r) for u, c, r in P1_DEPLOY]
    deploys += [lambda s, u=u, c=c, r=r: encode_deploy(env, s, u, c, r) for u, c, r in P2_DEPLOY]
    skirmish = [
        layout.start("move") + slot("blue_infantry") * 6 + SE,
        layout.start("end_phase"),
        layout.start("shoot") + slot("blue_sniper") * U + red_slot("red_infantry"),
    ]
    return deploys + [lambda s, a=a: a for a in skirmish]


@pytest.fixture(scope="module")
def states(deployment_env, deployment_step):
    """Named states of the scripted game on the small scenario."""
    return scripted_states(deployment_env, deployment_step)


def scripted_states(env, step):
    """Named states of the module docstring's game (also used by ``test_deployment_validate``)."""
    script = _script(env)
    out = {}
    state = jax.jit(env.init)(KEY)
    out["init"] = state
    for i, action in enumerate(script):
        state = _play(env, step, state, action(state))
        if i == 1:
            out["mid_deployment_player1"] = state
        if i == 3:
            out["mid_deployment_player2"] = state
        if i == 5:
            out["deployment_complete"] = state
        if i == 6:
            out["mid_movement"] = state
    out["mid_skirmish"] = state
    end = env.action_layout.start("end_phase")
    for _ in range(100):
        if bool(state.terminated):
            break
        state = _play(env, step, state, end)
    out["terminal"] = state
    return out


def view(env, state):
    return json.loads(tcgjax.to_json(env, state))


# --------------------------------------------------------------------------------------------------
# D8 field names and contents


def test_d8_field_names_at_init(deployment_env, states):
    v = view(deployment_env, states["init"])
    assert v["phase"] == "deployment"
    ds = v["deployment_state"]
    assert set(ds) == D8_KEYS
    assert ds["current_deployer"] == "player1"
    assert ds["deployable_units_by_player"] == {
        "player1": ["blue_infantry", "blue_sniper", "blue_tank"],
        "player2": ["red_infantry", "red_sniper", "red_tank"],
    }
    assert ds["deployed_units"] == []
    assert ds["deployment_complete"] is False
    assert ds["active_unit_id"] is None
    small = shipped_dict("small")["deployment_pools_by_player"]
    assert ds["deployment_pools_by_player"] == {p: sorted(small[p]) for p in small}
    assert set(v["units"]) == {u for u, _, _ in P1_DEPLOY + P2_DEPLOY}
    for uid, unit in v["units"].items():
        assert (unit["col"], unit["row"]) == (-1, -1), uid  # 3.2.2 sentinel
        assert unit["id"] == uid


def test_d8_contents_mid_deployment(deployment_env, states):
    v = view(deployment_env, states["mid_deployment_player1"])
    ds = v["deployment_state"]
    assert v["phase"] == "deployment"
    assert ds["current_deployer"] == "player1"
    assert sorted(ds["deployed_units"]) == ["blue_infantry", "blue_sniper"]
    assert ds["deployable_units_by_player"] == {
        "player1": ["blue_tank"],
        "player2": ["red_infantry", "red_sniper", "red_tank"],
    }
    assert ds["deployment_complete"] is False and ds["active_unit_id"] is None
    assert (v["units"]["blue_infantry"]["col"], v["units"]["blue_infantry"]["row"]) == (1, 1)
    assert (v["units"]["blue_sniper"]["col"], v["units"]["blue_sniper"]["row"]) == (1, 2)
    assert (v["units"]["blue_tank"]["col"], v["units"]["blue_tank"]["row"]) == (-1, -1)

    v = view(deployment_env, states["mid_deployment_player2"])
    ds = v["deployment_state"]
    assert ds["current_deployer"] == "player2"  # switched once player1 had no unit left (7.1)
    assert v["turnState"]["activePlayerId"] == "player2"
    assert sorted(ds["deployed_units"]) == [
        "blue_infantry",
        "blue_sniper",
        "blue_tank",
        "red_infantry",
    ]
    assert ds["deployable_units_by_player"] == {
        "player1": [],
        "player2": ["red_sniper", "red_tank"],
    }
    assert (v["units"]["red_infantry"]["col"], v["units"]["red_infantry"]["row"]) == (5, 2)
    for uid in ds["deployed_units"]:  # 3.2.3: never both deployed and deployable
        assert all(uid not in lst for lst in ds["deployable_units_by_player"].values())


def test_d8_contents_after_deployment_and_in_skirmish(deployment_env, states):
    v = view(deployment_env, states["deployment_complete"])
    ds = v["deployment_state"]
    assert v["phase"] == "movement"  # post_deployment_start_phase of small.yaml
    assert ds["deployment_complete"] is True
    assert sorted(ds["deployed_units"]) == sorted(u for u, _, _ in P1_DEPLOY + P2_DEPLOY)
    assert ds["deployable_units_by_player"] == {"player1": [], "player2": []}
    assert ds["current_deployer"] == "player1" == v["turnState"]["activePlayerId"]
    for uid, col, row in P1_DEPLOY + P2_DEPLOY:
        assert (v["units"][uid]["col"], v["units"][uid]["row"]) == (col, row), uid

    v = view(deployment_env, states["mid_skirmish"])
    assert v["phase"] == "shooting"
    assert v["deployment_state"]["active_unit_id"] is None
    assert (v["units"]["blue_infantry"]["col"], v["units"]["blue_infantry"]["row"]) == (2, 2)
    assert v["units"]["blue_infantry"]["movesLeft"] == 1
    assert v["units"]["red_infantry"]["hp"] == 2
    assert v["units"]["blue_sniper"]["hasShot"] is True
    assert v["units"]["blue_sniper"]["damageDealt"] == 1
    # The pools are the scenario's, whatever the phase.
    assert (
        v["deployment_state"]["deployment_pools_by_player"]
        == view(deployment_env, states["init"])["deployment_state"]["deployment_pools_by_player"]
    )


def test_d8_terminal_view(deployment_env, states):
    state = states["terminal"]
    assert bool(state.terminated) and not bool(state.truncated)
    v = view(deployment_env, state)
    assert v["outcome"] == "player1_won"
    assert v["endReason"] == "turn_limit"
    assert v["deployment_state"]["active_unit_id"] is None
    assert v["deployment_state"]["deployment_complete"] is True
    assert v["env"]["terminated"] is True
    assert v["env"]["rewards"] == [1.0, -1.0]


# --------------------------------------------------------------------------------------------------
# Exact round trips


@pytest.mark.parametrize(
    "name",
    [
        "init",
        "mid_deployment_player1",
        "mid_deployment_player2",
        "deployment_complete",
        "mid_movement",
        "mid_skirmish",
        "terminal",
    ],
)
def test_exact_round_trip(deployment_env, states, name):
    env, state = deployment_env, states[name]
    text = tcgjax.to_json(env, state)
    back = tcgjax.from_json(env, text)
    assert_states_equal(back, state, f"round trip at {name}")
    assert tcgjax.to_json(env, back) == text


def test_round_trip_of_a_rejected_action_keeps_the_error(deployment_env, deployment_step, states):
    env = deployment_env
    state = states["mid_deployment_player1"]
    # blue_infantry is already deployed: the index is rejected and the error code is recorded.
    bad = encode_deploy(env, state, "blue_infantry", 0, 0)
    rejected = deployment_step(state, bad, KEY)
    assert env.error_codes.name(int(rejected.error)) == "already_deployed"
    back = tcgjax.from_json(env, tcgjax.to_json(env, rejected))
    assert_states_equal(back, rejected, "rejected action")


# --------------------------------------------------------------------------------------------------
# Malformed or inconsistent JSON


@pytest.fixture
def mid(deployment_env, states):
    """A fresh dict of the mid-deployment (player2 deploying) JSON."""
    return view(deployment_env, states["mid_deployment_player2"])


def _raises(env, data, field, *more):
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(tcgjax.SerializationError) as info:
        tcgjax.from_json(env, text)
    message = str(info.value)
    assert message.startswith(field), f"{message!r} does not start with {field!r}"
    for fragment in more:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_unplaced_unit_listed_as_deployed(deployment_env, mid):
    # blue_tank stays in deployed_units but its position says it was never placed (3.2.1, 3.2.2).
    mid["units"]["blue_tank"].update(col=-1, row=-1)
    _raises(deployment_env, mid, "deployment_state", "inconsistent")


def test_placed_unit_missing_from_deployed_units(deployment_env, mid):
    mid["deployment_state"]["deployed_units"].remove("red_infantry")
    mid["deployment_state"]["deployable_units_by_player"]["player2"].insert(0, "red_infantry")
    _raises(deployment_env, mid, "deployment_state")


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("deployment_state", "current_deployer"), "player1"),
        (("deployment_state", "deployment_complete"), True),
        (("deployment_state", "active_unit_id"), "red_sniper"),
        (("deployment_state", "deployable_units_by_player", "player2"), ["red_sniper"]),
        (("deployment_state", "deployment_pools_by_player", "player1"), [[0, 0]]),
        (("deployment_state", "deployed_units"), ["blue_infantry"]),
    ],
)
def test_deployment_state_disagreeing_with_positions(deployment_env, mid, path, value):
    target = mid
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    _raises(deployment_env, mid, "deployment_state")


def test_unknown_phase(deployment_env, mid):
    mid["phase"] = "combat"
    _raises(deployment_env, mid, "phase", "'combat'")


def test_turn_state_phase_differs_from_phase(deployment_env, mid):
    mid["turnState"]["phase"] = "movement"
    _raises(deployment_env, mid, "turnState.phase")


def test_unknown_unit(deployment_env, mid):
    mid["units"]["green_tank"] = dict(mid["units"]["red_tank"], id="green_tank")
    _raises(deployment_env, mid, "units.green_tank", "unknown unit")


def test_missing_unit(deployment_env, mid):
    del mid["units"]["red_sniper"]
    _raises(deployment_env, mid, "units.red_sniper", "missing")


@pytest.mark.parametrize(("col", "row"), [(7, 0), (0, 6), (-2, -1), (3, -1), (-1, 2)])
def test_position_off_the_board(deployment_env, mid, col, row):
    mid["units"]["blue_infantry"].update(col=col, row=row)
    _raises(deployment_env, mid, "units.blue_infantry.col", f"({col}, {row})")


@pytest.mark.parametrize("value", ["3", 3.0, None, True, [3]])
def test_wrong_type_for_hp(deployment_env, mid, value):
    mid["units"]["red_tank"]["hp"] = value
    _raises(deployment_env, mid, "units.red_tank.hp", "wrong type")


def test_hp_outside_its_dtype(deployment_env, mid):
    mid["units"]["red_tank"]["hp"] = 300
    _raises(deployment_env, mid, "units.red_tank.hp", "out of range")


def test_wrong_type_for_has_shot(deployment_env, mid):
    mid["units"]["blue_tank"]["hasShot"] = 0
    _raises(deployment_env, mid, "units.blue_tank.hasShot")


def test_unit_owner_changed(deployment_env, mid):
    mid["units"]["blue_tank"]["owner"] = "player2"
    _raises(deployment_env, mid, "units.blue_tank.owner")


def test_unit_field_missing_or_extra(deployment_env, mid):
    data = copy.deepcopy(mid)
    del data["units"]["blue_tank"]["movesLeft"]
    _raises(deployment_env, data, "units.blue_tank")
    data = copy.deepcopy(mid)
    data["units"]["blue_tank"]["armor"] = 1
    _raises(deployment_env, data, "units.blue_tank")


@pytest.mark.parametrize(
    "key", ["phase", "deployment_state", "units", "turnState", "outcome", "endReason"]
)
def test_missing_top_level_field(deployment_env, mid, key):
    del mid[key]
    _raises(deployment_env, mid, key, "missing")


def test_unknown_top_level_field_outcome_and_env(deployment_env, mid):
    data = copy.deepcopy(mid)
    data["cards"] = {}
    _raises(deployment_env, data, "cards", "unknown")
    data = copy.deepcopy(mid)
    data["outcome"] = "victory"
    _raises(deployment_env, data, "outcome", "'victory'")
    data = copy.deepcopy(mid)
    data["envId"] = "duel"
    _raises(deployment_env, data, "envId")
    _raises(deployment_env, "{not json", "$")


# The next ones are states that no legal action sequence can reach: the JSON is inconsistent with
# the spec's invariants even though each field, alone, is well formed.


def test_two_living_units_on_one_hex(deployment_env, mid):
    # 4.2.7 / 4.3.4: a hex holds at most one unit; red_infantry stands on (5, 2).
    mid["units"]["blue_tank"].update(col=5, row=2)
    with pytest.raises(
        tcgjax.SerializationError, match=r"^(units\.(blue_tank|red_infantry)|deployment_state)"
    ):
        tcgjax.from_json(deployment_env, json.dumps(mid))


def test_unit_on_a_wall(deployment_env, mid):
    # 4.2.5: no unit may stand on a wall; (3, 1) is a wall of the small scenario.
    mid["units"]["blue_tank"].update(col=3, row=1)
    with pytest.raises(tcgjax.SerializationError, match=r"^units\.blue_tank"):
        tcgjax.from_json(deployment_env, json.dumps(mid))


def test_skirmish_phase_with_units_left_to_deploy(deployment_env, mid):
    # 7.2: the deployment phase ends only once every unit is placed.
    mid["phase"] = mid["turnState"]["phase"] = "movement"
    with pytest.raises(tcgjax.SerializationError, match=r"^(phase|deployment_state)"):
        tcgjax.from_json(deployment_env, json.dumps(mid))


def test_deployment_phase_with_every_unit_placed(deployment_env, states):
    # 3.2.5: deployment_complete == True implies phase != "deployment".
    data = view(deployment_env, states["deployment_complete"])
    data["phase"] = data["turnState"]["phase"] = "deployment"
    data["turnState"]["turnNumber"] = 0
    with pytest.raises(tcgjax.SerializationError, match=r"^(phase|deployment_state)"):
        tcgjax.from_json(deployment_env, json.dumps(data))


# --------------------------------------------------------------------------------------------------
# Metrics fields


def test_deploy_order_and_hex_slot_in_the_view(deployment_env, states):
    v = view(deployment_env, states["deployment_complete"])
    pools = v["deployment_state"]["deployment_pools_by_player"]
    for order, (uid, col, row) in enumerate(P1_DEPLOY + P2_DEPLOY):
        owner = v["units"][uid]["owner"]
        assert v["units"][uid]["deployOrder"] == order, uid
        assert v["units"][uid]["deployHexSlot"] == pools[owner].index([col, row]), uid
    assert v["deploymentSteps"] == 6


# --------------------------------------------------------------------------------------------------
# Replays


def _record(env, script_len=None):
    rec = tcgjax.replay.Recorder(env, jax.jit(env.init)(KEY))
    script = _script(env)[:script_len]
    for i, action in enumerate(script):
        rec.step(int(action(rec.state)), jax.random.PRNGKey(100 + i))
    return rec


@pytest.mark.parametrize("scenario", ["small", "dict"])
def test_replay_reproduces_a_mid_game_state(deployment_env, states, scenario):
    env = (
        deployment_env
        if scenario == "small"
        else tcgjax.make("deployment", scenario=shipped_dict())
    )
    rec = _record(env)
    exported = json.loads(json.dumps(rec.export()))
    if scenario == "dict":
        assert exported["options"]["scenario"] == shipped_dict()
    assert len(exported["commandLog"]) == 9
    # env=None: the env is rebuilt from the replay's own id and options (the dict, here).
    final = tcgjax.replay.run(exported)
    assert_states_equal(final, rec.state, f"replay ({scenario})")
    # The scripted game is the same whichever form the scenario took.
    assert_states_equal(final, states["mid_skirmish"], f"replay ({scenario}) vs scripted game")


def test_replay_of_a_dict_scenario_with_reordered_units(states):
    # Units and pools listed in another order: slots are sorted (D1, D2), so the game is the same.
    d = shipped_dict()
    d["units"].reverse()
    for pool in d["deployment_pools_by_player"].values():
        pool.reverse()
    env = tcgjax.make("deployment", scenario=d)
    rec = _record(env, script_len=4)
    final = tcgjax.replay.run(json.loads(json.dumps(rec.export())))
    assert_states_equal(final, rec.state, "replay of a reordered dict scenario")
    assert_states_equal(final, states["mid_deployment_player2"], "same game as the shipped file")
    np.testing.assert_array_equal(np.asarray(final.game.col), np.asarray(rec.state.game.col))
