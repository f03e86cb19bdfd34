# Sourced by the GPU scripts (gpu_suite.sh, gpu_designs.sh, gpu_baselines.sh): the py3.12 wheels
# the device image lacks (distrax, tfp-nightly, pgx, gymnasium, ...), kept in .whl/ (ignored;
# carry it), installed into /tmp/site, and PYTHONPATH set to them and the checkout. Output goes
# to $LOG if set; on failure its tail is shown and the script exits.
if [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl >>"${LOG:-/dev/stderr}" 2>&1 \
        || { [ -n "${LOG:-}" ] && tail -20 "$LOG"; exit 1; }
    export PYTHONPATH=/tmp/site:$PWD
else
    export PYTHONPATH=$PWD
fi
