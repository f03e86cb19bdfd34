"""The deployment README's tables are the code's (regenerate with tools/gen_deployment_readme.py)."""

import importlib.util
import os

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")


def test_readme_tables_match_code():
    spec = importlib.util.spec_from_file_location(
        "gen_deployment_readme", os.path.join(ROOT, "tools", "gen_deployment_readme.py")
    )
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    with open(gen.README, encoding="utf-8") as fh:
        text = fh.read()
    assert gen.render(text) == text, "README tables are stale: run tools/gen_deployment_readme.py"
    for table in gen.tables().values():
        assert table in text


def test_wall_plane_is_static_and_exact(deployment_env):
    env = deployment_env
    walls = {env.scenario.flat(c, r) for c, r in env.scenario.walls}
    plane = env.wall_plane.tolist()
    assert [h for h, v in enumerate(plane) if v == 1.0] == sorted(walls)
    assert sum(plane) == len(walls) == 2
