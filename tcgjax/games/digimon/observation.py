"""The 981-float board-state tensor of ``digimon_state_tensor.md``: its layout, declared once.

The encoder (``board_state_tensor``) fills these named slices from the rules state; the README's
layout table is generated from :data:`LAYOUT` and tested against the spec's index ranges.

Constants and the 31-float permanent slot are the spec's: a 7-float header (card id, DP with every
modifier, suspended, OPT total, OPT used, linked count, source count) and 8 source entries of 3
floats (card id, OPT state, DP contribution), bottom to top. Hidden cards are ``-1.0`` in the
default ``view="player"`` (decision G2); padding is ``0.0``.
"""

from __future__ import annotations

from tcgjax.core.observation import ObservationLayout

__all__ = [
    "TENSOR_SIZE",
    "SLOT_SIZE",
    "FIELD_SLOTS",
    "MAX_SOURCES",
    "MAX_HAND",
    "MAX_TRASH",
    "MAX_SECURITY",
    "MAX_REVEALED",
    "HEADER",
    "SOURCE_FIELDS",
    "LAYOUT",
    "HIDDEN",
]

TENSOR_SIZE = 981
SLOT_SIZE = 31
FIELD_SLOTS = 12
MAX_SOURCES = 8
MAX_HAND = 20
MAX_TRASH = 45
MAX_SECURITY = 10
MAX_REVEALED = 10
HIDDEN = -1.0  # a card the observer cannot see (G2); 0.0 is padding
HEADER = ("card_id", "dp", "suspended", "opt_total", "opt_used", "linked_count", "source_count")
SOURCE_FIELDS = ("card_id", "opt_state", "dp_contribution")
assert len(HEADER) + MAX_SOURCES * len(SOURCE_FIELDS) == SLOT_SIZE

_SLOT_DOC = (
    "31 floats a permanent: card id, DP, suspended, OPT total, OPT used, linked, source count, "
    "then 8 x (source card id, OPT state, DP contribution) bottom to top"
)
LAYOUT = ObservationLayout(
    [
        ("global", (10,), "turn count, phase (GamePhase value), memory for the observer, 7 x 0.0"),
        ("my_field", (FIELD_SLOTS, SLOT_SIZE), "my battle area: " + _SLOT_DOC),
        ("opponent_field", (FIELD_SLOTS, SLOT_SIZE), "opponent battle area, same slots"),
        ("my_hand", (MAX_HAND,), "card ids, 0-padded"),
        ("opponent_hand", (MAX_HAND,), "card ids (-1.0 = hidden in the player view), 0-padded"),
        ("my_trash", (MAX_TRASH,), "card ids, 0-padded"),
        ("opponent_trash", (MAX_TRASH,), "card ids, 0-padded"),
        ("my_security", (MAX_SECURITY,), "card ids (face down: -1.0 in the player view)"),
        ("opponent_security", (MAX_SECURITY,), "card ids (face down: -1.0 in the player view)"),
        ("my_breeding", (SLOT_SIZE,), "my breeding area, one permanent slot"),
        ("opponent_breeding", (SLOT_SIZE,), "opponent breeding area, one permanent slot"),
        ("revealed", (MAX_REVEALED,), "revealed cards' ids, 0-padded"),
        ("selection", (5,), "selection phase value, valid count, selecting player (1/2), 0, 0"),
    ]
)
assert LAYOUT.size == TENSOR_SIZE
