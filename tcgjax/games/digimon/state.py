"""The Digimon game state and what every room of the rules reads: zones, phases, rule errors,
the state record, per-slot sums and the card tables built once on the host.

The rules (:class:`~tcgjax.games.digimon.rules.DigimonRules`) re-export every name here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax.core import zones
from tcgjax.core.board import Board, BoardLayout
from tcgjax.core.cards import CardRegistry
from tcgjax.core.effects import EffectQueue, Selection
from tcgjax.core.errors import FIRST_GAME_CODE, RuleError
from tcgjax.core.primitives import (
    CONTROLLERS_NEXT_TURN,
    OPPONENTS_NEXT_TURN,
    THIS_TURN,
    CardFilters,
)
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.cards import (
    AMOUNT_PER,
    CONDITIONS,
    DIGIMON,
    EFFECT_FLAGS,
    KEYWORDS,
    MAX_AMOUNT,
    OPS,
    TARGETS,
    TRIGGERS,
    WHERE,
    WINDOWS,
)

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
# Largest <Draw N>, <Recovery +N (Deck)> and mill N (card validation enforces it).
MAX_DRAW = MAX_AMOUNT
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
    RuleError("cannot_attack_player", "an effect forbids this Digimon to attack the player"),
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
      deck_pair: int8[] — the game's matchup: an index into ``DigimonRules.pairs`` (0 with one).
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
    deck_pair: jax.Array


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
    rows (a Tamer's aura on "your Security Digimon"); ``cannot`` int32 ``[2, S]``: the ``CANNOT_*``
    bits its own continuous ``restrict`` rows in force set (timed restrictions:
    ``restricted``); ``digivolve_into`` bool ``[2, S]``: its top card's ``digivolve_into`` row
    is in force (the special digivolution its cost table opens)."""

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
    cannot: jax.Array
    digivolve_into: jax.Array


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
    COND_LEVEL_AT_LEAST,
    COND_TRASH_AT_LEAST,
    COND_ATTACKING_A_DIGIMON,
    COND_HAND_AT_LEAST,
    COND_HAND_AT_MOST,
    COND_ATTACKING_THE_PLAYER,
    COND_SECURITY_AT_MOST_OPPONENTS,
    COND_OPP_LEVEL_AT_LEAST,
) = range(len(CONDITIONS))
OP_DP, OP_SECURITY_ATTACK = OPS.index("dp_mod"), OPS.index("security_attack_mod")
TARGET_SELF, TARGET_ALL_OWN = TARGETS.index("self"), TARGETS.index("all_own_digimon")
PER_TWO_SOURCES = AMOUNT_PER.index("per_two_sources")
FLAG_OPT = 1 << EFFECT_FLAGS.index("once_per_turn")
LASTING_DP, LASTING_SA, LASTING_RESTRICT = 1, 2, 3
CANNOT_ATTACK, CANNOT_BLOCK, CANNOT_ATTACK_PLAYER, CANNOT_BE_BLOCKED = 1, 2, 4, 8
OP_DELETE, OP_TRASH_SOURCES = OPS.index("delete"), OPS.index("trash_sources")
OP_BOUNCE, OP_RESTRICT = OPS.index("bounce_to_hand"), OPS.index("restrict")
TARGET_CHOOSE_OWN = TARGETS.index("choose_own_digimon")
TARGET_CHOOSE_OPP = TARGETS.index("choose_opponent_digimon")
TARGET_CHOOSE_OPP_NO_SOURCE = TARGETS.index("choose_opponent_no_source_digimon")
TARGET_CHOOSE_OPP_SUSPENDED = TARGETS.index("choose_opponent_suspended_digimon")
FLAG_OPTIONAL = 1 << EFFECT_FLAGS.index("optional")
FLAG_UP_TO = 1 << EFFECT_FLAGS.index("up_to")
MAX_TRASHED_SOURCES = MAX_AMOUNT
OP_MEMORY, OP_DRAW, OP_UNSUSPEND = OPS.index("memory"), OPS.index("draw"), OPS.index("unsuspend")
DURATION_CONTINUOUS, DURATION_THIS_TURN, DURATION_OPP_NEXT, DURATION_YOUR_NEXT = range(4)
# A timed modifier's duration as the core's (tcgjax.core.primitives), by DURATIONS. A continuous
# row adds no timed modifier (its ops are gated off); it maps to the controller's next turn only so
# that the lookup stays in range.
LASTING_DURATION = np.asarray(
    [CONTROLLERS_NEXT_TURN, THIS_TURN, OPPONENTS_NEXT_TURN, CONTROLLERS_NEXT_TURN], np.int32
)
TRIGGER = {name: i for i, name in enumerate(TRIGGERS)}
WHERE_SECURITY = WHERE.index("security")
OP_SUSPEND, OP_PLAY_SELF = OPS.index("suspend"), OPS.index("play_self")
OP_ACTIVATE_MAIN, OP_PLAY_FROM_SOURCES = OPS.index("activate_main"), OPS.index("play_from_sources")
OP_RECOVERY, OP_DE_DIGIVOLVE = OPS.index("recovery"), OPS.index("de_digivolve")
OP_MILL = OPS.index("mill")
OP_TRASH_SECURITY_TOP = OPS.index("trash_security_top")
OP_PLAY_FROM_TRASH = OPS.index("play_from_trash")
OP_PLAY_AFTER_BATTLE = OPS.index("play_self_after_battle")
OP_DIGIVOLVE_INTO = OPS.index("digivolve_into")
FLAG_NO_ON_PLAY = 1 << EFFECT_FLAGS.index("no_on_play")
FLAG_GATES_NEXT = 1 << EFFECT_FLAGS.index("gates_next")
FLAG_ELSE_NEXT = 1 << EFFECT_FLAGS.index("else_next")
TARGET_OPPONENT = TARGETS.index("opponent")
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
CHOICE_CONFIRM, CHOICE_BOTTOM = A.CHOICE_CONFIRM, A.CHOICE_BOTTOM
# The queue group of an optional row its controller has just taken (1000 in its confirm choice):
# it resolves next without asking again (never seen in a decision state: it resolves at once).
GROUP_CONFIRMED = -2
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
    ("play_from_trash", "select_trash"),
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


def _card_filters(cards: CardRegistry) -> CardFilters:
    """Host-side tables of the rows' card filters (:class:`~tcgjax.core.primitives.CardFilters`):
    which definitions each row that chooses cards (``reveal_add``, ``play_free``,
    ``trash_to_hand``, ``play_from_trash``, ...) may take. A row's filter is its ``kinds``
    (empty = any), ``colors`` (a card of several colors matches with one; empty = any),
    ``play_costs`` (empty = any), ``min_level`` <= level <= ``max_level`` for a Digimon (-1 = no
    bound), and ``name_has``: the text is in the card's name, letter case aside (rules 2-3-1-3).
    All of them are printed facts, so the device reads one table entry per candidate card and
    never sees a string."""
    c = cards.numpy
    num_rows = c["effects.where"].shape[-1]
    kind = np.asarray(c["kind"]).astype(np.int64)
    level = np.asarray(c["level"]).astype(np.int64)
    colors = np.asarray(c["colors"]).astype(np.int64)
    cost = np.clip(np.asarray(c["play_cost"]).astype(np.int64), 0, 31)
    names = [""] + [cards.definition(cid)["name"].casefold() for cid in cards.ids[1:]]
    columns = ("kinds", "colors", "play_costs", "min_level", "max_level")
    table = {name: np.asarray(c[f"effects.{name}"]).astype(np.int64) for name in columns}
    keys: list[list] = [[]]  # the padding definition has no rows
    for d, cid in enumerate(cards.ids[1:], start=1):
        row_keys = []
        for r, effect in enumerate(cards.definition(cid)["effects"]):
            key = tuple(int(table[name][d, r]) for name in columns)
            key += (effect.get("name_has", "").casefold(),)
            row_keys.append(None if key == (0, 0, 0, -1, -1, "") else key)
        keys.append(row_keys)

    def passes(key) -> np.ndarray:
        kinds, want_colors, costs, min_level, max_level, text = key
        ok = (kinds == 0) | (((kinds >> kind) & 1) == 1)
        ok &= (costs == 0) | (((costs >> cost) & 1) == 1)
        ok &= (want_colors == 0) | ((colors & want_colors) != 0)
        ok &= (kind != DIGIMON) | (
            ((max_level < 0) | (level <= max_level)) & ((min_level < 0) | (level >= min_level))
        )
        return ok & np.asarray([text in name for name in names])

    return CardFilters.build(keys, num_rows, passes)


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


def _special_digivolve_table(
    cards: CardRegistry, used: Sequence[int], compact: np.ndarray
) -> np.ndarray:
    """Host-side costs of the ``digivolve_into`` rows ("this Digimon may digivolve into a [Name]
    in your hand for N memory, ignoring digivolution requirements": rules 8-1-2-2): int8
    ``[U, U]`` over the used definitions, hand card then top card as in
    :func:`_digivolve_cost_table`: the row's cost when the hand card's name is exactly the name
    the top card's row gives (rules 2-3-1-2), -1 otherwise (one such row per card: the loader's
    rule). Whether the row is in force (its window and condition) is the state's:
    ``Permanents.digivolve_into``."""
    op = np.asarray(cards.numpy["effects.op"])
    num_rows = np.asarray(cards.numpy["effects.num_rows"])
    here = (op == OPS.index("digivolve_into")) & (
        np.arange(op.shape[1])[None, :] < num_rows[:, None]
    )
    cost = np.full((len(used), len(used)), -1, np.int8)
    names = {d: cards.definition(cards.ids[d])["name"] for d in used if d > 0}
    for d in np.flatnonzero(here.any(axis=1)):
        if d not in names:
            continue
        effect = cards.definition(cards.ids[d])["effects"][int(np.argmax(here[d]))]
        for h, name in names.items():
            if name == effect["name_is"]:
                cost[compact[h], compact[d]] = effect["amount"]
    return cost


def _highest_battle_level(kind: jax.Array, size: jax.Array, level: jax.Array) -> jax.Array:
    """int32[2]: the highest level among each player's battle-area Digimon (0 with none), from
    the permanents' top-card ``kind``, stack ``size`` and top-card ``level`` (each ``[2, S]``)."""
    digimon = (kind == DIGIMON) & (size > 0) & IN_BATTLE_AREA
    return jnp.max(jnp.where(digimon, level, 0), axis=1).astype(jnp.int32)


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
