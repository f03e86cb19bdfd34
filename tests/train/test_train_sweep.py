"""tcgjax.train.sweep: sweep files, trials as processes (local and Ray backends), resume, and statistics
that are rliable's on the trials' own files."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest
from rliable import library as rly
from rliable import metrics

from tcgjax.core.errors import ConfigError
from tcgjax.train import sweep as S

TINY = """
name: tiny
base: duel
overrides: [num_envs=8, num_steps=8, total_timesteps=128, "hidden_sizes=[16]"]
grid:
  action_design: [flat, factored]
seeds: 2
eval_every: 1
eval_games: 16
bootstrap_reps: 200
"""


def _write(tmp_path, text, name="sweep.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("name: x\ngrid: {lr: [0.1]}\nbogus: 1\n", "unknown sweep key 'bogus'"),
        ("name: x\n", "'grid'"),
        ("name: x\ngrid: {lr: []}\n", "non-empty list"),
        ("name: x\ngrid: {seed: [1, 2]}\n", "seeds are the sweep's"),
        ("name: x\ngrid: {action_design: [flat, masked]}\n", "trial 'action_design=masked'"),
        ("name: x\ngrid: {lr: [0.1]}\nseeds: 0\n", "'seeds'"),
        ("name: x\ngrid: {lr: [0.1]}\nbootstrap_reps: 0\n", "'bootstrap_reps'"),
        ("name: ../x\ngrid: {lr: [0.1]}\n", "'name'"),
        ("[1, 2]\n", "top level"),
    ],
)
def test_bad_sweep_files_are_refused_by_name(tmp_path, text, match):
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError, match=match) as info:
        S.load_sweep(path)
    assert "sweep.yaml" in str(info.value)


def test_trials_are_the_grid_in_file_order(tmp_path):
    sweep = S.load_sweep(
        _write(
            tmp_path,
            "name: g\nbase: duel\ngrid: {action_design: [flat, pointer], lr: [0.1, 0.2]}\n",
        )
    )
    names = [t.name for t in S.trials(sweep)]
    assert names == [
        "action_design=flat,lr=0.1",
        "action_design=flat,lr=0.2",
        "action_design=pointer,lr=0.1",
        "action_design=pointer,lr=0.2",
    ]
    config = S.trial_config(sweep, S.trials(sweep)[3])
    assert (config.action_design, config.lr, config.num_seeds, config.env_id) == (
        "pointer",
        0.2,
        3,
        "duel",
    )


SHIPPED = sorted(
    os.path.join("configs", "sweeps", f)
    for f in os.listdir(os.path.join(os.path.dirname(__file__), "..", "..", "configs", "sweeps"))
)


@pytest.mark.parametrize("path", SHIPPED)
def test_shipped_sweep_files_load_and_name_themselves_by_file(path):
    """Every shipped sweep builds each of its trials' configs, and its folder is its file's name."""
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    sweep = S.load_sweep(os.path.join(root, path))
    assert sweep.name == os.path.splitext(os.path.basename(path))[0]
    assert sweep.seeds >= 3 and len(S.trials(sweep)) >= 2


def test_a_grid_key_may_name_an_env_option(tmp_path):
    path = _write(tmp_path, "name: x\nbase: pokemon\ngrid: {env_options.encoding: [v1]}\n")
    sweep = S.load_sweep(path)
    config = S.trial_config(sweep, S.trials(sweep)[0])
    assert config.env_options["encoding"] == "v1" and config.env_options["max_turns"] == 60


@pytest.fixture(scope="module")
def local_sweep(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sweeps")
    path = _write(folder, TINY)
    sweep = S.load_sweep(path)
    summary = S.run_sweep(sweep, out_dir=str(folder / "local"))
    return S.Sweep(**{**sweep.__dict__, "out_dir": str(folder / "local")}), summary, path, folder


def test_every_trial_writes_its_rows_and_the_sweep_its_summary(local_sweep):
    sweep, summary, _, _ = local_sweep
    assert sorted(summary["trials"]) == ["action_design=factored", "action_design=flat"]
    for name in summary["trials"]:
        run = S.read_trial(os.path.join(sweep.folder, name))
        assert [r["update"] for r in run["evals"]] == [0, 1, 2]
        assert [r["update"] for r in run["train"]] == [1, 2]
        for row in run["evals"]:
            assert len(row["vs_random"]) == 2 and len(row["vs_heuristic"]) == 2  # per seed
        # The last evaluation plays the masked policy with its mask removed too.
        assert len(run["evals"][-1]["mask_removed_vs_random"]) == 2
        assert 0.0 <= min(run["evals"][-1]["mask_removed_invalid_rate_vs_random"]) <= 1.0
        assert run["done"]["seeds"] == 2 and run["done"]["env_steps"] == 128
    for produced in ("summary.json", "summary.md", "sweep.png"):
        assert os.path.getsize(os.path.join(sweep.folder, produced)) > 0


def test_summary_numbers_are_rliables_on_the_trial_files(local_sweep):
    sweep, summary, _, _ = local_sweep
    scores = {}
    for name in summary["trials"]:
        last = S.read_trial(os.path.join(sweep.folder, name))["evals"][-1]
        scores[name] = np.asarray(last["vs_random"], float)[:, None]
    points, intervals = rly.get_interval_estimates(
        scores,
        lambda x: np.array([metrics.aggregate_iqm(x)]),
        reps=sweep.bootstrap_reps,
        random_state=np.random.RandomState(S.BOOTSTRAP_SEED),
    )
    for name, trial in summary["trials"].items():
        assert trial["vs_random_iqm"] == pytest.approx(float(points[name][0]))
        assert trial["vs_random_ci"] == pytest.approx(list(intervals[name][:, 0]))
    pair = "action_design=flat > action_design=factored"
    expected = metrics.probability_of_improvement(
        scores["action_design=flat"], scores["action_design=factored"]
    )
    assert summary["improvement"]["vs_random"][pair]["p"] == pytest.approx(float(expected))
    # The summary on disk is the one returned, and the Markdown names every trial.
    with open(os.path.join(sweep.folder, "summary.json")) as fh:
        assert json.load(fh)["trials"].keys() == summary["trials"].keys()
    with open(os.path.join(sweep.folder, "summary.md")) as fh:
        text = fh.read()
    assert "`action_design=flat`" in text and "`action_design=factored`" in text


def test_a_finished_trial_is_never_run_again(local_sweep, monkeypatch):
    sweep, summary, _, _ = local_sweep
    stamps = {
        name: os.path.getmtime(os.path.join(sweep.folder, name, S.TRIAL_FILE))
        for name in summary["trials"]
    }

    def refuse(*args, **kwargs):
        raise AssertionError("a finished trial was started again")

    monkeypatch.setattr(S.subprocess, "Popen", refuse)
    again = S.run_sweep(sweep)
    assert again["trials"].keys() == summary["trials"].keys()
    for name, stamp in stamps.items():
        assert os.path.getmtime(os.path.join(sweep.folder, name, S.TRIAL_FILE)) == stamp
    assert again["trials"]["action_design=flat"]["vs_random_iqm"] == pytest.approx(
        summary["trials"]["action_design=flat"]["vs_random_iqm"]
    )


def test_the_ray_backend_gives_the_local_summary(local_sweep):
    """The local sweep's folder with one trial taken away: Ray runs that trial (as a Ray task)
    and the summary equals the local one, to the last digit."""
    sweep, summary, path, folder = local_sweep
    shutil.copytree(sweep.folder, folder / "ray" / sweep.name)
    shutil.rmtree(folder / "ray" / sweep.name / "action_design=factored")
    ray_summary = S.run_sweep(S.load_sweep(path), backend="ray", out_dir=str(folder / "ray"))
    assert os.path.exists(folder / "ray" / sweep.name / "action_design=factored" / S.DONE_FILE)
    assert ray_summary["trials"].keys() == summary["trials"].keys()
    for name, local in summary["trials"].items():
        remote = ray_summary["trials"][name]
        for key in ("vs_random_iqm", "vs_random_ci", "vs_heuristic_iqm", "steps_to_80_vs_random"):
            assert remote[key] == local[key], (name, key)
        assert remote["final"]["vs_random"] == local["final"]["vs_random"]
    assert ray_summary["improvement"] == summary["improvement"]


def test_trials_write_where_the_sweep_reads(tmp_path, monkeypatch):
    """``--out`` (or a relative ``out_dir``) reaches every trial process as one absolute folder,
    so the sweep finds the trials it started (a trial once wrote under the working directory's
    default while the sweep looked in --out, and ran again)."""
    path = _write(tmp_path, TINY)
    started = []

    class Finished:
        returncode = 0

        def __init__(self, command):
            started.append(command)

        def poll(self):
            return 0

    monkeypatch.setattr(S.subprocess, "Popen", Finished)
    monkeypatch.chdir(tmp_path)
    assert S.main([path, "--out", "relative"]) == 0
    expected = str(tmp_path / "relative")
    assert len(started) == 2
    for command in started:
        assert command[command.index("--out") + 1] == expected
