"""`make mutation`'s own logic (tools/mutation.py) that needs no mutation run: which operators run,
which mutants sit in never-evaluated annotations, and that every target and equivalent is real."""

import ast
import importlib.util
import json
import os
import subprocess
import sys
import time
import types

import pytest
import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location(
    "mutation", os.path.join(REPO, "tools", "mutation.py")
)
mutation = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("mutation", mutation)  # dataclasses look their module up there
_spec.loader.exec_module(mutation)


@pytest.mark.parametrize(
    ("operator", "runs"),
    [
        ("core/ReplaceBinaryOperator_Add_Sub", True),
        ("core/ReplaceBinaryOperator_Add_Mul", False),
        ("core/ReplaceComparisonOperator_Lt_LtE", True),
        ("core/ReplaceComparisonOperator_Lt_Gt", False),
        ("core/NumberReplacer", True),
        ("core/RemoveDecorator", False),
        ("core/ReplaceUnaryOperator_Delete_Not", True),
        ("core/ReplaceUnaryOperator_USub_UAdd", False),
        ("core/ZeroIterationForLoop", True),
        ("core/ZeroIterationForLoopX", False),
    ],
)
def test_operator_selection(operator, runs):
    assert bool(mutation._RUN.match(operator)) is runs


class _Mutation:
    def __init__(self, line, col):
        self.start_pos = (line, col)


def test_annotation_spans_only_where_annotations_are_not_evaluated(tmp_path, monkeypatch):
    source = (
        "from __future__ import annotations\n"
        "def f(x: int | str, y=1 | 2) -> bool | None:\n"
        "    z: int | None = x\n"
        "    return isinstance(z, int | str)\n"
    )
    (tmp_path / "m.py").write_text(source)
    (tmp_path / "n.py").write_text(source.split("\n", 1)[1])
    monkeypatch.setattr(mutation, "REPO", str(tmp_path))
    spans = mutation._annotation_spans("m.py")
    bars = [
        (i + 1, c)
        for i, line in enumerate(source.splitlines())
        for c, ch in enumerate(line)
        if ch == "|"
    ]
    inside = [mutation._in_spans(_Mutation(*pos), spans) for pos in bars]
    # x: int | str (annotation), y=1 | 2 (a default: evaluated), -> bool | None, z: int | None,
    # isinstance(z, int | str) (evaluated).
    assert inside == [True, False, True, True, False]
    assert mutation._annotation_spans("n.py") == [], "without the __future__ import they run"


def test_targets_and_equivalents_name_real_code():
    for target in mutation.TARGETS:
        assert os.path.isfile(os.path.join(REPO, target.module)), target.module
        for tests in target.tests:
            assert os.path.exists(os.path.join(REPO, tests)), tests
    with open(mutation.EQUIVALENT) as fh:
        entries = yaml.safe_load(fh)
    for entry in entries:
        assert set(entry) - {"line"} == {"module", "operator", "original", "mutated", "why"}, entry
        with open(os.path.join(REPO, entry["module"])) as fh:
            lines = [line.strip() for line in fh]
        assert entry["original"] in lines, entry["original"]
        if "line" in entry:
            assert lines[entry["line"] - 1] == entry["original"], entry
        assert mutation._RUN.match(entry["operator"]), entry["operator"]
    for module, names in mutation.BUILT_ONCE.items():
        with open(os.path.join(REPO, module)) as fh:
            defined = {n.name for n in ast.parse(fh.read()).body if isinstance(n, ast.FunctionDef)}
        assert set(names) <= defined, (module, set(names) - defined)


def test_an_equivalent_with_a_line_explains_that_line_only(tmp_path, monkeypatch):
    """The same text on two lines: an entry naming line 3 explains the mutant there, not the one
    on line 7 (a loop header repeated through a module, say)."""
    equivalent = tmp_path / "equivalent.yaml"
    equivalent.write_text(
        "- {module: pkg/m.py, operator: core/NumberReplacer, original: 'x = 1', "
        "mutated: 'x = 2', line: 3, why: same}\n"
    )
    monkeypatch.setattr(mutation, "EQUIVALENT", str(equivalent))

    def diff(line):
        return f"--- a\n+++ b\n@@ -{line - 1},3 +{line - 1},3 @@\n a = 0\n-x = 1\n+x = 2\n b = 0\n"

    assert mutation._changed_line_number(diff(3)) == 3
    assert mutation._is_equivalent("pkg/m.py", "core/NumberReplacer", diff(3))
    assert not mutation._is_equivalent("pkg/m.py", "core/NumberReplacer", diff(7))


def test_forget_survivors_keeps_killed_skipped_and_explained_mutants(tmp_path, monkeypatch):
    """A changed test suite reruns only the survivors (cosmic-ray stores enum names), except those
    explained as equivalent: no test can kill them."""
    import sqlite3

    equivalent = tmp_path / "equivalent.yaml"
    equivalent.write_text(
        "- {module: pkg/m.py, operator: core/NumberReplacer, original: 'x = 1', "
        "mutated: 'x = 2', why: same}\n"
    )
    monkeypatch.setattr(mutation, "EQUIVALENT", str(equivalent))
    session = str(tmp_path / "session.sqlite")
    con = sqlite3.connect(session)
    with con:
        con.execute(
            "CREATE TABLE work_results (worker_outcome VARCHAR(9), output TEXT, "
            "test_outcome VARCHAR(11), diff TEXT, job_id VARCHAR NOT NULL, PRIMARY KEY (job_id))"
        )
        con.execute("CREATE TABLE mutation_specs (job_id VARCHAR, operator_name VARCHAR)")
        explained = "--- a\n+++ b\n-x = 1\n+x = 2\n"
        other = "--- a\n+++ b\n-x = 1\n+x = 0\n"
        rows = [("NORMAL", "KILLED", "a", other), ("NORMAL", "SURVIVED", "b", other),
                ("SKIPPED", None, "c", None), ("NORMAL", "INCOMPETENT", "d", other),
                ("ABNORMAL", None, "e", other), ("NORMAL", "SURVIVED", "f", explained)]  # fmt: skip
        con.executemany(
            "INSERT INTO work_results (worker_outcome, test_outcome, job_id, diff) "
            "VALUES (?, ?, ?, ?)",
            rows,
        )
        con.executemany(
            "INSERT INTO mutation_specs VALUES (?, 'core/NumberReplacer')", [(r[2],) for r in rows]
        )
    con.close()
    assert sorted(mutation._forget_survivors(session, "pkg/m.py")) == ["b", "d", "e"]
    # The same survivor in another module is not explained by pkg/m.py's entry.
    con = sqlite3.connect(session)
    left = sorted(r[0] for r in con.execute("SELECT job_id FROM work_results"))
    con.close()
    assert left == ["a", "c", "f"]
    assert mutation._forget_survivors(session, "pkg/other.py") == ["f"]


def _cosmic_session(target, files, base):
    """A cosmic-ray session of ``target`` under ``base`` (its tree copied, config written,
    ``cosmic-ray init`` run); returns ``(config, session)``."""
    mutation._copy_tree(files, str(base / "tree"))
    config, session = str(base / "cosmic-ray.toml"), str(base / "session.sqlite")
    mutation._write_config(target, config, timeout_s=60)
    assert mutation._cosmic_ray("init", config, session, cwd=str(base / "tree")).returncode == 0
    return config, session


def test_known_equivalents_are_recorded_without_a_test_run(tmp_path, monkeypatch):
    """A pending mutant that an entry explains is recorded as a survivor with cosmic-ray's diff,
    not run; the same line mutated otherwise (1 -> 0) and the other line's mutants stay
    pending."""
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "m.py").write_text("def f(x):\n    y = x + 1\n    return y + 1\n")
    monkeypatch.setattr(mutation, "REPO", str(repo))
    monkeypatch.setattr(mutation, "WORK", str(repo / ".mutation"))
    equivalent = tmp_path / "equivalent.yaml"
    equivalent.write_text(
        "- {module: pkg/m.py, operator: core/NumberReplacer, original: 'y = x + 1', "
        "mutated: 'y = x + 2', line: 2, why: same}\n"
    )
    monkeypatch.setattr(mutation, "EQUIVALENT", str(equivalent))
    target = mutation.Target("pkg/m.py", ("tests",))
    base = repo / ".mutation" / target.slug
    files = ["pkg/m.py"]
    config, session = _cosmic_session(target, files, base)
    with mutation._open_db(session) as db:
        numbers = [
            i for i in db.work_items if i.mutations[0].operator_name == "core/NumberReplacer"
        ]
        before = db.num_results
    # NumberReplacer writes each literal 1 as 2 and as 0: two mutants a line, four in all.
    assert len(numbers) == 4
    assert mutation.record_known_equivalents(target, str(base / "tree"), session) == 1
    with mutation._open_db(session) as db:
        results = dict(db.results)
        assert db.num_results == before + 1
        (job_id,) = [j for j in results if results[j].output == mutation.EQUIVALENT_NOT_RUN]
        result = results[job_id]
        (item,) = [i for i in db.work_items if i.job_id == job_id]
    assert result.test_outcome.name == "SURVIVED" and item.mutations[0].start_pos[0] == 2
    assert "-    y = x + 1" in result.diff.splitlines() and result.diff.startswith("--- mutation")
    assert mutation._is_equivalent("pkg/m.py", "core/NumberReplacer", result.diff)
    assert mutation.record_known_equivalents(target, str(base / "tree"), session) == 0


def test_archive_round_trip_restores_every_outcome(tmp_path, monkeypatch):
    """A new checkout resumes from the tracked archive: export a session, drop it, restore it."""
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "m.py").write_text("def f(x):\n    return x + 1 if x > 0 else x - 1\n")
    monkeypatch.setattr(mutation, "REPO", str(repo))
    monkeypatch.setattr(mutation, "WORK", str(repo / ".mutation"))
    monkeypatch.setattr(mutation, "ARCHIVE", str(repo / "archive"))
    monkeypatch.setattr(mutation, "EQUIVALENT", str(repo / "none.yaml"))
    target = mutation.Target("pkg/m.py", ("tests",))
    base = repo / ".mutation" / target.slug
    base.mkdir(parents=True)
    files = ["pkg/m.py"]
    module_fp = mutation._fingerprint(files)
    # A session with every kind of outcome: killed, timeout, survived, skipped and pending.
    config, session = _cosmic_session(target, files, base)
    with mutation._open_db(session) as db:
        items = sorted(db.work_items, key=lambda i: (i.mutations[0].operator_name, i.job_id))
        chosen = {
            "killed": WorkResult(WorkerOutcome.NORMAL, "", TestOutcome.KILLED),
            "timeout": WorkResult(WorkerOutcome.NORMAL, "timeout", TestOutcome.KILLED),
            "survived": WorkResult(WorkerOutcome.NORMAL, "", TestOutcome.SURVIVED, "-a\n+b"),
            "survived_quick": WorkResult(
                WorkerOutcome.NORMAL, "quick: only tests/test_v.py", TestOutcome.SURVIVED, "-c"
            ),
            "skipped": WorkResult(WorkerOutcome.SKIPPED, "operator not run"),
        }
        for item, result in zip(items, chosen.values(), strict=False):
            db.set_result(item.job_id, result)
        expected = {
            (i.mutations[0].operator_name, i.mutations[0].occurrence): name
            for i, name in zip(items, [*chosen, *["pending"] * len(items)], strict=False)
        }
    (base / "state.json").write_text(json.dumps(dict(module=module_fp, tests="t", baseline_s=1.5)))
    mutation.export(target)
    archived = mutation._load_archive(target)
    assert archived["baseline_s"] == 1.5 and archived["module_fingerprint"] == module_fp
    got = {(m["operator"], m["occurrence"]): m["outcome"] for m in archived["mutants"]}
    assert got == {k: v for k, v in expected.items() if v != "skipped"}
    assert [m.get("diff") for m in archived["mutants"] if m["outcome"] == "survived"] == ["-a\n+b"]
    assert [m.get("diff") for m in archived["mutants"] if m["outcome"] == "survived_quick"] == [
        "-c"
    ]
    # A changed module does not restore; the same module does, outcome for outcome.
    assert not mutation.restore(target, files, "another fingerprint")
    import shutil

    shutil.rmtree(base)
    base.mkdir(parents=True)
    assert mutation.restore(target, files, module_fp)
    with mutation._open_db(session) as db:
        results = dict(db.results)
        restored = {
            (i.mutations[0].operator_name, i.mutations[0].occurrence): mutation._outcome(
                results.get(i.job_id)
            )
            for i in db.work_items
        }
    assert restored == {k: ("pending" if v == "skipped" else v) for k, v in expected.items()}
    counts = mutation.summarize(target)
    # A quick survivor counts as a survivor (conservative) until every test has run it.
    assert (counts["killed"], counts["timeouts"], counts["survived"]) == (2, 1, 2)
    assert not counts["stale"]
    # A run with every test re-opens the quick survivors, and only them.
    (quick,) = [j for j, r in results.items() if (r.output or "").startswith("quick:")]
    assert mutation.reopen_quick_survivors(session) == [quick]
    with mutation._open_db(session) as db:
        assert quick not in dict(db.results) and len(dict(db.results)) == len(results) - 1
    # Outcomes of an earlier version of the module are marked as such in the report.
    (repo / "pkg" / "m.py").write_text("def f(x):\n    return x + 2\n")
    assert mutation.summarize(target)["stale"]


def _git(repo: str, *args: str) -> str:
    """Run git in ``repo`` with a throwaway identity; its output, stripped."""
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def test_lines_changed_since_are_the_added_and_changed_lines(tmp_path):
    def git(*args):
        return _git(str(tmp_path), *args)

    module = tmp_path / "m.py"
    module.write_text("".join(f"line{i}\n" for i in range(1, 11)))
    git("init", "-q")
    git("add", "m.py")
    git("commit", "-qm", "base")
    lines = module.read_text().splitlines()
    lines[2] = "changed3"  # line 3 changed
    del lines[5]  # line 6 deleted: nothing on the new side
    lines.insert(7, "new")  # a line added after line 8 (new line 8)
    module.write_text("\n".join(lines) + "\n")
    assert mutation.lines_changed_since("HEAD", "m.py", repo=str(tmp_path)) == {3, 8}
    with pytest.raises(SystemExit, match="no-such-rev"):
        mutation.lines_changed_since("no-such-rev", "m.py", repo=str(tmp_path))
    with pytest.raises(SystemExit, match="no-such-end"):
        mutation.lines_changed_since("HEAD..no-such-end", "m.py", repo=str(tmp_path))


def test_lines_changed_follow_moved_code_and_a_range_names_one_issues_lines(tmp_path):
    """A function moved to a new module keeps the commit that wrote its lines (git blame -C), so
    after a split only what was really changed counts; ``REV..END`` keeps the lines those commits
    wrote and drops what came after."""

    def git(*args):
        return _git(str(tmp_path), *args)

    body = [
        f"    value_{i} = compute_something_long_enough_to_be_matched({i}, 'text')\n"
        for i in range(8)
    ]
    (tmp_path / "m.py").write_text("def kept():\n    return 1\n\n\ndef moved():\n" + "".join(body))
    git("init", "-q")
    git("add", "m.py")
    git("commit", "-qm", "base")
    base = git("rev-parse", "HEAD")
    # The "issue": one line of moved() changed.
    text = (tmp_path / "m.py").read_text().replace("(3, 'text')", "(3, 'changed')")
    (tmp_path / "m.py").write_text(text)
    git("commit", "-qam", "issue")
    issue = git("rev-parse", "HEAD")
    # Later: moved() goes to its own module unchanged, and one more line of it changes after.
    lines = text.splitlines(keepends=True)
    (tmp_path / "m.py").write_text("".join(lines[:2]))
    (tmp_path / "room.py").write_text("".join(lines[4:]))
    git("add", "m.py", "room.py")
    git("commit", "-qm", "split")
    room = (tmp_path / "room.py").read_text().replace("(6, 'text')", "(6, 'later')")
    (tmp_path / "room.py").write_text(room)
    git("commit", "-qam", "later")
    repo = str(tmp_path)
    # room.py's line 1 is "def moved():", then value_0 .. value_7 on lines 2..9.
    assert mutation.lines_changed_since(base, "room.py", repo=repo) == {5, 8}
    assert mutation.lines_changed_since(f"{base}..{issue}", "room.py", repo=repo) == {5}
    assert mutation.lines_changed_since(f"{base}..{issue}", "m.py", repo=repo) == set()


def test_group_summary_weights_each_modules_rate_by_its_mutants():
    # A small module run whole (10 mutants, 5 killed) and a big one sampled (100 mutants, 10 run,
    # all killed): the pooled ratio 15/20 over-weights the small one; the estimate weights them
    # 10 : 100.
    small = dict(total=10, killed=5, timeouts=1, equivalent=0, survived=5, pending=0, kill_rate=0.5)
    big = dict(total=100, killed=9, timeouts=0, equivalent=1, survived=0, pending=90, kill_rate=1.0)
    unrun = dict(total=7, killed=0, timeouts=0, equivalent=0, survived=0, pending=7, kill_rate=None)
    whole = mutation.group_summary([small, big, unrun])
    assert whole["kill_rate"] == pytest.approx((10 * 0.5 + 100 * 1.0) / 110)
    assert (whole["total"], whole["killed"], whole["judged"], whole["pending"]) == (117, 14, 19, 97)
    assert (whole["timeouts"], whole["equivalent"], whole["survived"]) == (1, 1, 5)
    assert mutation.group_summary([unrun])["kill_rate"] is None


def test_a_line_of_a_cached_builder_runs_every_test_that_uses_what_it_built(tmp_path, monkeypatch):
    """--by-coverage: a builder whose product is cached runs once, in the first test that needs
    it, so coverage names only that test; a line of a BUILT_ONCE function runs every test that
    runs a line of it (its nested check, run at each call, keeps its own tests)."""
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "m.py").write_text(
        "_CACHE = {}\n"  # 1
        "def build():\n"  # 2
        "    limit = 3\n"  # 3: once, in test_a
        "    def check(x):\n"  # 4: once, in test_a
        "        return x < limit\n"  # 5: test_a, test_b
        "    return check\n"  # 6: once, in test_a
        "def table():\n"  # 7
        "    if 't' not in _CACHE:\n"  # 8
        "        _CACHE['t'] = build()\n"  # 9
        "    return _CACHE['t']\n"  # 10
    )
    (repo / "tests" / "test_one.py").write_text(
        "from pkg.m import table\n\n"
        "def test_a():\n    assert table()(1)\n\n"
        "def test_b():\n    assert not table()(5)\n\n"
        "def test_c():\n    assert True\n"
    )
    files = ["pkg/__init__.py", "pkg/m.py", "tests/test_one.py"]
    monkeypatch.setattr(mutation, "REPO", str(repo))
    monkeypatch.setattr(mutation, "WORK", str(repo / ".mutation"))
    target = mutation.Target("pkg/m.py", ("tests/test_one.py",))
    mutation._copy_tree(files, str(repo / ".mutation" / target.slug / "tree"))
    cmap, _ = mutation.coverage_map(target, files)
    monkeypatch.setattr(mutation, "BUILT_ONCE", {})
    assert mutation.tests_for_line(cmap, target, 3) == ["tests/test_one.py::test_a"]
    monkeypatch.setattr(mutation, "BUILT_ONCE", {"pkg/m.py": ("build",)})
    both = {"tests/test_one.py::test_a", "tests/test_one.py::test_b"}
    assert set(mutation.tests_for_line(cmap, target, 3)) == both
    assert set(mutation.tests_for_line(cmap, target, 6)) == both
    assert set(mutation.tests_for_line(cmap, target, 5)) == both  # its own coverage
    assert mutation.built_once_lines(str(repo / "pkg" / "m.py"), "pkg/m.py", 5) is None
    assert mutation.tests_for_line(cmap, target, 9) == ["tests/test_one.py::test_a"]


def test_a_budget_stop_kills_the_mutants_processes_in_their_own_session(tmp_path):
    # What cosmic-ray leaves behind: a process in a session of its own, working in the tree.
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    orphan = subprocess.Popen(["sleep", "600"], cwd=tree / "sub", start_new_session=True)
    bystander = subprocess.Popen(["sleep", "600"], cwd=tmp_path)
    try:
        assert mutation._kill_processes_in(str(tree)) == [orphan.pid]
        assert orphan.wait(timeout=10) == -9
        assert bystander.poll() is None
    finally:
        for p in (orphan, bystander):
            p.kill()
            p.wait()


def test_lines_of_definitions_cover_named_functions_and_classes_at_any_depth(tmp_path):
    (tmp_path / "m.py").write_text(
        "import functools\n"  # 1
        "\n"  # 2
        "def top():\n"  # 3
        "    return 1\n"  # 4
        "\n"  # 5
        "class Rules:\n"  # 6
        "    @functools.cache\n"  # 7
        "    def validate(self):\n"  # 8
        "        return 2\n"  # 9
        "\n"  # 10
        "def other():\n"  # 11
        "    return 3\n"  # 12
    )
    assert mutation.lines_of_definitions({"validate"}, "m.py", repo=str(tmp_path)) == {7, 8, 9}
    assert mutation.lines_of_definitions({"top", "validate"}, "m.py", repo=str(tmp_path)) == {
        3,
        4,
        7,
        8,
        9,
    }
    with pytest.raises(SystemExit, match="defines no nowhere"):
        mutation.lines_of_definitions({"nowhere", "top"}, "m.py", repo=str(tmp_path))
    assert mutation.lines_of_definitions({"o*", "val*"}, "m.py", repo=str(tmp_path)) == {
        7,
        8,
        9,
        11,
        12,
    }


def test_coverage_map_names_the_tests_that_run_each_line(tmp_path, monkeypatch):
    """--by-coverage: a line maps to exactly the tests that run it; a line run at import runs the
    whole list; a line no test runs gets none; only the changed test file runs again."""
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "m.py").write_text(
        "LIMIT = 3\n"  # 1: import
        "\n"  # 2
        "def small(x):\n"  # 3: import (the def)
        "    return x < LIMIT\n"  # 4: test_a, test_b
        "\n"  # 5
        "def big(x):\n"  # 6
        "    if x > 100:\n"  # 7: test_b
        "        return 'huge'\n"  # 8: no test
        "    return 'big'\n"  # 9: test_b
    )
    (repo / "tests" / "test_one.py").write_text(
        "from pkg.m import small\n\ndef test_a():\n    assert small(1)\n"
    )
    (repo / "tests" / "test_two.py").write_text(
        "from pkg.m import big, small\n\n"
        "def test_b():\n    assert not small(5) and big(7) == 'big'\n\n"
        "def test_c():\n    assert True\n"
    )
    files = ["pkg/__init__.py", "pkg/m.py", "tests/test_one.py", "tests/test_two.py"]
    monkeypatch.setattr(mutation, "REPO", str(repo))
    monkeypatch.setattr(mutation, "WORK", str(repo / ".mutation"))
    target = mutation.Target("pkg/m.py", ("tests/test_two.py", "tests"))
    assert mutation._test_files(target) == ["tests/test_two.py", "tests/test_one.py"]
    mutation._copy_tree(files, str(repo / ".mutation" / target.slug / "tree"))
    cmap, seconds = mutation.coverage_map(target, files)
    assert seconds > 0
    assert mutation.tests_for_line(cmap, target, 1) is None
    assert mutation.tests_for_line(cmap, target, 3) is None
    assert set(mutation.tests_for_line(cmap, target, 4)) == {
        "tests/test_two.py::test_b",
        "tests/test_one.py::test_a",
    }
    # Quickest first, as the coverage run timed them.
    seconds = {f: e["seconds"] for f, e in cmap["files"].items()}
    assert set(seconds["tests/test_two.py"]) == {
        "tests/test_two.py::test_b",
        "tests/test_two.py::test_c",
    }
    cmap["files"]["tests/test_two.py"]["seconds"]["tests/test_two.py::test_b"] = 9.0
    cmap["files"]["tests/test_one.py"]["seconds"]["tests/test_one.py::test_a"] = 1.0
    assert mutation.tests_for_line(cmap, target, 4) == [
        "tests/test_one.py::test_a",
        "tests/test_two.py::test_b",
    ]
    assert mutation.tests_for_line(cmap, target, 7) == ["tests/test_two.py::test_b"]
    assert mutation.tests_for_line(cmap, target, 8) == []
    # Nothing changed: nothing runs again. A changed test file: only it runs again.
    assert mutation.coverage_map(target, files)[1] == 0
    (repo / "tests" / "test_one.py").write_text(
        "from pkg.m import big\n\ndef test_a():\n    assert big(500) == 'huge'\n"
    )
    mutation._copy_tree(files, str(repo / ".mutation" / target.slug / "tree"))
    cmap, seconds = mutation.coverage_map(target, files)
    assert seconds > 0
    assert mutation.tests_for_line(cmap, target, 8) == ["tests/test_one.py::test_a"]
    assert mutation.tests_for_line(cmap, target, 4) == ["tests/test_two.py::test_b"]


_TOY_MODULE = (
    "class Base:\n"  # 1
    "    def size(self):\n"  # 2
    "        return 1\n"  # 3
    "\n"  # 4
    "class Box(Base):\n"  # 5
    "    def size(self):\n"  # 6
    "        return super().size() + 1\n"  # 7: Add #0, a method with a __class__ cell
    "\n"  # 8
    "    @property\n"  # 9
    "    def double(self):\n"  # 10
    "        return self.size() * 2\n"  # 11: a property's getter
    "\n"  # 12
    "def small(x):\n"  # 13
    "    return x < 3\n"  # 14
    "\n"  # 15
    "def unused(x):\n"  # 16
    "    return x + 1\n"  # 17: Add #1, no test notices
    "\n"  # 18
    "def spin(n):\n"  # 19
    "    while n > 0:\n"  # 20
    "        n = n - 1\n"  # 21: Sub -> Add loops forever
    "    return n\n"  # 22
    "\n"  # 23
    "LIMIT = 3 + 0\n"  # 24: Add #2, run at import
    "\n"  # 25
    "_TABLE = []\n"  # 26
    "\n"  # 27
    "def table():\n"  # 28: built once, on first use, and kept
    "    if not _TABLE:\n"  # 29
    "        _TABLE.append(2 * 21)\n"  # 30: Mul #1
    "    return _TABLE[0]\n"  # 31
    "\n"  # 32
    "class Rules:\n"  # 33
    "    def memo(self):\n"  # 34: kept in the object, as the rules keep their invariant table
    "        if '_memo' not in self.__dict__:\n"  # 35
    "            self.__dict__['_memo'] = build()\n"  # 36
    "        return self.__dict__['_memo']\n"  # 37
    "\n"  # 38
    "def build():\n"  # 39
    "    return 6 * 7\n"  # 40: Mul #2
    "\n"  # 41
    "RULES = Rules()\n"  # 42
)

_TOY_TESTS = (
    "import pytest\n\nfrom pkg.m import RULES, Box, small, spin, table, unused\n\n"
    "@pytest.fixture(scope='session')\ndef kind():\n    return Box\n\n"
    "@pytest.fixture\ndef box(kind):\n    return kind()\n\n"
    "def test_box(box):\n    assert box.size() == 2 and box.double == 4\n\n"
    "def test_small():\n    assert small(1) and not small(5)\n\n"
    "def test_loose():\n    assert unused(1) > -10\n\n"
    "def test_spin():\n    assert spin(3) == 0\n\n"
    "def test_table():\n    assert table() == 42\n\n"
    "def test_memo():\n    assert RULES.memo() == 42\n"
)


def _run_toy(
    tmp_path, plan: dict, extra_tests: str = "", test_files: tuple[str, ...] = ("test_toy.py",)
) -> dict:
    """Run the toy tests (and ``extra_tests``) under the in-process plugin with ``plan``; the
    rows it wrote, by job."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "m.py").write_text(_TOY_MODULE)
    (tmp_path / "test_toy.py").write_text(_TOY_TESTS + extra_tests)
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    results = tmp_path / "results.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        + ["-p", "mutation_inprocess", *test_files],
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        | {
            "PYTHONPATH": os.pathsep.join([str(tmp_path), os.path.join(REPO, "tools")]),
            "MUTATION_PLAN": str(tmp_path / "plan.json"),
            "MUTATION_RESULTS": str(results),
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "pkg" / "m.py").read_text() == _TOY_MODULE  # nothing written to disk
    return {r["job_id"]: r for r in map(json.loads, results.read_text().splitlines())}


def _toy_mutant(job, operator, occurrence, line, tests):
    return dict(
        job_id=job,
        operator=f"core/{operator}",
        occurrence=occurrence,
        line=line,
        tests=[f"test_toy.py::{t}" for t in tests],
    )


def test_in_process_run_kills_what_a_fresh_process_kills_and_leaves_the_rest(tmp_path):
    """--in-process (tools/mutation_inprocess.py): cosmic-ray's own mutants, swapped into the live
    functions of one test process, are killed by the tests that notice them (a method calling
    super(), a property, a plain function, one that loops forever: timeout); a mutant no test
    notices is only 'not killed' (cosmic-ray's run decides); one outside a function body is left
    alone; and the module is unmutated afterwards (the last test passes). A killing test runs
    again unmutated right after itself, with its fixtures set up anew. Every test runs once
    unmutated before the first mutant that runs it, so a table built on first use is built from
    the original code (a mutant inside it is not killed here: cosmic-ray's fresh process
    decides); one kept in an attribute the plan names is dropped after each swap and restore, and
    rebuilt mutated."""
    mutant = _toy_mutant  # short, for the table below
    plan = dict(
        module="pkg/m.py",
        timeout_s=3.0,
        deadline=9e18,
        drop_attributes=["_memo"],
        mutants=[
            mutant("super", "ReplaceBinaryOperator_Add_Sub", 0, 7, ["test_small", "test_box"]),
            mutant("property", "ReplaceBinaryOperator_Mul_Sub", 0, 11, ["test_box"]),
            mutant("plain", "ReplaceComparisonOperator_Lt_Gt", 0, 14, ["test_small"]),
            mutant("unnoticed", "ReplaceBinaryOperator_Add_Sub", 1, 17, ["test_loose"]),
            mutant("loops", "ReplaceBinaryOperator_Sub_Add", 0, 21, ["test_spin"]),
            mutant("import", "ReplaceBinaryOperator_Add_Sub", 2, 24, ["test_small"]),
            # The table was built (unmutated) by the warm-up pass: this mutant cannot show here,
            # and leaves nothing behind.
            mutant("cached", "ReplaceBinaryOperator_Mul_Add", 1, 30, ["test_table"]),
            # Kept in an attribute the plan names: dropped after the swap, rebuilt mutated.
            mutant("memo", "ReplaceBinaryOperator_Mul_Add", 2, 40, ["test_memo"]),
            mutant("memo again", "ReplaceBinaryOperator_Mul_Sub", 2, 40, ["test_memo"]),
            mutant("after", "ReplaceComparisonOperator_Lt_Gt", 0, 14, ["test_box"]),
        ],
    )
    rows = _run_toy(tmp_path, plan)
    assert {j: (r["outcome"], r["test"]) for j, r in rows.items()} == {
        "super": ("killed", "test_toy.py::test_box"),
        "property": ("killed", "test_toy.py::test_box"),
        "plain": ("killed", "test_toy.py::test_small"),
        "unnoticed": ("not_killed", None),
        "loops": ("killed", "test_toy.py::test_spin"),
        "import": ("outside_function", None),
        "cached": ("not_killed", None),
        "memo": ("killed", "test_toy.py::test_memo"),
        "memo again": ("killed", "test_toy.py::test_memo"),
        "after": ("not_killed", None),
    }
    assert "-    return x < 3\n+    return x > 3" in rows["plain"]["diff"]


def test_a_tainted_mutant_hands_the_rest_to_a_fresh_process():
    """A run that stops on a tainted mutant (its killing test then failed unmutated) is followed
    by a fresh run over the mutants it had not reached, without the tainted one; a run with no
    tainted mutant, or past the budget, is the last."""
    mutants = [{"job_id": j} for j in "abcde"]
    calls = []

    def run_once(left):
        calls.append([m["job_id"] for m in left])
        if left[0]["job_id"] in "ac":  # a kill, then a mutant that taints its killing test
            return [
                {"job_id": left[0]["job_id"], "outcome": "killed"},
                {"job_id": left[1]["job_id"], "outcome": "tainted"},
            ]
        return [{"job_id": m["job_id"], "outcome": "not_killed"} for m in left]

    rounds = list(mutation.in_process_rounds(run_once, mutants, deadline=None))
    assert calls == [list("abcde"), list("cde"), list("e")]
    assert [len(r) for r in rounds] == [2, 2, 1]
    calls.clear()
    past = list(mutation.in_process_rounds(run_once, mutants, deadline=time.monotonic() - 1))
    assert calls == [list("abcde")] and len(past) == 1


def test_a_cache_named_with_its_class_is_dropped_only_from_that_class():
    """``Class.attribute`` in the plan's caches drops the attribute from instances of that class
    (and subclasses) only; a plain name drops it everywhere."""
    spec = importlib.util.spec_from_file_location(
        "mutation_inprocess", os.path.join(REPO, "tools", "mutation_inprocess.py")
    )
    mutation_inprocess = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mutation_inprocess)

    class DeploymentRules:
        pass

    class Sub(DeploymentRules):
        pass

    class Package:
        pass

    rules, sub, package = DeploymentRules(), Sub(), Package()
    for obj in (rules, sub, package):
        obj.invariants, obj._invariant_table = "table", "table"
    dropped = mutation_inprocess.drop_cached(["_invariant_table", "DeploymentRules.invariants"])
    assert dropped >= 5
    assert not hasattr(rules, "invariants") and not hasattr(sub, "invariants")
    assert package.invariants == "table"
    assert not any(hasattr(o, "_invariant_table") for o in (rules, sub, package))


def test_an_in_process_run_past_its_deadline_runs_nothing(tmp_path):
    """The budget is checked before each mutant and before each test's first (unmutated) run: a
    plan whose deadline has passed runs no test and records no mutant."""
    plan = dict(
        module="pkg/m.py",
        timeout_s=3.0,
        deadline=0.0,
        drop_attributes=[],
        mutants=[_toy_mutant("plain", "ReplaceComparisonOperator_Lt_Gt", 0, 14, ["test_ran"])],
    )
    ran = "\n\ndef test_ran():\n    open('ran.txt', 'w').close()\n"
    assert _run_toy(tmp_path, plan, extra_tests=ran) == {}
    assert not (tmp_path / "ran.txt").exists()


def test_a_mutant_runs_the_tests_of_every_line_of_its_statement(tmp_path):
    """Coverage records a line only when evaluation reaches it: a test that stops at the false
    first operand of a two-line ``and`` never runs the second line, though a mutant there
    (``and`` -> ``or``) changes the result. A line maps to its whole innermost statement (a
    compound statement's header only)."""
    path = tmp_path / "m.py"
    path.write_text(
        "def idle(a, b):\n"  # 1
        "    ok = (\n"  # 2
        "        a\n"  # 3
        "        and b\n"  # 4
        "    )\n"  # 5
        "    if (a or\n"  # 6
        "            b):\n"  # 7
        "        return 1\n"  # 8
        "    return ok\n"  # 9
    )
    assert list(mutation.statement_lines(str(path), 4)) == [2, 3, 4, 5]
    assert list(mutation.statement_lines(str(path), 7)) == [6, 7]
    assert list(mutation.statement_lines(str(path), 8)) == [8]
    assert list(mutation.statement_lines(str(path), 1)) == [1]


def test_an_in_process_mutant_runs_its_tests_file_by_file():
    """Switching test files rebuilds module-scoped fixtures (a jitted step: seconds), so a
    mutant's tests are grouped by file, files in the order of their quickest test."""
    spec = importlib.util.spec_from_file_location(
        "mutation_inprocess", os.path.join(REPO, "tools", "mutation_inprocess.py")
    )
    inprocess = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(inprocess)
    assert inprocess.by_file(["b.py::x", "a.py::y", "b.py::z", "a.py::w"]) == [
        "b.py::x",
        "b.py::z",
        "a.py::y",
        "a.py::w",
    ]


def test_a_builder_of_closures_is_split_into_its_statements():
    """A function that defines functions (a validator's table of checks) is one unit a statement:
    editing one check leaves the keys of the other checks' mutants; a plain function stays one
    unit (an edit anywhere in it gives its mutants new keys)."""
    old = (
        "def build(n):\n"  # 1
        "    rows = []\n"  # 2
        "    def a(x):\n"  # 3
        "        return x < n\n"  # 4
        "    rows.append(a)\n"  # 5
        "    def b(x):\n"  # 6
        "        return x > 0\n"  # 7
        "    rows.append(b)\n"  # 8
        "    return rows\n"  # 9
        "def plain(x):\n"  # 10
        "    y = x + 1\n"  # 11
        "    return y < 2\n"  # 12
    )
    new = old.replace("return x > 0", "return x >= 0").replace("y = x + 1", "y = x + 2")
    assert [u[:2] for u in mutation._units(old)] == [
        (1, 1), (2, 2), (3, 4), (5, 5), (6, 7), (8, 8), (9, 9), (10, 12)
    ]  # fmt: skip
    mutants = [("core/ReplaceComparisonOperator_Lt_Gt", 0, 4), ("core/X", 0, 7),
               ("core/Y", 0, 12), ("core/Z", 0, 2)]  # fmt: skip
    before, after = mutation.mutant_keys(old, mutants), mutation.mutant_keys(new, mutants)
    assert before[mutants[0][:2]] == after[mutants[0][:2]]  # check a: unchanged
    assert before[mutants[3][:2]] == after[mutants[3][:2]]  # rows = []: unchanged
    assert before[("core/X", 0)] != after[("core/X", 0)]  # check b: edited
    assert before[("core/Y", 0)] != after[("core/Y", 0)]  # plain: edited elsewhere in it


def test_kills_carry_over_to_the_unchanged_definitions_of_a_changed_module(tmp_path, monkeypatch):
    """A module changes after a run: the kills of mutants in definitions whose text did not change
    (even when they moved) are recorded in the new session; the changed definition's mutants and
    every survivor are pending again."""
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    module = repo / "pkg" / "m.py"
    kept = "def kept(x):\n    return x + 1 if x > 0 else x - 1\n"
    changed = "def changed(x):\n    return x * 2 + 3\n"
    module.write_text(kept + "\n\n" + changed)

    def git(*args):
        return _git(str(repo), *args)

    git("init", "-q")
    git("add", "pkg/m.py")
    git("commit", "-qm", "v1")
    monkeypatch.setattr(mutation, "REPO", str(repo))
    monkeypatch.setattr(mutation, "WORK", str(repo / ".mutation"))
    monkeypatch.setattr(mutation, "ARCHIVE", str(repo / "archive"))
    monkeypatch.setattr(mutation, "EQUIVALENT", str(repo / "none.yaml"))
    target = mutation.Target("pkg/m.py", ("tests",))
    base = repo / ".mutation" / target.slug
    files = ["pkg/m.py"]

    def new_session():
        if base.exists():
            import shutil

            shutil.rmtree(base)
        base.mkdir(parents=True)
        return _cosmic_session(target, files, base)[1]

    # Version 1: every mutant killed except one survivor in kept().
    session = new_session()
    with mutation._open_db(session) as db:
        items = list(db.work_items)
        in_kept = [i for i in items if i.mutations[0].start_pos[0] <= 2]
        survivor = in_kept[0]
        for item in items:
            outcome = TestOutcome.SURVIVED if item is survivor else TestOutcome.KILLED
            db.set_result(item.job_id, WorkResult(WorkerOutcome.NORMAL, "", outcome, "-a\n+b"))
    state = dict(module=mutation._fingerprint(files), tests="t", baseline_s=1.0)
    (base / "state.json").write_text(json.dumps(state))
    mutation.export(target)
    survivor_key = (survivor.mutations[0].operator_name, survivor.mutations[0].occurrence)
    # Version 2: changed() is edited and moved above kept(), so every occurrence number shifts.
    module.write_text("def changed(x):\n    return x * 2 - 3\n\n\n" + kept)
    session = new_session()
    carried = mutation.carry_kills(target, session)
    with mutation._open_db(session) as db:
        results = dict(db.results)
        outcome = {
            i.mutations[0].start_pos[0]: mutation._outcome(results.get(i.job_id))
            for i in db.work_items
        }
        lines_of = {i.job_id: i.mutations[0].start_pos[0] for i in db.work_items}
    assert carried == len(in_kept) - 1 > 0
    # changed() is lines 1-2 now: nothing carried there; kept() is lines 5-6.
    assert {o for line, o in outcome.items() if line <= 2} == {"pending"}
    kept_outcomes = [mutation._outcome(results.get(j)) for j, line in lines_of.items() if line >= 5]
    assert sorted(kept_outcomes) == ["killed"] * (len(in_kept) - 1) + ["pending"]
    assert survivor_key  # the survivor is pending again: it runs against the current tests
    # A previous version git does not have carries nothing.
    assert mutation.source_of_fingerprint("pkg/m.py", "0" * 64, repo=str(repo)) is None

    # A split: kept() moves, unchanged, to a sibling module (a new target); its kills follow it
    # from pkg/m.py's archive.
    room = mutation.Target("pkg/room.py", ("tests",))
    monkeypatch.setattr(mutation, "TARGETS", (target, room))
    (repo / "pkg" / "room.py").write_text("import os\n\n\n" + kept)
    base = repo / ".mutation" / room.slug
    files = ["pkg/room.py"]
    target = room
    session = new_session()
    assert mutation.carry_kills(room, session) == len(in_kept) - 1


def test_a_helper_of_another_folders_tests_leaves_a_targets_coverage_map_current(
    tmp_path, monkeypatch
):
    """The coverage map goes stale when a helper its tests can read changes (their folder, below a
    folder the target names, the folders above), not when another game's test helper does."""
    monkeypatch.setattr(mutation, "REPO", str(tmp_path))
    helpers = ["tests/conftest.py", "tests/games/a/conftest.py", "tests/games/a/data/x.json"]
    other = "tests/games/b/lib.py"
    for f in [*helpers, other, "tests/games/a/test_one.py"]:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("v1")
    files = [*helpers, other, "tests/games/a/test_one.py"]
    target = mutation.Target("pkg/m.py", ("tests/games/a/test_one.py", "tests/games/a"))
    before = mutation._helpers_fingerprint(files, target)
    (tmp_path / other).write_text("v2")
    assert mutation._helpers_fingerprint(files, target) == before
    assert mutation._helpers_fingerprint(files) != mutation._helpers_fingerprint(files[:-2])
    (tmp_path / "tests/games/a/test_one.py").write_text("v2")  # a test file, not a helper
    assert mutation._helpers_fingerprint(files, target) == before
    for helper in helpers:
        (tmp_path / helper).write_text("v3")
        assert mutation._helpers_fingerprint(files, target) != before, helper
        before = mutation._helpers_fingerprint(files, target)


def _run_module_fixture_toy(tmp_path, tests, *more):
    """The toy run with ``test_other.py``, whose module-scoped fixture ``built`` holds
    ``build()`` (42), and the mutant ``fixture`` of ``build`` (``*`` -> ``+``) run against
    ``tests``, then the mutants ``more``."""
    other = (
        "import pytest\n\nfrom pkg.m import build\n\n"
        "@pytest.fixture(scope='module')\ndef built():\n    return build()\n\n"
        "def test_built(built):\n    assert built == 42\n"
    )
    (tmp_path / "test_other.py").write_text(other)
    fixture = dict(
        job_id="fixture",
        operator="core/ReplaceBinaryOperator_Mul_Add",
        occurrence=2,
        line=40,
        tests=tests,
    )
    plan = dict(
        module="pkg/m.py",
        timeout_s=3.0,
        deadline=9e18,
        drop_attributes=[],
        mutants=[fixture, *more],
    )
    return _run_toy(tmp_path, plan, test_files=("test_toy.py", "test_other.py"))


def test_a_module_fixture_built_by_an_unmutated_run_is_built_again_for_the_mutant(tmp_path):
    """The unmutated first run of a mutant's test sets up its module-scoped fixture from the
    original code; it is finished before the mutant is swapped in, so the mutant's run builds it
    from the mutated code (a table of checks held by a module fixture hid such mutants)."""
    rows = _run_module_fixture_toy(tmp_path, ["test_other.py::test_built"])
    assert {j: (r["outcome"], r["test"]) for j, r in rows.items()} == {
        "fixture": ("killed", "test_other.py::test_built"),
    }


def test_a_module_fixture_built_by_a_mutant_is_built_again_for_the_unmutated_run(tmp_path):
    """A module-scoped fixture set up while a mutant is swapped in (its file entered anew: the
    test before it came from another file) holds what the mutated code built; it is finished after
    the mutant, so the killing test's unmutated run passes (a kill, not a taint) and the pass goes
    on to the next mutant."""
    after = _toy_mutant("after", "ReplaceComparisonOperator_Lt_Gt", 0, 14, ["test_small"])
    rows = _run_module_fixture_toy(
        tmp_path, ["test_toy.py::test_small", "test_other.py::test_built"], after
    )
    assert {j: (r["outcome"], r["test"]) for j, r in rows.items()} == {
        "fixture": ("killed", "test_other.py::test_built"),
        "after": ("killed", "test_toy.py::test_small"),
    }


def test_the_order_on_the_command_line_stands_outside_xdist(request):
    """``--tests-first`` works only if one ``pytest -x`` process runs the files in the order given:
    the suite's conftest sorts its long files first for pytest-xdist's workers only. (The conftest
    is found among pytest's plugins: its module name depends on how pytest imported it.)"""
    plugins = request.config.pluginmanager.get_plugins()
    (conftest,) = [p for p in plugins if hasattr(p, "SLOW_FILES")]

    class Item:
        def __init__(self, nodeid):
            self.nodeid = nodeid

    first = Item("tests/games/digimon/test_digimon_st7_effects.py::test_a")
    slow = Item(f"{conftest.SLOW_FILES[0]}::test_b")
    alone = [first, slow]
    conftest.pytest_collection_modifyitems(types.SimpleNamespace(), alone)
    assert alone == [first, slow]
    worker = [first, slow]
    conftest.pytest_collection_modifyitems(types.SimpleNamespace(workerinput={}), worker)
    assert worker == [slow, first]


def test_the_test_command_names_files_in_the_targets_order(tmp_path, monkeypatch):
    """A folder in the test list becomes its files: pytest collects a file named before its own
    folder in that folder's walk (name order), so ``--tests-first`` would come to nothing."""
    (tmp_path / "tests" / "sub").mkdir(parents=True)
    for name in ("tests/test_a.py", "tests/test_z.py", "tests/sub/test_b.py", "tests/helper.py"):
        (tmp_path / name).write_text("")
    monkeypatch.setattr(mutation, "REPO", str(tmp_path))
    target = mutation.Target("pkg/m.py", ("tests/test_z.py", "tests"))
    config = tmp_path / "cosmic-ray.toml"
    mutation._write_config(target, str(config), timeout_s=60)
    (command,) = [line for line in config.read_text().splitlines() if line.startswith("test-")]
    named = command.split("cacheprovider ", 1)[1].rstrip('"').split()
    assert named == ["tests/test_z.py", "tests/test_a.py", "tests/sub/test_b.py"]
