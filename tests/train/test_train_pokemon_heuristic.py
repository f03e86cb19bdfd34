"""The Pokémon heuristic opponent (train/opponents.py) in explicit situations: it grows the board
before it attacks, attacks with its strongest legal attack, promotes its healthiest Pokémon."""

import jax
import pytest

import tcgjax
from tcgjax.games.pokemon.scenario import build_state
from train.opponents import heuristic_policy

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
