"""Stadium cards, from explicit situations, with the staples test deck in both seats (``st_rules``):
playing one (one a turn; it replaces the other Stadium, which goes to its owner's discard pile;
never onto one of the same name), Artazon's effect (either player, once during their turn, a Basic
Pokémon without a Rule Box from the deck onto the Bench), Beach Court's Retreat Cost (1 less for
every Basic Pokémon in play, both players'), Charmander's Blazing Destruction (the Stadium in play
to its owner's discard pile), and what the observation and the move names say of them."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from pokemon_testlib import card_action as card
from pokemon_testlib import done_action as done
from pokemon_testlib import legal, names, names_in, phase, pile, run, state_of

from tcgjax.core.errors import ConfigError
from tcgjax.games.pokemon import rules as R

ARTAZON, BEACH_COURT, CHARMANDER, FIRE = "sv2-171", "sv1-167", "sv4pt5-7", "sve-2"
BUIZEL, FLOATZEL, DELIBIRD, MARILL, CHIEN_PAO, WATER = (
    "sv1-46", "sv1-47", "sv2-46", "sv2-44", "svp-30", "sve-3",
)  # fmt: skip


def use(rules):
    return rules.actions.encode("stadium", 0)


def in_play(rules, state):
    return names_in(rules, state, R.STADIUM_ZONE)


def test_a_stadium_goes_into_play_and_the_one_it_replaces_to_its_owners_discard_pile(
    st_rules, st_apply, st_errors
):
    rules = st_rules
    s = state_of(rules, {"slots": [[BUIZEL]], "hand": [ARTAZON, BEACH_COURT]},
                 {"slots": [[DELIBIRD]], "stadium": BEACH_COURT})  # fmt: skip
    assert st_errors(s)[card(rules, "play", ARTAZON)] == "ok"
    s = run(st_apply, s, [card(rules, "play", ARTAZON)])
    assert phase(s) == "main" and in_play(rules, s) == [ARTAZON]
    assert names(rules, s, "discard", 1) == [BEACH_COURT]  # the opponent's, to their pile
    assert names(rules, s, "discard", 0) == [] and names(rules, s, "hand", 0) == [BEACH_COURT]
    # One Stadium a turn: the second waits for the next turn.
    assert st_errors(s)[card(rules, "play", BEACH_COURT)] == "stadium_done"
    s = run(st_apply, s, [rules.actions.encode("end_turn", 0)] * 2)
    assert int(s.board.turn_number) == 5 and int(s.board.active_player) == 0
    s = run(st_apply, s, [card(rules, "play", BEACH_COURT)])
    assert in_play(rules, s) == [BEACH_COURT] and names(rules, s, "discard", 0) == [ARTAZON]


def test_a_stadium_is_never_played_onto_one_of_the_same_name(st_rules, st_errors):
    rules = st_rules
    s = state_of(rules, {"slots": [[BUIZEL]], "hand": [ARTAZON, BEACH_COURT]},
                 {"slots": [[DELIBIRD]], "stadium": ARTAZON})  # fmt: skip
    errors = st_errors(s)
    assert errors[card(rules, "play", ARTAZON)] == "same_stadium"
    assert errors[card(rules, "play", BEACH_COURT)] == "ok"
    own = state_of(rules, {"slots": [[BUIZEL]], "hand": [ARTAZON], "stadium": ARTAZON},
                   {"slots": [[DELIBIRD]]})  # fmt: skip
    assert st_errors(own)[card(rules, "play", ARTAZON)] == "same_stadium"


def test_artazon_benches_a_basic_pokemon_without_a_rule_box_once_a_turn(
    st_rules, st_apply, st_errors
):
    rules = st_rules
    # The opponent's Artazon: either player uses it in their own turn.
    s = state_of(rules, {"slots": [[BUIZEL]], "deck": [CHIEN_PAO, DELIBIRD, FLOATZEL, WATER]},
                 {"slots": [[DELIBIRD]], "stadium": ARTAZON})  # fmt: skip
    assert st_errors(s)[use(rules)] == "ok"
    s = run(st_apply, s, [use(rules)])
    assert phase(s) == "select" and bool(s.stadium_used)
    choices = legal(st_errors, s)
    # Basic Pokémon of the deck, never Chien-Pao ex (a Rule Box) nor Floatzel (a Stage 1); "up
    # to": the deck is hidden, so the player may find nothing.
    assert card(rules, "select_card", DELIBIRD) in choices and done(rules) in choices
    assert card(rules, "select_card", CHIEN_PAO) not in choices
    assert card(rules, "select_card", FLOATZEL) not in choices
    s = run(st_apply, s, [card(rules, "select_card", DELIBIRD)])
    assert phase(s) == "main" and pile(rules, s, 0, 1) == [DELIBIRD]
    assert in_play(rules, s) == [ARTAZON]  # it stays in play, the opponent's
    assert st_errors(s)[use(rules)] == "stadium_used"
    # The opponent's turn: their own use.
    s = run(st_apply, s, [rules.actions.encode("end_turn", 0)])
    assert int(s.board.active_player) == 1 and st_errors(s)[use(rules)] == "ok"


@pytest.mark.parametrize(
    ("slots", "stadium", "error"),
    [
        ([[BUIZEL], [MARILL], [MARILL], [MARILL], [DELIBIRD], [BUIZEL]], ARTAZON, "no_effect"),
        ([[BUIZEL]], None, "no_stadium"),
        ([[BUIZEL]], BEACH_COURT, "no_stadium"),  # a passive Stadium: nothing to use
    ],
    ids=["full_bench", "none_in_play", "passive_stadium"],
)
def test_a_stadiums_effect_needs_one_to_use_and_something_to_do(
    st_rules, st_errors, slots, stadium, error
):
    p2 = {"slots": [[DELIBIRD]]} | ({"stadium": stadium} if stadium else {})
    s = state_of(st_rules, {"slots": slots}, p2)
    assert st_errors(s)[use(st_rules)] == error


def test_beach_court_takes_one_off_the_retreat_cost_of_basic_pokemon_of_both_players(
    st_rules, st_apply, st_errors
):
    rules = st_rules
    retreat = rules.actions.encode("retreat", 0)
    p2 = {"slots": [[CHIEN_PAO, WATER], [DELIBIRD]], "stadium": BEACH_COURT}
    # Buizel (Basic, Retreat Cost 1) retreats for nothing.
    s = state_of(rules, {"slots": [[BUIZEL], [MARILL]]}, p2)
    assert st_errors(s)[retreat] == "ok"
    s = run(st_apply, s, [retreat])
    assert phase(s) == "main" and pile(rules, s, 0, 0) == [MARILL] and bool(s.retreated)
    # Without it, Buizel needs its Energy.
    bare = state_of(rules, {"slots": [[BUIZEL], [MARILL]]}, {"slots": [[CHIEN_PAO], [DELIBIRD]]})
    assert st_errors(bare)[retreat] == "retreat_cost"
    # Floatzel is a Stage 1: its cost stays 1.
    stage1 = state_of(rules, {"slots": [[BUIZEL, FLOATZEL], [MARILL]]}, p2, turn=5)
    assert st_errors(stage1)[retreat] == "retreat_cost"
    # The opponent's Chien-Pao ex (a Basic, Retreat Cost 2) pays 1 Energy in their turn.
    theirs = state_of(rules, {"slots": [[BUIZEL]]}, p2, active=1)
    assert st_errors(theirs)[retreat] == "ok"
    theirs = run(st_apply, theirs, [retreat])
    assert phase(theirs) == "retreat_payment" and int(theirs.retreat_units_left) == 1
    theirs = run(st_apply, theirs, [card(rules, "select_card", WATER)])
    assert phase(theirs) == "main" and pile(rules, theirs, 1, 0) == [DELIBIRD]
    assert names(rules, theirs, "discard", 1) == [WATER]


def test_blazing_destruction_discards_the_stadium_in_play_to_its_owners_pile(st_rules, st_apply):
    rules = st_rules
    attack = rules.actions.encode("attack", 0)
    for owner in (0, 1):
        p1 = {"slots": [[CHARMANDER, FIRE]]} | ({"stadium": ARTAZON} if owner == 0 else {})
        p2 = {"slots": [[DELIBIRD], [MARILL]]} | ({"stadium": ARTAZON} if owner == 1 else {})
        s = run(st_apply, state_of(rules, p1, p2), [attack])
        assert in_play(rules, s) == []
        assert names(rules, s, "discard", owner) == [ARTAZON]
        assert int(s.damage[1, 0]) == 0  # the attack does no damage
    # With no Stadium in play it does nothing, and the turn ends as after any attack.
    s = run(st_apply, state_of(rules, {"slots": [[CHARMANDER, FIRE]]}, {"slots": [[DELIBIRD]]}),
            [attack])  # fmt: skip
    assert int(s.board.active_player) == 1 and names(rules, s, "discard", 0) == []


def test_the_observation_and_the_move_names_show_the_stadium(st_rules):
    import types
    from collections import Counter

    import tcgjax
    from tcgjax.games.pokemon.env import describe_action
    from tcgjax.games.pokemon.observation import Observer

    rules = st_rules
    s = state_of(rules, {"slots": [[BUIZEL]], "hand": [BEACH_COURT]},
                 {"slots": [[DELIBIRD]], "stadium": ARTAZON}, stadium_used=True)  # fmt: skip
    observer = Observer(rules, "v2.1")
    artazon = np.eye(len(rules.cards))[rules.cards.index(ARTAZON)]
    for me, own in ((0, 0.0), (1, 1.0)):  # Artazon is player 2's
        obs = observer.observe(s, jnp.int32(me))
        assert np.asarray(observer.layout.view(obs, "stadium")).tolist() == artazon.tolist()
        turn = np.asarray(observer.layout.view(obs, "turn"))
        assert turn[10:13].tolist() == [own, 0.0, 1.0]  # its owner's, one played, its effect used
    # The shipped registry numbers these cards as the test registry does (test ids sort last).
    deck = {"name": "staples", "cards": dict(Counter(rules.decks[0].cards))}
    env = tcgjax.make("pokemon", decks=(deck, deck), max_turns=60)
    state = types.SimpleNamespace(game=s)
    assert describe_action(env, state, card(env.rules, "play", BEACH_COURT)) == (
        "play Beach Court as the Stadium"
    )
    assert describe_action(env, state, use(env.rules)) == "use the Stadium Artazon"
    assert env.action_name(use(env.rules)) == "stadium"


def test_build_state_refuses_a_stadium_that_is_not_one_or_two_of_them(st_rules):
    with pytest.raises(ConfigError, match="not a Stadium card"):
        state_of(st_rules, {"slots": [[BUIZEL]], "stadium": WATER}, {"slots": [[DELIBIRD]]})
    with pytest.raises(ConfigError, match="one Stadium in play at most"):
        state_of(st_rules, {"slots": [[BUIZEL]], "stadium": ARTAZON},
                 {"slots": [[DELIBIRD]], "stadium": BEACH_COURT})  # fmt: skip


def test_stadium_states_pass_validate(st_rules, st_apply):
    rules = st_rules
    s = state_of(rules, {"slots": [[BUIZEL]], "hand": [BEACH_COURT], "deck": [DELIBIRD]},
                 {"slots": [[DELIBIRD]], "stadium": ARTAZON})  # fmt: skip
    rules.validate(s)
    pending = run(st_apply, s, [use(rules)])
    rules.validate(pending)  # a Stadium's effect waiting on its choice: the opponent's card
    with pytest.raises(Exception, match="not marked used"):
        rules.validate(pending.replace(stadium_used=jnp.bool_(False)))
    s = run(st_apply, pending, [card(rules, "select_card", DELIBIRD),
                                card(rules, "play", BEACH_COURT)])  # fmt: skip
    rules.validate(s)
    assert in_play(rules, s) == [BEACH_COURT] and names(rules, s, "discard", 1) == [ARTAZON]
    s = run(st_apply, s, [rules.actions.encode("end_turn", 0)])
    rules.validate(s)
    assert not bool(s.stadium_played) and not bool(s.stadium_used)
