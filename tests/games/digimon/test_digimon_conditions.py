"""Effect conditions read from the board and card filters (issue #36, the starter decks ST-4 and
ST-6). Conditions: a Digimon's level (``self_level_at_least``: ST4-01 Motimon), the controller's
trash size (``own_trash_at_least``: ST6-11 WereGarurumon) and whether this Digimon's attack aims
at an opposing Digimon (``attacking_a_digimon``: ST4-04 Palmon, ST4-06 Togemon), each on both
sides of its edge, in a continuous row (the DP the rules derive) and in a row that resolves (the
interpreter's check when the row comes up). Filters of the cards a row may choose: ``colors``
(ST4-03 Tentomon, ST6-04 Dracmon, ST6-10 SkullSatamon), ``min_level`` (ST4-10 Lillymon) and
``play_costs`` (ST6-04 Dracmon).
The ``mill`` op (ST6-01 Pagumon: the top cards of your deck into your trash) and the target
``choose_opponent_suspended_digimon`` (ST4-16 Electro Shocker). All from explicit situations."""

import numpy as np
import pytest
from digimon_testlib import digimon, dp, make_rules, other, situation, step_ok, zone_cards

from tcgjax.games.digimon import actions as A

R2 = [{"color": "red", "level": 2, "cost": 0}]
R3 = [{"color": "red", "level": 3, "cost": 2}]
R4 = [{"color": "red", "level": 4, "cost": 3}]
R5 = [{"color": "red", "level": 5, "cost": 3}]
PLAYER = A.TARGET_PLAYER


def inherited(**kw):
    return {"where": "inherited", **kw}


ENTRIES = [
    # Motimon-like egg: inherited [Your Turn] +1000 DP while this Digimon is level 6 or higher.
    other("EGG-LV6", "digi_egg",
          effects=[inherited(trigger="continuous", window="your_turn",
                             condition="self_level_at_least", condition_value=6, op="dp_mod",
                             amount=1000)]),
    digimon("LV4", 4, 5000, digivolve=R3),
    digimon("LV5", 5, 7000, digivolve=R4),
    digimon("LV6", 6, 9000, digivolve=R5),
    # WereGarurumon-like: inherited [Your Turn] +2000 DP while your trash holds 5 or more cards.
    digimon("TRASH5", 4, 4000, digivolve=R3,
            effects=[inherited(trigger="continuous", window="your_turn",
                               condition="own_trash_at_least", condition_value=5, op="dp_mod",
                               amount=2000)]),
    # Palmon-like: inherited [When Attacking] +2000 DP for the turn if the attack was declared
    # against an opposing Digimon.
    digimon("AT-DIGI", 3, 3000, digivolve=R2,
            effects=[inherited(trigger="when_attacking", condition="attacking_a_digimon",
                               op="dp_mod", target="self", amount=2000, duration="this_turn")]),
    # The two board conditions on rows that resolve: [When Attacking] +1 memory if this Digimon is
    # level 5 or higher; +2 memory if your trash holds 3 or more cards.
    digimon("AT-MEM", 3, 3000, digivolve=R2,
            effects=[inherited(trigger="when_attacking", condition="self_level_at_least",
                               condition_value=5, op="memory", target="player", amount=1),
                     inherited(trigger="when_attacking", condition="own_trash_at_least",
                               condition_value=3, op="memory", target="player", amount=2)]),
    digimon("WALL3", 3, 1000, digivolve=R2),
    # Agumon-like (ST7-02): inherited [When Attacking] +2000 DP for the turn if the attack was
    # declared against the opponent, not a Digimon.
    digimon("AT-PLAYER", 3, 2000, digivolve=R2,
            effects=[inherited(trigger="when_attacking", condition="attacking_the_player",
                               op="dp_mod", target="self", amount=2000, duration="this_turn")]),
    # Lightning Joust-like (ST7-11's second clause): one of your Digimon gets <Security A. +1> for
    # the turn if your security stack holds no more cards than the opponent's.
    other("SA-IF-BEHIND", "option", cost=0,
          effects=[{"where": "main", "trigger": "main",
                    "condition": "own_security_at_most_opponents", "op": "security_attack_mod",
                    "target": "choose_own_digimon", "count": 1, "amount": 1,
                    "duration": "this_turn"}]),
    # Victory Sword-like (ST8-11, with green for blue): unsuspend one of your green Digimon.
    other("WAKE-GREEN", "option", cost=0,
          effects=[{"where": "main", "trigger": "main", "op": "unsuspend",
                    "target": "choose_own_digimon", "count": 1, "colors": ["green"]}]),
    # The same condition on a continuous row: inherited +1000 DP while your security stack holds
    # no more cards than the opponent's.
    digimon("DP-IF-BEHIND", 3, 2000, digivolve=R2,
            effects=[inherited(trigger="continuous", condition="own_security_at_most_opponents",
                               op="dp_mod", amount=1000)]),
    # DemiVeemon-like (ST8-01), on a Digimon: inherited [Your Turn] +1000 DP while your hand holds
    # 8 or more cards.
    digimon("HAND8", 3, 2000, digivolve=R2,
            effects=[inherited(trigger="continuous", window="your_turn",
                               condition="own_hand_at_least", condition_value=8, op="dp_mod",
                               amount=1000)]),
    # Veemon- and Veedramon-like (ST8-04, ST8-05): inherited [When Attacking] <Draw 1> if your hand
    # holds 7 or fewer cards, then +1 memory if it holds 8 or more (the draw counts: Q698).
    digimon("AT-HAND", 3, 2000, digivolve=R2,
            effects=[inherited(trigger="when_attacking", condition="own_hand_at_most",
                               condition_value=7, op="draw", target="player", amount=1),
                     inherited(trigger="when_attacking", condition="own_hand_at_least",
                               condition_value=8, op="memory", target="player", amount=1)]),
    digimon("GREEN3", 3, 2000, colors=("green",), digivolve=R2),
    digimon("PURPLE3", 3, 2000, colors=("purple",), digivolve=R2),
    digimon("RED-GREEN3", 3, 2000, colors=("red", "green"), digivolve=R2),
    other("GREEN-T", "tamer", cost=2, colors=("green",)),
    # Tentomon-like: reveal your top card; a green Digimon card among it goes to your hand.
    other("PEEK-GREEN", "option", cost=0,
          effects=[{"where": "main", "trigger": "main", "op": "reveal_add", "target": "player",
                    "amount": 1, "count": 1, "kinds": ["digimon"], "colors": ["green"]}]),
    # Lillymon-like: reveal your top 5 cards; 1 Digimon card of level 6 or higher to your hand.
    other("SEEK-LV6", "option", cost=0,
          effects=[{"where": "main", "trigger": "main", "op": "reveal_add", "target": "player",
                    "amount": 5, "count": 1, "kinds": ["digimon"], "min_level": 6}]),
    # Pagumon-like (ST6-01's op on an Option): put the top 2 cards of your deck into your trash.
    other("MILL2", "option", cost=0,
          effects=[{"where": "main", "trigger": "main", "op": "mill", "target": "player",
                    "amount": 2}]),
    # Electro Shocker-like (ST4-16): return 1 suspended opposing Digimon to its owner's hand.
    other("SHOCK", "option", cost=0,
          effects=[{"where": "main", "trigger": "main", "op": "bounce_to_hand",
                    "target": "choose_opponent_suspended_digimon", "count": 1}]),
    # SkullSatamon-like: 1 purple Digimon card from your trash to your hand.
    other("RAISE-PURPLE", "option", cost=0,
          effects=[{"where": "main", "trigger": "main", "op": "trash_to_hand", "target": "player",
                    "count": 1, "kinds": ["digimon"], "colors": ["purple"]}]),
    # Dracmon-like (ST6-04's play-cost filter): 1 card costing 0 or 2 from your trash to your hand.
    other("RAISE-COST-0-2", "option", cost=0,
          effects=[{"where": "main", "trigger": "main", "op": "trash_to_hand", "target": "player",
                    "count": 1, "play_costs": [0, 2]}]),
]  # fmt: skip
# 49 cards: make_rules adds one filler, FILL0 (a 4-cost card the play_costs test needs).
MAIN = ["LV4", "LV5", "LV6", "TRASH5", "AT-DIGI", "WALL3"] * 4 + ["AT-MEM", "WAKE-GREEN"] + [
    "GREEN3", "PURPLE3", "RED-GREEN3", "GREEN-T", "PEEK-GREEN", "SEEK-LV6", "RAISE-PURPLE",
    "RAISE-COST-0-2",
] * 2 + ["MILL2", "SHOCK", "HAND8", "AT-HAND", "AT-PLAYER", "SA-IF-BEHIND", "DP-IF-BEHIND"]  # fmt: skip
EGGS = ["EGG-LV6"] * 4


@pytest.fixture(scope="module")
def rules():
    return make_rules(ENTRIES, MAIN, EGGS)


@pytest.mark.parametrize(
    "stack, expected",
    [
        (["EGG-LV6", "AT-DIGI", "LV4", "LV5", "LV6"], 9000 + 1000),  # level 6: on its edge
        (["EGG-LV6", "AT-DIGI", "LV4", "LV5"], 7000),  # level 5: one below
    ],
    ids=["level 6", "level 5"],
)
def test_self_level_at_least_reads_the_top_card_s_level(rules, perm, stack, expected):
    assert dp(perm, situation(rules, {"field": [stack]}, {})) == expected
    # [Your Turn]: on the opponent's turn the row is out of its window at any level.
    on_theirs = situation(rules, {"field": [stack]}, {}, active=1, turn=3)
    assert dp(perm, on_theirs) == (9000 if stack[-1] == "LV6" else 7000)


@pytest.mark.parametrize(
    "mine, theirs, expected",
    [
        (5, 0, 5000 + 2000),  # five cards in the controller's trash: on the edge
        (4, 0, 5000),  # four: one below
        (4, 6, 5000),  # the opponent's trash does not count
    ],
    ids=["own trash 5", "own trash 4", "opponent's trash"],
)
def test_own_trash_at_least_counts_the_controller_s_trash(rules, perm, mine, theirs, expected):
    me = {"field": [["EGG-LV6", "TRASH5", "LV4"]], "trash": ["WALL3"] * 4 + ["LV4"] * (mine - 4)}
    opponent = {"trash": ["WALL3"] * 4 + ["LV4"] * (theirs - 4)} if theirs else {}
    assert dp(perm, situation(rules, me, opponent)) == expected


def test_attacking_a_digimon_holds_for_an_attack_on_a_digimon_not_the_player(
    rules, apply, errors, perm
):
    """The [When Attacking] row resolves at the declaration: +2000 DP for the turn when the
    target is an opposing (suspended) Digimon, nothing when the attack is on the player."""
    me = {"field": [["EGG-LV6", "AT-DIGI", "LV4"]]}
    on_digimon = situation(rules, me, {"field": [["WALL3"]], "suspended": [0]})
    s, _ = step_ok(rules, apply, errors, on_digimon, A.encode("attack", 0, 0))
    assert int(s.attacker) == -1 and int(s.winner) == -1  # the battle is over: WALL3 deleted
    assert dp(perm, s) == 5000 + 2000  # the modifier lasts the turn
    on_player = situation(rules, me, {"security": ["WALL3"]})
    s, _ = step_ok(rules, apply, errors, on_player, A.encode("attack", 0, PLAYER))
    assert int(s.attacker) == -1 and dp(perm, s) == 5000


@pytest.mark.parametrize(
    "stack, trash, gained",
    [
        (["EGG-LV6", "AT-MEM", "LV4", "LV5"], 2, 1),  # level 5: +1; trash 2: no +2
        (["EGG-LV6", "AT-MEM", "LV4"], 3, 2),  # level 4: no +1; trash 3: +2
        (["EGG-LV6", "AT-MEM", "LV4", "LV5"], 3, 3),  # both
        (["EGG-LV6", "AT-MEM", "LV4"], 2, 0),  # neither
    ],
    ids=["level 5", "trash 3", "both", "neither"],
)
def test_level_and_trash_conditions_when_a_row_resolves(rules, apply, errors, stack, trash, gained):
    me = {"field": [stack], "trash": ["WALL3"] * trash}
    s = situation(rules, me, {"security": ["WALL3"]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert int(s.attacker) == -1 and int(s.memory) == 3 + gained


# -- the controller's hand size (ST-8) ----------------------------------------------------------------

HAND = ["WALL3"] * 4 + ["LV6"] * 4  # 8 cards a player may hold besides the stacks below


@pytest.mark.parametrize(
    "mine, theirs, active, expected",
    [
        (8, 0, 0, 5000 + 1000),  # 8 cards in the controller's hand: on the edge
        (7, 0, 0, 5000),  # 7: one below
        (7, 8, 0, 5000),  # the opponent's hand does not count
        (8, 0, 1, 5000),  # [Your Turn]: not in the opponent's turn
    ],
    ids=["own hand 8", "own hand 7", "opponent's hand", "opponent's turn"],
)
def test_own_hand_at_least_is_read_live_by_a_continuous_row(rules, perm, mine, theirs, active,
                                                            expected):  # fmt: skip
    me = {"field": [["EGG-LV6", "HAND8", "LV4"]], "hand": HAND[:mine]}
    opponent = {"hand": HAND[:theirs]}
    s = situation(rules, me, opponent, active=active, turn=2 + active)
    assert dp(perm, s) == expected


@pytest.mark.parametrize(
    "hand, drawn, gained",
    [
        (6, 1, 0),  # 6 <= 7: draw 1 (7 cards), then 7 < 8: no memory
        (7, 1, 1),  # 7 <= 7: draw 1 (8 cards), then 8 >= 8: +1 (the draw counts, Q698)
        (8, 0, 1),  # 8 > 7: no draw; 8 >= 8: +1
    ],
    ids=["hand 6", "hand 7", "hand 8"],
)
def test_hand_conditions_when_rows_resolve_read_the_hand_as_it_is_then(
    rules, apply, errors, hand, drawn, gained
):
    me = {"field": [["EGG-LV6", "AT-HAND", "LV4"]], "hand": HAND[:hand], "deck": ["LV5"]}
    s = situation(rules, me, {"security": ["WALL3"]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert int(s.attacker) == -1
    assert len(zone_cards(rules, s, "hand", 0)) == hand + drawn
    assert int(s.memory) == 3 + gained


# -- the attack's target and the security stacks compared (ST-7) ---------------------------------------


def test_attacking_the_player_holds_for_an_attack_on_the_player_not_a_digimon(
    rules, apply, errors, perm
):
    """The mirror of ``attacking_a_digimon``: +2000 DP for the turn when the attack is declared
    on the player (it lasts past the check), nothing when it is declared on a Digimon."""
    me = {"field": [["EGG-LV6", "AT-PLAYER", "LV4"]]}
    on_player = situation(rules, me, {"security": ["WALL3"]})
    s, _ = step_ok(rules, apply, errors, on_player, A.encode("attack", 0, PLAYER))
    assert int(s.attacker) == -1 and int(s.winner) == -1
    assert dp(perm, s) == 5000 + 2000
    on_digimon = situation(rules, me, {"field": [["WALL3"]], "suspended": [0]})
    s, _ = step_ok(rules, apply, errors, on_digimon, A.encode("attack", 0, 0))
    assert int(s.attacker) == -1 and dp(perm, s) == 5000


def test_the_attack_conditions_are_refused_on_a_continuous_row():
    from tcgjax.core.cards import CardRegistry
    from tcgjax.core.errors import CardDataError
    from tcgjax.games.digimon import cards as C

    for condition in ("attacking_the_player", "attacking_a_digimon"):
        card = digimon("BAD", 3, 2000, effects=[inherited(trigger="continuous",
                                                          condition=condition, op="dp_mod",
                                                          amount=1000)])  # fmt: skip
        with pytest.raises(CardDataError, match=f"the condition {condition} is read when a row"):
            C.check_card_rules(CardRegistry(C.SCHEMA, [card], source="bad.yaml"))


@pytest.mark.parametrize(
    "mine, theirs, chosen",
    [(2, 2, True), (1, 2, True), (3, 2, False)],
    ids=["as many", "fewer", "one more"],
)
def test_own_security_at_most_opponents_when_a_row_resolves(
    rules, apply, errors, perm, mine, theirs, chosen
):
    """The Option's row resolves only when the controller's security stack holds no more cards
    than the opponent's: then the chosen Digimon has <Security A. +1> for the turn; else the row
    does nothing and no choice opens."""
    me = {"hand": ["SA-IF-BEHIND"], "field": [RED, ["LV4"]], "security": ["WALL3"] * mine}
    s = situation(rules, me, {"security": ["LV5"] * theirs}, memory=2)
    before = np.asarray(perm(s).security_attack)[0, :2].tolist()
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    if not chosen:
        assert phase(s) == "main" and np.asarray(perm(s).security_attack)[0, :2].tolist() == before
        return
    assert phase(s) == "select_target"
    s, _ = step_ok(rules, apply, errors, s, 101)  # SelectTarget: your field slot 1 (LV4)
    assert phase(s) == "main"
    assert np.asarray(perm(s).security_attack)[0, :2].tolist() == [before[0], before[1] + 1]


@pytest.mark.parametrize(
    "mine, theirs, expected",
    [(2, 2, 5000 + 1000), (3, 2, 5000), (0, 0, 5000 + 1000)],
    ids=["as many", "one more", "both empty"],
)
def test_own_security_at_most_opponents_in_a_continuous_row(rules, perm, mine, theirs, expected):
    me = {"field": [["EGG-LV6", "DP-IF-BEHIND", "LV4"]], "security": ["WALL3"] * mine}
    s = situation(rules, me, {"security": ["LV5"] * theirs})
    assert dp(perm, s) == expected
    # The opponent's view of the same row: it reads its controller's stacks, not the turn's.
    assert dp(perm, situation(rules, me, {"security": ["LV5"] * theirs}, active=1, turn=3)) == (
        expected
    )


# -- card filters -----------------------------------------------------------------------------------


def test_colors_filter_the_digimon_a_chosen_target_may_be(rules, apply, errors):
    """Only a suspended Digimon whose top card is green (alone or among its colors) may be
    chosen; with none, the Option's row fizzles and no choice opens."""
    me = {"hand": ["WAKE-GREEN"], "field": [RED, ["GREEN3"], ["WALL3"], ["RED-GREEN3"]],
          "suspended": [0, 1, 2, 3]}  # fmt: skip
    s = situation(rules, me, {}, memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_target"
    assert legal(errors, s) == [101, 103]  # GREEN3 and RED-GREEN3, not the red ones
    s, _ = step_ok(rules, apply, errors, s, 101)
    assert np.asarray(s.suspended)[0, :4].tolist() == [True, False, True, True]
    none_green = {"hand": ["WAKE-GREEN"], "field": [RED, ["WALL3"]], "suspended": [0, 1]}
    s, _ = step_ok(rules, apply, errors, situation(rules, none_green, {}, memory=2),
                   A.encode("play", 0))  # fmt: skip
    assert phase(s) == "main" and np.asarray(s.suspended)[0, :2].tolist() == [True, True]


RED = ["EGG-LV6", "AT-DIGI"]  # a red Digimon in play: the (red) test Options may be used


def legal(errors, s):
    return np.flatnonzero(np.asarray(errors(s)) == 0).tolist()


def phase(s):
    return A.PHASES[int(s.board.phase)]


@pytest.mark.parametrize(
    "top, matches",
    [("GREEN3", True), ("RED-GREEN3", True), ("WALL3", False), ("GREEN-T", False)],
    ids=["green", "red and green", "red", "a green Tamer"],
)
def test_colors_filter_what_reveal_add_may_take(rules, apply, errors, top, matches):
    """A green Digimon card, one color of several included, may be taken; a red one or a green
    card of another kind (kinds: digimon) may not, and goes to the bottom of the deck."""
    me = {"hand": ["PEEK-GREEN"], "deck": ["LV4", top], "field": [RED]}  # an Option's color
    s = situation(rules, me, {}, memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    if matches:
        assert phase(s) == "select_reveal" and legal(errors, s) == [30]
        s, _ = step_ok(rules, apply, errors, s, 30)
        assert zone_cards(rules, s, "hand", 0) == [top]
    else:
        assert phase(s) == "main" and zone_cards(rules, s, "hand", 0) == []
        assert zone_cards(rules, s, "deck", 0)[0] == top, "to the bottom"


def test_min_level_filters_what_reveal_add_may_take(rules, apply, errors):
    """Of five revealed Digimon cards only the level 6 one may be taken (level 5 is one below);
    with none of level 6 the row takes nothing."""
    deck = ["LV6", "LV5", "WALL3", "LV4", "LV5"]  # bottom first: revealed top first
    s = situation(rules, {"hand": ["SEEK-LV6"], "deck": deck, "field": [RED]}, {}, memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert zone_cards(rules, s, "revealed") == deck[::-1]
    assert legal(errors, s) == [34], "the fifth revealed card, LV6"
    s, _ = step_ok(rules, apply, errors, s, 34)
    assert zone_cards(rules, s, "hand", 0) == ["LV6"]
    me = {"hand": ["SEEK-LV6"], "deck": ["LV5"] + deck[1:], "field": [RED]}
    s = situation(rules, me, {}, memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    # Nothing to take: the five go under the deck in the order the player gives (four picks).
    assert phase(s) == "select_reveal" and legal(errors, s) == [30, 31, 32, 33, 34]
    for left in (4, 3, 2, 1):
        assert int(s.selection.left) == left
        s, _ = step_ok(rules, apply, errors, s, 30)
    assert phase(s) == "main" and zone_cards(rules, s, "hand", 0) == []
    assert zone_cards(rules, s, "deck", 0)[:5] == ["LV5", "LV4", "WALL3", "LV5", "LV5"][::-1]


def test_colors_filter_what_trash_to_hand_may_take(rules, apply, errors):
    trash = ["GREEN3", "PURPLE3", "RED-GREEN3", "LV4"]
    me = {"hand": ["RAISE-PURPLE"], "trash": trash, "field": [RED]}
    s = situation(rules, me, {}, memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_trash" and legal(errors, s) == [131], "only PURPLE3"
    s, _ = step_ok(rules, apply, errors, s, 131)
    assert zone_cards(rules, s, "hand", 0) == ["PURPLE3"]


def test_play_costs_filter_what_trash_to_hand_may_take(rules, apply, errors):
    """Costs 0 (MILL2) and 2 (GREEN-T) may be taken; 3 (WALL3) and 4 (a filler) not: the edges
    on both sides of 2."""
    trash = ["WALL3", "MILL2", "GREEN-T", "FILL0"]
    me = {"hand": ["RAISE-COST-0-2"], "trash": trash, "field": [RED]}
    s = situation(rules, me, {}, memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_trash" and legal(errors, s) == [131, 132]
    s, _ = step_ok(rules, apply, errors, s, 132)
    assert zone_cards(rules, s, "hand", 0) == ["GREEN-T"]


# -- mill -------------------------------------------------------------------------------------------


def test_mill_puts_the_top_cards_of_the_deck_into_the_trash(rules, apply, errors):
    me = {"hand": ["MILL2"], "deck": ["LV4", "LV5", "LV6"], "field": [RED]}
    s = situation(rules, me, {}, memory=2)
    deck = zone_cards(rules, s, "deck", 0)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert zone_cards(rules, s, "deck", 0) == deck[:-2]
    # The old top card first, then the next; the Option follows once it has resolved.
    assert zone_cards(rules, s, "trash", 0) == ["LV6", "LV5", "MILL2"]


def test_mill_stops_at_an_empty_deck_and_the_game_goes_on(rules, apply, errors):
    """Milling 2 from a 1-card deck trashes that card; an empty deck loses only at a Draw phase
    (official Q&A on ST6-01)."""
    base = situation(rules, {"hand": ["MILL2"], "field": [RED]}, {}, memory=2)
    rest = zone_cards(rules, base, "deck", 0)  # every other main-deck card, bottom first
    me = {"hand": ["MILL2"], "field": [RED], "trash": rest[:-1], "deck": rest[-1:]}
    s = situation(rules, me, {}, memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert zone_cards(rules, s, "deck", 0) == []
    assert zone_cards(rules, s, "trash", 0) == [*rest, "MILL2"]
    assert int(s.winner) == -1 and phase(s) == "main"


# -- choose_opponent_suspended_digimon -------------------------------------------------------------

THEIRS = 112  # SelectTarget ids: 100 + slot for your Digimon, 112 + slot for the opponent's (spec)


def test_a_suspended_opposing_digimon_may_be_chosen_an_unsuspended_one_not(rules, apply, errors):
    opponent = {"field": [["LV4"], ["WALL3"], ["LV4"]], "suspended": [1]}
    s = situation(rules, {"hand": ["SHOCK"], "field": [RED]}, opponent, memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS + 1]
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert zone_cards(rules, s, "hand", 1) == ["WALL3"] and phase(s) == "main"


def test_with_no_suspended_opposing_digimon_the_row_fizzles(rules, apply, errors):
    opponent = {"field": [["LV4"], ["WALL3"]]}
    s = situation(rules, {"hand": ["SHOCK"], "field": [RED]}, opponent, memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "main" and zone_cards(rules, s, "hand", 1) == []
    assert zone_cards(rules, s, "trash", 0) == ["SHOCK"]
