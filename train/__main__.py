"""``python -m tcgjax.train``: the main training job, :func:`tcgjax.train.run.cli` (``make train``)."""

import sys

from tcgjax.train.run import cli

sys.exit(cli())
