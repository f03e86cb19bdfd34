"""Pokémon decks: YAML files ``{name, cards: {card id: copies}}``, or deck lists as Pokémon TCG
Live exports them, validated.

Deck rules (the official rulebook): exactly 60 cards, at most 4
cards with the same *name* (different printings count together, e.g. the two Nemona ids) except
basic Energy, at least one Basic Pokémon, at most one ACE SPEC card and one Radiant Pokémon.
Shipped (the reference's two decks): ``tapu_koko``, the
official Tapu Koko ex Battle Deck, and ``melmetal_dte``, the Melmetal ex Battle Deck with 4 Double
Turbo Energy in place of 4 Basic Metal Energy. File reading and sections: :mod:`tcgjax.core.decks`.

A deck list (a ``.txt`` file or a string of lines) is Pokémon TCG Live's export: the headers
``Pokémon: N``, ``Trainer: N``, ``Energy: N`` and ``Total Cards: 60``, and one card a line,
``4 Nemona SVI 180`` (count, name, set code, number); the set code maps to the card data's set
(:data:`SET_CODES`: ``SVI`` is ``sv1``, so the card is ``sv1-180``). The name must be the card's
(``Basic {L} Energy`` reads as Basic Lightning Energy), so a wrong number is caught.
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
from tcgjax.games.pokemon.cards import KINDS, STAGES, TAGS, TYPES

__all__ = [
    "Deck",
    "DECKS_DIR",
    "SHIPPED_DECKS",
    "DECK_SIZE",
    "MAX_COPIES",
    "SET_CODES",
    "load_deck",
    "deck_problems",
    "deck_list_format",
]

DECKS_DIR = os.path.join(os.path.dirname(__file__), "decks")
SHIPPED_DECKS = (
    "tapu_koko",
    "melmetal_dte",
    "chien_pao",
    "charizard_ex",
    "miraidon_ex",
    "gardevoir_ex",
)
DECK_SIZE, MAX_COPIES = 60, 4


@dataclasses.dataclass(frozen=True)
class Deck:
    """A validated deck: card ids with repeats, in the file's order."""

    name: str
    source: str
    cards: tuple[str, ...]


#: Pokémon TCG Live's set codes -> the set ids of the public card data (card ids are
#: ``<set id>-<number>``): the Scarlet & Violet era, its Energy and promos, and the Sword & Shield
#: sets still seen in decks.
SET_CODES = {
    "SVI": "sv1", "PAL": "sv2", "OBF": "sv3", "MEW": "sv3pt5", "PAR": "sv4", "PAF": "sv4pt5",
    "TEF": "sv5", "TWM": "sv6", "SFA": "sv6pt5", "SCR": "sv7", "SSP": "sv8", "PRE": "sv8pt5",
    "JTG": "sv9", "DRI": "sv10", "SVE": "sve", "SVP": "svp", "PR-SV": "svp",
    "SSH": "swsh1", "RCL": "swsh2", "DAA": "swsh3", "VIV": "swsh4", "BST": "swsh5", "CRE": "swsh6",
    "EVS": "swsh7", "FST": "swsh8", "BRS": "swsh9", "ASR": "swsh10", "PGO": "pgo",
    "LOR": "swsh11", "SIT": "swsh12", "CRZ": "swsh12pt5", "PR-SW": "swshp",
}  # fmt: skip
# Energy symbols of the export ({L}) by type letter.
_SYMBOLS = {"G": "grass", "R": "fire", "W": "water", "L": "lightning", "P": "psychic",
            "F": "fighting", "D": "darkness", "M": "metal", "Y": "fairy", "N": "dragon",
            "C": "colorless"}  # fmt: skip
assert set(_SYMBOLS.values()) <= set(TYPES)


def _plain(name: str) -> str:
    """A card name as compared: ``{L}`` spelled out, case and spacing ignored."""
    name = re.sub(r"\{([A-Z])\}", lambda m: _SYMBOLS.get(m[1], m[0]), name)
    return " ".join(name.casefold().split())


def deck_list_format(registry: CardRegistry) -> DeckListFormat:
    """Pokémon TCG Live's export format (module docstring), resolving cards in ``registry``."""
    lines = (
        re.compile(r"^(?P<count>\d+)\s+(?P<name>.+?)\s+(?P<code>[A-Z][A-Z0-9-]*\s+\d+[a-z]?)$"),
    )
    sections = {"pokémon": "pokemon", "pokemon": "pokemon", "trainer": "trainer",
                "trainers": "trainer", "energy": "energy"}  # fmt: skip

    def to_data(source: str, cards: list[ListedCard]) -> dict[str, Any]:
        data: dict[str, Any] = {"name": list_name(source), "cards": {}}
        unknown = []
        for card in cards:
            code, number = card.code.split()
            if code not in SET_CODES:
                raise ConfigError(
                    f"{source}: line {card.line}: unknown set code {code!r}; known: "
                    f"{', '.join(SET_CODES)}"
                )
            card_id = f"{SET_CODES[code]}-{number}"
            if card_id not in registry.ids[1:]:
                unknown.append(f"line {card.line}: {card.name} {card.code} ({card_id})")
                continue
            printed = registry.definition(card_id)["name"]
            if _plain(printed) != _plain(card.name):
                raise ConfigError(
                    f"{source}: line {card.line}: {card.code} ({card_id}) is {printed}, not "
                    f"{card.name}"
                )
            data["cards"][card_id] = data["cards"].get(card_id, 0) + card.count
        if unknown:
            raise ConfigError(
                f"{source}: unknown cards (not in {registry.source}): {'; '.join(unknown)}"
            )
        return data

    return DeckListFormat(lines, sections, to_data, example="4 Nemona SVI 180")


def load_deck(
    deck: str | os.PathLike | Mapping[str, Any],
    registry: CardRegistry,
    *,
    allow_vanilla: bool = False,
) -> Deck:
    """Load and validate a deck against ``registry``.

    Args:
      deck: a shipped deck id (:data:`SHIPPED_DECKS`), a path to a YAML file or a deck list
        (``.txt``), a deck list as a string, or a mapping.
      registry: the card database the deck's ids refer to.
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
        required=("name", "cards"),
        deck_list=deck_list_format(registry),
    )
    cards = deck_section(source, "cards", data["cards"], registry)
    problems = list(vanilla_problems(source, cards, registry, allow_vanilla))
    problems += list(_problems(source, cards, registry))
    if problems:
        return problems
    return Deck(name=data["name"], source=source, cards=tuple(cards))


def _problems(source: str, cards: list[str], registry: CardRegistry) -> Iterator[str]:
    if len(cards) != DECK_SIZE:
        yield f"{source}: cards: {len(cards)} cards; a deck has {DECK_SIZE}"

    def field(card_id: str, name: str):
        return registry.definition(card_id)[name]

    basic_energy = KINDS.index("basic_energy")
    yield from copy_problems(
        source,
        cards,
        MAX_COPIES,
        key=lambda card_id: field(card_id, "name"),
        exempt=lambda card_id: field(card_id, "kind") == basic_energy,
        what="card name (basic Energy excepted)",
    )
    pokemon, basic = KINDS.index("pokemon"), STAGES.index("basic")
    if not any(field(c, "kind") == pokemon and field(c, "stage") == basic for c in cards):
        yield f"{source}: cards: no Basic Pokémon; a deck needs at least one"
    # At most one ACE SPEC card and one Radiant Pokémon a deck, whatever their names.
    for tag, what in (("ace_spec", "ACE SPEC cards"), ("radiant", "Radiant Pokémon")):
        tagged = sorted(c for c in cards if field(c, "tags") >> TAGS.index(tag) & 1)
        if len(tagged) > 1:
            names = ", ".join(sorted({field(c, "name") for c in tagged}))
            yield f"{source}: cards: {len(tagged)} {what} ({names}); at most 1 a deck"
