"""The declarative invariant tables (``tcgjax.core.invariants``) every game's ``validate`` is."""

import jax.numpy as jnp
import pytest
from flax import struct

from tcgjax.core.errors import InvalidStateError
from tcgjax.core.invariants import Invariant, InvariantTable, leaf_paths


@struct.dataclass
class Inner:
    left: jnp.ndarray


@struct.dataclass
class Toy:
    turn: jnp.ndarray
    hp: jnp.ndarray
    inner: Inner


def toy(turn=1, hp=(3, 4), left=0):
    return Toy(turn=jnp.int16(turn), hp=jnp.asarray(hp, jnp.int8), inner=Inner(jnp.int8(left)))


def table(extra=()):
    rows = [
        Invariant(("turn",), "turn", "at least 1",
                  lambda s: None if int(s.turn) >= 1 else f"{int(s.turn)} < 1"),
        # Guarded by the row above: it divides by the turn.
        Invariant(("hp",), "units.NNN.hp", "at most 10 / turn",
                  lambda s: next(((f"units.{i:03d}.hp", f"{int(h)} > {10 // int(s.turn)}")
                                  for i, h in enumerate(s.hp) if int(h) > 10 // int(s.turn)),
                                 None)),
        *extra,
    ]  # fmt: skip
    return InvariantTable(rows, exempt={"inner.left": "a counter the rules never read"})


def test_leaf_paths_name_nested_fields():
    assert leaf_paths(toy()) == ["turn", "hp", "inner.left"]


def test_validate_reports_the_first_broken_row_and_the_instance_path():
    t = table()
    t.validate(toy())
    with pytest.raises(InvalidStateError) as info:
        t.validate(toy(turn=0, hp=(3, 99)))
    assert info.value.field == "turn", "the first row in order, which guards the second"
    with pytest.raises(InvalidStateError) as info:
        t.validate(toy(turn=2, hp=(3, 6)))
    assert (info.value.field, info.value.problem) == ("units.001.hp", "6 > 5")


def test_broken_lists_every_row_a_state_breaks():
    t = table()
    assert t.broken(toy()) == []
    assert [r.path for r in t.broken(toy(turn=2, hp=(6, 6)))] == ["units.NNN.hp"]
    # turn 0 breaks the first row and makes the guarded second one fail to evaluate.
    assert [r.path for r in t.broken(toy(turn=0))] == ["turn", "units.NNN.hp"]


def test_uncovered_names_a_leaf_without_a_rule():
    assert table().uncovered(toy()) == []
    bare = InvariantTable(table().invariants)
    assert bare.uncovered(toy()) == ["inner.left"]
    assert table().covered() == {"turn", "hp", "inner.left"}


def test_two_rows_with_the_same_path_and_rule_are_refused():
    row = Invariant(("turn",), "turn", "at least 1", lambda s: None)
    with pytest.raises(ValueError, match="same path and rule"):
        table(extra=[row])
