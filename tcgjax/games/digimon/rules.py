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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax.core import zones
from tcgjax.core.arrays import any_along, materialize, min_along, sum_along, take, take_static
from tcgjax.core.board import Board, BoardLayout, new_board
from tcgjax.core.cards import CardRegistry
from tcgjax.core.effects import EffectQueue, Selection
from tcgjax.core.errors import FIRST_GAME_CODE, ConfigError, RuleError
from tcgjax.core.invariants import InvariantTable
from tcgjax.core.tree import tree_where, when_any, when_some
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.cards import (
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
# The battle-area slots among the permanent slots. A Digimon in the breeding area is out of reach
# of effects: its own effects do not activate and other cards' effects neither count, target nor
# modify it (the official General Rules), so every effect reads this mask.
IN_BATTLE_AREA = np.arange(NUM_SLOTS) < A.FIELD_SLOTS
ONGOING = -1
END_REASONS = ("none", "security_attack", "deck_out", "simultaneous_loss", "illegal_action")
END_NONE, END_SECURITY, END_DECK_OUT, END_DRAW, END_ILLEGAL = range(5)
PASS_MEMORY = 3  # passing puts the gauge on 3 on the opponent's side
QUEUE_SIZE = 8  # triggered effect rows waiting at once
LASTING_SIZE = 8  # timed modifiers in force at once (the oldest is overwritten beyond)
MAX_DRAW = MAX_AMOUNT  # largest <Draw N> and <Recovery +N (Deck)> (card validation enforces it)
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
    RuleError("no_activated_effect", "no [Main] effect row of that index on that permanent"),
    RuleError("used_this_turn", "a [Once Per Turn] effect already used this turn"),
    RuleError("no_dna_requirement", "only a Digimon card with DNA requirements DNA digivolves"),
    RuleError(
        "no_dna_materials", "DNA needs two of your battle-area Digimon, one per DNA requirement"
    ),
    RuleError(
        "not_blast_digivolve",
        "in the counter timing only a hand card with <Blast Digivolve> digivolves (onto a Digimon)",
    ),
    RuleError(
        "not_enough_sources", "<Digi-Burst N> needs N digivolution cards under the Digimon to trash"
    ),
)
CODES = {e.name: FIRST_GAME_CODE + i for i, e in enumerate(RULE_ERRORS)}
# The mask's codes are computed in this dtype (``action_errors``): every code must fit.
_CODE_DTYPE = jnp.int8
assert max(CODES.values()) <= jnp.iinfo(_CODE_DTYPE).max


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
      queue: the core's :class:`~tcgjax.core.effects.EffectQueue` (``Q`` entries): triggered
        effect rows waiting to resolve, in order (card instance, effect row, the permanent slot it
        acts from; -1 = empty entry, entries packed at the front). The controller is the card's
        owner.
      lasting_kind: int8[L] — timed modifiers: 0 none, 1 DP, 2 <Security A.>; with
        ``lasting_player`` (int8, whose Digimon), ``lasting_slot`` (int8, a battle slot, or -1 for
        all of that player's Digimon), ``lasting_amount`` (int16) and ``lasting_expires`` (int16: the
        turn number at whose end it ends); kind 3 is a restriction whose ``amount`` holds the
        ``cannot`` bits (attack, block).
      selection: the core's :class:`~tcgjax.core.effects.Selection` (the spec's
        ``PendingSelection``): the effect row being resolved (``card`` -1 when none), the ``slot``
        it acts from (in SelectMaterial: the first material picked, -1 before), how many choices
        are ``left``, and the phase to ``resume``; ``stage`` and ``picked`` stay unused.
      attack_stage: int8[] — where the attack in progress is (``ATTACK_STAGES``): -1 none,
        0 declared (its [When Attacking] rows resolve, then the defender's first timing), 1 the
        first timing is over (the second next), 2 the timings are over (the battle or the first
        security check comes next), 3 security checks.
      checks_left: int8[] — security checks still to make in this attack.
      checking: int16[] — the security card being checked (in ``revealed`` while its [Security]
        rows resolve), -1 when none.
      opt_used: uint8[C] — per card instance, bit ``r``: its effect row ``r`` (once per turn) has
        been used this turn; cleared when a turn begins.
      end_fired: bool[] — the turn player's [End of Your Turn] rows fired this turn (they fire
        once: if they bring the gauge back to their side the turn goes on, and the next end of
        the turn does not fire them again).
      attacked: bool[] — the turn player declared an attack with a Digimon this turn (the
        ``opponent_did_not_attack`` condition; an attack counts once declared, whatever follows).
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
    queue: EffectQueue
    lasting_kind: jax.Array
    lasting_player: jax.Array
    lasting_slot: jax.Array
    lasting_amount: jax.Array
    lasting_expires: jax.Array
    selection: Selection
    attack_stage: jax.Array
    checks_left: jax.Array
    checking: jax.Array
    opt_used: jax.Array
    end_fired: jax.Array
    attacked: jax.Array


def empty_effects(num_cards: int) -> dict[str, jax.Array]:
    """The effect fields of a state with nothing queued and no timed modifier."""
    return dict(
        queue=EffectQueue.empty(QUEUE_SIZE),
        lasting_kind=jnp.zeros(LASTING_SIZE, jnp.int8),
        lasting_player=jnp.full(LASTING_SIZE, -1, jnp.int8),
        lasting_slot=jnp.full(LASTING_SIZE, -1, jnp.int8),
        lasting_amount=jnp.zeros(LASTING_SIZE, jnp.int16),
        lasting_expires=jnp.full(LASTING_SIZE, -1, jnp.int16),
        selection=Selection.none(),
        attack_stage=jnp.int8(-1),
        checks_left=jnp.int8(0),
        checking=jnp.int16(-1),
        opt_used=jnp.zeros(num_cards, jnp.uint8),
        end_fired=jnp.bool_(False),
        attacked=jnp.bool_(False),
    )


class Permanents(NamedTuple):
    """Derived facts of every permanent slot ``[2, S]`` (``keywords``: bool ``[2, S, K]``), and
    per card ``[C]``: the DP a digivolution card (or top card) contributes to its own permanent,
    its number of once-per-turn effect rows in its current role and how many of those have been
    used this turn; ``live_rows`` bool ``[C, R]``: its continuous rows in force now;
    ``security_dp`` int32 ``[2]``: the DP each player's Security Digimon get from continuous
    rows (a Tamer's aura on "your Security Digimon")."""

    top: jax.Array
    size: jax.Array
    kind: jax.Array
    dp: jax.Array
    keywords: jax.Array
    security_attack: jax.Array
    card_dp: jax.Array
    card_opt: jax.Array
    card_opt_used: jax.Array
    live_rows: jax.Array
    security_dp: jax.Array


KW = {name: i for i, name in enumerate(KEYWORDS)}
WHERE_MAIN, WHERE_INH = WHERE.index("main"), WHERE.index("inherited")
WINDOW_ALL, WINDOW_YOURS, WINDOW_THEIRS = (WINDOWS.index(w) for w in WINDOWS)
TRIGGER_CONTINUOUS = TRIGGERS.index("continuous")
(
    COND_NONE,
    COND_MIN_SOURCES,
    COND_OPP_NO_SOURCE,
    COND_BATTLING_NO_SOURCE,
    COND_SECURITY_AT_LEAST,
    COND_SECURITY_AT_MOST,
    COND_HAS_KEYWORD,
    COND_OPP_DID_NOT_ATTACK,
) = range(len(CONDITIONS))
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
MAX_TRASHED_SOURCES = MAX_AMOUNT
OP_MEMORY, OP_DRAW, OP_UNSUSPEND = OPS.index("memory"), OPS.index("draw"), OPS.index("unsuspend")
DURATION_CONTINUOUS, DURATION_THIS_TURN, DURATION_OPP_NEXT, DURATION_YOUR_NEXT = range(4)
TRIGGER = {name: i for i, name in enumerate(TRIGGERS)}
WHERE_SECURITY = WHERE.index("security")
OP_SUSPEND, OP_PLAY_SELF = OPS.index("suspend"), OPS.index("play_self")
OP_ACTIVATE_MAIN, OP_PLAY_FROM_SOURCES = OPS.index("activate_main"), OPS.index("play_from_sources")
OP_RECOVERY, OP_DE_DIGIVOLVE = OPS.index("recovery"), OPS.index("de_digivolve")
TARGET_SECURITY = TARGETS.index("own_security_digimon")
TARGET_ALL_OPP = TARGETS.index("all_opponent_digimon")
OP_ADD_SELF_TO_HAND = OPS.index("add_self_to_hand")
OP_GRANT_KEYWORD = OPS.index("grant_keyword")
FLAG_COST_SUSPEND_SELF = 1 << EFFECT_FLAGS.index("cost_suspend_self")
LASTING_SECURITY_DP = 4  # DP of a player's Security Digimon (checked cards), slot -1
LASTING_KEYWORD = 5  # keywords granted for a duration (amount: keyword bits)
LASTING_KINDS = 5  # the largest lasting kind
ATTACK_STAGES = ("declared", "first_timing_over", "timings_over", "security_checks")
STAGE_NONE, STAGE_DECLARED, STAGE_FIRST_TIMING_OVER, STAGE_TIMINGS_OVER, STAGE_CHECKS = range(-1, 4)
MEMORY_RULES = ("official", "spec")  # G1
TIMING_ORDERS = ("official", "spec")  # G7: counter then block (official), block then counter
# G10: simultaneous triggers in their controller's chosen order (official), or in the fixed order.
TRIGGER_ORDERS = ("chosen", "fixed")
# What a pending selection waits on (``Selection.stage``) and the mulligan's ids: the action
# layout's (``actions.SELECTION_STAGES``: an effect row's choice, the order of simultaneous
# triggers, the mulligan; G10).
CHOICE_ROW, CHOICE_ORDER, CHOICE_MULLIGAN = A.CHOICE_ROW, A.CHOICE_ORDER, A.CHOICE_MULLIGAN
SELECTION_STAGES, KEEP_HAND, REDRAW_HAND = A.SELECTION_STAGES, A.KEEP_HAND, A.REDRAW_HAND
DECISION_PHASES = ("breeding", "main", "counter_timing", "block_timing", *A.SELECTION_PHASES)
OP_RETURN_TO_DECK, OP_REVEAL_ADD = OPS.index("return_to_deck"), OPS.index("reveal_add")
OP_TRASH_FROM_HAND, OP_PLAY_FREE = OPS.index("trash_from_hand"), OPS.index("play_free")
OP_TRASH_TO_HAND, OP_TRASH_SECURITY = OPS.index("trash_to_hand"), OPS.index("trash_security")
OP_CHOOSE_ONE = OPS.index("choose_one")
TARGET_PLAYER = TARGETS.index("player")
# The selection phase each op opens (-1: none; a ``choose_*`` target opens SelectTarget).
SELECTION_OF_OP = np.full(len(OPS), -1, np.int8)
for _op, _phase in (
    ("play_from_sources", "select_source"),
    ("reveal_add", "select_reveal"),
    ("trash_from_hand", "select_hand"),
    ("play_free", "select_hand"),
    ("trash_to_hand", "select_trash"),
    ("trash_security", "select_security"),
    ("choose_one", "select_effect_choice"),
):
    SELECTION_OF_OP[OPS.index(_op)] = PHASE[_phase]
TRASH_SLOTS = 50  # SelectTrash ids 130-179 address the first 50 trash positions (spec)
SECURITY_SLOTS = 10  # SelectSecurity ids 40-49 / 50-59: the top 10 cards of a security stack
REVEAL_SLOTS = 10  # SelectReveal ids 30-39
MAX_MICRO_STEPS = 96  # bound of the automatic-play loop of one `apply` (never reached in play)
# The kinds of micro-step (``DigimonRules._work_kind``), in priority order.
WORK_RESOLVE, WORK_TRASH_OPTION, WORK_ATTACK, WORK_END_TURN, WORK_TURN_START = range(5)


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
    per flat slot ``[2S]``: the stack size and the top card (-1 when empty).

    Scatters of the ``C`` cards into the ``2S`` slots (off-field cards land in a dropped extra
    entry), not a ``[C, 2S]`` one-hot: the one-hot's reductions over ``C`` were the largest
    kernels of a step under ``vmap`` (the game README's performance log)."""
    num_flat = 2 * NUM_SLOTS
    card_slot = jnp.asarray(ZONE_SLOT)[board.zone.astype(jnp.int32)]
    on_field = card_slot >= 0
    size = _per_slot(card_slot, jnp.ones_like(card_slot))
    card_size = jnp.where(on_field, size[jnp.maximum(card_slot, 0)], 0)
    is_top = on_field & (board.position.astype(jnp.int32) == card_size - 1)
    cards = jnp.arange(card_slot.shape[0], dtype=jnp.int32)
    top_dest = jnp.where(is_top, card_slot, num_flat)
    top = jnp.full(num_flat + 1, -1, jnp.int32).at[top_dest].set(cards)[:num_flat]
    return card_slot, size, is_top, top


def _per_slot(card_slot: jax.Array, values: jax.Array, combine: str = "add") -> jax.Array:
    """``values`` (``[C]`` or ``[C, K]``) of the cards on the field, combined per flat slot
    (``"add"`` or ``"max"``): ``[2S]`` or ``[2S, K]`` (a scatter, see :func:`_membership`)."""
    num_flat = 2 * NUM_SLOTS
    dest = jnp.where(card_slot >= 0, card_slot, num_flat)
    out = jnp.zeros((num_flat + 1,) + values.shape[1:], values.dtype).at[dest]
    return (out.add(values) if combine == "add" else out.max(values))[:num_flat]


def _keywords_per_slot(card_slot: jax.Array, card_bits: jax.Array) -> jax.Array:
    """bool[2S, K]: whether any card of each flat slot has each keyword, from the cards' keyword
    bits (int32[C]). Each keyword gets an 8-bit counter field, four to an int32 word (a game has
    at most 2 x (50 + 5) = 110 cards, so no field reaches 128 nor the sign bit), and each word is one
    scatter-add of ``[C]``: a scatter-max of the ``[C, K]`` flags cost ~3.5x as much under vmap
    on the CPU (a scatter's cost is per updated element)."""
    assert card_slot.shape[0] < 128, "8-bit keyword counters need fewer than 128 cards"
    num_words = -(-len(KEYWORDS) // 4)
    found = []
    for word in range(num_words):
        fields = range(4 * word, min(4 * word + 4, len(KEYWORDS)))
        packed = sum(((card_bits >> k) & 1) << (8 * (k - 4 * word)) for k in fields)
        counts = _per_slot(card_slot, packed)  # [2S]
        found += [((counts >> (8 * (k - 4 * word))) & 0xFF) > 0 for k in fields]
    return jnp.stack(found, axis=-1)


def _row_table(cards: CardRegistry, trigger: int, columns: Sequence[str]) -> dict[str, np.ndarray]:
    """Host-side table of every definition's effect rows of one ``trigger``, ``[D, Rt]`` per
    column (``row``: the row's index, -1 for padding; the named ``columns`` as in ``effects.*``),
    ``Rt`` the most such rows any definition has (at least 1). The interpreter works on these
    few rows (1 or 2 for the shipped cards) instead of all ``R`` effect rows of every card."""
    kind = np.asarray(cards.numpy["effects.trigger"])
    num_rows = np.asarray(cards.numpy["effects.num_rows"])
    has = (np.arange(kind.shape[1])[None, :] < num_rows[:, None]) & (kind == trigger)
    width = max(1, int(has.sum(axis=1).max()))
    row = np.full((kind.shape[0], width), -1, np.int32)
    for d in range(kind.shape[0]):
        found = np.flatnonzero(has[d])  # ascending: the rows keep their printed order
        row[d, : len(found)] = found
    table = {"row": row.astype(np.int8)}
    for name in columns:
        column = np.asarray(cards.numpy[f"effects.{name}"])
        table[name] = np.take_along_axis(column, np.maximum(row, 0), axis=1)
    return table


DIGIVOLVE_TABLE_ALL_CARDS = 256  # int8 [256, 256]: 64 KiB at most


def _digivolve_cost_table(
    cards: CardRegistry, used: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Host-side digivolve costs between the definitions ``used`` (0, the padding definition,
    first): ``compact`` (int16 ``[D]``: a definition's row and column in the table, 0 for the
    padding definition and those not used) and ``cost`` (int8 ``[U, U]``, ``U = len(used)``: the
    cheapest requirement row of the hand card (row) that the top card (column) meets, level equal
    and color among the top card's colors; -1 when none does). A card's requirements and a top
    card's level and colors are printed facts, so the mask reads one entry instead of matching
    rows in every game."""
    used = np.asarray(used)
    compact = np.zeros(len(cards.ids), np.int16)
    compact[used] = np.arange(len(used))
    col = lambda name: np.asarray(cards.numpy[name]).astype(np.int32)[used]  # noqa: E731
    level, colors = col("level"), col("colors")
    req_level, req_color, req_cost = (col(f"digivolve.{f}") for f in ("level", "color", "cost"))
    rows = np.arange(req_level.shape[1])[None, :] < col("digivolve.num_rows")[:, None]
    match = (
        rows[:, None, :]
        & (req_level[:, None, :] == level[None, :, None])
        & (((colors[None, :, None] >> req_color[:, None, :]) & 1) == 1)
    )  # [U hand, U top, R]
    big = 1 << 20
    best = np.min(np.where(match, req_cost[:, None, :], big), axis=-1)
    cost = np.where(best < big, best, -1)
    cost[:, 0] = cost[0, :] = -1  # the padding definition: no card
    assert cost.max() < 128, "digivolve costs fit int8"
    return compact, cost.astype(np.int8)


def _in_window(window, mine):
    """A row's window holds: [Your Turn] on its controller's turn (``mine``), [Opponent's Turn]
    on the other's, or any turn (broadcasting)."""
    return (
        (window == WINDOW_ALL)
        | ((window == WINDOW_YOURS) & mine)
        | ((window == WINDOW_THEIRS) & ~mine)
    )


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

    def __init__(
        self,
        cards: CardRegistry,
        decks: Sequence[tuple[Sequence[str], Sequence[str]]],
        *,
        memory_rule: str = "official",
        timing_order: str = "official",
        mulligan: bool = True,
        trigger_order: str = "chosen",
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
        continuous = ("where", "window", "condition", "condition_value", "amount", "amount_per")
        self._continuous = _row_table(cards, TRIGGER_CONTINUOUS, (*continuous, "op", "target"))
        self._triggered = {t: _row_table(cards, t, ("where",)) for t in range(len(TRIGGERS))}
        # Over every definition of a card file of moderate size, so that the compiled programs
        # depend on the card file only, not on the decks (switching decks, or the rule tests'
        # situations over one test registry, reuse them through the compilation cache); over the
        # decks' definitions only for a large file (an imported database), to keep it small.
        if len(cards.ids) <= DIGIVOLVE_TABLE_ALL_CARDS:
            used = list(range(len(cards.ids)))
        else:
            used = sorted({0} | {cards.index(n) for e, m in self.decks for n in (*e, *m)})
        self._compact, self._digivolve_cost = _digivolve_cost_table(cards, used)
        self._initial_board = self._initial()
        # The 0 DP rule can only find a Digimon at 0 DP when something lowers DP (a timed -DP
        # modifier, checked per state) or, for the card file as a whole, a continuous row that
        # lowers DP or a Digimon printed with 0 DP (G11; ``_zero_dp_possible``).
        kind, dp = np.asarray(cards.numpy["kind"]), np.asarray(cards.numpy["dp"])
        cont_neg = (
            (np.asarray(cards.numpy["effects.trigger"]) == TRIGGER_CONTINUOUS)
            & (np.asarray(cards.numpy["effects.op"]) == OP_DP)
            & (np.asarray(cards.numpy["effects.amount"]) < 0)
            & (
                np.arange(cards.numpy["effects.op"].shape[1])
                < np.asarray(cards.numpy["effects.num_rows"])[:, None]
            )
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
        k_first, *k_zones = jax.random.split(key, 5)
        board = self._initial_board
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
            **empty_effects(self.num_cards),
        )
        return self._ask_mulligan(state, first) if self.mulligan else state

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
        card_keywords = keywords[jnp.maximum(card_slot, 0)]  # [C, K]

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
        cond_ok = (
            (condition == COND_NONE)
            | ((condition == COND_MIN_SOURCES) & (sources[:, None] >= value))
            | ((condition == COND_OPP_NO_SOURCE) & opp_has_no_source[:, None])
            | ((condition == COND_BATTLING_NO_SOURCE) & (card_battle == 0)[:, None])
            | ((condition == COND_SECURITY_AT_LEAST) & (own_security >= value))
            | ((condition == COND_SECURITY_AT_MOST) & (own_security <= value))
            | (
                (condition == COND_HAS_KEYWORD)
                & jnp.take_along_axis(card_keywords, jnp.clip(value, 0, len(KEYWORDS) - 1), 1)
            )
        )
        row = cont("row")  # [C, Rc], -1: no continuous row there
        live_cont = (row >= 0) & placed & window_ok & cond_ok & in_battle[:, None]
        amount = cont("amount").astype(jnp.int32)
        amount = jnp.where(
            cont("amount_per") == PER_TWO_SOURCES, amount * (sources[:, None] // 2), amount
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
        )

    def _definition(self, state: DigimonState, card: jax.Array) -> jax.Array:
        """Definition index of card instance(s) ``card`` (-1 gives the padding definition 0)."""
        return jnp.where(card >= 0, state.board.definition[jnp.maximum(card, 0)], 0)

    def _card(self, state: DigimonState, name: str, card: jax.Array) -> jax.Array:
        """Registry column ``name`` of card instance(s) ``card`` (-1 reads the padding row)."""
        return self.cards[name][self._definition(state, card)]

    # -- legality ----------------------------------------------------------------------------------

    def action_errors(self, state: DigimonState) -> jax.Array:
        """Error code of every action (0 = legal) in the current phase. int32[A]."""
        # Host-known rows: every id of each range (``_range_codes`` lays them out without gathers).
        hands, rows = np.arange(A.HAND_SLOTS), np.arange(40)
        # <Blast Digivolve> rows (no row here) are evaluated below, only in a counter timing.
        no_rows = np.arange(0)
        part = self._range_codes(state, hands, hands, rows, np.arange(100), no_rows)
        parts = [
            part["play"],
            jnp.full((A.HAND_SLOTS,), CODES["wrong_phase"]),  # trash_hand: SelectHand only
            part["hatch"][None],
            part["move"][None],
            part["pass"][None],
            part["dna"],
            jnp.full((7,), CODES["unused_action"]),
            part["attack"],
            part["digivolve"],
            part["activate"],
            jnp.full((A.LAYOUT.size("source"),), CODES["wrong_phase"]),
        ]
        # The 2120 codes travel as int8 (every code is below 128: ``_CODE_DTYPE``), a quarter of
        # the memory of the largest arrays of the mask, and widen once at the end.
        codes = jnp.concatenate([jnp.asarray(x, _CODE_DTYPE).reshape(-1) for x in parts])
        # A selection's codes, and a counter timing's, only for the games of the batch in one
        # (``when_some``): the mask is computed for every game at every step.
        codes = when_some(state.selection.card >= 0, self._selection_codes, codes, state)
        counter_timing = state.board.phase == PHASE["counter_timing"]
        codes = when_some(counter_timing, self._counter_codes, codes, state)
        return codes.astype(jnp.int32)

    def _selection_codes(self, codes: jax.Array, state: DigimonState) -> jax.Array:
        del codes  # a selection replaces every code
        return self._select_errors(state).astype(_CODE_DTYPE)

    def _counter_codes(self, codes: jax.Array, state: DigimonState) -> jax.Array:
        """A counter timing's codes: 62 declines, 400-999 are the defender's <Blast Digivolve>."""
        del codes
        counter = jnp.full(A.NUM_ACTIONS, CODES["wrong_phase"], jnp.int32)
        counter = counter.at[A.LAYOUT.start("pass")].set(0)
        start, stop = A.LAYOUT.start("digivolve"), A.LAYOUT.start("activate")
        blast = self.blast_errors(state, jnp.arange(40)).astype(jnp.int32)
        return counter.at[start:stop].set(blast.reshape(-1)).astype(_CODE_DTYPE)

    def action_error(self, state: DigimonState, action: jax.Array) -> jax.Array:
        """``action_errors(state)[action]`` for one in-range id (int32[]), evaluating the rules of
        its own range at its own hand position or permanent only (``env.step`` names an illegal
        action's rule with it; the whole mask is computed once per step, for the next state)."""
        L = A.LAYOUT
        action = jnp.asarray(action, jnp.int32)
        local = lambda name: jnp.clip(action - L.start(name), 0, L.size(name) - 1)  # noqa: E731
        dig_hand, dig_field = jnp.divmod(local("digivolve"), A.FIELD_STRIDE)
        act_slot, act_row = jnp.divmod(local("activate"), A.SOURCE_STRIDE)
        one = lambda x: jnp.reshape(x, (1,))  # noqa: E731
        part = self._range_codes(
            state,
            one(local("play")),
            one(local("dna")),
            one(dig_hand),
            one(act_slot),
            one(dig_hand),
        )
        ends = lambda name: (L.start(name), L.start(name) + L.size(name))  # noqa: E731
        in_range = lambda name: (action >= ends(name)[0]) & (action < ends(name)[1])  # noqa: E731
        code = jnp.select(
            [
                in_range("play"),
                in_range("trash_hand"),
                in_range("hatch"),
                in_range("move_breeding"),
                in_range("pass"),
                in_range("dna"),
                in_range("unused"),
                in_range("attack"),
                in_range("digivolve"),
                in_range("activate"),
            ],
            [
                part["play"][0],
                CODES["wrong_phase"],
                part["hatch"],
                part["move"],
                part["pass"],
                part["dna"][0],
                CODES["unused_action"],
                part["attack"][local("attack")],
                part["digivolve"][0, dig_field],
                part["activate"][0, act_row],
            ],
            CODES["wrong_phase"],
        )
        code = jnp.where(state.selection.card >= 0, self._select_errors(state)[action], code)
        counter = jnp.select(
            [action == L.start("pass"), in_range("digivolve")],
            [0, part["blast"][0, dig_field]],
            CODES["wrong_phase"],
        )
        return jnp.where(state.board.phase == PHASE["counter_timing"], counter, code).astype(
            jnp.int32
        )

    def _range_codes(
        self, state: DigimonState, play_at, dna_at, digivolve_at, activate_at, blast_at
    ) -> dict[str, jax.Array]:
        """The codes of the decision ranges outside selections, each evaluated at the given rows
        only (int vectors): ``play`` ``[n]`` and ``dna`` ``[n]`` at hand positions,
        ``digivolve`` ``[n, 15]`` at hand rows (0-39: rows 30+ name no card), ``activate``
        ``[n, 10]`` at permanent indices (0-99), ``blast`` ``[n, 15]`` (the defender's
        <Blast Digivolve>) at hand rows; and whole: ``hatch``, ``move``, ``pass`` (scalars),
        ``attack`` ``[300]``. :meth:`action_errors` asks for every row, :meth:`action_error`
        for one: both read the same rules."""
        board = state.board
        me = board.active_player.astype(jnp.int32)
        phase = board.phase.astype(jnp.int32)
        main, breeding = phase == PHASE["main"], phase == PHASE["breeding"]
        block = phase == PHASE["block_timing"]
        top, size = self.stacks(state)
        my_top, my_size = jnp.where(me == 0, top[0], top[1]), jnp.where(me == 0, size[0], size[1])
        field_full = jnp.all(my_size[: A.FIELD_SLOTS] > 0)
        afford = lambda cost: cost <= state.memory.astype(jnp.int32) + self._reach  # noqa: E731
        hand = self.hand(state, me)  # [H]

        def at_hand(rows):
            # Host-known rows (the whole mask) are laid out without a gather (``take``).
            xnp = np if isinstance(rows, np.ndarray) else jnp
            return jnp.where(
                rows < A.HAND_SLOTS, take(hand, xnp.clip(rows, 0, A.HAND_SLOTS - 1)), -1
            )

        cards = at_hand(play_at)
        kind = self._card(state, "kind", cards)
        play = _first_error(
            (~main, "wrong_phase"),
            (cards < 0, "no_card_in_hand_slot"),
            ((kind != DIGIMON) & (kind != TAMER) & (kind != OPTION), "cannot_play_kind"),
            ((kind == OPTION) & ~self._colors_ok(state, me, cards), "option_color_missing"),
            (~afford(self._card(state, "play_cost", cards).astype(jnp.int32)), "not_enough_memory"),
            # An Option never enters the battle area, so it needs no free slot.
            (field_full & (kind != OPTION), "battle_area_full"),
        )

        # Digivolve: [n, 15] (field indices 13, 14 unused), requirement rows matched elementwise.
        # For the whole mask, worked out once per real hand position (``materialize``) and then
        # laid out on the 40 id rows, rather than recomputed for each id.
        whole = isinstance(digivolve_at, np.ndarray)
        cards = at_hand(np.arange(A.HAND_SLOTS) if whole else digivolve_at)  # [n]
        kind = self._card(state, "kind", cards)
        cost = self.digivolve_costs(state, cards, my_top)  # [n, S], -1 = no requirement matches
        target_kind = self._card(state, "kind", my_top)  # [S]
        card_code = _first_error(
            (~main, "wrong_phase"),
            (cards < 0, "no_card_in_hand_slot"),
            (kind != DIGIMON, "not_a_digimon"),
        )  # [n]
        no_target = materialize(~(my_size > 0))[None, :]  # per target, worked out once
        not_digimon = materialize((target_kind != DIGIMON) & (target_kind != DIGI_EGG))[None, :]
        target_code = _first_error(
            (no_target, "no_permanent_there"),
            (not_digimon | (cost < 0), "requirement_not_met"),
            (~afford(cost), "not_enough_memory"),
        )
        unused = jnp.full((cost.shape[0], A.FIELD_STRIDE - NUM_SLOTS), CODES["no_permanent_there"])
        target_code = jnp.concatenate([target_code, unused], axis=1)  # [n, 15]
        card_code = materialize(card_code)[:, None]
        digivolve = jnp.where(card_code != 0, card_code, target_code)
        if whole:
            digivolve = take_static(
                materialize(digivolve), np.minimum(digivolve_at, A.HAND_SLOTS - 1)
            )
        # Hand rows 30-39 exist in the id layout but never hold a card, in any phase.
        digivolve = jnp.where(
            (digivolve_at < A.HAND_SLOTS)[:, None], digivolve, CODES["no_card_in_hand_slot"]
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
        return {
            "play": play,
            "digivolve": digivolve,
            "hatch": hatch,
            "move": move,
            "pass": _first_error((~(main | breeding | block), "wrong_phase")),
            "dna": self._dna_errors(state, at_hand(dna_at), main, afford, my_top),
            "attack": self._attack_errors(state, main, block).reshape(-1),
            "activate": self._activate_errors(state, main, my_top, activate_at, my_size),
            "blast": self.blast_errors(state, blast_at),
        }

    def blast_errors(self, state: DigimonState, rows: jax.Array | None = None) -> jax.Array:
        """Codes of the defender's <Blast Digivolve> ids ``[40, 15]`` (hand, field) in a counter
        timing: a hand card with the keyword onto one of their battle-area Digimon whose top card
        meets a digivolve requirement, free of cost (whatever the current phase). ``rows``
        (int ``[n]``, hand rows 0-39): only those rows, ``[n, 15]``."""
        rows = jnp.arange(40) if rows is None else rows
        defender = 1 - state.board.active_player.astype(jnp.int32)
        their_hand = self.hand(state, defender)  # [H]
        hand = jnp.where(rows < A.HAND_SLOTS, their_hand[jnp.clip(rows, 0, A.HAND_SLOTS - 1)], -1)
        top, size = self.stacks(state)
        their_top = jnp.where(defender == 0, top[0], top[1])
        their_size = jnp.where(defender == 0, size[0], size[1])
        cost = self.digivolve_costs(state, hand, their_top)  # [n, S]
        bit = 1 << KW["blast_digivolve"]
        blast = (self._card(state, "keywords", hand).astype(jnp.int32) & bit) != 0
        field = jnp.arange(A.FIELD_STRIDE)
        safe = jnp.minimum(field, NUM_SLOTS - 1)
        on_field = (field < A.FIELD_SLOTS) & (their_size[safe] > 0)
        is_digimon = self._card(state, "kind", their_top)[safe] == DIGIMON
        codes = _first_error(
            (hand[:, None] < 0, "no_card_in_hand_slot"),
            (~blast[:, None], "not_blast_digivolve"),
            (~on_field[None, :], "no_permanent_there"),
            (~is_digimon[None, :] | (cost[:, safe] < 0), "requirement_not_met"),
        )  # [n, 15]
        return codes

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
        attacker_in_range = np.arange(20) < A.FIELD_SLOTS
        # Host-known index layouts (``take_static``: no gather that would keep the batch axis in
        # the middle under vmap).
        a = np.minimum(np.arange(20), A.FIELD_SLOTS - 1)
        t = np.minimum(np.arange(A.FIELD_STRIDE), A.FIELD_SLOTS - 1)
        rush = take_static(mine(perm.keywords)[:, KW["rush"]], a)
        fresh = take_static(mine(state.entered_turn), a) >= state.board.turn_number
        target_ok = (np.arange(A.FIELD_STRIDE) == A.TARGET_PLAYER) | (
            (np.arange(A.FIELD_STRIDE) < A.FIELD_SLOTS)
            & (take_static(theirs(perm.kind), t) == DIGIMON)
            & take_static(theirs(state.suspended), t)
        )
        # Per attacker, then per target, each worked out once (``materialize`` keeps XLA from
        # recomputing them for each of the 300 ids); the first failing check in that order.
        attacker_code, target_code = map(
            materialize,
            (
                _first_error(
                    (~main, "wrong_phase"),
                    (~attacker_in_range | (take_static(mine(perm.kind), a) != DIGIMON),
                     "no_attacker"),
                    (take_static(mine(state.suspended), a), "attacker_suspended"),
                    (fresh & ~rush, "attacked_this_turn_entry"),
                    (take_static(mine(self.restricted(state, CANNOT_ATTACK)), a), "cannot_attack"),
                ),
                _first_error((~target_ok, "bad_attack_target")),
            ),
        )  # fmt: skip
        attack = jnp.where(
            attacker_code[:, None] != 0, attacker_code[:, None], target_code[None, :]
        )
        blockers = materialize(self.blockers(state, perm))  # [12] of the defender
        # Block timing: ids 100-111 pick the blocker at that field index.
        block_code = jnp.concatenate(
            [
                jnp.where(blockers, 0, CODES["not_a_blocker"]),
                jnp.full(20 * A.FIELD_STRIDE - A.FIELD_SLOTS, CODES["wrong_phase"]),
            ]
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
        chooser = state.board.owner[jnp.maximum(state.selection.card.astype(jnp.int32), 0)]
        selecting = state.selection.card >= 0
        return jnp.where(selecting, chooser, jnp.where(defending, 1 - active, active)).astype(
            jnp.int32
        )

    def digivolve_costs(self, state: DigimonState, hand: jax.Array, tops: jax.Array) -> jax.Array:
        """Cheapest digivolve cost of each hand card onto each permanent: int32[H, S], -1 when no
        requirement matches (level equal, color among the top card's colors) or either card is
        missing (-1). One lookup in the host-built table of the decks' definitions."""
        # Each card's table row / column worked out once (``materialize``: not redone, through
        # three gathers, for each of the H x S entries).
        compact = lambda cards: materialize(  # noqa: E731
            jnp.where(cards >= 0, jnp.asarray(self._compact)[self._definition(state, cards)], 0)
        ).astype(jnp.int32)
        table = jnp.asarray(self._digivolve_cost)
        return table[compact(hand)[:, None], compact(tops)[None, :]].astype(jnp.int32)

    def legal_action_mask(self, state: DigimonState) -> jax.Array:
        """bool[2120]; never all False before the game ends (pass is legal in Breeding and Main)."""
        return self.action_errors(state) == 0

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

    # -- the automatic part of the game: one loop of micro-steps ------------------------------------

    @property
    def _reach(self) -> int:
        """How far past the gauge's 0 a cost may go (G1): to 10 on the opponent's side
        (official), or not at all (the spec's rule)."""
        return MEMORY_LIMIT if self.memory_rule == "official" else 0

    def _turn_over(self, state: DigimonState) -> jax.Array:
        """G1: the turn ends once the gauge is 1 or more on the opponent's side (official), or
        at 0 or below (the spec's "0 ends the turn")."""
        return state.memory < 0 if self.memory_rule == "official" else state.memory <= 0

    def _work_kind(self, state: DigimonState) -> jax.Array:
        """The micro-step due now, by priority: 0 resolve a queued row, 1 trash a used Option,
        2 advance the attack, 3 end the turn, 4 run the new turn's Unsuspend and Draw phases;
        -1 when a player must decide (a timing or a selection) or the game is over."""
        phase = state.board.phase
        deciding = (
            (phase == PHASE["block_timing"])
            | (phase == PHASE["counter_timing"])
            | (state.selection.card >= 0)
            | (state.winner >= 0)
        )
        processing = zones.zone_count(state.board, self.layout.zone_index("processing")) > 0
        kind = jnp.select(
            [
                state.queue.card[0] >= 0,
                processing,
                state.attacker >= 0,
                (phase == PHASE["main"]) & self._turn_over(state),
                phase == PHASE["start"],
            ],
            [WORK_RESOLVE, WORK_TRASH_OPTION, WORK_ATTACK, WORK_END_TURN, WORK_TURN_START],
            -1,
        )
        return jnp.where(deciding, -1, kind)

    def _has_work(self, state: DigimonState) -> jax.Array:
        """bool[]: something happens before the next decision (see :meth:`_micro_step`)."""
        return self._work_kind(state) >= 0

    def _run(self, state: DigimonState) -> DigimonState:
        """Passes of micro-steps until a player must decide or the game is over (at most
        ``MAX_MICRO_STEPS`` passes: each makes progress, the bound only guards the loop). The
        first pass opens with the rules check due after the action (:meth:`_micro_step`)."""

        def cond(carry):
            i, state, check = carry
            return (i < MAX_MICRO_STEPS) & (self._has_work(state) | check)

        def body(carry):
            i, state, check = carry
            return i + 1, *self._micro_step(state, check)

        check = self._zero_dp_possible(state)
        return jax.lax.while_loop(cond, body, (jnp.int32(0), state, check))[1]

    def _micro_step(self, state: DigimonState, check: jax.Array) -> tuple[DigimonState, jax.Array]:
        """One pass of automatic play: the rules check where ``check`` (bool[]) says one is due
        (:meth:`_zero_dp_check`), then each kind of micro-step in priority order (a queued effect
        row resolves, first in first out; an Option whose rows have resolved goes to the trash;
        the attack in progress moves on; the turn ends, its [End of Your Turn] rows first; the
        new turn's Unsuspend and Draw phases run once its [Start of Your Turn] rows have
        resolved), each when it is the one due (:meth:`_work_kind`) after the previous ones.
        Returns the state and whether the next pass opens with a rules check.

        The same order as one micro-step at a time, in fewer loop iterations: the loop runs as
        often as the busiest game of the batch needs, and a pass lets a plain turn end, or an
        attack without effects, finish in one or two. Under ``vmap`` a kind runs only when some
        game of the batch has it due (``when_any``): a ``lax.cond`` on a per-game predicate would
        run every kind for every game.

        Rules processing (G11): a Digimon at 0 DP is deleted before anything else happens, so
        it runs after the action, once an effect row has resolved, after the attack's step (a
        battle can delete the source of an aura) and after the turn's end (a [Your Turn] bonus
        ends, a timed one expires); trashing a used Option, Unsuspend and Draw change no DP.
        A game that needs it ends its pass there and the next pass opens with the check: one
        copy of the check in the step's program instead of one after each of those kinds."""
        state = when_some(check, self._zero_dp_check, state)
        check = jnp.zeros_like(check)
        steps = (
            self._resolve_one,
            self._trash_processed,
            self._attack_step,
            self._end_turn_step,
            self._turn_start_step,
        )
        for kind, step in enumerate(steps):
            due = (self._work_kind(state) == kind) & ~check
            state = when_some(due, step, state)
            if kind in (WORK_RESOLVE, WORK_ATTACK, WORK_END_TURN):
                check |= due & self._zero_dp_possible(state)
        return state, check

    def _zero_dp_possible(self, state: DigimonState) -> jax.Array:
        """bool[]: a Digimon may be at 0 DP: a timed -DP modifier is live, a Digi-Egg is on top of
        a battle-area stack, or the card file has cards that make it possible anywhere. Without
        any of them every Digimon's DP is at least its printed DP, above 0: the full check
        (:meth:`permanents`) is skipped (``when_some``)."""
        board = state.board
        negative = jnp.any((state.lasting_kind == LASTING_DP) & (state.lasting_amount < 0))
        zone = board.zone.astype(jnp.int32)
        on_top = board.position.astype(jnp.int32) == zones.zone_counts(self.layout, board)[zone] - 1
        egg = self.cards["kind"][board.definition] == DIGI_EGG
        egg_on_top = jnp.any(egg & on_top & jnp.asarray(self._battle_zones)[zone])
        return negative | egg_on_top | self._zero_dp_always

    def _zero_dp_check(self, state: DigimonState) -> DigimonState:
        """Rules processing (official rule: a Digimon whose DP is 0 is deleted): every Digimon
        in a battle area at 0 DP (printed DP with every modifier, floored at 0; a stack whose top
        card is a Digi-Egg has none) is deleted, all at once; their [On Deletion] rows and the
        ``opponent_deleted_at_zero_dp`` rows of each deleted Digimon's opponent fire together
        (one queue group, the turn player's first; the latter once per rules check, however
        many of that player's opponent's Digimon went). Not while a selection is pending (an
        effect still resolving) or once the game is over. Decision G11 (game README)."""
        perm = self.permanents(state)
        # A Digi-Egg left on top of a battle-area stack (<De-Digivolve> under a Digimon that had
        # lost the cards between) has no DP: deleted the same way.
        digimon = (perm.kind == DIGIMON) | (perm.kind == DIGI_EGG)
        zero = digimon & (perm.dp <= 0) & jnp.asarray(IN_BATTLE_AREA)
        zero &= (state.selection.card < 0) & (state.winner < 0)

        def delete(state, zero):  # ``zero`` as an argument: ``when_some`` gathers it per game
            lost = jnp.any(zero, axis=1)  # [2]: the player lost a Digimon to the rule
            rivals = jnp.broadcast_to(lost[::-1, None], (2, NUM_SLOTS))
            state = self._push(
                state,
                TRIGGER["on_deletion"],
                zero,
                TRIGGER["opponent_deleted_at_zero_dp"],
                rivals,
            )

            def one(i, state):
                player, slot = i // A.FIELD_SLOTS, i % A.FIELD_SLOTS
                return self._delete(state, player, slot, zero[player, slot], deleted=False)

            return jax.lax.fori_loop(0, 2 * A.FIELD_SLOTS, one, state)

        return when_some(jnp.any(zero), delete, state, zero)

    def _resolve_one(self, state: DigimonState) -> DigimonState:
        """Pop the first queued effect row and execute it; or, when its controller has two or
        more effects that triggered with it and their order can matter (G10, official rule:
        the player orders their own simultaneous triggers, the turn player's first), ask them
        which resolves next (SelectEffectChoice, :meth:`trigger_order_choices`)."""
        card = jnp.maximum(state.queue.card[0].astype(jnp.int32), 0)
        row, slot = state.queue.row[0], state.queue.slot[0]
        popped = state.replace(queue=state.queue.pop())
        resolved = self._execute(popped, card, row, slot)
        if self.trigger_order == "fixed":
            return resolved
        first, _ = self._order_candidates(state)
        definition = state.board.definition[jnp.maximum(state.queue.card, 0)]  # [Q]
        # Order can matter when the candidates are not all copies of one card (same rows).
        differ = jnp.any(first & (definition != definition[0]))
        ask = state.replace(
            selection=Selection.open(
                card, row, slot, left=1, resume=state.board.phase, stage=CHOICE_ORDER
            ),
            board=state.board.replace(phase=jnp.int8(PHASE["select_effect_choice"])),
        )
        return tree_where((jnp.sum(first) >= 2) & differ, ask, resolved)

    def _order_candidates(self, state: DigimonState) -> tuple[jax.Array, jax.Array]:
        """The simultaneous triggers that the first queued entry's controller may order:
        ``first`` bool[Q], the first entry of each distinct card among the waiting entries of the
        first entry's group and controller (choice ``i`` = the ``i``-th of them, in queue order);
        ``of_card`` bool[Q, Q], entry ``j`` belongs to the card of candidate entry ``k``
        (``[k, j]``). Nothing when the first entry's order is settled (group -1)."""
        queue = state.queue
        card = queue.card.astype(jnp.int32)
        owner = state.board.owner[jnp.maximum(card, 0)]
        group = queue.group
        mine = (card >= 0) & (group == group[0]) & (group[0] >= 0) & (owner == owner[0])
        same = (card[:, None] == card[None, :]) & mine[:, None] & mine[None, :]  # [Q, Q]
        earlier = jnp.tril(jnp.ones((QUEUE_SIZE, QUEUE_SIZE), jnp.bool_), -1)  # [j, k]: k < j
        first = mine & ~jnp.any(same & earlier, axis=1)
        return first, same

    def trigger_order_choices(self, state: DigimonState) -> jax.Array:
        """int32[]: how many effects the pending trigger-order choice offers (ids 1000 + i)."""
        first, _ = self._order_candidates(state)
        return jnp.sum(first, dtype=jnp.int32)

    def trigger_order_cards(self, state: DigimonState) -> jax.Array:
        """int32[Q]: the card instance whose effects choice ``1000 + i`` of a trigger-order
        choice resolves next, for each ``i`` (-1 past the candidates)."""
        first, _ = self._order_candidates(state)
        rank = jnp.where(first, jnp.cumsum(first) - 1, QUEUE_SIZE)
        cards = state.queue.card.astype(jnp.int32)
        return jnp.full(QUEUE_SIZE + 1, -1, jnp.int32).at[rank].set(cards)[:QUEUE_SIZE]

    def _order(self, state: DigimonState, action):
        """The controller picks which of their simultaneous triggered effects resolves next (id
        1000 + i: the ``i``-th candidate card, :meth:`_order_candidates`): all of that card's
        waiting rows move to the front, settled, and resolve next; the choice closes. When the
        next of the others comes up, the player is asked again while two or more remain."""
        first, same = self._order_candidates(state)
        rank = jnp.cumsum(first) - 1
        pick = first & (rank == action - 1000)  # [Q]: the chosen candidate's entry
        chosen = jnp.any(same & pick[None, :], axis=1)  # every entry of that card
        return state.replace(
            queue=state.queue.to_front(chosen),
            selection=Selection.none(),
            board=state.board.replace(phase=state.selection.resume),
        )

    def _trash_processed(self, state: DigimonState) -> DigimonState:
        """An Option that has resolved goes from ``processing`` to its owner's trash."""
        processing = self.layout.zone_index("processing")
        card = jnp.maximum(zones.top_card(state.board, processing), 0)
        owner = state.board.owner[card].astype(jnp.int32)
        moved = zones.move_card(self.layout, state.board, card, zone_of("trash", owner))
        return state.replace(board=moved.board)

    def _end_turn_step(self, state: DigimonState) -> DigimonState:
        """The gauge is on the opponent's side with nothing left to resolve: the turn player's
        [End of Your Turn] rows fire (once a turn); if the gauge is still on the opponent's side
        once they have resolved, the next turn begins."""
        me = state.board.active_player.astype(jnp.int32)
        # The opponent's "at the end of the opponent's turn" rows trigger with these.
        fire = self._push(
            state,
            TRIGGER["end_of_your_turn"],
            self._all_slots(me),
            TRIGGER["end_of_opponents_turn"],
            self._all_slots(1 - me),
        )
        fire = fire.replace(end_fired=jnp.bool_(True))
        # No row fired: the gauge is unchanged and the next turn begins in the same micro-step.
        nothing = fire.queue.card[0] < 0
        return tree_where(state.end_fired | nothing, self._next_turn(state), fire)

    def _next_turn(self, state: DigimonState) -> DigimonState:
        """Timed modifiers of the ended turn expire; the other player's turn begins with the
        gauge on their side and their [Start of Your Turn] rows queued (phase ``start``: the
        Unsuspend and Draw phases follow once those rows have resolved)."""
        state = self._expire(state, state.board.turn_number.astype(jnp.int32))
        board = state.board
        nxt = 1 - board.active_player.astype(jnp.int32)
        board = board.replace(
            active_player=nxt.astype(jnp.int8),
            turn_number=board.turn_number + 1,
            phase=jnp.int8(PHASE["start"]),
        )
        state = state.replace(
            board=board,
            memory=(-state.memory).astype(jnp.int8),
            opt_used=jnp.zeros_like(state.opt_used),
            end_fired=jnp.bool_(False),
            attacked=jnp.bool_(False),
        )
        return self._push(state, TRIGGER["start_of_your_turn"], self._all_slots(nxt))

    def _turn_start_step(self, state: DigimonState) -> DigimonState:
        """Unsuspend phase (the turn player's permanents, and the opponent's <Reboot> Digimon),
        then the Draw phase (unable to draw = loss), then the Breeding phase (a decision)."""
        me = state.board.active_player.astype(jnp.int32)
        perm = self.permanents(state)
        reboot = perm.keywords[:, :, KW["reboot"]] & (perm.kind == DIGIMON)
        wake = (jnp.arange(2)[:, None] == me) | reboot
        drawn = zones.draw(self.layout, state.board, zone_of("deck", me), zone_of("hand", me))
        decked = drawn.error != 0
        # A player who cannot draw loses in the Draw phase: the finished game keeps that phase
        # (no Breeding phase of a turn that never goes on).
        phase = jnp.where(decked, PHASE["draw"], PHASE["breeding"]).astype(jnp.int8)
        return state.replace(
            board=drawn.board.replace(phase=phase),
            suspended=state.suspended & ~wake,
            winner=jnp.where(decked, 1 - me, state.winner).astype(jnp.int8),
            end_reason=jnp.where(decked, END_DECK_OUT, state.end_reason).astype(jnp.int8),
        )

    # -- actions -----------------------------------------------------------------------------------

    def _noop(self, state, action):
        del action
        return state

    def _lowest_free_slot(self, state: DigimonState, player) -> jax.Array:
        """The lowest empty battle slot of ``player`` (0 when none is free: check ``_has_room``)."""
        _, size = self.stacks(state)
        mine = jnp.where(player == 0, size[0], size[1])[: A.FIELD_SLOTS]
        return jnp.argmax(mine == 0).astype(jnp.int32)

    def _has_room(self, state: DigimonState, player) -> jax.Array:
        _, size = self.stacks(state)
        return jnp.any(jnp.where(player == 0, size[0], size[1])[: A.FIELD_SLOTS] == 0)

    def _enter(self, state: DigimonState, player, slot) -> DigimonState:
        """A new permanent in ``slot``: unsuspended, entered this turn."""
        return state.replace(
            suspended=state.suspended.at[player, slot].set(False),
            entered_turn=state.entered_turn.at[player, slot].set(
                state.board.turn_number.astype(jnp.int16)
            ),
        )

    def _put_into_play(self, state: DigimonState, card, player) -> DigimonState:
        """``card`` becomes a new permanent of ``player`` in the lowest free battle slot, and its
        [On Play] rows queue (playing, from hand or by an effect, without the cost here)."""
        slot = self._lowest_free_slot(state, player)
        board = zones.move_card(self.layout, state.board, card, slot_zone(player, slot)).board
        state = self._enter(state.replace(board=board), player, slot)
        return self._push(state, TRIGGER["on_play"], self._one_slot(player, slot))

    def _pay(self, state: DigimonState, cost) -> DigimonState:
        memory = state.memory.astype(jnp.int32) - cost
        return state.replace(memory=jnp.clip(memory, -MEMORY_LIMIT, MEMORY_LIMIT).astype(jnp.int8))

    def _play(self, state: DigimonState, action):
        """A Digimon or Tamer enters the lowest free battle slot ([On Play] rows queue); an
        Option goes to ``processing`` and its [Main] rows queue (it is trashed once resolved)."""
        me = state.board.active_player.astype(jnp.int32)
        card = jnp.maximum(self.hand(state, me)[action], 0)
        is_option = self._card(state, "kind", card) == OPTION
        state = self._pay(state, self._card(state, "play_cost", card))
        entered = self._put_into_play(state, card, me)
        processing = self.layout.zone_index("processing")
        used = state.replace(
            board=zones.move_card(self.layout, state.board, card, processing).board
        )
        used = self._push_card(used, card, WHERE_MAIN, TRIGGER["main"])
        return tree_where(is_option, used, entered)

    def _digivolve(self, state: DigimonState, action):
        """Digivolve a hand card onto a permanent, paying the cost, then draw 1 and queue the
        [When Digivolving] rows. In the counter timing this is the defender's <Blast
        Digivolve>: their card, no cost, and the attack goes on to the block timing."""
        counter = state.board.phase == PHASE["counter_timing"]
        active = state.board.active_player.astype(jnp.int32)
        me = jnp.where(counter, 1 - active, active)
        h, slot = jnp.divmod(action - A.LAYOUT.start("digivolve"), A.FIELD_STRIDE)
        hand = self.hand(state, me)
        top, _ = self.stacks(state)
        my_top = jnp.where(me == 0, top[0], top[1])
        cost = self.digivolve_costs(state, hand, my_top)[h, jnp.minimum(slot, NUM_SLOTS - 1)]
        card = jnp.maximum(hand[h], 0)
        board = zones.move_card(self.layout, state.board, card, slot_zone(me, slot)).board
        state = self._pay(state.replace(board=board), jnp.where(counter, 0, cost))
        # The digivolution bonus: draw 1 (nothing happens on an empty deck outside the Draw phase).
        drawn = zones.draw(self.layout, state.board, zone_of("deck", me), zone_of("hand", me))
        state = state.replace(
            board=drawn.board.replace(
                phase=jnp.where(counter, jnp.int8(PHASE["main"]), drawn.board.phase)
            ),
            attack_stage=jnp.where(counter, state.attack_stage + 1, state.attack_stage).astype(
                jnp.int8
            ),
        )
        return self._push(state, TRIGGER["when_digivolving"], self._one_slot(me, slot))

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

    def _pass(self, state: DigimonState, action):
        del action
        in_main = state.board.phase == PHASE["main"]
        to_main = state.replace(board=state.board.replace(phase=jnp.int8(PHASE["main"])))
        end = state.replace(memory=jnp.int8(-PASS_MEMORY))
        return tree_where(in_main, end, to_main)

    # -- effect interpreter: trigger queue, timed modifiers, primitives ----------------------------

    @staticmethod
    def _one_slot(player, slot) -> jax.Array:
        """bool[2, S]: only ``slot`` of ``player``."""
        return (jnp.arange(2)[:, None] == player) & (jnp.arange(NUM_SLOTS)[None, :] == slot)

    @staticmethod
    def _all_slots(player) -> jax.Array:
        """bool[2, S]: every permanent slot of ``player``."""
        return jnp.broadcast_to(jnp.arange(2)[:, None] == player, (2, NUM_SLOTS))

    def _push(self, state: DigimonState, trigger: int, slots: jax.Array, *more) -> DigimonState:
        """Queue the effect rows that fire on ``trigger`` in the permanent ``slots`` (bool[2, S]):
        each top card's ``main`` rows and its digivolution cards' ``inherited`` rows. ``more``:
        further ``trigger, slots`` pairs that fire at the same time (one queue group; a card's
        rows of the first trigger first).

        Order (simultaneous triggers): the turn player's first, then slot by slot, in each stack
        the top card first and then the cards under it from the top down. The entries share a
        queue group: with ``trigger_order="chosen"`` (G10, the official rule) each player picks
        the order of their own when it can matter (:meth:`_resolve_one`); this order is the
        ``"fixed"`` option's."""
        board = state.board
        card_slot, size, is_top, _ = _membership(board)
        on_field = card_slot >= 0
        flat = jnp.maximum(card_slot, 0)
        # Cards in the breeding area never fire (their effects do not activate; IN_BATTLE_AREA):
        # a Digimon digivolved there has no [When Digivolving], a Digimon raised there no
        # [Start of Your Turn].
        in_battle = on_field & jnp.asarray(IN_BATTLE_AREA)[flat % NUM_SLOTS]
        pairs = ((trigger, slots), *zip(more[::2], more[1::2], strict=True))
        fires, row = [], []
        for trig, trig_slots in pairs:
            chosen = in_battle & trig_slots.reshape(-1)[flat]
            # Only the rows of this trigger: [C, Rt] (``_triggered``), not all R rows of every card.
            table = self._triggered[trig]
            trig_row = jnp.asarray(table["row"])[board.definition].astype(jnp.int32)
            where = jnp.asarray(table["where"])[board.definition]
            placed = (is_top[:, None] & (where == WHERE_MAIN)) | (
                (on_field & ~is_top)[:, None] & (where == WHERE_INH)
            )
            # A row outside its window ([Your Turn] on the opponent's turn) or whose [Once Per
            # Turn] use is spent does not trigger at all (no entry, no trigger-order choice).
            safe_row = jnp.maximum(trig_row, 0)
            window = self.cards["effects.window"][board.definition[:, None], safe_row]
            flags = self.cards["effects.flags"][board.definition[:, None], safe_row]
            mine = (card_slot // NUM_SLOTS == board.active_player)[:, None]
            window_ok = _in_window(window, mine)
            used = (state.opt_used.astype(jnp.int32)[:, None] >> safe_row) & 1
            spent = ((flags.astype(jnp.int32) & FLAG_OPT) != 0) & (used == 1)
            fires.append(chosen[:, None] & placed & (trig_row >= 0) & window_ok & ~spent)
            row.append(trig_row)
        fires, row = jnp.concatenate(fires, axis=1), jnp.concatenate(row, axis=1)
        depth = jnp.where(on_field, size[flat] - 1 - board.position, 0).astype(jnp.int32)
        others = (card_slot // NUM_SLOTS != board.active_player).astype(jnp.int32)
        priority = others * 4096 + (card_slot % NUM_SLOTS) * 64 + depth  # [C]
        return self._enqueue(
            state,
            fires,
            priority,
            jnp.arange(self.num_cards),
            jnp.where(on_field, card_slot % NUM_SLOTS, -1),
            row,
            # Triggered together: their controller may choose their order (G10, ``_resolve_one``).
            group=state.queue.next_group(),
        )

    def _push_card(self, state: DigimonState, card, where: int, trigger: int) -> DigimonState:
        """Queue the rows of one card (an Option being used, a security card being checked)."""
        definition = state.board.definition[card]
        rows = jnp.arange(self.cards["effects.where"].shape[1])
        own = (
            (rows < self.cards["effects.num_rows"][definition])
            & (self.cards["effects.where"][definition] == where)
            & (self.cards["effects.trigger"][definition] == trigger)
        )
        return self._enqueue(state, own[None, :], jnp.zeros(1, jnp.int32), jnp.reshape(card, 1), -1)

    def _enqueue(
        self, state: DigimonState, fires, priority, cards, card_slot, rows=None, group=-1
    ) -> DigimonState:
        """Append the ``fires`` ``[N, W]`` entries (effect rows of the card instances ``cards``
        ``[N]``, acting from ``card_slot`` ``[N]`` or a scalar), lowest ``priority`` ``[N]``
        first (then by column), after the queue. Column ``j`` of card ``n`` is effect row
        ``rows[n, j]`` (``rows`` int ``[N, W]``, ascending in ``j``; default: row ``j``).
        ``group``: the queue group of the new entries (triggered together), -1 when their order
        is settled (one card's own rows).

        The first ``QUEUE_SIZE`` keys are taken by repeated ``argmin``: a few reductions over
        the ``N * R`` keys, where a sort of them costs 16 times more under ``vmap`` on CPU
        (7.9 ms against 0.5 ms at batch 128, C = 108: benchmarks/RESULTS.md)."""
        num_rows = fires.shape[1]
        big = jnp.int32(1 << 30)
        key = jnp.where(fires, priority[:, None] * num_rows + jnp.arange(num_rows), big).reshape(-1)
        flat = jnp.arange(key.shape[0])

        def take_smallest(k, carry):
            key, order = carry
            # Keys are distinct: the smallest by a min, its index by a second min (two simple
            # one-kernel reductions, ``min_along``, instead of an argmin's value-then-index one).
            smallest = min_along(key)
            i = min_along(jnp.where(key == smallest, flat, key.shape[0]).astype(jnp.int32))
            order = order.at[k].set(jnp.where(smallest < big, i, -1))
            return jnp.where(flat == i, big, key), order

        order = jax.lax.fori_loop(
            0, QUEUE_SIZE, take_smallest, (key, jnp.full(QUEUE_SIZE, -1, jnp.int32))
        )[1]
        new_valid = order >= 0
        entry = jnp.maximum(order, 0) // num_rows
        new_card = jnp.where(new_valid, jnp.asarray(cards, jnp.int32)[entry], -1)
        column = order % num_rows
        row_id = column if rows is None else jnp.asarray(rows, jnp.int32)[entry, column]
        new_row = jnp.where(new_valid, row_id, -1)
        slots = jnp.broadcast_to(jnp.asarray(card_slot, jnp.int32), (fires.shape[0],))
        new_slot = jnp.where(new_valid, slots[entry], -1)
        n = jnp.sum(state.queue.card >= 0)
        i = jnp.arange(QUEUE_SIZE)
        j = jnp.clip(i - n, 0, QUEUE_SIZE - 1)
        keep = i < n
        queue = state.queue
        return state.replace(
            queue=EffectQueue(
                card=jnp.where(keep, queue.card, new_card[j]).astype(jnp.int16),
                row=jnp.where(keep, queue.row, new_row[j]).astype(jnp.int8),
                slot=jnp.where(keep, queue.slot, new_slot[j]).astype(jnp.int8),
                group=jnp.where(keep, queue.group, jnp.where(new_valid[j], group, -1)).astype(
                    jnp.int8
                ),
            )
        )

    def _execute(self, state: DigimonState, card, row, slot) -> DigimonState:
        """One effect row, applied as selects over the state (a table, not a branch per op).

        The row's window and condition are checked when it resolves, and its [Once Per Turn]
        use. A row that chooses (``choose_*`` targets; ``play_from_sources``) opens a selection
        phase (``SelectTarget`` / ``SelectSource``) decided by the row's controller, or fizzles
        without a valid choice. The others act at once: ``memory`` (for the controller),
        ``draw`` (<Draw N>), ``unsuspend`` / ``suspend`` of ``self``, ``dp_mod`` /
        ``security_attack_mod`` on ``self``, ``all_own_digimon`` or ``own_security_digimon`` for a
        duration (a timed modifier), ``play_self`` (a security Tamer plays itself for free),
        ``activate_main`` (a security Option's [Main] rows), ``recovery`` (<Recovery +N (Deck)>;
        then [Security Added] rows of the controller fire)."""
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
            & IN_BATTLE_AREA
        )
        condition, value = col("condition"), col("condition_value").astype(jnp.int32)
        my_size = jnp.where(controller == 0, size[0], size[1])[jnp.clip(slot, 0, NUM_SLOTS - 1)]
        my_security = zones.zone_count(board, zone_of("security", controller))
        cond_ok = (
            (condition == COND_NONE)
            | ((condition == COND_OPP_NO_SOURCE) & opp_no_source)
            | ((condition == COND_MIN_SOURCES) & (my_size - 1 >= value))
            | ((condition == COND_SECURITY_AT_LEAST) & (my_security >= value))
            | ((condition == COND_SECURITY_AT_MOST) & (my_security <= value))
            | ((condition == COND_OPP_DID_NOT_ATTACK) & (controller != active) & ~state.attacked)
        )
        window = col("window")
        mine_now = controller == active
        window_ok = _in_window(window, mine_now)
        # [Once Per Turn]: a row of this card instance used this turn does not activate again.
        once = (col("flags").astype(jnp.int32) & FLAG_OPT) != 0
        bit = (jnp.uint8(1) << row.astype(jnp.uint8)).astype(jnp.uint8)
        used = (state.opt_used[card] & bit) != 0
        ok = cond_ok & window_ok & ~(once & used)
        # "You may suspend this card to ...": only while its permanent is unsuspended (the cost is
        # paid when the player chooses, ``_select``).
        pays = (col("flags").astype(jnp.int32) & FLAG_COST_SUSPEND_SELF) != 0
        safe = jnp.clip(slot, 0, NUM_SLOTS - 1)
        ok &= ~pays | ((slot >= 0) & ~state.suspended[controller, safe])
        state = state.replace(
            opt_used=state.opt_used.at[card].set(
                jnp.where(ok & once, state.opt_used[card] | bit, state.opt_used[card])
            )
        )
        # A row that chooses opens its selection phase (or fizzles without a valid choice):
        # SelectTarget for a choose_* target, else the op's own phase (SELECTION_OF_OP).
        # reveal_add reveals its cards first; they go to the bottom of the deck when the
        # selection ends (or at once when nothing among them can be chosen).
        own_phase = jnp.asarray(SELECTION_OF_OP)[op]
        chooses_target = (
            (target == TARGET_CHOOSE_OWN)
            | (target == TARGET_CHOOSE_OPP)
            | (target == TARGET_CHOOSE_OPP_NO_SOURCE)
        )
        chooses = (chooses_target | (own_phase >= 0)) & (col("count") > 0)
        reveals = ok & (op == OP_REVEAL_ADD)
        state = when_any(reveals, lambda s: self._reveal(s, controller, amount), state)

        def open_selection(state):
            pending = state.replace(
                selection=Selection.open(
                    card,
                    row,
                    slot,
                    left=jnp.where(op == OP_CHOOSE_ONE, 1, col("count")),
                    resume=state.board.phase,
                ),
                board=state.board.replace(
                    phase=jnp.where(own_phase >= 0, own_phase, PHASE["select_target"]).astype(
                        jnp.int8
                    )
                ),
            )
            opens = ok & chooses & self.has_selection_choice(pending)
            return tree_where(opens, pending, self._unreveal(state, reveals & ~opens))

        # Only a row that chooses can open a selection, and only a reveal leaves cards to put back.
        state = when_any((ok & chooses) | reveals, open_selection, state)
        ok &= ~chooses

        # memory: + for the controller (the gauge is stored from the active player's side).
        memory = state.memory.astype(jnp.int32) + jnp.where(mine_now, amount, -amount)
        memory = jnp.where(ok & (op == OP_MEMORY), memory, state.memory)
        state = state.replace(memory=jnp.clip(memory, -MEMORY_LIMIT, MEMORY_LIMIT).astype(jnp.int8))

        # draw N from the controller's deck; recovery: N from the top of the deck onto security.
        deck, hand = zone_of("deck", controller), zone_of("hand", controller)
        recover = ok & (op == OP_RECOVERY)
        to_zone = jnp.where(recover, zone_of("security", controller), hand)

        def draw_one(i, board):
            drawn = zones.draw(self.layout, board, deck, to_zone).board
            return tree_where(i < amount, drawn, board)

        def draw(state):
            before = zones.zone_count(state.board, zone_of("security", controller))
            state = state.replace(board=jax.lax.fori_loop(0, MAX_DRAW, draw_one, state.board))
            added = zones.zone_count(state.board, zone_of("security", controller)) > before
            return tree_where(
                added,
                self._push(state, TRIGGER["security_added"], self._all_slots(controller)),
                state,
            )

        state = when_any(ok & ((op == OP_DRAW) | recover), draw, state)

        # unsuspend / suspend self.
        safe_slot = jnp.clip(slot, 0, NUM_SLOTS - 1)
        on_self = ok & (target == TARGET_SELF) & (slot >= 0)
        was = state.suspended[controller, safe_slot]
        now = jnp.where(on_self & (op == OP_UNSUSPEND), False, was)
        now = jnp.where(on_self & (op == OP_SUSPEND), True, now)
        state = state.replace(suspended=state.suspended.at[controller, safe_slot].set(now))

        # play_self: a card (a security Tamer) plays itself for free, when there is room.
        plays = ok & (op == OP_PLAY_SELF) & self._has_room(state, controller)
        state = when_any(plays, lambda s: self._put_into_play(s, card, controller), state)
        # activate_main: the card's [Main] rows resolve next (a security Option; no color rule).
        state = when_any(
            ok & (op == OP_ACTIVATE_MAIN),
            lambda s: self._push_card(s, card, WHERE_MAIN, TRIGGER["main"]),
            state,
        )
        # add_self_to_hand: the checked security card goes to its owner's hand instead of the
        # trash (the check's end trashes only a card still revealed, ``_check_step``).
        revealed = self.layout.zone_index("revealed")
        to_hand = ok & (op == OP_ADD_SELF_TO_HAND) & (state.board.zone[card] == revealed)
        state = when_any(
            to_hand,
            lambda s: s.replace(
                board=zones.move_card(self.layout, s.board, card, zone_of("hand", controller)).board
            ),
            state,
        )

        # Timed DP / Security A. modifiers (and granted keywords) on self, on all own Digimon, on
        # own Security Digimon, or on all the opponent's Digimon.
        timed = ok & (duration != DURATION_CONTINUOUS)
        timed &= (op == OP_DP) | (op == OP_SECURITY_ATTACK) | (op == OP_GRANT_KEYWORD)
        timed &= (
            (target == TARGET_SELF)
            | (target == TARGET_ALL_OWN)
            | (target == TARGET_SECURITY)
            | (target == TARGET_ALL_OPP)
        )
        kind = jnp.select(
            [op == OP_GRANT_KEYWORD, target == TARGET_SECURITY, op == OP_DP],
            [LASTING_KEYWORD, LASTING_SECURITY_DP, LASTING_DP],
            LASTING_SA,
        )
        whose = jnp.where(target == TARGET_ALL_OPP, opp, controller)
        # A Security A. change that reaches the attacker during its security checks changes the
        # checks it has left (ST3-15's [Security]: the attacker checks one card fewer), never
        # below 0.
        reaches = (whose == active) & ((target != TARGET_SELF) | (slot == state.attacker))
        during = timed & (op == OP_SECURITY_ATTACK) & (state.attack_stage == STAGE_CHECKS)
        left = jnp.clip(state.checks_left.astype(jnp.int32) + amount, 0, MAX_CHECKS)
        state = state.replace(
            checks_left=jnp.where(during & reaches, left, state.checks_left).astype(jnp.int8)
        )
        return self._add_lasting(
            state,
            timed,
            kind,
            whose,
            jnp.where(target == TARGET_SELF, slot, -1),
            jnp.where(op == OP_GRANT_KEYWORD, col("grant").astype(jnp.int32), amount),
            duration,
            controller,
        )

    def _expire(self, state: DigimonState, ended_turn) -> DigimonState:
        """Timed modifiers whose last turn has ended are removed."""
        gone = (state.lasting_kind != 0) & (state.lasting_expires <= ended_turn)
        return state.replace(lasting_kind=jnp.where(gone, 0, state.lasting_kind).astype(jnp.int8))

    # -- selections (SelectTarget, SelectSource) ----------------------------------------------------

    def selection_targets(self, state: DigimonState) -> jax.Array:
        """bool[2, 12]: the permanents (own = controller's row) the pending row may choose now."""
        card = jnp.maximum(state.selection.card.astype(jnp.int32), 0)
        definition = state.board.definition[card]
        row = jnp.maximum(state.selection.row.astype(jnp.int32), 0)
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
        max_cost = col("max_cost").astype(jnp.int32)
        play_cost = self._card(state, "play_cost", field(perm.top)).astype(jnp.int32)
        bounds &= (max_cost < 0) | (play_cost <= max_cost)
        target, op = col("target"), col("op")
        owner = jnp.arange(2)[:, None]
        own, theirs = owner == controller, owner != controller
        sources = field(perm.size) - 1
        which = jnp.select(
            [target == TARGET_CHOOSE_OWN, target == TARGET_CHOOSE_OPP],
            [own & digimon, theirs & digimon & bounds],
            theirs & digimon & bounds & (sources == 0),
        )
        # Trashing digivolution cards needs a Digimon that has some; <De-Digivolve> a Digimon
        # with digivolution cards whose top card is above level 3.
        which &= (op != OP_TRASH_SOURCES) | (sources > 0)
        which &= (op != OP_DE_DIGIVOLVE) | ((sources > 0) & (level > 3))
        which &= (op != OP_SUSPEND) | ~field(state.suspended)
        which &= (op != OP_UNSUSPEND) | field(state.suspended)
        selecting = state.board.phase == PHASE["select_target"]
        return which & (state.selection.card >= 0) & selecting

    def source_choices(self, state: DigimonState) -> jax.Array:
        """bool[12, 10] in SelectSource (``play_from_sources``): the Digimon cards among the
        digivolution cards (stack position, bottom = 0) of the controller's battle-area Digimon
        that may be played now (a free battle slot is needed)."""
        card = jnp.maximum(state.selection.card.astype(jnp.int32), 0)
        controller = state.board.owner[card].astype(jnp.int32)
        board = state.board
        card_slot, size, _, top = _membership(board)
        top, size = top.reshape(2, NUM_SLOTS), size.reshape(2, NUM_SLOTS)
        my_size = jnp.where(controller == 0, size[0], size[1])[: A.FIELD_SLOTS]
        my_kind = self._card(state, "kind", jnp.where(controller == 0, top[0], top[1]))
        # Digimon cards by (battle slot, stack position): one scatter of the C cards.
        local = card_slot - controller * NUM_SLOTS
        pos = board.position.astype(jnp.int32)
        grid = A.FIELD_SLOTS * A.SOURCE_STRIDE
        placed = (card_slot >= 0) & (local >= 0) & (local < A.FIELD_SLOTS)
        placed &= pos < A.SOURCE_STRIDE
        dest = jnp.where(placed, local * A.SOURCE_STRIDE + pos, grid)
        kind = self.cards["kind"][board.definition]  # [C]
        is_digimon = jnp.zeros(grid + 1, jnp.bool_).at[dest].set(kind == DIGIMON)[:grid]
        is_digimon = is_digimon.reshape(A.FIELD_SLOTS, A.SOURCE_STRIDE)
        under = jnp.arange(A.SOURCE_STRIDE)[None, :] < (my_size - 1)[:, None]
        which = is_digimon & under & (my_kind[: A.FIELD_SLOTS] == DIGIMON)[:, None]
        selecting = state.board.phase == PHASE["select_source"]
        return which & self._has_room(state, controller) & (state.selection.card >= 0) & selecting

    # -- activated [Main] effects of permanents (1000 + permanent * 10 + effect) -------------------

    def _activate_errors(self, state: DigimonState, main, my_top, slots, my_size) -> jax.Array:
        """Codes ``[n, 10]`` of the activate ids at permanent indices ``slots`` (int ``[n]``,
        0-99: a battle-area slot below 12) and effect index (the row of its top card): a [Main]
        row of the card's own text, in the turn player's Main phase, not yet used this turn
        when [Once Per Turn]."""
        # Worked out for the 12 battle-area slots once (``materialize``), then laid out on the
        # requested indices; indices 12-99 hold no permanent.
        top = my_top[: A.FIELD_SLOTS]  # [12]
        rows = jnp.arange(A.SOURCE_STRIDE)
        definition = state.board.definition[jnp.maximum(top, 0)]
        safe_row = np.minimum(np.arange(A.SOURCE_STRIDE), self.cards["effects.where"].shape[1] - 1)
        # The table's columns laid out on the 10 effect indices first (a constant), then one
        # gather of rows by definition: no per-game gather of columns.
        col = lambda name: take_static(self.cards[f"effects.{name}"], safe_row, 1)[definition]  # noqa: E731
        has_row = rows[None, :] < self.cards["effects.num_rows"][definition][:, None]
        is_main = has_row & (col("trigger") == TRIGGER["main"]) & (col("where") == WHERE_MAIN)
        once = (col("flags").astype(jnp.int32) & FLAG_OPT) != 0
        used = ((state.opt_used[jnp.maximum(top, 0)].astype(jnp.int32)[:, None] >> rows) & 1) == 1
        # <Digi-Burst N>: N digivolution cards to trash (the stack's cards under the top).
        sources = my_size[: A.FIELD_SLOTS] - 1  # [12]
        field = materialize(
            _first_error(
                (~main, "wrong_phase"),
                ((top < 0)[:, None], "no_permanent_there"),
                (~is_main, "no_activated_effect"),
                (once & used, "used_this_turn"),
                (sources[:, None] < col("burst").astype(jnp.int32), "not_enough_sources"),
            )
        )  # [12, 10]
        beyond = _first_error((~main, "wrong_phase"), (True, "no_permanent_there"))
        # Row 12 holds the codes of every index past the battle area; host indices (the whole
        # mask) become slices and one broadcast of it, a traced index one gather.
        table = jnp.concatenate([field, jnp.broadcast_to(beyond, (1, A.SOURCE_STRIDE))])
        xnp = np if isinstance(slots, np.ndarray) else jnp
        return take(table, xnp.minimum(slots, A.FIELD_SLOTS))  # [n, 10]

    def _activate(self, state: DigimonState, action):
        """Activate a permanent's [Main] row: it resolves now (its window, condition and
        [Once Per Turn] use are checked as it resolves, like every row). <Digi-Burst N> (the
        row's ``burst``) is paid first: N digivolution cards go to the trash, those nearest the
        top card first (decision G13: the rules' choice of which cards is not modelled)."""
        me = state.board.active_player.astype(jnp.int32)
        slot, row = jnp.divmod(action - A.LAYOUT.start("activate"), A.SOURCE_STRIDE)
        top, _ = self.stacks(state)
        card = jnp.maximum(jnp.where(me == 0, top[0], top[1])[jnp.minimum(slot, 11)], 0)
        burst = self._card(state, "effects.burst", card)[jnp.clip(row, 0, MAX_EFFECTS - 1)]
        zone = slot_zone(me, jnp.minimum(slot, A.FIELD_SLOTS - 1))

        def trash_one(i, board):
            count = zones.zone_count(board, zone)
            under = jnp.maximum(zones.card_at(board, zone, count - 2), 0)
            moved = zones.move_card(self.layout, board, under, zone_of("trash", me)).board
            return tree_where((i < burst) & (count > 1), moved, board)

        board = jax.lax.fori_loop(0, MAX_BURST, trash_one, state.board)
        fires = jnp.arange(self.cards["effects.where"].shape[1]) == row
        return self._enqueue(
            state.replace(board=board),
            fires[None, :],
            jnp.zeros(1, jnp.int32),
            jnp.reshape(card, 1),
            slot,
        )

    # -- DNA digivolution (63-92, then SelectMaterial) ---------------------------------------------

    def _dna_matches(self, state: DigimonState, card, tops) -> jax.Array:
        """bool[2, 12]: which of the permanents ``tops`` ([12] top cards) meet each of the 2 DNA
        requirements of ``card`` (a Digimon top card of that level and color)."""
        level = self._card(state, "dna.level", card)  # [2]
        color = self._card(state, "dna.color", card).astype(jnp.int32)
        has = jnp.arange(2) < self._card(state, "dna.num_rows", card)
        top_level = self._card(state, "level", tops)
        top_colors = self._card(state, "colors", tops).astype(jnp.int32)
        digimon = (tops >= 0) & (self._card(state, "kind", tops) == DIGIMON)
        return (
            has[:, None]
            & digimon[None, :]
            & (top_level[None, :] == level[:, None])
            & (((top_colors[None, :] >> color[:, None]) & 1) == 1)
        )

    @staticmethod
    def _dna_pairs(match) -> jax.Array:
        """bool[12, 12]: ordered pairs (x, y), x != y, that meet the 2 requirements in some order."""
        pairs = (match[0][:, None] & match[1][None, :]) | (match[1][:, None] & match[0][None, :])
        return pairs & ~jnp.eye(A.FIELD_SLOTS, dtype=jnp.bool_)

    def _dna_errors(self, state: DigimonState, hand, main, afford, my_top) -> jax.Array:
        """Codes of the DNA ids 63-92 (hand index) in the Main phase."""
        tops = my_top[: A.FIELD_SLOTS]
        match = jax.vmap(lambda card: self._dna_matches(state, card, tops))(hand)  # [H, 2, 12]
        pairs = jax.vmap(self._dna_pairs)(match)  # [H, 12, 12]
        is_dna = (self._card(state, "kind", hand) == DIGIMON) & (
            self._card(state, "dna.num_rows", hand) == 2
        )
        return _first_error(
            (~main, "wrong_phase"),
            (hand < 0, "no_card_in_hand_slot"),
            (~is_dna, "no_dna_requirement"),
            (~afford(self._card(state, "dna_cost", hand).astype(jnp.int32)), "not_enough_memory"),
            (~jnp.any(pairs, axis=(1, 2)), "no_dna_materials"),
        )

    def _dna(self, state: DigimonState, action):
        """Declare a DNA digivolution: the hand card waits in SelectMaterial for 2 materials."""
        me = state.board.active_player.astype(jnp.int32)
        card = self.hand(state, me)[action - A.LAYOUT.start("dna")]
        return state.replace(
            selection=Selection.open(card, -1, -1, left=2, resume=state.board.phase),
            board=state.board.replace(phase=jnp.int8(PHASE["select_material"])),
        )

    def material_choices(self, state: DigimonState) -> jax.Array:
        """bool[12] in SelectMaterial: the controller's battle-area Digimon that can be the next
        material (the first pick: part of a valid pair; the second: completes the first's)."""
        card = jnp.maximum(state.selection.card.astype(jnp.int32), 0)
        controller = state.board.owner[card].astype(jnp.int32)
        top, _ = self.stacks(state)
        tops = jnp.where(controller == 0, top[0], top[1])[: A.FIELD_SLOTS]
        pairs = self._dna_pairs(self._dna_matches(state, card, tops))
        first = state.selection.slot.astype(jnp.int32)
        which = jnp.where(first < 0, jnp.any(pairs, axis=1), pairs[jnp.maximum(first, 0)])
        return which & (state.board.phase == PHASE["select_material"]) & (state.selection.card >= 0)

    def _dna_merge(self, state: DigimonState, player, first, second) -> DigimonState:
        """The DNA digivolution: the second material's stack goes onto the first's, the DNA card
        on top, in the first's slot; pay the DNA cost, unsuspend, draw 1, [When Digivolving].
        The result may attack this turn (unverified; the DCGO simulator's reading)."""
        card = jnp.maximum(state.selection.card.astype(jnp.int32), 0)
        board = zones.move_all(
            self.layout, state.board, slot_zone(player, second), slot_zone(player, first)
        ).board
        board = zones.move_card(self.layout, board, card, slot_zone(player, first)).board
        drawn = zones.draw(self.layout, board, zone_of("deck", player), zone_of("hand", player))
        gone = (state.lasting_player == player) & (state.lasting_slot == second)
        state = state.replace(
            board=drawn.board,
            suspended=state.suspended.at[player, first].set(False).at[player, second].set(False),
            entered_turn=state.entered_turn.at[player, first].set(0).at[player, second].set(-1),
            lasting_kind=jnp.where(gone, 0, state.lasting_kind).astype(jnp.int8),
        )
        state = self._pay(state, self._card(state, "dna_cost", card).astype(jnp.int32))
        return self._push(state, TRIGGER["when_digivolving"], self._one_slot(player, first))

    def _select_errors(self, state: DigimonState) -> jax.Array:
        """Codes of every id in a selection phase: the ids of :meth:`selection_choices`, and 62
        to decline an optional or "up to" row (never in SelectMaterial: the DNA digivolution
        was declared by the player and completes)."""
        flags = self._sel_col(state, "flags").astype(jnp.int32)
        may_decline = (flags & (FLAG_OPTIONAL | FLAG_UP_TO)) != 0
        may_decline &= state.board.phase != PHASE["select_material"]
        # The order of triggers and the mulligan are decisions, not an effect to decline.
        may_decline &= state.selection.stage == CHOICE_ROW
        ids = jnp.arange(A.NUM_ACTIONS)
        legal = self.selection_choices(state) | ((ids == A.LAYOUT.start("pass")) & may_decline)
        return jnp.where(legal, 0, CODES["not_a_valid_selection"])

    def selection_choices(self, state: DigimonState) -> jax.Array:
        """bool[2120]: the ids that choose in the pending selection now (the spec's "Selection
        Conventions", G4). SelectTarget: 100 + i own battle slot, 112 + i the opponent's;
        SelectMaterial: 100 + i; SelectSource: 2000 + field * 10 + source; SelectHand: 30 + i
        (hand index) to trash a card (the spec's "Trash From Hand" range), i to choose it for
        anything else (play_free); SelectReveal: 30 + i (position in ``revealed``); SelectTrash:
        130 + i (trash position, 0 = the oldest); SelectSecurity: 40 + i own, 50 + i the
        opponent's (i-th card from the top); SelectEffectChoice: 1000 + i (branch i). All False
        outside the selection phases."""
        parts = self._selection_parts(state)
        out, end = [], 0
        for start, values in parts:  # static, increasing, non-overlapping ranges
            out += [jnp.zeros(start - end, jnp.bool_), values]
            end = start + values.shape[0]
        out.append(jnp.zeros(A.NUM_ACTIONS - end, jnp.bool_))
        return jnp.concatenate(out)

    def has_selection_choice(self, state: DigimonState) -> jax.Array:
        """bool[]: ``any(selection_choices(state))``, without building the 2120 ids."""
        return jnp.any(jnp.stack([any_along(v) for _, v in self._selection_parts(state)]))

    def _selection_parts(self, state: DigimonState) -> list[tuple[int, jax.Array]]:
        """The choice ranges of :meth:`selection_choices` as ``(first id, bool[n])`` pairs (a
        concatenation of static slices: no 2120-wide gather per range)."""
        controller = self.decider(state)
        targets = self.selection_targets(state)  # [2, 12]
        own = jnp.where(controller == 0, targets[0], targets[1])
        theirs = jnp.where(controller == 0, targets[1], targets[0])
        op, target = self._sel_col(state, "op"), self._sel_col(state, "target")
        hand = self.hand_choices(state)
        trashing = op == OP_TRASH_FROM_HAND
        security = self.security_choices(state)
        on_own = target == TARGET_PLAYER
        none = jnp.zeros(SECURITY_SLOTS, jnp.bool_)
        ids_30_59 = (
            (hand & trashing)
            | jnp.pad(self.reveal_choices(state), (0, 30 - REVEAL_SLOTS))
            | jnp.concatenate([none, security & on_own, security & ~on_own])
        )
        return [
            (0, hand & ~trashing),
            (30, ids_30_59),
            (100, own | self.material_choices(state)),
            (112, theirs),
            (130, self.trash_choices(state)),
            (1000, self.branch_choices(state)),
            (A.LAYOUT.start("source"), self.source_choices(state).reshape(-1)),
        ]

    def _sel_col(self, state: DigimonState, name: str) -> jax.Array:
        card = jnp.maximum(state.selection.card.astype(jnp.int32), 0)
        row = jnp.maximum(state.selection.row.astype(jnp.int32), 0)
        return self.cards[f"effects.{name}"][state.board.definition[card], row]

    def _sel_matches(self, state: DigimonState, cards: jax.Array) -> jax.Array:
        """bool[...]: ``cards`` (instances, -1 = none) pass the pending row's filter: a kind
        among ``kinds`` (empty = any) and, for a Digimon, level <= ``max_level`` (-1 = any)."""
        kinds = self._sel_col(state, "kinds").astype(jnp.int32)
        max_level = self._sel_col(state, "max_level").astype(jnp.int32)
        kind = self._card(state, "kind", cards).astype(jnp.int32)
        level = self._card(state, "level", cards).astype(jnp.int32)
        kind_ok = (kinds == 0) | (((kinds >> kind) & 1) == 1)
        level_ok = (max_level < 0) | (kind != DIGIMON) | (level <= max_level)
        return (cards >= 0) & kind_ok & level_ok

    def _selecting(self, state: DigimonState, phase: str) -> jax.Array:
        return (state.board.phase == PHASE[phase]) & (state.selection.card >= 0)

    def hand_choices(self, state: DigimonState) -> jax.Array:
        """bool[30] in SelectHand: the controller's hand cards the row may take: any card to
        trash (trash_from_hand); a Digimon or Tamer passing the filter, with a free battle
        slot (play_free)."""
        controller = self.decider(state)
        hand = self.hand(state, controller)
        kind = self._card(state, "kind", hand)
        playable = ((kind == DIGIMON) | (kind == TAMER)) & self._has_room(state, controller)
        which = jnp.where(
            self._sel_col(state, "op") == OP_PLAY_FREE,
            self._sel_matches(state, hand) & playable,
            hand >= 0,
        )
        return which & self._selecting(state, "select_hand")

    def reveal_choices(self, state: DigimonState) -> jax.Array:
        """bool[10] in SelectReveal: the cards revealed by the row (not a security card being
        checked) that pass its filter, by position in ``revealed``."""
        revealed = zones.zone_slots(state.board, self.layout.zone_index("revealed"), REVEAL_SLOTS)
        which = self._sel_matches(state, revealed) & (revealed != state.checking)
        return which & self._selecting(state, "select_reveal")

    def trash_choices(self, state: DigimonState) -> jax.Array:
        """bool[50] in SelectTrash: the controller's trash cards (by position, 0 = the first
        trashed) that pass the row's filter."""
        trash = zones.zone_slots(state.board, zone_of("trash", self.decider(state)), TRASH_SLOTS)
        return self._sel_matches(state, trash) & self._selecting(state, "select_trash")

    def _security_zone(self, state: DigimonState) -> jax.Array:
        """The security stack a trash_security row chooses from (the controller's or theirs)."""
        controller = self.decider(state)
        own = self._sel_col(state, "target") == TARGET_PLAYER
        return zone_of("security", jnp.where(own, controller, 1 - controller))

    def security_choices(self, state: DigimonState) -> jax.Array:
        """bool[10] in SelectSecurity: the i-th card from the top of the chosen stack exists."""
        count = zones.zone_count(state.board, self._security_zone(state))
        return (jnp.arange(SECURITY_SLOTS) < count) & self._selecting(state, "select_security")

    def branch_choices(self, state: DigimonState) -> jax.Array:
        """bool[Q] in SelectEffectChoice (ids 1000 + i), by the selection's stage: branch i of the
        choose_one row (its row + 1 + i); the i-th simultaneous triggered effect to resolve
        next (:meth:`trigger_order_choices`); keep (1000) or redraw (1001) the opening hand."""
        stage = state.selection.stage
        count = jnp.select(
            [stage == CHOICE_ORDER, stage == CHOICE_MULLIGAN],
            [self.trigger_order_choices(state), 2],
            self._sel_col(state, "count").astype(jnp.int32),
        )
        assert MAX_BRANCHES <= QUEUE_SIZE
        return (jnp.arange(QUEUE_SIZE) < count) & self._selecting(state, "select_effect_choice")

    def _reveal(self, state: DigimonState, player, n) -> DigimonState:
        """The top ``n`` cards of ``player``'s deck go to ``revealed`` (fewer when it runs out)."""

        def reveal_one(i, board):
            shown = zones.draw(
                self.layout, board, zone_of("deck", player), self.layout.zone_index("revealed")
            ).board
            return tree_where(i < n, shown, board)

        return state.replace(board=jax.lax.fori_loop(0, MAX_REVEAL, reveal_one, state.board))

    def _unreveal(self, state: DigimonState, doit) -> DigimonState:
        """The cards a reveal_add row left in ``revealed`` go to the bottom of their owner's
        deck (the top one first; the rules let the player order them, this order is fixed).
        A security card being checked stays."""

        def hide_one(i, board):
            top = zones.top_card(board, self.layout.zone_index("revealed"))
            owner = board.owner[jnp.maximum(top, 0)].astype(jnp.int32)
            moved = zones.move_card(
                self.layout, board, jnp.maximum(top, 0), zone_of("deck", owner), zones.BOTTOM
            ).board
            return tree_where(doit & (top >= 0) & (top != state.checking), moved, board)

        return state.replace(board=jax.lax.fori_loop(0, MAX_REVEAL, hide_one, state.board))

    def _select(self, state: DigimonState, action):
        """Apply the pending row to the chosen permanent, card or branch (or decline with 62);
        the selection ends when its count is reached or nothing more can be chosen."""
        controller = self.decider(state)
        decline = action == A.LAYOUT.start("pass")
        phase = state.board.phase
        in_phase = lambda name: phase == PHASE[name]  # noqa: E731
        theirs = action >= 112
        player = jnp.where(theirs, 1 - controller, controller)
        slot = jnp.clip(jnp.where(theirs, action - 112, action - 100), 0, A.FIELD_SLOTS - 1)
        op, amount = self._sel_col(state, "op"), self._sel_col(state, "amount").astype(jnp.int32)
        applied = self._apply_to(state, op, amount, player, slot)
        board = state.board
        # A card moves (SelectHand trashing, SelectReveal / SelectTrash to the hand,
        # SelectSecurity to the trash) or is played free (SelectHand play_free, SelectSource).
        hand_card = self.hand(state, controller)[jnp.clip(action % 30, 0, A.HAND_SLOTS - 1)]
        revealed = zones.card_at(board, self.layout.zone_index("revealed"), action - 30)
        from_trash = zones.card_at(board, zone_of("trash", controller), action - 130)
        security = self._security_zone(state)
        from_top = jnp.where(action >= 50, action - 50, action - 40)
        checked = zones.card_at(board, security, zones.zone_count(board, security) - 1 - from_top)
        field, position = jnp.divmod(
            jnp.clip(action - A.LAYOUT.start("source"), 0, 119), A.SOURCE_STRIDE
        )
        source = zones.card_at(board, slot_zone(controller, field), position)
        in_hand = in_phase("select_hand")
        moving = jnp.select(
            [in_hand, in_phase("select_reveal"), in_phase("select_trash")],
            [hand_card, revealed, from_trash],
            checked,
        )
        to_zone = jnp.select(
            [in_phase("select_security"), in_hand],
            [zone_of("trash", board.owner[jnp.maximum(moving, 0)]), zone_of("trash", controller)],
            zone_of("hand", controller),
        )
        moved = state.replace(
            board=zones.move_card(self.layout, board, jnp.maximum(moving, 0), to_zone).board
        )
        plays = in_phase("select_source") | (in_hand & (op == OP_PLAY_FREE))
        played = self._put_into_play(
            state, jnp.maximum(jnp.where(in_hand, hand_card, source), 0), controller
        )
        moves = (in_hand & (op == OP_TRASH_FROM_HAND)) | in_phase("select_reveal")
        moves |= in_phase("select_trash") | in_phase("select_security")
        applied = tree_where(plays, played, tree_where(moves, moved, applied))
        # SelectEffectChoice: the chosen branch row resolves next (front of the queue).
        branch_row = state.selection.row + 1 + (action - 1000)
        branched = state.replace(
            queue=state.queue.push_front(state.selection.card, branch_row, state.selection.slot)
        )
        applied = tree_where(in_phase("select_effect_choice"), branched, applied)
        # SelectMaterial: the first pick is remembered; the second completes the DNA digivolution.
        first = state.selection.slot.astype(jnp.int32)
        merged = tree_where(
            first < 0,
            state.replace(selection=state.selection.replace(slot=slot.astype(jnp.int8))),
            self._dna_merge(state, controller, first, slot),
        )
        applied = tree_where(in_phase("select_material"), merged, applied)
        # "You may suspend this card to ...": a choice (not a decline) pays the cost, suspending
        # the permanent the row acts from.
        pays = (self._sel_col(state, "flags").astype(jnp.int32) & FLAG_COST_SUSPEND_SELF) != 0
        pays &= in_phase("select_target") & (state.selection.slot >= 0)
        source_slot = jnp.clip(state.selection.slot.astype(jnp.int32), 0, NUM_SLOTS - 1)
        owner = state.board.owner[jnp.maximum(state.selection.card.astype(jnp.int32), 0)]
        paid = applied.suspended[owner, source_slot] | pays
        applied = applied.replace(suspended=applied.suspended.at[owner, source_slot].set(paid))
        state = tree_where(decline, state, applied)
        left = jnp.where(decline, 0, state.selection.left - 1).astype(jnp.int8)
        state = state.replace(selection=state.selection.replace(left=left))
        more = self.has_selection_choice(state)
        done = state.replace(
            selection=Selection.none(),
            board=state.board.replace(phase=state.selection.resume),
        )
        done = self._unreveal(done, op == OP_REVEAL_ADD)
        return tree_where((left <= 0) | ~more, done, state)

    def _apply_to(self, state: DigimonState, op, amount, player, slot) -> DigimonState:
        """The choice primitives on one permanent (selects over the state, no branch per op):
        delete, trash ``amount`` digivolution cards from the bottom, <De-Digivolve amount>,
        return to hand, return to the bottom of the deck, suspend / unsuspend, +DP for a
        duration, a restriction."""
        state = self._delete(state, player, slot, op == OP_DELETE)
        zone = slot_zone(player, slot)

        # Trash ``amount`` digivolution cards from the bottom (the top card stays), or from the
        # top (<De-Digivolve>: never the last card, never below a level 3 top card).
        def trash_one(i, state):
            count = zones.zone_count(state.board, zone)
            top = zones.top_card(state.board, zone)
            from_top = op == OP_DE_DIGIVOLVE
            go = ((op == OP_TRASH_SOURCES) | from_top) & (i < amount) & (count > 1)
            go &= ~from_top | (self._card(state, "level", top) > 3)
            card = jnp.where(from_top, top, zones.card_at(state.board, zone, 0))
            moved = zones.move_card(
                self.layout, state.board, jnp.maximum(card, 0), zone_of("trash", player)
            ).board
            return state.replace(board=tree_where(go, moved, state.board))

        state = jax.lax.fori_loop(0, MAX_TRASHED_SOURCES, trash_one, state)
        # Return to hand: the top card to its owner's hand, the cards under it to the trash.
        bounce = op == OP_BOUNCE
        top = zones.top_card(state.board, zone)
        to_hand = zones.move_card(
            self.layout, state.board, jnp.maximum(top, 0), zone_of("hand", player)
        ).board
        state = state.replace(board=tree_where(bounce & (top >= 0), to_hand, state.board))
        state = self._delete(state, player, slot, bounce, deleted=False)
        # Return to the deck: the whole stack to the bottom of its owner's deck, the top card
        # first (the rules let the owner order them; this order is fixed). Not a deletion.
        back = op == OP_RETURN_TO_DECK

        def to_bottom(board):
            top = jnp.maximum(zones.top_card(board, zone), 0)
            deck = zone_of("deck", player)
            return zones.move_card(self.layout, board, top, deck, zones.BOTTOM).board

        board = jax.lax.while_loop(
            lambda board: back & (zones.zone_count(board, zone) > 0), to_bottom, state.board
        )
        state = self._delete(state.replace(board=board), player, slot, back, deleted=False)
        # Suspend / unsuspend the chosen permanent.
        was = state.suspended[player, slot]
        now = jnp.where(op == OP_SUSPEND, True, jnp.where(op == OP_UNSUSPEND, False, was))
        state = state.replace(suspended=state.suspended.at[player, slot].set(now))
        # Timed: DP on the chosen Digimon, or a restriction (cannot attack / block).
        card = jnp.maximum(state.selection.card.astype(jnp.int32), 0)
        duration = self._sel_col(state, "duration")
        cannot = self._sel_col(state, "cannot").astype(jnp.int32)
        timed = (op == OP_DP) | (op == OP_RESTRICT) | (op == OP_SECURITY_ATTACK)
        timed |= op == OP_GRANT_KEYWORD
        controller = state.board.owner[card].astype(jnp.int32)
        grant = self._sel_col(state, "grant").astype(jnp.int32)
        return self._add_lasting(
            state,
            timed,
            jnp.select(
                [op == OP_DP, op == OP_SECURITY_ATTACK, op == OP_GRANT_KEYWORD],
                [LASTING_DP, LASTING_SA, LASTING_KEYWORD],
                LASTING_RESTRICT,
            ),
            player,
            slot,
            jnp.select([op == OP_RESTRICT, op == OP_GRANT_KEYWORD], [cannot, grant], amount),
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

    def security_dp_bonus(self, state: DigimonState, perm: Permanents | None = None) -> jax.Array:
        """int32[2]: the DP each player's Security Digimon get from timed modifiers and from
        continuous rows in play (``perm``: :meth:`permanents` of ``state``, computed if None)."""
        perm = self.permanents(state) if perm is None else perm
        on = state.lasting_kind == LASTING_SECURITY_DP
        player = state.lasting_player.astype(jnp.int32)
        amount = state.lasting_amount.astype(jnp.int32)
        timed = jnp.sum(jnp.where(on & (player == jnp.arange(2)[:, None]), amount, 0), axis=-1)
        return timed + perm.security_dp

    # -- attacks (official order, G7: counter timing, then block timing) ---------------------------

    def _attack(self, state: DigimonState, action):
        """Declaration: suspend the attacker and queue its [When Attacking] rows; the attack goes
        on in the micro-steps (:meth:`_attack_step`) once they have resolved."""
        me = state.board.active_player.astype(jnp.int32)
        a, t = jnp.divmod(action - A.LAYOUT.start("attack"), A.FIELD_STRIDE)
        state = state.replace(
            suspended=state.suspended.at[me, a].set(True),
            attacker=a.astype(jnp.int8),
            attack_target=t.astype(jnp.int8),
            attack_stage=jnp.int8(STAGE_DECLARED),
            attacked=jnp.bool_(True),
        )
        return self._push(state, TRIGGER["when_attacking"], self._one_slot(me, a))

    def _block(self, state: DigimonState, action):
        """The defender blocks: the blocker is suspended and becomes the attack's target; the
        attacker's [When Blocked] rows fire; the battle follows."""
        me = state.board.active_player.astype(jnp.int32)
        blocker = action - A.LAYOUT.start("attack")
        state = state.replace(
            suspended=state.suspended.at[1 - me, blocker].set(True),
            attack_target=blocker.astype(jnp.int8),
            attack_stage=(state.attack_stage + 1).astype(jnp.int8),
            board=state.board.replace(phase=jnp.int8(PHASE["main"])),
        )
        attacker = state.attacker.astype(jnp.int32)
        # The attacker's [When Blocked] and the blocker's player's "when one of your Digimon
        # blocks" rows trigger together (one group, the turn player's first).
        return self._push(
            state,
            TRIGGER["when_blocked"],
            self._one_slot(me, attacker),
            TRIGGER["own_digimon_blocks"],
            self._all_slots(1 - me),
        )

    def _decline(self, state: DigimonState, action):
        """The defender declines the counter timing or the block timing (62)."""
        del action
        return state.replace(
            attack_stage=(state.attack_stage + 1).astype(jnp.int8),
            board=state.board.replace(phase=jnp.int8(PHASE["main"])),
        )

    def _attack_step(self, state: DigimonState) -> DigimonState:
        """Move the attack on: after [When Attacking], the defender's counter timing (<Blast
        Digivolve>) and block timing (decisions, each skipped when the defender has no move in
        it); then the battle with a Digimon, or the security checks one card at a time; then the
        end of the attack. Skipped timings and the battle's start take one micro-step together,
        and up to two security-check micro-steps follow in the same pass while nothing else is
        due (a [Security] row to resolve, a selection, the end of the game)."""
        stage = state.attack_stage.astype(jnp.int32)

        def timings(state):
            # The defender's timings (G7): counter timing, then block timing (official order;
            # the spec's order, block first, is the ``timing_order="spec"`` option); each is a
            # decision only when the defender has a move in it (what they can do does not change
            # while timings are skipped: nothing else happens between them).
            counter_move = jnp.any(self.blast_errors(state, jnp.arange(A.HAND_SLOTS)) == 0)
            block_move = jnp.any(self.blockers(state))
            counter_phase, block_phase = PHASE["counter_timing"], PHASE["block_timing"]
            if self.timing_order == "official":
                first_move, second_move, first_phase, second_phase = (
                    counter_move, block_move, counter_phase, block_phase
                )  # fmt: skip
            else:
                first_move, second_move, first_phase, second_phase = (
                    block_move, counter_move, block_phase, counter_phase
                )  # fmt: skip
            open_first = (stage == STAGE_DECLARED) & first_move
            open_second = ~open_first & (stage <= STAGE_FIRST_TIMING_OVER) & second_move
            opened = state.replace(
                attack_stage=jnp.where(open_first, STAGE_DECLARED, STAGE_FIRST_TIMING_OVER).astype(
                    jnp.int8
                ),
                board=state.board.replace(
                    phase=jnp.where(open_first, first_phase, second_phase).astype(jnp.int8)
                ),
            )
            over = state.replace(attack_stage=jnp.int8(STAGE_TIMINGS_OVER))
            return when_any(~(open_first | open_second), lambda _: self._begin_battle(over), opened)

        step = when_any(stage <= STAGE_TIMINGS_OVER, timings, state)
        # An attacker that has left the battle area ends the attack (no battle, no further check;
        # a card being checked still finishes: it goes to the trash).
        step = tree_where(self._attacker_present(state), step, self._end_attack(state))

        def check(_, step):  # flip, then finish a check (or end the attack) if nothing intervenes
            due = (self._work_kind(step) == WORK_ATTACK) & (step.attack_stage == STAGE_CHECKS)
            return when_any(due, self._check_or_end, step)

        # A loop, not two inlined copies: the check step is a quarter of the attack's program.
        return jax.lax.fori_loop(0, 2, check, step)

    def _attacker_present(self, state: DigimonState) -> jax.Array:
        """The attacker is still in the battle area, or a checked card is still to finish."""
        me = state.board.active_player.astype(jnp.int32)
        attacker = jnp.maximum(state.attacker.astype(jnp.int32), 0)
        present = zones.zone_count(state.board, slot_zone(me, attacker)) > 0
        return present | (state.checking >= 0)

    def _check_or_end(self, state: DigimonState) -> DigimonState:
        """One security-check micro-step, or the end of the attack once the attacker has left."""
        return tree_where(
            self._attacker_present(state), self._check_step(state), self._end_attack(state)
        )

    def _end_attack(self, state: DigimonState) -> DigimonState:
        return state.replace(
            attacker=jnp.int8(-1),
            attack_target=jnp.int8(-1),
            attack_stage=jnp.int8(STAGE_NONE),
            checks_left=jnp.int8(0),
            checking=jnp.int16(-1),
        )

    def _checks(self, state: DigimonState) -> jax.Array:
        """1 + <Security A. +N> of the attacker, where <Security A. -N> counts as -N: never fewer
        than 0 (official Q&A on ST3-15: the checks cannot go below 0; an attack that checks 0
        cards flips nothing). Decision G12 (game README): a player with no security card still
        loses to an attack on them, whatever the attacker's count (:meth:`_begin_battle`)."""
        me = state.board.active_player.astype(jnp.int32)
        perm = self.permanents(state)
        sa = jnp.where(me == 0, perm.security_attack[0], perm.security_attack[1])
        count = 1 + sa[jnp.maximum(state.attacker.astype(jnp.int32), 0)]
        return jnp.clip(count, 0, MAX_CHECKS).astype(jnp.int8)

    def _begin_battle(self, state: DigimonState) -> DigimonState:
        """The attack's target is fixed: battle the target Digimon (<Piercing>: then check
        security if it was deleted and the attacker survived), or attack the player: with no
        security card left the attacker's player wins, otherwise the checks begin."""
        me = state.board.active_player.astype(jnp.int32)
        target = state.attack_target.astype(jnp.int32)
        checks = state.replace(attack_stage=jnp.int8(STAGE_CHECKS), checks_left=self._checks(state))
        empty = zones.zone_count(state.board, zone_of("security", 1 - me)) == 0
        won = self._end_attack(state).replace(
            winner=me.astype(jnp.int8), end_reason=jnp.int8(END_SECURITY)
        )
        direct = tree_where(empty, won, checks)
        return when_any(target < A.FIELD_SLOTS, lambda _: self._battle(state, checks), direct)

    def _battle(self, state: DigimonState, checks: DigimonState) -> DigimonState:
        """The attacker battles the target Digimon: the lower DP is deleted, equal DP both
        (<Retaliation>: a Digimon deleted in battle deletes the one it battled)."""
        me = state.board.active_player.astype(jnp.int32)
        a = jnp.maximum(state.attacker.astype(jnp.int32), 0)
        t = jnp.clip(state.attack_target.astype(jnp.int32), 0, A.FIELD_SLOTS - 1)
        _, size = self.stacks(state)
        present = size[1 - me, t] > 0  # the target may have left (bounced, deleted) meanwhile
        perm = self.permanents(state, self._battling(state))
        dp_a, dp_t = perm.dp[me, a], perm.dp[1 - me, t]
        kw_a, kw_t = perm.keywords[me, a], perm.keywords[1 - me, t]
        a_lost, t_lost = present & (dp_a <= dp_t), present & (dp_t <= dp_a)
        a_gone = a_lost | (t_lost & kw_t[KW["retaliation"]])
        t_gone = t_lost | (a_lost & kw_a[KW["retaliation"]])
        # Both [On Deletion] sets fire together, the turn player's first.
        gone = (self._one_slot(me, a) & a_gone) | (self._one_slot(1 - me, t) & t_gone)
        after = self._push(state, TRIGGER["on_deletion"], gone)
        after = self._delete(after, me, a, a_gone, deleted=False)
        after = self._delete(after, 1 - me, t, t_gone, deleted=False)
        pierce = t_lost & ~a_gone & kw_a[KW["piercing"]]
        return tree_where(
            pierce, after.replace(**self._check_fields(checks)), self._end_attack(after)
        )

    def _battling(self, state: DigimonState) -> jax.Array:
        """int32[2, S]: for the attacker and its target Digimon, how many digivolution cards the
        other one has (the ``battling_no_source_digimon`` condition); -1 for the others."""
        me = state.board.active_player.astype(jnp.int32)
        a = jnp.maximum(state.attacker.astype(jnp.int32), 0)
        t = jnp.clip(state.attack_target.astype(jnp.int32), 0, A.FIELD_SLOTS - 1)
        _, size = self.stacks(state)
        battling = jnp.full((2, NUM_SLOTS), -1, jnp.int32)
        return battling.at[me, a].set(size[1 - me, t] - 1).at[1 - me, t].set(size[me, a] - 1)

    @staticmethod
    def _check_fields(state: DigimonState) -> dict:
        return dict(attack_stage=state.attack_stage, checks_left=state.checks_left)

    def _check_step(self, state: DigimonState) -> DigimonState:
        """One security check, in two micro-steps: flip the top security card into ``revealed``
        and queue its [Security] rows; once they have resolved, a Digimon card battles the
        attacker (the attacker is deleted on lower or equal DP unless it has <Jamming>) and the
        card goes to the trash unless an effect moved it. Checks stop when none are left, the
        defender's security is empty, or the attacker has left the battle area."""
        me = state.board.active_player.astype(jnp.int32)
        opp = 1 - me
        security = zone_of("security", opp)
        revealed = self.layout.zone_index("revealed")

        def flip(state):
            top = jnp.maximum(zones.top_card(state.board, security), 0)
            flipped = state.replace(
                board=zones.move_card(self.layout, state.board, top, revealed).board,
                checking=top.astype(jnp.int16),
            )
            return self._push_card(flipped, top, WHERE_SECURITY, TRIGGER["security"])

        def finish(state):  # the check of the flipped card
            card = jnp.maximum(state.checking.astype(jnp.int32), 0)
            still = state.board.zone[card] == revealed
            a = jnp.maximum(state.attacker.astype(jnp.int32), 0)
            perm = self.permanents(state)
            dp_a = perm.dp[me, a]
            dp_s = (
                self._card(state, "dp", card).astype(jnp.int32)
                + self.security_dp_bonus(state, perm)[opp]
            )
            present = zones.zone_count(state.board, slot_zone(me, a)) > 0
            battles = still & present & (self._card(state, "kind", card) == DIGIMON)
            lost = battles & (dp_a <= dp_s) & ~perm.keywords[me, a, KW["jamming"]]
            finished = self._delete(state, me, a, lost)
            trash = zone_of("trash", opp)
            trashed = zones.move_card(self.layout, finished.board, card, trash).board
            return finished.replace(
                board=tree_where(still, trashed, finished.board),
                checks_left=jnp.maximum(state.checks_left - 1, 0).astype(jnp.int8),
                checking=jnp.int16(-1),
            )

        checking = state.checking >= 0
        can_flip = (state.checks_left > 0) & (zones.zone_count(state.board, security) > 0)
        # Each part runs only when some game of the batch is at it (``when_any``).
        out = self._end_attack(state)
        out = when_any(~checking & can_flip, lambda _: flip(state), out)
        return when_any(checking, lambda _: finish(state), out)

    def _delete(self, state: DigimonState, player, slot, doit, deleted: bool = True):
        """The permanent in ``slot`` of ``player`` leaves play when ``doit``: its whole stack goes
        to its owner's trash and the slot's facts are cleared. ``deleted`` (a deletion, not the
        rest of a stack returned to hand): its [On Deletion] rows fire first (read while its
        cards are still in play)."""
        if deleted:
            mask = self._one_slot(player, slot) & doit
            state = self._push(state, TRIGGER["on_deletion"], mask)
        trash = zone_of("trash", player)
        source = jnp.where(doit, slot_zone(player, slot), trash)  # a no-op move when not leaving
        board = zones.move_all(self.layout, state.board, source, trash).board
        clear = lambda x, v: x.at[player, slot].set(jnp.where(doit, v, x[player, slot]))  # noqa: E731
        on_it = doit & (state.lasting_player == player) & (state.lasting_slot == slot)
        return state.replace(
            lasting_kind=jnp.where(on_it, 0, state.lasting_kind).astype(jnp.int8),
            board=board,
            suspended=clear(state.suspended, False),
            entered_turn=clear(state.entered_turn, jnp.int16(-1)),
        )

    def forfeit(self, state: DigimonState, loser: jax.Array) -> DigimonState:
        """``loser`` made an illegal move under ``illegal_action="lose"``: the other player wins."""
        return state.replace(winner=(1 - loser).astype(jnp.int8), end_reason=jnp.int8(END_ILLEGAL))

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
