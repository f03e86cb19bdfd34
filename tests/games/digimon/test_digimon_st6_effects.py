"""Every card of the ST-6 Venomous Violet starter deck, played out in scripted situations with
the shipped card database, and the primitives it brought: playing a card from the trash
(``play_from_trash``, with ``no_on_play``), the trigger "when one of your Digimon is deleted"
(``own_digimon_deleted``), "if you do" (``gates_next``: the next row resolves only when this one
chose) and the ``play_costs`` filter.

Player 1 plays the ST-6 cards, player 2 the ST-1 cards (``build_state`` places cards of each
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
TRASH = 130


@pytest.fixture(scope="module")
def rules():
    return starter_rules(("st6", "st1"))


def purple(rules, me, opponent, **kw):
    """Player 1 (ST-6) to act."""
    return build_state(rules, [me, opponent], active=0, memory=kw.pop("memory", 3), **kw)


def red(rules, opponent, me, **kw):
    """Player 2 (ST-1) to act."""
    return build_state(rules, [opponent, me], active=1, memory=kw.pop("memory", 3), **kw)


# -- stats only: ST6-02, ST6-05, ST6-07, ST6-09 ---------------------------------------------------


@pytest.mark.parametrize("number", ["ST6-02", "ST6-05", "ST6-07", "ST6-09"])
def test_st6_vanilla_digimon_play_as_printed(rules, apply, errors, perm, number):
    """DemiDevimon, Elecmon, Youkomon, Kyukimon: no effect; played for their cost at printed DP."""
    assert not rules.cards.definition(number)["effects"]
    s = purple(rules, {"hand": [number]}, {}, memory=10)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    cost = rules.cards.definition(number)["play_cost"]
    assert stack(rules, s, 0, 0) == [number] and phase(s) == "main"
    assert int(s.memory) == 10 - cost and int(perm(s).dp[0, 0]) == printed_dp(rules, number)
    assert int(s.queue.card[0]) == -1


# -- ST6-01 Pagumon: mill on deletion -------------------------------------------------------------


def test_st6_01_pagumon_trashes_the_top_2_cards_when_deleted(rules, apply, errors):
    s = purple(rules, {"field": [["ST6-01", "ST6-03"]], "deck": ["ST6-05", "ST6-07", "ST6-02"]},
               {"field": [["ST1-05"]], "suspended": [0]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))  # Gabumon 2000 vs 5000
    assert stack(rules, s, 0, 0) == []
    trash = zone_cards(rules, s, "trash", 0)
    assert sorted(trash[:2]) == ["ST6-01", "ST6-03"] and trash[2:] == ["ST6-02", "ST6-07"]
    assert zone_cards(rules, s, "deck", 0)[-1] == "ST6-05"


# -- ST6-03 Gabumon, ST6-06 Garurumon: draw 1 then trash 1 when attacking -------------------------


@pytest.mark.parametrize("attacker", [["ST6-03", "ST6-06"], ["ST6-06", "ST6-09"]],
                         ids=["st6_03_gabumon", "st6_06_garurumon"])  # fmt: skip
def test_st6_03_st6_06_draw_then_trash_one_when_attacking(rules, apply, errors, attacker):
    s = purple(rules, {"field": [attacker], "hand": ["ST6-15"], "deck": ["ST6-02"]},
               {"security": ["ST1-02"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "hand", 0) == ["ST6-15", "ST6-02"]
    assert phase(s) == "select_hand" and legal(errors, s) == [30, 31], "trash one, not optional"
    s, _ = step_ok(rules, apply, errors, s, 30)
    assert zone_cards(rules, s, "hand", 0) == ["ST6-02"]
    assert zone_cards(rules, s, "trash", 0) == ["ST6-15"]


# -- ST6-04 Dracmon (play_costs), ST6-10 SkullSatamon: from the trash to the hand ----------------


def test_st6_04_dracmon_takes_a_purple_option_costing_1_or_7(rules, apply, errors):
    s = purple(rules, {"hand": ["ST6-04"], "trash": ["ST6-02", "ST6-15", "ST6-16"]}, {})
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_trash" and legal(errors, s) == [DECLINE, TRASH + 1, TRASH + 2]
    s, _ = step_ok(rules, apply, errors, s, TRASH + 2)
    assert zone_cards(rules, s, "hand", 0) == ["ST6-16"] and phase(s) == "main"


def test_st6_10_skullsatamon_may_take_a_purple_digimon_from_the_trash(rules, apply, errors):
    s = purple(rules, {"hand": ["ST6-10"], "field": [["ST6-06"]], "trash": ["ST6-15", "ST6-02"]},
               {})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert phase(s) == "select_trash" and legal(errors, s) == [DECLINE, TRASH + 1]
    s, _ = step_ok(rules, apply, errors, s, DECLINE)
    assert zone_cards(rules, s, "trash", 0) == ["ST6-15", "ST6-02"] and phase(s) == "main"


# -- ST6-08 Devimon, ST6-11 WereGarurumon, ST6-12 VenomMyotismon -----------------------------------


def test_st6_08_devimon_blocker_loses_2_memory_when_attacking(rules, apply, errors, perm):
    s = purple(rules, {"field": [["ST6-08"]]}, {"security": ["ST1-02"]})
    assert bool(perm(s).keywords[0, 0, R.KW["blocker"]])
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert int(s.memory) == 1


@pytest.mark.parametrize("in_trash", [4, 5])
def test_st6_11_weregarurumon_plus_2000_with_5_cards_in_your_trash(rules, perm, in_trash):
    trash = ["ST6-02", "ST6-05", "ST6-07", "ST6-15", "ST6-16"][:in_trash]
    s = purple(rules, {"field": [["ST6-11", "ST6-12"]], "trash": trash},
               {"trash": ["ST1-02", "ST1-03"]})  # fmt: skip
    bonus = 2000 if in_trash >= 5 else 0  # the opponent's trash does not count
    assert int(perm(s).dp[0, 0]) == printed_dp(rules, "ST6-12") + bonus
    theirs = s.replace(board=s.board.replace(active_player=1))
    assert int(perm(theirs).dp[0, 0]) == printed_dp(rules, "ST6-12"), "your turn only"


def test_st6_12_venommyotismon_gives_up_to_2_digimon_retaliation(rules, apply, errors, perm):
    s = purple(rules, {"hand": ["ST6-12"], "field": [["ST6-09"], ["ST6-02"], ["ST6-05"]]}, {},
               memory=3)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert phase(s) == "select_target" and legal(errors, s) == [DECLINE, OWN, OWN + 1, OWN + 2]
    s, _ = step_ok(rules, apply, errors, s, OWN)  # VenomMyotismon itself (official Q&A)
    s, _ = step_ok(rules, apply, errors, s, OWN + 2)
    retaliation = perm(s).keywords[0, :3, R.KW["retaliation"]]
    assert [bool(k) for k in retaliation] == [True, False, True] and phase(s) == "main"


# -- ST6-13 CresGarurumon: Security A. +1, Digi-Burst 2 playing from the trash --------------------


def test_st6_13_cresgarurumon_digi_burst_plays_a_level_3_from_the_trash(rules, apply, errors, perm):
    s = purple(rules, {"field": [["ST6-03", "ST6-09", "ST6-13"]], "trash": ["ST6-06", "ST6-02"]},
               {})  # fmt: skip
    assert int(perm(s).security_attack[0, 0]) == 1
    s, _ = step_ok(rules, apply, errors, s, A.encode("activate", 0, 1))
    # The burst trashed Kyukimon and Gabumon (official Q&A: a card it trashed may be chosen).
    assert zone_cards(rules, s, "trash", 0) == ["ST6-06", "ST6-02", "ST6-09", "ST6-03"]
    assert phase(s) == "select_trash" and legal(errors, s) == [TRASH + 1, TRASH + 3]
    s, _ = step_ok(rules, apply, errors, s, TRASH + 3)
    assert stack(rules, s, 0, 0) == ["ST6-13"] and stack(rules, s, 0, 1) == ["ST6-03"]


# -- ST6-14 Matt Ishida: own_digimon_deleted with a confirm choice ----------------------------------


@pytest.mark.parametrize("take", [True, False], ids=["taken", "declined"])
def test_st6_14_matt_when_one_of_your_digimon_is_deleted(rules, apply, errors, take):
    s = purple(rules, {"field": [["ST6-02"], ["ST6-14"]]},
               {"field": [["ST1-05"]], "suspended": [0]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))  # 4000 vs 5000: deleted
    assert stack(rules, s, 0, 0) == []
    assert phase(s) == "select_effect_choice" and legal(errors, s) == [DECLINE, TAKE]
    s, _ = step_ok(rules, apply, errors, s, TAKE if take else DECLINE)
    assert int(s.memory) == (4 if take else 3) and bool(s.suspended[0, 1]) == take


def test_st6_14_matt_your_turn_only_and_from_security(rules, apply, errors):
    # Red's Birdramon deletes the suspended DemiDevimon on Red's turn: nothing is asked.
    s = red(rules, {"field": [["ST6-02"], ["ST6-14"]], "suspended": [0], "security": ["ST6-05"]},
            {"field": [["ST1-05"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 0, 0) == [] and phase(s) == "main" and int(s.memory) == 3
    s = red(rules, {"security": ["ST6-14"]}, {"field": [["ST1-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 0, 0) == ["ST6-14"]


# -- ST6-15 Death Claw: gates_next ----------------------------------------------------------------


def test_st6_15_death_claw_deletes_yours_then_theirs(rules, apply, errors):
    s = purple(rules, {"hand": ["ST6-15"], "field": [["ST6-02"]]},
               {"field": [["ST1-10"], ["ST1-05"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_target" and legal(errors, s) == [DECLINE, OWN]
    s, _ = step_ok(rules, apply, errors, s, OWN)
    assert stack(rules, s, 0, 0) == []
    assert legal(errors, s) == [THEIRS + 1], "level 4 or less: not Phoenixmon"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert stack(rules, s, 1, 1) == [] and stack(rules, s, 1, 0) == ["ST1-10"]


def test_st6_15_death_claw_declined_or_nothing_to_delete_deletes_nothing(rules, apply, errors):
    s = purple(rules, {"hand": ["ST6-15"], "field": [["ST6-02"]]}, {"field": [["ST1-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, DECLINE)
    assert phase(s) == "main" and stack(rules, s, 1, 0) == ["ST1-05"]
    assert stack(rules, s, 0, 0) == ["ST6-02"] and int(s.queue.card[0]) == -1
    # Only a Tamer to give the color: no Digimon of yours to delete, so nothing of theirs either.
    s = purple(rules, {"hand": ["ST6-15"], "field": [["ST6-14"]]}, {"field": [["ST1-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "main" and stack(rules, s, 1, 0) == ["ST1-05"]


def test_st6_15_death_claw_security_deletes_a_level_4_or_less(rules, apply, errors):
    s = red(rules, {"security": ["ST6-15"]}, {"field": [["ST1-10"], ["ST1-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 1, PLAYER))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS + 1]
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert stack(rules, s, 1, 1) == [] and stack(rules, s, 1, 0) == ["ST1-10"]


# -- ST6-16 Nail Bone: play_from_trash with no_on_play ----------------------------------------------


def test_st6_16_nail_bone_plays_a_level_3_and_a_level_4_without_on_play(rules, apply, errors):
    s = purple(rules, {"hand": ["ST6-16"], "field": [["ST6-14"]],
                       "trash": ["ST6-02", "ST6-04", "ST6-06", "ST6-09", "ST6-15"]},
               {}, memory=7)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_trash" and legal(errors, s) == [DECLINE, TRASH, TRASH + 1]
    s, _ = step_ok(rules, apply, errors, s, TRASH + 1)  # Dracmon: its [On Play] stays silent
    assert stack(rules, s, 0, 1) == ["ST6-04"]
    assert phase(s) == "select_trash" and legal(errors, s) == [DECLINE, TRASH + 1], "level 4"
    s, _ = step_ok(rules, apply, errors, s, TRASH + 1)
    assert stack(rules, s, 0, 2) == ["ST6-06"] and phase(s) == "main"
    assert zone_cards(rules, s, "trash", 0) == ["ST6-02", "ST6-09", "ST6-15", "ST6-16"]


def test_st6_16_nail_bone_security_plays_a_level_4_or_less(rules, apply, errors):
    # Death Claw in the trash: Dracmon's [On Play] would offer it.
    s = red(rules, {"security": ["ST6-16"], "trash": ["ST6-09", "ST6-04", "ST6-15"]},
            {"field": [["ST1-05"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "select_trash" and legal(errors, s) == [DECLINE, TRASH + 1]
    s, _ = step_ok(rules, apply, errors, s, TRASH + 1)
    assert stack(rules, s, 0, 0) == ["ST6-04"] and phase(s) == "main", "no [On Play] choice"
