"""Data-parallel PPO (``tcgjax.train.distributed``) gives the single-device result on an 8-device mesh
and on two processes of 2 devices each joined over loopback (a 4-device global mesh).

The CPU device count is fixed when JAX starts, so every configuration runs the same tiny training
(``_distributed_worker.tiny_config``, 3 updates, same key) in its own subprocess with
``--xla_force_host_platform_device_count``. All of them start at once (module fixture) and each
test waits for the runs it compares. Sharding changes only the order of float reductions: final
params and metrics agree to ``rtol=1e-5, atol=1e-6`` (observed differences are below 1e-7;
updates are ~1e-3 per step, so a wrong gradient scale or a dropped shard would show), and integer
metrics, env states and learner seats agree exactly.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_distributed_worker.py")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Four runs at once on 2 CPU cores take ~60 s with a warm compilation cache and up to ~4 min on a
# cold one beside the other xdist worker; the cap only guards against hangs.
TIMEOUT_S = 600
RTOL, ATOL = 1e-5, 1e-6


def _free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Runs:
    """Worker subprocesses started together; ``result(name)`` waits for one and loads its npz."""

    def __init__(self, tmp_dir):
        self.tmp_dir = tmp_dir
        self.procs: dict[str, tuple[subprocess.Popen, str, str]] = {}
        self.started = time.monotonic()

    def start(self, name: str, *args: str) -> None:
        out = os.path.join(self.tmp_dir, f"{name}.npz")
        log = os.path.join(self.tmp_dir, f"{name}.log")
        env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
        env["JAX_PLATFORMS"] = "cpu"
        # The persistent compilation cache only when the suite uses it (tests/conftest.py).
        if os.environ.get("TCGJAX_TEST_CACHE", "1") != "0":
            env["JAX_COMPILATION_CACHE_DIR"] = os.path.join(REPO, ".jax_cache")
            env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0.5"
        with open(log, "w") as fh:
            proc = subprocess.Popen(
                [sys.executable, WORKER, out, *args],
                cwd=REPO,
                env=env,
                stdout=fh,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.procs[name] = (proc, out, log)

    def result(self, name: str):
        proc, out, log = self.procs[name]
        remaining = max(TIMEOUT_S - (time.monotonic() - self.started), 1.0)
        try:
            rc = proc.wait(timeout=remaining)
        except subprocess.TimeoutExpired:
            self.stop()
            pytest.fail(f"worker {name!r} still running after {TIMEOUT_S}s:\n{_tail(log)}")
        assert rc == 0, f"worker {name!r} exited with {rc}:\n{_tail(log)}"
        return np.load(out)

    def stop(self) -> None:
        for proc, _, _ in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=30)


def _tail(path: str, lines: int = 40) -> str:
    with open(path, errors="replace") as fh:
        return "".join(fh.readlines()[-lines:])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    runs = _Runs(str(tmp_path_factory.mktemp("distributed")))
    runs.start("plain", "--devices", "1", "--plain")
    runs.start("mesh8", "--devices", "8")
    coordinator = f"127.0.0.1:{_free_loopback_port()}"
    for i in range(2):
        runs.start(
            f"host{i}",
            "--devices",
            "2",
            "--coordinator",
            coordinator,
            "--num-processes",
            "2",
            "--process-id",
            str(i),
        )
    yield runs
    runs.stop()


def _assert_same_training(ref, got, label: str) -> None:
    params = [k for k in ref.files if k.startswith("param/")]
    assert params and set(params) == {k for k in got.files if k.startswith("param/")}
    for k in params:
        np.testing.assert_allclose(got[k], ref[k], rtol=RTOL, atol=ATOL, err_msg=f"{label}: {k}")
    for k in (k for k in ref.files if k.startswith("metric/")):
        if np.issubdtype(ref[k].dtype, np.integer):
            np.testing.assert_array_equal(got[k], ref[k], err_msg=f"{label}: {k}")
        else:
            np.testing.assert_allclose(
                got[k], ref[k], rtol=RTOL, atol=ATOL, err_msg=f"{label}: {k}"
            )
    for k in (k for k in ref.files if k.startswith("env/")):
        if np.issubdtype(ref[k].dtype, np.floating):
            np.testing.assert_allclose(
                got[k], ref[k], rtol=RTOL, atol=ATOL, err_msg=f"{label}: {k}"
            )
        else:
            np.testing.assert_array_equal(got[k], ref[k], err_msg=f"{label}: {k}")
    np.testing.assert_array_equal(got["learner_seat"], ref["learner_seat"], err_msg=label)


def test_reference_run_trains_and_finishes_games(runs):
    ref = runs.result("plain")
    assert int(ref["num_devices"]) == 1
    assert ref["metric/episodes"].sum() > 0, "max_steps=10 must end games inside the 24 steps"
    assert not np.allclose(ref["metric/approx_kl"], 0.0)


def test_eight_devices_agree_with_one_device(runs):
    num_devices = 8
    ref, got = runs.result("plain"), runs.result(f"mesh{num_devices}")
    assert int(got["num_devices"]) == num_devices
    # Each device holds its own slice of the 16 envs; params stay replicated.
    np.testing.assert_array_equal(got["shard_rows"], [16 // num_devices] * num_devices)
    assert bool(got["params_replicated"])
    assert "must be a multiple of the" in str(got["errors"])
    _assert_same_training(ref, got, f"{num_devices} devices")


def test_two_processes_agree_with_one_process(runs):
    ref = runs.result("plain")
    hosts = [runs.result(f"host{i}") for i in range(2)]
    for i, got in enumerate(hosts):
        assert int(got["process_count"]) == 2 and int(got["num_devices"]) == 4
        np.testing.assert_array_equal(got["shard_rows"], [4, 4])  # 2 local devices of 4
        assert bool(got["shard_runner_matches"]) and bool(got["shard_runner_sharded"])
        _assert_same_training(ref, got, f"process {i} of 2")
    for k in (k for k in hosts[0].files if k.startswith("param/")):
        np.testing.assert_array_equal(hosts[0][k], hosts[1][k], err_msg=k)


def test_loss_over_sharded_batch_gives_averaged_gradients(runs):
    """What data parallelism relies on: the gradient of a mean over a batch split on 8 devices is
    the mean of the per-device gradients, the compiler adding the cross-device all-reduce."""
    got = runs.result("mesh8")
    assert bool(got["grad/all_reduce"])
    np.testing.assert_allclose(got["grad/sharded"], got["grad/averaged"], rtol=RTOL, atol=ATOL)
