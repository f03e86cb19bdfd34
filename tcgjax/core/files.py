"""Strict YAML and JSON parsing for every file the library reads (scenarios, cards, decks, configs,
JSON states).

Both standard parsers silently keep the *last* value of a repeated key (``{a: 1, a: 2}`` reads as
``{a: 2}``), so a typo'd duplicate in a card file or a config would drop data without a word. These
loaders refuse a duplicate key instead, with a :class:`DuplicateKeyError` naming the key and where it
repeats; callers wrap it in their own named error (``ConfigError``, ``CardDataError``,
``SerializationError``) so the message also names the file.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

__all__ = ["DuplicateKeyError", "yaml_loads", "json_loads"]


class DuplicateKeyError(ValueError):
    """A mapping repeats a key. ``key`` is the repeated key, ``where`` a human location."""

    def __init__(self, key: Any, where: str):
        self.key, self.where = key, where
        super().__init__(f"duplicate key {key!r} ({where}); a key may appear once per mapping")


class _StrictSafeLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` whose mappings refuse a repeated key."""


def _construct_mapping(loader: _StrictSafeLoader, node: yaml.MappingNode, deep: bool = False):
    seen: dict[Any, yaml.Mark] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue  # ``<<: *anchor`` may be overridden by explicit keys (YAML merge semantics)
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            continue  # SafeLoader raises its own error for unhashable keys below
        if key in seen:
            mark = key_node.start_mark
            raise DuplicateKeyError(
                key, f"line {mark.line + 1}, first at line {seen[key].line + 1}"
            )
        seen[key] = key_node.start_mark
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_StrictSafeLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping
)


def yaml_loads(text: str) -> Any:
    """``yaml.safe_load`` that raises :class:`DuplicateKeyError` on a repeated mapping key.

    Raises:
      yaml.YAMLError: not valid YAML.
      DuplicateKeyError: a mapping repeats a key.
    """
    return yaml.load(text, Loader=_StrictSafeLoader)  # noqa: S506 (a SafeLoader subclass)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) == len(pairs):  # the common case, in C
        return out
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise DuplicateKeyError(key, f"in the object with keys {[k for k, _ in pairs]}")
        seen.add(key)
    raise AssertionError("unreachable: a dict of fewer keys than its pairs repeats one")


def json_loads(text: str | bytes) -> Any:
    """``json.loads`` that raises :class:`DuplicateKeyError` on a repeated object key.

    Raises:
      json.JSONDecodeError: not valid JSON.
      DuplicateKeyError: an object repeats a key.
    """
    return json.loads(text, object_pairs_hook=_no_duplicates)
