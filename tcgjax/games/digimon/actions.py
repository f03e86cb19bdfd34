"""The Digimon action space (``digimon_action_space.md``): 2120 ids, declared once.

The ranges are the spec's, to the letter:

======================  ===========  ====  =====================================================
range                   ids          size  formula
======================  ===========  ====  =====================================================
``play``                0–29         30    ``hand_index``
``trash_hand``          30–59        30    ``30 + hand_index`` (effect-driven)
``hatch``               60           1
``move_breeding``       61           1
``pass``                62           1     pass / end turn / decline an optional effect
``dna``                 63–92        30    ``63 + hand_index``, then ``SelectMaterial``
``unused``              93–99        7     never legal
``attack``              100–399      300   ``100 + attacker * 15 + target`` (target 12 = player)
``digivolve``           400–999      600   ``400 + hand * 15 + field`` (field 12 = breeding, G8)
``activate``            1000–1999    1000  ``1000 + source * 10 + effect_index``
``source``              2000–2119    120   ``2000 + field * 10 + source_index``
======================  ===========  ====  =====================================================

Decision G4: selection phases reuse index ranges as the spec's "Selection Conventions" say, so one id
means different things in different phases. :func:`decode` resolves an id *in a phase*; the
phase-free :func:`action_name` is the Main-phase meaning (what ``env.action_name`` returns, for
places with no state). :func:`describe` names a move in a given state, built on :func:`decode`:
the cards it acts on, by name and position (what ``env.describe_action`` returns), e.g. ``digivolve
Greymon (hand 3) onto Agumon (field 1)``, ``block with Garurumon (field 0)``, ``select Agumon in
the opponent's field (field 2)``.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import numpy as np

from tcgjax.core.actions import ActionLayout
from tcgjax.core.errors import ConfigError

__all__ = [
    "LAYOUT",
    "NUM_ACTIONS",
    "PHASES",
    "SELECTION_PHASES",
    "FIELD_SLOTS",
    "TARGET_PLAYER",
    "BREEDING_FIELD",
    "Decoded",
    "decode",
    "action_name",
    "describe",
    "pending_effect_card",
    "encode",
]

NUM_ACTIONS = 2120
HAND_SLOTS = 30
FIELD_SLOTS = 12  # battle-area permanents per player
TARGET_PLAYER = 12  # attack target index of the opponent's security stack (direct attack)
BREEDING_FIELD = 12  # digivolve field index of the breeding area (decision G8)
FIELD_STRIDE = 15  # attack and digivolve formulas: * 15
SOURCE_STRIDE = 10  # activate and source formulas: * 10

LAYOUT = ActionLayout(
    [
        ("play", HAND_SLOTS),
        ("trash_hand", HAND_SLOTS),
        ("hatch", 1),
        ("move_breeding", 1),
        ("pass", 1),
        ("dna", HAND_SLOTS),
        ("unused", 7),
        # Argument shapes (attacker x target, hand x field, permanent x effect, field x source):
        # the spec's formulas (attack = 100 + attacker * 15 + target, ...) read row-major.
        ("attack", (20, FIELD_STRIDE)),
        ("digivolve", (40, FIELD_STRIDE)),
        ("activate", (100, SOURCE_STRIDE)),
        ("source", (FIELD_SLOTS, SOURCE_STRIDE)),
    ]
)
assert LAYOUT.num_actions == NUM_ACTIONS

# GamePhase values of digimon_state_tensor.md (also the ``phase`` float of the observation).
PHASES = (
    "start",
    "draw",
    "breeding",
    "main",
    "end",
    "select_target",
    "select_material",
    "block_timing",
    "counter_timing",
    "select_trash",
    "select_source",
    "select_hand",
    "select_reveal",
    "select_effect_choice",
    "select_security",
)
SELECTION_PHASES = tuple(p for p in PHASES if p.startswith("select_"))


class Decoded(NamedTuple):
    """What an action id means in a phase.

    ``kind`` is one of: ``play``, ``trash_hand``, ``hatch``, ``move_breeding``, ``pass``, ``dna``,
    ``unused``, ``attack``, ``digivolve``, ``activate``, ``source`` (Main-phase meanings);
    ``decline``, ``block`` (BlockTiming), ``blast_digivolve`` (CounterTiming); in selection phases
    ``select_hand``, ``select_revealed``, ``select_own_security``, ``select_opponent_security``,
    ``select_own_breeding``, ``select_own_field``, ``select_opponent_field``, ``select_trash``,
    ``select_branch``, ``select_source``; or ``not_in_phase`` for an id the phase never uses.
    ``a`` and ``b`` are its indices (-1 when unused): hand index, attacker / target, hand / field,
    permanent / effect, field / source, slot, branch. ``name`` is readable, e.g. ``attack[2->player]``.
    """

    kind: str
    a: int
    b: int
    name: str


def _check(action: int) -> int:
    if isinstance(action, bool) or not 0 <= int(action) < NUM_ACTIONS:
        raise ConfigError(f"action {action!r} outside [0, {NUM_ACTIONS})")
    return int(action)


def _target_name(target: int) -> str:
    if target == TARGET_PLAYER:
        return "player"
    return f"field{target}" if target < FIELD_SLOTS else f"unused{target}"


def _field_name(field: int) -> str:
    if field == BREEDING_FIELD:
        return "breeding"
    return f"field{field}" if field < FIELD_SLOTS else f"unused{field}"


def _main_meaning(action: int) -> Decoded:
    name, offset = LAYOUT.decode(action)
    if name in ("hatch", "move_breeding", "pass"):
        return Decoded(name, -1, -1, name)
    if name in ("play", "trash_hand", "dna", "unused"):
        return Decoded(name, offset, -1, f"{name}[{offset}]")
    if name == "attack":
        a, t = divmod(offset, FIELD_STRIDE)
        return Decoded(name, a, t, f"attack[{a}->{_target_name(t)}]")
    if name == "digivolve":
        h, f = divmod(offset, FIELD_STRIDE)
        return Decoded(name, h, f, f"digivolve[hand{h}->{_field_name(f)}]")
    a, b = divmod(offset, SOURCE_STRIDE)
    if name == "activate":
        return Decoded(name, a, b, f"activate[{a}.{b}]")
    return Decoded(name, a, b, f"source[field{a}.{b}]")


def _selection_meaning(phase: str, action: int) -> Decoded:
    """The spec's "Selection Conventions" table."""
    if action == 62:
        return Decoded("decline", -1, -1, "decline")
    if phase == "select_source":
        if 2000 <= action < 2000 + FIELD_SLOTS * SOURCE_STRIDE:
            f, i = divmod(action - 2000, SOURCE_STRIDE)
            return Decoded("select_source", f, i, f"select_source[field{f}.{i}]")
    elif action < 30:
        return Decoded("select_hand", action, -1, f"select_hand[{action}]")
    elif phase == "select_hand" and 30 <= action < 60:
        i = action - 30
        return Decoded("trash_hand", i, -1, f"trash_hand[{i}]")
    elif 30 <= action < 40:
        return Decoded("select_revealed", action - 30, -1, f"select_revealed[{action - 30}]")
    elif 40 <= action < 50:
        return Decoded(
            "select_own_security", action - 40, -1, f"select_own_security[{action - 40}]"
        )
    elif 50 <= action < 60:
        i = action - 50
        return Decoded("select_opponent_security", i, -1, f"select_opponent_security[{i}]")
    elif action == 99:
        return Decoded("select_own_breeding", -1, -1, "select_own_breeding")
    elif 100 <= action < 112:
        return Decoded("select_own_field", action - 100, -1, f"select_own_field[{action - 100}]")
    elif 112 <= action < 124:
        i = action - 112
        return Decoded("select_opponent_field", i, -1, f"select_opponent_field[{i}]")
    elif 130 <= action < 180:
        return Decoded("select_trash", action - 130, -1, f"select_trash[{action - 130}]")
    elif 1000 <= action < 1010:
        return Decoded("select_branch", action - 1000, -1, f"select_branch[{action - 1000}]")
    return Decoded("not_in_phase", -1, -1, f"not_in_phase[{action}]")


def decode(phase: str | int, action: int) -> Decoded:
    """What ``action`` means in ``phase`` (a name of :data:`PHASES` or its value), host-side.

    Raises:
      ConfigError: unknown phase or an id outside ``[0, 2120)``.
    """
    if not isinstance(phase, str):
        if isinstance(phase, bool) or not 0 <= int(phase) < len(PHASES):
            raise ConfigError(f"phase {phase!r} is not a GamePhase value 0..{len(PHASES) - 1}")
        phase = PHASES[int(phase)]
    if phase not in PHASES:
        raise ConfigError(f"unknown phase {phase!r}; one of {PHASES}")
    action = _check(action)
    if phase in SELECTION_PHASES:
        return _selection_meaning(phase, action)
    if phase == "block_timing":
        if action == 62:
            return Decoded("decline", -1, -1, "decline_block")
        if 100 <= action < 100 + FIELD_SLOTS:
            return Decoded("block", action - 100, -1, f"block[field{action - 100}]")
        return Decoded("not_in_phase", -1, -1, f"not_in_phase[{action}]")
    if phase == "counter_timing":
        if action == 62:
            return Decoded("decline", -1, -1, "decline_counter")
        if LAYOUT.start("digivolve") <= action < LAYOUT.start("activate"):
            d = _main_meaning(action)
            return Decoded("blast_digivolve", d.a, d.b, "blast_" + d.name)
        return Decoded("not_in_phase", -1, -1, f"not_in_phase[{action}]")
    return _main_meaning(action)


def action_name(action: int) -> str:
    """Phase-free readable name of ``action``: its Main-phase meaning (``env.action_name``)."""
    return _main_meaning(_check(action)).name


def encode(kind: str, a: int = 0, b: int = 0) -> int:
    """The id of a Main-phase action: ``encode("attack", attacker, target)``, ``encode("play", 3)``,
    ``encode("digivolve", hand, field)``, ``encode("activate", permanent, effect)``,
    ``encode("source", field, index)``, ``encode("pass")``."""
    if kind in ("hatch", "move_breeding", "pass"):
        return LAYOUT.encode(kind)
    if kind in ("play", "trash_hand", "dna"):
        return LAYOUT.encode(kind, a)
    if kind in ("attack", "digivolve"):
        if not 0 <= b < FIELD_STRIDE:
            raise ConfigError(f"{kind}: second index {b} outside [0, {FIELD_STRIDE})")
        return LAYOUT.encode(kind, a * FIELD_STRIDE + b)
    if kind in ("activate", "source"):
        if not 0 <= b < SOURCE_STRIDE:
            raise ConfigError(f"{kind}: second index {b} outside [0, {SOURCE_STRIDE})")
        return LAYOUT.encode(kind, a * SOURCE_STRIDE + b)
    raise ConfigError(f"unknown action kind {kind!r}")


# ------------------------------------------------------------------------------------------------
# Names of moves in a state (host-side)

# What a pending selection waits on (``Selection.stage``; the rules read these): an effect row's
# choice (in SelectEffectChoice, the branch of a choose_one row); the order of simultaneous
# triggered effects (SelectEffectChoice id 1000 + i: the i-th pending card's effect resolves
# next); the mulligan (SelectEffectChoice: 1000 keeps the opening hand, 1001 redraws it); an
# optional row that chooses nothing ("you may ..."; SelectEffectChoice: 1000 resolves it, 62
# declines); the order in which the cards a reveal_add row leaves go under the deck (SelectReveal:
# 30 + i puts revealed card i under the deck next). G10: the spec's ids, no new one.
SELECTION_STAGES = ("effect_row", "trigger_order", "mulligan", "confirm", "bottom_order")
CHOICE_ROW, CHOICE_ORDER, CHOICE_MULLIGAN, CHOICE_CONFIRM, CHOICE_BOTTOM = range(
    len(SELECTION_STAGES)
)
KEEP_HAND, REDRAW_HAND = 1000, 1001  # the mulligan's ids


class _Facts(NamedTuple):
    """What naming reads off a state, computed once per call (host NumPy arrays)."""

    hands: np.ndarray  # int32[2, 30]: card at each hand position (-1 none)
    top: np.ndarray  # int32[2, 13]: top card of each permanent slot (12 = breeding; -1 empty)
    decider: int  # the player to act (``rules.decider``)


@functools.lru_cache(maxsize=8)
def _facts_fn(rules):
    """``game -> (hands, top, decider)`` for ``rules``, jitted once per rules object."""

    def facts(game):
        top, _ = rules.stacks(game)
        return rules.hand(game, 0), rules.hand(game, 1), top, rules.decider(game)

    return jax.jit(facts)


@functools.lru_cache(maxsize=8)
def _order_cards_fn(rules):
    """``rules.trigger_order_cards``, jitted once per rules object."""
    return jax.jit(rules.trigger_order_cards)


def pending_effect_card(rules, game, index: int) -> int:
    """In the choice of order of simultaneous triggered effects (SelectEffectChoice, stage
    ``trigger_order``): the card instance whose effect id ``1000 + index`` resolves next, or -1
    when there is no such candidate (``rules.trigger_order_cards``)."""
    cards = np.asarray(jax.device_get(_order_cards_fn(rules)(game)))
    return int(cards[index]) if 0 <= index < cards.shape[0] else -1


def describe(rules, game, action: int, *, viewer: int | None = None) -> str:
    """The name of ``action`` as a move in ``game`` (one concrete ``DigimonState``), host-side.

    The phase resolves the id (:func:`decode`, decision G4), then the state names its cards:
    hand positions by ``rules.hand``, permanents by the top card of their stack
    (``rules.stacks``), "your" and "the opponent's" from the player to act (``rules.decider``),
    card names from the registry ``rules.cards``. Positions are the id's own indices (0-based):
    ``hand i``, ``field i`` (a battle-area slot), ``breeding area``. Security cards are never
    named (face down: by their position from the top). Every id gets a name in every phase,
    legal or not; the legal moves of a state have distinct names.

    Args:
      rules: the env's ``DigimonRules``.
      game: the rules state (jax or NumPy leaves, no batch axis).
      action: an id in ``[0, 2120)``.
      viewer: unused: every card a Digimon move names is public once the move is made (a played,
        trashed or revealed card, a permanent, a digivolution card); kept for the env API.

    Returns:
      e.g. ``play Agumon (hand 0)``, ``attack the player with Greymon (field 2)``, ``hatch``,
      ``pass``, ``keep the opening hand``.

    Raises:
      ConfigError: an id outside ``[0, 2120)`` or a phase value outside ``PHASES``.
    """
    del viewer
    game = jax.device_get(game)
    board = game.board
    d = decode(int(board.phase), action)
    phase = PHASES[int(board.phase)]
    hand0, hand1, top, decider = _facts_fn(rules)(game)
    facts = _Facts(hands=np.stack([hand0, hand1]), top=np.asarray(top), decider=int(decider))
    me, them = facts.decider, 1 - facts.decider
    namer = _Namer(rules, game, facts)
    kind, a, b = d.kind, d.a, d.b
    if kind == "play":
        return f"play {namer.hand(me, a)}"
    if kind in ("trash_hand", "dna"):
        verb = "trash" if kind == "trash_hand" else "DNA digivolve"
        return f"{verb} {namer.hand(me, a)}"
    if kind == "hatch":
        return "hatch"
    if kind == "move_breeding":
        return f"move {namer.breeding(me)} to the battle area"
    if kind == "pass":
        return "do nothing in the breeding phase" if phase == "breeding" else "pass"
    if kind == "unused":
        return f"unused id {action}"
    if kind == "attack":
        attacker = namer.field(me, a)
        if b == TARGET_PLAYER:
            return f"attack the player with {attacker}"
        return f"attack {namer.field(them, b, 'opponent')} with {attacker}"
    if kind in ("digivolve", "blast_digivolve"):
        verb = "blast digivolve" if kind == "blast_digivolve" else "digivolve"
        onto = namer.breeding(me) if b == BREEDING_FIELD else namer.field(me, b)
        return f"{verb} {namer.hand(me, a)} onto {onto}"
    if kind == "activate":
        where = namer.field(me, a) if a < FIELD_SLOTS else f"permanent {a} (no such field)"
        return f"activate effect {b} of {where}"
    if kind in ("source", "select_source"):
        return f"choose {namer.source(me, a, b)}"
    if kind == "block":
        return f"block with {namer.field(me, a)}"
    if kind == "decline":
        if phase == "block_timing":
            return "do not block"
        if phase == "counter_timing":
            return "do not blast digivolve"
        return f"decline: choose nothing more for {namer.selection_card()}"
    if kind == "select_hand":
        verb = "play" if namer.selection_op() == "play_free" else "choose"
        return f"{verb} {namer.hand(me, a)}" + (" for free" if verb == "play" else "")
    if kind == "select_revealed":
        if int(getattr(game.selection, "stage", CHOICE_ROW)) == CHOICE_BOTTOM:
            return f"put {namer.revealed(a)} under your deck next"
        return f"choose {namer.revealed(a)}"
    if kind in ("select_own_security", "select_opponent_security"):
        whose = "your" if kind == "select_own_security" else "the opponent's"
        return f"choose {whose} security card {a} from the top (face down)"
    if kind == "select_own_breeding":
        return f"select {namer.breeding(me)}"
    if kind == "select_own_field":
        if phase == "select_material":
            return f"choose {namer.field(me, a)} as a DNA material"
        return f"select {namer.field(me, a, 'your')}"
    if kind == "select_opponent_field":
        return f"select {namer.field(them, a, 'opponent')}"
    if kind == "select_trash":
        return f"choose {namer.trash(me, a)}"
    if kind == "select_branch":
        return _effect_choice(rules, game, namer, action, a)
    return f"id {action} (not a move in the {phase.replace('_', ' ')} phase)"


def _effect_choice(rules, game, namer: _Namer, action: int, index: int) -> str:
    """SelectEffectChoice id ``1000 + index``, by the selection's stage."""
    stage = int(getattr(game.selection, "stage", CHOICE_ROW))
    if stage == CHOICE_MULLIGAN:
        if action == KEEP_HAND:
            return "keep the opening hand"
        if action == REDRAW_HAND:
            return "redraw the opening hand (mulligan)"
        return f"id {action} (not a mulligan choice)"
    if stage == CHOICE_ORDER:
        card = int(pending_effect_card(rules, game, index))
        if card >= 0:
            return f"resolve {namer.card(card)}'s effect first"
        return f"id {action} (no pending effect {index} to resolve first)"
    if stage == CHOICE_CONFIRM:
        if index == 0:
            return f"use {namer.selection_card()}'s optional effect"
        return f"id {action} (an optional effect is used with 1000 or declined with 62)"
    return f"choose branch {index} of {namer.selection_card()}'s effect"


class _Namer:
    """Card names at the positions of one state (host arrays)."""

    def __init__(self, rules, game: Any, facts: _Facts):
        self.rules, self.facts = rules, facts
        self.board, self.selection = game.board, game.selection

    def card(self, card: int) -> str:
        registry = self.rules.cards
        return registry.definition(registry.ids[int(self.board.definition[card])])["name"]

    def _at(self, card: int, where: str) -> str:
        return f"{self.card(card)} ({where})" if card >= 0 else f"nothing ({where} is empty)"

    def _card_at(self, zone: int, position: int) -> int:
        """The card at ``position`` of ``zone``, -1 when none (``zones.card_at`` on the host)."""
        hit = np.flatnonzero(
            (np.asarray(self.board.zone) == zone) & (np.asarray(self.board.position) == position)
        )
        return int(hit[0]) if hit.size else -1

    def hand(self, player: int, i: int) -> str:
        card = int(self.facts.hands[player, i]) if 0 <= i < HAND_SLOTS else -1
        return self._at(card, f"hand {i}")

    def field(self, player: int, slot: int, whose: str = "") -> str:
        """``Agumon (field 2)``; ``whose`` "your" / "opponent": ``Agumon in the opponent's field
        (field 2)``."""
        if not 0 <= slot < FIELD_SLOTS:
            return f"nothing (field {slot} does not exist)"
        card = int(self.facts.top[player, slot])
        if not whose:
            return self._at(card, f"field {slot}")
        area = "your field" if whose == "your" else "the opponent's field"
        return f"{self.card(card) if card >= 0 else 'nothing'} in {area} (field {slot})"

    def breeding(self, player: int) -> str:
        return self._at(int(self.facts.top[player, BREEDING_FIELD]), "breeding area")

    def source(self, player: int, slot: int, i: int) -> str:
        """Digivolution card ``i`` (stack position, bottom = 0) under the permanent in ``slot``."""
        from tcgjax.games.digimon import rules as R

        top = self.field(player, slot)
        card = self._card_at(int(R.SLOT_ZONES[player, slot]), i) if slot < FIELD_SLOTS else -1
        if card < 0 or card == int(self.facts.top[player, min(slot, FIELD_SLOTS - 1)]):
            return f"nothing (no source {i} under {top})"
        return f"{self.card(card)} (source {i}) under {top}"

    def revealed(self, i: int) -> str:
        return self._at(self._card_at(self.rules.layout.zone_index("revealed"), i), f"revealed {i}")

    def trash(self, player: int, i: int) -> str:
        from tcgjax.games.digimon import rules as R

        card = self._card_at(int(R.zone_of("trash", player)), i)
        return self._at(card, f"trash {i}") + " from your trash"

    def selection_card(self) -> str:
        """The card whose effect waits on the pending choice."""
        card = int(self.selection.card)
        return self.card(card) if card >= 0 else "the pending effect"

    def selection_op(self) -> str:
        """The op of the pending row (``play_free``, ``trash_from_hand``...), or ``""``."""
        from tcgjax.games.digimon.cards import OPS

        card, row = int(self.selection.card), int(self.selection.row)
        if card < 0 or row < 0:
            return ""
        definition = int(self.board.definition[card])
        return OPS[int(np.asarray(self.rules.cards.numpy["effects.op"])[definition, row])]
