"""Triggered effect rows (stage 2f): the trigger queue and the no-choice primitives — [On Play],
[When Digivolving], [When Attacking] (the turn ends only after the attack), [Start of Your Turn]
with a condition, Options ([Main], the color rule, trashed after use), and timed modifiers with
their durations (this turn, until the end of your next turn); simultaneous triggers in the order
their controller chooses (G10) and the breeding area out of every effect's reach (issue #32)."""

import jax
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
    # "All your Digimon get +1000 DP this turn" and "one of your Digimon gets +2000 DP".
    other("RALLY", "option", cost=0, effects=[main_row("main", op="dp_mod", amount=1000,
                                                       target="all_own_digimon",
                                                       duration="this_turn")]),
    other("BOOST", "option", cost=0, effects=[main_row("main", op="dp_mod", amount=2000,
                                                       target="choose_own_digimon",
                                                       duration="this_turn")]),
    # Two [When Attacking] effects of one stack whose order matters: STRIP (top card) trashes a
    # digivolution card of an opponent's Digimon; IFBARE (under it) gains 2 memory if the
    # opponent then has a Digimon with none.
    digimon("STRIP", 4, 5000, digivolve=R3,
            effects=[main_row("when_attacking", op="trash_sources", amount=1,
                              target="choose_opponent_digimon")]),
    digimon("IFBARE", 3, 3000, digivolve=R2,
            effects=[{"where": "inherited", "trigger": "when_attacking", "op": "memory",
                      "target": "player", "amount": 2,
                      "condition": "opponent_has_no_source_digimon"}]),
    # The 0 DP rule (G11): a 1000 DP Digimon whose [On Deletion] gains 1 memory, an Option giving
    # an opposing Digimon -1000 DP this turn, and one giving your own -3000 until your next turn.
    digimon("WEAK", 3, 1000, digivolve=R2,
            effects=[main_row("on_deletion", op="memory", target="player", amount=1)]),
    other("SAP", "option", cost=0, effects=[main_row("main", op="dp_mod", amount=-1000,
                                                     target="choose_opponent_digimon",
                                                     duration="this_turn")]),
    other("DRAIN", "option", cost=0, effects=[main_row("main", op="dp_mod", amount=-3000,
                                                       target="choose_own_digimon",
                                                       duration="until_end_of_your_next_turn")]),
]  # fmt: skip
MAIN = [e["id"] for e in ENTRIES if e["kind"] != "digi_egg" for _ in range(4)][:50]
ZERO_DP_MAIN = [card for card in ("WEAK", "SAP", "DRAIN", "BOOST", "PLAIN3") for _ in range(4)]


@pytest.fixture(scope="module")
def rules():
    return make_rules(ENTRIES, MAIN)


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


@pytest.mark.parametrize(
    ("theirs", "gain"),
    [
        ({"field": [["PLAIN3"]]}, 1),
        ({"field": [["EGG", "PLAIN3"]]}, 0),
        # A Digimon in the breeding area is not one that effects count (issue #32).
        ({"field": [["EGG", "PLAIN3"]], "breeding": ["EGG", "PLAIN3"]}, 0),
    ],
)
def test_start_of_your_turn_with_a_condition(rules, apply, errors, theirs, gain):
    mine = build_state(rules, [theirs, {"field": [["MATT"]]}], memory=0)
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


# -- simultaneous triggers in their controller's order (G10) --------------------------------------


def attack_with_two_triggers(rules, apply, errors):
    """STRIP on IFBARE attacks the player; the opponent's only Digimon has one digivolution card."""
    s = build_state(rules, [{"field": [["IFBARE", "STRIP"]]},
                            {"field": [["EGG", "PLAIN3"]], "security": ["PLAIN3"]}], memory=3)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, A.TARGET_PLAYER))
    return s


@pytest.mark.parametrize(("first", "memory"), [(1000, 5), (1001, 3)])
def test_simultaneous_triggers_resolve_in_the_order_their_controller_chooses(
    rules, apply, errors, first, memory
):
    s = attack_with_two_triggers(rules, apply, errors)
    assert A.PHASES[int(s.board.phase)] == "select_effect_choice"
    assert int(s.selection.stage) == R.CHOICE_ORDER and int(rules.decider(s)) == 0
    # 1000: STRIP's effect (the top card's, first in the fixed order), 1001: IFBARE's; a decision,
    # not an effect: no decline (62).
    assert np.flatnonzero(np.asarray(errors(s)) == 0).tolist() == [1000, 1001]
    s, _ = step_ok(rules, apply, errors, s, first)
    if first == 1001:  # IFBARE first: the opponent's Digimon still has its source; no memory
        assert int(s.memory) == 3 and A.PHASES[int(s.board.phase)] == "select_target"
    s, _ = step_ok(rules, apply, errors, s, 112)  # STRIP: the opponent's Digimon in slot 0
    # Whatever resolves last is not asked about; the attack goes on to the security check.
    assert stack(rules, s, 1, 0) == ["PLAIN3"] and zone_cards(rules, s, "security", 1) == []
    assert int(s.memory) == memory, "IFBARE's condition holds only after STRIP's effect"
    assert A.PHASES[int(s.board.phase)] == "main" and int(s.board.active_player) == 0


def _relabel(s, a, b):
    """``s`` with card instances ``a`` and ``b`` (copies one player owns) swapped in every
    per-card board array; nothing may refer to either card (no effect waits). Which instance holds
    which of a player's cards is a labelling only: a reachable state stays reachable."""
    assert int(s.queue.card[0]) < 0 and int(s.selection.card) < 0
    swap = np.arange(s.board.zone.shape[0])
    swap[[a, b]] = [b, a]
    board = jax.tree.map(lambda x: x[swap] if x.ndim and x.shape[0] == swap.size else x, s.board)
    return s.replace(board=board)


@pytest.mark.parametrize("card0", [False, True], ids=["as built", "one copy is card instance 0"])
def test_copies_of_one_card_triggered_together_need_no_order(rules, apply, errors, card0):
    s = build_state(rules, [{"field": [["MATT"], ["MATT"]]}, {"field": [["PLAIN3"]]}],
                    active=1, memory=0)  # fmt: skip
    if card0:  # card 0 (a PLAIN3 in the deck) and card 1 (another) differ from MATT
        ids, zone = rules.cards.ids, np.asarray(s.board.zone)
        names = [ids[int(d)] for d in np.asarray(s.board.definition)]
        owner = np.asarray(s.board.owner)
        in_play = [
            c
            for c in range(zone.size)
            if names[c] == "MATT" and owner[c] == 0 and zone[c] != zone[0]
        ]
        assert names[0] == names[1] == "PLAIN3" and len(in_play) == 2
        s = _relabel(s, 0, in_play[0])
        rules.validate(s)
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    assert A.PHASES[int(s.board.phase)] == "breeding", "no choice between two copies"
    assert int(s.board.active_player) == 0 and int(s.memory) == 3 + 2


def test_card_instance_0_is_a_candidate_of_the_order_choice_like_any_card(rules, apply, errors):
    """Which instance holds a card is a labelling: with IFBARE as card instance 0 the attack's two
    simultaneous triggers still ask their controller for the order."""
    s = build_state(rules, [{"field": [["IFBARE", "STRIP"]]},
                            {"field": [["EGG", "PLAIN3"]], "security": ["PLAIN3"]}], memory=3)  # fmt: skip
    ids, owner = rules.cards.ids, np.asarray(s.board.owner)
    names = [ids[int(d)] for d in np.asarray(s.board.definition)]
    zone, slot0 = np.asarray(s.board.zone), int(R.SLOT_ZONES[0, 0])
    ifbare = next(c for c in range(owner.size) if names[c] == "IFBARE" and zone[c] == slot0)
    assert owner[0] == 0 and zone[0] != slot0
    s = _relabel(s, 0, ifbare)
    assert ids[int(s.board.definition[0])] == "IFBARE" and int(s.board.zone[0]) == slot0
    rules.validate(s)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, A.TARGET_PLAYER))
    assert A.PHASES[int(s.board.phase)] == "select_effect_choice"
    assert int(s.selection.stage) == R.CHOICE_ORDER
    assert np.flatnonzero(np.asarray(errors(s)) == 0).tolist() == [1000, 1001]


@pytest.fixture(scope="module")
def spec_rules(rules):
    """The spec's setup and the fixed trigger order (G10's options)."""
    return R.DigimonRules(rules.cards, rules.decks, mulligan=False, trigger_order="fixed")


def test_fixed_trigger_order_and_the_specs_setup(spec_rules):
    rules = spec_rules
    apply, errors = jit_apply(rules), jax.jit(rules.action_errors)
    s = attack_with_two_triggers(rules, apply, errors)
    assert A.PHASES[int(s.board.phase)] == "select_target", "STRIP first, without a choice"
    s, _ = step_ok(rules, apply, errors, s, 112)
    assert int(s.memory) == 5 and stack(rules, s, 1, 0) == ["PLAIN3"]
    start = jax.jit(rules.init)(jax.random.PRNGKey(3))
    assert A.PHASES[int(start.board.phase)] == "breeding" and int(start.selection.card) == -1
    assert int(start.board.turn_number) == 1 and int(start.board.active_player) == int(
        start.first_player
    )


# -- the breeding area is out of effects' reach (issue #32) -----------------------------------------


def test_effects_on_all_your_digimon_skip_the_breeding_area(rules, apply, errors, perm):
    s = build_state(rules, [{"hand": ["RALLY", "WINGS"], "field": [["PLAIN3"]],
                             "breeding": ["EGG", "PLAIN3"]}, {}], memory=3)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))  # WINGS, now hand position 0
    p = perm(s)
    assert int(p.dp[0, 0]) == 4000 and int(p.dp[0, R.BREEDING_SLOT]) == 3000
    assert int(p.security_attack[0, 0]) == 1 and int(p.security_attack[0, R.BREEDING_SLOT]) == 0


def test_a_breeding_digimon_is_no_target(rules, apply, errors, perm):
    s = build_state(rules, [{"hand": ["BOOST"], "breeding": ["EGG", "PLAIN3"]}, {}], memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert A.PHASES[int(s.board.phase)] == "main", "no Digimon to choose: the row fizzles"
    assert int(perm(s).dp[0, R.BREEDING_SLOT]) == 3000
    assert zone_cards(rules, s, "trash", 0) == ["BOOST"]


def test_a_digimon_in_the_breeding_area_does_not_trigger(rules, apply, errors, perm):
    s = build_state(rules, [{"hand": ["DRAW2"], "breeding": ["EGG", "PLAIN3"],
                             "deck": ["PLAIN3", "SPARK", "WINGS"]}, {}], memory=4)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, A.BREEDING_FIELD))
    assert zone_cards(rules, s, "hand", 0) == ["WINGS"], "the bonus draw only, no <Draw 2>"
    assert int(perm(s).dp[0, R.BREEDING_SLOT]) == 5000 and not np.any(np.asarray(s.lasting_kind))


# -- deletion at 0 DP (G11) -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def zero_rules():
    """The same test registry (so the same compiled programs), decks for the 0 DP rule."""
    return make_rules(ENTRIES, ZERO_DP_MAIN)


@pytest.fixture(scope="module")
def zero_apply(zero_rules):
    return jit_apply(zero_rules)


def test_a_digimon_at_0_dp_is_deleted_and_its_on_deletion_fires(zero_rules, zero_apply):
    """SAP takes WEAK (1000 DP) to 0: the rules delete it after the effect, and its [On Deletion]
    row gives its controller 1 memory."""
    rules, errors = zero_rules, jax.jit(zero_rules.action_errors)
    s = build_state(rules, [{"hand": ["SAP"], "field": [["PLAIN3"]]}, {"field": [["WEAK"]]}],
                    memory=3)  # fmt: skip
    s, _ = step_ok(rules, zero_apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, zero_apply, errors, s, 112)
    assert stack(rules, s, 1, 0) == [] and zone_cards(rules, s, "trash", 1) == ["WEAK"]
    assert int(s.memory) == 3 - 1, "player 2's [On Deletion]: +1 for them"


def test_a_bonus_that_expires_at_the_turns_end_deletes_at_0_dp(zero_rules, zero_apply):
    """PLAIN3 (3000) gets +2000 this turn (BOOST) and -3000 until the end of your next turn
    (DRAIN): 2000 during the turn; when the turn ends the bonus expires, it is at 0 DP and the
    rules delete it before the opponent's turn goes on."""
    rules, errors = zero_rules, jax.jit(zero_rules.action_errors)
    perm = jax.jit(rules.permanents)
    s = build_state(rules, [{"hand": ["BOOST", "DRAIN"], "field": [["PLAIN3"]]},
                            {"field": [["PLAIN3"]]}], memory=3)  # fmt: skip
    s, _ = step_ok(rules, zero_apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, zero_apply, errors, s, 100)
    s, _ = step_ok(rules, zero_apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, zero_apply, errors, s, 100)
    assert int(perm(s).dp[0, 0]) == 2000 and stack(rules, s, 0, 0) == ["PLAIN3"]
    s, _ = step_ok(rules, zero_apply, errors, s, A.encode("pass"))
    assert int(s.board.active_player) == 1
    assert stack(rules, s, 0, 0) == [] and zone_cards(rules, s, "trash", 0)[-1] == "PLAIN3"
