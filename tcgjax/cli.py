"""``tcgjax``: the command line, for what people do without writing code.

* ``tcgjax play ENV``: play one seat of a game in the terminal against a policy (or watch it);
  every move is named in the position it is made in (``Env.describe_action``), for your seat;
* ``tcgjax render STATE.json``: draw a JSON state (``tcgjax.to_json``) as SVG or text;
* ``tcgjax replay REPLAY.json -o OUT.html``: the replay viewer page of a recorded game;
* ``tcgjax serve``: play against an agent in the browser (:mod:`tcgjax.serve`);
* ``tcgjax bench ...``: the throughput harness (:mod:`tcgjax.bench`);
* ``tcgjax --version``: the installed version.

Players are numbered from 1 on the command line (``--seat``, ``--viewer``), as in the pictures;
the library's player indices start at 0. Exit status: 0 on success (a game played to its end),
1 when a game is quit (``q`` or the end of input), 2 on an error (a bad file, option or usage),
which is printed as ``tcgjax <command>: error: <message>`` without a traceback. Every argument
that becomes a JAX value is range-checked first (``--seed`` is an integer from 0 to 2**32 - 1,
``--seat`` and ``--viewer`` a player of the game); an ``--option`` value is read like every file
the library reads (a repeated key is refused, naming it); a JSON file that cannot be read (missing,
a directory, not UTF-8, not JSON, a repeated key, nested too deeply, an integer of more than 4300
digits) is named; any :class:`tcgjax.TcgjaxError` is an error with exit status 2.

Also runnable as ``python -m tcgjax.cli``.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

import jax
import numpy as np
import yaml

import tcgjax
from tcgjax.core.env import Env, State
from tcgjax.core.errors import IllegalActionError, TcgjaxError
from tcgjax.core.files import DuplicateKeyError, json_loads, yaml_loads
from tcgjax.core.first_use import announced

__all__ = ["main"]

QUIT = ("q", "quit")
#: ``jax.random.PRNGKey`` keeps the low 32 bits of a seed (2**32 is seed 0 again) and overflows
#: past 64: ``--seed`` is an integer in ``[0, SEED_LIMIT)``.
SEED_LIMIT = 2**32


class CliError(Exception):
    """A failure reported as ``tcgjax <command>: error: <message>`` with exit status 2."""


# --------------------------------------------------------------------------------------------------
# Shared helpers


def _shown(text: str, limit: int = 60) -> str:
    """``repr`` of a command-line string for a message, at most about ``limit`` characters."""
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _seed(text: str) -> int:
    """``--seed``: an integer in ``[0, SEED_LIMIT)`` (argparse reports what is not)."""
    bounds = f"a seed is an integer from 0 to {SEED_LIMIT - 1}"
    try:
        value = int(text, 10)
    except ValueError:  # not an integer, or one past Python's 4300-digit limit
        raise argparse.ArgumentTypeError(f"invalid seed {_shown(text)}: {bounds}") from None
    if not 0 <= value < SEED_LIMIT:
        raise argparse.ArgumentTypeError(
            f"{_shown(text)}: {bounds} (jax.random.PRNGKey keeps 32 bits)"
        )
    return value


def _parse_options(items: list[str] | None) -> dict[str, Any]:
    """``["KEY=VALUE", ...]`` as env options, each value read as YAML (``max_steps=50`` -> 50),
    strictly: a repeated key inside a value is refused, as in every file the library reads."""
    options: dict[str, Any] = {}
    for item in items or []:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise CliError(f"--option {_shown(item)}: expected KEY=VALUE (e.g. max_steps=200)")
        if key in options:
            raise CliError(f"--option {_shown(item)}: option {key!r} is given twice")
        try:
            options[key] = yaml_loads(text)
        except DuplicateKeyError as exc:
            raise CliError(f"--option {_shown(item)}: {exc}") from None
        except yaml.YAMLError as exc:
            raise CliError(f"--option {_shown(item)}: the value is not valid YAML: {exc}") from None
        except RecursionError:
            raise CliError(f"--option {_shown(item)}: the value is nested too deeply") from None
        except ValueError as exc:  # an int past 4300 digits, a date like 2024-13-45
            raise CliError(f"--option {_shown(item)}: the value cannot be read: {exc}") from None
    return options


_ENVS: dict[str, Env] = {}


def _make_env(env_id: str, options: dict[str, Any], *, hint: bool = True) -> Env:
    """``tcgjax.make(env_id, **options)``, one env per configuration (its ``repr``) and process:
    the compiled functions of ``checked_step``, ``from_json`` and the policies are reused by
    later commands in the same process."""
    try:
        env = tcgjax.make(env_id, **options)
    except TcgjaxError as exc:
        more = " (--option KEY=VALUE sets an option)" if hint and options else ""
        raise CliError(f"{exc}{more}") from exc
    return _ENVS.setdefault(repr(env), env)


def _player(number: int | None, env: Env, flag: str) -> int | None:
    """A 1-based player number from the command line as the library's 0-based index."""
    if number is None:
        return None
    if not 1 <= number <= env.num_players:
        raise CliError(f"{flag} {number}: {env.id} has players 1 to {env.num_players}")
    return number - 1


def _read_json(path: str, what: str) -> tuple[str, Any]:
    """The text of the JSON file ``path`` and its parsed value (a repeated key is refused)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise CliError(f"{path}: cannot read the {what}: {reason}") from None
    try:
        return text, json_loads(text)
    except RecursionError:
        raise CliError(f"{path}: not a valid JSON {what}: nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, DuplicateKeyError, an int past 4300 digits
        raise CliError(f"{path}: not a valid JSON {what}: {exc}") from None


def _check_output(path: str, flag: str) -> None:
    """Refuse an output path that cannot be a new file (a directory, a missing folder) before the
    work that would be written to it."""
    target = Path(path)
    if target.is_dir():
        raise CliError(f"{flag} {path}: a directory, not a file")
    if not target.parent.is_dir():
        raise CliError(f"{flag} {path}: no folder {target.parent} to write it in")


def _write(path: str, write) -> None:
    try:
        write(path)
    except OSError as exc:
        raise CliError(f"{path}: cannot write: {exc.strerror or exc}") from None


def _status(picture) -> str:
    """The status line of a picture's text (its second line: who acts, or how the game ended)."""
    lines = picture.text.splitlines()
    return lines[1] if len(lines) > 1 else lines[0]


# --------------------------------------------------------------------------------------------------
# play


@functools.lru_cache(maxsize=16)
def _jitted_init(env: Env):
    return announced(jax.jit(env.init), f"{env.id}'s init")


@functools.lru_cache(maxsize=16)
def _policy(env: Env, opponent: str):
    """The jitted ``(state, key) -> action`` of ``opponent`` for ``env`` (one game)."""
    from tcgjax.train.policies import opponent_policy  # here: it imports every game's rules

    try:
        policy = opponent_policy(env, opponent)
    except TcgjaxError as exc:
        raise CliError(f"--opponent {opponent}: {exc}") from None
    what = {"random": "the random policy", "heuristic": f"{env.id}'s heuristic player"}
    return announced(jax.jit(policy), what.get(opponent, f"{env.id}'s trained agent ({opponent})"))


def _read_move(names: dict[str, int | None], seat: int) -> int | None:
    """One line of the human's input as an action id (legal or not), or ``None`` to quit.

    ``names``: move name -> id (``None`` for a name two listed moves share). Raises EOFError at
    the end of input; an entry that is neither an id nor a move name (or an ambiguous name) is
    reported and asked again."""
    while True:
        line = input(f"player {seat + 1}, your move (id, name, or q to quit): ").strip()
        if line.lower() in QUIT:
            return None
        if names.get(line) is not None:
            return names[line]
        try:
            return int(line)
        except ValueError:
            pass
        if line in names:
            print(f"ambiguous: {line!r} names more than one move; type its id")
        elif line:
            print(f"not a move: {line!r}; type an action id or a move name from the list, or q")


def _print_moves(env: Env, state: State, seat: int) -> dict[str, int | None]:
    """Print the legal moves of ``state``, each as its id and its name there for ``seat``
    (``env.describe_action``, e.g. ``play Agumon (hand 0)``); return what the human may type:
    those names and each id's phase-free name (``env.action_name``: ``play[0]``), as
    ``{name: id}``. A listed name wins over a phase-free one; a listed name two legal moves
    share maps to ``None`` (the shipped games name the legal moves of a state apart)."""
    names: dict[str, int | None] = {env.action_name(a): a for a in range(env.num_actions)}
    listed: dict[str, int | None] = {}
    print("legal moves:")
    for action in np.flatnonzero(np.asarray(state.legal_action_mask)):
        name = env.describe_action(state, int(action), viewer=seat)
        listed[name] = None if name in listed else int(action)
        print(f"  {int(action)}: {name}")
    return names | listed


def _named(env: Env, state: State, action: int, seat: int) -> str:
    """A move's name in ``state``, the position it was made in, as ``seat`` may see it."""
    return env.describe_action(state, action, viewer=seat)


def _cmd_play(args: argparse.Namespace) -> int:
    env = _make_env(args.env, _parse_options(args.option))
    seat = _player(args.seat, env, "--seat")
    if args.record:
        _check_output(args.record, "--record")  # before the game, not after it
    policy = _policy(env, args.opponent)
    return _play_game(env, seat, policy, args)


def _play_game(env: Env, seat: int, policy, args: argparse.Namespace) -> int:
    """The game of ``tcgjax play`` once its arguments are checked; returns the exit status."""
    root = jax.random.PRNGKey(args.seed)
    step_root, policy_root = jax.random.fold_in(root, 1), jax.random.fold_in(root, 2)
    recorder = tcgjax.replay.Recorder(env, _jitted_init(env)(jax.random.fold_in(root, 0)))
    if args.viewer_only:
        intro = f"the {args.opponent} policy plays both seats, seen by player {seat + 1}"
    else:
        intro = f"you are player {seat + 1}, against the {args.opponent} policy"
    print(f"{env.id} (seed {args.seed}): {intro}")
    move, quit_reason = 0, None
    while not (bool(recorder.state.terminated) or bool(recorder.state.truncated)):
        state = recorder.state
        actor = int(state.current_player)
        key = jax.random.fold_in(step_root, move)
        if actor == seat:
            print()
            print(env.render(state, viewer=seat).text)
        if actor == seat and not args.viewer_only:
            names = _print_moves(env, state, seat)
            while True:
                try:
                    action = _read_move(names, seat)
                except EOFError:
                    quit_reason = "end of input"
                    break
                except KeyboardInterrupt:
                    quit_reason = "interrupted"
                    break
                if action is None:
                    quit_reason = "quit"
                    break
                try:
                    recorder.step(action, key)
                except IllegalActionError as exc:
                    print(f"illegal move: {exc}")
                    continue
                # Named in the position it was made in (the state before the move).
                print(f"player {actor + 1} (you) plays: {_named(env, state, action, seat)}")
                break
            if quit_reason:
                break
        else:
            action = int(policy(state, jax.random.fold_in(policy_root, move)))
            recorder.step(action, key)
            print(f"player {actor + 1} plays: {_named(env, state, action, seat)}")
        move += 1
    final = env.render(recorder.state, viewer=seat)
    if quit_reason:
        print(f"\ngame abandoned ({quit_reason}) after {move} moves: {_status(final)}")
    else:
        print()
        print(final.text)
        you = "seen by" if args.viewer_only else "you are"
        print(f"result: {_status(final)} ({you} player {seat + 1})")
    if args.record:
        replay = recorder.export()
        _write(args.record, lambda p: Path(p).write_text(json.dumps(replay), encoding="utf-8"))
        print(f"wrote the replay ({move} moves) to {args.record}")
    return 1 if quit_reason else 0


# --------------------------------------------------------------------------------------------------
# render


def _cmd_render(args: argparse.Namespace) -> int:
    text, data = _read_json(args.state, "state")
    if isinstance(data, dict) and "commandLog" in data:
        raise CliError(
            f"{args.state}: a replay, not a state: `tcgjax replay {args.state} -o OUT.html`"
        )
    env_id = data.get("envId") if isinstance(data, dict) else None
    if not isinstance(env_id, str):
        raise CliError(f"{args.state}: no string envId: not a JSON state of tcgjax.to_json")
    env = _make_env(env_id, _parse_options(args.option))
    viewer = _player(args.viewer, env, "--viewer")
    try:
        state = tcgjax.from_json(env, text)
    except TcgjaxError as exc:
        hint = "" if args.option else " (made with env options? they are not in the file: --option)"
        raise CliError(f"{args.state}: {exc}{hint}") from None
    picture = env.render(state, viewer=viewer)
    if args.output is None:
        print(picture.text)
        return 0
    _write(args.output, picture.save)
    print(f"wrote {args.output}")
    return 0


# --------------------------------------------------------------------------------------------------
# replay


def _cmd_replay(args: argparse.Namespace) -> int:
    _, replay = _read_json(args.replay, "replay")
    env = None
    try:  # the replay's env, shared with other commands; a bad envId is reported by to_html
        if isinstance(replay.get("envId"), str) and isinstance(replay.get("options"), dict):
            env = _make_env(replay["envId"], replay["options"], hint=False)
    except (AttributeError, TypeError, CliError):
        env = None
    if args.viewer is not None and env is None:
        viewer = args.viewer - 1
    else:
        viewer = None if env is None else _player(args.viewer, env, "--viewer")
    try:
        tcgjax.replay.to_html(
            replay, args.output, env=env, viewer=viewer, verify=not args.no_verify
        )
    except OSError as exc:
        raise CliError(f"{args.output}: cannot write: {exc.strerror or exc}") from None
    except (TcgjaxError, ValueError) as exc:  # ValueError: a viewer the env does not have
        raise CliError(f"{args.replay}: {exc}") from None
    print(f"wrote {args.output}")
    return 0


# --------------------------------------------------------------------------------------------------
# bench


def _cmd_bench(argv: list[str]) -> int:
    from tcgjax import bench  # imported here: the other commands do not need it

    try:
        result = bench.main(argv)
    except SystemExit as exc:  # --help, or a usage error of the harness's parser
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return result if isinstance(result, int) else 0


# --------------------------------------------------------------------------------------------------
# Parser and entry point


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tcgjax",
        description="tcgjax from the command line: play a game in the terminal, draw a JSON "
        "state, turn a replay into a page, check a deck, time an env.",
        epilog="Exit status: 0 success, 1 a game quit before its end (or an illegal deck), 2 an "
        "error.",
    )
    parser.add_argument("--version", action="version", version=f"tcgjax {tcgjax.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    option_help = "an env option for tcgjax.make, the value read as YAML (repeatable)"

    play = sub.add_parser(
        "play",
        help="play one seat of a game in the terminal against a policy",
        description="Play one seat of ENV against a policy. When you are to act, your view of "
        "the game and the legal moves are printed, each named in the position (e.g. 'play "
        "Agumon (hand 0)'): type a move's id or its name as listed (or the id's phase-free "
        "name, e.g. 'play[0]'), or q to quit. "
        "Exit status 0 at the end of the game, 1 when quit (q or end of input).",
    )
    play.add_argument("env", metavar="ENV", help=f"env id: {', '.join(tcgjax.available_envs())}")
    play.add_argument("--seat", type=int, choices=(1, 2), default=1, help="your seat (default 1)")
    play.add_argument(
        "--opponent",
        metavar="OPPONENT",
        default="random",
        help="the policy of the other seat: random (uniformly random legal moves), heuristic "
        "(the game's scripted player, tcgjax.train.opponents), baseline (the game's shipped "
        "trained agent, tcgjax.train.policies) or RUN_DIR (a run directory of python -m "
        "tcgjax.train: its latest checkpoint); default random",
    )
    play.add_argument(
        "--seed",
        type=_seed,
        default=0,
        help=f"seed of the deal and every step key: 0 to {SEED_LIMIT - 1} (default 0)",
    )
    play.add_argument(
        "--viewer-only",
        action="store_true",
        help="only watch: the policy plays both seats, shown from --seat's view; reads no input",
    )
    play.add_argument("--record", metavar="PATH", help="write the game's replay JSON to PATH")
    play.add_argument("--option", action="append", metavar="KEY=VALUE", help=option_help)

    render = sub.add_parser(
        "render",
        help="draw a JSON state as SVG or text",
        description="Draw a JSON state (tcgjax.to_json) as SVG (-o OUT.svg) or text (-o OUT.txt, "
        "or printed without -o). Its env options are not in the file: give them with --option.",
    )
    render.add_argument("state", metavar="STATE.json")
    render.add_argument(
        "-o", "--output", metavar="OUT", help="OUT.svg for SVG, any other suffix for text"
    )
    render.add_argument(
        "--viewer",
        type=int,
        metavar="N",
        help="draw player N's view (1 or 2: the opponent's hidden cards face down); "
        "default: everything face up",
    )
    render.add_argument("--option", action="append", metavar="KEY=VALUE", help=option_help)

    replay = sub.add_parser(
        "replay",
        help="write the HTML page stepping through a recorded game",
        description="Re-simulate a replay (tcgjax.replay.Recorder.export, e.g. from "
        "`tcgjax play --record`) and write one self-contained HTML page stepping through it.",
    )
    replay.add_argument("replay", metavar="REPLAY.json")
    replay.add_argument("-o", "--output", metavar="OUT.html", required=True)
    replay.add_argument(
        "--viewer", type=int, metavar="N", help="player N's view (1 or 2); default everything"
    )
    replay.add_argument(
        "--no-verify",
        action="store_true",
        help="do not check the replay's final digest (a replay without one needs this)",
    )

    serve = sub.add_parser(
        "serve",
        help="play against an agent in the browser (a local web app; the serve extra)",
        description="Start the local web app of tcgjax.serve: pick a game, a seat and an "
        "opponent (random, heuristic, baseline or a run directory) and play by clicking the legal "
        "moves; the move log and a replay download are on the page.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")

    deck = sub.add_parser(
        "deck",
        help="check a deck: legal, and every card known",
        description="Check a deck (a YAML deck file, a deck list as players write it: a .txt "
        "file with one card a line, '4 Agumon ST1-03' or Pokémon TCG Live's export, or a shipped "
        "deck's name): its size, copies, Digi-Egg deck or Basic Pokémon, that every card is in "
        "the card file and that tcgjax implements its effects (a card imported with stats only "
        "does not). Lists every problem. Exit status 0 for a legal deck, 1 otherwise.",
    )
    deck.add_argument("action", choices=("check",), help="what to do (check)")
    deck.add_argument("deck", metavar="FILE", help="the deck file, list or shipped name")
    deck.add_argument("--game", required=True, choices=DECK_GAMES, help="the card game")
    deck.add_argument(
        "--cards",
        metavar="CARDS",
        help="the card file the deck's cards come from (default: the game's shipped cards)",
    )
    deck.add_argument(
        "--allow-vanilla",
        action="store_true",
        help="accept cards whose effects are not implemented (stats only), as the env option "
        "allow_vanilla=True plays them: without effects",
    )

    sub.add_parser(
        "bench",
        help="the throughput harness (tcgjax.bench; `tcgjax bench --help`)",
        add_help=False,
    )
    return parser


def _cmd_serve(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise CliError(f"--port {args.port}: must be from 1 to 65535")
    try:
        from tcgjax.serve import serve
    except ImportError as exc:  # the serve extra (starlette, uvicorn) is not installed
        raise CliError(f"needs the serve extra (pip install 'tcgjax[serve]'): {exc}") from None
    serve(args.host, args.port)
    return 0


DECK_GAMES = ("digimon", "pokemon")


def _cmd_deck(args: argparse.Namespace) -> int:
    """``tcgjax deck check FILE --game G``: every problem of the deck, or that it is legal."""
    import importlib

    decks = importlib.import_module(f"tcgjax.games.{args.game}.decks")
    cards = importlib.import_module(f"tcgjax.games.{args.game}.cards")
    registry = cards.load_cards() if args.cards is None else cards.load_cards(args.cards)
    allow = args.allow_vanilla
    problems = decks.deck_problems(args.deck, registry, allow_vanilla=allow)
    if problems:
        print(f"{args.deck}: not a legal {args.game} deck ({len(problems)} problem(s)):")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    deck = decks.load_deck(args.deck, registry, allow_vanilla=allow)
    listed = deck.eggs + deck.main if args.game == "digimon" else deck.cards
    sizes = (
        f"{len(deck.main)} cards and {len(deck.eggs)} Digi-Eggs"
        if args.game == "digimon"
        else f"{len(deck.cards)} cards"
    )
    vanilla = sorted(set(listed) & registry.stats_only)
    played = (
        f"{len(vanilla)} card(s) play without their effects (stats only, --allow-vanilla): "
        + ", ".join(f"{c} ({registry.definition(c)['name']})" for c in vanilla)
        if vanilla
        else "every card known and its effects implemented"
    )
    print(f"{args.deck}: a legal {args.game} deck, {deck.name!r}: {sizes}; {played}")
    return 0


_COMMANDS = {
    "play": _cmd_play,
    "render": _cmd_render,
    "replay": _cmd_replay,
    "serve": _cmd_serve,
    "deck": _cmd_deck,
}


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv else None
    try:
        if command == "bench":  # every further argument belongs to the harness's own parser
            return _cmd_bench(argv[1:])
        try:
            args = _parser().parse_args(argv)
        except SystemExit as exc:  # --help (0) or a usage error (2), already printed
            return exc.code if isinstance(exc.code, int) else 2
        command = args.command
        return _COMMANDS[command](args)
    except CliError as exc:
        message = str(exc)
    except (TcgjaxError, OSError, json.JSONDecodeError) as exc:
        message = f"{type(exc).__name__}: {exc}"
    print(f"tcgjax {command}: error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
