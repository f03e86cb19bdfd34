"""``tcgjax.replay.to_html`` opened in a real headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by selenium): the first position renders, stepping forward shows the
next move, the last position shows the result; plus the page's content without a browser."""

import json
import os
import re
import shutil

import jax
import numpy as np
import pytest
import yaml
from browser_testlib import HOW, chromium

import tcgjax
from tcgjax.core.errors import ReplayError
from tcgjax.replay import Recorder, frames, page_data, run, to_html


@pytest.fixture(scope="module")
def duel_replay():
    """A whole duel, recorded from a fixed sequence (the lowest legal id each move, fixed keys)."""
    env = tcgjax.make("duel")
    recorder = Recorder(env, jax.jit(env.init)(jax.random.PRNGKey(3)))
    while not bool(recorder.state.terminated | recorder.state.truncated):
        legal = np.flatnonzero(np.asarray(recorder.state.legal_action_mask))
        recorder.step(int(legal[-1]), jax.random.PRNGKey(len(recorder._commands)))
    return env, json.loads(json.dumps(recorder.export()))


def test_frames_yield_every_position_and_run_returns_the_last(duel_replay):
    env, replay = duel_replay
    positions = list(frames(replay))
    assert len(positions) == len(replay["commandLog"]) + 1
    assert positions[0][2] is None
    assert [a for _, _, a in positions[1:]] == [
        c["payload"]["action"] for c in replay["commandLog"]
    ]
    final = run(replay)
    assert bool(final.terminated) and int(final.step_count) == int(positions[-1][1].step_count)


def _page_positions(path, view=0):
    """The positions the page embeds, as shown in its ``view`` (``tcgjax.replay.page_data``)."""
    return [
        {**{k: v for k, v in p.items() if k != "views"}, **p["views"][view]}
        for p in page_data(path)["positions"]
    ]


def test_the_page_holds_every_position_and_the_result(duel_replay, tmp_path):
    env, replay = duel_replay
    path = to_html(replay, tmp_path / "game.html")
    page = open(path, encoding="utf-8").read()
    data = _page_positions(path)
    assert len(data) == len(replay["commandLog"]) + 1
    assert data[0]["action"] == "start of the game"
    assert data[1]["action"] == replay["commandLog"][0]["payload"]["actionName"]
    # Every move named in its position, by its card (env.describe_action), as recorded.
    assert [p["action"] for p in data[1:]] == [
        c["payload"]["actionName"] for c in replay["commandLog"]
    ]
    move = re.compile(r"(play|cast) \w+ \(hand \d\)|attack with \w+ \(board \d\)|end the turn")
    assert all(move.fullmatch(p["action"]) for p in data[1:]), [p["action"] for p in data]
    assert data[-1]["status"].startswith("game over: player")
    moves = len(replay["commandLog"])
    assert f"<title>tcgjax replay: duel, {moves} moves</title>" in page
    assert "<script src" not in page and "http" not in page.replace("http://www.w3.org", "")


def test_rewards_are_shown_to_four_decimals(tmp_path):
    # A deployment scenario whose placements pay a shaping reward of 0.123456 (float32 on the
    # device): the page shows 0.1235, neither float32's digits nor fewer.
    small = os.path.join(os.path.dirname(tcgjax.__file__), "games/deployment/scenarios/small.yaml")
    with open(small, encoding="utf-8") as f:
        scenario = yaml.safe_load(f)
    scenario["rewards"]["deployment_shaping"] = 0.123456
    env = tcgjax.make("deployment", scenario=scenario)
    recorder = Recorder(env, jax.jit(env.init)(jax.random.PRNGKey(0)))
    legal = np.flatnonzero(np.asarray(recorder.state.legal_action_mask))
    recorder.step(int(legal[0]), jax.random.PRNGKey(1))
    assert float(recorder.state.rewards[0]) != 0.1235  # the device value is float32's
    data = _page_positions(to_html(json.loads(json.dumps(recorder.export())), tmp_path / "d.html"))
    assert data[0]["rewards"] == [0.0, 0.0]
    assert sorted(data[1]["rewards"]) == [-0.1235, 0.1235]


def test_to_html_takes_its_options_by_keyword_only(duel_replay, tmp_path):
    # The replay and the path by name or position; the options only by name, so that a
    # positional slip (an env where a viewer was meant) is refused, not misread.
    env, replay = duel_replay
    path = to_html(replay=replay, path=tmp_path / "named.html", viewer=0)
    assert len(_page_positions(path)) == len(replay["commandLog"]) + 1
    with pytest.raises(TypeError):
        to_html(replay, tmp_path / "positional.html", env)
    assert not (tmp_path / "positional.html").exists()


def test_a_tampered_replay_writes_no_page(duel_replay, tmp_path):
    _, replay = duel_replay
    tampered = json.loads(json.dumps(replay))
    tampered["commandLog"].pop()
    tampered["randomTape"]["values"].pop()
    with pytest.raises(ReplayError, match="final"):
        to_html(tampered, tmp_path / "bad.html")
    assert not (tmp_path / "bad.html").exists()


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


def test_the_viewer_steps_through_the_game_in_a_real_browser(duel_replay, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    _, replay = duel_replay
    path = to_html(replay, tmp_path / "game.html", viewer=0)
    browser.get(f"file://{path}")
    WebDriverWait(browser, 10).until(
        lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    text = lambda element_id: browser.find_element(By.ID, element_id).text  # noqa: E731
    # The first position renders: the board's SVG is in the page, with the game's title.
    board = browser.find_element(By.CSS_SELECTOR, "#board svg")
    assert board.size["width"] > 100 and board.size["height"] > 100
    assert "duel: turn" in board.text
    assert text("position") == "0" and text("action") == "start of the game"
    # Stepping forward (button, then keyboard) shows the next moves.
    browser.find_element(By.ID, "next").click()
    first = replay["commandLog"][0]["payload"]
    assert text("position") == "1" and text("action") == first["actionName"]
    assert text("actor") == f"({first['playerId'].replace('player', 'player ')})"
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    assert text("action") == replay["commandLog"][1]["payload"]["actionName"]
    # The last position shows the result.
    browser.find_element(By.ID, "last").click()
    moves = len(replay["commandLog"])
    assert text("position") == str(moves)
    assert text("status").startswith("game over: player") and "won" in text("status")
    assert text("action") == replay["commandLog"][-1]["payload"]["actionName"]
    # The move list highlights the current position.
    current = browser.find_elements(By.CSS_SELECTOR, "#moves li.current")
    assert len(current) == 1 and current[0].text.endswith(text("action"))


def test_the_view_switch_and_the_card_text_on_hover_in_a_real_browser(
    duel_replay, browser, tmp_path
):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    _, replay = duel_replay
    browser.get(f"file://{to_html(replay, tmp_path / 'views.html')}")
    WebDriverWait(browser, 10).until(
        lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    backs = lambda: browser.find_elements(By.CSS_SELECTOR, '#board use[href="#back"]')  # noqa: E731
    assert backs() == []  # everything face up
    views = Select(browser.find_element(By.ID, "view"))
    assert [o.text for o in views.options] == ["everything", "player 1", "player 2"]
    views.select_by_visible_text("player 1")
    assert len(backs()) > 0  # player 2's hand, face down
    # The card faces are drawn: a placed card has a size on the page.
    card = browser.find_elements(By.CSS_SELECTOR, '#board use:not([href="#back"])')[0]
    assert card.size["width"] > 50 and card.size["height"] > 50
    # Hovering a face-up card shows its text.
    ActionChains(browser).move_to_element(card).perform()
    tip = browser.find_element(By.ID, "tip")
    assert tip.is_displayed() and tip.text.split(" ")[0] in {
        "Goblin",
        "Wolf",
        "Knight",
        "Dragon",
        "Spark",
    }


def test_how_to_install_the_browser_is_named():
    """The failure message names the packages (never a silent skip)."""
    assert "chromium" in HOW and "chromium-driver" in HOW and shutil.which("apt-get") is not None


@pytest.fixture(scope="module")
def digimon_replay():
    """34 moves of a Digimon game from its start (the legal id a fixed key picks, each move)."""
    env = tcgjax.make("digimon")
    recorder = Recorder(env, jax.jit(env.init)(jax.random.PRNGKey(11)))
    rng = np.random.default_rng(0)
    for move in range(34):
        legal = np.flatnonzero(np.asarray(recorder.state.legal_action_mask))
        recorder.step(int(rng.choice(legal)), jax.random.PRNGKey(move))
    return env, json.loads(json.dumps(recorder.export()))


def test_the_page_switches_views_and_keeps_each_card_face_once(duel_replay, tmp_path):
    env, replay = duel_replay
    data = page_data(to_html(replay, tmp_path / "game.html", env=env))
    assert data["views"] == ["everything", "player 1", "player 2"]
    ids = re.findall(r'<symbol id="([^"]+)"', data["symbols"])
    assert ids and len(ids) == len(set(ids))
    for position in data["positions"]:
        svgs = [view["svg"] for view in position["views"]]
        # The positions only place the faces (no symbols, no per-card hover text of their own).
        assert not any("<symbol" in svg or re.search(r"<use [^>]*><title>", svg) for svg in svgs)
        assert all(set(re.findall(r'href="#([^"]+)"', svg)) <= set(ids) for svg in svgs)
        # Everything face up in the first view; each player sees the other's hand face down.
        backs = [svg.count('href="#back"') for svg in svgs]
        assert backs[0] == 0 and backs[1] > 0 and backs[2] > 0
    # A page for one viewer holds only that view: nothing hidden from them is in the file.
    alone = page_data(to_html(replay, tmp_path / "p1.html", env=env, viewer=0))
    assert alone["views"] == ["player 1"]
    assert [p["views"][0] for p in alone["positions"]] == [p["views"][1] for p in data["positions"]]


def test_a_34_move_digimon_page_is_under_200_kb(digimon_replay, tmp_path):
    env, replay = digimon_replay
    assert len(replay["commandLog"]) == 34
    path = to_html(replay, tmp_path / "digimon.html", env=env)
    size = os.path.getsize(path)
    assert size < 200_000, size
    data = page_data(path)
    assert len(data["positions"]) == 35 and len(data["views"]) == 3
