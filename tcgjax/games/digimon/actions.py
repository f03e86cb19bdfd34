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
phase-free :func:`action_name` is the Main-phase meaning (what ``env.action_name`` returns).
"""

from __future__ import annotations

from typing import NamedTuple

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
        ("attack", 20 * FIELD_STRIDE),
        ("digivolve", 40 * FIELD_STRIDE),
        ("activate", 100 * SOURCE_STRIDE),
        ("source", FIELD_SLOTS * SOURCE_STRIDE),
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
