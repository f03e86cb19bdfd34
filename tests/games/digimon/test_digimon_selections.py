"""The selection phases beyond SelectTarget and SelectSource, each with the primitive that opens
it (test-only cards; the spec's "Selection Conventions", G4): SelectHand (trash from hand with
30 + i, play without paying with i), SelectReveal (reveal N, add the matching ones, the rest to
the bottom of the deck), SelectTrash (130 + i), SelectSecurity (40 + i own, 50 + i the
opponent's, from the top), SelectEffectChoice (1000 + i), and return to the bottom of the deck
through SelectTarget. Each situation is explicit; every step is checked legal and validated."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from digimon_testlib import code_name, digimon, make_rules, other, stack, step_ok, zone_cards

import tcgjax
from tcgjax.core.cards import CardRegistry
from tcgjax.core.errors import CardDataError
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import cards as C
from tcgjax.games.digimon import observation as O
from tcgjax.games.digimon.scenario import build_state


def row(trigger, op, **kw):
    return {"where": "main", "trigger": trigger, "op": op, **kw}


ENTRIES = [
    other("EGG", "digi_egg"),
    digimon("P3", 3, 3000),
    digimon("P5", 4, 5000),
    digimon("P7", 5, 7000),
    other("T1", "tamer", cost=2),
    # Draw 2, then trash 1 card from your hand.
    other("SWAP", "option", cost=0, effects=[
        row("main", "draw", target="player", amount=2),
        row("main", "trash_from_hand", target="player", count=1)]),
    # You may play 1 level 4 or lower Digimon from your hand without paying its cost.
    other("FREE", "option", cost=0, effects=[
        row("main", "play_free", target="player", count=1, max_level=4, kinds=["digimon"],
            flags=["optional"])]),
    # Reveal the top 3 cards of your deck; add up to 1 level 3 Digimon among them to your hand;
    # the rest go to the bottom of your deck.
    other("SEEK", "option", cost=0, effects=[
        row("main", "reveal_add", target="player", amount=3, count=1, max_level=3,
            kinds=["digimon"], flags=["up_to"])]),
    # Return 1 Digimon card of level 4 or lower from your trash to your hand.
    other("RAISE", "option", cost=0, effects=[
        row("main", "trash_to_hand", target="player", count=1, max_level=4, kinds=["digimon"])]),
    # Trash 1 card of your opponent's security stack (chosen face down).
    other("BREAK", "option", cost=0, effects=[
        row("main", "trash_security", target="opponent", count=1)]),
    # Trash 1 card of your own security stack.
    other("PURGE", "option", cost=0, effects=[
        row("main", "trash_security", target="player", count=1)]),
    # Choose one: draw 1, or gain 2 memory (declinable).
    other("CHOICE", "option", cost=0, effects=[
        row("main", "choose_one", count=2, flags=["optional"]),
        row("branch", "draw", target="player", amount=1),
        row("branch", "memory", target="player", amount=2)]),
    # Return 1 of your opponent's Digimon with its digivolution cards to the bottom of their deck.
    other("SINK", "option", cost=0, effects=[
        row("main", "return_to_deck", target="choose_opponent_digimon", count=1)]),
    # [On Play] marker: a Digimon whose [On Play] gains 1 memory (play_free is "playing").
    digimon("ONPLAY4", 4, 4000, effects=[row("on_play", "memory", target="player", amount=1)]),
]  # fmt: skip
MAIN = [e["id"] for e in ENTRIES if e["kind"] != "digi_egg" for _ in range(4)][:50]  # ONPLAY4: 2


@pytest.fixture(scope="module")
def rules():
    return make_rules(ENTRIES, MAIN)


def legal(errors, s):
    return np.flatnonzero(np.asarray(errors(s)) == 0).tolist()


def phase(s):
    return A.PHASES[int(s.board.phase)]


def test_select_hand_trashes_with_the_trash_from_hand_range(rules, apply, errors):
    s = build_state(rules, [{"hand": ["SWAP", "P3"], "deck": ["P7", "P5"], "field": [["P3"]]},
                            {}], memory=2)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    # Draw 2 resolved first (row order), then the trash selection opened: ids 30 + hand index.
    assert phase(s) == "select_hand" and zone_cards(rules, s, "hand", 0) == ["P3", "P5", "P7"]
    assert legal(errors, s) == [30, 31, 32], "exactly 1, not optional: no 62"
    assert code_name(errors(s)[1]) == "not_a_valid_selection", "0-29 choose, they do not trash"
    assert A.decode(int(s.board.phase), 31).name == "trash_hand[1]"
    s, _ = step_ok(rules, apply, errors, s, 31)
    assert phase(s) == "main" and zone_cards(rules, s, "hand", 0) == ["P3", "P7"]
    assert zone_cards(rules, s, "trash", 0) == ["P5", "SWAP"]


def test_select_hand_plays_a_matching_digimon_free_and_fires_on_play(rules, apply, errors):
    s = build_state(rules, [{"hand": ["FREE", "P7", "ONPLAY4", "T1", "P3"], "field": [["P3"]]},
                            {}], memory=2)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_hand"
    # Hand now P7 (Lv.5: above the bound), ONPLAY4, T1 (a Tamer: not a Digimon), P3.
    assert legal(errors, s) == [1, 3, 62], "optional: 62 declines"
    s, _ = step_ok(rules, apply, errors, s, 1)
    assert stack(rules, s, 0, 1) == ["ONPLAY4"] and int(s.memory) == 3, "free, then +1 On Play"
    assert int(s.entered_turn[0, 1]) == int(s.board.turn_number), "played this turn"
    assert phase(s) == "main" and zone_cards(rules, s, "trash", 0) == ["FREE"]


def test_select_hand_play_free_declined_changes_nothing_but_the_option(rules, apply, errors):
    s = build_state(rules, [{"hand": ["FREE", "P3"], "field": [["P3"]]}, {}], memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, 62)
    assert phase(s) == "main" and zone_cards(rules, s, "hand", 0) == ["P3"]
    assert stack(rules, s, 0, 1) == [] and int(s.memory) == 2


def test_select_reveal_adds_a_match_and_puts_the_rest_at_the_bottom(rules, apply, errors):
    s = build_state(rules, [{"hand": ["SEEK"], "deck": ["P7", "P3", "P5"], "field": [["P3"]]},
                            {}], memory=2)  # fmt: skip
    deck_before = zone_cards(rules, s, "deck", 0)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_reveal"
    assert zone_cards(rules, s, "revealed") == ["P5", "P3", "P7"], "the top card first"
    assert legal(errors, s) == [31, 62], "only the Lv.3 Digimon; up to: 62 stops"
    s, _ = step_ok(rules, apply, errors, s, 31)
    assert zone_cards(rules, s, "hand", 0) == ["P3"]
    # The owner orders the two left (official rule): each pick goes under the deck next, no 62.
    assert phase(s) == "select_reveal" and int(s.selection.stage) == A.CHOICE_BOTTOM
    assert zone_cards(rules, s, "revealed") == ["P5", "P7"] and legal(errors, s) == [30, 31]
    assert A.describe(rules, s, 30) == "put P5 (revealed 0) under your deck next"
    # validate: one pick fewer than the cards left (the last one goes by itself).
    wrong = s.replace(selection=s.selection.replace(left=jnp.int8(2)))
    with pytest.raises(tcgjax.InvalidStateError, match="2 picks left for 2 revealed cards"):
        rules.validate(wrong)
    s, _ = step_ok(rules, apply, errors, s, 30)  # P5 first, so P7 ends deepest
    assert phase(s) == "main" and zone_cards(rules, s, "revealed") == []
    deck = zone_cards(rules, s, "deck", 0)
    assert deck[:2] == ["P7", "P5"] and deck[2:] == deck_before[:-3]


def test_reveal_with_no_match_puts_every_card_back_at_the_bottom(rules, apply, errors):
    s = build_state(rules, [{"hand": ["SEEK"], "deck": ["P7", "T1", "P5"], "field": [["P3"]]},
                            {}], memory=2)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert zone_cards(rules, s, "revealed") == ["P5", "T1", "P7"] and legal(errors, s) == [
        30,
        31,
        32,
    ]
    s, _ = step_ok(rules, apply, errors, s, 31)  # T1 under the deck first
    assert int(s.selection.left) == 1 and legal(errors, s) == [30, 31]
    s, _ = step_ok(rules, apply, errors, s, 31)  # then P7; P5 goes last, deepest
    assert phase(s) == "main" and zone_cards(rules, s, "revealed") == []
    assert zone_cards(rules, s, "deck", 0)[:3] == ["P5", "P7", "T1"]
    assert zone_cards(rules, s, "hand", 0) == []


def test_select_trash_returns_a_matching_card_to_hand(rules, apply, errors):
    s = build_state(rules, [{"hand": ["RAISE"], "trash": ["P7", "P3", "SWAP", "P5"],
                             "field": [["P3"]]}, {}], memory=2)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_trash" and legal(errors, s) == [131, 133]
    assert A.decode(int(s.board.phase), 133).name == "select_trash[3]"
    s, _ = step_ok(rules, apply, errors, s, 133)
    assert zone_cards(rules, s, "hand", 0) == ["P5"]
    assert zone_cards(rules, s, "trash", 0) == ["P7", "P3", "SWAP", "RAISE"]


def test_select_security_trashes_the_chosen_card_of_the_opponent(rules, apply, errors):
    s = build_state(rules, [{"hand": ["BREAK"], "field": [["P3"]]},
                            {"security": ["P3", "P5", "P7"]}], memory=2)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_security" and legal(errors, s) == [50, 51, 52]
    assert int(jax.jit(rules.decider)(s)) == 0, "the Option's user chooses"
    s, _ = step_ok(rules, apply, errors, s, 51)  # the second card from the top
    assert zone_cards(rules, s, "security", 1) == ["P3", "P7"]
    assert zone_cards(rules, s, "trash", 1) == ["P5"], "to its owner's trash"


def test_select_security_on_your_own_stack_uses_40(rules, apply, errors):
    s = build_state(rules, [{"hand": ["PURGE"], "field": [["P3"]], "security": ["P5", "P7"]},
                            {"security": ["P3"]}], memory=2)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert legal(errors, s) == [40, 41]
    s, _ = step_ok(rules, apply, errors, s, 40)
    assert zone_cards(rules, s, "security", 0) == ["P5"]
    assert zone_cards(rules, s, "trash", 0) == ["P7", "PURGE"]


def test_security_selection_fizzles_on_an_empty_stack(rules, apply, errors):
    s = build_state(rules, [{"hand": ["BREAK"], "field": [["P3"]]}, {}], memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "main" and zone_cards(rules, s, "trash", 0) == ["BREAK"]


@pytest.mark.parametrize("branch, hand, memory", [(0, ["P5"], 2), (1, [], 4)])
def test_select_effect_choice_runs_only_the_chosen_branch(rules, apply, errors, branch, hand,
                                                          memory):  # fmt: skip
    s = build_state(rules, [{"hand": ["CHOICE"], "deck": ["P5"], "field": [["P3"]]}, {}],
                    memory=2)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_effect_choice" and legal(errors, s) == [62, 1000, 1001]
    assert A.decode(int(s.board.phase), 1001).name == "select_branch[1]"
    s, _ = step_ok(rules, apply, errors, s, 1000 + branch)
    assert phase(s) == "main" and zone_cards(rules, s, "hand", 0) == hand
    assert int(s.memory) == memory


def test_select_effect_choice_declined_runs_no_branch(rules, apply, errors):
    s = build_state(rules, [{"hand": ["CHOICE"], "deck": ["P5"], "field": [["P3"]]}, {}],
                    memory=2)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    s, _ = step_ok(rules, apply, errors, s, 62)
    assert zone_cards(rules, s, "hand", 0) == [] and int(s.memory) == 2


def test_return_to_deck_puts_the_whole_stack_at_the_bottom(rules, apply, errors):
    s = build_state(rules, [{"hand": ["SINK"], "field": [["P3"]]},
                            {"field": [["P3", "P5"]], "suspended": [0]}], memory=2)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s) == "select_target" and legal(errors, s) == [112]
    s, _ = step_ok(rules, apply, errors, s, 112)
    assert stack(rules, s, 1, 0) == [] and not bool(s.suspended[1, 0])
    assert zone_cards(rules, s, "deck", 1)[:2] == ["P3", "P5"], "top card first to the bottom"
    assert zone_cards(rules, s, "trash", 1) == [], "not deleted: nothing in the trash"


@pytest.mark.parametrize(
    ("hand", "deck", "choices"),
    [
        (["SWAP", "P3"], ["P7", "P5"], 3),  # SelectHand, exactly 1: 30-32, no 62
        (["FREE", "P7", "ONPLAY4", "T1", "P3"], [], 2),  # optional: 1, 3 (and 62, not counted)
        (["CHOICE"], ["P5"], 2),  # SelectEffectChoice, declinable: 1000, 1001
    ],
)
def test_the_tensor_counts_the_choices_from_the_mask_as_from_the_rules(
    rules, apply, errors, hand, deck, choices
):
    """The env's step builds the selection block from the step's mask (``legal=``); it must be
    the tensor the rules compute on their own, and count the choices without the decline."""
    s = build_state(rules, [{"hand": hand, "deck": deck, "field": [["P3"]]}, {}], memory=2)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert phase(s).startswith("select_")
    mask = np.asarray(errors(s)) == 0
    tensor = jax.jit(O.board_state_tensor, static_argnums=(0, 3))
    own = np.asarray(tensor(rules, s, 0, "player"))
    from_mask = np.asarray(tensor(rules, s, 0, "player", mask))
    np.testing.assert_array_equal(from_mask, own)
    selection = O.LAYOUT.view(own, "selection")
    assert selection[1] == choices == O.LAYOUT.view(from_mask, "selection")[1]


def test_selection_state_is_rejected_when_its_phase_is_not_the_rows(rules, apply, errors):
    from tcgjax.core.errors import InvalidStateError

    s = build_state(rules, [{"hand": ["BREAK"], "field": [["P3"]]},
                            {"security": ["P3"]}], memory=2)  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    wrong = s.replace(board=s.board.replace(phase=np.int8(A.PHASES.index("select_trash"))))
    with pytest.raises(InvalidStateError, match="not the selection of a trash_security row"):
        rules.validate(wrong)


def _load(effects, kind="option"):
    entry = other("X", kind, cost=0, effects=effects)
    registry = CardRegistry(C.SCHEMA, [entry], source="bad.yaml")
    C.check_card_rules(registry)


@pytest.mark.parametrize(
    "effects, message",
    [
        ([row("main", "choose_one", count=2), row("branch", "draw", target="player", amount=1)],
         "choose_one needs 2 branch rows"),
        ([row("main", "draw", target="player", amount=1),
          row("branch", "draw", target="player", amount=1)], "a branch row follows a choose_one"),
        ([row("main", "choose_one", count=1)], "choose_one chooses among 2..3"),
        ([row("main", "reveal_add", target="player", amount=2, count=3)],
         "count <= amount <= 5"),
        ([row("main", "reveal_add", target="player", amount=6, count=1)],
         "count <= amount <= 5"),
        ([row("main", "draw", target="player", amount=1, kinds=["tamer"])], "kinds filters"),
        ([row("main", "play_free", target="player", kinds=["option"])], "Digimon or Tamers"),
        ([row("main", "trash_security", target="self")], "expected one of"),
    ],
)  # fmt: skip
def test_the_loader_refuses_selection_rows_it_cannot_run(effects, message):
    with pytest.raises(CardDataError, match=message) as info:
        _load(effects)
    assert "bad.yaml" in str(info.value) and "X" in str(info.value)
