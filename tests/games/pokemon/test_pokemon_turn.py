"""Pokémon rules without card effects (stage 2): the turn, playing, evolving, attaching, retreating,
attacking with Weakness and Resistance, Knock Outs and Prize cards, promotions, the Checkup, wins.

Each test builds its situation explicitly (``build_state``) over the shared test registry.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from pokemon_testlib import act, names, pile

from tcgjax.games.pokemon import rules as R
from tcgjax.games.pokemon.scenario import build_state

KEY = jax.random.PRNGKey(0)
KEYS = [jax.random.PRNGKey(k) for k in range(16)]


def state_of(rules, p1, p2, **kw):
    return build_state(rules, [p1, p2], **kw)


def step(apply, state, action, key=KEY):
    new, rewards = apply(state, jnp.int32(action), key)
    return new, np.asarray(rewards)


# A small board used by many tests: player 1 has Tynamo Active (1 Lightning) and a Tadbulb-less
# bench with Meltan; player 2 has Meltan Active and Bronzor on the Bench.
def basic_board(rules, hand1=(), hand2=(), **kw):
    return state_of(
        rules,
        {"hand": list(hand1), "slots": [["sv3-67", "sve-4"], ["sv3-152"]]},
        {"hand": list(hand2), "slots": [["sv3-152"], ["sv3-144"]]},
        **kw,
    )


# -------------------------------------------------------------------------------------------------
# Playing Basic Pokémon, Trainers and Energy from the hand


def test_play_basic_goes_to_the_first_empty_bench_slot(rules, apply, errors):
    s = basic_board(rules, hand1=["sv3-67", "t-fighter"])
    assert errors(s)[act(rules, "play", card="t-fighter")] == "ok"
    s, _ = step(apply, s, act(rules, "play", card="t-fighter"))
    assert pile(rules, s, 0, 2) == ["t-fighter"]
    assert int(s.since_turn[0, 2]) == 3  # came into play this turn
    assert "t-fighter" not in names(rules, s, "hand", 0)


def test_bench_holds_five(rules, errors):
    s = state_of(
        rules,
        {"hand": ["t-fighter"], "slots": [["sv3-67"]] + [["sv3-152"]] * 3 + [["sv2-151"]] * 2},
        {"slots": [["sv3-152"]]},
    )
    assert errors(s)[act(rules, "play", card="t-fighter")] == "bench_full"


@pytest.mark.parametrize(
    ("card", "rule"),
    [
        ("sv3-68", "evolution_is_evolved"),
        ("sve-4", "energy_is_attached"),
        ("sv1-188", "no_effect"),  # a Potion with no damaged Pokémon would do nothing
        ("sv3-69", "not_in_hand"),
    ],
)
def test_play_refuses_what_is_not_a_basic_from_the_hand(rules, errors, card, rule):
    s = basic_board(rules, hand1=["sv3-68", "sve-4", "sv1-188"])
    assert errors(s)[act(rules, "play", card=card)] == rule


def test_nothing_but_the_phase_actions_is_legal(rules, errors):
    s = basic_board(rules, hand1=["sv3-67"])
    err = errors(s)
    for kind in ("select_card", "select_slot"):
        start, size = rules.actions.ranges[kind]
        assert set(err[start : start + size]) == {"wrong_phase"}, kind
    assert err[act(rules, "yes")] == err[act(rules, "done")] == "wrong_phase"
    assert err[act(rules, "end_turn")] == "ok"


# -------------------------------------------------------------------------------------------------
# Evolution (by evolves_from, not on a first turn, not on a Pokémon new this turn)


def test_evolve_keeps_damage_and_attachments_and_removes_conditions(rules, apply, errors):
    s = state_of(
        rules,
        {
            "hand": ["sv3-68"],
            "slots": [["sv3-67", "sve-4"]],
            "damage": {0: 20},
            "conditions": {"rotated": "confused", "poisoned": True, "burned": True},
        },
        {"slots": [["sv3-152"]]},
    )
    a = act(rules, "evolve", 0, card="sv3-68")
    assert errors(s)[a] == "ok"
    s, _ = step(apply, s, a)
    assert pile(rules, s, 0, 0) == ["sv3-67", "sve-4", "sv3-68"]
    assert int(s.damage[0, 0]) == 20
    assert int(s.rotated[0]) == 0 and not bool(s.poisoned[0]) and not bool(s.burned[0])
    assert int(s.since_turn[0, 0]) == 3
    view = rules.slot_view(s)
    assert rules.cards.ids[int(view["definition"][0, 0])] == "sv3-68"
    assert int(view["hp"][0, 0]) == 90
    # It evolved this turn: the Stage 2 waits for the next one (R "Evolution").
    s = s.replace(board=s.board.replace(phase=jnp.int8(R.PHASE["main"])))
    s2 = state_of(
        rules,
        {"hand": ["sv3-69"], "slots": [["sv3-67", "sv3-68"]], "since": {0: 3}},
        {"slots": [["sv3-152"]]},
    )
    assert errors(s2)[act(rules, "evolve", 0, card="sv3-69")] == "new_this_turn"


def test_stage2_on_its_stage1_and_vmax_on_its_v(rules, apply, errors):
    s = state_of(
        rules,
        {"hand": ["sv3-69", "t-volt-vmax"], "slots": [["sv3-67", "sv3-68"], ["t-volt-v"]]},
        {"slots": [["sv3-152"]]},
    )
    assert errors(s)[act(rules, "evolve", 0, card="sv3-69")] == "ok"
    assert errors(s)[act(rules, "evolve", 1, card="t-volt-vmax")] == "ok"
    s, _ = step(apply, s, act(rules, "evolve", 1, card="t-volt-vmax"))
    assert pile(rules, s, 0, 1) == ["t-volt-v", "t-volt-vmax"]


@pytest.mark.parametrize(
    ("card", "slot", "turn", "since", "rule"),
    [
        ("sv3-69", 0, 3, 0, "wrong_evolution"),  # a Stage 2 on the Basic
        ("sv3-68", 1, 3, 0, "wrong_evolution"),  # Eelektrik on Meltan
        ("sv3-68", 2, 3, 0, "empty_slot"),
        ("sv3-67", 0, 3, 0, "not_an_evolution"),
        ("sve-4", 0, 3, 0, "not_an_evolution"),
        ("sv3-68", 0, 1, 0, "first_turn_evolution"),  # the first player's first turn
        ("sv3-68", 0, 2, 0, "first_turn_evolution"),  # the second player's first turn
        ("sv3-68", 0, 5, 5, "new_this_turn"),  # put into play this turn
    ],
)
def test_evolve_refusals(rules, errors, card, slot, turn, since, rule):
    s = state_of(
        rules,
        {"hand": [card], "slots": [["sv3-67"], ["sv3-152"]], "since": {0: since}},
        {"slots": [["sv3-152"]]},
        turn=turn,
        first_player=0 if turn % 2 else 1,  # player 1 owns the turn
    )
    assert errors(s)[act(rules, "evolve", slot, card=card)] == rule


# -------------------------------------------------------------------------------------------------
# Energy: one attachment per turn, to any of the player's Pokémon


def test_one_energy_attachment_per_turn(rules, apply, errors):
    s = basic_board(rules, hand1=["sve-4", "swsh9-151"])
    a = act(rules, "attach", 1, card="swsh9-151")
    assert errors(s)[a] == "ok"
    s, _ = step(apply, s, a)
    assert pile(rules, s, 0, 1) == ["sv3-152", "swsh9-151"]
    err = errors(s)
    assert err[act(rules, "attach", 0, card="sve-4")] == "energy_done"
    assert err[act(rules, "attach", 1, card="sve-4")] == "energy_done"
    assert errors(basic_board(rules, hand1=["sve-4"]))[act(rules, "attach", 3, card="sve-4")] == (
        "empty_slot"
    )
    assert errors(basic_board(rules, hand1=["sv3-68"]))[act(rules, "attach", 0, card="sv3-68")] == (
        "not_energy"
    )


# -------------------------------------------------------------------------------------------------
# Retreat: once a turn, the player discards Energy covering the cost, conditions go


def test_retreat_pays_with_chosen_energy_then_swaps(rules, apply, errors):
    s = state_of(
        rules,
        {
            "slots": [["sv2-151", "sve-8", "swsh9-151"], ["sv3-67"]],  # Orthworm: retreat 2
            "damage": {0: 30},
            "conditions": {"poisoned": True, "rotated": "confused"},
        },
        {"slots": [["sv3-152"]]},
    )
    assert errors(s)[act(rules, "retreat", 0)] == "ok"
    s, _ = step(apply, s, act(rules, "retreat", 0))
    assert R.PHASES[int(s.board.phase)] == "retreat_payment"
    err = errors(s)
    assert err[act(rules, "select_card", card="sve-8")] == "ok"
    assert err[act(rules, "select_card", card="swsh9-151")] == "ok"
    assert err[act(rules, "select_card", card="sve-4")] == "not_attached"
    assert err[act(rules, "end_turn")] == "wrong_phase"
    # Double Turbo Energy provides 2 units: it pays the whole cost alone.
    s, _ = step(apply, s, act(rules, "select_card", card="swsh9-151"))
    assert R.PHASES[int(s.board.phase)] == "main"
    assert pile(rules, s, 0, 0) == ["sv3-67"]
    assert pile(rules, s, 0, 1) == ["sv2-151", "sve-8"]
    assert names(rules, s, "discard", 0) == ["swsh9-151"]
    assert s.damage[0].tolist()[:2] == [0, 30]  # damage moves with the Pokémon
    assert int(s.rotated[0]) == 0 and not bool(s.poisoned[0])  # the Bench sheds conditions
    assert errors(s)[act(rules, "retreat", 0)] == "retreat_done"


def test_retreat_with_basic_energy_takes_one_selection_per_unit(rules, apply):
    s = state_of(
        rules,
        {"slots": [["sv2-151", "sve-8", "sve-8", "sve-4"], None, ["sv3-67"]]},
        {"slots": [["sv3-152"]]},
    )
    s, _ = step(apply, s, act(rules, "retreat", 1))
    s, _ = step(apply, s, act(rules, "select_card", card="sve-8"))
    assert R.PHASES[int(s.board.phase)] == "retreat_payment"
    assert int(s.retreat_units_left) == 1
    s, _ = step(apply, s, act(rules, "select_card", card="sve-4"))
    assert R.PHASES[int(s.board.phase)] == "main"
    assert pile(rules, s, 0, 0) == ["sv3-67"]
    assert pile(rules, s, 0, 2) == ["sv2-151", "sve-8"]
    assert bool(s.retreated)


# An HP bonus lost while paying a retreat cost: Orthworm (sv2-151, 130 HP, +100 with 3 or more
# Metal Energy attached) at 150 damage is Knocked Out the moment its third Metal Energy is
# discarded, not at the next Checkup; its owner promotes and the same turn goes on.
def orthworm_paying(rules, apply, prizes2=None):
    p2 = {"slots": [["sv3-152"], ["sv3-144"]]}
    if prizes2 is not None:
        p2["prizes"] = prizes2
    s = state_of(
        rules,
        {"slots": [["sv2-151", "sve-8", "sve-8", "sve-8"], ["sv3-67"]], "damage": {0: 150}},
        p2,
    )
    s, _ = step(apply, s, act(rules, "retreat", 0))
    assert R.PHASES[int(s.board.phase)] == "retreat_payment"
    assert int(s.retreat_units_left) == 2 and int(s.damage[0, 0]) == 150  # 230 HP yet
    return s


def test_losing_an_hp_bonus_while_paying_a_retreat_knocks_out_at_once(rules, apply, errors):
    s = orthworm_paying(rules, apply)
    turn = int(s.board.turn_number)
    prizes2 = len(names(rules, s, "prizes", 1))
    s, rewards = step(apply, s, act(rules, "select_card", card="sve-8"))
    # Two Metal Energy left: 130 HP under 150 damage. Knocked Out with what was attached.
    assert pile(rules, s, 0, 0) == [] and int(s.damage[0, 0]) == 0
    assert sorted(names(rules, s, "discard", 0)) == ["sv2-151", "sve-8", "sve-8", "sve-8"]
    assert len(names(rules, s, "prizes", 1)) == prizes2 - 1  # the opponent takes a Prize card
    assert rewards.tolist() == [0.0, 0.0] and int(s.winner) == R.NO_WINNER
    # The retreat is over; its owner promotes within the same turn.
    assert R.PHASES[int(s.board.phase)] == "promote" and int(s.board.active_player) == 0
    assert s.must_promote.tolist() == [True, False]
    assert int(s.retreat_to) == 0 and int(s.retreat_units_left) == 0
    assert int(s.promote_then) == R.THEN_CONTINUE
    assert errors(s)[act(rules, "end_turn")] == "wrong_phase"
    s, _ = step(apply, s, act(rules, "select_slot", 1))
    assert pile(rules, s, 0, 0) == ["sv3-67"]
    assert R.PHASES[int(s.board.phase)] == "main" and int(s.board.active_player) == 0
    assert int(s.board.turn_number) == turn and not bool(s.turn_ending)
    assert int(s.promote_then) == R.THEN_NEXT_TURN
    assert errors(s)[act(rules, "end_turn")] == "ok"


def test_the_knock_out_within_a_turn_can_give_the_opponent_the_game(rules, apply):
    s = orthworm_paying(rules, apply, prizes2=["sv3-152"])  # player 2's last Prize card
    s, rewards = step(apply, s, act(rules, "select_card", card="sve-8"))
    assert int(s.winner) == 1 and R.END_REASONS[int(s.end_reason)] == "prizes"
    assert R.PHASES[int(s.board.phase)] == "game_over"
    assert rewards.tolist() == [-1.0, 1.0]


def test_paying_with_an_energy_the_bonus_does_not_count_keeps_the_pokemon(rules, apply):
    # Orthworm with 3 Metal and a Lightning Energy: paying with the Lightning keeps 230 HP.
    s = state_of(
        rules,
        {"slots": [["sv2-151", "sve-8", "sve-8", "sve-8", "sve-4"], ["sv3-67"]],
         "damage": {0: 150}},
        {"slots": [["sv3-152"], ["sv3-144"]]},
    )  # fmt: skip
    s, _ = step(apply, s, act(rules, "retreat", 0))
    s, _ = step(apply, s, act(rules, "select_card", card="sve-4"))
    assert R.PHASES[int(s.board.phase)] == "retreat_payment" and int(s.retreat_units_left) == 1
    assert pile(rules, s, 0, 0) == ["sv2-151", "sve-8", "sve-8", "sve-8"]
    assert int(s.damage[0, 0]) == 150


def test_free_retreat_swaps_at_once(rules, apply):
    s = state_of(rules, {"slots": [["t-floater"], ["sv3-67"]]}, {"slots": [["sv3-152"]]})
    # Effects of attacks on the retreating Active (protected, can't attack next turn) end on the
    # Bench (R13): the records go back to 0 (none), not to some past turn.
    turn = int(s.board.turn_number)
    s = s.replace(
        protected_turn=s.protected_turn.at[0, 0].set(turn + 1),
        cannot_attack_turn=s.cannot_attack_turn.at[0, 0].set(turn + 1),
    )
    s, _ = step(apply, s, act(rules, "retreat", 0))
    assert R.PHASES[int(s.board.phase)] == "main"
    assert pile(rules, s, 0, 0) == ["sv3-67"] and pile(rules, s, 0, 1) == ["t-floater"]
    assert int(s.protected_turn[0, 1]) == 0 and int(s.cannot_attack_turn[0, 1]) == 0


@pytest.mark.parametrize(
    ("player1", "rule"),
    [
        ({"slots": [["sv2-151", "sve-8"], ["sv3-67"]]}, "retreat_cost"),
        ({"slots": [["t-floater"]]}, "empty_slot"),
        ({"slots": [["t-floater"], ["sv3-67"]], "conditions": {"rotated": "asleep"}}, "retreat_condition"),
        ({"slots": [["t-floater"], ["sv3-67"]], "conditions": {"rotated": "paralyzed"}}, "retreat_condition"),
    ],
)  # fmt: skip
def test_retreat_refusals(rules, errors, player1, rule):
    s = state_of(rules, player1, {"slots": [["sv3-152"]]})
    assert errors(s)[act(rules, "retreat", 0)] == rule


def test_confused_and_poisoned_pokemon_may_retreat(rules, errors):
    s = state_of(
        rules,
        {
            "slots": [["t-floater"], ["sv3-67"]],
            "conditions": {"rotated": "confused", "poisoned": True},
        },
        {"slots": [["sv3-152"]]},
    )
    assert errors(s)[act(rules, "retreat", 0)] == "ok"


# -------------------------------------------------------------------------------------------------
# Attacks: cost, damage, Weakness and Resistance, the special Energy modifier


def attack_state(rules, attacker, defender, *, turn=3, conditions=None, bench2=None):
    p2 = {"slots": [defender] + ([bench2] if bench2 else [])}
    p1 = {"slots": [attacker]}
    if conditions:
        p1["conditions"] = conditions
    return state_of(rules, p1, p2, turn=turn)


@pytest.mark.parametrize(
    ("attacker", "defender", "index", "damage"),
    [
        (["sv3-67", "sve-4"], ["sv3-152"], 0, 10),  # Tynamo: Static Shock 10
        (["sv3-67", "sve-4", "sve-8"], ["sv3-152"], 1, 30),  # Tiny Bolt [L, C]: C paid by Metal
        (["sv2-151", "swsh9-151", "swsh9-151"], ["sv4-68"], 0, 60),  # 100 - 20 - 20 (2 DTE)
        (["t-fighter", "t-e-fighting"], ["t-volt-v"], 0, 60),  # Weakness: 30 x 2
        (["t-fighter", "t-e-fighting", "swsh9-151"], ["t-volt-v"], 0, 20),  # (30 - 20) x 2
        (["t-sprout", "t-e-grass", "t-e-grass"], ["sv3-152"], 0, 20),  # Resistance: 50 - 30
        (["t-sprout", "t-e-grass", "swsh9-151"], ["sv3-152"], 0, 0),  # 50 - 20 - 30
        (["t-sprout", "t-e-grass", "sve-4"], ["t-volt-v"], 0, 50),  # no W/R of grass here
    ],
)
def test_attack_damage(rules, apply, errors, attacker, defender, index, damage):
    s = attack_state(rules, attacker, defender)
    assert errors(s)[act(rules, "attack", index)] == "ok"
    s, _ = step(apply, s, act(rules, "attack", index))
    assert int(s.damage[1, 0]) == damage
    # Attacking ends the turn: the opponent's turn 4 begins with their draw.
    assert int(s.board.turn_number) == 4 and int(s.board.active_player) == 1


@pytest.mark.parametrize(
    ("attacker", "index", "turn", "conditions", "rule"),
    [
        (["sv3-67", "sve-8"], 0, 3, None, "attack_cost"),  # [L] not paid by Metal
        (["sv3-67", "sve-4"], 1, 3, None, "attack_cost"),  # [L, C]: one unit short
        (["sv3-67", "sve-4"], 2, 3, None, "no_such_attack"),
        (["sv3-67", "sve-4"], 0, 1, None, "first_turn_attack"),
        (["sv3-67", "sve-4"], 0, 3, {"rotated": "asleep"}, "attack_condition"),
        (["sv3-67", "sve-4"], 0, 3, {"rotated": "paralyzed"}, "attack_condition"),
        (["t-volt-v", "swsh9-151"], 0, 3, None, "ok"),  # [C] paid by a Colorless unit
        (["t-floater"], 0, 3, None, "ok"),  # no cost
        (["sv3-67", "sve-4"], 0, 2, None, "ok"),  # the second player attacks on turn 2
    ],
)
def test_attack_legality(rules, errors, attacker, index, turn, conditions, rule):
    s = attack_state(rules, attacker, ["sv3-152"], turn=turn, conditions=conditions)
    assert errors(s)[act(rules, "attack", index)] == rule


def test_confused_attacker_flips_tails_does_nothing_and_takes_30(rules, apply):
    s = attack_state(
        rules, ["t-fighter", "t-e-fighting"], ["t-volt-v"], conditions={"rotated": "confused"}
    )
    outcomes = set()
    for key in KEYS:
        after, _ = step(apply, s, act(rules, "attack", 0), key)
        outcomes.add((int(after.damage[1, 0]), int(after.damage[0, 0])))
    # Heads: the attack as usual; tails: nothing to the defender, 3 counters on itself (R13).
    assert outcomes == {(60, 0), (0, 30)}


# -------------------------------------------------------------------------------------------------
# Knock Outs, Prize cards, promotion, wins


def test_knock_out_discards_the_pile_and_gives_prizes_then_promotion(rules, apply, errors):
    s = state_of(
        rules,
        {"slots": [["t-fighter", "t-e-fighting", "t-e-fighting"]], "prizes": ["sve-4"] * 6},
        {
            "slots": [["t-volt-v", "sve-4"], ["sv3-67"], ["sv3-152"]],
            "damage": {0: 150},
            "prizes": ["sve-8"] * 6,
        },
    )
    s, rewards = step(apply, s, act(rules, "attack", 0))  # 60 with Weakness: 210 >= 200
    assert rewards.tolist() == [0.0, 0.0]
    assert names(rules, s, "discard", 1) == ["t-volt-v", "sve-4"]
    assert names(rules, s, "prizes", 0) == ["sve-4"] * 4  # a Pokémon V gives 2
    assert names(rules, s, "hand", 0) == ["sve-4"] * 2
    assert int(s.damage[1, 0]) == 0
    assert R.PHASES[int(s.board.phase)] == "promote" and int(s.board.active_player) == 1
    err = errors(s)
    assert err[rules.actions.encode("select_slot", 1)] == "ok"
    assert err[rules.actions.encode("select_slot", 3)] == "empty_slot"
    assert err[rules.actions.encode("select_slot", 0)] == "not_own_bench"
    assert err[rules.actions.encode("select_slot", 7)] == "not_own_bench"
    assert err[act(rules, "end_turn")] == "wrong_phase"
    hand = len(names(rules, s, "hand", 1))
    s, _ = step(apply, s, rules.actions.encode("select_slot", 2))
    assert pile(rules, s, 1, 0) == ["sv3-152"] and pile(rules, s, 1, 2) == []
    # Then the Checkup, then the defender's turn with its draw.
    assert R.PHASES[int(s.board.phase)] == "main" and int(s.board.active_player) == 1
    assert int(s.board.turn_number) == 4 and len(names(rules, s, "hand", 1)) == hand + 1
    assert bool(s.ko_last_turn[1]) and not bool(s.ko_last_turn[0])


@pytest.mark.parametrize(("defender", "prizes"), [("sv4-68", 2), ("t-volt-vmax", 3), ("sv3-67", 1)])
def test_prizes_by_the_card(rules, apply, defender, prizes):
    pile2 = ["t-volt-v", "t-volt-vmax"] if defender == "t-volt-vmax" else [defender]
    s = state_of(
        rules,
        {"slots": [["t-fighter", "t-e-fighting"]], "prizes": ["sve-4"] * 6},
        {
            "slots": [pile2, ["sv3-152"]],
            "damage": {0: 310 if prizes == 3 else 200 if prizes == 2 else 30},
        },
    )
    s, _ = step(apply, s, act(rules, "attack", 0))
    assert len(names(rules, s, "prizes", 0)) == 6 - prizes


def test_taking_the_last_prize_wins(rules, apply):
    s = state_of(
        rules,
        {"slots": [["t-fighter", "t-e-fighting"]], "prizes": ["sve-4"]},
        {"slots": [["sv3-67"], ["sv3-152"]]},
    )
    s, rewards = step(apply, s, act(rules, "attack", 0))
    assert rewards.tolist() == [1.0, -1.0]
    assert int(s.winner) == 0 and R.END_REASONS[int(s.end_reason)] == "prizes"
    assert R.PHASES[int(s.board.phase)] == "game_over"


def test_no_pokemon_left_loses(rules, apply):
    s = state_of(rules, {"slots": [["t-fighter", "t-e-fighting"]]}, {"slots": [["sv3-67"]]})
    s, rewards = step(apply, s, act(rules, "attack", 0))
    assert rewards.tolist() == [1.0, -1.0]
    assert R.END_REASONS[int(s.end_reason)] == "no_pokemon"


def test_cannot_draw_at_turn_start_loses(rules, apply):
    s = state_of(rules, {"slots": [["sv3-67"]]}, {"slots": [["sv3-152"]]})
    deck2 = names(rules, s, "deck", 1)
    # Move player 2's whole deck to their discard: they cannot draw at the start of turn 4.
    board = s.board
    deck_zone, discard_zone = int(R.zone_of("deck", 1)), int(R.zone_of("discard", 1))
    from tcgjax.core import zones

    board = zones.move_all(rules.layout, board, deck_zone, discard_zone).board
    s = s.replace(board=board)
    assert len(deck2) > 0
    s, rewards = step(apply, s, act(rules, "end_turn"))
    assert rewards.tolist() == [1.0, -1.0]
    assert R.END_REASONS[int(s.end_reason)] == "deck_out"


# -------------------------------------------------------------------------------------------------
# Pokémon Checkup and the conditions


def test_checkup_poison_burn_sleep_and_paralysis(rules, apply):
    s = state_of(
        rules,
        {
            "slots": [["sv2-151"], ["sv3-67"]],
            "conditions": {"rotated": "paralyzed", "poisoned": True},
        },
        {"slots": [["sv3-152"]], "conditions": {"rotated": "asleep", "burned": True}},
    )
    seen_burn, seen_sleep = set(), set()
    for key in KEYS:
        after, _ = step(apply, s, act(rules, "end_turn"), key)
        assert int(after.damage[0, 0]) == 10  # poison: 1 counter
        assert int(after.damage[1, 0]) == 20  # burn: 2 counters
        assert int(after.rotated[0]) == 0  # paralysis ends after its owner's turn
        assert bool(after.poisoned[0])  # poison stays
        seen_burn.add(bool(after.burned[1]))
        seen_sleep.add(R.ROTATED[int(after.rotated[1])])
    assert seen_burn == {True, False}  # heads removes Burned
    assert seen_sleep == {"asleep", "none"}  # heads wakes


def test_paralysis_of_the_waiting_player_stays_for_their_turn(rules, apply):
    s = state_of(
        rules,
        {"slots": [["sv3-67"]]},
        {"slots": [["sv3-152"]], "conditions": {"rotated": "paralyzed"}},
    )
    s, _ = step(apply, s, act(rules, "end_turn"))
    assert R.ROTATED[int(s.rotated[1])] == "paralyzed"


def test_checkup_knock_out_then_promotion_then_next_turn(rules, apply):
    s = state_of(
        rules,
        {"slots": [["sv3-67"]], "prizes": ["sve-4"] * 3},
        {"slots": [["sv3-152"], ["sv3-144"]], "damage": {0: 60}, "conditions": {"poisoned": True}},
    )
    s, _ = step(apply, s, act(rules, "end_turn"))
    assert names(rules, s, "prizes", 0) == ["sve-4"] * 2
    assert R.PHASES[int(s.board.phase)] == "promote" and int(s.board.active_player) == 1
    assert not bool(s.poisoned[1])
    s, _ = step(apply, s, rules.actions.encode("select_slot", 1))
    assert R.PHASES[int(s.board.phase)] == "main" and int(s.board.turn_number) == 4
    assert int(s.board.active_player) == 1
    assert not bool(s.ko_last_turn[1])  # a Checkup Knock Out is not attack damage


def test_both_actives_knocked_out_the_next_player_promotes_first(rules, apply):
    poisoned = {"damage": {0: 60}, "conditions": {"poisoned": True}}
    s = state_of(
        rules,
        {"slots": [["sv3-152"], ["sv3-67"]], "prizes": ["sve-4"] * 3, **poisoned},
        {"slots": [["sv3-152"], ["sv3-144"]], "prizes": ["sve-8"] * 3, **poisoned},
    )
    s, _ = step(apply, s, act(rules, "end_turn"))  # player 1's turn ended: both fall to poison
    assert s.must_promote.tolist() == [True, True]
    assert R.PHASES[int(s.board.phase)] == "promote" and int(s.board.active_player) == 1
    s, _ = step(apply, s, rules.actions.encode("select_slot", 1))
    assert R.PHASES[int(s.board.phase)] == "promote" and int(s.board.active_player) == 0
    assert s.must_promote.tolist() == [True, False]
    s, _ = step(apply, s, rules.actions.encode("select_slot", 1))
    assert R.PHASES[int(s.board.phase)] == "main" and int(s.board.active_player) == 1
    assert names(rules, s, "prizes", 0) == ["sve-4"] * 2
    assert names(rules, s, "prizes", 1) == ["sve-8"] * 2


def test_simultaneous_wins_compare_counts(rules, apply):
    both = {"damage": {0: 60}, "conditions": {"poisoned": True}}
    # Both Actives fall to poison with no Bench: each meets "no Pokémon" and takes the last
    # Prize: equal counts, a draw.
    s = state_of(
        rules,
        {"slots": [["sv3-152"]], "prizes": ["sve-4"], **both},
        {"slots": [["sv3-152"]], "prizes": ["sve-8"], **both},
    )
    s, rewards = step(apply, s, act(rules, "end_turn"))
    assert int(s.winner) == R.DRAW and R.END_REASONS[int(s.end_reason)] == "simultaneous"
    assert rewards.tolist() == [0.0, 0.0]
    # With 2 Prize cards left, player 2 meets one condition to player 1's two: player 1 wins.
    s = state_of(
        rules,
        {"slots": [["sv3-152"]], "prizes": ["sve-4"], **both},
        {"slots": [["sv3-152"]], "prizes": ["sve-8"] * 2, **both},
    )
    s, rewards = step(apply, s, act(rules, "end_turn"))
    assert int(s.winner) == 0 and rewards.tolist() == [1.0, -1.0]


def test_turn_limit_is_a_draw(rules, apply):
    s = state_of(rules, {"slots": [["sv3-67"]]}, {"slots": [["sv3-152"]]}, turn=60, active=1)
    s, rewards = step(apply, s, act(rules, "end_turn"))
    assert R.END_REASONS[int(s.end_reason)] == "turn_limit" and int(s.winner) == R.DRAW
    assert rewards.tolist() == [0.0, 0.0]


# -------------------------------------------------------------------------------------------------
# jit and vmap


def test_apply_and_errors_batch_like_single_games(rules, apply):
    states = [
        basic_board(rules, hand1=["t-fighter"]),
        attack_state(rules, ["t-fighter", "t-e-fighting"], ["t-volt-v"]),
        state_of(rules, {"slots": [["t-floater"], ["sv3-67"]]}, {"slots": [["sv3-152"]]}),
    ]
    actions = jnp.asarray(
        [act(rules, "play", card="t-fighter"), act(rules, "attack", 0), act(rules, "retreat", 0)]
    )
    batch = jax.tree.map(lambda *xs: jnp.stack(xs), *states)
    keys = jnp.stack(KEYS[:3])
    vmapped, rewards = jax.jit(jax.vmap(rules.apply))(batch, actions, keys)
    masks = jax.jit(jax.vmap(rules.legal_action_mask))(batch)
    mask = jax.jit(rules.legal_action_mask)
    for i, s in enumerate(states):
        single, single_rewards = apply(s, actions[i], keys[i])
        for a, b in zip(jax.tree.leaves(single), jax.tree.leaves(vmapped), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b)[i])
        np.testing.assert_array_equal(np.asarray(masks[i]), np.asarray(mask(s)))
        np.testing.assert_array_equal(np.asarray(single_rewards), np.asarray(rewards[i]))
