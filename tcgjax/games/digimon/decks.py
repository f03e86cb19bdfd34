"""Digimon decks: YAML files ``{name, eggs: {number: copies}, main: {number: copies}}``, validated.

Official deck rules (General Rules; sources in ``../shared/reference/digimon/README.md``): a main deck
of exactly 50 cards, a Digi-Egg deck of 0 to 5 Digi-Eggs, at most 4 copies of one card number
(both decks together), Digi-Eggs only in the Digi-Egg deck. Shipped: ``st1`` (ST-1 Gaia Red) and
``st2`` (ST-2 Cocytus Blue), as sold (decision G6).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any

import yaml

from tcgjax.core.cards import CardRegistry
from tcgjax.core.errors import ConfigError
from tcgjax.core.files import DuplicateKeyError, yaml_loads

__all__ = ["Deck", "DECKS_DIR", "SHIPPED_DECKS", "load_deck"]

DECKS_DIR = os.path.join(os.path.dirname(__file__), "decks")
SHIPPED_DECKS = ("st1", "st2")
MAIN_SIZE, MAX_EGGS, MAX_COPIES = 50, 5, 4


@dataclasses.dataclass(frozen=True)
class Deck:
    """A validated deck: card numbers with repeats, in the file's order (``eggs``, ``main``)."""

    name: str
    source: str
    eggs: tuple[str, ...]
    main: tuple[str, ...]


def _read(deck: Any) -> tuple[str, Any]:
    if isinstance(deck, Mapping):
        return "<deck dict>", dict(deck)
    if isinstance(deck, bytes) or not isinstance(deck, str | os.PathLike):
        raise ConfigError(
            f"deck {deck!r}: expected a shipped deck id {SHIPPED_DECKS}, a path to a YAML file or "
            f"a mapping, got {type(deck).__name__}"
        )
    path = os.fspath(deck)
    if path in SHIPPED_DECKS:
        path = os.path.join(DECKS_DIR, f"{path}.yaml")
    source = os.path.normpath(path)
    try:
        with open(path, encoding="utf-8") as fh:
            return source, yaml_loads(fh.read())
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read deck: {exc.strerror}") from exc
    except (UnicodeDecodeError, DuplicateKeyError) as exc:
        raise ConfigError(f"{source}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML: {exc}") from exc


def _cards(source: str, section: str, value: Any, registry: CardRegistry) -> list[str]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{source}: {section}: expected a mapping {{card number: copies}}")
    cards = []
    for number, copies in value.items():
        where = f"{source}: {section}.{number}"
        if number not in registry.ids[1:]:
            raise ConfigError(f"{where}: no card with that number in {registry.source}")
        if isinstance(copies, bool) or not isinstance(copies, int) or copies <= 0:
            raise ConfigError(f"{where}: copies must be a positive integer, got {copies!r}")
        cards += [number] * copies
    return cards


def load_deck(deck: str | os.PathLike | Mapping[str, Any], registry: CardRegistry) -> Deck:
    """Load and validate a deck against ``registry``.

    Args:
      deck: a shipped deck id (``"st1"``, ``"st2"``), a path to a YAML file, or a mapping.
      registry: the card database the deck's numbers refer to.

    Raises:
      ConfigError: naming the source (file or ``<deck dict>``), the entry and the field.
    """
    from tcgjax.games.digimon.cards import DIGI_EGG

    source, data = _read(deck)
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: a deck is a mapping with name, eggs and main")
    for key in ("name", "eggs", "main"):
        if key not in data:
            raise ConfigError(f"{source}: missing key {key!r}")
    unknown = sorted(map(str, set(data) - {"name", "eggs", "main"}))
    if unknown:
        raise ConfigError(f"{source}: unknown key {unknown[0]!r}; expected name, eggs, main")
    if not isinstance(data["name"], str) or not data["name"]:
        raise ConfigError(f"{source}: name: expected a non-empty string")
    eggs = _cards(source, "eggs", data["eggs"], registry)
    main = _cards(source, "main", data["main"], registry)
    if len(main) != MAIN_SIZE:
        raise ConfigError(f"{source}: main: {len(main)} cards; a main deck has {MAIN_SIZE}")
    if len(eggs) > MAX_EGGS:
        raise ConfigError(f"{source}: eggs: {len(eggs)} Digi-Eggs; at most {MAX_EGGS}")
    kinds = registry.numpy["kind"]
    for number in set(eggs):
        if kinds[registry.index(number)] != DIGI_EGG:
            raise ConfigError(f"{source}: eggs.{number}: not a Digi-Egg")
    for number in set(main):
        if kinds[registry.index(number)] == DIGI_EGG:
            raise ConfigError(f"{source}: main.{number}: a Digi-Egg belongs in eggs")
    for number in sorted(set(eggs) | set(main)):
        copies = eggs.count(number) + main.count(number)
        if copies > MAX_COPIES:
            raise ConfigError(
                f"{source}: {number}: {copies} copies; at most {MAX_COPIES} of one card number"
            )
    return Deck(name=data["name"], source=source, eggs=tuple(eggs), main=tuple(main))
