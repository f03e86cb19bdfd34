"""``Env.describe_action`` (a move's name in a state) against ``Env.action_name`` (an id's
phase-free name): the core's contract, shown on the duel and the deployment wargame. The card
games' own names are tested in ``tests/games/<game>/test_<game>_move_names.py``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.games.duel.rules import ACTIONS
from tcgjax.games.duel.scenario import build_state

KEY = jax.random.PRNGKey(0)


def test_a_move_is_named_by_its_card_in_the_state_and_an_id_by_its_range(duel_env):
    s = build_state(duel_env, [{"hand": ["goblin", "spark"], "board": ["wolf"], "mana": 2}, {}])
    names = [duel_env.describe_action(s, a) for a in range(duel_env.num_actions)]
    assert names == [
        "play Goblin (hand 0)",
        "cast Spark (hand 1)",
        "play (nothing at hand 2)",
        "play (nothing at hand 3)",
        "play (nothing at hand 4)",
        "play (nothing at hand 5)",
        "attack with Wolf (board 0)",
        "attack (nothing at board 1)",
        "attack (nothing at board 2)",
        "end the turn",
    ]
    # The phase-free names stay what they were: the same in every state.
    assert [duel_env.action_name(a) for a in (0, 6, 9)] == ["play[0]", "attack[0]", "end_turn"]
    # The other player's turn names their cards.
    theirs = build_state(duel_env, [{}, {"hand": ["dragon"], "mana": 5}], active=1)
    assert duel_env.describe_action(theirs, ACTIONS.encode("play", 0)) == "play Dragon (hand 0)"


def test_describe_action_takes_one_concrete_game_and_any_integer_id(duel_env):
    s = duel_env.init(KEY)
    assert duel_env.describe_action(s, -1) == "<out of range: -1>" == duel_env.action_name(-1)
    assert duel_env.describe_action(s, 10) == "<out of range: 10>"
    assert duel_env.describe_action(s, jnp.int32(9)) == "end the turn"  # a 0-d array
    assert duel_env.describe_action(s, np.int64(9), viewer=1) == "end the turn"
    batch = jax.vmap(duel_env.init)(jax.random.split(KEY, 2))
    with pytest.raises(ValueError, match="describe_action takes one game"):
        duel_env.describe_action(batch, 9)
    for viewer in (2, -1, True, 0.0):
        with pytest.raises(ValueError, match="viewer"):
            duel_env.describe_action(s, 9, viewer=viewer)
    # The viewer is named, never the third positional argument (an id followed by a player
    # index reads as two ids).
    with pytest.raises(TypeError, match="positional"):
        duel_env.describe_action(s, 9, 1)


def test_a_game_without_names_of_its_own_falls_back_to_the_id_names():
    env = tcgjax.make("deployment")  # its ids name a unit type and a hex: no card to name
    s = jax.jit(env.init)(KEY)
    for action in np.flatnonzero(np.asarray(s.legal_action_mask))[:5].tolist() + [0]:
        assert env.describe_action(s, action) == env.action_name(action)
        assert env.describe_action(s, action, viewer=1) == env.action_name(action)


def test_illegal_action_messages_name_the_move_in_the_state(duel_env):
    s = build_state(duel_env, [{"hand": ["goblin"], "board": ["wolf"], "mana": 0}, {}])
    with pytest.raises(tcgjax.IllegalActionError) as info:
        tcgjax.checked_step(duel_env, s, ACTIONS.encode("play", 0), KEY)
    assert "action 0 (play Goblin (hand 0)) by player1 is illegal" in str(info.value)
    with pytest.raises(tcgjax.IllegalActionError) as info:
        tcgjax.checked_step(duel_env, s, ACTIONS.encode("attack", 1), KEY)
    assert "action 7 (attack (nothing at board 1)) by player1" in str(info.value)
