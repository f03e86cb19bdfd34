"""``RowsField``: lists of structured rows (requirements, effect rows, attacks) in the card registry."""

import dataclasses

import numpy as np
import pytest

import tcgjax
from tcgjax.core.cards import (
    CardRegistry,
    CardSchema,
    CountsField,
    EnumField,
    FlagsField,
    IntField,
    RowsField,
    TextField,
)

ATTACKS = RowsField(
    "attacks",
    3,
    (EnumField("kind", ("hit", "heal")), IntField("amount", 0, 300), IntField("cost", -1, 5)),
    defaults={"cost": 1},
    pads={"cost": -1},
)
SCHEMA = CardSchema((TextField("name"), ATTACKS))


def registry(entries):
    return CardRegistry(SCHEMA, entries, source="mem.yaml")


def test_rows_compile_to_padded_columns_and_a_count():
    reg = registry(
        [
            {"id": "b", "name": "B", "attacks": [{"kind": "heal", "amount": 30, "cost": 0}]},
            {"id": "a", "name": "A", "attacks": [{"kind": "hit", "amount": 10},
                                                 {"kind": "hit", "amount": 120, "cost": 3}]},
            {"id": "c", "name": "C", "attacks": []},
        ]
    )  # fmt: skip
    assert reg.ids == ("", "a", "b", "c")
    np.testing.assert_array_equal(reg["attacks.num_rows"], [0, 2, 1, 0])
    np.testing.assert_array_equal(
        reg["attacks.amount"], [[0, 0, 0], [10, 120, 0], [30, 0, 0], [0, 0, 0]]
    )
    np.testing.assert_array_equal(reg["attacks.kind"][1:3], [[0, 0, 0], [1, 0, 0]])
    # The default (1) fills a row that omits the key; unused rows hold the pad (-1).
    np.testing.assert_array_equal(reg["attacks.cost"][1:3], [[1, 3, -1], [0, -1, -1]])
    assert (
        reg.numpy["attacks.amount"].dtype == np.int16 and reg["attacks.num_rows"].dtype == np.int8
    )
    assert reg.definition("a")["attacks"][1]["amount"] == 120
    assert ATTACKS.column_names == (
        "attacks.kind",
        "attacks.amount",
        "attacks.cost",
        "attacks.num_rows",
    )


@pytest.mark.parametrize(
    ("rows", "needle"),
    [
        ("hit", "expected a list of rows"),
        ([{"kind": "hit", "amount": 1}] * 4, "4 rows, at most 3"),
        (["hit"], "row 0: expected a mapping"),
        ([{"kind": "hit"}], "row 0: missing key 'amount'"),
        ([{"kind": "hit", "amount": 1, "dmg": 2}], "row 0: unknown key 'dmg'"),
        ([{"kind": "hit", "amount": 1}, {"kind": "zap", "amount": 1}], "row 1, key 'kind'"),
        ([{"kind": "hit", "amount": 999}], "row 0, key 'amount': 999 is outside [0, 300]"),
    ],
)
def test_row_errors_name_file_card_field_row_and_key(rows, needle):
    with pytest.raises(tcgjax.CardDataError) as info:
        registry([{"id": "x", "name": "X", "attacks": rows}])
    message = str(info.value)
    assert message.startswith("mem.yaml, card 'x', field 'attacks': "), message
    assert needle in message, message


def test_row_columns_are_read_only():
    reg = registry([{"id": "a", "name": "A", "attacks": [{"kind": "hit", "amount": 10}]}])
    for name in ATTACKS.column_names:
        with pytest.raises(ValueError, match="read-only"):
            reg.numpy[name][1] = 0
    assert int(reg["attacks.amount"][1, 0]) == 10


@pytest.mark.parametrize(
    "field",
    [
        IntField("n", 0, 9),
        EnumField("kind", ("a", "b")),
        FlagsField("tags", ("x", "y")),
        CountsField("colors", ("r", "g")),
        TextField("name"),
        ATTACKS,
        SCHEMA,
    ],
    ids=lambda f: type(f).__name__,
)
def test_schema_fields_are_immutable(field):
    """A schema is shared by every registry built from it: none of its fields may change."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        field.name = "other"


def test_schema_errors():
    with pytest.raises(tcgjax.ConfigError, match="unique"):
        RowsField("r", 2, (IntField("a", 0, 1), IntField("a", 0, 1)))
    with pytest.raises(tcgjax.ConfigError, match="num_rows"):
        RowsField("r", 2, (IntField("num_rows", 0, 1),))
    with pytest.raises(tcgjax.ConfigError, match="unknown sub-field 'b'"):
        RowsField("r", 2, (IntField("a", 0, 1),), defaults={"b": 0})
    with pytest.raises(tcgjax.ConfigError, match="default of 'a'"):
        RowsField("r", 2, (IntField("a", 0, 1),), defaults={"a": 5})
    with pytest.raises(tcgjax.ConfigError, match="cannot be rows"):
        RowsField("r", 2, (RowsField("inner", 1, (IntField("a", 0, 1),)),))
    with pytest.raises(tcgjax.ConfigError, match="max_rows"):
        RowsField("r", 0, (IntField("a", 0, 1),))
    with pytest.raises(tcgjax.ConfigError, match="max_rows"):
        RowsField("r", 128, (IntField("a", 0, 1),))  # num_rows is an int8
    assert RowsField("r", 127, (IntField("a", 0, 1),)).max_rows == 127


TYPES = ("fire", "water", "colorless")
MOVES = RowsField(
    "moves",
    2,
    (TextField("name"), CountsField("cost", TYPES, max_total=5), IntField("damage", 0, 300)),
)
TYPED = CardSchema((CountsField("provides", TYPES, max_total=2), MOVES))


def test_counts_and_text_sub_fields():
    # A cost lists types with repeats; it compiles to counts per type, per card and per row.
    reg = CardRegistry(
        TYPED,
        [
            {"id": "dte", "provides": ["colorless", "colorless"], "moves": []},
            {"id": "mon", "provides": [], "moves": [
                {"name": "Splash", "cost": ["water", "colorless", "water"], "damage": 30},
                {"name": "Ember", "cost": [], "damage": 10}]},
        ],
        source="typed.yaml",
    )  # fmt: skip
    np.testing.assert_array_equal(reg["provides"], [[0, 0, 0], [0, 0, 2], [0, 0, 0]])
    assert reg["moves.cost"].shape == (3, 2, 3) and reg["moves.cost"].dtype == np.int8
    np.testing.assert_array_equal(reg["moves.cost"][2], [[0, 2, 1], [0, 0, 0]])
    np.testing.assert_array_equal(reg["moves.damage"][2], [30, 10])
    # Names stay host-side: no column, but the validated row keeps them.
    assert "moves.name" not in reg.numpy
    assert [m["name"] for m in reg.definition("mon")["moves"]] == ["Splash", "Ember"]


@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        ({"provides": "colorless", "moves": []}, "field 'provides': expected a list"),
        ({"provides": ["dark"], "moves": []}, "field 'provides': unknown value 'dark'"),
        ({"provides": ["fire"] * 3, "moves": []}, "field 'provides': 3 entries, at most 2"),
        ({"provides": [], "moves": [{"name": 3, "cost": [], "damage": 0}]}, "row 0, key 'name'"),
        ({"provides": [], "moves": [{"name": "m", "cost": ["fire"] * 6, "damage": 0}]},
         "row 0, key 'cost': 6 entries, at most 5"),
    ],
)  # fmt: skip
def test_counts_field_errors_name_the_field(entry, needle):
    with pytest.raises(tcgjax.CardDataError) as info:
        CardRegistry(TYPED, [{"id": "x", **entry}], source="typed.yaml")
    assert str(info.value).startswith("typed.yaml, card 'x', field '"), str(info.value)
    assert needle in str(info.value)
