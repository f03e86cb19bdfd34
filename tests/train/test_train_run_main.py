"""``make train``'s job end to end on a tiny deployment run: every output file, the evaluation table,
the spec-section-9 metrics in the logs, and ``--resume`` reproducing the uninterrupted run."""

import argparse
import os
import shutil
import struct

import jax
import numpy as np
import pytest
import yaml
from train_testlib import TINY

from tcgjax import ConfigError
from tcgjax.train import checkpoint, logging_utils, run
from tcgjax.train.config import load_config
from tcgjax.train.ppo import make_ppo

# deployment_phase_v1.md section 9, as named by tcgjax.games.deployment.metrics.
SPEC9_SCALARS = (
    "deployment_valid_action_rate",
    "deployment_invalid_action_attempt_rate",
    "deployment_attempts",
    "deployment_invalid_attempts",
    "deployment_episodes",
    "deployment_steps_mean",
    "deployment_deadlock_count",
    "deployment_pass_count",
    "winrate",
    "winrate_with_active_deployment",
    "deployment_active",
    "placement_units",
    "placement_enemy_distance_mean",
    "placement_survival_correlation",
    "placement_damage_correlation",
)
VOLATILE = ("wall_s", "sps", "eval_s")  # timings: the only fields a resume may change


def _rows(run_dir, kind):
    rows = logging_utils.read_jsonl(os.path.join(run_dir, "metrics.jsonl"))
    return [{k: v for k, v in r.items() if k not in VOLATILE} for r in rows if r["kind"] == kind]


def test_main_writes_a_complete_run_and_resume_reproduces_it(tmp_path, capsys):
    runs = tmp_path / "runs"
    run_dir = run.main(["--env", "deployment", f"run_dir={runs}", *TINY])
    out, err = capsys.readouterr()
    assert os.path.dirname(run_dir) == str(runs)
    assert os.path.basename(run_dir).startswith("deployment-")

    # config.yaml is the resolved config.
    with open(os.path.join(run_dir, "config.yaml")) as fh:
        saved_config = yaml.safe_load(fh)
    assert load_config(os.path.join(run_dir, "config.yaml")) == load_config(
        "deployment", ["env_id=deployment", f"run_dir={runs}", *TINY]
    )
    assert saved_config["num_envs"] == 16

    # metrics.jsonl: one train row per update, eval rows at 2 and 4 with the table and spec 9.
    train_rows, eval_rows = _rows(run_dir, "train"), _rows(run_dir, "eval")
    assert [r["update"] for r in train_rows] == [1, 2, 3, 4]
    assert [r["env_steps"] for r in train_rows] == [128, 256, 384, 512]
    for key in ("actor_loss", "value_loss", "entropy", "approx_kl", "episodes", "learner_wins"):
        assert all(np.isfinite(r[key]) for r in train_rows), key
    assert [r["update"] for r in eval_rows] == [2, 4]
    for row in eval_rows:
        assert set(row["vs"]) == {"random", "heuristic", "checkpoint"}
        assert all(t["games"] == 8 for t in row["vs"].values())
        for name in SPEC9_SCALARS:
            assert isinstance(row[name], int | float), name
        assert row["deployment_episodes"] == 8  # every probe game was played to the end
        assert 0.0 <= row["deployment_valid_action_rate"] <= 1.0
        hex_dist, unit_dist = row["hex_slot_distribution"], row["unit_slot_distribution"]
        assert isinstance(hex_dist, list) and sum(hex_dist) == pytest.approx(1.0)
        assert isinstance(unit_dist, list) and all(isinstance(r, list) for r in unit_dist)

    # TensorBoard events, checkpoints (update 0, every 2, the end), curves, printed table.
    (events,) = os.listdir(os.path.join(run_dir, "tb"))
    assert events.startswith("events.out.tfevents")
    tags = _tensorboard_tags(os.path.join(run_dir, "tb", events))
    assert {"train/entropy", "train/value_loss", "eval/vs/random/win_rate"} <= tags
    assert {f"eval/{name}" for name in SPEC9_SCALARS} <= tags
    assert {"eval/hex_slot_distribution", "eval/unit_slot_distribution"} <= tags
    assert checkpoint.all_steps(run_dir) == [0, 2, 4]
    with open(os.path.join(run_dir, "curves.png"), "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    table_text = open(os.path.join(run_dir, "eval.txt")).read().strip()
    assert table_text.splitlines()[0].split() == ["opponent", "games", "win", "draw", "loss"]
    assert table_text in out
    assert "sps=" in err and "vs_random=" in err  # the progress bar

    # --resume: drop the last checkpoint, resume from update 2, finish; same final state and logs.
    resumed_dir = str(tmp_path / "resumed")
    shutil.copytree(run_dir, resumed_dir)
    shutil.rmtree(os.path.join(resumed_dir, "checkpoints", "4"))
    assert run.main(["--resume", resumed_dir, "--no-progress"]) == resumed_dir
    out, _ = capsys.readouterr()
    assert table_text in out
    assert checkpoint.all_steps(resumed_dir) == [0, 2, 4]
    ppo = make_ppo(load_config(os.path.join(run_dir, "config.yaml")))
    template = jax.jit(ppo.init)(jax.random.key(0))
    a = checkpoint.restore(run_dir, template)
    b = checkpoint.restore(resumed_dir, template)
    assert a.step == b.step == 4
    for x, y in zip(_flat(a.runner), _flat(b.runner), strict=True):
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes()
    assert _rows(resumed_dir, "train") == train_rows  # rows after update 2 dropped, then rerun
    assert _rows(resumed_dir, "eval") == eval_rows


def _tensorboard_tags(path):
    """Every summary tag in a TensorBoard event file (TFRecord framing, tensorboardX protos)."""
    from tensorboardX.proto import event_pb2

    data, pos, tags = open(path, "rb").read(), 0, set()
    while pos < len(data):
        (length,) = struct.unpack("<Q", data[pos : pos + 8])
        event = event_pb2.Event.FromString(data[pos + 12 : pos + 12 + length])
        tags.update(value.tag for value in event.summary.value)
        pos += 12 + length + 4
    return tags


def _flat(tree):
    return [
        np.asarray(
            jax.random.key_data(x) if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key) else x
        )
        for x in jax.tree.leaves(tree)
    ]


def test_resume_refuses_config_and_env_and_missing_checkpoints(tmp_path):
    with pytest.raises(SystemExit):
        run.main(["--resume", str(tmp_path), "--env", "duel"])
    (tmp_path / "config.yaml").write_text("num_envs: 16\n")
    with pytest.raises(ConfigError, match="no checkpoint"):
        run.main(["--resume", str(tmp_path), "--no-progress"])


def test_default_config_is_the_env_yaml_or_the_defaults(tmp_path, monkeypatch):
    def resolve(*argv):
        parsed = run._parser().parse_args(list(argv))
        assert isinstance(parsed, argparse.Namespace)
        return run.resolve_config(parsed)

    monkeypatch.setattr(run, "CONFIG_DIR", str(tmp_path))
    assert resolve("--env", "duel") == load_config(None, ["env_id=duel"])
    (tmp_path / "duel.yaml").write_text("env_id: duel\nnum_envs: 32\n")
    assert resolve("--env", "duel", "lr=0.01").num_envs == 32
    assert resolve("--env", "duel", "lr=0.01").lr == 0.01
    assert resolve().env_id == "deployment"
    other = tmp_path / "other.yaml"
    other.write_text("num_steps: 4\n")
    config = resolve("--config", str(other), "--env", "duel")
    assert (config.env_id, config.num_steps) == ("duel", 4)
    with pytest.raises(ConfigError, match="'nope'"):
        resolve("--env", "duel", "nope=1")
