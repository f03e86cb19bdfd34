"""The duel's names of moves (``env.describe_action``) in a recorded game: each names the card
the move actually played or attacked with, in the position it was made in."""

import json
import re

import jax
import numpy as np
import pytest

from tcgjax.games.duel import rules
from tcgjax.replay import Recorder, frames

POWER = {"Spark": 2, "Goblin": 1, "Wolf": 2, "Knight": 3, "Fireball": 4, "Dragon": 6}


@pytest.fixture(scope="module")
def game(duel_env):
    """A whole duel from key 3, each move the highest legal id (attacks before plays), keys
    fixed: the replay and every position of it."""
    recorder = Recorder(duel_env, jax.jit(duel_env.init)(jax.random.PRNGKey(3)))
    while not bool(recorder.state.terminated | recorder.state.truncated):
        legal = np.flatnonzero(np.asarray(recorder.state.legal_action_mask))
        best = legal[-2] if len(legal) > 1 else legal[-1]  # anything but end_turn when possible
        recorder.step(int(best), jax.random.PRNGKey(len(recorder._commands)))
    replay = json.loads(json.dumps(recorder.export()))
    return replay, [state for _, state, _ in frames(replay)]


def _names_in(board, zone) -> list[str]:
    cards = np.flatnonzero(np.asarray(board.zone) == zone)
    registry = rules.DuelRules().cards
    return sorted(
        registry.definition(registry.ids[int(board.definition[c])])["name"] for c in cards
    )


def test_every_move_names_the_card_it_moved(duel_env, game):
    replay, states = game
    seen = set()
    for i, command in enumerate(replay["commandLog"]):
        before, after = states[i], states[i + 1]
        name, action = command["payload"]["actionName"], command["payload"]["action"]
        me = int(before.current_player)
        assert name == duel_env.describe_action(before, action)
        if m := re.fullmatch(r"(play|cast) (\w+) \(hand (\d)\)", name):
            verb, card, position = m.groups()
            assert int(position) == action - rules.ACTIONS.start("play")
            # The named card left the hand for the board (a creature) or the discard (a spell).
            where = "board" if verb == "play" else "discard"
            gained = _names_in(after.game.board, int(rules.zone_of(where, me)))
            had = _names_in(before.game.board, int(rules.zone_of(where, me)))
            assert len(gained) == len(had) + 1 and gained.count(card) == had.count(card) + 1
            seen.add(verb)
        elif m := re.fullmatch(r"attack with (\w+) \(board (\d)\)", name):
            card = m.group(1)
            lost = [
                int(s.game.board.player_attributes[1 - me, rules.LIFE]) for s in (before, after)
            ]
            assert lost[0] - lost[1] == POWER[card]
            seen.add("attack")
        else:
            assert name == "end the turn" and action == rules.ACTIONS.encode("end_turn")
            seen.add("end")
    assert seen == {"play", "cast", "attack", "end"}, "the game plays every kind of move"


def test_the_legal_moves_of_each_position_have_distinct_names(duel_env, game):
    _, states = game
    for state in states[:-1]:
        legal = np.flatnonzero(np.asarray(state.legal_action_mask)).tolist()
        names = [duel_env.describe_action(state, a) for a in legal]
        assert len(set(names)) == len(names), names
