"""Continuous effects (stage 2e): DP and <Security A.> modifiers from effect rows — windows
([Your Turn]), conditions, inherited rows, a Tamer's aura, per-two-sources amounts — and the worked
example of ``digimon_state_tensor.md`` reproduced value by value on both turns (decision G5)."""

import jax
import numpy as np
import pytest
from digimon_testlib import (
    digimon,
    jit_apply,
    make_rules,
    other,
    situation,
    stack,
    step_ok,
    zone_cards,
)

from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import observation as O
from tcgjax.games.digimon.rules import slot_zone

R2 = [{"color": "red", "level": 2, "cost": 0}]
R3 = [{"color": "red", "level": 3, "cost": 2}]


def row(**kw):
    return {"where": "inherited", "trigger": "continuous", **kw}


ENTRIES = [
    other("EGG", "digi_egg"),
    # Koromon-like egg: inherited [Your Turn] +1000 DP with >= 4 digivolution cards.
    other("EGG4", "digi_egg", effects=[row(window="your_turn", condition="min_sources",
                                           condition_value=4, op="dp_mod", amount=1000)]),
    # Agumon-like: inherited [Your Turn] +1000 DP.
    digimon("YT1K", 3, 2000, digivolve=R2,
            effects=[row(window="your_turn", op="dp_mod", amount=1000)]),
    digimon("PLAIN3", 3, 3000, digivolve=R2),
    # Greymon-like: inherited <Security A. +1>, always on.
    digimon("SA1", 4, 4000, digivolve=R3, effects=[row(op="security_attack_mod", amount=1)]),
    digimon("PLAIN4", 4, 5000, digivolve=R3),
    # WarGreymon-like: main [Your Turn] <Security A. +1> per 2 digivolution cards.
    digimon("PER2", 5, 6000, digivolve=[{"color": "red", "level": 4, "cost": 3}],
            effects=[{"where": "main", "trigger": "continuous", "window": "your_turn",
                      "op": "security_attack_mod", "amount": 1, "amount_per": "per_two_sources"}]),
    # WereGarurumon-like: inherited [Your Turn] SA +1 if the opponent has a no-source Digimon.
    digimon("OPP0", 4, 4000, digivolve=R3,
            effects=[row(window="your_turn", condition="opponent_has_no_source_digimon",
                         op="security_attack_mod", amount=1)]),
    # Tsunomon-like egg: inherited [Your Turn] +1000 DP when battling a no-source Digimon.
    other("EGGB", "digi_egg", effects=[row(window="your_turn", condition="battling_no_source_digimon",
                                           op="dp_mod", amount=1000)]),
    # Tai-like Tamer: main [Your Turn] all your Digimon +1000 DP.
    other("AURA", "tamer", cost=2,
          effects=[{"where": "main", "trigger": "continuous", "window": "your_turn",
                    "op": "dp_mod", "target": "all_own_digimon", "amount": 1000}]),
    # The worked example (G5): a Rookie with an OPT [Your Turn] +2000 inherited, and a Champion.
    digimon("TEST-ROOKIE", 3, 3000, digivolve=R2,
            effects=[row(window="your_turn", flags=["once_per_turn"], op="dp_mod", amount=2000)]),
    digimon("TEST-CHAMPION", 4, 6000, digivolve=R3),
]  # fmt: skip
MAIN = [e["id"] for e in ENTRIES if e["kind"] != "digi_egg" for _ in range(4)][:50]
EGGS = ["EGG", "EGG4", "EGGB", "EGG"]


@pytest.fixture(scope="module")
def rules():
    return make_rules(ENTRIES, MAIN, EGGS)


def test_your_turn_inherited_dp_applies_only_on_the_owners_turn(rules, perm):
    s = situation(rules, {"field": [["YT1K", "PLAIN4"]]}, {"field": [["YT1K", "PLAIN4"]]})
    dp = np.asarray(perm(s).dp)
    assert (dp[0, 0], dp[1, 0]) == (6000, 5000)


def test_condition_min_sources(rules, perm):
    three = situation(rules, {"field": [["EGG4", "PLAIN3", "PLAIN4", "PLAIN4"]]}, {})
    four = situation(rules, {"field": [["EGG4", "PLAIN3", "PLAIN4", "PLAIN4", "PLAIN4"]]}, {})
    assert int(perm(three).dp[0, 0]) == 5000 and int(perm(four).dp[0, 0]) == 6000


def test_tamer_aura_lifts_every_own_digimon_on_your_turn_only(rules, perm):
    s = situation(rules, {"field": [["AURA"], ["PLAIN3"], ["PLAIN4"]]}, {"field": [["PLAIN3"]]})
    p = perm(s)
    assert np.asarray(p.dp[0, :3]).tolist() == [0, 4000, 6000], "the Tamer itself has no DP"
    assert int(p.dp[1, 0]) == 3000
    theirs = situation(rules, {"field": [["AURA"], ["PLAIN3"]]}, {}, active=1)
    assert int(perm(theirs).dp[0, 1]) == 3000


def test_security_attack_modifiers(rules, perm):
    s = situation(rules, {"field": [["PLAIN3", "SA1", "PER2"], ["OPP0", "PLAIN4"]]},
                  {"field": [["PLAIN3"]]})  # fmt: skip
    p = perm(s)
    # slot 0: SA1 inherited +1, PER2 with 2 digivolution cards: +1 -> 2; slot 1: OPP0 +1.
    assert np.asarray(p.security_attack[0, :2]).tolist() == [2, 1]
    s = situation(rules, {"field": [["OPP0", "PLAIN4"]]}, {"field": [["PLAIN3", "PLAIN4"]]})
    assert int(perm(s).security_attack[0, 0]) == 0, "no opponent Digimon without sources"


def test_security_attack_checks_more_cards(rules):
    s = situation(rules, {"field": [["SA1", "PER2"]]}, {"security": ["PLAIN4", "PLAIN3", "AURA"]})
    apply, errors = jit_apply(rules), jax.jit(rules.action_errors)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, A.TARGET_PLAYER))
    assert zone_cards(rules, s, "trash", 1) == ["AURA", "PLAIN3"]  # top first: 2 checks
    assert zone_cards(rules, s, "security", 1) == ["PLAIN4"]
    assert stack(rules, s, 0, 0) == ["SA1", "PER2"]


def test_battling_a_no_source_digimon(rules):
    """EGGB's +1000 turns a 3000 vs 3000 tie into a win, but only against a no-source Digimon."""
    apply, errors = jit_apply(rules), jax.jit(rules.action_errors)
    for theirs, survives in ((["PLAIN3"], True), (["EGG", "PLAIN3"], False)):
        s = situation(rules, {"field": [["EGGB", "PLAIN3"]]},
                      {"field": [theirs], "suspended": [0]})  # fmt: skip
        s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
        assert (stack(rules, s, 0, 0) != []) == survives, theirs
        assert stack(rules, s, 1, 0) == []


@pytest.mark.parametrize("owners_turn", [True, False])
def test_worked_example_of_the_tensor_spec(rules, owners_turn):
    """G5: TEST-ROOKIE (3000 DP, inherited [Your Turn] +2000, one OPT effect) under TEST-CHAMPION
    (6000 DP): 8000 and a 2000 contribution on its owner's turn, 6000 and 0 on the opponent's."""
    ids = {cid: float(i) for i, cid in enumerate(rules.cards.ids)}
    s = situation(rules, {"field": [["TEST-ROOKIE", "TEST-CHAMPION"]]}, {},
                  active=0 if owners_turn else 1)  # fmt: skip
    slot = np.asarray(O.LAYOUT.view(O.board_state_tensor(rules, s, 0), "my_field"))[0]
    expected = [ids["TEST-CHAMPION"], 8000.0 if owners_turn else 6000.0, 0.0, 1.0, 0.0, 0.0, 2.0,
                ids["TEST-ROOKIE"], 1.0, 2000.0 if owners_turn else 0.0,
                ids["TEST-CHAMPION"], -1.0, 0.0] + [0.0] * 18  # fmt: skip
    np.testing.assert_array_equal(slot, expected)


def test_tensor_counts_once_per_turn_rows_used_this_turn(rules):
    """The worked example after TEST-ROOKIE's [Once Per Turn] row was used this turn: the header's
    OPT used is 1 (of 1) and the source entry's OPT state 0.0 (nothing left); a row used by a card
    off the field counts nowhere."""
    s = situation(rules, {"field": [["TEST-ROOKIE", "TEST-CHAMPION"]], "hand": ["TEST-ROOKIE"]}, {})
    board = s.board
    rookie = rules.cards.ids.index("TEST-ROOKIE")
    field = np.asarray(board.zone) == np.asarray(slot_zone(0, 0))  # the first battle-area slot
    in_hand = np.flatnonzero((np.asarray(board.definition) == rookie) & ~field)
    on_field = np.flatnonzero((np.asarray(board.definition) == rookie) & field)
    assert len(on_field) == 1 and len(in_hand) >= 1
    used = np.zeros(np.asarray(s.opt_used).shape, np.uint8)
    used[[on_field[0], in_hand[0]]] = 1  # row 0: the OPT row
    s = s.replace(opt_used=jax.numpy.asarray(used))
    slot = np.asarray(O.LAYOUT.view(O.board_state_tensor(rules, s, 0), "my_field"))[0]
    header = dict(zip(O.HEADER, slot[: len(O.HEADER)], strict=True))
    assert header["opt_total"] == 1.0 and header["opt_used"] == 1.0
    first = len(O.HEADER)  # the bottom source: TEST-ROOKIE
    assert slot[first + O.SOURCE_FIELDS.index("opt_state")] == 0.0
    assert slot[first + len(O.SOURCE_FIELDS) + O.SOURCE_FIELDS.index("opt_state")] == -1.0
