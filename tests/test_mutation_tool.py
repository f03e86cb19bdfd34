"""`make mutation`'s own logic (tools/mutation.py) that needs no mutation run: which operators run,
which mutants sit in never-evaluated annotations, and that every target and equivalent is real."""

import importlib.util
import os
import sys

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
        assert set(entry) == {"module", "operator", "original", "mutated", "why"}, entry
        with open(os.path.join(REPO, entry["module"])) as fh:
            assert entry["original"] in {line.strip() for line in fh}, entry["original"]
        assert mutation._RUN.match(entry["operator"]), entry["operator"]


def test_forget_survivors_keeps_killed_and_skipped_mutants(tmp_path):
    """A changed test suite reruns only the survivors (cosmic-ray stores enum names)."""
    import sqlite3

    session = str(tmp_path / "session.sqlite")
    con = sqlite3.connect(session)
    with con:
        con.execute(
            "CREATE TABLE work_results (worker_outcome VARCHAR(9), output TEXT, "
            "test_outcome VARCHAR(11), diff TEXT, job_id VARCHAR NOT NULL, PRIMARY KEY (job_id))"
        )
        rows = [("NORMAL", "KILLED", "a"), ("NORMAL", "SURVIVED", "b"), ("SKIPPED", None, "c"),
                ("NORMAL", "INCOMPETENT", "d"), ("ABNORMAL", None, "e")]  # fmt: skip
        con.executemany(
            "INSERT INTO work_results (worker_outcome, test_outcome, job_id) VALUES (?, ?, ?)",
            rows,
        )
    con.close()
    assert mutation._forget_survivors(session) == 3
    con = sqlite3.connect(session)
    left = sorted(r[0] for r in con.execute("SELECT job_id FROM work_results"))
    con.close()
    assert left == ["a", "c"]
