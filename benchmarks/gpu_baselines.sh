#!/usr/bin/env bash
# Train the card games' shipped baselines (tcgjax/train/baselines/<game>/) on one GPU in one call,
# each with its shipped config (configs/ppo/<game>.yaml) and a larger batch, and export each as a
# baseline folder (python -m tcgjax.train.policies); then, with the time left, the first-use
# times of every game on the GPU (benchmarks/first_use.py). Steps run in priority order and are
# skipped when fewer seconds than they need are left of BUDGET.
#
#   OUT=/tmp/out BUDGET=540 bash benchmarks/gpu_baselines.sh
#   GAMES=pokemon NO_FIRST_USE=1 OUT=/tmp/out bash benchmarks/gpu_baselines.sh   # one game only
#
# py3.12 wheels the image lacks are installed from .whl/ (ignored; carry it), as in gpu_suite.sh.
set -u
OUT=${OUT:-/tmp/gpu_baselines}
BUDGET=${BUDGET:-540}
RUNS=${RUNS:-/tmp/gpu_baseline_runs}  # the run directories stay on the machine (too many files)
GAMES=${GAMES:-digimon pokemon}
mkdir -p "$OUT/baselines" "$RUNS"
LOG="$OUT/log.txt"
export PYTHONUNBUFFERED=1 TCGJAX_CACHE_DIR=/tmp/jax_cache
. "$(dirname "$0")/gpu_wheels.sh"  # the wheels the image lacks, PYTHONPATH
python3 -c "import jax, tcgjax.train.policies; print(jax.__version__, jax.devices())" 2>&1 | tee -a "$LOG"

baseline() { # baseline GAME SECONDS_NEEDED [key=value ...]
    local game=$1 need=$2
    shift 2
    case " $GAMES " in *" $game "*) ;; *) return ;; esac
    local left=$((BUDGET - SECONDS))
    if [ "$left" -lt "$need" ]; then
        echo "SKIP $game: $left s left, needs $need" | tee -a "$LOG"
        return
    fi
    echo "=== $game (t=${SECONDS}s)" | tee -a "$LOG"
    timeout "$left" python3 -m tcgjax.train --env "$game" run_dir="$RUNS" "$@" >>"$LOG" 2>&1
    local run
    run=$(ls -d "$RUNS"/"$game"-* 2>/dev/null | tail -n 1)
    if [ -n "$run" ] && [ -f "$run/eval.txt" ]; then
        python3 -m tcgjax.train.policies "$run" "$OUT/baselines/$game" >>"$LOG" 2>&1
        cat "$run/eval.txt" | tee -a "$LOG"
    fi
    echo "--- $game done (t=${SECONDS}s)" | tee -a "$LOG"
}

baseline digimon 300 num_envs=4096 total_timesteps=12000000
baseline pokemon 180 num_envs=1024 total_timesteps=3000000
left=$((BUDGET - SECONDS))
if [ "$left" -gt 120 ] && [ -z "${NO_FIRST_USE:-}" ]; then
    echo "=== first use (t=${SECONDS}s)" | tee -a "$LOG"
    timeout "$left" python3 benchmarks/first_use.py --no-record 2>&1 | tee -a "$LOG" >"$OUT/first_use.txt"
fi
echo "done at t=${SECONDS}s" | tee -a "$LOG"
