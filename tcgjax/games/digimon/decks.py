"""Digimon decks: YAML files ``{name, eggs: {number: copies}, main: {number: copies}}``, validated.

Official deck rules (the official Digimon Card Game General Rules): a main deck
of exactly 50 cards, a Digi-Egg deck of 0 to 5 Digi-Eggs, at most 4 copies of one card number
(both decks together), Digi-Eggs only in the Digi-Egg deck. Shipped: ``st1`` (ST-1 Gaia Red) and
``st2`` (ST-2 Cocytus Blue), as sold (decision G6; design decisions are in ``docs/decisions.md``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any

from tcgjax.core.cards import CardRegistry
from tcgjax.core.decks import check_copies, deck_section, read_deck
from tcgjax.core.errors import ConfigError

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


def load_deck(deck: str | os.PathLike | Mapping[str, Any], registry: CardRegistry) -> Deck:
    """Load and validate a deck against ``registry`` (file reading and sections:
    :mod:`tcgjax.core.decks`).

    Args:
      deck: a shipped deck id (``"st1"``, ``"st2"``), a path to a YAML file, or a mapping.
      registry: the card database the deck's numbers refer to.

    Raises:
      ConfigError: naming the source (file or ``<deck dict>``), the entry and the field.
    """
    from tcgjax.games.digimon.cards import DIGI_EGG

    source, data = read_deck(deck, DECKS_DIR, SHIPPED_DECKS, required=("name", "eggs", "main"))
    eggs = deck_section(source, "eggs", data["eggs"], registry)
    main = deck_section(source, "main", data["main"], registry)
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
    # The limit counts both decks together.
    check_copies(source, eggs + main, MAX_COPIES, what="card number")
    return Deck(name=data["name"], source=source, eggs=tuple(eggs), main=tuple(main))
