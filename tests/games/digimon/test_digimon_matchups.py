"""Mixed decks: ``decks`` as a list of pairs, one matchup drawn per game (issue #36, point 6).

The draw happens in ``init``; the game's matchup is ``state.game.deck_pair`` (``env.matchup``), the
players hold that matchup's decks (eggs and main deck), ``validate`` checks it, JSON states keep
it, and a single pair draws nothing (its games are those of rules built without pairs).
"""

import collections
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.core.errors import ConfigError, InvalidStateError
from tcgjax.core.serialization import from_json, to_json
from tcgjax.games.digimon import cards as C
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.decks import load_deck
from tcgjax.games.digimon.scenario import build_state

PAIRS = [["st3", "st4"], ["st1", "st2"], ["st5", "st5"]]
GAMES = 36


@pytest.fixture(scope="module")
def mixed():
    return tcgjax.make("digimon", decks=PAIRS)


@pytest.fixture(scope="module")
def starts(mixed):
    return jax.jit(jax.vmap(mixed.init))(jax.random.split(jax.random.PRNGKey(5), GAMES))


def _one(states, game):
    return jax.tree.map(lambda x: x[game], states)


def _held(env, state, player):
    board = state.game.board
    defs = np.asarray(board.definition)[np.asarray(board.owner) == player]
    return collections.Counter(env.rules.cards.ids[int(d)] for d in defs)


def test_matchups_are_named_and_the_pool_holds_each_deck_once(mixed):
    assert mixed.matchups == ("st3 vs st4", "st1 vs st2", "st5 vs st5")
    assert mixed.rules.pairs == ((0, 1), (2, 3), (4, 4))
    assert [d.name for d in mixed.decks].count(mixed.decks[4].name) == 1
    assert mixed.options["decks"] == PAIRS


def test_each_game_holds_the_eggs_and_main_deck_of_its_drawn_matchup(mixed, starts):
    drawn = np.asarray(jax.vmap(mixed.matchup)(starts))
    assert np.array_equal(drawn, np.asarray(starts.game.deck_pair))
    assert set(drawn.tolist()) == {0, 1, 2}
    for game in range(GAMES):
        one = _one(starts, game)
        for player in range(2):
            eggs, main = mixed.rules.seat_deck(int(drawn[game]), player)
            assert _held(mixed, one, player) == collections.Counter(eggs + main)
        if game % 6 == 0:
            mixed.validate(one)


def test_drawn_games_play_and_stay_valid(mixed, starts):
    from tcgjax.wrappers import random_legal_action

    @jax.jit
    def play(state, key):
        def body(state, key):
            k_act, k_step = jax.random.split(key)
            action = random_legal_action(k_act, state.legal_action_mask)
            state = jax.vmap(mixed.step)(state, action, jax.random.split(k_step, GAMES))
            return state, state.error

        return jax.lax.scan(body, state, jax.random.split(key, 30))

    end, errors = play(starts, jax.random.PRNGKey(2))
    assert not np.asarray(errors).any()
    assert np.array_equal(np.asarray(end.game.deck_pair), np.asarray(starts.game.deck_pair))
    for game in range(0, GAMES, 6):
        mixed.validate(_one(end, game))


def test_a_json_state_keeps_its_matchup(mixed, starts):
    game = int(np.flatnonzero(np.asarray(starts.game.deck_pair) == 2)[0])
    one = _one(starts, game)
    text = to_json(mixed, one)
    assert json.loads(text)["game"]["deck_pair"] == 2
    back = from_json(mixed, text)
    assert int(back.game.deck_pair) == 2
    assert np.array_equal(
        np.asarray(back.game.board.definition), np.asarray(one.game.board.definition)
    )


def test_validate_refuses_cards_of_another_matchup_and_an_unknown_one(mixed, starts):
    game = int(np.flatnonzero(np.asarray(starts.game.deck_pair) == 1)[0])
    one = _one(starts, game)  # st1 vs st2, relabelled st3 vs st4
    with pytest.raises(InvalidStateError, match="players.player1: does not hold exactly"):
        mixed.validate(one.replace(game=one.game.replace(deck_pair=jnp.int8(0))))
    with pytest.raises(InvalidStateError, match=r"game.deck_pair.*3 outside \[0, 3\)"):
        mixed.validate(one.replace(game=one.game.replace(deck_pair=jnp.int8(3))))


def test_a_single_pair_draws_nothing():
    env = tcgjax.make("digimon", decks=("st3", "st4"))
    keys = jax.random.split(jax.random.PRNGKey(9), 3)
    states = jax.vmap(env.init)(keys)
    assert np.asarray(states.game.deck_pair).tolist() == [0, 0, 0]
    registry = C.load_cards()
    decks = [load_deck(d, registry) for d in ("st3", "st4")]
    plain = R.DigimonRules(registry, [(d.eggs, d.main) for d in decks])
    direct = jax.vmap(plain.init)(keys)
    for a, b in zip(jax.tree.leaves(direct), jax.tree.leaves(states.game), strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_build_state_places_the_cards_of_the_given_matchup(mixed):
    me, opponent = {"hand": ["ST1-03"]}, {"hand": ["ST2-03"]}
    state = build_state(mixed.rules, [me, opponent], deck_pair=1)
    assert int(state.deck_pair) == 1
    mixed.rules.validate(state)
    with pytest.raises(ConfigError, match="player 1: more 'ST1-03' than their decks hold"):
        build_state(mixed.rules, [me, opponent], deck_pair=0)
    with pytest.raises(ConfigError, match=r"deck_pair=3 is not a matchup index in \[0, 3\)"):
        build_state(mixed.rules, [{}, {}], deck_pair=3)


def test_decks_of_one_seat_need_as_many_digi_eggs():
    registry = C.load_cards()
    st1 = load_deck("st1", registry)
    three_eggs = (st1.eggs[:3], st1.main)
    decks = [(st1.eggs, st1.main), three_eggs, (st1.eggs, st1.main)]
    with pytest.raises(
        ConfigError, match="pairs\\[1\\]: player1's deck has 3 Digi-Eggs, the first"
    ):
        R.DigimonRules(registry, decks, pairs=[(0, 2), (1, 2)])
    # A pool of differently sized decks is fine as long as each seat's decks agree.
    rules = R.DigimonRules(registry, decks, pairs=[(1, 0), (1, 2)])
    assert rules.cards_per_player == (53, 54)
    with pytest.raises(ConfigError, match=r"pairs\[0\] = \(0, 3\): two deck indices in \[0, 3\)"):
        R.DigimonRules(registry, decks, pairs=[(0, 3)])
    with pytest.raises(ConfigError, match="expected 2 decks \\(a larger pool needs pairs\\)"):
        R.DigimonRules(registry, decks)
