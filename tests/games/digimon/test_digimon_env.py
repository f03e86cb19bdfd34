"""The Digimon env adapter (registered as ``digimon``) with the shipped starter decks: the
conformance harness, the spec's metadata, phase-aware decoding and option errors."""

import jax
import jax.numpy as jnp
import pytest

import tcgjax
from tcgjax.core.errors import ConfigError
from tcgjax.games.digimon.env import DigimonEnv, board_state_tensor, decode_action
from tcgjax.testing import api_test


@pytest.fixture(scope="module")
def env():
    return DigimonEnv()


def test_metadata_is_the_specs(env):
    assert (env.num_actions, env.observation_shape, env.num_players) == (2120, (981,), 2)
    assert (
        env.action_name(62) == "pass" and env.action_name(100 + 2 * 15 + 12) == "attack[2->player]"
    )
    assert env.options["decks"] == ["st1", "st2"] and env.options["cards"] is None
    assert "digimon" in tcgjax.available_envs()
    made = tcgjax.make("digimon", decks=("st2", "st1"), max_turns=40)
    assert isinstance(made, DigimonEnv) and made.options["decks"] == ["st2", "st1"]


def test_api_test_with_the_starter_decks(env):
    """The conformance harness, whose batched part (64 games x 300 random legal steps with
    auto-reset) is also ``validate``'s random-play sweep (issue #33 point 1): every game's state at
    every step (19,200 states) validates and round-trips through JSON exactly (~2 ms a state)."""
    report = api_test(
        env, num_steps=60, batch_size=64, batch_steps=300, json_every=15, batch_check_every=1
    )
    assert report.single_steps > 0 and report.json_round_trips >= 4
    assert report.renders_checked == 3 * report.json_round_trips  # every viewer
    assert report.illegal_actions_checked > 100
    assert report.batched_json_round_trips == 64 * 300
    assert report.states_validated == report.single_steps + 64 * 300
    assert report.batched_episodes_finished > 0


def test_max_turns_truncates_after_that_turn_and_is_validated(env):
    limited = DigimonEnv(max_turns=3)
    assert limited.options["max_turns"] == 3 and env.max_turns is None
    game = jax.jit(limited.init)(jax.random.PRNGKey(0)).game
    at_turn = lambda t: game.replace(board=game.board.replace(turn_number=jnp.int16(t)))  # noqa: E731
    assert not bool(limited._is_truncated(at_turn(3)))
    assert bool(limited._is_truncated(at_turn(4))), "turn 3 has ended"
    assert not bool(env._is_truncated(at_turn(500))), "no limit by default"
    for bad in (0, -2, 2.5, True, "3"):
        with pytest.raises(ConfigError, match="max_turns"):
            DigimonEnv(max_turns=bad)


def test_decode_action_and_the_tensor_follow_the_state(env):
    state = jax.jit(env.init)(jax.random.PRNGKey(0))
    # The mulligan (G10): 1000 keeps, 1001 redraws, in SelectEffectChoice; both players keep.
    assert decode_action(env, state, 1000).kind == "select_branch"
    assert decode_action(env, state, 62).kind == "decline"
    step = jax.jit(env.step)
    for _ in range(2):
        state = step(state, 1000, jax.random.PRNGKey(1))
    assert decode_action(env, state, 62).name == "pass"  # Breeding phase: pass = skip breeding
    assert decode_action(env, state, 60).kind == "hatch"
    player = int(state.current_player)
    assert (board_state_tensor(env, state, player) == state.observation).all()
    hidden = board_state_tensor(env, state, player, "player")
    full = board_state_tensor(env, state, player, "omniscient")
    assert (hidden == -1.0).sum() > 0 and (full == -1.0).sum() < (hidden == -1.0).sum()


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"decks": ("st1",)}, "two decks"),
        ({"decks": "st1"}, "two decks"),
        ({"decks": ("st1", "st9")}, "st9"),
        ({"cards": 3}, "cards"),
        ({"memory_rule": "house"}, "memory_rule='house'"),
        ({"timing_order": None}, "timing_order=None"),
        ({"mulligan": "yes"}, "mulligan='yes'"),
        ({"trigger_order": "random"}, "trigger_order='random'"),
    ],
)
def test_option_errors(options, needle):
    with pytest.raises(tcgjax.ConfigError, match=needle):
        DigimonEnv(**options)
