"""The Pokémon heuristic opponent (train/opponents.py) in explicit situations: it grows the board
before it attacks, attacks with its strongest legal attack, promotes its healthiest Pokémon."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.games.pokemon.scenario import build_state
from tcgjax.train.config import load_config
from tcgjax.train.opponents import heuristic_policy
from tcgjax.train.ppo import make_network

KEY = jax.random.PRNGKey(0)


@pytest.fixture(scope="module")
def setup():
    env = tcgjax.make("pokemon", decks=("tapu_koko", "tapu_koko"))
    template = jax.jit(env.init)(KEY)
    finalize = jax.jit(env.finalize)
    policy = jax.jit(heuristic_policy(env))

    def choose(players, **kw):
        game = build_state(env.rules, players, **kw)
        state = finalize(template.replace(game=game))
        return env.action_name(int(policy(state, KEY)))

    return choose


def test_grows_the_board_before_attacking(setup):
    active = ["sv3-67", "sve-4", "sve-4"]  # Tynamo: both attacks paid
    hand = ["sv3-68", "sve-4", "sv2-78", "sv1-180"]
    assert setup([{"hand": hand, "slots": [active]}, {"slots": [["sv5-58"]]}]) == (
        "evolve[sv3-68->active]"
    )
    hand = ["sve-4", "sv2-78"]
    assert setup([{"hand": hand, "slots": [active]}, {"slots": [["sv5-58"]]}]) == ("play[sv2-78]")
    # Only attacks and the end of the turn left: the strongest attack (Tiny Bolt, 30).
    assert setup([{"slots": [active]}, {"slots": [["sv5-58"]]}]) == "attack[1]"


def test_promotes_the_healthiest_benched_pokemon(setup):
    game = {"slots": [None, ["sv3-67"], ["sv2-78"]], "damage": {2: 10}}
    choice = setup([game, {"slots": [["sv5-58"]]}], phase="promote")
    # Tadbulb (60 HP, 50 left) against Tynamo (40 HP): bench slot 2.
    assert choice == "select_slot[own bench2]"


@pytest.mark.parametrize("encoding", ["v2.1", "v1"])
def test_card_embedding_network_reads_the_pokemon_observation(encoding):
    """The shipped config's network over either encoding: the hand's per-definition counts pool
    the embedding table; v1 also places each slot's registry index (column 0)."""
    config = load_config("pokemon", [f"env_options.encoding={encoding}"])
    assert config.network == "card_embedding"
    env = tcgjax.make("pokemon", **config.env_options)
    network = make_network(config, env)
    assert network.card_count_slices == ("my_hand", "my_looking", "my_discard", "opponent_discard")
    assert network.card_positions == ((("board", 0),) if encoding == "v1" else ())
    if encoding == "v1":  # raw HP and MaxHP (board columns 1, 2) get v2.1's 1/300; nothing else
        scale = np.asarray(network.input_scale)
        board = env.observation_layout.slices["board"][0]
        hp_columns = board + 14 * np.arange(12)[:, None] + np.array([1, 2])
        np.testing.assert_allclose(scale[hp_columns], 1 / 300)
        assert np.count_nonzero(scale != 1.0) == hp_columns.size
    else:
        assert network.input_scale is None
    obs = jax.jit(env.init)(KEY).observation
    params = network.init(KEY, obs)
    assert params["params"]["card_embedding"]["embedding"].shape == (env.num_card_ids, 32)
    logits, _ = network.apply(params, obs)
    # One more copy of a card in hand reaches the output through its embedding row.
    start = env.observation_layout.slices["my_hand"][0]
    held = int(jnp.argmax(obs[start : start + env.num_card_ids]))
    grads = jax.grad(lambda p: jnp.sum(network.apply(p, obs)[0]))(params)
    row = grads["params"]["card_embedding"]["embedding"][held]
    assert float(jnp.abs(row).sum()) > 0
    more = obs.at[start + held].add(1.0)
    assert not jnp.allclose(network.apply(params, more)[0], logits)


def test_plays_a_supporter_that_replaces_the_hand_after_the_hand():
    env = tcgjax.make("pokemon", decks=("miraidon_ex", "miraidon_ex"))
    policy = jax.jit(heuristic_policy(env))
    finalize = jax.jit(env.finalize)
    template = jax.jit(env.init)(KEY)

    def choose(hand):
        game = build_state(env.rules, [{"hand": hand, "slots": [["swsh12-56"]]},
                                       {"slots": [["swsh12-56"]]}])  # fmt: skip
        return env.action_name(int(policy(finalize(template.replace(game=game)), KEY)))

    # Professor's Research would discard Regieleki and the Nest Ball: they come first.
    research, nest_ball, regieleki = "sv1-190", "sv1-181", "swsh10-51"
    assert choose([research, regieleki, nest_ball]) == f"play[{regieleki}]"
    assert choose([research, nest_ball]) == f"play[{nest_ball}]"
    assert choose([research]) == f"play[{research}]"
    # Arven searches (it keeps the hand): it still comes first.
    assert choose(["sv1-166", regieleki]) == "play[sv1-166]"
