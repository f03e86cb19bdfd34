"""Every card of the ST-8 UlforceVeedramon starter deck, played out in scripted situations with
the shipped card database: the hand-size conditions of the Veemon line (``own_hand_at_least`` /
``own_hand_at_most``, read live by continuous rows and when a row resolves), the name filter
``name_has`` (Dracomon), ``colors`` on a chosen target (Victory Sword), the continuous
restriction "cannot be blocked" (Slayerdramon), and the two effects that came with ST-8: Veemon's
special digivolution (``digivolve_into``) and Coredramon's [Security] (``play_self_after_battle``).
Rulings are the official Q&A numbers (tools/card_pool/digimon_st7_st8.md).

Player 1 plays the ST-8 cards, player 2 the ST-7 cards (``build_state`` places cards of each
player's own decks); the helpers take the two players' descriptions in that order."""

import functools

import jax
import pytest
from digimon_testlib import (
    checks,
    code_name,
    dp,
    jit_apply,
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
from tcgjax.games.digimon.decks import load_deck
from tcgjax.games.digimon.scenario import build_state

PLAYER = A.TARGET_PLAYER
OWN, THEIRS = 100, 112
DECLINE, TAKE = 62, 1000
BLOCK = 100  # BlockTiming: block with field slot 0
REVEALED = 30  # SelectReveal: 30 + i chooses revealed card i (top card first)
# 8 cards of the ST-8 deck for a hand of a given size (none of them matters to the effects).
HAND8 = ["BT1-028"] * 4 + ["BT1-037"] * 4


@pytest.fixture(scope="module")
def rules():
    return starter_rules(("st8", "st7"))


def blue(rules, st8, st7, **kw):
    """Player 1 (ST-8) to act."""
    return build_state(rules, [st8, st7], active=0, memory=kw.pop("memory", 3), **kw)


def red(rules, st8, st7, **kw):
    """Player 2 (ST-7) to act (turn 3)."""
    return build_state(rules, [st8, st7], active=1, turn=3, memory=kw.pop("memory", 3), **kw)


# -- stats only: BT1-028, BT1-037, BT1-038 --------------------------------------------------------


@pytest.mark.parametrize("number", ["BT1-028", "BT1-037", "BT1-038"])
def test_st8_vanilla_reprints_play_as_printed(rules, apply, errors, perm, number):
    """Elecmon, Gorillamon, Monzaemon (the ST-8 prints of BT-1 cards): no effect; played for
    their printed cost at their printed DP."""
    card = rules.cards.definition(number)
    assert not card["effects"] and not card["keywords"] and card["text"] == ""
    s = blue(rules, {"hand": [number]}, {}, memory=10)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert stack(rules, s, 0, 0) == [number] and phase(s) == "main"
    assert int(s.memory) == 10 - card["play_cost"] and dp(perm, s) == printed_dp(rules, number)
    assert int(s.queue.card[0]) == -1


# -- ST8-01 DemiVeemon, ST8-02 Gabumon: +1000 DP with 8 cards in hand ---------------------------


@pytest.mark.parametrize(
    "mine, theirs, active, expected",
    [
        (8, 0, 0, 5000 + 1000 + 1000),  # on the edge, in your turn: both
        (7, 0, 0, 5000),  # one card short: neither
        (7, 8, 0, 5000),  # the opponent's hand does not count
        (8, 0, 1, 5000 + 1000),  # the opponent's turn: Gabumon's only (all turns)
        (7, 0, 1, 5000),
    ],
    ids=["hand 8", "hand 7", "their hand 8", "hand 8, their turn", "hand 7, their turn"],
)
def test_st8_01_st8_02_plus_1000_while_you_hold_8_cards(rules, perm, mine, theirs, active,
                                                        expected):  # fmt: skip
    """Inherited, read live (Q695, Q696): DemiVeemon [Your Turn] and Gabumon (any turn) each give
    the Veedramon above them +1000 DP while its controller holds 8 or more cards."""
    me = {"field": [["ST8-01", "ST8-02", "ST8-05"]], "hand": HAND8[:mine]}
    opponent = {"hand": (["BT1-009"] * 4 + ["ST7-02"] * 4)[:theirs]}
    s = build_state(rules, [me, opponent], active=active, turn=2 + active)
    assert dp(perm, s) == expected


# -- ST8-03 Dracomon: a [Dramon] card from the top 3 ----------------------------------------------


def test_st8_03_dracomon_adds_a_digimon_with_dramon_in_its_name(rules, apply, errors):
    """[On Play]: of the top 3 (Veedramon, Veemon, V-Wing Blade) only Veedramon has [Dramon] in
    its name (rules 2-3-1-3, letter case aside); it must be taken; the other two go under the deck
    in the order the player chooses."""
    s = blue(rules, {"hand": ["ST8-03"], "deck": ["BT1-038", "ST8-12", "ST8-04", "ST8-05"]}, {})
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_reveal" and zone_cards(rules, s, "revealed") == [
        "ST8-05", "ST8-04", "ST8-12"
    ]  # fmt: skip
    assert legal(errors, s) == [REVEALED], "Veedramon only: no pass"
    s, _ = step_ok(rules, apply, errors, s, REVEALED)
    assert zone_cards(rules, s, "hand", 0) == ["ST8-05"]
    assert phase(s) == "select_reveal" and legal(errors, s) == [REVEALED, REVEALED + 1]
    s, _ = step_ok(rules, apply, errors, s, REVEALED + 1)  # V-Wing Blade under the deck first
    assert phase(s) == "main" and zone_cards(rules, s, "revealed") == []
    assert zone_cards(rules, s, "deck", 0)[:2] == ["ST8-04", "ST8-12"]
    assert zone_cards(rules, s, "deck", 0)[-1] == "BT1-038"


def test_st8_03_dracomon_itself_has_no_dramon_in_its_name(rules, apply, errors):
    """Dracomon, Veemon and an Option revealed: nothing may be added; all three go under."""
    s = blue(rules, {"hand": ["ST8-03"], "deck": ["ST8-12", "ST8-04", "ST8-03"]}, {})
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_reveal" and legal(errors, s) == [REVEALED + i for i in range(3)]
    s, _ = step_ok(rules, apply, errors, s, REVEALED)  # Dracomon under the deck first
    s, _ = step_ok(rules, apply, errors, s, REVEALED)  # then Veemon; V-Wing Blade last
    assert phase(s) == "main" and zone_cards(rules, s, "hand", 0) == []
    assert zone_cards(rules, s, "deck", 0)[:3] == ["ST8-12", "ST8-04", "ST8-03"]


# -- ST8-04 Veemon: special digivolution into [UlforceVeedramon]; draw when attacking ------------


def test_st8_04_veemon_special_digivolution_into_ulforceveedramon_for_4(rules, apply, errors,
                                                                        perm):  # fmt: skip
    """[Your Turn] while the opponent has a level 6+ Digimon (Gallantmon): Veemon (level 3)
    digivolves into an [UlforceVeedramon] from the hand for 4 memory, ignoring its level-5
    requirement (rules 8-1-2-2, Q697); only that name (Slayerdramon may not). An ordinary
    digivolution: the bonus draw, then UlforceVeedramon's [When Digivolving] returns a level 4
    or lower Digimon (Growlmon; not RizeGreymon, level 5, nor Gallantmon)."""
    s = blue(rules, {"hand": ["ST8-10", "ST8-09"], "field": [["ST8-04"]], "deck": ["BT1-038"]},
             {"field": [["ST7-09"], ["ST7-01", "ST7-05"], ["ST7-07"]]}, memory=5)  # fmt: skip
    codes = errors(s)
    assert code_name(codes[A.encode("digivolve", 0, 0)]) == "ok"
    assert code_name(codes[A.encode("digivolve", 1, 0)]) == "requirement_not_met"
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert stack(rules, s, 0, 0) == ["ST8-04", "ST8-10"] and int(s.memory) == 5 - 4
    assert zone_cards(rules, s, "hand", 0) == ["ST8-09", "BT1-038"], "the bonus draw"
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS + 1]
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert zone_cards(rules, s, "hand", 1) == ["ST7-05"] and zone_cards(rules, s, "trash", 1) == [
        "ST7-01"
    ]  # fmt: skip
    assert dp(perm, s) == 12000 and phase(s) == "main"


@pytest.mark.parametrize(
    "st7, ok",
    [
        ({"field": [["ST7-10"]]}, True),  # ShineGreymon, level 6
        ({"field": [["ST7-07"], ["ST7-08"]]}, False),  # level 5 at most
        ({"breeding": ["ST7-01", "ST7-03", "ST7-05", "ST7-08", "ST7-09"]}, False),
        ({}, False),
    ],
    ids=["level 6", "level 5", "their breeding area", "no Digimon"],
)
def test_st8_04_veemon_special_digivolution_needs_a_level_6_in_their_battle_area(
    rules, errors, st7, ok
):
    s = blue(rules, {"hand": ["ST8-10"], "field": [["ST8-04"]]}, st7, memory=5)
    expected = "ok" if ok else "requirement_not_met"
    assert code_name(errors(s)[A.encode("digivolve", 0, 0)]) == expected


@pytest.mark.parametrize("hand, drawn", [(6, 1), (7, 1), (8, 0)])
def test_st8_04_veemon_draws_when_attacking_with_7_cards_or_fewer(rules, apply, errors, hand,
                                                                   drawn):  # fmt: skip
    """Inherited [When Attacking]: <Draw 1> if the hand holds 7 or fewer cards when it resolves."""
    s = blue(rules, {"field": [["ST8-04", "ST8-05"]], "hand": HAND8[:hand], "deck": ["BT1-038"]},
             {"security": ["BT1-009"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "main" and len(zone_cards(rules, s, "hand", 0)) == hand + drawn


# -- ST8-05 Veedramon: return a level 3 with 8 cards in hand ------------------------------------


@pytest.mark.parametrize("hand", [7, 8])
def test_st8_05_veedramon_returns_a_level_3_with_8_cards_in_hand(rules, apply, errors, hand):
    """Inherited [When Attacking]: with 8 cards, AeroVeedramon on Veedramon returns the level-3
    Agumon (not Growlmon, level 4) to its owner's hand, Gigimon under it to the trash; with 7,
    nothing."""
    s = blue(rules, {"field": [["ST8-05", "ST8-08"]], "hand": HAND8[:hand]},
             {"field": [["ST7-01", "ST7-02"], ["ST7-05"]], "security": ["BT1-009"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    if hand == 8:
        assert phase(s) == "select_target" and legal(errors, s) == [THEIRS]
        s, _ = step_ok(rules, apply, errors, s, THEIRS)
        assert zone_cards(rules, s, "hand", 1) == ["ST7-02"] and stack(rules, s, 1, 0) == []
        assert zone_cards(rules, s, "trash", 1) == ["ST7-01", "BT1-009"]
    else:
        assert stack(rules, s, 1, 0) == ["ST7-01", "ST7-02"]
    assert phase(s) == "main" and stack(rules, s, 1, 1) == ["ST7-05"]


@pytest.mark.parametrize("veemon_first", [True, False])
def test_st8_05_a_draw_resolved_first_can_bring_the_hand_to_8(rules, apply, errors, veemon_first):
    """Q698: AeroVeedramon on Veedramon on Veemon attacks with 7 cards in hand: the player
    orders the two inherited [When Attacking] effects. Veemon's <Draw 1> first makes 8, and
    Veedramon's return then resolves; Veedramon's first finds 7 and does nothing."""
    s = blue(rules, {"field": [["ST8-04", "ST8-05", "ST8-08"]], "hand": HAND8[:7],
                     "deck": ["BT1-038"]},
             {"field": [["ST7-02"]], "security": ["BT1-009"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "select_effect_choice" and legal(errors, s) == [TAKE, TAKE + 1]
    names = {a: A.describe(rules, s, a) for a in (TAKE, TAKE + 1)}
    pick = next(a for a, n in names.items() if ("Veemon's" in n) == veemon_first)
    s, _ = step_ok(rules, apply, errors, s, pick)
    if veemon_first:
        assert phase(s) == "select_target" and legal(errors, s) == [THEIRS]
        s, _ = step_ok(rules, apply, errors, s, THEIRS)
    assert phase(s) == "main" and len(zone_cards(rules, s, "hand", 0)) == 8
    assert stack(rules, s, 1, 0) == ([] if veemon_first else ["ST7-02"])


# -- ST8-06 Coredramon: [On Play] <Draw 2>; [Security] battles, then is played -------------------


def test_st8_06_coredramon_on_play_draws_2(rules, apply, errors):
    s = blue(rules, {"hand": ["ST8-06"], "deck": ["BT1-038", "ST8-12"]}, {}, memory=6)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert stack(rules, s, 0, 0) == ["ST8-06"] and int(s.memory) == 0
    assert zone_cards(rules, s, "hand", 0) == ["ST8-12", "BT1-038"] and phase(s) == "main"


@pytest.mark.parametrize(
    "attacker, attacker_survives",
    [("BT1-009", False), ("ST7-10", True)],
    ids=["Coredramon wins", "Coredramon loses"],
)
def test_st8_06_coredramon_security_battles_then_is_played_and_draws_2(
    rules, apply, errors, attacker, attacker_survives
):
    """[Security] (play_self_after_battle): Coredramon (5000) battles the attacker first:
    Monodramon (3000) is deleted; ShineGreymon (12000, <Security A. +1>) wins. Either way (Q699)
    it is then played for free instead of the trash and its [On Play] <Draw 2> resolves before the
    next check (Q700, Q701): ShineGreymon's second check then trashes Elecmon."""
    s = red(rules, {"security": ["BT1-028", "ST8-06"], "deck": ["BT1-038", "ST8-12"]},
            {"field": [[attacker]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "main" and stack(rules, s, 0, 0) == ["ST8-06"]
    assert zone_cards(rules, s, "hand", 0) == ["ST8-12", "BT1-038"]
    assert stack(rules, s, 1, 0) == ([attacker] if attacker_survives else [])
    if attacker_survives:
        assert zone_cards(rules, s, "security", 0) == [] and zone_cards(rules, s, "trash", 0) == [
            "BT1-028"
        ]  # fmt: skip
    else:
        assert zone_cards(rules, s, "security", 0) == ["BT1-028"]
        assert zone_cards(rules, s, "trash", 1) == [attacker]
    assert int(s.memory) == 3, "played without paying its cost"


def test_st8_06_coredramon_is_trashed_when_the_battle_area_is_full(rules, apply, errors):
    """12 Digimon in the battle area: after its battle Coredramon goes to the trash, no draw."""
    full = [["BT1-028"]] * 4 + [["BT1-037"]] * 4 + [["ST8-02"]] * 4
    assert len(full) == A.FIELD_SLOTS
    s = red(rules, {"security": ["ST8-06"], "field": full, "deck": ["BT1-038", "ST8-12"]},
            {"field": [["BT1-009"]]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "trash", 0) == ["ST8-06"] and zone_cards(rules, s, "hand", 0) == []
    assert stack(rules, s, 1, 0) == [], "the battle still happened: Monodramon lost it"


# -- ST8-07 Wingdramon: <Blocker> ---------------------------------------------------------------


def test_st8_07_wingdramon_blocks(rules, apply, errors, perm):
    """Keyword only: RizeGreymon attacks the ST-8 player; Wingdramon blocks; 7000 against 7000,
    both are deleted and no security card is checked."""
    s = red(rules, {"field": [["ST8-07"]], "security": ["BT1-028"]}, {"field": [["ST7-07"]]})
    assert bool(perm(s).keywords[0, 0, R.KW["blocker"]])
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "block_timing" and legal(errors, s) == [DECLINE, BLOCK]
    s, _ = step_ok(rules, apply, errors, s, BLOCK)
    assert stack(rules, s, 0, 0) == [] and stack(rules, s, 1, 0) == []
    assert zone_cards(rules, s, "security", 0) == ["BT1-028"]


# -- ST8-08 AeroVeedramon: <Jamming>; inherited <Security A. +1> with 8 cards --------------------


@pytest.mark.parametrize(
    "hand, active, expected",
    [(8, 0, 1), (7, 0, 0), (8, 1, 0)],
    ids=["hand 8", "hand 7", "hand 8, their turn"],
)
def test_st8_08_aeroveedramon_security_attack_with_8_cards(rules, perm, hand, active, expected):
    """Inherited [Your Turn]: UlforceVeedramon on AeroVeedramon checks one more card while its
    controller holds 8 or more cards (Q702: it applies as soon as the hand reaches 8)."""
    s = build_state(rules, [{"field": [["ST8-08", "ST8-10"]], "hand": HAND8[:hand]}, {}],
                    active=active, turn=2 + active)  # fmt: skip
    assert checks(perm, s) == expected


def test_st8_08_aeroveedramon_jamming_survives_a_security_battle(rules, apply, errors, perm):
    s = blue(rules, {"field": [["ST8-08"]]}, {"security": ["ST7-10"]})
    assert bool(perm(s).keywords[0, 0, R.KW["jamming"]])
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert stack(rules, s, 0, 0) == ["ST8-08"] and zone_cards(rules, s, "trash", 1) == ["ST7-10"]


# -- ST8-09 Slayerdramon: <Security A. +1> when digivolving; cannot be blocked ------------------


def test_st8_09_slayerdramon_checks_2_and_cannot_be_blocked(rules, apply, errors, perm):
    """[When Digivolving]: <Security A. +1> for the turn; [Your Turn]: cannot be blocked, so a
    ready <Blocker> (Biyomon) is not even offered (Q703): no block timing, 2 checks. AeroVeedramon
    attacking into the same board meets the block timing."""
    st7 = {"field": [["ST7-04"]], "security": ["BT1-009", "BT1-019"]}
    s = blue(rules, {"hand": ["ST8-09"], "field": [["ST8-08"]], "deck": ["BT1-038"]}, st7)
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert int(s.memory) == 0 and checks(perm, s) == 1
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "main" and zone_cards(rules, s, "security", 1) == []
    assert stack(rules, s, 1, 0) == ["ST7-04"] and not bool(s.suspended[1, 0])
    s = blue(rules, {"field": [["ST8-08"]]}, st7)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "block_timing"


# -- ST8-10 UlforceVeedramon ---------------------------------------------------------------------


def test_st8_10_ulforceveedramon_returns_a_level_4_or_less_when_digivolving(rules, apply, errors):
    """An ordinary digivolution from AeroVeedramon (level 5, for 4): [When Digivolving] returns
    Growlmon (level 4), not RizeGreymon (level 5); its digivolution cards go to the trash."""
    s = blue(rules, {"hand": ["ST8-10"], "field": [["ST8-08"]], "deck": ["BT1-038"]},
             {"field": [["ST7-07"], ["ST7-03", "ST7-05"]]}, memory=4)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 0))
    assert int(s.memory) == 0 and phase(s) == "select_target"
    assert legal(errors, s) == [THEIRS + 1]
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert zone_cards(rules, s, "hand", 1) == ["ST7-05"]
    assert zone_cards(rules, s, "trash", 1) == ["ST7-03"] and stack(rules, s, 1, 0) == ["ST7-07"]


@pytest.mark.parametrize("hand", [7, 8])
def test_st8_10_ulforceveedramon_unsuspends_once_per_turn_with_8_cards(rules, apply, errors,
                                                                        hand):  # fmt: skip
    """[When Attacking] [Once Per Turn]: with 8 cards in hand it unsuspends (Q704), so it may
    attack again, and the second attack leaves it suspended; with 7 it stays suspended."""
    s = blue(rules, {"field": [["ST8-10"]], "hand": HAND8[:hand]},
             {"security": ["BT1-009", "BT1-019", "BT1-020"]})  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert bool(s.suspended[0, 0]) == (hand < 8)
    assert len(zone_cards(rules, s, "security", 1)) == 2
    if hand == 8:
        s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
        assert bool(s.suspended[0, 0]) and len(zone_cards(rules, s, "security", 1)) == 1
        assert code_name(errors(s)[A.encode("attack", 0, PLAYER)]) != "ok"


# -- ST8-11 Victory Sword: unsuspend a blue Digimon -----------------------------------------------


def test_st8_11_victory_sword_unsuspends_one_of_your_suspended_digimon(rules, apply, errors):
    s = blue(rules, {"hand": ["ST8-11"], "field": [["ST8-04"], ["ST8-05"], ["BT1-028"]],
                     "suspended": [0, 1]},
             {"field": [["ST7-02"]], "suspended": [0]}, memory=3)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_target" and legal(errors, s) == [OWN, OWN + 1]
    s, _ = step_ok(rules, apply, errors, s, OWN + 1)
    assert [bool(x) for x in s.suspended[0, :3]] == [True, False, False] and int(s.memory) == 0
    assert bool(s.suspended[1, 0]) and zone_cards(rules, s, "trash", 0) == ["ST8-11"]


def test_st8_11_victory_sword_only_a_blue_digimon(rules):
    """The color filter: the ST-8 deck is all blue, so this one takes a mixed deck (ST-8 with 2
    red Monodramon for its 2 Monzaemon): a suspended red Monodramon may not be chosen."""
    registry = rules.cards
    st8 = load_deck("st8", registry)
    main = [("BT1-009" if n == "BT1-038" else n) for n in st8.main]
    st7 = load_deck("st7", registry)
    mixed = R.DigimonRules(registry, [(st8.eggs, main), (st7.eggs, st7.main)])
    apply = jit_apply(mixed)
    errors = jax.jit(mixed.action_errors)
    step = functools.partial(step_ok, mixed, apply, errors)
    s = build_state(mixed, [{"hand": ["ST8-11"], "field": [["BT1-009"], ["ST8-04"]],
                             "suspended": [0, 1]}, {}], memory=3)  # fmt: skip
    s, _ = step(s, A.encode("play", 0))
    assert phase(s) == "select_target" and legal(errors, s) == [OWN + 1]


def test_st8_11_victory_sword_security_goes_to_the_hand(rules, apply, errors):
    s = red(rules, {"security": ["ST8-11"]}, {"field": [["ST7-02"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert zone_cards(rules, s, "hand", 0) == ["ST8-11"] and zone_cards(rules, s, "trash", 0) == []


# -- ST8-12 V-Wing Blade: return a level 6 or lower ------------------------------------------------


def test_st8_12_v_wing_blade_returns_a_level_6_or_lower(rules, apply, errors):
    """[Main]: Gallantmon (level 6, the bound) goes to the hand; ShineGreymon's digivolution
    cards are trashed when it is the one returned."""
    s = blue(rules, {"hand": ["ST8-12"], "field": [["ST8-04"]]},
             {"field": [["ST7-09"], ["ST7-01", "ST7-02", "ST7-05", "ST7-07", "ST7-10"]]},
             memory=6)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS, THEIRS + 1]
    s, _ = step_ok(rules, apply, errors, s, THEIRS + 1)
    assert zone_cards(rules, s, "hand", 1) == ["ST7-10"] and stack(rules, s, 1, 1) == []
    assert zone_cards(rules, s, "trash", 1) == ["ST7-01", "ST7-02", "ST7-05", "ST7-07"]
    assert stack(rules, s, 1, 0) == ["ST7-09"] and int(s.memory) == 0


def test_st8_12_v_wing_blade_security_returns_the_attacker(rules, apply, errors):
    """[Security]: the [Main] effect; returning the attacking ShineGreymon (<Security A. +1>)
    ends the attack before its second check."""
    s = red(rules, {"security": ["BT1-028", "ST8-12"]}, {"field": [["ST7-10"], ["ST7-07"]]})
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert phase(s) == "select_target" and legal(errors, s) == [THEIRS, THEIRS + 1]
    s, _ = step_ok(rules, apply, errors, s, THEIRS)
    assert zone_cards(rules, s, "hand", 1) == ["ST7-10"] and int(s.attacker) == -1
    assert zone_cards(rules, s, "security", 0) == ["BT1-028"] and phase(s) == "main"
