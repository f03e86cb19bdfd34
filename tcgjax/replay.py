"""Replays (decision E3), the public module: ``import tcgjax.replay`` / ``from tcgjax.replay import run``.

See :mod:`tcgjax.core.replay` for the format; this module re-exports its public surface.
"""

from tcgjax.core.replay import Recorder, digest, key_to_tape, run

__all__ = ["Recorder", "run", "key_to_tape", "digest"]
