"""Every card of the ST-5 Machine Black starter deck, played out in scripted situations with the
shipped card database, and the primitives it brought: keywords granted for a duration
(``grant_keyword``), the ``has_keyword`` condition, "at the end of the opponent's turn" rows with
the ``opponent_did_not_attack`` condition, "when one of your Digimon blocks" rows with the cost
"you may suspend this Tamer" (``cost_suspend_self``), <Digi-Burst N> (``burst``, G13) and the
``max_cost`` bound.

Player 1 plays the ST-5 cards, player 2 the ST-1 cards (``build_state`` places cards of each
player's own deck)."""

import pytest
from digimon_testlib import (
    code_name,
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
DECLINE = 62
BLOCKER, REBOOT = R.KW["blocker"], R.KW["reboot"]


@pytest.fixture(scope="module")
def rules():
    return starter_rules(("st5", "st1"))


def black(rules, me, opponent, **kw):
    """Player 1 (ST-5) to act."""
    return build_state(rules, [me, opponent], active=0, memory=kw.pop("memory", 3), **kw)


def red(rules, opponent, me, **kw):
    """Player 2 (ST-1) to act."""
    return build_state(rules, [opponent, me], active=1, memory=kw.pop("memory", 3), **kw)


def pass_turn(rules, apply, errors, s):
    """Pass: the other player's turn begins (in Breeding, or in Main when they have nothing to
    hatch or move)."""
    me = int(s.board.active_player)
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    assert int(s.board.active_player) == 1 - me and phase(s) in ("breeding", "main")
    return s


def to_main(rules, apply, errors, s):
    if phase(s) == "breeding":
        s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    assert phase(s) == "main"
    return s


# -- keywords: ST5-01 (has_keyword), ST5-03, ST5-08, ST5-11 ------------------------------------


def test_st5_01_kapurimon_plus_1000_while_the_digimon_has_blocker(rules, perm):
    agumon = black(rules, {"field": [["ST5-01", "ST5-03"]]}, {})  # Agumon: <Blocker>, 1000 DP
    toy = black(rules, {"field": [["ST5-01", "ST5-04"]]}, {})  # ToyAgumon: no <Blocker>
    assert int(perm(agumon).dp[0, 0]) == printed_dp(rules, "ST5-03") + 1000
    assert int(perm(toy).dp[0, 0]) == printed_dp(rules, "ST5-04")
    theirs = agumon.replace(board=agumon.board.replace(active_player=1))
    assert int(perm(theirs).dp[0, 0]) == printed_dp(rules, "ST5-03"), "your turn only"
    # A <Blocker> granted for a duration counts too.
    granted = toy.replace(
        lasting_kind=toy.lasting_kind.at[0].set(R.LASTING_KEYWORD),
        lasting_player=toy.lasting_player.at[0].set(0),
        lasting_slot=toy.lasting_slot.at[0].set(0),
        lasting_amount=toy.lasting_amount.at[0].set(1 << BLOCKER),
        lasting_expires=toy.lasting_expires.at[0].set(3),
    )
    rules.validate(granted)
    assert bool(perm(granted).keywords[0, 0, BLOCKER])
    assert int(perm(granted).dp[0, 0]) == printed_dp(rules, "ST5-04") + 1000


def test_st5_03_st5_08_st5_11_blockers(rules, apply, errors, perm):
    s = black(rules, {"field": [["ST5-03"], ["ST5-04", "ST5-08"], ["ST5-04", "ST5-11", "ST5-12"]]},
              {})  # fmt: skip
    keywords = perm(s).keywords
    assert [bool(keywords[0, k, BLOCKER]) for k in range(3)] == [True, True, True]
    s = red(rules, {"field": [["ST5-03"], ["ST5-04", "ST5-08"]]}, {"field": [["ST1-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "block_timing" and legal(errors, s) == [DECLINE, 100, 101]


def test_st5_08_darktyrannomon_loses_2_memory_when_attacking(rules, apply, errors):
    s = black(rules, {"field": [["ST5-08"]]}, {"security": ["ST1-02"]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert int(s.memory) == 1


# -- at the end of the opponent's turn: ST5-04, ST5-06 ------------------------------------------


@pytest.mark.parametrize("stack_", [["ST5-04", "ST5-07"], ["ST5-06", "ST5-09"]],
                         ids=["st5_04_toyagumon", "st5_06_greymon"])  # fmt: skip
@pytest.mark.parametrize("attack", [False, True], ids=["no attack", "an attack"])
def test_st5_04_st5_06_draw_when_the_opponent_did_not_attack(rules, apply, errors, stack_,
                                                             attack):  # fmt: skip
    """Inherited: at the end of the opponent's turn, if they declared no attack with a Digimon,
    draw 1. Then the new turn's own draw follows."""
    s = red(rules, {"field": [stack_], "security": ["ST5-02"], "deck": ["ST5-05", "ST5-10"]},
            {"field": [["ST1-05"]]})  # fmt: skip
    if attack:
        s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
        assert zone_cards(rules, s, "security", 0) == []
    s = pass_turn(rules, apply, errors, s)
    assert int(s.board.active_player) == 0
    expected = ["ST5-10"] if attack else ["ST5-10", "ST5-05"]  # the deck's top card is last
    assert zone_cards(rules, s, "hand", 0) == expected


# -- keywords granted for a duration: ST5-09, ST5-12 ---------------------------------------------


def test_st5_09_metalgreymon_grants_blocker_until_the_end_of_the_opponents_next_turn(
    rules, apply, errors, perm
):
    s = black(rules, {"hand": ["ST5-09"], "field": [["ST5-06"], ["ST5-04"]], "deck": ["ST5-02"],
                      "security": ["ST5-05", "ST5-05"]}, {"field": [["ST1-05"]]}, memory=3)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert phase(s) == "select_target" and legal(errors, s) == [OWN + 0, OWN + 1]
    s, _ = step_ok(rules, apply, errors, s, OWN + 1)  # ToyAgumon gains <Blocker>
    assert bool(perm(s).keywords[0, 1, BLOCKER]) and not bool(perm(s).keywords[0, 0, BLOCKER])
    s = pass_turn(rules, apply, errors, s)
    s = to_main(rules, apply, errors, s)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "block_timing" and legal(errors, s) == [DECLINE, OWN + 1]
    s, _ = step_ok(rules, apply, errors, s, DECLINE)
    s = pass_turn(rules, apply, errors, s)
    assert not bool(perm(s).keywords[0, 1, BLOCKER]), "ended with the opponent's turn"


def test_st5_12_machinedramon_grants_reboot_to_up_to_2(rules, apply, errors, perm):
    s = black(rules, {"hand": ["ST5-12"], "field": [["ST5-10"], ["ST5-04"], ["ST5-02"]],
                      "deck": ["ST5-05"]}, {"security": ["ST1-02"]}, memory=3)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert legal(errors, s) == [DECLINE, OWN + 0, OWN + 1, OWN + 2], "up to 2"
    s, _ = step_ok(rules, apply, errors, s, OWN + 0)
    s, _ = step_ok(rules, apply, errors, s, OWN + 2)
    reboot = perm(s).keywords[0, :3, REBOOT]
    assert reboot.tolist() == [True, False, True] and phase(s) == "main"
    # <Reboot>: the suspended Machinedramon unsuspends in the opponent's Unsuspend phase too.
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    s = pass_turn(rules, apply, errors, s)
    assert int(s.board.active_player) == 1 and not bool(s.suspended[0, 0])


# -- <Digi-Burst 2> and <Security A. +1>: ST5-13 ------------------------------------------------


def test_st5_13_blitzgreymon_digi_burst_trashes_2_to_give_4000(rules, apply, errors, perm):
    blitz = ["ST5-04", "ST5-06", "ST5-09", "ST5-13"]
    s = black(rules, {"field": [blitz, ["ST5-02"]]}, {})
    assert int(perm(s).security_attack[0, 0]) == 1
    burst = A.encode("activate", 0, 1)
    s, _ = step_ok(rules, apply, errors, s, burst)
    assert stack(rules, s, 0, 0) == ["ST5-04", "ST5-13"], "the 2 cards under the top went"
    assert zone_cards(rules, s, "trash", 0) == ["ST5-09", "ST5-06"]
    assert phase(s) == "select_target" and legal(errors, s) == [OWN + 0, OWN + 1]
    s, _ = step_ok(rules, apply, errors, s, OWN + 1)
    assert int(perm(s).dp[0, 1]) == printed_dp(rules, "ST5-02") + 4000
    assert code_name(errors(s)[burst]) == "not_enough_sources", "1 digivolution card left"


# -- ST5-14 Tai Kamiya: "when one of your Digimon blocks, you may suspend this Tamer" -----------


@pytest.mark.parametrize("choice", ["unsuspend", "decline", "tamer suspended"])
def test_st5_14_tai_may_suspend_to_unsuspend_a_blocker(rules, apply, errors, choice):
    suspended = [1] if choice == "tamer suspended" else []
    s = red(rules, {"field": [["ST5-04", "ST5-08"], ["ST5-14"]], "suspended": suspended},
            {"field": [["ST1-03"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    s, _ = step_ok(rules, apply, errors, s, OWN + 0)  # DarkTyrannomon blocks
    if choice == "tamer suspended":
        assert phase(s) == "main" and bool(s.suspended[0, 0]), "no cost to pay: no choice"
        return
    assert phase(s) == "select_target" and legal(errors, s) == [DECLINE, OWN + 0]
    s, _ = step_ok(rules, apply, errors, s, OWN + 0 if choice == "unsuspend" else DECLINE)
    paid = choice == "unsuspend"
    assert bool(s.suspended[0, 0]) != paid and bool(s.suspended[0, 1]) == paid
    assert stack(rules, s, 1, 0) == [] and stack(rules, s, 0, 0) == ["ST5-04", "ST5-08"]


def test_st5_14_tai_plays_itself_from_security(rules, apply, errors):
    s = red(rules, {"security": ["ST5-02", "ST5-14"]}, {"field": [["ST1-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 0, 0) == ["ST5-14"] and zone_cards(rules, s, "trash", 0) == []


# -- Options: ST5-15, ST5-16 ---------------------------------------------------------------------


def test_st5_15_laser_eye_de_digivolves_up_to_2(rules, apply, errors):
    s = black(rules, {"hand": ["ST5-15"], "field": [["ST5-02"]]},
              {"field": [["ST1-03", "ST1-07"], ["ST1-02", "ST1-05", "ST1-08"]]}, memory=4)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert legal(errors, s) == [DECLINE, THEIRS + 0, THEIRS + 1]
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert stack(rules, s, 1, 1) == ["ST1-02", "ST1-05"] and phase(s) == "select_target"
    s, _ = step_ok(rules, apply, errors, s, DECLINE)
    assert stack(rules, s, 1, 0) == ["ST1-03", "ST1-07"] and phase(s) == "main"
    # Security: the Main effect, for free.
    s = red(rules, {"security": ["ST5-15"]}, {"field": [["ST1-03", "ST1-07"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 1, 0) == ["ST1-03"]


def test_st5_16_dark_side_attack_deletes_a_play_cost_7_or_less(rules, apply, errors):
    s = black(rules, {"hand": ["ST5-16"], "field": [["ST5-02"]]},
              {"field": [["ST1-10"], ["ST1-08"]]}, memory=5)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert legal(errors, s) == [THEIRS + 1], "Phoenixmon costs 10: out of reach"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert stack(rules, s, 1, 1) == [] and stack(rules, s, 1, 0) == ["ST1-10"]
    s = red(rules, {"security": ["ST5-16"]}, {"field": [["ST1-08"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 1, 0) == [] and int(s.attacker) == -1


# -- the vanilla cards: ST5-02, ST5-05, ST5-07, ST5-10 -------------------------------------------


def test_st5_vanilla_cards_play_and_digivolve_with_their_printed_stats(rules, apply, errors,
                                                                      perm):  # fmt: skip
    for number in ("ST5-02", "ST5-05", "ST5-07", "ST5-10"):
        card = rules.cards.definition(number)
        assert card["effects"] == () and card["keywords"] == 0 == card["inherited_keywords"]
    s = black(rules, {"hand": ["ST5-02", "ST5-05", "ST5-07", "ST5-10"], "field": [["ST5-03"],
                      ["ST5-06"]]}, {}, memory=10)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))  # Jazamon, cost 2
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))  # Commandramon, cost 4
    assert [stack(rules, s, 0, k) for k in (2, 3)] == [["ST5-02"], ["ST5-05"]]
    assert int(s.memory) == 4
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))  # Jazardmon onto Agumon
    hand = zone_cards(rules, s, "hand", 0)
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", hand.index("ST5-10"), 1))
    assert [stack(rules, s, 0, k) for k in (0, 1)] == [["ST5-03", "ST5-07"], ["ST5-06", "ST5-10"]]
    # 10 - 2 - 4 - 2 - 3 = -1: the turn passed, the gauge shows 1 on the opponent's side.
    assert int(s.board.active_player) == 1 and int(s.memory) == 1
    dp = perm(s).dp[0]
    assert [int(dp[k]) for k in range(4)] == [printed_dp(rules, n)
                                              for n in ("ST5-07", "ST5-10", "ST5-02", "ST5-05")]  # fmt: skip
