"""Digimon's ``validate``: one declarative table of what every reachable state satisfies
(``field -> rule -> message``, :class:`tcgjax.core.invariants.InvariantTable`), read on the host
from one state's numpy arrays (:class:`Facts`). ``DigimonRules.validate`` / ``.invariants`` /
``.facts`` are its entry points; every leaf of the state is named by some row (a test checks it),
and each row has a state in the tests that breaks only it.

Host side only (numpy, Python control flow): nothing here is traced."""

from __future__ import annotations

from typing import NamedTuple

import jax
import numpy as np

from tcgjax.core import zones
from tcgjax.core.board import Board
from tcgjax.core.invariants import InvariantTable, pile_order_problem
from tcgjax.core.invariants import row as _row
from tcgjax.core.invariants import scalar as _scalar
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.cards import (
    DIGI_EGG,
    DIGIMON,
    EFFECT_FLAGS,
    KEYWORDS,
    KINDS,
    OPS,
    OPTION,
    TAMER,
    TARGETS,
)
from tcgjax.games.digimon.rules import DigimonRules
from tcgjax.games.digimon.state import (
    BREEDING_SLOT,
    CANNOT_ATTACK,
    CANNOT_BLOCK,
    CHOICE_BOTTOM,
    CHOICE_CONFIRM,
    CHOICE_MULLIGAN,
    CHOICE_ORDER,
    CHOICE_ROW,
    DECISION_PHASES,
    END_DECK_OUT,
    END_DRAW,
    END_NONE,
    END_REASONS,
    END_SECURITY,
    LASTING_KEYWORD,
    LASTING_KINDS,
    LASTING_RESTRICT,
    MAX_CHECKS,
    MEMORY_LIMIT,
    NUM_SLOTS,
    ONGOING,
    PHASE,
    QUEUE_SIZE,
    SELECTION_OF_OP,
    SELECTION_STAGES,
    SLOT_ZONES,
    STAGE_CHECKS,
    STAGE_DECLARED,
    STAGE_FIRST_TIMING_OVER,
    STAGE_NONE,
    DigimonState,
    zone_of,
)

__all__ = ["Facts", "facts", "build_invariants"]


class Facts(NamedTuple):
    """One state as host numpy arrays, plus what the invariants derive once.

    ``s``: the state (numpy leaves); ``b``: its board; ``rules``: the rules object; ``kind``,
    ``level``, ``rows`` int[C] per card instance (its definition's kind, level, effect rows;
    looked up with the definition clipped into the registry, which an earlier row checks);
    ``dna`` bool[C] a DNA card;
    ``counts`` int[Z] cards per zone; ``stacks`` [2][S] lists of card instances bottom to top
    (slot order: 12 battle slots, then the breeding area); ``empty`` bool[2, S]; ``phase`` the
    phase's name (``"?"`` out of range); ``paused`` a selection phase; ``timing`` an attack
    timing; ``pending`` a selection is recorded (``selection.card >= 0``).
    """

    s: DigimonState
    b: Board
    rules: DigimonRules
    kind: np.ndarray
    level: np.ndarray
    rows: np.ndarray
    dna: np.ndarray
    counts: np.ndarray
    stacks: list
    empty: np.ndarray
    phase: str
    paused: bool
    timing: bool
    pending: bool


def facts(rules: DigimonRules, state: DigimonState) -> Facts:
    s = jax.tree.map(np.asarray, state)
    b = s.board
    layout = rules.layout
    definition = np.clip(b.definition.astype(int), 0, len(rules.cards.ids) - 1)
    zone = np.clip(b.zone.astype(int), 0, layout.num_zones - 1)
    kind = np.asarray(rules.cards.numpy["kind"])[definition]
    level = np.asarray(rules.cards.numpy["level"])[definition]
    rows = np.asarray(rules.cards.numpy["effects.num_rows"])[definition]
    dna = np.asarray(rules.cards.numpy["dna_cost"])[definition] >= 0
    counts = np.bincount(zone, minlength=layout.num_zones)
    order = np.lexsort((b.position, zone))  # by zone, then position
    sorted_zone = zone[order]
    stacks = [
        [order[sorted_zone == SLOT_ZONES[p, slot]].tolist() for slot in range(NUM_SLOTS)]
        for p in range(2)
    ]
    empty = np.asarray([[not stack for stack in stacks[p]] for p in range(2)])
    phase = A.PHASES[int(b.phase)] if 0 <= int(b.phase) < len(A.PHASES) else "?"
    return Facts(
        s=s,
        b=b,
        rules=rules,
        kind=kind,
        level=level,
        rows=rows,
        dna=dna,
        counts=counts,
        stacks=stacks,
        empty=empty,
        phase=phase,
        paused=phase in A.SELECTION_PHASES,
        timing=phase in ("block_timing", "counter_timing"),
        pending=int(s.selection.card) >= 0,
    )


def _card_path(c: int, leaf: str) -> str:
    return f"cards.card_{c + 1:03d}.{leaf}"


def _check_definitions(f: Facts):
    registry = f.rules.cards
    d = f.b.definition.astype(int)
    bad = np.flatnonzero((d < 1) | (d >= len(registry.ids)))
    if bad.size:
        c = int(bad[0])
        return (
            _card_path(c, "definitionId"),
            f"definition {d[c]} is not a card (the registry's cards are 1..{len(registry.ids) - 1})",
        )
    return None


def _check_conservation(f: Facts):
    for p in range(2):
        eggs, main = f.rules.seat_deck(int(f.s.deck_pair), p)
        held = sorted(f.rules.cards.ids[int(d)] for d in f.b.definition[f.b.owner == p])
        if held != sorted(eggs + main):
            return f"players.player{p + 1}", "does not hold exactly the cards of their deck"
    return None


def _check_zone_owner(f: Facts):
    layout = f.rules.layout
    for c in range(layout.num_cards):
        zone, owner = int(f.b.zone[c]), int(f.b.owner[c])
        if not 0 <= zone < layout.num_zones:
            return _card_path(c, "zoneId"), f"zone {zone} is not a zone"
        zone_type, zone_owner = layout.zones[zone]
        if zone_owner is not None and zone_owner != owner:
            return _card_path(c, "zoneId"), f"in {layout.zone_id(zone)}, not its owner's"
        is_egg = f.kind[c] == DIGI_EGG
        if is_egg and zone_type in ("deck", "hand", "security"):
            return _card_path(c, "zoneId"), f"a Digi-Egg in the {zone_type}"
        if not is_egg and zone_type == "eggs":
            return _card_path(c, "zoneId"), f"a {KINDS[f.kind[c]]} in the Digi-Egg deck"
    return None


def _check_owner(f: Facts):
    initial = np.asarray(f.rules._initial_board.owner)
    bad = np.flatnonzero(f.b.owner != initial)
    if bad.size:
        c = int(bad[0])
        return _card_path(c, "ownerId"), f"owner {int(f.b.owner[c])}, not {int(initial[c])}"
    return None


def _check_pile_order(f: Facts):
    return pile_order_problem(f.rules.layout, f.b)


def _stack_zone(p: int, slot: int) -> str:
    return f"zones.{'breeding' if slot == BREEDING_SLOT else f'field{slot}'}_player{p + 1}"


def _check_battle_stacks(f: Facts):
    """Battle-area stacks: a Digimon or a Tamer on top; a Tamer alone; under the top card only
    Digimon and Digi-Eggs; a Digi-Egg at the bottom (or, after a DNA digivolution, at the
    bottom of the second material's cards: on a Digimon, under a Digimon, the DNA card above);
    the top card's level above every Digimon level under it."""
    dna = f.dna
    for p in range(2):
        for slot in range(A.FIELD_SLOTS):
            stack = f.stacks[p][slot]
            if not stack:
                continue
            where, top, under = _stack_zone(p, slot), stack[-1], stack[:-1]
            if f.kind[top] not in (DIGIMON, TAMER):
                return where, f"a {KINDS[f.kind[top]]} on top of a battle-area stack"
            if any(f.kind[c] == TAMER for c in stack) and len(stack) > 1:
                return where, "a Tamer stands alone, never over or under another card"
            for i, c in enumerate(under):
                if f.kind[c] not in (DIGIMON, DIGI_EGG):
                    return where, f"a {KINDS[f.kind[c]]} under the top card"
                # A Digi-Egg leaves the breeding area under the Digimon that hatched from it, so
                # one above the bottom is the bottom of the second stack a DNA digivolution
                # joined: on the first stack's top Digimon, under its own Digimon, and the DNA
                # card above that.
                if (
                    f.kind[c] == DIGI_EGG
                    and i > 0
                    and (
                        f.kind[stack[i - 1]] != DIGIMON
                        or f.kind[stack[i + 1]] != DIGIMON
                        or not any(dna[d] for d in stack[i + 2 :])
                    )
                ):
                    return where, (
                        f"a Digi-Egg at position {i}, not at the bottom of either stack a DNA "
                        "digivolution joined"
                    )
            levels = [int(f.level[c]) for c in under if f.kind[c] == DIGIMON]
            if levels and f.kind[top] == DIGIMON and int(f.level[top]) <= max(levels):
                return where, f"a Level {int(f.level[top])} over a Level {max(levels)}"
    return None


def _check_breeding_stacks(f: Facts):
    for p in range(2):
        stack = f.stacks[p][BREEDING_SLOT]
        if not stack:
            continue
        where = _stack_zone(p, BREEDING_SLOT)
        if f.kind[stack[0]] != DIGI_EGG:
            return where, f"a {KINDS[f.kind[stack[0]]]} at the bottom, not a Digi-Egg"
        for c in stack[1:]:
            if f.kind[c] != DIGIMON:
                return where, f"a {KINDS[f.kind[c]]} above the Digi-Egg"
        levels = [int(f.level[c]) for c in stack[1:-1]]
        if levels and int(f.level[stack[-1]]) <= max(levels):
            return where, f"a Level {int(f.level[stack[-1]])} over a Level {max(levels)}"
    return None


def _check_processing(f: Facts):
    cards = np.flatnonzero(f.b.zone == f.rules.layout.zone_index("processing"))
    if cards.size > 1:
        return f"{cards.size} cards resolve at once"
    if cards.size and f.kind[cards[0]] != OPTION:
        return f"a {KINDS[f.kind[cards[0]]]}, not an Option"
    if cards.size and int(f.s.queue.card[0]) < 0 and not f.pending:
        return "an Option with nothing of it queued and no selection pending"
    return None


def _check_revealed(f: Facts):
    revealed = np.flatnonzero(f.b.zone == f.rules.layout.zone_index("revealed"))
    if f.phase != "select_reveal" and set(revealed.tolist()) - {int(f.s.checking)}:
        return "cards stay revealed only while a reveal_add row chooses"
    return None


def _check_parity(f: Facts):
    first, turn, active = int(f.s.first_player), int(f.b.turn_number), int(f.b.active_player)
    expected = first if turn % 2 == 1 else 1 - first
    if active != expected:
        return f"player {active} active on turn {turn}; the first player is {first}"
    return None


def _check_memory_left(f: Facts):
    s = f.s
    idle = (
        f.phase in ("breeding", "main")
        and not f.pending
        and int(s.attacker) == -1
        and int(s.queue.card[0]) < 0
        and int(s.winner) == ONGOING
        and f.counts[f.rules.layout.zone_index("processing")] == 0
    )
    if f.rules.memory_rule == "official" and idle and int(s.memory) < 0:
        return f"{int(s.memory)} < 0 with nothing pending in the {f.phase} phase (the turn ends)"
    return None


def _check_entered(f: Facts):
    turn = int(f.b.turn_number)
    entered = f.s.entered_turn.astype(int)
    if np.any(~f.empty & ((entered < 0) | (entered > turn))):
        return f"an occupied slot's entry turn outside [0, {turn}]"
    return None


def _check_queue_packed(f: Facts):
    used = f.s.queue.card >= 0
    if np.any(~used[:-1] & used[1:]):
        return "an entry after an empty one (entries are packed at the front)"
    q = f.s.queue
    free = ~used
    if np.any(free & ((q.row != -1) | (q.slot != -1) | (q.group != -1) | (q.card != -1))):
        return "an empty entry not all -1"
    return None


def _check_queue_entries(f: Facts):
    q, num_cards = f.s.queue, f.rules.layout.num_cards
    for i in np.flatnonzero(q.card >= 0):
        card, row = int(q.card[i]), int(q.row[i])
        if card >= num_cards:
            return f"entry {i}: card {card} is not a card instance"
        if not 0 <= row < int(f.rows[card]):
            return f"entry {i}: row {row} is not an effect row of its card"
        if not -1 <= int(q.slot[i]) <= BREEDING_SLOT:
            return f"entry {i}: slot {int(q.slot[i])} outside [-1, {BREEDING_SLOT}]"
        if not -1 <= int(q.group[i]) <= QUEUE_SIZE:
            return f"entry {i}: group {int(q.group[i])} outside [-1, {QUEUE_SIZE}]"
    return None


def _check_lasting_fields(f: Facts):
    s = f.s
    if np.any((s.lasting_kind < 0) | (s.lasting_kind > LASTING_KINDS)):
        return f"kinds {s.lasting_kind.tolist()} outside 0..{LASTING_KINDS}"
    if np.any((s.lasting_player < -1) | (s.lasting_player > 1)):
        return f"players {s.lasting_player.tolist()} outside -1..1"
    if np.any((s.lasting_slot < -1) | (s.lasting_slot > BREEDING_SLOT)):
        return f"slots {s.lasting_slot.tolist()} outside [-1, {BREEDING_SLOT}]"
    return None


def _check_lasting_live(f: Facts):
    s, turn = f.s, int(f.b.turn_number)
    for i in np.flatnonzero(s.lasting_kind != 0):
        if int(s.lasting_player[i]) not in (0, 1):
            return f"entry {i}: a live modifier of no player"
        if int(s.lasting_expires[i]) < turn:
            return f"entry {i}: expired at turn {int(s.lasting_expires[i])}, still live on {turn}"
        restrict = int(s.lasting_kind[i]) == LASTING_RESTRICT
        if restrict and int(s.lasting_amount[i]) & ~(CANNOT_ATTACK | CANNOT_BLOCK):
            return f"entry {i}: restriction bits {int(s.lasting_amount[i])} beyond CANNOT_*"
        granted = int(s.lasting_amount[i])
        if int(s.lasting_kind[i]) == LASTING_KEYWORD and not 0 < granted < 1 << len(KEYWORDS):
            return (
                f"entry {i}: granted keyword bits {granted} outside 1..{(1 << len(KEYWORDS)) - 1}"
            )
    return None


def _check_attacked(f: Facts):
    if int(f.s.attacker) >= 0 and not bool(f.s.attacked):
        return "an attack is recorded, yet none was declared this turn"
    before_main = f.phase in ("start", "draw", "breeding") or (
        f.paused and int(f.s.selection.resume) in (PHASE["start"], PHASE["breeding"])
    )
    if bool(f.s.attacked) and before_main:
        return f"an attack declared this turn, yet the turn is before its Main phase ({f.phase})"
    return None


_SELECTION_NONE = dict(card=-1, row=-1, slot=-1, left=0, stage=0, picked=-1, resume=-1)
_RESUME_PHASES = (PHASE["start"], PHASE["breeding"], PHASE["main"])


def _check_selection_none(f: Facts):
    if f.pending:
        return None
    sel = f.s.selection
    for name, value in _SELECTION_NONE.items():
        if int(getattr(sel, name)) != value:
            return f"no selection pending but {name} = {int(getattr(sel, name))}, not {value}"
    return None


def _check_selection_pending(f: Facts):
    sel = f.s.selection
    if not f.pending:
        return None
    if int(sel.card) >= f.rules.layout.num_cards:
        return f"card {int(sel.card)} is not a card instance"
    if int(sel.left) < 1:
        return f"{int(sel.left)} choices left"
    if not -1 <= int(sel.slot) <= BREEDING_SLOT:
        return f"slot {int(sel.slot)} outside [-1, {BREEDING_SLOT}]"
    if int(sel.resume) not in _RESUME_PHASES:
        return f"resumes phase {int(sel.resume)}, not start, breeding or main"
    picked = int(sel.picked)
    if picked == -1:
        return None
    # A max_total_dp row (ST7-12) marks its picks: opposing battle slots holding a Digimon, their
    # DP within the budget (read now).
    definition = int(f.b.definition[int(sel.card)])
    budget = int(np.asarray(f.rules.cards.numpy["effects.max_total_dp"])[definition, int(sel.row)])
    if budget < 0 or f.phase != "select_target":
        return f"picked {picked} (unused: -1, but for a max_total_dp row's picks)"
    if not 0 < picked < 1 << A.FIELD_SLOTS:
        return f"picked {picked}: not a set of battle slots 0-{A.FIELD_SLOTS - 1}"
    owner = 1 - int(f.b.owner[int(sel.card)])
    slots = [i for i in range(A.FIELD_SLOTS) if picked >> i & 1]
    perm = f.rules.permanents(f.s)
    if any(int(perm.kind[owner, i]) != DIGIMON for i in slots):
        return f"picked {picked}: a picked slot of player{owner + 1} holds no Digimon"
    spent = sum(int(perm.dp[owner, i]) for i in slots)
    if spent > budget:
        return f"picked {picked}: their DP {spent} over the row's max_total_dp {budget}"
    return None


def _check_material(f: Facts):
    if f.phase != "select_material" or not f.pending:
        return None
    sel, card = f.s.selection, int(f.s.selection.card)
    if int(sel.row) != -1:
        return f"row {int(sel.row)} in SelectMaterial (-1: the DNA card itself)"
    if int(f.b.zone[card]) != int(zone_of("hand", int(f.b.owner[card]))):
        return "the DNA card is not in its owner's hand"
    if int(np.asarray(f.rules.cards.numpy["dna_cost"])[int(f.b.definition[card])]) < 0:
        return "the card has no DNA requirements"
    return None


def _check_decision_phase(f: Facts):
    if int(f.s.winner) == ONGOING and f.phase not in DECISION_PHASES:
        return f"{f.phase} is passed through within an action, never decided in"
    return None


def _check_attack_stage(f: Facts):
    stage, attacker = int(f.s.attack_stage), int(f.s.attacker)
    if (stage == STAGE_NONE) != (attacker == -1) or not STAGE_NONE <= stage <= STAGE_CHECKS:
        return f"stage {stage} does not agree with attacker {attacker}"
    return None


def _check_timing_stage(f: Facts):
    if not f.timing:
        return None
    first = "counter_timing" if f.rules.timing_order == "official" else "block_timing"
    expected = STAGE_DECLARED if f.phase == first else STAGE_FIRST_TIMING_OVER
    if int(f.s.attack_stage) != expected:
        return f"stage {int(f.s.attack_stage)} waits in the {f.phase}, not {expected}"
    return None


def _check_checks_left(f: Facts):
    left = int(f.s.checks_left)
    if not 0 <= left <= MAX_CHECKS:
        return f"{left} outside [0, {MAX_CHECKS}]"
    if int(f.s.attack_stage) == STAGE_NONE and left != 0:
        return f"{left} checks left with no attack"
    return None


def _check_checking(f: Facts):
    checking, layout = int(f.s.checking), f.rules.layout
    if checking == -1:
        return None
    if int(f.s.attack_stage) != STAGE_CHECKS or not 0 <= checking < layout.num_cards:
        return "a security card is checked outside the security checks"
    if int(f.b.zone[checking]) != layout.zone_index("revealed") and not f.paused:
        return "the checked card has left the revealed zone mid-check"
    return None


def _check_selection_phase(f: Facts):
    if f.pending != f.paused:
        return f"a pending selection exactly in the selection phases, not {f.phase}"
    return None


def _check_selection_stage(f: Facts):
    choice = int(f.s.selection.stage)
    if choice not in range(len(SELECTION_STAGES)):
        return f"{choice} is not one of {SELECTION_STAGES}"
    if f.paused and choice == CHOICE_ORDER and f.rules.trigger_order != "chosen":
        return "a trigger-order choice under trigger_order=fixed"
    if f.paused and choice == CHOICE_MULLIGAN:
        card = int(f.s.selection.card)
        if not f.rules.mulligan or int(f.b.turn_number) != 1 or not 0 <= card < f.b.zone.size:
            return "a mulligan outside the setup (or with mulligan off)"
        if np.any(~f.empty) or int(f.s.attack_stage) != STAGE_NONE:
            return "a mulligan after the game has begun"
        if int(f.s.selection.resume) != PHASE["breeding"]:
            return "a mulligan that does not lead to the Breeding phase"
    return None


def _check_one_pick(f: Facts):
    # A trigger order (G10), the mulligan and an optional row's confirm choice are answered by
    # one pick, which closes the choice (``_order``, the mulligan's step, ``_select``):
    # Selection.open writes left = 1 for each.
    if f.paused and int(f.s.selection.stage) in (CHOICE_ORDER, CHOICE_MULLIGAN, CHOICE_CONFIRM):
        if int(f.s.selection.left) != 1:
            return f"{int(f.s.selection.left)} choices left, not 1"
    return None


def _check_choice_phase(f: Facts):
    choice = int(f.s.selection.stage)
    if not f.paused or choice == CHOICE_ROW or choice not in range(len(SELECTION_STAGES)):
        return None
    expected = "select_reveal" if choice == CHOICE_BOTTOM else "select_effect_choice"
    if f.phase != expected:
        return f"a {SELECTION_STAGES[choice]} choice waits in {f.phase}"
    return None


def _pending_row(f: Facts) -> tuple[int, int] | None:
    """``(definition, row)`` of the effect row the pending selection names, or ``None`` when the
    row is not one of its card's (``_check_selection_row`` names that)."""
    card, row = int(f.s.selection.card), int(f.s.selection.row)
    definition = int(f.b.definition[card])
    if not 0 <= row < int(f.rules.cards.numpy["effects.num_rows"][definition]):
        return None
    return definition, row


def _check_bottom_order(f: Facts):
    # The order of the cards a reveal_add row leaves (``_put_back_revealed``): opened with two
    # or more of them, one pick a card, the last one going by itself.
    found = _pending_row(f) if f.paused and int(f.s.selection.stage) == CHOICE_BOTTOM else None
    if found is None:
        return None
    definition, row = found
    if OPS[int(f.rules.cards.numpy["effects.op"][definition, row])] != "reveal_add":
        return f"a bottom order for row {row}, which is not a reveal_add row"
    revealed = np.flatnonzero(f.b.zone == f.rules.layout.zone_index("revealed"))
    waiting = len(set(revealed.tolist()) - {int(f.s.checking)})
    if waiting < 2 or int(f.s.selection.left) != waiting - 1:
        return f"{int(f.s.selection.left)} picks left for {waiting} revealed cards (one fewer)"
    return None


def _check_selection_card(f: Facts):
    sel, choice = f.s.selection, int(f.s.selection.stage)
    if f.paused and choice == CHOICE_ORDER and int(f.s.queue.card[0]) != int(sel.card):
        return "a trigger-order choice not about the first queued row"
    if f.paused and choice == CHOICE_MULLIGAN:
        card = int(sel.card)
        if int(f.b.zone[card]) != int(zone_of("hand", int(f.b.owner[card]))):
            return "the mulligan's card is not in its owner's hand"
    return None


def _check_selection_row(f: Facts):
    stage = int(f.s.selection.stage)
    named = (CHOICE_ROW, CHOICE_CONFIRM, CHOICE_BOTTOM)
    if not (f.paused and stage in named and f.phase != "select_material"):
        return None
    card, row = int(f.s.selection.card), int(f.s.selection.row)
    definition = int(f.b.definition[card]) if 0 <= card < f.b.zone.size else 0
    num_rows = int(f.rules.cards.numpy["effects.num_rows"][definition])
    if not 0 <= row < num_rows:
        return f"row {row} is not an effect row of the selecting card"
    return None


def _check_confirm_row(f: Facts):
    # Only an optional row that chooses nothing asks to be taken (``_execute``); one that
    # chooses offers 62 beside its choices instead.
    found = _pending_row(f) if f.paused and int(f.s.selection.stage) == CHOICE_CONFIRM else None
    if found is None:
        return None
    definition, row = found
    cards = f.rules.cards.numpy
    flags = int(cards["effects.flags"][definition, row])
    op = int(cards["effects.op"][definition, row])
    target = TARGETS[int(cards["effects.target"][definition, row])]
    chooses = (target.startswith("choose_") or SELECTION_OF_OP[op] >= 0) and int(
        cards["effects.count"][definition, row]
    ) > 0
    if not flags & 1 << EFFECT_FLAGS.index("optional") or chooses:
        return f"a confirm choice for row {row}, which is not an optional row choosing nothing"
    return None


def _check_row_phase(f: Facts):
    if not (f.paused and int(f.s.selection.stage) == CHOICE_ROW and f.phase != "select_material"):
        return None
    card, row = int(f.s.selection.card), int(f.s.selection.row)
    op = int(f.rules.cards.numpy["effects.op"][int(f.b.definition[card]), row])
    expected = int(SELECTION_OF_OP[op]) if SELECTION_OF_OP[op] >= 0 else PHASE["select_target"]
    if expected != int(f.b.phase):
        return f"{f.phase} is not the selection of a {OPS[op]} row"
    return None


def _check_attack_recorded(f: Facts):
    if not (f.timing or f.paused) and (int(f.s.attacker), int(f.s.attack_target)) != (-1, -1):
        return "an attack is recorded outside the attack timings"
    if f.timing:
        attacker, me = int(f.s.attacker), int(f.b.active_player)
        if not 0 <= attacker < A.FIELD_SLOTS or f.empty[me, attacker]:
            return f"{attacker} is not a permanent of the attacking player"
        if f.kind[f.stacks[me][attacker][-1]] != DIGIMON:
            return f"the attacker in slot {attacker} is not a Digimon"
    return None


def _check_attack_target(f: Facts):
    target = int(f.s.attack_target)
    if (target == -1) != (int(f.s.attacker) == -1):
        return f"target {target} does not agree with attacker {int(f.s.attacker)}"
    if not -1 <= target <= A.TARGET_PLAYER:
        return f"{target} is neither a field slot nor the player"
    if f.timing:
        defender = 1 - int(f.b.active_player)
        if not 0 <= target <= A.TARGET_PLAYER:
            return f"{target} is neither a field slot nor the player"
        if target < A.FIELD_SLOTS and f.empty[defender, target]:
            return f"the target slot {target} of the defender is empty"
    return None


def _check_winner(f: Facts):
    if int(f.s.winner) not in (ONGOING, 0, 1, 2):
        return f"{int(f.s.winner)} is not -1, a player or 2 (draw)"
    return None


def _check_end_reason(f: Facts):
    winner, reason = int(f.s.winner), int(f.s.end_reason)
    if (winner == ONGOING) != (reason == END_NONE):
        return "does not agree with the winner"
    if not 0 <= reason < len(END_REASONS):
        return f"{reason} is not one of {END_REASONS}"
    if (winner == 2) != (reason == END_DRAW):
        return f"{END_REASONS[reason]} with winner {winner}"
    loser = 1 - winner
    if reason == END_SECURITY and f.counts[int(zone_of("security", loser))]:
        return "a security_attack win while the loser still has security cards"
    if reason == END_DECK_OUT:
        if f.counts[int(zone_of("deck", loser))]:
            return "a deck_out while the loser's deck holds cards"
        if f.phase != "draw":
            return f"a deck_out ends in the Draw phase, not {f.phase}"
    return None


def _check_end_fired(f: Facts):
    if not bool(f.s.end_fired):
        return None
    in_main = f.phase in ("main", "block_timing", "counter_timing") or (
        f.paused and int(f.s.selection.resume) == PHASE["main"]
    )
    if not in_main:
        return f"[End of Your Turn] rows fired, yet the phase is {f.phase}"
    return None


def _check_opt_used(f: Facts):
    if np.any(f.s.opt_used.astype(int) >> f.rows):
        return "a once-per-turn use recorded for an effect row the card lacks"
    return None


def _check_suspended(f: Facts):
    if np.any(f.s.suspended & f.empty):
        return "an empty permanent slot is suspended"
    if bool(f.s.suspended[:, BREEDING_SLOT].any()):
        return "the breeding area is suspended"
    return None


def _check_board_defaults(f: Facts):
    b = f.b
    if np.any(b.visibility != zones.NO_OVERRIDE):
        return "board.visibility", "a visibility override (the game never sets one)"
    if np.any(b.card_attributes != 0):
        return "board.card_attributes", "card attributes set (the game never sets them)"
    if np.any(b.player_attributes != 0):
        return "board.player_attributes", "player attributes set (the game never sets them)"
    if int(b.version) < 0:
        return "board.version", f"{int(b.version)} < 0"
    return None


def build_invariants(rules: DigimonRules) -> InvariantTable:
    """The rows of :meth:`DigimonRules.validate`, in the order they are checked (ranges first,
    so that a later row may index by a field an earlier one bounded)."""
    del rules  # the rows read the rules off the facts (one table shape for every rules object)
    num = lambda f, x: int(x)  # noqa: E731
    rows = [
        _row("board.phase", "turnState.phase", "phase is a GamePhase value",
             lambda f: None if f.phase != "?" else f"{int(f.b.phase)} is not a GamePhase value"),
        _row("board.active_player", "turnState.activePlayerId", "the active player is 0 or 1",
             lambda f: _scalar(num(f, f.b.active_player), lambda v: v in (0, 1),
                               lambda v: f"{v} is not a player")),
        _row("board.turn_number", "turnState.turnNumber", "the turn is at least 1",
             lambda f: _scalar(num(f, f.b.turn_number), lambda v: v >= 1, lambda v: f"{v} < 1")),
        _row("first_player", "game.first_player", "the first player is 0 or 1",
             lambda f: _scalar(num(f, f.s.first_player), lambda v: v in (0, 1),
                               lambda v: f"{v} is not a player")),
        _row("memory", "game.memory", "memory within [-10, 10]",
             lambda f: _scalar(num(f, f.s.memory), lambda v: -MEMORY_LIMIT <= v <= MEMORY_LIMIT,
                               lambda v: f"{v} outside [-10, 10]")),
        _row("board.definition", "cards.card_NNN.definitionId",
             "each card instance is a card of the registry (not the padding row)",
             _check_definitions),
        _row("deck_pair", "game.deck_pair", "the matchup is an index into the rules' pairs",
             lambda f: _scalar(num(f, f.s.deck_pair), lambda v: 0 <= v < len(f.rules.pairs),
                               lambda v: f"{v} outside [0, {len(f.rules.pairs)})")),
        _row("board.owner board.definition deck_pair", "players.playerN",
             "each player holds exactly the cards of their decks (of the game's matchup)",
             _check_conservation),
        _row("board.owner", "cards.card_NNN.ownerId",
             "each card instance is owned as on the initial board (player-major)", _check_owner),
        _row("board.zone", "cards.card_NNN.zoneId",
             "each card in a zone of its owner or a shared one; Digi-Eggs only in the Digi-Egg "
             "deck, the breeding area, the battle area or the trash; the Digi-Egg deck only Eggs",
             _check_zone_owner),
        _row("board.position", "zones.ZONE",
             "the positions of each zone's cards are exactly 0..n-1", _check_pile_order),
        _row("board.zone board.position", "zones.fieldN_playerP",
             "a battle-area stack: a Digimon or Tamer on top, a Tamer alone, Digimon and "
             "Digi-Eggs under it, a Digi-Egg at the bottom (or at the bottom of a DNA "
             "digivolution's second material), the top level "
             "above every Digimon level under it", _check_battle_stacks),
        _row("board.zone board.position", "zones.breeding_playerP",
             "the breeding stack: a Digi-Egg at the bottom, Digimon above, the top level highest",
             _check_breeding_stacks),
        _row("board.zone", "zones.processing",
             "processing: at most one card, an Option, only while its rows are queued or a "
             "selection is pending", _check_processing),
        _row("board.zone", "cards.revealed",
             "cards stay revealed only while a reveal_add row chooses (or one is checked)",
             _check_revealed),
        _row("board.visibility board.card_attributes board.player_attributes board.version",
             "board", "the board fields the game never sets hold a new board's values "
             "(no visibility override, zero attributes) and the version counts up from 0",
             _check_board_defaults),
        _row("suspended", "game.suspended",
             "an empty permanent slot is not suspended; the breeding area never is",
             _check_suspended),
        _row("entered_turn", "game.entered_turn", "an empty permanent slot has entry turn -1",
             lambda f: "an empty permanent slot has an entry turn"
             if np.any((f.s.entered_turn != -1) & f.empty) else None),
        _row("entered_turn", "game.entered_turn",
             "an occupied slot's entry turn is in [0, turn] (0: may attack)", _check_entered),
        _row("winner", "game.winner", "the winner is -1, a player or 2 (draw)", _check_winner),
        _row("winner end_reason", "game.end_reason",
             "the end reason agrees with the winner and how the game ended", _check_end_reason),
        _row("board.phase winner", "turnState.phase",
             "a game that goes on waits in a decision phase", _check_decision_phase),
        _row("memory", "game.memory",
             "official memory: in the Breeding or Main phase with nothing pending the gauge is "
             "not below 0 (the turn would have ended)", _check_memory_left),
        _row("attack_stage attacker", "game.attack_stage",
             "the attack stage agrees with the attacker", _check_attack_stage),
        _row("attack_stage", "game.attack_stage",
             "in a timing the attack waits at the stage of that timing", _check_timing_stage),
        _row("checks_left", "game.checks_left", "checks left in [0, 8], 0 with no attack",
             _check_checks_left),
        _row("checking", "game.checking",
             "a checked security card only during the checks, in revealed unless paused",
             _check_checking),
        _row("selection.card", "game.selection.card",
             "a pending selection exactly in the selection phases", _check_selection_phase),
        _row("selection.card selection.row selection.slot selection.left selection.stage "
             "selection.picked selection.resume", "game.selection",
             "with no selection pending every field is Selection.none()'s", _check_selection_none),
        _row("selection.card selection.left selection.slot selection.resume selection.picked",
             "game.selection", "a pending selection: a card, left >= 1, slot in [-1, 12], "
             "resume start/breeding/main, picked -1 (a max_total_dp row: its picks)",
             _check_selection_pending),
        _row("selection.stage", "game.selection.stage",
             "the stage is a SELECTION_STAGES value; trigger orders and the mulligan when and "
             "only as the options allow", _check_selection_stage),
        _row("selection.left selection.stage", "game.selection.left",
             "a trigger-order, mulligan or confirm choice is one pick (left 1)", _check_one_pick),
        _row("selection.row selection.stage", "game.selection.row",
             "a confirm choice is about an optional row that chooses nothing", _check_confirm_row),
        _row("selection.stage board.phase", "turnState.phase",
             "a non-row choice waits in SelectEffectChoice (a bottom order in SelectReveal)",
             _check_choice_phase),
        _row("selection.left selection.row", "game.selection",
             "a bottom order: a reveal_add row, one pick fewer than the cards it left revealed",
             _check_bottom_order),
        _row("selection.card", "game.selection.card",
             "a trigger order is about the first queued row; the mulligan's card is in its "
             "owner's hand", _check_selection_card),
        _row("selection.row", "game.selection.row",
             "a row's selection names an effect row of its card", _check_selection_row),
        _row("selection.row board.phase", "turnState.phase",
             "a row's selection waits in the phase of its op", _check_row_phase),
        _row("selection.card selection.row", "game.selection",
             "SelectMaterial: row -1, a DNA card in its owner's hand", _check_material),
        _row("board.active_player board.turn_number first_player", "turnState.activePlayerId",
             "the first player is active on odd turns (turn 1 is theirs, the mulligan included)",
             _check_parity),
        _row("attacker", "game.attacker",
             "an attack is recorded only in a timing or a selection; in a timing the attacker is "
             "a Digimon of the active player", _check_attack_recorded),
        _row("attack_target", "game.attack_target",
             "the target is the player (12) or an occupied slot of the defender",
             _check_attack_target),
        _row("end_fired", "game.end_fired",
             "[End of Your Turn] rows fired only in the Main phase or what interrupts it",
             _check_end_fired),
        _row("opt_used", "game.opt_used", "once-per-turn uses only for rows the card has",
             _check_opt_used),
        _row("queue.card queue.row queue.slot queue.group", "game.queue",
             "entries packed at the front; empty entries all -1", _check_queue_packed),
        _row("queue.card queue.row queue.slot queue.group", "game.queue",
             "each entry: a card, one of its effect rows, slot [-1, 12], group [-1, Q]",
             _check_queue_entries),
        _row("lasting_kind lasting_player lasting_slot", "game.lasting",
             "kind 0..5, player -1..1, slot [-1, 12]", _check_lasting_fields),
        _row("lasting_kind lasting_player lasting_amount lasting_expires", "game.lasting",
             "a live modifier: a player's, not expired, a restriction only CANNOT_* bits, a "
             "granted keyword only keyword bits", _check_lasting_live),
        _row("attacked", "game.attacked",
             "set once the turn player declares an attack, and only from their Main phase on",
             _check_attacked),
    ]  # fmt: skip
    return InvariantTable(rows)
