"""Carry a shipped baseline's parameters over to a grown layout of its game (same function on the
inputs the old layout had), for when the card pool or the observation grows and retraining waits.

The old and the new layout are JSON dumps (``--dump``, run once in a checkout of each version):
the observation slices (start, shape), the action ranges (start, size), the card ids of the
registry and the number of actions. The parameters are mapped

* observation features (the first dense layer's input rows) by slice name: a per-definition
  slice by card id, ``slot_flags`` by column, ``turn`` and ``selection`` by position (new entries
  are appended: new ops before the selection's stages, whose count is unchanged), every other
  slice unchanged in shape; inputs new to the layout get zero weights;
* the card embedding by card id (new cards: zero vectors);
* the policy head's actions by range name: ``play`` and ``select_card`` by card id, ``evolve``
  and ``attach`` by card id and slot, the rest by offset; new actions get zero weights and the
  smallest old bias (never preferred before training).

Usage::

    python tools/carry_baseline.py --dump > new.json                  # in each checkout
    python tools/carry_baseline.py OLD.json NEW.json train/baselines/pokemon/params.msgpack

then update the baseline's ``digest.json`` (``sha256`` of ``params.msgpack``) and say in
``benchmarks/RESULTS.md`` that the baseline was carried over, not retrained. Only the Pokémon
baseline's network (``configs/ppo/pokemon.yaml``: ``Dense_0``, ``card_embedding``, ``Dense_2``)
is handled.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

PER_DEFINITION = ("my_hand", "my_looking", "my_discard", "opponent_discard", "stadium")
# The selection slice: the op one-hot, the stage one-hot, choices left (1). A dump made before
# the stage count was recorded had 4 stages (pick, place, order, from).
STAGES_BEFORE_RECORDED = 4


def dump(game: str = "pokemon") -> dict:
    """The layout of ``tcgjax.make(game)``'s observation and actions, as JSON-ready lists."""
    import tcgjax

    env = tcgjax.make(game)
    slices = {
        k: [int(v[0]), [int(x) for x in v[1]]] for k, v in env.observation_layout.slices.items()
    }
    kinds = {k: [int(s), int(n)] for k, (s, n) in env.action_layout.ranges.items()}
    layout = {
        "slices": slices,
        "kinds": kinds,
        "ids": list(env.rules.cards.ids),
        "n": env.num_actions,
    }
    if game == "pokemon":
        from tcgjax.games.pokemon.effects import SELECTION_STAGES

        layout["selection_stages"] = len(SELECTION_STAGES)
    return layout


def observation_map(old: dict, new: dict) -> dict[int, int]:
    """Old observation index -> new index, for every old input."""
    new_id = {c: i for i, c in enumerate(new["ids"])}
    d_map = {i: new_id[c] for i, c in enumerate(old["ids"])}
    out: dict[int, int] = {}
    for name, (o_start, o_shape) in old["slices"].items():
        n_start, n_shape = new["slices"][name]
        o_size = int(np.prod(o_shape))
        if name in PER_DEFINITION:
            out.update({o_start + d: n_start + d_map[d] for d in range(o_shape[0])})
        elif name == "slot_flags":
            rows, o_cols = o_shape
            n_cols = n_shape[1]
            out.update({o_start + k * o_cols + j: n_start + k * n_cols + j
                        for k in range(rows) for j in range(o_cols)})  # fmt: skip
        elif name == "selection":
            # Ops and stages are appended to their enums: each keeps its index in its part.
            o_stages = old.get("selection_stages", STAGES_BEFORE_RECORDED)
            n_stages = new.get("selection_stages", STAGES_BEFORE_RECORDED)
            o_ops, n_ops = o_shape[0] - o_stages - 1, n_shape[0] - n_stages - 1
            out.update({o_start + i: n_start + i for i in range(o_ops)})
            out.update({o_start + o_ops + i: n_start + n_ops + i for i in range(o_stages)})
            out[o_start + o_shape[0] - 1] = n_start + n_shape[0] - 1  # choices left
        elif name == "turn" or o_shape == n_shape:
            if int(np.prod(n_shape)) < o_size:
                raise SystemExit(f"slice {name!r} shrank: {o_shape} -> {n_shape}")
            out.update({o_start + i: n_start + i for i in range(o_size)})
        else:
            raise SystemExit(f"slice {name!r} changed shape {o_shape} -> {n_shape}: no rule")
    return out


def action_map(old: dict, new: dict) -> dict[int, int]:
    """Old action id -> new id, for every old action."""
    new_id = {c: i for i, c in enumerate(new["ids"])}
    d_map = {i: new_id[c] for i, c in enumerate(old["ids"])}
    out: dict[int, int] = {}
    for kind, (o_start, o_size) in old["kinds"].items():
        n_start, _ = new["kinds"][kind]
        for off in range(o_size):
            if kind in ("play", "select_card"):
                n_off = d_map[off]
            elif kind in ("evolve", "attach"):
                d, slot = divmod(off, 6)
                n_off = d_map[d] * 6 + slot
            else:
                n_off = off
            out[o_start + off] = n_start + n_off
    return out


def carry(old: dict, new: dict, path: str) -> None:
    import flax.serialization as ser

    with open(path, "rb") as fh:
        params = ser.msgpack_restore(fh.read())
    p = params["params"]
    o_obs = sum(int(np.prod(s)) for _, s in old["slices"].values())
    n_obs = sum(int(np.prod(s)) for _, s in new["slices"].values())
    obs = observation_map(old, new)
    assert len(obs) == o_obs
    w = np.asarray(p["Dense_0"]["kernel"])
    extra = w.shape[0] - o_obs  # inputs after the observation (pooled card embeddings)
    w2 = np.zeros((n_obs + extra, w.shape[1]), w.dtype)
    for i, j in obs.items():
        w2[j] = w[i]
    w2[n_obs:] = w[o_obs:]
    p["Dense_0"]["kernel"] = w2
    new_id = {c: i for i, c in enumerate(new["ids"])}
    e = np.asarray(p["card_embedding"]["embedding"])
    e2 = np.zeros((len(new["ids"]), e.shape[1]), e.dtype)
    for i, c in enumerate(old["ids"]):
        e2[new_id[c]] = e[i]
    p["card_embedding"]["embedding"] = e2
    h, b = np.asarray(p["Dense_2"]["kernel"]), np.asarray(p["Dense_2"]["bias"])
    h2 = np.zeros((h.shape[0], new["n"]), h.dtype)
    b2 = np.full(new["n"], b.min(), b.dtype)
    for i, j in action_map(old, new).items():
        h2[:, j], b2[j] = h[:, i], b[i]
    p["Dense_2"]["kernel"], p["Dense_2"]["bias"] = h2, b2
    with open(path, "wb") as fh:
        fh.write(ser.msgpack_serialize(params))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", action="store_true", help="print this checkout's layout")
    parser.add_argument("files", nargs="*", help="OLD.json NEW.json PARAMS.msgpack")
    args = parser.parse_args(argv)
    if args.dump:
        print(json.dumps(dump()))
        return 0
    if len(args.files) != 3:
        parser.error("give OLD.json NEW.json PARAMS.msgpack (or --dump)")
    old_path, new_path, params = args.files
    with open(old_path) as fh_old, open(new_path) as fh_new:
        carry(json.load(fh_old), json.load(fh_new), params)
    return 0


if __name__ == "__main__":
    sys.exit(main())
