"""Pokémon setup: opening hands with mulligans and the optional extra draws, face-down placement of
the Active and Bench, Prize cards, the first turn (R1, R2, R4, R5); and the state invariants
(``validate``) on explicit states (along random play: ``api_test`` in ``test_pokemon_env``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from pokemon_testlib import act, names, shared_registry

from tcgjax.core import zones
from tcgjax.core.errors import InvalidStateError
from tcgjax.games.pokemon import rules as R
from tcgjax.games.pokemon.decks import Deck
from tcgjax.games.pokemon.scenario import build_state

KEY = jax.random.PRNGKey(0)


@pytest.fixture(scope="module")
def init(rules):
    return jax.jit(rules.init)


def basics_in_hand(rules, state, player):
    ids = names(rules, state, "hand", player)
    kind, stage = rules.cards.numpy["kind"], rules.cards.numpy["stage"]
    return [c for c in ids if kind[rules.cards.index(c)] == 0 and stage[rules.cards.index(c)] == 1]


def test_setup_places_face_down_then_reveals_and_starts_turn_one(rules, init, apply, errors):
    s = init(jax.random.PRNGKey(3))
    assert R.PHASES[int(s.board.phase)] == "setup_active"  # the test deck: no mulligan here
    first = int(s.first_player)
    assert int(s.board.active_player) == first
    for p in range(2):
        assert len(names(rules, s, "hand", p)) == 7 and len(names(rules, s, "deck", p)) == 53
        assert basics_in_hand(rules, s, p)
    hand = names(rules, s, "hand", first)
    err = errors(s)
    non_basic = [c for c in hand if c not in basics_in_hand(rules, s, first)]
    for card in non_basic:
        assert err[act(rules, "play", card=card)] == "not_a_basic", card
    assert err[act(rules, "done")] == "wrong_phase"  # an Active Pokémon first
    assert err[act(rules, "end_turn")] == "wrong_phase"
    # The first player: an Active and one Bench Pokémon, face down (seen by their owner only).
    placed = []
    for phase in ("setup_active", "setup_bench"):
        assert R.PHASES[int(s.board.phase)] == phase
        card = basics_in_hand(rules, s, first)[0] if phase == "setup_active" else None
        if card is None:
            rest = basics_in_hand(rules, s, first)
            if not rest:
                break
            card = rest[0]
        placed.append(card)
        s, _ = apply(s, jnp.int32(act(rules, "play", card=card)), KEY)
    on_board = np.asarray(R.ZONE_SLOT)[np.asarray(s.board.zone)] >= 0
    assert set(np.asarray(s.board.visibility)[on_board].tolist()) == {zones.OWNER}
    s, _ = apply(s, jnp.int32(act(rules, "done")), KEY)
    # The second player sets up.
    assert int(s.board.active_player) == 1 - first
    assert R.PHASES[int(s.board.phase)] == "setup_active"
    card = basics_in_hand(rules, s, 1 - first)[0]
    s, _ = apply(s, jnp.int32(act(rules, "play", card=card)), KEY)
    assert R.PHASES[int(s.board.phase)] == "setup_bench"
    s, _ = apply(s, jnp.int32(act(rules, "done")), KEY)
    # Prize cards, face up, and the first player's first turn with its draw.
    assert R.PHASES[int(s.board.phase)] == "main"
    assert int(s.board.turn_number) == 1 and int(s.board.active_player) == first
    for p in range(2):
        assert len(names(rules, s, "prizes", p)) == R.PRIZES
    assert len(names(rules, s, "hand", first)) == 7 - len(placed) + 1
    assert len(names(rules, s, "hand", 1 - first)) == 6
    assert len(names(rules, s, "deck", first)) == 60 - 7 - 6 - 1
    on_board = np.asarray(R.ZONE_SLOT)[np.asarray(s.board.zone)] >= 0
    assert set(np.asarray(s.board.visibility)[on_board].tolist()) == {zones.NO_OVERRIDE}
    assert errors(s)[act(rules, "attack", 0)] in ("first_turn_attack", "no_such_attack")
    rules.validate(s)


@pytest.fixture(scope="module")
def scarce_rules():
    """Both decks hold one Basic Pokémon among 59 Energy: mulligans are the rule, not luck."""
    deck = Deck("scarce", "<test deck>", ("t-floater",) + ("sve-4",) * 59)
    return R.PokemonRules((deck, deck), cards=shared_registry(), max_turns=60)


def test_mulligans_until_a_basic_and_the_extra_draws(scarce_rules):
    rules = scarce_rules
    init, apply = jax.jit(rules.init), jax.jit(rules.apply)
    seen_bonus = False
    for k in range(8):
        s = init(jax.random.PRNGKey(k))
        m = np.asarray(s.mulligans)
        bonus = np.asarray(s.bonus_draws)
        for p in range(2):
            assert names(rules, s, "hand", p).count("t-floater") == 1
            assert len(names(rules, s, "hand", p)) == 7
            # Rounds where both mulliganed cancel out (R4): only the difference may be drawn.
            assert bonus[p] == max(int(m[1 - p]) - int(m[p]), 0)
        if bonus.any():
            seen_bonus = True
            p = int(np.flatnonzero(bonus)[0])
            assert R.PHASES[int(s.board.phase)] == "mulligan_draw"
            assert int(s.board.active_player) == p
            s, _ = apply(s, jnp.int32(rules.actions.encode("yes")), KEY)
            assert len(names(rules, s, "hand", p)) == 8
            assert int(s.bonus_draws[p]) == bonus[p] - 1
            if bonus[p] > 1:  # the last allowed draw ends the phase by itself
                assert R.PHASES[int(s.board.phase)] == "mulligan_draw"
                s, _ = apply(s, jnp.int32(rules.actions.encode("done")), KEY)
            assert int(s.bonus_draws[p]) == 0
            assert len(names(rules, s, "hand", p)) == 8
        assert R.PHASES[int(s.board.phase)] == "setup_active"
        assert int(s.board.active_player) == int(s.first_player)
    assert seen_bonus  # with one Basic in 60, 8 deals give unequal mulligans (fixed keys)


# -------------------------------------------------------------------------------------------------
# validate: one broken fact at a time


def base(rules):
    return build_state(
        rules,
        [
            {"hand": ["sv3-68"], "slots": [["sv3-67", "sve-4"], ["sv3-152"]], "damage": {0: 20}},
            {"slots": [["sv3-152"], ["sv3-144"]]},
        ],
    )


def _move(rules, state, card_id, player, zone):
    board = state.board
    card = int(rules.card_of(board, R.zone_of("deck", player), rules.cards.index(card_id)))
    assert card >= 0, f"no {card_id} in the deck of player {player + 1}"
    return state.replace(board=zones.move_card(rules.layout, board, card, zone).board)


BROKEN = {
    "winner without game over": (
        lambda r, s: s.replace(winner=jnp.int8(0), end_reason=jnp.int8(R.END["prizes"])),
        "turnState.phase",
    ),
    "end reason without winner": (lambda r, s: s.replace(end_reason=jnp.int8(1)), "game.endReason"),
    "draw by prizes": (
        lambda r, s: s.replace(
            winner=jnp.int8(R.DRAW),
            end_reason=jnp.int8(R.END["prizes"]),
            board=s.board.replace(phase=jnp.int8(R.PHASE["game_over"])),
        ),
        "game.endReason",
    ),
    "damage not in counters": (lambda r, s: s.replace(damage=s.damage.at[0, 0].set(25)), "damage"),
    "damage reaching HP": (lambda r, s: s.replace(damage=s.damage.at[0, 0].set(40)), "damage"),
    "damage on an empty slot": (lambda r, s: s.replace(damage=s.damage.at[0, 4].set(10)), "damage"),
    "since after the turn": (
        lambda r, s: s.replace(since_turn=s.since_turn.at[1, 1].set(9)),
        "sinceTurn",
    ),
    "evolution under its Basic": (
        lambda r, s: s.replace(
            board=zones.move_card(
                r.layout, s.board, r.card_of(s.board, R.zone_of("hand", 0), r.cards.index("sv3-68")),
                R.slot_zone(0, 0), zones.BOTTOM,
            ).board
        ),
        "slots.active",
    ),
    "card in the other player's slot": (
        lambda r, s: _move(r, s, "sv3-69", 0, R.slot_zone(1, 2)),
        "zoneId",
    ),
    "pile without a Basic": (
        lambda r, s: _move(r, s, "sv3-69", 0, R.slot_zone(0, 3)),
        "slots.bench3",
    ),
    "Trainer in a slot": (lambda r, s: _move(r, s, "sv1-180", 0, R.slot_zone(0, 1)), "slots.bench1"),
    "Stage 2 on a Basic": (lambda r, s: _move(r, s, "sv3-69", 0, R.slot_zone(0, 1)), "slots.bench1"),
    "card in processing": (lambda r, s: _move(r, s, "sve-4", 0, 2 * len(R.PLAYER_ZONES)), "cards."),
    "conditions without an Active": (
        lambda r, s: s.replace(poisoned=s.poisoned.at[1].set(True)).replace(
            board=zones.move_all(r.layout, s.board, R.slot_zone(1, 0), R.zone_of("discard", 1)).board
        ),
        "slots.active",
    ),
    "promotion due in main": (
        lambda r, s: s.replace(must_promote=s.must_promote.at[0].set(True)),
        "mustPromote",
    ),
    "retreat target outside payment": (lambda r, s: s.replace(retreat_to=jnp.int8(2)), "game.retreat"),
    "bonus draws for both": (lambda r, s: s.replace(bonus_draws=jnp.ones(2, jnp.int8)), "bonusDraws"),
    "no prizes while play goes on": (
        lambda r, s: s.replace(
            board=zones.move_all(r.layout, s.board, R.zone_of("prizes", 1), R.zone_of("deck", 1)).board
        ),
        "prizes",
    ),
    "turn beyond the limit": (
        lambda r, s: s.replace(board=s.board.replace(turn_number=jnp.int16(99))),
        "turnNumber",
    ),
    "setup phase in play": (
        lambda r, s: s.replace(board=s.board.replace(phase=jnp.int8(R.PHASE["setup_bench"]))),
        "turnState.phase",
    ),
}  # fmt: skip


def test_the_base_state_is_valid(rules):
    rules.validate(base(rules))


@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_validate_names_the_broken_fact(rules, broken):
    mutate, field = BROKEN[broken]
    state = mutate(rules, base(rules))
    with pytest.raises(InvalidStateError, match=field.replace(".", r"\.")):
        rules.validate(state)
