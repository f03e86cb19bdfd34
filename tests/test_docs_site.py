"""The documentation site (mkdocs.yml, docs/) builds with warnings as errors, and what it shows is
what the code and the README say: every page of the nav is built, the API reference holds the
docstring of ``tcgjax.make``, and the quickstart on the home page is the README's."""

import ast
import html
import os
import re
import subprocess
import sys

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _nav_pages(nav) -> list[str]:
    """The Markdown files of mkdocs.yml's nav, in order (entries are a path or {title: nav})."""
    pages = []
    for entry in nav:
        values = entry.values() if isinstance(entry, dict) else [entry]
        for value in values:
            pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def _html_path(site, page: str) -> str:
    """Where mkdocs writes ``page`` with directory URLs: a/b.md -> a/b/index.html."""
    stem = page[: -len(".md")]
    if os.path.basename(stem) == "index":
        return os.path.join(site, stem + ".html")
    return os.path.join(site, stem, "index.html")


def _text(markup: str) -> str:
    """Visible text of HTML (tags dropped), whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", markup)).split())


def test_the_site_builds_strictly_and_shows_the_code_and_readme(tmp_path):
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{build.stderr}\n{build.stdout}"

    with open(os.path.join(REPO, "mkdocs.yml"), encoding="utf-8") as fh:
        config = yaml.safe_load(fh)
    pages = _nav_pages(config["nav"])
    assert {"index.md", "api.md", "decisions.md", "research.md"} <= set(pages)
    for page in pages:
        assert os.path.isfile(os.path.join(REPO, "docs", page)), f"nav names a missing {page}"
        assert os.path.isfile(_html_path(site, page)), f"{page} was not built"

    # The API reference renders tcgjax.make's docstring, read from the source (not a copy).
    module = ast.parse(open(os.path.join(REPO, "tcgjax", "registry.py"), encoding="utf-8").read())
    make = next(n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == "make")
    summary = ast.get_docstring(make).split("\n\n")[0].replace("``", "")
    api = _text(open(_html_path(site, "api.md"), encoding="utf-8").read())
    assert " ".join(summary.split()) in api
    assert "tcgjax.make" in api and "ConfigError" in api

    # The home page's quickstart is the README's, character for character.
    readme = open(os.path.join(REPO, "README.md"), encoding="utf-8").read()
    quickstart = re.search(r"## Quickstart\n\n```python\n(.*?)```", readme, re.S).group(1)
    home = open(_html_path(site, "index.md"), encoding="utf-8").read()
    section = home[home.index('id="quickstart"') :]
    code = re.search(r"<pre[^>]*>.*?<code[^>]*>(.*?)</code>", section, re.S).group(1)
    assert html.unescape(re.sub(r"<[^>]+>", "", code)).rstrip("\n") == quickstart.rstrip("\n")
