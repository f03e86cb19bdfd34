"""The README quickstart runs as written (the notebooks: tests/test_notebooks.py, in a kernel)."""

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
