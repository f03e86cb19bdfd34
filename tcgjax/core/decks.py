"""Deck files, shared by the card games: reading, the ``{card id: copies}`` sections, copy limits.

A deck is a YAML file (or a mapping) whose sections map card ids of a :class:`CardRegistry` to a
positive number of copies. Each game states its own sections and rules (sizes, what may go where)
and builds on these helpers, so every game reports a bad deck the same way: a
:class:`~tcgjax.core.errors.ConfigError` naming the source (the file, or ``<deck dict>``), the
entry and the field.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import yaml

from tcgjax.core.cards import CardRegistry
from tcgjax.core.errors import ConfigError
from tcgjax.core.files import DuplicateKeyError, yaml_loads

__all__ = ["read_deck", "deck_section", "check_deck_keys", "check_copies"]


def read_deck(
    deck: Any, shipped_dir: str, shipped: Sequence[str], *, required: Sequence[str] = ()
) -> tuple[str, dict[str, Any]]:
    """``(source, data)`` of a deck given as a shipped id, a path to a YAML file, or a mapping.

    Args:
      deck: a shipped deck id (``shipped``, read from ``<shipped_dir>/<id>.yaml``), a path, or a
        mapping (its source is ``"<deck dict>"``).
      required: the top-level keys the deck must have; any other key is an error
        (:func:`check_deck_keys`).

    Raises:
      ConfigError: anything but the three accepted forms, an unreadable or non-UTF-8 file, invalid
        YAML or a repeated key, a top level that is not a mapping, a missing or unknown key.
    """
    if isinstance(deck, Mapping):
        source, data = "<deck dict>", dict(deck)
    elif isinstance(deck, bytes) or not isinstance(deck, str | os.PathLike):
        raise ConfigError(
            f"deck {deck!r}: expected a shipped deck id {tuple(shipped)}, a path to a YAML file or "
            f"a mapping, got {type(deck).__name__}"
        )
    else:
        path = os.fspath(deck)
        if path in shipped:
            path = os.path.join(shipped_dir, f"{path}.yaml")
        source = os.path.normpath(path)
        try:
            with open(path, encoding="utf-8") as fh:
                data = yaml_loads(fh.read())
        except OSError as exc:
            raise ConfigError(f"{source}: cannot read deck: {exc.strerror}") from exc
        except (UnicodeDecodeError, DuplicateKeyError) as exc:
            raise ConfigError(f"{source}: {exc}") from exc
        except yaml.YAMLError as exc:
            raise ConfigError(f"{source}: not valid YAML: {exc}") from exc
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: a deck is a mapping with {', '.join(required)}")
    check_deck_keys(source, data, required)
    return source, dict(data)


def check_deck_keys(source: str, data: Mapping[str, Any], required: Sequence[str]) -> None:
    """Every key of ``required`` is present, no other key is, and ``name`` (when required) is a
    non-empty string."""
    for key in required:
        if key not in data:
            raise ConfigError(f"{source}: missing key {key!r}")
    unknown = sorted(map(str, set(data) - set(required)))
    if unknown:
        raise ConfigError(f"{source}: unknown key {unknown[0]!r}; expected {', '.join(required)}")
    if "name" in required and (not isinstance(data["name"], str) or not data["name"]):
        raise ConfigError(f"{source}: name: expected a non-empty string")


def deck_section(source: str, section: str, value: Any, registry: CardRegistry) -> list[str]:
    """The card ids of one ``{card id: copies}`` section, each repeated ``copies`` times, in the
    file's order. Raises ``ConfigError`` naming ``<source>: <section>.<id>`` for an id missing from
    ``registry`` or a count that is not a positive integer."""
    if not isinstance(value, Mapping):
        raise ConfigError(f"{source}: {section}: expected a mapping {{card id: copies}}")
    cards: list[str] = []
    known = set(registry.ids[1:])
    for card_id, copies in value.items():
        where = f"{source}: {section}.{card_id}"
        if card_id not in known:
            raise ConfigError(f"{where}: no card with that id in {registry.source}")
        if isinstance(copies, bool) or not isinstance(copies, int) or copies <= 0:
            raise ConfigError(f"{where}: copies must be a positive integer, got {copies!r}")
        cards += [card_id] * copies
    return cards


def check_copies(
    source: str,
    cards: Iterable[str],
    limit: int,
    *,
    key: Callable[[str], str] = lambda card_id: card_id,
    exempt: Callable[[str], bool] = lambda card_id: False,
    what: str = "card id",
) -> None:
    """At most ``limit`` cards of the deck share ``key`` (the card id, or e.g. the card's name when
    different printings count together); cards for which ``exempt`` holds are not counted (basic
    Energy). Raises ``ConfigError`` naming the key and its count."""
    counts: dict[str, int] = {}
    for card_id in cards:
        if not exempt(card_id):
            counts[key(card_id)] = counts.get(key(card_id), 0) + 1
    for name in sorted(counts):
        if counts[name] > limit:
            raise ConfigError(
                f"{source}: {name}: {counts[name]} copies; at most {limit} of one {what}"
            )
