"""Replays (decision E3): record, export, re-run exactly; tampering and exhaustion are errors."""

import copy
import json

import jax
import pytest

import tcgjax
from tcgjax import replay
from tcgjax.core import replay as core_replay
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
        "replayFormat",
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
        "payload": {"playerId": "player1", "action": 0, "actionName": "play Goblin (hand 0)"},
    }
    assert data["replayFormat"] == core_replay.REPLAY_FORMAT == 3
    # Each move named in the position it was made in (the state before it).
    assert [c["payload"]["actionName"] for c in data["commandLog"]] == [
        "play Goblin (hand 0)",
        "attack with Wolf (board 0)",
        "end the turn",
        "cast Spark (hand 0)",  # player 2's id play[0]: their Spark (the drawn Goblin is hand 1)
        "end the turn",
        "end the turn",
    ]
    assert data["randomTape"]["index"] == 0
    assert data["final"]["stepCount"] == int(final.step_count) == 6


def test_run_reproduces_final_state_exactly(duel_env, recorded):
    data, final = recorded
    assert_states_equal(replay.run(data), final, "replay")
    assert_states_equal(replay.run(data, duel_env), final, "replay with env")


def test_illegal_command_in_log(recorded):
    data = copy.deepcopy(recorded[0])
    data["commandLog"][1]["payload"].update(
        action=ACTIONS.encode("attack", 2), actionName="attack[2]"
    )
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
    data["commandLog"][1]["payload"].update(action=END_TURN, actionName="end the turn")
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


# --------------------------------------------------------------------------------------------------
# The envelope: every field required and type-checked, the digest not optional by accident


def test_public_module_imports():
    import importlib

    module = importlib.import_module("tcgjax.replay")
    from tcgjax.replay import Recorder, run

    assert module.run is run and module.Recorder is Recorder and tcgjax.replay is module


def test_missing_final_is_refused_unless_verification_is_waived(duel_env, recorded):
    data, final_state = copy.deepcopy(recorded[0]), recorded[1]
    del data["final"]
    with pytest.raises(tcgjax.ReplayError, match=r"replay\.final: missing field"):
        replay.run(data)
    assert_states_equal(replay.run(data, verify=False), final_state, "verify=False")


def test_dropped_command_or_edited_initial_state_without_final_is_caught(recorded):
    """The attacks a missing digest used to let through now fail on the missing digest."""
    dropped = copy.deepcopy(recorded[0])
    dropped["commandLog"].pop()
    dropped["randomTape"]["values"].pop()
    with pytest.raises(tcgjax.ReplayError, match="differs"):
        replay.run(dropped)
    del dropped["final"]
    with pytest.raises(tcgjax.ReplayError, match=r"replay\.final"):
        replay.run(dropped)
    edited = copy.deepcopy(recorded[0])
    edited["initialState"]["players"]["player2"]["attributes"]["life"] = 11
    del edited["final"]
    with pytest.raises(tcgjax.ReplayError, match=r"replay\.final"):
        replay.run(edited)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("options", None),
        ("options", ["illegal_action"]),
        ("envId", 3),
        ("envId", None),
        ("envVersion", 2),
        ("commandLog", {"0": {}}),
        ("commandLog", None),
        ("randomTape", [[1, 2]]),
        ("initialState", "{}"),
        ("initialState", None),
        ("final", None),
        ("final", "abc"),
    ],
)
def test_every_envelope_field_is_type_checked(recorded, field, value):
    data = copy.deepcopy(recorded[0])
    data[field] = value
    with pytest.raises(tcgjax.ReplayError, match=rf"^replay\.{field}: expected"):
        replay.run(data)


@pytest.mark.parametrize(
    "field", ["envId", "envVersion", "options", "initialState", "commandLog", "randomTape"]
)
def test_every_envelope_field_is_required(recorded, field):
    data = copy.deepcopy(recorded[0])
    del data[field]
    with pytest.raises(tcgjax.ReplayError, match=rf"^replay\.{field}: missing field"):
        replay.run(data, verify=False)


def test_unknown_envelope_fields_and_non_dict_replays(recorded):
    data = copy.deepcopy(recorded[0])
    data["comment"] = "hi"
    with pytest.raises(tcgjax.ReplayError, match=r"replay\.comment: unknown field"):
        replay.run(data)
    with pytest.raises(tcgjax.ReplayError, match="expected a JSON object"):
        replay.run([recorded[0]])
    with pytest.raises(tcgjax.ReplayError, match="verify"):
        replay.run(recorded[0], verify="no")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"index": -1}, r"replay\.randomTape\.index: -1 outside \[0, 6\]"),
        ({"index": 7}, r"replay\.randomTape\.index: 7 outside \[0, 6\]"),
        ({"index": True}, r"replay\.randomTape\.index: expected an int"),
        ({"index": 0.0}, r"replay\.randomTape\.index: expected an int"),
        ({"values": "00"}, r"replay\.randomTape\.values: expected a list"),
        ({"extra": 1}, r"replay\.randomTape\.extra: unknown field"),
    ],
)
def test_tape_index_and_values_are_checked(recorded, edit, message):
    data = copy.deepcopy(recorded[0])
    data["randomTape"].update(edit)
    with pytest.raises(tcgjax.ReplayError, match=message):
        replay.run(data)


def test_a_tape_index_past_the_start_skips_keys_and_is_caught(recorded):
    data = copy.deepcopy(recorded[0])
    data["randomTape"]["index"] = 1  # in range, but the steps then read the wrong keys
    with pytest.raises(tcgjax.ReplayError, match="exhausted"):
        replay.run(data)


@pytest.mark.parametrize(
    ("action", "rule"),
    [
        (3.0, "integer"),
        ("0", "integer"),
        (True, "integer"),
        (None, "integer"),
        (-1, r"action -1 is outside \[0, 10\)"),
        (2**31, r"action 2147483648 is outside \[0, 10\)"),
        (2**32, r"outside \[0, 10\)"),
    ],
)
def test_command_actions_must_be_integer_ids_in_range(recorded, action, rule):
    data = copy.deepcopy(recorded[0])
    data["commandLog"][0]["payload"]["action"] = action
    with pytest.raises(tcgjax.ReplayError, match=rf"commandLog\[0\]\.payload\.action: .*{rule}"):
        replay.run(data)


def test_command_fields_are_checked(recorded):
    cases = [
        (lambda c: c.update(timestamp=5), r"commandLog\[1\]\.timestamp: 5 != its index 1"),
        (lambda c: c.update(timestamp="1"), r"commandLog\[1\]\.timestamp: expected an int"),
        (lambda c: c["payload"].update(actionName="end_turn"), r"commandLog\[1\].*actionName"),
        (lambda c: c["payload"].pop("actionName"), r"commandLog\[1\]\.payload\.actionName: miss"),
        (lambda c: c["payload"].update(extra=1), r"commandLog\[1\]\.payload\.extra: unknown"),
        (lambda c: c.update(payload=[1]), r"commandLog\[1\]\.payload: expected an object"),
        (lambda c: c.pop("timestamp"), r"commandLog\[1\]\.timestamp: missing"),
    ]
    for edit, message in cases:
        data = copy.deepcopy(recorded[0])
        edit(data["commandLog"][1])
        with pytest.raises(tcgjax.ReplayError, match=message):
            replay.run(data)
    data = copy.deepcopy(recorded[0])
    data["commandLog"][1] = "end_turn"
    with pytest.raises(tcgjax.ReplayError, match=r"commandLog\[1\]: expected a command object"):
        replay.run(data)


def test_final_fields_are_checked(recorded):
    for edit, message in [
        ({"stepCount": "6"}, r"replay\.final\.stepCount: expected an int"),
        ({"sha256": 0}, r"replay\.final\.sha256: expected a hex string"),
        ({"extra": 0}, r"replay\.final\.extra: unknown field"),
        ({"stepCount": 5}, "differs"),
    ]:
        data = copy.deepcopy(recorded[0])
        data["final"].update(edit)
        with pytest.raises(tcgjax.ReplayError, match=message):
            replay.run(data)


def test_tape_keys_raw_or_typed_and_in_the_uint32_range():
    raw = jax.random.PRNGKey(3)
    expected = [int(v) for v in raw]
    assert core_replay.key_to_tape(raw) == expected
    assert core_replay.key_to_tape(jax.random.key(3)) == expected  # a typed key
    top = 2**32 - 1
    assert [int(v) for v in core_replay._tape_key([[0, top]], 0, "$")] == [0, top]
    with pytest.raises(tcgjax.ReplayError, match=r"randomTape.values\[0\]"):
        core_replay._tape_key([[0, 2**32]], 0, "$")


# --------------------------------------------------------------------------------------------------
# Move names: format 2 names each move in its position; older recordings (format 1, no
# replayFormat field) hold the phase-free id names and replay as they were written


def _as_format_1(data):
    """``data`` as recorded before moves were named by position: no replayFormat field, no
    digests of the record (format 3's ``final.record``), every actionName the id's phase-free
    name."""
    old = copy.deepcopy(data)
    del old["replayFormat"]
    del old["final"]["record"]
    for command in old["commandLog"]:
        command["payload"]["actionName"] = ACTIONS.name(command["payload"]["action"])
    return old


def test_an_older_recording_with_phase_free_names_replays(recorded):
    data, final = recorded
    old = _as_format_1(data)
    assert [c["payload"]["actionName"] for c in old["commandLog"]][:3] == [
        "play[0]",
        "attack[0]",
        "end_turn",
    ]
    assert_states_equal(replay.run(old), final, "format 1")
    old["replayFormat"] = 1  # the same, said explicitly
    assert_states_equal(replay.run(old), final, "explicit format 1")


def test_each_format_accepts_only_its_own_names(recorded):
    data = recorded[0]
    # A current recording holding an old name: refused, naming the entry, the field and the
    # name expected there.
    renamed = copy.deepcopy(data)
    renamed["commandLog"][1]["payload"]["actionName"] = "attack[0]"
    message = (
        r"^replay\.commandLog\[1\]\.payload\.actionName: 'attack\[0\]' does not name action 6 "
        r"here: its name in this position \(env\.describe_action\) is 'attack with Wolf \(board 0\)'"
    )
    with pytest.raises(tcgjax.ReplayError, match=message):
        replay.run(renamed)
    # An older recording holding a current name (or any other text): refused too.
    old = _as_format_1(data)
    old["commandLog"][1]["payload"]["actionName"] = "attack with Wolf (board 0)"
    with pytest.raises(tcgjax.ReplayError, match=r"commandLog\[1\].*format-1.*'attack\[0\]'"):
        replay.run(old)


@pytest.mark.parametrize("value", [0, 4, "2", 2.0, True, None])
def test_an_unknown_replay_format_is_refused(recorded, value):
    data = copy.deepcopy(recorded[0])
    data["replayFormat"] = value
    with pytest.raises(tcgjax.ReplayError, match=r"^replay\.replayFormat: .* not a known format"):
        replay.run(data)


def test_the_recorded_name_is_computed_before_the_move(duel_env):
    # Playing the last card of the hand: after the move, hand 0 is empty; the name is the card's.
    s = build_state(duel_env, [{"hand": ["goblin"], "mana": 1}, {}])
    rec = replay.Recorder(duel_env, s)
    after = rec.step(ACTIONS.encode("play", 0), jax.random.PRNGKey(0))
    assert rec.export()["commandLog"][0]["payload"]["actionName"] == "play Goblin (hand 0)"
    assert duel_env.describe_action(after, ACTIONS.encode("play", 0)) == (
        "play (nothing at hand 0)"
    )
