"""The engine core: no game knowledge. See engine_data_model.md and STYLE.md."""

from tcgjax.core import (
    actions,
    board,
    cards,
    checked,
    env,
    errors,
    observation,
    replay,
    serialization,
    visibility,
    zones,
)

__all__ = [
    "actions",
    "board",
    "cards",
    "checked",
    "env",
    "errors",
    "observation",
    "replay",
    "serialization",
    "visibility",
    "zones",
]
