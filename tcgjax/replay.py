"""Replays (decision E3), the public module: ``import tcgjax.replay`` / ``from tcgjax.replay import run``.

See :mod:`tcgjax.core.replay` for the format; this module re-exports its public surface, and
:func:`to_html` (:mod:`tcgjax.core.replay_html`), the page that steps through a recorded game.
"""

from tcgjax.core.replay import Recorder, digest, frames, key_to_tape, run
from tcgjax.core.replay_html import page_data, to_html

__all__ = ["Recorder", "run", "frames", "key_to_tape", "digest", "to_html", "page_data"]
