"""Checkpoints carry a SHA-256 digest of every file orbax wrote, checked before orbax reads any:
an altered, truncated, missing or added file is refused naming the checkpoint and the file, and a
checkpoint without a digest (an older one, or a save cut short) is refused unless ``verify=False``
is passed. What a verified checkpoint can still get wrong (its shape, its meta item) is refused
by name too, never as orbax's own exception.

Small pytrees, no training: these run in seconds."""

import json
import os
import shutil

import jax
import numpy as np
import pytest

from tcgjax import ConfigError, TcgjaxError
from tcgjax.train import checkpoint
from tcgjax.train.checkpoint import DIGEST_FILE, CheckpointError

TREE = {
    "params": {"w": np.arange(64 * 16, dtype=np.float32).reshape(64, 16), "b": np.ones(16)},
    "count": np.array(7, np.int32),
    "key": jax.random.key(3),
}


def template():
    return {
        "params": {"w": np.zeros((64, 16), np.float32), "b": np.zeros(16)},
        "count": np.array(0, np.int32),
        "key": jax.random.key(0),
    }


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A run directory with one checkpoint at step 5 (never modified: tests copy it)."""
    run_dir = str(tmp_path_factory.mktemp("pristine"))
    checkpoint.save(run_dir, TREE, {"env_id": "duel"}, 5)
    return run_dir


@pytest.fixture
def run_dir(pristine, tmp_path):
    copy = str(tmp_path / "run")
    shutil.copytree(pristine, copy)
    return copy


def step_dir(run_dir, step=5):
    return os.path.join(checkpoint.checkpoint_dir(run_dir), str(step))


def files_of(run_dir, step=5):
    """The files orbax wrote for ``step`` (relative paths), the digest file left out."""
    root = step_dir(run_dir, step)
    out = []
    for folder, _, names in os.walk(root):
        for name in names:
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if rel != DIGEST_FILE:
                out.append(rel)
    return sorted(out)


def flip(path, n=4):
    data = bytearray(open(path, "rb").read())
    at = len(data) // 2
    for i in range(at, min(at + n, len(data))):
        data[i] ^= 0xFF
    open(path, "wb").write(bytes(data))


def assert_one_line_naming(exc, *parts):
    message = str(exc.value)
    assert "\n" not in message, message
    for part in parts:
        assert part in message, (part, message)


def test_a_checkpoint_restores_exactly_and_restoring_writes_nothing(run_dir):
    assert DIGEST_FILE in os.listdir(step_dir(run_dir))
    before = {
        rel: open(os.path.join(step_dir(run_dir), rel), "rb").read() for rel in files_of(run_dir)
    }
    for _ in range(2):  # a restore must leave the files as the digest recorded them
        out = checkpoint.restore(run_dir, template())
        assert out.step == 5 and out.config == {"env_id": "duel"}
        np.testing.assert_array_equal(out.runner["params"]["w"], TREE["params"]["w"])
    after = {
        rel: open(os.path.join(step_dir(run_dir), rel), "rb").read() for rel in files_of(run_dir)
    }
    assert after == before
    assert checkpoint.verify(run_dir) == 5 and checkpoint.verify(run_dir, 5) == 5


def test_the_digest_lists_every_file_with_its_size_and_sha256(run_dir):
    with open(os.path.join(step_dir(run_dir), DIGEST_FILE), encoding="utf-8") as fh:
        manifest = json.load(fh)
    assert manifest["step"] == 5 and manifest["algorithm"] == "sha256"
    assert sorted(manifest["files"]) == files_of(run_dir)
    for rel, entry in manifest["files"].items():
        assert entry["bytes"] == os.path.getsize(os.path.join(step_dir(run_dir), rel))
        assert len(entry["sha256"]) == 64


def test_four_flipped_bytes_in_any_file_are_refused_naming_it(pristine, tmp_path):
    rels = files_of(pristine)
    assert any(rel.startswith("runner/") for rel in rels) and "meta/metadata" in rels
    for i, rel in enumerate(rels):
        run_dir = str(tmp_path / f"run{i}")
        shutil.copytree(pristine, run_dir)
        if os.path.getsize(os.path.join(step_dir(run_dir), rel)) == 0:
            continue
        flip(os.path.join(step_dir(run_dir), rel))
        with pytest.raises(CheckpointError) as exc:
            checkpoint.restore(run_dir, template())
        assert_one_line_naming(exc, step_dir(run_dir), rel, "differ from the digest")
        with pytest.raises(CheckpointError):
            checkpoint.verify(run_dir)


def test_a_truncated_a_missing_and_an_added_file_are_refused_naming_them(run_dir):
    data_file = max(
        files_of(run_dir), key=lambda r: os.path.getsize(os.path.join(step_dir(run_dir), r))
    )
    path = os.path.join(step_dir(run_dir), data_file)
    data = open(path, "rb").read()
    open(path, "wb").write(data[: len(data) // 2])
    with pytest.raises(CheckpointError) as exc:
        checkpoint.restore(run_dir, template())
    assert_one_line_naming(exc, data_file, f"{len(data) // 2} bytes", f"recorded {len(data)}")

    os.remove(path)
    with pytest.raises(CheckpointError) as exc:
        checkpoint.restore(run_dir, template())
    assert_one_line_naming(exc, step_dir(run_dir), data_file, "missing")

    open(path, "wb").write(data)  # back as saved: restores again
    checkpoint.restore(run_dir, template())
    open(os.path.join(step_dir(run_dir), "runner", "extra"), "w").write("x")
    with pytest.raises(CheckpointError) as exc:
        checkpoint.restore(run_dir, template())
    assert_one_line_naming(exc, "runner/extra", "not in the digest")


def test_a_missing_item_directory_is_refused_naming_its_files(run_dir):
    shutil.rmtree(os.path.join(step_dir(run_dir), "meta"))
    with pytest.raises(CheckpointError) as exc:
        checkpoint.restore(run_dir, template())
    assert_one_line_naming(exc, step_dir(run_dir), "meta/", "missing")


def test_a_checkpoint_without_a_digest_is_refused_unless_verify_is_false(run_dir):
    os.remove(os.path.join(step_dir(run_dir), DIGEST_FILE))
    with pytest.raises(CheckpointError) as exc:
        checkpoint.restore(run_dir, template())
    assert_one_line_naming(exc, step_dir(run_dir), DIGEST_FILE, "verify=False")
    # The explicit, documented way to read one anyway:
    out = checkpoint.restore(run_dir, template(), verify=False)
    np.testing.assert_array_equal(out.runner["params"]["w"], TREE["params"]["w"])


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda m: "{not json", "not a JSON"),
        (lambda m: json.dumps([m]), "not a JSON object"),
        (lambda m: json.dumps({**m, "step": 6}), "step 6"),
        (lambda m: json.dumps({k: v for k, v in m.items() if k != "files"}), "'files'"),
        (lambda m: json.dumps({**m, "algorithm": "md5"}), "'algorithm'"),
        # An entry edited without the manifest's own digest: the manifest is damaged.
        (
            lambda m: json.dumps(
                {**m, "files": {**m["files"], "meta/metadata": {"bytes": 1, "sha256": "0" * 64}}}
            ),
            "manifest's own digest",
        ),
    ],
)
def test_a_damaged_digest_file_is_refused_naming_it(run_dir, edit, problem):
    path = os.path.join(step_dir(run_dir), DIGEST_FILE)
    with open(path, encoding="utf-8") as fh:
        manifest = json.load(fh)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(edit(manifest))
    with pytest.raises(CheckpointError) as exc:
        checkpoint.restore(run_dir, template())
    assert_one_line_naming(exc, step_dir(run_dir), DIGEST_FILE, problem)


def test_unverified_restores_still_name_what_orbax_cannot_read(run_dir):
    """With ``verify=False`` (an old checkpoint) a damaged one is still a named CheckpointError,
    never orbax's KeyError, JSONDecodeError or TensorStore exception."""
    base = step_dir(run_dir)
    os.remove(os.path.join(base, DIGEST_FILE))
    saved = {rel: open(os.path.join(base, rel), "rb").read() for rel in files_of(run_dir)}

    def reset():
        shutil.rmtree(base)
        for rel, data in saved.items():
            os.makedirs(os.path.dirname(os.path.join(base, rel)), exist_ok=True)
            open(os.path.join(base, rel), "wb").write(data)

    cases = [
        lambda: shutil.rmtree(os.path.join(base, "meta")),
        lambda: shutil.rmtree(os.path.join(base, "runner")),
        lambda: os.remove(os.path.join(base, "runner", "_METADATA")),
        lambda: open(os.path.join(base, "runner", "_METADATA"), "w").write('{"tree'),
        lambda: os.remove(os.path.join(base, "runner", "manifest.ocdbt")),
        lambda: open(os.path.join(base, "meta", "metadata"), "w").write("{step"),
        lambda: open(os.path.join(base, "meta", "metadata"), "w").write('{"step": "x"}'),
        lambda: open(os.path.join(base, "meta", "metadata"), "w").write('{"step": 4}'),
        lambda: open(os.path.join(base, "config", "metadata"), "w").write("[1]"),
    ]
    for damage in cases:
        reset()
        damage()
        with pytest.raises(CheckpointError) as exc:
            checkpoint.restore(run_dir, template(), verify=False)
        assert_one_line_naming(exc, base)
    refused = 0
    for rel in [r for r in saved if r.startswith("runner/") and "/d/" in r]:
        reset()
        os.remove(os.path.join(base, rel))  # a data file of the arrays' database
        try:  # some are not read at all (orbax's per-process files are merged into others)
            out = checkpoint.restore(run_dir, template(), verify=False)
        except CheckpointError as exc:
            assert "\n" not in str(exc) and base in str(exc)
            refused += 1
        else:
            np.testing.assert_array_equal(out.runner["params"]["w"], TREE["params"]["w"])
    assert refused > 0


def test_a_template_of_another_structure_is_refused_naming_the_leaves(run_dir):
    other = template()
    other["params"]["extra"] = np.zeros(3)
    with pytest.raises(CheckpointError) as exc:
        checkpoint.restore(run_dir, other)
    assert_one_line_naming(exc, step_dir(run_dir), "params.extra", "not in the checkpoint")
    fewer = template()
    del fewer["count"]
    with pytest.raises(CheckpointError) as exc:
        checkpoint.restore(run_dir, fewer)
    assert_one_line_naming(exc, "count", "not in the template")


def test_checkpoint_errors_are_config_errors_and_name_a_run_dir_that_is_a_file(tmp_path):
    assert issubclass(CheckpointError, ConfigError) and issubclass(CheckpointError, TcgjaxError)
    afile = tmp_path / "run.txt"
    afile.write_text("x")
    with pytest.raises(CheckpointError) as exc:
        checkpoint.restore(str(afile), template())
    assert_one_line_naming(exc, str(afile), "not a directory")
    with pytest.raises(CheckpointError) as exc:
        checkpoint.save(str(afile), TREE, {}, 1)
    assert_one_line_naming(exc, str(afile), "not a directory")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "checkpoints").write_text("x")
    with pytest.raises(CheckpointError) as exc:
        checkpoint.restore(str(tmp_path / "run"), template())
    assert_one_line_naming(exc, "checkpoints", "not a directory")
