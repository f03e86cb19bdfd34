#!/usr/bin/env bash
# `make wheel-check`: the package as a user gets it. Builds the sdist and, from it, the wheel
# (python -m build), installs the wheel into a fresh virtualenv in a temporary folder outside the
# checkout, and there runs what the README promises: the quickstart (taken from README.md), the
# CLI (--version, a game of `tcgjax play` with piped moves, its replay page, `tcgjax bench`), a
# tiny training run (python -m tcgjax.train, with a shipped config read from the package data),
# the web app (`tcgjax serve`: a game against the shipped baseline through its JSON API) and the
# quickstart notebook. Nothing of the checkout is on the path there: an import that only
# works from a source tree fails here.
#
#   PYTHON=python3.12 make wheel-check     # another interpreter (default: python3.11)
#   KEEP=1 make wheel-check                # keep the temporary folder for a look
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tcgjax-wheel-check.XXXXXX")
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$WORK"' EXIT; else echo "kept: $WORK"; fi
say() { printf '\n== wheel-check: %s\n' "$*"; }

say "build the sdist and the wheel (the wheel from the sdist)"
"$REPO/.venv/bin/python" -m build --outdir "$WORK/dist" "$REPO" >"$WORK/build.log" 2>&1 \
  || { cat "$WORK/build.log"; exit 1; }
ls -l "$WORK/dist"
WHEEL=$(ls "$WORK"/dist/*.whl)
# No top-level package but tcgjax (a user's own train.py or configs/ must never be shadowed).
"$REPO/.venv/bin/python" - "$WHEEL" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
tops = sorted({n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")})
assert tops == ["tcgjax"], f"top-level names in the wheel: {tops}"
for needed in ("tcgjax/py.typed", "tcgjax/train/run.py", "tcgjax/configs/ppo/duel.yaml",
               "tcgjax/configs/sweeps/designs_duel.yaml", "tcgjax/bench.py",
               "tcgjax/games/digimon/cards/starter.yaml", "tcgjax/games/deployment/scenarios/small.yaml",
               "tcgjax/train/baselines/digimon/params.msgpack", "tcgjax/train/baselines/duel/eval.txt"):
    assert needed in names, f"the wheel lacks {needed}"
print(f"wheel: {len(names)} files, top level {tops}")
EOF

say "a fresh virtualenv ($("$PYTHON" --version)) with only the wheel"
"$PYTHON" -m venv "$WORK/venv"
VPY="$WORK/venv/bin/python"
"$VPY" -m pip install --quiet --upgrade pip
CONSTRAINTS=()
# The pins CI tested (Python 3.11); another interpreter takes what pip resolves for it.
if [ "$("$VPY" -c 'import sys; print(sys.version_info[:2] == (3, 11))')" = True ]; then
  CONSTRAINTS=(-c "$REPO/constraints.txt")
fi
"$VPY" -m pip install --quiet "${CONSTRAINTS[@]}" "$WHEEL[train,notebooks,serve]"

cd "$WORK"   # outside the checkout: only the installed package can be imported
export PATH="$WORK/venv/bin:$PATH" TCGJAX_CACHE_DIR="$WORK/jax_cache" MPLBACKEND=Agg
"$VPY" -c 'import tcgjax, os; assert "site-packages" in tcgjax.__file__, tcgjax.__file__; print(tcgjax.__file__)'

say "the README's quickstart"
"$REPO/.venv/bin/python" - "$REPO/README.md" >quickstart.py <<'EOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
section = text[text.index("## Quickstart"):]
print(re.search(r"```python\n(.*?)```", section, re.S).group(1))
EOF
"$VPY" quickstart.py

say "the CLI"
tcgjax --version
# Player 1 ends every turn; the random player 2 wins; the game is recorded and drawn as a page.
set +o pipefail
yes "end the turn" | tcgjax play duel --seed 3 --record game.json | tail -2
set -o pipefail
test -s game.json
tcgjax replay game.json -o game.html
test -s game.html
tcgjax play duel --opponent baseline --viewer-only --seed 1 | tail -1   # the shipped agent
tcgjax bench --env duel --batch 8 --steps 4 --repeats 1 --results bench.md
grep -q "| duel | 8 | 4 |" bench.md

say "a tiny training run (python -m tcgjax.train, the shipped duel config)"
python -m tcgjax.train --env duel run_dir="$WORK/runs" num_envs=16 num_steps=8 \
  "hidden_sizes=[32]" num_minibatches=2 update_epochs=1 total_timesteps=256 eval_games=8 \
  eval_every=2 checkpoint_every=2
ls -d "$WORK"/runs/duel-*/checkpoints "$WORK"/runs/duel-*/eval.txt
"$VPY" -c 'from tcgjax.train.sweep import load_sweep; print("sweep", load_sweep("designs_duel").name)'

say "the web app (tcgjax serve), a game against the shipped baseline through its API"
PORT=$("$VPY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
tcgjax serve --port "$PORT" >serve.log 2>&1 &
SERVER=$!
"$VPY" - "$PORT" <<'EOF'
import json, sys, time, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.read().decode()
for _ in range(120):
    try:
        page = call("GET", "/")
        break
    except OSError:
        time.sleep(0.5)
assert "tcgjax: play" in page, page[:200]
view = json.loads(call("POST", "/api/games",
                       {"env": "duel", "seat": 1, "opponent": "baseline", "seed": 0}))
moves = 0
while not view["over"] and moves < 200:
    move = next((m for m in view["moves"] if m["name"] == "end the turn"), view["moves"][0])
    view = json.loads(call("POST", f"/api/games/{view['id']}/moves", {"action": move["action"]}))
    moves += 1
assert view["over"] and view["svg"].startswith("<svg"), view["status"]
replay = json.loads(call("GET", f"/api/games/{view['id']}/replay"))
print(f"served a game of {len(replay['commandLog'])} moves: {view['result']}")
EOF
kill "$SERVER"

say "the quickstart notebook"
cp "$REPO/notebooks/01_quickstart.ipynb" .
TCGJAX_NOTEBOOK_SMALL=1 "$VPY" - <<'EOF'
import nbclient, nbformat
nb = nbformat.read("01_quickstart.ipynb", as_version=4)
nbclient.NotebookClient(nb, timeout=600, kernel_name="python3").execute()
print("executed", sum(c.cell_type == "code" for c in nb.cells), "code cells")
EOF

say "passed"
