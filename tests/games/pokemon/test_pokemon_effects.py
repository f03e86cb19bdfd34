"""Every effect of every shipped Pokémon card, from explicit situations (the effect interpreter,
``tcgjax/games/pokemon/effects.py``). Coin flips are checked over fixed keys to show both outcomes.
"""

from __future__ import annotations

import itertools

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


def run(apply, state, actions, key=KEY):
    """Apply the actions in order (one key each, folded from ``key``)."""
    for i, action in enumerate(actions):
        state, _ = apply(state, jnp.int32(action), jax.random.fold_in(key, i))
    return state


def phase(state):
    return R.PHASES[int(state.board.phase)]


def ok(errors, state, action):
    assert errors(state)[action] == "ok", errors(state)[action]


def card(rules, kind, card_id):
    return act(rules, kind, card=card_id)


def slot(rules, k):
    return rules.actions.encode("select_slot", k)


DONE = "done"


def assert_shuffled_without(rules, before, after_state, taken, looked=0):
    """The deck after a "then shuffle" effect holds the cards of ``before`` less ``taken``, and not
    in any order it could have without the shuffle: for a search of the whole deck, ``before`` less
    any instances of the taken cards; after looking at the top ``looked`` cards, the cards below
    them in their old order. A fixed key makes the check deterministic."""
    after = names(rules, after_state, "deck", 0)
    left = list(before)
    for card_id in taken:
        left.remove(card_id)
    assert sorted(after) == sorted(left)
    if looked:
        below = len(before) - looked
        assert after[:below] != before[:below]
        return
    unshuffled = {
        tuple(c for i, c in enumerate(before) if i not in drop)
        for drop in itertools.combinations(range(len(before)), len(taken))
        if sorted(before[i] for i in drop) == sorted(taken)
    }
    assert tuple(after) not in unshuffled


# -------------------------------------------------------------------------------------------------
# Supporters


@pytest.mark.parametrize("nemona", ["sv1-180", "sv4pt5-82"])
def test_nemona_draws_three_once_per_turn(rules, apply, errors, nemona):
    s = state_of(
        rules,
        {"hand": [nemona, "sv1-198"], "slots": [["sv3-67"]], "deck": ["sve-8", "sve-4", "sv3-68"]},
        {"slots": [["sv3-152"]]},
    )
    ok(errors, s, card(rules, "play", nemona))
    s = run(apply, s, [card(rules, "play", nemona)])
    assert names(rules, s, "hand", 0)[-3:] == ["sv3-68", "sve-4", "sve-8"]
    assert names(rules, s, "discard", 0) == [nemona] and phase(s) == "main"
    assert errors(s)[card(rules, "play", "sv1-198")] == "supporter_done"


def test_no_supporter_on_the_first_players_first_turn(rules, errors):
    s = state_of(rules, {"hand": ["sv1-180"], "slots": [["sv3-67"]]}, {"slots": [["sv3-152"]]},
                 turn=1)  # fmt: skip
    assert errors(s)[card(rules, "play", "sv1-180")] == "first_turn_supporter"
    s = state_of(rules, {"hand": ["sv1-180"], "slots": [["sv3-67"]]}, {"slots": [["sv3-152"]]},
                 turn=2, first_player=1)  # fmt: skip
    assert errors(s)[card(rules, "play", "sv1-180")] == "ok"  # the second player may


def test_youngster_shuffles_the_hand_in_and_draws_five(rules, apply):
    s = state_of(
        rules,
        {"hand": ["sv1-198", "sv3-68", "sve-4", "sve-4"], "slots": [["sv3-67"]]},
        {"slots": [["sv3-152"]]},
    )
    deck_before = len(names(rules, s, "deck", 0))
    s = run(apply, s, [card(rules, "play", "sv1-198")])
    assert len(names(rules, s, "hand", 0)) == 5
    assert len(names(rules, s, "deck", 0)) == deck_before + 3 - 5
    assert names(rules, s, "discard", 0) == ["sv1-198"]


def test_rika_takes_two_of_four_and_orders_the_rest_to_the_bottom(rules, apply, errors):
    top4 = ["sv3-152", "sve-8", "sv3-68", "sve-4"]  # the last is the top card
    s = state_of(rules, {"hand": ["sv4-172"], "slots": [["sv3-67"]], "deck": top4},
                 {"slots": [["sv3-152"]]})  # fmt: skip
    s = run(apply, s, [card(rules, "play", "sv4-172")])
    assert phase(s) == "select" and names(rules, s, "looking", 0) == top4[::-1]
    err = errors(s)
    assert err[rules.actions.encode("done")] == "must_choose"  # 2 of them, all valid
    assert err[card(rules, "select_card", "sv3-69")] == "not_a_choice"
    s = run(apply, s, [card(rules, "select_card", "sv3-68"), card(rules, "select_card", "sve-4")])
    assert sorted(names(rules, s, "hand", 0)) == ["sv3-68", "sve-4"]
    # The rest go to the bottom in the order picked: the first picked ends above the last.
    assert phase(s) == "select" and int(s.selection.stage) == 2
    s = run(apply, s, [card(rules, "select_card", "sv3-152")])
    assert phase(s) == "main"
    assert names(rules, s, "deck", 0)[:2] == ["sve-8", "sv3-152"]
    assert names(rules, s, "looking", 0) == [] and names(rules, s, "discard", 0) == ["sv4-172"]


def test_jacq_searches_up_to_two_evolutions_and_shuffles(rules, apply, errors):
    s = state_of(rules, {"hand": ["sv1-175"], "slots": [["sv3-67"]]}, {"slots": [["sv3-152"]]})
    deck = names(rules, s, "deck", 0)
    s = run(apply, s, [card(rules, "play", "sv1-175")])
    err = errors(s)
    assert err[card(rules, "select_card", "sv3-69")] == "ok"
    assert err[card(rules, "select_card", "sv3-67")] == "not_a_choice"  # a Basic
    assert err[rules.actions.encode("done")] == "ok"  # up to
    s = run(apply, s, [card(rules, "select_card", "sv3-69"), rules.actions.encode("done")])
    assert names(rules, s, "hand", 0) == ["sv3-69"] and phase(s) == "main"
    assert_shuffled_without(rules, deck, s, ["sv3-69"])


def test_roark_draws_two_then_takes_a_basic_energy_from_the_discard(rules, apply, errors):
    s = state_of(
        rules,
        {"hand": ["sv4-173"], "slots": [["sv3-67"]], "discard": ["sve-4", "swsh9-151"],
         "deck": ["sv3-68", "sv3-69"]},
        {"slots": [["sv3-152"]]},
    )  # fmt: skip
    s = run(apply, s, [card(rules, "play", "sv4-173")])
    assert names(rules, s, "hand", 0) == ["sv3-69", "sv3-68"]
    err = errors(s)
    assert err[card(rules, "select_card", "swsh9-151")] == "not_a_choice"  # special Energy
    assert err[rules.actions.encode("done")] == "must_choose"
    s = run(apply, s, [card(rules, "select_card", "sve-4")])
    assert names(rules, s, "hand", 0)[-1] == "sve-4" and phase(s) == "main"


# -------------------------------------------------------------------------------------------------
# Items


def test_great_ball_takes_up_to_one_pokemon_of_seven(rules, apply, errors):
    top = ["sve-4"] * 5 + ["sv3-68", "sve-4"]
    s = state_of(rules, {"hand": ["sv2-183"], "slots": [["sv3-67"]], "deck": top},
                 {"slots": [["sv3-152"]]})  # fmt: skip
    deck = names(rules, s, "deck", 0)
    s = run(apply, s, [card(rules, "play", "sv2-183")])
    assert len(names(rules, s, "looking", 0)) == 7
    err = errors(s)
    assert err[card(rules, "select_card", "sve-4")] == "not_a_choice"
    assert err[rules.actions.encode("done")] == "ok"
    s = run(apply, s, [card(rules, "select_card", "sv3-68")])
    assert names(rules, s, "hand", 0) == ["sv3-68"] and phase(s) == "main"
    assert names(rules, s, "looking", 0) == [] and "sv2-183" in names(rules, s, "discard", 0)
    assert_shuffled_without(rules, deck, s, ["sv3-68"], looked=7)


def test_nest_ball_benches_a_basic_and_needs_room(rules, apply, errors):
    s = state_of(rules, {"hand": ["sv1-181"], "slots": [["sv3-67"]]}, {"slots": [["sv3-152"]]})
    deck = names(rules, s, "deck", 0)
    s = run(apply, s, [card(rules, "play", "sv1-181"), card(rules, "select_card", "t-fighter")])
    assert pile(rules, s, 0, 1) == ["t-fighter"] and int(s.since_turn[0, 1]) == 3
    assert_shuffled_without(rules, deck, s, ["t-fighter"])
    bench = [["sv3-152"]] * 3 + [["sv2-151"]] * 2
    full = state_of(rules, {"hand": ["sv1-181"], "slots": [["sv3-67"], *bench]},
                    {"slots": [["sv3-152"]]})  # fmt: skip
    assert errors(full)[card(rules, "play", "sv1-181")] == "no_effect"


def test_electric_generator_attaches_lightning_to_benched_lightning(rules, apply, errors):
    top = ["sve-8", "sve-4", "sv3-68", "sve-4", "sve-8"]
    s = state_of(
        rules,
        {"hand": ["sv1-170"], "slots": [["sv3-67"], ["sv3-152"], ["t-volt-v"]], "deck": top},
        {"slots": [["sv3-152"]]},
    )
    deck = names(rules, s, "deck", 0)
    s = run(apply, s, [card(rules, "play", "sv1-170")])
    err = errors(s)
    assert err[card(rules, "select_card", "sve-8")] == "not_a_choice"  # Metal
    s = run(apply, s, [card(rules, "select_card", "sve-4")])
    err = errors(s)
    assert err[slot(rules, 2)] == "ok"  # the Benched Lightning Pokémon
    assert err[slot(rules, 1)] == "not_a_choice"  # Meltan is Metal
    assert err[slot(rules, 0)] == "not_a_choice"  # the Active
    s = run(apply, s, [slot(rules, 2), card(rules, "select_card", "sve-4"), slot(rules, 2)])
    assert pile(rules, s, 0, 2) == ["t-volt-v", "sve-4", "sve-4"] and phase(s) == "main"
    assert names(rules, s, "looking", 0) == []
    assert_shuffled_without(rules, deck, s, ["sve-4", "sve-4"], looked=5)
    no_target = state_of(rules, {"hand": ["sv1-170"], "slots": [["sv3-67"], ["sv3-152"]]},
                         {"slots": [["sv3-152"]]})  # fmt: skip
    assert errors(no_target)[card(rules, "play", "sv1-170")] == "no_effect"


def test_switch_swaps_and_clears_conditions(rules, apply, errors):
    s = state_of(
        rules,
        {"hand": ["sv1-194"], "slots": [["sv3-67"], None, ["sv3-152"]],
         "conditions": {"rotated": "paralyzed", "burned": True}},
        {"slots": [["sv3-152"]]},
    )  # fmt: skip
    s = run(apply, s, [card(rules, "play", "sv1-194")])
    assert errors(s)[slot(rules, 1)] == "not_a_choice" and errors(s)[slot(rules, 2)] == "ok"
    s = run(apply, s, [slot(rules, 2)])
    assert pile(rules, s, 0, 0) == ["sv3-152"] and pile(rules, s, 0, 2) == ["sv3-67"]
    assert int(s.rotated[0]) == 0 and not bool(s.burned[0])


def test_potion_heals_thirty_from_a_chosen_damaged_pokemon(rules, apply, errors):
    s = state_of(
        rules,
        {"hand": ["sv1-188"], "slots": [["sv3-67"], ["sv3-152"]], "damage": {1: 20}},
        {"slots": [["sv3-152"]]},
    )
    s = run(apply, s, [card(rules, "play", "sv1-188")])
    assert errors(s)[slot(rules, 0)] == "not_a_choice"  # undamaged
    s = run(apply, s, [slot(rules, 1)])
    assert int(s.damage[0, 1]) == 0


def test_energy_sticker_on_heads_attaches_a_basic_energy_from_the_discard(rules, apply):
    s = state_of(
        rules,
        {"hand": ["sv3pt5-159"], "slots": [["sv3-67"], ["sv3-152"]], "discard": ["sve-8"]},
        {"slots": [["sv3-152"]]},
    )
    outcomes = set()
    for key in KEYS:
        after = run(apply, s, [card(rules, "play", "sv3pt5-159")], key)
        if phase(after) == "select":  # heads
            after = run(apply, after, [card(rules, "select_card", "sve-8"), slot(rules, 1)])
            assert pile(rules, after, 0, 1) == ["sv3-152", "sve-8"]
            outcomes.add("heads")
        else:
            assert names(rules, after, "discard", 0) == ["sve-8", "sv3pt5-159"]
            outcomes.add("tails")
    assert outcomes == {"heads", "tails"}


# -------------------------------------------------------------------------------------------------
# Attacks


def attack(rules, apply, attacker, defender, index, *, key=KEY, p1=None, p2=None, then=()):
    p1 = dict(p1 or {})
    p2 = dict(p2 or {})
    p1.setdefault("slots", [attacker])
    p2.setdefault("slots", [defender, ["sv3-144"]])
    s = state_of(rules, p1, p2)
    return run(apply, s, [act(rules, "attack", index), *then], key)


def test_revavroom_knock_away_adds_90_on_heads(rules, apply):
    seen = set()
    for key in KEYS:
        s = attack(rules, apply, ["sv3-154", "sv1-142", "sve-8"] + ["sve-4"] * 3, ["sv4-68"], 0,
                   key=key)  # fmt: skip
        seen.add(int(s.damage[1, 0]))
    assert seen == {90, 180}


def test_tapu_koko_vengeful_shock_after_a_knock_out(rules, apply):
    attacker = ["sv4-68", "sve-4", "sve-4"]
    s = attack(rules, apply, attacker, ["sv3-145"], 0)
    assert int(s.damage[1, 0]) == 30 and int(s.rotated[1]) == 0
    s = state_of(rules, {"slots": [attacker]}, {"slots": [["sv3-145"], ["sv3-144"]]},
                 ko_last_turn=(True, False))  # fmt: skip
    s = run(apply, s, [act(rules, "attack", 0)])
    assert int(s.damage[1, 0]) == 120 and R.ROTATED[int(s.rotated[1])] == "paralyzed"


def test_extreme_current_discards_a_chosen_energy_after_its_damage(rules, apply, errors):
    s = state_of(
        rules,
        {"slots": [["sv4-68", "sve-4", "sve-4", "swsh9-151"]]},
        {"slots": [["svp-104"], ["sv3-144"]]},
    )
    s = run(apply, s, [act(rules, "attack", 1)])
    assert int(s.damage[1, 0]) == 160  # 180 - 20 (the DTE was still attached)
    assert phase(s) == "select" and int(s.board.active_player) == 0
    assert errors(s)[rules.actions.encode("done")] == "must_choose"
    s = run(apply, s, [card(rules, "select_card", "swsh9-151")])
    assert pile(rules, s, 0, 0) == ["sv4-68", "sve-4", "sve-4"]
    assert names(rules, s, "discard", 0) == ["swsh9-151"]
    assert phase(s) == "main" and int(s.board.active_player) == 1  # the turn ended


def test_bronzor_mirror_draw_draws_to_the_opponents_hand_size(rules, apply):
    s = attack(
        rules, apply, ["sv3-144", "sve-8"], ["sv3-67"], 0,
        p1={"hand": ["sve-4"], "slots": [["sv3-144", "sve-8"]]},
        p2={"hand": ["sve-8"] * 4, "slots": [["sv3-67"], ["sv3-144"]]},
    )  # fmt: skip
    # 1 card + 3 drawn = the opponent's 4; then the opponent draws for their turn.
    assert len(names(rules, s, "hand", 0)) == 4


def test_bronzong_oracle_press_protects_from_attack_effects(rules, apply, errors):
    s = attack(rules, apply, ["sv3-144", "sv3-145", "sve-8"], ["sv3-68"], 0)
    assert int(s.damage[1, 0]) == 20 and int(s.protected_turn[0, 0]) == 4
    # The opponent's turn: Eelektrik's Volt Wave never paralyzes it, whatever the coin.
    s = s.replace(board=s.board.replace(phase=jnp.int8(R.PHASE["main"])))
    states = []
    for key in KEYS:
        hit = run(apply, attach_energy(rules, s, 1, "sve-4"), [act(rules, "attack", 0)], key)
        states.append(hit)
        assert int(hit.rotated[0]) == 0
        assert int(hit.damage[0, 0]) == 20  # damage is not an effect


def attach_energy(rules, state, player, card_id):
    """Move a card of ``card_id`` from the player's deck onto their Active (a test shortcut)."""
    from tcgjax.core import zones

    board = state.board
    c = int(rules.card_of(board, R.zone_of("deck", player), rules.cards.index(card_id)))
    board = zones.move_card(rules.layout, board, c, R.slot_zone(player, 0)).board
    return state.replace(board=board)


def test_bronzong_extrasensory_when_hands_are_equal(rules, apply):
    attacker = ["sv3-144", "sv3-145", "sve-8", "sve-8"]
    s = attack(rules, apply, attacker, ["sv4-68"], 1, p1={"hand": ["sve-4"], "slots": [attacker]},
               p2={"hand": ["sve-8"], "slots": [["sv4-68"], ["sv3-144"]]})  # fmt: skip
    assert int(s.damage[1, 0]) == 160
    s = attack(rules, apply, attacker, ["sv4-68"], 1, p1={"hand": [], "slots": [attacker]},
               p2={"hand": ["sve-8"], "slots": [["sv4-68"], ["sv3-144"]]})  # fmt: skip
    assert int(s.damage[1, 0]) == 70


def test_varoom_spinning_draw(rules, apply):
    s = attack(rules, apply, ["sv3-154", "sve-8"], ["sv3-67"], 0,
               p1={"deck": ["sv1-180"], "slots": [["sv3-154", "sve-8"]]})  # fmt: skip
    assert names(rules, s, "hand", 0) == ["sv1-180"] and int(s.damage[1, 0]) == 10


@pytest.mark.parametrize(
    ("attacker", "index", "damage"),
    [
        (["sv3-67", "sv3-68", "sve-4"], 0, 20),  # Eelektrik Volt Wave
        (["sv2-78", "sv6-74", "sve-4", "sve-4"], 0, 50),  # Bellibolt Thunder Shock
        (["sv5-57", "sve-4"], 0, 20),  # Zeraora Shocking Knuckle
    ],
)
def test_paralysis_on_heads(rules, apply, attacker, index, damage):
    seen = set()
    for key in KEYS:
        s = attack(rules, apply, attacker, ["sv4-68"], index, key=key)
        assert int(s.damage[1, 0]) == damage
        seen.add(R.ROTATED[int(s.rotated[1])])
    assert seen == {"none", "paralyzed"}


def test_eelektross_suction_shock_gusts_then_damages_the_new_active(rules, apply, errors):
    attacker = ["sv3-67", "sv3-68", "sv3-69", "sve-4"]
    s = state_of(rules, {"slots": [attacker]},
                 {"slots": [["sv3-152"], ["t-volt-v"], ["sv3-144"]]})  # fmt: skip
    s = run(apply, s, [act(rules, "attack", 0)])
    assert phase(s) == "select"
    assert errors(s)[slot(rules, 7)] == "ok" and errors(s)[slot(rules, 1)] == "not_a_choice"
    seen = set()
    for key in KEYS:
        after = run(apply, s, [slot(rules, 7)], key)
        assert pile(rules, after, 1, 0) == ["t-volt-v"] and pile(rules, after, 1, 1) == ["sv3-152"]
        assert int(after.damage[1, 0]) == 60  # lightning against a Lightning: no Weakness
        seen.add(R.ROTATED[int(after.rotated[1])])
    assert seen == {"none", "paralyzed"}


def test_eelektross_without_an_opponent_bench_does_no_damage(rules, apply):
    # Nothing is switched, so nothing follows: no 60 damage, and no paralysis whatever the coin
    # (its heads and tails, pinned key by key, in test_pokemon_effect_rows.py).
    s = state_of(rules, {"slots": [["sv3-67", "sv3-68", "sv3-69", "sve-4"]]},
                 {"slots": [["sv3-152"]]})  # fmt: skip
    for key in KEYS:
        after = run(apply, s, [act(rules, "attack", 0)], key)
        assert int(after.damage[1, 0]) == 0 and phase(after) == "main"
        assert R.ROTATED[int(after.rotated[1])] == "none"


def test_zacian_iron_roar_attaches_metal_from_the_discard_to_the_bench(rules, apply, errors):
    s = state_of(
        rules,
        {"slots": [["sv4-136", "sve-8"], ["sv3-152"]], "discard": ["sve-4", "sve-8"]},
        {"slots": [["sv4-68"], ["sv3-144"]]},
    )
    s = run(apply, s, [act(rules, "attack", 0)])
    assert int(s.damage[1, 0]) == 30 and phase(s) == "select"
    assert errors(s)[card(rules, "select_card", "sve-4")] == "not_a_choice"
    s = run(apply, s, [card(rules, "select_card", "sve-8"), slot(rules, 1)])
    assert pile(rules, s, 0, 1) == ["sv3-152", "sve-8"] and phase(s) == "main"


def test_zacian_brave_blade_cannot_attack_next_turn_unless_benched(rules, apply, errors):
    attacker = ["sv4-136", "sve-8", "sve-8", "sve-8"]
    s = state_of(rules, {"slots": [attacker, ["t-floater"]]}, {"slots": [["svp-104"], ["sv3-144"]]})
    s = run(apply, s, [act(rules, "attack", 1), rules.actions.encode("end_turn")])
    assert int(s.board.turn_number) == 5 and int(s.board.active_player) == 0
    assert errors(s)[act(rules, "attack", 1)] == "cannot_attack"
    # To the Bench and back: the effect is gone.
    pay = card(rules, "select_card", "sve-8")
    s = run(apply, s, [act(rules, "retreat", 0), pay, pay])  # retreat cost 2
    assert pile(rules, s, 0, 1)[0] == "sv4-136" and int(s.cannot_attack_turn[0, 1]) == 0
    s = s.replace(retreated=jnp.bool_(False))  # (a second retreat in one turn, for the test)
    s = run(apply, s, [act(rules, "retreat", 0)])
    assert pile(rules, s, 0, 0)[0] == "sv4-136"
    assert errors(s)[act(rules, "attack", 0)] == "ok"


def test_plusle_ten_more_per_damage_counter(rules, apply):
    s = attack(rules, apply, ["sv4-60", "sve-4", "sve-4"], ["sv4-68"], 0,
               p2={"slots": [["sv4-68"], ["sv3-144"]], "damage": {0: 50}})  # fmt: skip
    assert int(s.damage[1, 0]) == 50 + 10 + 50


def test_zeraora_strong_volt_discards_an_energy(rules, apply):
    s = attack(rules, apply, ["sv5-57", "sve-4", "sve-4", "sve-8"], ["sv4-68"], 1)
    assert int(s.damage[1, 0]) == 120 and phase(s) == "select"
    s = run(apply, s, [card(rules, "select_card", "sve-8")])
    assert pile(rules, s, 0, 0) == ["sv5-57", "sve-4", "sve-4"]


def test_yamper_whimsy_tackle_does_nothing_on_tails(rules, apply):
    seen = set()
    for key in KEYS:
        s = attack(rules, apply, ["sv5-58", "sve-4"], ["sv4-68"], 0, key=key)
        seen.add(int(s.damage[1, 0]))
    assert seen == {0, 20}


def test_boltund_attaches_up_to_two_lightning_from_the_deck_to_the_bench(rules, apply, errors):
    s = state_of(
        rules,
        {"slots": [["sv5-58", "sv5-59", "sve-8"], ["sv3-67"], ["sv3-152"]]},
        {"slots": [["sv4-68"], ["sv3-144"]]},
    )
    deck = names(rules, s, "deck", 0)
    s = run(apply, s, [act(rules, "attack", 0)])
    assert int(s.damage[1, 0]) == 50 and phase(s) == "select"
    assert errors(s)[card(rules, "select_card", "sve-8")] == "not_a_choice"
    s = run(apply, s, [card(rules, "select_card", "sve-4"), slot(rules, 2)])
    s = run(apply, s, [card(rules, "select_card", "sve-4"), slot(rules, 1)])
    assert pile(rules, s, 0, 1) == ["sv3-67", "sve-4"]
    assert pile(rules, s, 0, 2) == ["sv3-152", "sve-4"]
    assert phase(s) == "main" and int(s.board.active_player) == 1
    assert_shuffled_without(rules, deck, s, ["sve-4", "sve-4"])


def test_melmetal_metal_bolize_and_full_metal_knuckle(rules, apply, errors):
    s = state_of(rules, {"slots": [["sv3-152", "svp-104", "sve-8"]]},
                 {"slots": [["sv4-68"], ["sv3-144"]]})  # fmt: skip
    deck = names(rules, s, "deck", 0)
    s = run(apply, s, [act(rules, "attack", 0)])
    assert phase(s) == "select"
    s = run(apply, s, [card(rules, "select_card", "sve-8"), rules.actions.encode("done")])
    assert pile(rules, s, 0, 0) == ["sv3-152", "svp-104", "sve-8", "sve-8"]
    assert int(s.damage[1, 0]) == 0
    assert_shuffled_without(rules, deck, s, ["sve-8"])  # "then shuffle your deck"
    # 90 + 30 per Metal unit (3 basic Metal; the DTE gives Colorless) - 20 for the DTE.
    knuckle = ["sv3-152", "svp-104", "sve-8", "sve-8", "sve-8", "swsh9-151"]
    s = attack(rules, apply, knuckle, ["sv4-68"], 1)
    assert int(s.damage[1, 0]) == 90 + 90 - 20


def test_orthworm_shoot_through_and_its_hp_bonus(rules, apply, errors):
    attacker = ["sv2-151", "swsh9-151", "sve-8", "sve-8"]
    s = state_of(rules, {"slots": [attacker]},
                 {"slots": [["t-fighter"], ["t-volt-v"], ["sv3-144"]]})  # fmt: skip
    s = run(apply, s, [act(rules, "attack", 0)])
    assert int(s.damage[1, 0]) == 80  # 100 - 20
    assert errors(s)[slot(rules, 7)] == "ok" and errors(s)[slot(rules, 6)] == "not_a_choice"
    s = run(apply, s, [slot(rules, 7)])
    assert int(s.damage[1, 1]) == 10  # 30 - 20, never Weakness on the Bench
    # Nutritional Iron: +100 HP with 3 Metal Energy attached.
    three = state_of(rules, {"slots": [["sv2-151", "sve-8", "sve-8", "sve-8"]], "damage": {0: 150}},
                     {"slots": [["sv3-152"]]})  # fmt: skip
    assert int(rules.slot_view(three)["hp"][0, 0]) == 230
    rules.validate(three)
    two = state_of(rules, {"slots": [["sv2-151", "sve-8", "sve-8"]]}, {"slots": [["sv3-152"]]})
    assert int(rules.slot_view(two)["hp"][0, 0]) == 130


# -------------------------------------------------------------------------------------------------
# Revavroom's Ability


def test_rumbling_engine_discards_an_energy_to_draw_up_to_six(rules, apply, errors):
    s = state_of(
        rules,
        {"hand": ["sve-8", "sv1-180"], "slots": [["sv3-67"], ["sv3-154", "sv1-142"]]},
        {"slots": [["sv3-152"]]},
    )
    err = errors(s)
    assert err[rules.actions.encode("ability", 1)] == "ok"
    assert err[rules.actions.encode("ability", 0)] == "no_ability"
    s = run(apply, s, [rules.actions.encode("ability", 1)])
    assert phase(s) == "select"
    assert errors(s)[card(rules, "select_card", "sv1-180")] == "not_a_choice"
    s = run(apply, s, [card(rules, "select_card", "sve-8")])
    assert len(names(rules, s, "hand", 0)) == 6 and phase(s) == "main"
    assert errors(s)[rules.actions.encode("ability", 1)] == "ability_used"
    no_energy = state_of(rules, {"hand": ["sv1-180"], "slots": [["sv3-154", "sv1-142"]]},
                         {"slots": [["sv3-152"]]})  # fmt: skip
    assert errors(no_energy)[rules.actions.encode("ability", 0)] == "ability_cost"


def test_every_shipped_card_with_effects_is_named_in_these_tests():
    """Guard: a card with effect rows added to the shipped file needs its test here (or, for the
    Chien-Pao ex deck's cards, in ``test_pokemon_chien_pao.py``, the League Battle Decks' shared
    Trainers, in ``test_pokemon_staples.py``, the Stadiums, in ``test_pokemon_stadiums.py``, and
    the League decks' other cards, in ``test_pokemon_league_cards.py``, which name them by
    constant)."""
    import pathlib
    import re

    from tcgjax.games.pokemon.cards import load_cards

    here = pathlib.Path(__file__).parent
    source = "".join(
        (here / name).read_text(encoding="utf-8")
        for name in (
            "test_pokemon_effects.py",
            "test_pokemon_chien_pao.py",
            "test_pokemon_staples.py",
            "test_pokemon_stadiums.py",
            "test_pokemon_league_cards.py",
            "test_pokemon_gardevoir.py",
        )
    )
    cards = load_cards()
    with_rows = [c for c in cards.ids[1:] if cards.definition(c)["effects"]]
    missing = [c for c in with_rows if not re.search(rf'"{re.escape(c)}"', source)]
    assert not missing, missing
    assert np.asarray(cards.numpy["effects.num_rows"]).sum() > 0
