"""Every effect of every shipped card (ST-1 Gaia Red, ST-2 Cocytus Blue), played out in scripted
situations with the real card database: continuous DP and <Security A.> rows, [When Attacking],
[When Digivolving], [When Blocked], [Start of Your Turn], Option [Main] rows, [Once Per Turn], and
the [Security] effects of Tamers and Options resolved in the middle of security checks.

Player 1 plays the ST-1 cards, player 2 the ST-2 cards (``build_state`` places cards of each
player's own deck)."""

import jax
import numpy as np
import pytest
from digimon_testlib import code_name, legal, phase, stack, starter_rules, step_ok, zone_cards

from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import observation as O
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.scenario import build_state

PLAYER = A.TARGET_PLAYER
OWN, THEIRS = 100, 112


@pytest.fixture(scope="module")
def rules():
    return starter_rules(("st1", "st2"))


def red(rules, me, opponent, **kw):
    """Player 1 (ST-1) to act."""
    return build_state(rules, [me, opponent], active=0, memory=kw.pop("memory", 3), **kw)


def blue(rules, opponent, me, **kw):
    """Player 2 (ST-2) to act."""
    return build_state(rules, [opponent, me], active=1, memory=kw.pop("memory", 3), **kw)


def pass_turn(rules, apply, errors, s):
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    assert phase(s) == "breeding"
    return s


# -- ST-1 ------------------------------------------------------------------------------------------


def test_st1_01_koromon_needs_four_digivolution_cards_on_your_turn(rules, apply, errors, perm):
    three = red(rules, {"field": [["ST1-01", "ST1-02", "ST1-05", "ST1-10"]]}, {})
    four = red(rules, {"field": [["ST1-01", "ST1-02", "ST1-02", "ST1-05", "ST1-10"]]}, {})
    assert int(perm(three).dp[0, 0]) == 12000, "3 digivolution cards: no bonus"
    assert int(perm(four).dp[0, 0]) == 13000
    assert int(perm(four.replace(board=four.board.replace(active_player=1))).dp[0, 0]) == 12000


def test_st1_03_agumon_inherits_plus_1000_on_your_turn(rules, perm):
    s = red(rules, {"field": [["ST1-03", "ST1-05"]]}, {})
    assert int(perm(s).dp[0, 0]) == 6000
    assert int(perm(s.replace(board=s.board.replace(active_player=1))).dp[0, 0]) == 5000


def test_st1_06_coredramon_loses_2_memory_when_attacking_and_blocks(rules, apply, errors):
    s = red(rules, {"field": [["ST1-06"]]}, {"security": ["ST2-13"]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    # 3 - 2 = 1, then the checked Hammer Spark gives its owner 2: the gauge is at -1, turn over.
    assert int(s.board.active_player) == 1 and int(s.memory) == 1
    s = blue(rules, {"field": [["ST1-06"]]}, {"field": [["ST2-04"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "block_timing" and legal(errors, s) == [62, 100]


def test_st1_07_greymon_inherits_security_attack_plus_1(rules, apply, errors):
    s = red(rules, {"field": [["ST1-07", "ST1-08"]]},
            {"security": ["ST2-02", "ST2-04", "ST2-05"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "security", 1) == ["ST2-02"], "two checks"
    assert zone_cards(rules, s, "trash", 1) == ["ST2-05", "ST2-04"]


def test_st1_08_garudamon_gives_3000_when_digivolving(rules, apply, errors, perm):
    s = red(rules, {"hand": ["ST1-08"], "field": [["ST1-05"], ["ST1-02"]], "deck": ["ST1-03"]},
            {}, memory=5)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert phase(s) == "select_target" and legal(errors, s) == [OWN + 0, OWN + 1]
    assert zone_cards(rules, s, "hand", 0) == ["ST1-03"], "the digivolution bonus comes first"
    s, _ = step_ok(rules, apply, errors, s, OWN + 1)
    assert int(perm(s).dp[0, 1]) == 6000 and int(perm(s).dp[0, 0]) == 7000
    s = pass_turn(rules, apply, errors, s)
    assert int(perm(s).dp[0, 1]) == 3000, "this turn only"


def test_st1_09_metalgreymon_inherits_3_memory_when_blocked(rules, apply, errors):
    s = red(rules, {"field": [["ST1-09", "ST1-10"]]}, {"field": [["ST2-07"]]}, memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "block_timing"
    s, _ = step_ok(rules, apply, errors, s, 100)
    assert int(s.memory) == 5 and stack(rules, s, 1, 0) == [], "blocked: +3; 12000 beats 6000"
    s = red(rules, {"field": [["ST1-09", "ST1-10"]]}, {"field": [["ST2-07"]]}, memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    s, _ = step_ok(rules, apply, errors, s, 62)
    assert int(s.memory) == 2, "not blocked: nothing"


@pytest.mark.parametrize(("under", "checks"), [(3, 2), (4, 3)])
def test_st1_11_wargreymon_security_attack_per_two_sources(rules, apply, errors, under, checks):
    stack_ = ["ST1-02"] * (under - 2) + ["ST1-05", "ST1-08", "ST1-11"]
    s = red(rules, {"field": [stack_]}, {"security": ["ST2-02", "ST2-02", "ST2-04", "ST2-05"]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert len(zone_cards(rules, s, "security", 1)) == 4 - checks


def test_st1_12_tai_gives_1000_on_your_turn_and_plays_itself_from_security(
    rules, apply, errors, perm
):
    s = red(rules, {"field": [["ST1-03"], ["ST1-12"]]}, {})
    assert int(perm(s).dp[0, 0]) == 3000  # 2000 + Tai
    s = blue(rules, {"security": ["ST1-05", "ST1-12"]}, {"field": [["ST2-04"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 0, 0) == ["ST1-12"] and zone_cards(rules, s, "trash", 0) == []
    assert zone_cards(rules, s, "security", 0) == ["ST1-05"] and int(s.memory) == 3


def test_st1_13_shadow_wing_main_and_security(rules, apply, errors, perm):
    s = red(rules, {"hand": ["ST1-13"], "field": [["ST1-03"]]}, {}, memory=1)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, OWN + 0)
    assert int(perm(s).dp[0, 0]) == 5000 and zone_cards(rules, s, "trash", 0) == ["ST1-13"]
    # Security: the defender's Digimon get <Security A. +1> until the end of their next turn.
    s = blue(rules, {"field": [["ST1-03"]], "security": ["ST1-13"]}, {"field": [["ST2-04"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "trash", 0) == ["ST1-13"]
    s = pass_turn(rules, apply, errors, s)
    assert int(perm(s).security_attack[0, 0]) == 1
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))  # breeding -> main
    s = pass_turn(rules, apply, errors, s)
    assert int(perm(s).security_attack[0, 0]) == 0, "expired with the end of that turn"


def test_st1_13_shadow_wing_needs_no_free_battle_slot(rules, apply, errors, perm):
    """An Option never enters the battle area: with 12 permanents it is still used, while a
    Digimon is refused (issue #32)."""
    twelve = [["ST1-02"]] * 4 + [["ST1-04"]] * 4 + [["ST1-03"]] * 3 + [["ST1-05"]]
    s = red(rules, {"hand": ["ST1-13", "ST1-03"], "field": twelve}, {}, memory=1)
    assert code_name(errors(s)[A.encode("play", 1)]) == "battle_area_full"
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, OWN + 11)
    birdramon = int(rules.cards.numpy["dp"][rules.cards.index("ST1-05")])
    assert int(perm(s).dp[0, 11]) == birdramon + 3000
    assert zone_cards(rules, s, "trash", 0) == ["ST1-13"]


def test_st1_12_tai_does_not_reach_the_breeding_area(rules, perm, tensor):
    """A Digimon in the breeding area is not affected by other cards' effects (issue #32): with
    Tai Kamiya in play a battle-area Agumon has 3000 DP, a breeding-area Agumon its own 2000, in
    the rules and in the tensor."""
    s = red(rules, {"field": [["ST1-03"], ["ST1-12"]], "breeding": ["ST1-01", "ST1-03"]}, {})
    p = perm(s)
    assert int(p.dp[0, 0]) == 3000 and int(p.dp[0, R.BREEDING_SLOT]) == 2000
    breeding = O.LAYOUT.view(tensor(rules, s, 0, "player"), "my_breeding")
    assert float(breeding[O.HEADER.index("dp")]) == 2000.0


def test_st1_14_starlight_explosion_security_digimon_plus_7000(rules, apply, errors):
    # Security: +7000 to the defender's Security Digimon this turn; Birdramon (5000), checked
    # second (<Security A. +1> from WereGarurumon), then ties the 12000 attacker: it is deleted.
    s = blue(rules, {"field": [["ST1-03"]], "security": ["ST1-05", "ST1-14"]},
             {"field": [["ST2-08", "ST2-10"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 1, 0) == [], "the attacker lost to 5000 + 7000"
    assert zone_cards(rules, s, "trash", 0) == ["ST1-14", "ST1-05"]
    # Main: until the end of the opponent's next turn.
    s = red(rules, {"hand": ["ST1-14"], "field": [["ST1-03"]], "security": ["ST1-05"]},
            {"field": [["ST2-07", "ST2-08"]]}, memory=2)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert int(s.board.active_player) == 0 and int(s.memory) == 0
    s = pass_turn(rules, apply, errors, s)
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 1, 0) == [], "12000 security Birdramon beats WereGarurumon"


def test_st1_15_giga_destroyer_main_and_security(rules, apply, errors):
    s = red(rules, {"hand": ["ST1-15"], "field": [["ST1-03"]]},
            {"field": [["ST2-02"], ["ST2-05"], ["ST2-04"]]}, memory=6)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert legal(errors, s) == [62, THEIRS + 0, THEIRS + 2], "4000 DP or less, up to 2"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 2)
    assert stack(rules, s, 1, 1) == ["ST2-05"] and phase(s) == "main"
    # Security: the defender deletes the attacker (3000) and ends the checks.
    s = blue(rules, {"security": ["ST1-02", "ST1-02", "ST1-15"]},
             {"field": [["ST2-02", "ST2-07"], ["ST2-04"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 1, PLAYER))
    assert phase(s) == "select_target" and int(jax.jit(rules.decider)(s)) == 0
    assert legal(errors, s) == [62, THEIRS + 1], "the 6000 DP Grizzlymon is out of bounds"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert phase(s) == "main" and int(s.board.active_player) == 1 and int(s.attacker) == -1
    assert zone_cards(rules, s, "security", 0) == ["ST1-02", "ST1-02"], "checks stopped"
    assert zone_cards(rules, s, "trash", 0) == ["ST1-15"]


def test_st1_16_gaia_force_main_and_security(rules, apply, errors):
    s = red(rules, {"hand": ["ST1-16"], "field": [["ST1-03"]]}, {"field": [["ST2-10"]]},
            memory=8)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert legal(errors, s) == [THEIRS + 0], "exactly 1: no decline"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 1, 0) == [] and int(s.memory) == 0
    # Security: no color needed, no cost.
    s = blue(rules, {"security": ["ST1-16"]}, {"field": [["ST2-10"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 1, 0) == [] and zone_cards(rules, s, "trash", 1) == ["ST2-10"]


# -- ST-2 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("target", "both"), [(["ST1-05"], True), (["ST1-02", "ST1-05"], False)])
def test_st2_01_tsunomon_plus_1000_battling_a_no_source_digimon(rules, apply, errors, target,
                                                               both):  # fmt: skip
    s = blue(rules, {"field": [target], "suspended": [0]}, {"field": [["ST2-01", "ST2-04"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 1, 0) == [], "Bearmon: 5000 with the bonus, else 4000, never more"
    assert (stack(rules, s, 0, 0) == []) == both, "5000 vs 5000 deletes both"


def test_st2_03_gabumon_trashes_a_source_of_a_level_5_or_lower(rules, apply, errors):
    s = blue(rules, {"field": [["ST1-01", "ST1-03", "ST1-07"], ["ST1-02", "ST1-05", "ST1-08",
                                                                "ST1-10"]],
                    "security": ["ST1-04"]},
             {"field": [["ST2-03", "ST2-06"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert legal(errors, s) == [THEIRS + 0], "Phoenixmon is level 6"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 0, 0) == ["ST1-03", "ST1-07"]


def test_st2_06_garurumon_trashes_a_source_of_any_level(rules, apply, errors):
    s = blue(rules, {"field": [["ST1-02", "ST1-05", "ST1-08", "ST1-10"]], "security": ["ST1-04"]},
             {"field": [["ST2-06", "ST2-08"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 0, 0) == ["ST1-05", "ST1-08", "ST1-10"]


def test_st2_07_grizzlymon_loses_2_memory_when_attacking(rules, apply, errors):
    s = blue(rules, {"security": ["ST1-04"]}, {"field": [["ST2-07"]]}, memory=5)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert int(s.memory) == 3


@pytest.mark.parametrize(("theirs", "checks"), [(["ST1-03"], 2), (["ST1-01", "ST1-03"], 1)])
def test_st2_08_weregarurumon_inherits_security_attack(rules, apply, errors, theirs, checks):
    s = blue(rules, {"field": [theirs], "security": ["ST1-02", "ST1-02", "ST1-02"]},
             {"field": [["ST2-08", "ST2-10"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert len(zone_cards(rules, s, "security", 0)) == 3 - checks


def test_st2_09_zudomon_trashes_two_sources_when_digivolving(rules, apply, errors):
    s = blue(rules, {"field": [["ST1-01", "ST1-03", "ST1-07"]]},
             {"hand": ["ST2-09"], "field": [["ST2-05"]]}, memory=3)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert stack(rules, s, 0, 0) == ["ST1-07"] and zone_cards(rules, s, "trash", 0) == [
        "ST1-01",
        "ST1-03",
    ]


def test_st2_11_metalgarurumon_unsuspends_once_per_turn(rules, apply, errors):
    s = blue(rules, {"security": ["ST1-02"] * 4}, {"field": [["ST2-08", "ST2-11"]]}, memory=5)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert not bool(s.suspended[1, 0]) and np.asarray(s.opt_used).any()
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert bool(s.suspended[1, 0]), "[Once Per Turn]: the second attack leaves it suspended"
    assert code_name(errors(s)[A.encode("attack", 0, PLAYER)]) == "attacker_suspended"
    assert len(zone_cards(rules, s, "security", 0)) == 2
    s = pass_turn(rules, apply, errors, s)  # player 1's turn
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    s = pass_turn(rules, apply, errors, s)  # player 2's next turn: usable again
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert not bool(s.suspended[1, 0])


@pytest.mark.parametrize(("theirs", "gain"), [(["ST1-03"], 1), (["ST1-01", "ST1-03"], 0)])
def test_st2_12_matt_at_the_start_of_your_turn(rules, apply, errors, theirs, gain):
    s = red(rules, {"field": [theirs]}, {"field": [["ST2-12"]]})
    s = pass_turn(rules, apply, errors, s)
    assert int(s.board.active_player) == 1 and int(s.memory) == 3 + gain


def test_st2_12_matt_plays_itself_from_security(rules, apply, errors):
    s = red(rules, {"field": [["ST1-03"]]}, {"security": ["ST2-12"]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 1, 0) == ["ST2-12"] and zone_cards(rules, s, "security", 1) == []


def test_st2_13_hammer_spark_main_and_security(rules, apply, errors):
    s = blue(rules, {}, {"hand": ["ST2-13"], "field": [["ST2-04"]]}, memory=0)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert int(s.memory) == 1 and zone_cards(rules, s, "trash", 1) == ["ST2-13"]
    s = red(rules, {"field": [["ST1-03"]]}, {"security": ["ST2-13"]}, memory=1)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert int(s.board.active_player) == 1 and int(s.memory) == 1, "the gauge 1 -> -1: turn over"


def test_st2_14_sorrow_blue_main_and_security(rules, apply, errors):
    s = blue(rules, {"field": [["ST1-03"], ["ST1-01", "ST1-03"]]},
             {"hand": ["ST2-14"], "field": [["ST2-04"]]}, memory=2)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert legal(errors, s) == [THEIRS + 0], "only a Digimon with no digivolution cards"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert bool(rules.restricted(s, R.CANNOT_ATTACK)[0, 0])
    # Security: the defender restricts the attacker's side until the end of their next turn.
    s = red(rules, {"field": [["ST1-03"], ["ST1-05"]]}, {"security": ["ST2-14"]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert int(jax.jit(rules.decider)(s)) == 1 and legal(errors, s) == [THEIRS + 0, THEIRS + 1]
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert code_name(errors(s)[A.encode("attack", 1, PLAYER)]) == "cannot_attack"


def test_st2_15_kaiser_nail_plays_a_digimon_source(rules, apply, errors):
    s = blue(rules, {}, {"hand": ["ST2-15"], "field": [["ST2-01", "ST2-03", "ST2-06"]]},
             memory=4)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_source" and legal(errors, s) == [A.encode("source", 0, 1)]
    assert A.decode(int(s.board.phase), 2001).name == "select_source[field0.1]"
    s, _ = step_ok(rules, apply, errors, s, A.encode("source", 0, 1))
    assert stack(rules, s, 1, 0) == ["ST2-01", "ST2-06"] and stack(rules, s, 1, 1) == ["ST2-03"]
    assert int(s.entered_turn[1, 1]) == int(s.board.turn_number) and phase(s) == "main"
    # Security: no Digimon source to play: it fizzles and is trashed.
    s = red(rules, {"field": [["ST1-03"]]}, {"security": ["ST2-15"], "field": [["ST2-04"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "main" and zone_cards(rules, s, "trash", 1) == ["ST2-15"]


def test_st2_16_cocytus_breath_main_and_security(rules, apply, errors):
    s = blue(rules, {"field": [["ST1-01", "ST1-03"]]}, {"hand": ["ST2-16"], "field": [["ST2-04"]]},
             memory=7)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert zone_cards(rules, s, "hand", 0) == ["ST1-03"] and zone_cards(rules, s, "trash", 0) == [
        "ST1-01"
    ]
    s = red(rules, {"field": [["ST1-07", "ST1-08"]]}, {"security": ["ST2-02", "ST2-16"]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 0)
    assert zone_cards(rules, s, "hand", 0) == ["ST1-08"], "the attacker returned to hand"
    assert zone_cards(rules, s, "security", 1) == ["ST2-02"], "the second check never happens"


# -- what the tensor shows of effects in progress -------------------------------------------------


@pytest.fixture(scope="module")
def tensor(rules):
    return jax.jit(O.board_state_tensor, static_argnums=(0, 3))


def test_tensor_shows_once_per_turn_use(rules, apply, errors, tensor):
    s = blue(rules, {"security": ["ST1-02"] * 2}, {"field": [["ST2-08", "ST2-11"]]})
    before = O.LAYOUT.view(tensor(rules, s, 1, "player"), "my_field")[0]
    assert float(before[3]) == 1.0 and float(before[4]) == 0.0, "1 OPT row, unused"
    assert float(before[7 + 3 + 1]) == 1.0 and float(before[7 + 1]) == -1.0, "OPT state per card"
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    after = O.LAYOUT.view(tensor(rules, s, 1, "player"), "my_field")[0]
    assert float(after[3]) == 1.0 and float(after[4]) == 1.0, "used this turn"
    assert float(after[7 + 3 + 1]) == 0.0, "MetalGarurumon's OPT state: exhausted"
    s = pass_turn(rules, apply, errors, s)
    again = O.LAYOUT.view(tensor(rules, s, 1, "player"), "my_field")[0]
    assert float(again[4]) == 0.0 and float(again[7 + 3 + 1]) == 1.0, "a new turn"


def test_tensor_selection_context(rules, apply, errors, tensor):
    s = red(rules, {"hand": ["ST1-15"], "field": [["ST1-03"]]},
            {"field": [["ST2-02"], ["ST2-05"], ["ST2-04"]]}, memory=6)  # fmt: skip
    assert not np.any(np.asarray(O.LAYOUT.view(tensor(rules, s, 0, "player"), "selection")))
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    for observer in (0, 1):
        context = O.LAYOUT.view(tensor(rules, s, observer, "player"), "selection")
        phase_value = float(A.PHASES.index("select_target"))
        np.testing.assert_array_equal(np.asarray(context), [phase_value, 2.0, 1.0, 0.0, 0.0])
