"""``make train``'s entry point runs end to end on tiny settings."""

from train import run


def test_train_run_main_prints_throughput(capsys):
    run.main(["--env", "duel", "--batch", "8", "--steps", "300"])
    out = capsys.readouterr().out
    assert "duel:" in out and "steps/s" in out
    finished = int(out.split("compile+first run")[1].split("|")[1].split()[0])
    assert finished > 0, "300 random steps of 8 duel games must finish some games"
