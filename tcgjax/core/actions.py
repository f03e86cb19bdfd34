"""Action layouts: one discrete action space declared once as named contiguous ranges.

>>> layout = ActionLayout([("play", 6), ("attack", 3), ("end_turn", 1)])
>>> layout.encode("attack", 2)
8
>>> layout.decode(8)
('attack', 2)
>>> layout.name(8)
'attack[2]'

A range may declare the shape of its arguments (row-major): ``("attack", (20, 15))`` is 300 ids,
``offset = attacker * 15 + target``. Designs that choose an action kind first and then its
arguments (``train``'s ``action_design: factored``) read the shapes; ids and names do not change.

>>> ActionLayout([("attack", (2, 3)), ("pass", 1)]).arguments(4)
('attack', (1, 1))
"""

from __future__ import annotations

from collections.abc import Sequence

from tcgjax.core.errors import ConfigError

__all__ = ["ActionLayout"]


class ActionLayout:
    """Named contiguous ranges ``[start, start + size)`` that tile ``[0, num_actions)``.

    Each entry of ``ranges`` is ``(name, size)`` or ``(name, shape)``, a tuple of positive ints
    whose product is the size (the range's arguments, row-major; ``shapes[name]``; a plain size is
    the one-argument shape ``(size,)``).
    """

    def __init__(self, ranges: Sequence[tuple[str, int | tuple[int, ...]]]):
        self.ranges: dict[str, tuple[int, int]] = {}
        self.shapes: dict[str, tuple[int, ...]] = {}
        start = 0
        for name, size in ranges:
            shape = tuple(size) if isinstance(size, tuple | list) else (size,)
            if (
                name in self.ranges
                or not shape
                or any(isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in shape)
            ):
                raise ConfigError(
                    f"action range {name!r}: names must be unique, sizes and shapes positive ints"
                )
            size = 1
            for d in shape:
                size *= d
            self.ranges[name] = (start, size)
            self.shapes[name] = shape
            start += size
        self.num_actions = start

    def _range(self, name: str) -> tuple[int, int]:
        try:
            return self.ranges[name]
        except KeyError:
            raise ConfigError(f"unknown action range {name!r}; have {list(self.ranges)}") from None

    def start(self, name: str) -> int:
        return self._range(name)[0]

    def size(self, name: str) -> int:
        return self._range(name)[1]

    def encode(self, name: str, offset: int = 0) -> int:
        """Action index of ``offset`` inside range ``name``."""
        start, size = self._range(name)
        if not 0 <= offset < size:
            raise ConfigError(f"offset {offset} outside action range {name!r} of size {size}")
        return start + offset

    def decode(self, action: int) -> tuple[str, int]:
        """``(range name, offset)`` of an action index."""
        action = int(action)
        for name, (start, size) in self.ranges.items():
            if start <= action < start + size:
                return name, action - start
        raise ConfigError(f"action {action} outside [0, {self.num_actions})")

    def shape(self, name: str) -> tuple[int, ...]:
        """The argument shape of range ``name`` (``(size,)`` unless declared)."""
        self._range(name)
        return self.shapes[name]

    def arguments(self, action: int) -> tuple[str, tuple[int, ...]]:
        """``(range name, argument indices)`` of an action id: its offset unravelled (row-major)
        by the range's shape."""
        name, offset = self.decode(action)
        out = []
        for d in reversed(self.shapes[name]):
            out.append(offset % d)
            offset //= d
        return name, tuple(reversed(out))

    def name(self, action: int) -> str:
        """Readable name, ``range`` for size-1 ranges, ``range[offset]`` otherwise."""
        name, offset = self.decode(action)
        return name if self.ranges[name][1] == 1 else f"{name}[{offset}]"

    def table(self) -> str:
        """Markdown table of the ranges (used by the game READMEs)."""
        rows = ["| range | indices | size |", "|---|---|---|"]
        for name, (start, size) in self.ranges.items():
            rows.append(f"| `{name}` | {start}–{start + size - 1} | {size} |")
        return "\n".join(rows)
