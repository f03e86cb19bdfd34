"""``checked_step`` (and replays) take an action only if it is an integer id in range."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.core.checked import action_id
from tcgjax.games.duel.rules import ACTIONS
from tcgjax.games.duel.scenario import build_state
from tcgjax.testing import assert_states_equal

KEY = jax.random.PRNGKey(0)
END_TURN = ACTIONS.encode("end_turn")  # 9, legal in every live duel state


@pytest.fixture(scope="module")
def state(duel_env):
    return build_state(duel_env, [{"hand": ["goblin", "spark"], "mana": 2}, {}])


@pytest.mark.parametrize(
    "bad",
    [
        3.7,
        3.0,
        9.0,
        np.float32(9),
        np.float64(0),
        "5",
        "9",
        True,
        False,
        np.True_,
        np.False_,
        None,
        [9],
        (9,),
        np.array([9]),
        jnp.array([9]),
        np.array(9.0),
        jnp.float32(9),
        np.array(True),
        complex(9, 0),
    ],
    ids=repr,
)
def test_non_integer_actions_are_refused_by_name(duel_env, state, bad):
    with pytest.raises(tcgjax.IllegalActionError) as info:
        tcgjax.checked_step(duel_env, state, bad, KEY)
    assert info.value.rule == "action_not_an_integer"
    assert "integer" in str(info.value) and "[0, 10)" in str(info.value)


@pytest.mark.parametrize(
    "bad", [-1, 10, 2**31 - 1, 2**31, 2**32 + 9, 2**63, 2**100, np.int64(2**40), np.uint64(2**63)]
)
def test_out_of_range_ids_name_the_id_and_the_range(duel_env, state, bad):
    """Never wrapped to int32 (2**32 + 9 would become 9, a legal end_turn)."""
    with pytest.raises(tcgjax.IllegalActionError) as info:
        tcgjax.checked_step(duel_env, state, bad, KEY)
    assert info.value.rule == "action_out_of_range"
    assert f"action {int(bad)} is outside [0, 10)" in str(info.value)


@pytest.mark.parametrize(
    "good",
    [
        END_TURN,
        np.int8(END_TURN),
        np.uint16(END_TURN),
        np.int64(END_TURN),
        np.array(END_TURN),
        jnp.int32(END_TURN),
        jnp.argmax(jnp.arange(10)),
    ],
    ids=repr,
)
def test_integer_forms_are_accepted_and_step_exactly(duel_env, state, good):
    expected = jax.jit(duel_env.step)(state, END_TURN, KEY)
    assert_states_equal(tcgjax.checked_step(duel_env, state, good, KEY), expected, repr(good))
    assert action_id(duel_env, good) == END_TURN and type(action_id(duel_env, good)) is int


def test_a_traced_action_is_refused_on_the_host(duel_env):
    with pytest.raises(tcgjax.IllegalActionError, match="integer"):
        jax.jit(lambda a: action_id(duel_env, a))(jnp.int32(1))
