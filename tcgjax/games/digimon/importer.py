"""Import Digimon card *stats* from the field names of public card databases into tcgjax's format.

Public Digimon card databases (the digimoncard.io-style JSON most community tools use) describe a
card with flat fields::

    {"id": "ST1-03", "name": "Agumon", "type": "Digimon", "color": "Red", "color2": null,
     "level": 3, "play_cost": 3, "dp": 2000,
     "evolution_cost": 0, "evolution_color": "Red", "evolution_level": 2,
     "main_effect": "...", "source_effect": "..."}

:func:`import_cards` turns a list of such records into entries of :data:`~tcgjax.games.digimon.cards.SCHEMA`
(our card file format) and :func:`import_file` writes them as a card YAML file. Only the stats are
imported: effect rows are tcgjax's own data (see the card format), so an imported card carries
``effects: []`` and ``text: ""`` (the official text is never copied). Every card whose record has
effect text is listed in the :class:`ImportReport` as *stats only* and marked ``stats_only: true``
in the file: it plays as a vanilla card until someone writes its rows (and drops the mark), so a
deck that holds it is refused unless the user passes ``allow_vanilla=True``.

Accepted fields (anything else is ignored and counted in the report):

====================  ==========================================================================
``id``                the card number (required, unique)
``name``              English name (required)
``type``              ``Digimon`` | ``Digi-Egg`` | ``Tamer`` | ``Option`` (case-insensitive)
``color``             a color, or several separated by ``/`` (``"Red/Blue"``); ``color2`` optional
``level``             2..7 (int, ``"Lv.3"``) for Digi-Eggs and Digimon; null for the others
``play_cost``         int; null for Digi-Eggs
``dp``                int for Digimon; null for the others
``evolution_cost``    with ``evolution_color`` and ``evolution_level``: one digivolve requirement;
                      ``evolution_cost2`` / ``_color2`` / ``_level2`` a second one
``main_effect``, ``source_effect``, ``security_effect``: only whether they are empty (report)
====================  ==========================================================================

Malformed input raises :class:`~tcgjax.core.errors.CardDataError` naming the file, the card and the
field; nothing is written then (the output file is replaced atomically once everything is valid).
Command line: ``python -m tcgjax.games.digimon.importer cards.json out.yaml``.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import tempfile
from typing import Any

import yaml

from tcgjax.core.cards import STATS_ONLY, CardRegistry
from tcgjax.core.errors import CardDataError
from tcgjax.core.files import json_loads, yaml_loads
from tcgjax.games.digimon.cards import COLORS, MAX_DIGIVOLVE, SCHEMA, check_card_rules

__all__ = ["ImportReport", "import_cards", "import_file"]

_KINDS = {"digimon": "digimon", "digi-egg": "digi_egg", "digitama": "digi_egg",
          "tamer": "tamer", "option": "option"}  # fmt: skip
_KNOWN = {
    "id", "name", "type", "color", "color2", "level", "play_cost", "dp", "evolution_cost",
    "evolution_color", "evolution_level", "evolution_cost2", "evolution_color2",
    "evolution_level2", "main_effect", "source_effect", "security_effect",
}  # fmt: skip
_EFFECT_TEXT = ("main_effect", "source_effect", "security_effect")


@dataclasses.dataclass
class ImportReport:
    """What an import did: ``entries`` (our format), the card numbers imported with their stats
    only although their record has effect text (``stats_only``), and the ignored field names."""

    entries: list[dict[str, Any]]
    stats_only: list[str]
    ignored_fields: dict[str, int]

    def summary(self) -> str:
        lines = [f"{len(self.entries)} cards imported"]
        if self.stats_only:
            lines.append(
                f"{len(self.stats_only)} have effect text and were imported as stats only (write "
                f"their effect rows before shipping them): {', '.join(self.stats_only)}"
            )
        if self.ignored_fields:
            fields = ", ".join(f"{k} ({n})" for k, n in sorted(self.ignored_fields.items()))
            lines.append(f"ignored fields: {fields}")
        return "\n".join(lines)


def _int(source, cid, field, value, *, allow_none: bool) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, str) and re.fullmatch(r"(lv\.?\s*)?-?\d+", value.strip(), re.I):
        value = int(re.sub(r"[^\d-]", "", value))
    if isinstance(value, bool) or not isinstance(value, int):
        expected = "an integer or null" if allow_none else "an integer"
        raise CardDataError(source, cid, field, f"{value!r} is not {expected}")
    return value


def _color(source, cid, field, value) -> list[str]:
    if not isinstance(value, str) or not value.strip():
        raise CardDataError(source, cid, field, f"{value!r} is not a color name")
    names = [part.strip().lower() for part in value.split("/")]
    for name in names:
        if name not in COLORS:
            raise CardDataError(source, cid, field, f"unknown color {name!r}; one of {COLORS}")
    return names


def _record(source: str, index: int, record: Any, ignored: dict[str, int]) -> tuple[dict, bool]:
    if not isinstance(record, dict):
        raise CardDataError(
            source, None, f"[{index}]", f"a card record is a mapping, not {record!r}"
        )
    cid = record.get("id")
    if not isinstance(cid, str) or not cid.strip():
        raise CardDataError(source, None, f"[{index}].id", f"{cid!r} is not a card number")
    for field in record:
        if field not in _KNOWN:
            ignored[field] = ignored.get(field, 0) + 1
    for field in ("name", "type", "color"):
        if field not in record:
            raise CardDataError(source, cid, field, "missing")
    name = record["name"]
    if not isinstance(name, str) or not name.strip():
        raise CardDataError(source, cid, "name", f"{name!r} is not a name")
    kind_name = record["type"]
    kind = _KINDS.get(kind_name.strip().lower()) if isinstance(kind_name, str) else None
    if kind is None:
        raise CardDataError(source, cid, "type", f"{kind_name!r}; one of Digimon, Digi-Egg, "
                            "Tamer, Option")  # fmt: skip
    colors = _color(source, cid, "color", record["color"])
    if record.get("color2") is not None:
        colors += [c for c in _color(source, cid, "color2", record["color2"]) if c not in colors]
    level = _int(source, cid, "level", record.get("level"), allow_none=True)
    play_cost = _int(source, cid, "play_cost", record.get("play_cost"), allow_none=True)
    dp = _int(source, cid, "dp", record.get("dp"), allow_none=True)
    required = {"digimon": ("level", "play_cost", "dp"), "digi_egg": ("level",),
                "tamer": ("play_cost",), "option": ("play_cost",)}[kind]  # fmt: skip
    for field, value in (("level", level), ("play_cost", play_cost), ("dp", dp)):
        if field in required and value is None:
            raise CardDataError(source, cid, field, f"a {kind_name} needs a {field}")
    digivolve = []
    for suffix in ("", "2"):
        fields = [f"evolution_{x}{suffix}" for x in ("cost", "color", "level")]
        given = [record.get(f) is not None for f in fields]
        if not any(given):
            continue
        if not all(given):
            missing = [f for f, g in zip(fields, given, strict=True) if not g]
            raise CardDataError(source, cid, missing[0], "a digivolve requirement needs "
                                f"{', '.join(fields)} together")  # fmt: skip
        cost = _int(source, cid, fields[0], record[fields[0]], allow_none=False)
        (color,) = _color(source, cid, fields[1], record[fields[1]])[:1]
        req_level = _int(source, cid, fields[2], record[fields[2]], allow_none=False)
        digivolve.append({"color": color, "level": req_level, "cost": cost})
    if len(digivolve) > MAX_DIGIVOLVE:  # pragma: no cover - two suffixes at most
        raise CardDataError(source, cid, "evolution_cost", "too many requirements")
    entry = {
        "id": cid.strip(),
        "name": name.strip(),
        "kind": kind,
        "colors": colors,
        "level": level if level is not None else (0 if kind in ("tamer", "option") else -1),
        "play_cost": play_cost if play_cost is not None else -1,
        "dp": dp if dp is not None else 0,
        "digivolve": digivolve,
        "dna": [],
        "dna_cost": -1,
        "keywords": [],
        "inherited_keywords": [],
        "effects": [],
        "text": "",
    }
    has_text = any(isinstance(record.get(f), str) and record[f].strip() for f in _EFFECT_TEXT)
    if has_text:  # its effects are not rows: it plays without them (decks refuse it by default)
        entry[STATS_ONLY] = True
    return entry, has_text


def import_cards(records: Any, source: str = "<records>") -> ImportReport:
    """Convert public-database records (a list of mappings, or ``{"cards": [...]}``) into
    validated entries of our card format.

    Raises:
      CardDataError: naming ``source``, the card number and the field of the first problem
        (a record that is not a mapping, a missing or mistyped field, an unknown type or color,
        a half-given digivolve requirement, a duplicate number, a stat our format refuses).
    """
    if isinstance(records, dict) and "cards" in records:
        records = records["cards"]
    if not isinstance(records, list):
        raise CardDataError(source, None, None, "expected a list of card records")
    ignored: dict[str, int] = {}
    entries, stats_only, seen = [], [], set()
    for index, record in enumerate(records):
        entry, has_text = _record(source, index, record, ignored)
        if entry["id"] in seen:
            raise CardDataError(source, entry["id"], "id", "the card number appears twice")
        seen.add(entry["id"])
        entries.append(entry)
        if has_text:
            stats_only.append(entry["id"])
    if entries:
        # Our own format's validation (field ranges, facts by kind): the same errors as loading.
        check_card_rules(CardRegistry(SCHEMA, entries, source=source))
    return ImportReport(entries, stats_only, ignored)


def import_file(src: str | os.PathLike, dst: str | os.PathLike) -> ImportReport:
    """Read a JSON (or YAML) file of public-database records and write our card YAML to ``dst``.

    Nothing is written when the input is malformed; ``dst`` is replaced atomically otherwise.

    Raises:
      CardDataError: see :func:`import_cards` (an unreadable or unparsable file names the file).
    """
    src = os.fspath(src)
    try:
        with open(src, encoding="utf-8") as f:
            text = f.read()
        records = json_loads(text) if src.endswith(".json") else yaml_loads(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise CardDataError(src, None, None, f"cannot read the records: {exc}") from exc
    report = import_cards(records, source=src)
    out = os.fspath(dst)
    folder = os.path.dirname(os.path.abspath(out))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".import-", suffix=".yaml")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            yaml.safe_dump({"cards": report.entries}, f, sort_keys=False, allow_unicode=True)
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return report


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(
            "usage: python -m tcgjax.games.digimon.importer RECORDS.json OUT.yaml", file=sys.stderr
        )
        return 2
    try:
        report = import_file(args[0], args[1])
    except CardDataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(report.summary())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
