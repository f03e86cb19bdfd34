"""Regenerate the code-derived tables of tcgjax/games/deployment/README.md (between markers).

Run: .venv/bin/python tools/gen_deployment_readme.py ; tests check the README matches the code.
"""

import os
import re

import tcgjax

README = os.path.join(os.path.dirname(__file__), "..", "tcgjax", "games", "deployment", "README.md")


def tables() -> dict[str, str]:
    env = tcgjax.make("deployment")
    codes = ["| code | name | meaning |", "|---|---|---|"]
    codes += [f"| {c} | `{e.name}` | {e.message} |" for c, e in env.error_codes.items() if c >= 32]
    return {
        "ACTIONS": env.action_layout.table(),
        "OBSERVATION": env.observation_layout.table(),
        "ERRORS": "\n".join(codes),
    }


def render(text: str) -> str:
    for name, table in tables().items():
        text = re.sub(
            rf"(<!-- BEGIN {name} -->\n)(?:.*?\n)?(<!-- END {name} -->)",
            lambda m, table=table: m.group(1) + table + "\n" + m.group(2),
            text,
            flags=re.S,
        )
    return text


if __name__ == "__main__":
    with open(README, encoding="utf-8") as fh:
        text = fh.read()
    with open(README, "w", encoding="utf-8") as fh:
        fh.write(render(text))
