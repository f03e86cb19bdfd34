"""Shared fixtures. Compiled functions are shared per session (session and module fixtures).

Memory mappings. XLA's CPU compiler loads every kernel of an executable as its own small object
(a code page, a read-only page and a data page: ~280 mappings for the duel step, ~3,300 for a
batched Digimon step, ~1,900 for an eager ``vmap(init)`` dispatched op by op), and a worker keeps
every executable it compiled. In a 25-minute session a worker reaches the kernel's
``vm.max_map_count`` (65,530): the next ``mmap`` fails inside XLA and the process segfaults, after
which pytest-xdist 3.8's scheduler hangs until CI's timeout. That was the crash of
four fresh-clone CI runs on 2026-11-26 (a core dump of the last one held 65,085 mappings; two had
died in ``executable.serialize()`` of the cache write, two in ``backend_compile_and_load``, all
late in the session). :func:`_bounded_mappings` keeps every worker well below the limit, and
``make test`` passes ``--max-worker-restart=0`` so that a crash fails the run at once, naming the
test, instead of hanging it.

Scheduling. ``make test`` runs ``--dist loadfile``: a test file is one unit of work, so its module
fixtures are built once, by one worker. (The suite used ``--dist loadgroup`` with ``xdist_group``
marks; under pytest 9.2 pytest-xdist 3.8 can no longer rename a test's node id, which is how it
groups, so every test was a unit of its own: a module's tests were dealt to both workers in turn,
and both built its fixtures at the same moment, each compiling what the other had not yet cached.)
:data:`SLOW_FILES` are started first (longest first), so that the last units are short ones and
neither worker waits on the other at the end.

JAX's persistent compilation cache (``.jax_cache``) is on unless ``TCGJAX_TEST_CACHE=0``: the
second worker to need a program, and a program compiled again after :func:`_bounded_mappings`
freed it, load it from disk instead of compiling it.
"""

import gc
import os
import time

import jax
import pytest

# XLA's CPU backend at optimisation level 0 (LLVM's cheap pipeline), with its older loop emitters
# for fusions (``--xla_cpu_use_fusion_emitters=false``): the suite compiles far more than it runs
# (2026-11-28, a cold 2-core run: 11,500 compiles, 49% of the workers' time in XLA's backend
# compile, 23% more in tracing and lowering). Level 0 compiles the big programs ~1.6x faster (the
# Digimon batched rollout 42 -> 26 s) while a run-heavy test (100k random Digimon steps) takes as
# long as before; the older emitters halve the cost of the ~8,000 small programs the tests compile
# (eager ops on states: 34 -> 17 ms each) and take 6-20% off the big ones (a batched step: Pokémon
# 18 -> 15 s, Digimon 29 -> 28 s). Both change how fast the machine code is, not what it computes
# (no fast-math either way). Set in the environment, so subprocesses (notebook kernels, the CLI,
# tcgjax.train.run) inherit them; ``TCGJAX_TEST_XLA_OPT=default`` runs the suite with XLA's
# defaults. Benchmarks and `make train` never set them.
_TEST_XLA_FLAGS = ("--xla_backend_optimization_level=0", "--xla_cpu_use_fusion_emitters=false")
if os.environ.get("TCGJAX_TEST_XLA_OPT", "0") != "default":
    for _flag in _TEST_XLA_FLAGS:
        if _flag.split("=")[0] not in os.environ.get("XLA_FLAGS", ""):
            os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_flag}".strip()

if os.environ.get("TCGJAX_TEST_CACHE", "1") != "0":
    jax.config.update(
        "jax_compilation_cache_dir", os.path.join(os.path.dirname(__file__), "..", ".jax_cache")
    )
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


#: Files that keep a worker busy a minute or more, longest first (the suite's ``--durations``,
#: 2026-11-27, 2 cores). The rest follow in collection order.
SLOW_FILES = (
    "tests/games/pokemon/test_pokemon_env.py",
    "tests/test_notebooks.py",
    "tests/games/digimon/test_digimon_env.py",
    "tests/wrappers/test_wrappers_ecosystem.py",
    "tests/train/test_train_digimon.py",
    "tests/train/test_train_distributed.py",
    "tests/test_search.py",
    "tests/games/digimon/test_digimon_validate.py",
    "tests/games/pokemon/test_pokemon_validate.py",
    "tests/train/test_train_sweep.py",
    "tests/games/digimon/test_digimon_random_play.py",
    "tests/train/test_train_ppo.py",
    "tests/games/digimon/test_digimon_starter_effects.py",
    "tests/games/digimon/test_digimon_attack.py",
    "tests/games/pokemon/test_pokemon_turn.py",
)


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (a worker has ``config.workerinput``): :data:`SLOW_FILES` first, in their
    order; every other test keeps its place (a stable sort, the same on every worker, as xdist
    requires). In one process the order given on the command line stands: ``tools/mutation.py
    --tests-first`` names the files most likely to kill a mutant first, and ``pytest -x`` must
    reach them before the long files (sorting them last cost each killed mutant 6-9 minutes)."""
    if not hasattr(config, "workerinput"):
        return
    rank = {path: i for i, path in enumerate(SLOW_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


def _mapping_limit() -> int:
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            return int(f.read())
    except OSError:  # not Linux: no such limit to keep away from
        return 0


#: Drop JAX's compiled executables once a worker holds this many memory mappings: half the kernel
#: limit leaves ~32,000 for what compiles until the next check, ten times the biggest program.
MAPPINGS_HIGH_WATER = _mapping_limit() // 2
#: Counting reads all of /proc/self/maps (~30 ms at 30,000 mappings), so at most every 10 s: the
#: fastest growth measured is a few thousand mappings in that time (an eager ``vmap(init)``).
MAPPINGS_CHECK_EVERY_S = 10.0
_last_check = [0.0]


def _mappings() -> int:
    with open("/proc/self/maps", "rb") as f:
        return f.read().count(b"\n")


@pytest.fixture(autouse=True)
def _bounded_mappings():
    """After each test: if this process is near the kernel's memory-mapping limit, free every
    compiled executable (``jax.clear_caches``; module docstring). The functions that fixtures hold
    compile again on their next call: a few recompilations a session instead of a dead worker."""
    yield
    now = time.monotonic()
    if not MAPPINGS_HIGH_WATER or now - _last_check[0] < MAPPINGS_CHECK_EVERY_S:
        return
    _last_check[0] = now
    if _mappings() > MAPPINGS_HIGH_WATER:
        jax.clear_caches()
        gc.collect()


@pytest.fixture(scope="session")
def duel_env():
    import tcgjax

    return tcgjax.make("duel")


@pytest.fixture
def picture_snapshot(request):
    """``check(picture, name)``: the picture's SVG and text equal the stored snapshots
    ``pictures/<name>.svg`` / ``.txt`` beside the test module. They pin every coordinate, colour
    and label of the drawing; after a deliberate change to a picture, run the test with
    ``TCGJAX_UPDATE_PICTURES=1`` to rewrite them and review the diff (never set in CI)."""
    folder = request.path.parent / "pictures"
    update = os.environ.get("TCGJAX_UPDATE_PICTURES") == "1"
    if update and os.environ.get("CI"):
        raise RuntimeError("TCGJAX_UPDATE_PICTURES=1 under CI would rewrite what CI checks")

    def check(picture, name: str) -> None:
        for suffix, body in ((".svg", picture.svg), (".txt", picture.text + "\n")):
            path = folder / f"{name}{suffix}"
            if update:
                folder.mkdir(exist_ok=True)
                path.write_text(body, encoding="utf-8")
            assert path.exists(), f"no snapshot {path}: run once with TCGJAX_UPDATE_PICTURES=1"
            stored = path.read_text(encoding="utf-8")
            if body != stored:
                at = len(os.path.commonprefix([body, stored]))
                raise AssertionError(
                    f"{path} differs from the picture at character {at}: "
                    f"{body[max(0, at - 60) : at + 60]!r} vs {stored[max(0, at - 60) : at + 60]!r} "
                    "(after a deliberate change: TCGJAX_UPDATE_PICTURES=1)"
                )

    return check
