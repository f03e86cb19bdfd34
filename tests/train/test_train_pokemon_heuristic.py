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


@pytest.fixture(scope="module")
def league():
    """The heuristic of an env with the Gardevoir ex deck against the Miraidon ex deck: the name
    of its move in a situation (``build_state`` keywords)."""
    env = tcgjax.make("pokemon", decks=("gardevoir_ex", "miraidon_ex"))
    template = jax.jit(env.init)(KEY)
    finalize = jax.jit(env.finalize)
    policy = jax.jit(heuristic_policy(env))

    def choose(players, edit=None, **kw):
        game = build_state(env.rules, players, **kw)
        game = edit(env.rules, game) if edit else game
        state = finalize(template.replace(game=game))
        env.validate(state)
        return env.action_name(int(policy(state, KEY)))

    return choose


def test_plays_a_supporter_that_replaces_the_hand_after_the_hand(league):
    def choose(hand):
        return league([{"hand": hand, "slots": [["swsh12-67"]]}, {"slots": [["swsh12-56"]]}])

    # Professor's Research would discard Ralts and the Nest Ball: they come first.
    research, nest_ball, ralts = "sv1-189", "sv1-181", "swsh12-67"
    assert choose([research, ralts, nest_ball]) == f"play[{ralts}]"
    assert choose([research, nest_ball]) == f"play[{nest_ball}]"
    assert choose([research]) == f"play[{research}]"
    # Arven searches (it keeps the hand): it still comes first.
    assert choose(["sv1-166", ralts]) == "play[sv1-166]"


def test_copies_the_opponents_strongest_attack(league):
    from tcgjax.core.board import set_turn
    from tcgjax.core.effects import Selection
    from tcgjax.games.pokemon import effects as E
    from tcgjax.games.pokemon import rules as R

    def copying(rules, game):  # Genome Hacking waits on its choice (its 0 damage dealt)
        mew = int(rules.slot_view(game)["card"][0, 0])
        row = 1  # Mew ex's rows: Restart (the Ability), then Genome Hacking's copy_attack
        return game.replace(
            selection=Selection.open(mew, row, 0, 1, R.PHASE["main"], stage=E.ATTACK_STAGE),
            board=set_turn(game.board, phase=R.PHASE["select"]),
            effect_kind=jnp.int8(E.ATTACK), effect_player=jnp.int8(0),
            effect_card=jnp.int16(mew), effect_slot=jnp.int8(0), attack_index=jnp.int8(0),
            damage_dealt=jnp.bool_(True),
        )  # fmt: skip

    mew = ["sv3pt5-151", "sve-5", "sve-5", "sve-5"]
    players = [
        {"slots": [mew]},
        {"slots": [["swsh12-56"]]},
    ]  # Zeraora: Battle Claw 30, Mach Bolt 80
    assert league(players, copying) == "attack[1]"
