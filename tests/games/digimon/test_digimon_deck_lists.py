"""Digimon deck lists as players write them (``4 Agumon ST1-03``, one card a line, the Digi-Egg
deck under its header or found by kind): read from a file or a string into the same deck as the
YAML file, every problem named with its line, and ``deck_problems`` listing them all at once."""

import os

import pytest

import tcgjax
from tcgjax.core.errors import ConfigError
from tcgjax.games.digimon.decks import deck_problems, load_deck

DATA = os.path.join(os.path.dirname(__file__), "data")
ST1_LIST = os.path.join(DATA, "st1_deck_list.txt")


@pytest.fixture(scope="module")
def registry():
    return tcgjax.make("digimon").board_layout.cards


def _lines():
    with open(ST1_LIST, encoding="utf-8") as fh:
        return fh.read().splitlines()


def test_the_st1_list_is_the_shipped_st1_deck(registry):
    listed, shipped = load_deck(ST1_LIST, registry), load_deck("st1", registry)
    assert sorted(listed.eggs) == sorted(shipped.eggs) and len(listed.eggs) == 4
    assert sorted(listed.main) == sorted(shipped.main) and len(listed.main) == 50
    assert listed.name == "st1_deck_list" and listed.source.endswith("st1_deck_list.txt")


def test_the_other_ways_players_write_a_line_give_the_same_deck(registry):
    # No headers (the Digi-Egg found by its kind), "4x", the number first, and a string.
    cards = [ln for ln in _lines() if ln[:1].isdigit()]
    flipped = [f"{c.split()[0]}x {c.split()[-1]} {' '.join(c.split()[1:-1])}" for c in cards]
    text = "\n".join(["# no headers", *flipped])
    deck = load_deck(text, registry)
    assert deck.source == "<deck list>"
    assert sorted(deck.eggs) == sorted(load_deck("st1", registry).eggs)
    assert sorted(deck.main) == sorted(load_deck("st1", registry).main)


def test_make_takes_a_deck_list_for_a_seat():
    with open(ST1_LIST, encoding="utf-8") as fh:
        env = tcgjax.make("digimon", decks=[fh.read(), "st2"])
    assert len(env.decks[0].main) == 50 and env.decks[1].name == "ST-2 Cocytus Blue"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda ls: [*ls, "3 Gabumon ST1-99", "1 Agumon ST9-01"],
         r"unknown cards \(not in .*starter.yaml\): line 20: ST1-99 \(Gabumon\); line 21: ST9-01"),
        (lambda ls: [ln.replace("4 Agumon", "4 Gabumon") for ln in ls],
         r"line 6: ST1-03 is Agumon, not Gabumon"),
        (lambda ls: [*ls, "four Agumon ST1-03"],
         r"line 20: 'four Agumon ST1-03' is not a card line like '4 Agumon ST1-03'"),
        (lambda ls: [ln.replace("Digi-Egg deck", "Digi-Egg deck (5)") for ln in ls],
         r"line 2: the header 'eggs' counts 5 cards; the lines under it add up to 4"),
        (lambda ls: [ln.replace("4 Agumon", "0 Agumon") for ln in ls], r"line 6: .*positive"),
        (lambda ls: ["// nothing", "# at all"], r"no card lines"),
    ],
)  # fmt: skip
def test_a_malformed_list_names_the_line(registry, edit, message):
    text = "\n".join(edit(_lines()))
    with pytest.raises(ConfigError, match=message):
        load_deck(text, registry)
    assert len(deck_problems(text, registry)) == 1


def test_every_rule_a_deck_breaks_is_listed(registry):
    # 5 Gaia Force (the copy limit), a Digi-Egg in the main deck, 55 main cards, 6 Digi-Eggs.
    lines = _lines() + ["Main deck", "3 Gaia Force ST1-16", "Digi-Egg deck", "2 Koromon ST1-01"]
    lines += ["Main deck", "1 Koromon ST1-01"]
    problems = deck_problems("\n".join(lines), registry)
    assert problems == [
        "<deck list>: main: 54 cards; a main deck has 50",
        "<deck list>: eggs: 6 Digi-Eggs; at most 5",
        "<deck list>: main.ST1-01: a Digi-Egg belongs in eggs",
        "<deck list>: ST1-01: 7 copies; at most 4 of one card number",
        "<deck list>: ST1-16: 5 copies; at most 4 of one card number",
    ]
    with pytest.raises(ConfigError, match="main: 54 cards"):
        load_deck("\n".join(lines), registry)
    assert deck_problems(ST1_LIST, registry) == []


def test_an_unknown_deck_name_lists_the_shipped_ones(registry):
    with pytest.raises(
        ConfigError,
        match=r"'st9': no such file, nor a shipped deck.*"
        r"\('st1', 'st2', 'st3', 'st4', 'st5', 'st6', 'st7', 'st8'\)",
    ):
        load_deck("st9", registry)
