"""Card definitions: a validated data file compiled into a frozen struct-of-arrays.

A game declares a :class:`CardSchema` (the fields every card definition has, with their types). A
:class:`CardRegistry` loads a JSON or YAML file of the form::

    cards:
      - {id: goblin, name: Goblin, kind: creature, cost: 1, power: 1}
      - ...

validates every entry, and compiles the numeric fields into read-only arrays, one per field, indexed by
definition index (a :class:`RowsField`, a list of structured rows such as effect rows, becomes one
``[N, max_rows]`` column per sub-field plus a row count). Index 0 is a padding row (all zeros, id
``""``); real cards take indices ``1..N`` in sorted order of their id (decision G3), so the same file
always gives the same indices. Rules look values up by gather: ``registry["cost"][board.definition]``.

Validation errors raise :class:`~tcgjax.core.errors.CardDataError` naming the file, the card id and the
field: a missing field, an unknown field, a wrong type, a value out of range or not in the enum, a
duplicate id.

Besides its schema's fields an entry may carry ``stats_only: true``: the card's printed text has
effects that the file does not implement (the games' importers mark every card they bring with
stats only). Such a card plays as a card without effects, so the games' deck loaders refuse a deck
that holds one unless the user passes ``allow_vanilla=True`` (:attr:`CardRegistry.stats_only`).
Without the key an entry's rows are the card's whole text: that is what a card file states.
"""

from __future__ import annotations

import dataclasses
import json
import os
import types
from collections.abc import Mapping, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np
import yaml

from tcgjax.core.errors import CardDataError, ConfigError
from tcgjax.core.files import DuplicateKeyError, json_loads, yaml_loads

__all__ = [
    "IntField",
    "EnumField",
    "FlagsField",
    "TextField",
    "CountsField",
    "RowsField",
    "CardSchema",
    "CardRegistry",
    "STATS_ONLY",
]

STATS_ONLY = "stats_only"  # the optional entry key of a card whose effects are not implemented


@dataclasses.dataclass(frozen=True)
class IntField:
    """An integer in ``[min, max]`` stored as ``dtype``."""

    name: str
    min: int
    max: int
    dtype: Any = np.int16

    def __post_init__(self):
        info = np.iinfo(self.dtype)
        if not info.min <= self.min <= self.max <= info.max:
            raise ConfigError(
                f"IntField {self.name!r}: range [{self.min}, {self.max}] does not fit {np.dtype(self.dtype)}"
            )

    def parse(self, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected an integer, got {value!r}")
        if not self.min <= value <= self.max:
            raise ValueError(f"{value} is outside [{self.min}, {self.max}]")
        return value


@dataclasses.dataclass(frozen=True)
class EnumField:
    """One of ``values`` (strings), stored as its index (int8)."""

    name: str
    values: tuple[str, ...]
    dtype: Any = np.int8

    def parse(self, value):
        if value not in self.values:
            raise ValueError(f"unknown value {value!r}; expected one of {list(self.values)}")
        return self.values.index(value)


@dataclasses.dataclass(frozen=True)
class FlagsField:
    """A list of distinct ``values`` (e.g. keywords), stored as a bit mask (int32)."""

    name: str
    values: tuple[str, ...]
    dtype: Any = np.int32

    def parse(self, value):
        if not isinstance(value, list):
            raise ValueError(f"expected a list, got {value!r}")
        mask = 0
        for item in value:
            if item not in self.values:
                raise ValueError(f"unknown value {item!r}; expected any of {list(self.values)}")
            if mask & (1 << self.values.index(item)):
                raise ValueError(f"{item!r} is listed twice")
            mask |= 1 << self.values.index(item)
        return mask


@dataclasses.dataclass(frozen=True)
class TextField:
    """A string kept host-side only (names, rules text); not compiled into an array."""

    name: str

    def parse(self, value):
        if not isinstance(value, str):
            raise ValueError(f"expected a string, got {value!r}")
        return value


@dataclasses.dataclass(frozen=True)
class CountsField:
    """A list of ``values`` with repeats (an energy cost ``[lightning, colorless, colorless]``),
    stored as the count of each value: ``dtype[len(values)]`` per card (or per row)."""

    name: str
    values: tuple[str, ...]
    max_total: int = 127
    dtype: Any = np.int8

    @property
    def width(self) -> int:
        return len(self.values)

    def parse(self, value):
        if not isinstance(value, list):
            raise ValueError(f"expected a list, got {value!r}")
        counts = [0] * len(self.values)
        for item in value:
            if item not in self.values:
                raise ValueError(f"unknown value {item!r}; expected any of {list(self.values)}")
            counts[self.values.index(item)] += 1
        if len(value) > self.max_total:
            raise ValueError(f"{len(value)} entries, at most {self.max_total}")
        return tuple(counts)


@dataclasses.dataclass(frozen=True)
class RowsField:
    """A list of at most ``max_rows`` structured rows (digivolution requirements, effect rows,
    attacks), each a mapping with the sub-``fields`` (``IntField``, ``EnumField``, ``FlagsField``,
    ``CountsField``, and ``TextField`` for host-side names).

    Compiled into one column per numeric sub-field, ``"<name>.<sub>"`` of shape ``[N, max_rows]``
    (``[N, max_rows, width]`` for a ``CountsField``; unused rows hold the sub-field's ``pad`` value, 0
    unless given), plus ``"<name>.num_rows"`` (int8 ``[N]``), so a rule gathers every row of a card
    at once and masks with ``arange(max_rows) < num_rows``. Text sub-fields stay in
    :meth:`CardRegistry.definition`.

    A row must give every sub-field except those listed in ``defaults`` (``{sub: value}``, part of
    the schema and documented with it, never guessed); an unknown key is an error naming the row.
    """

    name: str
    max_rows: int
    fields: tuple[IntField | EnumField | FlagsField | CountsField | TextField, ...]
    defaults: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    pads: Mapping[str, int] = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names) or "num_rows" in names:
            raise ConfigError(
                f"RowsField {self.name!r}: sub-field names must be unique, not 'num_rows'"
            )
        unknown = sorted(set(self.defaults) - set(names)) + sorted(set(self.pads) - set(names))
        if unknown:
            raise ConfigError(
                f"RowsField {self.name!r}: default/pad for unknown sub-field {unknown[0]!r}"
            )
        for f in self.fields:
            if isinstance(f, RowsField):
                raise ConfigError(f"RowsField {self.name!r}: sub-field {f.name!r} cannot be rows")
            if f.name in self.defaults:
                try:
                    f.parse(self.defaults[f.name])
                except ValueError as exc:
                    raise ConfigError(
                        f"RowsField {self.name!r}: default of {f.name!r}: {exc}"
                    ) from None
        if not 0 < self.max_rows <= 127:
            raise ConfigError(f"RowsField {self.name!r}: max_rows must be in [1, 127]")

    @property
    def column_names(self) -> tuple[str, ...]:
        numeric = (f for f in self.fields if not isinstance(f, TextField))
        return tuple(f"{self.name}.{f.name}" for f in numeric) + (f"{self.name}.num_rows",)

    def parse(self, value):
        if not isinstance(value, list):
            raise ValueError(f"expected a list of rows, got {value!r}")
        if len(value) > self.max_rows:
            raise ValueError(f"{len(value)} rows, at most {self.max_rows}")
        rows = []
        for r, row in enumerate(value):
            if not isinstance(row, Mapping):
                raise ValueError(f"row {r}: expected a mapping, got {row!r}")
            unknown = sorted(map(str, set(row) - {f.name for f in self.fields}))
            if unknown:
                raise ValueError(
                    f"row {r}: unknown key {unknown[0]!r}; expected {[f.name for f in self.fields]}"
                )
            parsed = {}
            for f in self.fields:
                if f.name in row:
                    raw = row[f.name]
                elif f.name in self.defaults:
                    raw = self.defaults[f.name]
                else:
                    raise ValueError(f"row {r}: missing key {f.name!r}")
                try:
                    parsed[f.name] = f.parse(raw)
                except ValueError as exc:
                    raise ValueError(f"row {r}, key {f.name!r}: {exc}") from None
            rows.append(types.MappingProxyType(parsed))
        return tuple(rows)


Field = IntField | EnumField | FlagsField | CountsField | TextField | RowsField


@dataclasses.dataclass(frozen=True)
class CardSchema:
    """The fields every card definition has. Every field is required; ``id`` is implicit."""

    fields: tuple[Field, ...]

    def __post_init__(self):
        names = [f.name for f in self.fields]
        if "id" in names or len(set(names)) != len(names):
            raise ConfigError(f"card schema field names must be unique and not 'id': {names}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


def _rows_columns(field: RowsField, parsed, index, num_ids: int) -> dict[str, np.ndarray]:
    """The ``[N, max_rows]`` sub-field columns and the ``[N]`` count of a :class:`RowsField`."""
    out = {}
    for sub in field.fields:
        if isinstance(sub, TextField):
            continue
        width = (sub.width,) if isinstance(sub, CountsField) else ()
        col = np.full((num_ids, field.max_rows, *width), field.pads.get(sub.name, 0), sub.dtype)
        for cid, i in index.items():
            for r, row in enumerate(parsed[cid][field.name]):
                col[i, r] = row[sub.name]
        out[f"{field.name}.{sub.name}"] = col
    count = np.zeros(num_ids, np.int8)
    for cid, i in index.items():
        count[i] = len(parsed[cid][field.name])
    out[f"{field.name}.num_rows"] = count
    for col in out.values():
        col.setflags(write=False)
    return out


def _read_data_file(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise CardDataError(path, None, None, f"cannot read file: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise CardDataError(path, None, None, f"not UTF-8 text: {exc}") from exc
    try:
        if os.path.splitext(path)[1].lower() == ".json":
            return json_loads(text)
        return yaml_loads(text)
    except DuplicateKeyError as exc:
        raise CardDataError(path, None, None, str(exc)) from exc
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise CardDataError(path, None, None, f"not valid JSON/YAML: {exc}") from exc


class CardRegistry:
    """Frozen, validated card definitions (see the module docstring).

    Attributes:
      source: the file (or label) the definitions came from.
      schema: the :class:`CardSchema`.
      ids: card ids by definition index; ``ids[0] == ""`` is the padding row.
      stats_only: the ids of the cards marked ``stats_only: true`` (module docstring): their
        effects are not implemented, they play without any.
    """

    def __init__(self, schema: CardSchema, entries: Sequence[Any], *, source: str = "<memory>"):
        self.source, self.schema = source, schema
        if not isinstance(entries, list):
            raise CardDataError(source, None, "cards", "expected a list of card definitions")
        parsed: dict[str, dict[str, Any]] = {}
        stats_only: set[str] = set()
        for i, entry in enumerate(entries):
            label = f"entry #{i}"
            if not isinstance(entry, Mapping):
                raise CardDataError(source, label, None, f"expected a mapping, got {entry!r}")
            cid = entry.get("id")
            if not isinstance(cid, str) or not cid:
                raise CardDataError(
                    source, label, "id", f"missing or not a non-empty string: {cid!r}"
                )
            if cid in parsed:
                raise CardDataError(source, cid, "id", "duplicate card id")
            unknown = sorted(map(str, set(entry) - set(schema.names) - {"id", STATS_ONLY}))
            if unknown:
                raise CardDataError(
                    source, cid, unknown[0], f"unknown field; the schema has {list(schema.names)}"
                )
            flag = entry.get(STATS_ONLY, False)
            if not isinstance(flag, bool):
                raise CardDataError(
                    source, cid, STATS_ONLY, f"expected true or false, got {flag!r}"
                )
            if flag:
                stats_only.add(cid)
            row = {}
            for field in schema.fields:
                if field.name not in entry:
                    raise CardDataError(source, cid, field.name, "missing required field")
                try:
                    row[field.name] = field.parse(entry[field.name])
                except ValueError as exc:
                    raise CardDataError(source, cid, field.name, str(exc)) from None
            parsed[cid] = row
        if not parsed:
            raise CardDataError(source, None, "cards", "no card definitions")
        self.ids: tuple[str, ...] = ("",) + tuple(sorted(parsed))
        self.stats_only: frozenset[str] = frozenset(stats_only)
        self._rows = types.MappingProxyType(
            {cid: types.MappingProxyType(r) for cid, r in parsed.items()}
        )
        self._index = {cid: i for i, cid in enumerate(self.ids) if cid}
        columns: dict[str, np.ndarray] = {}
        for field in schema.fields:
            if isinstance(field, TextField):
                continue
            if isinstance(field, RowsField):
                columns.update(_rows_columns(field, parsed, self._index, len(self.ids)))
                continue
            width = (field.width,) if isinstance(field, CountsField) else ()
            col = np.zeros((len(self.ids), *width), field.dtype)
            for cid, i in self._index.items():
                col[i] = parsed[cid][field.name]
            col.setflags(write=False)
            columns[field.name] = col
        self.numpy = types.MappingProxyType(columns)
        self._device = {name: jnp.asarray(col) for name, col in columns.items()}

    @classmethod
    def load(cls, path: str | os.PathLike, schema: CardSchema) -> CardRegistry:
        """Load and validate a JSON (``.json``) or YAML file with a top-level ``cards`` list."""
        path = os.fspath(path)
        data = _read_data_file(path)
        if not isinstance(data, Mapping):
            raise CardDataError(path, None, None, "top level must be a mapping with a 'cards' list")
        unknown = sorted(map(str, set(data) - {"cards"}))
        if unknown:
            raise CardDataError(path, None, unknown[0], "unknown top-level key; expected 'cards'")
        if "cards" not in data:
            raise CardDataError(path, None, "cards", "missing top-level 'cards' list")
        return cls(schema, data["cards"], source=path)

    def __len__(self) -> int:
        """Number of definition indices, padding row included."""
        return len(self.ids)

    def __getitem__(self, field: str) -> jnp.ndarray:
        """Device constant of ``field`` indexed by definition index: ``[len(self)]`` (a
        ``CountsField``: ``[len(self), width]``; a rows column: ``[len(self), max_rows(, width)]``)."""
        try:
            return self._device[field]
        except KeyError:
            raise ConfigError(
                f"no numeric card field {field!r}; have {sorted(self._device)}"
            ) from None

    def index(self, card_id: str) -> int:
        """Definition index of ``card_id``."""
        try:
            return self._index[card_id]
        except KeyError:
            raise ConfigError(f"{self.source}: unknown card id {card_id!r}") from None

    def definition(self, card_id: str) -> Mapping[str, Any]:
        """The validated row of ``card_id`` (enum values as indices, text as strings)."""
        return self._rows[card_id]
