"""The throughput harness (:mod:`tcgjax.bench`, also ``tcgjax bench``) recording into this folder's
``RESULTS.md`` unless ``--no-record``: the figures of the project's benchmark tables.

Usage::

    python benchmarks/throughput.py --env duel --batch 1024 --compare-pgx
    python benchmarks/throughput.py --env duel --batch 4096 --steps 100 --no-record
"""

import os
import sys

from tcgjax.bench import main

if __name__ == "__main__":
    main(sys.argv[1:], default_results=os.path.join(os.path.dirname(__file__), "RESULTS.md"))
