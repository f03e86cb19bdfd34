"""Rules of the Digimon Card Game — stage 2: the board and the game setup.

Pure rules (no RL import). This stage defines the zones, the rules state and the setup of the
official rules; the turn structure, memory, playing, digivolving, attacks and the effect interpreter
land in the next stages (see the game's README).

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

Simplification (documented): no mulligan (the optional one full re-draw); the spec's phases have no
mulligan decision.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax.core import zones
from tcgjax.core.board import Board, BoardLayout, new_board
from tcgjax.core.cards import CardRegistry
from tcgjax.core.errors import ConfigError, InvalidStateError
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.cards import DIGI_EGG, KINDS

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
    """

    board: Board
    memory: jax.Array
    first_player: jax.Array
    suspended: jax.Array
    entered_turn: jax.Array
    winner: jax.Array
    end_reason: jax.Array


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
        )

    # -- invariants (host side) ------------------------------------------------------------------

    def validate(self, state: DigimonState) -> None:
        """Raise ``InvalidStateError`` if ``state`` is not reachable (this stage's invariants).

        Card conservation: each player holds exactly their deck's cards, each card in a zone of its
        owner or a shared zone; Digi-Eggs only in the egg deck, the breeding area, a stack, the
        trash or ``processing``; no more than 5 Digi-Eggs in the egg deck; memory within ±10; an
        empty permanent slot is neither suspended nor dated; the turn is at least 1.
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
