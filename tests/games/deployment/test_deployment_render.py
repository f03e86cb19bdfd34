"""The deployment picture (``env.render``): SVG and text of one game, on explicit positions.

Positions are played with ``encode_deploy`` and named actions of the small scenario (walls at
(3, 1) and (3, 4)); the finished games are built by hand and checked with the rules' invariants.
"""

import math
import xml.etree.ElementTree as ET

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.core import render as core_render
from tcgjax.games.deployment import encode_deploy, hexgrid
from tcgjax.games.deployment import render as dr
from tcgjax.games.deployment import rules as R

KEY = jax.random.PRNGKey(0)
NS = "{http://www.w3.org/2000/svg}"
PLACEMENTS = (
    ("blue_tank", 1, 3),
    ("blue_infantry", 0, 0),
    ("blue_sniper", 1, 5),
    ("red_sniper", 6, 4),
    ("red_tank", 5, 0),
    ("red_infantry", 5, 5),
)


@pytest.fixture(scope="module")
def positions(deployment_env, deployment_step):
    """Named states of the small scenario: ``init``; ``half`` (player 1's three units placed);
    ``skirmish`` (everything placed, then blue_infantry moved (0, 0) -> (1, 0), end of movement,
    blue_sniper shot red_infantry to 2/3 HP); ``won`` (player 1 won by elimination, built by
    hand from ``skirmish``); ``deadlock`` (a deadlocked deployment, by hand)."""
    env, step = deployment_env, deployment_step
    layout = env.action_layout
    out = {"init": jax.jit(env.init)(KEY)}
    state = out["init"]
    for k, (uid, col, row) in enumerate(PLACEMENTS):
        state = step(state, encode_deploy(env, state, uid, col, row), KEY)
        assert int(state.error) == 0
        if k == 2:
            out["half"] = state
    sniper, target = env.scenario.units_by_player[0].index("blue_sniper"), 0  # red_infantry
    for action in (
        layout.start("move") + 0 * 6 + 2,  # blue_infantry SE: (0, 0) -> (1, 0)
        layout.start("end_phase"),
        layout.start("shoot") + sniper * env.scenario.max_unit_slots + target,
    ):
        state = step(state, action, KEY)
        assert int(state.error) == 0, env.error_codes.name(int(state.error))
    out["skirmish"] = state

    # Player 1 eliminates player 2: every red unit at 0 HP, the damage booked on blue_tank.
    game = jax.tree.map(np.asarray, state.game)
    s = env.scenario
    reds = [s.unit_index(u) for u in s.units_by_player[1]]
    hp, dealt = game.hp.copy(), game.damage_dealt.copy()
    dealt[s.unit_index("blue_tank")] += int(hp[reds].sum())
    hp[reds] = 0
    won = game.replace(
        hp=hp,
        damage_dealt=dealt,
        outcome=np.int8(R.PLAYER1_WON),
        end_reason=np.int8(R.END_ELIMINATION),
    )
    env.rules.validate(won)
    out["won"] = state.replace(game=jax.tree.map(jnp.asarray, won), terminated=jnp.bool_(True))

    init_game = out["init"].game
    dead = init_game.replace(outcome=jnp.int8(R.DEADLOCK), end_reason=jnp.int8(R.END_DEADLOCK))
    env.rules.validate(jax.tree.map(np.asarray, dead))
    out["deadlock"] = out["init"].replace(game=dead, terminated=jnp.bool_(True))
    return out


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    return root


def tip(element: ET.Element) -> str:
    title = element.find(f"{NS}title")
    return "" if title is None else title.text


def unit_circles(svg: str) -> list[ET.Element]:
    return list(parse(svg).iter(f"{NS}circle"))


def hex_polygon(svg: str, col: int, row: int) -> ET.Element:
    found = [
        p for p in parse(svg).iter(f"{NS}polygon") if tip(p).startswith(f"hex ({col}, {row}):")
    ]
    assert len(found) == 1
    return found[0]


def unit_line(text: str, uid: str) -> str:
    (line,) = [ln for ln in text.splitlines() if f" {uid} " in ln and ln.startswith("  ")]
    return line


def map_char(text: str, cols: int, col: int, row: int) -> str:
    """The character the map shows at hex (col, row): two lines per row (even columns, then odd
    ones), each hex two characters apart after a 4-character row label."""
    lines = text.splitlines()
    header = lines.index("    " + " ".join(str(c % 10) for c in range(cols)))
    line = lines[header + 1 + 2 * row + (col & 1)]
    return line[4 + 2 * col] if len(line) > 4 + 2 * col else " "


# --------------------------------------------------------------------------------------------------
# SVG


@pytest.mark.parametrize("name", ["init", "half", "skirmish", "won", "deadlock"])
def test_svg_parses_and_shows_one_circle_per_unit_on_the_board(deployment_env, positions, name):
    env = deployment_env
    state = positions[name]
    picture = env.render(state)
    root = parse(picture.svg)
    assert root.find(f"{NS}title").text == picture.text.splitlines()[0]
    game = jax.tree.map(np.asarray, state.game)
    on_board = [
        g
        for g, uid in enumerate(env.scenario.unit_ids)
        if uid and game.col[g] >= 0 and game.hp[g] > 0
    ]
    expected = {"init": 0, "half": 3, "skirmish": 6, "won": 3, "deadlock": 0}[name]
    assert len(on_board) == expected
    circles = unit_circles(picture.svg)
    assert len(circles) == expected
    for g in on_board:
        uid = env.scenario.unit_ids[g]
        (circle,) = [c for c in circles if f" {uid} " in tip(c)]
        x, y = dr.hex_center(int(game.col[g]), int(game.row[g]))
        assert (float(circle.get("cx")), float(circle.get("cy"))) == (x, y)
        assert f"({int(game.col[g])}, {int(game.row[g])})" in tip(circle)
        assert circle.get("fill") == core_render.PLAYER_COLORS[g // env.scenario.max_unit_slots]


def test_hex_centres_follow_the_odd_q_geometry():
    """Every neighbour of hexgrid lies one hex height (sqrt(3) * size) away on the drawing, odd
    columns half a hex lower than even ones."""
    step = math.sqrt(3) * dr.HEX_SIZE
    for col in range(4):
        for row in range(3):
            x, y = dr.hex_center(col, row)
            for d in range(6):
                nx, ny = dr.hex_center(*hexgrid.neighbour(col, row, d))
                assert math.hypot(nx - x, ny - y) == pytest.approx(step, abs=0.15)
    assert dr.hex_center(1, 0)[1] - dr.hex_center(0, 0)[1] == pytest.approx(step / 2, abs=0.1)


def test_unit_hp_and_marks_in_text_and_tooltip(deployment_env, positions):
    picture = deployment_env.render(positions["skirmish"])
    circles = unit_circles(picture.svg)
    (red_infantry,) = [c for c in circles if " red_infantry " in tip(c)]
    assert "(5, 5)" in tip(red_infantry) and "hp 2/3" in tip(red_infantry)
    line = unit_line(picture.text, "red_infantry")
    assert "player 2" in line and "(5, 5)" in line and "hp 2/3" in line
    # This turn blue_infantry moved one of its two steps and blue_sniper shot.
    assert unit_line(picture.text, "blue_infantry").endswith("[moved 1/2]")
    assert unit_line(picture.text, "blue_sniper").endswith("[shot]")
    assert "[" not in unit_line(picture.text, "blue_tank")
    (sniper,) = [c for c in circles if " blue_sniper " in tip(c)]
    assert tip(sniper).endswith("shot; placed 3.")
    assert "moved 1/2" in tip(next(c for c in circles if " blue_infantry " in tip(c)))
    labels = [e.text for e in parse(picture.svg).iter(f"{NS}text")]
    assert labels.count("M") == 1 and labels.count("S") == 1  # on blue_infantry, blue_sniper
    assert labels.count("2/3") == 1  # red_infantry's HP on its circle


def test_walls_pools_and_ground_are_drawn_as_such(deployment_env, positions):
    svg = deployment_env.render(positions["init"]).svg
    for col, row in deployment_env.scenario.walls:  # (3, 1) and (3, 4)
        wall = hex_polygon(svg, col, row)
        assert wall.get("fill") == dr.WALL_FILL
        assert tip(wall) == f"hex ({col}, {row}): wall"
    ground = hex_polygon(svg, 3, 2)
    assert ground.get("fill") == dr.GROUND_FILL and tip(ground).endswith("ground")
    assert tip(hex_polygon(svg, 0, 0)).endswith("player 1 deployment pool")
    assert tip(hex_polygon(svg, 6, 5)).endswith("player 2 deployment pool")
    polygons = list(parse(svg).iter(f"{NS}polygon"))
    assert len(polygons) == deployment_env.scenario.num_hexes
    assert sum(p.get("fill") == dr.WALL_FILL for p in polygons) == 2


def test_panel_lists_units_still_to_deploy(deployment_env, positions):
    picture = deployment_env.render(positions["half"])
    rects = [r for r in parse(picture.svg).iter(f"{NS}rect") if tip(r)]
    to_deploy = sorted(tip(r).split()[1] for r in rects if "to deploy" in tip(r))
    assert to_deploy == ["red_infantry", "red_sniper", "red_tank"]
    assert "player 2: 3 to deploy" in picture.svg and "player 1: all deployed" in picture.svg
    assert "to deploy" in unit_line(picture.text, "red_tank")
    assert "(1, 3)" in unit_line(picture.text, "blue_tank")


# --------------------------------------------------------------------------------------------------
# Text


def test_text_map_has_each_unit_letter_on_its_hex(deployment_env, positions):
    env = deployment_env
    text = env.render(positions["skirmish"]).text
    cols = env.scenario.cols
    # Player 1 upper case, player 2 lower case, by unit id: A blue_infantry, B blue_sniper, ...
    expected = {
        (1, 0): "A",  # blue_infantry after its move
        (1, 5): "B",
        (1, 3): "C",
        (5, 5): "a",
        (6, 4): "b",
        (5, 0): "c",
        (3, 1): "#",
        (3, 4): "#",
        (0, 0): "1",  # blue_infantry's starting hex, empty again: player 1's pool
        (6, 5): "2",
        (2, 2): ".",
    }
    for (col, row), char in expected.items():
        assert map_char(text, cols, col, row) == char, (col, row)
    assert "legend: player 1: A blue_infantry, B blue_sniper, C blue_tank;" in text


def test_header_and_outcome_lines(deployment_env, positions):
    header = deployment_env.render(positions["init"]).text.splitlines()[:3]
    assert header == [
        "deployment [small]: deployment phase, 0/6 units placed",
        "player 1 to deploy; step 0",
        "hp on the board: player 1 0, player 2 0 (the higher wins at the turn limit)",
    ]
    header = deployment_env.render(positions["skirmish"]).text.splitlines()[:3]
    assert header[0] == "deployment [small]: turn 1/8, shooting phase"
    assert header[1] == "player 1 to act; step 9"
    assert header[2].startswith("hp on the board: player 1 10, player 2 9 ")

    won = deployment_env.render(positions["won"])
    assert won.text.splitlines()[1] == "game over: player 1 won (elimination); step 9"
    assert "game over: player 1 won (elimination); step 9" in won.svg
    assert "removed at (5, 5)" in unit_line(won.text, "red_infantry")
    assert "hp 0/3" in unit_line(won.text, "red_infantry")
    assert map_char(won.text, deployment_env.scenario.cols, 5, 5) == "2"  # no unit left there

    deadlock = deployment_env.render(positions["deadlock"]).text.splitlines()[1]
    assert deadlock == "game over: deadlock (no unit can be placed); step 0"


def test_shared_pool_hexes_are_marked(scenario_dict):
    env = tcgjax.make("deployment", scenario=scenario_dict("overlap"))
    picture = env.render(jax.jit(env.init)(KEY))
    shared = set(env.scenario.pools[0]) & set(env.scenario.pools[1])
    assert shared
    for col, row in sorted(shared):
        if (col, row) not in env.scenario.walls:
            assert map_char(picture.text, env.scenario.cols, col, row) == "+"
            assert tip(hex_polygon(picture.svg, col, row)).endswith("pool of both players")
    assert picture.text.startswith("deployment [custom]:")  # a dict scenario has no name


# --------------------------------------------------------------------------------------------------
# Arguments, viewer, display, determinism


def test_render_rejects_a_batch(deployment_env, positions):
    batch = jax.tree.map(lambda *xs: jnp.stack(xs), positions["init"], positions["half"])
    with pytest.raises(ValueError, match="one game"):
        deployment_env.render(batch)


@pytest.mark.parametrize("viewer", [2, -1, True, 0.0, "0"])
def test_render_rejects_a_viewer_out_of_range(deployment_env, positions, viewer):
    with pytest.raises(ValueError, match="viewer"):
        deployment_env.render(positions["init"], viewer=viewer)


def test_viewer_only_changes_the_title(deployment_env, positions):
    """Nothing is hidden in this game: a viewer sees every unit of both sides."""
    state = positions["skirmish"]
    everyone = deployment_env.render(state)
    for viewer in (0, 1):
        seen = deployment_env.render(state, viewer=viewer)
        lines, base = seen.text.splitlines(), everyone.text.splitlines()
        assert lines[0] == base[0] + f"; viewer: player {viewer + 1}"
        assert lines[1:] == base[1:]
        assert len(unit_circles(seen.svg)) == 6
        assert f"player {viewer + 1} (viewer)" in seen.svg


def test_repr_svg_is_the_rendered_svg(deployment_env, positions, monkeypatch):
    assert type(deployment_env).game_state_type is R.DeploymentState
    # Envs of other scenarios made by other tests may still be alive: start from a clean registry,
    # in which constructing an env registers it (Env.__init__ reads game_state_type). A new
    # object: tcgjax.make would return the live deployment_env, registered before the reset.
    monkeypatch.setattr(core_render, "_DISPLAY", {})
    assert positions["skirmish"]._repr_svg_() is None
    env = type(deployment_env)(**deployment_env.options)
    assert env is not deployment_env
    for name in ("init", "skirmish", "won"):
        state = positions[name]
        assert state._repr_svg_() == env.render(state).svg == deployment_env.render(state).svg


def test_output_is_deterministic_and_saves(deployment_env, positions, tmp_path):
    state = positions["skirmish"]
    first = deployment_env.render(state)
    again = deployment_env.render(jax.device_get(state))
    assert first == again
    first.save(tmp_path / "board.svg")
    first.save(tmp_path / "board.txt")
    assert (tmp_path / "board.svg").read_text(encoding="utf-8") == first.svg
    assert (tmp_path / "board.txt").read_text(encoding="utf-8") == first.text + "\n"
    assert str(first) == first.text
    assert "nan" not in first.svg and "e-0" not in first.svg
