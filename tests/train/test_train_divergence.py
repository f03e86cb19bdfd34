"""Training never reports a NaN run as healthy: a non-finite loss, gradient norm or parameter stops
``tcgjax.train.run`` naming the update and the metric, the process exits non-zero, and no evaluation table
is printed. Bad configs (``lr=nan``) are refused before anything is written to disk."""

import os

import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.games.duel.env import DuelEnv
from tcgjax.train import run

# A few tiny updates of the duel; float arithmetic only, so the NaN run is fast.
TINY_DUEL = [
    "num_envs=8",
    "num_steps=4",
    "hidden_sizes=[8]",
    "num_minibatches=1",
    "update_epochs=1",
    "total_timesteps=96",  # 3 updates
    "eval_games=4",
    "opponent=random",
]


def _has_table(text: str) -> bool:
    """Whether ``text`` holds an evaluation table (its header row, ``tcgjax.train.evaluate.format_table``)."""
    return any(
        line.split()[:5] == ["opponent", "games", "win", "draw", "loss"]
        for line in text.splitlines()
    )


class NanRewardDuel(DuelEnv):
    """The duel whose every step rewards NaN to both players (a broken user env)."""

    id = "nan_reward_duel"

    def _apply_action(self, game, action, key):
        result = super()._apply_action(game, action, key)
        return result._replace(rewards=jnp.full_like(result.rewards, jnp.nan))


@pytest.fixture(scope="module", autouse=True)
def nan_env_registered():
    if "nan_reward_duel" not in tcgjax.available_envs():
        tcgjax.register("nan_reward_duel", f"{__name__}:NanRewardDuel")


def test_lr_nan_is_refused_before_anything_is_written(tmp_path, capsys):
    runs = tmp_path / "runs"
    code = run.cli(["--env", "duel", f"run_dir={runs}", "lr=nan", *TINY_DUEL, "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "'lr' = nan" in err and "finite" in err
    assert not _has_table(out)
    assert not runs.exists(), "nothing may be written before the config is validated"


def test_a_bad_env_option_writes_no_run_directory(tmp_path, capsys):
    runs = tmp_path / "runs"
    code = run.cli(["--env", "duel", f"run_dir={runs}", "env_options.max_steps=0", *TINY_DUEL])
    assert code == 2 and "max_steps" in capsys.readouterr().err
    assert not runs.exists()


def test_nan_reward_stops_training_naming_update_and_metric(tmp_path, capsys, monkeypatch):
    runs = tmp_path / "runs"
    with pytest.raises(run.TrainingDivergedError) as info:
        run.main(["--env", "nan_reward_duel", f"run_dir={runs}", *TINY_DUEL, "--no-progress"])
    assert info.value.update == 1
    assert info.value.metric in run.FINITE_METRICS
    assert f"update 1: {info.value.metric} = nan" in str(info.value)
    out, _ = capsys.readouterr()
    assert "final evaluation" not in out and not _has_table(out)
    (run_dir,) = os.listdir(runs)
    assert not os.path.exists(os.path.join(runs, run_dir, "eval.txt"))

    # Through the command line: exit status 1, the reason on stderr, no table on stdout. The
    # same error from `main` (shown above on a real run), without a second training compile.
    def diverges(argv):
        print("training...")
        raise info.value

    monkeypatch.setattr(run, "main", diverges)
    code = run.cli(["--env", "nan_reward_duel", f"run_dir={runs}", *TINY_DUEL, "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 1 and "training diverged at update 1" in err
    assert "final evaluation" not in out and not _has_table(out)


def test_check_finite_names_the_first_bad_update_and_metric():
    ok = {"loss": np.zeros(4), "grad_norm": np.ones(4), "params_finite": np.ones(4)}
    run.check_finite(ok, 4, 10)
    bad = dict(ok, grad_norm=np.array([1.0, 1.0, np.inf, np.nan]))
    with pytest.raises(run.TrainingDivergedError, match="update 13: grad_norm = inf"):
        run.check_finite(bad, 4, 10)
    rows_after_n = dict(ok, loss=np.array([0.0, 0.0, np.nan, 0.0]))
    run.check_finite(rows_after_n, 2, 0)  # rows past n are padding, never read
    params = dict(ok, params_finite=np.array([1.0, 0.0, 1.0, 1.0]))
    with pytest.raises(run.TrainingDivergedError, match="update 2: a parameter"):
        run.check_finite(params, 4, 0)
    seeds = {"loss": np.array([[0.0, np.nan]])}  # [rows, seeds]
    with pytest.raises(run.TrainingDivergedError, match="update 1: loss = nan"):
        run.check_finite(seeds, 1, 0)
