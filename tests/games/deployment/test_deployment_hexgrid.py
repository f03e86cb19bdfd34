"""Hex geometry of the deployment wargame: "odd-q" offset coordinates (``hexgrid`` docstring).

Expected values are written out by hand from the docstring's convention (odd columns shifted down by
half a hex; directions N, NE, SE, S, SW, NW), and the distance formula is checked against an
independent breadth-first search over the neighbour relation.
"""

import collections
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcgjax.games.deployment import hexgrid


def _all_neighbours(col, row):
    return [hexgrid.neighbour(col, row, d) for d in range(6)]


def test_directions_are_named_in_order():
    assert hexgrid.DIRECTIONS == ("N", "NE", "SE", "S", "SW", "NW")


def test_neighbours_of_an_even_column_hex():
    # (2, 2): even column, so the east/west neighbours are level with it or half a hex up.
    assert _all_neighbours(2, 2) == [(2, 1), (3, 1), (3, 2), (2, 3), (1, 2), (1, 1)]


def test_neighbours_of_an_odd_column_hex():
    # (3, 2): odd column, shifted down, so the east/west neighbours are level or half a hex down.
    assert _all_neighbours(3, 2) == [(3, 1), (4, 2), (4, 3), (3, 3), (2, 3), (2, 2)]


def test_neighbours_of_the_origin_may_be_off_board():
    assert _all_neighbours(0, 0) == [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1)]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ((0, 0), (0, 0), 0),
        ((0, 0), (1, 0), 1),  # even -> odd column, SE
        ((1, 0), (0, 0), 1),
        ((1, 1), (2, 1), 1),  # odd -> even column, NE
        ((1, 1), (2, 0), 2),  # (2, 0) is not a neighbour of an odd-column hex at row 1
        ((1, 1), (0, 2), 1),  # odd column, SW
        ((2, 2), (1, 3), 2),  # even column: (1, 3) is not a neighbour
        ((0, 2), (1, 1), 1),  # even column, NE
        ((0, 0), (2, 0), 2),
        ((0, 0), (0, 4), 4),  # same column: row difference
        ((0, 0), (3, 3), 5),  # SE, SE, SE reaches (3, 1), then S, S
        ((0, 3), (3, 0), 4),  # NE from even col 0 gains a row, from odd col 1 does not
        ((1, 0), (4, 0), 3),  # odd -> even column: three column steps, no row to make up
        ((0, 0), (6, 0), 6),
        ((0, 0), (6, 3), 6),  # moving 6 columns can gain 3 rows for free
        ((0, 0), (6, 4), 7),
        ((5, 5), (0, 0), 8),  # 5 column steps gain 2 rows, then 3 more rows
    ],
)
def test_distance_against_hand_computed_values(a, b, expected):
    assert hexgrid.distance(a, b) == expected
    assert hexgrid.distance(b, a) == expected


def _bfs_distances(cols, rows, start):
    """Shortest path lengths over the neighbour relation, on a board without walls."""
    dist = {start: 0}
    queue = collections.deque([start])
    while queue:
        here = queue.popleft()
        for nxt in _all_neighbours(*here):
            if 0 <= nxt[0] < cols and 0 <= nxt[1] < rows and nxt not in dist:
                dist[nxt] = dist[here] + 1
                queue.append(nxt)
    return dist


def test_distance_equals_shortest_path_over_neighbours():
    # Embed a 5x5 region in a board with an even margin (keeps column parity) wide enough that
    # the board edges cannot lengthen a shortest path.
    inner, margin = 5, 8
    size = inner + 2 * margin
    region = [(c, r) for c in range(margin, margin + inner) for r in range(margin, margin + inner)]
    for a in region:
        bfs = _bfs_distances(size, size, a)
        for b in region:
            assert hexgrid.distance(a, b) == bfs[b], (a, b)


def test_distance_is_symmetric_and_one_iff_neighbour_exhaustively():
    cols, rows = 5, 4
    hexes = [(c, r) for c in range(cols) for r in range(rows)]
    for a, b in itertools.product(hexes, hexes):
        d = hexgrid.distance(a, b)
        assert d == hexgrid.distance(b, a), (a, b)
        assert (d == 0) == (a == b), (a, b)
        assert (d == 1) == (b in _all_neighbours(*a)), (a, b)


def test_neighbour_relation_is_symmetric_with_opposite_direction():
    for col, row in itertools.product(range(6), range(6)):
        for d in range(6):
            other = hexgrid.neighbour(col, row, d)
            assert hexgrid.neighbour(*other, (d + 3) % 6) == (col, row), (col, row, d)


def test_neighbour_table_marks_off_board_with_minus_one():
    cols, rows = 4, 3
    table = hexgrid.neighbour_table(cols, rows)
    assert table.shape == (cols * rows, 6)
    flat = lambda c, r: c * rows + r  # noqa: E731
    # Corner (0, 0), even column: only SE (1, 0) and S (0, 1) are on the board.
    np.testing.assert_array_equal(table[flat(0, 0)], [-1, -1, flat(1, 0), flat(0, 1), -1, -1])
    # Corner (3, 2), odd column on the bottom edge: only N (3, 1) and NW (2, 2).
    np.testing.assert_array_equal(table[flat(3, 2)], [flat(3, 1), -1, -1, -1, -1, flat(2, 2)])
    # Bottom edge (2, 2), even column: N, NE (3, 1), SE (3, 2), SW (1, 2), NW (1, 1); S is off.
    np.testing.assert_array_equal(
        table[flat(2, 2)], [flat(2, 1), flat(3, 1), flat(3, 2), -1, flat(1, 2), flat(1, 1)]
    )
    # Top edge (1, 0), odd column: N is off; every other direction is on the board.
    np.testing.assert_array_equal(
        table[flat(1, 0)], [-1, flat(2, 0), flat(2, 1), flat(1, 1), flat(0, 1), flat(0, 0)]
    )
    # Interior (1, 1): all six neighbours, matching neighbour().
    expected = [flat(*n) for n in _all_neighbours(1, 1)]
    np.testing.assert_array_equal(table[flat(1, 1)], expected)
    # Everywhere: -1 exactly where neighbour() leaves the board, otherwise its flat index.
    for c, r in itertools.product(range(cols), range(rows)):
        for d, (nc, nr) in enumerate(_all_neighbours(c, r)):
            on_board = 0 <= nc < cols and 0 <= nr < rows
            assert table[flat(c, r), d] == (flat(nc, nr) if on_board else -1), (c, r, d)


def test_distance_table_equals_distance_everywhere():
    cols, rows = 5, 4
    table = hexgrid.distance_table(cols, rows)
    assert table.shape == (cols * rows, cols * rows)
    assert np.issubdtype(table.dtype, np.integer)
    for (ca, ra), (cb, rb) in itertools.product(
        itertools.product(range(cols), range(rows)), repeat=2
    ):
        assert table[ca * rows + ra, cb * rows + rb] == hexgrid.distance((ca, ra), (cb, rb))
    np.testing.assert_array_equal(table, table.T)
    np.testing.assert_array_equal(np.diag(table), 0)


_hexes = st.tuples(st.integers(0, 30), st.integers(0, 30))


@settings(max_examples=200, deadline=None)
@given(_hexes, _hexes, _hexes)
def test_triangle_inequality(a, b, c):
    assert hexgrid.distance(a, c) <= hexgrid.distance(a, b) + hexgrid.distance(b, c)


@settings(max_examples=100, deadline=None)
@given(_hexes, st.integers(0, 5))
def test_a_step_changes_distance_by_at_most_one(a, d):
    b = hexgrid.neighbour(*a, d)
    origin = (0, 0)
    assert abs(hexgrid.distance(origin, a) - hexgrid.distance(origin, b)) <= 1
