"""``tcgjax serve``: play a game against an agent in the browser (Starlette, served by uvicorn).

The page lets you pick a game, a seat and an opponent (``random``, ``heuristic``, ``baseline``: the
game's shipped trained agent, or a run directory of ``python -m tcgjax.train``), then shows the
board as your seat sees it (the opponent's hidden cards face down: ``env.render(state, viewer)``)
with the legal moves, each named in the position (``env.describe_action``): on the board, a card
that a legal move names glows, and clicking it offers those moves in a menu beside it; the moves
that name no card (end the turn, pass) and every move also stand as buttons beside the board. A
click plays the move, the opponent answers until it is your turn again, and the move log grows. The recorded
game downloads as a replay (``tcgjax replay`` turns it into a page).

The JSON API the page uses (one game per ``id``, kept in this process's memory)::

    POST /api/games                {"env", "seat" (1 or 2), "opponent", "seed"}  -> view
    GET  /api/games/{id}                                                          -> view
    POST /api/games/{id}/moves     {"action": id}                                  -> view
    GET  /api/games/{id}/replay                                                    -> replay JSON

A view is ``{"id", "env", "seat", "svg", "moves": [{"action", "name"}], "log": [{"player",
"move"}], "status", "over", "result"}``; ``moves`` is empty unless it is your turn. A bad request
(malformed JSON, an unknown field, game or option, an illegal move) is answered 400 with
``{"error": message}`` naming what was wrong; the game is unchanged and the server stays up.

Usage::

    tcgjax serve [--host 127.0.0.1] [--port 8000]
"""

from __future__ import annotations

import html
import itertools
import json
import threading
from typing import Any

import jax
import numpy as np

import tcgjax
from tcgjax.core.env import Env
from tcgjax.core.errors import TcgjaxError

__all__ = ["create_app", "serve"]

_FIELDS = {"env", "seat", "opponent", "seed"}


class RequestError(TcgjaxError):
    """A request the server refuses (answered 400, naming the field)."""


class _Game:
    """One game in play: the env, the recorder, your seat and the opponent's jitted policy."""

    def __init__(self, game_id: str, env: Env, seat: int, opponent: str, seed: int):
        from tcgjax.cli import CliError, _jitted_init, _policy

        try:
            self.policy = _policy(env, opponent)
        except CliError as exc:
            raise RequestError(str(exc)) from None
        self.id, self.env, self.seat, self.opponent = game_id, env, seat, opponent
        root = jax.random.PRNGKey(seed)
        self.step_root, self.policy_root = jax.random.fold_in(root, 1), jax.random.fold_in(root, 2)
        self.recorder = tcgjax.replay.Recorder(env, _jitted_init(env)(jax.random.fold_in(root, 0)))
        self.log: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self._answer()

    @property
    def over(self) -> bool:
        state = self.recorder.state
        return bool(state.terminated) or bool(state.truncated)

    def _step(self, action: int) -> None:
        state = self.recorder.state
        actor = int(state.current_player)
        name = self.env.describe_action(state, action, viewer=self.seat)  # before the move
        self.recorder.step(action, jax.random.fold_in(self.step_root, len(self.log)))
        self.log.append({"player": actor + 1, "move": name})

    def _answer(self) -> None:
        """The opponent plays until it is your turn or the game is over."""
        while not self.over and int(self.recorder.state.current_player) != self.seat:
            key = jax.random.fold_in(self.policy_root, len(self.log))
            self._step(int(self.policy(self.recorder.state, key)))

    def play(self, action: Any) -> None:
        if self.over:
            raise RequestError(f"game {self.id}: the game is over")
        if isinstance(action, bool) or not isinstance(action, int):
            raise RequestError(f"field 'action': {action!r} is not an integer move id")
        try:
            self._step(action)
        except TcgjaxError as exc:  # IllegalActionError names the rule; nothing changed
            raise RequestError(f"field 'action': {exc}") from None
        self._answer()

    def view(self) -> dict[str, Any]:
        state = self.recorder.state
        picture = self.env.render(state, viewer=self.seat)
        lines = picture.text.splitlines()
        moves = []
        if not self.over and int(state.current_player) == self.seat:
            moves = [
                {
                    "action": int(a),
                    "name": self.env.describe_action(state, int(a), viewer=self.seat),
                }
                for a in np.flatnonzero(np.asarray(state.legal_action_mask))
            ]
        result = None
        if self.over:
            reward = float(np.asarray(state.rewards)[self.seat])
            result = "you won" if reward > 0 else "you lost" if reward < 0 else "a draw"
        return {
            "id": self.id,
            "env": self.env.id,
            "seat": self.seat + 1,
            "opponent": self.opponent,
            "svg": picture.svg,
            "moves": moves,
            "log": self.log,
            "status": lines[1] if len(lines) > 1 else lines[0],
            "over": self.over,
            "result": result,
        }


def _check_new(body: Any) -> tuple[Env, int, str, int]:
    if not isinstance(body, dict):
        raise RequestError("the body must be a JSON object {env, seat, opponent, seed}")
    unknown = sorted(set(body) - _FIELDS)
    if unknown:
        raise RequestError(f"unknown field {unknown[0]!r}; known: {sorted(_FIELDS)}")
    env_id = body.get("env")
    if env_id not in tcgjax.available_envs():
        raise RequestError(f"field 'env': {env_id!r} is not one of {list(tcgjax.available_envs())}")
    seat = body.get("seat", 1)
    if seat not in (1, 2) or isinstance(seat, bool):
        raise RequestError(f"field 'seat': {seat!r} must be 1 or 2")
    opponent = body.get("opponent", "random")
    if not isinstance(opponent, str) or not opponent:
        raise RequestError(
            f"field 'opponent': {opponent!r} must be random, heuristic, baseline or a run directory"
        )
    seed = body.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise RequestError(f"field 'seed': {seed!r} must be an integer from 0 to 2**32 - 1")
    return tcgjax.make(env_id), seat - 1, opponent, seed


def create_app():
    """The Starlette app (routes in the module docstring); games live in its memory."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    games: dict[str, _Game] = {}
    ids = itertools.count(1)

    async def _json(request: Request) -> Any:
        try:
            return json.loads(await request.body())
        except (ValueError, RecursionError):
            raise RequestError("the body is not valid JSON") from None

    def _game(request: Request) -> _Game:
        game_id = request.path_params["game_id"]
        if game_id not in games:
            raise RequestError(f"no game {game_id!r} (games live as long as the server)")
        return games[game_id]

    async def page(request: Request) -> HTMLResponse:
        options = "".join(
            f'<option value="{html.escape(e)}">{html.escape(e)}</option>'
            for e in tcgjax.available_envs()
        )
        return HTMLResponse(_PAGE.replace("{envs}", options))

    async def new_game(request: Request) -> JSONResponse:
        env, seat, opponent, seed = _check_new(await _json(request))
        game_id = str(next(ids))
        games[game_id] = _Game(game_id, env, seat, opponent, seed)
        return JSONResponse(games[game_id].view())

    async def show(request: Request) -> JSONResponse:
        return JSONResponse(_game(request).view())

    async def move(request: Request) -> JSONResponse:
        game = _game(request)
        body = await _json(request)
        if not isinstance(body, dict) or set(body) != {"action"}:
            raise RequestError('the body must be a JSON object {"action": id}')
        with game.lock:
            game.play(body["action"])
            return JSONResponse(game.view())

    async def replay(request: Request) -> Response:
        game = _game(request)
        body = json.dumps(game.recorder.export())
        name = f"{game.env.id}-game{game.id}.json"
        return Response(
            body,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def refused(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=400)

    return Starlette(
        routes=[
            Route("/", page),
            Route("/api/games", new_game, methods=["POST"]),
            Route("/api/games/{game_id}", show),
            Route("/api/games/{game_id}/moves", move, methods=["POST"]),
            Route("/api/games/{game_id}/replay", replay),
        ],
        exception_handlers={TcgjaxError: refused},
    )


def serve(host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the app with uvicorn until interrupted."""
    import uvicorn

    print(f"tcgjax serve: open http://{host}:{port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(create_app(), host=host, port=port, log_level="warning")


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>tcgjax: play</title>
<style>
body { font-family: sans-serif; margin: 12px; background: #f4f4ef; }
#setup label { margin-right: 12px; }
#main { display: flex; gap: 16px; align-items: flex-start; margin-top: 12px; }
#board svg { max-width: 100%; height: auto; background: white; }
#side { min-width: 300px; max-width: 420px; }
#moves button { display: block; margin: 3px 0; text-align: left; width: 100%; }
#log { max-height: 320px; overflow-y: auto; font-size: 13px; }
#error { color: #a00; white-space: pre-wrap; }
#board use.playable { cursor: pointer; filter: drop-shadow(0 0 4px #e69b00); }
#menu { position: absolute; background: #fffef4; border: 1px solid #888; padding: 6px;
  box-shadow: 2px 2px 6px #0004; max-width: 420px; }
#menu button { display: block; margin: 3px 0; text-align: left; width: 100%; }
</style></head>
<body>
<h2>tcgjax: play against an agent</h2>
<div id="setup">
<label>game <select id="env">{envs}</select></label>
<label>your seat <select id="seat"><option>1</option><option>2</option></select></label>
<label>opponent <input id="opponent" value="random" size="22"
  title="random, heuristic, baseline, or a run directory"></label>
<label>seed <input id="seed" value="0" size="6"></label>
<button id="start">start</button>
</div>
<div id="error"></div>
<div id="main">
<div id="board"></div>
<div id="side">
<div id="status"></div><h3 id="result"></h3>
<div id="moves"></div>
<p><a id="replay" href="#" hidden>download the replay</a></p>
<h4>moves</h4><ol id="log"></ol>
</div></div>
<div id="menu" hidden></div>
<script>
let game = null;
// The legal moves that name a card, by its whole name (Greymon is not MetalGreymon).
function names(text, name) {
  const letter = /[A-Za-z]/;
  for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + 1)) {
    const before = i > 0 ? text[i - 1] : "", after = text[i + name.length] || "";
    if (!letter.test(before) && !letter.test(after)) return true;
  }
  return false;
}
function namedMoves(name) { return game.moves.filter((m) => names(m.name, name)); }
function moveButton(m, className) {
  const b = document.createElement("button");
  b.className = className;
  b.dataset.action = m.action;
  b.textContent = m.name;
  b.onclick = async () => {
    document.getElementById("menu").hidden = true;
    show(await call("POST", "/api/games/" + game.id + "/moves", {action: m.action}));
  };
  return b;
}
// Click a card on the board: the moves that name it, in a menu beside it.
function openMenu(name, event) {
  const menu = document.getElementById("menu");
  menu.innerHTML = "";
  const title = document.createElement("b");
  title.textContent = name;
  menu.appendChild(title);
  for (const m of namedMoves(name)) menu.appendChild(moveButton(m, "card-move"));
  menu.style.left = (event.pageX + 8) + "px";
  menu.style.top = (event.pageY + 8) + "px";
  menu.hidden = false;
  event.stopPropagation();
}
document.addEventListener("click", (e) => {
  const menu = document.getElementById("menu");
  if (!menu.contains(e.target)) menu.hidden = true;
});
async function call(method, url, body) {
  const response = await fetch(url, {method: method, headers: {"Content-Type": "application/json"},
                                     body: body === undefined ? undefined : JSON.stringify(body)});
  const data = await response.json();
  document.getElementById("error").textContent = response.ok ? "" : data.error;
  return response.ok ? data : null;
}
function show(view) {
  if (!view) return;
  game = view;
  document.getElementById("board").innerHTML = view.svg;
  document.getElementById("menu").hidden = true;
  for (const card of document.querySelectorAll("#board use[data-name]")) {
    const name = card.getAttribute("data-name");
    if (!namedMoves(name).length) continue;
    card.classList.add("playable");
    card.addEventListener("click", (e) => openMenu(name, e));
  }
  document.getElementById("status").textContent = view.status;
  document.getElementById("result").textContent = view.over ? "game over: " + view.result : "";
  const moves = document.getElementById("moves");
  moves.innerHTML = "";
  for (const m of view.moves) moves.appendChild(moveButton(m, "move"));
  const log = document.getElementById("log");
  log.innerHTML = "";
  for (const entry of view.log) {
    const li = document.createElement("li");
    li.textContent = "player " + entry.player + ": " + entry.move;
    log.appendChild(li);
  }
  const link = document.getElementById("replay");
  link.href = "/api/games/" + view.id + "/replay";
  link.hidden = false;
}
document.getElementById("start").onclick = async () => {
  show(await call("POST", "/api/games", {
    env: document.getElementById("env").value,
    seat: Number(document.getElementById("seat").value),
    opponent: document.getElementById("opponent").value,
    seed: Number(document.getElementById("seed").value)}));
};
</script>
</body></html>
"""
