"""Import cards from the field names of the public Pokémon TCG card data into tcgjax's format.

The public data (PokemonTCG/pokemon-tcg-data, ``cards/en/<set>.json``) describes a card with
``supertype``, ``subtypes``, ``hp`` as a string, ``types``, ``evolvesFrom``, ``attacks[{cost, damage
like "40+", text}]``, ``weaknesses[{type, value "×2"}]``, ``resistances[{type, value "-30"}]`` and
``convertedRetreatCost``. Stats map one to one onto :mod:`tcgjax.games.pokemon.cards`. Effects are
English text there, which this importer does not parse: an attack with text imports as damage only,
an ability or a Trainer without its effect rows, a special Energy as one Colorless unit, and the
card's text is never copied (tcgjax keeps its own paraphrases). Every such simplification is listed
in the report, so effect rows can be written by hand where they matter (the shipped cards have them),
and a card with one is marked ``stats_only: true``: a deck that holds it is refused unless the user
passes ``allow_vanilla=True``.

Malformed input raises :class:`~tcgjax.core.errors.CardDataError` naming the file, the card and the
field, and nothing is written. Command line::

    python -m tcgjax.games.pokemon.importer cards/en/sv4.json my_cards.yaml
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from tcgjax.core.cards import STATS_ONLY, CardRegistry
from tcgjax.core.errors import CardDataError
from tcgjax.core.files import DuplicateKeyError, json_loads
from tcgjax.games.pokemon.cards import SCHEMA, TYPES, check_card_rules

__all__ = ["import_cards", "import_file", "main"]

_TRAINER_KINDS = {"Item": "item", "Supporter": "supporter", "Stadium": "stadium"}
_TRAINER_KINDS["Pokémon Tool"] = "tool"
_STAGES = {"Basic": "basic", "Stage 1": "stage1", "Stage 2": "stage2"}
# Rule-box subtypes and the prize cards a Knock Out gives (the cards' rule texts).
_TAGS = {"ex": ("ex", 2), "V": ("v", 2), "VSTAR": ("vstar", 2), "VMAX": ("vmax", 3),
         "Radiant": ("radiant", 1), "Tera": ("tera", 1)}  # fmt: skip
_UNSUPPORTED_TAGS = ("EX", "GX", "TAG TEAM", "BREAK", "LEGEND", "V-UNION")
_DAMAGE = re.compile(r"^(\d*)([+×x\-]?)$")
_PRINTING_SUFFIX = re.compile(r"\s+\([^()]*\)$")
_DAMAGE_MODES = {"": "plain", "+": "plus", "×": "times", "x": "times", "-": "minus"}


def _type(value: Any, where: str) -> str:
    name = value.lower() if isinstance(value, str) else None
    if name not in TYPES:
        raise ValueError(f"{where}: unknown type {value!r}; expected one of the 11 types")
    return name


def _list(card: Mapping, key: str) -> list:
    value = card.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"expected a list, got {value!r}")
    return value


def _int_text(value: Any, what: str) -> int:
    if not isinstance(value, str) or not value.isdigit():
        raise ValueError(f"{what}: expected digits as a string, got {value!r}")
    return int(value)


class _Field(Exception):
    def __init__(self, field: str, problem: str):
        self.field, self.problem = field, problem


def _field(field: str, fn, *args):
    try:
        return fn(*args)
    except _Field:
        raise
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise _Field(field, str(exc)) from None


def _attacks(card: Mapping, cid: str, report: list[str]) -> list[dict]:
    """The card's attacks (a Pokémon's, or those a Pokémon Tool gives: a Technical Machine)."""
    attacks = []
    for i, attack in enumerate(_field("attacks", _list, card, "attacks")):
        if not isinstance(attack, Mapping) or not isinstance(attack.get("name"), str):
            raise _Field("attacks", f"attack {i}: expected a mapping with a name")
        cost = [c for c in _field("attacks", _list, attack, "cost") if c != "Free"]
        damage = attack.get("damage", "")
        match = _DAMAGE.fullmatch(damage) if isinstance(damage, str) else None
        if not match or (match[2] and not match[1]):
            raise _Field("attacks", f"attack {i} ({attack['name']}): damage {damage!r}")
        attacks.append(
            {
                "name": attack["name"],
                "cost": [_field("attacks", _type, c, f"attack {i} cost") for c in cost],
                "damage": int(match[1] or 0),
                "damage_mode": _DAMAGE_MODES[match[2]],
            }
        )
        if attack.get("text"):
            report.append(f"{cid}: attack {attack['name']!r} imported as damage only")
    return attacks


def _pokemon(card: Mapping, subtypes: list, report: list[str], out: dict) -> None:
    cid = out["id"]
    stages = [_STAGES[s] for s in subtypes if s in _STAGES]
    evolves_from = card.get("evolvesFrom") or ""
    if not isinstance(evolves_from, str):
        raise _Field("evolvesFrom", f"expected a name, got {evolves_from!r}")
    if len(stages) > 1:
        raise _Field("subtypes", f"more than one stage: {subtypes}")
    # VMAX / VSTAR cards name no stage: they evolve from a V, as one evolution step.
    stage = stages[0] if stages else ("stage1" if evolves_from else None)
    if stage is None:
        raise _Field("subtypes", f"no stage (Basic, Stage 1, Stage 2) in {subtypes}")
    unsupported = [s for s in subtypes if s in _UNSUPPORTED_TAGS]
    if unsupported:
        raise _Field("subtypes", f"unsupported rule-box subtype {unsupported[0]!r}")
    tags = [_TAGS[s][0] for s in subtypes if s in _TAGS]
    types = _field("types", _list, card, "types")
    if len(types) != 1:
        raise _Field("types", f"expected exactly one type, got {types!r}")
    weaknesses = _field("weaknesses", _list, card, "weaknesses")
    resistances = _field("resistances", _list, card, "resistances")
    if len(weaknesses) > 1 or len(resistances) > 1:
        raise _Field("weaknesses", "at most one weakness and one resistance are supported")
    weakness, multiplier = "none", 0
    if weaknesses:
        w = weaknesses[0]
        match = re.fullmatch(r"[×x](\d)", str(w.get("value", "")))
        if not match:
            raise _Field("weaknesses", f"value {w.get('value')!r}: expected a multiplier like '×2'")
        weakness, multiplier = _field("weaknesses", _type, w.get("type"), "type"), int(match[1])
    resistance, resistance_value = "none", 0
    if resistances:
        r = resistances[0]
        match = re.fullmatch(r"-(\d+)", str(r.get("value", "")))
        if not match:
            raise _Field(
                "resistances", f"value {r.get('value')!r}: expected a reduction like '-30'"
            )
        resistance = _field("resistances", _type, r.get("type"), "type")
        resistance_value = -int(match[1])
    retreat = card.get("convertedRetreatCost")
    if retreat is None:
        retreat = len(_field("retreatCost", _list, card, "retreatCost"))
    if isinstance(retreat, bool) or not isinstance(retreat, int):
        raise _Field("convertedRetreatCost", f"expected an integer, got {retreat!r}")
    attacks = _attacks(card, cid, report)
    abilities = []
    for ability in _field("abilities", _list, card, "abilities"):
        if not isinstance(ability, Mapping) or not isinstance(ability.get("name"), str):
            raise _Field("abilities", "expected a mapping with a name")
        abilities.append({"name": ability["name"], "activation": "passive"})
        report.append(f"{cid}: ability {ability['name']!r} imported without its effect")
    out.update(
        kind="pokemon",
        stage=stage,
        evolves_from=evolves_from,
        type=_field("types", _type, types[0], "types"),
        hp=_field("hp", _int_text, card.get("hp"), "hp"),
        weakness=weakness,
        weakness_multiplier=multiplier,
        resistance=resistance,
        resistance_value=resistance_value,
        retreat=retreat,
        prizes=max([_TAGS[s][1] for s in subtypes if s in _TAGS], default=1),
        tags=tags,
        attacks=attacks,
        abilities=abilities,
    )


def _convert(card: Any, report: list[str]) -> dict:
    if not isinstance(card, Mapping):
        raise _Field("card", f"expected a mapping, got {type(card).__name__}")
    out = {
        "id": card["id"],
        "name": card.get("name"),
        "kind": None,
        "stage": "none",
        "evolves_from": "",
        "type": "none",
        "hp": 0,
        "weakness": "none",
        "weakness_multiplier": 0,
        "resistance": "none",
        "resistance_value": 0,
        "retreat": 0,
        "prizes": 0,
        "tags": [],
        "attacks": [],
        "abilities": [],
        "provides": [],
        "damage_modifier": 0,
        "effects": [],
        "text": "",
    }
    if not isinstance(out["name"], str) or not out["name"]:
        raise _Field("name", f"expected a non-empty string, got {out['name']!r}")
    subtypes = _field("subtypes", _list, card, "subtypes")
    if card.get("supertype") == "Trainer":
        # The data names a Trainer's printing after its character ("Professor's Research
        # (Professor Sada)"); the printed name, which the 4-copy rule counts, has no parentheses.
        out["name"] = _PRINTING_SUFFIX.sub("", out["name"])
    supertype = card.get("supertype")
    if supertype in ("Pokémon", "Pokemon"):
        _pokemon(card, subtypes, report, out)
    elif supertype == "Trainer":
        kinds = [_TRAINER_KINDS[s] for s in subtypes if s in _TRAINER_KINDS]
        if "tool" in kinds:  # older Tools are listed as ["Item", "Pokémon Tool"]: a Tool
            kinds = ["tool"]
        if len(kinds) != 1:
            raise _Field("subtypes", f"a Trainer is one of {sorted(_TRAINER_KINDS)}: {subtypes}")
        out["kind"] = kinds[0]
        out["tags"] = ["ace_spec"] if "ACE SPEC" in subtypes else []
        if out["kind"] == "tool":  # a Technical Machine gives its holder an attack; a Seal Stone
            out["attacks"] = _attacks(card, out["id"], report)  # an Ability (a VSTAR Power)
            for ability in _field("abilities", _list, card, "abilities"):
                if not isinstance(ability, Mapping) or not isinstance(ability.get("name"), str):
                    raise _Field("abilities", "expected a mapping with a name")
                out["abilities"].append({"name": ability["name"], "activation": "activated"})
        report.append(f"{out['id']}: Trainer {out['name']!r} imported without its effect")
    elif supertype == "Energy":
        if "Basic" in subtypes:
            words = [w.lower() for w in out["name"].replace("Energy", "").split()]
            types = [w for w in words if w in TYPES]
            if len(types) != 1:
                raise _Field("name", f"basic Energy {out['name']!r}: cannot tell its type")
            out.update(kind="basic_energy", provides=types)
        elif "Special" in subtypes:
            out.update(kind="special_energy", provides=["colorless"])
            report.append(
                f"{out['id']}: special Energy {out['name']!r} imported as 1 Colorless, no effect"
            )
        else:
            raise _Field("subtypes", f"an Energy is Basic or Special: {subtypes}")
    else:
        raise _Field("supertype", f"expected Pokémon, Trainer or Energy, got {supertype!r}")
    return out


def import_cards(
    entries: Sequence[Any], *, source: str = "<memory>"
) -> tuple[list[dict], list[str]]:
    """Convert public card data to tcgjax card entries, validated by the card schema.

    Args:
      entries: the public card records (a list of mappings).
      source: a label for errors (the file).
    Returns:
      ``(cards, report)``: the entries in tcgjax's format, sorted by id, and one line per
      simplification (an attack imported as damage only, an ability or Trainer without effect, a
      special Energy without its provision).
    Raises:
      CardDataError: naming ``source``, the card id (or its position) and the field.
    """
    if not isinstance(entries, list):
        raise CardDataError(source, None, None, "expected a list of cards (or {'data': [...]})")
    cards, report = [], []
    for i, card in enumerate(entries):
        label = card.get("id") if isinstance(card, Mapping) else None
        if not isinstance(label, str) or not label:
            raise CardDataError(source, f"entry #{i}", "id", "missing or not a non-empty string")
        try:
            before = len(report)
            entry = _convert(card, report)
            if len(report) > before:  # an effect left out: the card plays without it
                entry[STATS_ONLY] = True
            cards.append(entry)
        except _Field as exc:
            raise CardDataError(source, label, exc.field, exc.problem) from None
    # The schema and the rules between fields check the result (and name the card and field).
    check_card_rules(CardRegistry(SCHEMA, cards, source=source))
    return sorted(cards, key=lambda c: c["id"]), report


def import_file(src: str | os.PathLike, dst: str | os.PathLike) -> list[str]:
    """Import the public JSON file ``src`` into the YAML card file ``dst``; returns the report.
    Nothing is written unless every card imports."""
    src = os.fspath(src)
    try:
        with open(src, encoding="utf-8") as fh:
            data = json_loads(fh.read())
    except OSError as exc:
        raise CardDataError(src, None, None, f"cannot read file: {exc.strerror}") from exc
    except (UnicodeDecodeError, DuplicateKeyError, json.JSONDecodeError) as exc:
        raise CardDataError(src, None, None, f"not valid JSON: {exc}") from exc
    if isinstance(data, Mapping) and set(data) == {"data"}:
        data = data["data"]
    cards, report = import_cards(data, source=src)
    text = yaml.safe_dump({"cards": cards}, allow_unicode=True, sort_keys=False, width=100)
    with open(dst, "w", encoding="utf-8") as fh:
        fh.write(text)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", help="public card data, JSON (a list, or {'data': [...]})")
    parser.add_argument("dst", help="tcgjax card file to write (YAML)")
    args = parser.parse_args(argv)
    try:
        report = import_file(args.src, args.dst)
    except CardDataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for line in report:
        print(f"simplified: {line}")
    print(f"wrote {args.dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
