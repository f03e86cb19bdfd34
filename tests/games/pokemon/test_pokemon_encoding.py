"""The v2.1 and v1 slot encodings, feature by feature, on explicit slots (spec table, P5, P6)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tcgjax.core.cards import CardRegistry
from tcgjax.games.pokemon import encoding as E
from tcgjax.games.pokemon.cards import SCHEMA, TYPES, load_cards
from tcgjax.games.pokemon.importer import import_cards

REGISTRY = load_cards()
STATIC = E.static_table(REGISTRY)
V21 = E.feature_slices()


def _types(**units):
    return [units.get(t, 0) for t in TYPES]


def test_layouts_add_up():
    # P5: the spec's table lists 68 dims a slot (its "49" is an arithmetic slip); v1 has 14.
    assert E.V21_DIMS == 68 and E.V1_DIMS == 14
    assert [name for name, _ in E.V21_FEATURES][:3] == ["occupied", "evoStageOH", "evoFamilyId"]
    assert V21["specialDamageMod"] == slice(67, 68)
    assert STATIC.shape == (len(REGISTRY), 51)


def _slot(card_id, **runtime):
    args = dict(
        hp=0,
        max_hp=0,
        energy_units=_types(),
        special_count=0,
        special_extra=0,
        special_damage_mod=0,
    )
    args.update(runtime)
    card = jnp.array([REGISTRY.index(card_id) if card_id else -1])
    batch = {k: jnp.array([v]) for k, v in args.items()}
    return np.asarray(E.encode_slots_v21(STATIC, card, **batch))[0]


def test_an_eelektross_with_double_turbo_energy():
    slot = _slot("sv3-69", hp=100, max_hp=160, energy_units=_types(lightning=2, colorless=2),
                 special_count=1, special_extra=1, special_damage_mod=-20)  # fmt: skip
    expected = {
        "occupied": [1],
        "evoStageOH": [0, 0, 1],
        # 30 lines sorted by their Basic: Bidoof, Bronzor, Bruxish, Buizel, Charmander,
        # Chien-Pao ex, Cresselia, Delibird, Drifloon, Frigibax, Lumineon V, Marill, Meltan,
        # Mew ex, Miraidon ex, Moltres, Orthworm, Pidgey, Plusle, Radiant Greninja, Ralts,
        # Regieleki, Regieleki V, Tadbulb, Tapu Koko ex, Tynamo, ...: Eelektross is Tynamo's
        # line, the 26th of 30.
        "evoFamilyId": [26 / 30],
        "pokemonTypeOH": np.eye(11)[TYPES.index("lightning")],
        "HP": [100 / 300],
        "MaxHP": [160 / 300],
        "weaknessTypeOH": np.eye(11)[TYPES.index("fighting")],
        "resistanceTypeOH": np.zeros(11),
        "resistanceValue": [0],
        "retreatCost": [3 / 4],
        "atkExists": [1, 1, 0, 0],
        "atkDamage": [0, 130 / 200, 0, 0],  # Suction Shock prints no damage, Head Bolt 130
        "atkTotalCost": [1 / 5, 3 / 5, 0, 0],
        "effectiveEnergy": _types(lightning=2, colorless=2),
        "specialEnergyCount": [1],
        "specialProvidesExtra": [1],
        "specialDamageMod": [-0.1],
    }
    for name, value in expected.items():
        np.testing.assert_allclose(slot[V21[name]], value, rtol=1e-6, err_msg=name)


def test_resistance_value_and_family_of_a_metal_pokemon():
    slot = _slot("svp-104", hp=300, max_hp=300)  # Melmetal ex: Meltan's line, the 13th of 30
    np.testing.assert_allclose(slot[V21["evoFamilyId"]], [13 / 30])
    np.testing.assert_allclose(slot[V21["resistanceTypeOH"]], np.eye(11)[TYPES.index("grass")])
    np.testing.assert_allclose(slot[V21["resistanceValue"]], [-1.0])
    np.testing.assert_allclose(slot[V21["evoStageOH"]], [0, 1, 0])
    np.testing.assert_allclose(slot[V21["atkTotalCost"]], [1 / 5, 4 / 5, 0, 0])


def test_an_empty_slot_is_all_zero_whatever_the_runtime_arrays_say():
    slot = _slot(None, hp=50, max_hp=70, energy_units=_types(fire=1), special_count=1)
    assert not slot.any()


def test_jit_and_vmap_over_boards():
    cards = jnp.array([[REGISTRY.index("sv3-67"), -1], [-1, REGISTRY.index("sv2-151")]])
    zeros = jnp.zeros((2, 2), jnp.int32)
    energy = jnp.zeros((2, 2, 11), jnp.int32).at[1, 1, TYPES.index("metal")].set(3)
    encode = jax.jit(
        jax.vmap(
            lambda c, h, e: E.encode_slots_v21(STATIC, c, h, h, e, zeros[0], zeros[0], zeros[0])
        )
    )
    out = np.asarray(encode(cards, jnp.array([[40, 0], [0, 230]]), energy))
    assert out.shape == (2, 2, 68) and out.dtype == np.float32
    assert not out[0, 1].any() and not out[1, 0].any()
    np.testing.assert_allclose(out[1, 1, V21["MaxHP"]], [230 / 300])  # Orthworm with its HP bonus
    np.testing.assert_allclose(out[1, 1, V21["effectiveEnergy"]], _types(metal=3))


def test_v1_is_raw():
    out = np.asarray(E.encode_slots_v1(jnp.array([5, -1]), jnp.array([30, 0]), jnp.array([70, 0]),
                                       jnp.array([_types(lightning=2), _types()])))  # fmt: skip
    np.testing.assert_array_equal(out[0], [5, 30, 70, *_types(lightning=2)])
    np.testing.assert_array_equal(out[1], [-1, 0, 0, *_types()])


def test_a_line_whose_basic_is_missing_roots_at_its_predecessor():
    def mon(cid, name, stage, evolves=None):
        subtypes = {"basic": ["Basic"], "stage1": ["Stage 1"], "vmax": ["VMAX"]}[stage]
        return {"id": cid, "name": name, "supertype": "Pokémon", "subtypes": subtypes, "hp": "100",
                "types": ["Fire"], "evolvesFrom": evolves}  # fmt: skip

    cards, _ = import_cards([mon("a-1", "Zed", "basic"), mon("a-2", "Zedder", "stage1", "Zed"),
                             mon("a-3", "Apex VMAX", "vmax", "Apex V")])  # fmt: skip
    registry = CardRegistry(SCHEMA, cards)
    families = dict(zip(registry.ids, E.evolution_families(registry), strict=True))
    # Lines: "Apex V" (its V is not in the registry) and "Zed".
    assert (families["a-3"], families["a-1"], families["a-2"], families[""]) == (1, 2, 2, 0)


@pytest.mark.parametrize("card_id", ["sv1-194", "sve-4", "swsh9-151"])
def test_non_pokemon_have_no_static_features(card_id):
    assert not np.asarray(STATIC[REGISTRY.index(card_id)]).any()
