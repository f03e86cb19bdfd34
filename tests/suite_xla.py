"""Compiling a program the suite runs for a long time with XLA's default CPU fusion emitters.

The suite sets ``--xla_cpu_use_fusion_emitters=false`` (``tests/conftest.py``): the older emitters
compile the suite's thousands of small programs in half the time, but their code for a long scan
runs slower (the Pokémon 19,200-step rollout, alone on this 2-core machine: 12.6 s a run against
9.4 s with the default emitters, for 3.5 s more compile). The few programs that run for a minute
or more override that flag for themselves, through JAX's per-compile options, and the suite's
optimisation level 0 with level 2: on this machine (2026-11-29) a 64-game x 300-step random
rollout ran 5.4x faster for Pokémon (7.6 -> 1.4 s, for 11 s more compile) and 4.3x for Digimon
(9.6 -> 2.2 s, 20 s more), which pays for a program run more than a few times."""

import os

#: XLA's default emitters and an optimising backend for the programs that run for long.
RUN_HEAVY_OPTIONS = {"xla_cpu_use_fusion_emitters": True, "xla_backend_optimization_level": 2}


def compiled_for_running(jitted, *args):
    """``jitted`` (a ``jax.jit`` function) compiled for ``args``' shapes with
    :data:`RUN_HEAVY_OPTIONS`: call it with arguments of those shapes and dtypes. Under
    ``TCGJAX_TEST_XLA_OPT=default`` (the suite at XLA's defaults) ``jitted`` itself."""
    if os.environ.get("TCGJAX_TEST_XLA_OPT", "0") == "default":
        return jitted
    return jitted.lower(*args).compile(compiler_options=RUN_HEAVY_OPTIONS)
