"""The importer of public card-database records (stats only): the printed ST-1, ST-2, ST-3 and ST-5 facts,
written with the public field names, import to exactly the stats of the shipped database; effect
text is reported, never copied; malformed input names the file, the card and the field and
writes nothing."""

import json
import os

import numpy as np
import pytest

from tcgjax.core.errors import CardDataError
from tcgjax.games.digimon import cards as C
from tcgjax.games.digimon.importer import import_cards, import_file, main

# The printed stats of the ST-1, ST-2, ST-3 and ST-5 cards (whether a card has effect text, not the text).
PRINTED = os.path.join(os.path.dirname(__file__), "data", "printed_starters.json")
STATS = ("kind", "colors", "level", "play_cost", "dp", "digivolve.num_rows", "digivolve.color",
         "digivolve.level", "digivolve.cost")  # fmt: skip


def public_record(card: dict) -> dict:
    """A printed card written with the field names of public databases."""
    record = {
        "id": card["number"],
        "name": card["name"],
        "type": card["kind"],
        "color": "/".join(card["colors"]),
        "level": card["level"],
        "play_cost": card["play_cost"],
        "dp": card["dp"],
        "rarity": card["rarity"],
        "main_effect": "some official text" if card["has_effects"] else None,
    }
    for k, req in enumerate(card["digivolve"]):
        suffix = "" if k == 0 else str(k + 1)
        record[f"evolution_cost{suffix}"] = req["cost"]
        record[f"evolution_color{suffix}"] = req["color"]
        record[f"evolution_level{suffix}"] = f"Lv.{req['level']}"
    return record


@pytest.fixture(scope="module")
def starters():
    with open(PRINTED, encoding="utf-8") as f:
        reference = [c for c in json.load(f)["cards"] if c["number"].startswith("ST")]
    return reference, C.load_cards()


def test_the_reference_starters_import_to_the_shipped_stats(tmp_path, starters):
    reference, shipped = starters
    src, dst = tmp_path / "public.json", tmp_path / "cards.yaml"
    src.write_text(json.dumps([public_record(c) for c in reference]))
    report = import_file(src, dst)
    imported = C.load_cards(dst)
    assert len(report.entries) == len(reference) == len(shipped.ids) - 1 == 64
    for number in shipped.ids[1:]:
        mine, theirs = imported.definition(number), shipped.definition(number)
        for field in ("kind", "colors", "level", "play_cost", "dp", "digivolve", "name"):
            assert mine[field] == theirs[field], f"{number}.{field}"
    for field in STATS:
        order = [imported.index(n) for n in shipped.ids[1:]]
        assert np.array_equal(np.asarray(imported.numpy[field])[order],
                              np.asarray(shipped.numpy[field])[1:]), field  # fmt: skip
    # Effect text is reported and never copied; unknown fields are counted.
    with_effects = sorted(c["number"] for c in reference if c["has_effects"])
    assert sorted(report.stats_only) == with_effects
    assert all(e["text"] == "" and e["effects"] == [] for e in report.entries)
    assert "some official text" not in dst.read_text()
    assert report.ignored_fields == {"rarity": 64}
    assert "imported as stats only" in report.summary()


GOOD = {"id": "X-1", "name": "X", "type": "Digimon", "color": "Red", "level": 3, "play_cost": 3,
        "dp": 3000, "evolution_cost": 0, "evolution_color": "Red", "evolution_level": 2}  # fmt: skip


@pytest.mark.parametrize(
    "change, field, message",
    [
        ({"name": None}, "name", "is not a name"),
        ({"type": "Spell"}, "type", "'Spell'; one of Digimon"),
        ({"color": "Pink"}, "color", "unknown color 'pink'"),
        ({"level": "three"}, "level", "is not an integer or null"),
        ({"level": True}, "level", "is not an integer or null"),
        ({"dp": None}, "dp", "needs a dp"),
        ({"evolution_level": None}, "evolution_level", "together"),
        ({"level": 9}, "level", r"9 is outside \[0, 7\]"),
        ({"play_cost": -3}, "play_cost", r"-3 is outside"),
    ],
)  # fmt: skip
def test_malformed_records_name_the_card_and_the_field(change, field, message):
    with pytest.raises(CardDataError, match=message) as info:
        import_cards([{**GOOD, **change}], source="db.json")
    assert info.value.path == "db.json" and info.value.card_id == "X-1"
    assert info.value.field == field


def test_structural_problems_are_named():
    with pytest.raises(CardDataError, match=r"\[1\].id"):
        import_cards([GOOD, {**GOOD, "id": ""}], source="db.json")
    with pytest.raises(CardDataError, match="appears twice"):
        import_cards([GOOD, GOOD], source="db.json")
    with pytest.raises(CardDataError, match="a card record is a mapping"):
        import_cards([GOOD, 3], source="db.json")
    with pytest.raises(CardDataError, match="expected a list"):
        import_cards({"X-1": GOOD}, source="db.json")


def test_nothing_is_written_on_error_and_an_old_file_is_kept(tmp_path, capsys):
    src, dst = tmp_path / "public.json", tmp_path / "cards.yaml"
    dst.write_text("old contents\n")
    src.write_text(json.dumps([GOOD, {**GOOD, "id": "X-2", "color": "Pink"}]))
    with pytest.raises(CardDataError, match="X-2"):
        import_file(src, dst)
    assert dst.read_text() == "old contents\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cards.yaml", "public.json"]
    src.write_text('[{"id": "X-1", "id": "X-3"}]')
    assert main([str(src), str(dst)]) == 1
    assert "duplicate" in capsys.readouterr().err.lower()
    assert dst.read_text() == "old contents\n"
    src.write_text(json.dumps([GOOD]))
    assert main([str(src), str(dst)]) == 0
    assert C.load_cards(dst).ids[1:] == ("X-1",)
