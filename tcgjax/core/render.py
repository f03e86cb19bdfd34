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
import io
import os
import re
import weakref
from collections.abc import Callable, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import jax
import numpy as np

from tcgjax.core.visibility import visible_mask

__all__ = [
    "Picture",
    "Svg",
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
]

#: The page behind every picture (SVG and rasterized).
PAGE_COLOR = "#fbfbf8"
#: Fill of each player's side and units, and their darker outlines (player 1, player 2).
PLAYER_COLORS = ("#dbe8f7", "#f7dcdc")
PLAYER_STROKES = ("#2f5f9e", "#9e2f2f")

CARD_W, CARD_H = 64, 88
GAP = 8
STACK_OFFSET = 18  # how much of each card under a stack's top shows
LABEL_H = 16
HEADER_LINE_H = 18


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

    def text(self, x, y, content: str, *, size=11, anchor="start", weight="normal", fill="#111"):
        attrs = self._attrs(
            x=float(x),
            y=float(y),
            font_size=size,
            text_anchor=anchor,
            font_weight=weight,
            fill=fill,
            font_family="sans-serif",
        )
        self._parts.append(f"<text {attrs}>{escape(content)}</text>")

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
        return "\n".join([head, background, *self._parts, "</svg>"])


# -------------------------------------------------------------------------------------------------
# Card games: a Board as two sides of zone rows


@dataclasses.dataclass(frozen=True)
class ZoneView:
    """How one zone is drawn. ``style``: ``"pile"`` (its top card, face up only if the viewer sees
    it, and the count), ``"row"`` (every card side by side), ``"stack"`` (cards overlapped, bottom
    first, the top card whole: a Digimon or a Pokémon with what is under or attached to it).
    ``note``: a line under the zone (DP, HP left, suspended...); ``hide_empty``: leave the zone
    out while it holds no card (the unused battle-area slots); ``lead``: for a stack whose top
    by position is not its identity (Energy attached on top of a Pokémon), the card drawn on top
    (-1: the top by position)."""

    zone: int
    label: str
    style: str = "row"
    note: str = ""
    hide_empty: bool = False
    lead: int = -1

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


def _zone_size(view: ZoneView, count: int) -> tuple[float, float]:
    if view.style == "pile" or count == 0:
        return CARD_W, CARD_H
    if view.style == "row":
        return count * CARD_W + (count - 1) * 4, CARD_H
    return CARD_W, CARD_H + (count - 1) * STACK_OFFSET


def _wrap(text: str, width: int, lines: int) -> list[str]:
    words, out, line = text.split(), [], ""
    for word in words:
        candidate = f"{line} {word}".strip()
        if len(candidate) <= width:
            line = candidate
            continue
        if line:
            out.append(line)
        line = word[:width]
    if line:
        out.append(line)
    if len(out) > lines:
        out = out[:lines]
        out[-1] = out[-1][: width - 1] + "…"
    return out


def card_board_picture(
    layout: Any,
    board: Any,
    viewer: int | None,
    *,
    title: str,
    header: Sequence[str],
    sides: Sequence[SideView],
    card_label: Callable[[int], tuple[str, str]],
    shared: Sequence[ZoneView] = (),
) -> Picture:
    """A card game's picture from its ``Board`` (host arrays of one game).

    Args:
      layout: the env's ``BoardLayout`` (zone visibility, for face-down cards).
      board: the game's ``Board``, concrete (NumPy or JAX arrays of one game).
      viewer: the player whose view is drawn (their side at the bottom), or ``None`` (all face up).
      title: first header line (game, turn, phase).
      header: further header lines (the memory gauge, the result...).
      sides: one :class:`SideView` per player (order free; the viewer's goes at the bottom).
      card_label: card index -> (name, stats line) for a face-up card.
      shared: zones that belong to no player (drawn in the middle; hidden when empty).

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

    def card_text(card: int) -> str:
        if not visible[card]:
            return "(face down)"
        name, stats = card_label(card)
        return f"{name} ({stats})" if stats else name

    # ---- layout pass: every zone box's position, for both drawings
    boxes = []  # (x, y, view, cards, player)
    bands = []  # (y0, y1, player, summary)
    y = GAP + HEADER_LINE_H * (1 + len(header)) + GAP
    width = 0.0

    def place_rows(rows, player):
        nonlocal y, width
        for row in rows:
            x, tallest = GAP, 0.0
            for view in row:
                cards = _zone_cards(board, view)
                if view.hide_empty and len(cards) == 0:
                    continue
                w, h = _zone_size(view, len(cards))
                boxes.append((x, y + LABEL_H, view, cards, player))
                x += max(w, 7 * len(view.label)) + 2 * GAP
                tallest = max(tallest, h + LABEL_H + (LABEL_H if view.note else 0))
            width = max(width, x)
            y += tallest + GAP

    for i, side in enumerate(ordered):
        start = y
        y += HEADER_LINE_H
        # The side at the top shows its rows from the table's edge inwards, as seen across it.
        rows = side.rows if i == len(ordered) - 1 else tuple(reversed(side.rows))
        place_rows(rows, side.player)
        bands.append((start, y, side.player, side.summary))
        y += GAP
        if i == 0 and shared:
            place_rows((tuple(shared),), None)
    width = max(width, 480.0)
    svg = Svg(width, y + GAP, title=title)
    svg.text(GAP, GAP + 13, title, size=14, weight="bold")
    for k, line in enumerate(header):
        svg.text(GAP, GAP + 13 + HEADER_LINE_H * (k + 1), line, size=12)
    for y0, y1, player, summary in bands:
        svg.rect(2, y0, width - 4, y1 - y0, fill=PLAYER_COLORS[player], stroke="none", rx=8)
        name = f"player {player + 1}" + (" (viewer)" if viewer == player else "")
        svg.text(GAP, y0 + 14, f"{name}: {summary}" if summary else name, size=12, weight="bold")
    for x, y0, view, cards, player in boxes:
        svg.text(x, y0 - 4, f"{view.label} ({len(cards)})", size=10, fill="#333")
        _draw_zone(svg, x, y0, view, cards, visible, card_label, player)

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


def _draw_card(svg: Svg, x, y, card: int, face_up: bool, card_label, player) -> None:
    if not face_up:
        svg.rect(x, y, CARD_W, CARD_H, fill="#5b6b8c", stroke="#2b3450", tip="face down")
        svg.rect(x + 6, y + 6, CARD_W - 12, CARD_H - 12, fill="none", stroke="#c9d2e6", rx=3)
        return
    name, stats = card_label(card)
    stroke = "#444" if player is None else PLAYER_STROKES[player]
    svg.rect(x, y, CARD_W, CARD_H, fill="#ffffff", stroke=stroke, tip=f"{name} {stats}".strip())
    for k, line in enumerate(_wrap(name, 10, 3)):
        svg.text(x + 4, y + 13 + 11 * k, line, size=9.5, weight="bold")
    for k, line in enumerate(_wrap(stats, 11, 3)):
        svg.text(x + 4, y + CARD_H - 30 + 10 * k, line, size=8.5, fill="#333")


def _draw_zone(svg: Svg, x, y, view: ZoneView, cards, visible, card_label, player) -> None:
    if len(cards) == 0:
        svg.rect(x, y, CARD_W, CARD_H, fill="none", stroke="#999", rx=4, tip=f"{view.label}: empty")
    elif view.style == "pile":
        top = int(cards[-1])
        _draw_card(svg, x, y, top, bool(visible[top]), card_label, player)
        svg.circle(x + CARD_W - 6, y + CARD_H - 6, 10, fill="#fff", stroke="#333")
        svg.text(
            x + CARD_W - 6, y + CARD_H - 2, str(len(cards)), size=10, anchor="middle", weight="bold"
        )
    elif view.style == "row":
        for k, card in enumerate(cards):
            _draw_card(
                svg, x + k * (CARD_W + 4), y, int(card), bool(visible[card]), card_label, player
            )
    else:
        for k, card in enumerate(cards):
            _draw_card(
                svg, x, y + k * STACK_OFFSET, int(card), bool(visible[card]), card_label, player
            )
    if view.note:
        w, h = _zone_size(view, len(cards))
        svg.text(x, y + h + 12, view.note, size=10, weight="bold", fill="#222")


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
