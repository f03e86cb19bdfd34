"""Rewrite the index ranges and totals of the Pokémon action and observation tables in the docs
(``docs/games/pokemon.md``, ``docs/games/index.md``, ``README.md``, the game README) from the
env built with the shipped cards: run it after the card pool or a layout grows.

Usage::

    python tools/pokemon_docs_tables.py
"""

import os
import re

import numpy as np

import tcgjax
from tcgjax.games.pokemon.cards import OPS

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
env = tcgjax.make("pokemon")
v1 = tcgjax.make("pokemon", encoding="v1")
n = len(env.rules.cards)
num_actions = env.num_actions
obs_v21 = env.observation_layout.size
obs_v1 = v1.observation_layout.size
p = ROOT + "/docs/games/pokemon.md"
s = open(p).read()


def rng(a, b):
    return f"{a}" if a == b else f"{a}–{b}"


for k, (start, size) in env.action_layout.ranges.items():
    s, c = re.subn(
        rf"^\| `{k}` \| [0-9–]+ \|(?= [^\[])",
        f"| `{k}` | {rng(start, start + size - 1)} |",
        s,
        flags=re.M,
    )
    assert c == 1, k
for k, (start, shape, *_) in env.observation_layout.slices.items():
    size = int(np.prod(shape))
    shp = "[" + ", ".join(str(x) for x in shape) + "]"
    s, c = re.subn(
        rf"^\| `{k}` \| [0-9–]+ \| \[[0-9, ]+\] \|",
        f"| `{k}` | {rng(start, start + size - 1)} | {shp} |",
        s,
        flags=re.M,
    )
    assert c == 1, k
s = re.sub(
    r"## Actions \(\d+ with the shipped cards\)",
    f"## Actions ({num_actions} with the shipped cards)",
    s,
)
s = re.sub(
    r"## Observation \(\d+ floats with `v2.1`, \d+ with `v1`\)",
    f"## Observation ({obs_v21} floats with `v2.1`, {obs_v1} with `v1`)",
    s,
)
s = re.sub(
    r"With `N` definitions \(\d+\nfor the shipped file",
    f"With `N` definitions ({n}\nfor the shipped file",
    s,
)
s = re.sub(r"its op one-hot \(\d+\)", f"its op one-hot ({len(OPS)})", s)
open(p, "w").write(s)
for p, subs in (
    (
        ROOT + "/README.md",
        [
            (
                r"\| \d+ \(by card definition\) \| \d+ floats \(v2.1\), \d+ \(v1\) \|",
                f"| {num_actions} (by card definition) | {obs_v21} floats (v2.1), {obs_v1} (v1) |",
            )
        ],
    ),
    (
        ROOT + "/docs/games/index.md",
        [
            (
                r"\| \d+ \(by card definition\) \| \d+ floats \(`v2.1`\), \d+ \(`v1`\) \|",
                f"| {num_actions} (by card definition) | {obs_v21} floats (`v2.1`), {obs_v1} (`v1`) |",
            )
        ],
    ),
    (
        ROOT + "/tcgjax/games/pokemon/README.md",
        [
            (
                r"\d+\nfor the shipped file, its \d+ cards",
                f"{n}\nfor the shipped file, its {n - 1} cards",
            ),
            (r"\d+ for the shipped file\.", f"{num_actions} for the shipped file."),
            (r"\d+ actions with the shipped file", f"{num_actions} actions with the shipped file"),
            (r"\d+ floats\n\(v2.1\) or \d+ \(v1\)", f"{obs_v21} floats\n(v2.1) or {obs_v1} (v1)"),
        ],
    ),
):
    s = open(p).read()
    for a, b in subs:
        s, c = re.subn(a, b, s)
        assert c == 1, (p, a)
    open(p, "w").write(s)
print(n, num_actions, obs_v21, obs_v1)
