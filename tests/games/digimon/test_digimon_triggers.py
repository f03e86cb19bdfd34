"""Triggered effect rows (stage 2f): the trigger queue and the no-choice primitives — [On Play],
[When Digivolving], [When Attacking] (the turn ends only after the attack), [Start of Your Turn]
with a condition, Options ([Main], the color rule, trashed after use), and timed modifiers with
their durations (this turn, until the end of your next turn)."""

import jax
import numpy as np
import pytest
from digimon_testlib import code_name, digimon, make_rules, other, stack, step_ok, zone_cards

from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.scenario import build_state

R2 = [{"color": "red", "level": 2, "cost": 0}]
R3 = [{"color": "red", "level": 3, "cost": 1}]


def main_row(trigger, **kw):
    return {"where": "main", "trigger": trigger, **kw}


ENTRIES = [
    other("EGG", "digi_egg"),
    digimon("PLAIN3", 3, 3000, digivolve=R2),
    digimon("ONPLAY", 3, 2000, digivolve=R2,
            effects=[main_row("on_play", op="memory", target="player", amount=2)]),
    digimon("DRAW2", 4, 5000, digivolve=R3,
            effects=[main_row("when_digivolving", op="draw", target="player", amount=2),
                     main_row("when_digivolving", op="dp_mod", amount=2000,
                              duration="this_turn")]),
    digimon("LOSE2", 3, 6000, effects=[main_row("when_attacking", op="memory", target="player",
                                                amount=-2)]),
    digimon("WAKE", 3, 6000, effects=[main_row("when_attacking", op="unsuspend",
                                               flags=["once_per_turn"])]),
    other("MATT", "tamer", cost=2,
          effects=[main_row("start_of_your_turn", op="memory", target="player", amount=1,
                            condition="opponent_has_no_source_digimon")]),
    other("SPARK", "option", cost=0, effects=[main_row("main", op="memory", target="player",
                                                       amount=1)]),
    other("WINGS", "option", cost=1,
          effects=[main_row("main", op="security_attack_mod", target="all_own_digimon", amount=1,
                            duration="until_end_of_your_next_turn")]),
    other("BLUEOPT", "option", cost=0, colors=("blue",),
          effects=[main_row("main", op="memory", target="player", amount=1)]),
]  # fmt: skip
MAIN = [e["id"] for e in ENTRIES if e["kind"] != "digi_egg" for _ in range(4)]


@pytest.fixture(scope="module")
def rules():
    return make_rules(ENTRIES, MAIN)


@pytest.fixture(scope="module")
def perm(rules):
    return jax.jit(rules.permanents)


def test_on_play_gains_memory(rules, apply, errors):
    s = build_state(rules, [{"hand": ["ONPLAY"]}, {}], memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert int(s.memory) == 2, "3 - 3 (cost) + 2 ([On Play])"
    assert int(s.board.active_player) == 0


def test_when_digivolving_draws_and_lifts_dp_for_the_turn(rules, apply, errors, perm):
    s = build_state(
        rules, [{"hand": ["DRAW2"], "field": [["PLAIN3"]], "deck": ["PLAIN3", "SPARK", "WINGS"]},
                {"deck": ["PLAIN3"]}], memory=4,
    )  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    # The digivolution bonus (WINGS), then <Draw 2> (SPARK, PLAIN3).
    assert zone_cards(rules, s, "hand", 0) == ["WINGS", "SPARK", "PLAIN3"]
    assert int(perm(s).dp[0, 0]) == 7000, "5000 + 2000 this turn"
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))  # the turn ends
    assert int(perm(s).dp[0, 0]) == 5000 and not np.any(np.asarray(s.lasting_kind))


def test_when_attacking_memory_loss_ends_the_turn_only_after_the_attack(rules, apply, errors):
    s = build_state(rules, [{"field": [["LOSE2"]]}, {"security": ["PLAIN3", "PLAIN3"]}], memory=1)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, A.TARGET_PLAYER))
    assert zone_cards(rules, s, "security", 1) == ["PLAIN3"], "the check happened first"
    assert int(s.board.active_player) == 1 and int(s.memory) == 1, "then the turn passed"


def test_when_attacking_unsuspend(rules, apply, errors):
    s = build_state(rules, [{"field": [["WAKE"]]}, {"security": ["PLAIN3", "PLAIN3"]}], memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, A.TARGET_PLAYER))
    assert not bool(s.suspended[0, 0]) and stack(rules, s, 0, 0) == ["WAKE"]


@pytest.mark.parametrize(("theirs", "gain"), [([["PLAIN3"]], 1), ([["EGG", "PLAIN3"]], 0)])
def test_start_of_your_turn_with_a_condition(rules, apply, errors, theirs, gain):
    mine = build_state(rules, [{"field": theirs}, {"field": [["MATT"]]}], memory=0)
    s, _ = step_ok(rules, apply, errors, mine, A.encode("pass"))
    assert int(s.board.active_player) == 1 and int(s.memory) == 3 + gain


def test_options_need_their_color_pay_resolve_and_go_to_the_trash(rules, apply, errors):
    s = build_state(rules, [{"hand": ["SPARK", "BLUEOPT"]}, {}], memory=2)
    assert code_name(errors(s)[A.encode("play", 0)]) == "option_color_missing"
    s = build_state(rules, [{"hand": ["SPARK", "BLUEOPT"], "breeding": ["EGG"]}, {}], memory=2)
    assert code_name(errors(s)[A.encode("play", 1)]) == "option_color_missing", "no blue"
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))  # a red Digi-Egg counts
    assert int(s.memory) == 3 and zone_cards(rules, s, "trash", 0) == ["SPARK"]
    assert zone_cards(rules, s, rules.layout.zone_index("processing")) == []


def test_a_modifier_until_the_end_of_your_next_turn(rules, apply, errors, perm):
    s = build_state(rules, [{"hand": ["WINGS"], "field": [["PLAIN3"]]}, {"deck": ["PLAIN3"] * 2}],
                    memory=1, turn=4)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert int(perm(s).security_attack[0, 0]) == 1 and int(s.lasting_expires[0]) == 6
    for turn in (5, 6, 7):  # the opponent's turn, then mine: in force; then it has ended
        s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))  # end of the turn
        s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))  # breeding -> main
        assert int(s.board.turn_number) == turn
        assert int(perm(s).security_attack[0, 0]) == int(turn <= 6), turn
    assert not np.any(np.asarray(s.lasting_kind) == R.LASTING_SA)
