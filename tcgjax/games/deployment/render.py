"""The deployment wargame's picture (``env.render(state, viewer)``): the hex board and its units.

The SVG draws the board as flat-topped hexes in the odd-q layout of :mod:`hexgrid` (odd columns
half a hex lower), column numbers along the top and row numbers down the left. Each hex is filled
by what it is: a wall (dark), a deployment pool (tinted in its player's colour; both colours mixed
where the pools overlap; during deployment the active deployer's pool has a coloured rim), or
plain ground. Every living unit stands on its hex as a circle in its side's colour with a darker
rim, its letter and its HP; an ``M`` mark on the circle says it has moved this turn, an ``S``
that it has shot. A panel beside the board lists each player's units with their letter, id,
stats and where they are (a hex, "to deploy", or "removed"). The header gives the scenario, the
phase with the turn (out of ``max_turns``) or the placements made, the status line (who acts, or
how the game ended) and the HP on the board, which decides the game at the turn limit. Every hex,
unit and panel entry has a ``<title>`` tooltip.

The text is the same picture in characters: the header, then a map of two lines per hex row
(even columns on the first, odd columns on the second, since they sit half a hex lower), ``.``
for ground, ``#`` a wall, ``1`` / ``2`` / ``+`` a pool of player 1 / player 2 / both, and a
unit's letter (player 1 upper case ``A``, ``B``... , player 2 lower case, in unit-slot order,
that is by unit id); a legend; then one line per unit: letter, side, id, hex, HP, stats and its
marks this turn.

Everything in this game is public (the observation shows both sides' units, HP and positions), so
``viewer`` hides nothing: it only adds ``viewer: player N`` (N = viewer + 1) to the title. The
board is always drawn the same way up, so that hex coordinates read the same for both players.
Output is deterministic: units in slot order, hexes in ``(col, row)`` order, numbers rounded.
"""

from __future__ import annotations

import math
import os

import numpy as np

from tcgjax.core import render
from tcgjax.games.deployment import rules as R
from tcgjax.games.deployment.scenario import PHASES

__all__ = ["picture", "hex_center", "unit_letter", "HEX_SIZE", "WALL_FILL"]

HEX_SIZE = 28.0  # circumradius of a hex (centre to corner), pixels
_SQRT3 = math.sqrt(3.0)
MARGIN = 8.0
LABEL_W = 18.0  # room for the row numbers left of the board
LABEL_H = 16.0  # room for the column numbers above it
HEADER_LINE_H = 18.0
PANEL_W = 250.0
PANEL_LINE_H = 18.0
UNIT_R = 0.62 * HEX_SIZE

WALL_FILL = "#4a4a4a"
GROUND_FILL = "#f3efe4"
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_OVERFLOW = ("*", "%")  # letters of unit slots past Z (max_unit_slots may reach 60)


def _mix(a: str, b: str, weight: float = 0.5) -> str:
    """``weight`` of colour ``a`` and the rest of ``b`` (``#rrggbb``)."""
    ca = [int(a[i : i + 2], 16) for i in (1, 3, 5)]
    cb = [int(b[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(
        f"{round(weight * x + (1 - weight) * y):02x}" for x, y in zip(ca, cb, strict=True)
    )


_POOL_FILLS = (
    _mix(render.PLAYER_COLORS[0], GROUND_FILL, 0.6),
    _mix(render.PLAYER_COLORS[1], GROUND_FILL, 0.6),
)
_BOTH_POOLS_FILL = _mix(_POOL_FILLS[0], _POOL_FILLS[1])


def hex_center(col: int, row: int) -> tuple[float, float]:
    """Pixel centre of hex ``(col, row)`` in the SVG (odd columns half a hex lower), rounded to
    0.1 px as the SVG writes it."""
    x = MARGIN + LABEL_W + HEX_SIZE + 1.5 * HEX_SIZE * col
    y = _board_top() + _SQRT3 / 2 * HEX_SIZE * (1 + 2 * row + (col & 1))
    return round(x, 1), round(y, 1)


def _board_top() -> float:
    return MARGIN + 3 * HEADER_LINE_H + MARGIN + LABEL_H


def unit_letter(slot: int, player: int) -> str:
    """The map letter of unit slot ``slot`` of ``player``: ``A``.. for player 1, ``a``.. for
    player 2 (``*`` / ``%`` past the 26th slot)."""
    if slot >= len(_ALPHABET):
        return _OVERFLOW[player]
    return _ALPHABET[slot] if player == 0 else _ALPHABET[slot].lower()


def _scenario_name(env) -> str:
    source = env.scenario.source
    if source.endswith((".yaml", ".yml")):
        return os.path.splitext(os.path.basename(source))[0]
    return "custom"


def _hex_corners(cx: float, cy: float, size: float) -> list[tuple[float, float]]:
    return [
        (cx + size * math.cos(math.pi / 3 * k), cy + size * math.sin(math.pi / 3 * k))
        for k in range(6)
    ]


def picture(env, state, viewer: int | None) -> render.Picture:
    """The picture of one game (``state`` with NumPy leaves); ``viewer`` None or 0/1, which only
    names the viewer in the title (nothing in this game is hidden)."""
    s, game = env.scenario, state.game
    t = s.tables
    U = s.max_unit_slots
    exists = np.asarray(t["unit_exists"])
    max_hp = np.asarray(t["unit_hp"]).astype(int)
    move = np.asarray(t["unit_move"]).astype(int)
    col, row = np.asarray(game.col).astype(int), np.asarray(game.row).astype(int)
    hp = np.asarray(game.hp).astype(int)
    moves_left = np.asarray(game.moves_left).astype(int)
    has_shot = np.asarray(game.has_shot).astype(bool)
    phase, active = int(game.phase), int(game.active_player)
    outcome, reason = int(game.outcome), int(game.end_reason)
    deploying = phase == R.DEPLOYMENT
    placed = exists & (col >= 0)
    alive = placed & (hp > 0)
    units = [g for g in range(2 * U) if exists[g]]
    walls = set(s.walls)
    pools = (set(s.pools[0]), set(s.pools[1]))
    on_hex = {(int(col[g]), int(row[g])): g for g in units if alive[g]}

    def letter(g: int) -> str:
        return unit_letter(g % U, g // U)

    def stats(g: int) -> str:
        return f"move {move[g]}, range {int(t['unit_range'][g])}, damage {int(t['unit_damage'][g])}"

    def marks(g: int) -> list[str]:
        """What unit ``g`` did this turn (the active side's living units in the skirmish)."""
        if deploying or g // U != active or not alive[g]:
            return []
        out = []
        if moves_left[g] < move[g]:
            out.append(f"moved {move[g] - moves_left[g]}/{move[g]}")
        if has_shot[g]:
            out.append("shot")
        return out

    def where(g: int) -> str:
        if not placed[g]:
            return "to deploy"
        hex_ = f"({col[g]}, {row[g]})"
        return hex_ if alive[g] else f"removed at {hex_}"

    def unit_tip(g: int) -> str:
        player = g // U
        done = marks(g)
        tip = f"{letter(g)} {s.unit_ids[g]} (player {player + 1}), {where(g)}: "
        tip += f"hp {hp[g]}/{max_hp[g]}, {stats(g)}"
        if not deploying and player == active and alive[g] and phase == R.MOVEMENT:
            tip += f"; {moves_left[g]} moves left"
        if done:
            tip += "; " + ", ".join(done)
        if int(game.deploy_order[g]) >= 0:
            tip += f"; placed {int(game.deploy_order[g]) + 1}."
        if not placed[g] and s.unit_ids[g] in s.restrictions:
            allowed = ", ".join(f"({c}, {r})" for c, r in sorted(s.restrictions[s.unit_ids[g]]))
            tip += f"; may deploy only on {allowed}"
        return tip

    def hex_kind(hex_: tuple[int, int]) -> str:
        if hex_ in walls:
            return "wall"
        mine = [p for p in (0, 1) if hex_ in pools[p]]
        if len(mine) == 2:
            return "deployment pool of both players"
        if mine:
            return f"player {mine[0] + 1} deployment pool"
        return "ground"

    # ---- header
    title = f"deployment [{_scenario_name(env)}]: "
    if deploying:
        title += f"deployment phase, {int(game.deploy_steps)}/{len(units)} units placed"
    else:
        title += f"turn {int(game.turn)}/{s.max_turns}, {PHASES[phase]} phase"
    if viewer is not None:
        title += f"; viewer: player {viewer + 1}"
    if outcome == R.DEADLOCK:
        status = f"game over: deadlock (no unit can be placed); step {int(state.step_count)}"
    else:
        winner = {R.PLAYER1_WON: 0, R.PLAYER2_WON: 1, R.DRAW: 2}.get(outcome, -1)
        status = render.status_line(state, winner, R.END_REASONS[reason])
        if not bool(state.terminated) and not bool(state.truncated) and deploying:
            status = status.replace(" to act;", " to deploy;", 1)
    side_hp = [int(hp[[g for g in units if alive[g] and g // U == p]].sum()) for p in (0, 1)]
    score = (
        f"hp on the board: player 1 {side_hp[0]}, player 2 {side_hp[1]} "
        f"(the higher wins at the turn limit)"
    )
    header = [status, score]

    # ---- SVG
    top = _board_top()
    board_w = LABEL_W + HEX_SIZE * (2 + 1.5 * (s.cols - 1))
    board_h = _SQRT3 * HEX_SIZE * (s.rows + (0.5 if s.cols > 1 else 0))
    panel_x = MARGIN + board_w + 2 * MARGIN
    panel_lines = sum(1 + sum(1 for g in units if g // U == p) for p in (0, 1)) + 2
    height = max(top + board_h, top - LABEL_H + PANEL_LINE_H * panel_lines) + 2 * MARGIN
    width = panel_x + PANEL_W
    svg = render.Svg(width, height, title=title)
    svg.text(MARGIN, MARGIN + 13, title, size=14, weight="bold")
    for k, line in enumerate(header):
        svg.text(MARGIN, MARGIN + 13 + HEADER_LINE_H * (k + 1), line, size=12)

    for c in range(s.cols):
        x, _ = hex_center(c, 0)
        svg.text(x, top - 4, str(c), size=9, anchor="middle", fill="#666")
    for r in range(s.rows):
        _, y = hex_center(0, r)
        svg.text(MARGIN + LABEL_W - 4, y + 3, str(r), size=9, anchor="end", fill="#666")
    for c in range(s.cols):
        for r in range(s.rows):
            hex_ = (c, r)
            kind = hex_kind(hex_)
            if kind == "wall":
                fill = WALL_FILL
            elif hex_ in pools[0] and hex_ in pools[1]:
                fill = _BOTH_POOLS_FILL
            elif hex_ in pools[0] or hex_ in pools[1]:
                fill = _POOL_FILLS[0 if hex_ in pools[0] else 1]
            else:
                fill = GROUND_FILL
            stroke = "#8a8577"
            if deploying and kind != "wall" and hex_ in pools[active]:
                stroke = render.PLAYER_STROKES[active]
            tip = f"hex ({c}, {r}): {kind}"
            if hex_ in on_hex:
                g = on_hex[hex_]
                tip += f"; {s.unit_ids[g]} (player {g // U + 1})"
            svg.polygon(
                _hex_corners(*hex_center(c, r), HEX_SIZE - 1), fill=fill, stroke=stroke, tip=tip
            )
    for g in units:
        if not alive[g]:
            continue
        player = g // U
        cx, cy = hex_center(int(col[g]), int(row[g]))
        svg.circle(
            cx,
            cy,
            UNIT_R,
            fill=render.PLAYER_COLORS[player],
            stroke=render.PLAYER_STROKES[player],
            tip=unit_tip(g),
        )
        svg.text(
            cx,
            cy - 1,
            letter(g),
            size=13,
            anchor="middle",
            weight="bold",
            fill=render.PLAYER_STROKES[player],
        )
        svg.text(cx, cy + 11, f"{hp[g]}/{max_hp[g]}", size=9, anchor="middle")
        done = marks(g)
        if any(m.startswith("moved") for m in done):
            svg.text(cx - UNIT_R, cy - UNIT_R + 6, "M", size=9, weight="bold", fill="#6b4e00")
        if "shot" in done:
            svg.text(cx + UNIT_R - 6, cy - UNIT_R + 6, "S", size=9, weight="bold", fill="#8b0000")

    y = top - LABEL_H + 12
    for p in (0, 1):
        mine = [g for g in units if g // U == p]
        to_deploy = sum(1 for g in mine if not placed[g])
        head = f"player {p + 1}" + (" (viewer)" if viewer == p else "")
        head += f": {to_deploy} to deploy" if to_deploy else ": all deployed"
        svg.text(panel_x, y, head, size=12, weight="bold", fill=render.PLAYER_STROKES[p])
        y += PANEL_LINE_H
        for g in mine:
            fill = render.PLAYER_COLORS[p] if not placed[g] or alive[g] else "#dddddd"
            svg.rect(
                panel_x,
                y - 12,
                16,
                16,
                fill=fill,
                stroke=render.PLAYER_STROKES[p],
                rx=8,
                tip=unit_tip(g),
            )
            svg.text(panel_x + 8, y + 0.5, letter(g), size=10, anchor="middle", weight="bold")
            line = f"{s.unit_ids[g]}: hp {hp[g]}/{max_hp[g]}, {where(g)}"
            svg.text(
                panel_x + 22, y, line, size=10, fill="#111" if alive[g] or not placed[g] else "#888"
            )
            y += PANEL_LINE_H
        y += PANEL_LINE_H / 2
    svg.text(panel_x, y, "M moved, S shot this turn", size=9, fill="#555")

    # ---- text
    lines = [title, *header]
    prefix = 4  # row label, then the hexes two characters apart
    lines.append(" " * prefix + " ".join(str(c % 10) for c in range(s.cols)))
    for r in range(s.rows):
        for parity in (0, 1):
            chars = [" "] * (2 * s.cols)
            for c in range(parity, s.cols, 2):
                chars[2 * c] = _map_char((c, r), walls, pools, on_hex, letter)
            label = f"{r:>3} " if parity == 0 else " " * prefix
            lines.append((label + "".join(chars)).rstrip())
    legend = []
    for p in (0, 1):
        mine = [g for g in units if g // U == p]
        legend.append(f"player {p + 1}: " + ", ".join(f"{letter(g)} {s.unit_ids[g]}" for g in mine))
    lines.append("legend: " + "; ".join(legend))
    lines.append(
        "  . ground, # wall, 1/2 pool of player 1/2, + both pools; "
        "odd columns sit half a hex lower (second line of each row)"
    )
    lines.append("units:")
    width_id = max(len(s.unit_ids[g]) for g in units)
    for g in units:
        done = marks(g)
        extra = f"  [{', '.join(done)}]" if done else ""
        lines.append(
            f"  {letter(g)} player {g // U + 1}  {s.unit_ids[g]:<{width_id}}  {where(g):<17}"
            f"  hp {hp[g]}/{max_hp[g]}  ({stats(g)}){extra}"
        )
    return render.Picture(svg=svg.to_string(), text="\n".join(lines))


def _map_char(hex_, walls, pools, on_hex, letter) -> str:
    if hex_ in on_hex:
        return letter(on_hex[hex_])
    if hex_ in walls:
        return "#"
    if hex_ in pools[0] and hex_ in pools[1]:
        return "+"
    if hex_ in pools[0]:
        return "1"
    if hex_ in pools[1]:
        return "2"
    return "."
