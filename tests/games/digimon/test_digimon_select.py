"""SelectTarget (stage 2g): rows that choose their targets open a selection decided by the row's
controller, with the spec's conventions (100+i own field, 112+i opponent field, 62 decline when
optional or "up to"), and the choice primitives: delete (DP bound, up to 2), trash digivolution
cards from the bottom (level bound), return to hand, +DP to a chosen Digimon for the turn, and
"cannot attack or block" restrictions with their durations. An attack paused by a [When
Attacking] selection goes on afterwards."""

import jax
import numpy as np
import pytest
from digimon_testlib import code_name, digimon, make_rules, other, stack, step_ok, zone_cards

from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.scenario import build_state


def main_row(trigger, **kw):
    return {"where": "main", "trigger": trigger, **kw}


ENTRIES = [
    other("EGG", "digi_egg"),
    digimon("P3", 3, 3000),
    digimon("P5", 4, 5000),
    digimon("P7", 5, 7000),
    # Giga Destroyer-like: delete up to 2 opponent Digimon with 4000 DP or less.
    other("DESTROY", "option", cost=1, effects=[main_row(
        "main", op="delete", target="choose_opponent_digimon", count=2, flags=["up_to"],
        max_dp=4000)]),
    # Gaia Force-like: delete 1 opponent Digimon.
    other("FORCE", "option", cost=1, effects=[main_row(
        "main", op="delete", target="choose_opponent_digimon", count=1)]),
    # Cocytus Breath-like: return 1 opponent Digimon to hand.
    other("BOUNCE", "option", cost=1, effects=[main_row(
        "main", op="bounce_to_hand", target="choose_opponent_digimon", count=1)]),
    # Shadow Wing-like: 1 of your Digimon +3000 DP for the turn.
    other("WING", "option", cost=1, effects=[main_row(
        "main", op="dp_mod", target="choose_own_digimon", count=1, amount=3000,
        duration="this_turn")]),
    # Sorrow Blue-like: an opponent Digimon with no digivolution cards cannot attack or block.
    other("SORROW", "option", cost=1, effects=[main_row(
        "main", op="restrict", target="choose_opponent_no_source_digimon", count=1,
        cannot=["attack", "block"], duration="until_end_of_opponents_next_turn")]),
    # Gabumon-like, with the inherited [When Attacking] trash 1 source of a Lv.5- Digimon.
    digimon("GABU", 3, 2000, effects=[{"where": "inherited", "trigger": "when_attacking",
                                       "op": "trash_sources", "target": "choose_opponent_digimon",
                                       "amount": 1, "max_level": 4}]),
    digimon("BLK1K", 3, 1000, keywords=["blocker"]),
    # Gallantmon-like (ST7-09's two clauses on an Option): delete 1 opponent Digimon with 4000 DP
    # or less; if you don't (none could be chosen), +2 memory.
    other("FORCE-ELSE", "option", cost=1, effects=[
        main_row("main", op="delete", target="choose_opponent_digimon", count=1, max_dp=4000,
                 flags=["else_next"]),
        main_row("main", op="memory", target="player", amount=2)]),
]  # fmt: skip
MAIN = [e["id"] for e in ENTRIES if e["kind"] != "digi_egg" for _ in range(4)]
OWN, THEIRS = 100, 112


@pytest.fixture(scope="module")
def rules():
    return make_rules(ENTRIES, MAIN)


def legal(errors, s):
    return np.flatnonzero(np.asarray(errors(s)) == 0).tolist()


def test_delete_up_to_two_within_a_dp_bound(rules, apply, errors):
    s = build_state(rules, [{"hand": ["DESTROY"], "field": [["P3"]]},
                            {"field": [["P3"], ["P5"], None, ["P3"]]}], memory=3)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert A.PHASES[int(s.board.phase)] == "select_target" and int(s.selection.left) == 2
    assert int(jax.jit(rules.decider)(s)) == 0
    assert legal(errors, s) == [62, THEIRS + 0, THEIRS + 3], "P5 is above 4000 DP; 62 = up to"
    assert code_name(errors(s)[THEIRS + 1]) == "not_a_valid_selection"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 3)
    assert stack(rules, s, 1, 3) == [] and legal(errors, s) == [62, THEIRS + 0]
    s, _ = step_ok(rules, apply, errors, s, 62)  # stop after one: "up to"
    assert A.PHASES[int(s.board.phase)] == "main" and stack(rules, s, 1, 0) == ["P3"]
    assert zone_cards(rules, s, "trash", 0) == ["DESTROY"] and int(s.memory) == 2


def test_exact_count_cannot_be_declined_and_no_target_fizzles(rules, apply, errors):
    s = build_state(rules, [{"hand": ["FORCE", "FORCE"], "field": [["P3"]]},
                            {"field": [["P7"]]}], memory=5)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert legal(errors, s) == [THEIRS + 0], "count 1, not optional: 62 is illegal"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 1, 0) == [] and A.PHASES[int(s.board.phase)] == "main"
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))  # no target left: it fizzles
    assert A.PHASES[int(s.board.phase)] == "main" and zone_cards(rules, s, "trash", 0) == [
        "FORCE",
        "FORCE",
    ]


@pytest.mark.parametrize(
    "theirs, chosen, memory",
    [
        (["P3"], True, 5 - 1),  # a 3000 DP Digimon may be chosen: it is deleted, no memory
        (["P5"], False, 5 - 1 + 2),  # 5000 DP only: nothing to choose, the else row: +2
        ([], False, 5 - 1 + 2),  # no Digimon at all: the same
    ],
    ids=["a target", "none below 4000", "no Digimon"],
)
def test_else_next_resolves_the_next_row_only_when_nothing_could_be_chosen(
    rules, apply, errors, theirs, chosen, memory
):
    s = build_state(rules, [{"hand": ["FORCE-ELSE"], "field": [["P3"]]},
                            {"field": [theirs] if theirs else []}], memory=5)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    if chosen:
        assert legal(errors, s) == [THEIRS + 0]
        s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
        assert stack(rules, s, 1, 0) == []
    assert A.PHASES[int(s.board.phase)] == "main" and int(s.memory) == memory
    assert zone_cards(rules, s, "trash", 0) == ["FORCE-ELSE"]


def test_return_to_hand_trashes_the_sources(rules, apply, errors):
    s = build_state(rules, [{"hand": ["BOUNCE"], "field": [["P3"]]},
                            {"field": [["EGG", "P3", "P5"]]}], memory=3)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert zone_cards(rules, s, "hand", 1) == ["P5"]
    assert zone_cards(rules, s, "trash", 1) == ["EGG", "P3"] and stack(rules, s, 1, 0) == []


def test_plus_dp_to_a_chosen_own_digimon_for_the_turn(rules, apply, errors):
    perm = jax.jit(rules.permanents)
    s = build_state(rules, [{"hand": ["WING"], "field": [["P3"], ["P5"]]}, {}], memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert legal(errors, s) == [OWN + 0, OWN + 1]
    s, _ = step_ok(rules, apply, errors, s, OWN + 1)
    assert np.asarray(perm(s).dp[0, :2]).tolist() == [3000, 8000]


def test_restriction_cannot_attack_or_block_until_the_end_of_the_opponents_turn(
    rules, apply, errors
):
    s = build_state(rules, [{"hand": ["SORROW"], "field": [["P3"]]},
                            {"field": [["EGG", "P5"], ["BLK1K"]], "deck": ["P3"] * 3}],
                    memory=1)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert legal(errors, s) == [THEIRS + 1], "only the Digimon without digivolution cards"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))  # the opponent's turn (3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))  # breeding -> main
    assert code_name(errors(s)[A.encode("attack", 1, A.TARGET_PLAYER)]) == "cannot_attack"
    assert code_name(errors(s)[A.encode("attack", 0, A.TARGET_PLAYER)]) == "ok"
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))  # my turn (4): it has ended
    assert not np.any(np.asarray(s.lasting_kind)), "the restriction expired with turn 3"


def test_a_when_attacking_selection_pauses_the_attack(rules, apply, errors):
    s = build_state(rules, [{"field": [["GABU", "P5"]]},
                            {"field": [["EGG", "P3"], ["EGG", "P3", "P7"]],
                             "security": ["P3", "P3"]}], memory=3)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, A.TARGET_PLAYER))
    assert A.PHASES[int(s.board.phase)] == "select_target" and int(s.attacker) == 0
    assert legal(errors, s) == [THEIRS + 0], "the Lv.5 P7 is above the level bound"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 1, 0) == ["P3"], "the bottom card went to the trash"
    # The attack went on: one security check, the attack is over.
    assert zone_cards(rules, s, "security", 1) == ["P3"] and int(s.attacker) == -1
    assert A.PHASES[int(s.board.phase)] == "main"
