#!/usr/bin/env bash
# The accelerator rows of benchmarks/RESULTS.md in one prepared run (a lent GPU machine is held
# for minutes, so everything goes into one call): training throughput against the pure rollout at
# 16,384 games with where an update's time goes (issue 37), the card games' rollout at batch 4096
# and 65536 next to Pgx (issue 36). The sb3 comparison's steps, run on 2026-11-26, are in git
# history. Steps run in priority order; each is skipped when fewer seconds than it needs are
# left of BUDGET, so the run ends on time with the most important rows recorded.
#
#   OUT=/tmp/out BUDGET=540 bash benchmarks/gpu_suite.sh
#
# Where the image lacks a dependency (distrax, tfp-nightly, pgx, gymnasium, sb3, ...), put py3.12
# wheels in .whl/ (ignored) and carry it: they are installed into /tmp/site first. Rows are
# appended to benchmarks/RESULTS.md of the copy; it is copied to $OUT after every step.
set -u
OUT=${OUT:-/tmp/gpu_suite}
BUDGET=${BUDGET:-540}
mkdir -p "$OUT"
LOG="$OUT/log.txt"
export PYTHONUNBUFFERED=1 JAX_COMPILATION_CACHE_DIR=/tmp/jax_cache
. "$(dirname "$0")/gpu_wheels.sh"  # the wheels the image lacks, PYTHONPATH

step() { # step SECONDS_NEEDED NAME COMMAND...
    local need=$1 name=$2
    shift 2
    local left=$((BUDGET - SECONDS))
    if [ "$left" -lt "$need" ]; then
        echo "SKIP $name: $left s left, needs $need" | tee -a "$LOG"
        return
    fi
    echo "=== $name (t=${SECONDS}s)" | tee -a "$LOG"
    timeout "$left" "$@" >>"$LOG" 2>&1
    echo "--- $name: rc=$? (t=${SECONDS}s)" | tee -a "$LOG"
    grep -E "steps/s|ratio|compile|Error|error" "$LOG" | tail -n 6
    cp benchmarks/RESULTS.md "$OUT/RESULTS.md"
}

step 20 versions python3 -c "import jax, flax, optax; print(jax.__version__, flax.__version__, optax.__version__, jax.devices())"
NOTE="one $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), jax from the image, one call of benchmarks/gpu_suite.sh"
# Issue 37 point 5: does the learner keep up at batch >= 16,384, and where an update's time goes.
step 240 train-digimon-16384 python3 benchmarks/train_throughput.py --config digimon --updates 3 --note "$NOTE" num_envs=16384
step 180 train-pokemon-16384 python3 benchmarks/train_throughput.py --config pokemon --updates 3 --note "$NOTE" num_envs=16384
# Issue 36 point 5: the card pools' cost on an accelerator, next to Pgx chess in the same run.
step 100 digimon-4096 python3 benchmarks/throughput.py --env digimon --batch 4096 --repeats 3 --compare-pgx --note "$NOTE"
step 80 digimon-65536 python3 benchmarks/throughput.py --env digimon --batch 65536 --steps 100 --repeats 3 --note "$NOTE"
step 80 pokemon-4096 python3 benchmarks/throughput.py --env pokemon --batch 4096 --repeats 3 --note "$NOTE"
step 80 pokemon-65536 python3 benchmarks/throughput.py --env pokemon --batch 65536 --steps 100 --repeats 3 --note "$NOTE"
echo "done at t=${SECONDS}s" | tee -a "$LOG"
