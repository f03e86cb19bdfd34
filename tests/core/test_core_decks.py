"""The deck-file helpers the card games share: every bad deck is refused naming source, entry, field."""

import dataclasses
import re

import pytest

from tcgjax.core.cards import CardRegistry, CardSchema, IntField, TextField
from tcgjax.core.decks import (
    DeckListFormat,
    ListedCard,
    check_copies,
    deck_section,
    read_deck,
    read_deck_list,
    vanilla_problems,
)
from tcgjax.core.errors import CardDataError, ConfigError

REGISTRY = CardRegistry(
    CardSchema((TextField("name"), IntField("cost", 0, 9))),
    [
        {"id": "a-1", "name": "Alpha", "cost": 1},
        {"id": "a-2", "name": "Alpha", "cost": 2},  # another printing of the same card
        {"id": "b-1", "name": "Beta", "cost": 0},
    ],
    source="cards.yaml",
)
REQUIRED = ("name", "cards")


def test_a_mapping_is_read_as_given():
    source, data = read_deck({"name": "d", "cards": {"a-1": 2}}, "/nowhere", (), required=REQUIRED)
    assert (source, data) == ("<deck dict>", {"name": "d", "cards": {"a-1": 2}})
    assert deck_section(source, "cards", data["cards"], REGISTRY) == ["a-1", "a-1"]


def test_a_shipped_id_and_a_path_are_read_from_yaml(tmp_path):
    (tmp_path / "mine.yaml").write_text("name: mine\ncards: {b-1: 3, a-2: 1}\n")
    by_id = read_deck("mine", str(tmp_path), ("mine",), required=REQUIRED)
    by_path = read_deck(tmp_path / "mine.yaml", "/nowhere", (), required=REQUIRED)
    assert by_id == by_path
    assert by_id[0].endswith("mine.yaml")
    assert deck_section(*by_id[:1], "cards", by_id[1]["cards"], REGISTRY) == ["b-1"] * 3 + ["a-2"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: d\ncards: {a-1: 1}\ncards: {a-1: 2}\n", "duplicate key 'cards' \\(line 3"),
        ("name: d\ncards: [\n", "not valid YAML"),
        ("- a-1\n", "a deck is a mapping with name, cards"),
        ("cards: {a-1: 1}\n", "missing key 'name'"),
        ("name: d\ncards: {a-1: 1}\nsideboard: {}\n", "unknown key 'sideboard'"),
        ("name: ''\ncards: {a-1: 1}\n", "name: expected a non-empty string"),
    ],
)
def test_malformed_files_name_the_file_and_the_field(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        read_deck(str(path), "/nowhere", (), required=REQUIRED)
    assert "bad.yaml" in str(info.value)


def test_unreadable_and_wrongly_typed_decks(tmp_path):
    with pytest.raises(ConfigError, match="missing.yaml: cannot read deck"):
        read_deck(str(tmp_path / "missing.yaml"), "/nowhere", (), required=REQUIRED)
    (tmp_path / "latin.yaml").write_bytes(b"name: \xe9\n")
    with pytest.raises(ConfigError, match="latin.yaml"):
        read_deck(str(tmp_path / "latin.yaml"), "/nowhere", (), required=REQUIRED)
    for bad in (None, 3, b"deck.yaml", ["a-1"]):
        with pytest.raises(ConfigError, match="expected a shipped deck id"):
            read_deck(bad, "/nowhere", ("st1",), required=REQUIRED)


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (["a-1"], "cards: expected a mapping"),
        ({"zz-9": 1}, r"cards\.zz-9: no card with that id in cards\.yaml"),
        ({"a-1": 0}, r"cards\.a-1: copies must be a positive integer, got 0"),
        ({"a-1": True}, "copies must be a positive integer, got True"),
        ({"a-1": 2.0}, "copies must be a positive integer, got 2.0"),
        ({"a-1": "2"}, "copies must be a positive integer, got '2'"),
    ],
)
def test_bad_sections_name_the_entry(section, message):
    with pytest.raises(ConfigError, match=message):
        deck_section("deck.yaml", "cards", section, REGISTRY)


def test_copy_limits_by_id_by_name_and_with_exemptions():
    cards = ["a-1"] * 3 + ["a-2"] * 2 + ["b-1"] * 7
    check_copies("d", ["a-1"] * 4, 4)  # at the limit
    check_copies("d", cards, 4, key=lambda c: c, exempt=lambda c: c == "b-1")  # by id: 3 and 2
    name = lambda c: REGISTRY.definition(c)["name"]  # noqa: E731
    with pytest.raises(ConfigError, match="d: Alpha: 5 copies; at most 4 of one card name"):
        check_copies("d", cards, 4, key=name, exempt=lambda c: c == "b-1", what="card name")
    with pytest.raises(ConfigError, match="d: b-1: 7 copies; at most 4 of one card id"):
        check_copies("d", cards, 4)


def test_the_padding_id_is_not_a_card():
    # Definition 0 is padding (id ""), never a card a deck may list.
    with pytest.raises(ConfigError, match=r"cards\.: no card with that id"):
        deck_section("d", "cards", {"": 1}, REGISTRY)


def test_the_first_unknown_key_in_sorted_order_is_named():
    data = {"name": "d", "cards": {}, "zzz": 1, "aaa": 2}
    with pytest.raises(ConfigError, match="unknown key 'aaa'"):
        read_deck(data, "/nowhere", (), required=REQUIRED)


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        read_deck({"name": "d", "cards": {}}, "/nowhere", (), REQUIRED)
    with pytest.raises(TypeError):
        check_copies("d", ["a-1"], 4, lambda c: c)


# --------------------------------------------------------------------------------------------------
# Cards whose effects are not implemented (``stats_only``)

MARKED = CardRegistry(
    CardSchema((TextField("name"), IntField("cost", 0, 9))),
    [
        {"id": "a-1", "name": "Alpha", "cost": 1},
        {"id": "b-1", "name": "Beta", "cost": 0, "stats_only": True},
        {"id": "c-1", "name": "Gamma", "cost": 2, "stats_only": False},
    ],
    source="imported.yaml",
)


def test_the_stats_only_mark_is_read_per_card():
    assert MARKED.stats_only == frozenset({"b-1"})
    assert REGISTRY.stats_only == frozenset()


@pytest.mark.parametrize("flag", ["yes", 1, None, [True]])
def test_a_stats_only_mark_that_is_not_a_bool_names_the_card(flag):
    with pytest.raises(CardDataError) as info:
        entry = {"id": "x", "name": "X", "stats_only": flag}
        CardRegistry(CardSchema((TextField("name"),)), [entry], source="f.yaml")
    assert str(info.value).startswith(
        "f.yaml, card 'x', field 'stats_only': expected true or false"
    )


def test_each_stats_only_card_of_a_deck_is_named_unless_vanilla_play_is_allowed():
    deck = ["a-1", "b-1", "b-1", "c-1"]
    assert list(vanilla_problems("d.yaml", deck, MARKED, False)) == [
        "d.yaml: 1 card(s) whose effects imported.yaml does not implement (stats only): "
        "b-1 (Beta); pass allow_vanilla=True to play them without their effects"
    ]
    assert list(vanilla_problems("d.yaml", deck, MARKED, True)) == []
    assert list(vanilla_problems("d.yaml", ["a-1", "c-1"], MARKED, False)) == []
    with pytest.raises(ConfigError, match="d.yaml: allow_vanilla=1 must be True or False"):
        list(vanilla_problems("d.yaml", deck, MARKED, 1))


# --------------------------------------------------------------------------------------------------
# The decks option: one pair, or a list of pairs drawn per game


def test_one_pair_is_one_matchup_with_a_deck_per_seat():
    from tcgjax.core.decks import parse_matchups

    one = parse_matchups("g", ("x", "y"))
    assert (one.specs, one.pairs, one.option) == (("x", "y"), ((0, 1),), ["x", "y"])
    # A mirror keeps an entry per seat, so the pool's first two decks are the seats' decks.
    mirror = parse_matchups("g", ["x", "x"])
    assert (mirror.specs, mirror.pairs, mirror.option) == (("x", "x"), ((0, 1),), ["x", "x"])


def test_a_list_of_pairs_pools_each_distinct_deck_once_in_order_of_mention(tmp_path):
    from tcgjax.core.decks import parse_matchups

    mine = {"name": "m", "cards": {"a-1": 2}}
    path = tmp_path / "d.yaml"
    m = parse_matchups(
        "g", [["x", path], [dict(mine), "x"], [{"cards": {"a-1": 2}, "name": "m"}, "z"]]
    )
    assert m.specs == ("x", path, mine, "z")  # the two equal mappings are one deck
    assert m.pairs == ((0, 1), (2, 0), (2, 3))
    assert m.option == [["x", str(path)], [mine, "x"], [mine, "z"]]
    # A mirror within a list of pairs points both seats at one entry.
    assert parse_matchups("g", [["x", "y"], ["y", "y"]]).pairs == ((0, 1), (1, 1))


def test_matchup_names_use_a_shipped_id_else_the_decks_own_name():
    from types import SimpleNamespace

    from tcgjax.core.decks import parse_matchups

    m = parse_matchups("g", [["x", "file.yaml"], ["file.yaml", "x"]])
    decks = [SimpleNamespace(name="Deck X"), SimpleNamespace(name="My deck")]
    assert m.names(decks, shipped=("x",)) == ("x vs My deck", "My deck vs x")


@pytest.mark.parametrize(
    ("decks", "message"),
    [
        ("x", r"g: option decks='x' must be two decks \(one per seat\) or a list of such pairs"),
        ([], "must be two decks"),
        ({"x": "y"}, "must be two decks"),
        (["x"], r"decks\[0\]='x' must be a pair of decks"),
        (["x", "y", "z"], r"decks\[0\]='x' must be a pair of decks"),
        ([["x", "y"], ["x"]], r"decks\[1\]=\['x'\] must be a pair of decks"),
        ([["x", "y"], ["x", 3]], r"decks\[1\]=\['x', 3\] must be a pair of decks"),
        ([["x", "y"]] * 128, "128 pairs, at most 127"),
    ],
)
def test_a_malformed_decks_option_is_refused_naming_the_entry(decks, message):
    from tcgjax.core.decks import parse_matchups

    with pytest.raises(ConfigError, match=message):
        parse_matchups("g", decks)


def test_parsed_card_lines_and_list_formats_cannot_be_changed():
    # A game's list format is one shared constant, and a parsed line is checked once: changing
    # either later would bypass those checks.
    card = ListedCard(count=4, name="Agumon", code="ST1-03", section="", line=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.count = 5
    form = DeckListFormat(lines=(), sections={}, to_data=lambda source, cards: {}, example="")
    with pytest.raises(dataclasses.FrozenInstanceError):
        form.example = "4 Agumon ST1-03"


LIST_FORMAT = DeckListFormat(
    lines=(re.compile(r"^(?P<count>\d+)\s+(?P<name>.+?)\s+(?P<code>[A-Z]+-\d+)$"),),
    sections={"main": "main"},
    to_data=lambda source, cards: {"cards": {c.code: c.count for c in cards}},
    example="4 Agumon A-1",
)


def test_a_total_line_checks_the_cards_so_far_and_reading_goes_on_after_it():
    text = "Main: 4\n4 Agumon A-1\nTotal: 4\n2 Gabumon A-2\n"
    cards = read_deck_list(text, "<list>", LIST_FORMAT)
    assert [(c.count, c.code, c.section, c.line) for c in cards] == [
        (4, "A-1", "main", 2),
        (2, "A-2", "main", 4),
    ]


def test_the_accepted_forms_name_deck_lists_only_for_a_game_that_reads_them():
    with pytest.raises(ConfigError, match=r"a deck list \(\.txt file or text\)"):
        read_deck(3, "/nowhere", ("st1",), required=REQUIRED, deck_list=LIST_FORMAT)
    with pytest.raises(ConfigError) as info:
        read_deck(3, "/nowhere", ("st1",), required=REQUIRED)
    assert "deck list" not in str(info.value)


def test_the_most_matchups_an_env_takes_is_accepted():
    from tcgjax.core.decks import MAX_MATCHUPS, parse_matchups

    pairs = [[f"d{i}", f"d{i + 1}"] for i in range(MAX_MATCHUPS)]
    m = parse_matchups("g", pairs)
    assert len(m.pairs) == MAX_MATCHUPS == 127
    assert m.pairs[-1] == (MAX_MATCHUPS - 1, MAX_MATCHUPS)


def test_a_read_matchup_option_cannot_be_changed():
    # An env's matchup indices are baked into its jitted tables; changing the record later would
    # leave the names and the tables disagreeing.
    from tcgjax.core.decks import parse_matchups

    m = parse_matchups("g", ("x", "y"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.pairs = ((1, 0),)


def test_matchup_names_need_one_loaded_deck_per_spec():
    from types import SimpleNamespace

    from tcgjax.core.decks import parse_matchups

    m = parse_matchups("g", ("x", "y"))
    with pytest.raises(ValueError, match="zip"):
        m.names([SimpleNamespace(name="X")], shipped=("x", "y"))


def test_a_rules_objects_matchups_default_to_the_first_two_decks_and_are_checked():
    from tcgjax.core.decks import MAX_MATCHUPS, check_pairs

    assert check_pairs("g", None, 2) == ((0, 1),)
    assert check_pairs("g", [[1, 0], (2, 2)], 3) == ((1, 0), (2, 2))
    assert len(check_pairs("g", [(0, 1)] * MAX_MATCHUPS, 2)) == MAX_MATCHUPS
    for pairs, message in [
        ([], r"g: pairs: 1 to 127 matchups, got 0"),
        ([(0, 1)] * (MAX_MATCHUPS + 1), r"got 128"),
        ([(0, 1), (0, 2)], r"g: pairs\[1\] = \(0, 2\): two deck indices in \[0, 2\)"),
        ([(-1, 0)], r"pairs\[0\] = \(-1, 0\)"),
        ([(0, 1, 1)], r"pairs\[0\] = \(0, 1, 1\)"),
    ]:
        with pytest.raises(ConfigError, match=message):
            check_pairs("g", pairs, 2)
