"""The declarative invariant tables (``tcgjax.core.invariants``) every game's ``validate`` is."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import struct

from tcgjax.core.errors import InvalidStateError
from tcgjax.core.invariants import Invariant, InvariantTable, leaf_paths, pile_order_problem


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


def test_a_row_cannot_be_changed_once_made():
    """Rows are shared by every state a rules object validates (its table is built once): a row
    is immutable, so no caller can loosen a rule for everyone."""
    row = table().invariants[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.rule = "anything"


# -- the core's own facts (``Env.validate``, before the game's table) --------------------------


def test_rewards_while_the_game_goes_on_are_refused(duel_env):
    import jax

    state = duel_env.init(jax.random.PRNGKey(0))
    duel_env.validate(state)
    paid = state.replace(rewards=jnp.asarray([1.0, -1.0], jnp.float32))
    with pytest.raises(InvalidStateError) as info:
        duel_env.validate(paid)
    assert info.value.field == "env.rewards"
    assert "while the game goes on" in info.value.problem


def test_rewards_on_the_step_that_ends_the_game_are_accepted(duel_env):
    import jax

    from tcgjax.games.duel.scenario import build_state

    # Player 1's wolf (3 power, ready) attacks player 2 at 2 life: the game ends with the rewards.
    state = build_state(
        duel_env,
        [{"board": ["wolf"], "deck": ["spark"]}, {"life": 2, "deck": ["spark"]}],
    )
    done = duel_env.step(state, duel_env.action_layout.start("attack"), jax.random.PRNGKey(0))
    assert bool(done.terminated) and done.rewards.tolist() == [1.0, -1.0]
    duel_env.validate(done)


def test_shaping_rewards_mid_game_are_accepted_only_where_the_scenario_pays_them():
    import jax

    import tcgjax

    plain = tcgjax.make("deployment", scenario="small")
    assert not plain.rewards_mid_game
    shaped = tcgjax.make(
        "deployment", scenario={**_scenario_dict("small"), "rewards": _shaping(0.1)}
    )
    assert shaped.rewards_mid_game
    state = shaped.init(jax.random.PRNGKey(0))
    first_legal = int(jnp.argmax(state.legal_action_mask))
    placed = shaped.step(state, first_legal, jax.random.PRNGKey(0))
    assert not bool(placed.terminated) and float(abs(placed.rewards).sum()) > 0
    shaped.validate(placed)
    with pytest.raises(InvalidStateError, match="while the game goes on"):
        plain.validate(plain.init(jax.random.PRNGKey(0)).replace(rewards=placed.rewards))


def _scenario_dict(name):
    import yaml

    from tcgjax.games.deployment import scenario as S

    with open(f"{S.SCENARIO_DIR}/{name}.yaml") as f:
        return yaml.safe_load(f)


def _shaping(value):
    return {"win": 1.0, "loss": -1.0, "draw": 0.0, "deployment_shaping": value}


def test_pile_order_problem_names_the_zone_and_the_positions_it_expected(duel_env):
    """Player 1's hand of three with positions 0, 1, 3: "are not 0..2", in the first such zone."""
    from tcgjax.games.duel.scenario import build_state

    state = build_state(duel_env, [{"hand": ["goblin", "spark", "wolf"]}, {}])
    board = jax.tree.map(np.array, state.game.board)  # writable host copies
    assert pile_order_problem(duel_env.board_layout, board) is None
    hand = duel_env.board_layout.zone_index("hand", 0)
    (top,) = np.flatnonzero((board.zone == hand) & (board.position == 2))
    board.position[top] = 3
    assert pile_order_problem(duel_env.board_layout, board) == (
        "zones.hand_player1",
        "positions [0, 1, 3] are not 0..2",
    )
