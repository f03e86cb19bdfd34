"""Pokémon cards and decks: the shipped card file holds the printed stats of the reference cards,
the decks are the reference's two lists, every rule between fields is refused by name, and the
importer from the public card data maps each field (and names each malformed one)."""

import copy
import dataclasses
import json
import pathlib
import re

import pytest
import yaml

import tcgjax
from tcgjax.core.cards import CardRegistry
from tcgjax.core.errors import CardDataError, ConfigError
from tcgjax.games.pokemon import importer
from tcgjax.games.pokemon.cards import (
    DAMAGE_MODES,
    KINDS,
    MAX_GATES,
    SCHEMA,
    SHIPPED_CARDS,
    STAGES,
    TYPES,
    check_card_rules,
    gate_names,
    load_cards,
)
from tcgjax.games.pokemon.decks import SHIPPED_DECKS, load_deck
from tcgjax.games.pokemon.rules import PokemonRules

DATA = pathlib.Path(__file__).resolve().parent / "data"
REGISTRY = load_cards()


def _printed_cards() -> list[dict]:
    """The printed facts of the shipped cards, in the public database's field names (card text
    not copied): ``data/printed_cards.json``."""
    return json.loads((DATA / "printed_cards.json").read_text(encoding="utf-8"))["cards"]


def _shipped_entries():
    return yaml.safe_load(pathlib.Path(SHIPPED_CARDS).read_text(encoding="utf-8"))["cards"]


@pytest.mark.parametrize("card", _printed_cards(), ids=lambda c: c["id"])
def test_shipped_stats_are_the_printed_ones(card):
    ours = REGISTRY.definition(card["id"])
    # A Trainer printing named after its character ("Professor's Research (Professor Sada)") has
    # the printed name without it (what the 4-copy rule counts).
    printed_name = card["name"]
    if card["supertype"] == "Trainer":
        printed_name = re.sub(r"\s+\([^()]*\)$", "", printed_name)
    assert ours["name"] == printed_name
    if card["supertype"] != "Pokémon":
        assert KINDS[ours["kind"]] != "pokemon"
        if card["supertype"] == "Energy":
            provided = [TYPES[t] for t, n in enumerate(ours["provides"]) for _ in range(n)]
            assert provided == [t.lower() for t in card["provides"]]
        return
    assert STAGES[ours["stage"]] == card["stage"].lower().replace(" ", "")
    assert ours["evolves_from"] == (card["evolvesFrom"] or "")
    assert ours["hp"] == int(card["hp"])
    assert ours["type"] == TYPES.index(card["types"][0].lower()) + 1
    assert ours["retreat"] == card["convertedRetreatCost"]
    assert ours["prizes"] == card["prizeValue"]
    for theirs, (kind, value) in ((card["weaknesses"], ("weakness", "weakness_multiplier")),
                                  (card["resistances"], ("resistance", "resistance_value"))):  # fmt: skip
        if theirs:
            assert ours[kind] == TYPES.index(theirs[0]["type"].lower()) + 1
            assert ours[value] == int(theirs[0]["value"].strip("×"))
        else:
            assert (ours[kind], ours[value]) == (0, 0)
    assert len(ours["attacks"]) == len(card["attacks"])
    for mine, attack in zip(ours["attacks"], card["attacks"], strict=True):
        assert mine["name"] == attack["name"]
        cost = [TYPES[t] for t, n in enumerate(mine["cost"]) for _ in range(n)]
        assert sorted(cost) == sorted(c.lower() for c in attack["cost"])
        assert mine["damage"] == int(attack["damage"].rstrip("+×-") or 0)
        printed_mode = {"+": "plus", "×": "times", "-": "minus"}.get(attack["damage"][-1:], "plain")
        assert DAMAGE_MODES[mine["damage_mode"]] == printed_mode
    assert [a["name"] for a in ours["abilities"]] == [a["name"] for a in card["abilities"]]


def test_every_non_vanilla_card_has_effect_rows_and_a_paraphrase():
    reference = {c["id"]: c for c in _printed_cards()}
    for card_id in REGISTRY.ids[1:]:
        card, ours = reference[card_id], REGISTRY.definition(card_id)
        has_effect = any(a.get("effect") for a in card["attacks"] or []) or bool(
            card["abilities"] or (card.get("effect") and card["effect"]["kind"] != "basic_energy")
        )
        if card_id == "swsh9-151":  # DTE: its provision and damage modifier are fields
            assert (ours["damage_modifier"], sum(ours["provides"])) == (-20, 2)
            continue
        assert bool(ours["effects"]) == has_effect, card_id
        assert bool(ours["text"]) == has_effect, card_id


def test_shipped_decks_are_the_official_lists():
    reference = json.loads((DATA / "deck_lists.json").read_text(encoding="utf-8"))["decks"]
    decks = {deck_id: load_deck(deck_id, REGISTRY) for deck_id in SHIPPED_DECKS}
    assert {d.name for d in decks.values()} == set(reference)
    for deck in decks.values():
        expected = reference[deck.name]["cards"]
        assert {c: deck.cards.count(c) for c in set(deck.cards)} == expected


def _deck(**cards):
    base = {"sv3-67": 4, "sve-4": 56}
    base.update(cards)
    return {"name": "test", "cards": {k: v for k, v in base.items() if v}}


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        (_deck(), None),
        (_deck(**{"sve-4": 55}), "59 cards; a deck has 60"),
        # The two Nemona printings count together: 3 + 2 of one name.
        (_deck(**{"sve-4": 51, "sv1-180": 3, "sv4pt5-82": 2}), "Nemona: 5 copies; at most 4"),
        (_deck(**{"sv3-67": 5, "sve-4": 55}), "Tynamo: 5 copies"),
        # Only basic Energy is exempt: 5 Double Turbo Energy are refused.
        (_deck(**{"sve-4": 51, "swsh9-151": 5}), "Double Turbo Energy: 5 copies"),
        ({"name": "t", "cards": {"sve-4": 60}}, "no Basic Pokémon"),
        ({"name": "t", "cards": {"sv3-68": 4, "sve-4": 56}}, "no Basic Pokémon"),  # a Stage 1
        (_deck(**{"xy1-1": 1}), r"cards\.xy1-1: no card with that id"),
    ],
)
def test_deck_rules(deck, message):
    if message is None:
        assert len(load_deck(deck, REGISTRY).cards) == 60
        return
    with pytest.raises(ConfigError, match=message) as info:
        load_deck(deck, REGISTRY)
    assert str(info.value).startswith("<deck dict>: ")


@pytest.mark.parametrize("sizes", [(60,), (60, 59), (59, 60), (60, 60, 60)])
def test_the_rules_take_exactly_two_decks_of_60(sizes):
    # The rules check what they are given, whatever built the decks (load_deck checks too).
    full = load_deck(_deck(), REGISTRY)
    decks = [dataclasses.replace(full, cards=full.cards[:n]) for n in sizes]
    with pytest.raises(ConfigError, match="two decks of 60 cards"):
        PokemonRules(decks, REGISTRY)


def _with(card_id, **changes):
    entries = copy.deepcopy(_shipped_entries())
    for entry in entries:
        if entry["id"] == card_id:
            entry.update(changes)
    return entries


@pytest.mark.parametrize(
    ("card_id", "changes", "field"),
    [
        ("sv3-67", {"stage": "none"}, "stage"),
        ("sv1-194", {"stage": "basic"}, "stage"),
        ("sv3-68", {"evolves_from": ""}, "evolves_from"),
        ("sv3-67", {"evolves_from": "Pikachu"}, "evolves_from"),
        ("sv3-67", {"hp": 0}, "type"),
        ("sv3-67", {"type": "none"}, "type"),
        ("sv1-194", {"retreat": 1}, "type"),
        ("sv1-194", {"attacks": [{"name": "x", "cost": [], "damage": 10, "damage_mode": "plain"}]},
         "attacks"),
        ("sv3-67", {"weakness_multiplier": 0}, "weakness_multiplier"),
        ("sv3-67", {"resistance_value": -30}, "resistance_value"),
        ("sv3-67", {"provides": ["lightning"]}, "provides"),
        ("sve-4", {"provides": []}, "provides"),
        ("sve-4", {"provides": ["lightning", "lightning"]}, "provides"),
        ("sv1-194", {"damage_modifier": -20}, "damage_modifier"),
        ("sv3-67", {"effects": [{"where": "attack2", "op": "draw", "count": 1}]}, "effects"),
        ("sv3-67", {"effects": [{"where": "ability", "op": "draw", "count": 1}]}, "effects"),
        ("sv3-67", {"effects": [{"where": "play", "op": "draw", "count": 1}]}, "effects"),
        ("sv1-194", {"effects": [{"where": "attached", "op": "draw", "count": 1}]}, "effects"),
    ],
)  # fmt: skip
def test_rules_between_fields_name_the_card_and_field(card_id, changes, field):
    registry = CardRegistry(SCHEMA, _with(card_id, **changes), source="bad.yaml")
    with pytest.raises(CardDataError) as info:
        check_card_rules(registry)
    assert str(info.value).startswith(f"bad.yaml, card {card_id!r}, field {field!r}: ")


def test_schema_errors_name_the_card_and_field():
    with pytest.raises(CardDataError, match=r"card 'sv3-67', field 'attacks': row 0, key 'cost'"):
        CardRegistry(SCHEMA, _with("sv3-67", attacks=[
            {"name": "x", "cost": ["plasma"], "damage": 10, "damage_mode": "plain"}]))  # fmt: skip
    with pytest.raises(CardDataError, match=r"card 'sv1-194', field 'effects': row 0, key 'op'"):
        CardRegistry(SCHEMA, _with("sv1-194", effects=[{"where": "play", "op": "teleport"}]))


def _suction_rows(paralysis_gate):
    """Eelektross's Suction Shock rows with ``paralysis_gate`` as the gate of row 2."""
    rows = copy.deepcopy(next(e for e in _shipped_entries() if e["id"] == "sv3-69")["effects"])
    rows[2]["gate"] = paralysis_gate
    return rows


def _stored_gate(gate):
    registry = CardRegistry(SCHEMA, _with("sv3-69", effects=_suction_rows(gate)))
    return registry.definition("sv3-69")["effects"][2]["gate"]


def test_a_gate_is_one_name_or_a_list_of_names_that_must_all_hold():
    assert MAX_GATES == 2
    assert _stored_gate("heads") == _stored_gate(["heads"]) != _stored_gate("always")
    assert _stored_gate("always") == _stored_gate([]) == 0
    assert _stored_gate(["previous", "heads"]) == _stored_gate(["heads", "previous"])
    assert gate_names(_stored_gate(["heads", "previous"])) == ("heads", "previous")
    assert gate_names(_stored_gate("always")) == ()


def test_shipped_rows_with_two_gates_are_the_audited_ones():
    """Guard of the audit (issue #32): a shipped row joining two conditions is listed here."""
    joined = {
        (card_id, r): gate_names(row["gate"])
        for card_id in REGISTRY.ids[1:]
        for r, row in enumerate(REGISTRY.definition(card_id)["effects"])
        if len(gate_names(row["gate"])) > 1
    }
    # Suction Shock: "if you do, ... flip a coin: heads, Paralyzed" (the switch and heads).
    assert joined == {("sv3-69", 2): ("heads", "previous")}
    suction = REGISTRY.definition("sv3-69")["effects"]
    assert gate_names(suction[1]["gate"]) == ("previous",)  # the 60 damage: the switch


@pytest.mark.parametrize(
    ("gate", "problem"),
    [
        (["previous", "condition", "heads"], f"3 gates, at most {MAX_GATES}"),
        (["heads", "tails"], "heads and tails"),
        (["always", "heads"], "'always' stands alone"),
        (["previous", "previous"], "listed twice"),
        (["previous", "if_you_do"], "unknown value 'if_you_do'"),
        ("sometimes", "unknown value 'sometimes'"),
        (1, "expected a gate name or a list of gate names"),
    ],
)
def test_bad_gates_are_refused_naming_file_card_and_field(tmp_path, gate, problem):
    path = tmp_path / "bad_gates.yaml"
    entries = _with("sv3-69", effects=_suction_rows(gate))
    path.write_text(yaml.safe_dump({"cards": entries}, allow_unicode=True), encoding="utf-8")
    with pytest.raises(CardDataError) as info:
        load_cards(path)
    error = info.value
    assert (error.path, error.card_id, error.field) == (str(path), "sv3-69", "effects")
    assert str(error).startswith(f"{path}, card 'sv3-69', field 'effects': row 2, key 'gate': ")
    assert problem in error.problem


# -- importer ----------------------------------------------------------------------------------


def _public(**fields):
    card = {
        "id": "t1-1",
        "name": "Testmon",
        "supertype": "Pokémon",
        "subtypes": ["Basic"],
        "hp": "70",
        "types": ["Water"],
        "attacks": [
            {"name": "Splash", "cost": ["Water", "Colorless"], "damage": "20×", "text": "x"}
        ],
        "weaknesses": [{"type": "Lightning", "value": "×2"}],
        "resistances": [{"type": "Fighting", "value": "-30"}],
        "convertedRetreatCost": 2,
    }
    card.update(fields)
    return card


def test_importer_maps_each_field_and_reports_what_it_simplified():
    cards, report = importer.import_cards([
        _public(),
        _public(id="t1-2", name="Testmon VMAX", subtypes=["VMAX"], evolvesFrom="Testmon V",
                hp="320", attacks=[{"name": "Max", "cost": ["Free"], "damage": "100-"}]),
        {"id": "t1-3", "name": "Basic Water Energy", "supertype": "Energy", "subtypes": ["Basic"]},
        {"id": "t1-4", "name": "Odd Energy", "supertype": "Energy", "subtypes": ["Special"]},
        {"id": "t1-5", "name": "Tool", "supertype": "Trainer", "subtypes": ["Pokémon Tool"]},
    ], source="public.json")  # fmt: skip
    mon, vmax, water, odd, tool = cards
    assert (mon["stage"], mon["type"], mon["hp"], mon["retreat"], mon["prizes"]) == (
        "basic", "water", 70, 2, 1)  # fmt: skip
    assert (mon["weakness"], mon["weakness_multiplier"]) == ("lightning", 2)
    assert (mon["resistance"], mon["resistance_value"]) == ("fighting", -30)
    assert mon["attacks"] == [
        {"name": "Splash", "cost": ["water", "colorless"], "damage": 20, "damage_mode": "times"}
    ]
    assert (vmax["stage"], vmax["tags"], vmax["prizes"]) == ("stage1", ["vmax"], 3)
    assert vmax["attacks"][0]["cost"] == [] and vmax["attacks"][0]["damage_mode"] == "minus"
    assert (water["kind"], water["provides"]) == ("basic_energy", ["water"])
    assert (odd["kind"], tool["kind"]) == ("special_energy", "tool")
    assert all(c["text"] == "" for c in cards)  # card text is never copied
    # A card with an effect left out is marked: decks refuse it unless vanilla play is allowed.
    assert [c.get("stats_only", False) for c in cards] == [True, False, False, True, True]
    assert report == [
        "t1-1: attack 'Splash' imported as damage only",
        "t1-4: special Energy 'Odd Energy' imported as 1 Colorless, no effect",
        "t1-5: Trainer 'Tool' imported without its effect",
    ]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"hp": 70}, "hp"),
        ({"hp": "seventy"}, "hp"),
        ({"types": ["Plasma"]}, "types"),
        ({"types": ["Water", "Fire"]}, "types"),
        ({"subtypes": ["Basic", "Stage 1"]}, "subtypes"),
        ({"subtypes": ["Basic", "GX"]}, "subtypes"),
        ({"subtypes": []}, "subtypes"),
        ({"weaknesses": [{"type": "Fire", "value": "+20"}]}, "weaknesses"),
        ({"resistances": [{"type": "Fire", "value": "30"}]}, "resistances"),
        ({"attacks": [{"name": "A", "cost": [], "damage": "+"}]}, "attacks"),
        ({"attacks": [{"name": "A", "cost": ["Shadow"], "damage": "10"}]}, "attacks"),
        ({"attacks": [{"cost": [], "damage": "10"}]}, "attacks"),
        ({"convertedRetreatCost": "2"}, "convertedRetreatCost"),
        ({"supertype": "Digimon"}, "supertype"),
        ({"name": ""}, "name"),
        ({"subtypes": ["Stage 1"]}, "evolves_from"),  # a Stage 1 that names no Basic
    ],
)
def test_importer_names_each_malformed_field(change, field):
    with pytest.raises(CardDataError) as info:
        importer.import_cards([_public(**change)], source="public.json")
    assert str(info.value).startswith(f"public.json, card 't1-1', field {field!r}: "), info.value


def test_import_file_writes_only_a_valid_import(tmp_path, capsys):
    good, bad, out = tmp_path / "good.json", tmp_path / "bad.json", tmp_path / "out.yaml"
    good.write_text(json.dumps({"data": [_public()]}), encoding="utf-8")
    bad.write_text(json.dumps([_public(), _public(id="t1-2", hp="x")]), encoding="utf-8")
    assert importer.main([str(bad), str(out)]) == 1
    assert not out.exists()
    assert "bad.json, card 't1-2', field 'hp'" in capsys.readouterr().err
    assert importer.main([str(good), str(out)]) == 0
    assert "simplified: t1-1: attack 'Splash'" in capsys.readouterr().out
    loaded = CardRegistry.load(out, SCHEMA)
    assert loaded.definition("t1-1")["hp"] == 70


def test_the_printed_cards_import_to_the_shipped_stats():
    # The shipped file started as this import; effect rows and paraphrases were added by hand.
    imported, _ = importer.import_cards(_printed_cards(), source="printed_cards.json")
    stats = ("name", "kind", "stage", "evolves_from", "type", "hp", "weakness", "weakness_multiplier",
             "resistance", "resistance_value", "retreat", "prizes", "tags")  # fmt: skip
    shipped = {c["id"]: c for c in _shipped_entries()}
    for card in imported:
        assert {k: card[k] for k in stats} == {k: shipped[card["id"]][k] for k in stats}
        assert card["attacks"] == shipped[card["id"]]["attacks"]


def test_a_deck_of_imported_cards_is_refused_unless_vanilla_play_is_allowed(tmp_path):
    imported, report = importer.import_cards(_printed_cards(), source="printed_cards.json")
    path = tmp_path / "imported.yaml"
    path.write_text(yaml.safe_dump({"cards": imported}, allow_unicode=True), encoding="utf-8")
    registry = CardRegistry.load(path, SCHEMA)
    marked = {c["id"] for c in imported if c.get("stats_only")}
    assert registry.stats_only == marked and marked == {line.split(":")[0] for line in report}
    deck = load_deck("tapu_koko", registry, allow_vanilla=True)
    vanilla = sorted(set(deck.cards) & marked)
    assert vanilla and len(vanilla) < len(set(deck.cards))  # basic Energy has no effect to leave
    with pytest.raises(ConfigError) as info:
        load_deck("tapu_koko", registry)
    named = ", ".join(f"{c} ({registry.definition(c)['name']})" for c in vanilla)
    assert f"{len(vanilla)} card(s) whose effects {path} does not implement" in str(info.value)
    assert f"(stats only): {named}; pass allow_vanilla=True" in str(info.value)
    with pytest.raises(ConfigError, match="whose effects .* does not implement"):
        tcgjax.make("pokemon", cards=path)
    env = tcgjax.make("pokemon", cards=path, allow_vanilla=True)
    assert env.options["allow_vanilla"] is True and env.decks[0].cards == deck.cards
