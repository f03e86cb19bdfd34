"""Compiling a program the suite runs for a long time with XLA's default CPU fusion emitters.

The suite sets ``--xla_cpu_use_fusion_emitters=false`` (``tests/conftest.py``): the older emitters
compile the suite's thousands of small programs in half the time, but their code for a long scan
runs slower (the Pokémon 19,200-step rollout, alone on this 2-core machine: 12.6 s a run against
9.4 s with the default emitters, for 3.5 s more compile). The few programs that run for a minute
or more override that flag for themselves, through JAX's per-compile options."""

import os

#: XLA's own default for the programs that run for long.
RUN_HEAVY_OPTIONS = {"xla_cpu_use_fusion_emitters": True}


def compiled_for_running(jitted, *args):
    """``jitted`` (a ``jax.jit`` function) compiled for ``args``' shapes with
    :data:`RUN_HEAVY_OPTIONS`: call it with arguments of those shapes and dtypes. Under
    ``TCGJAX_TEST_XLA_OPT=default`` (the suite at XLA's defaults) ``jitted`` itself."""
    if os.environ.get("TCGJAX_TEST_XLA_OPT", "0") == "default":
        return jitted
    return jitted.lower(*args).compile(compiler_options=RUN_HEAVY_OPTIONS)
