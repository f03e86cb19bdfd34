"""``DuelRules.validate`` as one invariant table (issue #33 point 1): every field of the rules state
named by a row, each row refusing a state built from an explicit situation with one fact edited
(naming the field), every row with such a case, and the ends of a game the rules reach accepted.

The JSON-level cases (``from_json`` refusing an edited view) are in ``test_duel_validate.py``; the
random-play sweep that validates every state it meets is ``api_test`` (``test_duel_api.py``)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.core import zones
from tcgjax.core.invariants import leaf_paths
from tcgjax.games.duel import rules as R
from tcgjax.games.duel.scenario import build_state

KEY = jax.random.PRNGKey(0)


@pytest.fixture(scope="module")
def rules(duel_env):
    return duel_env.rules


@pytest.fixture(scope="module")
def situations(duel_env):
    """Rules states of explicit situations, each one the rules reach:

    * ``mid``: turn 3, player 1 to act: wolf on the board (exhausted), goblin and spark in hand,
      2 of 3 mana, life 7, knight and dragon in deck; player 2: knight on the board, goblin and
      wolf in deck, life 5. The rest of each decklist is in its owner's discard.
    * ``life_won``: player 1's ready wolf attacks player 2 at 1 life (winner player 1, 'life').
    * ``decked``: player 1 ends the turn, player 2 draws from an empty deck (winner player 1,
      'decked_out', player 2 active on turn 2).
    * ``forfeit``: ``mid`` after player 1, the player to act, forfeits (an illegal action under
      ``illegal_action="lose"``: winner player 2).
    * ``decked_p1``: the mirror of ``decked``: player 2 ends turn 2, player 1 draws from an empty
      deck (winner player 2, 'decked_out', player 1 active on turn 3).
    """
    env = duel_env
    step = jax.jit(env.step)
    mid = build_state(
        env,
        [
            {"hand": ["goblin", "spark"], "board": ["wolf"], "exhausted": [0], "mana": 2,
             "max_mana": 3, "deck": ["knight", "dragon"], "life": 7},
            {"board": ["knight"], "deck": ["goblin", "wolf"], "life": 5},
        ],
        turn_number=3,
    )  # fmt: skip
    life_won = step(
        build_state(env, [{"board": ["wolf"]}, {"life": 1}]), R.ACTIONS.encode("attack", 0), KEY
    )
    decked = step(
        build_state(env, [{"deck": ["spark"]}, {"deck": []}]), R.ACTIONS.encode("end_turn"), KEY
    )
    forfeit = env.rules.forfeit(mid.game, jnp.int32(0))
    decked_p1 = step(
        build_state(env, [{"deck": []}, {"deck": ["spark"]}], active=1),
        R.ACTIONS.encode("end_turn"),
        KEY,
    )
    out = {
        "mid": mid.game,
        "life_won": life_won.game,
        "decked": decked.game,
        "forfeit": forfeit,
        "decked_p1": decked_p1.game,
    }
    return jax.device_get(out)


# -- building broken states from a situation ------------------------------------------------------


def _board(s, **fields):
    return s.replace(board=s.board.replace(**fields))


def _set(s, field, index, value):
    """``s`` with ``board.<field>[index] = value``."""
    arr = jnp.asarray(getattr(s.board, field))
    return _board(s, **{field: arr.at[index].set(value)})


def _cards(s, kind, player):
    """Card instances of ``player``'s ``kind`` zone, bottom (position 0) first."""
    z = int(R.zone_of(kind, player))
    cards = np.flatnonzero(np.asarray(s.board.zone) == z)
    return [int(c) for c in cards[np.argsort(np.asarray(s.board.position)[cards])]]


def _named(rules, s, kind, player, name):
    """The first instance of card ``name`` in ``player``'s ``kind`` zone."""
    d = rules.cards.index(name)
    return next(c for c in _cards(s, kind, player) if int(s.board.definition[c]) == d)


def _move(rules, s, card, kind, player):
    """Move ``card`` onto ``player``'s ``kind`` zone with the engine's command (dense positions)."""
    board = jax.tree.map(jnp.asarray, s.board)  # the command updates device arrays
    moved = zones.move_card(rules.layout, board, card, R.zone_of(kind, player))
    assert int(moved.error) == 0
    return s.replace(board=moved.board)


def _pile(s, cards, kind, player):
    """Put ``cards`` on top of ``player``'s ``kind`` zone past its ``max_size`` (which the engine's
    command refuses), every zone's positions kept dense."""
    zone = np.asarray(s.board.zone).astype(int)
    position = np.asarray(s.board.position).astype(int)
    zone[cards] = int(R.zone_of(kind, player))
    position[cards] = 1000 + np.arange(len(cards))  # above the zone's cards, in order
    for z in np.unique(zone):
        members = np.flatnonzero(zone == z)
        position[members[np.argsort(position[members])]] = np.arange(members.size)
    return _board(
        s,
        zone=jnp.asarray(zone, s.board.zone.dtype),
        position=jnp.asarray(position, s.board.position.dtype),
    )


def _attr(s, player, column, value):
    attrs = jnp.asarray(s.board.player_attributes)
    return _board(s, player_attributes=attrs.at[player, column].set(value))


def _swap_instances(s):
    """Exchange two instances across players (definition, zone, position and owner): each player
    still holds the decklist in their own zones, but an instance's owner is not as dealt."""
    a, b = _cards(s, "deck", 0)[0], _cards(s, "deck", 1)[0]
    board = s.board
    for field in ("definition", "zone", "position", "owner"):
        arr = jnp.asarray(getattr(board, field))
        board = board.replace(**{field: arr.at[a].set(arr[b]).at[b].set(arr[a])})
    return s.replace(board=board)


def _game(s, winner, reason):
    return s.replace(winner=jnp.int8(winner), end_reason=jnp.int8(reason))


# (path, start of the rule's text, situation, how to break it)
CASES = [
    ("turnState.phase", "the phase is 'main'", "mid", lambda r, s: _board(s, phase=jnp.int8(1))),
    ("turnState.activePlayerId", "the active player is 0", "mid",
     lambda r, s: _board(s, active_player=jnp.int8(2))),
    # The issue's case: a negative turn number was accepted (turn -1 keeps player 1's parity).
    ("turnState.turnNumber", "the turn is at least 1", "mid",
     lambda r, s: _board(s, turn_number=jnp.int16(-1))),
    ("turnState.activePlayerId", "player 1 is active on odd turns", "mid",
     lambda r, s: _board(s, turn_number=jnp.int16(4))),
    ("turnState.activePlayerId", "player 1 is active on odd turns", "decked",
     lambda r, s: _board(s, active_player=jnp.int8(0))),
    ("version", "the version counts", "mid", lambda r, s: _board(s, version=jnp.int32(-1))),
    ("game.winner", "the winner is -1", "mid", lambda r, s: _game(s, 2, R.END_NONE)),
    ("game.end_reason", "the end reason is one of", "mid", lambda r, s: _game(s, -1, 9)),
    ("game.end_reason", "the end reason is one of", "life_won",
     lambda r, s: _game(s, 0, R.END_NONE)),
    ("cards.card_NNN.ownerId", "each card instance is owned", "mid",
     lambda r, s: _swap_instances(s)),
    ("players.playerN", "each player holds", "mid",
     lambda r, s: _set(s, "definition", _named(r, s, "hand", 0, "goblin"),
                       r.cards.index("dragon"))),
    ("cards.card_NNN.zoneId", "each card lies in a zone", "mid",
     lambda r, s: _move(r, s, _cards(s, "discard", 0)[-1], "discard", 1)),
    ("cards.card_NNN.zoneId", "no spell on the board", "mid",
     lambda r, s: _move(r, s, _named(r, s, "hand", 0, "spark"), "board", 0)),
    ("zones.ZONE", "the positions", "mid",
     lambda r, s: _set(s, "position", _cards(s, "hand", 0)[1], 0)),
    ("zones.ZONE", "a hand holds at most 6", "mid",
     lambda r, s: _pile(s, _cards(s, "discard", 0)[:5], "hand", 0)),
    ("zones.ZONE", "a hand holds at most 6", "mid",
     lambda r, s: _pile(s, [_named(r, s, "discard", 1, n) for n in ("goblin", "wolf", "dragon")],
                        "board", 1)),
    ("players.playerN.attributes.life", "life never above", "mid",
     lambda r, s: _attr(s, 1, R.LIFE, 13)),
    ("players.playerN.attributes.life", "0 life or less only", "mid",
     lambda r, s: _attr(s, 1, R.LIFE, 0)),
    ("players.playerN.attributes.life", "0 life or less only", "life_won",
     lambda r, s: _attr(s, 0, R.LIFE, -2)),
    ("players.playerN.attributes.life", "0 life or less only", "forfeit",
     lambda r, s: _attr(s, 0, R.LIFE, 0)),
    ("players.playerN.attributes.max_mana", "max_mana within", "mid",
     lambda r, s: _attr(s, 0, R.MAX_MANA_ATTR, 6)),
    # Either player's (the check runs over both), and the range's lower end.
    ("players.playerN.attributes.max_mana", "max_mana within", "mid",
     lambda r, s: _attr(s, 1, R.MAX_MANA_ATTR, 6)),
    ("players.playerN.attributes.max_mana", "max_mana within", "mid",
     lambda r, s: _attr(s, 0, R.MAX_MANA_ATTR, -1)),
    ("players.playerN.attributes.mana", "mana within", "mid",
     lambda r, s: _attr(s, 0, R.MANA, 4)),
    ("players.playerN.attributes.mana", "mana within", "mid",
     lambda r, s: _attr(s, 1, R.MANA, -1)),
    ("cards.card_NNN.attributes.exhausted", "exhausted is 0 or 1", "mid",
     lambda r, s: _set(s, "card_attributes", (_cards(s, "hand", 0)[0], R.EXHAUSTED), 1)),
    ("cards.card_NNN.attributes.exhausted", "exhausted is 0 or 1", "mid",
     lambda r, s: _set(s, "card_attributes", (_cards(s, "board", 0)[0], R.EXHAUSTED), 2)),
    ("cards.card_NNN.visibilityOverride", "no visibility override", "mid",
     lambda r, s: _set(s, "visibility", _cards(s, "hand", 0)[0], 0)),
    ("game.end_reason", "'life': the loser has", "mid", lambda r, s: _game(s, 0, R.END_LIFE)),
    # The loser at exactly 1 life, and player 2 as the winner (the loser is player 1).
    ("game.end_reason", "'life': the loser has", "mid",
     lambda r, s: _attr(_game(s, 0, R.END_LIFE), 1, R.LIFE, 1)),
    ("game.end_reason", "'life': the loser has", "decked_p1",
     lambda r, s: _game(s, 1, R.END_LIFE)),
    # Player 1 (active) as the loser of a deck-out with 2 cards left in their deck.
    ("game.end_reason", "'decked_out': the loser's deck", "mid",
     lambda r, s: _game(s, 1, R.END_DECKED)),
    # Player 1, the player to act, recorded as the winner of a forfeit.
    ("game.end_reason", "the active player ended the game", "forfeit",
     lambda r, s: _game(s, 0, R.END_ILLEGAL)),
    # Values outside their ranges (mutation testing found these unguarded): an end reason one
    # past the last and -1, a zone index past the last and -1, player 2 off the decklist.
    ("game.end_reason", "the end reason is one of", "mid",
     lambda r, s: _game(s, -1, len(R.END_REASONS))),
    ("game.end_reason", "the end reason is one of", "mid", lambda r, s: _game(s, -1, -1)),
    # ... and the same with a winner (no reason at all, not 'none' with a winner).
    ("game.end_reason", "the end reason is one of", "mid",
     lambda r, s: _game(s, 0, len(R.END_REASONS))),
    ("game.end_reason", "the end reason is one of", "mid", lambda r, s: _game(s, 0, -1)),
    ("cards.card_NNN.zoneId", "each card lies in a zone", "mid",
     lambda r, s: _set(s, "zone", _cards(s, "hand", 0)[0], r.layout.num_zones)),
    ("cards.card_NNN.zoneId", "each card lies in a zone", "mid",
     lambda r, s: _set(s, "zone", _cards(s, "hand", 0)[0], -1)),
    ("players.playerN", "each player holds", "mid",
     lambda r, s: _set(s, "definition", _named(r, s, "board", 1, "knight"),
                       r.cards.index("dragon"))),
    ("players.playerN", "each player holds", "mid",
     lambda r, s: _set(s, "definition", _cards(s, "hand", 0)[0], len(r.cards.ids))),
    # Player 2's life loss while player 2 is active (a life loss is the actor's win).
    ("game.end_reason", "the active player ended the game", "mid",
     lambda r, s: _attr(_game(s, 1, R.END_LIFE), 0, R.LIFE, 0)),
]  # fmt: skip


def _row(rules, path, rule):
    rows = [row for row in rules.invariants.rows(path) if row.rule.startswith(rule)]
    assert len(rows) == 1, (path, rule)
    return rows[0]


def _path_matches(pattern: str, path: str) -> bool:
    """``path`` (``cards.card_007.zoneId``) is an instance of ``pattern``
    (``cards.card_NNN.zoneId``)."""
    parts, actual = pattern.split("."), path.split(".")
    if len(parts) != len(actual):
        return False
    generic = {"card_NNN": "card_", "playerN": "player", "ZONE": ""}
    return all(
        p == a or (p in generic and a.startswith(generic[p]))
        for p, a in zip(parts, actual, strict=True)
    )


# -- 1. every field is named ----------------------------------------------------------------------


def test_every_leaf_is_named(rules, situations):
    table = rules.invariants
    state = situations["mid"]
    assert table.uncovered(state) == []
    # No stale names: every field a row names is a leaf of the state.
    assert table.covered() <= set(leaf_paths(state))
    assert table.exempt == {}


def test_the_table_is_built_once_per_rules_object(rules):
    assert rules.invariants is rules.invariants


# -- 2. each invariant refuses a state that breaks it --------------------------------------------


def test_situations_break_nothing(rules, situations):
    for name, state in situations.items():
        assert [row.rule for row in rules.invariants.broken(rules.facts(state))] == [], name
        rules.validate(state)
    assert int(situations["life_won"].end_reason) == R.END_LIFE
    assert int(situations["decked"].end_reason) == R.END_DECKED
    assert int(situations["forfeit"].end_reason) == R.END_ILLEGAL
    assert (int(situations["decked_p1"].end_reason), int(situations["decked_p1"].winner)) == (
        R.END_DECKED,
        1,
    )


def test_cases_cover_every_row(rules):
    named = {(path, rule) for path, rule, _, _ in CASES}
    for row in rules.invariants:
        assert any(row.path == p and row.rule.startswith(r) for p, r in named), row.rule


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}:{c[1]}:{c[2]}" for c in CASES])
def test_each_invariant_refuses_what_breaks_it(rules, situations, case):
    path, rule, situation, breaks = case
    row = _row(rules, path, rule)
    state = breaks(rules, situations[situation])
    broken = rules.invariants.broken(rules.facts(state))
    assert row in broken, (path, rule, [b.rule for b in broken])
    # The row is the first one broken (a later row may fail on the same edit, never an earlier
    # one), so validate reports this row's field.
    assert broken[0] is row, (path, rule, [b.rule for b in broken])
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(state)
    assert _path_matches(path, info.value.field), (path, info.value.field)


def test_the_field_named_is_the_broken_instance(rules, situations):
    """A row over many instances names the one that breaks it, not just the pattern."""
    s = situations["mid"]
    card = _named(rules, s, "hand", 0, "spark")
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(_move(rules, s, card, "board", 0))
    assert info.value.field == f"cards.card_{card + 1:03d}.zoneId"
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(_pile(s, _cards(s, "discard", 0)[:5], "hand", 0))
    assert info.value.field == "zones.hand_player1"
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(_attr(s, 1, R.LIFE, 0))
    assert info.value.field == "players.player2.attributes.life"


def test_the_first_card_with_a_visibility_override_is_named(rules, situations):
    s = situations["mid"]
    first, second = sorted(_cards(s, "hand", 0))[:2]
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(_set(_set(s, "visibility", second, 0), "visibility", first, 0))
    assert info.value.field == f"cards.card_{first + 1:03d}.visibilityOverride"


def test_the_first_broken_instance_is_named(rules, situations):
    """Two cards out of place: the error names the lower-numbered one."""
    s = situations["mid"]
    hand = _cards(s, "hand", 0)
    bad = _set(_set(s, "zone", hand[0], 99), "zone", hand[1], 99)
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(bad)
    assert info.value.field == f"cards.card_{min(hand[0], hand[1]) + 1:03d}.zoneId"


def test_the_first_instance_not_as_dealt_is_named(rules, situations):
    """Two instances exchanged across players: the error names the lower-numbered one."""
    s = situations["mid"]
    a, b = _cards(s, "deck", 0)[0], _cards(s, "deck", 1)[0]
    with pytest.raises(tcgjax.InvalidStateError) as info:
        rules.validate(_swap_instances(s))
    assert info.value.field == f"cards.card_{min(a, b) + 1:03d}.ownerId"


def test_a_padding_definition_is_shown_as_its_index(rules, situations):
    """Definition 0 is the registry's padding row (``ids[0] == ""``): the message shows ``<0>``,
    not an empty name."""
    s = situations["mid"]
    with pytest.raises(tcgjax.InvalidStateError, match="'<0>'") as info:
        rules.validate(_set(s, "definition", _cards(s, "hand", 0)[0], 0))
    assert info.value.field == "players.player1"


def test_a_negative_turn_number_is_refused(rules, situations):
    """The issue's example: ``turnState.turnNumber = -1`` used to validate."""
    bad = _board(situations["mid"], turn_number=jnp.int16(-1))
    with pytest.raises(tcgjax.InvalidStateError, match="-1 < 1") as info:
        rules.validate(bad)
    assert info.value.field == "turnState.turnNumber"


# -- 3. what the rules reach is accepted ----------------------------------------------------------


def test_turns_alternate_from_player_1_on_turn_1(duel_env):
    """The parity row's premise, played out: ``init`` is player 1's turn 1 and each ``end_turn``
    hands over and counts up; every state on the way validates."""
    step = jax.jit(duel_env.step)
    state = duel_env.init(KEY)
    for turn in range(1, 8):
        board = state.game.board
        assert (int(board.turn_number), int(board.active_player)) == (turn, (turn - 1) % 2)
        duel_env.validate(state)
        state = step(state, R.ACTIONS.encode("end_turn"), KEY)
