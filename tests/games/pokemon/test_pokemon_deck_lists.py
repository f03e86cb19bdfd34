"""Pokémon deck lists as Pokémon TCG Live exports them (``Pokémon: 21`` headers, ``4 Nemona SVI
180``, ``Total Cards: 60``): shipped decks read back from their exports (the Charizard ex League
Battle Deck's is its official list as PTCGL writes it), the set codes of the Scarlet & Violet era
and of older sets mapped to the card data's ids, every problem named with its line, and
``deck_problems`` listing all of a deck's at once."""

import os

import pytest

import tcgjax
from tcgjax.core.errors import ConfigError
from tcgjax.games.pokemon.decks import deck_problems, load_deck

DATA = os.path.join(os.path.dirname(__file__), "data")
EXPORTS = {"tapu_koko": "tapu_koko_ptcgl.txt", "melmetal_dte": "melmetal_dte_ptcgl.txt",
           "charizard_ex": "charizard_ex_ptcgl.txt", "miraidon_ex": "miraidon_ex_ptcgl.txt",
           "gardevoir_ex": "gardevoir_ex_ptcgl.txt"}  # fmt: skip


@pytest.fixture(scope="module")
def registry():
    return tcgjax.make("pokemon").board_layout.cards


def _text(deck="tapu_koko"):
    with open(os.path.join(DATA, EXPORTS[deck]), encoding="utf-8") as fh:
        return fh.read()


@pytest.mark.parametrize("deck", sorted(EXPORTS))
def test_an_export_is_the_shipped_deck(registry, deck):
    # melmetal_dte's export spells sets MEW (sv3pt5), PAF (sv4pt5), BRS (swsh9) and SVP (svp).
    listed = load_deck(os.path.join(DATA, EXPORTS[deck]), registry)
    assert sorted(listed.cards) == sorted(load_deck(deck, registry).cards)
    assert len(listed.cards) == 60 and listed.name == EXPORTS[deck].removesuffix(".txt")


def test_make_takes_an_export_for_a_seat():
    env = tcgjax.make("pokemon", decks=[_text(), "melmetal_dte"])
    assert sorted(env.decks[0].cards) == sorted(load_deck("tapu_koko", env.rules.cards).cards)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("4 Nemona SVI 180", "4 Nemona XYZ 180", r"line 15: unknown set code 'XYZ'; known: SVI, PAL"),
        ("4 Nemona SVI 180", "4 Nemona SVI 999", r"unknown cards .*: line 15: Nemona SVI 999 \(sv1-999\)"),
        ("4 Nemona SVI 180", "4 Arven SVI 180", r"line 15: SVI 180 \(sv1-180\) is Nemona, not Arven"),
        ("Trainer: 21", "Trainer: 20", r"line 14: the header 'trainer' counts 20 cards; the lines"),
        ("Total Cards: 60", "Total Cards: 59", r"'Total Cards: 59' but the list has 60 cards"),
        ("4 Nemona SVI 180", "4 Nemona, SVI 180!", r"line 15: '4 Nemona, SVI 180!' is not a card"),
    ],
)  # fmt: skip
def test_a_malformed_export_names_the_line(registry, old, new, message):
    text = _text().replace(old, new)
    with pytest.raises(ConfigError, match=message):
        load_deck(text, registry)


def test_basic_energy_reads_by_symbol_or_by_name(registry):
    spelled = _text().replace("Basic {L} Energy", "Basic Lightning Energy")
    assert sorted(load_deck(spelled, registry).cards) == sorted(load_deck(_text(), registry).cards)


def test_every_rule_a_deck_breaks_is_listed(registry):
    # A fifth Nemona of another printing (PAF 82: copies count by name), 61 cards.
    text = (
        _text().replace("Trainer: 21", "Trainer: 22").replace("Total Cards: 60", "Total Cards: 61")
    )
    text = text.replace("4 Nemona SVI 180", "4 Nemona SVI 180\n1 Nemona PAF 82")
    assert deck_problems(text, registry) == [
        "<deck list>: cards: 61 cards; a deck has 60",
        "<deck list>: Nemona: 5 copies; at most 4 of one card name (basic Energy excepted)",
    ]
    # No Basic Pokémon: the Pokémon lines swapped for Energy (18 basic Energy are exempt).
    lines = [ln for ln in _text().splitlines() if not ln[:1].isdigit() or "Basic {L}" in ln or
             any(t in ln for t in ("SVI", "PAL 183", "PAR 172"))]  # fmt: skip
    trainers = sum(int(ln.split()[0]) for ln in lines if ln[:1].isdigit() and "Energy" not in ln)
    lines = [ln for ln in lines if not ln.startswith(("Pokémon:", "Trainer:", "Energy:", "Total"))]
    lines.append(f"{60 - 18 - trainers} Basic {{L}} Energy SVE 4")
    problems = deck_problems("\n".join(lines), registry)
    assert problems == ["<deck list>: cards: no Basic Pokémon; a deck needs at least one"]
    assert deck_problems(os.path.join(DATA, EXPORTS["tapu_koko"]), registry) == []
