"""The ``tcgjax`` command line (tcgjax/cli.py): play, render, replay, bench.

Every command runs in this process through ``cli.main(argv)`` (one subprocess checks
``python -m tcgjax.cli``), on the duel env the CLI caches, so that compiled functions are shared
between tests. ``play`` is driven through a stdin that reads the screen like a person would.
"""

import copy
import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import jax
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import tcgjax
from tcgjax import cli

SVG_ROOT = "{http://www.w3.org/2000/svg}svg"


@pytest.fixture(scope="module")
def env():
    return cli._make_env("duel", {})  # the env every duel command below uses


@pytest.fixture(scope="module")
def state(env):
    return cli._jitted_init(env)(jax.random.PRNGKey(0))


@pytest.fixture
def state_file(env, state, tmp_path):
    path = tmp_path / "state.json"
    path.write_text(tcgjax.to_json(env, state), encoding="utf-8")
    return path


def section(text: str, player: int) -> list[str]:
    """The lines of ``player``'s side (1-based) in a duel picture's text."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"--- player {player}"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("---")), len(lines))
    return lines[start + 1 : end]


# --------------------------------------------------------------------------------------------------
# render


def test_render_svg_parses_as_xml(state_file, tmp_path, capsys):
    out = tmp_path / "position.svg"
    assert cli.main(["render", str(state_file), "-o", str(out)]) == 0
    assert ET.parse(out).getroot().tag == SVG_ROOT
    assert str(out) in capsys.readouterr().out


def test_render_text_to_file_and_stdout(env, state, state_file, tmp_path, capsys):
    out = tmp_path / "position.txt"
    assert cli.main(["render", str(state_file), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text == env.render(state).text + "\n"
    assert text.startswith("duel: turn 1\n")  # the title line
    capsys.readouterr()
    assert cli.main(["render", str(state_file)]) == 0
    assert capsys.readouterr().out == env.render(state).text + "\n"


def test_render_viewer_1_hides_the_opponents_hand(env, state, state_file, capsys):
    assert cli.main(["render", str(state_file), "--viewer", "1"]) == 0
    text = capsys.readouterr().out.rstrip("\n")
    assert text == env.render(state, viewer=0).text
    hand = [line for line in section(text, 2) if line.startswith("  hand")]
    cards = hand[0].split(": ", 1)[1].split(", ")
    assert cards and all(card == "(face down)" for card in cards)
    # Everything face up without --viewer: the same hand shows its cards.
    open_hand = [line for line in section(env.render(state).text, 2) if line.startswith("  hand")]
    assert "(face down)" not in open_hand[0] and len(open_hand[0].split(", ")) == len(cards)
    # Player 1's own hand stays face up in their view.
    own = [line for line in section(text, 1) if line.startswith("  hand")]
    assert "(face down)" not in own[0]


def test_render_viewer_2_matches_env_render(env, state, state_file, capsys):
    assert cli.main(["render", str(state_file), "--viewer", "2"]) == 0
    assert capsys.readouterr().out.rstrip("\n") == env.render(state, viewer=1).text


def test_render_missing_file_names_it(tmp_path, capsys):
    missing = tmp_path / "nowhere.json"
    assert cli.main(["render", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcgjax render: error: ") and str(missing) in err
    assert "Traceback" not in err


def test_render_malformed_json_names_it(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"envId": "duel",', encoding="utf-8")
    assert cli.main(["render", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcgjax render: error: ") and str(bad) in err and "JSON" in err


def test_render_a_state_the_env_refuses_names_the_file_and_field(env, state, tmp_path, capsys):
    data = json.loads(tcgjax.to_json(env, state))
    del data["turnState"]
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert cli.main(["render", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "turnState" in err


def test_render_bad_option_and_viewer(state_file, capsys):
    assert cli.main(["render", str(state_file), "--option", "max_steps"]) == 2
    assert "--option 'max_steps'" in capsys.readouterr().err
    assert cli.main(["render", str(state_file), "--option", "colour=red"]) == 2
    assert "'colour'" in capsys.readouterr().err
    assert cli.main(["render", str(state_file), "--viewer", "3"]) == 2
    assert "--viewer 3" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------------
# replay


@pytest.fixture(scope="module")
def recorded(env, state):
    """A short duel: the first legal id, then the last, alternately; key 100 + i for move i."""
    recorder = tcgjax.replay.Recorder(env, state)
    for i in range(8):
        legal = [a for a in range(env.num_actions) if bool(recorder.state.legal_action_mask[a])]
        recorder.step(legal[0] if i % 2 == 0 else legal[-1], jax.random.PRNGKey(100 + i))
    return json.loads(json.dumps(recorder.export()))


def test_replay_writes_a_page_with_the_moves(recorded, tmp_path, capsys):
    path, out = tmp_path / "game.json", tmp_path / "game.html"
    path.write_text(json.dumps(recorded), encoding="utf-8")
    assert cli.main(["replay", str(path), "-o", str(out), "--viewer", "1"]) == 0
    shown = tcgjax.replay.page_data(out)
    names = [c["payload"]["actionName"] for c in recorded["commandLog"]]
    assert len(set(names)) > 1
    assert shown["views"] == ["player 1"]  # the CLI counts players from 1
    assert [p["views"][0]["action"] for p in shown["positions"][1:]] == names
    assert all(p["actor"].startswith("player ") for p in shown["positions"][1:])
    assert str(out) in capsys.readouterr().out


def test_replay_with_an_edited_final_digest_is_refused(recorded, tmp_path, capsys):
    edited = copy.deepcopy(recorded)
    edited["final"]["sha256"] = "0" * 64
    path, out = tmp_path / "edited.json", tmp_path / "edited.html"
    path.write_text(json.dumps(edited), encoding="utf-8")
    assert cli.main(["replay", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcgjax replay: error: ") and str(path) in err and "final" in err
    assert not out.exists()
    # --no-verify skips the digest (the log itself is still checked move by move).
    assert cli.main(["replay", str(path), "-o", str(out), "--no-verify"]) == 0
    assert out.exists()


def test_replay_names_the_file_entry_and_field_of_a_wrong_move_name(
    env, recorded, tmp_path, capsys
):
    # A current recording (replayFormat 3) holding an older recording's phase-free name.
    edited = copy.deepcopy(recorded)
    payload = edited["commandLog"][2]["payload"]
    old = env.action_name(payload["action"])
    assert payload["actionName"] != old
    payload["actionName"] = old
    path, out = tmp_path / "renamed.json", tmp_path / "renamed.html"
    path.write_text(json.dumps(edited), encoding="utf-8")
    assert cli.main(["replay", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: replay.commandLog[2].payload.actionName: {old!r}" in err
    assert not out.exists()
    # The same names without the replayFormat field (nor format 3's digests of the record): an
    # older recording, accepted as it was.
    del edited["replayFormat"]
    del edited["final"]["record"]
    for command in edited["commandLog"]:
        command["payload"]["actionName"] = env.action_name(command["payload"]["action"])
    path.write_text(json.dumps(edited), encoding="utf-8")
    assert cli.main(["replay", str(path), "-o", str(out)]) == 0
    # The page names the moves in their positions all the same.
    shown = tcgjax.replay.page_data(out)["positions"][1:]
    for view in range(3):
        assert [p["views"][view]["action"] for p in shown] == [
            c["payload"]["actionName"] for c in recorded["commandLog"]
        ]


def test_replay_missing_file(tmp_path, capsys):
    missing = tmp_path / "gone.json"
    assert cli.main(["replay", str(missing), "-o", str(tmp_path / "x.html")]) == 2
    assert str(missing) in capsys.readouterr().err


# --------------------------------------------------------------------------------------------------
# play


class Human:
    """A ``sys.stdin`` for ``input()`` that reads the ``screen`` (the captured stdout) as a person
    would: it first types ``entries`` (strings, or functions of the listed move ids), then always
    the first listed legal move (its id, or its name with ``by_name``). ``typed`` records the ids
    of the moves it chose from the list."""

    def __init__(self, screen: io.StringIO, entries=(), by_name=False):
        self.screen, self.entries, self.by_name = screen, list(entries), by_name
        self.typed: list[int] = []

    def listed(self) -> list[tuple[int, str]]:
        text = self.screen.getvalue()
        listing = text[text.rindex("legal moves:") :]
        return [(int(i), name) for i, name in re.findall(r"^  (\d+): (.+)$", listing, re.M)]

    def readline(self) -> str:
        if self.entries:
            entry = self.entries.pop(0)
            return (entry(self.listed()) if callable(entry) else entry) + "\n"
        action, name = self.listed()[0]
        self.typed.append(action)
        return (name if self.by_name else str(action)) + "\n"


def play(monkeypatch, argv, stdin=None, **human):
    """``tcgjax play duel *argv`` with ``stdin`` (default: a :class:`Human`); returns the exit
    status, the screen and the stdin."""
    screen = io.StringIO()
    typist = Human(screen, **human) if stdin is None else stdin
    monkeypatch.setattr("sys.stdout", screen)
    monkeypatch.setattr("sys.stdin", typist)
    code = cli.main(["play", "duel", *argv])
    monkeypatch.undo()
    return code, screen.getvalue(), typist


def human_moves(replay, player):
    return [
        c["payload"]["action"] for c in replay["commandLog"] if c["payload"]["playerId"] == player
    ]


def test_play_a_full_duel_through_stdin(env, monkeypatch, tmp_path):
    record = tmp_path / "played.json"

    def illegal(listed):  # an id that is not among the listed legal moves
        unlisted = sorted(set(range(env.num_actions)) - {i for i, _ in listed})
        assert unlisted
        illegal.id = unlisted[0]
        return str(unlisted[0])

    code, out, human = play(
        monkeypatch, ["--seed", "3", "--record", str(record)], entries=["abc", illegal]
    )
    assert code == 0, out
    assert "not a move: 'abc'" in out
    # The first position (seed 3): moves are named in it, by their cards.
    first = cli._jitted_init(env)(jax.random.fold_in(jax.random.PRNGKey(3), 0))
    name = env.describe_action(first, illegal.id)
    assert name != env.action_name(illegal.id) and ("hand" in name or "board" in name)
    rule = f"illegal move: duel: action {illegal.id} ({name}) by player1"
    assert rule in out and "is illegal: rule '" in out
    listing = out[out.index("legal moves:") : out.index("your move")]
    assert f"  {human.typed[0]}: {env.describe_action(first, human.typed[0])}\n" in listing
    # The bad entries changed nothing: one picture and one list before the first move, and the
    # first move of the game is the first one typed from the list.
    before = out[: out.index(" plays: ")]
    assert before.count("legal moves:") == 1 and before.count("player 1 to act; step 0") == 1
    assert "step 1" not in before
    assert f"player 1 (you) plays: {env.describe_action(first, human.typed[0])}\n" in out
    assert "\nresult: game over: player " in out
    assert "wrote the replay" in out

    replay = json.loads(record.read_text(encoding="utf-8"))
    final = tcgjax.replay.run(replay)
    assert bool(final.terminated)
    assert replay["commandLog"][0]["payload"]["action"] == human.typed[0]
    assert human_moves(replay, "player1") == human.typed
    assert len(human_moves(replay, "player2")) > 0
    assert out.count("player 2 plays: ") == len(human_moves(replay, "player2"))
    # What the screen says each player played is the move's name in the position it was made
    # in: the recording's actionName (env.describe_action of the state before the move).
    printed = re.findall(r"player (\d) (?:\(you\) )?plays: (.+)$", out, re.M)  # after a prompt
    recorded = [
        (c["payload"]["playerId"][-1], c["payload"]["actionName"]) for c in replay["commandLog"]
    ]
    assert printed == recorded
    assert any(name.startswith(("play ", "cast ")) for _, name in printed)
    assert "end the turn" in {name for _, name in printed}


def test_play_seat_2_by_move_names_against_the_heuristic(env, monkeypatch, tmp_path):
    record = tmp_path / "played.json"
    argv = ["--seat", "2", "--opponent", "heuristic", "--seed", "1", "--record", str(record)]
    code, out, human = play(monkeypatch, argv, by_name=True)
    assert code == 0, out
    assert "--- player 2 (viewer)" in out and "player 2 (you) plays: " in out
    replay = json.loads(record.read_text(encoding="utf-8"))
    assert bool(tcgjax.replay.run(replay).terminated)
    assert human.typed and human_moves(replay, "player2") == human.typed


def test_play_a_name_two_listed_moves_share_is_refused_as_ambiguous(monkeypatch, capsys):
    # No shipped game names two legal moves alike; the prompt still refuses to guess.
    monkeypatch.setattr("sys.stdin", io.StringIO("twin\nend the turn\n"))
    assert cli._read_move({"twin": None, "end the turn": 9}, 0) == 9
    assert "ambiguous: 'twin' names more than one move; type its id" in capsys.readouterr().out


def test_play_end_of_input_quits_with_1(monkeypatch, tmp_path):
    record = tmp_path / "abandoned.json"
    code, out, _ = play(monkeypatch, ["--record", str(record)], stdin=io.StringIO("1x\n"))
    assert code == 1
    assert "not a move: '1x'" in out
    assert "game abandoned (end of input)" in out
    assert json.loads(record.read_text(encoding="utf-8"))["commandLog"] == []


def test_play_q_quits_with_1(monkeypatch):
    code, out, _ = play(monkeypatch, [], stdin=io.StringIO("q\nthis line is never read\n"))
    assert code == 1 and "game abandoned (quit)" in out


def test_play_against_the_shipped_baseline_and_a_missing_run(monkeypatch, capsys):
    code, out, human = play(monkeypatch, ["--viewer-only", "--seed", "2", "--opponent", "baseline"])
    assert code == 0 and human.typed == []
    assert "the baseline policy plays both seats" in out and "result: " in out
    assert cli.main(["play", "duel", "--opponent", "no/such/run"]) == 2
    err = capsys.readouterr().err
    assert "--opponent no/such/run" in err and "neither 'baseline' nor a run directory" in err


def test_play_viewer_only_reads_no_input(monkeypatch):
    code, out, human = play(monkeypatch, ["--viewer-only", "--seed", "2"])
    assert code == 0 and human.typed == []
    assert "legal moves:" not in out and "player 1 plays: " in out and "result: " in out


def test_play_bad_options(capsys):
    assert cli.main(["play", "duel", "--option", "oops"]) == 2
    assert "--option 'oops'" in capsys.readouterr().err
    assert cli.main(["play", "duel", "--option", "colour=red"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcgjax play: error: ") and "'colour'" in err
    assert cli.main(["play", "no_such_game"]) == 2
    assert "no_such_game" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------------
# bench, help


def test_bench_runs_the_harness_parser(capsys):
    assert cli.main(["bench", "--help"]) == 0
    out = capsys.readouterr().out
    assert "usage: tcgjax bench" in out and "--batch" in out
    assert cli.main(["bench", "--batch", "0"]) == 2


def test_bench_records_only_where_asked(tmp_path, monkeypatch, capsys):
    """``tcgjax bench`` (the harness in the package, so it works from a wheel) appends its row to
    the file given with ``--results`` and to no file without it."""
    monkeypatch.chdir(tmp_path)
    argv = ["bench", "--env", "duel", "--batch", "2", "--steps", "2", "--repeats", "1"]
    assert cli.main(argv) == 0
    assert list(tmp_path.iterdir()) == []
    assert cli.main([*argv, "--results", "mine.md"]) == 0
    text = (tmp_path / "mine.md").read_text()
    assert "| duel | 2 | 2 |" in text, text


def test_version(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"tcgjax {tcgjax.__version__}"


@pytest.mark.parametrize("command", ["play", "render", "replay"])
def test_subcommand_help(command, capsys):
    assert cli.main([command, "--help"]) == 0
    assert f"usage: tcgjax {command}" in capsys.readouterr().out


def test_python_m_tcgjax_cli_help():
    proc = subprocess.run(
        [sys.executable, "-m", "tcgjax.cli", "--help"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    for command in ("play", "render", "replay", "bench"):
        assert command in proc.stdout


# --------------------------------------------------------------------------------------------------
# Bad input: exit status 2 and a message naming it, never a traceback (issue #33)


def assert_refused(code, capsys, command, *parts):
    """Exit status 2, one ``tcgjax <command>: error:`` line (or argparse's usage error) naming
    ``parts``, and no traceback."""
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert err.startswith(f"tcgjax {command}: error: ") or f"usage: tcgjax {command}" in err, err
    for part in parts:
        assert part in err, (part, err)
    return err


def test_option_values_refuse_a_repeated_key_naming_it(state_file, capsys):
    """Every other file the library reads refuses a repeated key; so does an --option value."""
    code = cli.main(["render", str(state_file), "--option", "max_steps={turns: 1, turns: 2}"])
    assert_refused(code, capsys, "render", "--option 'max_steps={turns: 1, turns: 2}'", "'turns'")
    with pytest.raises(cli.CliError, match="duplicate key 'a'"):
        cli._parse_options(["x=[{a: 1, a: 2}]"])


def test_option_values_nested_too_deep_or_with_huge_ints(state_file, capsys):
    deep = "[" * 5000 + "]" * 5000
    code = cli.main(["render", str(state_file), "--option", f"max_steps={deep}"])
    assert_refused(code, capsys, "render", "--option 'max_steps=[[[", "nested too deeply")
    code = cli.main(["render", str(state_file), "--option", "max_steps=" + "7" * 5000])
    assert_refused(code, capsys, "render", "--option 'max_steps=777", "digits")
    code = cli.main(["render", str(state_file), "--option", f"max_steps={2**70}"])
    assert_refused(code, capsys, "render", "max_steps", str(2**70))


@pytest.mark.parametrize("seed", [str(2**70), str(2**32), "-1", "1.5", "abc", "9" * 5000])
def test_play_refuses_a_seed_that_is_not_a_uint32(seed, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code = cli.main(["play", "duel", "--viewer-only", "--seed", seed])
    err = assert_refused(code, capsys, "play", "--seed")
    assert "0 to 4294967295" in err or "invalid" in err
    assert len(err) < 400


def test_play_seed_bounds_parse(capsys):
    parse = cli._parser().parse_args
    assert parse(["play", "duel", "--seed", "4294967295"]).seed == 2**32 - 1
    assert parse(["play", "duel", "--seed", "0"]).seed == 0
    with pytest.raises(SystemExit):  # the first seed jax.random.PRNGKey would alias (to 0)
        parse(["play", "duel", "--seed", "4294967296"])
    assert "--seed" in capsys.readouterr().err


def json_files(tmp_path):
    """Files no JSON state or replay can be read from, by what is wrong with them."""
    files = {
        "nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
        "an int of 5000 digits": '{"envId": "duel", "x": ' + "9" * 5000 + "}",
        "not UTF-8": b"\xff\xfe{}",
        "not JSON": "{'envId': 'duel'}",
        "a repeated key": '{"envId": "duel", "envId": "duel"}',
    }
    out = {}
    for name, content in files.items():
        path = tmp_path / (name.replace(" ", "_").replace(",", "") + ".json")
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        out[name] = path
    out["missing"] = tmp_path / "missing.json"
    out["a directory"] = tmp_path
    return out


def test_unreadable_state_and_replay_files_exit_2_naming_the_file(tmp_path, capsys):
    for name, path in json_files(tmp_path).items():
        assert_refused(cli.main(["render", str(path)]), capsys, "render", str(path)), name
        out = tmp_path / "page.html"
        assert_refused(cli.main(["replay", str(path), "-o", str(out)]), capsys, "replay", str(path))
        assert not out.exists()


@pytest.mark.parametrize("where", ["missing folder", "a directory"])
def test_play_checks_the_record_path_before_the_game(where, tmp_path, monkeypatch, capsys):
    path = tmp_path / "no" / "such" / "x.json" if where == "missing folder" else tmp_path
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code = cli.main(["play", "duel", "--viewer-only", "--record", str(path)])
    out = capsys.readouterr().out
    assert code == 2 and "plays:" not in out  # refused before the first move


# --------------------------------------------------------------------------------------------------
# Fuzzing the argument handling (Hypothesis): exit 2 with a message, or a correct run; never an
# exception. No game is played and nothing new is compiled: ``play`` stops where its checked
# arguments would start the game, and ``render`` reads only the cached duel env.

INT_TEXTS = st.one_of(
    st.integers(min_value=-(2**80), max_value=2**80).map(str),
    st.sampled_from(["9" * 5000, "-" + "9" * 5000, "1.5", "1e3", "0x10", "", " ", "nan", "1_0"]),
    st.text(max_size=8),
)
OPTION_VALUES = st.sampled_from(
    [
        "{a: 1, a: 2}",
        "[{a: 1, a: 2}]",
        "[" * 3000 + "]" * 3000,
        "{" * 3000 + "}" * 3000,
        "7" * 5000,
        str(2**70),
        "-1",
        "0",
        "x",
        "[1]",
        "{b: 2}",
        "'unclosed",
        "2024-13-45",
        ": :",
    ]
)
OPTIONS = st.tuples(
    st.sampled_from(["max_steps", "illegal_action", "colour", "", " "]), OPTION_VALUES
).map(lambda kv: f"{kv[0]}={kv[1]}") | st.sampled_from(["max_steps", "=", "=1"])


@pytest.fixture(scope="module")
def fuzz_files(env, state, tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    files = {name: str(path) for name, path in json_files(root).items()}
    valid = root / "state.json"
    valid.write_text(tcgjax.to_json(env, state), encoding="utf-8")
    files["a valid state"] = str(valid)
    for name, text in {
        "a list": "[1, 2]",
        "no envId": "{}",
        "envId a number": '{"envId": 7}',
        "envId unknown": '{"envId": "nope", "options": {}}',
        "a replay for render": '{"commandLog": []}',
    }.items():
        path = root / (name.replace(" ", "_") + ".json")
        path.write_text(text, encoding="utf-8")
        files[name] = str(path)
    (root / "out").mkdir()
    outputs = [str(root / "out" / "x.svg"), str(root / "out"), str(root / "no" / "x.html"), ""]
    return files, outputs


@st.composite
def argvs(draw, files, outputs):
    command = draw(st.sampled_from(["play", "render", "replay"]))
    flags: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        if command == "play":
            flag = draw(st.sampled_from(["--seed", "--seat", "--option", "--record", "--opponent"]))
        elif command == "render":
            flag = draw(st.sampled_from(["--viewer", "--option", "-o"]))
        else:
            flag = draw(st.sampled_from(["--viewer", "-o", "--no-verify"]))
        value = {
            "--seed": INT_TEXTS,
            "--seat": INT_TEXTS,
            "--viewer": INT_TEXTS,
            "--option": OPTIONS,
            "--record": st.sampled_from(outputs),
            "-o": st.sampled_from(outputs),
            "--opponent": st.sampled_from(["random", "heuristic", "nobody"]),
            "--no-verify": st.none(),
        }[flag]
        drawn = draw(value)
        flags += [flag] if drawn is None else [flag, drawn]
    if command == "play":
        head = [draw(st.sampled_from(["duel", "deployment", "nope", ""]))]
    else:
        bad = [v for k, v in files.items() if k != "a valid state"]
        head = [
            draw(st.sampled_from(bad + ([files["a valid state"]] if command == "render" else [])))
        ]
    return [command, *head, *flags]


def test_fuzz_cli_arguments_exit_2_with_a_message_or_run_correctly(fuzz_files, capsys):
    files, outputs = fuzz_files
    reached = []

    def game(env, seat, policy, args):  # where the checked arguments would start the game
        assert 0 <= args.seed < 2**32 and isinstance(args.seed, int)
        assert seat in range(env.num_players)
        if args.record:
            assert os.path.isdir(os.path.dirname(args.record) or ".")
            assert not os.path.isdir(args.record)
        reached.append(args)
        return 0

    @settings(max_examples=250, deadline=None, derandomize=True, database=None)
    @given(argv=argvs(files, outputs))
    def check(argv):
        capsys.readouterr()
        code = cli.main(argv)
        out, err = capsys.readouterr()
        assert "Traceback" not in err
        if code == 0:
            assert argv[0] in ("play", "render") and not err, (argv, err)
        else:
            assert code == 2, (argv, code, err)
            command = argv[0]
            assert err.startswith(f"tcgjax {command}: error: ") or "usage: tcgjax" in err, err
            assert len(err.strip()) > len(f"tcgjax {command}: error: ")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cli, "_play_game", game)
        check()
    assert reached, "no example reached the game: the fuzz tests only refusals"


@pytest.mark.parametrize(
    "flag, value",
    [("--seed", str(2**70)), ("--seed", "-1"), ("--batch", str(2**70)), ("--steps", str(2**31))],
)
def test_bench_refuses_numbers_jax_cannot_hold(flag, value, capsys):
    numbers = {"--batch": "2", "--steps": "2", "--repeats": "1", flag: value}
    argv = ["bench", "--no-record", *(x for item in numbers.items() for x in item)]
    assert cli.main(argv) == 2  # refused by the harness's parser, before any work
    err = capsys.readouterr().err
    assert "Traceback" not in err and "usage: tcgjax bench" in err and flag in err, err


# --------------------------------------------------------------------------------------------------
# deck check


def test_deck_check_says_a_legal_list_is_legal(capsys):
    deck = os.path.join(os.path.dirname(__file__), "games/pokemon/data/tapu_koko_ptcgl.txt")
    assert cli.main(["deck", "check", deck, "--game", "pokemon"]) == 0
    out = capsys.readouterr().out
    assert (
        "a legal pokemon deck" in out
        and "60 cards; every card known and its effects implemented" in out
    )
    assert cli.main(["deck", "check", "st2", "--game", "digimon"]) == 0
    assert "50 cards and 4 Digi-Eggs" in capsys.readouterr().out


def test_deck_check_lists_every_problem_and_exits_1(tmp_path, capsys):
    listed = os.path.join(os.path.dirname(__file__), "games/digimon/data/st1_deck_list.txt")
    with open(listed, encoding="utf-8") as fh:
        text = fh.read().replace("2 Gaia Force ST1-16", "6 Gaia Force ST1-16")
    path = tmp_path / "too_many.txt"
    path.write_text(text, encoding="utf-8")
    assert cli.main(["deck", "check", str(path), "--game", "digimon"]) == 1
    out = capsys.readouterr().out
    assert "not a legal digimon deck (2 problem(s))" in out
    assert "main: 54 cards; a main deck has 50" in out and "ST1-16: 6 copies" in out
    path.write_text(text.replace("4 Agumon ST1-03", "4 Agumon ST1-33"), encoding="utf-8")
    assert cli.main(["deck", "check", str(path), "--game", "digimon"]) == 1
    assert "unknown cards" in capsys.readouterr().out


def test_deck_check_needs_a_card_game(capsys):
    assert cli.main(["deck", "check", "st1", "--game", "duel"]) == 2
    assert "invalid choice: 'duel'" in capsys.readouterr().err


def test_deck_check_names_cards_whose_effects_are_not_implemented(tmp_path, capsys):
    # A card file where Agumon and Greymon are marked as the importer marks stats-only cards.
    from tcgjax.games.digimon.cards import STARTER_CARDS

    data = yaml.safe_load(open(STARTER_CARDS, encoding="utf-8"))
    for entry in data["cards"]:
        if entry["id"] in ("ST1-03", "ST1-07"):
            entry["stats_only"] = True
    cards = tmp_path / "cards.yaml"
    cards.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    argv = ["deck", "check", "st1", "--game", "digimon", "--cards", str(cards)]
    assert cli.main(argv) == 1
    out = capsys.readouterr().out
    assert "not a legal digimon deck (1 problem(s))" in out
    assert "2 card(s) whose effects" in out and "ST1-03 (Agumon), ST1-07 (Greymon);" in out
    assert cli.main([*argv, "--allow-vanilla"]) == 0
    out = capsys.readouterr().out
    assert "a legal digimon deck" in out
    assert "2 card(s) play without their effects (stats only, --allow-vanilla): " in out
    assert "ST1-03 (Agumon), ST1-07 (Greymon)" in out
    assert cli.main(["deck", "check", "st2", "--game", "digimon", "--cards", str(cards)]) == 0
    assert "every card known and its effects implemented" in capsys.readouterr().out
    assert cli.main([*argv[:5], "--cards", str(tmp_path / "none.yaml")]) == 2
    assert "none.yaml" in capsys.readouterr().err
