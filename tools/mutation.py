"""Mutation testing (``make mutation``): cosmic-ray over ``tcgjax/core`` and each game's rules module.

Each target is one module and the tests that guard it. For every target the tool

1. copies the working tree (tracked and untracked-but-not-ignored files, symlinks kept) into
   ``.mutation/<slug>/tree`` with ``../shared`` beside it, so mutants never touch the checkout;
2. creates a cosmic-ray session (``cosmic-ray init``) and marks the operators we do not run as
   skipped (:data:`OPERATORS`, below);
3. checks the unmutated tests pass (``cosmic-ray baseline``) and times them: a mutant's timeout is
   three times that (a timeout counts as killed: mutants that loop forever are caught that way);
4. runs the pending mutants (``cosmic-ray exec``): one fresh ``pytest -x`` process a mutant;
5. writes ``benchmarks/MUTATION.md``: per module the mutants, killed, survivors, kill rate, and
   every survivor with its diff, unless ``tools/mutation_equivalent.yaml`` explains it.

Why cosmic-ray and not mutmut: mutmut 3 forks each mutant's test run from a parent process that
has already imported and run JAX, and XLA's CPU client does not survive ``fork`` (it deadlocks or
aborts in absl's mutex). cosmic-ray starts every test run as a new process.

Sessions are resumable: stop at any time (Ctrl-C or ``--budget-minutes``) and run again; only the
mutants without a result run. Every mutant's outcome is also written to the tracked archive
``benchmarks/mutation/<slug>.json`` (survivors with their diff); a new checkout, which has no
``.mutation/``, rebuilds its sessions from it (same module, same mutants) and the report is written
from it, so results outlive the machine that ran them.

When a module's source changes, its session starts over, except that a kill carries over to the
same mutant of a statement or definition whose text did not change (``carry_kills``: a rules
module that grows does not lose the gate it passed), and a mutant that an entry of
``tools/mutation_equivalent.yaml`` explains is recorded as such without a test run
(``record_known_equivalents``: a survivor costs the whole test run); when anything else changes (its tests,
other modules), the survivors not explained as equivalent (and only they) run again, before any
new mutant: a new test can only kill more mutants (use ``--fresh`` after a change elsewhere that
could revive one, or to run every mutant of a changed module again). cosmic-ray runs the other
pending mutants in random order, so a run cut short by its budget is a uniform sample: the
report gives its kill rate with a 95% interval (carried kills are not drawn at random: a module
with carried kills is complete only when nothing is pending).
The persistent JAX compilation cache of the checkout is shared (``.jax_cache``), so a mutant that
leaves the traced programs alone compiles nothing.

Usage::

    python tools/mutation.py                      # every target, resume, report
    python tools/mutation.py core/zones deployment/rules --budget-minutes 60 --jobs 2
    python tools/mutation.py games/digimon/rules --first-since 13154fb  # changed lines first
    python tools/mutation.py games/digimon/turn --first-since 8ad42ca..1a22a33  # one issue's lines
    python tools/mutation.py games/digimon/turn --tests-first tests/games/digimon/test_digimon_setup.py
    python tools/mutation.py games/pokemon/rules --first-in validate,build_invariants  # validator
    python tools/mutation.py games/pokemon/rules --first-in validate,build_invariants --by-coverage
    python tools/mutation.py games/pokemon/rules --first-in validate,build_invariants --by-coverage \
        --quick tests/games/pokemon/test_pokemon_validate.py   # the validator's own tests first

``--by-coverage`` is sound only for host-side code: name the validator's own functions in
``--first-in`` (a pattern such as ``_check_*`` can also match traced rules methods, e.g. a
``_check_step``). A builder whose product the library caches runs once, in the first test that
needs it: name it in :data:`BUILT_ONCE`, and a mutant on its lines runs every test that runs a
line of it.
    python tools/mutation.py --list               # targets with their tests
    python tools/mutation.py --report-only        # rewrite the report from the sessions
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import difflib
import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(REPO, ".mutation")
REPORT = os.path.join(REPO, "benchmarks", "MUTATION.md")
EQUIVALENT = os.path.join(REPO, "tools", "mutation_equivalent.yaml")
# Tracked: the outcome of every mutant, so that a new checkout resumes and reports (.mutation/,
# the cosmic-ray sessions and scratch trees, is not tracked).
ARCHIVE = os.path.join(REPO, "benchmarks", "mutation")
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared"))

# Tests every core module answers to: the core's own tests and the small duel game's rule tests.
# The modules a whole game goes through end to end (env, checked API, serialization, replay) also
# answer to the duel's api_test (_CORE_API); the others leave it out: a surviving mutant runs every
# test of its target, and the api_test is a third of the core selection's time.
_CORE = (
    "tests/core",
    "tests/games/duel/test_duel_rules.py",
    "tests/games/duel/test_duel_validate.py",
)
_CORE_API = (*_CORE, "tests/games/duel/test_duel_api.py")


@dataclasses.dataclass(frozen=True)
class Target:
    """A module to mutate and the tests, most specific first (``-x`` stops at the first failure)."""

    module: str
    tests: tuple[str, ...]

    @property
    def slug(self) -> str:
        return self.module.removeprefix("tcgjax/").removesuffix(".py")


TARGETS = (
    Target("tcgjax/core/arrays.py", ("tests/core/test_core_arrays.py", *_CORE)),
    Target("tcgjax/core/actions.py", ("tests/core/test_core_layouts.py", *_CORE)),
    Target("tcgjax/core/board.py", ("tests/core/test_core_board.py", *_CORE)),
    Target("tcgjax/core/cards.py", ("tests/core/test_core_cards.py", *_CORE)),
    Target(
        "tcgjax/core/decks.py",
        (
            "tests/core/test_core_decks.py",
            # Deck lists as players write them (their headers and counts) are read here and
            # tested through each game's list format.
            "tests/games/digimon/test_digimon_deck_lists.py",
            "tests/games/pokemon/test_pokemon_deck_lists.py",
            *_CORE,
        ),
    ),
    Target("tcgjax/core/checked.py", ("tests/core/test_checked_actions.py", *_CORE_API)),
    Target("tcgjax/core/env.py", ("tests/core/test_env_conventions.py", *_CORE_API)),
    Target("tcgjax/core/effects.py", ("tests/core/test_core_effects.py", *_CORE)),
    Target("tcgjax/core/primitives.py", ("tests/core/test_core_primitives.py", *_CORE)),
    Target("tcgjax/core/errors.py", ("tests/core/test_core_errors.py", *_CORE)),
    Target("tcgjax/core/files.py", ("tests/core/test_files.py", *_CORE)),
    Target("tcgjax/core/observation.py", ("tests/core/test_core_layouts.py", *_CORE)),
    Target("tcgjax/core/replay.py", ("tests/core/test_replay.py", *_CORE_API)),
    Target("tcgjax/core/serialization.py", ("tests/core/test_serialization.py", *_CORE_API)),
    Target("tcgjax/core/tree.py", ("tests/core/test_core_tree.py", *_CORE)),
    Target("tcgjax/core/visibility.py", ("tests/core/test_core_visibility.py", *_CORE)),
    Target("tcgjax/core/zones.py", ("tests/core/test_core_zones.py", *_CORE)),
    Target(
        "tcgjax/core/invariants.py",
        (
            "tests/core/test_core_invariants.py",
            "tests/games/duel/test_duel_invariant_table.py",
            *_CORE,
        ),
    ),
    Target(
        "tcgjax/core/render.py",
        (
            "tests/core/test_core_render.py",
            "tests/games/deployment/test_deployment_render.py",
            "tests/games/digimon/test_digimon_render.py",
            "tests/games/pokemon/test_pokemon_render.py",
            *_CORE,
        ),
    ),
    Target("tcgjax/core/replay_html.py", ("tests/test_replay_viewer.py", *_CORE_API)),
    Target(
        "tcgjax/games/deployment/rules.py",
        (
            "tests/games/deployment/test_deployment_invariant_table.py",
            "tests/games/deployment/test_deployment_pinned.py",
            "tests/games/deployment/test_deployment_spec.py",
            "tests/games/deployment/test_deployment_validate.py",
            "tests/games/deployment",
        ),
    ),
    Target(
        "tcgjax/games/duel/rules.py",
        (
            "tests/games/duel/test_duel_invariant_table.py",
            "tests/games/duel/test_duel_rules.py",
            "tests/games/duel",
        ),
    ),
    *(
        Target(
            f"tcgjax/games/digimon/{room}.py",
            (
                "tests/games/digimon/test_digimon_validate.py",
                "tests/games/digimon/test_digimon_turn.py",
                "tests/games/digimon/test_digimon_attack.py",
                "tests/games/digimon",
            ),
        )
        # The rules and their rooms (the mixins DigimonRules is put together from).
        for room in ("rules", "state", "legality", "turn", "interpreter", "selections", "attacks")
    ),
    Target(
        "tcgjax/games/digimon/invariants.py",
        ("tests/games/digimon/test_digimon_validate.py", "tests/games/digimon"),
    ),
    # The card vocabulary and the card file's reader: its tables feed every room of the rules.
    Target(
        "tcgjax/games/digimon/cards.py",
        (
            "tests/games/digimon/test_digimon_cards.py",
            "tests/games/digimon/test_digimon_importer.py",
            "tests/games/digimon",
        ),
    ),
    Target(
        "tcgjax/games/pokemon/rules.py",
        (
            "tests/games/pokemon/test_pokemon_validate.py",
            "tests/games/pokemon/test_pokemon_turn.py",
            "tests/games/pokemon",
        ),
    ),
    Target(
        "tcgjax/games/pokemon/effects.py",
        (
            "tests/games/pokemon/test_pokemon_effect_rows.py",
            "tests/games/pokemon/test_pokemon_effects.py",
            "tests/games/pokemon",
        ),
    ),
    # Trained agents as policies (run directories, the shipped baselines and their card-id
    # remapping). Named by its git path: ``tcgjax/train`` is a link to ``train/``, and git blame
    # (``--first-since``) reads tracked paths only.
    Target(
        "train/policies.py",
        ("tests/train/test_train_policies.py", "tests/train/test_train_milestones.py"),
    ),
)

# The operators run, in the spirit of mutmut and Offutt's sufficient set: each operator site gets
# its natural counterparts (+ and -, < and <=, == and !=, and/or, True/False, n±1, break/continue,
# a removed `not`/`-`/`~`, an except clause that never matches, a loop that never runs), not all
# twelve binary operators at every `+`. Left out: RemoveDecorator (dropping `jax.jit` or
# `functools.partial(jax.jit, ...)` is equivalent by construction) and the operators that need
# per-variable arguments (VariableReplacer/Inserter).
OPERATORS = (
    r"core/ReplaceBinaryOperator_(Add_Sub|Sub_Add|Mul_Div|Div_Mul|FloorDiv_Mul|Mod_FloorDiv"
    r"|Pow_Mul|LShift_RShift|RShift_LShift|BitOr_BitAnd|BitAnd_BitOr|BitXor_BitOr)",
    r"core/ReplaceComparisonOperator_(Eq_NotEq|NotEq_Eq|Lt_LtE|LtE_Lt|Gt_GtE|GtE_Gt|Is_IsNot"
    r"|IsNot_Is|In_NotIn|NotIn_In)",
    r"core/ReplaceUnaryOperator_Delete_(USub|Invert|Not)",
    r"core/(AddNot|ReplaceTrueWithFalse|ReplaceFalseWithTrue|ReplaceAndWithOr|ReplaceOrWithAnd)",
    r"core/(ReplaceBreakWithContinue|ReplaceContinueWithBreak|ExceptionReplacer|NumberReplacer)",
    r"core/ZeroIterationForLoop",
)
_RUN = re.compile("|".join(f"(?:{p})$" for p in OPERATORS))


def _python() -> str:
    return sys.executable


def _fingerprint(paths: list[str]) -> str:
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(path.encode())
        with open(os.path.join(REPO, path), "rb") as fh:
            digest.update(fh.read())
    return digest.hexdigest()


def _tree_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout
    return [p for p in out.decode().split("\0") if p and os.path.lexists(os.path.join(REPO, p))]


def _copy_tree(files: list[str], dest: str) -> None:
    if os.path.exists(dest):
        shutil.rmtree(dest)
    for rel in files:
        src, dst = os.path.join(REPO, rel), os.path.join(dest, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.islink(src):
            os.symlink(os.readlink(src), dst)
        else:
            shutil.copy2(src, dst)
    # The shared persistent compilation cache: unmutated traced code compiles nothing.
    os.makedirs(os.path.join(REPO, ".jax_cache"), exist_ok=True)
    os.symlink(os.path.join(REPO, ".jax_cache"), os.path.join(dest, ".jax_cache"))


def _environ(tree: str) -> dict[str, str]:
    # PYTEST_*: a caller's PYTEST_ADDOPTS (a plugin, -n) or an xdist worker's variables would
    # change the tool's own pytest runs.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("JAX_", "XLA_", "PYTHON", "PYTEST_"))
    }
    # TCGJAX_TEST_CACHE: the mutants' test runs share the persistent compilation cache (the test
    # session's default, tests/conftest.py; said explicitly so that a caller's "0" cannot leak in).
    env.update(
        PYTHONPATH=tree, JAX_PLATFORMS="cpu", PYTHONDONTWRITEBYTECODE="1", TCGJAX_TEST_CACHE="1"
    )
    return env


def _cosmic_ray(*args: str, cwd: str, timeout: float | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [_python(), "-m", "cosmic_ray.cli", *args],
        cwd=cwd,
        env=_environ(cwd),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _write_config(target: Target, path: str, timeout_s: float) -> None:
    # Files, not folders: pytest collects a folder's files in name order, and a file named before
    # its folder is collected in that walk, not where it was named (``--tests-first`` was lost).
    tests = " ".join(_test_files(target))
    test_command = f"{_python()} -m pytest -x -q -p no:cacheprovider {tests}"
    with open(path, "w") as fh:
        fh.write(
            "[cosmic-ray]\n"
            f'module-path = "{target.module}"\n'
            f"timeout = {timeout_s:.0f}\n"
            "excluded-modules = []\n"
            f'test-command = "{test_command}"\n'
            "\n[cosmic-ray.distributor]\n"
            'name = "local"\n'
        )


def _open_db(session: str):
    from cosmic_ray.work_db import WorkDB, use_db

    return use_db(session, mode=WorkDB.Mode.open)


def _annotation_spans(module: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Source spans of the annotations of ``module`` when it has ``from __future__ import
    annotations``: they are never evaluated, so a mutant inside one is equivalent by construction
    (``str | bytes`` -> ``str & bytes``) and is not run."""
    with open(os.path.join(REPO, module)) as fh:
        tree = ast.parse(fh.read())
    future = any(
        isinstance(n, ast.ImportFrom)
        and n.module == "__future__"
        and any(a.name == "annotations" for a in n.names)
        for n in tree.body
    )
    if not future:
        return []
    nodes = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            nodes.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            nodes.append(node.returns)
    # ast columns are 0-based like parso's; lines are 1-based in both.
    return [((n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset)) for n in nodes]


def _in_spans(mutation, spans) -> bool:
    return any(start <= tuple(mutation.start_pos) < end for start, end in spans)


def _skip_operators(session: str, module: str) -> int:
    """Mark as skipped every work item whose operator is not in :data:`OPERATORS`, or whose
    mutation lies in an annotation that is never evaluated."""
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    spans = _annotation_spans(module)
    skipped = []
    with _open_db(session) as db:
        for item in db.pending_work_items:
            if not all(_RUN.match(m.operator_name) for m in item.mutations) or any(
                _in_spans(m, spans) for m in item.mutations
            ):
                skipped.append(item.job_id)
        if skipped:
            db.set_multiple_results(
                skipped, WorkResult(output="operator not run", worker_outcome=WorkerOutcome.SKIPPED)
            )
    return len(skipped)


def _forget_survivors(session: str, module: str) -> list[str]:
    """Drop the results of mutants that were not killed, so that they run again, except the
    explained equivalents (no test can kill them); returns the job ids (:func:`execute` runs them
    first)."""
    import sqlite3

    con = sqlite3.connect(session)
    # cosmic-ray stores the enum *names* (SKIPPED, KILLED, SURVIVED, INCOMPETENT).
    where = (
        "UPPER(w.worker_outcome) != 'SKIPPED' AND "
        "(w.test_outcome IS NULL OR UPPER(w.test_outcome) != 'KILLED')"
    )
    rows = con.execute(
        "SELECT w.job_id, m.operator_name, w.diff FROM work_results w JOIN mutation_specs m "
        f"ON m.job_id = w.job_id WHERE {where}"
    ).fetchall()
    job_ids = [
        job_id
        for job_id, operator, diff in rows
        if not _is_equivalent(module, operator, diff or "")
    ]
    with con:
        con.executemany("DELETE FROM work_results WHERE job_id = ?", [(j,) for j in job_ids])
    con.close()
    return job_ids


def _is_equivalent(module: str, operator: str, diff: str) -> bool:
    """Whether a survivor's diff is explained in :data:`EQUIVALENT` (an entry with ``line``
    explains that line only: the same text elsewhere in the module may be a real survivor)."""
    original, mutated = _changed_lines(diff)
    return any(
        e["module"] == module
        and e["operator"] == operator
        and e["original"].strip() == original
        and e["mutated"].strip() == mutated
        and e.get("line", _changed_line_number(diff)) == _changed_line_number(diff)
        for e in _equivalents()
    )


EQUIVALENT_NOT_RUN = "explained equivalent (tools/mutation_equivalent.yaml): not run"


def record_known_equivalents(target: Target, tree: str, session: str) -> int:
    """Record the pending mutants that an entry of :data:`EQUIVALENT` already explains as
    survivors without running them (output :data:`EQUIVALENT_NOT_RUN`, with the diff that
    ``cosmic-ray`` would write); returns how many. A survivor costs the target's whole test run
    (minutes), and a changed module re-runs every mutant, known equivalents included. Only
    mutants on a line whose text an entry names are mutated here (parsing the module per mutant
    is slow)."""
    import cosmic_ray.plugins
    from cosmic_ray.mutating import mutate_code
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    entries = [e for e in _equivalents() if e["module"] == target.module]
    if not entries:
        return 0
    with open(os.path.join(tree, target.module)) as fh:
        source = fh.read()
    lines = source.split("\n")
    originals = {(e["operator"], e["original"].strip()) for e in entries}
    found = []
    with _open_db(session) as db:
        for item in db.pending_work_items:
            (mutation,) = item.mutations
            text = lines[mutation.start_pos[0] - 1].strip()
            if (mutation.operator_name, text) not in originals:
                continue
            operator_class = cosmic_ray.plugins.get_operator(mutation.operator_name)
            operator = operator_class(**(mutation.operator_args or {}))
            mutated = mutate_code(source, operator, mutation.occurrence)
            if mutated is None:
                continue
            diff = "\n".join(
                [
                    "--- mutation diff ---",
                    *difflib.unified_diff(
                        lines,
                        mutated.split("\n"),
                        fromfile=f"a/{mutation.module_path}",
                        tofile=f"b/{mutation.module_path}",
                        lineterm="",
                    ),
                ]
            )
            if _is_equivalent(target.module, mutation.operator_name, diff):
                found.append((item.job_id, diff))
        for job_id, diff in found:
            db.set_result(
                job_id,
                WorkResult(
                    worker_outcome=WorkerOutcome.NORMAL,
                    output=EQUIVALENT_NOT_RUN,
                    test_outcome=TestOutcome.SURVIVED,
                    diff=diff,
                ),
            )
    return len(found)


def _changed_line_number(diff: str) -> int | None:
    """The module's line number of a unified diff's first removed line (None without a hunk)."""
    line = None
    for text in diff.splitlines():
        if text.startswith("@@"):
            line = int(text.split()[1].split(",")[0].lstrip("-"))
        elif line is not None and text.startswith("-") and not text.startswith("---"):
            return line
        elif line is not None and not text.startswith("+"):
            line += 1
    return None


# ----------------------------------------------------------------------------------------------
# Tests chosen by coverage (--by-coverage)
#
# A mutant on a line that no test runs cannot be killed, and only the tests that run its line can
# kill it. For host-side code that every call runs afresh (the validators: plain numpy over one
# state), the tests that run a line are exactly what coverage records, per test (pytest-cov's
# ``--cov-context=test``). Not so for traced code: a jitted function traces once per process, so
# its lines are recorded against the first test that traced them only; and a line a session
# fixture runs is recorded against the first test that set the fixture up. So the selection is
# offered for the ``--first-in`` lines (the validator) and a line run at import (a module-level
# table, a ``def``) runs the target's whole list.


def _test_files(target: Target) -> list[str]:
    """The target's test files, in its order (a folder: its ``test_*.py`` files, sorted)."""
    out: list[str] = []
    for entry in target.tests:
        path = os.path.join(REPO, entry)
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs.sort()
                out += [
                    os.path.relpath(os.path.join(root, n), REPO)
                    for n in sorted(names)
                    if n.startswith("test_") and n.endswith(".py")
                ]
        else:
            out.append(entry)
    return list(dict.fromkeys(out))


def _helpers_fingerprint(files: list[str], target: Target | None = None) -> str:
    """What the target's tests read besides their own files: conftest, test libraries, test data
    in the folders of its tests (and below a folder it names) and in the folders above them
    (``tests/conftest.py``); every such file under ``tests/`` without a target. A helper of
    another game's tests does not make this target's coverage map stale."""

    def reaches(helper: str) -> bool:
        if target is None:
            return True
        folder = os.path.dirname(helper)
        for test in target.tests:
            root = test if not test.endswith(".py") else os.path.dirname(test)
            if folder == root or folder.startswith(root + "/") or root.startswith(folder + "/"):
                return True
        return False

    return _fingerprint(
        [
            f
            for f in files
            if f.startswith("tests/")
            and not os.path.basename(f).startswith("test_")
            and not os.path.islink(os.path.join(REPO, f))
            and reaches(f)
        ]
    )


_COVERAGE_FORMAT = 2  # 2: with each test's seconds


def coverage_map(target: Target, files: list[str]) -> tuple[dict, float]:
    """The target's map from module line to the tests that run it, brought up to date: the test
    files changed since it was recorded (all of them when the module or a helper changed) run
    once under coverage, in the target's scratch tree. Returns the map and the seconds that run
    took (0 when nothing was stale).

    The map (``.mutation/<slug>/coverage.json``): ``module`` and ``helpers`` fingerprints,
    ``import_lines`` (run outside any test: at import or collection), and per test file its
    fingerprint and ``lines``: line -> node ids.

    Raises:
      SystemExit: a test fails on the unmutated tree (fix it first).
    """
    base = os.path.join(WORK, target.slug)
    tree, path = os.path.join(base, "tree"), os.path.join(base, "coverage.json")
    module_fp, helpers_fp = _fingerprint([target.module]), _helpers_fingerprint(files, target)
    cmap: dict = {}
    if os.path.exists(path):
        with open(path) as fh:
            cmap = json.load(fh)
    if (
        cmap.get("module") != module_fp
        or cmap.get("helpers") != helpers_fp
        or cmap.get("format") != _COVERAGE_FORMAT
    ):
        cmap = {
            "format": _COVERAGE_FORMAT,
            "module": module_fp,
            "helpers": helpers_fp,
            "import_lines": [],
            "files": {},
        }
    test_files = _test_files(target)
    prints = {f: _fingerprint([f]) for f in test_files}
    stale = [f for f in test_files if cmap["files"].get(f, {}).get("fp") != prints[f]]
    if not stale:
        return cmap, 0.0
    _log(target.slug, f"coverage of {len(stale)} test files")
    data_file = os.path.join(base, ".coverage")
    with contextlib.suppress(FileNotFoundError):
        os.remove(data_file)
    module_dir = os.path.dirname(os.path.join(tree, target.module))
    durations_file = os.path.join(base, "durations.json")
    with open(os.path.join(base, "mutation_durations.py"), "w") as fh:
        fh.write(_DURATIONS_PLUGIN)
    started = time.monotonic()
    done = subprocess.run(
        [
            _python(),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "mutation_durations",
            f"--cov={module_dir}",
            "--cov-context=test",
            "--cov-report=",
            *stale,
        ],
        cwd=tree,
        env=_environ(tree)
        | {
            "COVERAGE_FILE": data_file,
            "PYTHONPATH": os.pathsep.join([tree, base]),
            "MUTATION_DURATIONS": durations_file,
        },
        capture_output=True,
        text=True,
    )
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(
            f"{target.slug}: the unmutated tests fail under coverage, fix them first:\n"
            f"{done.stdout[-4000:]}"
        )
    from coverage import CoverageData

    data = CoverageData(basename=data_file)
    data.read()
    module_path = os.path.realpath(os.path.join(tree, target.module))
    (measured,) = [f for f in data.measured_files() if os.path.realpath(f) == module_path]
    lines: dict[str, dict[str, list[str]]] = {f: {} for f in stale}
    import_lines = set(cmap["import_lines"])
    for line, contexts in data.contexts_by_lineno(measured).items():
        for context in contexts:
            node = context.rsplit("|", 1)[0]
            if not node:
                import_lines.add(line)
                continue
            test_file = node.split("::", 1)[0]
            if test_file in lines:
                lines[test_file].setdefault(str(line), []).append(node)
    with open(durations_file) as fh:
        durations = json.load(fh)
    for f in stale:
        cmap["files"][f] = {
            "fp": prints[f],
            "lines": lines[f],
            "seconds": {n: round(t, 3) for n, t in durations.items() if n.startswith(f + "::")},
        }
    cmap["import_lines"] = sorted(import_lines)
    with open(path, "w") as fh:
        json.dump(cmap, fh)
    return cmap, seconds


def statement_lines(path: str, line: int) -> range:
    """The lines of the innermost statement of the Python file ``path`` that holds ``line``; of a
    compound statement (``if``, ``while``, ``def`` ...) only its header, up to its body.

    Coverage records a line only when evaluation reaches it: in ``a and b`` written over two
    lines, a test that stops at a false ``a`` never runs ``b``'s line, yet a mutant there (``and``
    -> ``or``) changes what it computes. A mutant is therefore run against the tests of every line
    of its statement."""
    spans = _statement_spans(path)
    return spans.get(line, range(line, line + 1))


_SPANS: dict[str, dict[int, range]] = {}


def _statement_spans(path: str) -> dict[int, range]:
    if path not in _SPANS:
        with open(path) as fh:
            tree = ast.parse(fh.read())
        spans: dict[int, range] = {}
        for node in ast.walk(tree):
            if not isinstance(node, ast.stmt):
                continue
            body = getattr(node, "body", None)
            end = body[0].lineno - 1 if isinstance(body, list) and body else node.end_lineno
            span = range(node.lineno, max(end, node.lineno) + 1)
            for n in span:
                if n not in spans or len(span) < len(spans[n]):  # the innermost statement
                    spans[n] = span
        _SPANS[path] = spans
    return _SPANS[path]


def tests_for_line(cmap: dict, target: Target, line: int) -> list[str] | None:
    """The node ids that run ``line`` of the target's module, or another line of its statement
    (:func:`statement_lines`), quickest first (as timed by the coverage run: ``pytest -x`` stops
    at the first that fails, so a killed mutant costs the quickest test that kills it); ``None``
    (run the whole list) for a statement run at import; empty when no test runs it."""
    lines = statement_lines(os.path.join(REPO, target.module), line)
    if set(lines) & set(cmap["import_lines"]):
        return None
    built = built_once_lines(os.path.join(REPO, target.module), target.module, line)
    if built is not None:
        lines = built
    chosen: dict[str, float] = {}
    for test_file in _test_files(target):
        entry = cmap["files"].get(test_file, {})
        for n in lines:
            for node in entry.get("lines", {}).get(str(n), []):
                chosen.setdefault(node, entry.get("seconds", {}).get(node, float("inf")))
    return sorted(chosen, key=lambda node: chosen[node])  # stable: the target's order on ties


#: Module-level functions whose product the library caches per rules object (the invariant table
#: and the card tables its checks read): their own lines run once, in whichever test validated
#: first, so coverage names only that test. A mutant on such a line runs every test that runs a
#: line of any of them (the table's checks are nested in the builder: every test that validates).
#: A line in the body of a check nested in a builder runs at each call, so its own tests suffice.
BUILT_ONCE = {
    "tcgjax/games/pokemon/rules.py": ("build_invariants", "_static"),
    "tcgjax/games/digimon/invariants.py": ("build_invariants",),
}


def built_once_lines(path: str, module: str, line: int) -> list[int] | None:
    """For ``line`` in a :data:`BUILT_ONCE` function of ``module`` (not in a function nested in
    it), the lines of all of that module's built-once functions; else ``None``."""
    names = BUILT_ONCE.get(module, ())
    if not names:
        return None
    with open(path) as fh:
        tree = ast.parse(fh.read())
    builders = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]
    inside = next((b for b in builders if b.lineno <= line <= b.end_lineno), None)
    if inside is None:
        return None
    for node in ast.walk(inside):
        if node is not inside and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.body[0].lineno <= line <= node.end_lineno:
                return None  # a nested check's body: run at each call
    return sorted({n for b in builders for n in range(b.lineno, b.end_lineno + 1)})


#: Attributes in which the library keeps what it builds lazily from a target's code (each rules
#: object's invariant table, built by the validator's ``build_invariants``; the deployment game's
#: ``cached_property``, named with its class since packages hold a submodule ``invariants``): the
#: in-process run (:func:`run_in_process`) drops them from every live object after each swap and
#: each restore.
IN_PROCESS_CACHES = ("_invariant_table", "_host_slot_view", "DeploymentRules.invariants")

#: The quick pass leaves out the named files' tests that took longer than this in the coverage
#: run (a random-play sweep that validates thousands of states): they run in the full pass.
QUICK_MAX_SECONDS = 20.0


def reopen_quick_survivors(session: str) -> list[str]:
    """Drop the results of the quick survivors (:func:`_run_one`), so that they run again against
    every test that runs their line; returns their job ids."""
    import sqlite3

    con = sqlite3.connect(session)
    rows = con.execute(
        "SELECT job_id FROM work_results WHERE UPPER(test_outcome) = 'SURVIVED' "
        "AND output LIKE 'quick:%'"
    ).fetchall()
    job_ids = [job_id for (job_id,) in rows]
    with con:
        con.executemany("DELETE FROM work_results WHERE job_id = ?", [(j,) for j in job_ids])
    con.close()
    return job_ids


# Loaded into the coverage run (``-p mutation_durations``): each test's seconds (setup, call and
# teardown), written to the file MUTATION_DURATIONS names.
_DURATIONS_PLUGIN = """import json, os

_SECONDS = {}


def pytest_runtest_logreport(report):
    _SECONDS[report.nodeid] = _SECONDS.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session):
    with open(os.environ["MUTATION_DURATIONS"], "w") as fh:
        json.dump(_SECONDS, fh)
"""


def _run_one(
    target: Target,
    tree: str,
    session: str,
    job_id: str,
    timeout_s: float,
    coverage: dict | None = None,
    quick: tuple[str, ...] | None = None,
) -> None:
    """Run one pending mutant (``cosmic-ray mutate-and-test``) and record its result. With a
    ``coverage`` map (:func:`coverage_map`) only the tests that run the mutated line run
    (:func:`tests_for_line`); a line no test runs survives without a test run. With ``quick``
    (test files) only those of them in these files run (and none that took over
    :data:`QUICK_MAX_SECONDS`): a mutant that survives them is recorded as a *quick* survivor
    (output ``quick: ...``), run against the rest later; one that no such test runs stays
    pending."""
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    with _open_db(session) as db:
        (item,) = [i for i in db.work_items if i.job_id == job_id]
    (mutation,) = item.mutations
    tests = " ".join(_test_files(target))  # in the target's order (:func:`_write_config`)
    command = f"{_python()} -m pytest -x -q -p no:cacheprovider {tests}"
    only_quick = False
    if coverage is not None:
        chosen = tests_for_line(coverage, target, mutation.start_pos[0])
        if chosen and quick is not None:
            seconds = {n: coverage["files"][n.split("::", 1)[0]]["seconds"].get(n) for n in chosen}
            fast = [
                n
                for n in chosen
                if n.split("::", 1)[0] in quick and (seconds[n] or 0.0) <= QUICK_MAX_SECONDS
            ]
            if not fast:
                return  # no quick test runs this line: left for the run with every test
            only_quick, chosen = len(fast) < len(chosen), fast
        if chosen is not None and not chosen:
            # Still through cosmic-ray, for the mutant's diff (the report shows survivors' diffs).
            command = f"{_python()} -c pass"
        elif chosen is not None:
            args_file = os.path.join(WORK, target.slug, f"tests-{job_id}.txt")
            with open(args_file, "w") as fh:
                fh.write("\n".join(chosen) + "\n")
            # pytest reads its arguments from @file: node ids carry brackets and spaces.
            command = f"{_python()} -m pytest -x -q -p no:cacheprovider @{args_file}"
    try:
        done = _cosmic_ray(
            "mutate-and-test",
            str(mutation.module_path),
            mutation.operator_name,
            str(mutation.occurrence),
            command,
            cwd=tree,
            timeout=timeout_s,
        )
        data = json.loads(done.stdout)
        if command.endswith(" -c pass"):
            data["output"] = "no test runs this line"
        elif only_quick and data["test_outcome"] == TestOutcome.SURVIVED.value:
            data["output"] = f"quick: only {', '.join(quick)}; {data.get('output') or ''}"
        result = WorkResult(
            worker_outcome=WorkerOutcome(data["worker_outcome"]),
            output=data.get("output"),
            test_outcome=None
            if data["test_outcome"] is None
            else TestOutcome(data["test_outcome"]),
            diff=data.get("diff"),
        )
    except subprocess.TimeoutExpired:
        result = WorkResult(WorkerOutcome.NORMAL, "timeout", TestOutcome.KILLED)
    finally:
        if coverage is not None:
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(WORK, target.slug, f"tests-{job_id}.txt"))
        # A timed-out run can leave the mutated file behind.
        shutil.copy2(os.path.join(REPO, target.module), os.path.join(tree, target.module))
    with _open_db(session) as db:
        db.set_result(job_id, result)


def run_in_process(
    target: Target,
    tree: str,
    session: str,
    job_ids: list[str],
    coverage: dict,
    quick: tuple[str, ...] | None,
    deadline: float | None,
    timeout_s: float,
) -> int:
    """The fast filter (``--in-process``, :mod:`tools.mutation_inprocess`): one pytest process
    runs the mutants ``job_ids`` of a host-side module against the tests that run their line (the
    quick ones only, with ``quick``) and records those it kills (after a ``tainted`` mutant, a
    fresh process takes the rest: :func:`in_process_rounds`); the rest stay pending for
    cosmic-ray's fresh process. Returns the number killed."""

    base = os.path.join(WORK, target.slug)
    with _open_db(session) as db:
        wanted = set(job_ids)
        items = [i for i in db.pending_work_items if i.job_id in wanted]
    mutants = []
    for item in items:
        (mutation,) = item.mutations
        tests = tests_for_line(coverage, target, mutation.start_pos[0])
        if not tests:  # a line run at import (None) or by no test: cosmic-ray's run decides
            continue
        if quick is not None:
            seconds = coverage["files"]
            tests = [
                n
                for n in tests
                if n.split("::", 1)[0] in quick
                and (seconds[n.split("::", 1)[0]]["seconds"].get(n) or 0.0) <= QUICK_MAX_SECONDS
            ]
            if not tests:
                continue
        mutants.append(
            dict(
                job_id=item.job_id,
                operator=mutation.operator_name,
                occurrence=mutation.occurrence,
                line=mutation.start_pos[0],
                tests=tests,
            )
        )
    if not mutants:
        return 0
    plan_path, results_path = (os.path.join(base, f) for f in ("plan.json", "results.jsonl"))
    nodes_path = os.path.join(base, "plan-nodes.txt")
    killed = 0
    for results in in_process_rounds(
        lambda left: _run_in_process_once(
            target, tree, base, left, plan_path, results_path, nodes_path, deadline, timeout_s
        ),
        mutants,
        deadline,
    ):
        killed += _record_in_process(target, session, results)
    return killed


def in_process_rounds(run_once, mutants: list[dict], deadline: float | None):
    """Yield the results of ``run_once(mutants)`` (one in-process pytest run), then of a fresh
    run over the mutants it had not reached, for as long as a run stops on a ``tainted`` mutant
    (its killing test failed unmutated afterwards: the process's state is not the library's any
    more) and the budget lasts. The tainted mutant is not run again in process: cosmic-ray's
    fresh process decides it."""
    while mutants:
        results = run_once(mutants)
        yield results
        if not any(r["outcome"] == "tainted" for r in results):
            return
        if deadline is not None and time.monotonic() > deadline:
            return
        reached = {r["job_id"] for r in results}
        mutants = [m for m in mutants if m["job_id"] not in reached]
        if mutants:
            print(f"in process: a fresh process for the {len(mutants)} mutants left", flush=True)


def _run_in_process_once(
    target, tree, base, mutants, plan_path, results_path, nodes_path, deadline, timeout_s
) -> list[dict]:
    """One pytest process over ``mutants`` (:func:`run_in_process`); its results, in order."""
    nodes: list[str] = []
    for mutant in mutants:
        nodes.extend(n for n in mutant["tests"] if n not in nodes)
    with open(plan_path, "w") as fh:
        json.dump(
            dict(
                module=target.module,
                timeout_s=timeout_s,
                drop_attributes=list(IN_PROCESS_CACHES),
                deadline=time.time() + (1e9 if deadline is None else deadline - time.monotonic()),
                mutants=mutants,
            ),
            fh,
        )
    with open(nodes_path, "w") as fh:
        fh.write("\n".join(nodes) + "\n")
    with contextlib.suppress(FileNotFoundError):
        os.remove(results_path)
    _log(target.slug, f"in process: {len(mutants)} mutants against {len(nodes)} tests")
    tools = os.path.join(tree, "tools")
    done = subprocess.run(
        [_python(), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "mutation_inprocess"]
        + ["-p", "no:randomly", f"@{nodes_path}"],
        cwd=tree,
        env=_environ(tree)
        | {
            "PYTHONPATH": os.pathsep.join([tree, tools]),
            "MUTATION_PLAN": plan_path,
            "MUTATION_RESULTS": results_path,
        },
        capture_output=True,
        text=True,
    )
    results = []
    if os.path.exists(results_path):
        with open(results_path) as fh:
            results = [json.loads(line) for line in fh if line.strip()]
    if done.returncode != 0 and not results:
        raise SystemExit(f"{target.slug}: the in-process run failed:\n{done.stdout[-4000:]}")
    return results


def _record_in_process(target: Target, session: str, results: list[dict]) -> int:
    """Record the in-process kills in the session; log the outcomes. Returns the number killed."""
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    killed = [r for r in results if r["outcome"] == "killed"]
    with _open_db(session) as db:
        for r in killed:
            db.set_result(
                r["job_id"],
                WorkResult(
                    worker_outcome=WorkerOutcome.NORMAL,
                    output=f"in process: killed by {r['test']}",
                    test_outcome=TestOutcome.KILLED,
                    diff=r.get("diff"),
                ),
            )
    tainted = [r for r in results if r["outcome"] == "tainted"]
    outcomes = ", ".join(
        f"{n} {o}"
        for o, n in sorted(
            {
                o: sum(r["outcome"] == o for r in results) for o in {r["outcome"] for r in results}
            }.items()
        )
    )
    _log(target.slug, f"in process: {outcomes or 'nothing ran'}")
    if tainted:
        _log(target.slug, f"in process stopped: {tainted[0]['test']} failed unmutated")
    return len(killed)


def _log(slug: str, message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {slug}: {message}", flush=True)


_BASELINES: dict[frozenset[str], float] = {}


def prepare(target: Target, files: list[str], fresh: bool, by_coverage: bool = False) -> str:
    """Create or refresh the target's scratch tree and session; returns the session path. With
    ``by_coverage`` a new session's baseline is the run that records the coverage map (it runs
    every test of the target once, as the baseline would)."""
    base = os.path.join(WORK, target.slug)
    tree, session = os.path.join(base, "tree"), os.path.join(base, "session.sqlite")
    state_path = os.path.join(base, "state.json")
    # The module itself, and what else its tests run (tests, other modules, data; not docs).
    module_fp = _fingerprint([target.module])
    others = [
        f
        for f in files
        if f != target.module and f.startswith(("tcgjax/", "tests/", "configs/", "train/"))
    ]
    tests_fp = _fingerprint([f for f in others if not os.path.islink(os.path.join(REPO, f))])
    state = {}
    os.makedirs(base, exist_ok=True)
    if not os.path.lexists(os.path.join(base, "shared")):
        os.symlink(SHARED, os.path.join(base, "shared"))
    config = os.path.join(base, "cosmic-ray.toml")
    if not fresh and not os.path.exists(session):
        restore(target, files, module_fp)
    if os.path.exists(state_path) and os.path.exists(session) and not fresh:
        with open(state_path) as fh:
            state = json.load(fh)
    if state.get("module") == module_fp and state.get("tests") == tests_fp:
        if not os.path.isdir(tree):
            _copy_tree(files, tree)
        # The operator choice and the test selection may have changed since (results stay).
        _skip_operators(session, target.module)
        _write_config(target, config, timeout_s=max(60.0, 3 * state["baseline_s"]))
        return session
    _copy_tree(files, tree)
    if state.get("module") == module_fp:
        rerun = _forget_survivors(session, target.module)
        state["rerun"] = sorted(set(state.get("rerun", [])) | set(rerun))
        _log(target.slug, f"tests changed: {len(rerun)} survivors run again, first")
    else:
        if state and not fresh:
            export(target)  # the old version's outcomes, which carry_kills reads back
        _write_config(target, config, timeout_s=3600)
        # Targets with the same tests share one baseline run per invocation.
        tests_key = frozenset(
            t for t in target.tests if not any(t.startswith(d + "/") for d in target.tests)
        )
        if tests_key not in _BASELINES and by_coverage:
            _, seconds = coverage_map(target, files)
            if seconds:
                _BASELINES[tests_key] = seconds
        if tests_key not in _BASELINES:
            started = time.monotonic()
            base_run = _cosmic_ray("baseline", config, cwd=tree)
            if base_run.returncode != 0:
                raise SystemExit(
                    f"{target.slug}: the unmutated tests fail, fix them first:\n"
                    f"{base_run.stderr[-4000:]}"
                )
            _BASELINES[tests_key] = time.monotonic() - started
        baseline_s = _BASELINES[tests_key]
        _write_config(target, config, timeout_s=max(60.0, 3 * baseline_s))
        if os.path.exists(session):
            os.remove(session)
        init = _cosmic_ray("init", config, session, cwd=tree)
        if init.returncode != 0:
            raise SystemExit(f"{target.slug}: cosmic-ray init failed:\n{init.stderr[-4000:]}")
        skipped = _skip_operators(session, target.module)
        state["baseline_s"] = round(baseline_s, 1)
        _log(target.slug, f"baseline {baseline_s:.0f} s; {skipped} mutants not run")
        if not fresh:
            carried = carry_kills(target, session)
            if carried:
                _log(target.slug, f"{carried} kills carried from the module's previous version")
    state.update(module=module_fp, tests=tests_fp)
    with open(state_path, "w") as fh:
        json.dump(state, fh)
    # The test selection may have changed since the session began (results already in stay).
    _write_config(target, config, timeout_s=max(60.0, 3 * state["baseline_s"]))
    _skip_operators(session, target.module)
    return session


def source_of_fingerprint(module: str, fingerprint: str, repo: str = REPO) -> str | None:
    """The text of ``module`` as it was when its fingerprint (:func:`_fingerprint`) was
    ``fingerprint``: searched in the versions git has of it, newest first; ``None`` if none."""
    revs = _git(["log", "--format=%H", "--", module], repo).stdout.split()
    for rev in revs:
        blob = subprocess.run(["git", "show", f"{rev}:{module}"], cwd=repo, capture_output=True)
        if blob.returncode != 0:
            continue
        digest = hashlib.sha256()
        digest.update(module.encode())
        digest.update(blob.stdout)
        if digest.hexdigest() == fingerprint:
            return blob.stdout.decode()
    return None


def _units(source: str) -> list[tuple[int, int, str]]:
    """The module's units, ``(first line, last line, key)``: every top-level statement, and inside
    a class every statement of its body (a method, a class attribute); decorators belong to their
    definition. A function that defines functions (a builder of closures: a validator's table of
    checks) is split the same way: its header (decorators, signature) is one unit and each
    statement of its body another, so that editing one check leaves the kills of the others.
    ``key`` is the unit's name (with its builder's) and text (its source lines) with the ordinal
    of identical units: a unit keeps its key as long as its own text is unchanged, wherever it
    moves (another place in the module, another class, a sibling module)."""
    lines = source.splitlines()
    out: list[tuple[int, int, str]] = []
    seen: dict[str, int] = {}

    def add(start: int, end: int, name: str) -> None:
        key = f"{name}\n" + "\n".join(lines[start - 1 : end])
        seen[key] = seen.get(key, -1) + 1
        out.append((start, end, f"{key}\n#{seen[key]}"))

    def builds_functions(node) -> bool:
        return any(
            n is not node and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            for n in ast.walk(node)
        )

    def visit(body, prefix: str = "") -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, prefix)
                continue
            start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            name = prefix + getattr(node, "name", type(node).__name__)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and builds_functions(node):
                if node.body[0].lineno > start:
                    add(start, node.body[0].lineno - 1, name)
                visit(node.body, f"{name}.")
                continue
            add(start, node.end_lineno, name)

    visit(ast.parse(source).body)
    return out


def mutant_keys(source: str, mutants: list[tuple[str, int, int]]) -> dict[tuple[str, int], tuple]:
    """``(operator, occurrence) -> key`` for mutants given as ``(operator, occurrence, line)`` of
    ``source``: the unit holding the line (:func:`_units`), the operator and the mutant's rank
    among that operator's mutants in the unit. Two versions of a module give a mutant the same key
    exactly when its unit's text is unchanged (an operator numbers its sites in source order, so
    the rank inside an unchanged unit is stable). Mutants outside every unit get no key."""
    units = _units(source)
    ranks: dict[tuple, int] = {}
    keys: dict[tuple[str, int], tuple] = {}
    for operator, occurrence, line in sorted(mutants):
        unit = next((u for u in units if u[0] <= line <= u[1]), None)
        if unit is None:
            continue
        counter = (operator, unit[2])
        ranks[counter] = ranks.get(counter, -1) + 1
        keys[(operator, occurrence)] = (operator, unit[2], ranks[counter])
    return keys


def carry_kills(target: Target, session: str) -> int:
    """After a change of the module, record as killed every mutant of the new session whose
    statement or definition (:func:`_units`) is unchanged and whose twin was killed (or timed out)
    in an archived version; returns how many. The archives read are the target's own and those of
    the targets in the same package folder, so kills follow a definition moved to a sibling
    module (a module split into rooms). The same trust the tool gives kills when other modules or
    the tests change: a kill stands, survivors and everything changed run again. Needs each
    archived version in git (:func:`source_of_fingerprint`)."""
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    folder = os.path.dirname(target.module)
    sources = [target] + [
        t for t in TARGETS if t.module != target.module and os.path.dirname(t.module) == folder
    ]
    killed: dict[tuple, str] = {}
    for source in sources:
        archive = _load_archive(source)
        if archive is None or "mutants" not in archive:
            continue
        old_source = source_of_fingerprint(source.module, archive["module_fingerprint"], repo=REPO)
        if old_source is None:
            continue
        old = mutant_keys(
            old_source, [(m["operator"], m["occurrence"], m["line"]) for m in archive["mutants"]]
        )
        for m in archive["mutants"]:
            key = old.get((m["operator"], m["occurrence"]))
            if key is not None and m["outcome"] in ("killed", "timeout"):
                killed[key] = m["outcome"]
    with open(os.path.join(REPO, target.module)) as fh:
        new_source = fh.read()
    results = {
        "killed": WorkResult(WorkerOutcome.NORMAL, "carried", TestOutcome.KILLED),
        "timeout": WorkResult(WorkerOutcome.NORMAL, "timeout", TestOutcome.KILLED),
    }
    with _open_db(session) as db:
        items = list(db.pending_work_items)
        new = mutant_keys(
            new_source,
            [
                (
                    i.mutations[0].operator_name,
                    i.mutations[0].occurrence,
                    i.mutations[0].start_pos[0],
                )
                for i in items
            ],
        )
        groups: dict[str, list[str]] = {}
        for item in items:
            mutation = item.mutations[0]
            key = new.get((mutation.operator_name, mutation.occurrence))
            if key in killed:
                groups.setdefault(killed[key], []).append(item.job_id)
        for outcome, job_ids in groups.items():
            db.set_multiple_results(job_ids, results[outcome])
    return sum(len(v) for v in groups.values())


def _git(args: list[str], repo: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)


def lines_changed_since(spec: str, module: str, repo: str = REPO) -> set[int]:
    """Line numbers of ``module`` in the working tree written since a git revision.

    ``spec`` is ``REV`` (every line added or changed since ``REV``, uncommitted ones included)
    or ``REV..END`` (only the lines last written by the commits in ``REV..END``: what an issue's
    commits wrote that is still in the tree). Lines are traced with ``git blame -C -C -M``, so a
    line moved from another module or within this one keeps the commit that wrote it: splitting
    a module does not make all of its lines new.

    Raises:
      SystemExit: a revision git does not know.
    """
    rev, dots, end = spec.partition("..")
    for name in (rev, end) if dots else (rev,):
        if _git(["rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"], repo).returncode:
            raise SystemExit(f"--first-since {spec!r}: git knows no revision {name!r}")
    blame = _git(["blame", "-C", "-C", "-M", "--porcelain", "--", module], repo)
    if blame.returncode != 0:
        raise SystemExit(f"--first-since {spec!r}: git blame failed: {blame.stderr.strip()}")
    if dots:
        wrote = set(_git(["rev-list", f"{rev}..{end}"], repo).stdout.split())
    else:
        before = set(_git(["rev-list", rev], repo).stdout.split())
    lines: set[int] = set()
    # Porcelain: every line of the file has a header "<commit> <original line> <final line>".
    for match in re.finditer(r"^([0-9a-f]{40}) \d+ (\d+)", blame.stdout, re.M):
        commit, line = match.group(1), int(match.group(2))
        if (commit in wrote) if dots else (commit not in before):
            lines.add(line)
    return lines


def lines_of_definitions(names: set[str], module: str, repo: str = REPO) -> set[int]:
    """Line numbers of ``module`` inside every function or class (at any depth) whose name matches
    one of ``names`` (shell patterns: ``_check_*``), decorators included: how
    ``--first-in 'validate,_invariants,_check_*'`` puts a module's validator first.

    Raises:
      SystemExit: a name that no definition of the module has.
    """
    with open(os.path.join(repo, module)) as fh:
        tree = ast.parse(fh.read())
    lines: set[int] = set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            matched = {n for n in names if fnmatch.fnmatchcase(node.name, n)}
            if matched:
                found |= matched
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                lines.update(range(start, node.end_lineno + 1))
    missing = sorted(names - found)
    if missing:
        raise SystemExit(f"--first-in: {module} defines no {', '.join(missing)}")
    return lines


def _kill_processes_in(folder: str) -> list[int]:
    """Kill (SIGKILL) every process of this user whose working directory is ``folder`` or below
    it (read from ``/proc``; nothing where there is no ``/proc``). Returns their pids."""
    folder = os.path.realpath(folder)
    killed = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:  # gone, or not ours
            continue
        if cwd == folder or cwd.startswith(folder + os.sep):
            try:
                os.kill(int(entry), 9)
                killed.append(int(entry))
            except OSError:
                pass
    return killed


def execute(
    target: Target,
    budget_s: float | None,
    first_lines: set[int] = frozenset(),
    coverage: dict | None = None,
    quick: tuple[str, ...] | None = None,
    in_process: bool = False,
    first_only: bool = False,
) -> None:
    """Run the target's pending mutants until none is left or ``budget_s`` is spent: first the
    survivors re-opened by a change of the tests, then those on ``first_lines`` (one at a time,
    in line order), then the rest (``cosmic-ray exec``, random order). With a ``coverage`` map
    the re-opened survivors and the ``first_lines`` mutants run only the tests that run their
    line (:func:`tests_for_line`); the rest run the whole list. With ``in_process`` (and a
    coverage map) those two groups go through :func:`run_in_process` first, and only the mutants
    it did not kill run in a fresh process each. ``first_only``: stop after those two groups (an
    issue's gate on its own lines, with several targets sharing one budget)."""
    base = os.path.join(WORK, target.slug)
    tree = os.path.join(base, "tree")
    config, session = os.path.join(base, "cosmic-ray.toml"), os.path.join(base, "session.sqlite")
    # The survivors re-opened by a change of the tests run first (the new tests may kill them).
    state_path = os.path.join(base, "state.json")
    with open(state_path) as fh:
        state = json.load(fh)
    deadline = None if budget_s is None else time.monotonic() + budget_s
    known = record_known_equivalents(target, tree, session)
    if known:
        _log(target.slug, f"{known} pending mutants explained as equivalent: recorded, not run")
    rerun = state.get("rerun", [])
    if coverage is not None and quick is None:
        # A run with every test: the quick survivors first (the slower tests may kill them).
        reopened = reopen_quick_survivors(session)
        if reopened:
            _log(target.slug, f"{len(reopened)} quick survivors run against every test, first")
        rerun = reopened + [j for j in rerun if j not in reopened]
    with _open_db(session) as db:
        pending = list(db.pending_work_items)
    pending_ids = {item.job_id for item in pending}
    on_lines = sorted(
        (item.mutations[0].start_pos[0], item.job_id)
        for item in pending
        if item.job_id not in rerun and item.mutations[0].start_pos[0] in first_lines
    )
    if first_lines:
        _log(target.slug, f"{len(on_lines)} pending mutants on the {len(first_lines)} lines first")
    first = [j for j in rerun if j in pending_ids] + [j for _, j in on_lines]
    if in_process and coverage is not None and first:
        run_in_process(
            target,
            tree,
            session,
            first,
            coverage,
            quick,
            deadline,
            timeout_s=3 * state["baseline_s"] + 60,
        )
        with _open_db(session) as db:
            still = {item.job_id for item in db.pending_work_items}
        first = [j for j in first if j in still]
    for job_id in first:
        if deadline is not None and time.monotonic() > deadline:
            _log(target.slug, "budget spent, stopped (run again to resume)")
            return
        _run_one(
            target,
            tree,
            session,
            job_id,
            timeout_s=3 * state["baseline_s"] + 60,
            coverage=coverage,
            quick=quick,
        )
    if rerun:
        state.pop("rerun")
        with open(state_path, "w") as fh:
            json.dump(state, fh)
        _log(target.slug, f"{len(rerun)} re-opened survivors run")
    if deadline is not None:
        budget_s = max(0.0, deadline - time.monotonic())
    if quick is not None or first_only:
        return  # a quick pass (or --first-only) runs only the first lines' mutants
    with _open_db(session) as db:
        pending = db.num_work_items - db.num_results
    if not pending:
        return
    _log(target.slug, f"{pending} mutants to run")
    proc = subprocess.Popen(
        [_python(), "-m", "cosmic_ray.cli", "exec", config, session],
        cwd=tree,
        env=_environ(tree),
        stdout=subprocess.DEVNULL,
        stderr=open(os.path.join(base, "exec.log"), "a"),  # noqa: SIM115
        start_new_session=True,
    )
    try:
        proc.wait(timeout=budget_s)
    except subprocess.TimeoutExpired:
        # Results already recorded stay; the mutant in flight runs again next time.
        os.killpg(proc.pid, 9)
        proc.wait()
        # cosmic-ray starts each mutant's pytest in a session of its own, which killpg misses: a
        # mutant that loops forever then ran on, orphaned, taking a core for hours.
        _kill_processes_in(tree)
        _log(target.slug, "budget spent, stopped (run again to resume)")
    # A killed exec can leave a mutated file behind: the tree is re-copied next time if so.
    with (
        open(os.path.join(REPO, target.module), "rb") as a,
        open(os.path.join(tree, target.module), "rb") as b,
    ):
        if a.read() != b.read():
            shutil.copy2(os.path.join(REPO, target.module), os.path.join(tree, target.module))


# ----------------------------------------------------------------------------------------------
# Archive: the tracked outcome of every mutant (benchmarks/mutation/<slug>.json)


def _archive_path(target: Target) -> str:
    return os.path.join(ARCHIVE, target.slug.replace("/", "-") + ".json")


def _outcome(result) -> str:
    if result is None:
        return "pending"
    if result.worker_outcome == "skipped":
        return "skipped"
    if result.test_outcome == "survived":
        return "survived_quick" if (result.output or "").startswith("quick:") else "survived"
    return "timeout" if result.output == "timeout" else "killed"


def export(target: Target) -> None:
    """Write the session's outcome per mutant to the tracked archive (survivors with their diff:
    the report matches them against the equivalents)."""
    base = os.path.join(WORK, target.slug)
    session, state_path = os.path.join(base, "session.sqlite"), os.path.join(base, "state.json")
    if not (os.path.exists(session) and os.path.exists(state_path)):
        return
    with open(state_path) as fh:
        state = json.load(fh)
    mutants = []
    with _open_db(session) as db:
        results = dict(db.results)
        for item in db.work_items:
            result = results.get(item.job_id)
            (mutation,) = item.mutations
            outcome = _outcome(result)
            if outcome == "skipped":  # an operator not run: recomputed on restore
                continue
            entry = dict(
                operator=mutation.operator_name,
                occurrence=mutation.occurrence,
                line=mutation.start_pos[0],
                outcome=outcome,
            )
            if outcome.startswith("survived"):
                entry["diff"] = result.diff or ""
            mutants.append(entry)
    mutants.sort(key=lambda m: (m["operator"], m["occurrence"]))
    header = dict(
        module=target.module,
        module_fingerprint=state["module"],
        tests_fingerprint=state["tests"],
        baseline_s=state["baseline_s"],
    )
    # One mutant a line: a later run's changes read as a short diff.
    text = (
        "{\n"
        + "".join(f"{json.dumps(k)}: {json.dumps(v)},\n" for k, v in header.items())
        + '"mutants": [\n'
        + ",\n".join(json.dumps(m, sort_keys=True) for m in mutants)
        + "\n]}\n"
    )
    os.makedirs(ARCHIVE, exist_ok=True)
    with open(_archive_path(target), "w") as fh:
        fh.write(text)


def _load_archive(target: Target) -> dict | None:
    path = _archive_path(target)
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        archive = json.load(fh)
    if archive.get("module") != target.module:
        raise SystemExit(
            f"{path}: field 'module' is {archive.get('module')!r}, not {target.module!r}"
        )
    return archive


def restore(target: Target, files: list[str], module_fp: str) -> bool:
    """Rebuild a session from the archive when the module is unchanged since it was written: a new
    checkout resumes where the last one stopped instead of running every mutant again. Returns
    whether it did (``cosmic-ray init`` is deterministic: the same module gives the same mutants,
    matched by operator and occurrence)."""
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    archive = _load_archive(target)
    if (
        archive is None
        or archive.get("module_fingerprint") != module_fp
        or "mutants" not in archive
    ):
        return False
    base = os.path.join(WORK, target.slug)
    tree, session = os.path.join(base, "tree"), os.path.join(base, "session.sqlite")
    config = os.path.join(base, "cosmic-ray.toml")
    _copy_tree(files, tree)
    _write_config(target, config, timeout_s=max(60.0, 3 * archive["baseline_s"]))
    init = _cosmic_ray("init", config, session, cwd=tree)
    if init.returncode != 0:
        raise SystemExit(f"{target.slug}: cosmic-ray init failed:\n{init.stderr[-4000:]}")
    by_key = {(m["operator"], m["occurrence"]): m for m in archive["mutants"]}
    results = {
        "killed": WorkResult(WorkerOutcome.NORMAL, "restored", TestOutcome.KILLED),
        "timeout": WorkResult(WorkerOutcome.NORMAL, "timeout", TestOutcome.KILLED),
    }
    groups: dict[str, list[str]] = {}
    survivors = []
    with _open_db(session) as db:
        for item in db.pending_work_items:
            (mutation,) = item.mutations
            entry = by_key.get((mutation.operator_name, mutation.occurrence))
            if entry is None:
                continue
            if entry["outcome"] in results:
                groups.setdefault(entry["outcome"], []).append(item.job_id)
            elif entry["outcome"].startswith("survived"):
                quick = entry["outcome"] == "survived_quick"
                survivors.append((item.job_id, entry.get("diff", ""), quick))
        for outcome, job_ids in groups.items():
            db.set_multiple_results(job_ids, results[outcome])
        for job_id, diff, quick in survivors:
            output = "quick: restored" if quick else "restored"
            db.set_result(
                job_id, WorkResult(WorkerOutcome.NORMAL, output, TestOutcome.SURVIVED, diff)
            )
    with open(os.path.join(base, "state.json"), "w") as fh:
        json.dump(
            dict(
                module=module_fp,
                tests=archive["tests_fingerprint"],
                baseline_s=archive["baseline_s"],
            ),
            fh,
        )
    done = sum(len(v) for v in groups.values()) + len(survivors)
    _log(
        target.slug, f"restored {done} results from {os.path.relpath(_archive_path(target), REPO)}"
    )
    return True


# ----------------------------------------------------------------------------------------------
# Report


def _equivalents() -> list[dict]:
    if not os.path.exists(EQUIVALENT):
        return []
    with open(EQUIVALENT) as fh:
        entries = yaml.safe_load(fh) or []
    for i, entry in enumerate(entries):
        missing = {"module", "operator", "original", "mutated", "why"} - set(entry)
        if missing:
            raise SystemExit(f"{EQUIVALENT}: entry {i}: missing {sorted(missing)}")
        if "line" in entry and (type(entry["line"]) is not int or entry["line"] < 1):
            raise SystemExit(f"{EQUIVALENT}: entry {i}: 'line' must be a positive integer")
    return entries


def _changed_lines(diff: str) -> tuple[str, str]:
    removed = [
        ln[1:].strip()
        for ln in diff.splitlines()
        if ln.startswith("-") and not ln.startswith("---")
    ]
    added = [
        ln[1:].strip()
        for ln in diff.splitlines()
        if ln.startswith("+") and not ln.startswith("+++")
    ]
    return " ".join(removed), " ".join(added)


def summarize(target: Target) -> dict | None:
    """Counts and unexplained survivors of a target, from its archive (written from the local
    session first, when there is one). An archive with ``carried`` holds counts copied by hand
    from a run whose per-mutant outcomes were not kept."""
    export(target)
    archive = _load_archive(target)
    if archive is None:
        return None
    if "carried" in archive:
        counts = dict(archive["carried"])
        counts["survivors"] = []
        counts["carried"] = archive["note"]
        return counts
    counts = dict(total=0, skipped=0, killed=0, timeouts=0, survived=0, equivalent=0, pending=0)
    survivors = []
    for mutant in archive["mutants"]:
        outcome = mutant["outcome"]
        if outcome == "skipped":
            counts["skipped"] += 1
            continue
        counts["total"] += 1
        if outcome == "pending":
            counts["pending"] += 1
        elif outcome.startswith("survived"):
            if _is_equivalent(target.module, mutant["operator"], mutant["diff"]):
                counts["equivalent"] += 1
            else:
                counts["survived"] += 1
                survivors.append(mutant)
        else:
            counts["killed"] += 1
            counts["timeouts"] += outcome == "timeout"
    done = counts["total"] - counts["pending"]
    judged = done - counts["equivalent"]
    counts["kill_rate"] = counts["killed"] / judged if judged else None
    counts["survivors"] = sorted(survivors, key=lambda s: (s["line"], s["operator"]))
    counts["baseline_s"] = archive["baseline_s"]
    # The module changed after these outcomes were recorded: its next run starts over.
    counts["stale"] = archive["module_fingerprint"] != _fingerprint([target.module])
    return counts


def _wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (the kill rate of a sampled run)."""
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = (
        z * ((p * (1 - p) / trials + z * z / (4 * trials * trials)) ** 0.5) / (1 + z * z / trials)
    )
    return max(0.0, centre - half), min(1.0, centre + half)


def group_summary(summaries: list[dict]) -> dict:
    """Totals of several modules' summaries (e.g. all of ``tcgjax/core``): pooled counts, and the
    kill rate as a stratified estimate, each module's rate weighted by its number of mutants (the
    modules are sampled at different fractions, so the pooled ratio would over-weight the modules
    run furthest). ``kill_rate`` is None when no module has one."""
    keys = ("total", "killed", "timeouts", "equivalent", "survived", "pending")
    out = {k: sum(s[k] for s in summaries) for k in keys}
    rated = [s for s in summaries if s["kill_rate"] is not None]
    weight = sum(s["total"] for s in rated)
    out["kill_rate"] = sum(s["total"] * s["kill_rate"] for s in rated) / weight if weight else None
    out["judged"] = out["total"] - out["pending"] - out["equivalent"]
    return out


def report() -> None:
    rows, sections, notes = [], [], []
    core = []
    for target in TARGETS:
        s = summarize(target)
        if s is not None and target.module.startswith("tcgjax/core/") and not s.get("stale"):
            core.append(s)  # outcomes of a since-changed module describe another program
        if s is None:
            rows.append(f"| `{target.module}` | not run | | | | | | |")
            continue
        rate = "—" if s["kill_rate"] is None else f"{100 * s['kill_rate']:.1f}%"
        if s["pending"] and s["kill_rate"] is not None:
            # cosmic-ray runs the pending mutants in random order: a partial run is a uniform
            # sample, and its kill rate an estimate (Wilson 95% interval).
            low, high = _wilson(s["killed"], s["total"] - s["pending"] - s["equivalent"])
            rate += f" (95%: {100 * low:.0f}-{100 * high:.0f}%)"
        status = "complete" if not s["pending"] else f"{s['pending']} pending"
        if s.get("carried"):
            status += " (carried*)"
            notes.append(f"\\* `{target.module}`: {s['carried']}")
        if s.get("stale"):
            status += " (stale†)"
            notes.append(
                f"† `{target.module}`: the module changed after these outcomes were recorded;"
                " they describe its earlier version, and its next run starts over."
            )
        rows.append(
            f"| `{target.module}` | {status} | {s['total']} | {s['killed']} ({s['timeouts']} timeouts)"
            f" | {s['equivalent']} | {s['survived']} | {rate} | {s['baseline_s']} |"
        )
        if s["survivors"]:
            body = "\n\n".join(
                f"line {v['line']}, `{v['operator']}` #{v['occurrence']}"
                + (
                    " (survived the quick tests; the slower ones that run its line not yet)"
                    if v["outcome"] == "survived_quick"
                    else ""
                )
                + "\n```diff\n"
                + "\n".join(
                    ln for ln in v["diff"].splitlines() if not ln.startswith(("---", "+++"))
                )
                + "\n```"
                for v in s["survivors"]
            )
            sections.append(
                f"### `{target.module}`: {len(s['survivors'])} unexplained survivors\n\n{body}"
            )
    whole = group_summary(core)
    if whole["kill_rate"] is not None:
        rows.append(
            f"| **`tcgjax/core`: its {len(core)} current modules** | {whole['pending']} pending"
            f" | {whole['total']} | {whole['killed']} ({whole['timeouts']} timeouts)"
            f" | {whole['equivalent']} | {whole['survived']} | {100 * whole['kill_rate']:.1f}%"
            f" (weighted by mutants; pooled {whole['killed']}/{whole['judged']}) | |"
        )
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    text = (
        "# Mutation testing\n\n"
        f"Written by `make mutation` (`tools/mutation.py`, cosmic-ray) on {time.strftime('%Y-%m-%d')},"
        f" tree `{commit}`. Kill rate = killed / (run − explained equivalents); a timeout counts as"
        " killed. Operators run and why: `tools/mutation.py` (`OPERATORS`). Equivalent mutants, each"
        " with its reason: `tools/mutation_equivalent.yaml`. *tests, s*: one unmutated run of the"
        " target's tests in one process (what a surviving mutant costs; a killed one stops at"
        " its first failing test).\n\n"
        "| module | run | mutants | killed | equivalent | unexplained survivors | kill rate"
        " | tests, s |\n"
        "|---|---|---:|---:|---:|---:|---:|---:|\n"
        + "\n".join(rows)
        + "\n\n"
        + "".join(note + "\n\n" for note in notes)
        + "Per-mutant outcomes: `benchmarks/mutation/` (a new checkout resumes from them).\n\n"
        + "## Unexplained survivors\n\n"
        + ("\n\n".join(sections) if sections else "None.")
        + "\n"
    )
    with open(REPORT, "w") as fh:
        fh.write(text)
    print(f"wrote {os.path.relpath(REPORT, REPO)}")


def _first_lines(target: Target, since: str | None, names: str | None) -> set[int]:
    """The lines whose mutants run first: changed since ``since``, inside the definitions
    ``names``, or both (their intersection); none when neither is given."""
    lines = None
    if since:
        lines = lines_changed_since(since, target.module)
    if names:
        inside = lines_of_definitions(
            {n.strip() for n in names.split(",") if n.strip()}, target.module
        )
        lines = inside if lines is None else lines & inside
    return lines or set()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("targets", nargs="*", help="slugs (core/zones) or paths; default: all")
    parser.add_argument("--list", action="store_true", help="list the targets and their tests")
    parser.add_argument("--report-only", action="store_true", help="only rewrite the report")
    parser.add_argument("--fresh", action="store_true", help="start the named sessions over")
    parser.add_argument("--jobs", type=int, default=1, help="targets run side by side")
    parser.add_argument(
        "--budget-minutes", type=float, default=None, help="stop (resumable) after this long"
    )
    parser.add_argument(
        "--first-since",
        metavar="REV",
        default=None,
        help="run the mutants on lines changed since git revision REV first (then the rest); "
        "REV..END: only the lines last written by the commits in that range (git blame -C: "
        "lines moved between modules keep their commit)",
    )
    parser.add_argument(
        "--first-in",
        metavar="NAMES",
        default=None,
        help="run the mutants inside these functions or classes (comma-separated) first; with "
        "--first-since, only their lines changed since REV",
    )
    parser.add_argument(
        "--first-only",
        action="store_true",
        help="with --first-since / --first-in: run only those mutants (and re-opened survivors), "
        "not the rest of the module: one budget then covers an issue's lines in every target",
    )
    parser.add_argument(
        "--by-coverage",
        action="store_true",
        help="the re-opened survivors and the --first-in mutants run only the tests that run "
        "their line (pytest-cov contexts; sound for host-side code such as the validators)",
    )
    parser.add_argument(
        "--quick",
        metavar="TEST_FILES",
        default=None,
        help="with --by-coverage: run only the tests of these files (comma-separated; e.g. the "
        "validator's own tests) that run the line; a mutant that survives them is a quick "
        "survivor, run against every test by the next run without --quick",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="with --by-coverage: first run those mutants in one test process "
        "(tools/mutation_inprocess.py: code objects swapped, no import per mutant) and record "
        "its kills; the others then run as usual, one fresh process each",
    )
    parser.add_argument(
        "--tests-first",
        metavar="TEST_FILES",
        default=None,
        help="run these test files (comma-separated) before the target's own list, for this "
        "invocation: the tests written for the changed lines kill their mutants soonest (-x)",
    )
    args = parser.parse_args(argv)
    if args.first_only and not (args.first_since or args.first_in):
        parser.error("--first-only needs --first-since or --first-in (the mutants to run)")
    if args.in_process and not args.by_coverage:
        parser.error("--in-process needs --by-coverage")
    if args.quick is not None and not args.by_coverage:
        parser.error("--quick needs --by-coverage")
    quick = None if args.quick is None else tuple(f.strip() for f in args.quick.split(","))
    if args.by_coverage and not args.first_in:
        parser.error("--by-coverage needs --first-in: host-side functions, where it is sound")
    by_name = {t.slug: t for t in TARGETS} | {t.module: t for t in TARGETS}
    unknown = [n for n in args.targets if n not in by_name]
    if unknown:
        parser.error(f"unknown targets {unknown}; known: {sorted(t.slug for t in TARGETS)}")
    if args.jobs < 1:
        parser.error("--jobs must be >= 1")
    targets = [by_name[n] for n in args.targets] or list(TARGETS)
    if args.tests_first:
        first_files = tuple(f.strip() for f in args.tests_first.split(",") if f.strip())
        missing = [f for f in first_files if not os.path.exists(os.path.join(REPO, f))]
        if missing:
            parser.error(f"--tests-first: no such test file {missing}")
        targets = [
            dataclasses.replace(
                t, tests=(*first_files, *(x for x in t.tests if x not in first_files))
            )
            for t in targets
        ]
    if args.list:
        for t in targets:
            print(f"{t.slug:24s} {t.module}  <-  {' '.join(t.tests)}")
        return 0
    if not args.report_only:
        files = _tree_files()
        sessions = [prepare(t, files, args.fresh, args.by_coverage) for t in targets]
        del sessions
        # One deadline for the whole invocation: each target gets what is left of it.
        deadline = (
            None if args.budget_minutes is None else time.monotonic() + 60 * args.budget_minutes
        )

        def run(target: Target) -> None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is None or left > 0:
                first = _first_lines(target, args.first_since, args.first_in)
                cmap = coverage_map(target, files)[0] if args.by_coverage else None
                execute(
                    target,
                    None if left is None else deadline - time.monotonic(),
                    first,
                    cmap,
                    quick,
                    args.in_process,
                    args.first_only,
                )

        with ThreadPoolExecutor(args.jobs) as pool:
            list(pool.map(run, targets))
    report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
