"""Rules the starter decks never reach, with test-only cards: the counter timing and <Blast
Digivolve>, <Piercing>, <Reboot>, <Retaliation>, <Recovery +N (Deck)> with [Security Added]
triggers, <De-Digivolve N>, [On Deletion], [End of Your Turn] (the turn goes on when it brings the
gauge back), "suspend" by choice, and [Once Per Turn] on a triggered inherited row — scripted
situations."""

import numpy as np
import pytest
from digimon_testlib import (
    code_name,
    digimon,
    jit_apply,
    make_rules,
    other,
    stack,
    step_ok,
    zone_cards,
)

from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.scenario import build_state

PLAYER = A.TARGET_PLAYER
OWN, THEIRS = 100, 112


def row(trigger, where="main", **kw):
    return {"where": where, "trigger": trigger, **kw}


ENTRIES = [
    other("EGG", "digi_egg"),
    digimon("PIERCE", 4, 5000, keywords=["piercing"]),
    digimon("REBOOT", 4, 5000, keywords=["reboot"]),
    digimon("RETAL", 3, 2000, keywords=["retaliation"]),
    digimon("L3", 3, 3000),
    digimon("L4", 4, 4000),
    digimon("L5", 5, 6000),
    digimon("ONDEL", 3, 1000, effects=[row("on_deletion", op="memory", target="player",
                                           amount=2)]),
    other("RECOVER", "option", cost=0, effects=[row("main", op="recovery", target="player",
                                                    amount=2)]),
    # A BT14-003 Tokomon-like Digi-Egg: [Your Turn] [Once Per Turn] when a card is added to your
    # security stack, <Draw 1> (inherited).
    other("TOKO", "digi_egg", effects=[row("security_added", where="inherited", window="your_turn",
                                           flags=["once_per_turn"], op="draw", target="player",
                                           amount=1)]),
    other("DEDIGI", "option", cost=0, effects=[row("main", op="de_digivolve",
                                                   target="choose_opponent_digimon", amount=2)]),
    other("ENDGAIN", "tamer", cost=0, effects=[row("end_of_your_turn", op="memory",
                                                   target="player", amount=4)]),
    other("SLEEP", "option", cost=0, effects=[row("main", op="suspend",
                                                  target="choose_opponent_digimon")]),
    digimon("BLAST", 4, 7000, cost=9, keywords=["blast_digivolve"],
            digivolve=[{"color": "red", "level": 3, "cost": 3}],
            effects=[row("when_digivolving", op="memory", target="player", amount=1)]),
    digimon("GUARD", 3, 1000, keywords=["blocker"]),
    digimon("DNAB", 4, 4000, colors=("blue",)),
    other("ACT", "tamer", cost=0, effects=[
        row("continuous", op="dp_mod", target="all_own_digimon", amount=1000),
        row("main", flags=["once_per_turn"], op="memory", target="player", amount=1)]),
    digimon("DNA", 6, 11000, cost=12, dna=[{"color": "red", "level": 4},
                                           {"color": "blue", "level": 4}], dna_cost=4),
]  # fmt: skip
MAIN = [e["id"] for e in ENTRIES if e["kind"] != "digi_egg" for _ in range(3)]


@pytest.fixture(scope="module")
def rules():
    return make_rules(ENTRIES, MAIN, eggs=("EGG", "EGG", "TOKO", "TOKO"))


def situation(rules, me, opponent, **kw):
    return build_state(rules, [me, opponent], memory=kw.pop("memory", 3), **kw)


def phase(s):
    return A.PHASES[int(s.board.phase)]


def test_piercing_checks_security_after_deleting_in_battle(rules, apply, errors):
    s = situation(rules, {"field": [["PIERCE"]]},
                  {"field": [["L3"]], "suspended": [0], "security": ["L4", "L3"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 1, 0) == [] and zone_cards(rules, s, "security", 1) == ["L4"]
    assert zone_cards(rules, s, "trash", 1) == ["L3", "L3"], "the battle, then one check"
    # No check when the pierced Digimon survives (5000 vs 6000), and none without <Piercing>.
    s = situation(rules, {"field": [["PIERCE"], ["L5"]]},
                  {"field": [["L5"], ["L3"]], "suspended": [0, 1], "security": ["L3"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert zone_cards(rules, s, "security", 1) == ["L3"] and stack(rules, s, 0, 0) == []
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 1, 1))
    assert zone_cards(rules, s, "security", 1) == ["L3"] and stack(rules, s, 1, 1) == []


def test_piercing_against_a_player_with_no_security_does_not_win(rules, apply, errors):
    s = situation(rules, {"field": [["PIERCE"]]}, {"field": [["L3"]], "suspended": [0]})
    s, rewards = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert int(s.winner) == -1 and list(np.asarray(rewards)) == [0.0, 0.0]


def test_reboot_unsuspends_in_the_opponents_unsuspend_phase(rules, apply, errors):
    s = situation(rules, {"field": [["REBOOT"], ["L4"]], "suspended": [0, 1]}, {})
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    assert int(s.board.active_player) == 1
    assert not bool(s.suspended[0, 0]) and bool(s.suspended[0, 1]), "only <Reboot>"


def test_retaliation_deletes_the_digimon_it_battled(rules, apply, errors):
    s = situation(rules, {"field": [["L5"]]}, {"field": [["RETAL"]], "suspended": [0]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 0, 0) == [] and stack(rules, s, 1, 0) == []
    # An attacker with <Retaliation> that loses takes the winner with it.
    s = situation(rules, {"field": [["RETAL"]]}, {"field": [["L5"]], "suspended": [0]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 0, 0) == [] and stack(rules, s, 1, 0) == []


def test_recovery_and_a_once_per_turn_security_added_draw(rules, apply, errors):
    s = situation(rules, {"hand": ["RECOVER", "RECOVER"], "field": [["TOKO", "L3"]],
                          "deck": ["L4", "L5", "ONDEL", "L3"], "security": ["ONDEL"]},
                  {})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    # The top 2 deck cards (L3, then ONDEL) onto the security stack; then Tokomon draws 1 (L5).
    assert zone_cards(rules, s, "security", 0) == ["ONDEL", "L3", "ONDEL"]
    assert zone_cards(rules, s, "hand", 0) == ["RECOVER", "L5"]
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert zone_cards(rules, s, "hand", 0) == ["L5"], "[Once Per Turn]: no second draw"
    assert len(zone_cards(rules, s, "security", 0)) == 5


def test_de_digivolve_stops_at_level_3(rules, apply, errors):
    s = situation(rules, {"hand": ["DEDIGI", "DEDIGI"], "field": [["L3"]]},
                  {"field": [["EGG", "L3", "L4", "L5"], ["L4", "L5"]],
                   "suspended": [0], "entered": {0: 1}},
                  memory=0)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 1, 0) == ["EGG", "L3"], "2 from the top; keeps its state"
    assert bool(s.suspended[1, 0]) and int(s.entered_turn[1, 0]) == 1
    assert zone_cards(rules, s, "trash", 1) == ["L5", "L4"]
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    legal = np.flatnonzero(np.asarray(errors(s)) == 0).tolist()
    assert legal == [THEIRS + 1], "a level 3 top card cannot be de-digivolved"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    # L5 (above level 3); the L4 left (played from hand) has no digivolution cards: it stops.
    assert stack(rules, s, 1, 1) == ["L4"]


def test_de_digivolve_leaving_a_digi_egg_on_top_deletes_the_stack(rules, apply, errors):
    """An L4 straight over a Digi-Egg (its level 3 was played out from under it, as Kaiser Nail
    does): <De-Digivolve 1> trashes the L4; the Digi-Egg left on top has no DP, so the rules
    delete the stack (G11)."""
    s = situation(rules, {"hand": ["DEDIGI"], "field": [["L3"]]},
                  {"field": [["EGG", "L4"]]}, memory=0)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 1, 0) == [] and zone_cards(rules, s, "trash", 1) == ["L4", "EGG"]


def test_de_digivolve_never_trashes_the_last_card(rules, apply, errors):
    s = situation(rules, {"hand": ["DEDIGI"], "field": [["L3"]]}, {"field": [["L5"]]}, memory=0)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "main" and stack(rules, s, 1, 0) == ["L5"], "no valid target: fizzles"


def test_on_deletion_fires_for_battles_and_effects(rules, apply, errors):
    s = situation(rules, {"field": [["L5"]]}, {"field": [["ONDEL"]], "suspended": [0]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 1, 0) == [] and int(s.memory) == 1, "its owner gains 2"
    s = situation(rules, {"field": [["ONDEL"]]}, {"field": [["L5"]], "suspended": [0]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert int(s.memory) == 5, "the attacker's own [On Deletion]"


def test_end_of_your_turn_can_keep_the_turn_going_once(rules, apply, errors):
    s = situation(rules, {"field": [["ENDGAIN"], ["L3"]]}, {}, memory=0)
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    assert int(s.board.active_player) == 0 and int(s.memory) == 1, "-3 + 4: the turn goes on"
    assert phase(s) == "main" and bool(s.end_fired)
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    assert int(s.board.active_player) == 1 and int(s.memory) == 3, "fired once this turn"


def test_suspend_a_chosen_digimon(rules, apply, errors):
    s = situation(rules, {"hand": ["SLEEP"], "field": [["L3"]]},
                  {"field": [["L3"], ["L4"]], "suspended": [1]},
                  memory=0)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    legal = np.flatnonzero(np.asarray(errors(s)) == 0).tolist()
    assert legal == [THEIRS + 0], "an already suspended Digimon is not a target"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert bool(s.suspended[1, 0])


def test_blast_digivolve_in_the_counter_timing(rules, apply, errors):
    s = situation(rules, {"field": [["L4"]]},
                  {"field": [["L3"]], "hand": ["L4", "BLAST"], "security": ["L3"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "counter_timing" and int(rules.decider(s)) == 1
    legal = np.flatnonzero(np.asarray(errors(s)) == 0).tolist()
    assert legal == [62, A.encode("digivolve", 1, 0)], [A.decode(s.board.phase, a) for a in legal]
    assert code_name(errors(s)[A.encode("digivolve", 0, 0)]) == "not_blast_digivolve"
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 1, 0))
    assert stack(rules, s, 1, 0) == ["L3", "BLAST"] and len(zone_cards(rules, s, "hand", 1)) == 2
    # Free (the gauge only moves by its [When Digivolving] +1 for the defender); the attack
    # then resolves: the 7000 DP is irrelevant to a security check, which L4 survives.
    assert int(s.memory) == 2 and phase(s) == "main" and int(s.board.active_player) == 0
    assert zone_cards(rules, s, "trash", 1) == ["L3"] and int(s.attacker) == -1


def test_counter_timing_comes_before_block_timing(rules, apply, errors):
    s = situation(rules, {"field": [["L4"]]},
                  {"field": [["L3"], ["GUARD"]], "hand": ["BLAST"], "security": ["L3"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "counter_timing"
    s, _ = step_ok(rules, apply, errors, s, 62)  # decline the counter
    assert phase(s) == "block_timing"
    s, _ = step_ok(rules, apply, errors, s, 101)  # block with GUARD
    assert stack(rules, s, 1, 1) == [] and zone_cards(rules, s, "security", 1) == ["L3"]


def test_no_counter_timing_without_a_blast_digivolve_move(rules, apply, errors):
    # <Blast Digivolve> needs a Digimon of the defender that meets the requirement.
    s = situation(rules, {"field": [["L4"]]},
                  {"field": [["L5"]], "hand": ["BLAST"], "security": ["L3"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "main" and zone_cards(rules, s, "trash", 1) == ["L3"]


@pytest.fixture(scope="module")
def spec_rules():
    """The same cards under the spec's rules options (G1 memory wording, G7 timing order)."""
    from digimon_testlib import shared_registry

    from tcgjax.games.digimon import rules as R

    base = make_rules(ENTRIES, MAIN, eggs=("EGG", "EGG", "TOKO", "TOKO"))
    return R.DigimonRules(shared_registry(), base.decks, memory_rule="spec", timing_order="spec")


def test_spec_options_memory_wording_and_block_before_counter(spec_rules):
    import jax

    rules = spec_rules
    apply, errors = jit_apply(rules), jax.jit(rules.action_errors)
    # G1 "spec": a cost may not exceed the current memory, and 0 ends the turn.
    s = situation(rules, {"hand": ["BLAST", "L3"], "field": [["L4"]]}, {}, memory=3)
    assert code_name(errors(s)[A.encode("play", 0)]) == "not_enough_memory", "9 > 3"
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 1))  # L3 costs 3: gauge at 0
    assert int(s.board.active_player) == 1 and int(s.memory) == 0
    # G7 "spec": block timing first, then the counter timing.
    s = situation(rules, {"field": [["L4"]]},
                  {"field": [["L3"], ["GUARD"]], "hand": ["BLAST"], "security": ["L3"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "block_timing"
    s, _ = step_ok(rules, apply, errors, s, 62)
    assert phase(s) == "counter_timing"
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert stack(rules, s, 1, 0) == ["L3", "BLAST"] and phase(s) == "main"


def test_dna_digivolution_through_select_material(rules, apply, errors):
    s = situation(rules, {"hand": ["DNA"], "field": [["EGG", "L4"], ["L3"], ["DNAB"]],
                          "suspended": [0], "deck": ["L5"]},
                  {}, memory=5)  # fmt: skip
    assert code_name(errors(s)[A.encode("dna", 0)]) == "ok"
    s, _ = step_ok(rules, apply, errors, s, A.encode("dna", 0))
    assert phase(s) == "select_material" and int(rules.decider(s)) == 0
    legal = np.flatnonzero(np.asarray(errors(s)) == 0).tolist()
    assert legal == [OWN + 0, OWN + 2], "L4 (red Lv.4) and DNAB (blue Lv.4); not L3, no decline"
    s, _ = step_ok(rules, apply, errors, s, OWN + 2)
    legal = np.flatnonzero(np.asarray(errors(s)) == 0).tolist()
    assert legal == [OWN + 0], "the second material completes the pair"
    s, _ = step_ok(rules, apply, errors, s, OWN + 0)
    # The first pick's stack at the bottom, the second's on it, the DNA card on top, in the
    # first pick's slot: unsuspended, may attack, the cost paid, the bonus draw.
    assert stack(rules, s, 0, 2) == ["DNAB", "EGG", "L4", "DNA"] and stack(rules, s, 0, 0) == []
    assert not bool(s.suspended[0, 2]) and int(s.memory) == 1 and phase(s) == "main"
    assert zone_cards(rules, s, "hand", 0) == ["L5"]
    assert code_name(errors(s)[A.encode("attack", 2, PLAYER)]) == "ok"


@pytest.mark.parametrize(
    ("me", "rule"),
    [
        ({"hand": ["L4"], "field": [["L4"], ["DNAB"]]}, "no_dna_requirement"),
        ({"hand": ["DNA"], "field": [["L4"], ["L4"]]}, "no_dna_materials"),
        ({"hand": ["DNA"], "field": [["DNAB"]]}, "no_dna_materials"),
    ],
)
def test_dna_errors_name_the_rule(rules, errors, me, rule):
    s = situation(rules, me, {}, memory=5)
    assert code_name(errors(s)[A.encode("dna", 0)]) == rule


def test_activated_main_effect_once_per_turn(rules, apply, errors):
    act = A.encode("activate", 1, 1)  # the Tamer in slot 1, its row 1
    s = situation(rules, {"field": [["GUARD"], ["ACT"]]}, {}, memory=0)
    assert A.decode("main", act).name == "activate[1.1]"
    assert code_name(errors(s)[A.encode("activate", 1, 0)]) == "no_activated_effect"
    assert code_name(errors(s)[A.encode("activate", 0, 0)]) == "no_activated_effect"
    assert code_name(errors(s)[A.encode("activate", 2, 0)]) == "no_permanent_there"
    s, _ = step_ok(rules, apply, errors, s, act)
    assert int(s.memory) == 1
    assert code_name(errors(s)[act]) == "used_this_turn"
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))  # player 2: breeding -> main
    assert code_name(errors(s)[act]) == "no_permanent_there", "player 2 has no permanent there"
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))  # player 1: breeding -> main
    assert code_name(errors(s)[act]) == "ok", "a new turn"
