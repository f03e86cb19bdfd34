"""Every effect of the Chien-Pao ex Battle Deck's cards, from explicit situations (both seats hold
the shipped deck, ``cp_rules``): the Ability used only from the Active Spot, the Ability used as
often as the player likes, "discard any amount for damage", several coins, healing the attacker,
"up to" from the discard pile, Supporters as a card filter, the discard pile into the deck."""

from __future__ import annotations

import jax
from pokemon_testlib import act, legal, names, phase, pile, run, state_of
from pokemon_testlib import done_action as done
from pokemon_testlib import slot_action as slot

KEY = jax.random.PRNGKey(0)
KEYS = [jax.random.PRNGKey(k) for k in range(24)]

CHIEN_PAO, BAXCALIBUR, ARCTIBAX, FRIGIBAX = "svp-30", "sv2-60", "sv2-59", "sv2-58"
FLOATZEL, BUIZEL, AZUMARILL, MARILL = "sv1-47", "sv1-46", "sv2-45", "sv2-44"
DELIBIRD, BRUXISH, WATER = "sv2-46", "sv1-51", "sve-3"
NEMONA, YOUNGSTER, JACQ, GREAT_BALL = "sv1-180", "sv1-198", "sv1-175", "sv2-183"
ENERGY_RETRIEVAL, NEST_BALL, POKEGEAR, SWITCH, PAL_PAD = (
    "sv1-171", "sv1-181", "sv1-186", "sv1-194", "sv1-182",
)  # fmt: skip


def card(rules, kind, card_id):
    return act(rules, kind, card=card_id)


def ability(rules, k):
    return rules.actions.encode("ability", k)


# -------------------------------------------------------------------------------------------------
# Chien-Pao ex


def test_shivery_chill_takes_up_to_two_water_only_from_the_active_spot(
    cp_rules, cp_apply, cp_errors
):
    rules = cp_rules
    s = state_of(
        rules,
        {"slots": [[CHIEN_PAO], [BUIZEL]], "hand": [], "deck": [WATER, NEMONA, WATER, WATER]},
        {"slots": [[DELIBIRD]]},
    )
    assert cp_errors(s)[ability(rules, 0)] == "ok"
    water_in_deck = names(rules, s, "deck", 0).count(WATER)
    s = run(cp_apply, s, [ability(rules, 0)])
    assert phase(s) == "select"
    err = cp_errors(s)
    assert err[card(rules, "select_card", WATER)] == "ok"
    assert err[card(rules, "select_card", NEMONA)] == "not_a_choice"  # Basic Water Energy only
    assert err[done(rules)] == "ok"  # a hidden search may find fewer
    s = run(cp_apply, s, [card(rules, "select_card", WATER), card(rules, "select_card", WATER)])
    assert phase(s) == "main" and names(rules, s, "hand", 0) == [WATER, WATER]
    assert names(rules, s, "deck", 0).count(WATER) == water_in_deck - 2
    # Once a turn: the same Pokémon can't use it again this turn.
    assert cp_errors(s)[ability(rules, 0)] == "ability_used"


def test_shivery_chill_is_refused_on_the_bench(cp_rules, cp_errors):
    s = state_of(cp_rules, {"slots": [[BUIZEL], [CHIEN_PAO]]}, {"slots": [[DELIBIRD]]})
    err = cp_errors(s)
    assert err[ability(cp_rules, 1)] == "ability_not_active"
    assert err[ability(cp_rules, 0)] == "no_ability"


def test_shivery_chill_may_stop_after_one(cp_rules, cp_apply):
    s = state_of(cp_rules, {"slots": [[CHIEN_PAO]], "hand": []}, {"slots": [[DELIBIRD]]})
    s = run(
        cp_apply, s, [ability(cp_rules, 0), card(cp_rules, "select_card", WATER), done(cp_rules)]
    )
    assert phase(s) == "main" and names(cp_rules, s, "hand", 0) == [WATER]


def hail_blade_state(rules):
    return state_of(
        rules,
        {"slots": [[CHIEN_PAO, WATER, WATER], [FRIGIBAX, WATER], [BUIZEL]], "hand": []},
        {"slots": [[CHIEN_PAO], [DELIBIRD]]},
    )


def test_hail_blade_discards_water_from_any_of_your_pokemon_for_60_each(
    cp_rules, cp_apply, cp_errors
):
    rules = cp_rules
    s = run(cp_apply, hail_blade_state(rules), [act(rules, "attack", 0)])
    assert phase(s) == "select"
    rules.validate(s)  # waiting on the choice before its damage is dealt
    err = cp_errors(s)
    # First a Pokémon with Water Energy (not the bare Buizel, not the opponent's), or stop.
    assert [a for a in legal(cp_errors, s)] == [slot(rules, 0), slot(rules, 1), done(rules)]
    assert err[slot(rules, 2)] == "not_a_choice"
    s = run(cp_apply, s, [slot(rules, 1)])
    # Then one of the Energy on that Pokémon, which must be chosen.
    assert legal(cp_errors, s) == [card(rules, "select_card", WATER)]
    s = run(cp_apply, s, [card(rules, "select_card", WATER), slot(rules, 0),
                          card(rules, "select_card", WATER)])  # fmt: skip
    assert int(s.bonus_damage) == 120 and phase(s) == "select"
    rules.validate(s)
    assert legal(cp_errors, s) == [slot(rules, 0), done(rules)]  # the Frigibax has none left
    s = run(cp_apply, s, [slot(rules, 0), card(rules, "select_card", WATER)])
    # No Water Energy left on any Pokémon: the choice ends, the attack deals 3 x 60.
    assert int(s.damage[1, 0]) == 180  # (Water against Water: no Weakness)
    assert pile(rules, s, 0, 0) == [CHIEN_PAO] and pile(rules, s, 0, 1) == [FRIGIBAX]
    assert names(rules, s, "discard", 0) == [WATER] * 3
    assert int(s.board.active_player) == 1  # the attack ended the turn


def test_hail_blade_discarding_nothing_does_nothing(cp_rules, cp_apply):
    s = run(cp_apply, hail_blade_state(cp_rules), [act(cp_rules, "attack", 0), done(cp_rules)])
    assert int(s.damage[1, 0]) == 0 and pile(cp_rules, s, 0, 0) == [CHIEN_PAO, WATER, WATER]


def test_hail_blade_may_stop_after_some(cp_rules, cp_apply):
    w = card(cp_rules, "select_card", WATER)
    actions = [act(cp_rules, "attack", 0), slot(cp_rules, 0), w, done(cp_rules)]
    s = run(cp_apply, hail_blade_state(cp_rules), actions)
    assert int(s.damage[1, 0]) == 60 and int(s.board.active_player) == 1
    assert pile(cp_rules, s, 0, 0) == [CHIEN_PAO, WATER] and pile(cp_rules, s, 0, 1) == [
        FRIGIBAX,
        WATER,
    ]


# -------------------------------------------------------------------------------------------------
# Baxcalibur


def test_super_cold_attaches_water_from_the_hand_as_often_as_you_like(
    cp_rules, cp_apply, cp_errors
):
    rules = cp_rules
    s = state_of(
        rules,
        {"slots": [[BUIZEL], [FRIGIBAX, ARCTIBAX, BAXCALIBUR]], "hand": [WATER, WATER, NEMONA]},
        {"slots": [[DELIBIRD]]},
    )
    assert cp_errors(s)[ability(rules, 1)] == "ok"  # from the Bench too
    s = run(cp_apply, s, [ability(rules, 1)])
    assert legal(cp_errors, s) == [card(rules, "select_card", WATER)]  # not the Supporter
    s = run(cp_apply, s, [card(rules, "select_card", WATER)])
    assert legal(cp_errors, s) == [slot(rules, 0), slot(rules, 1)]  # any of your Pokémon
    s = run(cp_apply, s, [slot(rules, 0)])
    assert phase(s) == "main" and pile(rules, s, 0, 0) == [BUIZEL, WATER]
    assert cp_errors(s)[ability(rules, 1)] == "ok"  # again, the same turn
    s = run(cp_apply, s, [ability(rules, 1), card(rules, "select_card", WATER), slot(rules, 1)])
    assert pile(rules, s, 0, 1) == [FRIGIBAX, ARCTIBAX, BAXCALIBUR, WATER]
    assert not bool(s.energy_attached)  # the turn's own attachment is still there
    assert cp_errors(s)[ability(rules, 1)] == "ability_cost"  # no Water left in the hand


# -------------------------------------------------------------------------------------------------
# Attacks


def test_floatzel_hydro_pump_adds_20_per_water_on_itself(cp_rules, cp_apply):
    s = state_of(cp_rules, {"slots": [[BUIZEL, FLOATZEL, WATER, WATER, WATER]]},
                 {"slots": [[CHIEN_PAO], [DELIBIRD]]})  # fmt: skip
    s = run(cp_apply, s, [act(cp_rules, "attack", 0)])
    assert int(s.damage[1, 0]) == 50 + 3 * 20


def test_bubble_drain_heals_the_attacker_without_a_choice(cp_rules, cp_apply):
    for line, amount, heal, left in (([MARILL], 20, 20, 10), ([MARILL, AZUMARILL], 50, 30, 20)):
        s = state_of(cp_rules, {"slots": [line + [WATER, WATER]], "damage": {0: 30 if heal == 20 else 50}},
                     {"slots": [[CHIEN_PAO], [DELIBIRD]]})  # fmt: skip
        s = run(cp_apply, s, [act(cp_rules, "attack", 0)])
        assert int(s.board.active_player) == 1  # no choice: the turn ended
        assert int(s.damage[1, 0]) == amount and int(s.damage[0, 0]) == left


def test_bubble_drain_heals_no_more_than_the_damage(cp_rules, cp_apply):
    s = state_of(cp_rules, {"slots": [[MARILL, WATER, WATER]], "damage": {0: 10}},
                 {"slots": [[CHIEN_PAO], [DELIBIRD]]})  # fmt: skip
    s = run(cp_apply, s, [act(cp_rules, "attack", 0)])
    assert int(s.damage[0, 0]) == 0


def test_azumarill_slam_flips_two_coins_for_100_each_heads(cp_rules, cp_apply):
    seen = set()
    for key in KEYS:
        s = state_of(cp_rules, {"slots": [[MARILL, AZUMARILL, WATER, WATER, WATER]]},
                     {"slots": [[CHIEN_PAO], [DELIBIRD]]})  # fmt: skip
        s = run(cp_apply, s, [act(cp_rules, "attack", 1)], key)
        seen.add(int(s.damage[1, 0]))
    assert seen == {0, 100, 200}


def test_delibird_double_draw_draws_two(cp_rules, cp_apply):
    s = state_of(cp_rules, {"slots": [[DELIBIRD, WATER]], "hand": [], "deck": [NEMONA, SWITCH]},
                 {"slots": [[CHIEN_PAO], [BUIZEL]]})  # fmt: skip
    s = run(cp_apply, s, [act(cp_rules, "attack", 0)])
    assert names(cp_rules, s, "hand", 0) == [SWITCH, NEMONA] and int(s.damage[1, 0]) == 0


def test_bruxish_vivid_charge_takes_up_to_three_basic_energy(cp_rules, cp_apply, cp_errors):
    s = state_of(cp_rules, {"slots": [[BRUXISH, WATER]], "hand": []},
                 {"slots": [[CHIEN_PAO], [BUIZEL]]})  # fmt: skip
    s = run(cp_apply, s, [act(cp_rules, "attack", 0)])
    assert cp_errors(s)[card(cp_rules, "select_card", NEMONA)] == "not_a_choice"
    w = card(cp_rules, "select_card", WATER)
    s = run(cp_apply, s, [w, w])
    assert cp_errors(s)[done(cp_rules)] == "ok"
    s = run(cp_apply, s, [done(cp_rules)])
    assert names(cp_rules, s, "hand", 0) == [WATER, WATER] and int(s.board.active_player) == 1


def test_the_evolution_lines(cp_rules, cp_errors):
    s = state_of(cp_rules, {"slots": [[FRIGIBAX], [FRIGIBAX, ARCTIBAX], [BUIZEL], [MARILL]],
                            "hand": [ARCTIBAX, BAXCALIBUR, FLOATZEL, AZUMARILL]},
                 {"slots": [[DELIBIRD]]})  # fmt: skip
    err = cp_errors(s)
    evolve = lambda d, k: err[act(cp_rules, "evolve", k, card=d)]  # noqa: E731
    assert [
        evolve(ARCTIBAX, 0),
        evolve(BAXCALIBUR, 1),
        evolve(FLOATZEL, 2),
        evolve(AZUMARILL, 3),
    ] == ["ok"] * 4
    assert evolve(BAXCALIBUR, 0) == "wrong_evolution" and evolve(FLOATZEL, 3) == "wrong_evolution"


# -------------------------------------------------------------------------------------------------
# Trainers


def test_energy_retrieval_takes_up_to_two_basic_energy_from_the_discard_pile(
    cp_rules, cp_apply, cp_errors
):
    rules = cp_rules
    base = {
        "slots": [[BUIZEL]],
        "hand": [ENERGY_RETRIEVAL],
        "discard": [WATER, NEMONA, WATER, WATER],
    }
    s = state_of(rules, base, {"slots": [[DELIBIRD]]})
    s = run(cp_apply, s, [card(rules, "play", ENERGY_RETRIEVAL)])
    err = cp_errors(s)
    assert err[card(rules, "select_card", NEMONA)] == "not_a_choice"
    assert err[done(rules)] == "ok"  # "up to": even from the public discard pile
    s = run(cp_apply, s, [card(rules, "select_card", WATER), done(rules)])
    assert names(rules, s, "hand", 0) == [WATER]
    assert sorted(names(rules, s, "discard", 0)) == sorted([WATER, WATER, NEMONA, ENERGY_RETRIEVAL])
    s = run(cp_apply, state_of(rules, base, {"slots": [[DELIBIRD]]}),
            [card(rules, "play", ENERGY_RETRIEVAL)] + [card(rules, "select_card", WATER)] * 2)  # fmt: skip
    assert phase(s) == "main" and names(rules, s, "hand", 0) == [WATER, WATER]
    nothing = state_of(rules, {"slots": [[BUIZEL]], "hand": [ENERGY_RETRIEVAL], "discard": [NEMONA]},
                       {"slots": [[DELIBIRD]]})  # fmt: skip
    assert cp_errors(nothing)[card(rules, "play", ENERGY_RETRIEVAL)] == "no_effect"


def test_pokegear_takes_a_supporter_from_the_top_seven(cp_rules, cp_apply, cp_errors):
    rules = cp_rules
    top7 = [JACQ, WATER, BUIZEL, WATER, NEMONA, WATER, SWITCH]  # the last is the top card
    below = [GREAT_BALL, MARILL]
    s = state_of(rules, {"slots": [[BUIZEL]], "hand": [POKEGEAR], "deck": below + top7},
                 {"slots": [[DELIBIRD]]})  # fmt: skip
    s = run(cp_apply, s, [card(rules, "play", POKEGEAR)])
    err = cp_errors(s)
    assert [err[card(rules, "select_card", c)] for c in (NEMONA, JACQ)] == ["ok", "ok"]
    assert [err[card(rules, "select_card", c)] for c in (SWITCH, WATER, BUIZEL)] == [
        "not_a_choice"
    ] * 3
    assert err[done(rules)] == "ok"
    s = run(cp_apply, s, [card(rules, "select_card", NEMONA)])
    assert phase(s) == "main" and names(rules, s, "hand", 0) == [NEMONA]
    assert names(rules, s, "looking", 0) == [] and len(names(rules, s, "deck", 0)) == 60 - 2 - 6 - 1


def test_pal_pad_shuffles_up_to_two_supporters_from_the_discard_pile_into_the_deck(
    cp_rules, cp_apply, cp_errors
):
    rules = cp_rules
    s = state_of(rules, {"slots": [[BUIZEL]], "hand": [PAL_PAD], "discard": [NEMONA, WATER, JACQ, YOUNGSTER]},
                 {"slots": [[DELIBIRD]]})  # fmt: skip
    deck_before = names(rules, s, "deck", 0)
    s = run(cp_apply, s, [card(rules, "play", PAL_PAD)])
    err = cp_errors(s)
    assert err[card(rules, "select_card", WATER)] == "not_a_choice"
    assert [err[card(rules, "select_card", c)] for c in (NEMONA, JACQ, YOUNGSTER)] == ["ok"] * 3
    assert err[done(rules)] == "ok"
    s = run(cp_apply, s, [card(rules, "select_card", JACQ), card(rules, "select_card", NEMONA)])
    assert phase(s) == "main"
    assert sorted(names(rules, s, "discard", 0)) == sorted([WATER, YOUNGSTER, PAL_PAD])
    deck = names(rules, s, "deck", 0)
    assert sorted(deck) == sorted(deck_before + [JACQ, NEMONA])
    assert deck[: len(deck_before)] != deck_before  # shuffled, not put on top
    one = run(cp_apply, state_of(rules, {"slots": [[BUIZEL]], "hand": [PAL_PAD], "discard": [NEMONA, JACQ]},
                                 {"slots": [[DELIBIRD]]}),
              [card(rules, "play", PAL_PAD), card(rules, "select_card", JACQ), done(rules)])  # fmt: skip
    assert names(rules, one, "discard", 0) == [NEMONA, PAL_PAD]
    nothing = state_of(rules, {"slots": [[BUIZEL]], "hand": [PAL_PAD], "discard": [WATER]},
                       {"slots": [[DELIBIRD]]})  # fmt: skip
    assert cp_errors(nothing)[card(rules, "play", PAL_PAD)] == "no_effect"
