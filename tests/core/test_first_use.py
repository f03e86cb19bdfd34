"""First use: ``make`` returns one env per id and options (so the compiled programs cached per env
are reused: a replay of a recorded game compiles nothing again), and the first call of a jitted
entry point says that it compiles and how long it took, once."""

from __future__ import annotations

import logging

import jax
import pytest

import tcgjax
from tcgjax.core import checked, first_use
from tcgjax.testing import assert_states_equal
from tcgjax.wrappers import random_legal_action


class _Lines(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


@pytest.fixture
def notices():
    handler = _Lines()
    first_use.logger.addHandler(handler)
    yield handler.lines
    first_use.logger.removeHandler(handler)


def test_make_returns_one_env_per_id_and_options():
    assert tcgjax.make("duel") is tcgjax.make("duel")
    assert tcgjax.make("duel", max_steps=50) is tcgjax.make("duel", max_steps=50)
    assert tcgjax.make("duel", max_steps=50) is not tcgjax.make("duel", max_steps=51)
    assert tcgjax.make("duel", max_steps=50) is not tcgjax.make("duel")
    # The options as the env spells them out (defaults included, as a replay stores them).
    assert tcgjax.make("duel", **tcgjax.make("duel", max_steps=52).options) is tcgjax.make(
        "duel", max_steps=52
    )
    small = tcgjax.make("deployment", scenario="small")
    assert small is tcgjax.make("deployment", scenario="small")
    assert small is not tcgjax.make("deployment", scenario="walls")


def test_checked_step_says_once_that_it_compiles(notices):
    env = tcgjax.make("duel", max_steps=63)  # an env no other test compiles
    state = jax.jit(env.init)(jax.random.PRNGKey(0))
    action = int(random_legal_action(jax.random.PRNGKey(1), state.legal_action_mask))
    state = tcgjax.checked_step(env, state, action, jax.random.PRNGKey(2))
    assert [line.split(" (")[0] for line in notices if line.startswith("compiling")] == [
        "compiling duel's rule check",
        "compiling duel's step",
    ]
    ready = [line for line in notices if " ready in " in line]
    assert [line.split(" ready in ")[0] for line in ready] == ["duel's rule check", "duel's step"]
    assert all(line.endswith(" s") for line in ready)
    assert "from the cache in" in notices[0]
    count = len(notices)
    action = int(random_legal_action(jax.random.PRNGKey(3), state.legal_action_mask))
    tcgjax.checked_step(env, state, action, jax.random.PRNGKey(4))
    assert len(notices) == count  # compiled: nothing more to say


def test_a_replay_reuses_the_recorders_env_and_programs(notices):
    env = tcgjax.make("duel", max_steps=64)
    state = jax.jit(env.init)(jax.random.PRNGKey(0))
    recorder = tcgjax.replay.Recorder(env, state)
    for i in range(6):
        action = int(
            random_legal_action(jax.random.PRNGKey(10 + i), recorder.state.legal_action_mask)
        )
        recorder.step(action, jax.random.PRNGKey(20 + i))
    record = recorder.export()
    before = checked._compiled.cache_info()
    count = len(notices)
    replayed = [frame for frame in tcgjax.replay.frames(record)]
    assert all(game is env for game, _, _ in replayed)
    after = checked._compiled.cache_info()
    assert after.misses == before.misses and after.hits > before.hits
    assert not [line for line in notices[count:] if line.startswith("compiling")]
    assert_states_equal(replayed[-1][1], recorder.state)
