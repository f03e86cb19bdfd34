"""Pokémon decks: YAML files ``{name, cards: {card id: copies}}``, validated.

Deck rules (the official rulebook): exactly 60 cards, at most 4
cards with the same *name* (different printings count together, e.g. the two Nemona ids) except
basic Energy, at least one Basic Pokémon. Shipped (the reference's two decks): ``tapu_koko``, the
official Tapu Koko ex Battle Deck, and ``melmetal_dte``, the Melmetal ex Battle Deck with 4 Double
Turbo Energy in place of 4 Basic Metal Energy. File reading and sections: :mod:`tcgjax.core.decks`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any

from tcgjax.core.cards import CardRegistry
from tcgjax.core.decks import check_copies, deck_section, read_deck
from tcgjax.core.errors import ConfigError
from tcgjax.games.pokemon.cards import KINDS, STAGES

__all__ = ["Deck", "DECKS_DIR", "SHIPPED_DECKS", "DECK_SIZE", "MAX_COPIES", "load_deck"]

DECKS_DIR = os.path.join(os.path.dirname(__file__), "decks")
SHIPPED_DECKS = ("tapu_koko", "melmetal_dte")
DECK_SIZE, MAX_COPIES = 60, 4


@dataclasses.dataclass(frozen=True)
class Deck:
    """A validated deck: card ids with repeats, in the file's order."""

    name: str
    source: str
    cards: tuple[str, ...]


def load_deck(deck: str | os.PathLike | Mapping[str, Any], registry: CardRegistry) -> Deck:
    """Load and validate a deck against ``registry``.

    Args:
      deck: a shipped deck id (:data:`SHIPPED_DECKS`), a path to a YAML file, or a mapping.
      registry: the card database the deck's ids refer to.

    Raises:
      ConfigError: naming the source (file or ``<deck dict>``), the entry and the field.
    """
    source, data = read_deck(deck, DECKS_DIR, SHIPPED_DECKS, required=("name", "cards"))
    cards = deck_section(source, "cards", data["cards"], registry)
    if len(cards) != DECK_SIZE:
        raise ConfigError(f"{source}: cards: {len(cards)} cards; a deck has {DECK_SIZE}")

    def field(card_id: str, name: str):
        return registry.definition(card_id)[name]

    basic_energy = KINDS.index("basic_energy")
    check_copies(
        source,
        cards,
        MAX_COPIES,
        key=lambda card_id: field(card_id, "name"),
        exempt=lambda card_id: field(card_id, "kind") == basic_energy,
        what="card name (basic Energy excepted)",
    )
    pokemon, basic = KINDS.index("pokemon"), STAGES.index("basic")
    if not any(field(c, "kind") == pokemon and field(c, "stage") == basic for c in cards):
        raise ConfigError(f"{source}: cards: no Basic Pokémon; a deck needs at least one")
    return Deck(name=data["name"], source=source, cards=tuple(cards))
