"""Board slot encodings of ``pokemon_board_encoding_v2_1.md``: v2.1 (68 dims a slot) and v1 (14).

The spec's feature table is normative; its "49 dims" total is an arithmetic slip (decision P5): the
listed features add up to 68, kept in the table's order under the name "v2.1". Decision P6 fixes
what the spec leaves open (the evolution family id, the resistance value, the energy block).

Static features (stage, family, types, weakness, resistance, retreat, attacks) are computed once per
card definition from the registry (:func:`static_table`) and gathered by index with clamping, as the
spec says ("index_select(0, cardIdx.clamp(0))"); runtime features (HP, the attached Energy) come from
the game state. The functions here take those runtime facts as plain arrays, so the game's state
layout stays the game's business; every function is pure and works under ``jit`` and ``vmap``.

v2.1 slot layout (:data:`V21_FEATURES`; dims in order):

=====  =======================  ======================================================
dims   feature                  value
=====  =======================  ======================================================
1      ``occupied``             1 if a Pokémon is in the slot; every feature is 0 otherwise
3      ``evoStageOH``           one-hot basic / stage 1 / stage 2
1      ``evoFamilyId``          k / F: F evolution lines in the registry, k the 1-based rank of
                                the card's line, lines sorted by the name of their Basic (P6)
11     ``pokemonTypeOH``        one-hot over the 11 types (P2 order)
1      ``HP``                   remaining HP / 300
1      ``MaxHP``                maximum HP / 300 (an HP bonus included)
11     ``weaknessTypeOH``       one-hot, all 0 when none
11     ``resistanceTypeOH``     one-hot, all 0 when none
1      ``resistanceValue``      printed value / 30 (-30 -> -1.0; none -> 0) (P6)
1      ``retreatCost``          retreat cost / 4
4      ``atkExists``            1 for each attack the card has
4      ``atkDamage``            printed base damage / 200
4      ``atkTotalCost``         number of Energy in the cost / 5
11     ``effectiveEnergy``      units of each type provided by all attached Energy, raw (P6)
1      ``specialEnergyCount``   special Energy cards attached, raw
1      ``specialProvidesExtra`` sum over them of (units provided - 1), raw
1      ``specialDamageMod``     sum of their damage modifiers / 200 (-20 -> -0.1)
=====  =======================  ======================================================

v1 (:data:`V1_FEATURES`, raw, P6): the card's registry index, HP, MaxHP, and the Energy cards
attached per type (a special Energy counts once, under its type).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core.cards import CardRegistry
from tcgjax.games.pokemon.cards import KINDS, MAX_ATTACKS, STAGES, TYPES

__all__ = [
    "V21_FEATURES",
    "V1_FEATURES",
    "V21_DIMS",
    "V1_DIMS",
    "STATIC_FEATURES",
    "feature_slices",
    "evolution_families",
    "static_table",
    "encode_slots_v21",
    "encode_slots_v1",
]

NUM_TYPES = len(TYPES)
V21_FEATURES: tuple[tuple[str, int], ...] = (
    ("occupied", 1),
    ("evoStageOH", 3),
    ("evoFamilyId", 1),
    ("pokemonTypeOH", NUM_TYPES),
    ("HP", 1),
    ("MaxHP", 1),
    ("weaknessTypeOH", NUM_TYPES),
    ("resistanceTypeOH", NUM_TYPES),
    ("resistanceValue", 1),
    ("retreatCost", 1),
    ("atkExists", MAX_ATTACKS),
    ("atkDamage", MAX_ATTACKS),
    ("atkTotalCost", MAX_ATTACKS),
    ("effectiveEnergy", NUM_TYPES),
    ("specialEnergyCount", 1),
    ("specialProvidesExtra", 1),
    ("specialDamageMod", 1),
)
V1_FEATURES: tuple[tuple[str, int], ...] = (
    ("cardIndex", 1),
    ("HP", 1),
    ("MaxHP", 1),
    ("energy", NUM_TYPES),
)
V21_DIMS = sum(width for _, width in V21_FEATURES)  # 68 (P5)
V1_DIMS = sum(width for _, width in V1_FEATURES)  # 14
# The features that depend on the card definition only, in table order.
STATIC_FEATURES = (
    "evoStageOH",
    "evoFamilyId",
    "pokemonTypeOH",
    "weaknessTypeOH",
    "resistanceTypeOH",
    "resistanceValue",
    "retreatCost",
    "atkExists",
    "atkDamage",
    "atkTotalCost",
)
HP_SCALE, DAMAGE_SCALE, COST_SCALE, RETREAT_SCALE, RESISTANCE_SCALE = 300.0, 200.0, 5.0, 4.0, 30.0


def feature_slices(features=V21_FEATURES) -> dict[str, slice]:
    """``{feature name: slice of the slot vector}`` for a layout (v2.1 by default)."""
    out, start = {}, 0
    for name, width in features:
        out[name] = slice(start, start + width)
        start += width
    return out


def evolution_families(registry: CardRegistry) -> np.ndarray:
    """int32[N]: the 1-based rank k of each Pokémon definition's evolution line, lines sorted by
    the name of their Basic (P6); 0 for non-Pokémon and the padding row. A line's Basic is found by
    following ``evolves_from`` by name; a card whose predecessor is not in the registry roots its
    own line under that predecessor's name (a VMAX without its V)."""
    pokemon = KINDS.index("pokemon")
    by_name = {}
    for card_id in registry.ids[1:]:
        card = registry.definition(card_id)
        if card["kind"] == pokemon:
            by_name.setdefault(card["name"], card["evolves_from"])

    def root(name: str) -> str:
        seen = set()
        while by_name.get(name) and name not in seen:  # "" or unknown: the line starts here
            seen.add(name)
            name = by_name[name]
        return name

    roots = {}
    for card_id in registry.ids[1:]:
        card = registry.definition(card_id)
        if card["kind"] == pokemon:
            roots[card_id] = root(card["name"])
    rank = {name: k + 1 for k, name in enumerate(sorted(set(roots.values())))}
    return np.array([rank[roots[c]] if c in roots else 0 for c in registry.ids], np.int32)


def static_table(registry: CardRegistry) -> jax.Array:
    """float32[N, D]: the :data:`STATIC_FEATURES` of every definition, concatenated in table order
    (D = 3 + 1 + 11 + 11 + 11 + 1 + 1 + 4 + 4 + 4 = 51). Row 0 (padding) and non-Pokémon are 0."""
    n = len(registry)
    col = registry.numpy
    pokemon = col["kind"] == KINDS.index("pokemon")

    def one_hot(values, width):  # values 1..width (0 = none) -> [N, width]
        return np.eye(width + 1, dtype=np.float32)[values][:, 1:]

    stage = one_hot(np.where(pokemon, col["stage"], 0), len(STAGES) - 1)  # basic/stage1/stage2
    families = evolution_families(registry)
    num_families = max(int(families.max()), 1)
    has_attack = np.arange(MAX_ATTACKS)[None, :] < col["attacks.num_rows"][:, None]
    parts = {
        "evoStageOH": stage,
        "evoFamilyId": (families / num_families)[:, None],
        "pokemonTypeOH": one_hot(col["type"], NUM_TYPES),
        "weaknessTypeOH": one_hot(col["weakness"], NUM_TYPES),
        "resistanceTypeOH": one_hot(col["resistance"], NUM_TYPES),
        "resistanceValue": (col["resistance_value"] / RESISTANCE_SCALE)[:, None],
        "retreatCost": (col["retreat"] / RETREAT_SCALE)[:, None],
        "atkExists": has_attack,
        "atkDamage": np.where(has_attack, col["attacks.damage"], 0) / DAMAGE_SCALE,
        "atkTotalCost": np.where(has_attack, col["attacks.cost"].sum(-1), 0) / COST_SCALE,
    }
    table = np.concatenate(
        [np.asarray(parts[f], np.float32).reshape(n, -1) for f in STATIC_FEATURES], 1
    )
    table = np.where(pokemon[:, None], table, 0.0).astype(np.float32)
    return jnp.asarray(table)


def encode_slots_v21(
    static: jax.Array,
    card: jax.Array,
    hp: jax.Array,
    max_hp: jax.Array,
    energy_units: jax.Array,
    special_count: jax.Array,
    special_extra: jax.Array,
    special_damage_mod: jax.Array,
) -> jax.Array:
    """float32[S, 68]: the v2.1 encoding of S board slots.

    Args:
      static: float32[N, 51] from :func:`static_table`.
      card: int[S], the definition index of each slot's Pokémon (its top card), -1 when empty.
      hp, max_hp: int[S], remaining and maximum HP.
      energy_units: int[S, 11], Energy units of each type provided by the attached Energy.
      special_count, special_extra, special_damage_mod: int[S], the special-Energy block
        (count of special Energy cards, sum of their units - 1, sum of their damage modifiers).
    """
    occupied = card >= 0
    gathered = static[jnp.clip(card, 0, static.shape[0] - 1)]  # [S, 51]
    cut = np.cumsum([0] + [w for n, w in V21_FEATURES if n in STATIC_FEATURES])
    piece = {n: gathered[:, cut[i] : cut[i + 1]] for i, n in enumerate(STATIC_FEATURES)}
    f32 = lambda x: jnp.asarray(x, jnp.float32)  # noqa: E731
    piece.update(
        occupied=f32(occupied)[:, None],
        HP=(f32(hp) / HP_SCALE)[:, None],
        MaxHP=(f32(max_hp) / HP_SCALE)[:, None],
        effectiveEnergy=f32(energy_units),
        specialEnergyCount=f32(special_count)[:, None],
        specialProvidesExtra=f32(special_extra)[:, None],
        specialDamageMod=(f32(special_damage_mod) / DAMAGE_SCALE)[:, None],
    )
    slots = jnp.concatenate([piece[name] for name, _ in V21_FEATURES], axis=1)
    return jnp.where(occupied[:, None], slots, 0.0)


def encode_slots_v1(
    card: jax.Array, hp: jax.Array, max_hp: jax.Array, energy_cards: jax.Array
) -> jax.Array:
    """float32[S, 14]: the v1 encoding (raw): registry index (-1 stays -1 for an empty slot, as
    the original's ``boardPokemon``), HP, MaxHP, Energy cards attached per type ``int[S, 11]``."""
    f32 = lambda x: jnp.asarray(x, jnp.float32)  # noqa: E731
    return jnp.concatenate(
        [f32(card)[:, None], f32(hp)[:, None], f32(max_hp)[:, None], f32(energy_cards)], axis=1
    )
