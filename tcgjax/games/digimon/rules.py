"""Rules of the Digimon Card Game: board, setup, turn structure, attacks and the effect interpreter.

Pure rules (no RL import): the zones, the setup, the turn structure (start-of-turn effects,
unsuspend with <Reboot>, draw, breeding, main, end-of-turn effects), memory (G1), playing
Digimon, Tamers and Options (color rule), digivolving (with the draw bonus), DNA digivolution
(SelectMaterial), attacks (counter timing with <Blast Digivolve>, block timing, battles with
<Retaliation> and <Piercing>, security checks with [Security] effects), activated [Main] effects
of permanents, and the data-driven effect interpreter (trigger queue, [Once Per Turn], timed
modifiers, and every selection phase of the spec: SelectTarget, SelectSource, SelectHand,
SelectReveal, SelectTrash, SelectSecurity, SelectEffectChoice, SelectMaterial).

**Automatic play.** After the action's own branch, :meth:`DigimonRules._run` loops over
*micro-steps* until a player must decide: a queued effect row resolves, a used Option goes to the
trash, the attack moves on by one stage or one security check, the turn ends ([End of Your Turn]
rows first, once a turn), or the new turn runs its Unsuspend and Draw phases once its [Start of
Your Turn] rows have resolved. A selection opened by an effect pauses this loop (its phase keeps
the game waiting) and the next ``apply`` resumes it, so an attack, a security check or a turn
start can be paused and resumed at any effect.

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

**Setup** (the official Digimon Card Game General Rules): each main deck
is shuffled with the game's key, the top 5 cards become the security stack face down, the next 5 the
opening hand (the rules put hand before security or security first depending on the source; both
deal the same random distribution, so one order is chosen); each Digi-Egg deck is shuffled; memory
is 0; the first player is drawn from the key and skips their first draw.

**Turn** (official order): Unsuspend → Draw → Breeding → Main. At the start of a turn the
[Start of Your Turn] rows resolve, then the active player's permanents (and the opponent's
<Reboot> Digimon) unsuspend and they draw 1 card (the first player skips the draw of turn 1); a
player who must draw from an empty deck loses (``deck_out``). In the Breeding phase they do at most one
thing: hatch (60: the top Digi-Egg into the empty breeding area), move (61: a Lv.3+ Digimon from the
breeding area to the battle area, not "playing": no [On Play], and it may attack this turn) or pass
(62). In the Main phase: play a Digimon or Tamer (0-29), digivolve (400-999, field 12 = the breeding
area, G8), or pass (62).

**Memory** (G1, official): one gauge, stored from the active player's side. Paying a cost moves it
toward the opponent; a card may be played or digivolved whenever ``cost <= memory + 10`` (the gauge
never passes 10 on the opponent's side); once the gauge is on the opponent's side (below 0 here)
after the action has fully resolved, the turn ends and the opponent starts with that memory on their
side. Passing sets it to 3 on the opponent's side. Gains above 10 are lost. [End of Your Turn]
rows resolve when the turn would end; if they bring the gauge back to the player's side the turn
goes on, and they do not fire again that turn.

**Attacks** (official General Rules 11-1-3, G7): declare (suspend the attacker; the target is the
player, 12, or a suspended opponent Digimon), [When Attacking] rows, block timing (the defender
decides; skipped when no Digimon of theirs can block; a block fires the attacker's [When
Blocked] rows), then the battle (lower DP deleted, equal DP both; <Retaliation>; <Piercing>
checks security after deleting its target and surviving) or the security checks: 1 + <Security
A. +N>, one card at a time: the card is flipped into ``revealed``, its [Security] rows resolve
(owner = the defender: Tamers play themselves, Options use their [Main] rows without the color
rule), then a Digimon card battles the attacker (Security DP modifiers apply; <Jamming>), then the
card goes to the trash unless it went elsewhere. Checks stop when the attacker leaves play or
security runs out; attacking a player with no security card wins. Deleted permanents fire their
[On Deletion] rows (read as they leave; both sides of a battle together, the turn player's first).

**Digivolving**: a hand Digimon onto a permanent whose top card is a Digimon or Digi-Egg matching one
of its requirements (level, and the color among the top card's colors), paying that cost (the lowest
among the matching requirements), then drawing 1 card (the digivolution bonus; an empty deck draws
nothing and loses nothing outside the Draw phase). The permanent keeps its slot, its suspended state
and the turn it entered (so a Digimon played this turn still cannot attack).

**Mulligan** (G10, official): after the deal the first player, then the second, keeps the opening
hand or shuffles it back into the deck and draws 5 new cards, once each: a SelectEffectChoice
(1000 keep, 1001 redraw; ``Selection.stage`` = mulligan). Security is dealt before (rules
summaries disagree on the order; both deal the same distribution), so a redraw leaves it as it is.
``mulligan=False`` is the spec's setup (the game starts in the Breeding phase).

**Simultaneous triggers** (G10, official): effects that trigger together resolve the turn
player's first; when a player has two or more of them, from different cards, they choose which
resolves next (SelectEffectChoice 1000 + i, the i-th of those cards in the fixed order; asked
again while two or more remain). ``trigger_order="fixed"`` keeps the fixed order (no decision).

**The breeding area** is out of every effect's reach (official rule): the effects of its cards do
not activate (continuous, triggered or inherited), and other cards' effects neither count, target
nor modify a Digimon there (auras and "all your Digimon" timed modifiers reach the battle area
only). No shipped card says otherwise.

A finished game keeps the phase it ended in (a deck-out ends in the Draw phase).

Simplifications (documented): a permanent takes the lowest free battle slot; hand positions 30+
cannot be named by an action (the spec addresses 30 hand slots).

**Rooms.** :class:`DigimonRules` is put together from one module per part of the rules, each a
mixin class whose methods read the tables this module sets up:

* :mod:`~tcgjax.games.digimon.state`: the state record, zones, phases, rule errors, the card
  tables built on the host and the per-slot sums (every name is re-exported here);
* this module: construction, setup and the mulligan, derived facts (:meth:`DigimonRules.permanents`),
  ``apply`` (the action kinds, then the automatic play) and the invariants;
* :mod:`~tcgjax.games.digimon.legality`: the rule-error code of every action id (the mask);
* :mod:`~tcgjax.games.digimon.turn`: the automatic play (micro-steps, the 0 DP rules check) and
  the player's own moves (play, digivolve, DNA digivolve, hatch, move, pass);
* :mod:`~tcgjax.games.digimon.interpreter`: the effect interpreter (trigger queue, timed
  modifiers, the row executor, activated [Main] rows);
* :mod:`~tcgjax.games.digimon.selections`: what each selection phase offers and what a choice does;
* :mod:`~tcgjax.games.digimon.attacks`: attacks, battles, security checks and deletion.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core import zones
from tcgjax.core.arrays import sum_along
from tcgjax.core.board import Board, draw_matchup, new_board
from tcgjax.core.cards import CardRegistry
from tcgjax.core.decks import check_pairs
from tcgjax.core.effects import Selection
from tcgjax.core.errors import ConfigError
from tcgjax.core.invariants import InvariantTable
from tcgjax.core.primitives import for_each
from tcgjax.core.tree import tree_where, when_some
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.attacks import Attacks
from tcgjax.games.digimon.cards import (  # noqa: F401  re-exported, as before the rooms
    AMOUNT_PER,
    CONDITIONS,
    DIGI_EGG,
    DIGIMON,
    EFFECT_FLAGS,
    KEYWORDS,
    MAX_AMOUNT,
    MAX_BRANCHES,
    MAX_BURST,
    MAX_EFFECTS,
    MAX_REVEAL,
    OPS,
    OPTION,
    TAMER,
    TARGETS,
    TRIGGERS,
    WHERE,
    WINDOWS,
)
from tcgjax.games.digimon.interpreter import EffectInterpreter
from tcgjax.games.digimon.legality import Legality
from tcgjax.games.digimon.selections import Selections
from tcgjax.games.digimon.state import *  # noqa: F403  re-exported: R.PHASE, R.DigimonState, ...
from tcgjax.games.digimon.state import (  # used here, or public (__all__)
    CANNOT_ATTACK,
    CANNOT_ATTACK_PLAYER,
    CANNOT_BE_BLOCKED,
    CANNOT_BLOCK,
    CHOICE_MULLIGAN,
    CHOICE_ORDER,
    CODES,
    COND_BATTLING_NO_SOURCE,
    COND_HAND_AT_LEAST,
    COND_HAND_AT_MOST,
    COND_HAS_KEYWORD,
    COND_LEVEL_AT_LEAST,
    COND_MIN_SOURCES,
    COND_NONE,
    COND_OPP_LEVEL_AT_LEAST,
    COND_OPP_NO_SOURCE,
    COND_SECURITY_AT_LEAST,
    COND_SECURITY_AT_MOST,
    COND_SECURITY_AT_MOST_OPPONENTS,
    COND_TRASH_AT_LEAST,
    DIGIVOLVE_TABLE_ALL_CARDS,
    FIELD_ZONES,
    FLAG_OPT,
    HAND_AT_START,
    IN_BATTLE_AREA,
    LASTING_DP,
    LASTING_KEYWORD,
    LASTING_SA,
    MAIN_DECK_SIZE,
    MAX_COPIES,
    MAX_EGGS,
    MEMORY_RULES,
    NUM_SLOTS,
    ONGOING,
    OP_DIGIVOLVE_INTO,
    OP_DP,
    OP_PLAY_AFTER_BATTLE,
    OP_RESTRICT,
    OP_SECURITY_ATTACK,
    PER_TWO_SOURCES,
    PHASE,
    PLAYER_ZONES,
    REDRAW_HAND,
    RULE_ERRORS,
    SECURITY_AT_START,
    SHARED_ZONES,
    SLOT_ZONES,
    TARGET_ALL_OWN,
    TARGET_SECURITY,
    TARGET_SELF,
    TIMING_ORDERS,
    TRIGGER_CONTINUOUS,
    TRIGGER_ORDERS,
    WHERE_INH,
    WHERE_MAIN,
    DigimonState,
    Permanents,
    _card_filters,
    _digivolve_cost_table,
    _highest_battle_level,
    _in_window,
    _keywords_per_slot,
    _membership,
    _per_slot,
    _row_table,
    _special_digivolve_table,
    build_layout,
    empty_effects,
    zone_of,
)
from tcgjax.games.digimon.turn import TurnLoop

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


class DigimonRules(Legality, TurnLoop, EffectInterpreter, Selections, Attacks):
    """Static rules object for its decks: card tables as device constants, pure methods.

    Args:
      cards: the card registry.
      decks: the deck pool, ``(eggs, main)`` pairs of card numbers (with repeats); with ``pairs``
        left out, exactly two: the first player's and the second's.
      pairs: the matchups, ``(deck of seat 0, deck of seat 1)`` as indices into ``decks``; each
        game draws one uniformly in :meth:`init` (its index is ``state.deck_pair``). The card
        instances of a seat are laid out once for all matchups, so every deck a seat may hold
        has the same number of Digi-Eggs. Default ``((0, 1),)``: one matchup, and ``init`` draws
        nothing for it (the same games as before pairs existed).

    Raises:
      ConfigError: a deck that breaks the deck rules (sizes, copies, Digi-Eggs only in the egg deck)
        or names a card the registry lacks; a pair outside the pool; two decks of one seat with
        different numbers of Digi-Eggs.
    """

    def __init__(
        self,
        cards: CardRegistry,
        decks: Sequence[tuple[Sequence[str], Sequence[str]]],
        *,
        memory_rule: str = "official",
        timing_order: str = "official",
        mulligan: bool = True,
        trigger_order: str = "chosen",
        pairs: Sequence[tuple[int, int]] | None = None,
    ):
        if memory_rule not in MEMORY_RULES:
            raise ConfigError(
                f"digimon: memory_rule={memory_rule!r}, expected one of {MEMORY_RULES}"
            )
        if timing_order not in TIMING_ORDERS:
            raise ConfigError(
                f"digimon: timing_order={timing_order!r}, expected one of {TIMING_ORDERS}"
            )
        if trigger_order not in TRIGGER_ORDERS:
            raise ConfigError(
                f"digimon: trigger_order={trigger_order!r}, expected one of {TRIGGER_ORDERS}"
            )
        if not isinstance(mulligan, bool):
            raise ConfigError(f"digimon: mulligan={mulligan!r}, expected True or False")
        self.memory_rule, self.timing_order = memory_rule, timing_order
        self.mulligan, self.trigger_order = mulligan, trigger_order
        if pairs is None and len(decks) != 2:
            raise ConfigError(
                f"digimon: expected 2 decks (a larger pool needs pairs), got {len(decks)}"
            )
        self.pairs = check_pairs("digimon", pairs, len(decks))
        self.cards = cards
        kind = np.asarray(cards.numpy["kind"])
        self.pool = []
        for index, (eggs, main) in enumerate(decks):
            self.pool.append((tuple(eggs), tuple(main)))
            seat_decks = self.pairs == ((0, 1),)  # one matchup: the pool is the seats' decks
            where = f"deck of player{index + 1}" if seat_decks else f"deck {index} of the pool"
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
        # The seats' decks of the first matchup lay out the card instances (eggs, then the main
        # deck, player by player); every matchup fills the same instances with its definitions.
        self.decks = [self.pool[d] for d in self.pairs[0]]
        for i, pair in enumerate(self.pairs):
            for seat, d in enumerate(pair):
                eggs, first_eggs = len(self.pool[d][0]), len(self.decks[seat][0])
                if eggs != first_eggs:
                    raise ConfigError(
                        f"digimon: pairs[{i}]: player{seat + 1}'s deck has {eggs} Digi-Eggs, "
                        f"the first matchup's {first_eggs}; the decks of a seat need as many"
                    )
        self.pair_definitions = np.asarray(
            [
                [cards.index(n) for d in pair for n in (*self.pool[d][0], *self.pool[d][1])]
                for pair in self.pairs
            ],
            np.int16,
        )
        self.cards_per_player = tuple(len(e) + len(m) for e, m in self.decks)
        self.num_cards = sum(self.cards_per_player)
        self.layout = build_layout(cards, self.num_cards)
        continuous = (
            "where", "window", "condition", "condition_value", "amount", "amount_per", "cannot"
        )  # fmt: skip
        self._continuous = _row_table(cards, TRIGGER_CONTINUOUS, (*continuous, "op", "target"))
        self._triggered = {t: _row_table(cards, t, ("where",)) for t in range(len(TRIGGERS))}
        # Over every definition of a card file of moderate size, so that the compiled programs
        # depend on the card file only, not on the decks (switching decks, or the rule tests'
        # situations over one test registry, reuse them through the compilation cache); over the
        # decks' definitions only for a large file (an imported database), to keep it small.
        if len(cards.ids) <= DIGIVOLVE_TABLE_ALL_CARDS:
            used = list(range(len(cards.ids)))
        else:
            used = sorted({0} | {cards.index(n) for e, m in self.pool for n in (*e, *m)})
        self._compact, self._digivolve_cost = _digivolve_cost_table(cards, used)
        special = _special_digivolve_table(cards, used, self._compact)
        self._has_special = bool(np.any(special >= 0))
        # [2, U, U]: the costs without, then with, a digivolve_into row in force on the top card
        # (the cheaper way where both apply): one lookup, indexed by the row's liveness.
        normal = self._digivolve_cost
        both = np.where(
            (normal >= 0) & (special >= 0), np.minimum(normal, special), np.maximum(normal, special)
        )
        self._digivolve_costs_by_live = np.stack([normal, both]).astype(np.int8)
        self._card_filters = _card_filters(cards)
        # The card table's real rows: the padding rows past ``num_rows`` hold 0 in every column.
        ops = np.asarray(cards.numpy["effects.op"])
        real_rows = np.arange(ops.shape[1]) < np.asarray(cards.numpy["effects.num_rows"])[:, None]
        # Some row deletes under a total-DP budget (``max_total_dp``, -1 for none; a padding
        # row's 0 is not a budget): its picks are marked. Host-known, the budget code is traced
        # only for a card file that has such a row.
        budgets = np.asarray(cards.numpy["effects.max_total_dp"])
        self._budget_rows = bool(np.any(real_rows & (budgets >= 0)))
        # Definitions whose [Security] row plays the card after its battle (a printed fact).
        self._after_battle = np.any((ops == OP_PLAY_AFTER_BATTLE) & real_rows, axis=1)
        self._initial_board = self._initial()
        # The 0 DP rule can only find a Digimon at 0 DP when something lowers DP (a timed -DP
        # modifier, checked per state) or, for the card file as a whole, a continuous row that
        # lowers DP or a Digimon printed with 0 DP (G11; ``_zero_dp_possible``).
        kind, dp = np.asarray(cards.numpy["kind"]), np.asarray(cards.numpy["dp"])
        cont_neg = (
            (np.asarray(cards.numpy["effects.trigger"]) == TRIGGER_CONTINUOUS)
            & (np.asarray(cards.numpy["effects.op"]) == OP_DP)
            & (np.asarray(cards.numpy["effects.amount"]) < 0)
            & real_rows
        )
        self._zero_dp_always = bool(cont_neg.any() or np.any((kind[1:] == DIGIMON) & (dp[1:] <= 0)))
        battle = np.zeros(self.layout.num_zones, bool)
        battle[SLOT_ZONES[:, : A.FIELD_SLOTS].ravel()] = True
        self._battle_zones = battle

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
        player, then the mulligan (G10: the first player, then the second, keeps the opening
        hand or redraws it once; SelectEffectChoice ids 1000 / 1001) and the Breeding phase of
        turn 1 (the first player's first draw skipped). With ``mulligan=False`` (the spec's
        setup) the game starts in that Breeding phase.

        The deal is written out rather than played as 4 shuffles and 20 draws of the zone
        commands (under auto-reset ``init`` runs for every game at every step): every game
        starts from the same unshuffled board, where each player's Digi-Eggs and main deck are
        static runs of card indices; a zone's shuffle is the rank of uniform noise among its
        own cards, and the deal takes the top 10 cards of the shuffled deck, security first in
        each of the 5 rounds (the card 2k from the top becomes security card k, the next one
        hand card k)."""
        board = self._initial_board
        board, pair, key = draw_matchup(board, self.pair_definitions, key)
        k_first, *k_zones = jax.random.split(key, 5)
        zone, position = board.zone, board.position
        start = 0
        for p, (eggs, main) in enumerate(self.decks):
            for j, size in enumerate((len(eggs), len(main))):
                stop = start + size
                if size:
                    noise = jax.random.uniform(k_zones[2 * p + j], (size,))
                    rank = zones.noise_rank(noise)  # position, 0 = bottom
                    new_zone = jnp.full(size, zone_of("eggs" if j == 0 else "deck", p))
                    if j == 1:  # the main deck: deal its top 10 cards
                        from_top = size - 1 - rank
                        dealt = from_top < SECURITY_AT_START + HAND_AT_START
                        new_zone = jnp.where(
                            dealt,
                            jnp.where(
                                from_top % 2 == 0, zone_of("security", p), zone_of("hand", p)
                            ),
                            new_zone,
                        )
                        rank = jnp.where(dealt, from_top // 2, rank)
                    zone = zone.at[start:stop].set(new_zone.astype(zone.dtype))
                    position = position.at[start:stop].set(rank.astype(position.dtype))
                start = stop
        assert SECURITY_AT_START == HAND_AT_START
        # The setup's commands: a shuffle of each of the 4 decks and the 20 cards dealt.
        board = board.replace(zone=zone, position=position, version=board.version + 24)
        first = jax.random.bernoulli(k_first).astype(jnp.int8)
        board = board.replace(active_player=first, phase=jnp.int8(A.PHASES.index("breeding")))
        state = DigimonState(
            board=board,
            memory=jnp.int8(0),
            first_player=first,
            suspended=jnp.zeros((2, NUM_SLOTS), jnp.bool_),
            entered_turn=jnp.full((2, NUM_SLOTS), -1, jnp.int16),
            winner=jnp.int8(ONGOING),
            end_reason=jnp.int8(0),
            attacker=jnp.int8(-1),
            attack_target=jnp.int8(-1),
            deck_pair=pair.astype(jnp.int8),
            **empty_effects(self.num_cards),
        )
        return self._ask_mulligan(state, first) if self.mulligan else state

    def seat_deck(self, pair: int, player: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``(eggs, main)`` of ``player`` (0 or 1) in a game of matchup ``pair`` (host-side)."""
        return self.pool[self.pairs[int(pair)][int(player)]]

    def _ask_mulligan(self, state: DigimonState, player) -> DigimonState:
        """``player`` decides on their opening hand: a SelectEffectChoice whose record names a
        card of their hand (so the record says who decides), Breeding phase next."""
        return state.replace(
            selection=Selection.open(
                self.hand(state, player)[0],
                -1,
                -1,
                left=1,
                resume=PHASE["breeding"],
                stage=CHOICE_MULLIGAN,
            ),
            board=state.board.replace(phase=jnp.int8(PHASE["select_effect_choice"])),
        )

    def _mulligan(self, state: DigimonState, action, key) -> DigimonState:
        """Keep the opening hand (1000) or redraw it (1001: the hand is shuffled back into the
        deck and 5 new cards are drawn; security, set before, stays); then the second player
        decides, or the first player's turn 1 goes on to its Breeding phase. Each player decides
        once (General Rules: one redraw, the first player first)."""
        player = self.decider(state)
        hand, deck = zone_of("hand", player), zone_of("deck", player)
        board = zones.move_all(self.layout, state.board, hand, deck).board
        board = zones.shuffle(self.layout, board, deck, key).board
        board = jax.lax.fori_loop(
            0,
            HAND_AT_START,
            lambda _, board: zones.draw(self.layout, board, deck, hand).board,
            board,
        )
        state = state.replace(board=tree_where(action == REDRAW_HAND, board, state.board))
        second = self._ask_mulligan(state, 1 - player)
        done = state.replace(
            selection=Selection.none(),
            board=state.board.replace(phase=jnp.int8(PHASE["breeding"])),
        )
        return tree_where(player == state.first_player, second, done)

    # -- derived facts (never stored, E2) --------------------------------------------------------

    @staticmethod
    def _lasting_hits(state: DigimonState, kind: int) -> jax.Array:
        """bool[2, S, L]: timed modifier ``l`` of ``kind`` reaches permanent slot ``s`` of player
        ``p``."""
        on = state.lasting_kind == kind  # [L]
        player = state.lasting_player.astype(jnp.int32)
        slot = state.lasting_slot.astype(jnp.int32)
        players = jnp.arange(2)[:, None, None]
        slots = jnp.arange(NUM_SLOTS)[None, :, None]
        # Slot -1 ("all your Digimon") reaches the battle area only, never the breeding area.
        everywhere = (slot < 0) & jnp.asarray(IN_BATTLE_AREA)[None, :, None]
        return on & (player == players) & ((slot == slots) | everywhere)

    def _lasting(self, state: DigimonState, kind: int) -> jax.Array:
        """The timed modifiers of ``kind`` in force, summed per permanent slot: int32[2, S]."""
        hits = self._lasting_hits(state, kind)
        return jnp.sum(jnp.where(hits, state.lasting_amount.astype(jnp.int32), 0), axis=-1)

    def _granted_keywords(self, state: DigimonState) -> jax.Array:
        """bool[2, S, K]: the keywords granted for a duration (``grant_keyword``) per slot."""
        hits = self._lasting_hits(state, LASTING_KEYWORD)  # [2, S, L]
        bits = (state.lasting_amount.astype(jnp.int32)[:, None] >> jnp.arange(len(KEYWORDS))) & 1
        return jnp.any(hits[..., None] & (bits == 1)[None, None], axis=2)

    def stacks(self, state: DigimonState) -> tuple[jax.Array, jax.Array]:
        """``(top card, size)`` of every permanent slot: int32[2, S] each (top -1 when empty)."""
        _, size, _, top = _membership(state.board)
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
        until the next turn) are added by the effect stage. A permanent in the breeding area has
        its printed DP: no effect reaches it, its own included (:data:`IN_BATTLE_AREA`).

        Args:
          battling: optional int32[2, S], the number of digivolution cards of the opponent's
            Digimon each permanent is battling (-1: not in a battle), for the
            ``battling_no_source_digimon`` condition.
        """
        board = state.board
        num_flat = 2 * NUM_SLOTS
        card_slot, size, is_top, top = _membership(board)
        on_field = card_slot >= 0
        card_size = jnp.where(on_field, size[jnp.maximum(card_slot, 0)], 0)  # [C]
        under = on_field & ~is_top
        # Cards in the breeding area: their effects do not activate (IN_BATTLE_AREA).
        in_battle = on_field & jnp.asarray(IN_BATTLE_AREA)[card_slot % NUM_SLOTS]
        definition = board.definition
        card = lambda name: self.cards[name][definition]  # noqa: E731  [C] or [C, R]
        kind = jnp.where(size > 0, card("kind")[jnp.maximum(top, 0)], -1)  # [2S]
        owner = jnp.where(on_field, card_slot // NUM_SLOTS, -1)  # [C]

        # Keywords: the top card's own, plus inherited keywords of the cards under it.
        card_kw = jnp.where(
            is_top,
            card("keywords").astype(jnp.int32),
            jnp.where(under, card("inherited_keywords").astype(jnp.int32), 0),
        )  # [C] keyword bits
        keywords = _keywords_per_slot(card_slot, card_kw)  # [2S, K]
        # Keywords granted for a duration (lasting rows): kept while the permanent stays.
        keywords = keywords | self._granted_keywords(state).reshape(num_flat, len(KEYWORDS))
        # Each card's permanent's keywords as bits (for ``has_keyword``): one [C] gather of the
        # packed [2S] words instead of a [C, K] gather of flags.
        slot_bits = jnp.sum(keywords.astype(jnp.int32) << jnp.arange(len(KEYWORDS)), axis=-1)
        card_bits = slot_bits[jnp.maximum(card_slot, 0)]  # [C]

        # Continuous effect rows, per card: [C, Rc] (``_continuous``: each definition's
        # continuous rows, Rc the most any card has; 1 for the shipped cards).
        cont = lambda name: jnp.asarray(self._continuous[name])[definition]  # noqa: E731
        where = cont("where")
        placed = (is_top[:, None] & (where == WHERE_MAIN)) | (under[:, None] & (where == WHERE_INH))
        active = state.board.active_player.astype(jnp.int32)
        my_turn = owner == active  # [C]
        window = cont("window")
        window_ok = _in_window(window, my_turn[:, None])
        sources = jnp.maximum(card_size - 1, 0)  # digivolution cards under the top, per card
        digimon_slot = (kind == DIGIMON).reshape(2, NUM_SLOTS)
        # "The opponent has a Digimon with no digivolution cards" counts the battle area only.
        no_source = jnp.any(
            digimon_slot & (size.reshape(2, NUM_SLOTS) == 1) & IN_BATTLE_AREA, axis=1
        )  # [2]
        opp_has_no_source = no_source[jnp.clip(1 - owner, 0, 1)]  # [C]
        battle = jnp.full(num_flat, -1) if battling is None else battling.reshape(-1)
        card_battle = jnp.where(on_field, battle[jnp.maximum(card_slot, 0)], -1)
        condition = cont("condition")
        value = cont("condition_value").astype(jnp.int32)
        security = jnp.stack([zones.zone_count(board, zone_of("security", p)) for p in range(2)])
        own_security = security[jnp.clip(owner, 0, 1)][:, None]  # [C, 1]
        their_security = security[jnp.clip(1 - owner, 0, 1)][:, None]  # [C, 1]
        trash = jnp.stack([zones.zone_count(board, zone_of("trash", p)) for p in range(2)])
        own_trash = trash[jnp.clip(owner, 0, 1)][:, None]  # [C, 1]
        hand = jnp.stack([zones.zone_count(board, zone_of("hand", p)) for p in range(2)])
        own_hand = hand[jnp.clip(owner, 0, 1)][:, None]  # [C, 1]
        # Each card's permanent's level: its top card's (0 off the field).
        level = jnp.where(size > 0, card("level")[jnp.maximum(top, 0)], 0)  # [2S]
        card_level = jnp.where(on_field, level[jnp.maximum(card_slot, 0)], 0).astype(jnp.int32)
        top_level = _highest_battle_level(
            kind.reshape(2, NUM_SLOTS), size.reshape(2, NUM_SLOTS), level.reshape(2, NUM_SLOTS)
        )  # [2]
        opp_level = top_level[jnp.clip(1 - owner, 0, 1)][:, None]  # [C, 1]
        cond_ok = (
            (condition == COND_NONE)
            | ((condition == COND_MIN_SOURCES) & (sources[:, None] >= value))
            | ((condition == COND_OPP_NO_SOURCE) & opp_has_no_source[:, None])
            | ((condition == COND_BATTLING_NO_SOURCE) & (card_battle == 0)[:, None])
            | ((condition == COND_SECURITY_AT_LEAST) & (own_security >= value))
            | ((condition == COND_SECURITY_AT_MOST) & (own_security <= value))
            | ((condition == COND_HAS_KEYWORD) & (((card_bits[:, None] >> value) & 1) == 1))
            | ((condition == COND_LEVEL_AT_LEAST) & (card_level[:, None] >= value))
            | ((condition == COND_TRASH_AT_LEAST) & (own_trash >= value))
            | ((condition == COND_HAND_AT_LEAST) & (own_hand >= value))
            | ((condition == COND_HAND_AT_MOST) & (own_hand <= value))
            | ((condition == COND_SECURITY_AT_MOST_OPPONENTS) & (own_security <= their_security))
            | ((condition == COND_OPP_LEVEL_AT_LEAST) & (opp_level >= value))
        )
        row = cont("row")  # [C, Rc], -1: no continuous row there
        live_cont = (row >= 0) & placed & window_ok & cond_ok & in_battle[:, None]
        amount = cont("amount").astype(jnp.int32)
        amount = jnp.where(
            cont("amount_per") == PER_TWO_SOURCES, for_each(amount, sources[:, None], 2), amount
        )
        op, target = cont("op"), cont("target")
        num_rows = self.cards["effects.where"].shape[-1]
        live = jnp.any(
            live_cont[:, :, None] & (row[:, :, None] == jnp.arange(num_rows)), axis=1
        )  # [C, R]

        def gather(op_id):
            to_self = jnp.sum(
                jnp.where(live_cont & (op == op_id) & (target == TARGET_SELF), amount, 0), 1
            )
            to_all = jnp.sum(
                jnp.where(live_cont & (op == op_id) & (target == TARGET_ALL_OWN), amount, 0), 1
            )  # [C]
            per_slot = _per_slot(card_slot, to_self)  # [2S]
            aura = jnp.stack([sum_along(jnp.where(owner == p, to_all, 0)) for p in range(2)])
            # An aura ("all your Digimon") lifts the battle area, never the breeding area.
            bonus = per_slot.reshape(2, NUM_SLOTS) + jnp.where(IN_BATTLE_AREA, aura[:, None], 0)
            return jnp.where(digimon_slot, bonus, 0), to_self

        dp_bonus, dp_by_card = gather(OP_DP)
        # "Your Security Digimon get +N DP" while the card is in play (a Tamer's aura).
        to_security = jnp.sum(
            jnp.where(live_cont & (op == OP_DP) & (target == TARGET_SECURITY), amount, 0), 1
        )  # [C]
        security_dp = jnp.stack(
            [sum_along(jnp.where(owner == p, to_security, 0)) for p in range(2)]
        )
        sa_bonus, _ = gather(OP_SECURITY_ATTACK)
        # "This Digimon cannot ..." (a continuous restrict row on itself): each bit held by any
        # card of the permanent's stack whose row is in force.
        # Host-known: without such a row in the card file every permanent's bits are 0.
        cannot = jnp.zeros((2, NUM_SLOTS), jnp.int32)
        if np.any((self._continuous["op"] == OP_RESTRICT) & (self._continuous["row"] >= 0)):
            bits = jnp.where(
                live_cont & (op == OP_RESTRICT) & (target == TARGET_SELF),
                cont("cannot").astype(jnp.int32),
                0,
            )  # [C, Rc]
            bit = jnp.asarray(
                [CANNOT_ATTACK, CANNOT_BLOCK, CANNOT_ATTACK_PLAYER, CANNOT_BE_BLOCKED]
            )
            held = jnp.any((bits[:, :, None] & bit) != 0, axis=1).astype(jnp.int32)  # [C, 4]
            per_slot = jnp.sum(_per_slot(card_slot, held, "max") * bit, axis=1)  # [2S]
            cannot = jnp.where(digimon_slot, per_slot.reshape(2, NUM_SLOTS), 0)
        # "May digivolve into [Name]" (digivolve_into) in force on a top card: host-known, only
        # when the card file has such a row.
        special = jnp.zeros((2, NUM_SLOTS), jnp.bool_)
        if self._has_special:
            on = jnp.any(live_cont & (op == OP_DIGIVOLVE_INTO), axis=1) & is_top  # [C]
            special = _per_slot(card_slot, on.astype(jnp.int32), "max").reshape(2, NUM_SLOTS) > 0
        dp_bonus = dp_bonus + jnp.where(digimon_slot, self._lasting(state, LASTING_DP), 0)
        sa_bonus = sa_bonus + jnp.where(digimon_slot, self._lasting(state, LASTING_SA), 0)
        printed = jnp.where(size > 0, card("dp")[jnp.maximum(top, 0)], 0).astype(jnp.int32)
        # [Once Per Turn] rows of each card in its current role: [C, R] (the observation's).
        rows = jnp.arange(num_rows)
        valid = rows[None, :] < card("effects.num_rows")[:, None]
        where_all = card("effects.where")
        role = (is_top[:, None] & (where_all == WHERE_MAIN)) | (
            under[:, None] & (where_all == WHERE_INH)
        )
        opt = valid & role & ((card("effects.flags").astype(jnp.int32) & FLAG_OPT) != 0)
        used = ((state.opt_used.astype(jnp.int32)[:, None] >> rows[None, :]) & 1) == 1
        return Permanents(
            top=top.reshape(2, NUM_SLOTS),
            size=size.reshape(2, NUM_SLOTS),
            kind=kind.reshape(2, NUM_SLOTS),
            dp=jnp.maximum(printed.reshape(2, NUM_SLOTS) + dp_bonus, 0),
            keywords=keywords.reshape(2, NUM_SLOTS, len(KEYWORDS)),
            security_attack=sa_bonus,
            card_dp=jnp.where(on_field, dp_by_card, 0),
            card_opt=jnp.sum(opt, axis=1, dtype=jnp.int32),
            card_opt_used=jnp.sum(opt & used, axis=1, dtype=jnp.int32),
            live_rows=live,
            security_dp=security_dp.astype(jnp.int32),
            cannot=cannot,
            digivolve_into=special,
        )

    def _definition(self, state: DigimonState, card: jax.Array) -> jax.Array:
        """Definition index of card instance(s) ``card`` (-1 gives the padding definition 0)."""
        return jnp.where(card >= 0, state.board.definition[jnp.maximum(card, 0)], 0)

    def _card(self, state: DigimonState, name: str, card: jax.Array) -> jax.Array:
        """Registry column ``name`` of card instance(s) ``card`` (-1 reads the padding row)."""
        return self.cards[name][self._definition(state, card)]

    # -- transitions -------------------------------------------------------------------------------

    def apply(
        self, state: DigimonState, action: jax.Array, key: jax.Array
    ) -> tuple[DigimonState, jax.Array]:
        """Apply a legal action, then let the game run until the next decision. Returns
        ``(state, rewards float32[2])``. ``key``: a PRNG key for the action's chance events (the
        shuffle of a mulligan's redraw; nothing else in the game is random after the deal).

        The action itself is one of 12 kinds (play, digivolve, attack, select, ...), each run
        only when some game of the batch chose it (:func:`tcgjax.core.tree.when_any`); what
        follows it is one loop of *micro-steps* (:meth:`_run`): resolve one queued effect row,
        trash a used Option, advance the attack in progress by one stage or security check, end
        the turn, or run the automatic phases of the next one. Every rule that happens "by
        itself" is written once there, whatever action led to it."""
        layout = A.LAYOUT
        phase = state.board.phase
        block = phase == PHASE["block_timing"]
        counter = phase == PHASE["counter_timing"]
        selecting = state.selection.card >= 0
        stage = state.selection.stage
        attack_range = (action >= layout.start("attack")) & (action < layout.start("digivolve"))
        kind = jnp.select(
            [
                selecting & (stage == CHOICE_ORDER),
                selecting & (stage == CHOICE_MULLIGAN),
                selecting,
                (block | counter) & (action == layout.start("pass")),
                block & attack_range,
                action < layout.start("trash_hand"),
                action == layout.start("hatch"),
                action == layout.start("move_breeding"),
                action == layout.start("pass"),
                (action >= layout.start("digivolve")) & (action < layout.start("activate")),
                attack_range,
                (action >= layout.start("dna")) & (action < layout.start("unused")),
                (action >= layout.start("activate")) & (action < layout.start("source")),
            ],
            [12, 13, 9, 0, 1, 2, 3, 4, 5, 6, 7, 10, 11],
            8,
        )
        branches = (
            self._decline,
            self._block,
            self._play,
            self._hatch,
            self._move,
            self._pass,
            self._digivolve,
            self._attack,
            self._noop,
            self._select,
            self._dna,
            self._activate,
            self._order,
        )
        over = state.winner >= 0
        before = state
        # Each kind runs only for the games of the batch that chose it (``when_some``): the kinds
        # exclude each other, so each game gets exactly its own branch.
        for index, branch in enumerate(branches):
            state = when_some(kind == index, branch, state, action)
        state = when_some(kind == len(branches), self._mulligan, state, action, key)
        # Rules processing after the action (a chosen -DP target at 0 DP is deleted) opens the
        # automatic play. A finished game never changes (nothing is legal in it).
        state = tree_where(over, before, self._run(state))
        winner = state.winner.astype(jnp.int32)
        rewards = jnp.where(
            (winner < 0) | (winner == 2), 0.0, jnp.where(jnp.arange(2) == winner, 1.0, -1.0)
        )
        return state, rewards.astype(jnp.float32)

    # -- invariants (host side) ------------------------------------------------------------------

    @property
    def invariants(self) -> InvariantTable:
        """The ordered table of what every reachable state satisfies
        (:func:`tcgjax.games.digimon.invariants.build_invariants`), built once per rules object."""
        from tcgjax.games.digimon.invariants import build_invariants

        table = self.__dict__.get("_invariant_table")
        if table is None:
            table = self.__dict__["_invariant_table"] = build_invariants(self)
        return table

    def validate(self, state: DigimonState) -> None:
        """Raise ``InvalidStateError(path, problem)`` if ``state`` is not reachable: the first row
        of :attr:`invariants` (:mod:`tcgjax.games.digimon.invariants`, one per rule, every field
        named) it breaks.

        Card conservation: each player holds exactly their deck's cards, each card in a zone of its
        owner or a shared zone; Digi-Eggs never in the deck, hand or security; dense pile orders;
        what a digivolution stack may hold; memory within ±10; an empty permanent slot is neither
        suspended nor dated; the turn and its parity; a game that goes on waits in a decision
        phase; a pending selection exactly in the selection phases, its record consistent; an
        attack recorded exactly during the attack timings or a selection that paused it; the
        effect queue and the timed modifiers well formed; once-per-turn uses only for rows the
        card has; the winner agrees with the end reason and how the game ended.
        """
        from tcgjax.games.digimon.invariants import facts

        self.invariants.validate(facts(self, state))

    def facts(self, state: DigimonState):
        """The host view of one state the invariants read
        (:class:`tcgjax.games.digimon.invariants.Facts`)."""
        from tcgjax.games.digimon.invariants import facts

        return facts(self, state)
