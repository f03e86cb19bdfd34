"""The 981-float layout against ``digimon_state_tensor.md``'s constants and top-level table."""

from tcgjax.games.digimon import observation as O

# The spec's "Top-Level Layout" table: (first index, last index, section).
SPEC_TABLE = [
    (0, 9, "global"),
    (10, 381, "my_field"),
    (382, 753, "opponent_field"),
    (754, 773, "my_hand"),
    (774, 793, "opponent_hand"),
    (794, 838, "my_trash"),
    (839, 883, "opponent_trash"),
    (884, 893, "my_security"),
    (894, 903, "opponent_security"),
    (904, 934, "my_breeding"),
    (935, 965, "opponent_breeding"),
    (966, 975, "revealed"),
    (976, 980, "selection"),
]


def test_constants():
    assert (O.TENSOR_SIZE, O.SLOT_SIZE, O.FIELD_SLOTS, O.MAX_SOURCES) == (981, 31, 12, 8)
    assert (O.MAX_HAND, O.MAX_TRASH, O.MAX_SECURITY, O.MAX_REVEALED) == (20, 45, 10, 10)
    assert len(O.HEADER) == 7 and len(O.SOURCE_FIELDS) == 3
    assert O.HEADER.index("source_count") == 6 and O.SOURCE_FIELDS.index("dp_contribution") == 2


def test_top_level_layout_is_the_specs():
    assert O.LAYOUT.size == 981 and O.LAYOUT.shape == (981,)
    assert list(O.LAYOUT.slices) == [name for _, _, name in SPEC_TABLE]
    for first, last, name in SPEC_TABLE:
        start, shape, _ = O.LAYOUT.slices[name]
        size = 1
        for s in shape:
            size *= s
        assert (start, start + size - 1) == (first, last), name
