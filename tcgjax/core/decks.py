"""Deck files, shared by the card games: reading, the ``{card id: copies}`` sections, copy limits,
and deck lists as players write them.

A deck is a YAML file (or a mapping) whose sections map card ids of a :class:`CardRegistry` to a
positive number of copies, or a deck list: the text players exchange, one card a line
(``4 Agumon ST1-03``, ``4 Nemona SVI 180``) under optional section headers (``Digi-Egg deck``,
``Pokémon: 12``), from a ``.txt`` file or a string. Each game states its own sections, its list's
line format (:class:`DeckListFormat`) and its rules (sizes, what may go where) and builds on these
helpers, so every game reports a bad deck the same way: a :class:`~tcgjax.core.errors.ConfigError`
naming the source (the file, ``<deck dict>`` or ``<deck list>``), the entry (or the list's line)
and the field.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import yaml

from tcgjax.core.cards import CardRegistry
from tcgjax.core.errors import ConfigError
from tcgjax.core.files import DuplicateKeyError, yaml_loads

__all__ = [
    "Matchups",
    "parse_matchups",
    "check_pairs",
    "read_deck",
    "deck_section",
    "check_deck_keys",
    "check_copies",
    "copy_problems",
    "ListedCard",
    "DeckListFormat",
    "read_deck_list",
    "list_name",
    "first_problem",
    "all_problems",
    "vanilla_problems",
]


@dataclasses.dataclass(frozen=True)
class ListedCard:
    """One card line of a deck list: ``count`` copies of the card ``code`` (as the list writes it:
    ``ST1-03``, ``SVI 180``) named ``name``, under the header ``section`` (``""`` before any),
    at 1-based ``line``."""

    count: int
    name: str
    code: str
    section: str
    line: int


@dataclasses.dataclass(frozen=True)
class DeckListFormat:
    """How a game's deck lists are written. ``lines``: regular expressions of a card line, each
    with the groups ``count``, ``name`` and ``code``, tried in order; ``sections``: header (lower
    case, without a trailing count) -> section name; ``to_data``: ``(source, cards)`` -> the deck
    as the game's YAML mapping (it resolves each code to a card id, naming the line of one it
    cannot); ``example``: a card line, for error messages."""

    lines: tuple[re.Pattern, ...]
    sections: Mapping[str, str]
    to_data: Callable[[str, list[ListedCard]], dict[str, Any]]
    example: str


_HEADER = re.compile(
    r"^(?P<head>[^\d:()]+?)\s*(?:\(\s*(?P<paren>\d+)\s*\))?\s*:?\s*(?P<count>\d+)?\s*$"
)
_TOTAL = re.compile(r"^total(?: cards)?\s*:?\s*(?P<total>\d+)\s*$", re.I)


def read_deck_list(text: str, source: str, fmt: DeckListFormat) -> list[ListedCard]:
    """The card lines of a deck list, in order. Empty lines and comments (``#``, ``//``) are
    skipped; a header line (``Pokémon: 12``, ``Digi-Egg deck``) starts a section, and the cards
    under it must add up to its count when it gives one; a ``Total Cards: 60`` line must equal
    the whole list's count.

    Raises:
      ConfigError: ``<source>: line N: ...`` for a line that is neither a card, a known header
        nor a comment, a count that is not a positive integer, or totals that do not add up.
    """
    cards: list[ListedCard] = []
    section, expected = "", None

    def close(line_no: int) -> None:
        if expected is not None:
            got = sum(c.count for c in cards if c.section == section)
            if got != expected[0]:
                raise ConfigError(
                    f"{source}: line {expected[1]}: the header {section!r} counts {expected[0]} "
                    f"cards; the lines under it add up to {got}"
                )

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", "//")):
            continue
        total = _TOTAL.match(line)
        if total:
            close(number)
            expected = None
            listed = sum(c.count for c in cards)
            if int(total["total"]) != listed:
                raise ConfigError(
                    f"{source}: line {number}: {line!r} but the list has {listed} cards"
                )
            continue
        header = _HEADER.match(line)
        if header and header["head"].strip().lower() in fmt.sections:
            close(number)
            section = fmt.sections[header["head"].strip().lower()]
            count = header["count"] or header["paren"]
            expected = None if count is None else (int(count), number)
            continue
        match = next((m for m in (p.match(line) for p in fmt.lines) if m), None)
        if match is None:
            raise ConfigError(
                f"{source}: line {number}: {line!r} is not a card line like {fmt.example!r}, a "
                f"section header ({', '.join(sorted(fmt.sections))}) or a comment"
            )
        count = int(match["count"])
        if count <= 0:
            raise ConfigError(f"{source}: line {number}: {line!r}: the count must be positive")
        cards.append(ListedCard(count, match["name"].strip(), match["code"], section, number))
    close(len(text.splitlines()))
    if not cards:
        raise ConfigError(f"{source}: no card lines (like {fmt.example!r})")
    return cards


def read_deck(
    deck: Any,
    shipped_dir: str,
    shipped: Sequence[str],
    *,
    required: Sequence[str] = (),
    deck_list: DeckListFormat | None = None,
) -> tuple[str, dict[str, Any]]:
    """``(source, data)`` of a deck given as a shipped id, a path to a YAML file, a mapping, or
    (with ``deck_list``) a deck list: a ``.txt`` file or a string of several lines.

    Args:
      deck: a shipped deck id (``shipped``, read from ``<shipped_dir>/<id>.yaml``), a path, a
        mapping (its source is ``"<deck dict>"``) or a deck list (``"<deck list>"``).
      required: the top-level keys the deck must have; any other key is an error
        (:func:`check_deck_keys`).
      deck_list: the game's deck-list format; a list is read into the game's mapping by its
        ``to_data``.

    Raises:
      ConfigError: anything but the accepted forms (naming the shipped ids), an unreadable or
        non-UTF-8 file, invalid YAML or a repeated key, a top level that is not a mapping, a
        missing or unknown key, a malformed deck list (naming its line).
    """
    forms = "a shipped deck id {}, a path to a YAML file{} or a mapping".format(
        tuple(shipped), ", a deck list (.txt file or text)" if deck_list else ""
    )
    if isinstance(deck, Mapping):
        source, data = "<deck dict>", dict(deck)
    elif isinstance(deck, bytes) or not isinstance(deck, str | os.PathLike):
        raise ConfigError(f"deck {deck!r}: expected {forms}, got {type(deck).__name__}")
    elif deck_list is not None and isinstance(deck, str) and "\n" in deck.strip():
        source = "<deck list>"
        data = deck_list.to_data(source, read_deck_list(deck, source, deck_list))
    else:
        path = os.fspath(deck)
        if path in shipped:
            path = os.path.join(shipped_dir, f"{path}.yaml")
        elif not os.path.splitext(path)[1] and not os.path.exists(path):
            raise ConfigError(f"deck {path!r}: no such file, nor a shipped deck; expected {forms}")
        source = os.path.normpath(path)
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            if deck_list is not None and path.lower().endswith(".txt"):
                return source, deck_list.to_data(source, read_deck_list(text, source, deck_list))
            data = yaml_loads(text)
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


def copy_problems(
    source: str,
    cards: Iterable[str],
    limit: int,
    *,
    key: Callable[[str], str] = lambda card_id: card_id,
    exempt: Callable[[str], bool] = lambda card_id: False,
    what: str = "card id",
) -> Iterator[str]:
    """Each ``key`` (the card id, or e.g. the card's name when different printings count
    together) that more than ``limit`` cards of the deck share, as a message naming it and its
    count; cards for which ``exempt`` holds are not counted (basic Energy)."""
    counts: dict[str, int] = {}
    for card_id in cards:
        if not exempt(card_id):
            counts[key(card_id)] = counts.get(key(card_id), 0) + 1
    for name in sorted(counts):
        if counts[name] > limit:
            yield f"{source}: {name}: {counts[name]} copies; at most {limit} of one {what}"


def vanilla_problems(
    source: str, cards: Iterable[str], registry: CardRegistry, allow_vanilla: bool
) -> Iterator[str]:
    """The cards of the deck whose effects ``registry`` does not implement (its ``stats_only``
    mark, :mod:`tcgjax.core.cards`), named in one message: such a card would play without its
    effects, so a deck with one is refused unless ``allow_vanilla`` (bool) says to play it so."""
    if not isinstance(allow_vanilla, bool):
        raise ConfigError(f"{source}: allow_vanilla={allow_vanilla!r} must be True or False")
    vanilla = sorted(set(cards) & registry.stats_only)
    if vanilla and not allow_vanilla:
        named = ", ".join(
            f"{card_id} ({registry.definition(card_id)['name']})" for card_id in vanilla
        )
        yield (
            f"{source}: {len(vanilla)} card(s) whose effects {registry.source} does not implement "
            f"(stats only): {named}; pass allow_vanilla=True to play them without their effects"
        )


def check_copies(source: str, cards: Iterable[str], limit: int, **kwargs: Any) -> None:
    """Raises ``ConfigError`` with the first of :func:`copy_problems`, if any."""
    for problem in copy_problems(source, cards, limit, **kwargs):
        raise ConfigError(problem)


def list_name(source: str) -> str:
    """A deck list's name: its file's name without the suffix (``<deck list>`` for a string)."""
    return source if source.startswith("<") else os.path.splitext(os.path.basename(source))[0]


def first_problem(deck_or_problems: Any) -> Any:
    """A game's loaded deck, or ``ConfigError`` with the first of its problems (a list of
    messages): how each game's ``load_deck`` ends."""
    if isinstance(deck_or_problems, list):
        raise ConfigError(deck_or_problems[0])
    return deck_or_problems


def all_problems(check: Callable[[], Any]) -> list[str]:
    """Every problem of a deck: ``check()`` returns the deck or its problems; a deck that cannot
    be read (a malformed file or list, unknown cards) gives that one message. How each game's
    ``deck_problems`` works."""
    try:
        deck_or_problems = check()
    except ConfigError as exc:
        return [str(exc)]
    return deck_or_problems if isinstance(deck_or_problems, list) else []


# --------------------------------------------------------------------------------------------------
# Matchups: the ``decks`` option of an env, one pair of decks or a list of pairs drawn per game

#: A deck as an env's ``decks`` option names it: a shipped deck id, a path, or a mapping.
DeckSpec = str | os.PathLike | Mapping[str, Any]

#: The most matchups an env takes (a game's matchup index is an int8).
MAX_MATCHUPS = 127


@dataclasses.dataclass(frozen=True)
class Matchups:
    """The ``decks`` option of a card game's env, read: the pool of distinct decks and the pairs.

    Attributes:
      specs: each distinct deck spec once, in order of first mention (seat 0's deck of the first
        pair first; a single mirror pair lists its deck twice, so that ``specs[0]`` and
        ``specs[1]`` are always the two seats' decks of the first pair).
      pairs: ``(deck of seat 0, deck of seat 1)`` per matchup, indices into ``specs``.
      option: the option as ``env.options`` records it (plain strings, lists and dicts: one pair
        as two entries, a list of pairs as a list of two-entry lists).
    """

    specs: tuple[DeckSpec, ...]
    pairs: tuple[tuple[int, int], ...]
    option: list

    def names(self, decks: Sequence[Any], shipped: Sequence[str]) -> tuple[str, ...]:
        """``"a vs b"`` per pair: a shipped deck by its id, another by its loaded ``name``
        (``decks``: the loaded decks of ``specs``, in order)."""
        labels = [
            spec if isinstance(spec, str) and spec in shipped else deck.name
            for spec, deck in zip(self.specs, decks, strict=True)
        ]
        return tuple(f"{labels[a]} vs {labels[b]}" for a, b in self.pairs)


def _is_deck_spec(spec: Any) -> bool:
    return isinstance(spec, str | os.PathLike | Mapping)


def _deck_key(spec: DeckSpec) -> str:
    """One string per distinct deck spec (a name or path as given; a mapping by its content)."""
    import json

    if isinstance(spec, Mapping):
        return "mapping:" + json.dumps(spec, sort_keys=True, default=str)
    return "path:" + os.fspath(spec)


def _plain(spec: DeckSpec) -> Any:
    return dict(spec) if isinstance(spec, Mapping) else os.fspath(spec)


def parse_matchups(game: str, decks: Any) -> Matchups:
    """Read an env's ``decks`` option: two deck specs (one matchup, a deck per seat) or a
    non-empty list of such pairs (each game draws one). Raises ``ConfigError`` naming the game,
    the option and the entry otherwise."""
    shape = "two decks (one per seat) or a list of such pairs"
    if isinstance(decks, str | bytes | Mapping) or not isinstance(decks, Sequence) or not decks:
        raise ConfigError(f"{game}: option decks={decks!r} must be {shape}")
    single = len(decks) == 2 and all(_is_deck_spec(d) for d in decks)
    pair_list = [tuple(decks)] if single else []
    for i, pair in enumerate([] if single else decks):
        if (
            isinstance(pair, str | bytes | Mapping)
            or not isinstance(pair, Sequence)
            or len(pair) != 2
            or not all(_is_deck_spec(d) for d in pair)
        ):
            raise ConfigError(
                f"{game}: option decks[{i}]={pair!r} must be a pair of decks (one per seat): "
                f"decks must be {shape}"
            )
        pair_list.append(tuple(pair))
    if len(pair_list) > MAX_MATCHUPS:
        raise ConfigError(f"{game}: option decks: {len(pair_list)} pairs, at most {MAX_MATCHUPS}")
    keys: list[str] = []
    specs: list[DeckSpec] = []
    for pair in pair_list:
        for spec in pair:
            if _deck_key(spec) not in keys:
                keys.append(_deck_key(spec))
                specs.append(spec)
    pairs = [tuple(keys.index(_deck_key(spec)) for spec in pair) for pair in pair_list]
    if pairs == [(0, 0)]:  # one mirror matchup: each seat still has its entry in the pool
        specs, pairs = specs * 2, [(0, 1)]
    option = [_plain(d) for d in decks] if single else [[_plain(d) for d in p] for p in pair_list]
    return Matchups(tuple(specs), tuple(pairs), option)


def check_pairs(game: str, pairs: Sequence[Sequence[int]] | None, num_decks: int) -> tuple:
    """A rules object's matchups, checked: ``((0, 1),)`` for ``None``, else each pair two deck
    indices in ``[0, num_decks)``, 1 to :data:`MAX_MATCHUPS` of them (a game's index is an int8).
    Raises ``ConfigError`` naming the game and the pair."""
    checked = ((0, 1),) if pairs is None else tuple(tuple(map(int, p)) for p in pairs)
    if not 1 <= len(checked) <= MAX_MATCHUPS:
        raise ConfigError(f"{game}: pairs: 1 to {MAX_MATCHUPS} matchups, got {len(checked)}")
    for i, pair in enumerate(checked):
        if len(pair) != 2 or not all(0 <= d < num_decks for d in pair):
            raise ConfigError(
                f"{game}: pairs[{i}] = {pair!r}: two deck indices in [0, {num_decks})"
            )
    return checked
