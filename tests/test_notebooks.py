"""Every notebook in ``notebooks/`` runs top to bottom (with ``TCGJAX_NOTEBOOK_SMALL=1``: small
batches, few updates) in a fresh Jupyter kernel, and is the file ``tools/make_notebooks.py``
writes (edit the cells there). A broken notebook fails CI."""

import glob
import json
import os
import subprocess
import sys

import nbformat
import pytest
from nbclient import NotebookClient

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOKS = sorted(glob.glob(os.path.join(REPO, "notebooks", "*.ipynb")))


def test_there_is_a_notebook_for_each_use_the_readme_promises():
    names = [os.path.basename(p) for p in NOTEBOOKS]
    assert names[0] == "01_quickstart.ipynb" and len(names) == 8
    for game in ("duel", "deployment", "digimon", "pokemon"):
        assert any(f"tour_{game}" in n for n in names), game
    assert any("training" in n for n in names) and any("search" in n for n in names)


def test_the_committed_notebooks_are_what_the_generator_writes(tmp_path):
    script = os.path.join(REPO, "tools", "make_notebooks.py")
    subprocess.run([sys.executable, script, str(tmp_path)], check=True, cwd=REPO)
    assert sorted(os.listdir(tmp_path)) == [os.path.basename(p) for p in NOTEBOOKS]
    for path in NOTEBOOKS:
        fresh = (tmp_path / os.path.basename(path)).read_text()
        assert fresh == open(path).read(), f"{path} differs from tools/make_notebooks.py: run it"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[os.path.basename(p) for p in NOTEBOOKS])
def test_the_notebook_runs(path, monkeypatch):
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0].source
    assert "colab.research.google.com" in first and os.path.basename(path) in first
    assert 'if "google.colab" in sys.modules' in nb.cells[1].source
    monkeypatch.setenv("TCGJAX_NOTEBOOK_SMALL", "1")
    monkeypatch.setenv("PYTHONPATH", REPO)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    if os.environ.get("TCGJAX_TEST_CACHE", "1") != "0":
        # The kernel shares the suite's persistent compilation cache (tests/conftest.py): the
        # tours compile the same programs as the game tests (init, step, finalize), once.
        monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", os.path.join(REPO, ".jax_cache"))
        monkeypatch.setenv("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.5")
        monkeypatch.setenv("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": REPO}}
    )
    client.execute()
    errors = [
        output
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors, json.dumps(errors)[:2000]
    shown = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert shown, f"{path}: ran but showed nothing"
