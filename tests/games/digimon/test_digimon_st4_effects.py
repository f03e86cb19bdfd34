"""Every card of the ST-4 Giga Green starter deck, played out in scripted situations with the
shipped card database, and the primitives it brought: the triggers "when an opposing Digimon
becomes suspended" (``opponent_digimon_suspended``) and "when this Digimon deletes the Digimon it
battles and survives" (``won_battle``), trashing the top card of a security stack
(``trash_security_top``), and optional rows that choose nothing ("you may ...": a confirm choice,
SelectEffectChoice 1000 or 62) with the cost "suspend this Tamer" (``cost_suspend_self``).

Player 1 plays the ST-4 cards, player 2 the ST-1 cards (``build_state`` places cards of each
player's own decks)."""

import pytest
from digimon_testlib import (
    legal,
    phase,
    printed_dp,
    stack,
    starter_rules,
    step_ok,
    zone_cards,
)

from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.scenario import build_state

PLAYER = A.TARGET_PLAYER
OWN, THEIRS = 100, 112
DECLINE, TAKE = 62, 1000


@pytest.fixture(scope="module")
def rules():
    return starter_rules(("st4", "st1"))


def green(rules, me, opponent, **kw):
    """Player 1 (ST-4) to act."""
    return build_state(rules, [me, opponent], active=0, memory=kw.pop("memory", 3), **kw)


def red(rules, opponent, me, **kw):
    """Player 2 (ST-1) to act."""
    return build_state(rules, [opponent, me], active=1, memory=kw.pop("memory", 3), **kw)


def memory_of(state, player) -> int:
    """Memory on ``player``'s side of the gauge."""
    memory = int(state.memory)
    return memory if int(state.board.active_player) == player else -memory


# -- stats only: ST4-02, ST4-05, ST4-07, ST4-09 ---------------------------------------------------


@pytest.mark.parametrize("number", ["ST4-02", "ST4-05", "ST4-07", "ST4-09"])
def test_st4_vanilla_digimon_play_as_printed(rules, apply, errors, perm, number):
    """Floramon, Kunemon, Kuwagamon, Okuwamon: no effect; played for their cost at printed DP."""
    assert not rules.cards.definition(number)["effects"]
    s = green(rules, {"hand": [number]}, {}, memory=10)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    cost = rules.cards.definition(number)["play_cost"]
    assert stack(rules, s, 0, 0) == [number] and phase(s) == "main"
    assert int(s.memory) == 10 - cost and int(perm(s).dp[0, 0]) == printed_dp(rules, number)
    assert int(s.queue.card[0]) == -1


# -- ST4-01 Motimon: self_level_at_least ----------------------------------------------------------


def test_st4_01_motimon_plus_1000_at_level_6_or_more_on_your_turn(rules, perm):
    s = green(rules, {"field": [["ST4-01", "ST4-10"], ["ST4-01", "ST4-09", "ST4-12"]]}, {})
    assert int(perm(s).dp[0, 0]) == printed_dp(rules, "ST4-10"), "level 5: no bonus"
    assert int(perm(s).dp[0, 1]) == printed_dp(rules, "ST4-12") + 1000
    theirs = s.replace(board=s.board.replace(active_player=1))
    assert int(perm(theirs).dp[0, 1]) == printed_dp(rules, "ST4-12"), "your turn only"


# -- ST4-03 Tentomon, ST4-10 Lillymon: reveal_add with colors / min_level -------------------------


def test_st4_03_tentomon_takes_a_green_digimon_card_from_the_top(rules, apply, errors):
    s = green(rules, {"hand": ["ST4-03"], "deck": ["ST4-02"]}, {})
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_reveal" and legal(errors, s) == [30], "taken, not declinable"
    s, _ = step_ok(rules, apply, errors, s, 30)
    assert zone_cards(rules, s, "hand", 0) == ["ST4-02"] and phase(s) == "main"


@pytest.mark.parametrize("top", ["ST4-15", "ST4-14"], ids=["an option", "a tamer"])
def test_st4_03_tentomon_puts_anything_but_a_digimon_card_at_the_bottom(rules, apply, errors, top):
    s = green(rules, {"hand": ["ST4-03"], "deck": [top]}, {})
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "main" and zone_cards(rules, s, "hand", 0) == []
    deck = zone_cards(rules, s, "deck", 0)
    assert deck[0] == top and deck[-1] != top, "from the top to the bottom of the deck"


def test_st4_10_lillymon_takes_a_level_6_digimon_among_the_top_5(rules, apply, errors):
    # Bottom first: the digivolution's draw takes ST4-07, then the next five are revealed.
    listed = ["ST4-05", "ST4-12", "ST4-09", "ST4-13", "ST4-15", "ST4-02", "ST4-07"]
    s = green(rules, {"hand": ["ST4-10"], "field": [["ST4-01", "ST4-06"]], "deck": listed}, {})
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert zone_cards(rules, s, "revealed") == ["ST4-02", "ST4-15", "ST4-13", "ST4-09", "ST4-12"]
    assert phase(s) == "select_reveal" and legal(errors, s) == [32, 34], "the level 6 cards"
    s, _ = step_ok(rules, apply, errors, s, 34)
    assert zone_cards(rules, s, "hand", 0) == ["ST4-07", "ST4-12"]
    # "The rest at the bottom in any order": the player puts them under the deck one by one.
    assert phase(s) == "select_reveal" and int(s.selection.stage) == A.CHOICE_BOTTOM
    assert legal(errors, s) == [30, 31, 32, 33]
    for pick in (32, 30, 31):  # ST4-13 first (highest), then ST4-02, then ST4-09
        s, _ = step_ok(rules, apply, errors, s, pick)
    assert phase(s) == "main" and zone_cards(rules, s, "revealed") == []
    deck = zone_cards(rules, s, "deck", 0)
    assert deck[:4] == ["ST4-15", "ST4-09", "ST4-02", "ST4-13"] and deck[-1] == "ST4-05"


# -- ST4-04 Palmon, ST4-06 Togemon: attacking_a_digimon -------------------------------------------


@pytest.mark.parametrize(
    ("attacker", "defender"),
    [(["ST4-01", "ST4-04", "ST4-06"], "ST1-05"), (["ST4-01", "ST4-06", "ST4-09"], "ST1-08")],
    ids=["st4_04_palmon", "st4_06_togemon"],
)
def test_st4_04_st4_06_plus_2000_when_attacking_a_digimon(rules, apply, errors, attacker, defender):
    """Inherited: +2000 DP for the turn when the attack targets a Digimon. Togemon (4000) beats
    Birdramon (5000), Okuwamon (7000) beats Garudamon (7000) only with it."""
    s = green(rules, {"field": [attacker]}, {"field": [[defender]], "suspended": [0]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 1, 0) == [] and stack(rules, s, 0, 0) == attacker
    assert zone_cards(rules, s, "trash", 1) == [defender]


def test_st4_04_palmon_no_bonus_when_attacking_the_player(rules, apply, errors, perm):
    s = green(rules, {"field": [["ST4-01", "ST4-04", "ST4-06"]]}, {"security": ["ST1-02"]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "trash", 1) == ["ST1-02"], "the check was made"
    assert int(perm(s).dp[0, 0]) == printed_dp(rules, "ST4-06")


# -- ST4-08 Kabuterimon ----------------------------------------------------------------------------


def test_st4_08_kabuterimon_blocker_loses_2_memory_when_attacking(rules, apply, errors, perm):
    s = green(rules, {"field": [["ST4-08"]]}, {"security": ["ST1-02"]})
    assert bool(perm(s).keywords[0, 0, R.KW["blocker"]])
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert int(s.memory) == 1


# -- ST4-11 MegaKabuterimon: won_battle, trash_security_top ---------------------------------------

# 11000 DP (no Motimon, no Togemon: their bonuses would change the battles), ST4-11 inherited.
ROSEMON_OVER_MEGA = ["ST4-07", "ST4-11", "ST4-12"]


def test_st4_11_trashes_the_top_security_card_after_winning_a_battle(rules, apply, errors):
    """Rosemon deletes Garudamon and survives: the top security card (Gaia Force) goes to the
    trash without its [Security] effect (it would delete Rosemon)."""
    s = green(rules, {"field": [ROSEMON_OVER_MEGA]},
              {"field": [["ST1-08"]], "suspended": [0], "security": ["ST1-02", "ST1-16"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert zone_cards(rules, s, "security", 1) == ["ST1-02"]
    assert zone_cards(rules, s, "trash", 1) == ["ST1-08", "ST1-16"]
    assert stack(rules, s, 0, 0) == ROSEMON_OVER_MEGA and phase(s) == "main"


def test_st4_11_then_piercing_checks_the_next_card(rules, apply, errors, perm):
    """HerculesKabuterimon (<Piercing>) over MegaKabuterimon: the top card is trashed by the
    effect first, then the piercing check flips the next one."""
    hercules = ["ST4-07", "ST4-11", "ST4-13"]
    s = green(rules, {"field": [hercules]},
              {"field": [["ST1-08"]], "suspended": [0], "security": ["ST1-02", "ST1-03"]})  # fmt: skip
    assert bool(perm(s).keywords[0, 0, R.KW["piercing"]])
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert zone_cards(rules, s, "security", 1) == []
    assert zone_cards(rules, s, "trash", 1) == ["ST1-08", "ST1-03", "ST1-02"]


def test_st4_11_nothing_when_the_battle_is_lost(rules, apply, errors):
    """Phoenixmon (12000) beats Rosemon (11000): Rosemon is deleted, no trigger."""
    s = green(rules, {"field": [ROSEMON_OVER_MEGA]},
              {"field": [["ST1-10"]], "suspended": [0], "security": ["ST1-02", "ST1-16"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 0, 0) == [] and stack(rules, s, 1, 0) == ["ST1-10"]
    assert zone_cards(rules, s, "security", 1) == ["ST1-02", "ST1-16"]


def test_st4_11_equal_dp_deletes_both_and_triggers_nothing(rules, apply, errors):
    """HerculesKabuterimon (12000) over MegaKabuterimon against Phoenixmon (12000): both are
    deleted, so the attacker did not survive (and <Piercing> checks nothing)."""
    s = green(rules, {"field": [["ST4-07", "ST4-11", "ST4-13"]]},
              {"field": [["ST1-10"]], "suspended": [0], "security": ["ST1-02"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 0, 0) == [] and stack(rules, s, 1, 0) == []
    assert zone_cards(rules, s, "security", 1) == ["ST1-02"]


def test_st4_11_attacking_the_player_or_an_empty_stack(rules, apply, errors):
    # An attack on the player checks security: no battle won, nothing more trashed.
    s = green(rules, {"field": [ROSEMON_OVER_MEGA]}, {"security": ["ST1-02", "ST1-03"]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "security", 1) == ["ST1-02"]
    # With no security card left the effect trashes nothing and wins nothing.
    s = green(rules, {"field": [ROSEMON_OVER_MEGA]}, {"field": [["ST1-08"]], "suspended": [0]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert int(s.winner) == -1 and stack(rules, s, 1, 0) == [] and phase(s) == "main"


def test_st4_11_your_turn_only(rules, apply, errors):
    """Red attacks the suspended Rosemon with Garudamon: Rosemon wins, on Red's turn: nothing."""
    s = red(rules, {"field": [ROSEMON_OVER_MEGA], "suspended": [0], "security": ["ST4-02"]},
            {"field": [["ST1-08"]], "security": ["ST1-02"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 1, 0) == [] and stack(rules, s, 0, 0) == ROSEMON_OVER_MEGA
    assert zone_cards(rules, s, "security", 1) == ["ST1-02"]


# -- ST4-12 Rosemon, ST4-13 HerculesKabuterimon ----------------------------------------------------


def test_st4_12_rosemon_stops_a_digimon_attacking_until_the_end_of_its_next_turn(
    rules, apply, errors
):
    s = green(rules, {"hand": ["ST4-12"], "field": [["ST4-01", "ST4-06", "ST4-09"]]},
              {"field": [["ST1-05"], ["ST1-04"]]}, memory=3)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS, THEIRS + 1]
    s, _ = step_ok(rules, apply, errors, s, THEIRS)
    restricted = rules.restricted(s, R.CANNOT_ATTACK)
    assert bool(restricted[1, 0]) and not bool(restricted[1, 1])
    assert bool(rules.restricted(s, R.CANNOT_BLOCK)[1, 0])


def test_st4_13_herculeskabuterimon_digi_burst_2_suspends_a_digimon(rules, apply, errors):
    s = green(rules, {"field": [["ST4-01", "ST4-06", "ST4-09", "ST4-13"]]},
              {"field": [["ST1-05"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("activate", 0, 0))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS]
    assert stack(rules, s, 0, 0) == ["ST4-01", "ST4-13"], "two digivolution cards trashed"
    s, _ = step_ok(rules, apply, errors, s, THEIRS)
    assert bool(s.suspended[1, 0]) and phase(s) == "main"


# -- ST4-14 Izzy Izumi: opponent_digimon_suspended, a confirm choice, cost_suspend_self ------------

IZZY = ["ST4-14"]


@pytest.mark.parametrize("take", [True, False], ids=["taken", "declined"])
def test_st4_14_izzy_when_an_effect_suspends_an_opposing_digimon(rules, apply, errors, take):
    s = green(rules, {"hand": ["ST4-15"], "field": [IZZY]}, {"field": [["ST1-05"]]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))  # Needle Spray, cost 2
    s, _ = step_ok(rules, apply, errors, s, THEIRS)
    assert bool(s.suspended[1, 0])
    assert phase(s) == "select_effect_choice" and legal(errors, s) == [DECLINE, TAKE]
    assert int(s.selection.stage) == A.CHOICE_CONFIRM
    assert "Izzy Izumi" in A.describe(rules, s, TAKE)
    s, _ = step_ok(rules, apply, errors, s, TAKE if take else DECLINE)
    assert phase(s) == "main" and int(s.memory) == (2 if take else 1)
    assert bool(s.suspended[0, 0]) == take, "the cost: Izzy is suspended"


def test_st4_14_izzy_when_an_opposing_digimon_blocks(rules, apply, errors):
    """Official Q&A: a Digimon suspended by blocking counts."""
    s = green(rules, {"field": [["ST4-07"], IZZY]},
              {"field": [["ST1-06"]], "security": ["ST1-02"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "block_timing"
    s, _ = step_ok(rules, apply, errors, s, 100)  # Coredramon blocks
    assert phase(s) == "select_effect_choice" and legal(errors, s) == [DECLINE, TAKE]
    s, _ = step_ok(rules, apply, errors, s, TAKE)
    assert int(s.memory) == 4 and bool(s.suspended[0, 1])


def test_st4_14_izzy_only_on_your_turn_and_only_unsuspended(rules, apply, errors):
    # Red's attack suspends Red's Digimon on Red's turn: Izzy's [Your Turn] row does not fire.
    s = red(rules, {"field": [IZZY], "security": ["ST4-02"]}, {"field": [["ST1-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "main" and int(s.memory) == 3
    # A suspended Izzy cannot pay: nothing is asked.
    s = green(rules, {"hand": ["ST4-15"], "field": [IZZY], "suspended": [0]},
              {"field": [["ST1-05"]]}, memory=3)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS)
    assert phase(s) == "main" and int(s.memory) == 1


def test_st4_14_izzy_plays_itself_from_security(rules, apply, errors):
    s = red(rules, {"security": ["ST4-14"]}, {"field": [["ST1-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 0, 0) == IZZY and zone_cards(rules, s, "security", 0) == []


# -- ST4-15 Needle Spray, ST4-16 Electro Shocker ---------------------------------------------------


def test_st4_15_needle_spray_suspends_and_its_security_effect_returns_it_to_hand(
    rules, apply, errors
):
    s = green(rules, {"hand": ["ST4-15"], "field": [["ST4-02"]]}, {"field": [["ST1-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS)
    assert bool(s.suspended[1, 0]) and zone_cards(rules, s, "trash", 0) == ["ST4-15"]
    # Security: Red's attack flips it; Green suspends Red's other Digimon, and keeps the card.
    s = red(rules, {"security": ["ST4-15"]}, {"field": [["ST1-05"], ["ST1-04"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "select_target" and int(rules.decider(s)) == 0
    assert legal(errors, s) == [THEIRS + 1], "the attacker is suspended already"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert bool(s.suspended[1, 1]) and zone_cards(rules, s, "hand", 0) == ["ST4-15"]
    assert zone_cards(rules, s, "trash", 0) == []


def test_st4_16_electro_shocker_returns_a_suspended_digimon(rules, apply, errors):
    s = green(rules, {"hand": ["ST4-16"], "field": [["ST4-02"]]},
              {"field": [["ST1-02"], ["ST1-01", "ST1-03", "ST1-05"]], "suspended": [1]},
              memory=5)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS + 1], "suspended only"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert stack(rules, s, 1, 1) == [] and zone_cards(rules, s, "hand", 1) == ["ST1-05"]
    assert sorted(zone_cards(rules, s, "trash", 1)) == ["ST1-01", "ST1-03"]


def test_st4_16_electro_shocker_security_returns_the_attacker(rules, apply, errors):
    s = red(rules, {"security": ["ST4-16"]}, {"field": [["ST1-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS]
    s, _ = step_ok(rules, apply, errors, s, THEIRS)
    assert stack(rules, s, 1, 0) == [] and zone_cards(rules, s, "hand", 1) == ["ST1-05"]
    assert zone_cards(rules, s, "trash", 0) == ["ST4-16"] and phase(s) == "main"
