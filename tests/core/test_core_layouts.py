"""Action layouts (tcgjax/core/actions.py) and observation layouts (tcgjax/core/observation.py)."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tcgjax
from tcgjax.core.actions import ActionLayout
from tcgjax.core.errors import ConfigError, TcgjaxError
from tcgjax.core.observation import ObservationLayout

RANGES = [("play", 6), ("attack", 3), ("end_turn", 1)]

# -------------------------------------------------------------------------------------------------
# ActionLayout


@pytest.fixture(scope="module")
def actions():
    return ActionLayout(RANGES)


def test_action_ranges(actions):
    assert actions.num_actions == 10
    assert [(n, actions.start(n), actions.size(n)) for n, _ in RANGES] == [
        ("play", 0, 6),
        ("attack", 6, 3),
        ("end_turn", 9, 1),
    ]
    assert tcgjax.ActionLayout is ActionLayout


def test_encode_decode_name(actions):
    assert actions.encode("play") == 0
    assert actions.encode("attack", 2) == 8
    assert actions.encode("end_turn") == 9
    assert actions.decode(8) == ("attack", 2)
    assert actions.name(8) == "attack[2]"
    assert actions.name(9) == "end_turn"  # size-1 ranges have no offset
    names = [actions.name(a) for a in range(actions.num_actions)]
    assert names == [f"play[{i}]" for i in range(6)] + [
        "attack[0]",
        "attack[1]",
        "attack[2]",
        "end_turn",
    ]
    for a in range(actions.num_actions):
        assert actions.encode(*actions.decode(a)) == a
    # Device scalars decode too (replays and test failures hand them over).
    assert actions.decode(jnp.int32(7)) == ("attack", 1)
    assert actions.decode(np.int64(0)) == ("play", 0)


def test_action_table(actions):
    assert actions.table() == (
        "| range | indices | size |\n"
        "|---|---|---|\n"
        "| `play` | 0–5 | 6 |\n"
        "| `attack` | 6–8 | 3 |\n"
        "| `end_turn` | 9–9 | 1 |"
    )
    # Every table row agrees with encode.
    for name, lo, hi, size in re.findall(r"\| `(\w+)` \| (\d+)–(\d+) \| (\d+) \|", actions.table()):
        assert actions.encode(name) == int(lo)
        assert actions.encode(name, int(size) - 1) == int(hi)


@pytest.mark.parametrize(
    "ranges",
    [
        [("play", 6), ("play", 2)],
        [("play", 0)],
        [("play", -1)],
        [("play", 2), ("pass", 0)],
        [("attack", (3, 0))],
        [("attack", ())],
        [("attack", (2, True))],
        [("attack", (2, 1.5))],
    ],
)
def test_action_layout_validation(ranges):
    with pytest.raises(ConfigError):
        ActionLayout(ranges)


@pytest.mark.parametrize(("name", "offset"), [("play", 6), ("play", -1), ("end_turn", 1)])
def test_encode_offset_out_of_range(actions, name, offset):
    with pytest.raises(ConfigError, match="outside action range"):
        actions.encode(name, offset)


@pytest.mark.parametrize("action", [-1, 10, 1000])
def test_decode_out_of_range(actions, action):
    with pytest.raises(ConfigError, match=r"outside \[0, 10\)"):
        actions.decode(action)
    with pytest.raises(ConfigError):
        actions.name(action)


def test_unknown_range_name_raises_a_tcgjax_error(actions):
    # errors.py: "Host-side code raises exceptions derived from TcgjaxError".
    for call in (
        lambda: actions.encode("cast", 0),
        lambda: actions.start("cast"),
        lambda: actions.size("cast"),
    ):
        with pytest.raises(TcgjaxError):
            call()


@settings(max_examples=40, deadline=None, database=None)
@given(sizes=st.lists(st.integers(1, 7), min_size=1, max_size=6))
def test_ranges_tile_the_action_space(sizes):
    layout = ActionLayout([(f"r{i}", s) for i, s in enumerate(sizes)])
    assert layout.num_actions == sum(sizes)
    seen = [layout.decode(a) for a in range(layout.num_actions)]
    assert seen == [(f"r{i}", k) for i, s in enumerate(sizes) for k in range(s)]
    assert len({layout.name(a) for a in range(layout.num_actions)}) == layout.num_actions


def test_declared_shapes_unravel_offsets_row_major():
    layout = ActionLayout([("pass", 1), ("attack", (3, 4)), ("deploy", [2, 2, 2])])
    assert layout.num_actions == 1 + 12 + 8
    assert layout.size("attack") == 12 and layout.shape("attack") == (3, 4)
    assert layout.shape("pass") == (1,)
    assert layout.shape("deploy") == (2, 2, 2)
    # attack offset 7 = attacker 1 * 4 + target 3.
    assert layout.arguments(1 + 7) == ("attack", (1, 3))
    assert layout.arguments(0) == ("pass", (0,))
    # deploy offset 6 = 1 * 4 + 1 * 2 + 0.
    assert layout.arguments(13 + 6) == ("deploy", (1, 1, 0))
    assert layout.name(1 + 7) == "attack[7]"  # names and ids do not change with a shape
    with pytest.raises(TcgjaxError):
        layout.shape("cast")


# -------------------------------------------------------------------------------------------------
# ObservationLayout

SLICES = [
    ("hand", (3, 4), "my hand, one row per slot"),
    ("life", (2,), "life totals"),
    ("turn", (), "turn number"),
]


@pytest.fixture(scope="module")
def obs_layout():
    return ObservationLayout(SLICES)


def _parts(offset=0.0):
    return {
        "hand": jnp.arange(12, dtype=jnp.float32).reshape(3, 4) + offset,
        "life": jnp.array([20, 17]) + offset,
        "turn": jnp.asarray(3.0) + offset,
    }


def test_observation_layout_shape(obs_layout):
    assert obs_layout.size == 15
    assert obs_layout.shape == (15,)
    assert tcgjax.ObservationLayout is ObservationLayout


def test_pack_and_view_round_trip(obs_layout):
    obs = obs_layout.pack(_parts())
    assert obs.shape == (15,) and obs.dtype == jnp.float32
    np.testing.assert_array_equal(obs, list(range(12)) + [20, 17, 3])
    for name, part in _parts().items():
        np.testing.assert_array_equal(obs_layout.view(obs, name), part)
        assert obs_layout.view(obs, name).shape == part.shape


def test_pack_follows_layout_order_not_dict_order(obs_layout):
    parts = dict(reversed(list(_parts().items())))
    np.testing.assert_array_equal(obs_layout.pack(parts), obs_layout.pack(_parts()))


def test_pack_casts_to_float32(obs_layout):
    parts = _parts()
    parts["life"] = jnp.array([True, False])
    obs = obs_layout.pack(parts)
    assert obs.dtype == jnp.float32
    np.testing.assert_array_equal(obs_layout.view(obs, "life"), [1.0, 0.0])


def test_pack_under_jit_and_vmap_and_batched_view(obs_layout):
    offsets = jnp.array([0.0, 100.0, -5.0])
    batched = jax.jit(jax.vmap(lambda o: obs_layout.pack(_parts(o))))(offsets)
    assert batched.shape == (3, 15)
    for i, o in enumerate(offsets):
        np.testing.assert_array_equal(batched[i], obs_layout.pack(_parts(float(o))))
    np.testing.assert_array_equal(obs_layout.view(batched, "turn"), [3.0, 103.0, -2.0])
    assert obs_layout.view(batched, "hand").shape == (3, 3, 4)
    # A leading [B, T] batch also works.
    np.testing.assert_array_equal(
        obs_layout.view(batched.reshape(1, 3, 15), "life"), [[[20, 17], [120, 117], [15, 12]]]
    )


def test_observation_table(obs_layout):
    table = obs_layout.table()
    assert table.splitlines()[:2] == ["| slice | indices | shape | meaning |", "|---|---|---|---|"]
    rows = re.findall(r"\| `(\w+)` \| (\d+)–(\d+) \| \[([\d, ]*)\] \| ([^|]+) \|", table)
    assert [r[0] for r in rows] == ["hand", "life", "turn"]
    obs = jnp.arange(15, dtype=jnp.float32)
    for name, lo, hi, shape, doc in rows:
        # The documented indices are exactly what view reads.
        np.testing.assert_array_equal(
            obs_layout.view(obs, name).reshape(-1), np.arange(int(lo), int(hi) + 1)
        )
        assert doc.strip() == dict((n, d) for n, _, d in SLICES)[name]
        assert [int(s) for s in shape.split(",") if s.strip()] == list(dict(
            (n, s) for n, s, _ in SLICES)[name])  # fmt: skip


def test_observation_errors(obs_layout):
    with pytest.raises(ConfigError, match="duplicate"):
        ObservationLayout([("a", (2,), ""), ("a", (3,), "")])
    parts = _parts()
    del parts["turn"]
    with pytest.raises(ConfigError, match="parts"):
        obs_layout.pack(parts)
    with pytest.raises(ConfigError, match="parts"):
        obs_layout.pack({**_parts(), "extra": jnp.zeros(1)})
    with pytest.raises(ConfigError, match="'hand'"):
        obs_layout.pack({**_parts(), "hand": jnp.zeros((4, 3))})
    with pytest.raises(ConfigError, match="'turn'"):
        obs_layout.pack({**_parts(), "turn": jnp.zeros((1,))})


def test_view_of_unknown_slice_raises_a_tcgjax_error(obs_layout):
    # errors.py: "Host-side code raises exceptions derived from TcgjaxError".
    with pytest.raises(TcgjaxError):
        obs_layout.view(jnp.zeros(15), "mana")
