"""``DigimonRules.validate`` as one invariant table (issue #33 point 1): every field named, each
row refusing a state that breaks only its rule, the transient states the rules reach (mulligan,
trigger-order choice, an attack paused on a selection) accepted. The random-play sweep whose states
validate and round-trip through JSON exactly is part of ``api_test`` (test_digimon_env.py)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.core import zones
from tcgjax.core.invariants import leaf_paths
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.scenario import build_state

TURN = 3  # player 1 (index 0) is first and active on odd turns


@pytest.fixture(scope="module")
def env():
    return tcgjax.make("digimon")


@pytest.fixture(scope="module")
def rules(env):
    return env.rules


def _base(rules, turn=TURN, **kw):
    """Player 1 (ST-1) in their Main phase: Greymon over Agumon over a Digi-Egg in slot 0, a
    Tamer in slot 1, Koromon in the breeding area; player 2 (ST-2) has Gabumon in slot 0."""
    players = [
        {"hand": ["ST1-13", "ST1-07"], "field": [["ST1-01", "ST1-03", "ST1-07"], ["ST1-12"]],
         "breeding": ["ST1-01", "ST1-02"], "security": ["ST1-02", "ST1-04"], "trash": ["ST1-05"]},
        {"field": [["ST2-03"]], "security": ["ST2-02"], "hand": ["ST2-04"]},
    ]  # fmt: skip
    return build_state(rules, players, memory=3, turn=turn, **kw)


def _cards(rules, state, zone, player=None):
    """Card instances of a zone, bottom (position 0) first."""
    z = rules.layout.zone_index(zone) if player is None else int(R.zone_of(zone, player))
    cards = np.flatnonzero(np.asarray(state.board.zone) == z)
    return [int(c) for c in cards[np.argsort(np.asarray(state.board.position)[cards])]]


def _board(state, **kw):
    return state.replace(board=state.board.replace(**kw))


def _set(state, field, index, value):
    """``state`` with ``board.<field>[index] = value``."""
    arr = getattr(state.board, field)
    return _board(state, **{field: arr.at[index].set(value)})


def _move(rules, state, card, zone):
    return state.replace(board=zones.move_card(rules.layout, state.board, card, zone).board)


def _selection_row(rules):
    """A (definition, row, phase) of a starter card whose effect row opens a selection."""
    op = np.asarray(rules.cards.numpy["effects.op"])
    target = np.asarray(rules.cards.numpy["effects.target"])
    num_rows = np.asarray(rules.cards.numpy["effects.num_rows"])
    choose = (R.TARGET_CHOOSE_OWN, R.TARGET_CHOOSE_OPP, R.TARGET_CHOOSE_OPP_NO_SOURCE)
    for d in range(1, len(rules.cards.ids)):
        for r in range(int(num_rows[d])):
            own = int(R.SELECTION_OF_OP[op[d, r]])
            if own >= 0 or int(target[d, r]) in choose:
                return d, r, own if own >= 0 else R.PHASE["select_target"]
    raise AssertionError("no starter row opens a selection")


def _with_selection(rules, state):
    """``state`` paused on a row's selection (a starter card of player 1's, from slot 0)."""
    d, r, phase = _selection_row(rules)
    card = int(np.flatnonzero(np.asarray(state.board.definition) == d)[0])
    sel = state.selection.replace(
        card=jnp.int16(card), row=jnp.int8(r), slot=jnp.int8(0), left=jnp.int8(1),
        resume=jnp.int8(R.PHASE["main"]),
    )  # fmt: skip
    return _board(state.replace(selection=sel), phase=jnp.int8(phase))


def _in_block_timing(state):
    """Player 1's slot-0 Greymon attacks player 2 (security), waiting in the block timing (the
    second timing under the official order)."""
    return _board(
        state.replace(
            attacker=jnp.int8(0),
            attack_target=jnp.int8(A.TARGET_PLAYER),
            attack_stage=jnp.int8(R.STAGE_FIRST_TIMING_OVER),
            attacked=jnp.bool_(True),
        ),
        phase=jnp.int8(R.PHASE["block_timing"]),
    )


@pytest.fixture(scope="module")
def mulligan(rules):
    # Key 0: player 1 goes first, so the first mulligan is about player 1's cards (whose first
    # deck card is instance 0).
    return jax.device_get(jax.jit(rules.init)(jax.random.PRNGKey(0)))


# -- 1. every field is named -----------------------------------------------------------------------


def test_every_leaf_is_named(rules, mulligan):
    table = rules.invariants
    assert table.uncovered(mulligan) == []
    assert len(table) >= 40
    # No stale names: every field an invariant names is a leaf of the state.
    assert table.covered() <= set(leaf_paths(mulligan))


# -- 2. each invariant refuses a state that breaks it ----------------------------------------------


def _swap_instances(rules, s):
    """Exchange two instances across players (definition, zone, position and owner): each
    player still holds their deck's cards in their own zones, but an instance's owner is not
    the initial board's."""
    a, b = _cards(rules, s, "deck", 0)[0], _cards(rules, s, "deck", 1)[0]
    board = s.board
    for field in ("definition", "zone", "position", "owner"):
        arr = getattr(board, field)
        board = board.replace(**{field: arr.at[a].set(arr[b]).at[b].set(arr[a])})
    return s.replace(board=board)


def _swap_positions(s, a, b):
    pos = s.board.position
    return _board(s, position=pos.at[a].set(pos[b]).at[b].set(pos[a]))


def _on_top(rules, s, card, p=0, slot=0):
    return _move(rules, s, card, R.SLOT_ZONES[p, slot])


def _hand(rules, s, p=0, i=0):
    return _cards(rules, s, "hand", p)[i]


def _find(rules, s, number, zone, p=0):
    d = rules.cards.index(number)
    return next(c for c in _cards(rules, s, zone, p) if int(s.board.definition[c]) == d)


def _one_row_card(rules, s):
    rows = np.asarray(rules.cards.numpy["effects.num_rows"])[np.asarray(s.board.definition)]
    return int(np.flatnonzero(rows == 1)[0])


def _queue_entry(s, i, card, row, slot=0, group=-1):
    q = s.queue
    return s.replace(
        queue=q.replace(
            card=q.card.at[i].set(card), row=q.row.at[i].set(row),
            slot=q.slot.at[i].set(slot), group=q.group.at[i].set(group),
        )
    )  # fmt: skip


def _material(rules, s):
    """SelectMaterial for a hand card that has no DNA requirements."""
    card = _find(rules, s, "ST1-07", "hand")
    sel = s.selection.replace(card=jnp.int16(card), row=jnp.int8(-1), left=jnp.int8(2),
                              resume=jnp.int8(R.PHASE["main"]))  # fmt: skip
    return _board(s.replace(selection=sel), phase=jnp.int8(R.PHASE["select_material"]))


# (path, start of the rule's text, how to break it from a valid situation). ``base``: player 1's
# Main phase; ``timing``: an attack in the block timing; ``select``: a row's selection pending;
# ``mulligan``: the state after ``init``.
CASES = [
    ("turnState.phase", "phase is a GamePhase", "base", lambda r, s: _board(s, phase=jnp.int8(99))),
    ("turnState.activePlayerId", "the active player is 0", "base",
     lambda r, s: _board(s, active_player=jnp.int8(2))),
    ("turnState.turnNumber", "the turn is at least 1", "base",
     lambda r, s: _board(s, turn_number=jnp.int16(0))),
    ("game.first_player", "the first player is 0", "base",
     lambda r, s: s.replace(first_player=jnp.int8(2))),
    ("game.memory", "memory within", "base", lambda r, s: s.replace(memory=jnp.int8(-11))),
    ("game.deck_pair", "the matchup is an index", "base",
     lambda r, s: s.replace(deck_pair=jnp.int8(1))),
    ("cards.card_NNN.definitionId", "each card instance is a card", "base",
     lambda r, s: _set(s, "definition", _cards(r, s, "deck", 0)[0], len(r.cards.ids) + 3)),
    ("players.playerN", "each player holds", "base",
     lambda r, s: _set(s, "definition", _cards(r, s, "deck", 0)[0], r.cards.index("ST1-03"))),
    ("cards.card_NNN.ownerId", "each card instance is owned", "base", _swap_instances),
    ("cards.card_NNN.zoneId", "each card in a zone", "base",
     lambda r, s: _move(r, s, _cards(r, s, "deck", 0)[0], R.zone_of("hand", 1))),
    ("zones.ZONE", "the positions", "base",
     lambda r, s: _set(s, "position", _cards(r, s, "deck", 0)[-1], 0)),
    ("zones.fieldN_playerP", "a battle-area stack", "base",
     lambda r, s: _on_top(r, s, _find(r, s, "ST1-13", "hand"))),
    ("zones.breeding_playerP", "the breeding stack", "base",
     lambda r, s: _swap_positions(s, *_cards(r, s, "breeding", 0))),
    ("zones.processing", "processing", "base",
     lambda r, s: _move(r, s, _find(r, s, "ST1-13", "hand"), r.layout.zone_index("processing"))),
    ("cards.revealed", "cards stay revealed", "base",
     lambda r, s: _move(r, s, _cards(r, s, "deck", 0)[-1], r.layout.zone_index("revealed"))),
    ("board", "the board fields", "base", lambda r, s: _set(s, "visibility", 0, 0)),
    ("game.suspended", "an empty permanent slot is not", "base",
     lambda r, s: s.replace(suspended=s.suspended.at[0, R.BREEDING_SLOT].set(True))),
    ("game.entered_turn", "an empty permanent slot has", "base",
     lambda r, s: s.replace(entered_turn=s.entered_turn.at[1, 5].set(1))),
    ("game.entered_turn", "an occupied slot's", "base",
     lambda r, s: s.replace(entered_turn=s.entered_turn.at[0, 0].set(TURN + 1))),
    ("game.winner", "the winner is", "base", lambda r, s: s.replace(winner=jnp.int8(5))),
    ("game.end_reason", "the end reason", "base",
     lambda r, s: s.replace(winner=jnp.int8(0), end_reason=jnp.int8(R.END_SECURITY))),
    ("turnState.phase", "a game that goes on", "base",
     lambda r, s: _board(s, phase=jnp.int8(R.PHASE["end"]))),
    ("game.memory", "official memory", "base", lambda r, s: s.replace(memory=jnp.int8(-1))),
    ("game.attack_stage", "the attack stage agrees", "base",
     lambda r, s: s.replace(attack_stage=jnp.int8(R.STAGE_TIMINGS_OVER))),
    ("game.attack_stage", "in a timing", "timing",
     lambda r, s: s.replace(attack_stage=jnp.int8(R.STAGE_DECLARED))),
    ("game.checks_left", "checks left", "base", lambda r, s: s.replace(checks_left=jnp.int8(1))),
    ("game.checking", "a checked security card", "base",
     lambda r, s: s.replace(checking=jnp.int16(5))),
    ("game.selection.card", "a pending selection exactly", "select",
     lambda r, s: _board(s, phase=jnp.int8(R.PHASE["main"]))),
    ("game.selection", "with no selection pending", "base",
     lambda r, s: s.replace(selection=s.selection.replace(left=jnp.int8(1)))),
    ("game.selection", "a pending selection: a card", "select",
     lambda r, s: s.replace(selection=s.selection.replace(picked=jnp.int16(3)))),
    ("game.selection.stage", "the stage is", "select",
     lambda r, s: s.replace(selection=s.selection.replace(stage=jnp.int8(5)))),
    ("game.selection.left", "a trigger-order, mulligan or confirm choice", "mulligan",
     lambda r, s: s.replace(selection=s.selection.replace(left=jnp.int8(2)))),
    # A bottom order (SelectReveal) about a row that is not a reveal_add row.
    ("game.selection", "a bottom order", "select",
     lambda r, s: _board(s.replace(selection=s.selection.replace(stage=jnp.int8(A.CHOICE_BOTTOM))),
                         phase=jnp.int8(R.PHASE["select_reveal"]))),
    # A confirm choice (SelectEffectChoice 1000 / 62) about a row that chooses a target.
    ("game.selection.row", "a confirm choice is about", "select",
     lambda r, s: _board(s.replace(selection=s.selection.replace(stage=jnp.int8(A.CHOICE_CONFIRM))),
                         phase=jnp.int8(R.PHASE["select_effect_choice"]))),
    ("turnState.phase", "a non-row choice", "mulligan",
     lambda r, s: _board(s, phase=jnp.int8(R.PHASE["select_target"]))),
    ("game.selection.card", "a trigger order", "mulligan",
     lambda r, s: s.replace(selection=s.selection.replace(
         card=jnp.int16(_cards(r, s, "deck", int(s.board.owner[int(s.selection.card)]))[0])))),
    ("game.selection.row", "a row's selection names", "select",
     lambda r, s: s.replace(selection=s.selection.replace(row=jnp.int8(5)))),
    ("turnState.phase", "a row's selection waits", "select",
     lambda r, s: _board(s, phase=jnp.int8(
         R.PHASE["select_source"] if int(s.board.phase) != R.PHASE["select_source"]
         else R.PHASE["select_target"]))),
    ("game.selection", "SelectMaterial", "base", _material),
    ("turnState.activePlayerId", "the first player is active", "base",
     lambda r, s: s.replace(first_player=jnp.int8(1))),
    ("game.attacker", "an attack is recorded", "timing",
     lambda r, s: s.replace(attacker=jnp.int8(1))),
    ("game.attack_target", "the target is", "timing",
     lambda r, s: s.replace(attack_target=jnp.int8(5))),
    ("game.end_fired", "[End of Your Turn]", "base",
     lambda r, s: _board(s.replace(end_fired=jnp.bool_(True)), phase=jnp.int8(R.PHASE["breeding"]))),
    ("game.opt_used", "once-per-turn", "base",
     lambda r, s: s.replace(opt_used=s.opt_used.at[_one_row_card(r, s)].set(4))),
    ("game.queue", "entries packed", "base", lambda r, s: _queue_entry(s, 1, _one_row_card(r, s), 0)),
    ("game.queue", "each entry", "base", lambda r, s: _queue_entry(s, 0, _one_row_card(r, s), 3)),
    ("game.lasting", "kind 0..5", "base",
     lambda r, s: s.replace(lasting_slot=s.lasting_slot.at[2].set(20))),
    ("game.attacked", "set once the turn player", "timing",
     lambda r, s: s.replace(attacked=jnp.bool_(False))),
    ("game.lasting", "a live modifier", "base",
     lambda r, s: s.replace(
         lasting_kind=s.lasting_kind.at[0].set(R.LASTING_DP),
         lasting_player=s.lasting_player.at[0].set(0),
         lasting_slot=s.lasting_slot.at[0].set(0),
         lasting_amount=s.lasting_amount.at[0].set(1000),
         lasting_expires=s.lasting_expires.at[0].set(TURN - 1))),
]  # fmt: skip

# Fields out of their range: the validator names the first rule broken (never an IndexError from
# a lookup by the bad value), and every rule the state breaks is the one the range says, no other:
# the facts clip a bad index before looking it up, so later rows see a card, a zone, a phase.
OUT_OF_RANGE = [
    ("definition past the registry", lambda r, s: _set(s, "definition", _deck0(r, s), len(r.cards.ids) + 6),
     "cards.card_NNN.definitionId",
     [("cards.card_NNN.definitionId", "each card instance"), ("players.playerN", "each player")]),
    ("the padding definition", lambda r, s: _set(s, "definition", _deck0(r, s), 0),
     "cards.card_NNN.definitionId",
     [("cards.card_NNN.definitionId", "each card instance"), ("players.playerN", "each player"),
      ("cards.card_NNN.zoneId", "each card in a zone")]),
    ("a negative definition", lambda r, s: _set(s, "definition", _deck0(r, s), -1),
     "cards.card_NNN.definitionId",
     [("cards.card_NNN.definitionId", "each card instance"), ("players.playerN", "each player"),
      ("cards.card_NNN.zoneId", "each card in a zone")]),
    ("a zone past the layout", lambda r, s: _set(s, "zone", _deck0(r, s), r.layout.num_zones + 2),
     "cards.card_NNN.zoneId",
     [("cards.card_NNN.zoneId", "each card in a zone"), ("zones.ZONE", "the positions")]),
    ("the zone one past the last", lambda r, s: _set(s, "zone", _deck0(r, s), r.layout.num_zones),
     "cards.card_NNN.zoneId",
     [("cards.card_NNN.zoneId", "each card in a zone"), ("zones.ZONE", "the positions")]),
    ("a negative zone", lambda r, s: _set(s, "zone", _deck0(r, s), -1),
     "cards.card_NNN.zoneId",
     [("cards.card_NNN.zoneId", "each card in a zone"), ("zones.ZONE", "the positions")]),
    ("the phase one past the last", lambda r, s: _board(s, phase=jnp.int8(len(A.PHASES))),
     "turnState.phase",
     [("turnState.phase", "phase is a GamePhase"), ("turnState.phase", "a game that goes on")]),
    ("a negative phase", lambda r, s: _board(s, phase=jnp.int8(-1)), "turnState.phase",
     [("turnState.phase", "phase is a GamePhase"), ("turnState.phase", "a game that goes on")]),
    # A selection's card past the instances: the selection's row and phase rows, which look the
    # card up, count as broken too (read as definition 0, the padding row: no effect rows).
    ("a selection's card past the instances", lambda r, s: (lambda t: t.replace(
        selection=t.selection.replace(card=jnp.int16(r.layout.num_cards))))(_with_selection(r, s)),
     "game.selection",
     [("game.selection", "a pending selection: a card"),
      ("game.selection.row", "a row's selection names"),
      ("turnState.phase", "a row's selection waits")]),
    # Attacker -1 in a timing: the stage row names it; the attacker row refuses it on its own
    # (never reading slot -1, the breeding area) and the target row too.
    ("attacker -1 in the block timing", lambda r, s: _in_block_timing(s).replace(
        attacker=jnp.int8(-1)), "game.attack_stage",
     [("game.attack_stage", "the attack stage agrees"), ("game.attacker", "an attack is recorded"),
      ("game.attack_target", "the target is")]),
    # A row's selection about card -1: nothing is pending in a selection phase; the row's own
    # check reads the card as definition 0 (no effect rows), never instance -1 (the last one).
    ("a row's selection of card -1", lambda r, s: (lambda t: t.replace(
        selection=t.selection.replace(card=jnp.int16(-1))))(_with_selection(r, s)),
     "game.selection.card",
     [("game.selection.card", "a pending selection exactly"),
      ("game.selection", "with no selection pending"),
      ("game.selection.row", "a row's selection names")]),
    # Phase 0 ("start") is a phase, but not one a game waits in.
    ("phase 0 in a game that goes on", lambda r, s: _board(s, phase=jnp.int8(0)),
     "turnState.phase", [("turnState.phase", "a game that goes on")]),
]  # fmt: skip


def _deck0(rules, s):
    return _cards(rules, s, "deck", 0)[0]


@pytest.mark.parametrize("case", OUT_OF_RANGE, ids=[c[0] for c in OUT_OF_RANGE])
def test_out_of_range_fields_are_named_never_a_lookup_error(rules, case):
    _, breaks, field, rows = case
    state = breaks(rules, _base(rules))
    broken = rules.invariants.broken(rules.facts(state))
    assert [(b.path, b.rule) for b in broken] == [
        (path, _row(rules, path, rule).rule) for path, rule in rows
    ]
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(state)
    assert _path_matches(field, info.value.field), info.value.field


def test_the_errors_name_the_exact_card_player_and_registry(rules):
    base = _base(rules)
    last = len(rules.cards.ids) - 1
    first, second = _cards(rules, base, "deck", 0)[:2]
    # One past the registry (its last card is ``last``): named, with the range, by card number.
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(_set(base, "definition", second, last + 1))
    assert info.value.field == f"cards.card_{int(second) + 1:03d}.definitionId"
    assert str(info.value).endswith(
        f"definition {last + 1} is not a card (the registry's cards are 1..{last})"
    )
    # Two bad cards: the first is named.
    both = _set(_set(base, "definition", second, 0), "definition", first, last + 5)
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(both)
    assert info.value.field == f"cards.card_{int(first) + 1:03d}.definitionId"
    rules.validate(_set(base, "definition", second, int(base.board.definition[second])))
    # A player who holds another card than their deck's is named (players count from 1).
    for p in (0, 1):
        card = _cards(rules, base, "deck", p)[0]
        other = rules.cards.index("ST2-04" if p == 0 else "ST1-03")
        with pytest.raises(tcgjax.InvalidStateError) as info:
            rules.validate(_set(base, "definition", card, other))
        assert info.value.field == f"players.player{p + 1}"


def test_the_first_card_with_a_wrong_owner_or_zone_is_named(rules):
    base = _base(rules)
    swapped = _swap_instances(rules, base)
    wrong = np.flatnonzero(np.asarray(swapped.board.owner) != np.asarray(base.board.owner))
    assert len(wrong) == 2
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(swapped)
    assert info.value.field == f"cards.card_{int(wrong[0]) + 1:03d}.ownerId"
    a, b = _cards(rules, base, "deck", 0)[3], _cards(rules, base, "deck", 0)[1]
    twice = _set(_set(base, "zone", a, 99), "zone", b, 98)
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(twice)
    assert info.value.field == f"cards.card_{min(a, b) + 1:03d}.zoneId"


def test_a_selection_on_card_instance_0_is_pending(rules):
    """Instance 0 (player 1's first card) as the card of a pending selection: the same situation
    with the two instances' places exchanged is valid, and stays paused on that selection."""
    state = _with_selection(rules, _base(rules))
    card = int(state.selection.card)
    assert card != 0 and int(state.board.owner[card]) == int(state.board.owner[0]) == 0
    board = state.board
    for field in ("definition", "zone", "position"):
        arr = getattr(board, field)
        board = board.replace(**{field: arr.at[0].set(arr[card]).at[card].set(arr[0])})
    swapped = state.replace(board=board, selection=state.selection.replace(card=jnp.int16(0)))
    assert rules.invariants.broken(rules.facts(swapped)) == []
    rules.validate(swapped)
    assert rules.facts(swapped).pending


# More ways to break the stack rules, each alone.
STACK_CASES = [
    # A Tamer under a Digimon.
    ("field1_player1", lambda r, s: _on_top(r, s, _find(r, s, "ST1-07", "hand"), 0, 1)),
    # A Level 3 on top of a Level 4.
    ("field0_player1", lambda r, s: _on_top(r, s, _find(r, s, "ST1-02", "security"), 0, 0)),
    # A Digi-Egg in the middle of a stack with no DNA card.
    ("field0_player1", lambda r, s: _swap_positions(s, *_cards(r, s, "field0", 0)[:2])),
    # An Option alone in a slot after an empty one (every slot is checked, not up to a gap).
    ("field3_player1", lambda r, s: _on_top(
        r, s.replace(entered_turn=s.entered_turn.at[0, 3].set(TURN)), _find(r, s, "ST1-13", "hand"),
        0, 3)),
    # Player 2's stacks are checked too: a Level 3 (Bearmon) over a Level 3 (Gabumon).
    ("field0_player2", lambda r, s: _on_top(r, s, _find(r, s, "ST2-04", "hand", 1), 1, 0)),
    # A Tamer over a Digimon, two cards (a Tamer stands alone: the only rule it breaks).
    ("field0_player2", lambda r, s: _on_top(r, s, _find(r, s, "ST2-12", "deck", 1), 1, 0)),
    # A Digi-Egg alone in the battle area.
    ("field0_player1", lambda r, s: _move(
        r, _move(r, s, _cards(r, s, "field0", 0)[2], R.zone_of("trash", 0)),
        _cards(r, s, "field0", 0)[1], R.zone_of("trash", 0))),
]  # fmt: skip


def _situation(rules, mulligan, name):
    base = _base(rules)
    return {
        "base": base,
        "timing": _in_block_timing(base),
        "select": _with_selection(rules, base),
        "mulligan": mulligan,
    }[name]


def test_situations_are_valid(rules, mulligan):
    for name in ("base", "timing", "select", "mulligan"):
        state = _situation(rules, mulligan, name)
        assert rules.invariants.broken(rules.facts(state)) == [], name
        rules.validate(state)


def test_cases_cover_every_row(rules):
    named = {(path, rule) for path, rule, _, _ in CASES}
    for row in rules.invariants:
        assert any(row.path == p and row.rule.startswith(r) for p, r in named), row.rule


def _row(rules, path, rule):
    rows = [row for row in rules.invariants.rows(path) if row.rule.startswith(rule)]
    assert len(rows) == 1, (path, rule)
    return rows[0]


def _path_matches(pattern: str, path: str) -> bool:
    if pattern == path:
        return True
    parts, actual = pattern.split("."), path.split(".")
    if pattern == "board":
        return path.startswith("board.")
    if len(parts) != len(actual):
        return False
    return all(
        p == a or p in ("card_NNN", "playerN", "ZONE", "fieldN_playerP", "breeding_playerP")
        for p, a in zip(parts, actual, strict=True)
    )


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_each_invariant_refuses_what_breaks_it(rules, mulligan, case):
    path, rule, situation, breaks = case
    row = _row(rules, path, rule)
    state = breaks(rules, _situation(rules, mulligan, situation))
    broken = rules.invariants.broken(rules.facts(state))
    assert row in broken, (path, rule, [b.rule for b in broken])
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(state)
    first = broken[0]
    assert _path_matches(first.path, info.value.field), (first.path, info.value.field)
    # Most cases break their row alone; where a broken range makes later rows fail too, the row
    # is still the first one reported.
    if len(broken) > 1:
        assert first is row, (path, rule, [b.rule for b in broken])


def _empty_breeding_1(rules, s):
    """Player 1's breeding area emptied into their trash (its entry turn cleared)."""
    for card in _cards(rules, s, "breeding", 0)[::-1]:
        s = _move(rules, s, card, R.zone_of("trash", 0))
    return s.replace(entered_turn=s.entered_turn.at[0, R.BREEDING_SLOT].set(-1))


# Player 1's breeding stack rebuilt from the bottom: (cards bottom first, by number; the problem).
BREEDING_CASES = [
    (["ST1-01", "ST1-05", "ST1-02"], "a Level 3 over a Level 4"),
    (["ST1-01", "ST1-03", "ST1-02"], "a Level 3 over a Level 3"),
    (["ST1-01", "ST1-13"], "a option above the Digi-Egg"),
    (["ST1-12", "ST1-02"], "a tamer at the bottom, not a Digi-Egg"),
]


@pytest.mark.parametrize(("numbers", "problem"), BREEDING_CASES, ids=[c[1] for c in BREEDING_CASES])
def test_the_breeding_stack_rules_name_the_card_and_levels(rules, numbers, problem):
    state = _empty_breeding_1(rules, _base(rules))
    for number in numbers:
        card = next(
            c
            for zone in ("trash", "hand", "deck")
            for c in _cards(rules, state, zone, 0)
            if rules.cards.ids[int(state.board.definition[c])] == number
        )
        state = _move(rules, state, card, R.zone_of("breeding", 0))
    state = state.replace(entered_turn=state.entered_turn.at[0, R.BREEDING_SLOT].set(TURN - 1))
    broken = rules.invariants.broken(rules.facts(state))
    assert [b.path for b in broken] == ["zones.breeding_playerP"], [b.rule for b in broken]
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(state)
    assert info.value.field == "zones.breeding_player1"
    assert str(info.value).endswith(problem)


@pytest.mark.parametrize("empty_first", [False, True], ids=["beside", "after an empty one"])
def test_player_2s_breeding_stack_is_checked(rules, empty_first):
    """A Digimon alone in player 2's breeding area (no Digi-Egg at the bottom), beside player 1's
    valid breeding stack or after player 1's empty breeding area."""
    state = _base(rules)
    if empty_first:
        state = _empty_breeding_1(rules, state)
        rules.validate(state)
    state = _move(rules, state, _find(rules, state, "ST2-04", "hand", 1), R.zone_of("breeding", 1))
    state = state.replace(entered_turn=state.entered_turn.at[1, R.BREEDING_SLOT].set(TURN - 1))
    broken = rules.invariants.broken(rules.facts(state))
    assert [b.path for b in broken] == ["zones.breeding_playerP"], [b.rule for b in broken]
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(state)
    assert info.value.field == "zones.breeding_player2"
    assert str(info.value).endswith("a digimon at the bottom, not a Digi-Egg")


@pytest.mark.parametrize("i", range(len(STACK_CASES)))
def test_stack_rules(rules, i):
    zone, breaks = STACK_CASES[i]
    state = breaks(rules, _base(rules))
    broken = rules.invariants.broken(rules.facts(state))
    assert [b.path for b in broken] == ["zones.fieldN_playerP"], [b.rule for b in broken]
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(state)
    assert info.value.field == f"zones.{zone}"


# -- 2b. each rule's edge: the reachable state on it accepted, one step past it refused -----------


def _with_instance_0(state, card):
    """``state`` with player 1's card instance ``card`` and instance 0 (also player 1's: its
    deck's first card) exchanged, so that ``card``'s part is played by instance 0: a check that
    reads "no card" as a negative id must still see card 0."""
    assert int(state.board.owner[0]) == int(state.board.owner[card]) == 0
    board = state.board
    for field in ("definition", "zone", "position"):
        arr = getattr(board, field)
        board = board.replace(**{field: arr.at[0].set(arr[card]).at[card].set(arr[0])})
    return state.replace(board=board)


def _option_resolving(rules, s, instance_0=False):
    """Player 1's Option (ST1-13, played from the hand) in the processing area with its [Main]
    row queued, as ``_play`` leaves it; ``instance_0``: the Option is card instance 0."""
    card = _find(rules, s, "ST1-13", "hand")
    if instance_0:
        s, card = _with_instance_0(s, card), 0
    s = _move(rules, s, card, rules.layout.zone_index("processing"))
    return _queue_entry(s, 0, card, 0, slot=-1)


def _queued(rules, s, *entries):
    """``s`` with player 1's slot-0 Greymon's row 0 queued at each queue index in ``entries``."""
    card = _cards(rules, s, "field0", 0)[-1]
    for i in entries:
        s = _queue_entry(s, i, card, 0)
    return s


def _free_entry(s, i, field, value):
    """Queue entry ``i`` (free: its card is negative) with one field set."""
    q = s.queue
    return s.replace(queue=q.replace(**{field: getattr(q, field).at[i].set(value)}))


def _paused_in_checks(rules, s, checking=-1, left=0):
    """Player 1's slot-0 Greymon attacks player 2 and the security checks are under way, paused
    on a row's selection (a [Security] effect choosing): the checked card may be anywhere."""
    s = s.replace(
        attacker=jnp.int8(0), attack_target=jnp.int8(A.TARGET_PLAYER),
        attack_stage=jnp.int8(R.STAGE_CHECKS), attacked=jnp.bool_(True),
        checks_left=jnp.int8(left), checking=jnp.int16(checking),
    )  # fmt: skip
    return _with_selection(rules, s)


def _won(rules, s, winner, reason=R.END_SECURITY):
    """``winner`` (0, 1; 2 a draw) has won by ``reason``; for a security win the loser's security
    cards are trashed first."""
    if reason == R.END_SECURITY:
        loser = 1 - winner
        for card in _cards(rules, s, "security", loser):
            s = _move(rules, s, card, R.zone_of("trash", loser))
    return s.replace(winner=jnp.int8(winner), end_reason=jnp.int8(reason))


def _deck_out(rules, loser, phase="draw", keep=0):
    """``loser`` (0, 1) drew from an empty deck in their Draw phase and lost: the base with that
    player to act (player 2 on turn 4), every card of their deck but ``keep`` in their trash."""
    s = _base(rules) if loser == 0 else _player_2_active(rules)
    for card in _cards(rules, s, "deck", loser)[keep:]:
        s = _move(rules, s, card, R.zone_of("trash", loser))
    s = s.replace(winner=jnp.int8(1 - loser), end_reason=jnp.int8(R.END_DECK_OUT))
    return _board(s, phase=jnp.int8(A.PHASES.index(phase)))


def _breeding(rules, s, *numbers):
    """Player 1's breeding area holds exactly ``numbers`` (bottom first; the base's two cards go
    back to the deck first, then each card is taken from player 1's deck or hand)."""
    deck = R.zone_of("deck", 0)
    for card in _cards(rules, s, "breeding", 0):
        s = _move(rules, s, card, deck)
    for number in numbers:
        s = _move(rules, s, _find(rules, s, number, "deck"), R.zone_of("breeding", 0))
    return s


def _order_choice(rules, s, about=0):
    """Player 1 orders two of their triggered rows (Greymon's in queue entry 0, the Tamer's in
    entry 1); the choice is about queue entry ``about``'s card."""
    greymon, tamer = _cards(rules, s, "field0", 0)[-1], _cards(rules, s, "field1", 0)[-1]
    s = _queue_entry(_queue_entry(s, 0, greymon, 0), 1, tamer, 0, slot=1)
    sel = s.selection.replace(
        card=jnp.int16((greymon, tamer)[about]), stage=jnp.int8(R.CHOICE_ORDER),
        left=jnp.int8(1), resume=jnp.int8(R.PHASE["main"]),
    )  # fmt: skip
    return _board(s.replace(selection=sel), phase=jnp.int8(R.PHASE["select_effect_choice"]))


def _attacking_slot(s, target, active=0):
    """Player ``active + 1``'s slot-0 Digimon attacks the defender's slot ``target``, waiting in
    the block timing."""
    s = _in_block_timing(s).replace(attack_target=jnp.int8(target))
    return _board(s, active_player=jnp.int8(active))


def _player_2_active(rules):
    """The base with player 2 to act on turn 4 (player 1 went first)."""
    return _base(rules, turn=4, active=1, first_player=0)


# States on a rule's edge that the rules reach: each must validate.
ACCEPTED_EDGES = [
    # An Option resolving: one card in processing, its row queued (also as instance 0).
    ("an Option resolving", lambda r, s: _option_resolving(r, s)),
    ("an Option resolving as instance 0", lambda r, s: _option_resolving(r, s, instance_0=True)),
    # Instance 0's effect queued (a queue entry's card 0 is a card, not "no entry").
    ("instance 0's row queued", lambda r, s: _queue_entry(
        _with_instance_0(s, _cards(r, s, "field0", 0)[-1]), 0, 0, 0)),
    # Memory exactly 0 in Main: the turn goes on (official memory passes the turn below 0).
    ("memory 0 in Main", lambda r, s: s.replace(memory=jnp.int8(0))),
    ("memory 0 in Breeding", lambda r, s: _board(s.replace(memory=jnp.int8(0)),
                                                 phase=jnp.int8(R.PHASE["breeding"]))),
    # Memory below 0 while a triggered row still resolves (an [On Play] after an expensive play),
    # while an Option resolves, or while an attack goes on: the turn passes only once they end.
    ("memory -2 with a row queued", lambda r, s: _queued(r, s, 0).replace(memory=jnp.int8(-2))),
    ("memory -2 with an Option resolving",
     lambda r, s: _option_resolving(r, s).replace(memory=jnp.int8(-2))),
    ("memory -2 with the game won", lambda r, s: _move(
        r, s.replace(memory=jnp.int8(-2), winner=jnp.int8(0), end_reason=jnp.int8(R.END_SECURITY)),
        _cards(r, s, "security", 1)[0], R.zone_of("trash", 1))),
    # Two entries packed at the front.
    ("two rows queued", lambda r, s: _queued(r, s, 0, 1)),
    # A slot entered this very turn.
    ("a Digimon entered this turn", lambda r, s: s.replace(
        entered_turn=s.entered_turn.at[0, 0].set(TURN))),
    # An attack declared earlier this turn (Main), and a <Blocker> granted until a later turn.
    ("an attack declared this turn", lambda r, s: s.replace(attacked=jnp.bool_(True))),
    ("a granted keyword", lambda r, s: _lasting(s, R.LASTING_KEYWORD, 1 << R.KW["blocker"])),
    # The queue's bounds, on their edges: a row queued from the breeding area, group Q.
    ("a row queued from the breeding area", lambda r, s: _queue_entry(
        s, 0, _cards(r, s, "field0", 0)[-1], 0, slot=R.BREEDING_SLOT)),
    ("a queued row of group Q", lambda r, s: _queue_entry(
        s, 0, _cards(r, s, "field0", 0)[-1], 0, group=R.QUEUE_SIZE)),
    # Memory below 0 while instance 0's row is queued: not idle (entry 0 is a card).
    ("memory -2 with instance 0's row queued", lambda r, s: _queue_entry(
        _with_instance_0(s, _cards(r, s, "field0", 0)[-1]), 0, 0, 0).replace(
            memory=jnp.int8(-2))),
    # Timed modifiers on their edges: player 2's, expiring this very turn, on the breeding slot
    # (its slot is in range even if no effect reaches it), a restriction.
    ("player 2's timed modifier", lambda r, s: _lasting(s, R.LASTING_DP, 1000).replace(
        lasting_player=s.lasting_player.at[0].set(1))),
    ("a timed modifier expiring this turn", lambda r, s: _lasting(s, R.LASTING_DP, 1000).replace(
        lasting_expires=s.lasting_expires.at[0].set(TURN))),
    ("a timed modifier's slot 12", lambda r, s: _lasting(
        s, R.LASTING_DP, 1000, slot=R.BREEDING_SLOT)),
    ("a cannot-attack restriction", lambda r, s: _lasting(s, R.LASTING_RESTRICT, R.CANNOT_ATTACK)),
    ("a cannot-block restriction", lambda r, s: _lasting(s, R.LASTING_RESTRICT, R.CANNOT_BLOCK)),
    # Selections on their edges: from the breeding slot, paused in Main after an attack.
    ("a selection from the breeding slot", lambda r, s: (lambda t: t.replace(
        selection=t.selection.replace(slot=jnp.int8(R.BREEDING_SLOT))))(_with_selection(r, s))),
    ("an attack declared, a selection resuming Main",
     lambda r, s: _with_selection(r, s.replace(attacked=jnp.bool_(True)))),
    # The security checks, paused on a [Security] row's selection: 8 checks left, the checked
    # card instance 0, a checked card in the revealed zone.
    ("in the checks, 8 checks left", lambda r, s: _paused_in_checks(r, s, left=R.MAX_CHECKS)),
    ("in the checks, checking instance 0", lambda r, s: _paused_in_checks(r, s, checking=0)),
    ("in the checks, a revealed card checked", lambda r, s: (lambda c: _paused_in_checks(
        r, _move(r, s, c, r.layout.zone_index("revealed")), checking=c))(
            _cards(r, s, "security", 1)[-1])),
    # An attack on the defender's slot 0 (Gabumon).
    ("an attack on the defender's slot 0", lambda r, s: _attacking_slot(s, 0)),
    # The game over every way: player 2 won, player 1 won, a draw.
    ("player 2 won by security", lambda r, s: _won(r, s, 1)),
    ("player 1 won by security", lambda r, s: _won(r, s, 0)),
    ("a draw", lambda r, s: _won(r, s, 2, R.END_DRAW)),
    ("player 1 won by deck-out", lambda r, s: _deck_out(r, 1)),
    ("player 2 won by deck-out", lambda r, s: _deck_out(r, 0)),
    # [End of Your Turn] rows fired in Main, and while a selection resumes Main.
    ("end rows fired in Main", lambda r, s: s.replace(end_fired=jnp.bool_(True))),
    ("end rows fired, a selection resuming Main",
     lambda r, s: _with_selection(r, s.replace(end_fired=jnp.bool_(True)))),
    # A once-per-turn use of a one-row card's row 0.
    ("row 0 used this turn", lambda r, s: s.replace(
        opt_used=s.opt_used.at[_one_row_card(r, s)].set(1))),
    # A breeding stack of three: Digi-Egg, Level 3, Level 4.
    ("a breeding stack of three", lambda r, s: _breeding(r, s, "ST1-01", "ST1-03", "ST1-06")),
    # A trigger-order choice about the first of two queued rows.
    ("a trigger-order choice", lambda r, s: _order_choice(r, s)),
    # Player 2 attacks player 1's slot 0 (the defender is player 1).
    ("player 2 attacks slot 0", lambda r, s: _attacking_slot(_player_2_active(r), 0, active=1)),
    # The memory gauge at both ends.
    ("memory 10", lambda r, s: s.replace(memory=jnp.int8(R.MEMORY_LIMIT))),
    ("memory -10 with a row queued",
     lambda r, s: _queued(r, s, 0).replace(memory=jnp.int8(-R.MEMORY_LIMIT))),
]  # fmt: skip


@pytest.mark.parametrize("case", ACCEPTED_EDGES, ids=[c[0] for c in ACCEPTED_EDGES])
def test_states_on_a_rules_edge_are_valid(rules, case):
    _, make = case
    state = make(rules, _base(rules))
    assert rules.invariants.broken(rules.facts(state)) == []
    rules.validate(state)


def test_parity_when_the_second_player_went_first(rules):
    """Player 2 went first: player 1 takes the even turns (turn 4 is player 1's), player 2 the
    odd ones."""
    players = [{"field": [["ST1-03"]]}, {"field": [["ST2-03"]]}]
    rules.validate(build_state(rules, players, turn=4, active=0, first_player=1))
    rules.validate(build_state(rules, players, turn=5, active=1, first_player=1))
    wrong = build_state(rules, players, turn=4, active=0, first_player=1)
    wrong = wrong.replace(board=wrong.board.replace(active_player=jnp.int8(1)))
    with pytest.raises(tcgjax.InvalidStateError, match="player 1 active on turn 4"):
        rules.validate(wrong)


# One step past a rule's edge: (name, how, the field named, the end of the message).
REFUSED_EDGES = [
    ("two cards in processing", lambda r, s: _move(
        r, _option_resolving(r, s), _find(r, s, "ST1-07", "hand"),
        r.layout.zone_index("processing")), "zones.processing", "2 cards resolve at once"),
    ("a Digimon in processing", lambda r, s: _move(
        r, _queued(r, s, 0), _find(r, s, "ST1-07", "hand"), r.layout.zone_index("processing")),
     "zones.processing", "a digimon, not an Option"),
    ("an Option in processing, nothing queued", lambda r, s: _move(
        r, s, _find(r, s, "ST1-13", "hand"), r.layout.zone_index("processing")),
     "zones.processing", "an Option with nothing of it queued and no selection pending"),
    ("memory -1 in Breeding, nothing pending", lambda r, s: _board(
        s.replace(memory=jnp.int8(-1)), phase=jnp.int8(R.PHASE["breeding"])),
     "game.memory", "-1 < 0 with nothing pending in the breeding phase (the turn ends)"),
    ("an occupied slot entered on turn -1", lambda r, s: s.replace(
        entered_turn=s.entered_turn.at[0, 0].set(-1)),
     "game.entered_turn", f"an occupied slot's entry turn outside [0, {TURN}]"),
    ("a gap after two packed entries", lambda r, s: _queued(r, s, 0, 2),
     "game.queue", "an entry after an empty one (entries are packed at the front)"),
    ("a free entry with a row", lambda r, s: _free_entry(s, 0, "row", 0),
     "game.queue", "an empty entry not all -1"),
    ("a free entry with a slot", lambda r, s: _free_entry(s, 0, "slot", 0),
     "game.queue", "an empty entry not all -1"),
    ("a free entry with a group", lambda r, s: _free_entry(s, 0, "group", 0),
     "game.queue", "an empty entry not all -1"),
    ("a free entry with card -2", lambda r, s: _free_entry(s, 0, "card", -2),
     "game.queue", "an empty entry not all -1"),
    ("an attack declared in the Breeding phase", lambda r, s: _board(
        s.replace(attacked=jnp.bool_(True)), phase=jnp.int8(R.PHASE["breeding"])),
     "game.attacked", "an attack declared this turn, yet the turn is before its Main phase "
     "(breeding)"),
    ("granted keyword bits beyond the keywords", lambda r, s: _lasting(
        s, R.LASTING_KEYWORD, 1 << len(R.KEYWORDS)), "game.lasting",
     f"entry 0: granted keyword bits {1 << len(R.KEYWORDS)} outside 1..{(1 << len(R.KEYWORDS)) - 1}"),
    ("no granted keyword", lambda r, s: _lasting(s, R.LASTING_KEYWORD, 0), "game.lasting",
     f"entry 0: granted keyword bits 0 outside 1..{(1 << len(R.KEYWORDS)) - 1}"),
    # The queue's entries one step past each bound (a message may depend on the rules: a
    # callable of them).
    ("instance 0 queued with row 5", lambda r, s: _queue_entry(
        _with_instance_0(s, _cards(r, s, "field0", 0)[-1]), 0, 0, 5),
     "game.queue", "entry 0: row 5 is not an effect row of its card"),
    ("a queued card one past the last instance", lambda r, s: _queue_entry(
        s, 0, r.layout.num_cards, 0), "game.queue",
     lambda r: f"entry 0: card {r.layout.num_cards} is not a card instance"),
    ("a queued row -1", lambda r, s: _queue_entry(s, 0, _cards(r, s, "field0", 0)[-1], -1),
     "game.queue", "entry 0: row -1 is not an effect row of its card"),
    ("a queued row one past the card's last", lambda r, s: (lambda c: _queue_entry(
        s, 0, c, int(r.cards.numpy["effects.num_rows"][int(s.board.definition[c])])))(
            _cards(r, s, "field0", 0)[-1]), "game.queue",
     "is not an effect row of its card"),
    ("a queued slot -2", lambda r, s: _queue_entry(s, 0, _cards(r, s, "field0", 0)[-1], 0, slot=-2),
     "game.queue", f"entry 0: slot -2 outside [-1, {R.BREEDING_SLOT}]"),
    ("a queued group -2", lambda r, s: _queue_entry(
        s, 0, _cards(r, s, "field0", 0)[-1], 0, group=-2),
     "game.queue", f"entry 0: group -2 outside [-1, {R.QUEUE_SIZE}]"),
    # Timed modifiers' fields one step past each bound.
    ("a timed modifier of kind -1", lambda r, s: s.replace(
        lasting_kind=s.lasting_kind.at[1].set(-1)), "game.lasting",
     f"outside 0..{R.LASTING_KINDS}"),
    ("a timed modifier of player -2", lambda r, s: s.replace(
        lasting_player=s.lasting_player.at[1].set(-2)), "game.lasting", "outside -1..1"),
    ("a timed modifier of player 2", lambda r, s: s.replace(
        lasting_player=s.lasting_player.at[1].set(2)), "game.lasting", "outside -1..1"),
    ("a timed modifier on slot -2", lambda r, s: s.replace(
        lasting_slot=s.lasting_slot.at[1].set(-2)), "game.lasting",
     f"outside [-1, {R.BREEDING_SLOT}]"),
    ("a live timed modifier of no player", lambda r, s: _lasting(s, R.LASTING_DP, 1000).replace(
        lasting_player=s.lasting_player.at[0].set(-1)), "game.lasting",
     "entry 0: a live modifier of no player"),
    ("a timed modifier expired last turn", lambda r, s: _lasting(s, R.LASTING_DP, 1000).replace(
        lasting_expires=s.lasting_expires.at[0].set(TURN - 1)), "game.lasting",
     f"entry 0: expired at turn {TURN - 1}, still live on {TURN}"),
    ("a restriction with bit 4", lambda r, s: _lasting(s, R.LASTING_RESTRICT, 4), "game.lasting",
     "entry 0: restriction bits 4 beyond CANNOT_*"),
    # A pending selection's fields one step past each bound.
    ("a selection's card one past the last instance", lambda r, s: (lambda t: t.replace(
        selection=t.selection.replace(card=jnp.int16(r.layout.num_cards))))(_with_selection(r, s)),
     "game.selection", lambda r: f"card {r.layout.num_cards} is not a card instance"),
    ("a selection with 0 choices left", lambda r, s: (lambda t: t.replace(
        selection=t.selection.replace(left=jnp.int8(0))))(_with_selection(r, s)),
     "game.selection", "0 choices left"),
    ("a selection's slot -2", lambda r, s: (lambda t: t.replace(
        selection=t.selection.replace(slot=jnp.int8(-2))))(_with_selection(r, s)),
     "game.selection", f"slot -2 outside [-1, {R.BREEDING_SLOT}]"),
    ("a selection's row -1", lambda r, s: (lambda t: t.replace(
        selection=t.selection.replace(row=jnp.int8(-1))))(_with_selection(r, s)),
     "game.selection.row", "row -1 is not an effect row of the selecting card"),
    ("a selection's row one past its card's last", lambda r, s: (lambda t: t.replace(
        selection=t.selection.replace(row=jnp.int8(
            int(r.cards.numpy["effects.num_rows"][_selection_row(r)[0]])))))(_with_selection(r, s)),
     "game.selection.row", "is not an effect row of the selecting card"),
    ("SelectMaterial for a card with no DNA requirements", _material,
     "game.selection", "the card has no DNA requirements"),
    ("SelectMaterial with row 0", lambda r, s: (lambda t: t.replace(
        selection=t.selection.replace(row=jnp.int8(0))))(_material(r, s)),
     "game.selection", "row 0 in SelectMaterial (-1: the DNA card itself)"),
    ("SelectMaterial with row -2", lambda r, s: (lambda t: t.replace(
        selection=t.selection.replace(row=jnp.int8(-2))))(_material(r, s)),
     "game.selection", "row -2 in SelectMaterial (-1: the DNA card itself)"),
    # The attack's fields one step past each bound.
    ("checks left -1", lambda r, s: _paused_in_checks(r, s).replace(checks_left=jnp.int8(-1)),
     "game.checks_left", f"-1 outside [0, {R.MAX_CHECKS}]"),
    ("a checked card with no attack", lambda r, s: s.replace(checking=jnp.int16(5)),
     "game.checking", "a security card is checked outside the security checks"),
    ("a checked card one past the last instance", lambda r, s: _paused_in_checks(
        r, s, checking=r.layout.num_cards),
     "game.checking", "a security card is checked outside the security checks"),
    ("a checked card left the revealed zone", lambda r, s: (lambda c: _board(
        _paused_in_checks(r, s, checking=c), phase=jnp.int8(R.PHASE["main"])))(
            _cards(r, s, "security", 1)[-1]),
     "game.checking", "the checked card has left the revealed zone mid-check"),
    ("an empty slot attacks", lambda r, s: _in_block_timing(s).replace(attacker=jnp.int8(5)),
     "game.attacker", "5 is not a permanent of the attacking player"),
    ("the breeding area attacks", lambda r, s: _in_block_timing(s).replace(
        attacker=jnp.int8(R.BREEDING_SLOT)),
     "game.attacker", f"{R.BREEDING_SLOT} is not a permanent of the attacking player"),
    ("an attack on target -2", lambda r, s: _paused_in_checks(r, s).replace(
        attack_target=jnp.int8(-2)),
     "game.attack_target", "-2 is neither a field slot nor the player"),
    ("an attack on the defender's empty slot 1", lambda r, s: _attacking_slot(s, 1),
     "game.attack_target", "the target slot 1 of the defender is empty"),
    # The game's end one step past each bound.
    ("winner 3", lambda r, s: _won(r, s, 0).replace(winner=jnp.int8(3)),
     "game.winner", "3 is not -1, a player or 2 (draw)"),
    ("end reason -1 with a winner", lambda r, s: _won(r, s, 0).replace(end_reason=jnp.int8(-1)),
     "game.end_reason", f"-1 is not one of {R.END_REASONS}"),
    ("end reason one past the last", lambda r, s: _won(r, s, 0).replace(
        end_reason=jnp.int8(len(R.END_REASONS))),
     "game.end_reason", f"{len(R.END_REASONS)} is not one of {R.END_REASONS}"),
    ("a draw by security", lambda r, s: _won(r, s, 0).replace(winner=jnp.int8(2)),
     "game.end_reason", "security_attack with winner 2"),
    ("a deck-out with a card left in the loser's deck", lambda r, s: _deck_out(r, 1, keep=1),
     "game.end_reason", "a deck_out while the loser's deck holds cards"),
    ("player 1's deck-out with a card left in their deck", lambda r, s: _deck_out(r, 0, keep=1),
     "game.end_reason", "a deck_out while the loser's deck holds cards"),
    ("a deck-out in the Main phase", lambda r, s: _deck_out(r, 1, phase="main"),
     "game.end_reason", "a deck_out ends in the Draw phase, not main"),
    ("end rows fired, a selection resuming Breeding", lambda r, s: (lambda t: t.replace(
        selection=t.selection.replace(resume=jnp.int8(R.PHASE["breeding"]))))(
            _with_selection(r, s.replace(end_fired=jnp.bool_(True)))),
     "game.end_fired", lambda r: "[End of Your Turn] rows fired, yet the phase is "
     + A.PHASES[_selection_row(r)[2]]),
    ("board version -1", lambda r, s: _board(s, version=jnp.int32(-1)),
     "board.version", "-1 < 0"),
    # A trigger-order choice about the second queued row.
    ("a trigger-order choice about entry 1", lambda r, s: _order_choice(r, s, about=1),
     "game.selection.card", "a trigger-order choice not about the first queued row"),
]  # fmt: skip


def _lasting(s, kind, amount, slot=0):
    """``s`` with player 1's timed modifier 0 of ``kind`` and ``amount`` on ``slot`` (until turn
    ``TURN + 1``)."""
    return s.replace(
        lasting_kind=s.lasting_kind.at[0].set(kind),
        lasting_player=s.lasting_player.at[0].set(0),
        lasting_slot=s.lasting_slot.at[0].set(slot),
        lasting_amount=s.lasting_amount.at[0].set(amount),
        lasting_expires=s.lasting_expires.at[0].set(TURN + 1),
    )


@pytest.mark.parametrize("case", REFUSED_EDGES, ids=[c[0] for c in REFUSED_EDGES])
def test_one_step_past_a_rules_edge_is_refused(rules, case):
    _, make, field, message = case
    if callable(message):  # a message that depends on the rules: its end
        message = message(rules)
    _refused(rules, make(rules, _base(rules)), field, message)


# -- 3. transient states the rules reach --------------------------------------------------------


def test_mulligan_state_after_init_is_valid(rules, mulligan):
    assert A.PHASES[int(mulligan.board.phase)] == "select_effect_choice"
    assert int(mulligan.selection.stage) == R.CHOICE_MULLIGAN
    rules.validate(mulligan)


def _refused(rules, state, field, message):
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(state)
    assert info.value.field == field, str(info.value)
    assert str(info.value).endswith(message), str(info.value)


def test_the_mulligan_on_its_edges(rules, mulligan):
    """The mulligan's choice may be about card instance 0; it is refused on turn 2, with the
    option off, and once a card is on the field."""
    mulligan = jax.tree.map(jnp.asarray, mulligan)
    card = int(mulligan.selection.card)
    assert int(mulligan.board.owner[card]) == 0  # player 1's mulligan (the fixture's key)
    at_0 = _with_instance_0(mulligan, card)
    rules.validate(at_0.replace(selection=at_0.selection.replace(card=jnp.int16(0))))
    outside = "a mulligan outside the setup (or with mulligan off)"
    _refused(rules, _board(mulligan, turn_number=jnp.int16(2)), "game.selection.stage", outside)
    off = R.DigimonRules(rules.cards, rules.decks, mulligan=False)
    _refused(off, mulligan, "game.selection.stage", outside)
    digimon = next(
        c for c in _cards(rules, mulligan, "deck", 0)
        if int(rules.cards.numpy["kind"][int(mulligan.board.definition[c])]) == R.DIGIMON
    )  # fmt: skip
    begun = _on_top(rules, mulligan, digimon)
    begun = begun.replace(entered_turn=begun.entered_turn.at[0, 0].set(1))
    _refused(rules, begun, "game.selection.stage", "a mulligan after the game has begun")


@pytest.mark.parametrize(
    ("card", "rows"),
    [
        ("past", [("game.selection", "a pending selection: a card"),
                  ("game.selection.stage", "the stage is"),
                  ("game.selection.card", "a trigger order")]),
        (-1, [("game.selection.card", "a pending selection exactly"),
              ("game.selection", "with no selection pending"),
              ("game.selection.stage", "the stage is"),
              ("game.selection.card", "a trigger order")]),
    ],
    ids=["past the instances", "-1"],
)  # fmt: skip
def test_a_mulligan_about_no_card_breaks_its_own_rows(rules, mulligan, card, rows):
    """A mulligan's card out of range: the stage row refuses it on its own (never looking the
    card up), beside the rows that bound the card."""
    mulligan = jax.tree.map(jnp.asarray, mulligan)
    card = rules.layout.num_cards if card == "past" else card
    state = mulligan.replace(selection=mulligan.selection.replace(card=jnp.int16(card)))
    broken = rules.invariants.broken(rules.facts(state))
    assert [(b.path, b.rule) for b in broken] == [
        (path, _row(rules, path, rule).rule) for path, rule in rows
    ]


def test_trigger_order_fixed_has_no_order_choice(rules):
    """Under ``trigger_order="fixed"`` a row's selection is valid, a trigger-order choice is not."""
    fixed = R.DigimonRules(rules.cards, rules.decks, trigger_order="fixed")
    base = _base(fixed)
    fixed.validate(_with_selection(fixed, base))
    rules.validate(_order_choice(rules, _base(rules)))
    _refused(
        fixed,
        _order_choice(fixed, base),
        "game.selection.stage",
        "a trigger-order choice under trigger_order=fixed",
    )


def test_trigger_order_choice_and_what_follows_are_valid(rules):
    """ST2's Gabumon under Grizzlymon attacks: both [When Attacking] rows trigger together, so
    their controller orders them (a SelectEffectChoice mid-attack); every state after is valid."""
    s = build_state(
        rules,
        [{"security": ["ST1-02"], "field": [["ST1-03"]]},
         {"field": [["ST2-03", "ST2-07"]], "security": ["ST2-02"]}],
        active=1, memory=3, turn=2,
    )  # fmt: skip
    rules.validate(s)
    apply = jax.jit(rules.apply)
    errors = jax.jit(rules.action_errors)
    key = jax.random.PRNGKey(0)
    s, _ = apply(s, A.encode("attack", 0, A.TARGET_PLAYER), key)
    s = jax.device_get(s)
    rules.validate(s)
    seen = set()
    for _ in range(12):
        phase = A.PHASES[int(s.board.phase)]
        seen.add((phase, int(s.selection.stage), int(s.attacker) >= 0))
        if phase == "main" and int(s.attacker) < 0:
            break
        legal = np.flatnonzero(np.asarray(errors(s)) == 0)
        s, _ = apply(s, int(legal[0]), key)
        s = jax.device_get(s)
        rules.validate(s)
    assert ("select_effect_choice", R.CHOICE_ORDER, True) in seen, seen


# -- 4. random play --------------------------------------------------------------------------------
# The random-play sweep (every game's state at each of 300 batched steps, 64 games: validated and
# round-tripped through JSON) runs inside ``api_test`` in test_digimon_env.py, on the batched
# program it compiles anyway (``batch_check_every=1``).


# -- 5. rows no shipped card reaches: a test-only pool --------------------------------------------


@pytest.fixture(scope="module")
def pool_rules():
    """Test-only cards: DNA5, a DNA Digimon (two red Level 3s) whose DNA cost is 0, and, as the
    registry's last two cards, the Option OPT then the Digimon LAST (the facts look a card's kind
    up through an index clipped to the registry)."""
    from digimon_testlib import digimon, other

    from tcgjax.core.cards import CardRegistry
    from tcgjax.games.digimon import cards as C

    red3 = {"color": "red", "level": 3}
    entries = [
        other("EGG", "digi_egg"),
        digimon("R3", 3, 3000),
        digimon("DNA5", 5, 9000, dna=[red3, red3], dna_cost=0),
        *(digimon(f"FILL{k}", 3, 1000, colors=("green",)) for k in range(10)),
        other("OPT", "option"),
        digimon("LAST", 3, 2000),
    ]
    registry = CardRegistry(C.SCHEMA, entries, source="validator test cards")
    main = ["R3"] * 4 + ["DNA5"] * 4 + [f"FILL{k}" for k in range(10) for _ in range(4)]
    main += ["OPT", "LAST"]
    return R.DigimonRules(registry, [(["EGG"] * 4, main), (["EGG"] * 4, main)])


def _pool_state(rules, field=(), hand=()):
    return build_state(rules, [{"field": [list(s) for s in field], "hand": list(hand)}, {}], turn=3)


@pytest.mark.parametrize(
    "name, field",
    [
        ("a DNA digivolution of two hatched Level 3s", [["EGG", "R3", "EGG", "R3", "DNA5"]]),
        ("the registry's last card on top of a stack", [["EGG", "LAST"]]),
    ],
)
def test_pool_states_on_a_rules_edge_are_valid(pool_rules, name, field):
    state = _pool_state(pool_rules, field)
    assert pool_rules.invariants.broken(pool_rules.facts(state)) == [], name
    pool_rules.validate(state)


def test_select_material_for_a_dna_card_that_costs_0_is_valid(pool_rules):
    """A DNA card's cost may be 0: it still has DNA requirements, so SelectMaterial may be about
    it."""
    s = _pool_state(pool_rules, [["EGG", "R3"], ["EGG", "R3"]], hand=["DNA5"])
    card = int(_cards(pool_rules, s, "hand", 0)[0])
    sel = s.selection.replace(
        card=jnp.int16(card), row=jnp.int8(-1), left=jnp.int8(2), resume=jnp.int8(R.PHASE["main"])
    )
    s = _board(s.replace(selection=sel), phase=jnp.int8(R.PHASE["select_material"]))
    assert pool_rules.invariants.broken(pool_rules.facts(s)) == []


@pytest.mark.parametrize(
    "field, position",
    [
        # The second material was a lone Digi-Egg: it never leaves the breeding area alone.
        ([["EGG", "R3", "EGG", "DNA5"]], 2),
        # The first material was a lone Digi-Egg.
        ([["EGG", "EGG", "R3", "DNA5"]], 1),
        # A Digi-Egg between two Digimon with no DNA card above.
        ([["EGG", "R3", "EGG", "R3", "LAST"]], 2),
        # A Digi-Egg under another Digi-Egg (the second material's bottom is the upper one).
        ([["EGG", "R3", "EGG", "EGG", "R3", "DNA5"]], 2),
    ],
)
def test_a_digi_egg_above_the_bottom_only_as_a_dna_materials_bottom(pool_rules, field, position):
    _refused(
        pool_rules,
        _pool_state(pool_rules, field),
        "zones.field0_player1",
        f"a Digi-Egg at position {position}, not at the bottom of either stack a DNA "
        "digivolution joined",
    )


def test_the_block_timing_without_an_attack_breaks_both_attack_rows(rules):
    """Player 2 in the block timing with no attacker and no target: the attacker row and the
    target row both refuse it (the target is checked against the defender's battle slots, never
    read at -1 as the breeding area, which player 1's Koromon occupies here)."""
    s = _player_2_active(rules).replace(
        attack_stage=jnp.int8(R.STAGE_FIRST_TIMING_OVER), attacked=jnp.bool_(True)
    )
    s = _board(s, phase=jnp.int8(R.PHASE["block_timing"]))
    assert _cards(rules, s, "breeding", 0)
    paths = [row.path for row in rules.invariants.broken(rules.facts(s))]
    assert "game.attacker" in paths and "game.attack_target" in paths, paths
