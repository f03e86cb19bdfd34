"""Rules of the Digimon Card Game — stage 2: the board, the setup and the turn structure.

Pure rules (no RL import). This stage implements the zones, the setup, the turn structure (unsuspend,
draw, breeding, main), memory (G1), playing Digimon and Tamers, digivolving (with the draw bonus) and
passing. Options, attacks, keywords and the effect interpreter land in the next stages (see the
game's README): until then their action ids are never legal (error ``not_yet_implemented``).

**Board.** Each player owns ``C_p = 50 + eggs`` cards (card indices: player 1's Digi-Eggs, then
player 1's main deck, then player 2's), and these zones (E1 ids ``<zone>_<player>``):

* ``deck`` (hidden, ordered: the top is the last position), ``eggs`` (the Digi-Egg deck, hidden),
  ``hand`` (its owner sees it), ``security`` (face down for both players: decision G2), ``trash``
  (public, ordered);
* ``breeding`` and ``field0`` … ``field11``: one *digivolution stack* each (public, ordered: position
  0 is the bottom card, the top card is the Digimon's identity). A permanent keeps its field slot
  while it is in play; the slot index is the spec's field index.

Shared zones: ``revealed`` (cards revealed by an effect, public) and ``processing`` (an Option while
it resolves).

**Setup** (official General Rules; sources in ``../shared/reference/digimon/README.md``): each main deck
is shuffled with the game's key, the top 5 cards become the security stack face down, the next 5 the
opening hand (the rules put hand before security or security first depending on the source; both
deal the same random distribution, so one order is chosen); each Digi-Egg deck is shuffled; memory
is 0; the first player is drawn from the key and skips their first draw.

**Turn** (official order): Unsuspend → Draw → Breeding → Main. At the start of a turn the active
player's permanents unsuspend and they draw 1 card (the first player skips the draw of turn 1); a
player who must draw from an empty deck loses (``deck_out``). In the Breeding phase they do at most one
thing: hatch (60: the top Digi-Egg into the empty breeding area), move (61: a Lv.3+ Digimon from the
breeding area to the battle area, not "playing": no [On Play], and it may attack this turn) or pass
(62). In the Main phase: play a Digimon or Tamer (0-29), digivolve (400-999, field 12 = the breeding
area, G8), or pass (62).

**Memory** (G1, official): one gauge, stored from the active player's side. Paying a cost moves it
toward the opponent; a card may be played or digivolved whenever ``cost <= memory + 10`` (the gauge
never passes 10 on the opponent's side); once the gauge is on the opponent's side (below 0 here)
after the action has fully resolved, the turn ends and the opponent starts with that memory on their
side. Passing sets it to 3 on the opponent's side. Gains above 10 are lost.

**Digivolving**: a hand Digimon onto a permanent whose top card is a Digimon or Digi-Egg matching one
of its requirements (level, and the color among the top card's colors), paying that cost (the lowest
among the matching requirements), then drawing 1 card (the digivolution bonus; an empty deck draws
nothing and loses nothing outside the Draw phase). The permanent keeps its slot, its suspended state
and the turn it entered (so a Digimon played this turn still cannot attack).

Simplifications (documented): no mulligan (the optional one full re-draw); the spec's phases have no
mulligan decision. A permanent takes the lowest free battle slot; hand positions 30+ cannot be named
by an action (the spec addresses 30 hand slots).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax.core import zones
from tcgjax.core.board import Board, BoardLayout, new_board
from tcgjax.core.cards import CardRegistry
from tcgjax.core.errors import FIRST_GAME_CODE, ConfigError, InvalidStateError, RuleError
from tcgjax.core.tree import tree_where
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.cards import (
    AMOUNT_PER,
    CONDITIONS,
    DIGI_EGG,
    DIGIMON,
    EFFECT_FLAGS,
    KEYWORDS,
    KINDS,
    OPS,
    OPTION,
    TAMER,
    TARGETS,
    TRIGGERS,
    WHERE,
    WINDOWS,
)

__all__ = [
    "PLAYER_ZONES",
    "SHARED_ZONES",
    "FIELD_ZONES",
    "MAIN_DECK_SIZE",
    "MAX_EGGS",
    "SECURITY_AT_START",
    "HAND_AT_START",
    "DigimonState",
    "DigimonRules",
    "RULE_ERRORS",
    "CODES",
]

MAIN_DECK_SIZE = 50
MAX_EGGS = 5
MAX_COPIES = 4
SECURITY_AT_START = 5
HAND_AT_START = 5
MEMORY_LIMIT = 10
FIELD_ZONES = tuple(f"field{i}" for i in range(A.FIELD_SLOTS))
PLAYER_ZONES = ("deck", "eggs", "hand", "security", "trash", "breeding") + FIELD_ZONES
SHARED_ZONES = ("revealed", "processing")
BREEDING_SLOT = A.FIELD_SLOTS  # per-slot arrays: 12 battle-area slots, then the breeding area
NUM_SLOTS = A.FIELD_SLOTS + 1
ONGOING = -1
END_REASONS = ("none", "security_attack", "deck_out", "simultaneous_loss", "illegal_action")
END_NONE, END_SECURITY, END_DECK_OUT, END_DRAW, END_ILLEGAL = range(5)
PASS_MEMORY = 3  # passing puts the gauge on 3 on the opponent's side
QUEUE_SIZE = 8  # triggered effect rows waiting at once
LASTING_SIZE = 8  # timed modifiers in force at once (the oldest is overwritten beyond)
MAX_DRAW = 3  # largest <Draw N> of the supported cards
MAX_CHECKS = 8  # bound of the security-check loop: 1 + <Security A. +N>, N <= 7 here
PHASE = {name: i for i, name in enumerate(A.PHASES)}

RULE_ERRORS = (
    RuleError("wrong_phase", "the action does not belong to the current phase"),
    RuleError("no_card_in_hand_slot", "there is no card at that hand position"),
    RuleError("cannot_play_kind", "Digi-Eggs are hatched, never played"),
    RuleError("not_enough_memory", "the cost exceeds memory + 10 (G1: the gauge stops at 10)"),
    RuleError("battle_area_full", "the battle area has no free slot (12 permanents)"),
    RuleError("not_a_digimon", "only a Digimon card digivolves"),
    RuleError("no_permanent_there", "there is no permanent at that field index"),
    RuleError("requirement_not_met", "no digivolve requirement matches the permanent's top card"),
    RuleError("breeding_area_occupied", "hatching needs an empty breeding area"),
    RuleError("egg_deck_empty", "the Digi-Egg deck is empty"),
    RuleError("cannot_move_from_breeding", "only a Lv.3+ Digimon moves to the battle area"),
    RuleError("unused_action", "ids 93-99 are never used (spec)"),
    RuleError("option_color_missing", "an Option needs a Digimon or Tamer of each of its colors"),
    RuleError("no_attacker", "no Digimon of yours in that battle-area slot"),
    RuleError("attacker_suspended", "a suspended Digimon cannot attack"),
    RuleError(
        "attacked_this_turn_entry", "a Digimon cannot attack the turn it was played (<Rush>)"
    ),
    RuleError("bad_attack_target", "attack the player (12) or a suspended opponent Digimon"),
    RuleError("not_a_blocker", "only an unsuspended <Blocker> Digimon of the defender can block"),
    RuleError("not_a_valid_selection", "not one of the pending selection's valid choices"),
    RuleError("cannot_attack", "an effect forbids this Digimon to attack"),
    RuleError("not_yet_implemented", "this action belongs to a rules stage not landed yet"),
)
CODES = {e.name: FIRST_GAME_CODE + i for i, e in enumerate(RULE_ERRORS)}


@struct.dataclass
class DigimonState:
    """The rules state of one game (shape letters: ``C`` cards, ``S`` = 13 permanent slots).

    Attributes:
      board: the core ``Board``: every card's zone and position; ``active_player``,
        ``turn_number`` (1 at the first turn) and ``phase`` (a ``GamePhase`` value).
      memory: int8[] — the memory gauge from the active player's side (+ = theirs), -10..10 (G1).
      first_player: int8[] — the player who took the first turn.
      suspended: bool[2, S] — each permanent (12 battle slots, then the breeding area) is suspended.
      entered_turn: int16[2, S] — the turn the permanent came into play (-1 for an empty slot); a
        Digimon cannot attack on that turn unless it has <Rush>.
      winner: int8[] — the winning player, -1 while the game goes on (2 = a draw).
      end_reason: int8[] — index into ``END_REASONS``.
      attacker: int8[] — battle-area slot of the attacking Digimon during an attack, else -1.
      attack_target: int8[] — the attack's target: an opponent slot 0-11, 12 = the player
        (security), -1 when no attack is in progress.
      queue_card, queue_row, queue_slot: int16/int8/int8[Q] — triggered effect rows waiting to
        resolve, in order (card instance, effect row, the permanent slot it acts from; -1 = empty
        entry, entries packed at the front). The controller is the card's owner.
      lasting_kind: int8[L] — timed modifiers: 0 none, 1 DP, 2 <Security A.>; with
        ``lasting_player`` (int8, whose Digimon), ``lasting_slot`` (int8, a battle slot, or -1 for
        all of that player's Digimon), ``lasting_amount`` (int16) and ``lasting_expires`` (int16: the
        turn number at whose end it ends); kind 3 is a restriction whose ``amount`` holds the
        ``cannot`` bits (attack, block).
      sel_card, sel_row, sel_slot, sel_left, sel_return: the pending selection
        (``PendingSelection``): the effect row being resolved (card -1 when none), the slot it acts
        from, how many targets are still to choose, and the phase to return to.
    """

    board: Board
    memory: jax.Array
    first_player: jax.Array
    suspended: jax.Array
    entered_turn: jax.Array
    winner: jax.Array
    end_reason: jax.Array
    attacker: jax.Array
    attack_target: jax.Array
    queue_card: jax.Array
    queue_row: jax.Array
    queue_slot: jax.Array
    lasting_kind: jax.Array
    lasting_player: jax.Array
    lasting_slot: jax.Array
    lasting_amount: jax.Array
    lasting_expires: jax.Array
    sel_card: jax.Array
    sel_row: jax.Array
    sel_slot: jax.Array
    sel_left: jax.Array
    sel_return: jax.Array


def empty_effects() -> dict[str, jax.Array]:
    """The effect fields of a state with nothing queued and no timed modifier."""
    return dict(
        queue_card=jnp.full(QUEUE_SIZE, -1, jnp.int16),
        queue_row=jnp.full(QUEUE_SIZE, -1, jnp.int8),
        queue_slot=jnp.full(QUEUE_SIZE, -1, jnp.int8),
        lasting_kind=jnp.zeros(LASTING_SIZE, jnp.int8),
        lasting_player=jnp.full(LASTING_SIZE, -1, jnp.int8),
        lasting_slot=jnp.full(LASTING_SIZE, -1, jnp.int8),
        lasting_amount=jnp.zeros(LASTING_SIZE, jnp.int16),
        lasting_expires=jnp.full(LASTING_SIZE, -1, jnp.int16),
        sel_card=jnp.int16(-1),
        sel_row=jnp.int8(-1),
        sel_slot=jnp.int8(-1),
        sel_left=jnp.int8(0),
        sel_return=jnp.int8(-1),
    )


class Permanents(NamedTuple):
    """Derived facts of every permanent slot ``[2, S]`` (``keywords``: bool ``[2, S, K]``), and
    per card ``[C]``: the DP a digivolution card (or top card) contributes to its own permanent
    and its number of once-per-turn effect rows in its current role."""

    top: jax.Array
    size: jax.Array
    kind: jax.Array
    dp: jax.Array
    keywords: jax.Array
    security_attack: jax.Array
    card_dp: jax.Array
    card_opt: jax.Array


KW = {name: i for i, name in enumerate(KEYWORDS)}
WHERE_MAIN, WHERE_INH = WHERE.index("main"), WHERE.index("inherited")
WINDOW_ALL, WINDOW_YOURS, WINDOW_THEIRS = (WINDOWS.index(w) for w in WINDOWS)
TRIGGER_CONTINUOUS = TRIGGERS.index("continuous")
COND_NONE, COND_MIN_SOURCES, COND_OPP_NO_SOURCE, COND_BATTLING_NO_SOURCE = range(len(CONDITIONS))
OP_DP, OP_SECURITY_ATTACK = OPS.index("dp_mod"), OPS.index("security_attack_mod")
TARGET_SELF, TARGET_ALL_OWN = TARGETS.index("self"), TARGETS.index("all_own_digimon")
PER_TWO_SOURCES = AMOUNT_PER.index("per_two_sources")
FLAG_OPT = 1 << EFFECT_FLAGS.index("once_per_turn")
LASTING_DP, LASTING_SA, LASTING_RESTRICT = 1, 2, 3
CANNOT_ATTACK, CANNOT_BLOCK = 1, 2
OP_DELETE, OP_TRASH_SOURCES = OPS.index("delete"), OPS.index("trash_sources")
OP_BOUNCE, OP_RESTRICT = OPS.index("bounce_to_hand"), OPS.index("restrict")
TARGET_CHOOSE_OWN = TARGETS.index("choose_own_digimon")
TARGET_CHOOSE_OPP = TARGETS.index("choose_opponent_digimon")
TARGET_CHOOSE_OPP_NO_SOURCE = TARGETS.index("choose_opponent_no_source_digimon")
FLAG_OPTIONAL = 1 << EFFECT_FLAGS.index("optional")
FLAG_UP_TO = 1 << EFFECT_FLAGS.index("up_to")
MAX_TRASHED_SOURCES = 3
OP_MEMORY, OP_DRAW, OP_UNSUSPEND = OPS.index("memory"), OPS.index("draw"), OPS.index("unsuspend")
DURATION_CONTINUOUS, DURATION_THIS_TURN, DURATION_OPP_NEXT, DURATION_YOUR_NEXT = range(4)
TRIGGER = {name: i for i, name in enumerate(TRIGGERS)}


def build_layout(cards: CardRegistry, num_cards: int) -> BoardLayout:
    """The Digimon board layout: the zones of the module docstring for ``num_cards`` cards."""
    reg = zones.ZoneTypeRegistry()
    reg.register(zones.ZoneType("deck", ordered=True, visibility="hidden"))
    reg.register(zones.ZoneType("eggs", ordered=True, visibility="hidden"))
    reg.register(zones.ZoneType("hand", ordered=True, visibility="owner"))
    reg.register(zones.ZoneType("security", ordered=True, visibility="hidden"))
    reg.register(zones.ZoneType("trash", ordered=True, visibility="public"))
    for stack in ("breeding",) + FIELD_ZONES:
        reg.register(zones.ZoneType(stack, ordered=True, visibility="public"))
    reg.register(zones.ZoneType("revealed", ordered=True, visibility="public"))
    reg.register(zones.ZoneType("processing", ordered=True, visibility="public"))
    return BoardLayout(
        num_players=2,
        zone_types=reg,
        zones=tuple((z, p) for p in range(2) for z in PLAYER_ZONES)
        + tuple((z, None) for z in SHARED_ZONES),
        cards=cards,
        num_cards=num_cards,
        phases=A.PHASES,
    )


def zone_of(name: str, player) -> jax.Array:
    """Zone index of the player zone ``name`` owned by ``player`` (player-major layout)."""
    return jnp.asarray(player, jnp.int32) * len(PLAYER_ZONES) + PLAYER_ZONES.index(name)


def slot_zone(player, slot) -> jax.Array:
    """Zone of permanent slot ``slot`` (0-11 battle area, 12 breeding area) of ``player``."""
    slot = jnp.asarray(slot, jnp.int32)
    local = jnp.where(slot == BREEDING_SLOT, PLAYER_ZONES.index("breeding"), 6 + slot)
    return jnp.asarray(player, jnp.int32) * len(PLAYER_ZONES) + local


# Zone index of every permanent slot, [2, S]: a static table (slot-major within each player).
SLOT_ZONES = np.asarray(
    [
        [p * len(PLAYER_ZONES) + (PLAYER_ZONES.index("breeding") if s == BREEDING_SLOT else 6 + s)
         for s in range(NUM_SLOTS)]
        for p in range(2)
    ],
    np.int32,
)  # fmt: skip


# Flat permanent slot (player * S + slot) of every zone index, -1 for non-permanent zones.
ZONE_SLOT = np.full(2 * len(PLAYER_ZONES) + len(SHARED_ZONES), -1, np.int32)
for _p in range(2):
    for _s in range(NUM_SLOTS):
        ZONE_SLOT[SLOT_ZONES[_p, _s]] = _p * NUM_SLOTS + _s


def _membership(board: Board):
    """Per card: its flat permanent slot (-1 off the field) and whether it is its stack's top;
    per slot: the one-hot membership ``[C, 2S]`` and the stack size ``[2S]``."""
    card_slot = jnp.asarray(ZONE_SLOT)[board.zone.astype(jnp.int32)]
    onehot = card_slot[:, None] == jnp.arange(2 * NUM_SLOTS)[None, :]
    size = jnp.sum(onehot, axis=0, dtype=jnp.int32)
    card_size = jnp.where(card_slot >= 0, size[jnp.maximum(card_slot, 0)], 0)
    is_top = (card_slot >= 0) & (board.position.astype(jnp.int32) == card_size - 1)
    return card_slot, onehot, size, is_top


def _tops(onehot, size, is_top) -> jax.Array:
    """The top card of every flat slot, -1 when empty. int32[2S]."""
    top = jnp.argmax(onehot & is_top[:, None], axis=0)
    return jnp.where(size > 0, top, -1).astype(jnp.int32)


def _first_error(*checks):
    """The code of the first failing ``(failed, rule name)`` check, elementwise; 0 if none fails."""
    return zones.first_error(*((failed, CODES[name]) for failed, name in checks))


class DigimonRules:
    """Static rules object for two decks: card tables as device constants, pure methods.

    Args:
      cards: the card registry.
      decks: two ``(eggs, main)`` pairs of card numbers (with repeats), one per seat.

    Raises:
      ConfigError: a deck that breaks the deck rules (sizes, copies, Digi-Eggs only in the egg deck)
        or names a card the registry lacks.
    """

    def __init__(self, cards: CardRegistry, decks: Sequence[tuple[Sequence[str], Sequence[str]]]):
        if len(decks) != 2:
            raise ConfigError(f"digimon: expected 2 decks, got {len(decks)}")
        self.cards = cards
        kind = np.asarray(cards.numpy["kind"])
        self.decks = []
        for seat, (eggs, main) in enumerate(decks):
            self.decks.append((tuple(eggs), tuple(main)))
            where = f"deck of player{seat + 1}"
            if len(main) != MAIN_DECK_SIZE or not 0 <= len(eggs) <= MAX_EGGS:
                raise ConfigError(
                    f"{where}: {len(main)} main-deck cards and {len(eggs)} Digi-Eggs; the rules "
                    f"need {MAIN_DECK_SIZE} and 0-{MAX_EGGS}"
                )
            for number in set(eggs) | set(main):
                copies = list(eggs).count(number) + list(main).count(number)
                if copies > MAX_COPIES:
                    raise ConfigError(
                        f"{where}: {copies} copies of {number} (at most {MAX_COPIES})"
                    )
            for number in eggs:
                if kind[cards.index(number)] != DIGI_EGG:
                    raise ConfigError(f"{where}: {number} in the egg deck is not a Digi-Egg")
            for number in main:
                if kind[cards.index(number)] == DIGI_EGG:
                    raise ConfigError(f"{where}: the Digi-Egg {number} is in the main deck")
        self.cards_per_player = tuple(len(e) + len(m) for e, m in self.decks)
        self.num_cards = sum(self.cards_per_player)
        self.layout = build_layout(cards, self.num_cards)
        self._initial_board = self._initial()

    def _initial(self) -> Board:
        """Host-side: every card in its owner's (unshuffled) deck or egg deck."""
        placed = []
        for p, (eggs, main) in enumerate(self.decks):
            placed += [(self.cards.index(n), p, int(zone_of("eggs", p))) for n in eggs]
            placed += [(self.cards.index(n), p, int(zone_of("deck", p))) for n in main]
        return new_board(self.layout, placed, phase=A.PHASES.index("start"))

    # -- setup ---------------------------------------------------------------------------------

    def init(self, key: jax.Array) -> DigimonState:
        """A new game: shuffled decks, 5 security cards, 5 in hand, memory 0, a random first
        player in the Breeding phase of turn 1 (their first draw skipped)."""
        k_first, *k_zones = jax.random.split(key, 5)
        board = self._initial_board
        for p in range(2):
            board = zones.shuffle(self.layout, board, zone_of("deck", p), k_zones[2 * p]).board
            board = zones.shuffle(self.layout, board, zone_of("eggs", p), k_zones[2 * p + 1]).board

        def deal(_, board):  # one security card and one hand card per player and round
            for p in range(2):
                for target in ("security", "hand"):
                    board = zones.draw(
                        self.layout, board, zone_of("deck", p), zone_of(target, p)
                    ).board
            return board

        assert SECURITY_AT_START == HAND_AT_START
        board = jax.lax.fori_loop(0, SECURITY_AT_START, deal, board)
        first = jax.random.bernoulli(k_first).astype(jnp.int8)
        board = board.replace(active_player=first, phase=jnp.int8(A.PHASES.index("breeding")))
        return DigimonState(
            board=board,
            memory=jnp.int8(0),
            first_player=first,
            suspended=jnp.zeros((2, NUM_SLOTS), jnp.bool_),
            entered_turn=jnp.full((2, NUM_SLOTS), -1, jnp.int16),
            winner=jnp.int8(ONGOING),
            end_reason=jnp.int8(0),
            attacker=jnp.int8(-1),
            attack_target=jnp.int8(-1),
            **empty_effects(),
        )

    # -- derived facts (never stored, E2) --------------------------------------------------------

    def _lasting(self, state: DigimonState, kind: int) -> jax.Array:
        """The timed modifiers of ``kind`` in force, summed per permanent slot: int32[2, S]."""
        on = state.lasting_kind == kind  # [L]
        player = state.lasting_player.astype(jnp.int32)
        slot = state.lasting_slot.astype(jnp.int32)
        players = jnp.arange(2)[:, None, None]
        slots = jnp.arange(NUM_SLOTS)[None, :, None]
        hits = on & (player == players) & ((slot == slots) | (slot < 0))  # [2, S, L]
        return jnp.sum(jnp.where(hits, state.lasting_amount.astype(jnp.int32), 0), axis=-1)

    def stacks(self, state: DigimonState) -> tuple[jax.Array, jax.Array]:
        """``(top card, size)`` of every permanent slot: int32[2, S] each (top -1 when empty)."""
        _, onehot, size, is_top = _membership(state.board)
        top = _tops(onehot, size, is_top)
        return top.reshape(2, NUM_SLOTS), size.reshape(2, NUM_SLOTS)

    def hand(self, state: DigimonState, player) -> jax.Array:
        """Card index at each addressable hand position of ``player``: int32[30], -1 padded."""
        return zones.zone_slots(state.board, zone_of("hand", player), A.HAND_SLOTS)

    def permanents(self, state: DigimonState, battling: jax.Array | None = None) -> Permanents:
        """Every permanent slot's derived facts, ``[2, S]`` each (``keywords`` ``[2, S, K]``).

        Work is per card (``[C, R]`` effect rows), then summed into slots: a card's slot and its role
        (top card or digivolution card) come from its zone and position. A permanent's keywords
        are its top card's plus the ``inherited_keywords`` of the cards under it. Its DP and
        <Security A.> are the printed DP plus every active *continuous* effect row: the top
        card's ``main`` rows and the sources' ``inherited`` rows targeting ``self``, and
        ``all_own_digimon`` rows of any permanent of the same player (a Tamer's aura), each when
        its window ([Your Turn] / [Opponent's Turn]) and condition hold. Timed effects (this turn,
        until the next turn) are added by the effect stage.

        Args:
          battling: optional int32[2, S], the number of digivolution cards of the opponent's
            Digimon each permanent is battling (-1: not in a battle), for the
            ``battling_no_source_digimon`` condition.
        """
        board = state.board
        num_flat = 2 * NUM_SLOTS
        card_slot, onehot, size, is_top = _membership(board)
        on_field = card_slot >= 0
        card_size = jnp.where(on_field, size[jnp.maximum(card_slot, 0)], 0)  # [C]
        under = on_field & ~is_top
        top = _tops(onehot, size, is_top)  # [2S]
        definition = board.definition
        card = lambda name: self.cards[name][definition]  # noqa: E731  [C] or [C, R]
        kind = jnp.where(size > 0, card("kind")[jnp.maximum(top, 0)], -1)  # [2S]
        owner = jnp.where(on_field, card_slot // NUM_SLOTS, -1)  # [C]

        # Keywords: the top card's own, plus inherited keywords of the cards under it.
        bits = 1 << jnp.arange(len(KEYWORDS), dtype=jnp.int32)
        own_kw = (card("keywords").astype(jnp.int32)[:, None] & bits) != 0  # [C, K]
        inh_kw = (card("inherited_keywords").astype(jnp.int32)[:, None] & bits) != 0
        card_kw = (is_top[:, None] & own_kw) | (under[:, None] & inh_kw)  # [C, K]
        keywords = jnp.einsum("cs,ck->sk", onehot.astype(jnp.int32), card_kw.astype(jnp.int32)) > 0

        # Continuous effect rows, per card: [C, R].
        rows = jnp.arange(self.cards["effects.where"].shape[-1])
        valid = rows[None, :] < card("effects.num_rows")[:, None]
        where = card("effects.where")
        placed = (is_top[:, None] & (where == WHERE_MAIN)) | (under[:, None] & (where == WHERE_INH))
        active = state.board.active_player.astype(jnp.int32)
        my_turn = owner == active  # [C]
        window = card("effects.window")
        window_ok = (
            (window == WINDOW_ALL)
            | ((window == WINDOW_YOURS) & my_turn[:, None])
            | ((window == WINDOW_THEIRS) & ~my_turn[:, None])
        )
        sources = jnp.maximum(card_size - 1, 0)  # digivolution cards under the top, per card
        digimon_slot = (kind == DIGIMON).reshape(2, NUM_SLOTS)
        no_source = jnp.any(digimon_slot & (size.reshape(2, NUM_SLOTS) == 1), axis=1)  # [2]
        opp_has_no_source = no_source[jnp.clip(1 - owner, 0, 1)]  # [C]
        battle = jnp.full(num_flat, -1) if battling is None else battling.reshape(-1)
        card_battle = jnp.where(on_field, battle[jnp.maximum(card_slot, 0)], -1)
        condition = card("effects.condition")
        value = card("effects.condition_value").astype(jnp.int32)
        cond_ok = (
            (condition == COND_NONE)
            | ((condition == COND_MIN_SOURCES) & (sources[:, None] >= value))
            | ((condition == COND_OPP_NO_SOURCE) & opp_has_no_source[:, None])
            | ((condition == COND_BATTLING_NO_SOURCE) & (card_battle == 0)[:, None])
        )
        live = (
            valid & placed & window_ok & cond_ok & (card("effects.trigger") == TRIGGER_CONTINUOUS)
        )
        amount = card("effects.amount").astype(jnp.int32)
        amount = jnp.where(
            card("effects.amount_per") == PER_TWO_SOURCES, amount * (sources[:, None] // 2), amount
        )
        op, target = card("effects.op"), card("effects.target")

        def gather(op_id):
            to_self = jnp.sum(
                jnp.where(live & (op == op_id) & (target == TARGET_SELF), amount, 0), 1
            )
            to_all = jnp.sum(
                jnp.where(live & (op == op_id) & (target == TARGET_ALL_OWN), amount, 0), 1
            )  # [C]
            per_slot = jnp.einsum("cs,c->s", onehot.astype(jnp.int32), to_self)  # [2S]
            aura = jnp.stack([jnp.sum(jnp.where(owner == p, to_all, 0)) for p in range(2)])
            bonus = per_slot.reshape(2, NUM_SLOTS) + aura[:, None]
            return jnp.where(digimon_slot, bonus, 0), to_self

        dp_bonus, dp_by_card = gather(OP_DP)
        sa_bonus, _ = gather(OP_SECURITY_ATTACK)
        dp_bonus = dp_bonus + jnp.where(digimon_slot, self._lasting(state, LASTING_DP), 0)
        sa_bonus = sa_bonus + jnp.where(digimon_slot, self._lasting(state, LASTING_SA), 0)
        printed = jnp.where(size > 0, card("dp")[jnp.maximum(top, 0)], 0).astype(jnp.int32)
        opt = valid & placed & ((card("effects.flags").astype(jnp.int32) & FLAG_OPT) != 0)
        return Permanents(
            top=top.reshape(2, NUM_SLOTS),
            size=size.reshape(2, NUM_SLOTS),
            kind=kind.reshape(2, NUM_SLOTS),
            dp=jnp.maximum(printed.reshape(2, NUM_SLOTS) + dp_bonus, 0),
            keywords=keywords.reshape(2, NUM_SLOTS, len(KEYWORDS)),
            security_attack=sa_bonus,
            card_dp=jnp.where(on_field, dp_by_card, 0),
            card_opt=jnp.sum(opt, axis=1, dtype=jnp.int32),
        )

    def _card(self, state: DigimonState, name: str, card: jax.Array) -> jax.Array:
        """Registry column ``name`` of card instance(s) ``card`` (-1 reads the padding row)."""
        definition = state.board.definition[jnp.maximum(card, 0)]
        return self.cards[name][jnp.where(card >= 0, definition, 0)]

    # -- legality ----------------------------------------------------------------------------------

    def action_errors(self, state: DigimonState) -> jax.Array:
        """Error code of every action (0 = legal) in the current phase. int32[A]."""
        board = state.board
        me = board.active_player.astype(jnp.int32)
        phase = board.phase.astype(jnp.int32)
        main, breeding = phase == PHASE["main"], phase == PHASE["breeding"]
        block = phase == PHASE["block_timing"]
        top, size = self.stacks(state)
        my_top, my_size = jnp.where(me == 0, top[0], top[1]), jnp.where(me == 0, size[0], size[1])
        field_full = jnp.all(my_size[: A.FIELD_SLOTS] > 0)
        afford = lambda cost: cost <= state.memory.astype(jnp.int32) + MEMORY_LIMIT  # noqa: E731

        hand = self.hand(state, me)  # [H]
        kind = self._card(state, "kind", hand)
        play = _first_error(
            (~main, "wrong_phase"),
            (hand < 0, "no_card_in_hand_slot"),
            ((kind != DIGIMON) & (kind != TAMER) & (kind != OPTION), "cannot_play_kind"),
            ((kind == OPTION) & ~self._colors_ok(state, me, hand), "option_color_missing"),
            (~afford(self._card(state, "play_cost", hand).astype(jnp.int32)), "not_enough_memory"),
            (field_full, "battle_area_full"),
        )

        # Digivolve: [H, 15] (field indices 13, 14 unused), requirement rows matched elementwise.
        cost = self.digivolve_costs(state, hand, my_top)  # [H, S], -1 = no requirement matches
        field = jnp.arange(A.FIELD_STRIDE)
        in_range = field < NUM_SLOTS
        safe_field = jnp.minimum(field, NUM_SLOTS - 1)
        target_kind = self._card(state, "kind", my_top)[safe_field]  # [15]
        occupied = (my_size[safe_field] > 0) & in_range
        c = cost[:, safe_field]  # [H, 15]
        digivolve = _first_error(
            (~main[None, None], "wrong_phase"),
            (hand[:, None] < 0, "no_card_in_hand_slot"),
            (kind[:, None] != DIGIMON, "not_a_digimon"),
            (~occupied[None, :], "no_permanent_there"),
            (((target_kind != DIGIMON) & (target_kind != DIGI_EGG))[None, :] | (c < 0),
             "requirement_not_met"),
            (~afford(c), "not_enough_memory"),
        )  # fmt: skip
        digivolve = jnp.pad(digivolve, ((0, 40 - A.HAND_SLOTS), (0, 0)), constant_values=0)
        digivolve = jnp.where(
            jnp.arange(40)[:, None] < A.HAND_SLOTS, digivolve, CODES["no_card_in_hand_slot"]
        )

        breeding_size = my_size[BREEDING_SLOT]
        eggs_left = zones.zone_count(board, zone_of("eggs", me)) > 0
        hatch = _first_error(
            (~breeding, "wrong_phase"),
            (breeding_size > 0, "breeding_area_occupied"),
            (~eggs_left, "egg_deck_empty"),
        )
        breeding_top = my_top[BREEDING_SLOT]
        movable = (breeding_size > 0) & (self._card(state, "kind", breeding_top) == DIGIMON)
        movable &= self._card(state, "level", breeding_top) >= 3
        move = _first_error(
            (~breeding, "wrong_phase"),
            (~movable, "cannot_move_from_breeding"),
            (field_full, "battle_area_full"),
        )
        pass_ = _first_error((~(main | breeding | block), "wrong_phase"))
        attack = self._attack_errors(state, main, block)
        later = jnp.full((), CODES["not_yet_implemented"])
        parts = [
            play,
            jnp.broadcast_to(later, (A.HAND_SLOTS,)),  # trash_hand
            hatch[None],
            move[None],
            pass_[None],
            jnp.broadcast_to(later, (A.HAND_SLOTS,)),  # dna
            jnp.full((7,), CODES["unused_action"]),
            attack.reshape(-1),
            digivolve.reshape(-1),
            jnp.broadcast_to(later, (A.LAYOUT.size("activate") + A.LAYOUT.size("source"),)),
        ]
        codes = jnp.concatenate([jnp.asarray(x, jnp.int32).reshape(-1) for x in parts])
        selecting = phase == PHASE["select_target"]
        return codes.at[:400].set(jnp.where(selecting, self._select_errors(state), codes[:400]))

    def _colors_ok(self, state: DigimonState, player, cards) -> jax.Array:
        """bool[...]: each of ``cards``' colors is among ``player``'s Digimon, Tamers and
        Digi-Eggs in the battle and breeding areas (the Option color rule)."""
        top, _ = self.stacks(state)
        mine = jnp.where(player == 0, top[0], top[1])  # [S]
        kind = self._card(state, "kind", mine)
        counts = (kind == DIGIMON) | (kind == TAMER) | (kind == DIGI_EGG)
        have = jnp.bitwise_or.reduce(
            jnp.where(counts, self._card(state, "colors", mine).astype(jnp.int32), 0)
        )
        need = self._card(state, "colors", cards).astype(jnp.int32)
        return (need & ~have) == 0

    def _attack_errors(self, state: DigimonState, main, block) -> jax.Array:
        """Codes of the attack range ``[20, 15]``: attacks in Main, blocker choices (ids 100-111)
        in BlockTiming."""
        me = state.board.active_player.astype(jnp.int32)
        perm = self.permanents(state)
        mine = lambda x: jnp.where(me == 0, x[0], x[1])  # noqa: E731
        theirs = lambda x: jnp.where(me == 0, x[1], x[0])  # noqa: E731
        attacker_in_range = jnp.arange(20) < A.FIELD_SLOTS
        a = jnp.minimum(jnp.arange(20), A.FIELD_SLOTS - 1)
        t = jnp.minimum(jnp.arange(A.FIELD_STRIDE), A.FIELD_SLOTS - 1)
        rush = mine(perm.keywords)[a, KW["rush"]]
        fresh = mine(state.entered_turn)[a] >= state.board.turn_number
        target_ok = (jnp.arange(A.FIELD_STRIDE) == A.TARGET_PLAYER) | (
            (jnp.arange(A.FIELD_STRIDE) < A.FIELD_SLOTS)
            & (theirs(perm.kind)[t] == DIGIMON)
            & theirs(state.suspended)[t]
        )
        attack = _first_error(
            (~main, "wrong_phase"),
            ((~attacker_in_range | (mine(perm.kind)[a] != DIGIMON))[:, None], "no_attacker"),
            (mine(state.suspended)[a][:, None], "attacker_suspended"),
            ((fresh & ~rush)[:, None], "attacked_this_turn_entry"),
            (mine(self.restricted(state, CANNOT_ATTACK))[a][:, None], "cannot_attack"),
            (~target_ok[None, :], "bad_attack_target"),
        )
        blockers = self.blockers(state, perm)  # [12] of the defender
        flat = jnp.arange(20 * A.FIELD_STRIDE)
        block_code = jnp.where(
            flat < A.FIELD_SLOTS,
            jnp.where(blockers[jnp.minimum(flat, A.FIELD_SLOTS - 1)], 0, CODES["not_a_blocker"]),
            CODES["wrong_phase"],
        )
        return jnp.where(block, block_code, attack.reshape(-1))

    def blockers(self, state: DigimonState, perm: Permanents | None = None) -> jax.Array:
        """bool[12]: the defender's (non-active player's) Digimon that may block now."""
        perm = self.permanents(state) if perm is None else perm
        defender = 1 - state.board.active_player.astype(jnp.int32)
        pick = lambda x: jnp.where(defender == 0, x[0], x[1])[: A.FIELD_SLOTS]  # noqa: E731
        return (
            (pick(perm.kind) == DIGIMON)
            & pick(perm.keywords)[:, KW["blocker"]]
            & ~pick(state.suspended)
            & ~pick(self.restricted(state, CANNOT_BLOCK))
        )

    def decider(self, state: DigimonState) -> jax.Array:
        """The player to act: the defender during the attack timings, else the turn player."""
        phase = state.board.phase
        defending = (phase == PHASE["block_timing"]) | (phase == PHASE["counter_timing"])
        active = state.board.active_player.astype(jnp.int32)
        chooser = state.board.owner[jnp.maximum(state.sel_card.astype(jnp.int32), 0)]
        selecting = phase == PHASE["select_target"]
        return jnp.where(selecting, chooser, jnp.where(defending, 1 - active, active)).astype(
            jnp.int32
        )

    def digivolve_costs(self, state: DigimonState, hand: jax.Array, tops: jax.Array) -> jax.Array:
        """Cheapest digivolve cost of each hand card onto each permanent: int32[H, S], -1 when no
        requirement matches (level equal, color among the top card's colors)."""
        top_level = self._card(state, "level", tops)  # [S]
        top_colors = self._card(state, "colors", tops).astype(jnp.int32)  # [S] bit mask
        req_level = self._card(state, "digivolve.level", hand)  # [H, R]
        req_color = self._card(state, "digivolve.color", hand).astype(jnp.int32)
        req_cost = self._card(state, "digivolve.cost", hand).astype(jnp.int32)
        rows = (
            jnp.arange(req_level.shape[-1]) < self._card(state, "digivolve.num_rows", hand)[:, None]
        )
        match = (
            rows[:, None, :]
            & (req_level[:, None, :] == top_level[None, :, None])
            & (((top_colors[None, :, None] >> req_color[:, None, :]) & 1) == 1)
            & (tops >= 0)[None, :, None]
        )  # [H, S, R]
        big = jnp.int32(1 << 20)
        best = jnp.min(jnp.where(match, req_cost[:, None, :], big), axis=-1)
        return jnp.where(best < big, best, -1)

    def legal_action_mask(self, state: DigimonState) -> jax.Array:
        """bool[2120]; never all False before the game ends (pass is legal in Breeding and Main)."""
        return self.action_errors(state) == 0

    # -- transitions -------------------------------------------------------------------------------

    def apply(self, state: DigimonState, action: jax.Array) -> tuple[DigimonState, jax.Array]:
        """Apply a legal action, then let the turn run until the next decision. Returns
        ``(state, rewards float32[2])``."""
        layout = A.LAYOUT
        block = state.board.phase == PHASE["block_timing"]
        selecting = state.board.phase == PHASE["select_target"]
        attack_range = (action >= layout.start("attack")) & (action < layout.start("digivolve"))
        kind = jnp.select(
            [
                selecting,
                block & (action == layout.start("pass")),
                block & attack_range,
                action < layout.start("trash_hand"),
                action == layout.start("hatch"),
                action == layout.start("move_breeding"),
                action == layout.start("pass"),
                (action >= layout.start("digivolve")) & (action < layout.start("activate")),
                attack_range,
            ],
            [9, 0, 1, 2, 3, 4, 5, 6, 7],
            8,
        )
        branches = (
            self._decline_block,
            self._block,
            self._play,
            self._hatch,
            self._move,
            self._pass,
            self._digivolve,
            self._attack,
            self._noop,
            self._select,
        )
        state = jax.lax.switch(kind, branches, state, action)
        state = self._resolve(state)
        # The attack goes on once its [When Attacking] rows have resolved (a selection pauses it):
        # block timing when the defender has a Digimon able to block and has not decided yet,
        # otherwise the battle or the security checks. One copy of the attack machinery for every
        # action that can lead to it (declaring, blocking, declining, a selection).
        waiting_attack = (
            (state.attacker >= 0)
            & (state.board.phase == PHASE["main"])
            & (state.sel_card < 0)
            & (state.queue_card[0] < 0)
        )
        block_decided = block & ((action == layout.start("pass")) | attack_range)
        may_block = jnp.any(self.blockers(state))
        to_block_timing = waiting_attack & ~block_decided & may_block
        state = state.replace(
            board=state.board.replace(
                phase=jnp.where(to_block_timing, jnp.int8(PHASE["block_timing"]), state.board.phase)
            )
        )
        resolve_now = waiting_attack & (block_decided | ~may_block)
        state = tree_where(resolve_now, self._resolve_attack(state), state)
        state = self._trash_processed(state)
        state = self._settle(state)
        winner = state.winner.astype(jnp.int32)
        rewards = jnp.where(
            (winner < 0) | (winner == 2), 0.0, jnp.where(jnp.arange(2) == winner, 1.0, -1.0)
        )
        return state, rewards.astype(jnp.float32)

    def _trash_processed(self, state: DigimonState) -> DigimonState:
        """An Option that has resolved goes from ``processing`` to its owner's trash."""
        processing = self.layout.zone_index("processing")
        card = zones.top_card(state.board, processing)
        owner = state.board.owner[jnp.maximum(card, 0)].astype(jnp.int32)
        moved = zones.move_card(
            self.layout, state.board, jnp.maximum(card, 0), zone_of("trash", owner)
        )
        return state.replace(board=tree_where(card >= 0, moved.board, state.board))

    def _noop(self, state, action):
        del action
        return state

    def _lowest_free_slot(self, state: DigimonState, player) -> jax.Array:
        _, size = self.stacks(state)
        mine = jnp.where(player == 0, size[0], size[1])[: A.FIELD_SLOTS]
        return jnp.argmax(mine == 0).astype(jnp.int32)

    def _enter(self, state: DigimonState, player, slot) -> DigimonState:
        """A new permanent in ``slot``: unsuspended, entered this turn."""
        return state.replace(
            suspended=state.suspended.at[player, slot].set(False),
            entered_turn=state.entered_turn.at[player, slot].set(
                state.board.turn_number.astype(jnp.int16)
            ),
        )

    def _pay(self, state: DigimonState, cost) -> DigimonState:
        memory = state.memory.astype(jnp.int32) - cost
        return state.replace(memory=jnp.clip(memory, -MEMORY_LIMIT, MEMORY_LIMIT).astype(jnp.int8))

    def _play(self, state: DigimonState, action):
        """A Digimon or Tamer enters the lowest free battle slot ([On Play] rows queue); an
        Option goes to ``processing`` and its [Main] rows queue (it is trashed once resolved)."""
        me = state.board.active_player.astype(jnp.int32)
        card = jnp.maximum(self.hand(state, me)[action], 0)
        is_option = self._card(state, "kind", card) == OPTION
        slot = self._lowest_free_slot(state, me)
        processing = self.layout.zone_index("processing")
        dest = jnp.where(is_option, processing, slot_zone(me, slot))
        board = zones.move_card(self.layout, state.board, card, dest).board
        state = self._pay(state.replace(board=board), self._card(state, "play_cost", card))
        entered = self._push(self._enter(state, me, slot), me, TRIGGER["on_play"], slot)
        rows = self.cards["effects.where"].shape[1]
        definition = state.board.definition[card]
        option_rows = (
            (jnp.arange(rows) < self.cards["effects.num_rows"][definition])
            & (self.cards["effects.where"][definition] == WHERE_MAIN)
            & (self.cards["effects.trigger"][definition] == TRIGGER["main"])
        )
        fires = (jnp.arange(self.num_cards) == card)[:, None] & option_rows[None, :]
        used = self._enqueue(
            state, fires, jnp.zeros(self.num_cards, jnp.int32), jnp.full(self.num_cards, -1)
        )
        return tree_where(is_option, used, entered)

    def _digivolve(self, state: DigimonState, action):
        me = state.board.active_player.astype(jnp.int32)
        h, slot = jnp.divmod(action - A.LAYOUT.start("digivolve"), A.FIELD_STRIDE)
        hand = self.hand(state, me)
        top, _ = self.stacks(state)
        my_top = jnp.where(me == 0, top[0], top[1])
        cost = self.digivolve_costs(state, hand, my_top)[h, jnp.minimum(slot, NUM_SLOTS - 1)]
        card = jnp.maximum(hand[h], 0)
        board = zones.move_card(self.layout, state.board, card, slot_zone(me, slot)).board
        state = self._pay(state.replace(board=board), cost)
        # The digivolution bonus: draw 1 (nothing happens on an empty deck outside the Draw phase).
        drawn = zones.draw(self.layout, state.board, zone_of("deck", me), zone_of("hand", me))
        state = state.replace(board=drawn.board)
        return self._push(state, me, TRIGGER["when_digivolving"], slot)

    def _hatch(self, state: DigimonState, action):
        del action
        me = state.board.active_player.astype(jnp.int32)
        board = zones.draw(
            self.layout, state.board, zone_of("eggs", me), slot_zone(me, BREEDING_SLOT)
        ).board
        state = self._enter(state.replace(board=board), me, BREEDING_SLOT)
        return state.replace(board=state.board.replace(phase=jnp.int8(PHASE["main"])))

    def _move(self, state: DigimonState, action):
        """Breeding → battle area: the whole stack, keeping its state (not "played")."""
        del action
        me = state.board.active_player.astype(jnp.int32)
        slot = self._lowest_free_slot(state, me)
        moved = zones.move_all(
            self.layout, state.board, slot_zone(me, BREEDING_SLOT), slot_zone(me, slot)
        ).board
        return state.replace(
            board=moved.replace(phase=jnp.int8(PHASE["main"])),
            suspended=state.suspended.at[me, slot]
            .set(state.suspended[me, BREEDING_SLOT])
            .at[me, BREEDING_SLOT]
            .set(False),
            entered_turn=state.entered_turn.at[me, slot]
            .set(state.entered_turn[me, BREEDING_SLOT])
            .at[me, BREEDING_SLOT]
            .set(-1),
        )

    # -- effect interpreter (stage 2f: trigger queue, timed modifiers, no-choice primitives) ------

    def _push(self, state: DigimonState, player, trigger: int, slot=None) -> DigimonState:
        """Queue the effect rows of ``player``'s permanents (one ``slot``, or all) that fire on
        ``trigger``: a top card's ``main`` rows and its digivolution cards' ``inherited`` rows.
        Order: slot by slot, in each stack the top card first, then the cards under it from the
        top down (our fixed order for simultaneous triggers of one player: documented)."""
        board = state.board
        card_slot, onehot, size, is_top = _membership(board)
        on_field = card_slot >= 0
        local = card_slot % NUM_SLOTS
        mine = on_field & (card_slot // NUM_SLOTS == player)
        if slot is not None:
            mine &= local == slot
        definition = board.definition
        where = self.cards["effects.where"][definition]  # [C, R]
        placed = (is_top[:, None] & (where == WHERE_MAIN)) | (
            (mine & ~is_top)[:, None] & (where == WHERE_INH)
        )
        rows = jnp.arange(where.shape[1])
        valid = rows[None, :] < self.cards["effects.num_rows"][definition][:, None]
        fires = mine[:, None] & placed & valid
        fires &= self.cards["effects.trigger"][definition] == trigger
        depth = jnp.where(on_field, size[jnp.maximum(card_slot, 0)] - 1 - board.position, 0)
        priority = local * 64 + depth.astype(jnp.int32)  # [C]
        return self._enqueue(state, fires, priority, jnp.where(on_field, local, -1))

    def _enqueue(self, state: DigimonState, fires, priority, card_slot) -> DigimonState:
        """Append the ``fires`` ``[C, R]`` entries, lowest ``priority`` first, after the queue."""
        num_rows = fires.shape[1]
        big = jnp.int32(1 << 30)
        key = jnp.where(fires, priority[:, None] * num_rows + jnp.arange(num_rows), big).reshape(-1)
        order = jnp.argsort(key)[:QUEUE_SIZE]
        new_valid = key[order] < big
        new_card = jnp.where(new_valid, order // num_rows, -1)
        new_row = jnp.where(new_valid, order % num_rows, -1)
        new_slot = jnp.where(new_valid, card_slot[jnp.maximum(new_card, 0)], -1)
        n = jnp.sum(state.queue_card >= 0)
        i = jnp.arange(QUEUE_SIZE)
        j = jnp.clip(i - n, 0, QUEUE_SIZE - 1)
        keep = i < n
        return state.replace(
            queue_card=jnp.where(keep, state.queue_card, new_card[j]).astype(jnp.int16),
            queue_row=jnp.where(keep, state.queue_row, new_row[j]).astype(jnp.int8),
            queue_slot=jnp.where(keep, state.queue_slot, new_slot[j]).astype(jnp.int8),
        )

    def _resolve(self, state: DigimonState) -> DigimonState:
        """Resolve queued rows, first in first out, until the queue is empty or the game ends."""

        def body(_, state):
            card = state.queue_card[0].astype(jnp.int32)
            go = (card >= 0) & (state.winner < 0) & (state.sel_card < 0)
            popped = state.replace(
                queue_card=jnp.roll(state.queue_card, -1).at[-1].set(-1),
                queue_row=jnp.roll(state.queue_row, -1).at[-1].set(-1),
                queue_slot=jnp.roll(state.queue_slot, -1).at[-1].set(-1),
            )
            done = self._execute(
                popped, jnp.maximum(card, 0), state.queue_row[0], state.queue_slot[0]
            )
            return tree_where(go, done, state)

        return jax.lax.fori_loop(0, QUEUE_SIZE, body, state)

    def _execute(self, state: DigimonState, card, row, slot) -> DigimonState:
        """One effect row, applied as selects over the state (a table, not a branch per op).

        Supported in this stage: ``memory`` (to the controller), ``draw`` (<Draw N>), ``unsuspend``
        of ``self``, and ``dp_mod`` / ``security_attack_mod`` on ``self`` or ``all_own_digimon``
        for a duration (a timed modifier). Rows whose op or target needs a choice (and every other
        op) wait for the selection stage: until then they do nothing, and the env stays
        unregistered (see the README)."""
        board = state.board
        definition = board.definition[card]
        col = lambda name: self.cards[f"effects.{name}"][definition, row]  # noqa: E731
        op, target, duration = col("op"), col("target"), col("duration")
        amount = col("amount").astype(jnp.int32)
        controller = board.owner[card].astype(jnp.int32)
        active = board.active_player.astype(jnp.int32)
        slot = slot.astype(jnp.int32)
        tops, size = self.stacks(state)
        # Conditions checked when the row resolves.
        perm_kind = self._card(state, "kind", tops)
        opp = 1 - controller
        opp_no_source = jnp.any(
            (jnp.where(opp == 0, perm_kind[0], perm_kind[1]) == DIGIMON)
            & (jnp.where(opp == 0, size[0], size[1]) == 1)
        )
        condition, value = col("condition"), col("condition_value").astype(jnp.int32)
        my_size = jnp.where(controller == 0, size[0], size[1])[jnp.clip(slot, 0, NUM_SLOTS - 1)]
        cond_ok = (
            (condition == COND_NONE)
            | ((condition == COND_OPP_NO_SOURCE) & opp_no_source)
            | ((condition == COND_MIN_SOURCES) & (my_size - 1 >= value))
        )
        window = col("window")
        mine_now = controller == active
        window_ok = (
            (window == WINDOW_ALL)
            | ((window == WINDOW_YOURS) & mine_now)
            | ((window == WINDOW_THEIRS) & ~mine_now)
        )
        ok = cond_ok & window_ok
        # A row that chooses its targets opens SelectTarget (or fizzles without a valid target).
        chooses = (
            (target == TARGET_CHOOSE_OWN)
            | (target == TARGET_CHOOSE_OPP)
            | (target == TARGET_CHOOSE_OPP_NO_SOURCE)
        )
        pending = state.replace(
            sel_card=card.astype(jnp.int16),
            sel_row=row.astype(jnp.int8),
            sel_slot=slot.astype(jnp.int8),
            sel_left=col("count").astype(jnp.int8),
            sel_return=state.board.phase,
            board=state.board.replace(phase=jnp.int8(PHASE["select_target"])),
        )
        has_target = jnp.any(self.selection_targets(pending))
        state = tree_where(ok & chooses & has_target & (col("count") > 0), pending, state)
        ok &= ~chooses

        # memory: + for the controller (the gauge is stored from the active player's side).
        memory = state.memory.astype(jnp.int32) + jnp.where(mine_now, amount, -amount)
        memory = jnp.where(ok & (op == OP_MEMORY), memory, state.memory)
        state = state.replace(memory=jnp.clip(memory, -MEMORY_LIMIT, MEMORY_LIMIT).astype(jnp.int8))

        # draw N from the controller's deck (an empty deck draws nothing outside the Draw phase).
        def draw_one(i, board):
            drawn = zones.draw(
                self.layout, board, zone_of("deck", controller), zone_of("hand", controller)
            ).board
            return tree_where(ok & (op == OP_DRAW) & (i < amount), drawn, board)

        state = state.replace(board=jax.lax.fori_loop(0, MAX_DRAW, draw_one, state.board))

        # unsuspend self.
        wake = ok & (op == OP_UNSUSPEND) & (target == TARGET_SELF) & (slot >= 0)
        safe_slot = jnp.clip(slot, 0, NUM_SLOTS - 1)
        suspended = state.suspended.at[controller, safe_slot].set(
            jnp.where(wake, False, state.suspended[controller, safe_slot])
        )
        state = state.replace(suspended=suspended)

        # Timed DP / Security A. modifiers on self or on all own Digimon.
        timed = ok & (duration != DURATION_CONTINUOUS)
        timed &= (op == OP_DP) | (op == OP_SECURITY_ATTACK)
        timed &= (target == TARGET_SELF) | (target == TARGET_ALL_OWN)
        kind = jnp.where(op == OP_DP, LASTING_DP, LASTING_SA)
        return self._add_lasting(
            state,
            timed,
            kind,
            controller,
            jnp.where(target == TARGET_SELF, slot, -1),
            amount,
            duration,
            controller,
        )

    def _expire(self, state: DigimonState, ended_turn) -> DigimonState:
        """Timed modifiers whose last turn has ended are removed."""
        gone = (state.lasting_kind != 0) & (state.lasting_expires <= ended_turn)
        return state.replace(lasting_kind=jnp.where(gone, 0, state.lasting_kind).astype(jnp.int8))

    # -- selections (SelectTarget) ------------------------------------------------------------------

    def selection_targets(self, state: DigimonState) -> jax.Array:
        """bool[2, 12]: the permanents (own = controller's row) the pending row may choose now."""
        card = jnp.maximum(state.sel_card.astype(jnp.int32), 0)
        definition = state.board.definition[card]
        row = jnp.maximum(state.sel_row.astype(jnp.int32), 0)
        col = lambda name: self.cards[f"effects.{name}"][definition, row]  # noqa: E731
        controller = state.board.owner[card].astype(jnp.int32)
        perm = self.permanents(state)
        field = lambda x: x[:, : A.FIELD_SLOTS]  # noqa: E731
        digimon = field(perm.kind) == DIGIMON
        level = self._card(state, "level", field(perm.top)).astype(jnp.int32)
        max_dp, max_level = col("max_dp").astype(jnp.int32), col("max_level").astype(jnp.int32)
        bounds = ((max_dp < 0) | (field(perm.dp) <= max_dp)) & (
            (max_level < 0) | (level <= max_level)
        )
        target, op = col("target"), col("op")
        owner = jnp.arange(2)[:, None]
        own, theirs = owner == controller, owner != controller
        sources = field(perm.size) - 1
        which = jnp.select(
            [target == TARGET_CHOOSE_OWN, target == TARGET_CHOOSE_OPP],
            [own & digimon, theirs & digimon & bounds],
            theirs & digimon & bounds & (sources == 0),
        )
        # Trashing digivolution cards needs a Digimon that has some.
        which &= (op != OP_TRASH_SOURCES) | (sources > 0)
        return which & (state.sel_card >= 0)

    def _select_errors(self, state: DigimonState) -> jax.Array:
        """Codes of ids 0-399 in SelectTarget: 100+i own field, 112+i opponent field, 62 decline."""
        selecting = state.board.phase == PHASE["select_target"]
        targets = self.selection_targets(state)  # [2, 12]
        controller = self.decider(state)
        own = jnp.where(controller == 0, targets[0], targets[1])
        theirs = jnp.where(controller == 0, targets[1], targets[0])
        flags = self._sel_col(state, "flags").astype(jnp.int32)
        may_decline = (flags & (FLAG_OPTIONAL | FLAG_UP_TO)) != 0
        ids = jnp.arange(400)
        pick = jnp.where(
            (ids >= 100) & (ids < 112),
            own[jnp.clip(ids - 100, 0, 11)],
            jnp.where((ids >= 112) & (ids < 124), theirs[jnp.clip(ids - 112, 0, 11)], False),
        )
        legal = pick | ((ids == 62) & may_decline)
        code = jnp.where(legal, 0, CODES["not_a_valid_selection"])
        return jnp.where(selecting, code, CODES["wrong_phase"])

    def _sel_col(self, state: DigimonState, name: str) -> jax.Array:
        card = jnp.maximum(state.sel_card.astype(jnp.int32), 0)
        row = jnp.maximum(state.sel_row.astype(jnp.int32), 0)
        return self.cards[f"effects.{name}"][state.board.definition[card], row]

    def _select(self, state: DigimonState, action):
        """Apply the pending row to the chosen permanent (or decline with 62)."""
        controller = self.decider(state)
        decline = action == A.LAYOUT.start("pass")
        theirs = action >= 112
        player = jnp.where(theirs, 1 - controller, controller)
        slot = jnp.clip(jnp.where(theirs, action - 112, action - 100), 0, A.FIELD_SLOTS - 1)
        op, amount = self._sel_col(state, "op"), self._sel_col(state, "amount").astype(jnp.int32)
        applied = self._apply_to(state, op, amount, player, slot)
        state = tree_where(decline, state, applied)
        left = jnp.where(decline, 0, state.sel_left - 1).astype(jnp.int8)
        state = state.replace(sel_left=left)
        finished = (left <= 0) | ~jnp.any(self.selection_targets(state))
        done = state.replace(
            sel_card=jnp.int16(-1),
            sel_row=jnp.int8(-1),
            sel_slot=jnp.int8(-1),
            sel_left=jnp.int8(0),
            sel_return=jnp.int8(-1),
            board=state.board.replace(phase=state.sel_return),
        )
        return tree_where(finished, done, state)

    def _apply_to(self, state: DigimonState, op, amount, player, slot) -> DigimonState:
        """The choice primitives on one permanent (selects over the state, no branch per op)."""
        state = self._delete(state, player, slot, op == OP_DELETE)

        # Trash ``amount`` digivolution cards from the bottom (the top card stays).
        def trash_bottom(i, state):
            zone = slot_zone(player, slot)
            go = (op == OP_TRASH_SOURCES) & (i < amount)
            go &= zones.zone_count(state.board, zone) > 1
            bottom = zones.card_at(state.board, zone, 0)
            moved = zones.move_card(
                self.layout, state.board, jnp.maximum(bottom, 0), zone_of("trash", player)
            ).board
            return state.replace(board=tree_where(go, moved, state.board))

        state = jax.lax.fori_loop(0, MAX_TRASHED_SOURCES, trash_bottom, state)
        # Return to hand: the top card to its owner's hand, the cards under it to the trash.
        bounce = op == OP_BOUNCE
        zone = slot_zone(player, slot)
        top = zones.top_card(state.board, zone)
        to_hand = zones.move_card(
            self.layout, state.board, jnp.maximum(top, 0), zone_of("hand", player)
        ).board
        state = state.replace(board=tree_where(bounce & (top >= 0), to_hand, state.board))
        state = self._delete(state, player, slot, bounce)  # the rest of the stack: to the trash
        # Timed: DP on the chosen Digimon, or a restriction (cannot attack / block).
        card = jnp.maximum(state.sel_card.astype(jnp.int32), 0)
        duration = self._sel_col(state, "duration")
        cannot = self._sel_col(state, "cannot").astype(jnp.int32)
        timed = (op == OP_DP) | (op == OP_RESTRICT)
        controller = state.board.owner[card].astype(jnp.int32)
        return self._add_lasting(
            state,
            timed,
            jnp.where(op == OP_DP, LASTING_DP, LASTING_RESTRICT),
            player,
            slot,
            jnp.where(op == OP_DP, amount, cannot),
            duration,
            controller,
        )

    def _add_lasting(
        self, state: DigimonState, doit, kind, player, slot, amount, duration, controller
    ) -> DigimonState:
        """Put a timed modifier in the first free row of the table (the first row when full)."""
        turn = state.board.turn_number.astype(jnp.int32)
        mine_now = controller == state.board.active_player.astype(jnp.int32)
        expires = jnp.select(
            [duration == DURATION_THIS_TURN, duration == DURATION_OPP_NEXT],
            [turn, turn + jnp.where(mine_now, 1, 2)],
            turn + jnp.where(mine_now, 2, 1),
        )
        free = state.lasting_kind == 0
        at = jnp.where(jnp.any(free), jnp.argmax(free), 0)
        put = lambda arr, value: arr.at[at].set(jnp.where(doit, value, arr[at]).astype(arr.dtype))  # noqa: E731
        return state.replace(
            lasting_kind=put(state.lasting_kind, kind),
            lasting_player=put(state.lasting_player, player),
            lasting_slot=put(state.lasting_slot, slot),
            lasting_amount=put(state.lasting_amount, amount),
            lasting_expires=put(state.lasting_expires, expires),
        )

    def restricted(self, state: DigimonState, bit: int) -> jax.Array:
        """bool[2, S]: the permanent is under a restriction with ``bit`` (cannot attack / block)."""
        on = (state.lasting_kind == LASTING_RESTRICT) & (
            (state.lasting_amount.astype(jnp.int32) & bit) != 0
        )
        player = state.lasting_player.astype(jnp.int32)
        slot = state.lasting_slot.astype(jnp.int32)
        return jnp.any(
            on
            & (player == jnp.arange(2)[:, None, None])
            & (slot == jnp.arange(NUM_SLOTS)[None, :, None]),
            axis=-1,
        )

    # -- attacks (official order, G7: counter timing, then block timing) ---------------------------

    def _attack(self, state: DigimonState, action):
        """Declaration: suspend the attacker; the defender's timings; then the battle."""
        me = state.board.active_player.astype(jnp.int32)
        a, t = jnp.divmod(action - A.LAYOUT.start("attack"), A.FIELD_STRIDE)
        state = state.replace(
            suspended=state.suspended.at[me, a].set(True),
            attacker=a.astype(jnp.int8),
            attack_target=t.astype(jnp.int8),
        )
        # [When Attacking] rows resolve next (in `apply`), then the defender's timings.
        return self._push(state, me, TRIGGER["when_attacking"], a)

    def _block(self, state: DigimonState, action):
        """The defender blocks: the blocker is suspended and becomes the attack's target; the
        battle follows in `apply`."""
        defender = 1 - state.board.active_player.astype(jnp.int32)
        blocker = action - A.LAYOUT.start("attack")
        return state.replace(
            suspended=state.suspended.at[defender, blocker].set(True),
            attack_target=blocker.astype(jnp.int8),
            board=state.board.replace(phase=jnp.int8(PHASE["main"])),
        )

    def _decline_block(self, state: DigimonState, action):
        del action
        return state.replace(board=state.board.replace(phase=jnp.int8(PHASE["main"])))

    def _resolve_attack(self, state: DigimonState) -> DigimonState:
        """The battle with a Digimon, or the security checks; then the attack ends (Main)."""
        target = state.attack_target.astype(jnp.int32)
        battled = self._battle(state)
        checked = self._security_checks(state)
        state = tree_where(target < A.FIELD_SLOTS, battled, checked)
        return state.replace(
            attacker=jnp.int8(-1),
            attack_target=jnp.int8(-1),
            board=state.board.replace(phase=jnp.int8(PHASE["main"])),
        )

    def _delete(self, state: DigimonState, player, slot, doit) -> DigimonState:
        """Delete the permanent in ``slot`` of ``player`` when ``doit``: its whole stack goes to its
        owner's trash and the slot's facts are cleared."""
        trash = zone_of("trash", player)
        source = jnp.where(doit, slot_zone(player, slot), trash)  # a no-op move when not deleting
        board = zones.move_all(self.layout, state.board, source, trash).board
        clear = lambda x, v: x.at[player, slot].set(jnp.where(doit, v, x[player, slot]))  # noqa: E731
        on_it = doit & (state.lasting_player == player) & (state.lasting_slot == slot)
        return state.replace(
            lasting_kind=jnp.where(on_it, 0, state.lasting_kind).astype(jnp.int8),
            board=board,
            suspended=clear(state.suspended, False),
            entered_turn=clear(state.entered_turn, jnp.int16(-1)),
        )

    def _battle(self, state: DigimonState) -> DigimonState:
        """The attacker battles the target Digimon: the lower DP is deleted, equal DP both."""
        me = state.board.active_player.astype(jnp.int32)
        a = jnp.maximum(state.attacker.astype(jnp.int32), 0)
        t = jnp.clip(state.attack_target.astype(jnp.int32), 0, A.FIELD_SLOTS - 1)
        _, size = self.stacks(state)
        # Each side knows how many digivolution cards its opponent in this battle has.
        battling = jnp.full((2, NUM_SLOTS), -1, jnp.int32)
        battling = battling.at[me, a].set(size[1 - me, t] - 1).at[1 - me, t].set(size[me, a] - 1)
        perm = self.permanents(state, battling)
        dp_a = jnp.where(me == 0, perm.dp[0], perm.dp[1])[a]
        dp_t = jnp.where(me == 0, perm.dp[1], perm.dp[0])[t]
        state = self._delete(state, me, a, dp_a <= dp_t)
        return self._delete(state, 1 - me, t, dp_t <= dp_a)

    def _security_checks(self, state: DigimonState) -> DigimonState:
        """Attacking the player: with no security card left the attacker's player wins; otherwise
        check 1 + <Security A. +N> cards, one at a time: a Digimon card battles
        the attacker (the attacker is deleted on lower or equal DP unless it has <Jamming>), then
        the checked card goes to the trash. Checks stop once the attacker has left play."""
        me = state.board.active_player.astype(jnp.int32)
        opp = 1 - me
        a = jnp.maximum(state.attacker.astype(jnp.int32), 0)
        security = zone_of("security", opp)
        empty = zones.zone_count(state.board, security) == 0
        won = state.replace(winner=me.astype(jnp.int8), end_reason=jnp.int8(END_SECURITY))
        perm = self.permanents(state)
        mine = lambda x: jnp.where(me == 0, x[0], x[1])[a]  # noqa: E731
        checks = 1 + jnp.maximum(mine(perm.security_attack), 0)
        dp_a, jamming = mine(perm.dp), mine(perm.keywords)[KW["jamming"]]
        attacker_zone = slot_zone(me, a)

        def check(i, state):
            # The attacker's DP is fixed during the checks in this stage (no security effects yet).
            present = zones.zone_count(state.board, attacker_zone) > 0
            card = zones.top_card(state.board, security)
            go = (i < checks) & present & (card >= 0)
            is_digimon = self._card(state, "kind", card) == DIGIMON
            loses = go & is_digimon & (dp_a <= self._card(state, "dp", card)) & ~jamming
            state = self._delete(state, me, a, loses)
            source = jnp.where(go, security, zone_of("trash", opp))
            board = zones.draw(self.layout, state.board, source, zone_of("trash", opp)).board
            return state.replace(board=tree_where(go, board, state.board))

        checked = jax.lax.fori_loop(0, MAX_CHECKS, check, state)
        return tree_where(empty, won, checked)

    def _pass(self, state: DigimonState, action):
        del action
        in_main = state.board.phase == PHASE["main"]
        to_main = state.replace(board=state.board.replace(phase=jnp.int8(PHASE["main"])))
        end = state.replace(memory=jnp.int8(-PASS_MEMORY))
        return tree_where(in_main, end, to_main)

    def _settle(self, state: DigimonState) -> DigimonState:
        """After an action has fully resolved: the turn ends once the gauge is on the opponent's
        side (G1), and the next turn runs its automatic phases up to the Breeding phase."""
        over = (state.board.phase == PHASE["main"]) & (state.memory < 0) & (state.winner < 0)
        return tree_where(over, self._next_turn(state), state)

    def _next_turn(self, state: DigimonState) -> DigimonState:
        state = self._expire(state, state.board.turn_number.astype(jnp.int32))
        board = state.board
        nxt = (1 - board.active_player.astype(jnp.int32)).astype(jnp.int8)
        board = board.replace(active_player=nxt, turn_number=board.turn_number + 1)
        # [Start of Your Turn] rows fire first, with the gauge already on the new player's side.
        state = state.replace(board=board, memory=(-state.memory).astype(jnp.int8))
        state = self._resolve(
            self._push(state, nxt.astype(jnp.int32), TRIGGER["start_of_your_turn"])
        )
        board = state.board
        # Unsuspend phase: the new turn player's permanents.
        suspended = state.suspended.at[nxt.astype(jnp.int32)].set(False)
        # Draw phase: unable to draw = loss (deck out).
        drawn = zones.draw(self.layout, board, zone_of("deck", nxt), zone_of("hand", nxt))
        decked = drawn.error != 0
        board = drawn.board.replace(phase=jnp.int8(PHASE["breeding"]))
        return state.replace(
            board=board,
            suspended=suspended,
            winner=jnp.where(decked, 1 - nxt, state.winner).astype(jnp.int8),
            end_reason=jnp.where(decked, END_DECK_OUT, state.end_reason).astype(jnp.int8),
        )

    def forfeit(self, state: DigimonState, loser: jax.Array) -> DigimonState:
        """``loser`` made an illegal move under ``illegal_action="lose"``: the other player wins."""
        return state.replace(winner=(1 - loser).astype(jnp.int8), end_reason=jnp.int8(END_ILLEGAL))

    # -- invariants (host side) ------------------------------------------------------------------

    def validate(self, state: DigimonState) -> None:
        """Raise ``InvalidStateError`` if ``state`` is not reachable (this stage's invariants).

        Card conservation: each player holds exactly their deck's cards, each card in a zone of its
        owner or a shared zone; Digi-Eggs never in the deck, hand or security; memory within ±10;
        an empty permanent slot is neither suspended nor dated; the turn is at least 1; an attack
        is recorded exactly during the attack timings (a suspended attacker of the turn player, a
        field or player target); the winner agrees with the end reason.
        """
        layout, b = self.layout, jax.tree.map(np.asarray, state.board)
        kinds = np.asarray(self.cards.numpy["kind"])

        def fail(field, problem):
            raise InvalidStateError(field, problem)

        if int(b.active_player) not in (0, 1):
            fail("turnState.activePlayerId", f"{int(b.active_player)} is not a player")
        if int(b.turn_number) < 1:
            fail("turnState.turnNumber", f"{int(b.turn_number)} < 1")
        if not -MEMORY_LIMIT <= int(state.memory) <= MEMORY_LIMIT:
            fail("game.memory", f"{int(state.memory)} outside [-10, 10]")
        for p, (eggs, main) in enumerate(self.decks):
            held = sorted(self.cards.ids[int(d)] for d in b.definition[b.owner == p])
            if held != sorted(eggs + main):
                fail(f"players.player{p + 1}", "does not hold exactly the cards of their deck")
        for c in range(layout.num_cards):
            zone, owner = int(b.zone[c]), int(b.owner[c])
            zone_type, zone_owner = layout.zones[zone]
            if zone_owner is not None and zone_owner != owner:
                fail(
                    f"cards.card_{c + 1:03d}.zoneId", f"in {layout.zone_id(zone)}, not its owner's"
                )
            is_egg = kinds[int(b.definition[c])] == DIGI_EGG
            if is_egg and zone_type in ("deck", "hand", "security"):
                fail(f"cards.card_{c + 1:03d}.zoneId", f"a Digi-Egg in the {zone_type}")
            if not is_egg and zone_type == "eggs":
                fail(
                    f"cards.card_{c + 1:03d}.zoneId",
                    f"a {KINDS[kinds[int(b.definition[c])]]} in the Digi-Egg deck",
                )
        counts = np.bincount(b.zone.astype(int), minlength=layout.num_zones)
        stacks = [int(zone_of(s, p)) for p in range(2) for s in ("breeding",) + FIELD_ZONES]
        empty = (counts[stacks] == 0).reshape(2, NUM_SLOTS)
        slot_order = np.asarray([BREEDING_SLOT] + list(range(A.FIELD_SLOTS)))
        empty = empty[:, np.argsort(slot_order)]  # zone order is breeding first; slots field first
        if np.any(np.asarray(state.suspended) & empty):
            fail("game.suspended", "an empty permanent slot is suspended")
        if np.any((np.asarray(state.entered_turn) >= 0) & empty):
            fail("game.entered_turn", "an empty permanent slot has an entry turn")
        attacker, target = int(state.attacker), int(state.attack_target)
        timing = A.PHASES[int(b.phase)] in ("block_timing", "counter_timing")
        paused = A.PHASES[int(b.phase)] == "select_target"
        if not (timing or paused) and (attacker, target) != (-1, -1):
            fail("game.attacker", "an attack is recorded outside the attack timings")
        if timing:
            me = int(b.active_player)
            if not 0 <= attacker < A.FIELD_SLOTS or empty[me, attacker]:
                fail("game.attacker", f"{attacker} is not a permanent of the attacking player")
            if not bool(np.asarray(state.suspended)[me, attacker]):
                fail("game.attacker", "the attacker is suspended by its attack")
            if not 0 <= target <= A.TARGET_PLAYER:
                fail("game.attack_target", f"{target} is neither a field slot nor the player")
        if int(state.winner) not in (ONGOING, 0, 1, 2):
            fail("game.winner", f"{int(state.winner)} is not -1, a player or 2 (draw)")
        if (int(state.winner) == ONGOING) != (int(state.end_reason) == END_NONE):
            fail("game.end_reason", "does not agree with the winner")
