"""``tcgjax serve``: the JSON API through Starlette's TestClient (a game played to its end, every bad
request answered 400 naming the field with the game unchanged, the replay download reproduces the
game) and the page in a real headless Chromium (Debian's ``chromium``, driven by selenium): a
game played to its end by clicks, a refused opponent shown on the page, the server still up."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
from browser_testlib import chromium

import tcgjax
from tcgjax.serve import create_app


@pytest.fixture(scope="module")
def client():
    from starlette.testclient import TestClient

    with TestClient(create_app()) as c:
        yield c


def _new(client, **fields):
    body = {"env": "duel", "seat": 1, "opponent": "random", "seed": 3} | fields
    return client.post("/api/games", json=body)


def test_a_game_played_to_its_end_through_the_api(client):
    view = _new(client).json()
    assert view["env"] == "duel" and view["seat"] == 1 and view["svg"].startswith("<svg")
    assert not view["over"] and view["moves"]
    env = tcgjax.make("duel")
    for _ in range(200):
        if view["over"]:
            break
        names = [m["name"] for m in view["moves"]]
        move = (
            view["moves"][names.index("end the turn")]
            if "end the turn" in names
            else view["moves"][0]
        )
        before = len(view["log"])
        view = client.post(f"/api/games/{view['id']}/moves", json={"action": move["action"]}).json()
        assert view["log"][before] == {"player": 1, "move": move["name"]}
    assert view["over"] and view["result"] in ("you won", "you lost", "a draw")
    assert view["moves"] == []
    replay = client.get(f"/api/games/{view['id']}/replay")
    assert replay.headers["content-disposition"].startswith("attachment")
    final = tcgjax.replay.run(json.loads(replay.text))  # the digest verifies
    assert env.render(final, viewer=0).svg == view["svg"]  # the seat's view: hidden cards hidden


def test_bad_requests_are_refused_by_name_and_change_nothing(client):
    view = _new(client, seed=5).json()
    game = f"/api/games/{view['id']}"
    legal = {m["action"] for m in view["moves"]}
    illegal = next(a for a in range(tcgjax.make("duel").num_actions) if a not in legal)
    cases = [
        (client.post("/api/games", content=b"{not json"), "not valid JSON"),
        (_new(client, env="chess"), "field 'env': 'chess' is not one of"),
        (_new(client, seat=3), "field 'seat': 3 must be 1 or 2"),
        (_new(client, seed=-1), "field 'seed'"),
        (_new(client, colour="red"), "unknown field 'colour'"),
        (_new(client, opponent="no/such/run"), "neither 'baseline' nor a run directory"),
        (client.post(f"{game}/moves", json={"action": illegal}), "is illegal: rule"),
        (client.post(f"{game}/moves", json={"action": "1"}), "is not an integer move id"),
        (client.post(f"{game}/moves", json={"move": 1}), 'body must be a JSON object {"action"'),
        (client.get("/api/games/999"), "no game '999'"),
    ]
    for response, message in cases:
        assert response.status_code == 400, response.text
        assert message in response.json()["error"], response.json()
    assert client.get(game).json() == view  # unchanged
    assert client.get("/").status_code == 200  # still up


def test_the_baseline_answers_as_opponent(client):
    view = _new(client, env="duel", seat=2, opponent="baseline").json()
    assert view["log"] and all(entry["player"] == 1 for entry in view["log"])
    assert view["moves"]  # player 1, the baseline, played until it is seat 2's turn


@pytest.fixture(scope="module")
def server():
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not instance.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert instance.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


def test_a_game_played_to_its_end_by_clicks_in_a_real_browser(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    wait = WebDriverWait(browser, 60)
    browser.get(server + "/")
    Select(browser.find_element(By.ID, "env")).select_by_value("duel")
    opponent = browser.find_element(By.ID, "opponent")
    opponent.clear()
    opponent.send_keys("no/such/run")
    browser.find_element(By.ID, "start").click()
    wait.until(lambda d: d.find_element(By.ID, "error").text)
    assert "neither 'baseline' nor a run directory" in browser.find_element(By.ID, "error").text
    opponent.clear()
    opponent.send_keys("heuristic")
    browser.find_element(By.ID, "start").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board svg"))
    assert browser.find_element(By.ID, "error").text == ""
    on_board = 0
    for _ in range(200):
        if browser.find_element(By.ID, "result").text:
            break
        logged = len(browser.find_elements(By.CSS_SELECTOR, "#log li"))
        # A card a legal move names glows on the board: click it, then a move of its menu (each
        # names the card). Else (only "end the turn" is left) the button beside the board.
        playable = browser.find_elements(By.CSS_SELECTOR, "#board use.playable")
        if playable:
            name = playable[0].get_attribute("data-name")
            playable[0].click()
            offered = browser.find_elements(By.CSS_SELECTOR, "#menu button.card-move")
            assert offered and all(name in b.text for b in offered), (name, offered)
            offered[0].click()
            on_board += 1
        else:
            labels = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "button.move")]
            assert labels == ["end the turn"], labels
            browser.find_elements(By.CSS_SELECTOR, "button.move")[0].click()
        wait.until(
            lambda d, n=logged: (
                d.find_element(By.ID, "result").text
                or len(d.find_elements(By.CSS_SELECTOR, "#log li")) > n
            )
        )
    result = browser.find_element(By.ID, "result").text
    assert result.startswith("game over: "), result
    assert on_board > 3  # moves played by clicking their cards on the board
    entries = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    assert entries and any(e.startswith("player 1: ") for e in entries)
    assert browser.find_elements(By.CSS_SELECTOR, "button.move") == []
    link = browser.find_element(By.ID, "replay").get_attribute("href")
    assert link.startswith(server + "/api/games/") and link.endswith("/replay")
