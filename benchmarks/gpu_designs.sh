#!/usr/bin/env bash
# A sweep of tcgjax.train.sweep on one lent GPU in one prepared call (default: Digimon's four action
# designs, configs/sweeps/designs_digimon_gpu.yaml). Trials run JOBS at a time (default 1: several
# processes only time-slice one GPU; each gets a share of its memory), the sweep is stopped after
# BUDGET seconds, and its folder (FOLDER, under the ignored runs/) is packed into
# $OUT/sweep.tar.gz, every 30 s as well, so a run cut short still brings back the finished trials.
# The sweep resumes: unpack the archive into FOLDER here, carry FOLDER in the next call, and the
# finished trials are skipped there. Summarize here afterwards:
#
#   OUT=/tmp/out BUDGET=480 bash benchmarks/gpu_designs.sh          # carry: .whl, runs/gpu_sweeps
#   python -m tcgjax.train.sweep configs/sweeps/designs_digimon_gpu.yaml --out runs/gpu_sweeps --summary-only
#
# The image lacks distrax, tfp-nightly, rliable, ...: put py3.12 wheels in .whl/ (ignored) and
# carry it, as for benchmarks/gpu_suite.sh.
set -u
OUT=${OUT:-/tmp/gpu_designs}
BUDGET=${BUDGET:-480}
JOBS=${JOBS:-1}
SWEEP=${SWEEP:-configs/sweeps/designs_digimon_gpu.yaml}
FOLDER=${FOLDER:-runs/gpu_sweeps}
mkdir -p "$OUT" "$FOLDER"
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_MEM_FRACTION=$(python3 -c "print(round(0.9 / $JOBS, 3))")
. "$(dirname "$0")/gpu_wheels.sh"  # the wheels the image lacks, PYTHONPATH
pack() { tar czf "$OUT/sweep.tar.gz.part" -C "$FOLDER" . && mv "$OUT/sweep.tar.gz.part" "$OUT/sweep.tar.gz"; }
python3 -c "import jax, flax, optax, rliable; print(jax.__version__, flax.__version__, jax.devices())"
(while sleep 30; do pack; done) &
packer=$!
timeout "$BUDGET" python3 -m tcgjax.train.sweep "$SWEEP" --jobs "$JOBS" --out "$FOLDER"
echo "sweep rc=$? at ${SECONDS}s"
kill "$packer"
pkill -f "tcgjax.train.sweep $SWEEP" || true
pack
ls -la "$OUT"
