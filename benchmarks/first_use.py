"""First use of each game: how long a person waits before the first move, cold and warm.

For each game, two fresh Python processes run the same script, which makes the env and plays one
move through ``tcgjax.checked_step`` (what the CLI, replays and scripts call), then one move of the
Gymnasium env (``reset`` and ``step`` against the random opponent):

* **cold**: an empty compilation-cache folder: everything is traced and compiled;
* **warm**: the same folder again: the programs load from JAX's persistent compilation cache
  (on by default, :mod:`tcgjax.compilation_cache`).

Reported per game and process: ``import tcgjax`` (s), ``make`` (s), the first ``checked_step``
(s, its rule check and step compiled), the first Gymnasium ``reset`` + ``step`` (s), and the
process's wall time. Appended to ``RESULTS.md`` ("First use") unless ``--no-record``.

Usage::

    python benchmarks/first_use.py                   # every game
    python benchmarks/first_use.py --env digimon --no-record
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

import tcgjax
from tcgjax.bench import append_rows, machine_description

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = (
    "date",
    "machine",
    "jax",
    "env",
    "cache",
    "import s",
    "make s",
    "first checked_step s",
    "first Gymnasium reset+step s",
    "process s",
)
TITLE = (
    "## First use (cold: empty compilation cache; warm: the same cache again)\n\n"
    "Each row is a fresh process of `benchmarks/first_use.py`: `import tcgjax`, `tcgjax.make`, one "
    "move through `tcgjax.checked_step` and one through the Gymnasium env (reset + step against "
    "the random opponent), each timed until its result is ready."
)

_CHILD = r"""
import json, sys, time
start = time.perf_counter()
import jax
import tcgjax
t_import = time.perf_counter() - start
env_id = sys.argv[1]
t = time.perf_counter(); env = tcgjax.make(env_id); t_make = time.perf_counter() - t
t = time.perf_counter()
state = jax.jit(env.init)(jax.random.PRNGKey(0))
action = int(tcgjax.wrappers.random_legal_action(jax.random.PRNGKey(1), state.legal_action_mask))
jax.block_until_ready(tcgjax.checked_step(env, state, action, jax.random.PRNGKey(2)))
t_checked = time.perf_counter() - t
import gymnasium
t = time.perf_counter()
gym = gymnasium.make(tcgjax.wrappers.gymnasium.gymnasium_id(env_id))
observation, info = gym.reset(seed=0)
gym.step(int(info["action_mask"].argmax()))
t_gym = time.perf_counter() - t
print(json.dumps({"import": t_import, "make": t_make, "checked": t_checked, "gym": t_gym}))
"""


def measure(env_id: str, cache: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_COMPILATION")}
    env.update(TCGJAX_CACHE_DIR=cache, TCGJAX_COMPILATION_CACHE="1")
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, env_id], env=env, capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["process"] = time.perf_counter() - start
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--env", action="append", choices=tcgjax.available_envs())
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args(argv)
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    machine = machine_description()
    rows = []
    for env_id in args.env or tcgjax.available_envs():
        with tempfile.TemporaryDirectory() as cache:
            for label in ("cold", "warm"):
                r = measure(env_id, cache)
                print(
                    f"{env_id:<11} {label}: import {r['import']:.1f} s, make {r['make']:.2f} s, "
                    f"checked_step {r['checked']:.1f} s, gymnasium {r['gym']:.1f} s, "
                    f"process {r['process']:.1f} s",
                    flush=True,
                )
                rows.append(
                    f"| {date} | {machine} | {__import__('jax').__version__} | {env_id} | {label} "
                    f"| {r['import']:.1f} | {r['make']:.2f} | {r['checked']:.1f} | {r['gym']:.1f} "
                    f"| {r['process']:.1f} |"
                )
    if not args.no_record:
        append_rows(os.path.join(HERE, "RESULTS.md"), rows, COLUMNS, TITLE)


if __name__ == "__main__":
    main()
