"""Digimon stage 2: turn structure, memory (G1), playing, digivolving (draw bonus, G8), hatching
and moving, passing, deck-out — scripted situations on test-only cards (``build_state``)."""

import jax.numpy as jnp
import numpy as np
import pytest
from digimon_testlib import code_name, stack, step_ok, zone_cards

from tcgjax.core.cards import CardRegistry
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import cards as C
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.scenario import build_state

BASE = dict(dna=[], dna_cost=-1, keywords=[], inherited_keywords=[], effects=[], text="")
RED2 = [{"color": "red", "level": 2, "cost": 0}]
ENTRIES = [
    dict(BASE, id="EGG", name="Egg", kind="digi_egg", colors=["red"], level=2, play_cost=-1, dp=0,
         digivolve=[]),
    dict(BASE, id="R3", name="Red3", kind="digimon", colors=["red"], level=3, play_cost=3,
         dp=3000, digivolve=RED2),
    dict(BASE, id="R4", name="Red4", kind="digimon", colors=["red"], level=4, play_cost=5,
         dp=5000, digivolve=[{"color": "red", "level": 3, "cost": 2}]),
    dict(BASE, id="B4", name="Blue4", kind="digimon", colors=["blue"], level=4, play_cost=5,
         dp=5000, digivolve=[{"color": "blue", "level": 3, "cost": 1}]),
    dict(BASE, id="R7", name="Red7", kind="digimon", colors=["red"], level=7, play_cost=11,
         dp=15000, digivolve=[]),
    dict(BASE, id="T", name="Tamer", kind="tamer", colors=["red"], level=0, play_cost=2, dp=0,
         digivolve=[]),
    dict(BASE, id="O", name="Option", kind="option", colors=["red"], level=0, play_cost=1, dp=0,
         digivolve=[]),
    dict(BASE, id="R3B", name="Red3b", kind="digimon", colors=["red"], level=3, play_cost=3,
         dp=3000, digivolve=RED2),
    # Two colors, and a level-5 card with two requirement rows of different costs.
    dict(BASE, id="RB4", name="RedBlue4", kind="digimon", colors=["red", "blue"], level=4,
         play_cost=5, dp=5000, digivolve=[]),
    dict(BASE, id="RB5", name="RedBlue5", kind="digimon", colors=["red", "blue"], level=5,
         play_cost=7, dp=7000, digivolve=[{"color": "red", "level": 4, "cost": 3},
                                          {"color": "blue", "level": 4, "cost": 1}]),
]  # fmt: skip
MAIN = ["R3"] * 4 + ["R4"] * 4 + ["B4"] * 4 + ["R7"] * 4 + ["T"] * 4 + ["O"] * 4 + ["R3B"] * 4
MAIN += ["RB4"] * 4 + ["RB5"] * 4
EGGS = ["EGG"] * 4


def _deck():
    # 28 distinct-copy-limited cards cannot make 50: pad with more test numbers (4 copies each).
    extra = [f"X{i}" for i in range(6)]
    return MAIN + [n for n in extra for _ in range(4)][: 50 - len(MAIN)], extra


@pytest.fixture(scope="module")
def rules():
    main, extra = _deck()
    entries = ENTRIES + [
        dict(BASE, id=n, name=n, kind="digimon", colors=["green"], level=3, play_cost=4,
             dp=1000, digivolve=[])
        for n in extra
    ]  # fmt: skip
    registry = CardRegistry(C.SCHEMA, entries, source="turn-cards")
    return R.DigimonRules(registry, [(EGGS, main), (EGGS, main)])


def test_playing_pays_memory_and_the_turn_ends_on_the_opponents_side(rules, apply, errors):
    s = build_state(rules, [{"hand": ["R3", "T"]}, {"field": [["R3"]], "suspended": [0],
                                                     "deck": ["R4"]}], memory=2)  # fmt: skip
    s, rewards = step_ok(rules, apply, errors, s, A.encode("play", 1))  # the Tamer, cost 2
    assert stack(rules, s, 0, 0) == ["T"] and int(s.memory) == 0
    assert int(s.board.active_player) == 0, "memory 0 is not on the opponent's side (G1)"
    s, rewards = step_ok(rules, apply, errors, s, A.encode("play", 0))  # R3, cost 3 -> -3
    assert stack(rules, s, 0, 1) == ["R3"], "the lowest free slot"
    # The opponent's turn: memory 3 on their side, unsuspended, they drew (R4 on top of the deck).
    assert int(s.board.active_player) == 1 and int(s.memory) == 3
    assert int(s.board.turn_number) == 3 and A.PHASES[int(s.board.phase)] == "breeding"
    assert not bool(s.suspended[1, 0]) and zone_cards(rules, s, "hand", 1)[-1] == "R4"
    assert list(np.asarray(rewards)) == [0.0, 0.0]
    assert int(s.entered_turn[0, 1]) == 2, "entered on the turn it was played"


def test_cost_up_to_memory_plus_ten_is_payable(rules, apply, errors):
    s = build_state(rules, [{"hand": ["R7"]}, {}], memory=0)
    assert code_name(errors(s)[A.encode("play", 0)]) == "not_enough_memory"  # 11 > 0 + 10
    s = build_state(rules, [{"hand": ["R7"]}, {}], memory=1)
    s, _ = step_ok(rules, apply, errors, s, A.encode("play", 0))
    assert int(s.board.active_player) == 1 and int(s.memory) == 10, "opponent starts with 10"


def test_pass_in_main_gives_the_opponent_three_and_pass_in_breeding_goes_to_main(
    rules, apply, errors
):
    s = build_state(rules, [{}, {}], memory=7, phase="breeding")
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    assert A.PHASES[int(s.board.phase)] == "main" and int(s.board.active_player) == 0
    assert int(s.memory) == 7
    s, _ = step_ok(rules, apply, errors, s, A.encode("pass"))
    assert int(s.board.active_player) == 1 and int(s.memory) == 3


def test_digivolve_pays_draws_one_and_keeps_the_permanent_state(rules, apply, errors):
    s = build_state(
        rules,
        [{"hand": ["R4"], "field": [None, ["EGG", "R3"]], "suspended": [1], "entered": {1: 2},
          "deck": ["B4"]}, {}],
        memory=5,
    )  # fmt: skip
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, 1))
    assert stack(rules, s, 0, 1) == ["EGG", "R3", "R4"]
    assert int(s.memory) == 3, "digivolve cost 2, not the play cost 5"
    assert zone_cards(rules, s, "hand", 0) == ["B4"], "the digivolution bonus draws 1"
    assert bool(s.suspended[0, 1]) and int(s.entered_turn[0, 1]) == 2


def test_digivolve_pays_the_cheapest_requirement_the_top_card_meets(rules, apply, errors):
    # RB5: red Lv.4 for 3, blue Lv.4 for 1. A red top pays 3, a blue one 1, a red-and-blue one
    # the cheaper 1; a Lv.3, a Tamer or an empty slot meets neither.
    s = build_state(
        rules, [{"hand": ["RB5"], "field": [["R4"], ["B4"], ["RB4"], ["R3"], ["T"]]}, {}], memory=5
    )
    top, _ = rules.stacks(s)
    costs = np.asarray(rules.digivolve_costs(s, rules.hand(s, 0)[:1], top[0]))[0]
    assert costs[:6].tolist() == [3, 1, 1, -1, -1, -1]
    for slot, left in ((0, 2), (1, 4), (2, 4)):
        after, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, slot))
        assert int(after.memory) == left and stack(rules, after, 0, slot)[-1] == "RB5"
    assert code_name(errors(s)[A.encode("digivolve", 0, 3)]) == "requirement_not_met"
    assert code_name(errors(s)[A.encode("digivolve", 0, 4)]) == "requirement_not_met"


def test_digivolve_costs_of_a_large_card_file_come_from_the_decks_cards_only(rules):
    # A card file over R.DIGIVOLVE_TABLE_ALL_CARDS definitions (an imported database) gets a cost
    # table over the decks' cards only; the costs are the same as over a small file.
    main, extra = _deck()
    unused = [
        dict(BASE, id=f"U{k}", name=f"U{k}", kind="digimon", colors=["red"], level=4,
             play_cost=5, dp=5000, digivolve=[{"color": "red", "level": 3, "cost": 1}])
        for k in range(R.DIGIVOLVE_TABLE_ALL_CARDS)
    ]  # fmt: skip
    big_entries = ENTRIES + [
        dict(BASE, id=n, name=n, kind="digimon", colors=["green"], level=3, play_cost=4,
             dp=1000, digivolve=[])
        for n in extra
    ] + unused  # fmt: skip
    big = R.DigimonRules(
        CardRegistry(C.SCHEMA, big_entries, source="big-cards"), [(EGGS, main), (EGGS, main)]
    )
    deck_definitions = {big.cards.index(n) for n in (*EGGS, *main)} | {0}
    assert big._digivolve_cost.shape == (len(deck_definitions),) * 2
    assert rules._digivolve_cost.shape == (len(rules.cards.ids),) * 2  # a small file: all cards
    for r in (rules, big):
        s = build_state(r, [{"hand": ["RB5"], "field": [["R4"], ["B4"], ["RB4"], ["R3"], ["T"]]},
                            {}], memory=5)  # fmt: skip
        top, _ = r.stacks(s)
        costs = np.asarray(r.digivolve_costs(s, r.hand(s, 0)[:1], top[0]))[0]
        assert costs[:6].tolist() == [3, 1, 1, -1, -1, -1]


def test_digivolve_costs_for_every_instance_pair_and_none():
    # The mask's digivolve costs of every card instance (0 included) onto every other, and of no
    # card (-1) either way, against the printed requirements read straight from the entries. The
    # card file's last definition ("Z-R3", onto EGG) digivolves, and so does its first ("A-R4"):
    # a missing card that read the table's last or first row or column would show up.
    renamed = {"R4": "A-R4", "R3": "Z-R3"}
    main, extra = _deck()
    main = [renamed.get(n, n) for n in main]
    entries = [dict(e, id=renamed.get(e["id"], e["id"])) for e in ENTRIES] + [
        dict(BASE, id=n, name=n, kind="digimon", colors=["green"], level=3, play_cost=4,
             dp=1000, digivolve=[])
        for n in extra
    ]  # fmt: skip
    rules = R.DigimonRules(
        CardRegistry(C.SCHEMA, entries, source="ordered-cards"), [(EGGS, main), (EGGS, main)]
    )
    assert rules.cards.ids[-1] == "Z-R3" and rules.cards.ids[1] == "A-R4"
    s = build_state(rules, [{"hand": ["A-R4", "B4"], "field": [["Z-R3"]]}, {"hand": ["T"]}])
    # Instance 0 (a deck card) is given RB5, which digivolves onto A-R4, B4 and RB4: its row
    # cannot come out all -1 by chance.
    board = s.board.replace(definition=s.board.definition.at[0].set(rules.cards.index("RB5")))
    s = s.replace(board=board)
    by_id = {e["id"]: e for e in entries}
    names = [rules.cards.ids[d] for d in np.asarray(s.board.definition)]

    def cost(hand, top):
        if hand is None or top is None:
            return -1
        h, t = by_id[hand], by_id[top]
        found = [r["cost"] for r in h["digivolve"]
                 if r["level"] == t["level"] and r["color"] in t["colors"]]  # fmt: skip
        return min(found) if found else -1

    named = [None] + names
    expected = np.array([[cost(h, t) for t in named] for h in named])
    cards = jnp.arange(-1, len(names))
    got = np.asarray(rules.digivolve_costs(s, cards, cards))
    np.testing.assert_array_equal(got, expected)
    z_r3, egg = names.index("Z-R3") + 1, names.index("EGG") + 1
    assert got[1].max() >= 0 and got[z_r3, egg] == 0 and got[names.index("A-R4") + 1, z_r3] == 2
    assert (got[0] == -1).all() and (got[:, 0] == -1).all()


def test_a_card_instances_definition_for_every_instance_and_none(rules):
    # Every card instance, 0 included, reads its own definition; -1 (no card) the padding one.
    s = build_state(rules, [{"hand": ["R4", "B4"], "field": [["R3"]]}, {"hand": ["T"]}])
    # Instances 0 and 1 are copies of one card in the decks: give instance 0 another definition,
    # so that it cannot pass by borrowing its neighbour's.
    board = s.board.replace(definition=s.board.definition.at[0].set(rules.cards.index("R7")))
    s = s.replace(board=board)
    definition = np.asarray(s.board.definition)
    assert definition[0] != definition[1]
    cards = np.arange(-1, len(definition))
    got = np.asarray(rules._definition(s, jnp.asarray(cards)))
    np.testing.assert_array_equal(got, np.concatenate([[0], definition]))


def test_the_digivolve_cost_table_is_the_cheapest_matching_requirement_for_every_pair():
    # Brute force over every (hand card, top card) pair of a card file whose first and last
    # definitions (the registry orders them by id) digivolve both ways: "A-R4" (red level 4,
    # onto red level 3; RB5 goes onto it) and "Z-R3" (red level 3, onto EGG; A-R4 goes onto it),
    # so no row or column but the padding definition's may come out -1 by its position.
    renamed = {"R4": "A-R4", "R3": "Z-R3"}
    entries = [dict(e, id=renamed.get(e["id"], e["id"])) for e in ENTRIES]
    cards = CardRegistry(C.SCHEMA, entries, source="ordered-cards")
    first, last = cards.index("A-R4"), cards.index("Z-R3")
    assert (first, last) == (1, len(cards.ids) - 1)
    _, table = R._digivolve_cost_table(cards, range(len(cards.ids)))
    expected = np.full((len(cards.ids),) * 2, -1)
    for hand in entries:
        for top in entries:
            costs = [
                r["cost"] for r in hand["digivolve"]
                if r["level"] == top["level"] and r["color"] in top["colors"]
            ]  # fmt: skip
            if costs:
                expected[cards.index(hand["id"]), cards.index(top["id"])] = min(costs)
    np.testing.assert_array_equal(table, expected)
    assert table[first, last] == 2 and table[last, cards.index("EGG")] == 0
    assert table[cards.index("RB5"), first] == 3  # its red row: A-R4 is red only


def test_digivolve_in_the_breeding_area_g8(rules, apply, errors):
    s = build_state(rules, [{"hand": ["R3"], "breeding": ["EGG"]}, {}], memory=1)
    s, _ = step_ok(rules, apply, errors, s, A.encode("digivolve", 0, A.BREEDING_FIELD))
    assert stack(rules, s, 0, R.BREEDING_SLOT) == ["EGG", "R3"] and int(s.memory) == 1


@pytest.mark.parametrize(
    ("player1", "action", "name"),
    [
        ({"hand": ["B4"], "field": [["R3"]]}, A.encode("digivolve", 0, 0), "requirement_not_met"),
        ({"hand": ["R4"], "field": [["EGG"]]}, A.encode("digivolve", 0, 0), "requirement_not_met"),
        ({"hand": ["R3"], "field": [["T"]]}, A.encode("digivolve", 0, 0), "requirement_not_met"),
        ({"hand": ["R4"]}, A.encode("digivolve", 0, 3), "no_permanent_there"),
        ({"hand": ["T"], "field": [["R3"]]}, A.encode("digivolve", 0, 0), "not_a_digimon"),
        ({"hand": ["R4"], "field": [["R3"]]}, A.encode("digivolve", 1, 0), "no_card_in_hand_slot"),
        ({"hand": ["R4"], "field": [["R3"]]}, A.encode("digivolve", 0, 13), "no_permanent_there"),
        ({"hand": ["O"]}, A.encode("play", 0), "option_color_missing"),
        (
            {"hand": ["R3"], "field": [["X0"]] * 4 + [["X1"]] * 4 + [["X2"]] * 4},
            A.encode("play", 0),
            "battle_area_full",
        ),
        ({}, 95, "unused_action"),
        ({}, A.encode("hatch"), "wrong_phase"),
        ({}, A.encode("attack", 0, 12), "no_attacker"),
        ({}, A.encode("activate", 0, 0), "no_permanent_there"),
        ({}, A.encode("source", 0, 0), "wrong_phase"),
    ],
)
def test_illegal_actions_name_the_rule(rules, errors, player1, action, name):
    s = build_state(rules, [player1, {}], memory=5)
    assert code_name(errors(s)[action]) == name


def test_hatch_then_move_a_level_three_stack(rules, apply, errors):
    s = build_state(rules, [{"eggs": ["EGG"]}, {}], phase="breeding")
    s, _ = step_ok(rules, apply, errors, s, A.encode("hatch"))
    assert stack(rules, s, 0, R.BREEDING_SLOT) == ["EGG"]
    assert A.PHASES[int(s.board.phase)] == "main", "at most one thing in the Breeding phase"
    assert code_name(errors(s)[A.encode("move_breeding")]) == "wrong_phase"
    # Next turn: the egg is Lv.2 and cannot move; a Lv.3 on top can.
    s = build_state(rules, [{"breeding": ["EGG"]}, {}], phase="breeding")
    assert code_name(errors(s)[A.encode("move_breeding")]) == "cannot_move_from_breeding"
    assert code_name(errors(s)[A.encode("hatch")]) == "breeding_area_occupied"
    s = build_state(rules, [{"breeding": ["EGG", "R3"], "field": [["T"]]}, {}], phase="breeding")
    s, _ = step_ok(rules, apply, errors, s, A.encode("move_breeding"))
    assert stack(rules, s, 0, 1) == ["EGG", "R3"] and stack(rules, s, 0, R.BREEDING_SLOT) == []
    assert int(s.entered_turn[0, 1]) == 0, "moving is not playing: it may attack this turn"


def test_empty_egg_deck(rules, errors):
    s = build_state(rules, [{"breeding": [], "trash": EGGS}, {}], phase="breeding")
    assert code_name(errors(s)[A.encode("hatch")]) == "egg_deck_empty"
    assert code_name(errors(s)[A.encode("pass")]) == "ok"


def test_drawing_from_an_empty_deck_loses(rules, apply, errors):
    main, _ = _deck()
    s = build_state(rules, [{}, {"trash": main}], memory=0)  # player 2 has no deck left
    s, rewards = step_ok(rules, apply, errors, s, A.encode("pass"))
    assert int(s.winner) == 0 and R.END_REASONS[int(s.end_reason)] == "deck_out"
    assert list(np.asarray(rewards)) == [1.0, -1.0]
    # The finished game keeps the phase it ended in: player 2's Draw phase of turn 3, not the
    # Breeding phase of a turn that never goes on (issue #32); the tensor says the same.
    assert A.PHASES[int(s.board.phase)] == "draw" and int(s.board.turn_number) == 3
    assert int(s.board.active_player) == 1
    from tcgjax.games.digimon import observation as O

    tensor = O.board_state_tensor(rules, s, 1)
    assert float(O.LAYOUT.view(tensor, "global")[1]) == A.PHASES.index("draw")
