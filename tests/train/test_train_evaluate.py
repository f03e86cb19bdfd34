"""``tcgjax.train.evaluate``: outcome counts, seat assignment, truncation as draws, network adapters, the
evaluation table and its text form.

One scenario (``small``) and few jitted programs: the three rows of ``evaluation_table`` are one
program (``evaluate_against``), shared by most tests through a module fixture.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import tcgjax
from tcgjax.train import evaluate as ev
from tcgjax.train.evaluate import (
    evaluate,
    evaluation_table,
    format_table,
    network_policy,
)
from tcgjax.train.networks import ActorCritic, greedy_action
from tcgjax.train.opponents import HEURISTICS, heuristic_policy, random_policy

KEY = jax.random.PRNGKey(0)
GAMES = 1000


@pytest.fixture(scope="module")
def small():
    return tcgjax.make("deployment", scenario="small")


@pytest.fixture(scope="module")
def network(small):
    """A tiny untrained actor-critic and two parameter sets."""
    net = ActorCritic(small.num_actions, (16,))
    init = jax.jit(net.init)
    obs = jnp.zeros((1,) + tuple(small.observation_shape))
    return net, init(jax.random.PRNGKey(1), obs), init(jax.random.PRNGKey(2), obs)


@pytest.fixture(scope="module")
def table(small, network):
    """The sampling network against random, the heuristic and ITSELF (same parameters as the
    checkpoint): one jitted program for the three rows."""
    net, params, _ = network
    return evaluation_table(small, net, params, KEY, GAMES, checkpoint_params=params, greedy=False)


def test_counts_add_up_and_seats_are_balanced(small, table):
    assert list(table) == ["random", "heuristic", "checkpoint"]
    for name, row in table.items():
        assert row["games"] == GAMES, name
        assert row["wins"] + row["draws"] + row["losses"] == GAMES
        assert row["win_rate"] + row["draw_rate"] + row["loss_rate"] == pytest.approx(1.0)
        assert row["score"] == pytest.approx(row["win_rate"] + row["draw_rate"] / 2)
        assert row["games_as_seat"] == [GAMES // 2, GAMES // 2]
        assert sum(row["wins_as_seat"]) == row["wins"]
        assert sum(row["losses_as_seat"]) == row["losses"]
        assert row["unfinished"] == 0 and row["illegal_a"] == row["illegal_b"] == 0
        assert 0 < row["mean_length"] <= small.max_steps


def test_a_policy_against_itself_is_even_over_both_seats(table):
    row = table["checkpoint"]
    # Both sides are the same policy and each plays both seats equally often. Measured with this
    # key: 42.6% wins, 44.7% losses, 12.7% draws (turn-limit games with equal HP).
    assert abs(row["win_rate"] - row["loss_rate"]) < 0.06, row
    assert abs(row["score"] - 0.5) < 0.03
    wins, losses = row["wins_as_seat"], row["losses_as_seat"]
    assert abs(wins[0] - losses[1]) < 0.1 * GAMES and abs(wins[1] - losses[0]) < 0.1 * GAMES


def test_the_checkpoint_copy_samples_even_against_a_greedy_learner(small, network, monkeypatch):
    net, params, other = network
    seen = {}

    def capture(env, learner, opponents, key, num_games, **kwargs):
        seen.update(learner=learner, **opponents)
        return {}

    monkeypatch.setattr(ev, "evaluate_against", capture)
    evaluation_table(small, net, params, KEY, GAMES, checkpoint_params=other, greedy=True)
    assert seen["learner"].greedy and not seen["checkpoint"].greedy
    assert seen["checkpoint"].params is other


def test_results_are_from_policy_a_side(table):
    row = table["heuristic"]  # an untrained network loses to the heuristic from both seats
    assert row["loss_rate"] > 0.9 and min(row["losses_as_seat"]) > 0.85 * GAMES // 2, row
    assert row["mean_return"] == pytest.approx(row["win_rate"] - row["loss_rate"], abs=1e-6)


def test_new_parameters_reuse_the_compiled_program(small, network):
    """The suite's memory-mapping guard (``tests/conftest.py``) may clear JAX's caches between
    tests: then the program is compiled again here before it is counted."""
    net, params, other = network
    if ev._play._cache_size() == 0:  # cleared since the fixture compiled it: compile it again
        evaluation_table(small, net, params, KEY, GAMES, checkpoint_params=params, greedy=False)
    compiled = ev._play._cache_size()
    assert compiled >= 1
    again = evaluation_table(
        small, net, other, jax.random.PRNGKey(5), GAMES, checkpoint_params=other, greedy=False
    )
    assert ev._play._cache_size() == compiled, "new parameters must not recompile"
    assert again["random"]["games"] == GAMES


@pytest.mark.parametrize("game", sorted(HEURISTICS))
def test_every_games_opponents_are_the_same_program_on_every_call(game):
    """``evaluation_table`` builds its opponents at each call, and the compiled evaluation is
    reused only when their static parts compare equal. Pokémon's heuristic was a new closure each
    time: every evaluation of a Pokémon sweep compiled the whole game again, until the trial
    process ran out of memory mappings and died in LLVM ("Cannot allocate memory")."""
    env = tcgjax.make(game)
    for factory in (heuristic_policy, random_policy):
        assert ev._partition(factory(env))[0] == ev._partition(factory(env))[0], factory.__name__


def test_format_table_has_a_row_per_opponent(table):
    lines = format_table(table).splitlines()
    assert lines[0].split() == ["opponent", "games", "win", "draw", "loss"]
    assert [line.split()[0] for line in lines[1:]] == list(table)
    for line, row in zip(lines[1:], table.values(), strict=True):
        assert line.split()[1:] == [
            str(GAMES),
            f"{row['win_rate']:.1%}",
            f"{row['draw_rate']:.1%}",
            f"{row['loss_rate']:.1%}",
        ]


def test_seat_assignment_losses_and_truncated_games_as_draws():
    # illegal_action="lose" and a 2-step limit: policy_a always plays an out-of-range action.
    # In seat 0 it acts first and loses at once; in seat 1 it never acts: player 1 is still
    # deploying its 3 units when the env truncates the game at step 2, a draw.
    env = tcgjax.make("deployment", scenario="small", illegal_action="lose", max_steps=2)

    def always_illegal(state, key):
        return jnp.int32(-1)

    r = evaluate(env, always_illegal, random_policy(env), jax.random.key(3), 11)  # typed key
    assert r["games"] == 11 and r["games_as_seat"] == [6, 5]
    assert r["losses"] == 6 and r["losses_as_seat"] == [6, 0] and r["wins"] == 0
    assert r["draws"] == r["truncated"] == 5
    assert r["illegal_a"] == 6 and r["illegal_b"] == 0
    assert r["mean_return"] == pytest.approx(-6 / 11)


def test_num_games_must_be_positive(small):
    policy = random_policy(small)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(tcgjax.ConfigError, match="num_games"):
            evaluate(small, policy, policy, KEY, bad)


# ---------------------------------------------------------------------------------------------------
# Network adapter and the text table


def test_network_policy_greedy_and_sampled(small, network):
    net, params, _ = network
    greedy, sampled = network_policy(net, params), network_policy(net, params, greedy=False)

    @jax.jit
    def run(keys):
        state = small.init(KEY)
        actions = jax.vmap(lambda k: (greedy(state, k), sampled(state, k)))(keys)
        logits, _ = net.apply(params, state.observation)
        return actions, greedy_action(logits, state.legal_action_mask), state.legal_action_mask

    (by_greedy, by_sampling), best, mask = jax.device_get(run(jax.random.split(KEY, 256)))
    assert set(by_greedy.tolist()) == {int(best)}
    assert mask[by_sampling].all() and len(set(by_sampling.tolist())) > 5  # spread over legal ones


def test_format_table_prints_rates_in_percent():
    row = {"games": 10, "win_rate": 0.5, "draw_rate": 0.2, "loss_rate": 0.3}
    text = format_table({"random": row, "a_long_opponent_name": {**row, "games": 2000}})
    lines = text.splitlines()
    assert lines[1].split() == ["random", "10", "50.0%", "20.0%", "30.0%"]
    assert lines[2].split()[:2] == ["a_long_opponent_name", "2000"]
    assert len({len(line) for line in lines}) == 1  # aligned columns


# ---------------------------------------------------------------------------------------------------
# Per matchup (a mixed-deck env: decks drawn per game)


def test_a_game_without_decks_reports_no_matchups(table):
    assert all("by_matchup" not in row for row in table.values())


def test_results_split_by_matchup_add_up_to_the_totals():
    import numpy as np

    # Six games: matchups 0, 1, 1, 0, 1, 1; policy_a wins games 0 and 2, loses 1 and 3, game 4
    # is truncated (a draw) and game 5 a draw.
    out = {
        "seat_a": np.array([0, 1, 0, 1, 0, 1]),
        "reward_a": np.array([1.0, -1.0, 1.0, -1.0, 0.0, 0.0]),
        "return_a": np.array([1.0, -1.0, 1.0, -1.0, 0.0, 0.0]),
        "terminated": np.array([True, True, True, True, False, True]),
        "truncated": np.array([False, False, False, False, True, False]),
        "length": np.array([10, 20, 30, 40, 50, 60]),
        "illegal": np.zeros((6, 2), np.int32),
        "decisions_a": np.full(6, 5),
        "matchup": np.array([0, 1, 1, 0, 1, 1]),
    }
    row = ev._summary(out, slice(0, 6), ("a vs b", "b vs a"))
    first, second = row["by_matchup"]["a vs b"], row["by_matchup"]["b vs a"]
    assert (first["games"], first["wins"], first["losses"], first["draws"]) == (2, 1, 1, 0)
    assert (second["games"], second["wins"], second["losses"], second["draws"]) == (4, 1, 1, 2)
    assert second["truncated"] == 1 and second["wins_as_seat"] == [1, 0]
    assert first["mean_length"] == 25.0
    for key in ("games", "wins", "losses", "draws"):
        assert row[key] == first[key] + second[key]
    # One matchup (or none): no split.
    assert "by_matchup" not in ev._summary(out, slice(0, 6), ("a vs b",))


def test_format_table_indents_each_matchup_under_its_opponent():
    row = {"games": 4, "win_rate": 0.5, "draw_rate": 0.25, "loss_rate": 0.25}
    matchups = {"x vs y": {**row, "games": 3}, "y vs x": {**row, "games": 1}}
    lines = format_table({"random": {**row, "by_matchup": matchups}}).splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["random", "x", "y"]
    assert lines[2].startswith("  x vs y") and lines[2].split()[3] == "3"
    assert len({len(line) for line in lines}) == 1
