"""Primitives the ST-7 and ST-8 starter decks need, on test-only cards, from explicit situations
(the conditions, ``colors`` on chosen targets, ``else_next`` and the continuous restrictions are
tested with their kin in ``test_digimon_conditions``, ``test_digimon_select`` and
``test_digimon_attack``).

The trigger "when one of your opponent's Digimon is deleted" (``opponent_digimon_deleted``, the
ST-7 Gallantmon line: Gigimon, Guilmon, Growlmon, WarGrowlmon): it fires on a deletion in battle,
by an effect and by the 0 DP rule; once per event; within its window and its [Once Per Turn]; and
not for a permanent deleted in the same event (official Q&A Q681, Q683).

The card filter ``name_has`` ("a card with [Dramon] in its name", ST8-03 Veemon's reveal): the
name includes the text, letter case aside (rules 2-3-1-3)."""

import numpy as np
import pytest
from digimon_testlib import digimon, make_rules, other, situation, stack, step_ok, zone_cards

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
]  # fmt: skip
MAIN = [e["id"] for e in ENTRIES if e["kind"] != "digi_egg" for _ in range(4)]
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
