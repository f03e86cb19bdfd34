"""A pytest plugin that runs many mutants of one host-side module in one test process
(``tools/mutation.py --in-process``): a fast filter in front of cosmic-ray's one-process-a-mutant.

A mutant's test run through cosmic-ray costs a fresh Python process (importing JAX and the
library, building the rules: 5-20 s) for tests that take a fraction of a second. Here one pytest
process collects the tests once and, for each mutant of the plan,

1. builds the mutated source with cosmic-ray's own operator (the same mutant cosmic-ray would
   write to disk: same operator, same occurrence);
2. compiles only the definition that holds the mutated line (a function, or a method inside its
   classes, decorators dropped) without running anything, and swaps the new code object into the
   live function (``__code__``): every caller, table or bound method that holds the function runs
   the mutant, and nothing else of the module is re-run;
3. runs the tests that run the mutated line (the coverage map's selection), stopping at the first
   that fails, under a timeout;
4. puts the original code back, finishes every fixture narrower than the session (a module's
   fixture set up during the mutant's tests holds what the mutated code built) and, after a
   kill, runs the killing test once more unmutated: it must pass (otherwise an earlier mutant
   left state behind, and the whole pass stops).

A mutant's tests run file by file (:func:`by_file`): module-scoped fixtures are built once per
visit of their file.

Each test runs once unmutated (it must pass) before the first mutant that runs it, so that what
the library builds lazily and caches is built from the original code. The budget (``deadline``) is
checked before each mutant and each of these first runs. What it caches in the
attributes the plan names (``drop_attributes``: a rules object's invariant table, built from the
validator's code) is dropped after each swap and each restore, so the mutant's tests build it from
the mutated code and the next mutant's from the original.

Only kills are recorded. A mutant that survives here is left to cosmic-ray's fresh process (a
cache filled before the swap, or a copy of the function made at import, can hide a mutant from an
in-process run, never make a test fail), so the verdicts stay those of cosmic-ray, only sooner.
Mutants on lines outside a function body (import-time code, decorators, default arguments) are
left to cosmic-ray too.

Environment (set by ``tools/mutation.py``): ``MUTATION_PLAN``, a JSON file: ``module`` (the
target's path), ``timeout_s``, ``deadline`` (as ``time.time()``), ``drop_attributes``, and
``mutants`` (each: ``job_id``, ``operator``, ``occurrence``, ``line``, ``tests``);
``MUTATION_RESULTS``, a JSON-lines file this appends one line a mutant to: ``job_id``,
``outcome`` (killed, not_killed, outside_function, no_mutation, not_swappable, tainted),
``test``, ``seconds``, ``diff``.
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import signal
import sys
import time

_PLAN = os.environ.get("MUTATION_PLAN")


class MutantTimeout(BaseException):
    """Raised inside a test that ran past the mutant's time limit (a mutant that loops forever)."""


def definition_path(source: str, line: int) -> list[ast.AST] | None:
    """The chain of class definitions down to the function definition whose *body* holds
    ``line`` (``[ClassDef, ..., FunctionDef]``), or ``None`` when the line is not in a function
    body at the module's or a class's top (import-time code, a decorator, a default argument)."""
    body = ast.parse(source).body
    chain: list[ast.AST] = []
    while True:
        node = next((n for n in body if n.lineno <= line <= n.end_lineno), None)
        if isinstance(node, ast.ClassDef):
            chain.append(node)
            body = node.body
            continue
        if (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body[0].lineno <= line
        ):
            return [*chain, node]
        return None


def compiled_definition(source: str, chain_names: list[str], filename: str):
    """The code object of the definition named by ``chain_names`` (classes, then the function) in
    ``source``, compiled inside classes of the same names (so ``super()``'s ``__class__`` cell and
    private-name mangling match the module's), decorators dropped; nothing is executed."""
    body = ast.parse(source).body
    nodes = []
    for name in chain_names:
        node = next(
            n
            for n in body
            if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name == name
        )
        nodes.append(node)
        body = getattr(node, "body", [])
    function = nodes[-1]
    function.decorator_list = []
    wrapped: ast.stmt = function
    for cls in reversed(nodes[:-1]):
        wrapped = ast.ClassDef(
            name=cls.name, bases=[], keywords=[], body=[wrapped], decorator_list=[]
        )
        ast.copy_location(wrapped, cls)
    module = ast.Module(body=[wrapped], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, filename, "exec", dont_inherit=True)
    for name in chain_names:
        code = next(c for c in code.co_consts if hasattr(c, "co_name") and c.co_name == name)
    return code


def live_functions(module, chain_names: list[str]) -> list:
    """The live function objects the definition ``chain_names`` of ``module`` stands for (a
    property's getter, setter and deleter; a static or class method's function; a decorated
    function unwrapped to the one defined in the source)."""
    owner = module
    for name in chain_names[:-1]:
        owner = owner.__dict__[name]
    value = owner.__dict__[chain_names[-1]]
    if isinstance(value, property):
        candidates = [value.fget, value.fset, value.fdel]
    elif isinstance(value, (staticmethod, classmethod)):
        candidates = [value.__func__]
    else:
        candidates = [value]
    found = []
    for fn in candidates:
        while fn is not None and not hasattr(fn, "__code__") and hasattr(fn, "__wrapped__"):
            fn = fn.__wrapped__
        while hasattr(fn, "__wrapped__") and hasattr(fn, "__code__"):
            if fn.__code__.co_name == chain_names[-1]:
                break
            fn = fn.__wrapped__
        if fn is not None and getattr(fn, "__code__", None) is not None:
            if fn.__code__.co_name == chain_names[-1]:
                found.append(fn)
    return found


def drop_cached(names: list[str]) -> int:
    """Remove the attributes ``names`` from every live object's ``__dict__`` (where the library
    keeps what it builds lazily from the target's code, e.g. a rules object's invariant table),
    so that the next use builds them again from the code now in place. A name ``Class.attribute``
    is dropped only from instances of a class of that name (or a subclass): for a
    ``functools.cached_property`` whose plain name other objects use for other things (a package
    keeps its submodule ``invariants`` in its ``__dict__`` too). Returns how many."""
    if not names:
        return 0
    import gc

    anywhere = [n for n in names if "." not in n]
    by_class = [tuple(n.split(".", 1)) for n in names if "." in n]
    dropped = 0
    for obj in gc.get_objects():
        try:
            attributes = object.__getattribute__(obj, "__dict__")
        except (AttributeError, TypeError):
            continue
        if type(attributes) is not dict:
            continue
        wanted = [n for n in anywhere if n in attributes]
        if by_class:
            classes = {c.__name__ for c in type(obj).__mro__}
            wanted += [a for c, a in by_class if c in classes and a in attributes]
        for name in wanted:
            del attributes[name]
            dropped += 1
    return dropped


def by_file(nodeids: list[str]) -> list[str]:
    """``nodeids`` with each test file's tests together, files in the order of their first test
    (the quickest first stays first): switching files tears down and builds again the
    module-scoped fixtures (rules objects, jitted steps), which costs far more than a test."""
    files: dict[str, int] = {}
    for nodeid in nodeids:
        files.setdefault(nodeid.split("::", 1)[0], len(files))
    return sorted(nodeids, key=lambda nodeid: files[nodeid.split("::", 1)[0]])


def _alarm(_signum, _frame):
    raise MutantTimeout("the mutant's tests ran past its time limit")


def _run_item(item):
    """Setup and call of one test (teardown is deferred until the next test is known, as pytest's
    own loop does); returns its last report (``.passed``, ``.longreprtext``)."""
    from _pytest.runner import call_and_report

    if hasattr(item, "_request") and not item._request:
        item._initrequest()
    setup = call_and_report(item, "setup", log=False)
    if not setup.passed:
        return setup
    return call_and_report(item, "call", log=False)


class _Parent:
    """Stands for the next test when a test runs again right after itself (the killing test's
    unmutated run): pytest tears down what the next test does not share, and a test shares its
    own function-scoped fixtures with itself, so its chain without it is what stays."""

    def __init__(self, item):
        self._chain = item.listchain()[:-1]

    def listchain(self):
        return self._chain


class _SessionOnly:
    """Stands for a next test that shares only the session with ``item``: tearing down towards it
    finishes every module-, class- and function-scoped fixture ``item``'s chain holds."""

    def __init__(self, item):
        self._chain = [item.session]

    def listchain(self):
        return self._chain


def _teardown(item, nextitem) -> bool:
    from _pytest.runner import call_and_report

    if nextitem is item:
        nextitem = _Parent(item)
    report = call_and_report(item, "teardown", log=False, nextitem=nextitem)
    if hasattr(item, "_request"):
        item._request = False
        item.funcargs = None
    return report.passed


def pytest_runtestloop(session):
    """Run the plan's mutants instead of the collected tests (:mod:`tools.mutation_inprocess`)."""
    if _PLAN is None:
        return None
    if session.testsfailed:
        return True
    import importlib

    from cosmic_ray.mutating import mutate_code
    from cosmic_ray.plugins import get_operator

    with open(_PLAN) as fh:
        plan = json.load(fh)
    module_name = plan["module"][: -len(".py")].replace("/", ".")
    module = importlib.import_module(module_name)
    filename = module.__file__
    with open(filename) as fh:
        source = fh.read()
    items = {item.nodeid: item for item in session.items}
    previous = None
    signal.signal(signal.SIGALRM, _alarm)
    out = open(os.environ["MUTATION_RESULTS"], "a")  # noqa: SIM115

    def write(entry: dict) -> None:
        out.write(json.dumps(entry) + "\n")
        out.flush()

    def run(nodeid: str):
        nonlocal previous
        item = items[nodeid]
        if previous is not None and not _teardown(previous, item):
            raise RuntimeError(f"{previous.nodeid}: its teardown failed")
        previous = item
        return _run_item(item)

    try:
        warmed: set[str] = set()
        for mutant in plan["mutants"]:
            if time.time() > plan["deadline"]:
                break
            # Each test once, unmutated, before the first mutant that runs it: it must pass here
            # too, and what the library builds lazily and caches (an invariant table, a jitted
            # step) is built from the original code, not from a mutant. Done as the mutants come
            # (not all up front), so a budget spent before the end has killed mutants on the way.
            for nodeid in by_file([n for n in mutant["tests"] if n not in warmed]):
                if time.time() > plan["deadline"]:
                    return True
                report = run(nodeid)
                warmed.add(nodeid)
                if not report.passed:
                    print(
                        f"mutation_inprocess: {nodeid} fails unmutated:\n{report.longreprtext}",
                        file=sys.stderr,
                    )
                    return True
            # The unmutated runs leave module- and class-scoped fixtures built from the original
            # code; finish them, so the mutant's tests build theirs from the mutated code (a
            # table of checks held by a module fixture would otherwise hide the mutant).
            if previous is not None:
                if not _teardown(previous, _SessionOnly(previous)):
                    raise RuntimeError(f"{previous.nodeid}: its teardown failed")
                previous = None
            started = time.monotonic()
            entry = {"job_id": mutant["job_id"], "outcome": "not_killed", "test": None}
            chain = definition_path(source, mutant["line"])
            if chain is None:
                write(entry | {"outcome": "outside_function"})
                continue
            operator = get_operator(mutant["operator"])()
            mutated = mutate_code(source, operator, mutant["occurrence"])
            if mutated is None:
                write(entry | {"outcome": "no_mutation"})
                continue
            names = [n.name for n in chain]
            try:
                code = compiled_definition(mutated, names, filename)
            except SyntaxError as err:
                # cosmic-ray's run would fail to import the module: killed.
                write(entry | {"outcome": "killed", "test": f"SyntaxError: {err}"})
                continue
            functions = live_functions(module, names)
            if len(functions) != 1 or (functions[0].__code__.co_freevars != code.co_freevars):
                write(entry | {"outcome": "not_swappable"})
                continue
            (live,) = functions
            original = live.__code__
            live.__code__ = code
            drop_cached(plan.get("drop_attributes", []))
            killer = None
            try:
                signal.setitimer(signal.ITIMER_REAL, plan["timeout_s"])
                try:
                    for nodeid in by_file(mutant["tests"]):
                        if not run(nodeid).passed:
                            killer = nodeid
                            break
                except MutantTimeout:
                    killer = "timeout"
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            finally:
                live.__code__ = original
                drop_cached(plan.get("drop_attributes", []))
            # A module- or class-scoped fixture set up during the mutant's tests (its file was
            # entered anew) holds what the mutated code built: finish them all, so the killing
            # test's unmutated run and the next mutant's tests build them from the original code.
            if previous is not None:
                if not _teardown(previous, _SessionOnly(previous)):
                    raise RuntimeError(f"{previous.nodeid}: its teardown failed")
                previous = None
            again = None if killer in (None, "timeout") else run(killer)
            if again is not None and not again.passed:
                write(entry | {"outcome": "tainted", "test": killer})
                print(
                    f"mutation_inprocess: {killer} fails unmutated after mutant "
                    f"{mutant['job_id']}: stopped\n{again.longreprtext}",
                    file=sys.stderr,
                )
                break
            diff = "\n".join(
                difflib.unified_diff(
                    source.split("\n"),
                    mutated.split("\n"),
                    fromfile=plan["module"],
                    tofile=plan["module"],
                    lineterm="",
                )
            )
            write(
                entry
                | {
                    "outcome": "killed" if killer is not None else "not_killed",
                    "test": killer,
                    "seconds": round(time.monotonic() - started, 3),
                    "diff": diff,
                }
            )
    finally:
        if previous is not None:
            _teardown(previous, None)
        out.close()
    return True
