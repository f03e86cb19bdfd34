"""Every card of the ST-3 Heaven's Yellow starter deck, played out in scripted situations with the
shipped card database, and the rules it brought: a Digimon at 0 DP is deleted by the rules
(G11), "when an opponent's Digimon is deleted at 0 DP" triggers, conditions on the size of the
controller's security stack, a Tamer's aura on Security Digimon, a security Option that goes to
the hand, and <Security A. -N> (never below 0 checks, also in the middle of an attack; G12).

Player 1 plays the ST-3 cards, player 2 the ST-1 cards (``build_state`` places cards of each
player's own deck)."""

import jax
import numpy as np
import pytest
from digimon_testlib import legal, phase, printed_dp, stack, starter_rules, step_ok, zone_cards

from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import cards as C
from tcgjax.games.digimon.scenario import build_state

PLAYER = A.TARGET_PLAYER
OWN, THEIRS = 100, 112
ORDER = 1000  # SelectEffectChoice: which of a player's simultaneous triggers resolves first


@pytest.fixture(scope="module")
def rules():
    return starter_rules(("st3", "st1"))


def yellow(rules, me, opponent, **kw):
    """Player 1 (ST-3) to act."""
    return build_state(rules, [me, opponent], active=0, memory=kw.pop("memory", 3), **kw)


def red(rules, opponent, me, **kw):
    """Player 2 (ST-1) to act."""
    return build_state(rules, [opponent, me], active=1, memory=kw.pop("memory", 3), **kw)


def pass_turn(rules, apply, errors, s):
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    assert phase(s) == "breeding"
    return s


# -- the 0 DP rule and its triggers: ST3-14 (Main), ST3-01, ST3-04 --------------------------------


def test_st3_14_charm_to_0_dp_deletes_and_st3_01_st3_04_fire_once_a_turn(rules, apply, errors,
                                                                         perm):  # fmt: skip
    """Heaven's Charm takes an Agumon (2000) to exactly 0 DP: the rules delete it, and the
    inherited rows of Tokomon (+1000 DP this turn) and Patamon (+1 memory) fire together, in the
    order their controller picks. A second deletion the same turn fires neither (once a turn)."""
    angemon = ["ST3-01", "ST3-04", "ST3-05"]  # Tokomon under Patamon under Angemon
    s = yellow(rules, {"hand": ["ST3-14", "ST3-14"], "field": [angemon]},
               {"field": [["ST1-03"], ["ST1-03"]]}, memory=5)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert legal(errors, s) == [THEIRS + 0, THEIRS + 1], "exactly 1: no decline"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 1, 0) == [] and zone_cards(rules, s, "trash", 1) == ["ST1-03"]
    assert phase(s) == "select_effect_choice" and legal(errors, s) == [ORDER, ORDER + 1]
    s, _ = step_ok(rules, apply, errors, s, ORDER + 1)
    assert phase(s) == "main" and int(s.memory) == 3 - 2 + 1 + 2
    assert int(perm(s).dp[0, 0]) == printed_dp(rules, "ST3-05") + 1000
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert [stack(rules, s, 1, k) for k in (0, 1)] == [[], []]
    assert phase(s) == "main" and int(s.memory) == 2, "once a turn: no second memory"
    assert int(perm(s).dp[0, 0]) == printed_dp(rules, "ST3-05") + 1000, "no second +1000"
    s = pass_turn(rules, apply, errors, s)
    assert int(perm(s).dp[0, 0]) == printed_dp(rules, "ST3-05"), "this turn only"


def test_st3_14_charm_leaves_a_digimon_above_0_dp(rules, apply, errors, perm):
    s = yellow(rules, {"hand": ["ST3-14"], "field": [["ST3-01", "ST3-04"]]},
               {"field": [["ST1-02"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 1, 0) == ["ST1-02"] and int(perm(s).dp[1, 0]) == 1000
    assert phase(s) == "main" and int(s.memory) == 1, "nothing deleted: nothing fires"


def test_st3_16_security_deletes_the_attacker_at_0_dp_on_the_opponents_turn(rules, apply,
                                                                            errors):  # fmt: skip
    """Seven Heavens from security (its Main effect) takes the attacking Birdramon to 0 DP: it is
    deleted and the attack ends. Tokomon and Patamon are [Your Turn] rows: on the opponent's turn
    they do not fire."""
    s = red(rules, {"field": [["ST3-01", "ST3-04", "ST3-05"]], "security": ["ST3-02", "ST3-16"]},
            {"field": [["ST1-05"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS + 0]
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 1, 0) == [] and zone_cards(rules, s, "trash", 1) == ["ST1-05"]
    assert phase(s) == "main" and int(s.attacker) == -1 and int(s.board.active_player) == 1
    assert zone_cards(rules, s, "security", 0) == ["ST3-02"], "the attack ended"
    assert int(s.memory) == 3 and not np.any(np.asarray(s.lasting_kind)), "no [Your Turn] row"


def test_st3_16_seven_heavens_main(rules, apply, errors):
    s = yellow(rules, {"hand": ["ST3-16"], "field": [["ST3-02"]]},
               {"field": [["ST1-10"], ["ST1-08"]]}, memory=7)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)  # Garudamon 7000 - 10000: deleted
    assert stack(rules, s, 1, 1) == [] and stack(rules, s, 1, 0) == ["ST1-10"]
    assert zone_cards(rules, s, "trash", 0) == ["ST3-16"] and int(s.memory) == 0


# -- conditions on the security stack: ST3-05, ST3-09 --------------------------------------------


@pytest.mark.parametrize(("security", "gain"), [(4, 1), (3, 0)])
def test_st3_05_angemon_inherits_memory_with_4_or_more_security(rules, apply, errors, security,
                                                                 gain):  # fmt: skip
    own = ["ST3-02", "ST3-03", "ST3-06", "ST3-07"][:security]
    s = yellow(rules, {"field": [["ST3-02", "ST3-05", "ST3-08"]], "security": own},
               {"security": ["ST1-02"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert int(s.memory) == 3 + gain and zone_cards(rules, s, "security", 1) == []


@pytest.mark.parametrize(("security", "recovered"), [(3, True), (4, False)])
def test_st3_09_angewomon_recovers_with_3_or_fewer_security(rules, apply, errors, security,
                                                             recovered):  # fmt: skip
    own = ["ST3-02", "ST3-03", "ST3-06", "ST3-07"][:security]
    s = yellow(rules, {"hand": ["ST3-09"], "field": [["ST3-05"]], "security": own,
                       "deck": ["ST3-08", "ST3-10"]}, {}, memory=5)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert stack(rules, s, 0, 0) == ["ST3-05", "ST3-09"] and int(s.memory) == 2
    assert zone_cards(rules, s, "hand", 0) == ["ST3-10"], "the digivolution bonus draws first"
    after = zone_cards(rules, s, "security", 0)
    assert after == (own + ["ST3-08"] if recovered else own)


# -- [When Attacking] rows: ST3-07, ST3-08, ST3-11 -----------------------------------------------


def test_st3_07_unimon_loses_2_memory_when_attacking_and_blocks(rules, apply, errors):
    s = yellow(rules, {"field": [["ST3-07"]]}, {"security": ["ST1-02"]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert int(s.memory) == 1
    s = red(rules, {"field": [["ST3-07"]]}, {"field": [["ST1-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "block_timing" and legal(errors, s) == [62, 100]


def test_st3_08_magnaangemon_inherits_minus_1000_when_attacking(rules, apply, errors, perm):
    s = yellow(rules, {"field": [["ST3-08", "ST3-10"]]},
               {"field": [["ST1-03"], ["ST1-02"]], "security": ["ST1-02"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS + 0, THEIRS + 1]
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert int(perm(s).dp[1, 1]) == printed_dp(rules, "ST1-02") - 1000
    assert zone_cards(rules, s, "security", 1) == [], "the attack went on"


def test_st3_11_seraphimon_minus_4000_deletes_before_the_checks(rules, apply, errors):
    s = yellow(rules, {"field": [["ST3-11"]]},
               {"field": [["ST1-07"]], "security": ["ST1-02", "ST1-03"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)  # Greymon 4000 - 4000 = 0: deleted
    assert stack(rules, s, 1, 0) == [] and zone_cards(rules, s, "trash", 1)[0] == "ST1-07"
    assert zone_cards(rules, s, "security", 1) == ["ST1-02"], "one check followed"


# -- ST3-12 T.K. Takaishi: an aura on Security Digimon ---------------------------------------------


def test_st3_12_tk_gives_security_digimon_2000_on_the_opponents_turn(rules):
    s = yellow(rules, {"field": [["ST3-12"]]}, {})
    assert jax.jit(rules.security_dp_bonus)(s).tolist() == [0, 0], "not on your own turn"
    s = red(rules, {"field": [["ST3-12"], ["ST3-12"]]}, {})
    assert jax.jit(rules.security_dp_bonus)(s).tolist() == [4000, 0], "two copies add up"


@pytest.mark.parametrize("tamer", [True, False])
def test_st3_12_tk_security_tapirmon_ties_coredramon(rules, apply, errors, tamer):
    """Coredramon (6000) attacks; the checked Tapirmon (4000) has 6000 with T.K. in play: a tie
    deletes the attacker; without T.K. the attacker wins."""
    field = [["ST3-12"]] if tamer else []
    s = red(rules, {"field": field, "security": ["ST3-02", "ST3-03"]}, {"field": [["ST1-06"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "trash", 0) == ["ST3-03"]
    assert stack(rules, s, 1, 0) == ([] if tamer else ["ST1-06"])


def test_st3_12_tk_plays_itself_from_security(rules, apply, errors):
    s = red(rules, {"security": ["ST3-02", "ST3-12"]}, {"field": [["ST1-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 0, 0) == ["ST3-12"] and zone_cards(rules, s, "trash", 0) == []


# -- Options: ST3-13, ST3-14 (to the hand), ST3-15 (<Security A. -N>) -----------------------------


def test_st3_13_heavens_gate_main(rules, apply, errors, perm):
    s = yellow(rules, {"hand": ["ST3-13"], "field": [["ST3-02"], ["ST3-03"]]}, {}, memory=1)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, OWN + 1)
    assert int(perm(s).dp[0, 1]) == printed_dp(rules, "ST3-03") + 3000
    assert zone_cards(rules, s, "trash", 0) == ["ST3-13"] and int(s.memory) == 0


def test_st3_13_heavens_gate_security_then_to_the_hand(rules, apply, errors, perm):
    """Garudamon over Greymon (7000, <Security A. +1>: two checks) attacks. Heaven's Gate, checked
    first: the defender's Digimon and Security Digimon get +5000 this turn, and the card goes to
    the hand. Tapirmon, checked second, has 9000: the attacker is deleted."""
    s = red(rules, {"field": [["ST3-02"]], "security": ["ST3-03", "ST3-13"]},
            {"field": [["ST1-07", "ST1-08"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "hand", 0) == ["ST3-13"]
    assert zone_cards(rules, s, "trash", 0) == ["ST3-03"] and stack(rules, s, 1, 0) == []
    assert int(perm(s).dp[0, 0]) == printed_dp(rules, "ST3-02") + 5000


def test_st3_14_heavens_charm_security_goes_to_the_hand(rules, apply, errors):
    s = red(rules, {"security": ["ST3-02", "ST3-14"]}, {"field": [["ST1-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "hand", 0) == ["ST3-14"] and zone_cards(rules, s, "trash", 0) == []
    assert zone_cards(rules, s, "security", 0) == ["ST3-02"] and int(s.attacker) == -1


@pytest.mark.parametrize("security", [["ST3-02", "ST3-03"], []])
def test_st3_15_holy_flame_main_leaves_0_checks(rules, apply, errors, perm, security):
    """Holy Flame gives Garudamon over Greymon (<Security A. +1>: two checks) <Security A. -3>
    until the end of its next turn: it checks no card (never fewer than 0). A player with no
    security card still loses to its attack (G12). The modifier ends with that turn."""
    s = yellow(rules, {"hand": ["ST3-15"], "field": [["ST3-02"]], "security": security},
               {"field": [["ST1-07", "ST1-08"]]}, memory=2)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    s = pass_turn(rules, apply, errors, s)
    assert int(perm(s).security_attack[1, 0]) == 1 - 3
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))  # breeding -> main
    s, rewards = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    if security:
        assert zone_cards(rules, s, "security", 0) == security and int(s.winner) == -1
        s = pass_turn(rules, apply, errors, s)
        assert int(perm(s).security_attack[1, 0]) == 1, "expired with the end of that turn"
    else:
        assert int(s.winner) == 1 and rewards.tolist() == [-1.0, 1.0]


def test_st3_15_holy_flame_security_cuts_the_attack_short(rules, apply, errors):
    """Garudamon over Greymon (two checks) flips Holy Flame first: <Security A. -1> for the turn
    leaves it no second check."""
    s = red(rules, {"security": ["ST3-03", "ST3-15"]}, {"field": [["ST1-07", "ST1-08"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "security", 0) == ["ST3-03"]
    assert zone_cards(rules, s, "trash", 0) == ["ST3-15"] and int(s.attacker) == -1


# -- the vanilla cards: ST3-02, ST3-03, ST3-06, ST3-10 -------------------------------------------


def test_st3_vanilla_cards_play_and_digivolve_with_their_printed_stats(rules, apply, errors,
                                                                      perm):  # fmt: skip
    for number in ("ST3-02", "ST3-03", "ST3-06", "ST3-10"):
        card = rules.cards.definition(number)
        assert card["effects"] == () and card["keywords"] == 0 == card["inherited_keywords"]
    s = yellow(rules, {"hand": ["ST3-02", "ST3-06", "ST3-10"], "field": [["ST3-03"], ["ST3-09"]]},
               {}, memory=10)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))  # Salamon, cost 2
    assert stack(rules, s, 0, 2) == ["ST3-02"] and int(s.memory) == 8
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))  # Gatomon onto Tapirmon
    assert stack(rules, s, 0, 0) == ["ST3-03", "ST3-06"] and int(s.memory) == 6
    hand = zone_cards(rules, s, "hand", 0)
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", hand.index("ST3-10"), 1))
    assert stack(rules, s, 0, 1) == ["ST3-09", "ST3-10"] and int(s.memory) == 4
    dp = perm(s).dp[0]
    assert [int(dp[k]) for k in range(3)] == [printed_dp(rules, n)
                                              for n in ("ST3-06", "ST3-10", "ST3-02")]  # fmt: skip


# -- the card rules the new rows obey -------------------------------------------------------------


def _row(**kw):
    row = {"where": 0, "trigger": 0, "window": 0, "flags": 0, "condition": 0,
           "condition_value": 0, "op": 0, "target": 0, "amount": 0, "amount_per": 0, "count": 1,
           "max_dp": -1, "max_level": -1, "cannot": 0, "duration": 0, "kinds": 0, "grant": 0,
           "max_cost": -1, "burst": 0, "colors": 0, "min_level": -1, "play_costs": 0}  # fmt: skip
    for name, value in kw.items():
        table = {"where": C.WHERE, "trigger": C.TRIGGERS, "op": C.OPS, "target": C.TARGETS,
                 "duration": C.DURATIONS}  # fmt: skip
        row[name] = table[name].index(value) if name in table else value
    return row


@pytest.mark.parametrize(
    ("kind", "row", "problem"),
    [
        ("option", _row(where="main", trigger="main", op="add_self_to_hand"),
         "add_self_to_hand moves a checked security card (a security row)"),
        ("digimon", _row(trigger="continuous", op="security_attack_mod",
                         target="all_opponent_digimon"),
         "op security_attack_mod with target all_opponent_digimon: expected one of"),
        ("option", _row(where="security", trigger="security", op="add_self_to_hand"), None),
        ("tamer", _row(trigger="continuous", op="dp_mod", target="own_security_digimon"), None),
    ],
)  # fmt: skip
def test_the_new_rows_are_checked_when_a_card_file_loads(kind, row, problem):
    found = C.row_problem(kind, row)
    assert (found is None) if problem is None else found.startswith(problem), found
