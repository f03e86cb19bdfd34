"""The 981-float board-state tensor of ``digimon_state_tensor.md``: its layout, declared once.

The encoder (``board_state_tensor``) fills these named slices from the rules state; the README's
layout table is generated from :data:`LAYOUT` and tested against the spec's index ranges.

Constants and the 31-float permanent slot are the spec's: a 7-float header (card id, DP with every
modifier, suspended, OPT total, OPT used, linked count, source count) and 8 source entries of 3
floats (card id, OPT state, DP contribution), bottom to top. Hidden cards are ``-1.0`` in the
default ``view="player"`` (decision G2); padding is ``0.0``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core import visibility, zones
from tcgjax.core.arrays import count_true
from tcgjax.core.observation import ObservationLayout
from tcgjax.core.tree import when_some
from tcgjax.games.digimon.cards import MAX_EFFECTS

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
    "INPUT_SCALE",
    "HIDDEN",
    "VIEWS",
    "board_state_tensor",
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
assert MAX_SOURCES * MAX_EFFECTS < 256  # the packed OPT counts of ``board_state_tensor``

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
        (
            "my_security",
            (MAX_SECURITY,),
            "card ids, top first (G9; face down: -1.0 in the player view)",
        ),
        ("opponent_security", (MAX_SECURITY,), "card ids, top first (G9; -1.0 in the player view)"),
        ("my_breeding", (SLOT_SIZE,), "my breeding area, one permanent slot"),
        ("opponent_breeding", (SLOT_SIZE,), "opponent breeding area, one permanent slot"),
        ("revealed", (MAX_REVEALED,), "revealed cards' ids, 0-padded"),
        ("selection", (5,), "selection phase value, valid count, selecting player (1/2), 0, 0"),
    ]
)
assert LAYOUT.size == TENSOR_SIZE


def _input_scale() -> np.ndarray:
    """float32[981]: a factor per tensor entry that brings it to about [-1, 1] for a
    network's input (the tensor itself keeps the spec's raw values: DP in points, turn counts,
    GamePhase values). DP and DP contributions / 10,000; turn / 30; memory / 10; phases / the
    number of phases; source counts / 8; the raw card ids of digivolution sources / 64 (a
    card-embedding network reads ids from the unscaled tensor)."""
    from tcgjax.games.digimon.actions import PHASES

    scale = np.ones(TENSOR_SIZE, np.float32)

    def put(name, index, factor):
        start, shape, _ = LAYOUT.slices[name]
        flat = np.arange(int(np.prod(shape))).reshape(shape)
        scale[start + flat[..., index].reshape(-1)] = factor

    put("global", 0, 1 / 30)  # turn count
    put("global", 1, 1 / len(PHASES))  # GamePhase value
    put("global", 2, 1 / 10)  # memory, -10..10
    for name in ("my_field", "opponent_field", "my_breeding", "opponent_breeding"):
        put(name, HEADER.index("dp"), 1 / 10_000)
        put(name, HEADER.index("source_count"), 1 / MAX_SOURCES)
        for k in range(MAX_SOURCES):
            first = len(HEADER) + k * len(SOURCE_FIELDS)
            put(name, first + SOURCE_FIELDS.index("card_id"), 1 / 64)
            put(name, first + SOURCE_FIELDS.index("dp_contribution"), 1 / 10_000)
    put("selection", 0, 1 / len(PHASES))
    put("selection", 1, 1 / MAX_HAND)  # valid choices
    put("selection", 2, 1 / 2)  # selecting player, 1 or 2
    return scale


INPUT_SCALE = _input_scale()

VIEWS = ("player", "omniscient")


def bound_table(rules) -> dict[str, tuple]:
    """``{slice: (low, high)}`` of the ``view="player"`` tensor (``Env.observation_bounds``),
    from the rules' limits, the decks of every matchup and the card registry. Card ids are definition
    indices of the decks' cards (0 = padding); a card the observer cannot see is ``-1.0`` (the
    opponent's hand and both security stacks are always hidden: ``[-1, 0]``; the omniscient
    view shows their ids). A stack holds only its owner's cards (the rules' invariant "each
    card in a zone of its owner"), so a sum over a stack is bounded by the larger deck's.

    Unbounded: the turn count's high (``global`` entry 0): there is no turn limit by default,
    and the deck-out does not bound it (effects put cards back into a deck).
    """
    from tcgjax.games.digimon import actions as A
    from tcgjax.games.digimon import rules as R

    c = rules.cards.numpy
    decks = [[rules.cards.index(n) for n in (*eggs, *main)] for eggs, main in rules.pool]
    defs = np.unique(np.concatenate(decks))
    max_id = float(defs.max())
    max_cards = max(rules.cards_per_player)
    op = np.asarray(c["effects.op"])
    live = np.arange(op.shape[1])[None, :] < np.asarray(c["effects.num_rows"])[:, None]
    target, trigger = np.asarray(c["effects.target"]), np.asarray(c["effects.trigger"])
    amount = np.asarray(c["effects.amount"], np.int64)
    # A continuous row's amount times at most (sources // 2) when it counts per two sources.
    per_two = np.asarray(c["effects.amount_per"]) == R.PER_TWO_SOURCES
    scaled = amount * np.where(per_two, (max_cards - 1) // 2, 1)
    dp_rows = live & (trigger == R.TRIGGER_CONTINUOUS) & (op == R.OP_DP)
    self_rows = dp_rows & (target == R.TARGET_SELF)
    aura_rows = dp_rows & (target == R.TARGET_ALL_OWN)  # a Tamer's aura: all own Digimon
    self_high = np.where(self_rows, np.maximum(scaled, 0), 0).sum(axis=1)  # [N]
    self_low = np.where(self_rows, np.minimum(scaled, 0), 0).sum(axis=1)
    aura_high = np.where(aura_rows, np.maximum(scaled, 0), 0).sum(axis=1)
    # Timed DP modifiers: a row's amount, at most LASTING_SIZE of them in force at once (a row
    # for the Security Digimon is a modifier of another kind, never a permanent's DP).
    timed_rows = live & (op == R.OP_DP) & (target != R.TARGET_SECURITY)
    timed = np.where(timed_rows, amount, 0)[defs]
    # A permanent's DP: max(printed + every modifier, 0); a card's contribution: its own rows.
    printed = float(np.asarray(c["dp"])[defs].max())
    dp_high = (
        printed
        + max(float(self_high[d].sum() + aura_high[d].sum()) for d in map(np.asarray, decks))
        + R.LASTING_SIZE * max(float(timed.max()), 0.0)
    )
    opt = live & ((np.asarray(c["effects.flags"]).astype(np.int64) & R.FLAG_OPT) != 0)
    opt_high = MAX_SOURCES * float(opt.sum(axis=1)[defs].max())  # over the 8 shown sources

    slot_low, slot_high = np.zeros(SLOT_SIZE), np.zeros(SLOT_SIZE)
    header = {  # linked_count is always 0 ([TS]: none in the shipped cards)
        "card_id": max_id,
        "dp": dp_high,
        "suspended": 1.0,
        "opt_total": opt_high,
        "opt_used": opt_high,
        "source_count": float(max_cards),
    }
    for name, high in header.items():
        slot_high[HEADER.index(name)] = high
    for k in range(MAX_SOURCES):
        first = len(HEADER) + k * len(SOURCE_FIELDS)
        slot_high[first + SOURCE_FIELDS.index("card_id")] = max_id
        # -1: no once-per-turn row; else the share still available this turn.
        slot_low[first + SOURCE_FIELDS.index("opt_state")] = -1.0
        slot_high[first + SOURCE_FIELDS.index("opt_state")] = 1.0
        slot_low[first + SOURCE_FIELDS.index("dp_contribution")] = min(self_low[defs].min(), 0)
        slot_high[first + SOURCE_FIELDS.index("dp_contribution")] = max(self_high[defs].max(), 0)
    # The breeding area is out of every effect's reach (``rules.permanents``: its DP is the
    # printed one, its cards' continuous rows are not in force) and never suspended.
    breeding_low, breeding_high = slot_low.copy(), slot_high.copy()
    breeding_high[HEADER.index("dp")] = printed
    breeding_high[HEADER.index("suspended")] = 0.0
    contribution = len(HEADER) + np.arange(MAX_SOURCES) * len(SOURCE_FIELDS)
    contribution += SOURCE_FIELDS.index("dp_contribution")
    breeding_low[contribution] = breeding_high[contribution] = 0.0
    glob_low, glob_high = np.zeros(10), np.zeros(10)
    glob_low[0], glob_high[0] = 1.0, np.inf  # the turn: at least 1 (the rules' invariant)
    glob_high[1] = len(A.PHASES) - 1  # a GamePhase value
    glob_low[2], glob_high[2] = -R.MEMORY_LIMIT, R.MEMORY_LIMIT  # memory, from either side
    # Valid choices of a selection: at most the ids of ``rules.selection_choices``' ranges
    # (hand 0-29, 30-59, own and opponent's battle slots, trash, branches, sources).
    choices = (
        A.HAND_SLOTS + 30 + 2 * A.FIELD_SLOTS + R.TRASH_SLOTS + R.QUEUE_SIZE
        + A.FIELD_SLOTS * A.SOURCE_STRIDE
    )  # fmt: skip
    ids = (0.0, max_id)
    hidden = (HIDDEN, 0.0)
    return {
        "global": (glob_low, glob_high),
        "my_field": (slot_low, slot_high),
        "opponent_field": (slot_low, slot_high),
        "my_hand": ids,
        "opponent_hand": hidden,
        "my_trash": ids,
        "opponent_trash": ids,
        "my_security": hidden,
        "opponent_security": hidden,
        "my_breeding": (breeding_low, breeding_high),
        "opponent_breeding": (breeding_low, breeding_high),
        "revealed": ids,
        # The selection phase, the valid choices, the selecting player (1 or 2), 0, 0.
        "selection": (0.0, [len(A.PHASES) - 1, choices, 2.0, 0.0, 0.0]),
    }


# The card-id lists of the tensor: (slice name, zone, whose: 0 the observer's, 1 the
# opponent's, None a shared zone). Filled by one scatter of the C cards (``_zone_lists``).
_LISTS = (
    ("my_hand", "hand", 0),
    ("opponent_hand", "hand", 1),
    ("my_trash", "trash", 0),
    ("opponent_trash", "trash", 1),
    ("my_security", "security", 0),
    ("opponent_security", "security", 1),
    ("revealed", "revealed", None),
)


@functools.cache
def _top_first_zones() -> np.ndarray:
    """bool[Z]: the zones the tensor lists top first: both security stacks (decision G9: entry
    ``i`` is the ``i``-th card from the top, the card that ``SelectSecurity`` id ``40 + i`` /
    ``50 + i`` names and the ``i + 1``-th that a check flips)."""
    from tcgjax.games.digimon import rules as R

    zones_per_game = 2 * len(R.PLAYER_ZONES) + len(R.SHARED_ZONES)
    top_first = np.zeros(zones_per_game, bool)
    for p in range(2):
        top_first[p * len(R.PLAYER_ZONES) + R.PLAYER_ZONES.index("security")] = True
    return top_first


def _list_tables(layout) -> tuple[np.ndarray, np.ndarray]:
    """Host tables ``[2, Z]`` (per observer, per zone): where the zone's list starts in the
    concatenated lists (-1: not listed) and how many positions it has."""
    from tcgjax.games.digimon import rules as R

    start = np.full((2, layout.num_zones), -1, np.int32)
    size = np.zeros((2, layout.num_zones), np.int32)
    offset = 0
    for name, zone, whose in _LISTS:
        width = LAYOUT.slices[name][1][0]
        for observer in range(2):
            if whose is None:
                z = layout.zone_index(zone)
            else:
                player = observer if whose == 0 else 1 - observer
                z = player * len(R.PLAYER_ZONES) + R.PLAYER_ZONES.index(zone)
            start[observer, z], size[observer, z] = offset, width
        offset += width
    return start, size


def _zone_lists(layout, board, ids_seen, player) -> dict[str, jax.Array]:
    """Card ids (as seen) of each listed zone by position, 0-padded: ``float32[width]`` per
    slice of :data:`_LISTS`, by one ``zones.zone_listing`` scatter (a scatter per zone cost ~2 ms
    each at batch 4096 under vmap on the CPU)."""
    start, size = (jnp.asarray(t) for t in _list_tables(layout))
    total = sum(LAYOUT.slices[name][1][0] for name, _, _ in _LISTS)
    lists = zones.zone_listing(
        board, start[player], size[player], ids_seen, total, fill=0.0, top_first=_top_first_zones()
    )
    out, offset = {}, 0
    for name, _, _ in _LISTS:
        width = LAYOUT.slices[name][1][0]
        out[name] = lists[offset : offset + width]
        offset += width
    return out


def board_state_tensor(
    rules, state, player, view: str = "player", legal: jax.Array | None = None
) -> jax.Array:
    """The 981-float tensor of ``state`` from ``player``'s side (``digimon_state_tensor.md``).

    Args:
      rules: the game's ``DigimonRules``.
      state: a ``DigimonState`` (one game; ``vmap`` for a batch).
      player: int[] observer, 0 or 1.
      view: ``"player"`` (default, G2: cards the observer cannot see — the opponent's hand, both
        security stacks — are ``-1.0``) or ``"omniscient"`` (every card id, as the spec writes it).
      legal: optional bool[2120], ``rules.legal_action_mask(state)`` when the caller has it (the
        env's step): the selection block's count of valid choices is then read from it instead
        of being worked out again; the tensor is the same.

    Returns:
      float32[981] laid out as :data:`LAYOUT`. Zones list cards by position (bottom / first
      first), the security stacks top first (G9: entry i is the card ``SelectSecurity`` id
      40 + i / 50 + i names). DP includes every continuous modifier (none reaches the breeding
      area); each source's DP contribution is what its own active rows add to its permanent now
      (turn-dependent). OPT totals count the once-per-turn
      rows of the cards in their current role; OPT use is this turn's.
    """
    from tcgjax.games.digimon import rules as R

    if view not in VIEWS:
        raise ValueError(f"view {view!r} is not one of {VIEWS}")
    board = state.board
    player = jnp.asarray(player, jnp.int32)
    ids = board.definition.astype(jnp.float32)
    if view == "player":
        seen = visibility.visible_mask(rules.layout, board, player)
        ids_seen = jnp.where(seen, ids, HIDDEN)
    else:
        ids_seen = ids
    perm = rules.permanents(state)
    zone = board.zone.astype(jnp.int32)
    pos = board.position.astype(jnp.int32)
    # Each card's source entry (permanent slot, stack position < 8); off the field or deeper in
    # the stack: not shown. The entries are written by one scatter of the cards' three floats
    # into the flat [2, S, 8, 3] block: reading each entry's card back by a gather per fact
    # cost about four times as much under vmap on the CPU (XLA fused the gathers into the
    # slot concatenation and redid them per element).
    card_slot = jnp.asarray(R.ZONE_SLOT)[zone]  # flat permanent slot, -1 off the field
    shown = (card_slot >= 0) & (pos < MAX_SOURCES)
    entries = 2 * R.NUM_SLOTS * MAX_SOURCES
    width = len(SOURCE_FIELDS)
    opt_rows, opt_used = perm.card_opt, perm.card_opt_used  # int32[C]
    # OPT state: -1 no once-per-turn effect; else the fraction still available this turn
    # (1.0 all available, 0.0 all exhausted).
    available = (opt_rows - opt_used).astype(jnp.float32) / jnp.maximum(opt_rows, 1)
    opt_state = jnp.where(opt_rows > 0, available, -1.0)
    values = jnp.stack([ids, opt_state, perm.card_dp.astype(jnp.float32)], axis=-1)  # [C, 3]
    entry = card_slot * MAX_SOURCES + pos
    dest = jnp.where(shown, entry, entries)[:, None] * width + jnp.arange(width)  # [C, 3]
    sources = (
        jnp.zeros((entries + 1) * width, jnp.float32)
        .at[dest.reshape(-1)]
        .set(values.reshape(-1))[: entries * width]
        .reshape(2, R.NUM_SLOTS, MAX_SOURCES * width)
    )
    # The header's OPT counts over the shown sources, both by one scatter-add (used << 8 | total:
    # each at most MAX_SOURCES x MAX_EFFECTS = 32, below 256).
    opt_counts = R._per_slot(jnp.where(shown, card_slot, -1), opt_rows + (opt_used << 8))
    opt_counts = opt_counts.reshape(2, R.NUM_SLOTS)
    opt_total = (opt_counts & 0xFF).astype(jnp.float32)  # [2, S]
    top_id = jnp.where(perm.size > 0, ids[jnp.maximum(perm.top, 0)], 0.0)
    header = jnp.stack(
        [
            top_id,
            jnp.where(perm.size > 0, perm.dp, 0).astype(jnp.float32),
            (state.suspended & (perm.size > 0)).astype(jnp.float32),
            opt_total,
            (opt_counts >> 8).astype(jnp.float32),  # OPT effects used this turn
            jnp.zeros_like(top_id),  # linked cards ([TS]; none in the shipped cards)
            perm.size.astype(jnp.float32),
        ],
        axis=-1,
    )  # [2, S, 7]
    parts = [header, sources]
    slots = jnp.concatenate(parts, axis=-1)  # [2, S, 31]
    seat = lambda x: jnp.where(player == 0, x, x[::-1])  # noqa: E731  (me first)
    slots = seat(slots)
    phase = board.phase.astype(jnp.int32)
    memory = jnp.where(board.active_player == player, state.memory, -state.memory)
    glob = (
        jnp.zeros(10, jnp.float32).at[0].set(board.turn_number).at[1].set(phase).at[2].set(memory)
    )
    # Selection context: the phase, how many choices are valid (declining not counted), who picks.
    selecting = state.selection.card >= 0
    if legal is not None:
        # In a selection the mask is the choices plus 62 when the row may be declined (62 is
        # never a choice itself: ``selection_choices``).
        pass_id = R.A.LAYOUT.start("pass")
        valid = count_true(legal) - legal[pass_id].astype(jnp.int32)
    else:
        # Counted only for the games of the batch in a selection (``when_some``): the choices
        # cost about a third of the observation under vmap on the CPU.
        count = lambda _, state: jnp.sum(rules.selection_choices(state), dtype=jnp.int32)  # noqa: E731
        valid = when_some(selecting, count, jnp.int32(0), state)
    selection = jnp.where(
        selecting,
        jnp.stack(
            [phase.astype(jnp.float32), valid.astype(jnp.float32),
             (rules.decider(state) + 1).astype(jnp.float32), 0.0, 0.0]
        ),
        0.0,
    ).astype(jnp.float32)  # fmt: skip
    return LAYOUT.pack(
        {
            "global": glob,
            "my_field": slots[0, : R.A.FIELD_SLOTS],
            "opponent_field": slots[1, : R.A.FIELD_SLOTS],
            "my_breeding": slots[0, R.BREEDING_SLOT],
            "opponent_breeding": slots[1, R.BREEDING_SLOT],
            **_zone_lists(rules.layout, board, ids_seen, player),
            "selection": selection,
        }
    )
