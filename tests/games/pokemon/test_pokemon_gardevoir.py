"""The cards of the Gardevoir ex League Battle Deck that brought new rules, from explicit
situations, with the Gardevoir test deck in both seats (``gv_rules``): an attack that locks one of
the Defending Pokémon's attacks (Ralts's Memory Skip) and one that uses one of them (Mew ex's
Genome Hacking), both chosen with ``attack[i]`` in the ``attack`` stage of a choice; an Ability
used as often as the player likes that attaches from the discard pile and puts damage counters on
the Pokémon, never enough to Knock it Out (Gardevoir ex's Psychic Embrace); an attack that cures
its attacker (Miracle Force); damage counters moved from the player's Pokémon onto one of the
opponent's (Cresselia's Moonglow Reverse); an Ability that runs when its card is benched from the
hand (Lumineon V's Luminous Sign) and an attack that shuffles its attacker into the deck (Aqua
Return); damage to two different Pokémon, the Active one among them (Radiant Greninja's
Moonlight Shuriken); and the Abilities whose rows the interpreter already had (Kirlia, Mew ex,
Radiant Greninja)."""

from __future__ import annotations

import numpy as np
from pokemon_testlib import card_action as card
from pokemon_testlib import done_action as done
from pokemon_testlib import legal, names, phase, pile, run, state_of
from pokemon_testlib import slot_action as slot

GARDEVOIR, RALTS, KIRLIA, CRESSELIA = "sv1-86", "swsh12-67", "swsh12-68", "swsh11-74"
LUMINEON, MEW, GRENINJA = "swsh9-40", "sv3pt5-151", "swsh10-46"
CHARMANDER, CHARMELEON, BIDOOF, BIBAREL, REGIELEKI = (
    "sv4pt5-7", "sv4pt5-8", "swsh9-120", "swsh9-121", "swsh10-51",
)  # fmt: skip
BOSS, IONO, JACQ, NEST_BALL, BRAVERY_CHARM = "sv2-172", "sv2-185", "sv1-175", "sv1-181", "sv2-173"
PSYCHIC, WATER, LIGHTNING, FIRE = "sve-5", "sve-3", "sve-4", "sve-2"


def attack(rules, i):
    return rules.actions.encode("attack", i)


def end_turn(rules):
    return rules.actions.encode("end_turn", 0)


def ability(rules, k):
    return rules.actions.encode("ability", k)


# -- Memory Skip --------------------------------------------------------------------------------


def test_memory_skip_locks_the_chosen_attack_for_the_opponents_next_turn(
    gv_rules, gv_apply, gv_errors
):
    rules = gv_rules
    cresselia = [CRESSELIA, PSYCHIC, PSYCHIC, PSYCHIC]
    s = state_of(rules, {"slots": [[RALTS, PSYCHIC]]}, {"slots": [cresselia, [BIDOOF]]})
    s = run(gv_apply, s, [attack(rules, 0)])
    assert phase(s) == "select" and int(s.damage[1, 0]) == 10  # the damage comes first
    # Either of Cresselia's two attacks; nothing else (no card, no Pokémon, no stopping).
    assert legal(gv_errors, s) == [attack(rules, 0), attack(rules, 1)]
    rules.validate(s)
    s = run(gv_apply, s, [attack(rules, 1)])  # Lunar Blast
    assert int(s.board.active_player) == 1 and phase(s) == "main"
    rules.validate(s)
    errors = gv_errors(s)
    assert errors[attack(rules, 1)] == "attack_locked" and errors[attack(rules, 0)] == "ok"
    # Its next turn over, the lock is gone (set for the opponent's next turn only).
    s = run(gv_apply, s, [end_turn(rules), end_turn(rules)])
    assert int(s.board.active_player) == 1 and gv_errors(s)[attack(rules, 1)] == "ok"


def test_the_choice_of_an_opponents_attack_is_named_with_its_attack(gv_rules, gv_apply):
    import types

    from tcgjax.games.pokemon.env import describe_action

    rules = gv_rules
    # env.describe_action's game part, on a state of these rules (what it reads of an env).
    env = types.SimpleNamespace(rules=rules, action_layout=rules.actions)

    def name(game, action):
        return describe_action(env, types.SimpleNamespace(game=game), action)

    cresselia = [CRESSELIA, PSYCHIC, PSYCHIC, PSYCHIC]
    start = state_of(rules, {"slots": [[RALTS, PSYCHIC]]}, {"slots": [cresselia]})
    assert name(start, attack(rules, 0)) == "attack with Ralts (Active): Memory Skip"
    s = run(gv_apply, start, [attack(rules, 0)])
    assert name(s, attack(rules, 1)) == (
        "choose Cresselia (the opponent's Active)'s attack Lunar Blast (lock)"
    )
    mew = state_of(rules, {"slots": [[MEW, WATER, WATER, WATER]]}, {"slots": [cresselia]})
    s = run(gv_apply, mew, [attack(rules, 0)])
    assert name(s, attack(rules, 0)) == (
        "choose Cresselia (the opponent's Active)'s attack Moonglow Reverse (use as this attack)"
    )


def test_memory_skip_ends_when_the_locked_pokemon_goes_to_the_bench(gv_rules, gv_apply, gv_errors):
    rules = gv_rules
    cresselia = [CRESSELIA, PSYCHIC, PSYCHIC, PSYCHIC]
    s = state_of(rules, {"slots": [[RALTS, PSYCHIC]]}, {"slots": [cresselia, [MEW]]})
    s = run(gv_apply, s, [attack(rules, 0), attack(rules, 1)])
    assert int(s.locked_turn[1, 0]) == 4 and int(s.locked_attack[1, 0]) == 1
    # Cresselia retreats (1 Energy): the effect of the attack on it ends (it does not follow it
    # to the Bench), and Mew ex, now Active, may use its attack.
    retreat = rules.actions.encode("retreat", 0)
    assert gv_errors(s)[retreat] == "ok"
    s = run(gv_apply, s, [retreat, card(rules, "select_card", PSYCHIC)])
    assert pile(rules, s, 1, 1) == [CRESSELIA, PSYCHIC, PSYCHIC] and pile(rules, s, 1, 0) == [MEW]
    assert not np.asarray(s.locked_turn).any() and not np.asarray(s.locked_attack).any()
    rules.validate(s)


def test_memory_skip_does_not_reach_a_pokemon_protected_from_attack_effects(
    gv_rules, gv_apply, gv_errors
):
    rules = gv_rules
    charmeleon = [CHARMANDER, CHARMELEON, FIRE, FIRE]  # Flare Veil
    s = state_of(rules, {"slots": [[RALTS, PSYCHIC]]}, {"slots": [charmeleon]})
    s = run(gv_apply, s, [attack(rules, 0)])
    assert int(s.board.active_player) == 1 and phase(s) == "main"  # nothing to choose
    assert int(s.damage[1, 0]) == 10 and gv_errors(s)[attack(rules, 0)] == "ok"


# -- Genome Hacking -----------------------------------------------------------------------------


def test_genome_hacking_uses_the_defending_pokemons_attack_without_its_cost(
    gv_rules, gv_apply, gv_errors
):
    rules = gv_rules
    mew = [MEW, WATER, WATER, WATER]  # no Psychic Energy: Lunar Blast's own cost unpaid
    s = state_of(rules, {"slots": [mew]}, {"slots": [[CRESSELIA], [BIDOOF]]})
    s = run(gv_apply, s, [attack(rules, 0)])
    assert phase(s) == "select"
    assert legal(gv_errors, s) == [attack(rules, 0), attack(rules, 1)]
    s = run(gv_apply, s, [attack(rules, 1)])  # Lunar Blast: 110, Mew ex's (Psychic) type
    assert int(s.damage[1, 0]) == 110 and int(s.board.active_player) == 1
    rules.validate(s)


def test_genome_hacking_runs_the_copied_attacks_rows_for_the_attacker(
    gv_rules, gv_apply, gv_errors
):
    rules = gv_rules
    mew = [MEW, WATER, WATER, WATER]
    # Moonglow Reverse copied: Mew ex's counters (and its Bench's) move onto the opponent's.
    s = state_of(rules, {"slots": [mew, [RALTS]], "damage": {0: 50, 1: 10}},
                 {"slots": [[CRESSELIA], [BIDOOF]]})  # fmt: skip
    s = run(gv_apply, s, [attack(rules, 0), attack(rules, 0)])
    assert phase(s) == "select" and legal(gv_errors, s) == [slot(rules, 6), slot(rules, 7)]
    rules.validate(s)
    s = run(gv_apply, s, [slot(rules, 7)])
    assert [int(x) for x in s.damage[0, :2]] == [30, 0] and int(s.damage[1, 1]) == 30


def test_genome_hacking_cannot_copy_an_attack_that_copies(gv_rules, gv_apply):
    rules = gv_rules
    s = state_of(rules, {"slots": [[MEW, WATER, WATER, WATER]]}, {"slots": [[MEW], [BIDOOF]]})
    s = run(gv_apply, s, [attack(rules, 0)])
    assert phase(s) == "main" and int(s.board.active_player) == 1  # nothing to choose: no damage
    assert int(s.damage[1, 0]) == 0


# -- Psychic Embrace and Miracle Force ----------------------------------------------------------


def test_psychic_embrace_attaches_from_the_discard_and_puts_two_counters(
    gv_rules, gv_apply, gv_errors
):
    rules = gv_rules
    embrace = ability(rules, 1)
    me = {"slots": [[RALTS], [RALTS, KIRLIA, GARDEVOIR], [LUMINEON], [CRESSELIA]],
          "damage": {0: 40, 3: 100}, "discard": [PSYCHIC, PSYCHIC, WATER]}  # fmt: skip
    s = state_of(rules, me, {"slots": [[BIDOOF]]})
    s = run(gv_apply, s, [embrace])
    assert legal(gv_errors, s) == [card(rules, "select_card", PSYCHIC)]  # Basic Psychic only
    s = run(gv_apply, s, [card(rules, "select_card", PSYCHIC)])
    # Psychic Pokémon with more than 20 HP left: Gardevoir ex; not Ralts (20 left), not
    # Cresselia (20 left), never Lumineon V (Water).
    assert legal(gv_errors, s) == [slot(rules, 1)]
    s = run(gv_apply, s, [slot(rules, 1)])
    assert pile(rules, s, 0, 1) == [RALTS, KIRLIA, GARDEVOIR, PSYCHIC]
    assert int(s.damage[0, 1]) == 20 and phase(s) == "main"
    # As often as the player likes: again, then no Basic Psychic Energy is left to attach.
    assert gv_errors(s)[embrace] == "ok"
    s = run(gv_apply, s, [embrace, card(rules, "select_card", PSYCHIC), slot(rules, 1)])
    assert int(s.damage[0, 1]) == 40 and names(rules, s, "discard", 0) == [WATER]
    assert gv_errors(s)[embrace] == "ability_no_effect"


def test_psychic_embrace_needs_a_pokemon_the_counters_would_not_knock_out(gv_rules, gv_errors):
    rules = gv_rules
    me = {"slots": [[RALTS, KIRLIA, GARDEVOIR]], "damage": {0: 290}, "discard": [PSYCHIC]}
    s = state_of(rules, me, {"slots": [[BIDOOF]]})
    assert gv_errors(s)[ability(rules, 0)] == "ability_no_effect"  # 20 HP left
    s = state_of(rules, {**me, "damage": {0: 280}}, {"slots": [[BIDOOF]]})
    assert gv_errors(s)[ability(rules, 0)] == "ok"  # 30 HP left


def test_miracle_force_does_190_and_cures_the_attacker(gv_rules, gv_apply):
    rules = gv_rules
    gardevoir = [RALTS, KIRLIA, GARDEVOIR, PSYCHIC, PSYCHIC, PSYCHIC]
    me = {"slots": [gardevoir], "conditions": {"poisoned": True, "burned": True}}
    s = state_of(rules, me, {"slots": [[RALTS, KIRLIA, GARDEVOIR], [BIDOOF]]})
    s = run(gv_apply, s, [attack(rules, 0)])
    assert int(s.damage[1, 0]) == 190  # no Weakness, no Resistance: Psychic onto Psychic
    # Cured before the Checkup: no Poison or Burn damage between the turns.
    assert not bool(s.poisoned[0]) and not bool(s.burned[0]) and int(s.damage[0, 0]) == 0


# -- Moonglow Reverse ---------------------------------------------------------------------------


def test_moonglow_reverse_moves_two_counters_from_each_pokemon_onto_one_of_the_opponents(
    gv_rules, gv_apply, gv_errors
):
    rules = gv_rules
    me = {"slots": [[CRESSELIA, PSYCHIC], [RALTS], [BIDOOF]], "damage": {0: 30, 1: 10}}
    s = state_of(rules, me, {"slots": [[LUMINEON], [RALTS], [CHARMANDER, CHARMELEON]]})
    s = run(gv_apply, s, [attack(rules, 0)])
    # Any of the opponent's Pokémon but Charmeleon (protected from attack effects).
    assert legal(gv_errors, s) == [slot(rules, 6), slot(rules, 7)]
    s = run(gv_apply, s, [slot(rules, 7)])
    # 20 + 10 + 0 moved: no damage, so no Weakness; Ralts (60 HP) is not Knocked Out by 30.
    assert [int(x) for x in s.damage[0, :3]] == [10, 0, 0] and int(s.damage[1, 1]) == 30
    # Enough to Knock Out: the Prize card is taken as for a Knock Out by an attack.
    s = state_of(rules, {**me, "damage": {0: 20, 1: 20, 2: 20}},
                 {"slots": [[LUMINEON], [RALTS]], "damage": {1: 10}})  # fmt: skip
    hand = len(names(rules, s, "hand", 0))
    s = run(gv_apply, s, [attack(rules, 0), slot(rules, 7)])
    assert names(rules, s, "discard", 1) == [RALTS] and len(names(rules, s, "hand", 0)) == hand + 1


def test_moonglow_reverse_with_no_counters_to_move_does_nothing(gv_rules, gv_apply):
    rules = gv_rules
    s = state_of(rules, {"slots": [[CRESSELIA, PSYCHIC]]}, {"slots": [[LUMINEON], [RALTS]]})
    s = run(gv_apply, s, [attack(rules, 0)])
    assert int(s.board.active_player) == 1 and not np.asarray(s.damage).any()


# -- Lumineon V ---------------------------------------------------------------------------------


def test_luminous_sign_searches_a_supporter_when_benched_from_the_hand(
    gv_rules, gv_apply, gv_errors
):
    rules = gv_rules
    me = {"slots": [[RALTS]], "hand": [LUMINEON], "deck": [BOSS, PSYCHIC, JACQ]}
    s = state_of(rules, me, {"slots": [[BIDOOF]]})
    s = run(gv_apply, s, [card(rules, "play", LUMINEON)])
    assert pile(rules, s, 0, 1) == [LUMINEON] and phase(s) == "select"
    # "You may": a Supporter of the deck (Boss's Orders, Jacq, Iono), or none.
    choices = legal(gv_errors, s)
    assert card(rules, "select_card", PSYCHIC) not in choices and done(rules) in choices
    s = run(gv_apply, s, [card(rules, "select_card", JACQ)])
    assert names(rules, s, "hand", 0) == [JACQ] and phase(s) == "main"
    rules.validate(s)


def test_luminous_sign_does_not_run_when_an_effect_benches_lumineon(gv_rules, gv_apply):
    rules = gv_rules
    me = {"slots": [[RALTS]], "hand": [NEST_BALL], "deck": [LUMINEON, BOSS]}
    s = state_of(rules, me, {"slots": [[BIDOOF]]})
    s = run(gv_apply, s, [card(rules, "play", NEST_BALL), card(rules, "select_card", LUMINEON)])
    assert pile(rules, s, 0, 1) == [LUMINEON] and phase(s) == "main"
    assert BOSS not in names(rules, s, "hand", 0)


def test_aqua_return_shuffles_lumineon_and_its_cards_into_the_deck(gv_rules, gv_apply, gv_errors):
    rules = gv_rules
    lumineon = [LUMINEON, WATER, WATER, PSYCHIC, BRAVERY_CHARM]
    s = state_of(rules, {"slots": [lumineon, [RALTS]]}, {"slots": [[CRESSELIA], [BIDOOF]]})
    deck = len(names(rules, s, "deck", 0))
    s = run(gv_apply, s, [attack(rules, 0)])
    assert names(rules, s, "discard", 1) == [CRESSELIA]  # 120 HP: Knocked Out by the 120
    assert len(names(rules, s, "deck", 0)) == deck + 5 and not pile(rules, s, 0, 0)
    assert sorted(names(rules, s, "discard", 0)) == []  # nothing discarded: no Knock Out
    # Both Actives left play: the player whose turn is next promotes first, then the attacker.
    assert phase(s) == "promote" and int(s.board.active_player) == 1
    s = run(gv_apply, s, [slot(rules, 1)])
    assert phase(s) == "promote" and int(s.board.active_player) == 0
    s = run(gv_apply, s, [slot(rules, 1)])
    assert pile(rules, s, 0, 0) == [RALTS] and int(s.board.active_player) == 1
    rules.validate(s)


def test_aqua_return_with_no_bench_loses_the_game(gv_rules, gv_apply):
    rules = gv_rules
    s = state_of(rules, {"slots": [[LUMINEON, WATER, WATER, WATER]]},
                 {"slots": [[RALTS, KIRLIA, GARDEVOIR]]})  # fmt: skip
    s = run(gv_apply, s, [attack(rules, 0)])
    assert int(s.winner) == 1 and phase(s) == "game_over"


# -- Moonlight Shuriken and the Abilities that draw ----------------------------------------------


def test_moonlight_shuriken_does_90_to_two_different_pokemon(gv_rules, gv_apply, gv_errors):
    rules = gv_rules
    greninja = [GRENINJA, WATER, WATER, PSYCHIC]
    s = state_of(rules, {"slots": [greninja]},
                 {"slots": [[CHARMANDER], [CRESSELIA], [REGIELEKI]]})  # fmt: skip
    s = run(gv_apply, s, [attack(rules, 0)])
    s = run(gv_apply, s, [card(rules, "select_card", WATER), card(rules, "select_card", PSYCHIC)])
    assert pile(rules, s, 0, 0) == [GRENINJA, WATER]
    assert legal(gv_errors, s) == [slot(rules, 6), slot(rules, 7), slot(rules, 8)]
    s = run(gv_apply, s, [slot(rules, 7)])
    assert legal(gv_errors, s) == [slot(rules, 6), slot(rules, 8)]  # not Cresselia again
    s = run(gv_apply, s, [slot(rules, 6)])
    # The Active Charmander (70 HP, weak to Water) is Knocked Out; Cresselia takes 90.
    assert int(s.damage[1, 1]) == 90 and CHARMANDER in names(rules, s, "discard", 1)


def test_moonlight_shuriken_applies_weakness_to_the_active_only(gv_rules, gv_apply):
    rules = gv_rules
    greninja = [GRENINJA, WATER, WATER, PSYCHIC]
    # Charmander (weak to Water) with Bravery Charm: 120 HP; one Active, one Benched.
    charmander = [CHARMANDER, BRAVERY_CHARM]
    s = state_of(rules, {"slots": [greninja]}, {"slots": [charmander, charmander]})
    s = run(gv_apply, s, [attack(rules, 0), card(rules, "select_card", WATER),
                          card(rules, "select_card", WATER), slot(rules, 6), slot(rules, 7)])  # fmt: skip
    # The Benched one takes 90 (no Weakness) and stays; the Active one takes 180: Knocked Out.
    assert int(s.damage[1, 1]) == 90 and pile(rules, s, 1, 1) == charmander
    assert names(rules, s, "discard", 1) == charmander


def test_refinement_concealed_cards_and_restart_draw(gv_rules, gv_apply, gv_errors):
    rules = gv_rules
    deck = [BOSS, IONO, JACQ, PSYCHIC, NEST_BALL]
    me = {"slots": [[RALTS, KIRLIA], [GRENINJA], [MEW]], "hand": [WATER, BIDOOF], "deck": deck}
    s = state_of(rules, me, {"slots": [[BIDOOF]]}, turn=5)
    # Refinement: any card from the hand, then 2 cards.
    s = run(gv_apply, s, [ability(rules, 0), card(rules, "select_card", BIDOOF)])
    assert names(rules, s, "hand", 0) == [WATER, NEST_BALL, PSYCHIC]
    assert gv_errors(s)[ability(rules, 0)] == "ability_used"
    # Concealed Cards: an Energy card from the hand, then 2.
    s = run(gv_apply, s, [ability(rules, 1), card(rules, "select_card", WATER)])
    assert names(rules, s, "hand", 0) == [NEST_BALL, PSYCHIC, JACQ, IONO]
    # Restart: up to 3 cards in the hand; with 4 it draws none.
    s = run(gv_apply, s, [ability(rules, 2)])
    assert len(names(rules, s, "hand", 0)) == 4
    me = {"slots": [[MEW]], "hand": [WATER], "deck": deck}
    s = run(gv_apply, state_of(rules, me, {"slots": [[BIDOOF]]}), [ability(rules, 0)])
    assert names(rules, s, "hand", 0) == [WATER, NEST_BALL, PSYCHIC]
    assert gv_errors(s)[ability(rules, 0)] == "ability_used"
