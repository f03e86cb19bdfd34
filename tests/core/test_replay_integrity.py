"""Issue #33: a replay's digest covers the whole record (format 3), and the random tape is read
whole: an edit anywhere in a recording is refused naming the edited field, even one that leaves
the final state unchanged (the duel draws no random key after its setup, so its tape values and
several initial fields never reach the final state)."""

import copy
import json

import jax
import pytest

import tcgjax
from tcgjax import replay
from tcgjax.core import replay as core_replay
from tcgjax.testing import assert_states_equal

PARTS = (
    "replayFormat",
    "envId",
    "envVersion",
    "options",
    "initialState",
    "commandLog",
    "randomTape",
)


@pytest.fixture(scope="module")
def recorded(duel_env):
    """A short duel (the first legal id, then the last, alternately; key 100 + i for move i)."""
    rec = replay.Recorder(duel_env, jax.jit(duel_env.init)(jax.random.PRNGKey(1)))
    for i in range(6):
        legal = [a for a in range(duel_env.num_actions) if bool(rec.state.legal_action_mask[a])]
        rec.step(legal[0] if i % 2 == 0 else legal[-1], jax.random.PRNGKey(100 + i))
    return json.loads(json.dumps(rec.export())), rec.state


def test_a_recording_is_format_3_with_a_digest_of_every_part(recorded):
    data, final = recorded
    assert data["replayFormat"] == core_replay.REPLAY_FORMAT == 3
    assert set(data["final"]) == {"stepCount", "sha256", "record"}
    assert tuple(data["final"]["record"]) == PARTS
    for value in data["final"]["record"].values():
        assert isinstance(value, str) and len(value) == 64 and int(value, 16) >= 0
    assert_states_equal(replay.run(data), final, "format 3")


def _tape_value_at_a_quiet_step(data):
    data["randomTape"]["values"][2] = [1, 2]  # the duel's step uses no key: same final state


def _extra_tape_value(data):
    data["randomTape"]["values"].append([7, 7])


def _key_prepended_and_index_moved(data):
    data["randomTape"]["values"].insert(0, [7, 7])
    data["randomTape"]["index"] = 1


def _error_code_of_the_initial_state(data):
    data["initialState"]["env"]["error"] = 2  # the first step overwrites it


def _max_steps_option(data):
    data["options"]["max_steps"] -= 1  # still far above the game's length


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_tape_value_at_a_quiet_step, r"^replay\.randomTape: differs from its digest"),
        (_key_prepended_and_index_moved, r"^replay\.randomTape: differs from its digest"),
        (_error_code_of_the_initial_state, r"^replay\.initialState: differs from its digest"),
        (_max_steps_option, r"^replay\.options: differs from its digest"),
        (_extra_tape_value, r"^replay\.randomTape\.values: 7 keys .* 6 commands"),
    ],
)
def test_an_edit_that_keeps_the_final_state_is_refused_naming_the_field(recorded, edit, message):
    data = copy.deepcopy(recorded[0])
    edit(data)
    with pytest.raises(tcgjax.ReplayError, match=message):
        replay.run(data)
    with pytest.raises(tcgjax.ReplayError, match=message):
        list(replay.frames(data))


def test_a_tape_must_be_read_whole_even_without_verification(recorded):
    data = copy.deepcopy(recorded[0])
    _extra_tape_value(data)
    with pytest.raises(tcgjax.ReplayError, match=r"^replay\.randomTape\.values: .*whole"):
        replay.run(data, verify=False)
    # An older recording too (format 2, no record digests).
    data = _as_format_2(recorded[0])
    _extra_tape_value(data)
    with pytest.raises(tcgjax.ReplayError, match=r"^replay\.randomTape\.values: .*whole"):
        replay.run(data)


def _as_format_2(data):
    """``data`` as recorded before format 3: the same, with no digests of the record."""
    old = copy.deepcopy(data)
    old["replayFormat"] = 2
    del old["final"]["record"]
    return old


def test_format_2_recordings_replay_and_each_format_has_its_own_final(recorded):
    data, final = recorded
    assert_states_equal(replay.run(_as_format_2(data)), final, "format 2")
    no_record = copy.deepcopy(data)
    del no_record["final"]["record"]
    with pytest.raises(tcgjax.ReplayError, match=r"^replay\.final\.record: missing field"):
        replay.run(no_record)
    extra = _as_format_2(data)
    extra["final"]["record"] = data["final"]["record"]
    with pytest.raises(tcgjax.ReplayError, match=r"^replay\.final\.record: unknown field"):
        replay.run(extra)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ([], r"^replay\.final\.record: expected an object"),
        ({}, r"^replay\.final\.record\.replayFormat: missing field"),
        ({"extra": "0"}, r"^replay\.final\.record\.extra: unknown field"),
    ],
)
def test_the_record_digests_are_checked_field_by_field(recorded, record, message):
    data = copy.deepcopy(recorded[0])
    if isinstance(record, dict) and "extra" in record:
        record = {**data["final"]["record"], **record}
    data["final"]["record"] = record
    with pytest.raises(tcgjax.ReplayError, match=message):
        replay.run(data)


def test_a_digest_that_is_not_a_sha256_is_named(recorded):
    data = copy.deepcopy(recorded[0])
    data["final"]["record"]["commandLog"] = 5
    with pytest.raises(tcgjax.ReplayError, match=r"^replay\.final\.record\.commandLog: expected"):
        replay.run(data)
