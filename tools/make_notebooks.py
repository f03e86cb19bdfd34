"""Writes notebooks/*.ipynb from the cell sources below (``python tools/make_notebooks.py [DIR]``,
``DIR`` defaulting to ``notebooks/``).

The notebooks are committed without outputs; ``tests/test_notebooks.py`` executes each with
``TCGJAX_NOTEBOOK_SMALL=1`` (small batches and few updates) and checks that the committed files
are what this script writes, so edit the cells here, then run it.
"""

from __future__ import annotations

import os
import sys

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "notebooks")
# Where the project is published (the Colab badge and the install cell point there).
GITHUB = "tcgjax/tcgjax"

SETUP = """import os, sys

if "google.colab" in sys.modules:  # on Colab: install tcgjax first (a CPU or GPU runtime both work)
    import glob, subprocess

    # A wheel uploaded to the session's files (`python -m build` writes dist/tcgjax-*.whl) is
    # installed; else the published repository.
    wheels = sorted(glob.glob("/content/tcgjax-*.whl"))
    source = f"file://{wheels[-1]}" if wheels else "git+https://github.com/GITHUB"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", f"tcgjax[train,ecosystem] @ {source}"],
        check=True,
    )
# CI executes every notebook with small settings (tests/test_notebooks.py); run it as it is for
# the full-size version.
SMALL = os.environ.get("TCGJAX_NOTEBOOK_SMALL") == "1"
""".replace("GITHUB", GITHUB)


def notebook(name: str, title: str, intro: str, cells: list[tuple[str, str]], out: str) -> None:
    badge = (
        f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
        f"(https://colab.research.google.com/github/{GITHUB}/blob/main/notebooks/{name})"
    )
    nb = new_notebook()
    nb.cells = [new_markdown_cell(f"# {title}\n\n{badge}\n\n{intro}"), new_code_cell(SETUP)]
    for kind, source in cells:
        cell = new_markdown_cell if kind == "md" else new_code_cell
        nb.cells.append(cell(source.strip("\n")))
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"  # stable ids: the files do not change between runs
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.validate(nb)
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        nbformat.write(nb, f)


def all_notebooks(out: str = OUT) -> None:
    notebook(
        "01_quickstart.ipynb",
        "tcgjax quickstart",
        "Make a game, play thousands of games at once with `jax.vmap`, look at one of them.",
        [
            (
                "code",
                """
import jax
import jax.numpy as jnp
import tcgjax

print(tcgjax.available_envs())
env = tcgjax.make("duel")
print(env, env.num_actions, "actions,", env.observation_shape, "observation")
""",
            ),
            (
                "md",
                "Every function is pure and works under `jit` and `vmap`: here 4096 games step "
                "together, each choosing a uniformly random legal action.",
            ),
            (
                "code",
                """
batch = 256 if SMALL else 4096
init = jax.jit(jax.vmap(env.init))
step = jax.jit(jax.vmap(env.step))
key = jax.random.PRNGKey(0)
state = init(jax.random.split(key, batch))
for t in range(20):
    key, k_act, k_step = jax.random.split(key, 3)
    action = tcgjax.wrappers.random_legal_action(k_act, state.legal_action_mask)
    state = step(state, action, jax.random.split(k_step, batch))
print(int(state.terminated.sum()), "of", batch, "games over after 20 steps")
""",
            ),
            (
                "md",
                "## Thousands of games in one program: `lax.scan` with auto-reset\n\n"
                "`reset_if_done` restarts the finished games; the whole rollout compiles once.",
            ),
            (
                "code",
                """
import time
from tcgjax.wrappers import random_legal_action, reset_if_done

STEPS = 20 if SMALL else 100

@jax.jit
def rollout(key):
    state = jax.vmap(env.init)(jax.random.split(key, batch))
    def body(state, key):
        k_reset, k_act, k_step = jax.random.split(key, 3)
        state = jax.vmap(reset_if_done, in_axes=(None, 0, 0))(
            env.init, state, jax.random.split(k_reset, batch))
        action = random_legal_action(k_act, state.legal_action_mask)
        state = jax.vmap(env.step)(state, action, jax.random.split(k_step, batch))
        return state, state.terminated.sum()
    return jax.lax.scan(body, state, jax.random.split(key, STEPS))

jax.block_until_ready(rollout(jax.random.PRNGKey(0)))  # compile
start = time.perf_counter()
_, finished = jax.block_until_ready(rollout(jax.random.PRNGKey(1)))
print(f"{batch * STEPS / (time.perf_counter() - start):,.0f} steps/s, "
      f"{int(finished.sum())} games finished")
""",
            ),
            ("md", "## One game, checked: illegal moves are refused by rule, states print as JSON"),
            (
                "code",
                """
single = jax.jit(env.init)(jax.random.PRNGKey(0))
print("legal:", [env.describe_action(single, a) for a in jnp.flatnonzero(single.legal_action_mask)])
try:
    tcgjax.checked_step(env, single, env.action_layout.encode("attack", 0), jax.random.PRNGKey(1))
except tcgjax.IllegalActionError as err:
    print("refused:", err)
single = tcgjax.checked_step(env, single, env.action_layout.encode("end_turn"), jax.random.PRNGKey(1))
print(tcgjax.to_json(env, single)[:200], "...")
""",
            ),
            (
                "md",
                "A `State` of one game displays itself; `env.render` gives the SVG and the text "
                "(hidden cards face down from a viewer's side).",
            ),
            (
                "code",
                """
one = jax.tree.map(lambda x: x[0], state)
print(env.render(one, viewer=0).text)
one
""",
            ),
        ],
        out,
    )
    notebook(
        "02_tour_duel.ipynb",
        "A tour of `duel`",
        "The minimal card game that shows the engine's furniture: zones, hidden hands, a mask, "
        "named rule errors. Rules: `tcgjax/games/duel/README.md`.",
        [
            (
                "code",
                """
import jax
import tcgjax
from tcgjax.games.duel.scenario import build_state

env = tcgjax.make("duel")
state = build_state(env, active=0, players=[
    {"hand": ["goblin", "dragon"], "board": ["wolf"], "deck": ["spark"], "life": 5, "mana": 2},
    {"hand": ["knight"], "board": ["goblin"], "life": 3},
])
env.render(state)
""",
            ),
            (
                "code",
                """
legal = [int(a) for a in jax.numpy.flatnonzero(state.legal_action_mask)]
print("legal:", [env.describe_action(state, a) for a in legal])
try:
    tcgjax.checked_step(env, state, env.action_layout.encode("play", 1), jax.random.PRNGKey(0))
except tcgjax.IllegalActionError as error:
    print("refused:", error)
after = tcgjax.checked_step(env, state, legal[0], jax.random.PRNGKey(0))
print(env.render(after, viewer=1).text)
""",
            ),
        ],
        out,
    )
    notebook(
        "03_tour_deployment.ipynb",
        "A tour of `deployment`",
        "The hex wargame: both players place units in their pools, then move and shoot in turns. "
        "Rules and tables: `tcgjax/games/deployment/README.md`.",
        [
            (
                "code",
                """
import jax
import numpy as np
import tcgjax

env = tcgjax.make("deployment", scenario="walls")
state = jax.jit(env.init)(jax.random.PRNGKey(0))
env.render(state)
""",
            ),
            (
                "code",
                """
step = jax.jit(env.step)
rng = np.random.default_rng(0)
for t in range(40):
    if bool(state.terminated | state.truncated):
        break
    legal = np.flatnonzero(np.asarray(state.legal_action_mask))
    state = step(state, int(rng.choice(legal)), jax.random.PRNGKey(t))
print(env.render(state).text)
state
""",
            ),
        ],
        out,
    )
    notebook(
        "04_tour_digimon.ipynb",
        "A tour of the Digimon Card Game",
        "The official rules with the ST-1 and ST-2 starter decks, the spec's 2120-action mask and "
        "981-float observation. Each turn: unsuspend, draw, breeding, then the main phase, which "
        "ends once the shared memory gauge passes to the opponent's side. Rules, every shipped "
        "card's effect and the simplifications: `tcgjax/games/digimon/README.md`.",
        [
            (
                "code",
                """
import jax
import numpy as np
import tcgjax
from tcgjax.games.digimon.scenario import build_state

env = tcgjax.make("digimon")
init, step, finalize = jax.jit(env.init), jax.jit(env.step), jax.jit(env.finalize)
state = init(jax.random.PRNGKey(0))
env.render(state, viewer=0)
""",
            ),
            (
                "md",
                "An explicit situation (the rule tests build theirs the same way): Greymon over "
                "Agumon, whose inherited effect gives +1000 DP on its owner's turn, facing a "
                "suspended Bearmon. Attacking it is legal; the picture shows the DP the rules "
                "compute.",
            ),
            (
                "code",
                """
game = build_state(env.rules, active=0, memory=3, phase="main", players=[
    {"hand": ["ST1-13"], "field": [["ST1-03", "ST1-07"]], "security": ["ST1-16"]},
    {"field": [["ST2-04"]], "suspended": [0]},
])
situation = finalize(state.replace(game=game))
legal = np.flatnonzero(np.asarray(situation.legal_action_mask))
print([env.describe_action(situation, a) for a in legal])  # each move named in the position
situation
""",
            ),
            (
                "code",
                """
rng = np.random.default_rng(1)
for t in range(20 if SMALL else 80):
    legal = np.flatnonzero(np.asarray(state.legal_action_mask))
    state = step(state, int(rng.choice(legal)), jax.random.PRNGKey(t))
print(env.render(state, viewer=1).text)
""",
            ),
        ],
        out,
    )
    notebook(
        "05_tour_pokemon.ipynb",
        "A tour of the Pokémon TCG",
        "The current rules with two battle decks, the v2.1 board encoding (68 dims a slot, P5) "
        "in the observation. Rules and simplifications: `tcgjax/games/pokemon/README.md`.",
        [
            (
                "code",
                """
import jax
import numpy as np
import tcgjax
from tcgjax.games.pokemon.scenario import build_state

env = tcgjax.make("pokemon")
init, step, finalize = jax.jit(env.init), jax.jit(env.step), jax.jit(env.finalize)
state = init(jax.random.PRNGKey(0))
env.render(state, viewer=0)
""",
            ),
            (
                "md",
                "A situation: an asleep, poisoned Tynamo with an Energy attached and 30 damage, "
                "against Zacian.",
            ),
            (
                "code",
                """
game = build_state(env.rules, active=0, turn=3, players=[
    {"hand": ["sve-4"], "slots": [["sv3-67", "sve-4"], ["sv3-67"]], "damage": {0: 30},
     "conditions": {"rotated": "asleep", "poisoned": True}},
    {"slots": [["sv4-136"]]},
])
situation = finalize(state.replace(game=game))
print([env.describe_action(situation, a) for a in np.flatnonzero(situation.legal_action_mask)])
situation
""",
            ),
            (
                "code",
                """
rng = np.random.default_rng(1)
for t in range(20 if SMALL else 80):
    legal = np.flatnonzero(np.asarray(state.legal_action_mask))
    state = step(state, int(rng.choice(legal)), jax.random.PRNGKey(t))
print(env.render(state, viewer=0).text)
""",
            ),
        ],
        out,
    )
    notebook(
        "06_training_ppo.ipynb",
        "Training with the masked PPO",
        "The PPO of `train/` (Flax, optax, distrax; the mask is stored in every transition and "
        "re-applied in the loss) trains end to end on the device. `make train` runs the full "
        "job with logging and checkpoints; here the update is driven by hand to plot curves.",
        [
            (
                "code",
                """
import jax
import matplotlib.pyplot as plt
from tcgjax.train.config import load_config
from tcgjax.train.evaluate import evaluate_against, format_table, network_policy
from tcgjax.train.opponents import random_policy
from tcgjax.train.ppo import make_network, make_ppo

overrides = ["num_envs=64", "num_steps=16"] if SMALL else []
config = load_config("duel", overrides)
ppo = make_ppo(config)
update = jax.jit(ppo.update)
runner = jax.jit(ppo.init)(jax.random.PRNGKey(config.seed))
history = []
for n in range(3 if SMALL else 120):
    runner, metrics = update(runner)
    history.append({k: float(v) for k, v in metrics.items()})
""",
            ),
            (
                "code",
                """
wins = [m["learner_wins"] / max(m["episodes"], 1) for m in history]
fig, axes = plt.subplots(1, 3, figsize=(12, 3))
axes[0].plot(wins); axes[0].set_title("learner win rate (per update)")
axes[1].plot([m["entropy"] for m in history]); axes[1].set_title("policy entropy")
axes[2].plot([m["value_loss"] for m in history]); axes[2].set_title("value loss")
for ax in axes:
    ax.set_xlabel("update")
plt.show()
""",
            ),
            (
                "code",
                """
network = make_network(config, ppo.env)
table = evaluate_against(
    ppo.env, network_policy(network, runner.params), {"random": random_policy(ppo.env)},
    jax.random.PRNGKey(1), 32 if SMALL else 1000,
)
print(format_table(table))
""",
            ),
        ],
        out,
    )
    notebook(
        "07_search_mctx.ipynb",
        "Search with mctx",
        "`mctx.gumbel_muzero_policy` with the env's own `step` as an exact simulator "
        "(`tcgjax.search`): illegal actions masked inside the recurrent function, the value's sign "
        "following `current_player`. Read `tcgjax/search.py` for how chance steps are treated.",
        [
            (
                "code",
                """
import jax
import tcgjax
from tcgjax import search
from tcgjax.train.evaluate import evaluate_against, format_table
from tcgjax.train.opponents import heuristic_policy, random_policy

env = tcgjax.make("duel")
player = search.search_policy(env, num_simulations=4 if SMALL else 32)
opponents = {"random": random_policy(env), "heuristic": heuristic_policy(env)}
table = evaluate_against(env, player, opponents, jax.random.PRNGKey(0), 8 if SMALL else 256)
print(format_table(table))
""",
            ),
        ],
        out,
    )
    notebook(
        "08_observation_and_mask_designs.ipynb",
        "Observation and action-mask designs",
        "What an agent sees and may do is a design choice. Each game declares its observation as "
        "named slices and its actions as named ranges; the Pokémon game ships two board "
        "encodings (v2.1, 68 dims a slot, and v1, 14) to compare.",
        [
            (
                "code",
                """
import jax
import numpy as np
import tcgjax

for env_id, options in [("duel", {}), ("deployment", {}), ("digimon", {}),
                        ("pokemon", {"encoding": "v2.1"}), ("pokemon", {"encoding": "v1"})]:
    env = tcgjax.make(env_id, **options)
    print(f"{env_id} {options}: {env.observation_shape[0]} floats, {env.num_actions} action ids")
""",
            ),
            (
                "md",
                "How many actions are legal at a decision, under random play (the mask's "
                "density): a large action space with few legal ids at a time is what masking "
                "is for.",
            ),
            (
                "code",
                """
def legal_counts(env, batch, steps):
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    key = jax.random.PRNGKey(0)
    state, counts = init(jax.random.split(key, batch)), []
    for t in range(steps):
        counts.append(np.asarray(state.legal_action_mask.sum(-1)))
        key, k_act, k_step = jax.random.split(key, 3)
        action = tcgjax.wrappers.random_legal_action(k_act, state.legal_action_mask)
        state = step(state, action, jax.random.split(k_step, batch))
    return np.concatenate(counts)

for env_id in ["duel", "deployment"] if SMALL else ["duel", "deployment", "digimon", "pokemon"]:
    env = tcgjax.make(env_id)
    counts = legal_counts(env, 16 if SMALL else 512, 10 if SMALL else 100)
    print(f"{env_id}: {env.num_actions} ids, legal per decision: mean {counts.mean():.1f}, "
          f"median {np.median(counts):.0f}, max {counts.max()}")
""",
            ),
            (
                "md",
                "The two Pokémon encodings side by side: the observation layout's named slices "
                "(the full comparison of trained agents is in `train/README.md`).",
            ),
            (
                "code",
                """
from IPython.display import Markdown, display

for encoding in ["v2.1", "v1"]:
    env = tcgjax.make("pokemon", encoding=encoding)
    display(Markdown(f"**{encoding}**, {env.observation_shape[0]} floats\\n\\n"
                     + env.observation_layout.table()))
""",
            ),
            (
                "md",
                "**Action designs on the same game, budget and seeds.** `action_design` picks how "
                "the policy chooses among the ids: `flat` (one masked head), `unmasked` (illegal "
                "choices refused and penalised, the `max_invalid`-th a loss), `factored` (a kind, "
                "then its arguments, each masked given the earlier choices) or `pointer` (a "
                "score for each legal id). `tcgjax.train.sweep` trains a grid of them over seeds, each "
                "trial a process of its own, and reports rliable's interquartile mean with "
                "stratified-bootstrap intervals, the probability of improvement and performance "
                "profiles. A small sweep on the duel (`configs/sweeps/designs_duel.yaml` is the "
                "full one):",
            ),
            (
                "code",
                """
import os, tempfile
from IPython.display import Image
from tcgjax.train import sweep as S

folder = tempfile.mkdtemp()
designs = ["flat", "factored"] if SMALL else ["flat", "unmasked", "factored", "pointer"]
budget = (["num_envs=8", "num_steps=8", "total_timesteps=128", "hidden_sizes=[16]"] if SMALL
          else ["total_timesteps=300000"])
with open(os.path.join(folder, "designs.yaml"), "w") as fh:
    fh.write(f"name: {'tiny' if SMALL else 'designs_small'}\\nbase: duel\\n"
             f"overrides: {budget}\\ngrid: {{action_design: {designs}}}\\n"
             f"seeds: {2 if SMALL else 3}\\neval_every: {1 if SMALL else 4}\\n"
             f"eval_games: {16 if SMALL else 256}\\n"
             f"bootstrap_reps: {200 if SMALL else 2000}\\n")
sweep = S.load_sweep(os.path.join(folder, "designs.yaml"))
summary = S.run_sweep(sweep, out_dir=folder)
display(Markdown(S.format_summary(summary)))
Image(os.path.join(summary["folder"], "sweep.png"))
""",
            ),
        ],
        out,
    )


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else OUT
    os.makedirs(target, exist_ok=True)
    all_notebooks(target)
