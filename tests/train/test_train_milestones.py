"""When training first beats the heuristic (``milestones.json``), and the evaluation's baseline row
(``eval_baseline``): the GPU configs' targets are read from these (issue 37 point 4)."""

import json
import os

import pytest

from tcgjax import ConfigError
from tcgjax.train import logging_utils, run


def _heuristic_row(update, episodes, wins, losses, wall_s):
    return {
        "kind": "train",
        "update": update,
        "env_steps": 1000 * update,
        "wall_s": wall_s,
        "episodes": episodes,
        "learner_wins": wins,
        "learner_losses": losses,
    }


def _league_row(update, games, rate):
    return {
        "kind": "train",
        "update": update,
        "env_steps": 1000 * update,
        "wall_s": 10.0 * update,
        "league_games_vs_heuristic": games,
        "league_win_rate_vs_heuristic": rate,
    }


def test_a_lucky_update_of_few_games_does_not_count_the_pool_of_enough_games_does():
    rows = [
        _heuristic_row(1, 100, 40, 60, 5.0),
        _heuristic_row(2, 100, 50, 50, 6.0),
        _heuristic_row(3, 10, 10, 0, 7.0),  # 100% of 10 games; updates 1-3 hold 210 < 256 games
        _heuristic_row(4, 100, 60, 40, 8.0),  # 1-4 (2-4 hold 210 only): 160 / 310
        _heuristic_row(5, 100, 90, 10, 9.0),  # 2-5 (3-5 hold 210 only): 210 / 310
        _heuristic_row(6, 300, 250, 50, 10.0),  # 6 alone holds 300: 250 / 300
        {"kind": "eval", "update": 6, "env_steps": 6000, "vs": {}},  # not a train row: skipped
    ]
    found = logging_utils.heuristic_milestones(rows, "heuristic", thresholds=(0.6, 0.8))
    assert found == {
        "0.6": {"update": 5, "env_steps": 5000, "wall_s": 9.0, "win_rate": 210 / 310},
        "0.8": {"update": 6, "env_steps": 6000, "wall_s": 10.0, "win_rate": 250 / 300},
    }


def test_draws_count_half_and_a_threshold_never_reached_is_none():
    rows = [_heuristic_row(1, 300, 120, 60, 1.0)]  # 120 wins, 120 draws, 60 losses: 0.6 exactly
    found = logging_utils.heuristic_milestones(rows, "heuristic")
    assert found["0.6"] == {"update": 1, "env_steps": 1000, "wall_s": 1.0, "win_rate": 0.6}
    assert found["0.8"] is None
    text = logging_utils.format_milestones(found)
    assert text == ("training vs the heuristic: >= 60% at 1 s (1,000 steps); >= 80%: not reached")


def test_a_league_reads_its_games_against_the_heuristic_and_other_opponents_have_none():
    rows = [_league_row(1, 200, 0.9), _league_row(2, 0, 0.0), _league_row(3, 100, 0.5)]
    found = logging_utils.heuristic_milestones(rows, "league", min_games=256)
    # update 2 has no games: still 200 < 256; update 3 pools 300 games, 180 + 50 = 230 points.
    assert found["0.6"]["update"] == 3
    assert found["0.6"]["win_rate"] == pytest.approx(230 / 300)
    assert found["0.8"] is None
    assert logging_utils.heuristic_milestones(rows, "self") is None
    # A league whose heuristic share is 0 never met it: nothing to report, not "not reached".
    assert logging_utils.heuristic_milestones([_league_row(1, 0, 0.0)], "league") is None
    assert logging_utils.heuristic_milestones([_heuristic_row(1, 9, 9, 0, 1.0)], "mixed") is None


DUEL_TINY = [
    "num_envs=16",
    "num_steps=8",
    "hidden_sizes=[32]",
    "num_minibatches=2",
    "update_epochs=1",
    "total_timesteps=256",  # 2 updates
    "eval_games=8",
    "opponent=heuristic",
]


def test_eval_baseline_adds_the_shipped_agent_and_the_run_writes_its_milestones(tmp_path, capsys):
    runs = tmp_path / "runs"
    run_dir = run.main(["--env", "duel", f"run_dir={runs}", "eval_baseline=true", *DUEL_TINY])
    out = capsys.readouterr().out
    (final,) = [
        r
        for r in logging_utils.read_jsonl(os.path.join(run_dir, "metrics.jsonl"))
        if r["kind"] == "eval"
    ]
    assert list(final["vs"]) == ["random", "heuristic", "checkpoint", "baseline"]
    assert final["vs"]["baseline"]["games"] == 8
    with open(os.path.join(run_dir, "eval.txt")) as fh:
        assert any(line.startswith("baseline ") for line in fh)
    with open(os.path.join(run_dir, "milestones.json")) as fh:
        milestones = json.load(fh)
    assert set(milestones) == {"0.6", "0.8"}
    assert "training vs the heuristic: >= 60%" in out

    # benchmarks/training_run.py reads the same run into a RESULTS.md row.
    bench = _training_run_module()
    summary = bench.summarize(run_dir)
    assert summary["env_steps"] == 256
    assert summary["final"] == {name: r["win_rate"] for name, r in final["vs"].items()}
    row = bench.format_row(run_dir, summary, 42.0, "a note")
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    assert cells[3:8] == ["duel", os.path.basename(run_dir), "16", "42", "256"]
    finals = [f"{final['vs'][n]['win_rate']:.1%}" for n in ("random", "heuristic", "baseline")]
    assert cells[11] == " / ".join(finals)
    assert cells[12] == "a note"


def _training_run_module():
    import importlib.util

    path = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "training_run.py")
    spec = importlib.util.spec_from_file_location("training_run", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_training_row_goes_under_its_section_or_starts_it(tmp_path):
    bench = _training_run_module()
    path = tmp_path / "RESULTS.md"
    text = "# Results\n\n## Other\n\n| a |\n|---|\n| 1 |\n"
    path.write_text(text)
    bench.record(str(path), "| row 1 |")
    header = "| " + " | ".join(bench.COLUMNS) + " |\n" + "|---" * len(bench.COLUMNS) + "|\n"
    first = path.read_text()
    assert first == text + "\n" + bench.TITLE + "\n\n" + header + "| row 1 |\n"
    path.write_text(first + "\nA paragraph.\n\n## Later\n\n| b |\n")
    bench.record(str(path), "| row 2 |")
    second = path.read_text()
    assert "| row 1 |\n| row 2 |\n\nA paragraph.\n\n## Later\n\n| b |\n" in second
    assert second.count("| row 2 |") == 1


def test_eval_baseline_for_another_observation_is_refused_with_nothing_written(tmp_path):
    # The shipped Pokémon baseline reads the v2.1 encoding; a v1 run cannot play it.
    runs = tmp_path / "runs"
    overrides = ["eval_baseline=true", "env_options.encoding=v1", *DUEL_TINY]
    with pytest.raises(ConfigError, match=r"config key 'eval_baseline' = True: .*observation"):
        run.main(["--env", "pokemon", f"run_dir={runs}", *overrides])
    assert not runs.exists() or not os.listdir(runs)


def test_an_extra_evaluation_row_may_not_replace_a_standard_one():
    import jax

    import tcgjax
    from tcgjax.train import evaluate

    env = tcgjax.make("duel")
    with pytest.raises(ValueError, match="others='heuristic' is already a standard row"):
        evaluate.evaluation_table(
            env, None, None, jax.random.key(0), 8, others={"heuristic": evaluate.random_policy(env)}
        )
