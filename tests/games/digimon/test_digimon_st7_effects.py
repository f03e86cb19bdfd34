"""Every card of the ST-7 Gallantmon starter deck, played out in scripted situations with the
shipped card database: the Gallantmon line's "when one of your opponent's Digimon is deleted"
(``opponent_digimon_deleted``), the attack conditions, the continuous restriction on Biyomon,
"if you don't" (``else_next``) on Gallantmon, and the three effects that came with ST-7: Guilmon's
special digivolution (``digivolve_into``), GeoGreymon's [Security] (``play_self_after_battle``)
and Atomic Blaster's DP budget (``max_total_dp``). Rulings are the official Q&A numbers
(tools/card_pool/digimon_st7_st8.md).

Player 1 plays the ST-7 cards, player 2 the ST-8 cards (``build_state`` places cards of each
player's own decks); the helpers take the two players' descriptions in that order."""

import pytest
from digimon_testlib import (
    checks,
    code_name,
    dp,
    legal,
    phase,
    printed_dp,
    stack,
    starter_rules,
    step_ok,
    zone_cards,
)

from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.scenario import build_state

PLAYER = A.TARGET_PLAYER
OWN, THEIRS = 100, 112
DECLINE, TAKE = 62, 1000
BLOCK = 100  # BlockTiming: block with field slot 0
# 8 cards of the ST-8 deck for a hand of a given size.
HAND8 = ["BT1-028"] * 4 + ["BT1-037"] * 4


@pytest.fixture(scope="module")
def rules():
    return starter_rules(("st7", "st8"))


def red(rules, st7, st8, **kw):
    """Player 1 (ST-7) to act."""
    return build_state(rules, [st7, st8], active=0, memory=kw.pop("memory", 3), **kw)


def blue(rules, st7, st8, **kw):
    """Player 2 (ST-8) to act (turn 3)."""
    return build_state(rules, [st7, st8], active=1, turn=3, memory=kw.pop("memory", 3), **kw)


# -- stats only: BT1-009, BT1-019, BT1-020 --------------------------------------------------------


@pytest.mark.parametrize("number", ["BT1-009", "BT1-019", "BT1-020"])
def test_st7_vanilla_reprints_play_as_printed(rules, apply, errors, perm, number):
    """Monodramon, DarkTyrannomon, Groundramon (the ST-7 prints of BT-1 cards): no effect;
    played for their printed cost at their printed DP."""
    card = rules.cards.definition(number)
    assert not card["effects"] and not card["keywords"] and card["text"] == ""
    s = red(rules, {"hand": [number]}, {}, memory=10)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert stack(rules, s, 0, 0) == [number] and phase(s) == "main"
    assert int(s.memory) == 10 - card["play_cost"] and dp(perm, s) == printed_dp(rules, number)
    assert int(s.queue.card[0]) == -1


# -- ST7-01 Gigimon: +2000 DP when an opposing Digimon is deleted -------------------------------


def test_st7_01_gigimon_plus_2000_once_per_turn_when_an_opposing_digimon_is_deleted(
    rules, apply, errors, perm
):
    """Inherited, [Your Turn] [Once Per Turn]: Monodramon (3000) on Gigimon deletes a suspended
    Dracomon in battle: 5000 for the turn; Gaia Force deletes another: still 5000 (spent)."""
    s = red(rules, {"field": [["ST7-01", "BT1-009"]], "hand": ["ST1-16"]},
            {"field": [["ST8-03"], ["ST8-02"]], "suspended": [0]}, memory=10)  # fmt: skip
    assert dp(perm, s) == 3000, "nothing deleted yet"
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 1, 0) == [] and dp(perm, s) == 3000 + 2000
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))  # Gaia Force
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert stack(rules, s, 1, 1) == [] and dp(perm, s) == 3000 + 2000, "once per turn"


def test_st7_01_gigimon_your_turn_only(rules, apply, errors, perm):
    """In the ST-8 player's turn, Biyomon (on Gigimon) blocks and deletes the attacking Veemon:
    outside [Your Turn], no bonus."""
    s = blue(rules, {"field": [["ST7-01", "ST7-04"]], "security": ["BT1-009"]},
             {"field": [["ST8-04"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "block_timing"
    s, _ = step_ok(rules, apply, errors, s, BLOCK)
    assert stack(rules, s, 1, 0) == [] and zone_cards(rules, s, "trash", 1) == ["ST8-04"]
    assert dp(perm, s) == 3000


# -- ST7-02 Agumon: +2000 DP when attacking the player ------------------------------------------


@pytest.mark.parametrize("target", ["player", "digimon"])
def test_st7_02_agumon_plus_2000_when_the_attack_targets_the_player(
    rules, apply, errors, perm, target
):
    """Inherited [When Attacking]: Growlmon on Agumon attacks the player: 7000 for the turn
    (after the check); attacking a suspended Digimon: 5000."""
    st8 = {"security": ["ST8-03"]} if target == "player" else {"field": [["ST8-02"]],
                                                                "suspended": [0]}  # fmt: skip
    s = red(rules, {"field": [["ST7-02", "ST7-05"]]}, st8)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER if target == "player"
                                                     else 0))  # fmt: skip
    assert int(s.attacker) == -1 and phase(s) == "main"
    assert dp(perm, s) == (7000 if target == "player" else 5000)


def test_st7_02_agumon_bonus_stays_when_the_attack_is_blocked(rules, apply, errors, perm):
    """Q680: the attack was declared on the player, so the +2000 holds after Wingdramon blocks:
    WarGrowlmon on Agumon (8000 + 2000) beats the 7000 blocker."""
    s = red(rules, {"field": [["ST7-02", "ST7-08"]]},
            {"field": [["ST8-07"]], "security": ["ST8-03"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    # Two [When Attacking] rows (WarGrowlmon's delete, with no target; Agumon's bonus): the
    # attacking player orders them.
    assert phase(s) == "select_effect_choice" and legal(errors, s) == [TAKE, TAKE + 1]
    s, _ = step_ok(rules, apply, errors, s, TAKE)
    assert phase(s) == "block_timing" and dp(perm, s) == 10000
    s, _ = step_ok(rules, apply, errors, s, BLOCK)
    assert stack(rules, s, 1, 0) == [] and stack(rules, s, 0, 0) == ["ST7-02", "ST7-08"]
    assert dp(perm, s) == 10000 and zone_cards(rules, s, "security", 1) == ["ST8-03"]


# -- ST7-03 Guilmon: draw on a deletion; special digivolution into [Gallantmon] ------------------


@pytest.mark.parametrize("theirs, drawn", [("ST8-03", True), ("ST8-05", False)],
                         ids=["survives", "deleted too (Q681)"])  # fmt: skip
def test_st7_03_guilmon_draws_1_when_an_opposing_digimon_is_deleted(
    rules, apply, errors, theirs, drawn
):
    """Inherited [Your Turn] [Once Per Turn]: Growlmon (5000) on Guilmon deletes a suspended
    Dracomon (2000): <Draw 1>. Against Veedramon (5000) both are deleted: Guilmon left play in
    the same deletion, so nothing is drawn (Q681)."""
    s = red(rules, {"field": [["ST7-03", "ST7-05"]], "deck": ["BT1-009"]},
            {"field": [[theirs]], "suspended": [0]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 1, 0) == []
    assert zone_cards(rules, s, "hand", 0) == (["BT1-009"] if drawn else [])
    assert stack(rules, s, 0, 0) == ([] if not drawn else ["ST7-03", "ST7-05"])


def test_st7_03_guilmon_special_digivolution_into_gallantmon_for_4(rules, apply, errors, perm):
    """[Your Turn] while the opponent has a level 6+ Digimon (Slayerdramon): Guilmon (level 3)
    digivolves into a [Gallantmon] from the hand for 4 memory, ignoring Gallantmon's level-5
    requirement (rules 8-1-2-2); an ordinary digivolution otherwise: the bonus draw, and the
    new top card's effects (Gallantmon's <Security A. +1>). Only the exact name (rules 2-3-1-2):
    ShineGreymon, another level 6, may not; Growlmon by its printed requirement still may (Q682
    is about effects that digivolve: none in these decks)."""
    hand = ["ST7-09", "ST7-10", "ST7-05"]
    s = red(rules, {"hand": hand, "field": [["ST7-03"]], "deck": ["BT1-009"]},
            {"field": [["ST8-09"]]}, memory=5)  # fmt: skip
    codes = errors(s)
    assert code_name(codes[A.encode("digivolve", 0, 0)]) == "ok"  # Gallantmon
    assert code_name(codes[A.encode("digivolve", 1, 0)]) == "requirement_not_met"
    assert code_name(codes[A.encode("digivolve", 2, 0)]) == "ok"  # Growlmon, for 2
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert stack(rules, s, 0, 0) == ["ST7-03", "ST7-09"] and int(s.memory) == 5 - 4
    assert zone_cards(rules, s, "hand", 0) == ["ST7-10", "ST7-05", "BT1-009"], "the bonus draw"
    assert dp(perm, s) == 11000 and checks(perm, s) == 1 and phase(s) == "main"


@pytest.mark.parametrize(
    "st7, st8, ok",
    [
        ({"field": [["ST7-03"]]}, {"field": [["ST8-10"]]}, True),  # UlforceVeedramon, level 6
        ({"field": [["ST7-03"]]}, {"field": [["ST8-08"], ["ST8-05"]]}, False),  # level 5 at most
        ({"field": [["ST7-03"]]}, {"breeding": ["ST8-01", "ST8-04", "ST8-05", "ST8-08", "ST8-09"]},
         False),  # a level 6 in the breeding area only
        ({"breeding": ["ST7-01", "ST7-03"]}, {"field": [["ST8-09"]]}, False),  # Guilmon bred
    ],
    ids=["level 6", "level 5", "their breeding area", "Guilmon in the breeding area"],
)  # fmt: skip
def test_st7_03_guilmon_special_digivolution_needs_a_level_6_in_their_battle_area(
    rules, errors, st7, st8, ok
):
    """The condition reads the opponent's battle area (a level 6+ Digimon there); the row is
    Guilmon's own text, in force only in the battle area (breeding-area cards have no effect)."""
    s = red(rules, {**st7, "hand": ["ST7-09"]}, st8, memory=5)
    field = A.BREEDING_FIELD if "breeding" in st7 else 0
    expected = "ok" if ok else "requirement_not_met"
    assert code_name(errors(s)[A.encode("digivolve", 0, field)]) == expected


def test_st7_03_guilmon_special_digivolution_pays_4_like_any_digivolution(rules, apply, errors):
    """From 0 memory the 4 are paid on credit: the memory passes to the opponent's side (4 for
    them) and the turn ends after the draw."""
    s = red(rules, {"hand": ["ST7-09"], "field": [["ST7-03"]], "deck": ["BT1-009"]},
            {"field": [["ST8-10"]]}, memory=0)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert stack(rules, s, 0, 0) == ["ST7-03", "ST7-09"]
    assert int(s.board.active_player) == 1 and int(s.memory) == 4
    assert "BT1-009" in zone_cards(rules, s, "hand", 0)


# -- ST7-04 Biyomon: <Blocker>, cannot attack the player in its turn -----------------------------


def test_st7_04_biyomon_cannot_attack_the_player_but_blocks(rules, apply, errors, perm):
    """[Your Turn]: Biyomon may attack a suspended Digimon, not the player; in the opponent's
    turn it is a <Blocker>."""
    s = red(rules, {"field": [["ST7-04"]]},
            {"field": [["ST8-02"]], "suspended": [0], "security": ["ST8-03"]})  # fmt: skip
    assert bool(perm(s).keywords[0, 0, R.KW["blocker"]])
    codes = errors(s)
    assert code_name(codes[A.encode("attack", 0, PLAYER)]) == "cannot_attack_player"
    assert code_name(codes[A.encode("attack", 0, 0)]) == "ok"
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))  # 3000 beats 2000
    assert stack(rules, s, 1, 0) == [] and stack(rules, s, 0, 0) == ["ST7-04"]
    s = blue(rules, {"field": [["ST7-04"]], "security": ["BT1-009"]}, {"field": [["ST8-05"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "block_timing" and legal(errors, s) == [DECLINE, BLOCK]


# -- ST7-05 Growlmon: +1 memory when an opposing Digimon is deleted ------------------------------


def test_st7_05_growlmon_gains_1_memory_once_per_turn(rules, apply, errors):
    """Inherited [Your Turn] [Once Per Turn]: RizeGreymon on Growlmon deletes a suspended
    Dracomon: +1 memory; a second deletion (Gaia Force) the same turn gains nothing."""
    s = red(rules, {"field": [["ST7-05", "ST7-07"]], "hand": ["ST1-16"]},
            {"field": [["ST8-03"], ["ST8-02"]], "suspended": [0]}, memory=9)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 1, 0) == [] and int(s.memory) == 10
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert stack(rules, s, 1, 1) == [] and int(s.memory) == 10 - 8


def test_st7_05_growlmon_no_memory_when_deleted_in_the_same_battle(rules, apply, errors):
    """Q683: RizeGreymon (7000) on Growlmon and a suspended Wingdramon (7000) delete each other:
    the effect's Digimon left play in the same deletion, no memory."""
    s = red(rules, {"field": [["ST7-05", "ST7-07"]]}, {"field": [["ST8-07"]], "suspended": [0]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 0, 0) == [] and stack(rules, s, 1, 0) == []
    assert int(s.memory) == 3


# -- ST7-06 GeoGreymon: [On Play] delete; [Security] battles, then is played --------------------


def test_st7_06_geogreymon_on_play_deletes_4000_dp_or_less(rules, apply, errors):
    s = red(rules, {"hand": ["ST7-06"]}, {"field": [["ST8-02", "ST8-05"], ["BT1-028"]]}, memory=6)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS + 1], "3000, not 5000"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert stack(rules, s, 1, 1) == [] and stack(rules, s, 1, 0) == ["ST8-02", "ST8-05"]
    assert stack(rules, s, 0, 0) == ["ST7-06"] and int(s.memory) == 0


@pytest.mark.parametrize(
    "attacker, attacker_survives",
    [("BT1-028", False), ("BT1-037", True)],
    ids=["GeoGreymon wins", "GeoGreymon loses"],
)
def test_st7_06_geogreymon_security_battles_then_is_played(
    rules, apply, errors, attacker, attacker_survives
):
    """[Security] (play_self_after_battle): checked, GeoGreymon (5000) first battles the attacker
    as a Security Digimon: Elecmon (3000) is deleted, Gorillamon (6000) wins. Either way (Q685)
    the card is then played for free in its owner's battle area instead of the trash, and its
    [On Play] resolves, in the attacker's turn, chosen by GeoGreymon's owner: it deletes the ST-8
    player's Gabumon (2000). In play it is an ordinary Digimon (Q684)."""
    s = blue(rules, {"security": ["BT1-009", "ST7-06"]},
             {"field": [[attacker], ["ST8-02"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 0, 0) == ["ST7-06"] and "ST7-06" not in zone_cards(rules, s, "trash", 0)
    assert stack(rules, s, 1, 0) == ([attacker] if attacker_survives else [])
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS + 1]
    assert int(s.memory) == 3, "played without paying its cost"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert stack(rules, s, 1, 1) == [] and phase(s) == "main"
    assert zone_cards(rules, s, "security", 0) == ["BT1-009"], "one check"
    assert not bool(s.suspended[0, 0])


def test_st7_06_geogreymon_on_play_resolves_before_the_next_check(rules, apply, errors):
    """Q686: Slayerdramon (<Security A. +1> from AeroVeedramon under it, 8 cards in hand) checks
    2 cards; GeoGreymon, checked first, loses its battle, is played, and its [On Play] choice
    comes while the second security card is still unchecked; then the second check."""
    s = blue(rules, {"security": ["BT1-009", "ST7-06"]},
             {"field": [["ST8-08", "ST8-09"], ["ST8-02"]], "hand": HAND8})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "select_target" and stack(rules, s, 0, 0) == ["ST7-06"]
    assert zone_cards(rules, s, "security", 0) == ["BT1-009"], "the second check waits"
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert stack(rules, s, 1, 1) == [] and zone_cards(rules, s, "security", 0) == []
    assert zone_cards(rules, s, "trash", 0) == ["BT1-009"] and phase(s) == "main"


def test_st7_06_geogreymon_is_trashed_when_the_battle_area_is_full(rules, apply, errors):
    """With 12 Digimon in its owner's battle area the card cannot be played: after its battle it
    goes to the trash like any checked card (rules 13-1-8)."""
    full = [["BT1-009"]] * 4 + [["ST7-02"]] * 4 + [["ST7-07"]] * 4
    assert len(full) == A.FIELD_SLOTS
    s = blue(rules, {"security": ["ST7-06"], "field": full}, {"field": [["BT1-028"], ["ST8-02"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "trash", 0) == ["ST7-06"] and phase(s) == "main"
    assert stack(rules, s, 1, 0) == [] and stack(rules, s, 1, 1) == ["ST8-02"], "no [On Play]"


# -- ST7-07 RizeGreymon, ST7-08 WarGrowlmon: deletions -------------------------------------------


def test_st7_07_rizegreymon_on_play_deletes_5000_dp_or_less(rules, apply, errors):
    s = red(rules, {"hand": ["ST7-07"]}, {"field": [["ST8-05"], ["BT1-037"]]}, memory=7)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS], "5000, not 6000"
    s, _ = step_ok(rules, apply, errors, s, THEIRS)
    assert stack(rules, s, 1, 0) == [] and stack(rules, s, 1, 1) == ["BT1-037"]


def test_st7_08_wargrowlmon_deletes_3000_dp_or_less_when_attacking(rules, apply, errors):
    s = red(rules, {"field": [["ST7-08"]]},
            {"field": [["BT1-028"], ["ST8-05"]], "security": ["ST8-03"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS], "3000, not 5000"
    s, _ = step_ok(rules, apply, errors, s, THEIRS)
    assert stack(rules, s, 1, 0) == [] and stack(rules, s, 1, 1) == ["ST8-05"]
    assert zone_cards(rules, s, "trash", 1) == ["BT1-028", "ST8-03"], "then the check"


@pytest.mark.parametrize("under, checked", [("ST7-08", 3), ("ST7-07", 2)],
                         ids=["on WarGrowlmon", "on RizeGreymon"])  # fmt: skip
def test_st7_08_wargrowlmon_security_attack_after_a_deletion_counts_for_piercing(
    rules, apply, errors, perm, under, checked
):
    """Inherited [Your Turn] [Once Per Turn]: ShineGreymon (<Security A. +1>, <Piercing>) on
    WarGrowlmon deletes a suspended Elecmon in battle, gaining <Security A. +1>: its <Piercing>
    checks 3 cards (Q688). On RizeGreymon (no such effect) it checks 2."""
    theirs = {"field": [["BT1-028"]], "suspended": [0], "security": ["ST8-02", "ST8-03", "ST8-04"]}
    s = red(rules, {"field": [[under, "ST7-10"]]}, theirs)
    assert checks(perm, s) == 1
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 1, 0) == [] and checks(perm, s) == checked - 1
    assert len(zone_cards(rules, s, "security", 1)) == 3 - checked


# -- ST7-09 Gallantmon, ST7-10 ShineGreymon --------------------------------------------------------


@pytest.mark.parametrize("target", [True, False], ids=["a 4000 DP target", "none"])
def test_st7_09_gallantmon_deletes_4000_dp_or_less_or_gets_3000(rules, apply, errors, perm, target):
    """<Security A. +1>; [When Attacking]: delete an opposing Digimon with 4000 DP or less, which
    must be chosen when there is one (Q690, no declining) and then no bonus; if none can be
    chosen, +3000 DP for the turn instead (else_next; Q689). It checks 2 cards either way."""
    theirs = [["BT1-028"], ["ST8-05"]] if target else [["ST8-05"]]
    s = red(rules, {"field": [["ST7-09"]]}, {"field": theirs, "security": ["ST8-03", "ST8-02"]})
    assert checks(perm, s) == 1
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    if target:
        assert phase(s) == "select_target" and legal(errors, s) == [THEIRS]
        s, _ = step_ok(rules, apply, errors, s, THEIRS)
        assert stack(rules, s, 1, 0) == []
    assert phase(s) == "main" and stack(rules, s, 1, int(target)) == ["ST8-05"]
    assert dp(perm, s) == (11000 if target else 14000)
    assert zone_cards(rules, s, "security", 1) == []


def test_st7_10_shinegreymon_piercing_checks_2_after_winning_a_battle(rules, apply, errors, perm):
    """<Security A. +1> and <Piercing>: ShineGreymon deletes a suspended Elecmon, then checks 2
    security cards."""
    theirs = {"field": [["BT1-028"]], "suspended": [0], "security": ["ST8-02", "ST8-03", "ST8-04"]}
    s = red(rules, {"field": [["ST7-10"]]}, theirs)
    assert bool(perm(s).keywords[0, 0, R.KW["piercing"]]) and checks(perm, s) == 1
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, 0))
    assert stack(rules, s, 1, 0) == [] and zone_cards(rules, s, "security", 1) == ["ST8-02"]


# -- ST7-11 Lightning Joust: +2000, then <Security A. +1> if not ahead on security ---------------


@pytest.mark.parametrize(
    "mine, theirs, second",
    [(2, 2, True), (1, 2, True), (3, 2, False)],
    ids=["as many", "fewer", "one more"],
)
def test_st7_11_lightning_joust_plus_2000_then_security_attack_if_not_ahead(
    rules, apply, errors, perm, mine, theirs, second
):
    """[Main]: one of your Digimon +2000 DP for the turn; then, if your security stack holds no
    more cards than the opponent's (read when that clause resolves), one of your Digimon (any
    one) <Security A. +1> for the turn; otherwise that clause does nothing."""
    s = red(rules, {"hand": ["ST7-11"], "field": [["ST7-02"], ["ST7-05"]],
                    "security": ["BT1-009"] * mine},
            {"security": ["ST8-02"] * theirs}, memory=1)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_target" and legal(errors, s) == [OWN, OWN + 1]
    s, _ = step_ok(rules, apply, errors, s, OWN + 1)
    assert dp(perm, s, slot=1) == 7000
    if second:
        assert phase(s) == "select_target" and legal(errors, s) == [OWN, OWN + 1]
        s, _ = step_ok(rules, apply, errors, s, OWN)
    assert phase(s) == "main" and zone_cards(rules, s, "trash", 0) == ["ST7-11"]
    assert [checks(perm, s, slot=k) for k in (0, 1)] == [int(second), 0]


def test_st7_11_lightning_joust_security_goes_to_the_hand(rules, apply, errors):
    s = blue(rules, {"security": ["ST7-11"]}, {"field": [["ST8-02"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "hand", 0) == ["ST7-11"] and zone_cards(rules, s, "trash", 0) == []


# -- ST7-12 Atomic Blaster: delete any number with 8000 DP in total -------------------------------

# Elecmon 3000, Gabumon 2000, Veedramon 5000, Coredramon 5000, Gorillamon 6000, Veemon 2000.
BLASTED = [["BT1-028"], ["ST8-02"], ["ST8-05"], ["ST8-06"], ["BT1-037"], ["ST8-04"]]


def _blaster(rules, apply, errors):
    s = red(rules, {"hand": ["ST7-12"], "field": [["BT1-009"]]}, {"field": BLASTED}, memory=5)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_target" and int(s.memory) == 0
    assert legal(errors, s) == [THEIRS + k for k in range(6)], "at least one: no pass yet"
    return s


def test_st7_12_atomic_blaster_picks_under_an_8000_dp_budget(rules, apply, errors):
    """[Main] (max_total_dp 8000; rules 1-3-6): Veedramon (5000) picked, 3000 of the budget is
    left: Elecmon (3000), Gabumon and Veemon (2000) may follow; Coredramon (5000 + 5000) and
    Gorillamon may not. A picked Digimon stays until the picking ends. With Elecmon the budget is
    spent (3000 + 5000): the picking ends and both are deleted together."""
    s = _blaster(rules, apply, errors)
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 2)
    assert legal(errors, s) == [DECLINE, THEIRS, THEIRS + 1, THEIRS + 5]
    assert stack(rules, s, 1, 2) == ["ST8-05"], "not deleted yet"
    s, _ = step_ok(rules, apply, errors, s, THEIRS)
    if phase(s) == "select_target":  # nothing more fits: only the end of the picking is left
        assert legal(errors, s) == [DECLINE]
        s, _ = step_ok(rules, apply, errors, s, DECLINE)
    assert phase(s) == "main"
    assert [stack(rules, s, 1, k) for k in range(6)] == [
        [],
        ["ST8-02"],
        [],
        ["ST8-06"],
        ["BT1-037"],
        ["ST8-04"],
    ]
    assert sorted(zone_cards(rules, s, "trash", 1)) == ["BT1-028", "ST8-05"]
    assert zone_cards(rules, s, "trash", 0) == ["ST7-12"]


def test_st7_12_atomic_blaster_passing_deletes_the_picked_ones_together(rules, apply, errors):
    """Gabumon (2000), then Elecmon (3000) picked (Gorillamon, 6000, fitted after Gabumon alone),
    3000 of the budget left: only Veemon (2000) still fits. Pass (62) ends the picking: Gabumon
    and Elecmon are deleted together, nothing else."""
    s = _blaster(rules, apply, errors)
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert legal(errors, s) == [DECLINE, THEIRS, THEIRS + 2, THEIRS + 3, THEIRS + 4, THEIRS + 5]
    s, _ = step_ok(rules, apply, errors, s, THEIRS)
    assert legal(errors, s) == [DECLINE, THEIRS + 5]
    assert stack(rules, s, 1, 0) == ["BT1-028"] and stack(rules, s, 1, 1) == ["ST8-02"]
    s, _ = step_ok(rules, apply, errors, s, DECLINE)
    assert phase(s) == "main" and stack(rules, s, 1, 0) == [] and stack(rules, s, 1, 1) == []
    assert [stack(rules, s, 1, k) for k in range(2, 6)] == [
        ["ST8-05"],
        ["ST8-06"],
        ["BT1-037"],
        ["ST8-04"],
    ]
    assert sorted(zone_cards(rules, s, "trash", 1)) == ["BT1-028", "ST8-02"]


def test_st7_12_atomic_blaster_with_nothing_to_pick_does_nothing(rules, apply, errors):
    s = red(rules, {"hand": ["ST7-12"], "field": [["BT1-009"]]}, {"field": [["ST8-09"]]},
            memory=5)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "main" and stack(rules, s, 1, 0) == ["ST8-09"]
    assert zone_cards(rules, s, "trash", 0) == ["ST7-12"]


def test_st7_12_atomic_blaster_security_may_delete_the_attacker(rules, apply, errors):
    """[Security]: the [Main] effect, chosen by the checked card's owner in the attacker's turn:
    the attacking Veedramon (5000) picked, Gorillamon (6000) no longer fits; passing deletes it
    and the attack ends."""
    s = blue(rules, {"security": ["ST7-12"]}, {"field": [["ST8-05"], ["BT1-028"], ["BT1-037"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS, THEIRS + 1, THEIRS + 2]
    s, _ = step_ok(rules, apply, errors, s, THEIRS)
    assert legal(errors, s) == [DECLINE, THEIRS + 1]
    s, _ = step_ok(rules, apply, errors, s, DECLINE)
    assert phase(s) == "main" and stack(rules, s, 1, 0) == [] and int(s.attacker) == -1
    assert zone_cards(rules, s, "trash", 1) == ["ST8-05"]
    assert zone_cards(rules, s, "trash", 0) == ["ST7-12"]
