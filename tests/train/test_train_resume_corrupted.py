"""``python -m tcgjax.train --resume`` on a damaged run directory: exit status 2 and one line naming the
checkpoint (or the run directory) and the problem, never a traceback, never a silent resume.

The run directory is what ``tcgjax.train.run`` writes at update 0 of a tiny duel run (``config.yaml`` and
the orbax checkpoint of the initial ``RunnerState``), made without training; every damage below is
refused before an update is compiled (most before anything is: the digest is checked first)."""

import glob
import os
import shutil

import jax
import pytest

from tcgjax.train import checkpoint, run
from tcgjax.train.checkpoint import DIGEST_FILE
from tcgjax.train.config import load_config
from tcgjax.train.ppo import make_ppo

TINY_DUEL = [  # as in test_train_divergence.py
    "num_envs=8",
    "num_steps=4",
    "hidden_sizes=[8]",
    "num_minibatches=1",
    "update_epochs=1",
    "total_timesteps=96",
    "eval_games=4",
    "opponent=random",
]


SAVED = {}  # the pristine run's runner and config, for damage that re-saves them


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    root = tmp_path_factory.mktemp("resume")
    config = load_config(None, ["env_id=duel", f"run_dir={root}", *TINY_DUEL])
    run_dir = str(root / "duel-run")
    os.makedirs(run_dir)
    run._write_config(run_dir, config)
    runner = jax.jit(make_ppo(config).init)(jax.random.key(config.seed))
    checkpoint.save(run_dir, runner, config, 0)
    SAVED.update(runner=runner, config=config)
    with open(os.path.join(run_dir, "metrics.jsonl"), "w", encoding="utf-8") as fh:
        fh.write('{"kind": "train", "update": 1, "env_steps": 32}\n')
    return run_dir


def ckpt(run_dir):
    return checkpoint.step_dir(run_dir, 0)


def biggest_data_file(run_dir):
    files = glob.glob(os.path.join(ckpt(run_dir), "runner", "ocdbt.process_0", "d", "*"))
    return max(files, key=os.path.getsize)


def flip(path):
    data = bytearray(open(path, "rb").read())
    for i in range(len(data) // 2, len(data) // 2 + 4):
        data[i] ^= 0xFF
    open(path, "wb").write(bytes(data))


def truncate(path):
    data = open(path, "rb").read()
    open(path, "wb").write(data[: len(data) // 2])


def write(path, text):
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


# (damage to the copied run directory, extra argv, what the message must say)
CASES = {
    "four flipped bytes in an array's data": (
        lambda d: flip(biggest_data_file(d)),
        [],
        ["ocdbt.process_0/d/", "differ from the digest"],
    ),
    "a truncated data file": (
        lambda d: truncate(biggest_data_file(d)),
        [],
        ["ocdbt.process_0/d/", "bytes, the digest recorded"],
    ),
    "a missing orbax metadata file": (
        lambda d: os.remove(os.path.join(ckpt(d), "runner", "_METADATA")),
        [],
        ["runner/_METADATA: missing"],
    ),
    "a truncated orbax metadata file": (
        lambda d: truncate(os.path.join(ckpt(d), "runner", "_METADATA")),
        [],
        ["runner/_METADATA", "bytes, the digest recorded"],
    ),
    "a missing array index": (
        lambda d: os.remove(os.path.join(ckpt(d), "runner", "manifest.ocdbt")),
        [],
        ["runner/manifest.ocdbt: missing"],
    ),
    "a missing item folder": (
        lambda d: shutil.rmtree(os.path.join(ckpt(d), "meta")),
        [],
        ["meta/", "missing"],
    ),
    "an edited meta item": (
        lambda d: write(os.path.join(ckpt(d), "meta", "metadata"), '{"step": "x"}'),
        [],
        ["meta/metadata", "digest"],
    ),
    "an empty step folder": (
        lambda d: [shutil.rmtree(ckpt(d)), os.makedirs(ckpt(d))],
        [],
        [f"no {DIGEST_FILE}", "--no-verify"],
    ),
    "no digest (an older checkpoint)": (
        lambda d: os.remove(os.path.join(ckpt(d), DIGEST_FILE)),
        [],
        [f"no {DIGEST_FILE}", "--no-verify"],
    ),
    "no digest, --no-verify, a meta item orbax cannot parse": (
        lambda d: [
            os.remove(os.path.join(ckpt(d), DIGEST_FILE)),
            write(os.path.join(ckpt(d), "meta", "metadata"), "{step"),
        ],
        ["--no-verify"],
        ["orbax cannot read the checkpoint"],
    ),
    "no digest, --no-verify, a meta item of another step": (
        lambda d: [
            os.remove(os.path.join(ckpt(d), DIGEST_FILE)),
            write(os.path.join(ckpt(d), "meta", "metadata"), '{"step": "x"}'),
        ],
        ["--no-verify"],
        ["the meta item is {'step': 'x'}"],
    ),
    "a config that does not fit the checkpoint": (
        lambda d: None,
        ["hidden_sizes=[16]"],
        [
            "does not fit this config",
            "keys that differ from the checkpoint's: hidden_sizes: [8] -> [16];",
        ],
    ),
    "a checkpoint whose step is not its runner's update": (
        lambda d: [
            shutil.rmtree(os.path.join(d, "checkpoints")),
            checkpoint.save(d, SAVED["runner"], SAVED["config"], 3),  # a consistent digest
        ],
        [],
        ["checkpoints/3: the runner's update counter is 0, not the checkpoint's step 3"],
    ),
    "a checkpoints folder that is a file": (
        lambda d: [
            shutil.rmtree(os.path.join(d, "checkpoints")),
            write(os.path.join(d, "checkpoints"), "x"),
        ],
        [],
        ["checkpoints: not a directory"],
    ),
    "no checkpoint at all": (
        lambda d: shutil.rmtree(os.path.join(d, "checkpoints")),
        [],
        ["checkpoints: no checkpoint to restore"],
    ),
    "a damaged metrics.jsonl row": (
        lambda d: write(
            os.path.join(d, "metrics.jsonl"), '{"update": 1}\n{not json\n{"update": 2}\n'
        ),
        [],
        ["metrics.jsonl, line 2: not a JSON row"],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_resume_on_a_damaged_run_exits_2_with_one_line(name, pristine, tmp_path, capsys):
    damage, argv, expected = CASES[name]
    run_dir = str(tmp_path / "run")
    shutil.copytree(pristine, run_dir)
    damage(run_dir)
    code = run.cli(["--resume", run_dir, "--no-progress", *argv])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert "Traceback" not in err and err.endswith("\n") and err.count("\n") == 1, err
    assert run_dir in err, err
    for part in expected:
        assert part in err, (part, err)
    assert "final evaluation" not in out


def test_resume_of_a_file_or_a_missing_run_dir(tmp_path, capsys):
    afile = tmp_path / "run.txt"
    afile.write_text("x")
    assert run.cli(["--resume", str(afile)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"checkpoint error: --resume {afile}: a file, not a run directory (give the folder "
        "holding config.yaml and checkpoints/)\n"
    )
    gone = tmp_path / "gone"
    assert run.cli(["--resume", str(gone)]) == 2
    assert capsys.readouterr().err == f"checkpoint error: --resume {gone}: no such run directory\n"


def test_a_new_run_whose_run_dir_is_a_file_exits_2_and_writes_nothing(tmp_path, capsys):
    afile = tmp_path / "runs"
    afile.write_text("x")
    code = run.cli(["--env", "duel", f"run_dir={afile}", *TINY_DUEL, "--no-progress"])
    assert code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1
    assert f"'run_dir' = '{afile}': a file, not a directory" in err
    assert afile.read_text() == "x"


def test_no_verify_without_resume_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        run.main(["--no-verify"])
    assert exc.value.code == 2
    assert "--no-verify goes with --resume" in capsys.readouterr().err
