"""Issue #33: bad input at the core entry points (``from_json``, ``make``, ``replay.to_html``)
raises a named error (a ``TcgjaxError``) naming the field, never a raw ``TypeError``,
``OverflowError``, ``ValueError`` or ``RecursionError``."""

import copy
import json

import jax
import pytest

import tcgjax
from tcgjax import replay
from tcgjax.core.errors import ConfigError, OutputError, PlayerError, SerializationError

KEY = jax.random.PRNGKey(0)


@pytest.fixture(scope="module")
def duel_json(duel_env):
    return json.loads(tcgjax.to_json(duel_env, jax.jit(duel_env.init)(KEY)))


def _edited(data, path, value):
    data = copy.deepcopy(data)
    *parents, last = path.split(".")
    target = data
    for part in parents:
        target = target[part]
    target[last] = value
    return json.dumps(data)


# --------------------------------------------------------------------------------------------------
# from_json


@pytest.mark.parametrize(
    "path",
    [
        "players.player1",
        "players.player1.attributes",
        "cards.card_001.attributes",
        "turnState",
        "env",
    ],
)
@pytest.mark.parametrize("value", [5, None, True, [], "life"])
def test_a_container_that_is_not_an_object_is_named(duel_env, duel_json, path, value):
    with pytest.raises(SerializationError, match=rf"^{path}: expected an object, got "):
        tcgjax.from_json(duel_env, _edited(duel_json, path, value))


@pytest.mark.parametrize(
    "path",
    [
        "cards.card_001.position",
        "cards.card_001.attributes.exhausted",
        "players.player2.attributes.life",
        "version",
        "turnState.turnNumber",
        "env.stepCount",
        "env.error",
    ],
)
@pytest.mark.parametrize("value", [2**70, -(2**70), 2**63, 2**31])
def test_integers_beyond_the_field_range_are_named(duel_env, duel_json, path, value):
    with pytest.raises(SerializationError, match=rf"^{path}: {value} is outside the int\d+ range"):
        tcgjax.from_json(duel_env, _edited(duel_json, path, value))


def test_an_integer_of_5000_digits_is_refused(duel_env, duel_json):
    text = _edited(duel_json, "version", "HUGE").replace('"HUGE"', "9" * 5000)
    with pytest.raises(SerializationError, match=r"^\$: not valid JSON: .*digits"):
        tcgjax.from_json(duel_env, text)


@pytest.mark.parametrize("opening", ["[", '{"a": '])
def test_json_nested_100k_deep_is_refused(duel_env, opening):
    closing = "]" if opening == "[" else "}"
    text = opening * 100_000 + "1" + closing * 100_000
    with pytest.raises(SerializationError, match=r"^\$: not valid JSON: .*nested too deep"):
        tcgjax.from_json(duel_env, text)


def test_bytes_that_are_not_utf8_are_refused(duel_env):
    with pytest.raises(SerializationError, match=r"^\$: not valid JSON"):
        tcgjax.from_json(duel_env, b"\xff{}")


@pytest.mark.parametrize("name", [None, "alice", "player2", ["player1", 0]], ids=repr)
def test_a_player_name_other_than_its_id_is_refused(duel_env, duel_json, name):
    """A state holds no player names: ``name`` was never read, so anything passed silently."""
    with pytest.raises(SerializationError, match=r"^players\.player1\.name: .* != 'player1'"):
        tcgjax.from_json(duel_env, _edited(duel_json, "players.player1.name", name))


# --------------------------------------------------------------------------------------------------
# make


@pytest.mark.parametrize("game", ["digimon", "pokemon"])
@pytest.mark.parametrize("decks", [5, None, True, 1.5])
def test_decks_that_are_not_two_decks_are_named(game, decks):
    with pytest.raises(ConfigError, match=rf"^{game}: option decks={decks!r} must be two decks"):
        tcgjax.make(game, decks=decks)


@pytest.mark.parametrize("env_id", [[], {}, ["duel"]])
def test_an_env_id_that_is_not_a_string_is_named(env_id):
    with pytest.raises(ConfigError, match=r"env id .* available"):
        tcgjax.make(env_id)


def test_bad_decks_through_a_replay_are_a_replay_error():
    fake = {
        "envId": "digimon",
        "envVersion": "0",
        "options": {"decks": 5},
        "initialState": {},
        "commandLog": [],
        "randomTape": {"values": [], "index": 0},
    }
    with pytest.raises(tcgjax.ReplayError, match=r"cannot make the env: .*decks=5"):
        replay.run(fake, verify=False)


# --------------------------------------------------------------------------------------------------
# replay.to_html


@pytest.fixture(scope="module")
def short_replay(duel_env):
    rec = replay.Recorder(duel_env, jax.jit(duel_env.init)(KEY))
    rec.step(int(rec.state.legal_action_mask.argmax()), KEY)
    return json.loads(json.dumps(rec.export()))


def test_replay_options_with_keys_that_are_not_names_are_named(short_replay):
    data = copy.deepcopy(short_replay)
    data["options"] = {1: "x"}
    with pytest.raises(tcgjax.ReplayError, match=r"^replay\.options: expected an object of env"):
        replay.run(data)


@pytest.mark.parametrize(
    "field", ["timestamp", "action"], ids=["commandLog[0].timestamp", "payload.action"]
)
def test_an_integer_too_long_to_print_is_named(duel_env, short_replay, field):
    """A Python int of 5000 digits (a replay built in Python: JSON text cannot hold one) has no
    ``repr``; the message describes it instead of failing to print it."""
    data = copy.deepcopy(short_replay)
    command = data["commandLog"][0]
    (command if field == "timestamp" else command["payload"])[field] = 10**5000
    with pytest.raises(tcgjax.ReplayError, match=rf"commandLog\[0\].*{field}: .*int too large"):
        replay.run(data, duel_env)


@pytest.mark.parametrize("viewer", [5, -1, True, 0.0, "1"])
def test_to_html_names_a_viewer_that_is_not_a_player(duel_env, short_replay, tmp_path, viewer):
    out = tmp_path / "page.html"
    with pytest.raises(PlayerError, match=rf"viewer={viewer!r}"):
        replay.to_html(short_replay, out, env=duel_env, viewer=viewer)
    assert not out.exists()


def test_to_html_names_an_output_path_it_cannot_write(duel_env, short_replay, tmp_path):
    out = tmp_path / "missing" / "page.html"
    with pytest.raises(OutputError, match=rf"^{out}: cannot write the replay page: ") as info:
        replay.to_html(short_replay, out, env=duel_env)
    assert isinstance(info.value, tcgjax.TcgjaxError) and isinstance(info.value, OSError)
    with pytest.raises(OutputError, match=rf"^{tmp_path}: cannot write the replay page: "):
        replay.to_html(short_replay, tmp_path, env=duel_env)  # a directory
    with pytest.raises(OutputError, match=r"^to_html\(path=5\): expected a file path"):
        replay.to_html(short_replay, 5, env=duel_env)
