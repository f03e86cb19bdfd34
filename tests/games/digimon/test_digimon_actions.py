"""The 2120-id action space of ``digimon_action_space.md``, to the letter, with G4/G8 decoding."""

import pytest

import tcgjax
from tcgjax.games.digimon import actions as A

# (first id, last id, Main-phase kind) straight from the spec's "Action Ranges" table.
SPEC_RANGES = [
    (0, 29, "play"),
    (30, 59, "trash_hand"),
    (60, 60, "hatch"),
    (61, 61, "move_breeding"),
    (62, 62, "pass"),
    (63, 92, "dna"),
    (93, 99, "unused"),
    (100, 399, "attack"),
    (400, 999, "digivolve"),
    (1000, 1999, "activate"),
    (2000, 2119, "source"),
]


def test_num_actions_and_ranges_are_the_specs():
    assert A.NUM_ACTIONS == A.LAYOUT.num_actions == 2120
    for first, last, kind in SPEC_RANGES:
        assert A.LAYOUT.start(kind) == first and A.LAYOUT.size(kind) == last - first + 1, kind
        for action in (first, last):
            assert A.decode("main", action).kind == kind


def test_formulas():
    assert A.encode("play", 7) == 7 and A.encode("trash_hand", 7) == 37
    assert A.encode("dna", 29) == 92
    assert A.encode("attack", 3, 12) == 100 + 3 * 15 + 12
    assert A.decode("main", 100 + 3 * 15 + 12) == A.Decoded("attack", 3, 12, "attack[3->player]")
    assert A.decode("main", 100 + 11 * 15 + 5).name == "attack[11->field5]"
    assert A.encode("digivolve", 29, 11) == 400 + 29 * 15 + 11 == 846
    assert A.decode("main", 400 + 4 * 15 + 12).name == "digivolve[hand4->breeding]"  # G8
    assert A.encode("activate", 99, 9) == 1999 and A.decode("main", 1999).name == "activate[99.9]"
    assert A.encode("source", 11, 9) == 2119
    assert A.decode("main", 2000 + 2 * 10 + 3) == A.Decoded("source", 2, 3, "source[field2.3]")
    for kind, a, b in (("attack", 0, 15), ("digivolve", 0, 15), ("activate", 0, 10)):
        with pytest.raises(tcgjax.ConfigError):
            A.encode(kind, a, b)


def test_selection_conventions_table():
    cases = {
        5: ("select_hand", 5),
        31: ("select_revealed", 1),
        42: ("select_own_security", 2),
        59: ("select_opponent_security", 9),
        62: ("decline", -1),
        99: ("select_own_breeding", -1),
        100: ("select_own_field", 0),
        111: ("select_own_field", 11),
        112: ("select_opponent_field", 0),
        123: ("select_opponent_field", 11),
        130: ("select_trash", 0),
        179: ("select_trash", 49),
        1000: ("select_branch", 0),
        1009: ("select_branch", 9),
        60: ("not_in_phase", -1),
        124: ("not_in_phase", -1),
        2000: ("not_in_phase", -1),
    }
    for phase in ("select_target", "select_hand", "select_trash", "select_effect_choice"):
        for action, (kind, a) in cases.items():
            if phase == "select_hand" and 30 <= action < 60:
                kind, a = "trash_hand", action - 30  # SelectHand: 30 + i trashes hand card i
            d = A.decode(phase, action)
            assert (d.kind, d.a) == (kind, a), (phase, action, d)
    # SelectSource reads the source range; 62 still declines.
    assert A.decode("select_source", 2000 + 3 * 10 + 4)[:3] == ("select_source", 3, 4)
    assert A.decode("select_source", 62).kind == "decline"
    assert A.decode("select_source", 5).kind == "not_in_phase"


def test_attack_timings_reuse_ids():
    assert A.decode("block_timing", 62).name == "decline_block"
    assert A.decode("block_timing", 104)[:2] == ("block", 4)
    assert A.decode("block_timing", 112).kind == "not_in_phase"
    assert A.decode("counter_timing", 62).name == "decline_counter"
    d = A.decode("counter_timing", A.encode("digivolve", 2, 5))
    assert (d.kind, d.a, d.b, d.name) == ("blast_digivolve", 2, 5, "blast_digivolve[hand2->field5]")
    assert A.decode("counter_timing", 5).kind == "not_in_phase"


def test_every_id_decodes_in_every_phase_with_a_readable_name():
    for phase in A.PHASES:
        names = [A.decode(phase, action).name for action in range(A.NUM_ACTIONS)]
        assert all(isinstance(n, str) and n for n in names), phase
    main_names = [A.action_name(action) for action in range(A.NUM_ACTIONS)]
    assert len(set(main_names)) == A.NUM_ACTIONS, "Main-phase names are unique"
    assert A.decode(3, 62) == A.decode("main", 62)  # phases by GamePhase value too


@pytest.mark.parametrize("bad", [-1, 2120, True, 10**9])
def test_out_of_range_ids_and_unknown_phases(bad):
    with pytest.raises(tcgjax.ConfigError):
        A.decode("main", bad)
    with pytest.raises(tcgjax.ConfigError):
        A.action_name(bad)


def test_unknown_phase():
    with pytest.raises(tcgjax.ConfigError, match="phase"):
        A.decode("combat", 0)
    with pytest.raises(tcgjax.ConfigError, match="phase"):
        A.decode(15, 0)
    assert len(A.PHASES) == 15 and A.PHASES.index("select_security") == 14
