"""The shared picture machinery (tcgjax.core.render) through the duel: zones as piles, rows and
stacks, hidden cards face down for a viewer, the viewer's side at the bottom, the text rendering,
``Env.render``'s argument checks and a ``State``'s notebook display."""

import gc
import re
import xml.etree.ElementTree as ET

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.core import render
from tcgjax.games.duel.scenario import build_state

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def env():
    return tcgjax.make("duel")


@pytest.fixture(scope="module")
def state(env):
    return build_state(
        env,
        active=1,
        turn_number=4,
        players=[
            {"hand": ["goblin", "dragon"], "board": ["wolf"], "deck": ["spark"], "life": 5,
             "mana": 2, "max_mana": 3, "exhausted": [0]},
            {"hand": ["knight"], "board": ["goblin", "wolf"], "life": 3},
        ],
    )  # fmt: skip


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


def _line(text: str, start: str) -> str:
    (line,) = [ln for ln in text.splitlines() if ln.strip().startswith(start)]
    return line


def test_omniscient_text_lists_every_zone_with_its_cards_in_order(env, state):
    picture = env.render(state)
    text = picture.text
    assert text.splitlines()[0] == "duel: turn 4"
    assert "player 2 to act" in text
    assert "--- player 1: life 5, mana 2/3" in text
    hands = [ln for ln in text.splitlines() if ln.strip().startswith("hand")]
    assert hands[0].strip() == "hand (2): Goblin (creature 1/1), Dragon (creature 5/6)"
    assert hands[1].strip() == "hand (1): Knight (creature 3/3)"
    assert "board (1): Wolf (creature 2/2, exhausted)" in text
    assert str(picture) == text


def test_a_viewer_sees_the_opponents_hand_face_down_and_its_own_hand(env, state):
    text = env.render(state, viewer=0).text
    assert "Knight" not in text  # player 2's only hand card
    assert "hand (1): (face down)" in text
    assert "Goblin (creature 1/1), Dragon" in text
    # Decks are hidden from everyone: a pile shows its count, not its top card.
    assert "deck (1): top (face down); 1 face down" in text


def test_changing_a_hidden_card_leaves_the_viewers_picture_unchanged(env, state):
    """Visibility invariance, as for the observation: the opponent's hand card is not drawn."""
    board = state.game.board
    knight = int(np.flatnonzero(np.asarray(board.zone) == 5)[0])  # player 2's hand
    dragon = env.board_layout.cards.index("dragon")
    other = state.replace(
        game=state.game.replace(
            board=board.replace(definition=board.definition.at[knight].set(dragon))
        )
    )
    assert env.render(other, viewer=0).svg == env.render(state, viewer=0).svg
    assert env.render(other, viewer=1).svg != env.render(state, viewer=1).svg


def test_the_svg_is_a_document_with_the_viewers_side_at_the_bottom(env, state):
    for viewer in (0, 1):
        root = ET.fromstring(env.render(state, viewer=viewer).svg)
        assert root.tag == f"{SVG}svg"
        titles = {t.text: t for t in root.iter(f"{SVG}text")}
        me = next(
            t for k, t in titles.items() if k and k.startswith(f"player {viewer + 1} (viewer)")
        )
        them = next(t for k, t in titles.items() if k and k.startswith(f"player {2 - viewer}"))
        assert float(me.get("y")) > float(them.get("y"))
    face_down = [
        u for u in ET.fromstring(env.render(state, viewer=0).svg).iter(f"{SVG}use")
        if u.get("href") == "#back" and u.find(f"{SVG}title").text == "face down"
    ]  # fmt: skip
    assert len(face_down) == 2  # player 2's hand card and player 1's deck (player 2's is empty)


def test_text_in_the_svg_is_escaped(env, state):
    svg = render.Svg(10, 10, title="a <b> & c")
    svg.text(0, 0, "x < y & z", size=11)
    root = ET.fromstring(svg.to_string())
    assert root.find(f"{SVG}title").text == "a <b> & c"
    assert "x < y & z" in _texts(svg.to_string())


def test_render_refuses_a_batch_and_a_viewer_out_of_range(env, state):
    batch = jax.tree.map(lambda x: jnp.stack([x, x]), state)
    with pytest.raises(ValueError, match="one game"):
        env.render(batch)
    for viewer in (2, -1, True, 0.0, "0"):
        with pytest.raises(ValueError, match=re.escape(f"viewer={viewer!r}")):
            env.render(state, viewer=viewer)


@pytest.fixture
def only_this_env(env, monkeypatch):
    """The display registry as if ``env`` were the only duel env made (other test modules of the
    worker may hold duel envs with other options, which would make the display ambiguous)."""
    monkeypatch.setattr(render, "_DISPLAY", {})
    render.register_display(type(env).game_state_type, env)


def test_a_state_displays_itself_in_a_notebook(env, state, only_this_env):
    assert state._repr_svg_() == env.render(state).svg
    batch = jax.tree.map(lambda x: jnp.stack([x, x]), state)
    assert batch._repr_svg_() is None  # a batch falls back to the text repr


def test_display_is_withheld_when_envs_of_the_game_are_configured_differently(
    env, state, only_this_env
):
    other = tcgjax.make("duel", max_steps=7)  # registers itself
    assert repr(other) != repr(env)
    assert state._repr_svg_() is None  # two duel envs alive, configured differently
    del other
    gc.collect()
    assert state._repr_svg_() == env.render(state).svg
    tcgjax.make("duel")  # configured like env: the display stays unambiguous
    assert state._repr_svg_() == env.render(state).svg


def test_picture_save_writes_the_svg_or_the_text(env, state, tmp_path):
    picture = env.render(state, viewer=1)
    picture.save(tmp_path / "p.svg")
    picture.save(tmp_path / "p.txt")
    picture.save(tmp_path / "upper.SVG")
    assert (tmp_path / "p.svg").read_text() == picture.svg
    assert (tmp_path / "upper.SVG").read_text() == picture.svg
    assert (tmp_path / "p.txt").read_text() == picture.text + "\n"


def test_a_stack_draws_its_lead_card_on_top_and_hides_nothing_of_the_order(env, state):
    layout, board = env.board_layout, jax.tree.map(np.asarray, state.game.board)
    zone = 6  # player 2's board: goblin (position 0), wolf (1)
    cards = np.flatnonzero(board.zone == zone)
    goblin = int(cards[board.position[cards] == 0][0])
    view = render.ZoneView(zone, "board", "stack", lead=goblin)
    picture = render.card_board_picture(
        layout, board, None, title="t", header=[],
        sides=[render.SideView(0, ()), render.SideView(1, ((view,),))],
        card_label=lambda c: (render.card_definition(layout, board, c)["name"], ""),
    )  # fmt: skip
    assert _line(picture.text, "board").endswith("Goblin over Wolf")
    names = [t for t in _texts(picture.svg) if t in ("Goblin", "Wolf")]
    assert names == ["Wolf", "Goblin"]  # drawn bottom first: the lead last, whole


def test_the_pictures_equal_their_snapshots(env, state, picture_snapshot):
    # Every coordinate, colour and label of the duel's pictures (piles, rows, stacks, face-down
    # cards) for both viewers and the omniscient one.
    for viewer in (None, 0, 1):
        picture_snapshot(env.render(state, viewer=viewer), f"duel_viewer_{viewer}")


def test_a_batch_draws_as_a_grid_of_its_games(env, tmp_path):
    """``env.render_grid`` / ``env.save_svg`` of a batch (Pgx's ``save_svg`` of a batched state):
    each game's picture nested at its place in reading order, within the grid's size."""
    keys = jax.random.split(jax.random.PRNGKey(5), 5)
    batch = jax.jit(jax.vmap(env.init))(keys)
    one = [env.render(jax.tree.map(lambda x, i=i: x[i], batch), viewer=1) for i in range(5)]
    grid = env.render_grid(batch, viewer=1, columns=2, limit=3)
    root = ET.fromstring(grid.svg)
    cells = [c for c in root if c.tag.endswith("svg")]
    width = float(one[0].svg.split('width="')[1].split('"')[0])
    height = float(one[0].svg.split('height="')[1].split('"')[0])
    assert [(float(c.get("x")), float(c.get("y"))) for c in cells] == [
        (0, 0), (width + 8, 0), (0, height + 8),
    ]  # fmt: skip
    assert (float(root.get("width")), float(root.get("height"))) == (2 * width + 8, 2 * height + 8)
    for i, cell in enumerate(cells):  # game i's own picture, unchanged, at its place
        placed = f'<svg x="{cell.get("x")}" y="{cell.get("y")}" '
        assert one[i].svg.replace("<svg ", placed, 1).strip() in grid.svg
    assert grid.text.split("\n\n") == [f"game {i}\n{one[i].text}" for i in range(3)]
    env.save_svg(batch, tmp_path / "grid.svg", viewer=1, columns=2, limit=3)
    assert (tmp_path / "grid.svg").read_text() == grid.svg
    env.save_svg(jax.tree.map(lambda x: x[0], batch), tmp_path / "one.svg", viewer=1)
    assert (tmp_path / "one.svg").read_text() == one[0].svg
    with pytest.raises(ValueError, match="columns"):
        env.render_grid(batch, columns=0)
    with pytest.raises(ValueError, match="batch"):
        env.render_grid(jax.tree.map(lambda x: x[0], batch))
    with pytest.raises(ValueError, match="batch of games only"):
        env.save_svg(jax.tree.map(lambda x: x[0], batch), tmp_path / "x.svg", columns=2)
