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

import os

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax.core import zones
from tcgjax.core.actions import ActionLayout
from tcgjax.core.board import Board, BoardLayout, new_board, set_turn
from tcgjax.core.cards import CardRegistry, CardSchema, EnumField, IntField, TextField
from tcgjax.core.errors import FIRST_GAME_CODE, InvalidStateError, RuleError
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

    def validate(self, state: DuelState) -> None:
        """Raise ``InvalidStateError`` if ``state`` is not reachable under these rules.

        Host-side (NumPy). Invariants: the winner is a player or none, consistent with the end
        reason (a life loss leaves the loser at 0 or less, a deck-out an empty deck); a game that
        goes on has both players above 0 life; life never above the start (no healing); mana within
        ``[0, max_mana]`` and ``max_mana`` within ``[0, 5]``; each player holds exactly the
        decklist's cards; each card lies in a zone of its owner; spells never stay on the board;
        only board creatures can be exhausted (0 or 1); no visibility override (duel sets none).
        Field names are the JSON paths (``players.player1.attributes.mana``, ``cards.card_007``).
        """
        from tcgjax.core.board import card_id, player_id
        from tcgjax.core.zones import NO_OVERRIDE

        layout = self.layout
        b = jax.tree.map(np.asarray, state.board)
        winner, reason = int(state.winner), int(state.end_reason)

        def fail(field, problem):
            raise InvalidStateError(field, problem)

        if winner not in (NO_WINNER, 0, 1):
            fail("game.winner", f"{winner} is neither -1 (none) nor a player")
        if reason not in range(len(END_REASONS)) or (winner == NO_WINNER) != (reason == END_NONE):
            fail("game.end_reason", f"{reason} does not agree with winner {winner}")
        if int(b.active_player) not in (0, 1):
            fail("turnState.activePlayerId", f"{int(b.active_player)} is not a player")
        for p in range(2):
            attrs = f"players.{player_id(p)}.attributes"
            life, mana, max_mana = (
                int(v) for v in b.player_attributes[p, [LIFE, MANA, MAX_MANA_ATTR]]
            )
            if life > START_LIFE:
                fail(f"{attrs}.life", f"{life} above the starting {START_LIFE} (nothing heals)")
            if winner == NO_WINNER and life <= 0:
                fail(f"{attrs}.life", f"{life} but the game goes on (0 or less loses)")
            if not 0 <= max_mana <= MAX_MANA:
                fail(f"{attrs}.max_mana", f"{max_mana} outside [0, {MAX_MANA}]")
            if not 0 <= mana <= max_mana:
                fail(f"{attrs}.mana", f"{mana} outside [0, max_mana={max_mana}]")
            defs = sorted(self.cards.ids[int(d)] for d in b.definition[b.owner == p])
            if defs != sorted(DECKLIST):
                fail(
                    f"players.{player_id(p)}",
                    f"holds the cards {defs}, not the decklist {sorted(DECKLIST)}",
                )
        if reason == END_LIFE:
            loser_life = int(b.player_attributes[1 - winner, LIFE])
            if loser_life > 0:
                fail("game.end_reason", f"'life' but the loser has {loser_life} life")
        if reason == END_DECKED:
            left = int(np.sum(b.zone == int(zone_of("deck", 1 - winner))))
            if left:
                fail("game.end_reason", f"'decked_out' but the loser has {left} cards in deck")
        kinds = np.asarray(self.cards["kind"])
        for c in range(layout.num_cards):
            path = f"cards.{card_id(c)}"
            zone, owner = int(b.zone[c]), int(b.owner[c])
            kind_name, zone_owner = layout.zones[zone]
            if zone_owner != owner:
                fail(f"{path}.zoneId", f"a card of {player_id(owner)} in {layout.zone_id(zone)}")
            on_board = kind_name == "board"
            if on_board and kinds[int(b.definition[c])] == SPELL:
                fail(f"{path}.zoneId", "a spell on the board (spells resolve to the discard)")
            exhausted = int(b.card_attributes[c, EXHAUSTED])
            if exhausted not in (0, 1) or (exhausted and not on_board):
                fail(f"{path}.attributes.exhausted", f"{exhausted} off the board or not 0/1")
            if int(b.visibility[c]) != NO_OVERRIDE:
                fail(f"{path}.visibilityOverride", "duel never overrides visibility")
