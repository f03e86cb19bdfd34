#!/usr/bin/env bash
# The accelerator rows of benchmarks/RESULTS.md in one prepared run (a lent GPU machine is held
# for minutes, so everything goes into one call): throughput of the card games at batch 65536 and
# 4096 next to Pgx, sb3-contrib MaskablePPO (host CPU) next to tcgjax's PPO (GPU), training
# throughput. Steps run in priority order; each is skipped when fewer seconds than it needs are
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

step 30 versions python3 -c "import jax, flax, optax; print(jax.__version__, flax.__version__, optax.__version__, jax.devices())"
NOTE="one H100, jax from the image, one call of benchmarks/gpu_suite.sh"
step 200 digimon-65536 python3 benchmarks/throughput.py --env digimon --batch 65536 --steps 100 --repeats 3 --compare-pgx --note "$NOTE"
step 150 pokemon-65536 python3 benchmarks/throughput.py --env pokemon --batch 65536 --steps 100 --repeats 3 --compare-pgx --note "$NOTE"
step 90 sb3-duel python3 benchmarks/vs_sb3.py --env duel --sb3-steps 4096 --updates 5 --torch-threads 1 --note "$NOTE; sb3 on the host CPU, one torch thread; tcgjax batch raised to 8192 games" num_envs=8192
step 150 sb3-digimon python3 benchmarks/vs_sb3.py --env digimon --sb3-steps 2048 --updates 3 --torch-threads 1 --note "$NOTE; sb3 on the host CPU, one torch thread; like for like: MLP [64, 64] vs random, 4096 games" network=mlp "hidden_sizes=[64,64]" opponent=random num_envs=4096
step 120 digimon-4096 python3 benchmarks/throughput.py --env digimon --batch 4096 --repeats 3 --compare-pgx --note "$NOTE"
step 100 pokemon-4096 python3 benchmarks/throughput.py --env pokemon --batch 4096 --repeats 3 --note "$NOTE"
step 60 deployment-65536 python3 benchmarks/throughput.py --env deployment --batch 65536 --repeats 3 --note "$NOTE"
step 120 train-digimon python3 benchmarks/train_throughput.py --config configs/ppo/digimon.yaml --updates 3 num_envs=4096
echo "done at t=${SECONDS}s" | tee -a "$LOG"
