"""Observation layouts: one flat float32 vector made of named slices.

Encoders build each slice and call :meth:`ObservationLayout.pack`; readers use :meth:`view`. The
layout's :meth:`table` is what the game READMEs print, and tests compare the two.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import jax
import jax.numpy as jnp

from tcgjax.core.errors import ConfigError

__all__ = ["ObservationLayout"]


class ObservationLayout:
    """Named slices of a flat observation; each slice has a shape (flattened in row-major order)."""

    def __init__(self, slices: Sequence[tuple[str, tuple[int, ...], str]]):
        """``slices``: ``(name, shape, description)`` in order."""
        self.slices: dict[str, tuple[int, tuple[int, ...], str]] = {}
        start = 0
        for name, shape, doc in slices:
            if name in self.slices:
                raise ConfigError(f"duplicate observation slice {name!r}")
            shape = tuple(int(s) for s in shape)
            self.slices[name] = (start, shape, doc)
            start += math.prod(shape)
        self.size = start

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    def pack(self, parts: Mapping[str, jax.Array]) -> jax.Array:
        """Concatenate every slice (all must be given, with their declared shapes). Returns float32[O]."""
        if set(parts) != set(self.slices):
            raise ConfigError(f"observation parts {sorted(parts)} != layout {sorted(self.slices)}")
        flat = []
        for name, (_, shape, _) in self.slices.items():
            part = jnp.asarray(parts[name], jnp.float32)
            if part.shape != shape:
                raise ConfigError(f"observation slice {name!r}: shape {part.shape} != {shape}")
            flat.append(part.reshape(-1))
        return jnp.concatenate(flat)

    def view(self, observation: jax.Array, name: str) -> jax.Array:
        """The slice ``name`` of ``observation`` (``[..., O]``), reshaped to ``[..., *shape]``."""
        if name not in self.slices:
            raise ConfigError(f"unknown observation slice {name!r}; have {list(self.slices)}")
        start, shape, _ = self.slices[name]
        size = math.prod(shape)
        return observation[..., start : start + size].reshape(observation.shape[:-1] + shape)

    def table(self) -> str:
        rows = ["| slice | indices | shape | meaning |", "|---|---|---|---|"]
        for name, (start, shape, doc) in self.slices.items():
            end = start + math.prod(shape) - 1
            rows.append(f"| `{name}` | {start}–{end} | {list(shape)} | {doc} |")
        return "\n".join(rows)
