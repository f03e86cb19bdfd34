"""Ratings (``tcgjax.train.ratings``): OpenSkill tables from scripted round robins, and a round
robin played on the duel."""

import jax
import jax.numpy as jnp
import pytest

from tcgjax.core.errors import ConfigError
from tcgjax.train import ratings
from tcgjax.train.opponents import heuristic_policy, random_policy


def _pair(wins, draws, losses):
    games = wins + draws + losses
    return {"games": games, "wins": wins, "draws": draws, "losses": losses,
            "score": (wins + draws / 2) / games}  # fmt: skip


def test_a_strict_order_of_players_is_rated_in_that_order():
    results = {("a", "b"): _pair(8, 0, 0), ("a", "c"): _pair(8, 0, 0), ("b", "c"): _pair(8, 0, 0)}
    table = ratings.rate(results)
    assert [row["player"] for row in table] == ["a", "b", "c"]
    assert [row["score"] for row in table] == [1.0, 0.5, 0.0]
    assert [row["games"] for row in table] == [16, 16, 16]
    assert table[0]["mu"] > 25.0 > table[2]["mu"], "OpenSkill starts everyone at mu 25"
    for row in table:
        assert row["ordinal"] == pytest.approx(row["mu"] - 3 * row["sigma"])
        assert row["sigma"] < 25 / 3, "every game narrows the uncertainty"


def test_draws_are_ties_and_the_order_of_play_is_the_seed_s():
    even = ratings.rate({("a", "b"): _pair(0, 10, 0)})
    assert even[0]["mu"] == pytest.approx(even[1]["mu"]) == pytest.approx(25.0)
    mixed = {("a", "b"): _pair(6, 2, 4), ("b", "c"): _pair(3, 3, 6), ("a", "c"): _pair(5, 0, 7)}
    assert ratings.rate(mixed, seed=1) == ratings.rate(mixed, seed=1)
    # The games' order moves the online ratings a little, never the scores.
    other = ratings.rate(mixed, seed=2)
    assert {r["player"]: r["score"] for r in other} == {
        r["player"]: r["score"] for r in ratings.rate(mixed, seed=1)
    }


def test_the_table_names_every_pair_s_score_from_both_sides():
    results = {("a", "b"): _pair(3, 1, 0)}
    text = ratings.format_ratings(ratings.rate(results), results)
    assert "| 1 | a |" in text and "| 2 | b |" in text
    assert "| a |  | 0.875 |" in text and "| b | 0.125 |  |" in text


def _first_legal(state, key):
    return jnp.argmax(state.legal_action_mask).astype(jnp.int32)


def test_a_round_robin_on_the_duel_plays_every_pair_in_both_seats(duel_env):
    players = {
        "heuristic": heuristic_policy(duel_env),
        "random": random_policy(duel_env),
        "first legal": _first_legal,
    }
    results = ratings.round_robin(duel_env, players, jax.random.PRNGKey(0), 8)
    assert list(results) == [("heuristic", "random"), ("heuristic", "first legal"),
                             ("random", "first legal")]  # fmt: skip
    for r in results.values():
        assert r["games"] == 8 and r["games_as_seat"] == [4, 4]
        assert r["wins"] + r["draws"] + r["losses"] == 8
    table = ratings.rate(results)
    assert {row["player"] for row in table} == set(players)
    assert sum(row["score"] * row["games"] for row in table) == pytest.approx(3 * 8)
    with pytest.raises(ConfigError, match="two players or more"):
        ratings.round_robin(duel_env, {"random": random_policy(duel_env)}, jax.random.PRNGKey(0), 8)
