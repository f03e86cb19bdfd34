"""The README quickstart and the notebooks run as written."""

import json
import os
import re

ROOT = os.path.join(os.path.dirname(__file__), "..")


def test_readme_shows_the_two_commands_first_and_quickstart_runs(capsys):
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    assert text.index("make test") < text.index("## Quickstart")
    assert text.index("make train") < text.index("## Quickstart")
    code = re.search(r"## Quickstart\n\n```python\n(.*?)```", text, re.S).group(1)
    assert len([line for line in code.splitlines() if line.strip()]) <= 10
    exec(compile(code, "README quickstart", "exec"), {})
    out = capsys.readouterr().out
    assert "(1024, 56)" in out and "games over" in out


def test_notebooks_run(capsys):
    folder = os.path.join(ROOT, "notebooks")
    notebooks = sorted(f for f in os.listdir(folder) if f.endswith(".ipynb"))
    assert notebooks
    for name in notebooks:
        nb = json.load(open(os.path.join(folder, name), encoding="utf-8"))
        namespace: dict = {}
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            # Shell lines (Colab installs) are for Colab only.
            source = "\n".join(
                line for line in source.splitlines() if not line.startswith(("!", "%"))
            )
            exec(compile(source, name, "exec"), namespace)
    assert "steps/s" in capsys.readouterr().out
