"""Session fixtures for the core tests (layout described in ``core_testlib``)."""

from __future__ import annotations

import functools
import types

import jax
import pytest
from core_testlib import initial_cards, make_layout

from tcgjax.core import board as board_lib
from tcgjax.core import visibility, zones


@pytest.fixture(scope="session")
def layout():
    return make_layout()


@pytest.fixture(scope="session")
def board0(layout):
    return board_lib.new_board(layout, initial_cards(layout))


@pytest.fixture(scope="session")
def jitted(layout):
    """Jitted commands and queries over the session layout, compiled once and shared."""
    return types.SimpleNamespace(
        move_card=jax.jit(functools.partial(zones.move_card, layout)),
        draw=jax.jit(functools.partial(zones.draw, layout)),
        shuffle=jax.jit(functools.partial(zones.shuffle, layout)),
        change_owner=jax.jit(functools.partial(board_lib.change_owner, layout)),
        set_visibility=jax.jit(functools.partial(board_lib.set_visibility, layout)),
        zone_counts=jax.jit(functools.partial(zones.zone_counts, layout)),
        visible_mask=jax.jit(functools.partial(visibility.visible_mask, layout)),
    )
