"""Mixed decks: ``decks`` as a list of pairs, one matchup drawn per game (issue #36, point 6).

The draw happens in ``init``; the game's matchup is ``state.game.deck_pair`` (``env.matchup``), the
players hold that matchup's decks, ``validate`` checks it, and a single pair draws nothing (its
games are the games of before: the recorded legal masks of ``test_pokemon_masks_recorded`` hold).
"""

import collections
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from pokemon_testlib import shared_registry, state_of

import tcgjax
from tcgjax.core.errors import ConfigError, InvalidStateError
from tcgjax.games.pokemon import rules as R
from tcgjax.games.pokemon.decks import load_deck

PAIRS = [["chien_pao", "charizard_ex"], ["tapu_koko", "melmetal_dte"], ["tapu_koko", "tapu_koko"]]
GAMES = 48


@pytest.fixture(scope="module")
def mixed():
    return tcgjax.make("pokemon", decks=PAIRS, max_turns=30)


@pytest.fixture(scope="module")
def starts(mixed):
    return jax.jit(jax.vmap(mixed.init))(jax.random.split(jax.random.PRNGKey(7), GAMES))


def _held(env, state, game, player):
    g = state.game.board
    defs = np.asarray(g.definition[game])[np.asarray(g.owner[game]) == player]
    return collections.Counter(env.rules.cards.ids[int(d)] for d in defs)


def test_matchups_are_named_by_deck_ids_and_the_pool_holds_each_deck_once(mixed):
    assert mixed.matchups == (
        "chien_pao vs charizard_ex",
        "tapu_koko vs melmetal_dte",
        "tapu_koko vs tapu_koko",
    )
    assert [d.source for d in mixed.decks].count(mixed.decks[2].source) == 1
    assert mixed.rules.pairs == ((0, 1), (2, 3), (2, 2))
    assert mixed.options["decks"] == PAIRS


def test_each_game_holds_the_decks_of_its_drawn_matchup(mixed, starts):
    drawn = np.asarray(jax.vmap(mixed.matchup)(starts))
    assert np.array_equal(drawn, np.asarray(starts.game.deck_pair))
    assert set(drawn.tolist()) == {0, 1, 2}  # 48 games draw every one of 3 matchups
    for game in range(GAMES):
        for player in range(2):
            deck = mixed.rules.seat_deck(int(drawn[game]), player)
            assert _held(mixed, starts, game, player) == collections.Counter(deck.cards)


def test_drawn_games_are_valid_and_stay_valid_under_random_play(mixed, starts):
    from tcgjax.wrappers import random_legal_action

    @jax.jit
    def play(state, key):
        def body(state, key):
            k_act, k_step = jax.random.split(key)
            action = random_legal_action(k_act, state.legal_action_mask)
            state = jax.vmap(mixed.step)(state, action, jax.random.split(k_step, GAMES))
            return state, state.error

        return jax.lax.scan(body, state, jax.random.split(key, 40))

    for game in range(0, GAMES, 6):
        mixed.validate(jax.tree.map(lambda x, g=game: x[g], starts))
    end, errors = play(starts, jax.random.PRNGKey(1))
    assert not np.asarray(errors).any()
    assert np.array_equal(np.asarray(end.game.deck_pair), np.asarray(starts.game.deck_pair))
    for game in range(0, GAMES, 6):
        mixed.validate(jax.tree.map(lambda x, g=game: x[g], end))


def test_a_single_pair_draws_nothing_and_is_matchup_zero():
    env = tcgjax.make("pokemon", decks=("chien_pao", "charizard_ex"))
    assert env.matchups == ("chien_pao vs charizard_ex",)
    keys = jax.random.split(jax.random.PRNGKey(3), 4)
    states = jax.vmap(env.init)(keys)
    assert np.asarray(jax.vmap(env.matchup)(states)).tolist() == [0, 0, 0, 0]
    # The same games as rules built without pairs (the pair table is not consulted).
    decks = [load_deck(d, env.rules.cards) for d in ("chien_pao", "charizard_ex")]
    plain = R.PokemonRules(decks, cards=env.rules.cards, max_turns=env.max_turns)
    direct = jax.vmap(plain.init)(keys)
    assert np.array_equal(np.asarray(direct.board.zone), np.asarray(states.game.board.zone))
    assert np.array_equal(
        np.asarray(direct.board.definition), np.asarray(states.game.board.definition)
    )


def test_validate_names_the_matchup_a_game_does_not_hold(mixed, starts):
    game = int(np.flatnonzero(np.asarray(starts.game.deck_pair) == 0)[0])
    one = jax.tree.map(lambda x: x[game], starts)
    # The cards of "chien_pao vs charizard_ex" under the index of "tapu_koko vs melmetal_dte".
    wrong = one.replace(game=one.game.replace(deck_pair=jnp.int8(1)))
    with pytest.raises(InvalidStateError, match="tapu_koko|Tapu Koko"):
        mixed.validate(wrong)
    beyond = one.replace(game=one.game.replace(deck_pair=jnp.int8(3)))
    with pytest.raises(InvalidStateError, match=r"deckPair.*3 outside \[0, 3\)"):
        mixed.validate(beyond)


def test_build_state_places_the_cards_of_the_given_matchup():
    registry = shared_registry()
    decks = [load_deck(d, registry) for d in ("tapu_koko", "melmetal_dte", "chien_pao")]
    rules = R.PokemonRules(decks, cards=registry, max_turns=30, pairs=[(0, 1), (2, 0)])
    # Matchup 1: Chien-Pao ex (its Buizel) against Tapu Koko ex (its Tadbulb).
    state = state_of(rules, {"slots": [["sv1-46"]]}, {"slots": [["sv2-78"]]}, deck_pair=1)
    assert int(state.deck_pair) == 1
    rules.validate(state)
    held = collections.Counter(
        rules.cards.ids[int(d)]
        for d in np.asarray(state.board.definition)[np.asarray(state.board.owner) == 0]
    )
    assert held == collections.Counter(decks[2].cards)
    with pytest.raises(ConfigError, match="player 1: more 'sv1-46' than their deck holds"):
        state_of(rules, {"slots": [["sv1-46"]]}, {"slots": [["sv2-78"]]}, deck_pair=0)
    with pytest.raises(ConfigError, match=r"deck_pair=2 is not a matchup index in \[0, 2\)"):
        state_of(rules, {}, {}, deck_pair=2)


@pytest.mark.parametrize(
    ("decks", "message"),
    [
        ([], "must be two decks"),
        ([["tapu_koko"]], r"decks\[0\]=\['tapu_koko'\] must be a pair of decks"),
        ([["tapu_koko", "melmetal_dte"], "chien_pao"], r"decks\[1\]='chien_pao' must be a pair"),
        ([["tapu_koko", "melmetal_dte"], ["chien_pao", "no_such_deck"]], "no_such_deck"),
    ],
)
def test_a_malformed_list_of_pairs_is_refused_naming_the_entry(decks, message):
    with pytest.raises(ConfigError, match=message):
        tcgjax.make("pokemon", decks=decks)


def test_rules_refuse_a_pair_outside_the_pool_and_a_short_deck_in_it():
    registry = shared_registry()
    decks = [load_deck(d, registry) for d in ("tapu_koko", "melmetal_dte", "chien_pao")]
    with pytest.raises(ConfigError, match=r"pairs\[1\] = \(0, 3\): two deck indices in \[0, 3\)"):
        R.PokemonRules(decks, cards=registry, pairs=[(0, 1), (0, 3)])
    short = [*decks[:2], dataclasses.replace(decks[2], cards=decks[2].cards[:59])]
    with pytest.raises(ConfigError, match="a pool of decks of 60 cards each"):
        R.PokemonRules(short, cards=registry, pairs=[(0, 1)])
    with pytest.raises(ConfigError, match="two decks of 60 cards, one per seat"):
        R.PokemonRules(decks, cards=registry)  # three decks and no pairs


def test_the_options_rebuild_the_same_mixed_env(mixed):
    again = tcgjax.make("pokemon", **mixed.options)
    assert again.matchups == mixed.matchups
    assert np.array_equal(again.rules.pair_definitions, mixed.rules.pair_definitions)
