"""Cards of the League Battle Decks shipped before their decks, from explicit situations, with the
League test deck in both seats (``lg_rules``): a passive protection from attack effects
(Charmeleon), a passive Retreat Cost (Moltres), damage by the attacker's own damage counters
(Drifloon), damage by the Defending Pokémon's stage (Zeraora), a Trainer filter (Regieleki), one
Ability a turn among all of a player's Pokémon with its name and a Stadium discard the player may
decline (Pidgeot ex), an Ability that runs when its card evolves a Pokémon from the hand, by
``evolve`` or by Rare Candy, damage by the Prize cards taken and the Tera rule (Charizard ex), an
ACE SPEC Trainer (Prime Catcher) and the ACE SPEC and Radiant deck rules, the cards whose
rows the interpreter already had (Pidgey, Moltres's and Regieleki's bench damage, Bibarel), and
a Tool that gives its holder an attack which evolves Benched Pokémon from the deck and is
discarded at the end of its owner's turn (Technical Machine: Evolution)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
import yaml
from pokemon_testlib import card_action as card
from pokemon_testlib import done_action as done
from pokemon_testlib import legal, names, names_in, phase, pile, run, state_of
from pokemon_testlib import slot_action as slot

from tcgjax.core.cards import CardRegistry
from tcgjax.core.errors import ConfigError
from tcgjax.games.pokemon import cards as C
from tcgjax.games.pokemon.rules import STADIUM_ZONE

CHARMANDER, CHARMELEON, PIDGEY, PIDGEOTTO, MOLTRES = (
    "sv4pt5-7", "sv4pt5-8", "sv3pt5-16", "sv3pt5-17", "sv3pt5-146",
)  # fmt: skip
PRIME_CATCHER, DRIFLOON, ZERAORA, BIDOOF, BIBAREL = (
    "sv5-157", "sv1-89", "swsh12-56", "swsh9-120", "swsh9-121",
)  # fmt: skip
REGIELEKI, TYNAMO, EELEKTRIK, EELEKTROSS = "swsh10-51", "sv3-67", "sv3-68", "sv3-69"
FIRE, PSYCHIC, LIGHTNING = "sve-2", "sve-5", "sve-4"
PIDGEOT, ARTAZON, CHARIZARD, RARE_CANDY = "sv3-164", "sv2-171", "sv3-125", "sv1-191"
SWITCH, NEST_BALL, BOSS, ULTRA_BALL, IONO, RESEARCH = (
    "sv1-194", "sv1-181", "sv2-172", "sv1-196", "sv2-185", "sv1-189",
)  # fmt: skip


def attack(rules, i):
    return rules.actions.encode("attack", i)


def test_flare_veil_keeps_an_attacks_gust_off_charmeleon_not_a_trainers(
    lg_rules, lg_apply, lg_errors
):
    rules = lg_rules
    eelektross = {"slots": [[TYNAMO, EELEKTRIK, EELEKTROSS, LIGHTNING]], "hand": [BOSS]}
    charmeleon = [CHARMANDER, CHARMELEON]
    s = state_of(rules, eelektross, {"slots": [[BIDOOF], charmeleon, [CHARMANDER]]}, turn=5)
    s = run(lg_apply, s, [attack(rules, 0)])  # Suction Shock: gust, then 60 if it did
    assert phase(s) == "select"
    assert legal(lg_errors, s) == [slot(rules, 8)]  # Charmander, never Charmeleon (bench 1)
    # Charmeleon alone on the Bench: nothing to bring up, so no 60 damage either.
    s = state_of(rules, eelektross, {"slots": [[BIDOOF], charmeleon]}, turn=5)
    s = run(lg_apply, s, [attack(rules, 0)])
    assert pile(rules, s, 1, 0) == [BIDOOF] and int(s.damage[1, 0]) == 0
    assert int(s.damage[1, 1]) == 0
    # A Trainer's gust is no attack: Boss's Orders brings Charmeleon up.
    s = state_of(rules, eelektross, {"slots": [[BIDOOF], charmeleon]}, turn=5)
    s = run(lg_apply, s, [card(rules, "play", BOSS), slot(rules, 7)])
    assert pile(rules, s, 1, 0) == charmeleon


def test_flare_float_retreats_moltres_for_free_with_a_fire_energy(lg_rules, lg_apply, lg_errors):
    rules = lg_rules
    retreat = rules.actions.encode("retreat", 0)
    p2 = {"slots": [[BIDOOF]]}
    s = state_of(rules, {"slots": [[MOLTRES, FIRE], [PIDGEY]]}, p2)
    s = run(lg_apply, s, [retreat])
    assert phase(s) == "main" and pile(rules, s, 0, 0) == [PIDGEY]
    assert pile(rules, s, 0, 1) == [MOLTRES, FIRE]  # nothing paid
    # A Lightning Energy is no Fire Energy: the printed cost 2 stands.
    s = state_of(rules, {"slots": [[MOLTRES, LIGHTNING], [PIDGEY]]}, p2)
    assert lg_errors(s)[retreat] == "retreat_cost"


def test_blazing_flight_and_targeted_bolt_discard_two_energy_for_120_on_a_bench(
    lg_rules, lg_apply, lg_errors
):
    rules = lg_rules
    for attacker, energy in ((MOLTRES, FIRE), (REGIELEKI, LIGHTNING)):
        index = 0 if attacker == MOLTRES else 1
        s = state_of(rules, {"slots": [[attacker] + [energy] * 3]},
                     {"slots": [[BIDOOF], [PIDGEY], [DRIFLOON]]})  # fmt: skip
        s = run(lg_apply, s, [attack(rules, index)])
        # Two of the three Energy: a mandatory choice of public cards, the same card twice.
        s = run(lg_apply, s, [card(rules, "select_card", energy)] * 2)
        assert pile(rules, s, 0, 0) == [attacker, energy]
        assert legal(lg_errors, s) == [slot(rules, 7), slot(rules, 8)]
        s = run(lg_apply, s, [slot(rules, 8)])
        # Drifloon (70 HP) is Knocked Out; no Weakness on the Bench (it is weak to Darkness
        # anyway); the Active takes nothing.
        assert names(rules, s, "discard", 1) == [DRIFLOON] and int(s.damage[1, 0]) == 0


def test_balloon_blast_does_30_per_damage_counter_on_drifloon(lg_rules, lg_apply):
    rules = lg_rules
    for counters, damage in ((0, 0), (3, 90)):
        s = state_of(
            rules,
            {"slots": [[DRIFLOON, PSYCHIC, PSYCHIC]], "damage": {0: 10 * counters}},
            {"slots": [[MOLTRES], [PIDGEY]]},
        )  # fmt: skip  (120 HP: no Knock Out)
        s = run(lg_apply, s, [attack(rules, 1)])
        assert int(s.damage[1, 0]) == damage, counters


def test_battle_claw_adds_30_against_an_evolution(lg_rules, lg_apply):
    rules = lg_rules
    for defender, damage in (([BIDOOF], 30), ([BIDOOF, BIBAREL], 60)):
        s = state_of(rules, {"slots": [[ZERAORA, LIGHTNING]]}, {"slots": [defender]})
        s = run(lg_apply, s, [attack(rules, 0)])
        assert int(s.damage[1, 0]) == damage, defender


def test_electromagnetic_sonar_takes_a_trainer_from_the_discard_pile(lg_rules, lg_apply, lg_errors):
    rules = lg_rules
    s = state_of(rules, {"slots": [[REGIELEKI, LIGHTNING]], "discard": [PIDGEY, FIRE, NEST_BALL, BOSS]},
                 {"slots": [[BIDOOF]]})  # fmt: skip
    s = run(lg_apply, s, [attack(rules, 0)])
    assert sorted(legal(lg_errors, s)) == sorted(
        [card(rules, "select_card", NEST_BALL), card(rules, "select_card", BOSS)]
    )
    s = run(lg_apply, s, [card(rules, "select_card", BOSS)])
    assert names(rules, s, "hand", 0) == [BOSS]


def test_call_for_family_benches_up_to_two_basic_pokemon(lg_rules, lg_apply, lg_errors):
    rules = lg_rules
    s = state_of(rules, {"slots": [[PIDGEY, FIRE]], "deck": [BIDOOF, PIDGEOTTO, ZERAORA]},
                 {"slots": [[BIDOOF]]})  # fmt: skip
    s = run(lg_apply, s, [attack(rules, 0)])
    choices = legal(lg_errors, s)
    assert card(rules, "select_card", PIDGEOTTO) not in choices and done(rules) in choices
    s = run(lg_apply, s, [card(rules, "select_card", ZERAORA), card(rules, "select_card", BIDOOF)])
    assert [pile(rules, s, 0, k) for k in (1, 2)] == [[ZERAORA], [BIDOOF]]
    assert int(s.board.active_player) == 1  # the attack ended the turn


def test_prime_catcher_brings_one_up_then_switches_ones_own(lg_rules, lg_apply, lg_errors):
    rules = lg_rules
    p2 = {"slots": [[BIDOOF], [PIDGEY]]}
    s = state_of(rules, {"slots": [[ZERAORA], [MOLTRES]], "hand": [PRIME_CATCHER]}, p2)
    s = run(lg_apply, s, [card(rules, "play", PRIME_CATCHER), slot(rules, 7), slot(rules, 1)])
    assert pile(rules, s, 1, 0) == [PIDGEY] and pile(rules, s, 0, 0) == [MOLTRES]
    assert names(rules, s, "discard", 0) == [PRIME_CATCHER] and not bool(s.supporter_played)
    # No Bench of one's own: the gust alone.
    s = state_of(rules, {"slots": [[ZERAORA]], "hand": [PRIME_CATCHER]}, p2)
    s = run(lg_apply, s, [card(rules, "play", PRIME_CATCHER), slot(rules, 7)])
    assert phase(s) == "main" and pile(rules, s, 1, 0) == [PIDGEY]
    # No opponent's Bench: it can't be played.
    s = state_of(rules, {"slots": [[ZERAORA], [MOLTRES]], "hand": [PRIME_CATCHER]},
                 {"slots": [[BIDOOF]]})  # fmt: skip
    assert lg_errors(s)[card(rules, "play", PRIME_CATCHER)] == "no_effect"


def test_industrious_incisors_draws_to_five_once_a_turn(lg_rules, lg_apply, lg_errors):
    rules = lg_rules
    ability = rules.actions.encode("ability", 1)
    s = state_of(rules, {"slots": [[BIDOOF], [BIDOOF, BIBAREL]], "hand": [FIRE, FIRE],
                         "deck": [PIDGEY, IONO, ZERAORA, MOLTRES]},
                 {"slots": [[BIDOOF]]})  # fmt: skip
    s = run(lg_apply, s, [ability])
    assert names(rules, s, "hand", 0) == [FIRE, FIRE, MOLTRES, ZERAORA, IONO]
    assert lg_errors(s)[ability] == "ability_used"


def test_tail_smash_does_nothing_on_tails(lg_rules, lg_apply):
    rules = lg_rules
    s = state_of(rules, {"slots": [[BIDOOF, BIBAREL, FIRE, FIRE, FIRE]]}, {"slots": [[MOLTRES]]})
    # One coin: heads 100 (Moltres resists Fighting, not Colorless), tails nothing; both come up
    # among these keys.
    seen = {int(run(lg_apply, s, [attack(rules, 0)], key=jax.random.PRNGKey(i)).damage[1, 0])
            for i in range(12)}  # fmt: skip
    assert seen == {0, 100}


def _registry_with(*entries):
    with open(C.SHIPPED_CARDS) as fh:
        shipped = yaml.safe_load(fh)["cards"]
    registry = CardRegistry(C.SCHEMA, shipped + list(entries), source="ace spec test cards")
    C.check_card_rules(registry)
    return registry


def _radiant(cid):
    from pokemon_testlib import pokemon

    return pokemon(cid, f"Test Radiant {cid}", "basic", "water", 130, tags=["radiant"])


def test_one_ace_spec_card_and_one_radiant_pokemon_a_deck():
    from tcgjax.games.pokemon.decks import load_deck

    registry = _registry_with(_radiant("t-radiant-a"), _radiant("t-radiant-b"))
    base = {ZERAORA: 4, LIGHTNING: 54}
    load_deck({"name": "one each", "cards": {**base, PRIME_CATCHER: 1, "t-radiant-a": 1}}, registry)
    with pytest.raises(ConfigError, match=r"2 ACE SPEC cards \(Prime Catcher\); at most 1 a deck"):
        load_deck({"name": "two", "cards": {**base, PRIME_CATCHER: 2}}, registry)
    with pytest.raises(ConfigError, match="2 Radiant Pokémon .*; at most 1 a deck"):
        load_deck({"name": "two", "cards": {**base, "t-radiant-a": 1, "t-radiant-b": 1}}, registry)
    # A Radiant Pokémon has a Rule Box: Artazon does not find it.
    from tcgjax.games.pokemon import rules as R
    from tcgjax.games.pokemon.decks import Deck

    deck = Deck(name="t", source="<t>", cards=tuple(["t-radiant-a"] + [LIGHTNING] * 59))
    rules = R.PokemonRules((deck, deck), cards=registry)
    no_rule_box = np.asarray(rules.filter_match)[C.CARD_FILTERS.index("basic_pokemon_no_rule_box")]
    assert not no_rule_box[registry.index("t-radiant-a")] and no_rule_box[registry.index(ZERAORA)]


def test_tags_refused_where_they_do_not_belong():
    from pokemon_testlib import basic_energy, pokemon

    with pytest.raises(Exception, match="Rule Box tags"):
        _registry_with({**basic_energy("t-e", "fire"), "tags": ["radiant"]})
    with pytest.raises(Exception, match="only a Trainer is an ACE SPEC"):
        _registry_with(pokemon("t-ace", "Test Ace", "basic", "water", 60, tags=["ace_spec"]))


def test_the_importer_reads_ace_spec_and_radiant():
    from tcgjax.games.pokemon import importer

    trainer = {"id": "t-1", "name": "Test Catcher", "supertype": "Trainer",
               "subtypes": ["Item", "ACE SPEC"]}  # fmt: skip
    radiant = {"id": "t-2", "name": "Test Radiant", "supertype": "Pokémon",
               "subtypes": ["Basic", "Radiant"], "hp": "130", "types": ["Water"],
               "weaknesses": [], "resistances": [], "attacks": [], "convertedRetreatCost": 1}  # fmt: skip
    imported, _ = importer.import_cards([trainer, radiant], source="<t>")
    by_id = {c["id"]: c for c in imported}
    assert by_id["t-1"]["tags"] == ["ace_spec"] and by_id["t-1"]["kind"] == "item"
    assert by_id["t-2"]["tags"] == ["radiant"] and by_id["t-2"]["prizes"] == 1


def test_quick_search_is_one_a_turn_among_all_the_players_pidgeot_ex(lg_rules, lg_apply, lg_errors):
    rules = lg_rules
    line = [PIDGEY, PIDGEOTTO, PIDGEOT]
    s = state_of(rules, {"slots": [line, line], "deck": [BOSS, ZERAORA, IONO]},
                 {"slots": [[BIDOOF]]})  # fmt: skip
    first, second = (rules.actions.encode("ability", k) for k in (0, 1))
    s = run(lg_apply, s, [first])
    assert phase(s) == "select" and done(rules) in legal(lg_errors, s)  # a hidden search
    s = run(lg_apply, s, [card(rules, "select_card", BOSS)])
    assert names(rules, s, "hand", 0) == [BOSS]
    errors = lg_errors(s)
    assert errors[first] == "ability_used" and errors[second] == "ability_name_used"
    # The opponent's turn, then the player's next: one use again.
    s = run(lg_apply, s, [rules.actions.encode("end_turn", 0)] * 2)
    assert int(s.board.active_player) == 0 and lg_errors(s)[second] == "ok"


def test_blustery_wind_may_discard_the_stadium_after_its_damage(lg_rules, lg_apply, lg_errors):
    rules = lg_rules
    pidgeot = {"slots": [[PIDGEY, PIDGEOTTO, PIDGEOT, FIRE, FIRE]]}
    for choice, kept in ((card(rules, "select_card", ARTAZON), []), (done(rules), [ARTAZON])):
        s = state_of(rules, pidgeot, {"slots": [[REGIELEKI], [BIDOOF]], "stadium": ARTAZON})
        s = run(lg_apply, s, [attack(rules, 0)])
        assert phase(s) == "select" and int(s.damage[1, 0]) == 120  # the damage comes first
        assert sorted(legal(lg_errors, s)) == sorted([card(rules, "select_card", ARTAZON),
                                                      done(rules)])  # fmt: skip
        s = run(lg_apply, s, [choice])
        assert names_in(rules, s, STADIUM_ZONE) == kept
        assert names(rules, s, "discard", 1) == ([] if kept else [ARTAZON])  # its owner's
        assert int(s.board.active_player) == 1  # the attack ended the turn
    # No Stadium in play: nothing to decide.
    s = state_of(rules, pidgeot, {"slots": [[REGIELEKI], [BIDOOF]]})
    s = run(lg_apply, s, [attack(rules, 0)])
    assert phase(s) == "main" and int(s.board.active_player) == 1


def test_infernal_reign_attaches_fire_energy_from_the_deck_when_charizard_ex_evolves(
    lg_rules, lg_apply, lg_errors
):
    rules = lg_rules
    s = state_of(rules, {"slots": [[CHARMANDER, CHARMELEON], [PIDGEY]], "hand": [CHARIZARD],
                         "deck": [FIRE, FIRE, FIRE, BOSS]},
                 {"slots": [[BIDOOF]]}, turn=5)  # fmt: skip
    fire_in_deck = names(rules, s, "deck", 0).count(FIRE)
    s = run(lg_apply, s, [rules.actions.encode("evolve", rules.cards.index(CHARIZARD) * 6)])
    assert phase(s) == "select" and done(rules) in legal(lg_errors, s)  # "you may": a search
    pick, onto = card(rules, "select_card", FIRE), slot
    s = run(lg_apply, s, [pick, onto(rules, 0), pick, onto(rules, 1), done(rules)])
    assert phase(s) == "main"
    assert pile(rules, s, 0, 0) == [CHARMANDER, CHARMELEON, CHARIZARD, FIRE]
    assert pile(rules, s, 0, 1) == [PIDGEY, FIRE]
    assert names(rules, s, "deck", 0).count(FIRE) == fire_in_deck - 2
    # Evolving into another card runs nothing.
    s = state_of(rules, {"slots": [[PIDGEY]], "hand": [PIDGEOTTO]}, {"slots": [[BIDOOF]]}, turn=5)
    s = run(lg_apply, s, [rules.actions.encode("evolve", rules.cards.index(PIDGEOTTO) * 6)])
    assert phase(s) == "main"


def test_infernal_reign_runs_after_rare_candy(lg_rules, lg_apply, lg_errors):
    rules = lg_rules
    s = state_of(rules, {"slots": [[CHARMANDER]], "hand": [RARE_CANDY, CHARIZARD],
                         "deck": [FIRE, BOSS]},
                 {"slots": [[BIDOOF]]}, turn=5)  # fmt: skip
    s = run(lg_apply, s, [card(rules, "play", RARE_CANDY), card(rules, "select_card", CHARIZARD),
                          slot(rules, 0)])  # fmt: skip
    assert pile(rules, s, 0, 0) == [CHARMANDER, CHARIZARD]
    assert names(rules, s, "discard", 0) == [RARE_CANDY]  # the Trainer is done
    assert phase(s) == "select"  # Infernal Reign's search, Charizard ex's Ability
    assert int(s.board.definition[int(s.selection.card)]) == rules.cards.index(CHARIZARD)
    rules.validate(s)
    s = run(lg_apply, s, [card(rules, "select_card", FIRE), slot(rules, 0), done(rules)])
    assert phase(s) == "main" and pile(rules, s, 0, 0) == [CHARMANDER, CHARIZARD, FIRE]
    rules.validate(s)


def test_burning_darkness_adds_30_per_prize_card_the_opponent_took(lg_rules, lg_apply):
    rules = lg_rules
    line = [CHARMANDER, CHARMELEON, CHARIZARD, FIRE, FIRE]
    for prizes_left, damage in ((6, 180), (4, 240)):
        pidgeot = {"slots": [[PIDGEY, PIDGEOTTO, PIDGEOT]], "prizes": [LIGHTNING] * prizes_left}
        s = state_of(rules, {"slots": [line]}, pidgeot)
        s = run(lg_apply, s, [attack(rules, 0)])
        assert int(s.damage[1, 0]) == damage, prizes_left


def test_a_tera_pokemon_on_the_bench_takes_no_damage_from_attacks(lg_rules, lg_apply):
    rules = lg_rules
    moltres = {"slots": [[MOLTRES, FIRE, FIRE, FIRE]]}
    charizard = [CHARMANDER, CHARMELEON, CHARIZARD]
    s = state_of(rules, moltres, {"slots": [[BIDOOF], charizard, [PIDGEY]]})
    s = run(lg_apply, s, [attack(rules, 0), card(rules, "select_card", FIRE),
                          card(rules, "select_card", FIRE), slot(rules, 7)])  # fmt: skip
    assert int(s.damage[1, 1]) == 0 and pile(rules, s, 1, 1) == charizard
    s = state_of(rules, moltres, {"slots": [[BIDOOF], charizard, [PIDGEY]]})
    s = run(lg_apply, s, [attack(rules, 0), card(rules, "select_card", FIRE),
                          card(rules, "select_card", FIRE), slot(rules, 8)])  # fmt: skip
    assert names(rules, s, "discard", 1) == [PIDGEY]  # the other Benched Pokémon is hit


TM_EVOLUTION = "sv4-178"


def test_tm_evolution_evolves_two_benched_pokemon_on_the_second_players_first_turn(
    lg_rules, lg_apply, lg_errors
):
    rules = lg_rules
    evolution = attack(rules, 1)  # Bidoof's Rollout is attack 0; the Tool's attack follows
    # Player 0 goes second: turn 2 is their first turn, and Charmander and Pidgey came into play
    # this turn. An effect that evolves ignores both limits of evolving from the hand.
    me = {"slots": [[BIDOOF, TM_EVOLUTION, FIRE], [CHARMANDER], [PIDGEY], [BIDOOF]],
          "since": {1: 2, 2: 2, 3: 2}}  # fmt: skip
    s = state_of(rules, me, {"slots": [[DRIFLOON]]}, turn=2, first_player=1)
    assert lg_errors(s)[rules.actions.encode("evolve", rules.cards.index(CHARMELEON) * 6 + 1)] in (
        "not_in_hand", "first_turn_evolution")  # fmt: skip
    s = run(lg_apply, s, [evolution])
    assert phase(s) == "select"
    rules.validate(s)
    # The deck's cards that evolve a Benched Pokémon: Charmeleon, Pidgeotto, Bibarel (onto the
    # Benched Bidoof; never the Active one), or stop (a deck search may find nothing).
    offered = {card(rules, "select_card", c) for c in (CHARMELEON, PIDGEOTTO, BIBAREL)}
    assert set(legal(lg_errors, s)) == offered | {done(rules)}
    s = run(lg_apply, s, [card(rules, "select_card", CHARMELEON)])
    assert legal(lg_errors, s) == [slot(rules, 1)]  # only onto the Charmander
    s = run(lg_apply, s, [slot(rules, 1), card(rules, "select_card", PIDGEOTTO)])
    rules.validate(s)
    s = run(lg_apply, s, [slot(rules, 2)])  # two evolved: the attack is over, the turn ends
    assert pile(rules, s, 0, 1) == [CHARMANDER, CHARMELEON]
    assert pile(rules, s, 0, 2) == [PIDGEY, PIDGEOTTO]
    assert pile(rules, s, 0, 3) == [BIDOOF]
    # The end of the turn: the Technical Machine goes to its owner's discard pile.
    assert pile(rules, s, 0, 0) == [BIDOOF, FIRE]
    assert names(rules, s, "discard", 0) == [TM_EVOLUTION]
    assert int(s.board.active_player) == 1 and phase(s) == "main"
    rules.validate(s)


def test_tm_evolution_evolves_each_chosen_pokemon_once_but_one_evolved_before_again(
    lg_rules, lg_apply, lg_errors
):
    rules = lg_rules
    evolution = attack(rules, 1)
    holder = [BIDOOF, TM_EVOLUTION, FIRE]
    # Charmeleon evolved onto the Charmander by this attack is not evolved again by it, though
    # Charizard ex (which evolves from Charmeleon) is in the deck: the choice closes.
    s = state_of(rules, {"slots": [holder, [CHARMANDER]]}, {"slots": [[DRIFLOON]]}, turn=3)
    s = run(lg_apply, s, [evolution, card(rules, "select_card", CHARMELEON), slot(rules, 1)])
    assert pile(rules, s, 0, 1) == [CHARMANDER, CHARMELEON]
    assert int(s.board.active_player) == 1  # nothing left to evolve: the turn is over
    # A Charmeleon that evolved from the hand earlier this turn can: the limit is the effect's.
    s = state_of(rules, {"slots": [holder, [CHARMANDER, CHARMELEON]], "since": {1: 3}},
                 {"slots": [[DRIFLOON]]}, turn=3)  # fmt: skip
    s = run(lg_apply, s, [evolution])
    assert set(legal(lg_errors, s)) == {card(rules, "select_card", CHARIZARD), done(rules)}
    s = run(lg_apply, s, [card(rules, "select_card", CHARIZARD), slot(rules, 1)])
    assert pile(rules, s, 0, 1) == [CHARMANDER, CHARMELEON, CHARIZARD]
    # Evolved from the deck, not played from the hand: Infernal Reign does not run.
    assert int(s.board.active_player) == 1 and phase(s) == "main"


def test_tm_evolution_is_the_holders_attack_with_its_cost_and_only_while_attached(
    lg_rules, lg_apply, lg_errors
):
    rules = lg_rules
    far = {"slots": [[DRIFLOON]]}
    # No Tool: Bidoof has one attack; with the Tool and no Energy, its cost is not paid.
    s = state_of(rules, {"slots": [[BIDOOF, FIRE], [CHARMANDER]]}, far, turn=3)
    assert lg_errors(s)[attack(rules, 1)] == "no_such_attack"
    s = state_of(rules, {"slots": [[BIDOOF, TM_EVOLUTION], [CHARMANDER]]}, far, turn=3)
    assert lg_errors(s)[attack(rules, 1)] == "attack_cost"
    # Charmander has two attacks: the Tool's is its third.
    s = state_of(rules, {"slots": [[CHARMANDER, TM_EVOLUTION, FIRE]], "hand": [TM_EVOLUTION]},
                 far, turn=3)  # fmt: skip
    assert lg_errors(s)[attack(rules, 2)] == "ok" and lg_errors(s)[attack(rules, 3)] != "ok"
    # With nothing on the Bench it does nothing: no choice, the turn ends, the Tool is discarded.
    s = run(lg_apply, s, [attack(rules, 2)])
    assert int(s.board.active_player) == 1 and pile(rules, s, 0, 0) == [CHARMANDER, FIRE]
    assert names(rules, s, "discard", 0) == [TM_EVOLUTION] and names(rules, s, "hand", 0) == [
        TM_EVOLUTION]  # fmt: skip
    assert int(s.damage[1, 0]) == 0


def test_a_technical_machine_is_discarded_at_the_end_of_its_owners_turn_only(lg_rules, lg_apply):
    rules = lg_rules
    end_turn = rules.actions.encode("end_turn", 0)
    s = state_of(
        rules,
        {"slots": [[BIDOOF], [PIDGEY]], "hand": [TM_EVOLUTION]},
        {"slots": [[DRIFLOON, TM_EVOLUTION]]},
        turn=3,
    )  # fmt: skip
    s = run(lg_apply, s, [rules.actions.encode("attach", rules.cards.index(TM_EVOLUTION) * 6 + 1),
                          end_turn])  # fmt: skip
    assert names(rules, s, "discard", 0) == [TM_EVOLUTION] and pile(rules, s, 0, 1) == [PIDGEY]
    assert pile(rules, s, 1, 0) == [DRIFLOON, TM_EVOLUTION]  # the opponent's stays on
    s = run(lg_apply, s, [end_turn])
    assert pile(rules, s, 1, 0) == [DRIFLOON] and names(rules, s, "discard", 1) == [TM_EVOLUTION]


MIRAIDON = "sv1-81"


def test_tandem_unit_benches_up_to_two_basic_lightning_pokemon_once_a_turn(
    lg_rules, lg_apply, lg_errors
):
    rules = lg_rules
    tandem = rules.actions.encode("ability", 0)
    deck = [ZERAORA, TYNAMO, EELEKTRIK, PIDGEY, MOLTRES, REGIELEKI, LIGHTNING]
    s = state_of(rules, {"slots": [[MIRAIDON]], "deck": deck}, {"slots": [[BIDOOF]]})
    s = run(lg_apply, s, [tandem])
    assert phase(s) == "select"
    # Basic Lightning Pokémon only: not the Stage 1 Eelektrik, the Colorless Pidgey, the Fire
    # Moltres, nor a Lightning Energy; "up to": the player may stop. (The rest of the deck, under
    # these, holds Regieleki V too.)
    offered = {card(rules, "select_card", c) for c in (ZERAORA, TYNAMO, REGIELEKI, REGIELEKI_V)}
    assert set(legal(lg_errors, s)) == offered | {done(rules)}
    s = run(lg_apply, s, [card(rules, "select_card", ZERAORA), card(rules, "select_card", TYNAMO)])
    assert phase(s) == "main"  # two taken: the search is over
    assert pile(rules, s, 0, 1) == [ZERAORA] and pile(rules, s, 0, 2) == [TYNAMO]
    assert lg_errors(s)[tandem] == "ability_used"  # once a turn
    rules.validate(s)
    # One taken, then stop.
    s = state_of(rules, {"slots": [[MIRAIDON]], "deck": deck}, {"slots": [[BIDOOF]]})
    s = run(lg_apply, s, [tandem, card(rules, "select_card", REGIELEKI), done(rules)])
    assert phase(s) == "main" and pile(rules, s, 0, 1) == [REGIELEKI]
    assert not any(pile(rules, s, 0, k) for k in range(2, 6))


def test_photon_blaster_does_220_and_miraidon_cannot_attack_next_turn(
    lg_rules, lg_apply, lg_errors
):
    rules = lg_rules
    energy = [LIGHTNING, LIGHTNING, LIGHTNING]
    s = state_of(rules, {"slots": [[MIRAIDON] + energy]}, {"slots": [[DRIFLOON], [BIDOOF]]})
    s = run(lg_apply, s, [attack(rules, 0)])
    assert names(rules, s, "discard", 1) == [DRIFLOON]  # 220 against 70 HP: Knocked Out
    s = run(lg_apply, s, [slot(rules, 1), rules.actions.encode("end_turn", 0)])  # promote Bidoof
    assert int(s.board.active_player) == 0
    assert lg_errors(s)[attack(rules, 0)] == "cannot_attack"


REGIELEKI_V, REGIELEKI_VMAX = "swsh12-57", "swsh12-58"


def test_transistor_adds_30_per_regieleki_vmax_to_basic_lightning_attackers_only(
    lg_rules, lg_apply
):
    rules = lg_rules
    vmax = [REGIELEKI_V, REGIELEKI_VMAX]
    charizard = {"slots": [[CHARMANDER, CHARMELEON, CHARIZARD]]}  # 330 HP, an Evolution
    # Zeraora's Battle Claw: 30, +30 against an Evolution; +30 for each Regieleki VMAX in play.
    for bench, damage in (([], 60), ([vmax], 90), ([vmax, vmax], 120)):
        s = state_of(rules, {"slots": [[ZERAORA, LIGHTNING], *bench]}, charizard)
        s = run(lg_apply, s, [attack(rules, 0)])
        assert int(s.damage[1, 0]) == damage, len(bench)
    # Regieleki VMAX is no Basic Pokémon: its own 220 gets nothing from the other one.
    s = state_of(rules, {"slots": [vmax + [LIGHTNING] * 3, vmax]}, charizard)
    s = run(lg_apply, s, [attack(rules, 0)])
    assert int(s.damage[1, 0]) == 220


def test_lightning_wall_takes_100_off_the_next_attack_until_it_leaves_the_active_spot(
    lg_rules, lg_apply, lg_errors
):
    rules = lg_rules
    wall = attack(rules, 1)
    me = {"slots": [[REGIELEKI_V] + [LIGHTNING] * 3, [PIDGEY]]}
    miraidon = {"slots": [[MIRAIDON] + [LIGHTNING] * 3, [BIDOOF]], "hand": [BOSS]}
    s = state_of(rules, me, miraidon)
    s = run(lg_apply, s, [wall])
    assert int(s.damage[1, 0]) == 100 and int(s.board.active_player) == 1
    assert int(s.reduced_turn[0, 0]) == 4  # the opponent's next turn
    rules.validate(s)
    s = run(lg_apply, s, [attack(rules, 0)])  # Photon Blaster: 220, 100 less
    assert int(s.damage[0, 0]) == 120
    # Gusted to the Bench by Boss's Orders, it loses the Wall (an attack's effect on it ends).
    s = state_of(rules, me, miraidon)
    s = run(lg_apply, s, [wall, card(rules, "play", BOSS), slot(rules, 7)])
    assert pile(rules, s, 0, 1)[0] == REGIELEKI_V and not np.asarray(s.reduced_turn).any()
    rules.validate(s)


def test_switching_bolt_switches_regieleki_v_out_after_its_damage(lg_rules, lg_apply, lg_errors):
    rules = lg_rules
    s = state_of(rules, {"slots": [[REGIELEKI_V, LIGHTNING], [PIDGEY]]}, {"slots": [[BIDOOF]]})
    s = run(lg_apply, s, [attack(rules, 0)])
    assert int(s.damage[1, 0]) == 30 and legal(lg_errors, s) == [slot(rules, 1)]
    s = run(lg_apply, s, [slot(rules, 1)])
    assert pile(rules, s, 0, 0) == [PIDGEY] and pile(rules, s, 0, 1) == [REGIELEKI_V, LIGHTNING]


SEAL_STONE, PONCHO = "swsh12-156", "swsh12-160"


def test_forest_seal_stone_gives_a_pokemon_v_one_star_alchemy_a_game(lg_rules, lg_apply, lg_errors):
    rules = lg_rules
    star = rules.actions.encode("tool_ability", 1)
    me = {"slots": [[BIDOOF, SEAL_STONE], [REGIELEKI_V, SEAL_STONE]], "deck": [BOSS, FIRE]}
    s = state_of(rules, me, {"slots": [[PIDGEY]]})
    # Bidoof is no Pokémon V; a Pokémon without a Tool has nothing to use.
    assert lg_errors(s)[rules.actions.encode("tool_ability", 0)] == "not_pokemon_v"
    assert lg_errors(s)[rules.actions.encode("tool_ability", 2)] == "empty_slot"
    assert lg_errors(s)[rules.actions.encode("ability", 1)] == "no_ability"  # not the Pokémon's
    assert lg_errors(s)[star] == "ok"
    s = run(lg_apply, s, [star])
    assert phase(s) == "select"  # any card of the deck, or none (a hidden search)
    rules.validate(s)
    s = run(lg_apply, s, [card(rules, "select_card", BOSS)])
    assert phase(s) == "main" and BOSS in names(rules, s, "hand", 0)
    assert bool(s.vstar_used[0]) and not bool(s.vstar_used[1])
    # Both players see whose VSTAR Power is spent: the last two turn flags, observer first.
    from tcgjax.games.pokemon.observation import Observer

    observer = Observer(rules, "v2.1")
    for viewer, flags in ((0, [1.0, 0.0]), (1, [0.0, 1.0])):
        turn = np.asarray(observer.layout.view(observer.observe(s, viewer), "turn"))
        assert turn[13:].tolist() == flags, viewer
    # One VSTAR Power a game: not again, this turn or any later one, whichever Stone.
    assert lg_errors(s)[star] == "vstar_used"
    s = state_of(rules, me, {"slots": [[PIDGEY]]}, turn=5, vstar_used=(True, False))
    assert lg_errors(s)[star] == "vstar_used"


def test_leafy_camo_poncho_keeps_the_opponents_supporters_off_a_vmax_not_their_attacks(
    lg_rules, lg_apply, lg_errors
):
    rules = lg_rules
    vmax = [REGIELEKI_V, REGIELEKI_VMAX, PONCHO]
    boss = {"slots": [[PIDGEY]], "hand": [BOSS]}
    s = state_of(rules, boss, {"slots": [[BIDOOF], vmax, [PIDGEY]]})
    s = run(lg_apply, s, [card(rules, "play", BOSS)])
    assert legal(lg_errors, s) == [slot(rules, 8)]  # the Pidgey, never the Poncho's VMAX
    # On a Pokémon V (no VSTAR, no VMAX) it does nothing: Boss's Orders may bring it up.
    s = state_of(rules, boss, {"slots": [[BIDOOF], [REGIELEKI_V, PONCHO], [PIDGEY]]})
    s = run(lg_apply, s, [card(rules, "play", BOSS)])
    assert legal(lg_errors, s) == [slot(rules, 7), slot(rules, 8)]
    # An attack's gust is no Supporter: Eelektross's Suction Shock may choose the VMAX.
    eelektross = {"slots": [[TYNAMO, EELEKTRIK, EELEKTROSS, LIGHTNING]]}
    s = state_of(rules, eelektross, {"slots": [[BIDOOF], vmax, [PIDGEY]]})
    s = run(lg_apply, s, [attack(rules, 0)])
    assert legal(lg_errors, s) == [slot(rules, 7), slot(rules, 8)]
