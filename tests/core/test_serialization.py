"""JSON view (engine_data_model.md SERIALISATION, decision E1): shape, exact round trip, errors."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import struct

import tcgjax
from tcgjax.core.errors import SerializationError
from tcgjax.core.serialization import tree_from_json
from tcgjax.games.duel.rules import ACTIONS
from tcgjax.games.duel.scenario import build_state
from tcgjax.testing import assert_states_equal, round_trip_states

KEY = jax.random.PRNGKey(0)


@pytest.fixture(scope="module")
def mid_game(duel_env):
    s = build_state(
        duel_env,
        [
            {"hand": ["goblin", "spark"], "board": ["wolf"], "mana": 3, "life": 9},
            {"life": 4, "board": ["knight"], "exhausted": [0]},
        ],
        turn_number=5,
    )
    step = jax.jit(duel_env.step)
    s = step(s, ACTIONS.encode("play", 0), KEY)
    return step(s, ACTIONS.encode("attack", 0), KEY)


def test_spec_shape_and_e1_ids(duel_env, mid_game):
    data = json.loads(tcgjax.to_json(duel_env, mid_game))
    assert {"players", "cards", "zones", "turnState", "version"} <= set(data)
    assert list(data["players"]) == ["player1", "player2"]
    assert list(data["cards"])[:3] == ["card_001", "card_002", "card_003"]
    assert len(data["cards"]) == 24 and "card_024" in data["cards"]
    assert "deck_player1" in data["zones"] and "hand_player2" in data["zones"]
    card = data["cards"]["card_001"]
    assert set(card) == {
        "id",
        "definitionId",
        "ownerId",
        "zoneId",
        "position",
        "visibilityOverride",
        "attributes",
    }
    assert data["zones"]["hand_player2"] == {
        "id": "hand_player2",
        "zoneTypeId": "hand",
        "ownerId": "player2",
    }
    assert data["turnState"] == {"activePlayerId": "player1", "turnNumber": 5, "phase": "main"}
    assert data["players"]["player2"]["attributes"]["life"] == 2
    assert data["version"] == int(mid_game.game.board.version)


def test_exact_round_trip_init_and_mid_game(duel_env, mid_game):
    for state in (jax.jit(duel_env.init)(KEY), mid_game):
        text = tcgjax.to_json(duel_env, state)
        back = tcgjax.from_json(duel_env, text)
        assert_states_equal(back, state, "round trip")
        assert tcgjax.to_json(duel_env, back) == text


def _mutated(env, state, mutate):
    data = json.loads(tcgjax.to_json(env, state))
    mutate(data)
    return json.dumps(data)


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d.pop("cards"), "cards"),
        (lambda d: d["cards"].pop("card_007"), "cards.card_007"),
        (lambda d: d["cards"]["card_003"].pop("zoneId"), "cards.card_003.zoneId"),
        (
            lambda d: d["cards"]["card_003"].update(zoneId="graveyard_player1"),
            "cards.card_003.zoneId",
        ),
        (
            lambda d: d["cards"]["card_003"].update(definitionId="unicorn"),
            "cards.card_003.definitionId",
        ),
        (lambda d: d["cards"]["card_003"].update(ownerId="player3"), "cards.card_003.ownerId"),
        (lambda d: d["cards"]["card_003"].update(position="top"), "cards.card_003.position"),
        (
            lambda d: d["cards"]["card_003"].update(visibilityOverride="secret"),
            "cards.card_003.visibilityOverride",
        ),
        (
            lambda d: d["cards"]["card_003"]["attributes"].update(shiny=1),
            "cards.card_003.attributes.shiny",
        ),
        (lambda d: d["cards"]["card_003"].update(id="card_004"), "cards.card_003.id"),
        (lambda d: d["cards"].update(card_099=d["cards"]["card_001"]), "cards.card_099"),
        (
            lambda d: d["players"]["player1"]["attributes"].update(life=1.5),
            "players.player1.attributes.life",
        ),
        (
            lambda d: d["players"]["player1"]["attributes"].update(life=10**6),
            "players.player1.attributes.life: 1000000 is outside the int16 range",
        ),
        (lambda d: d["zones"]["hand_player1"].update(ownerId="player2"), "zones.hand_player1"),
        (lambda d: d["turnState"].update(phase="combat"), "turnState.phase"),
        (lambda d: d["turnState"].update(activePlayerId="bob"), "turnState.activePlayerId"),
        (lambda d: d.update(version="7"), "version"),
        (lambda d: d.update(envId="pokemon"), "envId"),
        (lambda d: d.update(envVersion="0"), "envVersion"),
        (lambda d: d.update(extra=1), "extra"),
        (lambda d: d["env"].update(rewards=[0.0]), "env.rewards"),
        (lambda d: d["env"].update(terminated=1), "env.terminated"),
        (lambda d: d["env"].pop("stepCount"), "env.stepCount"),
        (lambda d: d["game"].update(winner=[0]), "game.winner"),
        (lambda d: d["game"].pop("end_reason"), "game.end_reason"),
    ],
)
def test_malformed_json_names_the_field(duel_env, mid_game, mutate, field):
    text = _mutated(duel_env, mid_game, mutate)
    with pytest.raises(tcgjax.SerializationError) as info:
        tcgjax.from_json(duel_env, text)
    assert field in str(info.value)


def test_non_dense_positions_name_the_zone(duel_env, mid_game):
    def mutate(d):
        for card in d["cards"].values():
            if card["zoneId"] == "hand_player1":
                card["position"] += 5

    with pytest.raises(tcgjax.SerializationError, match="hand_player1"):
        tcgjax.from_json(duel_env, _mutated(duel_env, mid_game, mutate))


def test_invalid_json_text(duel_env):
    with pytest.raises(tcgjax.SerializationError, match="not valid JSON"):
        tcgjax.from_json(duel_env, "{players:")
    with pytest.raises(tcgjax.SerializationError, match="expected a JSON object"):
        tcgjax.from_json(duel_env, "[1, 2]")


def test_to_json_refuses_a_batch(duel_env):
    # A batch of two states (stacked, not an eager vmap(init): that dispatches op by op, ~25 s).
    state = jax.jit(duel_env.init)(KEY)
    batch = jax.tree.map(lambda leaf: jnp.stack([leaf, leaf]), state)
    with pytest.raises(tcgjax.SerializationError, match="batch"):
        tcgjax.to_json(duel_env, batch)


def test_integers_load_at_their_dtypes_limits_and_not_beyond():
    int8 = jax.ShapeDtypeStruct((2,), jnp.int8)
    np.testing.assert_array_equal(tree_from_json([-128, 127], int8, "$.x"), [-128, 127])
    for bad in ([-129, 0], [0, 128]):
        with pytest.raises(SerializationError, match=r"^\$\.x: value outside the int8 range"):
            tree_from_json(bad, int8, "$.x")


@pytest.mark.parametrize("bad", [["1.5", "2"], [True, False]], ids=["strings", "booleans"])
def test_floats_refuse_what_is_not_a_number(bad):
    float32 = jax.ShapeDtypeStruct((2,), jnp.float32)
    with pytest.raises(SerializationError, match=r"^\$\.r: expected numbers"):
        tree_from_json(bad, float32, "$.r")
    np.testing.assert_array_equal(tree_from_json([1, 2.5], float32, "$.r"), [1.0, 2.5])


def test_the_first_missing_field_in_declared_order_is_named():
    @struct.dataclass
    class Record:
        a: jax.Array
        b: jax.Array
        c: jax.Array

    scalar = jax.ShapeDtypeStruct((), jnp.int32)
    template = Record(scalar, scalar, scalar)
    with pytest.raises(SerializationError, match=r"^\$\.a: missing field"):
        tree_from_json({"c": 0}, template, "$")
    with pytest.raises(SerializationError, match=r"^\$\.d: unknown field"):
        tree_from_json({"a": 0, "b": 0, "c": 0, "e": 0, "d": 0}, template, "$")


# --------------------------------------------------------------------------------------------------
# Many documents at once (from_json_batch) and the sweep helper (round_trip_states)


def _stack(states):
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *states)


def test_from_json_batch_equals_from_json_of_each_stacked(duel_env, mid_game):
    start = jax.jit(duel_env.init)(KEY)
    states = [start, mid_game, start]
    texts = [tcgjax.to_json(duel_env, s) for s in states]
    batch = tcgjax.from_json_batch(duel_env, texts)
    assert batch.terminated.shape == (3,)
    assert_states_equal(batch, _stack([tcgjax.from_json(duel_env, t) for t in texts]), "batch")
    assert_states_equal(batch, _stack(states), "batch against the originals")


def test_from_json_batch_names_the_document_and_the_field(duel_env, mid_game):
    good = tcgjax.to_json(duel_env, mid_game)
    bad = _mutated(duel_env, mid_game, lambda d: d["cards"]["card_003"].update(zoneId="nowhere"))
    with pytest.raises(SerializationError, match=r"^texts\[1\]: cards\.card_003\.zoneId: "):
        tcgjax.from_json_batch(duel_env, [good, bad, good])
    with pytest.raises(SerializationError, match=r"^texts\[0\]: \$: not valid JSON"):
        tcgjax.from_json_batch(duel_env, ["{", good])
    for empty in ([], good, None):
        with pytest.raises(SerializationError, match="^texts: expected a non-empty list"):
            tcgjax.from_json_batch(duel_env, empty)


def test_a_card_entry_with_its_keys_in_another_order_loads_the_same(duel_env, mid_game):
    """The quick path of a card entry takes the common layout; anything else (here the keys in
    reverse order, a player id written by the careful parser's rules) goes the careful way to
    the same state."""

    def reverse(d):
        for cid, card in list(d["cards"].items()):
            d["cards"][cid] = dict(reversed(list(card.items())))

    back = tcgjax.from_json(duel_env, _mutated(duel_env, mid_game, reverse))
    assert_states_equal(back, mid_game, "reordered keys")


def test_round_trip_states_checks_every_state_and_names_the_one_that_fails(duel_env, mid_game):
    start = jax.jit(duel_env.init)(KEY)
    grid = _stack([_stack([start, mid_game]), _stack([mid_game, start])])  # [2, 2]
    assert round_trip_states(duel_env, grid) == 4
    # A state the invariants refuse: its position in the batch and the broken field are named.
    past_the_limit = mid_game.replace(step_count=jnp.int32(duel_env.max_steps + 1))
    broken = _stack([_stack([start, mid_game]), _stack([past_the_limit, start])])
    with pytest.raises(SerializationError, match=r"^state \[1, 0\]: .*env\.stepCount"):
        round_trip_states(duel_env, broken)
    # A derived field that is not what the rules compute comes back different: named too.
    stale = mid_game.replace(observation=mid_game.observation + 1.0)
    with pytest.raises(AssertionError, match=r"state \[1\].*observation"):
        round_trip_states(duel_env, _stack([start, stale]))
