"""Digimon setup (stage 2): zones, deck rules at construction, and the official game setup with
its mulligan (G10)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.core import zones
from tcgjax.core.cards import CardRegistry
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import cards as C
from tcgjax.games.digimon import rules as R

BASE = dict(name="x", colors=["red"], digivolve=[], dna=[], dna_cost=-1, keywords=[],
            inherited_keywords=[], effects=[], text="")  # fmt: skip
ENTRIES = [dict(BASE, id="EGG-A", kind="digi_egg", level=2, play_cost=-1, dp=0)]
ENTRIES += [dict(BASE, id="EGG-B", kind="digi_egg", level=2, play_cost=-1, dp=0)]
ENTRIES += [
    dict(BASE, id=f"MON-{i:02d}", kind="digimon", level=3, play_cost=3, dp=3000) for i in range(13)
]
MAIN = [f"MON-{i:02d}" for i in range(13) for _ in range(4)][:50]
EGGS = ["EGG-A"] * 4 + ["EGG-B"]


@pytest.fixture(scope="module")
def rules():
    registry = CardRegistry(C.SCHEMA, ENTRIES, source="setup-cards")
    return R.DigimonRules(registry, [(EGGS, MAIN), (EGGS[:3], MAIN)])


@pytest.fixture(scope="module")
def games(rules):
    """64 games set up under jit(vmap(init))."""
    return jax.device_get(
        jax.jit(jax.vmap(rules.init))(jax.random.split(jax.random.PRNGKey(7), 64))
    )


def _counts(rules, board):
    return {
        rules.layout.zone_id(z): int((np.asarray(board.zone) == z).sum())
        for z in range(rules.layout.num_zones)
    }


def test_zones_follow_e1_ids(rules):
    ids = [rules.layout.zone_id(z) for z in range(rules.layout.num_zones)]
    assert ids[:6] == ["deck_player1", "eggs_player1", "hand_player1", "security_player1",
                       "trash_player1", "breeding_player1"]  # fmt: skip
    assert "field11_player2" in ids and ids[-2:] == ["revealed", "processing"]
    assert rules.layout.num_zones == 2 * 18 + 2
    assert rules.num_cards == 55 + 53 and rules.cards_per_player == (55, 53)


def test_setup_deals_security_and_hand_and_keeps_every_card(rules, games):
    for g in range(64):
        board = jax.tree.map(lambda x, g=g: x[g], games.board)
        counts = _counts(rules, board)
        for p, eggs in ((1, 5), (2, 3)):
            assert counts[f"security_player{p}"] == 5 and counts[f"hand_player{p}"] == 5
            assert counts[f"deck_player{p}"] == 40 and counts[f"eggs_player{p}"] == eggs
            assert counts[f"trash_player{p}"] == 0 and counts[f"breeding_player{p}"] == 0
        rules.validate(jax.tree.map(lambda x, g=g: x[g], games))


def test_setup_starts_turn_one_with_the_mulligan_memory_zero_and_a_random_first_player(games):
    assert np.all(games.memory == 0) and np.all(games.board.turn_number == 1)
    # G10: the first player decides on their opening hand first (SelectEffectChoice).
    assert np.all(games.board.phase == R.A.PHASES.index("select_effect_choice"))
    assert np.all(games.selection.stage == R.CHOICE_MULLIGAN)
    owner = np.take_along_axis(
        np.asarray(games.board.owner), np.asarray(games.selection.card)[:, None], axis=1
    )[:, 0]
    np.testing.assert_array_equal(owner, games.first_player)
    # The record names no effect row nor slot: it is not an effect's choice (what reads a pending
    # row, the validator and the move names, must not take it for one).
    assert np.all(games.selection.row == -1) and np.all(games.selection.slot == -1)
    np.testing.assert_array_equal(games.board.active_player, games.first_player)
    firsts = np.asarray(games.first_player)
    assert 0 < firsts.sum() < 64, "both seats start some of 64 games"
    assert np.all(games.winner == -1) and not np.any(games.suspended)


def test_setup_shuffles_with_the_key(rules, games):
    """Different keys give different orders; the same key the same order (a pure function)."""
    orders = {
        tuple(np.lexsort((g_pos, g_zone)))
        for g_zone, g_pos in zip(
            np.asarray(games.board.zone), np.asarray(games.board.position), strict=True
        )
    }
    assert len(orders) == 64
    again = jax.jit(rules.init)(jax.random.split(jax.random.PRNGKey(7), 64)[3])
    np.testing.assert_array_equal(np.asarray(again.board.position), games.board.position[3])


def test_setup_is_a_uniform_shuffle_and_deal(rules):
    """Over 2,000 deals every main-deck card of player 1 is dealt to security and to the hand
    with probability 5/50 each and tops the remaining deck with probability 1/50; every Digi-Egg
    tops its egg deck with probability 1/5 (bounds: 6 standard deviations of the count)."""
    n = 2000
    games = jax.device_get(
        jax.jit(jax.vmap(rules.init))(jax.random.split(jax.random.PRNGKey(3), n))
    )
    zone, position = np.asarray(games.board.zone), np.asarray(games.board.position)
    eggs, main = np.arange(0, 5), np.arange(5, 55)  # player 1's card indices (eggs first)

    def expect(hits, p):
        count = hits.sum(axis=0)
        bound = 6 * np.sqrt(n * p * (1 - p))
        assert np.all(np.abs(count - n * p) <= bound), (count.min(), count.max(), n * p, bound)

    z = lambda name: int(R.zone_of(name, 0))  # noqa: E731
    expect(zone[:, main] == z("security"), 5 / 50)
    expect(zone[:, main] == z("hand"), 5 / 50)
    expect((zone[:, main] == z("deck")) & (position[:, main] == 39), 1 / 50)
    expect(position[:, eggs] == 4, 1 / 5)


@pytest.mark.parametrize(
    ("decks", "needle"),
    [
        ([(EGGS, MAIN[:49]), (EGGS, MAIN)], "49 main-deck cards"),
        ([(EGGS + ["EGG-B"], MAIN), (EGGS, MAIN)], "6 Digi-Eggs"),
        ([(EGGS, MAIN[:-1] + ["MON-00"]), (EGGS, MAIN)], "5 copies of MON-00"),
        ([(EGGS, MAIN[:-1] + ["EGG-B"]), (EGGS, MAIN)], "Digi-Egg EGG-B is in the main deck"),
        ([(["MON-12"], MAIN), (EGGS, MAIN)], "MON-12 in the egg deck is not a Digi-Egg"),
        ([(EGGS, MAIN)], "expected 2 decks"),
    ],
)
def test_deck_rules_are_checked_at_construction(decks, needle):
    registry = CardRegistry(C.SCHEMA, ENTRIES, source="setup-cards")
    with pytest.raises(tcgjax.ConfigError, match=needle):
        R.DigimonRules(registry, decks)


def test_validate_rejects_broken_states(rules, games):
    one = jax.tree.map(lambda x: jnp.asarray(x[0]), games)
    rules.validate(one)
    cases = [
        (one.replace(memory=jnp.int8(11)), "game.memory"),
        (one.replace(suspended=one.suspended.at[0, 3].set(True)), "game.suspended"),
        (one.replace(entered_turn=one.entered_turn.at[1, 12].set(1)), "game.entered_turn"),
        (one.replace(board=one.board.replace(turn_number=jnp.int16(0))), "turnState.turnNumber"),
        (
            one.replace(selection=one.selection.replace(stage=jnp.int8(len(R.SELECTION_STAGES)))),
            "game.selection.stage",
        ),
        # A mulligan once turn 1 is over.
        (one.replace(board=one.board.replace(turn_number=jnp.int16(2))), "game.selection.stage"),
    ]
    # A card of player 1 moved into player 2's hand.
    b = one.board
    card = int(np.flatnonzero(np.asarray(b.zone) == int(R.zone_of("deck", 0)))[0])
    moved = zones.move_card(rules.layout, b, card, R.zone_of("hand", 1)).board
    cases.append((one.replace(board=moved), f"cards.card_{card + 1:03d}.zoneId"))
    # A Digi-Egg in the hand.
    egg = int(np.flatnonzero(np.asarray(b.zone) == int(R.zone_of("eggs", 0)))[0])
    in_hand = zones.move_card(rules.layout, b, egg, R.zone_of("hand", 0)).board
    cases.append((one.replace(board=in_hand), f"cards.card_{egg + 1:03d}.zoneId"))
    for state, field in cases:
        with pytest.raises(tcgjax.InvalidStateError) as info:
            rules.validate(state)
        assert info.value.field == field, (field, str(info.value))


# -- the mulligan (G10) ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def decide(rules):
    from digimon_testlib import jit_apply

    apply, errors = jit_apply(rules), jax.jit(rules.action_errors)

    def run(state, action):
        code = int(errors(state)[action])
        assert code == 0, f"{action}: code {code}"
        new, rewards = apply(state, action)
        rules.validate(new)
        assert not np.any(np.asarray(rewards))
        return new

    return run, errors


def _hand(rules, state, p):
    return set(np.flatnonzero(np.asarray(state.board.zone) == int(R.zone_of("hand", p))).tolist())


def _security(rules, state, p):
    z = int(R.zone_of("security", p))
    cards = np.flatnonzero(np.asarray(state.board.zone) == z)
    return cards[np.argsort(np.asarray(state.board.position)[cards])].tolist()


@pytest.mark.parametrize(("first_choice", "second_choice"), [(R.KEEP_HAND, R.REDRAW_HAND),
                                                             (R.REDRAW_HAND, R.KEEP_HAND),
                                                             (R.REDRAW_HAND, R.REDRAW_HAND)])  # fmt: skip
def test_mulligan_each_player_once_first_player_first(rules, games, decide, first_choice,
                                                      second_choice):  # fmt: skip
    run, errors = decide
    state = jax.tree.map(lambda x: jnp.asarray(x[0]), games)
    first = int(state.first_player)
    second = 1 - first
    hands = [_hand(rules, state, p) for p in range(2)]
    security = [_security(rules, state, p) for p in range(2)]
    legal = lambda s: np.flatnonzero(np.asarray(errors(s)) == 0).tolist()  # noqa: E731
    assert legal(state) == [R.KEEP_HAND, R.REDRAW_HAND] and int(rules.decider(state)) == first

    state = run(state, first_choice)
    assert (_hand(rules, state, first) != hands[first]) == (first_choice == R.REDRAW_HAND)
    assert len(_hand(rules, state, first)) == 5
    # The second player decides next, once as well.
    assert A.PHASES[int(state.board.phase)] == "select_effect_choice"
    assert int(rules.decider(state)) == second and legal(state) == [R.KEEP_HAND, R.REDRAW_HAND]

    state = run(state, second_choice)
    assert (_hand(rules, state, second) != hands[second]) == (second_choice == R.REDRAW_HAND)
    assert len(_hand(rules, state, second)) == 5
    assert [_security(rules, state, p) for p in range(2)] == security, "security stays"
    # Turn 1 begins: the first player's Breeding phase; no mulligan can be taken again.
    assert A.PHASES[int(state.board.phase)] == "breeding" and int(state.selection.card) == -1
    assert int(state.board.active_player) == first and int(rules.decider(state)) == first
    codes = np.asarray(errors(state))
    assert codes[R.KEEP_HAND] != 0 and codes[R.REDRAW_HAND] != 0


def test_the_mulligan_shows_in_the_tensor(rules, games):
    from tcgjax.games.digimon import observation as O

    state = jax.tree.map(lambda x: jnp.asarray(x[0]), games)
    first = int(state.first_player)
    for observer in (0, 1):
        tensor = O.board_state_tensor(rules, state, observer)
        phase = float(A.PHASES.index("select_effect_choice"))
        assert float(O.LAYOUT.view(tensor, "global")[1]) == phase
        np.testing.assert_array_equal(
            np.asarray(O.LAYOUT.view(tensor, "selection")), [phase, 2.0, first + 1.0, 0.0, 0.0]
        )
