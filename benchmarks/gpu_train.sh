#!/usr/bin/env bash
# Issue 37 points 4 and 5 on one accelerator, in one prepared call (a lent machine is held for
# minutes). Two modes:
#
#   OUT=/tmp/out BUDGET=570 GAMES="digimon pokemon" bash benchmarks/gpu_train.sh
#       each game's configs/ppo/<game>_gpu.yaml as shipped (meant to finish within 10 minutes,
#       compilation included), while the budget lasts: its final evaluation against random, the
#       heuristic and the shipped CPU baseline, training steps/s and the time to 60% and 80%
#       against the heuristic, one RESULTS.md row each (benchmarks/training_run.py).
#   OUT=/tmp/out GUIDE=digimon WALL=150 ENVS="4096 16384 65536" bash benchmarks/gpu_train.sh
#       the batch-size guide: the same config at each num_envs, stopped after WALL seconds
#       (timeout; the log keeps every update), its steps and seconds to 60% recorded the same way;
#       total_timesteps is set far beyond the wall time, so the learning rate barely anneals.
#
# The log and RESULTS.md are copied to $OUT after every run; run directories go to $OUT/runs
# (checkpoints left out: only metrics.jsonl, eval.txt, milestones.json and config.yaml are kept).
set -u
OUT=${OUT:-/tmp/gpu_train}
BUDGET=${BUDGET:-570}
mkdir -p "$OUT/runs"
LOG="$OUT/log.txt"
export PYTHONUNBUFFERED=1 JAX_COMPILATION_CACHE_DIR=/tmp/jax_cache
. "$(dirname "$0")/gpu_wheels.sh"
NOTE="one $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), jax from the image, benchmarks/gpu_train.sh"
RUNS=/tmp/gpu_train_runs

train() { # train LIMIT_S NOTE ARGS...: one training run, recorded
    local limit=$1 note=$2
    shift 2
    local before start rc run
    before=$(ls "$RUNS" 2>/dev/null)
    start=$SECONDS
    echo "=== train $* (limit ${limit}s, t=${SECONDS}s)" | tee -a "$LOG"
    timeout "$limit" python3 -m tcgjax.train --no-progress "$@" "run_dir=$RUNS" >>"$LOG" 2>&1
    rc=$?
    run=$(comm -13 <(echo "$before") <(ls "$RUNS") | tail -1)
    echo "--- rc=$rc after $((SECONDS - start)) s: $run" | tee -a "$LOG"
    if [ -n "$run" ]; then
        python3 benchmarks/training_run.py "$RUNS/$run" --wall-s $((SECONDS - start)) \
            --note "$note; $NOTE; exit $rc" | tee -a "$LOG"
        mkdir -p "$OUT/runs/$run"
        cp "$RUNS/$run"/{config.yaml,metrics.jsonl,eval.txt,milestones.json} "$OUT/runs/$run/" 2>/dev/null
    fi
    cp benchmarks/RESULTS.md "$OUT/RESULTS.md"
}

if [ -n "${GUIDE:-}" ]; then
    WALL=${WALL:-150}
    for n in ${ENVS:-4096 16384 65536}; do
        if [ $((BUDGET - SECONDS)) -lt "$WALL" ]; then
            echo "SKIP num_envs=$n: $((BUDGET - SECONDS)) s left" | tee -a "$LOG"
            continue
        fi
        train "$WALL" "batch guide: ${GUIDE}_gpu at num_envs=$n, stopped at ${WALL} s" \
            --config "${GUIDE}_gpu" "num_envs=$n" total_timesteps=2000000000 checkpoint_every=100000
    done
else
    for game in ${GAMES:-digimon pokemon deployment duel}; do
        left=$((BUDGET - SECONDS))
        if [ "$left" -lt 120 ]; then
            echo "SKIP $game: $left s left" | tee -a "$LOG"
            continue
        fi
        train "$left" "${game}_gpu.yaml as shipped" --config "${game}_gpu"
    done
fi
echo "done at t=${SECONDS}s" | tee -a "$LOG"
