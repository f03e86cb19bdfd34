"""Rules of *duel*, the minimal example game built only on the tcgjax core.

Two players, each with the same 12-card deck of creatures and spells (``cards.yaml``).

Rules implemented:

1. Setup: each deck is shuffled (a zone command with an explicit key); each player draws 3 cards;
   player 1 starts. Life 12 each.
2. Start of a turn: the active player's ``max_mana`` grows by 1 (up to 5) and ``mana`` refills; their
   creatures ready (``exhausted`` = 0); they draw a card. An empty deck loses the game ("decked out");
   a card drawn into a full hand (6) goes to the discard instead ("burned").
3. ``play[i]``: play the card at hand position ``i`` by paying its cost in mana. A creature enters the
   board (at most 3) exhausted; a spell deals its power to the opponent and goes to the discard.
4. ``attack[j]``: the ready creature at board slot ``j`` deals its power to the opponent and exhausts.
5. ``end_turn``: always legal; the opponent's turn starts (rule 2).
6. A player at 0 life or less loses. Winner +1, loser -1.

Simplifications (it is an example): no blockers, no creature combat, no first-player draw skip.
This module is pure rules: it never imports anything RL.
"""

from __future__ import annotations

import functools
import os
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax.core import zones
from tcgjax.core.actions import ActionLayout
from tcgjax.core.board import Board, BoardLayout, card_id, new_board, player_id, set_turn
from tcgjax.core.cards import CardRegistry, CardSchema, EnumField, IntField, TextField
from tcgjax.core.errors import FIRST_GAME_CODE, RuleError
from tcgjax.core.invariants import InvariantTable, pile_order_problem
from tcgjax.core.invariants import row as _row
from tcgjax.core.invariants import scalar as _scalar
from tcgjax.core.tree import tree_where

CARDS_FILE = os.path.join(os.path.dirname(__file__), "cards.yaml")
SCHEMA = CardSchema(
    (
        TextField("name"),
        EnumField("kind", ("creature", "spell")),
        IntField("cost", 0, 10),
        IntField("power", 0, 20),
    )
)
CREATURE, SPELL = 0, 1
DECKLIST = (
    ("spark",) * 2 + ("goblin",) * 3 + ("wolf",) * 3 + ("knight",) * 2 + ("fireball", "dragon")
)
START_LIFE, MAX_MANA, HAND_SIZE, BOARD_SIZE, OPENING_HAND = 12, 5, 6, 3, 3
LIFE, MANA, MAX_MANA_ATTR = 0, 1, 2  # player attribute columns
EXHAUSTED = 0  # card attribute column
ZONE_KINDS = ("deck", "hand", "board", "discard")
NO_WINNER = -1
END_NONE, END_LIFE, END_DECKED, END_ILLEGAL = 0, 1, 2, 3
END_REASONS = ("none", "life", "decked_out", "illegal_action")

ACTIONS = ActionLayout([("play", HAND_SIZE), ("attack", BOARD_SIZE), ("end_turn", 1)])
RULE_ERRORS = (
    RuleError("no_card_in_hand_slot", "play[i]: there is no card at that hand position"),
    RuleError("not_enough_mana", "play[i]: the card costs more mana than the player has"),
    RuleError("board_full", "play[i]: a creature needs a free board slot (max 3)"),
    RuleError("no_creature_in_slot", "attack[j]: there is no creature at that board slot"),
    RuleError(
        "creature_exhausted", "attack[j]: the creature is exhausted (just played or attacked)"
    ),
)

CODES = {e.name: FIRST_GAME_CODE + i for i, e in enumerate(RULE_ERRORS)}


def _code(name: str) -> int:
    return CODES[name]


@struct.dataclass
class DuelState:
    """Rules state: the engine board plus why the game ended.

    Attributes:
      board: the ``Board`` (players' life/mana, every card's zone).
      winner: int8[] — winning player, -1 while the game goes on.
      end_reason: int8[] — index into ``END_REASONS``.
    """

    board: Board
    winner: jax.Array
    end_reason: jax.Array


def build_layout(cards: CardRegistry) -> BoardLayout:
    reg = zones.ZoneTypeRegistry()
    reg.register(zones.ZoneType("deck", ordered=True, visibility="hidden"))
    reg.register(zones.ZoneType("hand", ordered=True, visibility="owner", max_size=HAND_SIZE))
    reg.register(zones.ZoneType("board", ordered=False, visibility="public", max_size=BOARD_SIZE))
    reg.register(zones.ZoneType("discard", ordered=True, visibility="public"))
    return BoardLayout(
        num_players=2,
        zone_types=reg,
        zones=tuple((kind, p) for p in range(2) for kind in ZONE_KINDS),
        cards=cards,
        num_cards=2 * len(DECKLIST),
        card_attributes=("exhausted",),
        player_attributes=("life", "mana", "max_mana"),
        phases=("main",),
    )


def zone_of(kind: str, player) -> jax.Array:
    """Zone index of ``kind`` owned by ``player`` (zones are laid out player-major)."""
    return jnp.asarray(player, jnp.int32) * len(ZONE_KINDS) + ZONE_KINDS.index(kind)


class DuelRules:
    """The static rules object: layout and card tables. Methods are pure functions of the state."""

    def __init__(self, cards_file: str = CARDS_FILE):
        self.cards = CardRegistry.load(cards_file, SCHEMA)
        self.layout = build_layout(self.cards)
        self.deck = [self.cards.index(cid) for cid in DECKLIST]

    # -- setup -------------------------------------------------------------------------------------

    def init(self, key: jax.Array) -> DuelState:
        layout = self.layout
        cards = [(d, p, layout.zone_index("deck", p)) for p in range(2) for d in self.deck]
        attrs = [[START_LIFE, 0, 0]] * 2
        board = new_board(layout, cards, player_attributes=attrs)
        keys = jax.random.split(key, 2)
        for p in range(2):
            board = zones.shuffle(layout, board, zone_of("deck", p), keys[p]).board
            for _ in range(OPENING_HAND):
                board = zones.draw(layout, board, zone_of("deck", p), zone_of("hand", p)).board
        state = DuelState(board=board, winner=jnp.int8(NO_WINNER), end_reason=jnp.int8(END_NONE))
        return self._start_turn(state, jnp.int32(0))

    # -- legality ----------------------------------------------------------------------------------

    def action_errors(self, state: DuelState) -> jax.Array:
        """Error code of every action (0 = legal), one vectorised pass. Returns int32[A]."""
        board, layout = state.board, self.layout
        me = board.active_player.astype(jnp.int32)
        mana = board.player_attributes[me, MANA]

        hand = zones.zone_slots(board, zone_of("hand", me), HAND_SIZE)  # [6]
        hand_def = board.definition[jnp.maximum(hand, 0)]
        board_full = zones.zone_count(board, zone_of("board", me)) >= BOARD_SIZE
        is_creature = self.cards["kind"][hand_def] == CREATURE
        play = jnp.where(
            hand < 0,
            _code("no_card_in_hand_slot"),
            jnp.where(
                self.cards["cost"][hand_def] > mana,
                _code("not_enough_mana"),
                jnp.where(is_creature & board_full, _code("board_full"), 0),
            ),
        )

        field = zones.zone_slots(board, zone_of("board", me), BOARD_SIZE)  # [3]
        exhausted = board.card_attributes[jnp.maximum(field, 0), EXHAUSTED] > 0
        attack = jnp.where(
            field < 0,
            _code("no_creature_in_slot"),
            jnp.where(exhausted, _code("creature_exhausted"), 0),
        )
        del layout
        return jnp.concatenate([play, attack, jnp.zeros(1, play.dtype)]).astype(jnp.int32)

    def legal_action_mask(self, state: DuelState) -> jax.Array:
        return self.action_errors(state) == 0

    # -- transitions -------------------------------------------------------------------------------

    def apply(self, state: DuelState, action: jax.Array) -> tuple[DuelState, jax.Array]:
        """Apply a legal action. Returns ``(state, rewards float32[2])``."""
        kind = jnp.where(
            action < ACTIONS.start("attack"), 0, jnp.where(action < ACTIONS.start("end_turn"), 1, 2)
        )
        state = jax.lax.switch(kind, (self._play, self._attack, self._end_turn), state, action)
        winner = state.winner.astype(jnp.int32)
        rewards = jnp.where(winner < 0, 0.0, jnp.where(jnp.arange(2) == winner, 1.0, -1.0))
        return state, rewards.astype(jnp.float32)

    def _play(self, state: DuelState, action) -> DuelState:
        board, layout = state.board, self.layout
        me = board.active_player.astype(jnp.int32)
        card = zones.card_at(board, zone_of("hand", me), action - ACTIONS.start("play"))
        card = jnp.maximum(card, 0)
        definition = board.definition[card]
        cost, power = self.cards["cost"][definition], self.cards["power"][definition]
        is_creature = self.cards["kind"][definition] == CREATURE
        attrs = board.player_attributes.at[me, MANA].add(-cost)
        attrs = attrs.at[1 - me, LIFE].add(jnp.where(is_creature, 0, -power).astype(attrs.dtype))
        board = board.replace(player_attributes=attrs)
        dest = jnp.where(is_creature, zone_of("board", me), zone_of("discard", me))
        board = zones.move_card(layout, board, card, dest, zones.TOP).board
        board = board.replace(
            card_attributes=board.card_attributes.at[card, EXHAUSTED].set(
                is_creature.astype(board.card_attributes.dtype)
            )
        )
        return self._check_life(state.replace(board=board))

    def _attack(self, state: DuelState, action) -> DuelState:
        board = state.board
        me = board.active_player.astype(jnp.int32)
        card = zones.card_at(board, zone_of("board", me), action - ACTIONS.start("attack"))
        card = jnp.maximum(card, 0)
        power = self.cards["power"][board.definition[card]]
        board = board.replace(
            player_attributes=board.player_attributes.at[1 - me, LIFE].add(-power),
            card_attributes=board.card_attributes.at[card, EXHAUSTED].set(1),
        )
        return self._check_life(state.replace(board=board))

    def _end_turn(self, state: DuelState, action) -> DuelState:
        del action
        opponent = 1 - state.board.active_player.astype(jnp.int32)
        board = set_turn(
            state.board, active_player=opponent, turn_number=state.board.turn_number + 1
        )
        return self._start_turn(state.replace(board=board), opponent)

    def _start_turn(self, state: DuelState, player) -> DuelState:
        board, layout = state.board, self.layout
        max_mana = jnp.minimum(board.player_attributes[player, MAX_MANA_ATTR] + 1, MAX_MANA)
        attrs = board.player_attributes.at[player, MAX_MANA_ATTR].set(max_mana)
        attrs = attrs.at[player, MANA].set(max_mana)
        ready = (board.zone == zone_of("board", player))[:, None]
        card_attrs = jnp.where(ready, jnp.zeros_like(board.card_attributes), board.card_attributes)
        board = board.replace(player_attributes=attrs, card_attributes=card_attrs)
        drawn = zones.draw(layout, board, zone_of("deck", player), zone_of("hand", player))
        burned = zones.draw(layout, board, zone_of("deck", player), zone_of("discard", player))
        hand_full = drawn.error == zones.errors.ZONE_FULL
        board = tree_where(hand_full, burned.board, drawn.board)
        decked = drawn.error == zones.errors.ZONE_EMPTY
        return state.replace(
            board=board,
            winner=jnp.where(decked, 1 - player, state.winner).astype(jnp.int8),
            end_reason=jnp.where(decked, END_DECKED, state.end_reason).astype(jnp.int8),
        )

    def _check_life(self, state: DuelState) -> DuelState:
        me = state.board.active_player.astype(jnp.int32)
        dead = state.board.player_attributes[1 - me, LIFE] <= 0
        return state.replace(
            winner=jnp.where(dead, me, state.winner).astype(jnp.int8),
            end_reason=jnp.where(dead, END_LIFE, state.end_reason).astype(jnp.int8),
        )

    def forfeit(self, state: DuelState, loser: jax.Array) -> DuelState:
        """``loser`` made an illegal move under ``illegal_action="lose"``: the other player wins."""
        winner = (1 - loser).astype(jnp.int8)
        return state.replace(winner=winner, end_reason=jnp.int8(END_ILLEGAL))

    # -- invariants (host side) --------------------------------------------------------------------

    @functools.cached_property
    def invariants(self) -> InvariantTable:
        """The ordered table of what every reachable state satisfies (:func:`_invariants`), built
        once per rules object."""
        return _invariants()

    def facts(self, state: DuelState) -> _Facts:
        """The host view of one state the invariants read (:class:`_Facts`)."""
        return _facts(self, state)

    def validate(self, state: DuelState) -> None:
        """Raise ``InvalidStateError(path, problem)`` if ``state`` is not reachable under these
        rules: the first row of :attr:`invariants` (:func:`_invariants`) it breaks.

        Host-side (NumPy). The rows, in order: the turn state (the single phase, a player active,
        a turn of at least 1, the active player agreeing with the turn's parity, a version of at
        least 0); the winner and an end reason that agrees with it; card conservation (owners as
        dealt, each player holding exactly the decklist, each card in a zone of its owner, no
        spell on the board, dense pile positions, hand and board within their sizes); life, mana
        and max_mana within their bounds, 0 life or less only for the loser of a life loss;
        exhaustion only on the board; no visibility override; how the game ended agrees with the
        board (the loser's life or deck, who was active). Paths are the JSON view's
        (``players.player1.attributes.mana``, ``cards.card_007.zoneId``).
        """
        self.invariants.validate(self.facts(state))


# -- the invariant table (host side) ---------------------------------------------------------------


class _Facts(NamedTuple):
    """One duel state as host numpy arrays, plus what the invariants derive once.

    ``s``: the state (numpy leaves); ``b``: its board; ``rules``: the rules object; ``winner``,
    ``reason``, ``active``, ``turn`` the scalars as ints; ``life``, ``mana``, ``max_mana`` int[2]
    per player; ``kind`` int[C] each card's kind (``CREATURE``/``SPELL``, its definition clipped
    into the registry); ``zone_kind`` each card's zone kind (``"?"`` for no zone); ``counts``
    int[Z] cards per zone.
    """

    s: DuelState
    b: Board
    rules: DuelRules
    winner: int
    reason: int
    active: int
    turn: int
    life: np.ndarray
    mana: np.ndarray
    max_mana: np.ndarray
    kind: np.ndarray
    zone_kind: list
    counts: np.ndarray


def _facts(rules: DuelRules, state: DuelState) -> _Facts:
    s = jax.tree.map(np.asarray, state)
    b = s.board
    layout = rules.layout
    definition = np.clip(b.definition.astype(int), 0, len(rules.cards.ids) - 1)
    zone = b.zone.astype(int)
    in_range = (zone >= 0) & (zone < layout.num_zones)
    attrs = b.player_attributes.astype(int)
    return _Facts(
        s=s,
        b=b,
        rules=rules,
        winner=int(s.winner),
        reason=int(s.end_reason),
        active=int(b.active_player),
        turn=int(b.turn_number),
        life=attrs[:, LIFE],
        mana=attrs[:, MANA],
        max_mana=attrs[:, MAX_MANA_ATTR],
        kind=np.asarray(rules.cards.numpy["kind"])[definition],
        zone_kind=[layout.zones[z][0] if ok else "?" for z, ok in zip(zone, in_range, strict=True)],
        counts=np.bincount(zone[in_range], minlength=layout.num_zones),
    )


def _card_path(c: int, leaf: str) -> str:
    return f"cards.{card_id(c)}.{leaf}"


def _check_parity(f: _Facts):
    # init starts player 1's (index 0) turn 1; each end_turn hands over and counts the turn up.
    if f.active != (f.turn - 1) % 2:
        return (
            f"{player_id(f.active)} active on turn {f.turn}: player1 plays the odd turns, "
            "player2 the even ones"
        )
    return None


def _check_end_reason_agrees(f: _Facts):
    known = 0 <= f.reason < len(END_REASONS)
    if not known or (f.winner == NO_WINNER) != (f.reason == END_NONE):
        return f"{f.reason} does not agree with winner {f.winner}"
    return None


def _check_owner(f: _Facts):
    # init and build_state deal the cards player-major (the first 12 instances are player 1's),
    # and no rule changes an owner.
    dealt = np.arange(f.rules.layout.num_cards) // len(DECKLIST)
    bad = np.flatnonzero(f.b.owner.astype(int) != dealt)
    if bad.size:
        c = int(bad[0])
        return _card_path(c, "ownerId"), f"{player_id(int(f.b.owner[c]))}, not as dealt"
    return None


def _check_decklist(f: _Facts):
    ids = f.rules.cards.ids
    for p in range(2):
        held = [int(d) for d in f.b.definition[f.b.owner == p]]
        names = sorted(ids[d] if 1 <= d < len(ids) else f"<{d}>" for d in held)
        if names != sorted(DECKLIST):
            return (
                f"players.{player_id(p)}",
                f"holds the cards {names}, not the decklist {sorted(DECKLIST)}",
            )
    return None


def _check_zone_owner(f: _Facts):
    layout = f.rules.layout
    for c in range(layout.num_cards):
        zone, owner = int(f.b.zone[c]), int(f.b.owner[c])
        if f.zone_kind[c] == "?":
            return _card_path(c, "zoneId"), f"{zone} is not a zone"
        if layout.zones[zone][1] != owner:
            where = layout.zone_id(zone)
            return _card_path(c, "zoneId"), f"a card of {player_id(owner)} in {where}"
    return None


def _check_no_spell_on_board(f: _Facts):
    for c, zone_kind in enumerate(f.zone_kind):
        if zone_kind == "board" and f.kind[c] == SPELL:
            return _card_path(c, "zoneId"), "a spell on the board (spells resolve to the discard)"
    return None


def _check_pile_order(f: _Facts):
    return pile_order_problem(f.rules.layout, f.b)


def _check_zone_size(f: _Facts):
    layout = f.rules.layout
    for z in range(layout.num_zones):
        if f.counts[z] > layout.zone_max_size[z]:
            return (
                f"zones.{layout.zone_id(z)}",
                f"{f.counts[z]} cards, more than its max_size {layout.zone_max_size[z]}",
            )
    return None


def _life_path(p: int) -> str:
    return f"players.{player_id(p)}.attributes.life"


def _check_life_cap(f: _Facts):
    for p in range(2):
        if f.life[p] > START_LIFE:
            return _life_path(p), f"{f.life[p]} above the starting {START_LIFE} (nothing heals)"
    return None


def _check_life_above_zero(f: _Facts):
    # A play or attack that takes a player to 0 ends the game at once (rule 6), with the actor
    # as the winner; nothing else lowers life, so only that loser can be at 0 or less.
    for p in range(2):
        if f.life[p] > 0:
            continue
        if f.winner == NO_WINNER:
            return _life_path(p), f"{f.life[p]} but the game goes on (0 or less loses)"
        if f.reason != END_LIFE or p != 1 - f.winner:
            return _life_path(p), (
                f"{f.life[p]}, but the game did not end by {player_id(p)}'s life loss "
                f"(end reason {END_REASONS[f.reason]!r}, winner {player_id(f.winner)})"
            )
    return None


def _check_max_mana(f: _Facts):
    for p in range(2):
        if not 0 <= f.max_mana[p] <= MAX_MANA:
            return (
                f"players.{player_id(p)}.attributes.max_mana",
                f"{f.max_mana[p]} outside [0, {MAX_MANA}]",
            )
    return None


def _check_mana(f: _Facts):
    for p in range(2):
        if not 0 <= f.mana[p] <= f.max_mana[p]:
            return (
                f"players.{player_id(p)}.attributes.mana",
                f"{f.mana[p]} outside [0, max_mana={f.max_mana[p]}]",
            )
    return None


def _check_exhausted(f: _Facts):
    for c, zone_kind in enumerate(f.zone_kind):
        exhausted = int(f.b.card_attributes[c, EXHAUSTED])
        if exhausted not in (0, 1) or (exhausted and zone_kind != "board"):
            return _card_path(c, "attributes.exhausted"), f"{exhausted} off the board or not 0/1"
    return None


def _check_visibility(f: _Facts):
    bad = np.flatnonzero(f.b.visibility != zones.NO_OVERRIDE)
    if bad.size:
        return _card_path(int(bad[0]), "visibilityOverride"), "duel never overrides visibility"
    return None


def _check_life_loss(f: _Facts):
    if f.reason == END_LIFE and f.life[1 - f.winner] > 0:
        return f"'life' but the loser has {f.life[1 - f.winner]} life"
    return None


def _check_decked_out(f: _Facts):
    if f.reason == END_DECKED:
        left = int(f.counts[f.rules.layout.zone_index("deck", 1 - f.winner)])
        if left:
            return f"'decked_out' but the loser has {left} cards in deck"
    return None


def _check_who_ended_it(f: _Facts):
    # 'life': the winner's own play or attack (rule 6); 'decked_out': the draw that starts the
    # loser's turn (rule 2, after end_turn made them active); 'illegal_action': the actor forfeits.
    expected = {END_LIFE: f.winner, END_DECKED: 1 - f.winner, END_ILLEGAL: 1 - f.winner}
    if f.reason in expected and f.active != expected[f.reason]:
        return (
            f"{END_REASONS[f.reason]!r} with {player_id(f.winner)} the winner, but "
            f"{player_id(f.active)} is active"
        )
    return None


def _invariants() -> InvariantTable:
    """The rows of :meth:`DuelRules.validate`, in the order they are checked (ranges first, so
    that a later row may index by a field an earlier one bounded)."""
    rows = [
        _row("board.phase", "turnState.phase", "the phase is 'main', the game's only phase",
             lambda f: _scalar(int(f.b.phase), lambda v: v == 0,
                               lambda v: f"{v} is not the phase 'main' (index 0)")),
        _row("board.active_player", "turnState.activePlayerId", "the active player is 0 or 1",
             lambda f: _scalar(f.active, lambda v: v in (0, 1), lambda v: f"{v} is not a player")),
        _row("board.turn_number", "turnState.turnNumber",
             "the turn is at least 1 (the game starts at turn 1)",
             lambda f: _scalar(f.turn, lambda v: v >= 1, lambda v: f"{v} < 1")),
        _row("board.active_player board.turn_number", "turnState.activePlayerId",
             "player 1 is active on odd turns, player 2 on even ones (player 1 starts; end_turn "
             "hands over and counts the turn up)", _check_parity),
        _row("board.version", "version", "the version counts commands up from 0",
             lambda f: _scalar(int(f.b.version), lambda v: v >= 0, lambda v: f"{v} < 0")),
        _row("winner", "game.winner", "the winner is -1 (none) or a player",
             lambda f: _scalar(f.winner, lambda v: v in (NO_WINNER, 0, 1),
                               lambda v: f"{v} is neither -1 (none) nor a player")),
        _row("winner end_reason", "game.end_reason",
             "the end reason is one of END_REASONS, 'none' exactly while there is no winner",
             _check_end_reason_agrees),
        _row("board.owner", "cards.card_NNN.ownerId",
             "each card instance is owned as dealt: the first 12 by player 1, the rest by "
             "player 2 (no rule changes an owner)", _check_owner),
        _row("board.definition", "players.playerN",
             "each player holds exactly the decklist's cards", _check_decklist),
        _row("board.zone", "cards.card_NNN.zoneId", "each card lies in a zone of its owner",
             _check_zone_owner),
        _row("board.zone board.definition", "cards.card_NNN.zoneId",
             "no spell on the board (rule 3: a spell resolves to the discard)",
             _check_no_spell_on_board),
        _row("board.position", "zones.ZONE",
             "the positions of each zone's cards are exactly 0..n-1", _check_pile_order),
        _row("board.zone", "zones.ZONE",
             "a hand holds at most 6 cards, a board at most 3 (rule 2: a card drawn into a full "
             "hand burns; rule 3: a creature needs a free slot)", _check_zone_size),
        _row("board.player_attributes", "players.playerN.attributes.life",
             "life never above the starting 12 (nothing heals)", _check_life_cap),
        _row("board.player_attributes winner end_reason", "players.playerN.attributes.life",
             "0 life or less only for the loser of a 'life' end (rule 6: it ends the game at "
             "once)", _check_life_above_zero),
        _row("board.player_attributes", "players.playerN.attributes.max_mana",
             "max_mana within [0, 5]", _check_max_mana),
        _row("board.player_attributes", "players.playerN.attributes.mana",
             "mana within [0, max_mana]", _check_mana),
        _row("board.card_attributes", "cards.card_NNN.attributes.exhausted",
             "exhausted is 0 or 1, and 1 only on the board (rules 3-4; a turn's start readies)",
             _check_exhausted),
        _row("board.visibility", "cards.card_NNN.visibilityOverride",
             "no visibility override (duel never sets one)", _check_visibility),
        _row("end_reason board.player_attributes", "game.end_reason",
             "'life': the loser has 0 life or less", _check_life_loss),
        _row("end_reason board.zone", "game.end_reason",
             "'decked_out': the loser's deck is empty", _check_decked_out),
        _row("end_reason board.active_player", "game.end_reason",
             "the active player ended the game: the winner after 'life' (their play or attack), "
             "the loser after 'decked_out' (their turn's draw) or 'illegal_action' (their move)",
             _check_who_ended_it),
    ]  # fmt: skip
    return InvariantTable(rows)
