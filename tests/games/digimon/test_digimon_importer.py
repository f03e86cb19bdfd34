"""The importer of public card-database records (stats only): the printed ST-1 to ST-8 facts (with
the BT-1 reprints of ST-7 and ST-8), written with the public field names, import to exactly the
stats of the shipped database; effect text is reported, never copied; malformed input names the
file, the card and the field and writes nothing."""

import json
import os

import numpy as np
import pytest

import tcgjax
from tcgjax.core.errors import CardDataError, ConfigError
from tcgjax.games.digimon import cards as C
from tcgjax.games.digimon.decks import DECKS_DIR, deck_problems, load_deck
from tcgjax.games.digimon.importer import import_cards, import_file, main

# The printed stats of the ST-1 to ST-8 cards and the BT-1 reprints of ST-7 and ST-8 (whether a card
# has effect text, not the text); two BT-14 cards besides, which the card file does not ship.
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
        cards = json.load(f)["cards"]
    reference = [c for c in cards if c["set"].startswith("ST") or c["set"] == "BT-1"]
    return reference, C.load_cards()


def test_the_reference_starters_import_to_the_shipped_stats(tmp_path, starters):
    reference, shipped = starters
    src, dst = tmp_path / "public.json", tmp_path / "cards.yaml"
    src.write_text(json.dumps([public_record(c) for c in reference]))
    report = import_file(src, dst)
    imported = C.load_cards(dst)
    assert len(report.entries) == len(reference) == len(shipped.ids) - 1 == 126
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
    assert report.ignored_fields == {"rarity": 126}
    assert "imported as stats only" in report.summary()
    # The file marks them, so a deck that holds one is refused unless vanilla play is allowed.
    assert imported.stats_only == frozenset(with_effects)
    assert shipped.stats_only == frozenset()


def test_a_deck_of_imported_cards_is_refused_unless_vanilla_play_is_allowed(tmp_path, starters):
    reference, _ = starters
    src, dst = tmp_path / "public.json", tmp_path / "cards.yaml"
    src.write_text(json.dumps([public_record(c) for c in reference]))
    import_file(src, dst)
    imported = C.load_cards(dst)
    deck = load_deck("st1", C.load_cards())
    vanilla = sorted(set(deck.eggs + deck.main) & imported.stats_only)
    text = {c["number"] for c in reference if c["has_effects"]}
    assert vanilla == sorted(text & set(deck.main + deck.eggs)) and "ST1-03" in vanilla
    named = ", ".join(f"{n} ({imported.definition(n)['name']})" for n in vanilla)
    assert deck_problems("st1", imported) == [
        f"{os.path.join(DECKS_DIR, 'st1.yaml')}: {len(vanilla)} card(s) whose effects {dst} does "
        f"not implement (stats only): {named}; pass allow_vanilla=True to play them without "
        "their effects"
    ]
    with pytest.raises(ConfigError, match="card\\(s\\) whose effects"):
        load_deck("st1", imported)
    assert deck_problems("st1", imported, allow_vanilla=True) == []
    assert load_deck("st1", imported, allow_vanilla=True).main == deck.main
    with pytest.raises(ConfigError, match="ST1-03 \\(Agumon\\), "):
        tcgjax.make("digimon", cards=dst, decks=("st1", "st1"))
    env = tcgjax.make("digimon", cards=dst, decks=("st1", "st1"), allow_vanilla=True)
    assert env.options["allow_vanilla"] is True
    with pytest.raises(ConfigError, match="option allow_vanilla='yes' must be True or False"):
        tcgjax.make("digimon", allow_vanilla="yes")


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
