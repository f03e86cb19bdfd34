"""Every text of the shipped pictures is whole and readable: measured with the font's widths
(``tcgjax.core.font_metrics``, DejaVu Sans, the first font the pictures name), no text box
overlaps another, none runs off the page or off its card, nothing drawn later covers one, and every
card name is drawn in full (split only at a space, or with a hyphen). The card-game pictures are
landscape and fit a 1280x800 screen with the viewer's hand visible.

The pictures checked: every stored snapshot of the games' picture tests (duel, Digimon, Pokémon,
deployment) and two crowded situations per card game (deep and suspended stacks, the longest
names, Energy on every Pokémon, damage, a full hand)."""

import glob
import os
import re
import xml.etree.ElementTree as ET

import jax.numpy as jnp
import pytest

import tcgjax
from tcgjax.core import render
from tcgjax.core.env import State

NS = "{http://www.w3.org/2000/svg}"
HERE = os.path.dirname(os.path.abspath(__file__))
SNAPSHOTS = sorted(glob.glob(os.path.join(HERE, "**", "pictures", "*.svg"), recursive=True))


def _state(game, step=7):
    return State(
        current_player=game.board.active_player.astype(jnp.int32),
        observation=jnp.zeros(1),
        legal_action_mask=jnp.zeros(1, bool),
        rewards=jnp.zeros(2),
        terminated=jnp.bool_(False),
        truncated=jnp.bool_(False),
        step_count=jnp.int32(step),
        error=jnp.int32(0),
        game=game,
    )


def _digimon_crowded(env):
    from tcgjax.games.digimon.scenario import build_state

    return build_state(
        env.rules, active=1, memory=-2, phase="main", turn=8,
        players=[
            {"field": [["ST1-01", "ST1-03", "ST1-07", "ST1-09", "ST1-11"], ["ST1-04", "ST1-06"],
                       ["ST1-12"], ["ST1-02", "ST1-05", "ST1-08", "ST1-10"]],
             "suspended": [0, 3], "breeding": ["ST1-01"], "trash": ["ST1-09", "ST1-16"],
             "hand": ["ST1-14", "ST1-15", "ST1-16", "ST1-13", "ST1-14", "ST1-03", "ST1-09",
                      "ST1-12", "ST1-04", "ST1-06", "ST1-08"],
             "security": ["ST1-02", "ST1-02", "ST1-03"]},
            {"field": [["ST2-01", "ST2-03", "ST2-06", "ST2-08", "ST2-11"],
                       ["ST2-02", "ST2-05", "ST2-09", "ST2-10"], ["ST2-12"], ["ST2-07"]],
             "suspended": [0, 1], "trash": ["ST2-16"],
             "hand": ["ST2-13", "ST2-14", "ST2-15", "ST2-16", "ST2-04", "ST2-08", "ST2-09"],
             "security": ["ST2-02", "ST2-04"]},
        ],
    )  # fmt: skip


def _pokemon_crowded(env):
    from tcgjax.games.pokemon.scenario import build_state

    return build_state(
        env.rules, active=0, turn=9,
        players=[
            {"slots": [["sv3-67", "sv3-68", "sv3-69", "sve-4", "sve-4", "sve-4", "sve-4", "sve-4"],
                       ["sv4-68", "sve-4", "sve-4"], ["sv5-58", "sv5-59", "sve-4"],
                       ["sv2-78", "sv6-74"], ["sv5-57"], ["sv4-60"]],
             "damage": {0: 120, 1: 60}, "discard": ["sv1-170", "sve-4"],
             "conditions": {"rotated": "paralyzed", "poisoned": True, "burned": True},
             "hand": ["sv1-170", "sve-4", "sve-4", "sve-4", "sv1-181", "sv2-183", "sv4-172",
                      "sv1-180", "sv1-175", "sv1-194", "sv1-198", "sv3-67"]},
            {"slots": [["sv3-154", "sv1-142", "swsh9-151", "swsh9-151", "sve-8"],
                       ["sv3-152", "svp-104", "sve-8", "sve-8", "sve-8", "sve-8", "sve-8"],
                       ["sv3-144", "sv3-145"], ["sv2-151"], ["sv4-136"]],
             "damage": {1: 200},
             "hand": ["sv3pt5-159", "sv1-188", "sv4-173", "sv4pt5-82", "swsh9-151", "sve-8",
                      "sv1-181"]},
        ],
    )  # fmt: skip


CROWDED = {"digimon": _digimon_crowded, "pokemon": _pokemon_crowded}


@pytest.fixture(scope="module", params=sorted(CROWDED))
def crowded(request):
    """(game, env, pictures for the omniscient view and both viewers)."""
    env = tcgjax.make(request.param)
    state = _state(CROWDED[request.param](env))
    return request.param, env, [env.render(state, viewer) for viewer in (None, 0, 1)]


# ---- the SVG as drawn: every shape and text in drawing order, <use> expanded


def _shapes(element, dx=0.0, dy=0.0):
    """(kind, box, element) of a shape or text in absolute coordinates."""
    tag = element.tag.removeprefix(NS)
    if tag == "rect" and element.get("x") is not None:
        x, y = float(element.get("x")) + dx, float(element.get("y")) + dy
        return "rect", (x, y, x + float(element.get("width")), y + float(element.get("height")))
    if tag == "circle":
        cx, cy, r = (float(element.get(k)) for k in ("cx", "cy", "r"))
        return "circle", (cx + dx - r, cy + dy - r, cx + dx + r, cy + dy + r)
    if tag == "text":
        box = render.text_box(
            float(element.get("x")) + dx, float(element.get("y")) + dy, element.text or "",
            float(element.get("font-size")), element.get("text-anchor", "start"),
            element.get("font-weight", "normal"),
        )  # fmt: skip
        return "text", box
    return None


def drawing(svg: str):
    """The picture's drawing list: dicts with ``kind`` (rect, circle, text), ``box``, ``text``,
    ``cls``, ``card`` (for a card symbol's parts: the card's box), in drawing order."""
    root = ET.fromstring(svg)
    symbols = {s.get("id"): s for s in root.iter(f"{NS}symbol")}
    out = []
    for element in root:
        tag = element.tag.removeprefix(NS)
        if tag in ("defs", "title"):
            continue
        if tag == "use":
            symbol = symbols[element.get("href").removeprefix("#")]
            x, y = float(element.get("x")), float(element.get("y"))
            w, h = float(symbol.get("width")), float(symbol.get("height"))
            card, first = (x, y, x + w, y + h), len(out)
            for part in symbol:
                shape = _shapes(part, x, y)
                if shape:
                    out.append(dict(kind=shape[0], box=shape[1], text=part.text,
                                    cls=part.get("class"), card=card, first=first))  # fmt: skip
            continue
        shape = _shapes(element)
        if shape:
            out.append(dict(kind=shape[0], box=shape[1], text=element.text,
                            cls=element.get("class"), card=None, first=len(out)))  # fmt: skip
    return root, out


def _overlap(a, b, slack=0.3):
    return (
        a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack
    )


def _inside(a, b, slack=0.3):
    return (
        a[0] >= b[0] - slack
        and a[1] >= b[1] - slack
        and a[2] <= b[2] + slack
        and a[3] <= b[3] + slack
    )


def text_defects(svg: str) -> list[str]:
    """Every way a text of ``svg`` is unreadable: off the page, off its card, overlapping another
    text, covered by a shape drawn after it, or straddling the edge of one drawn before it."""
    root, items = drawing(svg)
    page = (0.0, 0.0, float(root.get("width")), float(root.get("height")))
    defects = []
    texts = [(k, item) for k, item in enumerate(items) if item["kind"] == "text"]
    for k, item in texts:
        label = repr(item["text"])
        if not _inside(item["box"], page):
            defects.append(f"{label} runs off the page: {item['box']}")
        if item["card"] is not None and not _inside(item["box"], item["card"]):
            defects.append(f"{label} runs off its card: {item['box']} vs {item['card']}")
        for j, other in texts:
            if j > k and _overlap(item["box"], other["box"]):
                defects.append(f"{label} overlaps {other['text']!r}")
        # What was drawn before the text's own card lies under that card (opaque), unseen.
        for other in items[: item["first"]] if item["card"] is None else ():
            if other["kind"] != "text":
                if _overlap(item["box"], other["box"]) and not _inside(item["box"], other["box"]):
                    defects.append(f"{label} straddles the edge of a {other['kind']}")
        for other in items[k + 1 :]:
            if other["kind"] != "text" and _overlap(item["box"], other["box"]):
                if other["card"] is not None and other["card"] == item["card"]:
                    continue  # the text's own card (drawn under it within its symbol)
                defects.append(f"{label} is covered by a {other['kind']} at {other['box']}")
    return defects


def names_drawn(svg: str) -> list[str]:
    """The card names as drawn: each card symbol's name lines joined (a line ending in a hyphen
    joins the next without a space)."""
    root = ET.fromstring(svg)
    names = []
    for symbol in root.iter(f"{NS}symbol"):
        lines = [t.text for t in symbol if t.get("class") == "name"]
        if lines:
            joined = ""
            for line in lines:
                joined += line[:-1] if line.endswith("-") else line + " "
            names.append(joined.strip())
    return names


# ---- the checks


def test_the_checker_finds_overlaps_overflows_and_covered_text():
    """The checker itself, on pictures made to fail each way."""
    svg = render.Svg(200, 100)
    svg.text(10, 20, "first label", size=12)
    svg.text(30, 22, "second", size=12)  # overlaps the first
    svg.text(190, 60, "off the page", size=12)
    svg.text(10, 90, "covered", size=12)
    svg.rect(5, 80, 40, 15, fill="#fff")
    svg.rect(100, 10, 30, 30, fill="#fff")
    svg.text(90, 30, "astride", size=12)  # on the rect's left edge
    defects = text_defects(svg.to_string())
    assert any("'first label' overlaps 'second'" in d for d in defects)
    assert any("'off the page' runs off the page" in d for d in defects)
    assert any("'covered' is covered by a rect" in d for d in defects)
    assert any("'astride' straddles the edge of a rect" in d for d in defects)
    card = render.Svg(200, 200)
    card.define(
        "c",
        40,
        40,
        lambda s: (s.rect(0, 0, 40, 40, fill="#fff"), s.text(2, 12, "a long name", size=10)),
    )
    card.use("c", 10, 10, 40, 40)
    assert any("runs off its card" in d for d in text_defects(card.to_string()))
    assert len(text_defects(render.Svg(10, 10).to_string())) == 0


@pytest.mark.parametrize("path", SNAPSHOTS, ids=lambda p: os.path.relpath(p, HERE))
def test_the_snapshot_pictures_have_no_text_defects(path):
    with open(path, encoding="utf-8") as fh:
        svg = fh.read()
    assert text_defects(svg) == []


def test_crowded_pictures_have_no_text_defects_and_every_name_whole(crowded):
    game, env, pictures = crowded
    registry = env.board_layout.cards
    known = {registry.definition(i)["name"] for i in registry.ids if i}
    for picture in pictures:
        assert text_defects(picture.svg) == []
        drawn = names_drawn(picture.svg)
        assert drawn and set(drawn) <= known, set(drawn) - known


def test_card_pictures_are_landscape_within_1280_by_800_with_the_viewers_hand_on_screen(crowded):
    game, env, pictures = crowded
    for viewer, picture in zip((None, 0, 1), pictures, strict=True):
        root, items = drawing(picture.svg)
        width, height = float(root.get("width")), float(root.get("height"))
        assert width <= 1280 and height <= 800 and width > height, (game, viewer, width, height)
        hand = [
            i for i in items if i["kind"] == "text" and re.fullmatch(r"hand \(\d+\)", i["text"])
        ]
        bottom = max(hand, key=lambda i: i["box"][1])  # the viewer's (player 1's) hand label
        cards_below = [i for i in items if i["cls"] == "name" and i["box"][1] > bottom["box"][1]]
        assert cards_below and all(i["box"][3] <= 800 for i in cards_below)


def test_a_suspended_digimon_lies_sideways():
    env = tcgjax.make("digimon")
    picture = env.render(_state(_digimon_crowded(env)))
    root, items = drawing(picture.svg)
    sizes = [
        (round(c[2] - c[0]), round(c[3] - c[1])) for c in {i["card"] for i in items if i["card"]}
    ]
    turned = [s for s in sizes if s == (render.CARD_H, render.CARD_W)]
    upright = [s for s in sizes if s == (render.CARD_W, render.CARD_H)]
    # Two suspended Digimon per player (slots 1 and 4 of player 1, 1 and 2 of player 2).
    assert len(turned) == 4 and upright
