"""Pictures of one game: SVG for notebooks, pages and replays, text for terminals and test failures.

Rendering is host-side (NumPy on one concrete game, never traced) and read-only. Every game
implements ``Env._picture(state, viewer)``; ``Env.render(state, viewer=None)`` checks its
arguments and returns a :class:`Picture` (``.svg``, ``.text``; it displays itself in a notebook).
``viewer`` is a player index, whose side is drawn at the bottom and who sees only what the
visibility module lets them see (hidden cards face down, counts kept), or ``None`` for the
omniscient view (everything face up, player 1 at the bottom).

What the card games share lives here, written once: :class:`Svg` (a tiny SVG writer with escaped
text), and :func:`card_board_picture`, which draws a ``Board`` as two player sides of zone rows
(:class:`ZoneView`: a pile shows its top card and its count, a row lays its cards side by side, a
stack overlaps them bottom to top) and writes the same description as text. A game supplies only
which zones go where, how a card is labelled, and its header lines (memory, prizes, life...).

Every game's text starts with its title line, then its status line (:func:`status_line`: who
acts, or how the game ended and why); the replay viewer shows that line for each position.

A ``State`` displays itself in a notebook through :func:`display_env`: each env registers itself
for its game's state type when it is made; a state is drawn by the env registered for its type
if all such envs alive are configured alike (same ``repr``), else it falls back to its text
``repr`` (call ``env.render(state)`` then).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import math
import os
import re
import weakref
from collections.abc import Callable, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import jax
import numpy as np

from tcgjax.core import font_metrics
from tcgjax.core.visibility import visible_mask

__all__ = [
    "Picture",
    "Svg",
    "CardFace",
    "Badge",
    "ZoneView",
    "SideView",
    "card_board_picture",
    "grid_picture",
    "register_display",
    "display_env",
    "card_definition",
    "status_line",
    "selection_lines",
    "host_jit",
    "PLAYER_COLORS",
    "PAGE_COLOR",
    "PLAYER_STROKES",
    "FONT_FAMILY",
    "text_width",
    "text_box",
    "fit_text",
]

#: The page behind every picture (SVG and rasterized).
PAGE_COLOR = "#fbfbf8"
#: Fill of each player's side and units, and their darker outlines (player 1, player 2).
PLAYER_COLORS = ("#dbe8f7", "#f7dcdc")
PLAYER_STROKES = ("#2f5f9e", "#9e2f2f")

#: The fonts the pictures name, widest first: text is laid out with DejaVu Sans's widths
#: (:mod:`tcgjax.core.font_metrics`), so it fits where a narrower fallback is drawn.
FONT_FAMILY = "DejaVu Sans, Arial, Helvetica, sans-serif"


def text_width(content: str, size: float, weight: str = "normal") -> float:
    """The advance width of ``content`` at font ``size`` (pixels) in DejaVu Sans (no kerning,
    which only narrows it); a character the table lacks counts as the widest."""
    table = font_metrics.ADVANCE["bold" if weight == "bold" else "normal"]
    return size * sum(table.get(char, font_metrics.WIDEST) for char in content)


def text_box(
    x: float, y: float, content: str, size: float, anchor: str = "start", weight: str = "normal"
) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)``: the box an SVG ``<text>`` at ``(x, y)`` (its baseline) covers."""
    width = text_width(content, size, weight)
    x0 = x - {"start": 0.0, "middle": width / 2, "end": width}[anchor]
    return x0, y - font_metrics.ASCENT * size, x0 + width, y + font_metrics.DESCENT * size


def fit_text(
    content: str,
    width: float,
    *,
    size: float,
    lines: int,
    min_size: float,
    weight: str = "normal",
) -> tuple[list[str], float]:
    """``content`` wrapped at its spaces into at most ``lines`` lines no wider than ``width``,
    at the largest font size from ``size`` down to ``min_size`` (half-pixel steps) that allows
    it. Nothing is cut: where even ``min_size`` does not fit, a word too long for a line is split
    with a hyphen and the lines may exceed ``lines`` (the caller makes room). Returns the lines
    and the size."""
    current = size
    while current >= min_size:
        wrapped = _wrap_measured(content, width, current, weight, split_words=False)
        if wrapped is not None and len(wrapped) <= lines:
            return wrapped, current
        current -= 0.5
    return _wrap_measured(content, width, min_size, weight, split_words=True), min_size


def _wrap_measured(
    content: str, width: float, size: float, weight: str, *, split_words: bool
) -> list[str] | None:
    out: list[str] = []
    line = ""
    for word in content.split():
        candidate = f"{line} {word}" if line else word
        if text_width(candidate, size, weight) <= width:
            line = candidate
            continue
        if line:
            out.append(line)
        while text_width(word, size, weight) > width:
            if not split_words:
                return None
            cut = 1
            while cut + 1 < len(word) and _fits(word[: cut + 1] + "-", width, size, weight):
                cut += 1
            out.append(word[:cut] + "-")
            word = word[cut:]
        line = word
    if line:
        out.append(line)
    return out


def _fits(content: str, width: float, size: float, weight: str) -> bool:
    return text_width(content, size, weight) <= width


CARD_W, CARD_H = 72, 100
GAP = 8
STRIP = 14  # how much of each card under a stack's top shows (at least: a long name takes more)
LABEL_H = 14
LINE_H = 16
BADGE_R = 7
#: The widest picture a card game draws (it fits a 1280-pixel screen): rows longer than this wrap.
MAX_WIDTH = 1280
MIN_WIDTH = 900


@dataclasses.dataclass(frozen=True)
class Picture:
    """One game drawn two ways. ``svg``: a standalone SVG document; ``text``: plain lines.

    Displays as SVG in Jupyter and Colab; ``str(picture)`` is the text."""

    svg: str
    text: str

    def _repr_svg_(self) -> str:
        return self.svg

    def __str__(self) -> str:
        return self.text

    def rgb(self, size: tuple[int, int] | None = None) -> np.ndarray:
        """The SVG rasterized (resvg, through the ``resvg-py`` package of the ``ecosystem`` extra)
        into ``uint8[H, W, 3]``.

        ``size``: ``(H, W)`` of the result: the picture is scaled down to fit it if larger
        (keeping its proportions) and placed top-left on the page colour; default its own size.
        """
        try:
            import resvg_py
        except ImportError as exc:
            raise ImportError(
                "Picture.rgb needs resvg-py (pip install 'tcgjax[ecosystem]')"
            ) from exc
        from PIL import Image

        match = _SIZE.search(self.svg)
        width, height = (float(match.group(1)), float(match.group(2))) if match else (0.0, 0.0)
        zoom = 1.0
        if size is not None and width and height:
            zoom = min(1.0, size[1] / width, size[0] / height)
        png = resvg_py.svg_to_bytes(svg_string=self.svg, background=PAGE_COLOR, zoom=zoom)
        image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
        if size is None:
            return image
        page = np.empty((*size, 3), np.uint8)
        page[:] = [int(PAGE_COLOR[i : i + 2], 16) for i in (1, 3, 5)]
        h, w = min(size[0], image.shape[0]), min(size[1], image.shape[1])
        page[:h, :w] = image[:h, :w]
        return page

    def save(self, path: str | os.PathLike) -> None:
        """Writes the SVG (suffix ``.svg``, any case) or the text (any other suffix) to ``path``."""
        body = self.svg if os.fspath(path).lower().endswith(".svg") else self.text + "\n"
        with open(path, "w", encoding="utf-8") as f:
            f.write(body)


_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([0-9.]+)"[^>]*?\bheight="([0-9.]+)"')


def grid_picture(pictures: Sequence[Picture], columns: int, labels: Sequence[str]) -> Picture:
    """Many games in one picture, ``columns`` to a row in reading order (Pgx's batch pictures):
    each game's SVG nested at its place, each text after its ``label`` line."""
    if not pictures:
        raise ValueError("grid_picture: no pictures")
    sizes = []
    for picture in pictures:
        match = _SIZE.search(picture.svg)
        if match is None:
            raise ValueError("grid_picture: an SVG without a width and height")
        sizes.append((float(match.group(1)), float(match.group(2))))
    cell_w = max(w for w, _ in sizes)
    cell_h = max(h for _, h in sizes)
    gap = 8.0
    rows = -(-len(pictures) // columns)
    width = columns * cell_w + (columns - 1) * gap
    height = rows * cell_h + (rows - 1) * gap
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
        f'viewBox="0 0 {width:g} {height:g}">'
    ]
    for i, picture in enumerate(pictures):
        x, y = (i % columns) * (cell_w + gap), (i // columns) * (cell_h + gap)
        body = picture.svg.replace("<svg ", f'<svg x="{x:g}" y="{y:g}" ', 1)
        parts.append(body[body.index("<svg ") :].strip())
    parts.append("</svg>")
    text = "\n\n".join(
        f"{label}\n{picture.text}" for label, picture in zip(labels, pictures, strict=True)
    )
    return Picture(svg="\n".join(parts) + "\n", text=text)


class Svg:
    """A small SVG writer: shapes in drawing order, text escaped, numbers rounded."""

    def __init__(self, width: float, height: float, *, title: str = ""):
        self.width, self.height = width, height
        self._parts: list[str] = []
        self._defs: dict[str, str] = {}
        if title:
            self._parts.append(f"<title>{escape(title)}</title>")

    @staticmethod
    def _attrs(**attrs: Any) -> str:
        out = []
        for name, value in attrs.items():
            if value is None:
                continue
            if isinstance(value, float):
                value = f"{value:.1f}"
            out.append(f"{name.rstrip('_').replace('_', '-')}={quoteattr(str(value))}")
        return " ".join(out)

    def rect(self, x, y, w, h, *, fill, stroke="#444", rx=4, stroke_width=1, class_=None, tip=""):
        self._element(
            "rect",
            tip,
            x=float(x),
            y=float(y),
            width=float(w),
            height=float(h),
            rx=rx,
            fill=fill,
            stroke=stroke,
            stroke_width=stroke_width,
            class_=class_,
        )

    def polygon(self, points: Sequence[tuple[float, float]], *, fill, stroke="#444", tip=""):
        joined = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        self._element("polygon", tip, points=joined, fill=fill, stroke=stroke)

    def circle(self, cx, cy, r, *, fill, stroke="#444", tip=""):
        self._element(
            "circle", tip, cx=float(cx), cy=float(cy), r=float(r), fill=fill, stroke=stroke
        )

    def line(self, x1, y1, x2, y2, *, stroke="#444", stroke_width=1):
        self._element(
            "line",
            "",
            x1=float(x1),
            y1=float(y1),
            x2=float(x2),
            y2=float(y2),
            stroke=stroke,
            stroke_width=stroke_width,
        )

    def text(
        self,
        x,
        y,
        content: str,
        *,
        size: float,
        anchor="start",
        weight="normal",
        fill="#111",
        class_=None,
    ):
        attrs = self._attrs(
            x=float(x),
            y=float(y),
            font_size=size,
            text_anchor=anchor,
            font_weight=weight,
            fill=fill,
            font_family=FONT_FAMILY,
            class_=class_,
        )
        self._parts.append(f"<text {attrs}>{escape(content)}</text>")

    def define(self, ident: str, width: float, height: float, draw: Callable[[Svg], None]) -> None:
        """A shape drawn once (``<symbol id=ident>``, ``width`` x ``height``) and placed by
        :meth:`use` wherever it recurs (the same card face in many places and positions); the
        replay page keeps one copy of each for all its positions."""
        if ident in self._defs:
            return
        inner = Svg(width, height)
        draw(inner)
        box = f"0 0 {width:g} {height:g}"
        self._defs[ident] = (
            f'<symbol id="{ident}" viewBox="{box}" width="{width:g}" height="{height:g}">'
            + "".join(inner._parts)
            + "</symbol>"
        )

    def use(self, ident: str, x, y, width, height, *, tip: str = "", name: str = "") -> None:
        """Places the symbol ``ident`` (:meth:`define`) with its top-left corner at ``(x, y)``;
        ``name``: the card's name, as ``data-name`` (``tcgjax serve`` offers the moves that name
        the card clicked)."""
        self._element(
            "use",
            tip,
            href=f"#{ident}",
            x=float(x),
            y=float(y),
            width=width,
            height=height,
            data_name=name or None,
        )

    def _element(self, tag: str, tip: str, **attrs: Any) -> None:
        if tip:
            self._parts.append(
                f"<{tag} {self._attrs(**attrs)}><title>{escape(tip)}</title></{tag}>"
            )
        else:
            self._parts.append(f"<{tag} {self._attrs(**attrs)}/>")

    def to_string(self) -> str:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width:.0f}" '
            f'height="{self.height:.0f}" viewBox="0 0 {self.width:.0f} {self.height:.0f}">'
        )
        background = f'<rect width="100%" height="100%" fill="{PAGE_COLOR}"/>'
        defs = ["<defs>", *self._defs.values(), "</defs>"] if self._defs else []
        return "\n".join([head, *defs, background, *self._parts, "</svg>"])


# -------------------------------------------------------------------------------------------------
# Card games: a Board as two sides of zone rows


@dataclasses.dataclass(frozen=True)
class CardFace:
    """What a face-up card shows: ``name``; ``stats``, a short line (number, cost, level, HP);
    ``color``, its fill (the card's colour or type); ``tip``, the text shown on hover (the whole
    card: attacks with their costs, effects)."""

    name: str
    stats: str = ""
    color: str = "#ffffff"
    tip: str = ""


@dataclasses.dataclass(frozen=True)
class Badge:
    """A round marker under a stack, e.g. an attached Energy: ``text`` (a letter or two) in
    ``ink`` on ``fill``, ``tip`` on hover."""

    text: str
    fill: str
    tip: str = ""
    ink: str = "#ffffff"


@dataclasses.dataclass(frozen=True)
class ZoneView:
    """How one zone is drawn. ``style``: ``"pile"`` (its top card, face up only if the viewer sees
    it; the count is in the label), ``"row"`` (every card side by side, wrapping into more lines
    where the row is full), ``"stack"`` (cards overlapped, bottom first, the top card whole: a
    Digimon or a Pokémon with what is under it). ``note``: a line under the zone (DP, HP left...);
    ``hide_empty``: leave the zone out while it holds no card (the unused battle-area slots);
    ``lead``: for a stack whose top by position is not its identity, the card drawn on top (-1:
    the top by position); ``turned``: the top card lies sideways (a suspended Digimon);
    ``drawn_as_badges``: cards of the zone drawn as ``badges`` under the stack instead of as cards
    (a Pokémon's Energy); ``counter``: a marker on the top card (a Pokémon's damage)."""

    zone: int
    label: str
    style: str = "row"
    note: str = ""
    hide_empty: bool = False
    lead: int = -1
    turned: bool = False
    drawn_as_badges: tuple[int, ...] = ()
    badges: tuple[Badge, ...] = ()
    counter: str = ""

    def __post_init__(self):
        if self.style not in ("pile", "row", "stack"):
            raise ValueError(f"ZoneView {self.label!r}: style {self.style!r} is not pile/row/stack")


@dataclasses.dataclass(frozen=True)
class SideView:
    """One player's side: rows of zones, the first row nearest the middle of the table, and a
    summary line (life, memory, prizes left...)."""

    player: int
    rows: tuple[tuple[ZoneView, ...], ...]
    summary: str = ""


def card_definition(layout: Any, board: Any, card: int) -> Any:
    """The card data row (a mapping: name, stats) of card instance ``card``."""
    registry = layout.cards
    return registry.definition(registry.ids[int(board.definition[card])])


def status_line(state: Any, winner: int, end_reason: str, num_players: int = 2) -> str:
    """Who acts, or how the game ended: ``winner`` -1 while it goes on, ``num_players`` a draw."""
    steps = f"step {int(state.step_count)}"
    if bool(state.terminated):
        who = "a draw" if winner == num_players else f"player {winner + 1} won"
        return f"game over: {who} ({end_reason}); {steps}"
    if bool(state.truncated):
        return f"truncated at the step limit; {steps}"
    return f"player {int(state.current_player) + 1} to act; {steps}"


def selection_lines(layout: Any, board: Any, selection: Any) -> list[str]:
    """The header line of a pending choice (the core ``Selection`` record): the card whose effect
    waits and how many choices are left; no line when nothing is pending."""
    if int(selection.card) < 0:
        return []
    name = card_definition(layout, board, int(selection.card))["name"]
    return [f"choosing for {name}: {int(selection.left)} choice(s) left"]


@functools.lru_cache(maxsize=16)
def host_jit(fn: Callable) -> Callable:
    """``jax.jit(fn)`` made once per function (a bound rules method, e.g. the derived facts a
    picture shows), so rendering many positions compiles it once."""
    return jax.jit(fn)


def _zone_cards(board: Any, view: ZoneView) -> np.ndarray:
    """Card indices in the view's zone, bottom (position 0) to top, its ``lead`` card last."""
    cards = np.flatnonzero(np.asarray(board.zone) == view.zone)
    cards = cards[np.argsort(np.asarray(board.position)[cards], kind="stable")]
    if view.lead >= 0 and view.lead in cards:
        cards = np.append(cards[cards != view.lead], view.lead)
    return cards


# A card face is one <symbol>, defined once per picture (and once per replay page) and placed by
# <use>: "full" (name at the top, stats at the bottom), "turned" (the same, sideways) or "strip"
# (a card under a stack: only its name shows, in the strip the card above leaves).
NAME_SIZE, STATS_SIZE, LINE_SPACING = 10.0, 8.5, 1.2


def _face_lines(face: CardFace, width: float, turned: bool):
    lines = 2 if turned else 3
    name = fit_text(face.name, width - 6, size=NAME_SIZE, lines=lines, min_size=6.5, weight="bold")
    stats = fit_text(face.stats, width - 6, size=STATS_SIZE, lines=lines, min_size=6.0)
    return name, stats


def _strip_lines(face: CardFace) -> tuple[list[str], float, float]:
    """The name of a covered card in its strip: the lines, their size and the strip's height."""
    lines, size = fit_text(face.name, CARD_W - 6, size=9.0, lines=1, min_size=6.0, weight="bold")
    bottom = 3 + font_metrics.ASCENT * size + (len(lines) - 1) * LINE_SPACING * size
    return lines, size, max(float(STRIP), bottom + font_metrics.DESCENT * size + 2)


def _face_symbol(
    svg: Svg, face: CardFace | None, stroke: str, variant: str
) -> tuple[str, int, int]:
    """Defines the symbol of ``face`` (``None``: the back of a card) as ``variant``; returns its
    id and size."""
    width, height = (CARD_H, CARD_W) if variant == "turned" else (CARD_W, CARD_H)
    if variant == "strip" and face is not None:
        # Only the strip shows (and a margin the card above covers): a card under a sideways
        # top card, which is shorter, does not stick out below it.
        height = math.ceil(_strip_lines(face)[2]) + 6
    if face is None:
        ident = "back"

        def draw(inner: Svg) -> None:
            inner.rect(0.5, 0.5, width - 1, height - 1, fill="#5b6b8c", stroke="#2b3450")
            inner.rect(6, 6, width - 12, height - 12, fill="none", stroke="#c9d2e6", rx=3)

        svg.define(ident, width, height, draw)
        return ident, width, height
    key = repr((face.name, face.stats, face.color, face.tip, stroke, variant))
    ident = "card-" + hashlib.sha1(key.encode()).hexdigest()[:10]

    def draw(inner: Svg) -> None:
        # The symbol carries the card's hover text too: the replay page keeps the symbols once
        # and drops each placement's own copy.
        inner._parts.append(f"<title>{escape(_face_tip(face))}</title>")
        inner.rect(0.5, 0.5, width - 1, height - 1, fill=face.color, stroke=stroke, class_="card")
        if variant == "strip":
            lines, size, _ = _strip_lines(face)
            for k, line in enumerate(lines):
                y = 3 + font_metrics.ASCENT * size + k * LINE_SPACING * size
                inner.text(3, y, line, size=size, weight="bold", class_="name")
            return
        (names, name_size), (stats, stats_size) = _face_lines(face, width, variant == "turned")
        for k, line in enumerate(names):
            y = 4 + font_metrics.ASCENT * name_size + k * LINE_SPACING * name_size
            inner.text(3, y, line, size=name_size, weight="bold", class_="name")
        last = height - 4 - font_metrics.DESCENT * stats_size
        for k, line in enumerate(stats):
            y = last - (len(stats) - 1 - k) * LINE_SPACING * stats_size
            inner.text(3, y, line, size=stats_size, fill="#333", class_="stats")

    svg.define(ident, width, height, draw)
    return ident, width, height


def _face_tip(face: CardFace) -> str:
    return face.tip or f"{face.name} {face.stats}".strip()


@dataclasses.dataclass
class _Column:
    """One zone placed: its label, its cards (symbol placements), badges, note and counter."""

    view: ZoneView
    cards: np.ndarray
    width: float = 0.0
    height: float = 0.0
    x: float = 0.0
    y: float = 0.0
    # (card, x, y, variant) relative to the column's content origin (under the label)
    placed: list = dataclasses.field(default_factory=list)
    content_w: float = 0.0
    content_h: float = 0.0
    note_lines: tuple = ((), 10.0)


def _plan_column(view, cards, faces, per_line: int) -> _Column:
    """Where the zone's cards go (:class:`_Column`), before it is placed on the page."""
    col = _Column(view, cards)
    drawn = [int(c) for c in cards if int(c) not in view.drawn_as_badges]
    if not drawn:
        col.content_w, col.content_h = CARD_W, CARD_H
    elif view.style == "pile":
        col.placed = [(drawn[-1], 0.0, 0.0, "full")]
        col.content_w, col.content_h = CARD_W, CARD_H
    elif view.style == "row":
        per_line = max(1, per_line)
        for k, card in enumerate(drawn):
            col.placed.append(
                (card, (k % per_line) * (CARD_W + 4.0), (k // per_line) * (CARD_H + 4.0), "full")
            )
        columns, lines = min(len(drawn), per_line), -(-len(drawn) // per_line)
        col.content_w = columns * (CARD_W + 4.0) - 4.0
        col.content_h = lines * (CARD_H + 4.0) - 4.0
    else:
        y = 0.0
        for card in drawn[:-1]:
            col.placed.append((card, 0.0, y, "strip"))
            face = faces(card)
            y += STRIP if face is None else _strip_lines(face)[2]
        top = "turned" if view.turned else "full"
        col.placed.append((drawn[-1], 0.0, y, top))
        col.content_w = CARD_H if view.turned else CARD_W
        col.content_h = y + (CARD_W if view.turned else CARD_H)
    label_w = text_width(f"{view.label} ({len(cards)})", 10)
    col.width = max(col.content_w, label_w)
    if view.note:
        note_w = max(col.width, min(text_width(view.note, 10, "bold"), 150.0))
        col.note_lines = fit_text(view.note, note_w, size=10, lines=2, min_size=8, weight="bold")
        col.width = max(
            col.width,
            max(text_width(line, col.note_lines[1], "bold") for line in col.note_lines[0]),
        )
    per_badge_row = max(1, int((col.width + 3) // (2 * BADGE_R + 3)))
    badge_rows = -(-len(view.badges) // per_badge_row)
    note_h = len(col.note_lines[0]) * LINE_SPACING * col.note_lines[1] + 4 if view.note else 0
    col.height = LABEL_H + col.content_h + badge_rows * (2 * BADGE_R + 3) + note_h
    return col


def card_board_picture(
    layout: Any,
    board: Any,
    viewer: int | None,
    *,
    title: str,
    header: Sequence[str],
    sides: Sequence[SideView],
    card_label: Callable[[int], CardFace | tuple[str, str]],
    shared: Sequence[ZoneView] = (),
) -> Picture:
    """A card game's picture from its ``Board`` (host arrays of one game): landscape, at most
    :data:`MAX_WIDTH` wide, the viewer's side (hand last) at the bottom.

    Args:
      layout: the env's ``BoardLayout`` (zone visibility, for face-down cards).
      board: the game's ``Board``, concrete (NumPy or JAX arrays of one game).
      viewer: the player whose view is drawn (their side at the bottom), or ``None`` (all face up).
      title: first header line (game, turn, phase).
      header: further header lines (the memory gauge, the result...).
      sides: one :class:`SideView` per player (order free; the viewer's goes at the bottom).
      card_label: card index -> :class:`CardFace` (or ``(name, stats)``) for a face-up card.
      shared: zones that belong to no player (drawn at the right of the header; hidden when
        empty).

    Returns:
      a :class:`Picture`.
    """
    board = jax.tree.map(np.asarray, board)
    if viewer is None:
        visible = np.ones(board.zone.shape, bool)
    else:
        visible = np.asarray(visible_mask(layout, board, viewer))
    bottom = 0 if viewer is None else viewer
    ordered = sorted(sides, key=lambda side: side.player == bottom)  # the viewer's side last

    @functools.cache
    def face_of(card: int) -> CardFace:
        got = card_label(card)
        return got if isinstance(got, CardFace) else CardFace(*got)

    def faces(card: int) -> CardFace | None:
        return face_of(card) if visible[card] else None

    def card_text(card: int) -> str:
        if not visible[card]:
            return "(face down)"
        face = face_of(card)
        return f"{face.name} ({face.stats})" if face.stats else face.name

    inner = MAX_WIDTH - 2 * GAP

    def plan_row(row) -> list[_Column]:
        views = [(v, _zone_cards(board, v)) for v in row]
        views = [(v, c) for v, c in views if not (v.hide_empty and len(c) == 0)]
        fixed = [_plan_column(v, c, faces, 1) for v, c in views if v.style != "row"]
        rows_n = sum(v.style == "row" for v, _ in views)
        share = (inner - sum(c.width for c in fixed) - 2 * GAP * (len(views) - 1)) / max(rows_n, 1)
        per_line = int((share + 4) // (CARD_W + 4))
        return [
            _plan_column(v, c, faces, per_line) if v.style == "row" else fixed.pop(0)
            for v, c in views
        ]

    def place_row(columns: list[_Column], x: float, y: float) -> float:
        """Places the columns left to right from ``(x, y)``; returns the row's height."""
        for col in columns:
            col.x, col.y = x, y
            x += col.width + 2 * GAP
        return max((c.height for c in columns), default=0.0)

    # ---- header: the title and lines at the left, the shared zones at the right
    shared_cols = plan_row(shared)
    shared_w = sum(c.width for c in shared_cols) + 2 * GAP * len(shared_cols)
    text_w = inner - shared_w
    header_lines = [(title, 14.0, "bold")]
    for line in header:
        wrapped, size = fit_text(line, text_w, size=12, lines=2, min_size=9)
        header_lines += [(part, size, "normal") for part in wrapped]
    # Each baseline one line's descent, a 2-pixel lead and the next line's ascent below the last.
    header_ys, line_y, descent = [], GAP, 0.0
    for _, size, _ in header_lines:
        line_y += descent + 2 + font_metrics.ASCENT * size
        header_ys.append(line_y)
        descent = font_metrics.DESCENT * size
    header_h = line_y + descent - GAP
    shared_h = place_row(shared_cols, 0.0, GAP) if shared_cols else 0.0
    y = GAP + max(header_h, shared_h) + GAP

    bands, all_columns = [], []
    for i, side in enumerate(ordered):
        start = y
        y += LINE_H + 4
        # The side at the top shows its rows from the table's edge inwards, as seen across it.
        rows = side.rows if i == len(ordered) - 1 else tuple(reversed(side.rows))
        for row in rows:
            columns = plan_row(row)
            if not columns:
                continue
            y += place_row(columns, GAP, y) + GAP
            all_columns += [(col, side.player) for col in columns]
        bands.append((start, y, side.player, side.summary))
        y += GAP
    width = max(
        [MIN_WIDTH]
        + [col.x + col.width + GAP for col, _ in all_columns]
        + [GAP + text_width(t, size, w) + GAP + shared_w for t, size, w in header_lines]
    )
    # The shared zones sit at the right edge of the header.
    x = width - GAP - shared_w + 2 * GAP
    for col in shared_cols:
        col.x = x
        x += col.width + 2 * GAP
    all_columns += [(col, None) for col in shared_cols]

    svg = Svg(width, y + GAP, title=title)
    for (text, size, weight), line_y in zip(header_lines, header_ys, strict=True):
        svg.text(GAP, line_y, text, size=size, weight=weight)
    for y0, y1, player, summary in bands:
        svg.rect(2, y0, width - 4, y1 - y0, fill=PLAYER_COLORS[player], stroke="none", rx=8)
        name = f"player {player + 1}" + (" (viewer)" if viewer == player else "")
        svg.text(GAP, y0 + 14, f"{name}: {summary}" if summary else name, size=12, weight="bold")
    for col, player in all_columns:
        _draw_column(svg, col, faces, player)

    # ---- text
    lines = [title, *header]
    for side in reversed(ordered):  # the viewer's side first in text
        name = f"player {side.player + 1}" + (" (viewer)" if viewer == side.player else "")
        lines.append(f"--- {name}: {side.summary}".rstrip(": "))
        for row in side.rows:
            for view in row:
                cards = _zone_cards(board, view)
                if view.hide_empty and len(cards) == 0:
                    continue
                lines.append(_zone_text(view, cards, visible, card_text))
    shown = [v for v in shared if len(_zone_cards(board, v))]
    if shown:
        lines.append("--- shared")
        lines += [_zone_text(v, _zone_cards(board, v), visible, card_text) for v in shown]
    return Picture(svg=svg.to_string(), text="\n".join(lines))


def _zone_text(view: ZoneView, cards, visible, card_text) -> str:
    head = f"  {view.label} ({len(cards)})"
    if len(cards) == 0:
        body = "empty"
    elif view.style == "pile":
        hidden = int(np.sum(~visible[cards]))
        top = card_text(int(cards[-1]))
        body = f"top {top}" + (f"; {hidden} face down" if hidden else "")
    elif view.style == "stack":
        body = card_text(int(cards[-1]))
        if len(cards) > 1:
            body += " over " + ", ".join(card_text(int(c)) for c in cards[-2::-1])
    else:
        body = ", ".join(card_text(int(c)) for c in cards)
    note = f"  [{view.note}]" if view.note else ""
    return f"{head}: {body}{note}"


def _draw_column(svg: Svg, col: _Column, faces, player) -> None:
    view = col.view
    svg.text(col.x, col.y + 10, f"{view.label} ({len(col.cards)})", size=10, fill="#333")
    x0, y0 = col.x, col.y + LABEL_H
    stroke = "#444" if player is None else PLAYER_STROKES[player]
    if not col.placed:
        svg.rect(x0, y0, CARD_W, CARD_H, fill="none", stroke="#999", tip=f"{view.label}: empty")
    for card, dx, dy, variant in col.placed:
        face = faces(card)
        ident, w, h = _face_symbol(svg, face, stroke, "full" if face is None else variant)
        tip = "face down" if face is None else _face_tip(face)
        svg.use(ident, x0 + dx, y0 + dy, w, h, tip=tip, name="" if face is None else face.name)
    if view.counter and col.placed:
        _, dx, dy, variant = col.placed[-1]
        w, h = (CARD_H, CARD_W) if variant == "turned" else (CARD_W, CARD_H)
        box_w = text_width(view.counter, 10, "bold") + 8
        cx, cy = x0 + dx + w / 2, y0 + dy + h / 2
        svg.rect(cx - box_w / 2, cy - 7, box_w, 14, fill="#c0392b", stroke="#7b1d14", rx=7)
        svg.text(cx, cy + 3.5, view.counter, size=10, anchor="middle", weight="bold", fill="#fff")
    y = y0 + col.content_h + 2
    per_row = max(1, int((col.width + 3) // (2 * BADGE_R + 3)))
    for k, badge in enumerate(view.badges):
        bx = x0 + BADGE_R + (k % per_row) * (2 * BADGE_R + 3)
        by = y + BADGE_R + (k // per_row) * (2 * BADGE_R + 3)
        svg.circle(bx, by, BADGE_R, fill=badge.fill, stroke="#333", tip=badge.tip)
        svg.text(bx, by + 3, badge.text, size=8, anchor="middle", weight="bold", fill=badge.ink)
    if view.badges:
        y += -(-len(view.badges) // per_row) * (2 * BADGE_R + 3)
    lines, size = col.note_lines
    for k, line in enumerate(lines):
        svg.text(
            x0, y + 2 + font_metrics.ASCENT * size + k * LINE_SPACING * size, line,
            size=size, weight="bold", fill="#222",
        )  # fmt: skip


# -------------------------------------------------------------------------------------------------
# Notebook display of a bare State

_DISPLAY: dict[type, list[weakref.ref]] = {}


def register_display(state_type: type, env: Any) -> None:
    """Makes ``env`` the renderer of states whose ``game`` is a ``state_type`` (called by
    ``Env.__init__`` for envs that declare ``game_state_type``)."""
    refs = [r for r in _DISPLAY.get(state_type, []) if r() is not None]
    refs.append(weakref.ref(env))
    _DISPLAY[state_type] = refs


def display_env(game: Any) -> Any | None:
    """The env that draws a state whose rules state is ``game``: the most recently made one of
    its game, if every env of that game still alive is configured alike (same ``repr``); else
    ``None`` (ambiguous: use ``env.render(state)``)."""
    envs = [r() for r in _DISPLAY.get(type(game), [])]
    envs = [e for e in envs if e is not None]
    if not envs or len({repr(e) for e in envs}) != 1:
        return None
    return envs[-1]
