"""Primitives the ST-7 and ST-8 starter decks need, on test-only cards, from explicit situations
(the conditions, ``colors`` on chosen targets, ``else_next`` and the continuous restrictions are
tested with their kin in ``test_digimon_conditions``, ``test_digimon_select`` and
``test_digimon_attack``).

The trigger "when one of your opponent's Digimon is deleted" (``opponent_digimon_deleted``, the
ST-7 Gallantmon line: Gigimon, Guilmon, Growlmon, WarGrowlmon): it fires on a deletion in battle,
by an effect and by the 0 DP rule; once per event; within its window and its [Once Per Turn]; and
not for a permanent deleted in the same event (official Q&A Q681, Q683).

The card filter ``name_has`` ("a card with [Dramon] in its name", ST8-03 Veemon's reveal): the
name includes the text, letter case aside (rules 2-3-1-3).

The special digivolution ``digivolve_into`` with the condition ``opponent_has_level_at_least``
(ST7-03 Guilmon, ST8-04 Veemon: "while your opponent has a level 6 Digimon, this Digimon may
digivolve into [Name] in your hand for 4, ignoring digivolution requirements"; rules 8-1-2-2,
2-3-1-2). A Security Digimon that plays itself after its battle (``play_self_after_battle``,
ST7-06, ST8-06; rules 14-2-5, Q684-Q687, Q699-Q701). A deletion under a total-DP budget
(``max_total_dp``, ST7-12 Atomic Blaster; rules 1-3-6, Q692-Q694)."""

import numpy as np
import pytest
from digimon_testlib import (
    code_name,
    digimon,
    legal,
    make_rules,
    other,
    situation,
    stack,
    step_ok,
    zone_cards,
)

from tcgjax.games.digimon import actions as A

R2 = [{"color": "red", "level": 2, "cost": 0}]
PLAYER = A.TARGET_PLAYER

ENTRIES = [
    other("EGG", "digi_egg"),
    # Growlmon-like (ST7-05, on the top card): [Your Turn] once per turn, when one of the
    # opponent's Digimon is deleted, gain 1 memory.
    digimon("GAIN-ON-KILL", 3, 3000, digivolve=R2,
            effects=[{"where": "main", "trigger": "opponent_digimon_deleted",
                      "window": "your_turn", "flags": ["once_per_turn"], "op": "memory",
                      "target": "player", "amount": 1}]),
    # The same without [Your Turn] or [Once Per Turn]: +1 memory on every such event.
    digimon("GAIN-ALWAYS", 3, 1000, digivolve=R2,
            effects=[{"where": "main", "trigger": "opponent_digimon_deleted", "op": "memory",
                      "target": "player", "amount": 1}]),
    digimon("OD-BIG", 4, 5000, digivolve=R2),
    digimon("OD-SMALL", 3, 2000, digivolve=R2),
    # Delete 1 of the opponent's Digimon.
    other("OD-KILL", "option", cost=0,
          effects=[{"where": "main", "trigger": "main", "op": "delete",
                    "target": "choose_opponent_digimon", "count": 1}]),
    # Names for the name filter: two that include "dramon" (letter case aside), one that does not.
    digimon("T-Coredramon", 4, 5000, digivolve=R2),
    digimon("T-ZUDRAMON", 4, 5000, digivolve=R2),
    digimon("T-Dracomon", 3, 2000, digivolve=R2),
    # ST8-03-like: reveal the top 3 cards of your deck; add 1 card with [Dramon] in its name.
    other("DRAMON-SEEK", "option", cost=0,
          effects=[{"where": "main", "trigger": "main", "op": "reveal_add", "target": "player",
                    "amount": 3, "count": 1, "name_has": "Dramon"}]),
    # -3000 DP to 1 of the opponent's Digimon for the turn (the 0 DP rule deletes a 2000 one).
    other("OD-SAP", "option", cost=0,
          effects=[{"where": "main", "trigger": "main", "op": "dp_mod",
                    "target": "choose_opponent_digimon", "count": 1, "amount": -3000,
                    "duration": "this_turn"}]),
    # ST7-03-like: may digivolve into [SP-TARGET] for 4 while the opponent has a level 6+. The
    # row comes second, after an inherited one: a card's rows are read in any order. Its id
    # sorts first in the test registry (definition 1, the first real card): no card is skipped.
    digimon("A0-SP-ROOKIE", 3, 2000, digivolve=R2,
            effects=[{"where": "inherited", "trigger": "when_attacking", "op": "memory",
                      "target": "player", "amount": 1},
                     {"where": "main", "trigger": "continuous", "window": "your_turn",
                      "condition": "opponent_has_level_at_least", "condition_value": 6,
                      "op": "digivolve_into", "name_is": "SP-TARGET", "amount": 4}]),
    # Its named card: printed to digivolve from a level 5 only; [When Digivolving] +1 memory.
    digimon("SP-TARGET", 6, 11000, digivolve=[{"color": "red", "level": 5, "cost": 3}],
            effects=[{"where": "main", "trigger": "when_digivolving", "op": "memory",
                      "target": "player", "amount": 1}]),
    # A name that includes the named one, not it (rules 2-3-1-2: the exact name).
    digimon("SP-TARGET-ALT", 6, 11000, digivolve=[{"color": "red", "level": 5, "cost": 3}]),
    digimon("SP-LV6", 6, 12000, digivolve=[{"color": "red", "level": 5, "cost": 3}]),
    digimon("SP-LV5", 5, 7000, digivolve=[{"color": "red", "level": 4, "cost": 3}]),
    # The resolution-time reading of the condition: draw 1 while the opponent has a level 6+.
    other("LV-DRAW", "option", cost=0,
          effects=[{"where": "main", "trigger": "main", "condition": "opponent_has_level_at_least",
                    "condition_value": 6, "op": "draw", "target": "player", "amount": 1}]),
    # ST7-06-like: battles as a Security Digimon, then plays itself; [On Play] delete 1 opposing
    # Digimon of 4000 DP or less.
    digimon("PAB", 4, 5000, digivolve=R2,
            effects=[{"where": "security", "trigger": "security", "op": "play_self_after_battle"},
                     {"where": "main", "trigger": "on_play", "op": "delete",
                      "target": "choose_opponent_digimon", "count": 1, "max_dp": 4000}]),
    # An attacker with <Security A. +1> (two checks) and 6000 DP.
    digimon("SA-6K", 4, 6000, digivolve=R2, keywords=[],
            effects=[{"where": "main", "trigger": "continuous", "op": "security_attack_mod",
                      "amount": 1}]),
    digimon("B-3K", 3, 3000, digivolve=R2),
    digimon("B-9K", 5, 9000, digivolve=R2),
    # 10 DP over what a 5000 leaves of an 8000 budget: the sum is compared to the point.
    digimon("B-3010", 3, 3010, digivolve=R2),
    # ST7-12-like: delete any number of opposing Digimon whose DP add up to 8000 at most.
    other("BUDGET", "option", cost=0,
          effects=[{"where": "main", "trigger": "main", "op": "delete",
                    "target": "choose_opponent_digimon", "count": 10, "flags": ["up_to"],
                    "max_total_dp": 8000}]),
]  # fmt: skip
# 50 cards: 4 of the Digimon that fill a battle area, 1 of two cards a test uses once, 2 of every
# other card.
COPIES = {"OD-BIG": 4, "OD-SMALL": 4, "SP-LV5": 4, "B-9K": 4, "T-ZUDRAMON": 1, "B-3010": 1}
MAIN = [e["id"] for e in ENTRIES if e["kind"] != "digi_egg" for _ in range(COPIES.get(e["id"], 2))]
THEIRS = 112


@pytest.fixture(scope="module")
def rules():
    return make_rules(ENTRIES, MAIN)


def test_a_deletion_in_battle_fires_the_attackers_side(rules, apply, errors):
    me = {"field": [["GAIN-ON-KILL"], ["OD-BIG"]]}
    s = situation(rules, me, {"field": [["OD-SMALL"]], "suspended": [0]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 1, 0))  # BIG 5000 beats 2000
    assert stack(rules, s, 1, 0) == [] and int(s.memory) == 3 + 1


def test_a_permanent_deleted_in_the_same_battle_does_not_fire(rules, apply, errors):
    """Q681: GAIN-ON-KILL (3000) attacks a 3000 Digimon: both are deleted, its row does not
    fire; another permanent of its player still does (GAIN-ALWAYS)."""
    them = {"field": [["GAIN-ON-KILL"]], "suspended": [0]}  # a 3000 Digimon of the opponent
    alone = situation(rules, {"field": [["GAIN-ON-KILL"]]}, them, memory=3)
    s, _ = step_ok(rules, apply, errors, alone, A.encode("attack", 0, 0))
    assert stack(rules, s, 0, 0) == [] and stack(rules, s, 1, 0) == []
    assert int(s.memory) == 3
    with_other = situation(rules, {"field": [["GAIN-ON-KILL"], ["GAIN-ALWAYS"]]}, them, memory=3)
    s, _ = step_ok(rules, apply, errors, with_other, A.encode("attack", 0, 0))
    assert stack(rules, s, 0, 0) == [] and int(s.memory) == 3 + 1


def test_an_effects_deletion_fires_once_per_turn_within_its_window(rules, apply, errors):
    me = {"hand": ["OD-KILL", "OD-KILL"], "field": [["GAIN-ON-KILL"]]}
    s = situation(rules, me, {"field": [["OD-SMALL"], ["OD-BIG"]]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 1, 0) == [] and int(s.memory) == 3 + 1
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert stack(rules, s, 1, 1) == [] and int(s.memory) == 3 + 1  # [Once Per Turn]: spent


def test_the_0_dp_rule_fires_it_and_each_event_counts(rules, apply, errors):
    """Without [Once Per Turn], every event fires: a deletion by the 0 DP rule, then one by an
    effect."""
    me = {"hand": ["OD-SAP", "OD-KILL"], "field": [["GAIN-ALWAYS"]]}
    s = situation(rules, me, {"field": [["OD-SMALL"], ["OD-BIG"]]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))  # SAP
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)  # SMALL at -1000: deleted at 0 DP
    assert stack(rules, s, 1, 0) == [] and int(s.memory) == 3 + 1
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))  # KILL
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert stack(rules, s, 1, 1) == [] and int(s.memory) == 3 + 2


def test_losing_a_digimon_of_your_own_does_not_fire_it(rules, apply, errors):
    """In the opponent's turn their BIG deletes this player's suspended SMALL: GAIN-ALWAYS
    watches the opponent's Digimon, not its own side's, so no memory moves (the memory is
    counted from the opponent's side, the player to act)."""
    me = {"field": [["GAIN-ALWAYS"], ["OD-SMALL"]], "suspended": [1]}
    s = situation(rules, me, {"field": [["OD-BIG"]]}, active=1, turn=3, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 1))  # BIG deletes SMALL
    assert stack(rules, s, 0, 1) == [] and int(s.memory) == 3


# -- name_has: "[Dramon] in its name" (ST8-03) -------------------------------------------------------


def test_name_has_takes_only_cards_whose_name_includes_the_text(rules, apply, errors):
    deck = ["T-ZUDRAMON", "T-Coredramon", "T-Dracomon"]  # bottom first: revealed top first
    me = {"hand": ["DRAMON-SEEK"], "deck": deck, "field": [["OD-SMALL"]]}
    s = situation(rules, me, {}, memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert A.PHASES[int(s.board.phase)] == "select_reveal"
    assert zone_cards(rules, s, "revealed") == deck[::-1]
    legal = [int(i) for i in np.flatnonzero(np.asarray(errors(s)) == 0)]
    assert legal == [31, 32], "Coredramon and ZUDRAMON, not Dracomon"
    s, _ = step_ok(rules, apply, errors, s, 32)
    assert zone_cards(rules, s, "hand", 0) == ["T-ZUDRAMON"]


def test_name_has_is_refused_where_no_card_filter_is_read():
    from tcgjax.core.cards import CardRegistry
    from tcgjax.core.errors import CardDataError
    from tcgjax.games.digimon import cards as C

    bad = other("BAD", "option", effects=[{"where": "main", "trigger": "main", "op": "draw",
                                           "target": "player", "amount": 1,
                                           "name_has": "Dramon"}])  # fmt: skip
    with pytest.raises(CardDataError, match="name_has filters the cards of"):
        C.check_card_rules(CardRegistry(C.SCHEMA, [bad], source="bad.yaml"))


# -- digivolve_into: the special digivolution (ST7-03, ST8-04) ----------------------------------------

SPECIAL = A.encode("digivolve", 0, 0)  # hand card 0 onto battle slot 0


def test_the_named_card_digivolves_for_its_cost_while_the_opponent_has_a_level_6(
    rules, apply, errors
):
    """Level 3 into level 6, requirements ignored: 4 memory paid, the digivolution draw, and
    the new top card's [When Digivolving] (+1 memory): 5 - 4 + 1 = 2. A0-SP-ROOKIE's special row
    is its second (the first is an inherited one): the row is found wherever it stands."""
    me = {"hand": ["SP-TARGET"], "deck": ["OD-SMALL"], "field": [["A0-SP-ROOKIE"]]}
    s = situation(rules, me, {"field": [["SP-LV6"]]}, memory=5)
    s, _ = step_ok(rules, apply, errors, s, SPECIAL)
    assert stack(rules, s, 0, 0) == ["A0-SP-ROOKIE", "SP-TARGET"]
    assert zone_cards(rules, s, "hand", 0) == ["OD-SMALL"] and int(s.memory) == 2


def test_a_special_row_in_the_breeding_area_is_not_in_force(rules, errors):
    """Two A0-SP-ROOKIE, one in the battle area (its row in force: an opposing level 6) and one
    on top of the breeding area, whose effects do not activate: SP-TARGET digivolves onto the
    first by the special way, not onto the second (level 5 printed requirement unmet)."""
    me = {"hand": ["SP-TARGET"], "field": [["A0-SP-ROOKIE"]], "breeding": ["EGG", "A0-SP-ROOKIE"]}
    s = situation(rules, me, {"field": [["SP-LV6"]]}, memory=5)
    assert code_name(errors(s)[SPECIAL]) == "ok"
    onto_breeding = A.encode("digivolve", 0, A.BREEDING_FIELD)
    assert code_name(errors(s)[onto_breeding]) == "requirement_not_met"


def test_the_second_player_digivolves_by_their_own_special_row(rules, apply, errors):
    """In player 2's turn the special way is read from player 2's Digimon (and the condition
    from player 1's): legal with the row on their rookie, and it costs the row's 4 (5 - 4 + 1,
    as for player 1); not legal with the rookie and the row on player 1's side ([Your Turn])."""
    rookie = {"hand": ["SP-TARGET"], "deck": ["OD-SMALL"], "field": [["A0-SP-ROOKIE"]]}
    s = situation(rules, {"field": [["SP-LV6"]]}, rookie, active=1, memory=5)
    s, _ = step_ok(rules, apply, errors, s, SPECIAL)
    assert stack(rules, s, 1, 0) == ["A0-SP-ROOKIE", "SP-TARGET"]
    assert zone_cards(rules, s, "hand", 1) == ["OD-SMALL"] and int(s.memory) == 2
    mirrored = {"field": [["A0-SP-ROOKIE"], ["SP-LV6"]]}
    s = situation(rules, mirrored, {"hand": ["SP-TARGET"], "field": [["OD-SMALL"]]}, active=1)
    assert code_name(errors(s)[SPECIAL]) == "requirement_not_met"


def test_no_special_digivolution_without_an_opposing_level_6(rules, errors):
    """A level 5 is not enough, nor a level 6 in the breeding area (not in play there for
    effects: the battle area only); the printed requirement (level 5) is not met either."""
    me = {"hand": ["SP-TARGET"], "field": [["A0-SP-ROOKIE"]]}
    for opponent in ({"field": [["SP-LV5"]]}, {"breeding": ["EGG", "SP-LV6"]}, {}):
        s = situation(rules, me, opponent, memory=5)
        assert code_name(errors(s)[SPECIAL]) == "requirement_not_met", opponent


def test_only_the_exact_name_and_only_from_the_top_card(rules, errors):
    """[SP-TARGET] is an exact name (rules 2-3-1-2): SP-TARGET-ALT is refused. The row is the
    top card's own text: under another card it grants nothing."""
    s = situation(rules, {"hand": ["SP-TARGET-ALT"], "field": [["A0-SP-ROOKIE"]]},
                  {"field": [["SP-LV6"]]}, memory=5)  # fmt: skip
    assert code_name(errors(s)[SPECIAL]) == "requirement_not_met"
    s = situation(rules, {"hand": ["SP-TARGET"], "field": [["A0-SP-ROOKIE", "OD-SMALL"]]},
                  {"field": [["SP-LV6"]]}, memory=5)  # fmt: skip
    assert code_name(errors(s)[SPECIAL]) == "requirement_not_met"


@pytest.fixture(scope="module")
def plain_rules():
    """A card file of its own, without the shared registry's budget row (ST7-12-like) and with
    special rows that cost 0 memory: the host-known switches of those rows are off and on."""
    from tcgjax.core.cards import CardRegistry
    from tcgjax.games.digimon import cards as C
    from tcgjax.games.digimon import rules as R

    row = {"where": "main", "trigger": "continuous", "window": "your_turn",
           "op": "digivolve_into", "name_is": "ZERO-TARGET", "amount": 0}  # fmt: skip
    # Special rows into cards whose printed requirement their holder meets too, so that both
    # ways apply: the special way for 0 (printed 2), and the printed way for 0 (special 3). One
    # such row a card: the loader's rule.
    two_way = dict(row, name_is="ZERO-TWOWAY")
    printed_free = dict(row, name_is="ZERO-PRINTED0", amount=3)
    kill = {"where": "main", "trigger": "main", "op": "delete",
            "target": "choose_opponent_digimon", "count": 1}  # fmt: skip
    fillers = [digimon(f"ZERO-FILL{k}", 3, 1000, digivolve=R2) for k in range(10)]
    entries = [
        other("EGG", "digi_egg"),
        other("ZERO-KILL", "option", cost=0, effects=[kill]),
        digimon("ZERO-ROOKIE", 3, 2000, digivolve=R2, effects=[row]),
        digimon("ZERO-ROOKIE2", 3, 2000, digivolve=R2, effects=[two_way]),
        digimon("ZERO-ROOKIE3", 3, 2000, digivolve=R2, effects=[printed_free]),
        digimon("ZERO-TARGET", 6, 11000, digivolve=[{"color": "red", "level": 5, "cost": 3}]),
        digimon("ZERO-TWOWAY", 4, 5000, digivolve=[{"color": "red", "level": 3, "cost": 2}]),
        digimon("ZERO-PRINTED0", 4, 5000, digivolve=[{"color": "red", "level": 3, "cost": 0}]),
        *fillers,
    ]
    main = ["ZERO-KILL"] * 3 + ["ZERO-TARGET"] * 2 + ["ZERO-ROOKIE"]
    main += ["ZERO-ROOKIE2", "ZERO-TWOWAY", "ZERO-ROOKIE3", "ZERO-PRINTED0"]
    main += [f["id"] for f in fillers for _ in range(4)]
    return R.DigimonRules(
        CardRegistry(C.SCHEMA, entries, source="plain.yaml"), [(["EGG"] * 4, main)] * 2
    )


@pytest.fixture(scope="module")
def plain_errors(plain_rules):
    import jax

    return jax.jit(plain_rules.action_errors)


def test_a_special_digivolution_for_0_memory_is_a_special_way(plain_rules, plain_errors):
    """ZERO-ROOKIE's special row costs 0 memory: 0 is a cost, so the special way is there (with
    no memory left), though the printed requirement (level 5) is not met."""
    me = {"hand": ["ZERO-TARGET"], "field": [["ZERO-ROOKIE"]]}
    s = situation(plain_rules, me, {}, memory=0)
    assert code_name(plain_errors(s)[SPECIAL]) == "ok"


def test_where_both_ways_apply_the_way_for_0_memory_is_the_cost(plain_rules, plain_errors):
    """A red level 3 meets the printed requirement of the card it has a special row into, and
    one of the two ways costs 0 (the special one into ZERO-TWOWAY, printed 2; the printed one into
    ZERO-PRINTED0, special 3): the cheaper way is the cost, so at -9 memory (the gauge ends at
    -10, G1) the digivolution is legal, where 2 memory, the printed way alone, is not."""
    for top, into in (("ZERO-ROOKIE2", "ZERO-TWOWAY"), ("ZERO-ROOKIE3", "ZERO-PRINTED0")):
        s = situation(plain_rules, {"hand": [into], "field": [[top]]}, {}, memory=-9)
        assert code_name(plain_errors(s)[SPECIAL]) == "ok", into
    s = situation(plain_rules, {"hand": ["ZERO-TWOWAY"], "field": [["ZERO-FILL0"]]}, {}, memory=-9)
    assert code_name(plain_errors(s)[SPECIAL]) == "not_enough_memory"


def test_without_budget_rows_a_chosen_digimon_is_deleted_at_once(plain_rules, plain_errors):
    """No row of this card file has a max_total_dp: a chosen target is deleted when chosen, not
    marked for a later group deletion."""
    from digimon_testlib import jit_apply

    apply = jit_apply(plain_rules)
    me = {"hand": ["ZERO-KILL"], "field": [["ZERO-FILL1"]]}  # a Digimon of the Option's color
    s = situation(plain_rules, me, {"field": [["ZERO-FILL0"]]}, memory=3)
    s, _ = step_ok(plain_rules, apply, plain_errors, s, A.encode("play", 0))
    s, _ = step_ok(plain_rules, apply, plain_errors, s, THEIRS)
    assert A.PHASES[int(s.board.phase)] == "main"
    assert stack(plain_rules, s, 1, 0) == []
    assert zone_cards(plain_rules, s, "trash", 1) == ["ZERO-FILL0"]


def test_a_special_row_outside_the_tables_cards_skips_only_itself():
    """With a large card file the digivolution tables cover the decks' cards only (``used``,
    ``DIGIVOLVE_TABLE_ALL_CARDS``): a special row on a card outside them is passed over, and the
    rows of the cards after it still count."""
    from tcgjax.core.cards import CardRegistry
    from tcgjax.games.digimon import cards as C
    from tcgjax.games.digimon.state import _digivolve_cost_table, _special_digivolve_table

    def special(number, cost):
        row = {"where": "main", "trigger": "continuous", "window": "your_turn",
               "op": "digivolve_into", "name_is": "SP-TARGET", "amount": cost}  # fmt: skip
        return digimon(number, 3, 2000, digivolve=R2, effects=[row])

    target = next(e for e in ENTRIES if e["id"] == "SP-TARGET")
    cards = CardRegistry(
        C.SCHEMA, [special("A-OUTSIDE", 1), special("B-INSIDE", 4), target], source="t.yaml"
    )
    used = [0, cards.index("B-INSIDE"), cards.index("SP-TARGET")]
    compact, _ = _digivolve_cost_table(cards, used)
    cost = _special_digivolve_table(cards, used, compact)
    inside, named = compact[cards.index("B-INSIDE")], compact[cards.index("SP-TARGET")]
    assert cost[named, inside] == 4
    assert (cost >= 0).sum() == 1


def test_the_special_cost_must_be_affordable(rules, errors):
    """The special cost (4) is paid like any other: within the gauge's reach (memory may go
    down to -10, G1), so at -6 it is legal and at -7 it is not."""
    s = situation(rules, {"hand": ["SP-TARGET"], "field": [["A0-SP-ROOKIE"]]},
                  {"field": [["SP-LV6"]]}, memory=-7)  # fmt: skip
    assert code_name(errors(s)[SPECIAL]) == "not_enough_memory"
    s = situation(rules, {"hand": ["SP-TARGET"], "field": [["A0-SP-ROOKIE"]]},
                  {"field": [["SP-LV6"]]}, memory=-6)  # fmt: skip
    assert code_name(errors(s)[SPECIAL]) == "ok"


def test_the_condition_read_when_a_row_resolves(rules, apply, errors):
    """opponent_has_level_at_least on a [Main] row: it draws with a level 6 opposing Digimon in
    play, not with a level 5."""
    for opponent, drawn in (({"field": [["SP-LV6"]]}, 1), ({"field": [["SP-LV5"]]}, 0)):
        me = {"hand": ["LV-DRAW"], "deck": ["OD-SMALL"], "field": [["OD-BIG"]]}
        s = situation(rules, me, opponent, memory=3)
        s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
        assert len(zone_cards(rules, s, "hand", 0)) == drawn, opponent


# -- play_self_after_battle: a Security Digimon that plays itself (ST7-06, ST8-06) ---------------------


def test_a_security_digimon_that_loses_its_battle_still_enters_play(rules, apply, errors):
    """SA-6K (6000, two checks) checks PAB (5000): PAB loses the battle, then enters the
    defender's battle area free (Q685), and its [On Play] (delete 1 opposing Digimon of 4000 DP
    or less) is the defender's choice before the second check (Q686): the second security card
    is still there."""
    me = {"field": [["SA-6K"], ["B-3K"]]}
    s = situation(rules, me, {"security": ["OD-SMALL", "PAB"]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 1, 0) == ["PAB"] and stack(rules, s, 0, 0) == ["SA-6K"]
    assert A.PHASES[int(s.board.phase)] == "select_target"
    assert zone_cards(rules, s, "security", 1) == ["OD-SMALL"], "the next check waits"
    assert legal(errors, s) == [THEIRS + 1], "B-3K (3000); SA-6K has 6000 DP"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)  # PAB's owner deletes B-3K
    assert stack(rules, s, 0, 1) == [] and zone_cards(rules, s, "security", 1) == []
    assert zone_cards(rules, s, "trash", 1) == ["OD-SMALL"], "the second check: trashed"


def test_a_security_digimon_that_wins_its_battle_enters_play_too(rules, apply, errors):
    """OD-SMALL (2000) attacks; PAB (5000) deletes it in battle, then enters play (Q685). Its
    [On Play] has no target left (no opposing Digimon of 4000 or less)."""
    s = situation(rules, {"field": [["OD-SMALL"]]}, {"security": ["PAB"]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 0, 0) == [] and stack(rules, s, 1, 0) == ["PAB"]
    assert zone_cards(rules, s, "trash", 1) == [] and A.PHASES[int(s.board.phase)] == "main"


def test_in_the_second_players_attack_it_enters_the_first_players_area(rules, apply, errors):
    """The same with the seats swapped: player 2's OD-SMALL attacks, player 1's PAB deletes it
    and enters player 1's battle area, beside their own Digimon."""
    them = {"field": [["OD-SMALL"]]}
    s = situation(rules, {"field": [["B-3K"]], "security": ["PAB"]}, them, active=1, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 1, 0) == [] and stack(rules, s, 0, 1) == ["PAB"]
    assert stack(rules, s, 0, 0) == ["B-3K"] and zone_cards(rules, s, "trash", 0) == []


def test_with_a_full_battle_area_it_goes_to_the_trash(rules, apply, errors):
    """No free battle slot: the card cannot be played and is trashed (rules 13-1-8)."""
    field = [["SP-LV5"]] * 4 + [["B-9K"]] * 4 + [["OD-BIG"]] * 4
    s = situation(rules, {"field": [["SA-6K"]]}, {"field": field, "security": ["PAB"]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "trash", 1) == ["PAB"]
    assert [stack(rules, s, 1, i) for i in range(12)] == field


# -- max_total_dp: delete Digimon whose DP add up to a budget (ST7-12) ---------------------------------


def test_budget_picks_while_the_sum_fits_and_deletes_them_together(rules, apply, errors):
    """Opposing 5000, 3000, 5000, 2000 (slots 0-3): after the 5000 only the 3000 and the 2000
    fit; after the 3000 (8000 spent) nothing does, and both are deleted together: one event, so
    GAIN-ALWAYS ("when an opposing Digimon is deleted") gains 1 memory, not 2."""
    them = {"field": [["OD-BIG"], ["B-3K"], ["OD-BIG"], ["OD-SMALL"]]}
    s = situation(rules, {"hand": ["BUDGET"], "field": [["GAIN-ALWAYS"]]}, them, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert legal(errors, s) == [THEIRS + i for i in range(4)], "at least one: no 62 yet"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 1, 0) == ["OD-BIG"], "marked, not yet deleted"
    assert legal(errors, s) == [A.LAYOUT.start("pass"), THEIRS + 1, THEIRS + 3]
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert A.PHASES[int(s.board.phase)] == "main"
    assert stack(rules, s, 1, 0) == [] and stack(rules, s, 1, 1) == []
    assert stack(rules, s, 1, 2) == ["OD-BIG"] and stack(rules, s, 1, 3) == ["OD-SMALL"]
    assert int(s.memory) == 3 + 1


def test_budget_counts_every_point_of_dp(rules, apply, errors):
    """After a 5000, 3000 more is exactly the 8000 budget and fits; a 3010 is 10 over and does
    not: the picks' DP are summed exactly (rules 1-3-6)."""
    them = {"field": [["OD-BIG"], ["B-3010"], ["B-3K"]]}
    s = situation(rules, {"hand": ["BUDGET"], "field": [["GAIN-ALWAYS"]]}, them, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert legal(errors, s) == [THEIRS + i for i in range(3)], "each fits alone"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert legal(errors, s) == [A.LAYOUT.start("pass"), THEIRS + 2], "the 3010 is over"


def test_a_pick_in_the_last_battle_slot_deletes_only_that_digimon(rules, apply, errors):
    """The twelfth battle slot (11) picked and the picking ended: that Digimon goes to the trash;
    the other eleven and the opponent's breeding area (the zone before slot 0) stay as they were."""
    eleven = ["OD-BIG"] * 4 + ["OD-SMALL"] * 4 + ["B-9K"] * 3
    them = {"field": [[n] for n in eleven] + [["B-3K"]], "breeding": ["EGG"]}
    s = situation(rules, {"hand": ["BUDGET"], "field": [["GAIN-ALWAYS"]]}, them, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 11)
    s, _ = step_ok(rules, apply, errors, s, A.LAYOUT.start("pass"))
    assert A.PHASES[int(s.board.phase)] == "main"
    assert zone_cards(rules, s, "trash", 1) == ["B-3K"]
    assert stack(rules, s, 1, 11) == [] and stack(rules, s, 1, 12) == ["EGG"]
    assert [stack(rules, s, 1, i) for i in range(11)] == [[n] for n in eleven]


def test_budget_played_by_the_second_player_deletes_the_first_players_picks(rules, apply, errors):
    """The same row in player 2's turn: the picked Digimon are player 1's (the controller's
    opponent), deleted when the picking ends; player 2's own Digimon stay. (Their slot 1 holds
    a 9000: over the budget, so the marked pick validates only as player 1's.)"""
    them = {"field": [["OD-SMALL"], ["B-3K"]]}
    me = {"hand": ["BUDGET"], "field": [["GAIN-ALWAYS"], ["B-9K"]]}
    s = situation(rules, them, me, active=1, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    s, _ = step_ok(rules, apply, errors, s, A.LAYOUT.start("pass"))
    assert A.PHASES[int(s.board.phase)] == "main"
    assert zone_cards(rules, s, "trash", 0) == ["B-3K"]
    assert stack(rules, s, 0, 0) == ["OD-SMALL"] and stack(rules, s, 0, 1) == []
    assert stack(rules, s, 1, 0) == ["GAIN-ALWAYS"] and stack(rules, s, 1, 1) == ["B-9K"]


@pytest.fixture(scope="module")
def picking(rules, apply, errors):
    """Player 1 picking under BUDGET's 8000, the opponent's 5000 in slot 0 picked; their battle
    area: 5000, 3000, 5000, 2000 in slots 0-3, slots 4-11 empty."""
    them = {"field": [["OD-BIG"], ["B-3K"], ["OD-BIG"], ["OD-SMALL"]]}
    s = situation(rules, {"hand": ["BUDGET"], "field": [["GAIN-ALWAYS"]]}, them, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert int(s.selection.picked) == 1
    return s


@pytest.mark.parametrize(
    ("picked", "problem"),
    [
        (0b0011, None),  # 5000 + 3000: the budget exactly
        (0b1011, "their DP 10000 over the row's max_total_dp 8000"),
        (0b0101, "their DP 10000 over"),
        (0b10001, "a picked slot of player2 holds no Digimon"),  # slot 4 is empty
        (1 << 11, "a picked slot of player2 holds no Digimon"),  # the last slot, empty
        ((1 << A.FIELD_SLOTS) - 1, "holds no Digimon"),  # every slot: in range
        (0, "not a set of battle slots 0-11"),
        (1 << A.FIELD_SLOTS, "not a set of battle slots"),
        (-2, "not a set of battle slots"),
    ],
)
def test_the_budget_picks_are_checked(rules, picking, picked, problem):
    """``validate`` on a max_total_dp row's picks (``Selection.picked``, a set of the opponent's
    battle slots): each a Digimon, their DP within the budget, the set within slots 0-11."""
    import jax.numpy as jnp

    from tcgjax import InvalidStateError

    s = picking.replace(selection=picking.selection.replace(picked=jnp.int16(picked)))
    if problem is None:
        rules.validate(s)
        return
    with pytest.raises(InvalidStateError, match=problem) as info:
        rules.validate(s)
    assert info.value.field == "game.selection"


def test_picks_are_refused_on_a_row_without_a_budget(rules, apply, errors):
    """OD-KILL's choice (delete 1, no max_total_dp) in the same phase: a set of picks there is
    refused as unused, not judged against a budget."""
    import jax.numpy as jnp

    from tcgjax import InvalidStateError

    me = {"hand": ["OD-KILL"], "field": [["OD-BIG"]]}  # a red Digimon: the Option's color
    s = situation(rules, me, {"field": [["OD-SMALL"]]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert A.PHASES[int(s.board.phase)] == "select_target" and int(s.selection.picked) == -1
    s = s.replace(selection=s.selection.replace(picked=jnp.int16(1)))
    with pytest.raises(InvalidStateError, match="unused: -1, but for a max_total_dp row's picks"):
        rules.validate(s)


def test_budget_ends_when_the_player_passes(rules, apply, errors):
    them = {"field": [["OD-SMALL"], ["B-3K"]]}
    s = situation(rules, {"hand": ["BUDGET"], "field": [["GAIN-ALWAYS"]]}, them, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    s, _ = step_ok(rules, apply, errors, s, A.LAYOUT.start("pass"))
    assert stack(rules, s, 1, 0) == ["OD-SMALL"] and stack(rules, s, 1, 1) == []
    assert A.PHASES[int(s.board.phase)] == "main" and int(s.selection.picked) == -1


def test_budget_with_nothing_that_fits_does_nothing(rules, apply, errors):
    me = {"hand": ["BUDGET"], "field": [["GAIN-ALWAYS"]]}  # a red Digimon: the Option's color
    s = situation(rules, me, {"field": [["B-9K"]]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert A.PHASES[int(s.board.phase)] == "main" and stack(rules, s, 1, 0) == ["B-9K"]
