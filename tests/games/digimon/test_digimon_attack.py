"""Digimon attacks (stage 2c): declaration, block timing with <Blocker>, battles (lower DP deleted,
equal DP both), security checks (a Digimon card battles the attacker, <Jamming>), the win by
attacking a player with no security, <Rush> and the same-turn rule — scripted situations."""

import numpy as np
import pytest
from digimon_testlib import code_name, digimon, make_rules, other, stack, step_ok, zone_cards

from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.scenario import build_state

ENTRIES = [
    other("EGG", "digi_egg"),
    digimon("A3K", 3, 3000),
    digimon("A5K", 4, 5000),
    digimon("A7K", 5, 7000),
    digimon("BLK", 3, 2000, keywords=["blocker"]),
    digimon("RSH", 3, 1000, keywords=["rush"]),
    digimon("JAM", 4, 4000, keywords=["jamming"]),
    digimon("GIVE", 3, 1000, inherited_keywords=["blocker"]),
    other("TAM", "tamer"),
    other("OPT", "option"),
    # Biyomon-like (ST7-04): [Your Turn] this Digimon cannot attack the player.
    digimon("NO-PLAYER", 3, 3000, keywords=["blocker"],
            effects=[{"where": "main", "trigger": "continuous", "window": "your_turn",
                      "op": "restrict", "target": "self", "cannot": ["attack_player"]}]),
    # Slayerdramon-like (ST8-09): [Your Turn] this Digimon cannot be blocked.
    digimon("UNBLOCK", 3, 3000,
            effects=[{"where": "main", "trigger": "continuous", "window": "your_turn",
                      "op": "restrict", "target": "self", "cannot": ["be_blocked"]}]),
]  # fmt: skip
MAIN = [
    n
    for n in (
        "A3K",
        "A5K",
        "A7K",
        "BLK",
        "RSH",
        "JAM",
        "GIVE",
        "TAM",
        "OPT",
        "NO-PLAYER",
        "UNBLOCK",
    )
    for _ in range(4)
]
PLAYER = A.TARGET_PLAYER


@pytest.fixture(scope="module")
def rules():
    return make_rules(ENTRIES, MAIN)


def situation(rules, me, opponent, **kw):
    return build_state(rules, [me, opponent], memory=kw.pop("memory", 3), **kw)


def test_security_check_of_a_stronger_digimon_deletes_the_attacker(rules, apply, errors):
    s = situation(rules, {"field": [["A3K"]]}, {"security": ["A3K", "A5K"]})
    s, rewards = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 0, 0) == [] and zone_cards(rules, s, "trash", 0) == ["A3K"]
    assert zone_cards(rules, s, "security", 1) == ["A3K"], "one check: the top card only"
    assert zone_cards(rules, s, "trash", 1) == ["A5K"], "the checked card goes to the trash"
    assert A.PHASES[int(s.board.phase)] == "main" and int(s.attacker) == -1
    assert list(np.asarray(rewards)) == [0.0, 0.0]


def test_security_check_of_a_weaker_digimon_and_of_other_cards(rules, apply, errors):
    for checked in ("A3K", "TAM", "OPT"):
        s = situation(rules, {"field": [["A5K"]]}, {"security": [checked]})
        s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
        assert stack(rules, s, 0, 0) == ["A5K"] and bool(s.suspended[0, 0]), checked
        assert zone_cards(rules, s, "trash", 1) == [checked]
        assert zone_cards(rules, s, "security", 1) == []


def test_equal_dp_against_a_security_digimon_deletes_the_attacker(rules, apply, errors):
    s = situation(rules, {"field": [["A3K"]]}, {"security": ["A3K"]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 0, 0) == []


def test_jamming_survives_a_lost_security_battle(rules, apply, errors):
    s = situation(rules, {"field": [["JAM"]]}, {"security": ["A7K"]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 0, 0) == ["JAM"] and zone_cards(rules, s, "trash", 1) == ["A7K"]


def test_attacking_a_player_with_no_security_wins(rules, apply, errors):
    s = situation(rules, {"field": [["A3K"]]}, {"security": []})
    s, rewards = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert int(s.winner) == 0 and R.END_REASONS[int(s.end_reason)] == "security_attack"
    assert list(np.asarray(rewards)) == [1.0, -1.0]


@pytest.mark.parametrize(
    ("mine", "theirs", "deleted_mine", "deleted_theirs"),
    [("A5K", "A3K", False, True), ("A3K", "A5K", True, False), ("A5K", "A5K", True, True)],
)
def test_battle_with_a_suspended_digimon(rules, apply, errors, mine, theirs, deleted_mine,
                                         deleted_theirs):  # fmt: skip
    s = situation(rules, {"field": [None, [mine]]}, {"field": [["EGG", theirs]], "suspended": [0]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 1, 0))
    assert (stack(rules, s, 0, 1) == []) == deleted_mine
    assert (stack(rules, s, 1, 0) == []) == deleted_theirs
    if deleted_theirs:  # the whole stack goes to its owner's trash
        assert zone_cards(rules, s, "trash", 1) == ["EGG", theirs]
        assert int(s.entered_turn[1, 0]) == -1 and not bool(s.suspended[1, 0])


@pytest.mark.parametrize(
    ("me", "opponent", "action", "rule"),
    [
        ({"field": [["A3K"]]}, {"field": [["A3K"]]}, A.encode("attack", 0, 0), "bad_attack_target"),
        ({"field": [["A3K"]]}, {}, A.encode("attack", 0, 1), "bad_attack_target"),
        ({"field": [["A3K"]]}, {}, A.encode("attack", 0, 13), "bad_attack_target"),
        ({"field": [["A3K"]], "suspended": [0]}, {}, A.encode("attack", 0, PLAYER),
         "attacker_suspended"),
        ({"field": [["A3K"]], "entered": {0: 2}}, {}, A.encode("attack", 0, PLAYER),
         "attacked_this_turn_entry"),
        ({"field": [["TAM"]]}, {}, A.encode("attack", 0, PLAYER), "no_attacker"),
        ({"breeding": ["EGG", "A3K"]}, {}, A.encode("attack", 12, PLAYER), "no_attacker"),
        ({"field": [["A3K"]]}, {}, A.encode("attack", 19, PLAYER), "no_attacker"),
    ],
)  # fmt: skip
def test_illegal_attacks_name_the_rule(rules, errors, me, opponent, action, rule):
    s = situation(rules, me, opponent)
    assert code_name(errors(s)[action]) == rule


def test_rush_attacks_the_turn_it_is_played(rules, apply, errors):
    s = situation(rules, {"hand": ["RSH", "A3K"]}, {}, memory=9)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert code_name(errors(s)[A.encode("attack", 1, PLAYER)]) == "attacked_this_turn_entry"
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))


def test_blocker_redirects_the_attack_in_block_timing(rules, apply, errors):
    s = situation(rules, {"field": [["A3K"]]}, {"field": [["BLK"]], "security": ["A7K"]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert A.PHASES[int(s.board.phase)] == "block_timing"
    assert int(rules.decider(s)) == 1, "the defender decides in their timing"
    legal = np.flatnonzero(np.asarray(errors(s)) == 0).tolist()
    assert legal == [62, 100], [A.decode("block_timing", a).name for a in legal]
    s, _ = step_ok(rules, apply, errors, s, 100)  # block with field 0
    assert stack(rules, s, 1, 0) == [] and stack(rules, s, 0, 0) == ["A3K"], "3000 beats 2000"
    assert zone_cards(rules, s, "security", 1) == ["A7K"], "a blocked attack checks nothing"
    assert int(rules.decider(s)) == 0 and A.PHASES[int(s.board.phase)] == "main"


def test_declining_the_block_and_inherited_blocker(rules, apply, errors):
    s = situation(rules, {"field": [["A3K"]]}, {"field": [["GIVE", "A5K"]], "security": ["TAM"]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert A.PHASES[int(s.board.phase)] == "block_timing", "<Blocker> inherited from a source"
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))  # decline
    assert zone_cards(rules, s, "trash", 1) == ["TAM"] and not bool(s.suspended[1, 0])


def test_a_digimon_that_cannot_attack_the_player_may_still_attack_a_digimon(rules, apply, errors):
    me = {"field": [["NO-PLAYER"], ["A3K"]]}
    s = situation(rules, me, {"field": [["A5K"]], "suspended": [0], "security": ["TAM"]})
    codes = errors(s)
    assert code_name(codes[A.encode("attack", 0, PLAYER)]) == "cannot_attack_player"
    assert code_name(codes[A.encode("attack", 0, 0)]) == "ok"  # the suspended A5K
    assert code_name(codes[A.encode("attack", 1, PLAYER)]) == "ok"  # another Digimon may
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 0, 0) == [] and stack(rules, s, 1, 0) == ["A5K"]  # 3000 < 5000
    # In the opponent's turn its [Your Turn] row is out of its window; it blocks as a <Blocker>.
    theirs = situation(rules, {"field": [["A3K"]], "security": ["TAM"]}, me, active=0)
    theirs, _ = step_ok(rules, apply, errors, theirs, A.encode("attack", 0, PLAYER))
    assert A.PHASES[int(theirs.board.phase)] == "block_timing"


def test_an_attacker_that_cannot_be_blocked_skips_the_block_timing(rules, apply, errors):
    """With a ready <Blocker> on the other side, an ordinary attacker meets the block timing;
    one that cannot be blocked does not, and checks the security card (Q703)."""
    them = {"field": [["BLK"]], "security": ["TAM"]}
    s = situation(rules, {"field": [["A3K"]]}, them)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert A.PHASES[int(s.board.phase)] == "block_timing"
    s = situation(rules, {"field": [["UNBLOCK"]]}, them)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert A.PHASES[int(s.board.phase)] == "main"
    assert zone_cards(rules, s, "trash", 1) == ["TAM"] and stack(rules, s, 1, 0) == ["BLK"]


def test_no_block_timing_without_a_ready_blocker(rules, apply, errors):
    s = situation(rules, {"field": [["A3K"]]},
                  {"field": [["BLK"]], "suspended": [0], "security": ["TAM"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert A.PHASES[int(s.board.phase)] == "main" and zone_cards(rules, s, "trash", 1) == ["TAM"]


def test_security_check_flips_the_top_card_when_it_is_card_instance_0(rules, apply, errors):
    """The check flips the top security card by position, also when that card is instance 0 (the
    first dealt, and the index an empty stack's -1 is clamped to): player 2 attacks player 1, whose
    top security card A7K is moved into instance 0 (instance 0 and it trade places and cards)."""
    s = situation(rules, {"security": ["A5K", "A7K"]}, {"field": [["A3K"]]}, active=1)
    b = s.board
    security = int(R.zone_of("security", 0))
    (top,) = np.flatnonzero((np.asarray(b.zone) == security) & (np.asarray(b.position) == 1))
    assert top != 0 and int(b.zone[0]) != security, "the builder dealt instance 0 elsewhere"
    swap = np.array([0, top]), np.array([top, 0])
    b = b.replace(**{f: getattr(b, f).at[swap[0]].set(getattr(b, f)[swap[1]])
                     for f in ("definition", "zone", "position")})  # fmt: skip
    s = s.replace(board=b)
    assert zone_cards(rules, s, "security", 0) == ["A5K", "A7K"] and int(b.zone[0]) == security
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "security", 0) == ["A5K"], "the top card was checked"
    assert zone_cards(rules, s, "trash", 0) == ["A7K"] and stack(rules, s, 1, 0) == []
