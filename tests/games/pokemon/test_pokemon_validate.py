"""Pokémon ``validate`` as one invariant table (issue #33): every state leaf named by an
invariant, each invariant refusing a state that breaks only it, a reachable mid-attack state with
damage past the HP accepted (random play validated and round-tripped through JSON: in
test_pokemon_env.py's 100k-step test)."""

from __future__ import annotations

import functools
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from pokemon_testlib import shipped_env

import tcgjax
from tcgjax.core import zones
from tcgjax.core.errors import InvalidStateError
from tcgjax.core.invariants import leaf_paths
from tcgjax.games.pokemon import rules as R
from tcgjax.games.pokemon.effects import ATTACK
from tcgjax.games.pokemon.scenario import build_state

KEY = jax.random.PRNGKey(0)


@pytest.fixture(scope="module")
def env():
    return shipped_env()  # tapu_koko (player 1) against melmetal_dte (player 2)


@pytest.fixture(scope="module")
def rules(env):
    return env.rules


@pytest.fixture(scope="module")
def table(rules):
    return R.build_invariants(rules)


@functools.cache
def _wrapper(env):
    """``wrap`` for ``env``, jitted (op-by-op, ``init`` and ``finalize`` compiled ~200 small
    programs)."""
    blank = jax.jit(env.init)(KEY)

    @jax.jit
    def wrap_game(game):
        state = blank.replace(game=game)
        return env.finalize(state.replace(terminated=jnp.asarray(env._is_terminal(game), bool)))

    return wrap_game


def wrap(env, game):
    """An env ``State`` around a rules state (derived fields recomputed)."""
    return _wrapper(env)(game)


def round_trips(env, state):
    back = tcgjax.from_json(env, tcgjax.to_json(env, state))
    same = jax.tree.map(lambda a, b: np.array_equal(np.asarray(a), np.asarray(b)), state, back)
    return all(jax.tree.leaves(same))


# -------------------------------------------------------------------------------------------------
# The reachable mid-attack state (issue #33: it was refused with "damage: 90 (HP 70)")


def zacian_situation(rules):
    """Melmetal's Zacian (player 2, to act on turn 4) attacks a Yamper (70 HP) with 60 damage:
    Iron Roar's 30 lands, then it waits on a card choice (a Metal Energy from the discard pile to
    a Benched Pokémon) while the Yamper's Knock Out waits for the attack to finish."""
    return build_state(
        rules,
        [
            {"slots": [["sv5-58"], ["sv3-67"]], "damage": {0: 60}},
            {"slots": [["sv4-136", "sve-8"], ["sv3-152"]], "discard": ["sve-8"]},
        ],
        active=1,
        turn=4,
        first_player=0,
    )


@pytest.fixture(scope="module")
def step(env):
    return jax.jit(env.step)


@pytest.fixture(scope="module")
def mid_attack(env, rules, step):
    start = wrap(env, zacian_situation(rules))
    env.validate(start)
    attack = env.action_layout.encode("attack", 0)
    return step(start, jnp.int32(attack), KEY)


def test_mid_attack_state_with_damage_past_hp_is_valid_and_round_trips(env, rules, mid_attack):
    game = mid_attack.game
    assert int(mid_attack.error) == 0
    assert R.PHASES[int(game.board.phase)] == "select" and int(game.effect_kind) == ATTACK
    assert int(game.damage[0, 0]) == 90  # 90 on a 70-HP Yamper: its Knock Out is pending
    env.validate(mid_attack)
    assert round_trips(env, mid_attack)
    # Off an attack, the same damage is refused.
    done = game.replace(effect_kind=jnp.int8(0))
    with pytest.raises(InvalidStateError, match="damage"):
        rules.validate(done)


# -------------------------------------------------------------------------------------------------
# The table


def test_every_leaf_is_named(table, rules):
    state = zacian_situation(rules)
    assert table.uncovered(state) == []
    assert set(table.exempt) <= set(leaf_paths(state))
    assert len(table) >= 40


def test_base_states_break_nothing(table, rules, mid_attack):
    for state in (zacian_situation(rules), mid_attack.game):
        assert [row.rule for row in table.broken(R.state_facts(rules, state))] == []


def _set(field, value):
    def mutate(r, s):
        return s.replace(**{field: jnp.asarray(value, getattr(s, field).dtype)})

    return mutate


def _board(field, fn):
    def mutate(r, s):
        return s.replace(board=s.board.replace(**{field: fn(getattr(s.board, field))}))

    return mutate


def _sel(**kw):
    def mutate(r, s):
        return s.replace(
            selection=s.selection.replace(
                **{k: jnp.asarray(v, getattr(s.selection, k).dtype) for k, v in kw.items()}
            )
        )

    return mutate


def _queue(i, **kw):
    def mutate(r, s):
        q = s.queue
        return s.replace(queue=q.replace(**{k: getattr(q, k).at[i].set(v) for k, v in kw.items()}))

    return mutate


def _to_zone(card_id, player, zone_fn):
    def mutate(r, s):
        board = s.board
        card = int(r.card_of(board, R.zone_of("deck", player), r.cards.index(card_id)))
        return s.replace(board=zones.move_card(r.layout, board, card, zone_fn(r, s)).board)

    return mutate


# (name, base "main" or "mid", mutation, expected path): the first row it breaks reports the path.
BROKEN = [
    ("phase out of range", "main", _board("phase", lambda x: jnp.int8(42)), "turnState.phase"),
    ("winner unknown", "main", _set("winner", 5), "game.winner"),
    ("end reason without winner", "main", _set("end_reason", R.END["prizes"]), "game.endReason"),
    ("result in main", "main",
     lambda r, s: s.replace(winner=jnp.int8(0), end_reason=jnp.int8(R.END["illegal_action"])),
     "turnState.phase"),
    ("first player 3", "main", _set("first_player", 3), "turnState.activePlayerId"),
    ("a matchup the rules lack", "main", _set("deck_pair", 1), "game.deckPair"),
    ("setup phase in play", "main",
     _board("phase", lambda x: jnp.int8(R.PHASE["setup_bench"])), "turnState.phase"),
    ("play before placement", "main", _set("placed", [True, False]), "game.placed"),
    ("turn beyond the limit", "main",
     _board("turn_number", lambda x: jnp.int16(400)), "turnState.turnNumber"),
    ("owner swapped", "main",
     _board("owner", lambda x: x.at[0].set(1).at[60].set(0)), "cards.ownerId"),
    ("zone out of range", "main", _board("zone", lambda x: x.at[0].set(99)), "cards.zoneId"),
    ("positions with a gap", "main",
     _board("position", lambda x: x.at[0].add(70)), "cards.position"),
    ("card in processing", "main",
     _to_zone("sv1-180", 0, lambda r, s: 2 * len(R.PLAYER_ZONES)), "cards.zoneId"),
    ("card looked at in main", "main",
     _to_zone("sve-4", 0, lambda r, s: R.zone_of("looking", 0)), "cards.zoneId"),
    ("an Energy in play as the Stadium", "main",
     _to_zone("sve-4", 0, lambda r, s: R.STADIUM_ZONE), "cards.zoneId"),
    ("Rare Candy's Stage 2 left recorded between actions", "main", _set("evolved_card", 3),
     "game.evolved"),
    ("a Pokémon marked evolved by TM: Evolution with no activation", "main",
     lambda r, s: s.replace(effect_evolved=s.effect_evolved.at[2].set(True)),
     "game.effectEvolved"),
    ("a Quick Search used, no Pidgeot ex in the decks", "main",
     lambda r, s: s.replace(abilities_used_by_name=jnp.ones_like(s.abilities_used_by_name)),
     "game.abilitiesUsedByName"),
    ("visibility override in play", "main",
     _board("visibility", lambda x: x.at[0].set(zones.OWNER)), "cards.visibilityOverride"),
    ("player attribute", "main",
     _board("player_attributes", lambda x: jnp.ones((2, 1), jnp.int16)), "cards.attributes"),
    ("negative version", "main", _board("version", lambda x: jnp.int32(-1)), "version"),
    ("no prizes", "main",
     lambda r, s: s.replace(board=zones.move_all(
         r.layout, s.board, R.zone_of("prizes", 0), R.zone_of("deck", 0)).board),
     "players.player1.prizes"),
    ("Trainer in a slot", "main",
     _to_zone("sv1-180", 0, lambda r, s: R.slot_zone(0, 2)), "players.player1.slots.bench2"),
    ("damage reaching HP off an attack", "main",
     lambda r, s: s.replace(damage=s.damage.at[0, 0].set(70)),
     "players.player1.slots.active.damage"),
    ("since after the turn", "main",
     lambda r, s: s.replace(since_turn=s.since_turn.at[0, 1].set(9)),
     "players.player1.slots.bench1.sinceTurn"),
    ("Ability used by the opponent", "main",
     lambda r, s: s.replace(ability_used=s.ability_used.at[0, 1].set(True)),
     "players.player1.slots.bench1.abilityUsed"),
    ("can't attack on an empty slot", "main",
     lambda r, s: s.replace(cannot_attack_turn=s.cannot_attack_turn.at[1, 4].set(5)),
     "players.player2.slots.bench4.cannotAttackTurn"),
    ("protected past the next turn", "main",
     lambda r, s: s.replace(protected_turn=s.protected_turn.at[1, 0].set(9)),
     "players.player2.slots.active.protectedTurn"),
    ("a VSTAR Power used with none in the deck", "main",
     lambda r, s: s.replace(vstar_used=jnp.asarray([True, False])), "game.vstarUsed"),
    ("damage reduced on a Benched Pokémon", "main",
     lambda r, s: s.replace(reduced_turn=s.reduced_turn.at[0, 1].set(4)),
     "players.player1.slots.bench1.reducedTurn"),
    ("an attack locked on a Benched Pokémon", "main",
     lambda r, s: s.replace(locked_turn=s.locked_turn.at[1, 1].set(5)),
     "players.player2.slots.bench1.lockedAttack"),
    ("must promote with an Active", "main",
     lambda r, s: s.replace(must_promote=jnp.asarray([False, True])),
     "players.player2.mustPromote"),
    ("rotated out of range", "main",
     lambda r, s: s.replace(rotated=s.rotated.at[0].set(7)), "players.player1.conditions"),
    ("negative mulligans", "main", _set("mulligans", [-1, 0]), "game.bonusDraws"),
    ("bonus draws beyond the mulligans", "main", _set("bonus_draws", [1, 0]), "game.bonusDraws"),
    ("the wrong player acts", "main",
     _board("active_player", lambda x: jnp.int8(0)), "turnState.activePlayerId"),
    ("Checkup due in main", "main", _set("promote_then", R.THEN_CHECKUP), "game.promoteThen"),
    ("turn ending between actions", "main", _set("turn_ending", True), "game.turnEnding"),
    ("Supporter on turn 1", "main",
     lambda r, s: s.replace(supporter_played=jnp.bool_(True),
                            board=s.board.replace(turn_number=jnp.int16(1),
                                                  active_player=jnp.int8(0))),
     "game.turnFlags"),
    ("retreat units outside payment", "main", _set("retreat_units_left", 1), "game.retreat"),
    ("effect kind 9", "main", _set("effect_kind", 9), "game.effect"),
    ("promote phase with no promotion due", "main",
     _board("phase", lambda x: jnp.int8(R.PHASE["promote"])), "game.mustPromote"),
    ("a card of the other deck", "main",
     lambda r, s: s.replace(board=s.board.replace(
         definition=s.board.definition.at[0].set(r.cards.index("svp-104")))),
     "players.player1"),
    ("no Active while play goes on", "main",
     lambda r, s: s.replace(board=zones.move_all(
         r.layout, s.board, R.slot_zone(1, 0), R.zone_of("discard", 1)).board),
     "players.player2.slots.active"),
    ("bonus draws in main", "main",
     lambda r, s: s.replace(bonus_draws=jnp.asarray([1, 0], jnp.int8),
                            mulligans=jnp.asarray([0, 1], jnp.int8)),
     "game.bonusDraws"),
    ("an attack in progress with no choice", "main", _set("effect_kind", ATTACK), "game.effect"),
    ("a draw by prizes", "main",
     lambda r, s: s.replace(winner=jnp.int8(R.DRAW), end_reason=jnp.int8(R.END["prizes"]),
                            board=s.board.replace(phase=jnp.int8(R.PHASE["game_over"]))),
     "game.endReason"),
    ("prizes won with Prize cards left", "main",
     lambda r, s: s.replace(winner=jnp.int8(0), end_reason=jnp.int8(R.END["prizes"]),
                            board=s.board.replace(phase=jnp.int8(R.PHASE["game_over"]))),
     "game.endReason"),
    ("no_pokemon while the loser has an Active", "main",
     lambda r, s: s.replace(winner=jnp.int8(0), end_reason=jnp.int8(R.END["no_pokemon"]),
                            board=s.board.replace(phase=jnp.int8(R.PHASE["game_over"]))),
     "game.endReason"),
    ("deck_out while the loser has a deck", "main",
     lambda r, s: s.replace(winner=jnp.int8(1), end_reason=jnp.int8(R.END["deck_out"]),
                            board=s.board.replace(phase=jnp.int8(R.PHASE["game_over"]))),
     "game.endReason"),
    ("Ability used by a Pokémon without one", "main",
     lambda r, s: s.replace(ability_used=s.ability_used.at[1, 0].set(True)),
     "players.player2.slots.active.abilityUsed"),
    ("can't attack in the opponent's turn", "main",
     lambda r, s: s.replace(cannot_attack_turn=s.cannot_attack_turn.at[1, 0].set(5)),
     "players.player2.slots.active.cannotAttackTurn"),
    ("protected in its owner's turn", "main",
     lambda r, s: s.replace(protected_turn=s.protected_turn.at[1, 0].set(4)),
     "players.player2.slots.active.protectedTurn"),
    ("the second player placed first", "main",
     lambda r, s: s.replace(placed=jnp.asarray([False, True]), board=s.board.replace(
         phase=jnp.int8(R.PHASE["setup_active"]), turn_number=jnp.int16(1))),
     "game.placed"),
    ("a choice pending in main", "mid",
     _board("phase", lambda x: jnp.int8(R.PHASE["main"])), "game.selection"),
    ("selection left without a choice", "main", _sel(left=2), "game.selection"),
    ("coin without an activation", "main", _set("coin", 1), "game.effect"),
    ("effect player without an activation", "main", _set("effect_player", 1), "game.effect"),
    ("left 0 while pending", "mid", _sel(left=0), "game.selection"),
    ("stage 5", "mid", _sel(stage=5), "game.selection"),
    ("resume promote", "mid", _sel(resume=R.PHASE["promote"]), "game.selection"),
    ("selection row the card lacks", "mid", _sel(row=5), "game.selection"),
    ("attack index past the attacks", "mid", _set("attack_index", 3), "game.effect"),
    ("attack without its damage", "mid", _set("damage_dealt", False), "game.effect"),
    ("coin 2", "mid", _set("coin", 2), "game.effect"),
    ("odd bonus damage", "mid", _set("bonus_damage", 15), "game.effect"),
    ("queue not packed", "mid", _queue(1, card=0, row=0, slot=0), "game.queue"),
    ("empty queue entry with a row", "mid", _queue(2, row=1), "game.queue"),
    ("queue group past Q", "mid",
     lambda r, s: _queue(0, card=s.effect_card, row=0, slot=0, group=99)(r, s), "game.queue"),
]  # fmt: skip


@pytest.mark.parametrize("name, base, mutate, path", BROKEN, ids=[b[0] for b in BROKEN])
def test_each_invariant_refuses_a_state_that_breaks_it(
    table, rules, mid_attack, name, base, mutate, path
):
    start = zacian_situation(rules) if base == "main" else mid_attack.game
    state = mutate(rules, start)
    broken = table.broken(R.state_facts(rules, state))
    assert path in {row.path for row in broken}, [(r.path, r.rule) for r in broken]
    with pytest.raises(InvalidStateError) as info:
        rules.validate(state)
    assert info.value.field == path


def _kind(path):
    """A path with its player and slot made generic (``players.playerN.slots.S.damage``)."""
    return re.sub(r"slots\.\w+", "slots.S", re.sub(r"player\d", "playerN", path))


def test_every_kind_of_path_has_a_breaking_state(table):
    assert {_kind(row.path) for row in table} <= {_kind(b[3]) for b in BROKEN}


# Values one past either end of their range (mutation testing found the bounds unguarded: a
# later row refused the same states under the same path).
RANGE_ENDS = [
    (_board("phase", lambda x: jnp.int8(-1)), "a phase of PHASES"),
    (_board("phase", lambda x: jnp.int8(len(R.PHASES))), "a phase of PHASES"),
    (_set("end_reason", -1), "winner in {-1, 0, 1, 2}, a known end reason"),
    (_set("end_reason", len(R.END_REASONS)), "winner in {-1, 0, 1, 2}, a known end reason"),
]


@pytest.mark.parametrize("mutate, rule", RANGE_ENDS)
def test_values_past_their_range_break_the_range_row_first(table, rules, mutate, rule):
    state = mutate(rules, zacian_situation(rules))
    assert table.broken(R.state_facts(rules, state))[0].rule == rule


def test_every_rule_is_the_first_broken_by_some_case(table, rules, mid_attack):
    first = set()
    for _, base, mutate, _ in BROKEN:
        state = mutate(rules, zacian_situation(rules) if base == "main" else mid_attack.game)
        row = table.broken(R.state_facts(rules, state))[0]  # in table order
        first.add((_kind(row.path), row.rule))
    assert {(_kind(row.path), row.rule) for row in table} == first


# -------------------------------------------------------------------------------------------------
# Random play: every state validates and round-trips through JSON


# The random-play sweep (64 games x 300 steps: every state validated and round-tripped through
# JSON) runs in test_pokemon_env.py's 100k-step test, on the rollout that test compiles anyway.


@pytest.mark.parametrize("phase", [-1, len(R.PHASES)], ids=["below", "one past the last"])
def test_a_phase_just_outside_the_known_ones_is_not_a_phase(table, rules, phase):
    """The phase row's own bounds: -1 and len(PHASES) are no phase (42, far out, is in BROKEN)."""
    state = _board("phase", lambda x: jnp.int8(phase))(rules, zacian_situation(rules))
    broken = {(row.path, row.rule) for row in table.broken(R.state_facts(rules, state))}
    assert ("turnState.phase", "a phase of PHASES") in broken, broken
    with pytest.raises(InvalidStateError, match="is not a phase") as info:
        rules.validate(state)
    assert info.value.field == "turnState.phase"


# -------------------------------------------------------------------------------------------------
# Each rule's edge: the reachable state on it accepted, one step past it refused (aimed at the
# survivors of the validator's mutation session: a row's boundary or message, not only its path)


def _play(rules, **kw):
    """The Tapu Koko deck (player 1) against the Melmetal deck (player 2), in Main: the Pokémon of
    ``zacian_situation`` with no damage."""
    players = [{"slots": [["sv5-58"], ["sv3-67"]]}, {"slots": [["sv4-136"], ["sv3-152"]]}]
    return build_state(rules, players, **kw)


def _finished(rules, winner, reason, **kw):
    """``_play`` ended with ``winner`` by ``reason`` (the game_over phase)."""
    s = _play(rules, **kw)
    s = s.replace(winner=jnp.int8(winner), end_reason=jnp.int8(R.END[reason]))
    return s.replace(board=s.board.replace(phase=jnp.int8(R.PHASE["game_over"])))


def _empty(rules, s, zone, player):
    """``s`` with ``player``'s ``zone`` emptied into their discard pile."""
    board = zones.move_all(rules.layout, s.board, R.zone_of(zone, player),
                           R.zone_of("discard", player)).board  # fmt: skip
    return s.replace(board=board)


ACCEPTED_EDGES = [
    # Player 2 went first: player 1 takes the even turns.
    ("player 2 went first", lambda r: _play(r, active=0, turn=4, first_player=1)),
    # The last turn before the limit, and the limit ending the game as a draw.
    ("the last turn", lambda r: _play(r, turn=r.max_turns, active=(r.max_turns + 1) % 2)),
    ("the turn limit's draw", lambda r: _finished(
        r, R.DRAW, "turn_limit", turn=r.max_turns + 1, active=r.max_turns % 2)),
    # A win by Prize cards while the loser still has Pokémon and cards in the deck.
    ("won by Prize cards", lambda r: _empty(r, _finished(r, 0, "prizes"), "prizes", 0)),
    # Phase 0: the deal of key 3 has a mulligan, so the game starts in mulligan_draw.
    ("phase 0 (mulligan_draw) after the deal", lambda r: jax.device_get(
        jax.jit(r.init)(jax.random.PRNGKey(3)))),
    # A deck-out win while the winner still has Prize cards left.
    ("won by deck-out", lambda r: _empty(r, _finished(r, 0, "deck_out", active=1), "deck", 1)),
]  # fmt: skip


@pytest.mark.parametrize("case", ACCEPTED_EDGES, ids=[c[0] for c in ACCEPTED_EDGES])
def test_states_on_a_rules_edge_are_valid(table, rules, case):
    state = case[1](rules)
    if case[0].startswith("phase 0"):
        assert int(state.board.phase) == 0
    assert [(r.path, r.rule) for r in table.broken(R.state_facts(rules, state))] == []
    rules.validate(state)


def _set_board(s, **kw):
    return s.replace(board=s.board.replace(**kw))


REFUSED_EDGES = [
    ("a turn past the limit", lambda r: _finished(
        r, R.DRAW, "turn_limit", turn=r.max_turns + 2, active=r.max_turns % 2),
     "turnState.turnNumber", "outside [1, max_turns + 1 = {limit}]"),
    ("the limit's turn without the limit's end", lambda r: _play(
        r, turn=r.max_turns + 1, active=r.max_turns % 2),
     "turnState.turnNumber", "= max_turns + 1 without the turn limit ending the game"),
    ("turn 0 in play", lambda r: _set_board(_play(r), turn_number=jnp.int16(0)),
     "turnState.turnNumber", "0 outside [1, max_turns + 1 = {limit}]"),
    ("a setup phase on turn 2", lambda r: _set_board(
        _play(r, turn=2, active=1).replace(placed=jnp.asarray([False, False])),
        phase=jnp.int8(R.PHASE["setup_active"])),
     "turnState.phase", "setup_active on turn 2 with placed [False, False]"),
    ("the second player placed first", lambda r: _set_board(
        _play(r, turn=1, first_player=1, active=1).replace(placed=jnp.asarray([True, False])),
        phase=jnp.int8(R.PHASE["setup_bench"])),
     "game.placed", "[True, False]: the second player placed before the first"),
    ("a card of player 2 owned by player 1", lambda r: _set_board(
        _play(r), owner=_play(r).board.owner.at[60].set(0).at[0].set(1)),
     "cards.ownerId", "owner 1, not player 0"),
    ("the padding definition", lambda r: _set_board(
        _play(r), definition=_play(r).board.definition.at[0].set(0)),
     "cards.ownerId", "definition 0 not in the registry"),
    ("a card in processing, no Trainer resolving", lambda r: _to_zone(
        "sv1-180", 0, lambda r, s: 2 * len(R.PLAYER_ZONES) + R.SHARED_ZONES.index("processing"))(
        r, _play(r)), "cards.zoneId", "a Trainer waits there only while it resolves"),
]  # fmt: skip


@pytest.mark.parametrize("case", REFUSED_EDGES, ids=[c[0] for c in REFUSED_EDGES])
def test_one_step_past_a_rules_edge_is_refused(rules, case):
    _, make, path, message = case
    with pytest.raises(InvalidStateError) as info:
        rules.validate(make(rules))
    assert info.value.field == path
    assert message.format(limit=rules.max_turns + 1) in str(info.value), str(info.value)


def _at(field, index, value):
    """``state.<field>[index] = value`` (a per-player or per-slot field)."""

    def mutate(r, s):
        return s.replace(**{field: getattr(s, field).at[index].set(value)})

    return mutate


def _activation_row(**kw):
    """The mid-attack state's queue entry 0 as the attack's own row 0 (its card and slot), with
    ``kw`` over it."""

    def mutate(r, s):
        fields = dict(card=s.effect_card, row=0, slot=s.effect_slot, group=-1) | kw
        return _queue(0, **fields)(r, s)

    return mutate


# A field on its edge (accepted: no path) and one step past it (refused: the path and the end
# of the message), from the Main-phase situation (turn 4, player 2 to act, player 1 went first)
# or the attack waiting on a choice ("mid"). Aimed at the validator's mutation survivors: a row
# whose boundary or message a mutant moved without changing the path.
FIELD_EDGES = [
    ("an attack that flipped heads", "mid", _set("coin", 1), None, None),
    ("bonus damage 10", "mid", _set("bonus_damage", 10), None, None),
    ("bonus damage 9", "mid", _set("bonus_damage", 9), "game.effect",
     "bonus damage 9: counters of 10, >= 0"),
    ("bonus damage 11", "mid", _set("bonus_damage", 11), "game.effect",
     "bonus damage 11: counters of 10, >= 0"),
    ("a queue entry after an empty one", "mid", _queue(1, card=0, row=0, slot=0), "game.queue",
     "not packed: [-1, 0, -1, -1, -1, -1]"),
    ("the attack's row queued, group -1", "mid", _activation_row(), None, None),
    ("the attack's row queued, group 0", "mid", _activation_row(group=0), None, None),
    ("the attack's row queued, group Q", "mid",
     lambda r, s: _activation_row(group=s.queue.card.shape[0])(r, s), None, None),
    ("another card's row queued", "mid",
     lambda r, s: _activation_row(card=int(s.effect_card) + 1)(r, s), "game.queue",
     "entry 0: card 118 is not the activation's"),
    ("in play since this turn", "main", _at("since_turn", (1, 0), 4), None, None),
    ("an empty Bench slot in play since this turn", "main", _at("since_turn", (1, 4), 4),
     "players.player2.slots.bench4.sinceTurn", "4 on an empty slot or in setup"),
    ("cannot attack until turn 3", "main", _at("cannot_attack_turn", (0, 0), 3), None, None),
    ("cannot attack until turn 6 (turn + 2)", "main", _at("cannot_attack_turn", (1, 0), 6),
     None, None),
    ("protected on turn 1", "main", _at("protected_turn", (1, 0), 1),
     "players.player2.slots.active.protectedTurn", "1 (turn 4)"),
    ("player 1's Active Poisoned", "main", _at("poisoned", 0, True), None, None),
    ("player 2's Active Poisoned", "main", _at("poisoned", 1, True), None, None),
    ("two overrides in play: the first card is named", "main",
     _board("visibility", lambda x: x.at[3].set(zones.OWNER).at[70].set(zones.OWNER)),
     "cards.visibilityOverride", f"card_004: override {zones.OWNER}, expected {zones.NO_OVERRIDE}"),
]  # fmt: skip


@pytest.mark.parametrize(
    "name, base, mutate, path, message", FIELD_EDGES, ids=[e[0] for e in FIELD_EDGES]
)
def test_a_field_on_its_edge_and_one_step_past(
    table, rules, mid_attack, name, base, mutate, path, message
):
    state = mutate(rules, zacian_situation(rules) if base == "main" else mid_attack.game)
    assert_edge(table, rules, state, path, message)


def assert_edge(table, rules, state, path, message):
    """``path`` None: ``state`` breaks no row and validates; else ``validate`` refuses it naming
    ``path``, its message ending with ``message``."""
    if path is None:
        assert [(r.path, r.rule) for r in table.broken(R.state_facts(rules, state))] == []
        rules.validate(state)
        return
    with pytest.raises(InvalidStateError) as info:
        rules.validate(state)
    assert info.value.field == path
    assert str(info.value).endswith(message), str(info.value)


# -------------------------------------------------------------------------------------------------
# More situations the rules reach, each row's edge from them (the validator's mutation survivors,
# second pass: a Trainer and an Ability waiting on a choice, setup, promotion, a retreat payment,
# the mulligan draw)


def _relabel(state, a, b):
    """``state`` with card instances ``a`` and ``b`` (copies owned by one player) swapped: every
    per-card board row and every reference to either card. Cards of one owner are
    interchangeable, so a reachable state stays reachable."""
    swap = np.arange(state.board.zone.shape[0])
    swap[[a, b]] = [b, a]
    board = state.board
    per_card = {
        name: getattr(board, name)[swap]
        for name in ("zone", "position", "definition", "owner", "visibility", "card_attributes")
    }

    def ref(x):
        return jnp.where(x == a, b, jnp.where(x == b, a, x)).astype(x.dtype)

    return state.replace(
        board=board.replace(**per_card),
        effect_card=ref(state.effect_card),
        selection=state.selection.replace(
            card=ref(state.selection.card), picked=ref(state.selection.picked)
        ),  # fmt: skip
        queue=state.queue.replace(card=ref(state.queue.card)),
    )


def _stepped(env, step, game, action, index):
    after = step(wrap(env, game), jnp.int32(env.action_layout.encode(action, index)), KEY)
    assert int(after.error) == 0
    return after.game


@pytest.fixture(scope="module")
def situations(env, rules, step, mid_attack):
    """Reachable states by name (rules states; each validates, see the test below)."""
    main = zacian_situation(rules)
    # Player 1 (turn 3) plays Nest Ball: it waits in processing on the choice of a Basic.
    nest_ball = build_state(
        rules, [{"slots": [["sv5-58"], ["sv3-67"]], "hand": ["sv1-181"]},
                {"slots": [["sv4-136"], ["sv3-152"]]}], active=0, turn=3)  # fmt: skip
    trainer = _stepped(env, step, nest_ball, "play", rules.cards.index("sv1-181"))
    # Player 2 (turn 4) uses Revavroom's Rumbling Engine: it waits on the Energy to discard.
    revavroom = build_state(
        rules, [{"slots": [["sv5-58"], ["sv3-67"]]},
                {"slots": [["sv3-154", "sv1-142"], ["sv3-152"]], "hand": ["sve-8"]}],
        active=1, turn=4)  # fmt: skip
    ability = _stepped(env, step, revavroom, "ability", 0)
    # Player 1's Tapu Koko ex (turn 3) uses Extreme Current: it waits on the Energy to discard.
    # Relabelled as card instance 0 (which instance holds which of a player's cards is a
    # labelling only): an activation of card 0.
    koko = build_state(
        rules, [{"slots": [["sv4-68", "sve-4", "sve-4", "sve-4"], ["sv3-67"]]},
                {"slots": [["sv4-136"], ["sv3-152"]]}], active=0, turn=3)  # fmt: skip
    koko = _stepped(env, step, koko, "attack", 1)
    card0 = _relabel(koko, 0, int(koko.effect_card))
    assert int(card0.board.definition[0]) == rules.cards.index("sv4-68")
    # Setup: player 1 placed their Active face down (the deal of key 0 has no mulligan).
    dealt = jax.device_get(jax.jit(env.init)(KEY))
    setup = step(dealt, jnp.int32(np.flatnonzero(dealt.legal_action_mask)[0]), KEY).game
    assert R.PHASES[int(setup.board.phase)] == "setup_bench"
    # Setup with player 2 first (the deal of key 11): player 2 placed their Active and is done,
    # player 1 places next.
    dealt2 = jax.device_get(jax.jit(env.init)(jax.random.PRNGKey(11)))
    assert int(dealt2.game.first_player) == 1
    placed2 = step(dealt2, jnp.int32(np.flatnonzero(dealt2.legal_action_mask)[0]), KEY)
    second = step(placed2, jnp.int32(env.action_layout.encode("done")), KEY)
    assert int(second.error) == 0 and second.game.placed.tolist() == [False, True]
    assert R.PHASES[int(second.game.board.phase)] == "setup_active"
    # Player 2's Active was Knocked Out (turn 4): they promote their Benched Pokémon.
    ko = _empty(rules, _play(rules, active=1, turn=4), "active", 1)
    promote = ko.replace(must_promote=jnp.asarray([False, True]),
                         promote_then=jnp.int8(R.THEN_NEXT_TURN),
                         board=ko.board.replace(phase=jnp.int8(R.PHASE["promote"])))  # fmt: skip
    ko1 = _empty(rules, _play(rules, active=0, turn=3), "active", 0)
    promote1 = ko1.replace(must_promote=jnp.asarray([True, False]),
                           promote_then=jnp.int8(R.THEN_NEXT_TURN),
                           board=ko1.board.replace(phase=jnp.int8(R.PHASE["promote"])))  # fmt: skip
    # Player 2 retreats Zacian (retreat cost 2) to Bench 1 with one Energy still to discard.
    retreat = _paying(rules, [["sv4-136", "sve-8", "sve-8"], ["sv3-152"]], to=1, left=1)
    # The deal of key 3 with the mulligans the other way round: player 1 draws one extra.
    deal = jax.device_get(jax.jit(rules.init)(jax.random.PRNGKey(3)))
    mulligan = deal.replace(
        mulligans=jnp.asarray([0, 1], jnp.int8), bonus_draws=jnp.asarray([1, 0], jnp.int8),
        board=deal.board.replace(active_player=jnp.int8(0)))  # fmt: skip
    return dict(main=main, mid=mid_attack.game, trainer=trainer, ability=ability, card0=card0,
                deal=jax.tree.map(jnp.asarray, dealt.game), setup=setup, second=second.game,
                promote=promote, promote1=promote1, retreat=retreat,
                mulligan=mulligan)  # fmt: skip


def test_the_reached_situations_are_valid(table, rules, situations):
    """Each situation breaks no row (several are where the mutation survivors sat: a Trainer in
    processing, an Ability on the Active, an activation of card 0, the face-down Active in setup,
    a promotion, a retreat payment with one unit left, player 1's bonus draw)."""
    trainer, ability = situations["trainer"], situations["ability"]
    assert int(trainer.effect_kind) == R.TRAINER and int(trainer.selection.card) >= 0
    assert int(trainer.board.zone[int(trainer.effect_card)]) == 2 * len(R.PLAYER_ZONES)
    assert int(ability.effect_kind) == R.ABILITY and int(ability.effect_slot) == 0
    assert bool(ability.ability_used[1, 0])
    assert int(situations["card0"].effect_card) == 0 == int(situations["card0"].selection.card)
    for name, state in situations.items():
        assert [(r.path, r.rule) for r in table.broken(R.state_facts(rules, state))] == [], name
        rules.validate(state)


def _paying(rules, slots, to, left):
    """Player 2 (turn 4) with ``slots`` paying a retreat to Bench ``to`` with ``left`` units."""
    s = build_state(
        rules, [{"slots": [["sv5-58"], ["sv3-67"]]}, {"slots": slots}], active=1, turn=4
    )
    return s.replace(
        retreat_to=jnp.int8(to),
        retreat_units_left=jnp.int8(left),
        board=s.board.replace(phase=jnp.int8(R.PHASE["retreat_payment"])),
    )


def _basic_to_bench1(r, s, player=0):
    """``s`` with one of ``player``'s Basic Pokémon outside play moved to their Bench 1."""
    t, board = R._static(r), s.board
    basic = R.STAGES.index("basic")
    card = next(
        c
        for c in range(player * R.DECK_SIZE, (player + 1) * R.DECK_SIZE)
        if t["is_pokemon"][int(board.definition[c])]
        and t["stage"][int(board.definition[c])] == basic
        and R.ZONE_SLOT[int(board.zone[c])] < 0
    )
    return s.replace(board=zones.move_card(r.layout, board, card, R.slot_zone(player, 1)).board)


# (name, situation, mutation, path or None, end of the message): validate's first broken row.
SITUATION_EDGES = [
    ("player attributes of zeros, one column", "main",
     _board("player_attributes", lambda x: jnp.zeros((2, 1), jnp.int16)), "cards.attributes",
     "player attributes of shape (2, 1) with values the game never sets"),
    ("card attributes of zeros, one column", "main",
     _board("card_attributes", lambda x: jnp.zeros((x.shape[0], 1), jnp.int16)),
     "cards.attributes", "card attributes of shape (120, 1) with values the game never sets"),
    ("a zone one past the last", "main", _board("zone", lambda x: x.at[0].set(x.dtype.type(24))),
     "cards.zoneId", "card_001: 24 is not a zone"),
    ("zone -1", "main", _board("zone", lambda x: x.at[0].set(-1)), "cards.zoneId",
     "card_001: -1 is not a zone"),
    ("a card of player 2 owned by player 1 (not the first card)", "main",
     _board("owner", lambda x: x.at[61].set(0)), "cards.ownerId", "owner 0, not player 1"),
    ("a card of player 1's deck held by player 2", "main",
     lambda r, s: _set_board(s, definition=s.board.definition.at[60].set(r.cards.index("sv4-68"))),
     "players.player2",
     "holds other cards than their deck 'Melmetal ex Battle Deck + 4 Double Turbo Energy'"),
    ("a card of player 2 looked at in main", "main",
     _to_zone("sv3-152", 1, lambda r, s: R.zone_of("looking", 1)), "cards.zoneId",
     "cards are looked at only during a choice"),
    ("player 1 looks at a card while player 2 chooses", "mid",
     _to_zone("sve-4", 0, lambda r, s: R.zone_of("looking", 0)), "cards.zoneId",
     "cards are looked at only during a choice"),
    ("a Trainer in processing with no choice pending", "trainer",
     _sel(card=-1, row=-1, slot=-1, left=0, stage=0, picked=-1, resume=0), "cards.zoneId",
     "a Trainer waits there only while it resolves"),
    ("an attack's choice with a Trainer in processing", "mid",
     _to_zone("sv1-181", 1, lambda r, s: 2 * len(R.PLAYER_ZONES)), "cards.zoneId",
     "a Trainer waits there only while it resolves"),
    ("an Ability used on the turn player's empty slot", "ability",
     _at("ability_used", (1, 4), True), "players.player2.slots.bench4.abilityUsed",
     "an Ability used by a Pokémon not in play or not this turn"),
    ("an Ability used in setup", "setup", _at("ability_used", (0, 0), True),
     "players.player1.slots.active.abilityUsed",
     "an Ability used by a Pokémon not in play or not this turn"),
    ("player 1 cannot attack until turn 7 (turn + 3)", "main",
     _at("cannot_attack_turn", (0, 0), 7), "players.player1.slots.active.cannotAttackTurn",
     "7 (turn 4)"),
    ("a definition one past the registry", "main",
     lambda r, s: _set_board(s, definition=s.board.definition.at[0].set(len(r.cards.ids))),
     "cards.ownerId", "definition 90 not in the registry"),
    ("a pending choice with no activation", "ability", _set("effect_kind", 0), "game.selection",
     "a pending choice True in phase select"),
    ("picked one past the last card", "mid", _sel(picked=120), "game.selection", "picked 120"),
    ("Asleep with no Active, promoting", "promote", _at("rotated", 1, 1),
     "players.player2.conditions", "conditions without an Active Pokémon"),
    ("a Trainer that does nothing", "trainer", _set("does_nothing", True), "game.effect",
     "bonus 0, does_nothing True, damage_dealt False off an attack"),
    ("a Trainer with bonus damage", "trainer", _set("bonus_damage", 10), "game.effect",
     "bonus 10, does_nothing False, damage_dealt False off an attack"),
    ("player 2 looks at a card during their choice", "mid",
     _to_zone("sv3-152", 1, lambda r, s: R.zone_of("looking", 1)), None, None),
    ("bonus draws with equal mulligans", "main",
     lambda r, s: s.replace(mulligans=jnp.asarray([1, 1], jnp.int8),
                            bonus_draws=jnp.asarray([1, 0], jnp.int8)),
     "game.bonusDraws", "[1, 0]: only one player may draw extra (mulligans [1, 1])"),
    ("an Ability used by Boltund (evolved from Yamper; neither has one)", "main",
     lambda r, s: build_state(
         r, [{"slots": [["sv3-67", "sv3-68"]]}, {"slots": [["sv4-136"]]}], active=0, turn=3
     ).replace(ability_used=s.ability_used.at[0, 0].set(True)),
     "players.player1.slots.active.abilityUsed", "sv3-68 has no Ability to use"),
    ("retreated this turn", "main", _set("retreated", True), None, None),
    ("selection stage 1 (PLACE)", "mid", _sel(stage=1), None, None),
    ("selection stage 2 (ORDER)", "mid", _sel(stage=2), None, None),
    ("a turn goes on after the promotion", "promote", _set("promote_then", R.THEN_CONTINUE),
     None, None),
    ("setup_active with an Active placed", "setup",
     _board("phase", lambda x: jnp.int8(R.PHASE["setup_active"])), "turnState.activePlayerId",
     "setup_active with an Active Pokémon"),
    ("a retreat to slot 6 (one past the Bench)", "retreat", _set("retreat_to", 6),
     "game.retreat", "target 6, units 1 (cost 2)"),
    ("a retreat to an empty Bench slot", "retreat", _set("retreat_to", 2), "game.retreat",
     "target 2, units 1 (cost 2)"),
    ("Revavroom's retreat (2; Varoom's is 1) with 2 units left", "retreat",
     lambda r, s: _paying(r, [["sv3-154", "sv1-142", "sve-8", "sve-8"], ["sv3-152"]], 1, 2),
     None, None),
    ("selection stage 3 (FROM)", "mid", _sel(stage=3), None, None),
    ("selection stage 4 (ATTACK)", "mid", _sel(stage=4), None, None),
    ("selection stage 5", "mid", _sel(stage=5), "game.selection", "stage 5"),
    ("setup, player 2 first: player 2 places again", "second",
     _board("active_player", lambda x: jnp.int8(1)), "turnState.activePlayerId",
     "player2 acts in setup_active, not player1"),
    ("cannot attack until turn 2", "main", _at("cannot_attack_turn", (1, 0), 2),
     "players.player2.slots.active.cannotAttackTurn", "2 (turn 4)"),
    ("an empty slot cannot attack until its owner's turn 6", "main",
     _at("cannot_attack_turn", (1, 4), 6), "players.player2.slots.bench4.cannotAttackTurn",
     "6 (turn 4)"),
    ("protected until the opponent's turn 5 (turn + 1)", "main",
     _at("protected_turn", (1, 0), 5), None, None),
    ("protected on turn 2 (expired)", "main", _at("protected_turn", (0, 0), 2), None, None),
    ("protected on this turn 4", "main", _at("protected_turn", (0, 0), 4), None, None),
    ("protected on the opponent's turn 6 (turn + 2)", "main", _at("protected_turn", (0, 0), 6),
     "players.player1.slots.active.protectedTurn", "6 (turn 4)"),
    ("an empty slot protected on turn 4", "main", _at("protected_turn", (0, 3), 4),
     "players.player1.slots.bench3.protectedTurn", "4 (turn 4)"),
    ("since turn -1", "main", _at("since_turn", (1, 0), -1),
     "players.player2.slots.active.sinceTurn", "-1 after the current turn 4"),
    ("rotated one past the last", "main", _at("rotated", 1, len(R.ROTATED)),
     "players.player2.conditions", "conditions without an Active Pokémon"),
    ("rotated -1", "main", _at("rotated", 1, -1), "players.player2.conditions",
     "conditions without an Active Pokémon"),
    ("Burned with no Active, promoting", "promote", _at("burned", 1, True),
     "players.player2.conditions", "conditions without an Active Pokémon"),
    ("Burned in setup", "setup", _at("burned", 0, True), "players.player1.conditions",
     "conditions during setup"),
    ("the wrong player promotes", "promote1", _board("active_player", lambda x: jnp.int8(1)),
     "turnState.activePlayerId", "player2 acts in promote, not player1"),
    ("bonus draws -1", "main", _set("bonus_draws", [-1, 0]), "game.bonusDraws",
     "[-1, 0]: only one player may draw extra (mulligans [0, 0])"),
    ("bonus draws without the opponent's mulligans", "main", _set("bonus_draws", [1, 0]),
     "game.bonusDraws", "[1, 0]: only one player may draw extra (mulligans [0, 0])"),
    ("the mulligan draw with no bonus draws left", "mulligan", _set("bonus_draws", [0, 0]),
     "game.bonusDraws", "[0, 0] in phase mulligan_draw"),
    ("the retreat's last unit is 0", "retreat", _set("retreat_units_left", 0), "game.retreat",
     "target 1, units 0"),
    ("the retreat's whole cost left", "retreat", _set("retreat_units_left", 2), None, None),
    ("more units left than the retreat costs", "retreat", _set("retreat_units_left", 3),
     "game.retreat", "target 1, units 3 (cost 2)"),
    ("an attack that flipped tails", "mid", _set("coin", 0), None, None),
    ("bonus damage with no activation", "main", _set("bonus_damage", 10), "game.effect",
     "coin -1, bonus 10, flags (False, False, False) with no activation"),
    ("a Trainer that dealt damage", "trainer", _set("damage_dealt", True), "game.effect",
     "bonus 0, does_nothing False, damage_dealt True off an attack"),
    ("a queue entry with no activation", "main", _queue(0, card=0, row=0, slot=0, group=-1),
     "game.effect", "an activation in progress with no choice pending"),
    ("picked -2", "mid", _sel(picked=-2), "game.selection", "picked -2"),
    ("the selection on another slot", "mid", _sel(slot=1), "game.selection",
     "card 117 slot 1: not the activation's"),
    ("the selection's row one past the table", "mid", _sel(row=6), "game.selection",
     "row 6: not a row of sv4-136"),
    ("the selection's card past the last card", "mid",
     lambda r, s: _sel(card=120)(r, s).replace(effect_card=jnp.int16(120)), "game.selection",
     "card 120 slot 0: not the activation's"),
    ("an attack index equal to the attacks", "mid", _set("attack_index", 2), "game.effect",
     "an attack: slot 0, attack 2"),
    ("attack index -1", "mid", _set("attack_index", -1), "game.effect",
     "an attack: slot 0, attack -1"),
    ("the Ability with an attack index", "ability", _set("attack_index", 0), "game.effect",
     "an Ability: slot 0, attack 0"),
    ("the attack's row queued with group -2", "mid", _activation_row(group=-2), "game.queue",
     "entry 0: slot 0, group -2"),
    ("the attack's row 2 queued (Zacian has two)", "mid", _activation_row(row=2), "game.queue",
     "entry 0: row 2 is not a row of its card"),
    ("the attack's row 6 queued", "mid", _activation_row(row=6), "game.queue",
     "entry 0: row 6 is not a row of its card"),
    ("card instance 0 queued, not the activation's", "mid", _activation_row(card=0),
     "game.queue", "entry 0: card 0 is not the activation's"),
    ("a gap after the attack's row", "mid",
     lambda r, s: _queue(2, card=s.effect_card, row=0, slot=s.effect_slot, group=-1)(
         r, _activation_row()(r, s)),
     "game.queue", "not packed: [117, -1, 117, -1, -1, -1]"),
    ("cannot attack on its owner's turn 4, player 2 went first", "main",
     lambda r, s: _at("cannot_attack_turn", (0, 0), 4)(r, _play(r, active=0, turn=4,
                                                          first_player=1)), None, None),
]  # fmt: skip


@pytest.mark.parametrize(
    "name, base, mutate, path, message", SITUATION_EDGES, ids=[e[0] for e in SITUATION_EDGES]
)
def test_a_situation_on_a_rows_edge_and_one_step_past(
    table, rules, situations, name, base, mutate, path, message
):
    assert_edge(table, rules, mutate(rules, situations[base]), path, message)


def _row(table, path, rule):
    """The one row of ``table`` at ``path`` whose rule starts with ``rule``."""
    [found] = [r for r in table if r.path == path and r.rule.startswith(rule)]
    return found


# (name, situation, mutation, path, start of the rule, its problem or None): one row's own
# verdict where an earlier row breaks first (``validate`` reports that one) — each row states its
# fact over any state, out-of-range values included, and never raises.
ROW_VERDICTS = [
    ("the queue's card past the last card", "mid",
     lambda r, s: _activation_row(card=120)(r, s).replace(effect_card=jnp.int16(120)),
     "game.queue", "packed", "entry 0: card 120 is not the activation's"),
    ("the activation's card -1", "mid", _set("effect_card", -1), "game.effect", "no activation",
     "player 1, card -1: not the turn player's"),
    ("the activation's card past the last card", "mid", _set("effect_card", 120), "game.effect",
     "no activation", "player 1, card 120: not the turn player's"),
    ("player 1 named as the attacker of player 2's turn", "mid",
     lambda r, s: s.replace(effect_player=jnp.int8(0), effect_card=jnp.int16(
         int(r.card_of(s.board, R.slot_zone(0, 0), r.cards.index("sv5-58"))))),
     "game.effect", "no activation", "not the turn player's"),
    ("player 1's Active as player 2's attacker", "mid",
     lambda r, s: s.replace(effect_card=jnp.int16(
         int(r.card_of(s.board, R.slot_zone(0, 0), r.cards.index("sv5-58"))))),
     "game.effect", "no activation", "not the turn player's"),
    ("an attacker in the deck", "mid",
     lambda r, s: s.replace(effect_card=jnp.int16(
         int(r.card_of(s.board, R.zone_of("deck", 1), r.cards.index("sv3-152"))))),
     "game.effect", "no activation", "is not a Pokémon in play"),
    ("a Trainer on slot 0", "trainer", _set("effect_slot", 0), "game.effect", "no activation",
     "a Trainer: slot 0, attack -1, zone 22"),
    ("a Trainer with an attack index", "trainer", _set("attack_index", 0), "game.effect",
     "no activation", "a Trainer: slot -1, attack 0, zone 22"),
    ("the Ability on slot -1", "ability", _set("effect_slot", -1), "game.effect",
     "no activation", "an Ability: slot -1, attack -1"),
    ("the Ability on slot 6", "ability", _set("effect_slot", 6), "game.effect",
     "no activation", "an Ability: slot 6, attack -1"),
    ("setup: a card in processing has no face-down override", "setup",
     _to_zone("sv4-68", 0, lambda r, s: 2 * len(R.PLAYER_ZONES)), "cards.visibilityOverride",
     "no override", None),
    ("a retreat payment with no Active: the cost is 0", "retreat",
     lambda r, s: _empty(r, s, "active", 1), "game.retreat", "a retreat payment",
     "target 1, units 1 (cost 0)"),
    ("setup: a Bench before an Active", "deal", _basic_to_bench1,
     "players.player1.slots.active", "an Active Pokémon", "a Bench before an Active in setup"),
    ("a zone past the last: no slot, so no face-down override expected", "main",
     _board("zone", lambda x: x.at[0].set(x.dtype.type(24))), "cards.visibilityOverride",
     "no override", None),
    ("turn -1: each slot's sinceTurn 0 holds", "main",
     _board("turn_number", lambda x: jnp.int16(-1)), "players.player2.slots.active.sinceTurn",
     "in [0, turn]", None),
    ("turn 0 in play: sinceTurn 1 is after it", "main",
     lambda r, s: _at("since_turn", (1, 0), 1)(r, _set_board(s, turn_number=jnp.int16(0))),
     "players.player2.slots.active.sinceTurn", "in [0, turn]", "1 after the current turn 0"),
]  # fmt: skip


@pytest.mark.parametrize(
    "name, base, mutate, path, rule, problem", ROW_VERDICTS, ids=[v[0] for v in ROW_VERDICTS]
)
def test_a_rows_own_verdict(table, rules, situations, name, base, mutate, path, rule, problem):
    facts = R.state_facts(rules, mutate(rules, situations[base]))
    got = _row(table, path, rule).check(facts)
    if problem is None:
        assert got is None
    else:
        assert got is not None and got.endswith(problem), got
