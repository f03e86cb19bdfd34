"""The 981-float tensor (stage 2): layout filled from the state, perspective, hidden information
(G2), the omniscient view, and invariance of the player view to hidden permutations."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from digimon_testlib import digimon, make_rules, other

from tcgjax.core import zones
from tcgjax.games.digimon import observation as O
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.scenario import build_state

ENTRIES = [
    other("EGG", "digi_egg"),
    digimon("R3K", 3, 3000, digivolve=[{"color": "red", "level": 2, "cost": 0}]),
    digimon("A6K", 4, 6000, digivolve=[{"color": "red", "level": 3, "cost": 2}]),
    other("TAM", "tamer"),
]
MAIN = ["R3K"] * 4 + ["A6K"] * 4 + ["TAM"] * 4


@pytest.fixture(scope="module")
def rules():
    return make_rules(ENTRIES, MAIN)


@pytest.fixture(scope="module")
def tensor(rules):
    return jax.jit(O.board_state_tensor, static_argnums=(0, 3))


@pytest.fixture(scope="module")
def state(rules):
    return build_state(
        rules,
        [
            {"field": [None, ["EGG", "R3K", "A6K"]], "suspended": [1], "hand": ["TAM", "R3K"],
             "security": ["A6K", "TAM"], "trash": ["R3K"], "breeding": ["EGG"]},
            {"field": [["R3K"]], "hand": ["A6K"], "security": ["R3K"]},
        ],
        memory=4, turn=5, phase="main",
    )  # fmt: skip


def view(x, name):
    return np.asarray(O.LAYOUT.view(x, name))


def test_slots_global_and_zones_from_the_owners_side(rules, tensor, state):
    ids = {cid: float(i) for i, cid in enumerate(rules.cards.ids)}
    mine = tensor(rules, state, 0, "player")
    assert mine.shape == (981,) and mine.dtype == jnp.float32
    np.testing.assert_array_equal(view(mine, "global")[:3], [5.0, 3.0, 4.0])  # turn, Main, memory
    slot = view(mine, "my_field")[1]
    assert slot[0] == ids["A6K"] and slot[1] == 6000.0 and slot[2] == 1.0 and slot[6] == 3.0
    np.testing.assert_array_equal(
        slot[7:16], [ids["EGG"], -1, 0, ids["R3K"], -1, 0, ids["A6K"], -1, 0]
    )
    assert not view(mine, "my_field")[0].any(), "an empty slot is all padding"
    np.testing.assert_array_equal(view(mine, "my_hand")[:3], [ids["TAM"], ids["R3K"], 0.0])
    np.testing.assert_array_equal(view(mine, "opponent_hand")[:2], [-1.0, 0.0])  # hidden (G2)
    np.testing.assert_array_equal(view(mine, "my_security")[:3], [-1.0, -1.0, 0.0])  # face down
    np.testing.assert_array_equal(view(mine, "my_trash")[:2], [ids["R3K"], 0.0])
    assert view(mine, "my_breeding")[0] == ids["EGG"] and view(mine, "my_breeding")[6] == 1.0
    assert view(mine, "opponent_field")[0][0] == ids["R3K"]


def test_the_opponents_view_mirrors_and_negates_memory(rules, tensor, state):
    theirs = tensor(rules, state, 1, "player")
    assert view(theirs, "global")[2] == -4.0
    assert view(theirs, "my_field")[0][1] == 3000.0 and view(theirs, "opponent_field")[1][6] == 3.0
    assert view(theirs, "opponent_hand")[:3].tolist() == [-1.0, -1.0, 0.0]


def test_omniscient_view_shows_every_card(rules, tensor, state):
    ids = {cid: float(i) for i, cid in enumerate(rules.cards.ids)}
    omni = tensor(rules, state, 0, "omniscient")
    np.testing.assert_array_equal(view(omni, "opponent_hand")[:2], [ids["A6K"], 0.0])
    # G9: security top first (the scenario lists it bottom first: TAM is checked first).
    np.testing.assert_array_equal(view(omni, "my_security")[:3], [ids["TAM"], ids["A6K"], 0.0])
    np.testing.assert_array_equal(view(omni, "opponent_security")[:2], [ids["R3K"], 0.0])


def test_security_entry_i_is_the_card_selectsecurity_40_plus_i_names(rules, tensor):
    """G9: tensor position i, the i-th card from the top, is the card SelectSecurity id 40 + i
    (own) / 50 + i (the opponent's) names, and entry 0 the card the next check flips."""
    s = build_state(rules, [{"security": ["A6K", "TAM", "R3K", "FILL0"]},
                            {"security": ["R3K", "TAM", "A6K"]}], memory=2)  # fmt: skip
    board = s.board
    for observer in (0, 1):
        omni = tensor(rules, s, observer, "omniscient")
        for whose, name in ((observer, "my_security"), (1 - observer, "opponent_security")):
            zone = R.zone_of("security", whose)
            count = int(zones.zone_count(board, zone))
            named = [int(zones.card_at(board, zone, count - 1 - i)) for i in range(count)]
            expected = [float(board.definition[c]) for c in named]
            np.testing.assert_array_equal(view(omni, name)[:count], expected)
            assert int(zones.top_card(board, zone)) == named[0], "entry 0 is flipped next"


def test_player_view_ignores_hidden_permutations(rules, tensor):
    """Shuffling the opponent's hand, either deck or either security stack changes nothing the
    observer sees (and the omniscient view does change)."""
    s = jax.jit(rules.init)(jax.random.PRNGKey(11))
    before = tensor(rules, s, 0, "player")
    board = s.board
    for k, (zone, p) in enumerate([("hand", 1), ("deck", 0), ("deck", 1), ("security", 0)]):
        board = zones.shuffle(rules.layout, board, R.zone_of(zone, p), jax.random.PRNGKey(k)).board
    shuffled = s.replace(board=board)
    np.testing.assert_array_equal(tensor(rules, shuffled, 0, "player"), before)
    assert not np.array_equal(
        tensor(rules, shuffled, 0, "omniscient"), tensor(rules, s, 0, "omniscient")
    )


def test_batched_under_jit_and_vmap(rules):
    states = jax.jit(jax.vmap(rules.init))(jax.random.split(jax.random.PRNGKey(0), 8))
    fn = jax.jit(jax.vmap(lambda s, p: O.board_state_tensor(rules, s, p), in_axes=(0, 0)))
    out = fn(states, jnp.asarray(states.board.active_player, jnp.int32))
    assert out.shape == (8, 981) and bool(jnp.all(jnp.isfinite(out)))
    with pytest.raises(ValueError, match="view"):
        O.board_state_tensor(rules, jax.tree.map(lambda x: x[0], states), 0, "god")
