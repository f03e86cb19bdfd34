"""``tcgjax.replay.to_html``: a recorded game as one self-contained HTML page that steps through it.

The page holds, for every position of the game (the initial state, then the state after each
command), the env's SVG picture (:meth:`tcgjax.Env.render`), the move that led to it, named in
the position it was made in (:meth:`tcgjax.Env.describe_action`, for the page's viewer), and who
played it, the rewards of that step and the status line (who acts, or how the game ended and
why). Nothing is fetched: the pictures and a small script are inlined, so the file can be mailed,
attached to an issue or opened from a notebook.

Controls: buttons (first, previous, play/pause, next, last), a slider, a clickable move list, and
the keyboard (Left/Right arrows, Home/End, space to play or pause). The page's elements carry
stable ids (``position``, ``action``, ``status``, ``rewards``, ``board``, ``next``, ``prev``,
``first``, ``last``) so that browser tests can drive it.
"""

from __future__ import annotations

import html
import json
import os
from typing import Any

import numpy as np

from tcgjax.core.errors import OutputError
from tcgjax.core.replay import frames
from tcgjax.core.serialization import _show

__all__ = ["to_html"]


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
      viewer: draw every position as this player sees it (hidden cards face down, and a card a
        move keeps hidden from them unnamed in the move's name), or ``None`` (default) for
        everything face up; checked before the game is re-simulated.
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
    positions, before = [], None
    for game_env, state, action in frames(replay, env, verify=verify):
        if action is None:
            game_env._check_viewer(viewer)  # before anything is drawn or re-simulated
        picture = game_env.render(state, viewer)
        status = picture.text.splitlines()[1] if "\n" in picture.text else ""
        if action is None:
            actor, name = "", "start of the game"
        else:  # the player to act in the previous position played it, named there
            actor = f"player {int(before.current_player) + 1}"
            name = game_env.describe_action(before, action, viewer=viewer)
        positions.append(
            {
                "svg": picture.svg,
                "action": name,
                "actor": actor,
                "rewards": [round(float(r), 4) for r in np.asarray(state.rewards)],
                "status": status,
            }
        )
        before = state
    moves = len(positions) - 1
    page = _PAGE.format(
        title=html.escape(title or f"tcgjax replay: {game_env.id}, {moves} moves"),
        data=json.dumps(positions).replace("</", "<\\/"),
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
<script>
const POSITIONS = {data};
let current = 0, timer = null;
const $ = (id) => document.getElementById(id);
const list = $("moves");
POSITIONS.forEach((p, i) => {{
  const item = document.createElement("li");
  item.textContent = (p.actor ? p.actor + ": " : "") + p.action;
  item.onclick = () => show(i);
  list.appendChild(item);
}});
function show(i) {{
  current = Math.max(0, Math.min(POSITIONS.length - 1, i));
  const p = POSITIONS[current];
  $("board").innerHTML = p.svg;
  $("action").textContent = p.action;
  $("actor").textContent = p.actor ? "(" + p.actor + ")" : "";
  $("rewards").textContent = p.rewards.join(", ");
  $("status").textContent = p.status;
  $("position").textContent = current;
  $("slider").value = current;
  Array.from(list.children).forEach((li, k) => li.classList.toggle("current", k === current));
  if (current === POSITIONS.length - 1) pause();
}}
function pause() {{ if (timer) {{ clearInterval(timer); timer = null; }} $("play").textContent = "play"; }}
function play() {{
  if (timer) {{ pause(); return; }}
  if (current === POSITIONS.length - 1) show(0);
  timer = setInterval(() => show(current + 1), 700);
  $("play").textContent = "pause";
}}
$("first").onclick = () => show(0);
$("prev").onclick = () => show(current - 1);
$("next").onclick = () => show(current + 1);
$("last").onclick = () => show(POSITIONS.length - 1);
$("play").onclick = play;
$("slider").oninput = (e) => show(parseInt(e.target.value, 10));
document.addEventListener("keydown", (e) => {{
  if (e.key === "ArrowRight") show(current + 1);
  else if (e.key === "ArrowLeft") show(current - 1);
  else if (e.key === "Home") show(0);
  else if (e.key === "End") show(POSITIONS.length - 1);
  else if (e.key === " ") {{ e.preventDefault(); play(); }}
}});
show(0);
</script>
</body>
</html>
"""
