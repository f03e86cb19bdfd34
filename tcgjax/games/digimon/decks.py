"""Digimon decks: YAML files ``{name, eggs: {number: copies}, main: {number: copies}}``, or deck
lists as players write them, validated.

Official deck rules (the official Digimon Card Game General Rules): a main deck
of exactly 50 cards, a Digi-Egg deck of 0 to 5 Digi-Eggs, at most 4 copies of one card number
(both decks together), Digi-Eggs only in the Digi-Egg deck. Shipped: ``st1`` (ST-1 Gaia Red),
``st2`` (ST-2 Cocytus Blue), ``st3`` (ST-3 Heaven's Yellow), ``st4`` (ST-4 Giga Green), ``st5``
(ST-5 Machine Black), ``st6`` (ST-6 Venomous Violet), ``st7`` (ST-7 Gallantmon) and ``st8``
(ST-8 UlforceVeedramon), as sold (decision G6; design decisions
are in ``docs/decisions.md``).

A deck list (a ``.txt`` file or a string of lines) has one card a line, ``4 Agumon ST1-03`` (or
``4 ST1-03 Agumon``; ``4x`` too), optionally under the headers ``Digi-Egg deck`` and ``Main deck``
(``Digi-Eggs``, ``Eggs``, ``Main`` also); without headers a Digi-Egg goes to the Digi-Egg deck.
The name must be the card's (so a typo in a number is caught); ``#`` and ``//`` start comments.
:func:`deck_problems` lists everything wrong with a deck at once (``tcgjax deck check``).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from tcgjax.core.cards import CardRegistry
from tcgjax.core.decks import (
    DeckListFormat,
    ListedCard,
    all_problems,
    copy_problems,
    deck_section,
    first_problem,
    list_name,
    read_deck,
    vanilla_problems,
)
from tcgjax.core.errors import ConfigError

__all__ = ["Deck", "DECKS_DIR", "SHIPPED_DECKS", "load_deck", "deck_problems", "deck_list_format"]

DECKS_DIR = os.path.join(os.path.dirname(__file__), "decks")
SHIPPED_DECKS = ("st1", "st2", "st3", "st4", "st5", "st6", "st7", "st8")
MAIN_SIZE, MAX_EGGS, MAX_COPIES = 50, 5, 4


@dataclasses.dataclass(frozen=True)
class Deck:
    """A validated deck: card numbers with repeats, in the file's order (``eggs``, ``main``)."""

    name: str
    source: str
    eggs: tuple[str, ...]
    main: tuple[str, ...]


def deck_list_format(registry: CardRegistry) -> DeckListFormat:
    """The Digimon deck-list format (module docstring), resolving numbers against ``registry``."""
    from tcgjax.games.digimon.cards import DIGI_EGG

    number = r"(?P<code>[A-Z]+\d*-\d+[A-Z]?)"
    lines = (
        re.compile(rf"^(?P<count>\d+)x?\s+(?P<name>.+?)\s+{number}$"),
        re.compile(rf"^(?P<count>\d+)x?\s+{number}\s+(?P<name>.+)$"),
    )
    sections = {"digi-egg deck": "eggs", "digi-eggs": "eggs", "digi-egg": "eggs", "eggs": "eggs",
                "egg deck": "eggs", "main deck": "main", "main": "main"}  # fmt: skip
    kinds = registry.numpy["kind"]

    def to_data(source: str, cards: list[ListedCard]) -> dict[str, Any]:
        data: dict[str, Any] = {"name": list_name(source), "eggs": {}, "main": {}}
        unknown = []
        for card in cards:
            if card.code not in registry.ids[1:]:
                unknown.append(f"line {card.line}: {card.code} ({card.name})")
                continue
            printed = registry.definition(card.code)["name"]
            if printed.casefold() != card.name.casefold():
                raise ConfigError(
                    f"{source}: line {card.line}: {card.code} is {printed}, not {card.name}"
                )
            section = card.section or (
                "eggs" if kinds[registry.index(card.code)] == DIGI_EGG else "main"
            )
            data[section][card.code] = data[section].get(card.code, 0) + card.count
        if unknown:
            raise ConfigError(
                f"{source}: unknown cards (not in {registry.source}): {'; '.join(unknown)}"
            )
        return data

    return DeckListFormat(lines, sections, to_data, example="4 Agumon ST1-03")


def load_deck(
    deck: str | os.PathLike | Mapping[str, Any],
    registry: CardRegistry,
    *,
    allow_vanilla: bool = False,
) -> Deck:
    """Load and validate a deck against ``registry`` (file reading and sections:
    :mod:`tcgjax.core.decks`).

    Args:
      deck: a shipped deck id (:data:`SHIPPED_DECKS`), a path to a YAML file or a deck list
        (``.txt``), a deck list as a string, or a mapping.
      registry: the card database the deck's numbers refer to.
      allow_vanilla: play cards whose effects ``registry`` does not implement (marked
        ``stats_only``) without them; by default a deck with such a card is refused, naming it.

    Raises:
      ConfigError: naming the source (file, ``<deck dict>`` or ``<deck list>``), the entry (or
        line) and the field: the first problem :func:`deck_problems` finds.
    """
    return first_problem(_checked(deck, registry, allow_vanilla))


def deck_problems(
    deck: str | os.PathLike | Mapping[str, Any],
    registry: CardRegistry,
    *,
    allow_vanilla: bool = False,
) -> list[str]:
    """Everything that makes ``deck`` unplayable, each a message naming the entry (empty: a legal
    deck): the game's deck rules and, unless ``allow_vanilla``, each card whose effects
    ``registry`` does not implement. A deck that cannot be read (a malformed file or list,
    unknown cards) gives that one message."""
    return all_problems(lambda: _checked(deck, registry, allow_vanilla))


def _checked(deck, registry: CardRegistry, allow_vanilla: bool) -> Deck | list[str]:
    source, data = read_deck(
        deck,
        DECKS_DIR,
        SHIPPED_DECKS,
        required=("name", "eggs", "main"),
        deck_list=deck_list_format(registry),
    )
    eggs = deck_section(source, "eggs", data["eggs"], registry)
    main = deck_section(source, "main", data["main"], registry)
    problems = list(vanilla_problems(source, eggs + main, registry, allow_vanilla))
    problems += list(_problems(source, eggs, main, registry))
    if problems:
        return problems
    return Deck(name=data["name"], source=source, eggs=tuple(eggs), main=tuple(main))


def _problems(
    source: str, eggs: list[str], main: list[str], registry: CardRegistry
) -> Iterator[str]:
    from tcgjax.games.digimon.cards import DIGI_EGG

    if len(main) != MAIN_SIZE:
        yield f"{source}: main: {len(main)} cards; a main deck has {MAIN_SIZE}"
    if len(eggs) > MAX_EGGS:
        yield f"{source}: eggs: {len(eggs)} Digi-Eggs; at most {MAX_EGGS}"
    kinds = registry.numpy["kind"]
    for number in sorted(set(eggs)):
        if kinds[registry.index(number)] != DIGI_EGG:
            yield f"{source}: eggs.{number}: not a Digi-Egg"
    for number in sorted(set(main)):
        if kinds[registry.index(number)] == DIGI_EGG:
            yield f"{source}: main.{number}: a Digi-Egg belongs in eggs"
    # The limit counts both decks together.
    yield from copy_problems(source, eggs + main, MAX_COPIES, what="card number")
