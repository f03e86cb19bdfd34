"""The Trainers the League Battle Decks share (Professor's Research, Iono, Boss's Orders, Ultra
Ball, Super Rod), from explicit situations, with a test deck of them in both seats
(``st_rules``): discarding the hand, both hands under the decks, a Supporter's gust, a Trainer's
cost of other cards from the hand, the discard pile into the deck."""

from __future__ import annotations

import jax
import pytest
from pokemon_testlib import act, legal, names, phase, pile, run, state_of
from pokemon_testlib import card_action as card
from pokemon_testlib import done_action as done
from pokemon_testlib import slot_action as slot

from tcgjax.core.errors import ConfigError

KEY = jax.random.PRNGKey(0)
RESEARCH_SADA, RESEARCH_TURO, IONO, BOSS = "sv1-189", "sv1-190", "sv2-185", "sv2-172"
ULTRA_BALL, SUPER_ROD, NEMONA = "sv1-196", "sv2-188", "sv1-180"
BUIZEL, FLOATZEL, DELIBIRD, MARILL, CHIEN_PAO, WATER = (
    "sv1-46", "sv1-47", "sv2-46", "sv2-44", "svp-30", "sve-3",
)  # fmt: skip


@pytest.mark.parametrize("research", [RESEARCH_SADA, RESEARCH_TURO])
def test_professors_research_discards_the_hand_and_draws_seven(
    st_rules, st_apply, st_errors, research
):
    rules = st_rules
    top = [WATER, BUIZEL, NEMONA, WATER, DELIBIRD, WATER, MARILL]  # the last is the top card
    s = state_of(rules, {"slots": [[BUIZEL]], "hand": [research, IONO, WATER], "deck": [FLOATZEL] + top},
                 {"slots": [[DELIBIRD]]})  # fmt: skip
    assert st_errors(s)[card(rules, "play", research)] == "ok"
    s = run(st_apply, s, [card(rules, "play", research)])
    assert phase(s) == "main"
    assert names(rules, s, "discard", 0) == [IONO, WATER, research]
    assert names(rules, s, "hand", 0) == top[::-1]
    assert names(rules, s, "deck", 0)[-1] == FLOATZEL
    assert st_errors(s)[card(rules, "play", NEMONA)] == "supporter_done"


def test_professors_research_draws_what_the_deck_holds(st_rules, st_apply):
    from pokemon_testlib import STAPLES_DECK

    rest = list(STAPLES_DECK)
    for used in (BUIZEL, RESEARCH_SADA):
        rest.remove(used)
    s = state_of(
        st_rules,
        {"slots": [[BUIZEL]], "hand": [RESEARCH_SADA], "prizes": [], "discard": rest[:-3],
         "deck": rest[-3:]},
        {"slots": [[DELIBIRD]]},
    )  # fmt: skip
    s = run(st_apply, s, [card(st_rules, "play", RESEARCH_SADA)])
    assert names(st_rules, s, "hand", 0) == rest[-3:][::-1] and names(st_rules, s, "deck", 0) == []
    assert int(s.winner) == -1  # drawing fewer is no loss; only the turn's draw is


def test_the_two_research_printings_count_as_one_name_for_the_copy_rule(st_rules):
    from tcgjax.games.pokemon.decks import load_deck

    cards = {RESEARCH_SADA: 3, RESEARCH_TURO: 2, BUIZEL: 4, WATER: 51}
    with pytest.raises(ConfigError, match="Professor's Research"):
        load_deck({"name": "five research", "cards": cards}, st_rules.cards)
    load_deck({"name": "four", "cards": {**cards, RESEARCH_SADA: 2, WATER: 52}}, st_rules.cards)


def test_iono_puts_both_hands_under_the_decks_and_draws_by_prizes_left(st_rules, st_apply):
    rules = st_rules
    s = state_of(
        rules,
        {"slots": [[BUIZEL]], "hand": [IONO, NEMONA, MARILL], "prizes": [WATER, WATER],
         "deck": [FLOATZEL, DELIBIRD, WATER]},
        {"slots": [[DELIBIRD]], "hand": [ULTRA_BALL, SUPER_ROD, BOSS],
         "prizes": [WATER] * 4, "deck": [BUIZEL, BUIZEL, MARILL, WATER, NEMONA]},
    )  # fmt: skip
    deck0, deck1 = names(rules, s, "deck", 0), names(rules, s, "deck", 1)
    s = run(st_apply, s, [card(rules, "play", IONO)])
    assert phase(s) == "main" and names(rules, s, "discard", 0) == [IONO]
    # Player 1: 2 Prize cards left, draws 2 (the old top); the old hand is the bottom of the deck.
    assert names(rules, s, "hand", 0) == [WATER, DELIBIRD]
    assert sorted(names(rules, s, "deck", 0)[:2]) == sorted([NEMONA, MARILL])
    assert names(rules, s, "deck", 0)[2:] == deck0[:-2]
    # Player 2: 4 Prize cards left, draws 4; their hand went under their deck too.
    assert names(rules, s, "hand", 1) == [NEMONA, WATER, MARILL, BUIZEL]
    assert sorted(names(rules, s, "deck", 1)[:3]) == sorted([ULTRA_BALL, SUPER_ROD, BOSS])
    assert names(rules, s, "deck", 1)[3:] == deck1[:-4]


def test_iono_with_both_hands_empty_draws_nothing(st_rules, st_apply):
    s = state_of(
        st_rules, {"slots": [[BUIZEL]], "hand": [IONO]}, {"slots": [[DELIBIRD]], "hand": []}
    )
    s = run(st_apply, s, [card(st_rules, "play", IONO)])
    assert names(st_rules, s, "hand", 0) == [] and names(st_rules, s, "hand", 1) == []


def test_bosss_orders_brings_a_benched_pokemon_up_even_a_protected_one(
    st_rules, st_apply, st_errors
):
    rules = st_rules
    p1 = {"slots": [[BUIZEL]], "hand": [BOSS]}
    s = state_of(rules, p1, {"slots": [[DELIBIRD], [MARILL], [CHIEN_PAO]]})
    # Protected from attack effects (turn 3 through the opponent's next turn): not from Trainers.
    s = s.replace(protected_turn=s.protected_turn.at[1, 2].set(4))
    assert st_errors(s)[card(rules, "play", BOSS)] == "ok"
    s = run(st_apply, s, [card(rules, "play", BOSS)])
    assert legal(st_errors, s) == [slot(rules, 7), slot(rules, 8)]  # the opponent's Bench only
    s = run(st_apply, s, [slot(rules, 8)])
    assert pile(rules, s, 1, 0) == [CHIEN_PAO] and pile(rules, s, 1, 2) == [DELIBIRD]
    no_bench = state_of(rules, p1, {"slots": [[DELIBIRD]]})
    assert st_errors(no_bench)[card(rules, "play", BOSS)] == "no_effect"


def test_ultra_ball_discards_two_other_cards_then_finds_a_pokemon(st_rules, st_apply, st_errors):
    rules = st_rules
    s = state_of(rules, {"slots": [[BUIZEL]], "hand": [ULTRA_BALL, NEMONA, WATER, IONO]},
                 {"slots": [[DELIBIRD]]})  # fmt: skip
    s = run(st_apply, s, [card(rules, "play", ULTRA_BALL)])
    # The cost: 2 cards of the hand (not the Ultra Ball, which is being played), no stopping.
    assert legal(st_errors, s) == sorted(
        card(rules, "select_card", c) for c in (NEMONA, WATER, IONO)
    )
    s = run(st_apply, s, [card(rules, "select_card", WATER), card(rules, "select_card", IONO)])
    assert names(rules, s, "discard", 0) == [WATER, IONO] and phase(s) == "select"
    # Then a Pokémon from the deck ("up to": a hidden search).
    err = st_errors(s)
    assert err[card(rules, "select_card", CHIEN_PAO)] == "ok" and err[done(rules)] == "ok"
    assert err[card(rules, "select_card", WATER)] == "not_a_choice"
    s = run(st_apply, s, [card(rules, "select_card", CHIEN_PAO)])
    assert phase(s) == "main" and names(rules, s, "hand", 0) == [NEMONA, CHIEN_PAO]
    assert names(rules, s, "discard", 0) == [WATER, IONO, ULTRA_BALL]


def test_ultra_ball_needs_two_other_cards_in_the_hand(st_rules, st_errors):
    for hand, expected in (([ULTRA_BALL, WATER], "no_effect"), ([ULTRA_BALL, ULTRA_BALL], "no_effect"),
                           ([ULTRA_BALL, ULTRA_BALL, WATER], "ok")):  # fmt: skip
        s = state_of(st_rules, {"slots": [[BUIZEL]], "hand": hand}, {"slots": [[DELIBIRD]]})
        assert st_errors(s)[card(st_rules, "play", ULTRA_BALL)] == expected, hand


def test_super_rod_shuffles_up_to_three_pokemon_and_basic_energy_into_the_deck(
    st_rules, st_apply, st_errors
):
    rules = st_rules
    s = state_of(rules, {"slots": [[BUIZEL]], "hand": [SUPER_ROD],
                         "discard": [MARILL, NEMONA, WATER, DELIBIRD, WATER]},
                 {"slots": [[DELIBIRD]]})  # fmt: skip
    deck_before = names(rules, s, "deck", 0)
    s = run(st_apply, s, [card(rules, "play", SUPER_ROD)])
    err = st_errors(s)
    assert err[card(rules, "select_card", NEMONA)] == "not_a_choice"  # a Supporter
    assert [err[card(rules, "select_card", c)] for c in (MARILL, WATER, DELIBIRD)] == ["ok"] * 3
    assert err[done(rules)] == "ok"  # "up to"
    s = run(st_apply, s, [card(rules, "select_card", c) for c in (MARILL, WATER, WATER)])
    assert phase(s) == "main"
    assert names(rules, s, "discard", 0) == [NEMONA, DELIBIRD, SUPER_ROD]
    deck = names(rules, s, "deck", 0)
    assert sorted(deck) == sorted(deck_before + [MARILL, WATER, WATER])
    assert deck[: len(deck_before)] != deck_before  # shuffled in
    nothing = state_of(rules, {"slots": [[BUIZEL]], "hand": [SUPER_ROD], "discard": [NEMONA]},
                       {"slots": [[DELIBIRD]]})  # fmt: skip
    assert st_errors(nothing)[card(rules, "play", SUPER_ROD)] == "no_effect"


# -------------------------------------------------------------------------------------------------
# Pokémon Tools: attached with attach[d, slot], one a Pokémon, as many a turn as the player likes

VITALITY_BAND, BRAVERY_CHARM, DEFIANCE_BAND = "sv1-197", "sv2-173", "sv1-169"


def attach(rules, card_id, k):
    return act(rules, "attach", k, card=card_id)


def test_a_tool_is_attached_one_a_pokemon_and_is_not_the_turns_energy(
    st_rules, st_apply, st_errors
):
    rules = st_rules
    s = state_of(rules, {"slots": [[BUIZEL], [MARILL]], "hand": [VITALITY_BAND, BRAVERY_CHARM, WATER]},
                 {"slots": [[DELIBIRD]]})  # fmt: skip
    err = st_errors(s)
    assert err[card(rules, "play", VITALITY_BAND)] == "tool_is_attached"
    assert err[attach(rules, VITALITY_BAND, 2)] == "empty_slot"
    assert err[attach(rules, NEMONA, 0)] == "not_in_hand"
    s = run(st_apply, s, [attach(rules, VITALITY_BAND, 0)])
    assert pile(rules, s, 0, 0) == [BUIZEL, VITALITY_BAND] and not bool(s.energy_attached)
    err = st_errors(s)
    assert err[attach(rules, BRAVERY_CHARM, 0)] == "tool_done"  # one Tool a Pokémon
    assert err[attach(rules, BRAVERY_CHARM, 1)] == "ok" and err[attach(rules, WATER, 0)] == "ok"
    s = run(st_apply, s, [attach(rules, WATER, 0), attach(rules, BRAVERY_CHARM, 1)])
    assert pile(rules, s, 0, 1) == [MARILL, BRAVERY_CHARM] and bool(s.energy_attached)
    rules.validate(s)


def test_vitality_band_adds_10_to_damage_on_the_active_only_when_the_attack_does_damage(
    st_rules, st_apply
):
    rules = st_rules
    s = state_of(rules, {"slots": [[BUIZEL, WATER, WATER, VITALITY_BAND]]},
                 {"slots": [[DELIBIRD], [MARILL]]})  # fmt: skip
    s = run(st_apply, s, [act(rules, "attack", 1)])  # Razor Fin, 20
    assert int(s.damage[1, 0]) == 30
    s = state_of(rules, {"slots": [[DELIBIRD, WATER, VITALITY_BAND]], "hand": []},
                 {"slots": [[BUIZEL], [MARILL]]})  # fmt: skip
    s = run(st_apply, s, [act(rules, "attack", 0)])  # Double Draw: no damage, no bonus
    assert int(s.damage[1, 0]) == 0


def test_bravery_charm_gives_a_basic_50_hp(st_rules, st_apply):
    rules = st_rules
    s = state_of(rules, {"slots": [[BUIZEL, BRAVERY_CHARM], [BUIZEL, FLOATZEL, BRAVERY_CHARM]]},
                 {"slots": [[DELIBIRD]]})  # fmt: skip
    hp = jax.jit(rules.slot_view)(s)["hp"]
    assert (int(hp[0, 0]), int(hp[0, 1])) == (70 + 50, 120)  # an evolved holder gets nothing
    # 100 damage does not Knock Out a 120-HP Buizel.
    s = state_of(rules, {"slots": [[BUIZEL, BRAVERY_CHARM], [MARILL]], "damage": {0: 90}},
                 {"slots": [[MARILL, WATER, WATER]]}, active=1)  # fmt: skip
    s = run(st_apply, s, [act(rules, "attack", 0)])  # Bubble Drain, 20
    assert int(s.damage[0, 0]) == 110 and pile(rules, s, 0, 0) == [BUIZEL, BRAVERY_CHARM]


def test_defiance_band_adds_30_while_behind_on_prizes(st_rules, st_apply):
    rules = st_rules
    for mine, theirs, damage in ((4, 2, 20 + 30), (3, 3, 20), (2, 4, 20)):
        s = state_of(
            rules,
            {"slots": [[BUIZEL, WATER, WATER, DEFIANCE_BAND]], "prizes": [NEMONA] * mine},
            {"slots": [[DELIBIRD], [MARILL]], "prizes": [NEMONA] * theirs},
        )
        s = run(st_apply, s, [act(rules, "attack", 1)])
        assert int(s.damage[1, 0]) == damage, (mine, theirs)


def test_a_tool_stays_through_evolution_is_not_retreat_energy_and_goes_with_its_pokemon(
    st_rules, st_apply, st_errors
):
    rules = st_rules
    s = state_of(rules, {"slots": [[BUIZEL, VITALITY_BAND, WATER], [MARILL]], "hand": [FLOATZEL]},
                 {"slots": [[DELIBIRD]]})  # fmt: skip
    s = run(st_apply, s, [act(rules, "evolve", 0, card=FLOATZEL)])
    assert pile(rules, s, 0, 0) == [BUIZEL, VITALITY_BAND, WATER, FLOATZEL]
    s = run(st_apply, s, [rules.actions.encode("retreat", 0)])  # Floatzel's retreat cost is 1
    err = st_errors(s)
    assert err[card(rules, "select_card", VITALITY_BAND)] == "not_attached"
    assert err[card(rules, "select_card", WATER)] == "ok"
    # Knocked Out: the Tool goes to the discard pile with the rest of the pile.
    s = state_of(rules, {"slots": [[MARILL, WATER, WATER]]},
                 {"slots": [[BUIZEL, VITALITY_BAND], [MARILL]], "damage": {0: 60}})  # fmt: skip
    s = run(st_apply, s, [act(rules, "attack", 0)])  # Bubble Drain, 20: the Buizel is out
    assert sorted(names(rules, s, "discard", 1)) == sorted([BUIZEL, VITALITY_BAND])


def test_validate_refuses_two_tools_on_a_pokemon(st_rules):
    s = state_of(
        st_rules, {"slots": [[BUIZEL, VITALITY_BAND, DEFIANCE_BAND]]}, {"slots": [[DELIBIRD]]}
    )
    with pytest.raises(Exception, match="more than one Pokémon Tool on a Pokémon"):
        st_rules.validate(s)


def test_a_tool_row_the_rules_do_not_read_is_refused_by_name(tmp_path):
    import yaml

    from tcgjax.core.errors import CardDataError
    from tcgjax.games.pokemon.cards import SHIPPED_CARDS, load_cards

    cards = yaml.safe_load(open(SHIPPED_CARDS, encoding="utf-8"))["cards"]
    band = next(c for c in cards if c["id"] == VITALITY_BAND)
    for rows, message in (
        ([{"where": "play", "op": "draw", "count": 1}], "a Pokémon Tool's rows are its attacks'"),
        ([{"where": "attached", "op": "heal", "amount": 10}], "a Pokémon Tool's rows are its attacks'"),
        # An attack's op while attached; an attack row of a Tool that gives no attack.
        ([{"where": "attached", "op": "evolve_from_deck", "count": 2}], "rows are its attacks'"),
        ([{"where": "attack0", "op": "evolve_from_deck", "count": 2}], "a row for attack0"),
        ([{"where": "attached", "op": "extra_damage", "amount": 10, "gate": "condition",
           "condition": "hand_sizes_equal"}], "a Tool's row condition is one of"),
    ):  # fmt: skip
        band["effects"] = rows
        path = tmp_path / "cards.yaml"
        path.write_text(yaml.safe_dump({"cards": cards}, allow_unicode=True), encoding="utf-8")
        with pytest.raises(CardDataError, match=f"{VITALITY_BAND}.*effects.*{message}"):
            load_cards(path)


# -------------------------------------------------------------------------------------------------
# Rare Candy: a Stage 2 from the hand onto its Basic, skipping the Stage 1

RARE_CANDY, FRIGIBAX, ARCTIBAX, BAXCALIBUR = "sv1-191", "sv2-58", "sv2-59", "sv2-60"


def test_rare_candy_puts_a_stage_2_on_its_basic(st_rules, st_apply, st_errors):
    rules = st_rules
    s = state_of(
        rules,
        {"slots": [[FRIGIBAX], [BUIZEL], [FRIGIBAX]], "hand": [RARE_CANDY, BAXCALIBUR, FLOATZEL],
         "conditions": {"poisoned": True}},
        {"slots": [[DELIBIRD]]},
    )  # fmt: skip
    assert st_errors(s)[card(rules, "play", RARE_CANDY)] == "ok"
    s = run(st_apply, s, [card(rules, "play", RARE_CANDY)])
    # The Stage 2 first (not the Stage 1 Floatzel, which evolve[] plays), then its Basic.
    assert legal(st_errors, s) == [card(rules, "select_card", BAXCALIBUR)]
    s = run(st_apply, s, [card(rules, "select_card", BAXCALIBUR)])
    assert legal(st_errors, s) == [slot(rules, 0), slot(rules, 2)]  # the Frigibax, not the Buizel
    s = run(st_apply, s, [slot(rules, 0)])
    assert phase(s) == "main" and pile(rules, s, 0, 0) == [FRIGIBAX, BAXCALIBUR]
    assert names(rules, s, "discard", 0) == [RARE_CANDY] and names(rules, s, "hand", 0) == [
        FLOATZEL
    ]
    # Evolving: new this turn (no evolving again), no Special Condition left.
    assert int(s.since_turn[0, 0]) == 3 and not bool(s.poisoned[0])
    rules.validate(s)


def test_rare_candy_needs_a_stage_2_and_a_basic_ready_to_evolve(st_rules, st_errors):
    rules = st_rules
    play = card(rules, "play", RARE_CANDY)
    cases = [
        ({"slots": [[FRIGIBAX]], "hand": [RARE_CANDY, BAXCALIBUR]}, {}, "ok"),
        ({"slots": [[FRIGIBAX]], "hand": [RARE_CANDY, BAXCALIBUR]}, {"turn": 2, "first_player": 1},
         "no_effect"),  # the second player's first turn
        ({"slots": [[FRIGIBAX]], "hand": [RARE_CANDY, BAXCALIBUR], "since": {0: 3}}, {},
         "no_effect"),  # put into play this turn
        ({"slots": [[FRIGIBAX]], "hand": [RARE_CANDY, ARCTIBAX]}, {}, "no_effect"),  # a Stage 1
        ({"slots": [[BUIZEL]], "hand": [RARE_CANDY, BAXCALIBUR]}, {}, "no_effect"),  # no Frigibax
        ({"slots": [[FRIGIBAX, ARCTIBAX]], "hand": [RARE_CANDY, BAXCALIBUR]}, {}, "no_effect"),
    ]  # fmt: skip
    for p1, kw, expected in cases:
        s = state_of(rules, p1, {"slots": [[DELIBIRD]]}, **kw)
        assert st_errors(s)[play] == expected, (p1, kw)


# -------------------------------------------------------------------------------------------------
# Arven (an Item and a Tool) and Buddy-Buddy Poffin (Basics of 70 HP or less)

ARVEN, POFFIN = "sv1-166", "sv5-144"


def test_arven_takes_an_item_then_a_tool(st_rules, st_apply, st_errors):
    rules = st_rules
    prizes = [NEMONA] * 4 + [IONO] * 2  # (not the deck's top cards, which hold what Arven finds)
    s = state_of(
        rules, {"slots": [[BUIZEL]], "hand": [ARVEN], "prizes": prizes}, {"slots": [[DELIBIRD]]}
    )
    s = run(st_apply, s, [card(rules, "play", ARVEN)])
    err = st_errors(s)
    assert [err[card(rules, "select_card", c)] for c in (ULTRA_BALL, RARE_CANDY, POFFIN)] == [
        "ok"
    ] * 3
    for other in (VITALITY_BAND, NEMONA, BUIZEL, WATER):  # the Tool comes second
        assert err[card(rules, "select_card", other)] == "not_a_choice", other
    s = run(st_apply, s, [card(rules, "select_card", ULTRA_BALL)])
    err = st_errors(s)
    assert err[card(rules, "select_card", VITALITY_BAND)] == "ok"
    assert err[card(rules, "select_card", SUPER_ROD)] == "not_a_choice"
    s = run(st_apply, s, [card(rules, "select_card", DEFIANCE_BAND)])
    assert phase(s) == "main" and names(rules, s, "hand", 0) == [ULTRA_BALL, DEFIANCE_BAND]


def test_buddy_buddy_poffin_benches_up_to_two_basics_of_70_hp_or_less(
    st_rules, st_apply, st_errors
):
    rules = st_rules
    prizes = [NEMONA] * 4 + [IONO] * 2
    s = state_of(
        rules, {"slots": [[DELIBIRD]], "hand": [POFFIN], "prizes": prizes}, {"slots": [[DELIBIRD]]}
    )
    s = run(st_apply, s, [card(rules, "play", POFFIN)])
    err = st_errors(s)
    assert [err[card(rules, "select_card", c)] for c in (BUIZEL, MARILL, FRIGIBAX)] == ["ok"] * 3
    # 90 HP, 220 HP and a Stage 1 are not.
    for other in (DELIBIRD, CHIEN_PAO, FLOATZEL):
        assert err[card(rules, "select_card", other)] == "not_a_choice", other
    assert err[done(rules)] == "ok"
    s = run(st_apply, s, [card(rules, "select_card", MARILL), card(rules, "select_card", FRIGIBAX)])
    assert phase(s) == "main"
    assert [pile(rules, s, 0, k) for k in (1, 2)] == [[MARILL], [FRIGIBAX]]
