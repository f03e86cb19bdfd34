"""Replays (decision E3): record, export, re-run exactly; tampering and exhaustion are errors."""

import copy
import json

import jax
import pytest

import tcgjax
from tcgjax import replay
from tcgjax.games.duel.rules import ACTIONS
from tcgjax.games.duel.scenario import build_state
from tcgjax.testing import assert_states_equal

END_TURN = ACTIONS.encode("end_turn")


@pytest.fixture(scope="module")
def recorded(duel_env):
    """A scripted game: play, attack, end turns, with distinct step keys."""
    env = duel_env
    s = build_state(
        env,
        [
            {
                "hand": ["goblin", "spark"],
                "board": ["wolf"],
                "mana": 2,
                "deck": ["knight", "dragon"],
            },
            {"deck": ["goblin", "wolf"], "hand": ["spark"]},
        ],
    )
    rec = replay.Recorder(env, s)
    script = [
        ACTIONS.encode("play", 0),
        ACTIONS.encode("attack", 0),
        END_TURN,
        ACTIONS.encode("play", 0),
        END_TURN,
        END_TURN,
    ]
    for i, action in enumerate(script):
        s = rec.step(action, jax.random.PRNGKey(100 + i))
    return json.loads(json.dumps(rec.export())), s


def test_export_shape(recorded):
    data, final = recorded
    assert {
        "envId",
        "envVersion",
        "options",
        "initialState",
        "commandLog",
        "randomTape",
        "final",
    } <= set(data)
    assert data["envId"] == "duel" and data["options"]["illegal_action"] == "reject"
    assert len(data["commandLog"]) == 6 == len(data["randomTape"]["values"])
    first = data["commandLog"][0]
    assert first == {
        "type": "action",
        "timestamp": 0,
        "payload": {"playerId": "player1", "action": 0, "actionName": "play[0]"},
    }
    assert data["randomTape"]["index"] == 0
    assert data["final"]["stepCount"] == int(final.step_count) == 6


def test_run_reproduces_final_state_exactly(duel_env, recorded):
    data, final = recorded
    assert_states_equal(replay.run(data), final, "replay")
    assert_states_equal(replay.run(data, duel_env), final, "replay with env")


def test_illegal_command_in_log(recorded):
    data = copy.deepcopy(recorded[0])
    data["commandLog"][1]["payload"]["action"] = ACTIONS.encode("attack", 2)  # empty slot
    with pytest.raises(tcgjax.ReplayError, match=r"commandLog\[1\].*no_creature_in_slot"):
        replay.run(data)


def test_legal_but_tampered_replay_fails_the_digest(recorded):
    data = copy.deepcopy(recorded[0])
    data["initialState"]["players"]["player2"]["attributes"]["life"] = 11  # still a legal game
    with pytest.raises(tcgjax.ReplayError, match="differs"):
        replay.run(data)


def test_legal_switch_of_action_is_caught(recorded):
    """Swapping an action for another legal one desynchronises the log: the next command's actor
    no longer matches (or the digest fails) — never a silent divergence."""
    data = copy.deepcopy(recorded[0])
    data["commandLog"][1]["payload"]["action"] = END_TURN
    with pytest.raises(tcgjax.ReplayError, match=r"commandLog\[2\].payload.playerId"):
        replay.run(data)


def test_exhausted_tape(recorded):
    data = copy.deepcopy(recorded[0])
    data["randomTape"]["values"].pop()
    with pytest.raises(tcgjax.ReplayError, match="exhausted"):
        replay.run(data)


def test_wrong_player_and_malformed_entries(recorded):
    data = copy.deepcopy(recorded[0])
    data["commandLog"][0]["payload"]["playerId"] = "player2"
    with pytest.raises(tcgjax.ReplayError, match=r"commandLog\[0\].payload.playerId"):
        replay.run(data)
    data = copy.deepcopy(recorded[0])
    data["commandLog"][2]["type"] = "cheat"
    with pytest.raises(tcgjax.ReplayError, match=r"commandLog\[2\]"):
        replay.run(data)
    data = copy.deepcopy(recorded[0])
    data["randomTape"]["values"][0] = [1, -5]
    with pytest.raises(tcgjax.ReplayError, match=r"randomTape.values\[0\]"):
        replay.run(data)


def test_wrong_env_version_options_or_initial_state(recorded):
    data = copy.deepcopy(recorded[0])
    data["envVersion"] = "0"
    with pytest.raises(tcgjax.ReplayError, match="v'0'"):
        replay.run(data)
    data = copy.deepcopy(recorded[0])
    data["options"]["colour"] = "red"
    with pytest.raises(tcgjax.ReplayError, match="colour"):
        replay.run(data)
    data = copy.deepcopy(recorded[0])
    data["initialState"]["cards"]["card_001"]["zoneId"] = "nowhere"
    with pytest.raises(tcgjax.ReplayError, match="card_001.zoneId"):
        replay.run(data)
    data = copy.deepcopy(recorded[0])
    del data["commandLog"]
    with pytest.raises(tcgjax.ReplayError, match="commandLog"):
        replay.run(data)


def test_recorder_refuses_illegal_actions(duel_env):
    s = build_state(duel_env, [{"hand": ["dragon"], "mana": 0}, {}])
    rec = replay.Recorder(duel_env, s)
    with pytest.raises(tcgjax.IllegalActionError, match="not_enough_mana"):
        rec.step(ACTIONS.encode("play", 0), jax.random.PRNGKey(0))
    assert rec.export()["commandLog"] == []
