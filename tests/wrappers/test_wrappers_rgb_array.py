"""``render_mode="rgb_array"``: the agent's picture rasterized (resvg) into one frame size per env,
so Gymnasium's ``RecordVideo`` writes a game to a video file."""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.wrappers import RecordVideo

from tcgjax.core.render import PAGE_COLOR
from tcgjax.wrappers.gymnasium import TcgjaxEnv


def _page():
    return np.array([int(PAGE_COLOR[i : i + 2], 16) for i in (1, 3, 5)], np.uint8)


def _play_to_the_end(env, limit=300):
    observation, info = env.reset(seed=4)
    for _ in range(limit):
        legal = np.flatnonzero(info["action_mask"])
        observation, reward, terminated, truncated, info = env.step(int(legal[-1]))
        if terminated or truncated:
            return True
    return False


def test_a_frame_is_the_agents_picture_rasterized():
    env = TcgjaxEnv("duel", render_mode="rgb_array", agent_seat=1)
    env.reset(seed=2)
    frame = env.render()
    picture = env.game.render(env.state, viewer=1)
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert np.array_equal(frame, picture.rgb())  # the seat's view: hidden cards face down
    assert frame.shape[:2] == tuple(int(v) for v in _svg_size(picture.svg))[::-1]
    # Drawn, not blank: the page colour and at least the two players' sides.
    colours = {tuple(c) for c in frame.reshape(-1, 3)[::97]}
    assert tuple(_page()) in colours and len(colours) > 3


def _svg_size(svg):
    head = svg[: svg.index(">")]
    width = float(head.split('width="')[1].split('"')[0])
    height = float(head.split('height="')[1].split('"')[0])
    return width, height


def test_every_frame_of_an_env_has_its_first_frames_size():
    env = TcgjaxEnv("duel", render_mode="rgb_array")
    env.reset(seed=0)
    first = env.render()
    sizes = set()
    observation, info = env.reset(seed=1)
    for _ in range(40):
        sizes.add(env.render().shape)
        observation, _, terminated, truncated, info = env.step(
            int(np.flatnonzero(info["action_mask"])[0])
        )
        if terminated or truncated:
            break
    assert sizes == {first.shape}


def test_record_video_writes_a_game(tmp_path):
    env = RecordVideo(
        TcgjaxEnv("duel", render_mode="rgb_array"),
        video_folder=str(tmp_path),
        episode_trigger=lambda episode: True,
        disable_logger=True,
    )
    assert _play_to_the_end(env)
    env.close()
    videos = sorted(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000


def test_gymnasium_make_takes_rgb_array():
    env = gymnasium.make("tcgjax/Duel-v0", render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().ndim == 3
    assert "rgb_array" in env.metadata["render_modes"]
