"""Hex geometry of the deployment wargame: "odd-q" vertical offset coordinates ``(col, row)``.

Columns are vertical stacks of flat-topped hexes; odd columns are shifted down by half a hex. The flat
index of a hex is ``col * rows + row``, so sorting flat indices sorts by ``(col, row)`` (decision D2).

Neighbours of ``(col, row)``, in direction order 0..5 (N, NE, SE, S, SW, NW)::

    even col: (0,-1) (+1,-1) (+1,0) (0,+1) (-1,0) (-1,-1)
    odd col:  (0,-1) (+1,0) (+1,+1) (0,+1) (-1,+1) (-1,0)

Distance: convert to cube coordinates ``x = col``, ``z = row - (col - (col & 1)) // 2``, ``y = -x - z``;
the distance is ``max(|dx|, |dy|, |dz|)``. Tables are built once per board with NumPy.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "DIRECTIONS",
    "NEIGHBOUR_OFFSETS",
    "neighbour",
    "distance",
    "neighbour_table",
    "distance_table",
]

DIRECTIONS = ("N", "NE", "SE", "S", "SW", "NW")
NEIGHBOUR_OFFSETS = {
    0: ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1)),  # even columns
    1: ((0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)),  # odd columns
}


def neighbour(col: int, row: int, direction: int) -> tuple[int, int]:
    """The hex next to ``(col, row)`` in ``direction`` (may be off the board)."""
    dc, dr = NEIGHBOUR_OFFSETS[col & 1][direction]
    return col + dc, row + dr


def _cube(col: int, row: int) -> tuple[int, int, int]:
    x = col
    z = row - (col - (col & 1)) // 2
    return x, -x - z, z


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Hex distance between two ``(col, row)`` hexes."""
    ax, ay, az = _cube(*a)
    bx, by, bz = _cube(*b)
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))


def neighbour_table(cols: int, rows: int) -> np.ndarray:
    """int16[H, 6]: flat index of each neighbour, -1 off the board."""
    table = np.full((cols * rows, 6), -1, np.int16)
    for col in range(cols):
        for row in range(rows):
            for d in range(6):
                nc, nr = neighbour(col, row, d)
                if 0 <= nc < cols and 0 <= nr < rows:
                    table[col * rows + row, d] = nc * rows + nr
    return table


def distance_table(cols: int, rows: int) -> np.ndarray:
    """int8[H, H] (int16 for big boards): hex distance between every pair of hexes."""
    hexes = [(c, r) for c in range(cols) for r in range(rows)]
    dtype = np.int8 if cols + rows < 127 else np.int16
    return np.asarray([[distance(a, b) for b in hexes] for a in hexes], dtype)
