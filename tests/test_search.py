"""``tcgjax.search`` (mctx Gumbel MuZero over the env's own step) and ``examples/search.py``."""

from __future__ import annotations

import importlib.util
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax import search
from tcgjax.games.duel.scenario import build_state

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOWEST = float(jnp.finfo(jnp.float32).min)

# Player 1 to act with 1 mana: Goblin (play[0]) or Spark (play[1], 2 damage) into an opponent at
# 2 life wins at once; ending the turn lets the opponent's Dragon attack. Both decks hold cards,
# so nobody is decked out by the turn passing.
WINNING_SPARK = [
    {"hand": ["goblin", "spark"], "mana": 1, "max_mana": 1, "deck": ["wolf", "knight"]},
    {"life": 2, "deck": ["wolf", "knight", "goblin"], "board": ["dragon"]},
]
PLAY_GOBLIN, PLAY_SPARK, END_TURN = 0, 1, 9


def batch_of(state, n):
    return jax.tree.map(lambda x: jnp.stack([x] * n), state)


def test_recurrent_fn_signs_follow_the_player_to_act(duel_env):
    env = duel_env
    assert [env.action_name(a) for a in (PLAY_GOBLIN, PLAY_SPARK, END_TURN)] == [
        "play[0]",
        "play[1]",
        "end_turn",
    ]
    states = batch_of(build_state(env, WINNING_SPARK), 3)
    fn = jax.jit(search.recurrent_fn(env, search.uniform_evaluator(env)), static_argnums=0)
    out, following = fn(
        None, jax.random.PRNGKey(0), jnp.array([PLAY_GOBLIN, END_TURN, PLAY_SPARK]), states
    )
    # Goblin: the same player acts next (+1); end of turn: the other player (-1); Spark wins (0,
    # the game is over) with the acting player's reward +1.
    np.testing.assert_array_equal(np.asarray(out.discount), [1.0, -1.0, 0.0])
    np.testing.assert_array_equal(np.asarray(out.reward), [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(np.asarray(following.current_player)[:2], [0, 1])
    # Illegal actions of the following states get the lowest prior logit, legal ones keep theirs.
    mask = np.asarray(following.legal_action_mask)
    logits = np.asarray(out.prior_logits)
    assert np.all(logits[~mask] == LOWEST) and np.all(logits[mask] == 0.0)


def test_search_takes_the_winning_spark_and_weights_only_legal_actions(duel_env):
    env = duel_env
    state = build_state(env, WINNING_SPARK)
    out = jax.jit(
        lambda s, k: search.search(
            env, s, k, evaluate=search.uniform_evaluator(env), num_simulations=8
        )
    )(batch_of(state, 2), jax.random.PRNGKey(1))
    weights = np.asarray(out.action_weights)
    assert np.all(weights[:, ~np.asarray(state.legal_action_mask)] == 0.0)
    assert np.all(weights.argmax(axis=1) == PLAY_SPARK)
    policy = search.search_policy(env, num_simulations=8, evaluate=search.uniform_evaluator(env))
    keys = jax.random.split(jax.random.PRNGKey(2), 2)
    actions = jax.jit(jax.vmap(policy))(batch_of(state, 2), keys)
    np.testing.assert_array_equal(np.asarray(actions), [PLAY_SPARK, PLAY_SPARK])


@pytest.mark.parametrize("game", tcgjax.available_envs())
def test_search_picks_legal_actions_in_every_game(game):
    env = tcgjax.make(game)
    policy = search.search_policy(env, num_simulations=4, evaluate=search.uniform_evaluator(env))
    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(3), 2))
    actions = np.asarray(
        jax.jit(jax.vmap(policy))(states, jax.random.split(jax.random.PRNGKey(4), 2))
    )
    mask = np.asarray(states.legal_action_mask)
    assert mask[np.arange(2), actions].all()


def test_search_example_beats_random_and_reports_every_opponent(capsys):
    path = os.path.join(ROOT, "examples", "search.py")
    spec = importlib.util.spec_from_file_location("search_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    table = example.main(
        ["--env", "duel", "--simulations", "8", "--games", "32", "--rollout-steps", "60"]
    )
    assert list(table) == ["random", "heuristic"]
    assert table["random"]["win_rate"] >= 0.7
    assert all(row["illegal_a"] == 0 and row["unfinished"] == 0 for row in table.values())
    assert "Gumbel MuZero search" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        example.main(["--evaluator", "ppo"])  # needs --ppo-run
