"""Trained agents as policies (``tcgjax.train.policies``): a run directory and the shipped
baselines load as pure ``(state, key) -> action`` functions that play legal moves under
``jit``/``vmap``; a baseline folder round-trips from a run; an altered file, a missing source or
another env's options are refused by name; the CLI and the Gymnasium wrapper take them as
opponents."""

from __future__ import annotations

import json
import os

import jax
import numpy as np
import pytest
from train_testlib import TINY

import tcgjax
from tcgjax.core.errors import ConfigError
from tcgjax.train import policies, run
from tcgjax.train.evaluate import evaluate_against
from tcgjax.train.opponents import random_policy


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A tiny deployment run: the config of the other run tests, so its compiled update and
    evaluation load from the persistent compilation cache."""
    runs = tmp_path_factory.mktemp("runs")
    return run.main(["--env", "deployment", f"run_dir={runs}", *TINY])


def _first_moves(env, policy, games=8):
    """The policy's action in ``games`` fresh games, through jit(vmap(policy)), and their masks."""
    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(3), games))
    keys = jax.random.split(jax.random.PRNGKey(4), games)
    return np.asarray(jax.jit(jax.vmap(policy))(states, keys)), np.asarray(states.legal_action_mask)


def test_every_game_ships_a_baseline_that_plays_legal_moves():
    assert policies.baselines() == ("deployment", "digimon", "duel", "pokemon")
    for env_id in policies.baselines():
        env = tcgjax.make(env_id)  # the default options: a turn limit may differ from training
        policy = policies.load_policy("baseline", env)
        actions, masks = _first_moves(env, policy)
        assert masks[np.arange(len(actions)), actions].all(), env_id
        table = open(os.path.join(policies.BASELINE_DIR, env_id, "eval.txt")).read()
        assert table.startswith("opponent") and "heuristic" in table


def test_the_duel_baseline_beats_the_random_player():
    """What its eval.txt records (96% over 2000 games), on 64 fresh games."""
    env = tcgjax.make("duel")
    policy = policies.load_policy("baseline", env)
    row = evaluate_against(env, policy, {"random": random_policy(env)}, jax.random.key(7), 64)
    assert row["random"]["win_rate"] >= 0.8, row


def test_a_run_directory_loads_as_its_latest_checkpoint(run_dir):
    env = tcgjax.make("deployment")
    policy = policies.load_policy(run_dir)
    actions, masks = _first_moves(env, policy)
    assert masks[np.arange(len(actions)), actions].all()
    sampled = policies.load_policy(run_dir, env, greedy=False)
    assert sampled.greedy is False and policy.greedy is True


def test_a_baseline_folder_round_trips_and_refuses_an_altered_file(run_dir, tmp_path, monkeypatch):
    monkeypatch.setattr(policies, "BASELINE_DIR", str(tmp_path))
    policies.export_baseline(run_dir, str(tmp_path / "deployment"))
    assert "run_dir: runs" in (tmp_path / "deployment" / "config.yaml").read_text()
    env = tcgjax.make("deployment")
    from_run = policies.load_policy(run_dir, env)
    from_baseline = policies.load_policy("baseline", env)
    for a, b in zip(
        jax.tree.leaves(from_run.params), jax.tree.leaves(from_baseline.params), strict=True
    ):
        assert np.array_equal(a, b)
    params = tmp_path / "deployment" / "params.msgpack"
    data = bytearray(params.read_bytes())
    data[-5] ^= 0xFF
    params.write_bytes(bytes(data))
    with pytest.raises(ConfigError, match=r"\['params.msgpack'\] do not match digest.json"):
        policies.load_policy("baseline", env)
    # A file the digest does not list (here a card_ids.json added afterwards) is named too.
    data[-5] ^= 0xFF
    params.write_bytes(bytes(data))
    (tmp_path / "deployment" / "card_ids.json").write_text("[]")
    with pytest.raises(ConfigError, match=r"\['card_ids.json'\] do not match digest.json"):
        policies.load_policy("baseline", env)


def test_bad_sources_and_other_envs_are_refused_by_name(run_dir, tmp_path):
    with pytest.raises(ConfigError, match="neither 'baseline' nor a run directory"):
        policies.load_policy(str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match="needs env="):
        policies.load_policy("baseline")
    assert policies.load_policy(run_dir, tcgjax.make("deployment", max_steps=31))  # same layouts
    with pytest.raises(ConfigError, match="trained on 'deployment'"):
        policies.load_policy(run_dir, tcgjax.make("duel"))
    with pytest.raises(ConfigError, match="trained on 'pokemon'"):
        policies.load_policy("baseline", tcgjax.make("pokemon", encoding="v1"))
    with pytest.raises(ConfigError, match="expected 'baseline' or a run directory"):
        policies.load_policy(5)


def test_gymnasium_takes_a_baseline_or_a_run_directory_as_opponent(run_dir):
    from tcgjax.wrappers.gymnasium import TcgjaxEnv

    for opponent in ("baseline", run_dir):
        env = TcgjaxEnv("deployment", opponent=opponent, agent_seat=1)
        observation, info = env.reset(seed=0)
        assert info["action_mask"].any()
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert info["error"] == 0
    with pytest.raises(ConfigError, match="must be 'random', 'heuristic', 'baseline'"):
        TcgjaxEnv("deployment", opponent="nobody")


def test_the_digest_lists_exactly_the_baseline_files():
    """The three files, plus ``card_ids.json`` where a baseline has one (the digest covers it)."""
    for env_id in policies.baselines():
        folder = os.path.join(policies.BASELINE_DIR, env_id)
        ids = ["card_ids.json"] if os.path.exists(os.path.join(folder, "card_ids.json")) else []
        with open(os.path.join(folder, "digest.json")) as fh:
            assert sorted(json.load(fh)) == sorted(
                ["config.yaml", "eval.txt", "params.msgpack", *ids]
            )
        assert sorted(os.listdir(folder)) == sorted(
            ["config.yaml", "digest.json", "eval.txt", "params.msgpack", *ids]
        )


def test_card_embedding_rows_follow_their_card_ids_when_the_pool_grows():
    """The Digimon baseline's card embedding was trained on ST-1 and ST-2 (its ``card_ids.json``);
    the card file has since grown, with reprints (BT1-...) that sort before ST1-01. Each trained
    row lands at its card's index in today's registry; every other card gets a zero row."""
    import flax.serialization

    folder = os.path.join(policies.BASELINE_DIR, "digimon")
    with open(os.path.join(folder, "card_ids.json")) as fh:
        trained = json.load(fh)
    with open(os.path.join(folder, "params.msgpack"), "rb") as fh:
        stored = flax.serialization.msgpack_restore(fh.read())["params"]["card_embedding"]
    _, params, _, env = policies._from_baseline("digimon")
    table = np.asarray(params["params"]["card_embedding"]["embedding"])
    ids = env.rules.cards.ids
    assert ids.index("ST1-01") != trained.index("ST1-01"), "the ids moved: the case under test"
    assert table.shape[0] == len(ids) > len(trained)
    for k, cid in enumerate(trained):
        np.testing.assert_array_equal(table[ids.index(cid)], stored["embedding"][k])
    unseen = [i for i, cid in enumerate(ids) if cid not in trained]
    assert unseen and not np.any(table[unseen])


def test_a_card_ids_file_that_does_not_fit_is_refused(tmp_path):
    env = tcgjax.make("digimon")
    template = {
        "params": {"card_embedding": {"embedding": np.zeros((len(env.rules.cards.ids), 4))}}
    }
    params = {"params": {"card_embedding": {"embedding": np.ones((3, 4))}}}
    with pytest.raises(ConfigError, match="2 card ids for a card embedding of"):
        policies._card_tables_by_id(template, params, ["", "ST1-01"], env, "card_ids.json")
    with pytest.raises(ConfigError, match="expected a JSON list of card ids"):
        policies._card_tables_by_id(template, params, {"a": 1}, env, "card_ids.json")


def _card_env(ids):
    """What ``_card_tables_by_id`` reads of an env: its card registry's ids."""
    from types import SimpleNamespace

    return SimpleNamespace(rules=SimpleNamespace(cards=SimpleNamespace(ids=list(ids))))


def _tables(embedding, dense):
    return {"params": {"card_embedding": {"embedding": embedding}, "dense": {"kernel": dense}}}


def test_card_rows_move_by_id_and_cards_no_longer_in_the_file_are_dropped():
    """Trained rows for B, GONE, A (in that order) into a registry A, B, C: A's and B's rows land
    at their new indices, GONE's is dropped, C gets zeros; a table outside the card embedding is
    left as it was."""
    env = _card_env(["A", "B", "C"])
    template = _tables(np.zeros((3, 2)), np.zeros((2, 2)))
    trained = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    dense = np.arange(4.0).reshape(2, 2)
    out = policies._card_tables_by_id(
        template, _tables(trained, dense), ["B", "GONE", "A"], env, "ids.json"
    )
    np.testing.assert_array_equal(
        out["params"]["card_embedding"]["embedding"], [[3.0, 3.0], [1.0, 1.0], [0.0, 0.0]]
    )
    np.testing.assert_array_equal(out["params"]["dense"]["kernel"], dense)


def test_without_card_ids_a_smaller_table_stands_for_the_first_cards():
    """No ``card_ids.json``: a table of fewer rows (a card file grown by appending) fills the
    first rows, the new cards get zeros; a table of as many rows or more, of another width, or
    not a matrix, is left for the caller's shape check to refuse. (Four cards, two columns: rows
    and width apart.)"""
    env = _card_env(["A", "B", "C", "D"])
    template = _tables(np.zeros((4, 2)), np.zeros((2, 2)))
    dense = np.zeros((2, 2))
    grown = policies._card_tables_by_id(
        template, _tables(np.ones((3, 2)), dense), None, env, "ids.json"
    )
    np.testing.assert_array_equal(
        grown["params"]["card_embedding"]["embedding"], [[1.0, 1.0]] * 3 + [[0.0, 0.0]]
    )
    for shape in ((4, 2), (5, 2), (3, 3), (3,)):
        same = policies._card_tables_by_id(
            template, _tables(np.ones(shape), dense), None, env, "ids.json"
        )
        assert same["params"]["card_embedding"]["embedding"].shape == shape
    with pytest.raises(ConfigError, match="2 card ids for a card embedding of \\[2, 3\\]"):
        policies._card_tables_by_id(
            template, _tables(np.ones((2, 3)), dense), ["A", "B"], env, "ids.json"
        )


def test_a_run_s_checkpoints_are_rated_against_the_scripted_players(run_dir, capsys):
    """``python -m tcgjax.train.ratings``: every checkpoint (sampled play) and the named players
    in one round robin; the table, the pairs and the plot written into the run directory."""
    from tcgjax.train import ratings

    code = ratings.main([run_dir, "--games", "8", "--players", "random", "heuristic"])
    assert code == 0
    printed = capsys.readouterr().out
    with open(os.path.join(run_dir, "ratings.json")) as fh:
        written = json.load(fh)
    players = {row["player"] for row in written["ratings"]}
    assert players == {"update 0", "update 2", "update 4", "random", "heuristic"}
    assert len(written["pairs"]) == 10 and all(p["games"] == 8 for p in written["pairs"])
    assert os.path.getsize(os.path.join(run_dir, "ratings.png")) > 0
    table = open(os.path.join(run_dir, "ratings.md")).read()
    assert table.startswith("# Ratings: deployment, 8 games a pair") and "| 1 |" in printed
    assert printed in table, "the printed table is the one written"
    # Chosen steps, and another run's latest checkpoint named by its folder (here the same run).
    args = [run_dir, "--games", "8", "--steps", "0", "4", "--players", "random", "--runs", run_dir]
    assert ratings.main([*args, "--out", os.path.join(run_dir, "more")]) == 0
    with open(os.path.join(run_dir, "more", "ratings.json")) as fh:
        more = {row["player"] for row in json.load(fh)["ratings"]}
    assert more == {"update 0", "update 4", os.path.basename(run_dir), "random"}
    capsys.readouterr()
    assert ratings.main([run_dir, "--players", "champion"]) == 2
    assert "unknown player 'champion'" in capsys.readouterr().err
