"""Card data files and the compiled CardRegistry (tcgjax/core/cards.py)."""

from __future__ import annotations

import copy
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import yaml
from core_testlib import ENTRIES, SCHEMA

import tcgjax
from tcgjax.core.cards import CardRegistry, CardSchema, EnumField, FlagsField, IntField, TextField
from tcgjax.core.errors import CardDataError, ConfigError, TcgjaxError

IDS = ("", "alpha_goblin", "bolt", "mid_knight", "zeta_dragon")
FLYING, HASTE, GUARD = 1, 2, 4


@pytest.fixture(scope="module")
def registry():
    return CardRegistry(SCHEMA, copy.deepcopy(ENTRIES))


def _write(path, data, fmt):
    if fmt == "json":
        path.write_text(json.dumps(data), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


# -------------------------------------------------------------------------------------------------
# Compiled tables


def test_ids_sorted_with_padding_row(registry):
    assert registry.ids == IDS
    assert len(registry) == 5
    for i, cid in enumerate(IDS[1:], start=1):
        assert registry.index(cid) == i
    assert registry.source == "<memory>"
    assert registry.schema is SCHEMA


def test_columns(registry):
    np.testing.assert_array_equal(registry["cost"], [0, 1, 2, 3, 7])
    np.testing.assert_array_equal(registry["power"], [0, 1, 0, 4, 9])
    np.testing.assert_array_equal(registry["kind"], [0, 0, 1, 0, 0])  # creature=0, spell=1
    np.testing.assert_array_equal(registry["keywords"], [0, HASTE, 0, 0, FLYING | GUARD])
    assert registry["cost"].dtype == jnp.int16
    assert registry["kind"].dtype == jnp.int8
    assert registry["keywords"].dtype == jnp.int32
    assert set(registry.numpy) == {"kind", "cost", "power", "keywords"}  # text stays host-side
    for name, col in registry.numpy.items():
        np.testing.assert_array_equal(col, registry[name])
        assert col[0] == 0  # padding row


def test_flags_bitmask(registry):
    kw = registry["keywords"]
    has = lambda idx, bit: bool(kw[idx] & bit)  # noqa: E731
    dragon, goblin = registry.index("zeta_dragon"), registry.index("alpha_goblin")
    assert has(dragon, FLYING) and has(dragon, GUARD) and not has(dragon, HASTE)
    assert has(goblin, HASTE) and not has(goblin, FLYING)
    flags = FlagsField("k", ("a", "b", "c", "d"))
    assert flags.parse([]) == 0
    assert flags.parse(["d", "a"]) == 0b1001


def test_gather_by_index(registry):
    idx = jnp.array([4, 0, 1, 1, 2])
    np.testing.assert_array_equal(registry["cost"][idx], [7, 0, 1, 1, 2])
    jitted = jax.jit(lambda i: registry["cost"][i] + registry["power"][i])
    np.testing.assert_array_equal(jitted(idx), [16, 0, 2, 2, 2])
    np.testing.assert_array_equal(jax.vmap(lambda i: registry["kind"][i])(idx), [0, 0, 0, 0, 1])


def test_definition_rows(registry):
    row = registry.definition("bolt")
    assert dict(row) == {"name": "Bolt", "kind": 1, "cost": 2, "power": 0, "keywords": 0}
    assert registry.definition("zeta_dragon")["keywords"] == FLYING | GUARD


def test_same_definitions_in_any_order_give_same_indices(registry):
    other = CardRegistry(SCHEMA, list(reversed(copy.deepcopy(ENTRIES))))
    assert other.ids == registry.ids
    for name in registry.numpy:
        np.testing.assert_array_equal(other.numpy[name], registry.numpy[name])


def test_lookup_errors(registry):
    with pytest.raises(ConfigError, match="name"):
        registry["name"]  # a text field has no device column
    with pytest.raises(ConfigError, match="toughness"):
        registry["toughness"]
    with pytest.raises(ConfigError, match="unknown card id 'ogre'"):
        registry.index("ogre")
    with pytest.raises(ConfigError):
        registry.index("")  # the padding row is not a card


def test_arrays_are_read_only(registry):
    with pytest.raises(ValueError):
        registry.numpy["cost"][1] = 5
    with pytest.raises(TypeError):
        registry.numpy["cost"] = np.zeros(5)
    with pytest.raises(TypeError):
        registry.definition("bolt")["cost"] = 5
    with pytest.raises(TypeError):
        registry["cost"][1] = 5  # device arrays are immutable
    assert int(registry["cost"][1]) == 1


def test_schema_validation():
    with pytest.raises(ConfigError):
        CardSchema((IntField("id", 0, 1),))
    with pytest.raises(ConfigError):
        CardSchema((IntField("cost", 0, 1), EnumField("cost", ("a",))))
    assert SCHEMA.names == ("name", "kind", "cost", "power", "keywords")


# -------------------------------------------------------------------------------------------------
# Loading files


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_load_file(tmp_path, registry, fmt):
    path = _write(tmp_path / f"cards.{fmt}", {"cards": copy.deepcopy(ENTRIES)}, fmt)
    loaded = CardRegistry.load(path, SCHEMA)
    assert loaded.source == str(path)
    assert loaded.ids == registry.ids
    for name in registry.numpy:
        np.testing.assert_array_equal(loaded[name], registry[name])
    assert dict(loaded.definition("mid_knight")) == dict(registry.definition("mid_knight"))


def test_load_handwritten_yaml(tmp_path):
    path = tmp_path / "cards.yml"
    path.write_text(
        "cards:\n"
        "  - {id: b, name: B, kind: spell, cost: 0, power: 0, keywords: []}\n"
        "  - id: a\n"
        "    name: A\n"
        "    kind: creature\n"
        "    cost: 10\n"
        "    power: 20\n"
        "    keywords: [guard, flying, haste]\n",
        encoding="utf-8",
    )
    reg = CardRegistry.load(str(path), SCHEMA)
    assert reg.ids == ("", "a", "b")
    np.testing.assert_array_equal(reg["cost"], [0, 10, 0])
    np.testing.assert_array_equal(reg["keywords"], [0, 7, 0])


# -------------------------------------------------------------------------------------------------
# Validation errors: every one is a CardDataError naming the file, the card and the field


def _entries_with(card_id, **changes):
    entries = copy.deepcopy(ENTRIES)
    for entry in entries:
        if entry["id"] == card_id:
            for key, value in changes.items():
                if value is _DELETE:
                    del entry[key]
                else:
                    entry[key] = value
    return entries


_DELETE = object()

CARD_FIELD_CASES = [
    # (case name, entries, card id in message, field in message)
    ("missing field", _entries_with("bolt", cost=_DELETE), "bolt", "cost"),
    ("unknown field", _entries_with("bolt", colour="red"), "bolt", "colour"),
    ("string for int", _entries_with("bolt", cost="2"), "bolt", "cost"),
    ("bool for int", _entries_with("bolt", cost=True), "bolt", "cost"),
    ("float for int", _entries_with("bolt", power=1.5), "bolt", "power"),
    ("list for int", _entries_with("bolt", power=[1]), "bolt", "power"),
    ("null for int", _entries_with("bolt", cost=None), "bolt", "cost"),
    ("above max", _entries_with("mid_knight", cost=11), "mid_knight", "cost"),
    ("below min", _entries_with("mid_knight", cost=-1), "mid_knight", "cost"),
    ("unknown enum value", _entries_with("bolt", kind="artifact"), "bolt", "kind"),
    ("enum wrong type", _entries_with("bolt", kind=1), "bolt", "kind"),
    ("flags not a list", _entries_with("bolt", keywords="haste"), "bolt", "keywords"),
    ("unknown flag", _entries_with("bolt", keywords=["swim"]), "bolt", "keywords"),
    ("repeated flag", _entries_with("bolt", keywords=["haste", "haste"]), "bolt", "keywords"),
    ("text wrong type", _entries_with("bolt", name=5), "bolt", "name"),
    ("duplicate id", copy.deepcopy(ENTRIES) + [copy.deepcopy(ENTRIES[3])], "bolt", "id"),
    ("missing id", [{"name": "X"}] + copy.deepcopy(ENTRIES), "entry #0", "id"),
    ("id not a string", copy.deepcopy(ENTRIES) + [{"id": 12}], "entry #4", "id"),
    ("empty id", copy.deepcopy(ENTRIES[:1]) + [{"id": ""}], "entry #1", "id"),
]


@pytest.mark.parametrize("fmt", ["yaml", "json"])
@pytest.mark.parametrize(
    ("entries", "card", "field"),
    [c[1:] for c in CARD_FIELD_CASES],
    ids=[c[0] for c in CARD_FIELD_CASES],
)
def test_card_field_errors_name_file_card_and_field(tmp_path, fmt, entries, card, field):
    path = _write(tmp_path / f"cards.{fmt}", {"cards": entries}, fmt)
    with pytest.raises(CardDataError) as info:
        CardRegistry.load(path, SCHEMA)
    message = str(info.value)
    assert str(path) in message
    assert repr(card) in message
    assert repr(field) in message
    assert (info.value.path, info.value.card_id, info.value.field) == (str(path), card, field)


@pytest.mark.parametrize(
    ("entries", "card", "field"),
    [c[1:] for c in CARD_FIELD_CASES],
    ids=[c[0] for c in CARD_FIELD_CASES],
)
def test_in_memory_errors_name_source_card_and_field(entries, card, field):
    with pytest.raises(CardDataError) as info:
        CardRegistry(SCHEMA, entries, source="inline-set")
    assert str(info.value).startswith("inline-set")
    assert (info.value.card_id, info.value.field) == (card, field)


@pytest.mark.parametrize("bad_entry", ["bolt", 3, ["bolt"], None])
def test_entry_not_a_mapping(tmp_path, bad_entry):
    path = _write(tmp_path / "cards.yaml", {"cards": copy.deepcopy(ENTRIES) + [bad_entry]}, "yaml")
    with pytest.raises(CardDataError) as info:
        CardRegistry.load(path, SCHEMA)
    assert str(path) in str(info.value)
    assert "'entry #4'" in str(info.value)
    assert "mapping" in str(info.value)


@pytest.mark.parametrize(
    ("text", "field", "needle"),
    [
        ("- {id: a}\n", None, "top level must be a mapping"),  # a list at the top
        ("just a string\n", None, "top level must be a mapping"),
        ("", None, "top level must be a mapping"),  # empty file -> None
        ("cards: []\nextra: 1\n", "extra", "unknown top-level key"),
        ("zeta: 1\ncards: []\nalpha: 2\n", "alpha", "unknown top-level key"),  # sorted: first
        ("{}\n", "cards", "missing top-level 'cards'"),
        ("cards: {a: 1}\n", "cards", "expected a list"),
        ("cards: []\n", "cards", "no card definitions"),
        ("cards:\n", "cards", "expected a list"),  # cards: null
    ],
)
def test_top_level_errors(tmp_path, text, field, needle):
    path = tmp_path / "cards.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CardDataError, match=needle) as info:
        CardRegistry.load(path, SCHEMA)
    assert str(info.value).startswith(str(path))
    assert info.value.field == field
    if field is not None:
        assert repr(field) in str(info.value)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("cards.yaml", "cards: [\n  - {id: a\n"),
        ("cards.yaml", "cards:\n  - id: a\n   name: b\n  bad indent: [\n"),
        ("cards.json", '{"cards": [}'),
        ("cards.json", "cards: []\n"),  # YAML is not JSON
    ],
)
def test_invalid_syntax(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CardDataError, match="not valid JSON/YAML") as info:
        CardRegistry.load(path, SCHEMA)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path):
    path = tmp_path / "nope.yaml"
    with pytest.raises(CardDataError, match="cannot read file") as info:
        CardRegistry.load(path, SCHEMA)
    assert str(path) in str(info.value)


def test_directory_is_unreadable(tmp_path):
    with pytest.raises(CardDataError, match="cannot read file"):
        CardRegistry.load(tmp_path, SCHEMA)


def test_file_that_is_not_utf8_is_a_card_data_error(tmp_path):
    # Bytes that are not UTF-8 make the file unreadable as card data: it must be reported as a
    # CardDataError naming the file, like any other unreadable file (not a bare UnicodeDecodeError).
    path = tmp_path / "cards.yaml"
    path.write_bytes(b'cards:\n  - {id: a, name: "\xff\xfe", kind: spell}\n')
    with pytest.raises(CardDataError) as info:
        CardRegistry.load(path, SCHEMA)
    assert str(path) in str(info.value)


def test_unknown_fields_of_mixed_key_types_are_a_card_data_error(tmp_path):
    # YAML keys need not be strings. An entry with two unknown keys, one an int and one a string,
    # is still an unknown field and must raise CardDataError (not a TypeError from sorting).
    path = tmp_path / "cards.yaml"
    path.write_text(
        "cards:\n  - {id: a, name: A, kind: spell, cost: 1, power: 0, keywords: [], 7: x, zz: y}\n",
        encoding="utf-8",
    )
    with pytest.raises(CardDataError) as info:
        CardRegistry.load(path, SCHEMA)
    assert str(path) in str(info.value) and "'a'" in str(info.value)


def test_unknown_top_level_keys_of_mixed_types_are_a_card_data_error(tmp_path):
    path = tmp_path / "cards.yaml"
    path.write_text("cards: []\n1: x\nextra: y\n", encoding="utf-8")
    with pytest.raises(CardDataError) as info:
        CardRegistry.load(path, SCHEMA)
    assert str(path) in str(info.value)


def test_a_single_non_string_unknown_key_is_named(tmp_path):
    path = tmp_path / "cards.yaml"
    path.write_text(
        "cards:\n  - {id: a, name: A, kind: spell, cost: 1, power: 0, keywords: [], 7: x}\n",
        encoding="utf-8",
    )
    with pytest.raises(CardDataError) as info:
        CardRegistry.load(path, SCHEMA)
    assert (info.value.card_id, info.value.field) == ("a", "7")
    assert "field '7'" in str(info.value)


def test_entries_not_a_list_in_memory():
    with pytest.raises(CardDataError) as info:
        CardRegistry(SCHEMA, ({"id": "a"},))
    assert info.value.field == "cards"


# -------------------------------------------------------------------------------------------------
# Exceptions


def test_card_data_error_hierarchy():
    assert issubclass(CardDataError, TcgjaxError)
    assert issubclass(CardDataError, ValueError)
    assert tcgjax.CardDataError is CardDataError
    assert tcgjax.TcgjaxError is TcgjaxError
    err = CardDataError("f.yaml", "bolt", "cost", "boom")
    assert str(err) == "f.yaml, card 'bolt', field 'cost': boom"
    assert str(CardDataError("f.yaml", None, None, "boom")) == "f.yaml: boom"


def test_field_parsers_directly():
    assert IntField("x", -2, 2).parse(-2) == -2
    with pytest.raises(ValueError):
        IntField("x", -2, 2).parse(3)
    assert EnumField("e", ("a", "b")).parse("b") == 1
    assert TextField("t").parse("hi") == "hi"


def test_int_field_range_must_fit_its_dtype():
    with pytest.raises(ConfigError, match="'hp'.*int16"):
        IntField("hp", 0, 100_000)
    IntField("hp", 0, 100_000, dtype=np.int32)
