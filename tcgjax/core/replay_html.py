"""``tcgjax.replay.to_html``: a recorded game as one self-contained HTML page that steps through it.

The page holds, for every position of the game (the initial state, then the state after each
command), the env's SVG picture (:meth:`tcgjax.Env.render`), the move that led to it, named in
the position it was made in (:meth:`tcgjax.Env.describe_action`, for the view shown), and who
played it, the rewards of that step and the status line (who acts, or how the game ended and
why). By default it holds three views, switched in the page: everything face up, and as each
player sees it (hidden cards face down, and a card a move keeps hidden from them unnamed); a page
made for one ``viewer`` holds only that view (nothing hidden from that player is in the file).

Nothing is fetched: the pictures and a small script are inlined, so the file can be mailed,
attached to an issue or opened from a notebook. To keep it small the card faces are drawn once
for the whole page (SVG symbols, :meth:`tcgjax.core.render.Svg.define`), each position's pictures
only place them, and the positions are stored gzip-compressed (read with the browser's own
``DecompressionStream``; :func:`page_data` reads them back in Python). A card's text shows on
hover.

Controls: buttons (first, previous, play/pause, next, last), a slider, the view switch, a
clickable move list, and the keyboard (Left/Right arrows, Home/End, space to play or pause). The
page's elements carry stable ids (``position``, ``action``, ``status``, ``rewards``, ``board``,
``view``, ``next``, ``prev``, ``first``, ``last``) so that browser tests can drive it; the page
sets ``data-ready`` on ``body`` once the first position is drawn.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import os
import re
from typing import Any

import numpy as np

from tcgjax.core.errors import OutputError
from tcgjax.core.replay import frames
from tcgjax.core.serialization import _show

__all__ = ["to_html", "page_data"]


def to_html(
    replay: dict[str, Any],
    path: str | os.PathLike,
    *,
    env=None,
    viewer: int | None = None,
    verify: bool = True,
    title: str | None = None,
) -> str:
    """Re-simulate ``replay`` and write the page stepping through it to ``path``.

    Args:
      replay: a replay dict (:meth:`tcgjax.replay.Recorder.export`, or ``json.load`` of one).
      path: the ``.html`` file to write.
      env: the env to replay with (default: made from the replay's id and options).
      viewer: draw every position only as this player sees it (hidden cards face down, and a
        card a move keeps hidden from them unnamed in the move's name: the file holds nothing
        hidden from them), or ``None`` (default): three views switched in the page, everything
        face up (shown first) and each player's; checked before the game is re-simulated.
      verify: check the replay's final digest (as :func:`tcgjax.replay.run`); the page is written
        only for a replay that verifies.
      title: the page title (default: the env id and the number of moves).

    Returns:
      ``path``, as a string.

    Raises:
      ReplayError: the replay is malformed, illegal somewhere or fails its digest (nothing is
        written then).
      PlayerError: ``viewer`` is not None or a player of the replay's env (nothing is written).
      OutputError: ``path`` is not a file path or cannot be written (a missing folder, a
        directory, no permission); it names the path, and is also an ``OSError``.
    """
    if not isinstance(path, str | os.PathLike):
        raise OutputError(f"to_html(path={_show(path)}): expected a file path (str or os.PathLike)")
    positions, before, symbols = [], None, {}
    for game_env, state, action in frames(replay, env, verify=verify):
        if action is None:
            game_env._check_viewer(viewer)  # before anything is drawn or re-simulated
            views = [viewer] if viewer is not None else [None, *range(game_env.num_players)]
        shown = []
        for view in views:
            picture = game_env.render(state, view)
            name = (
                "start of the game"
                if action is None
                else game_env.describe_action(before, action, viewer=view)
            )
            shown.append({"svg": _placements(picture.svg, symbols), "action": name})
        status = picture.text.splitlines()[1] if "\n" in picture.text else ""
        # the player to act in the previous position played the move, named there
        actor = "" if action is None else f"player {int(before.current_player) + 1}"
        positions.append(
            {
                "views": shown,
                "actor": actor,
                "rewards": [round(float(r), 4) for r in np.asarray(state.rewards)],
                "status": status,
            }
        )
        before = state
    moves = len(positions) - 1
    data = {
        "views": [_view_name(v) for v in views],
        "symbols": "".join(symbols.values()),
        "positions": positions,
    }
    packed = base64.b64encode(gzip.compress(json.dumps(data).encode(), mtime=0)).decode()
    page = _PAGE.format(
        title=html.escape(title or f"tcgjax replay: {game_env.id}, {moves} moves"),
        data=packed,
        last=moves,
    )
    path = os.fspath(path)
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(page)
    except OSError as exc:
        error = OutputError(f"{path}: cannot write the replay page: {exc.strerror or exc}")
        error.strerror = exc.strerror
        raise error from exc
    return path


def _view_name(viewer: int | None) -> str:
    return "everything" if viewer is None else f"player {viewer + 1}"


_SYMBOL = re.compile(r'<symbol id="([^"]+)".*?</symbol>', re.S)
_USE_TITLE = re.compile(r"(<use [^>]*)><title>.*?</title></use>", re.S)


def _placements(svg: str, symbols: dict[str, str]) -> str:
    """The picture without its card faces (moved into ``symbols``, once per page: the same id is
    the same face) and without each placement's hover text (the symbol has it)."""
    head, defs, tail = svg.partition("<defs>")
    if defs:
        inner, _, tail = tail.partition("</defs>")
        for match in _SYMBOL.finditer(inner):
            symbols.setdefault(match.group(1), match.group(0))
        svg = head.rstrip("\n") + tail
    return _USE_TITLE.sub(r"\1/>", svg)


def page_data(path: str | os.PathLike) -> dict[str, Any]:
    """What a page written by :func:`to_html` holds: ``views`` (their names), ``symbols`` (the
    card faces, SVG) and ``positions``, each with ``actor``, ``rewards``, ``status`` and per view
    its ``svg`` and the ``action`` that led to it."""
    with open(path, encoding="utf-8") as f:
        page = f.read()
    packed = page.split('<script id="data" type="application/octet-stream">', 1)[1]
    packed = packed.split("</script>", 1)[0].strip()
    return json.loads(gzip.decompress(base64.b64decode(packed)))


# Doubled braces are literal braces of the CSS and the script (str.format fills the rest).
_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 12px; color: #111; }}
#bar {{ display: flex; gap: 6px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }}
#bar button {{ min-width: 40px; }}
#main {{ display: flex; gap: 12px; align-items: flex-start; }}
#moves {{ max-height: 80vh; overflow-y: auto; min-width: 260px; font-size: 13px; }}
#moves li {{ cursor: pointer; padding: 1px 4px; }}
#moves li.current {{ background: #ffe9a8; }}
#info div {{ margin: 2px 0; }}
#tip {{ position: fixed; display: none; max-width: 360px; white-space: pre-wrap; background: #fffef4;
  border: 1px solid #888; padding: 4px 6px; font-size: 12px; pointer-events: none; }}
</style>
</head>
<body>
<h3>{title}</h3>
<div id="bar">
  <button id="first" title="first position (Home)">|&#x25C0;</button>
  <button id="prev" title="previous (Left)">&#x25C0;</button>
  <button id="play" title="play / pause (space)">play</button>
  <button id="next" title="next (Right)">&#x25B6;</button>
  <button id="last" title="last position (End)">&#x25B6;|</button>
  <input id="slider" type="range" min="0" max="{last}" value="0">
  <span>position <span id="position">0</span> / {last}</span>
  <label>view <select id="view"></select></label>
</div>
<div id="info">
  <div>move: <b id="action"></b> <span id="actor"></span></div>
  <div>rewards: <span id="rewards"></span></div>
  <div id="status"></div>
</div>
<div id="main">
  <div id="board"></div>
  <ol id="moves" start="0"></ol>
</div>
<div id="cards"></div>
<div id="tip"></div>
<script id="data" type="application/octet-stream">
{data}
</script>
<script>
let DATA = null, current = 0, view = 0, timer = null;
const $ = (id) => document.getElementById(id);
const list = $("moves");
async function load() {{
  const packed = atob($("data").textContent.trim());
  const bytes = Uint8Array.from(packed, (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}}
function names() {{
  list.innerHTML = "";
  DATA.positions.forEach((p, i) => {{
    const item = document.createElement("li");
    item.textContent = (p.actor ? p.actor + ": " : "") + p.views[view].action;
    item.onclick = () => show(i);
    list.appendChild(item);
  }});
}}
function show(i) {{
  const positions = DATA.positions;
  current = Math.max(0, Math.min(positions.length - 1, i));
  const p = positions[current];
  $("board").innerHTML = p.views[view].svg;
  $("action").textContent = p.views[view].action;
  $("actor").textContent = p.actor ? "(" + p.actor + ")" : "";
  $("rewards").textContent = p.rewards.join(", ");
  $("status").textContent = p.status;
  $("position").textContent = current;
  $("slider").value = current;
  Array.from(list.children).forEach((li, k) => li.classList.toggle("current", k === current));
  if (current === positions.length - 1) pause();
}}
function pause() {{ if (timer) {{ clearInterval(timer); timer = null; }} $("play").textContent = "play"; }}
function play() {{
  if (timer) {{ pause(); return; }}
  if (current === DATA.positions.length - 1) show(0);
  timer = setInterval(() => show(current + 1), 700);
  $("play").textContent = "pause";
}}
function start() {{
  $("cards").innerHTML = '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" ' +
    'style="position:absolute"><defs>' + DATA.symbols + "</defs></svg>";
  DATA.views.forEach((name, k) => {{
    const option = document.createElement("option");
    option.value = k; option.textContent = name;
    $("view").appendChild(option);
  }});
  $("view").onchange = (e) => {{ view = parseInt(e.target.value, 10); names(); show(current); }};
  $("first").onclick = () => show(0);
  $("prev").onclick = () => show(current - 1);
  $("next").onclick = () => show(current + 1);
  $("last").onclick = () => show(DATA.positions.length - 1);
  $("play").onclick = play;
  $("slider").oninput = (e) => show(parseInt(e.target.value, 10));
  document.addEventListener("keydown", (e) => {{
    if (e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") show(current + 1);
    else if (e.key === "ArrowLeft") show(current - 1);
    else if (e.key === "Home") show(0);
    else if (e.key === "End") show(DATA.positions.length - 1);
    else if (e.key === " ") {{ e.preventDefault(); play(); }}
  }});
  // A card's text on hover: the title of the symbol a <use> places.
  $("board").addEventListener("mousemove", (e) => {{
    const use = e.target.closest ? e.target.closest("use") : null;
    const symbol = use && document.getElementById((use.getAttribute("href") || "").slice(1));
    const title = symbol && symbol.querySelector("title");
    const tip = $("tip");
    if (!title) {{ tip.style.display = "none"; return; }}
    tip.textContent = title.textContent;
    tip.style.left = (e.clientX + 14) + "px"; tip.style.top = (e.clientY + 14) + "px";
    tip.style.display = "block";
  }});
  $("board").addEventListener("mouseleave", () => {{ $("tip").style.display = "none"; }});
  names();
  show(0);
  document.body.dataset.ready = "1";
}}
load().then((data) => {{ DATA = data; start(); }});
</script>
</body>
</html>
"""
