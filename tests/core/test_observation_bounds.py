"""``Env.observation_bounds``: the core default, every game's table, the Gymnasium ``Box`` built
from it, and ``api_test``'s check of observations against it.

Random play inside the bounds is checked by every game's ``api_test`` (single and batched states,
and another seat's view); here the duel plays a few Gymnasium steps against its ``Box``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.core.actions import ActionLayout
from tcgjax.core.env import Env, StepResult
from tcgjax.core.observation import ObservationLayout
from tcgjax.testing.api_test import _check_state, assert_observations_in_bounds
from tcgjax.wrappers import gymnasium as tcg_gym

GAMES = tcgjax.available_envs()

# Per game: the least share of entries bounded on both sides (measured, rounded down), and the
# slices that keep an unbounded entry (each game's table says why). A bound that falls back to
# ±inf fails here.
MIN_FINITE = {"deployment": 1.0, "digimon": 0.998, "duel": 1.0, "pokemon": 0.988}
UNBOUNDED_SLICES = {
    "deployment": set(),
    "digimon": {"global"},  # the turn count (no turn limit by default)
    "duel": set(),
    "pokemon": {"board"},  # the remaining HP's low, while an attack waits on a choice
}


class _Toy(Env):
    """A one-player toy game whose bound table a test may set (``table``)."""

    id = "toy"
    version = "1"
    num_players = 1
    action_layout = ActionLayout([("pass", 1)])
    observation_layout = ObservationLayout(
        [("turn", (1,), "the turn"), ("grid", (2, 3), "a grid"), ("pad", (2,), "always 0")]
    )
    default_max_steps = 5
    zero_sum = False

    def __init__(self, table=None, **options):
        self.table = table
        super().__init__(**options)

    def _observation_bound_table(self):
        return super()._observation_bound_table() if self.table is None else self.table

    def _init_game(self, key):
        del key
        return jnp.int32(0)

    def _apply_action(self, game, action, key):
        del action, key
        return StepResult(game + 1, jnp.zeros(1, jnp.float32))

    def _legal_action_mask(self, game):
        return jnp.ones(1, jnp.bool_)

    def _observe(self, game, player):
        del player
        return jnp.zeros(self.observation_layout.size, jnp.float32).at[0].set(game)

    def _current_player(self, game):
        return jnp.int32(0)

    def _is_terminal(self, game):
        return game >= 3

    def _forfeit(self, game, loser):
        del loser
        return jnp.int32(3)


def test_the_core_default_is_unbounded():
    env = _Toy()
    low, high = env.observation_bounds()
    assert low.shape == high.shape == env.observation_shape
    assert low.dtype == high.dtype == np.float32
    assert np.all(low == -np.inf) and np.all(high == np.inf)
    # Cached (the same arrays on every call) and read-only, so no caller can change them.
    assert env.observation_bounds()[0] is low
    with pytest.raises(ValueError):
        low[0] = 0.0


def test_a_table_is_laid_out_slice_by_slice_and_moved_outward():
    table = {"turn": (0.0, 3.0), "grid": ([[-1.0], [0.0]], [1.0, 2.0, 3.0]), "pad": (0.0, 0.0)}
    low, high = _Toy(table).observation_bounds()
    exact_low = np.array([0, -1, -1, -1, 0, 0, 0, 0, 0], np.float64)
    exact_high = np.array([3, 1, 2, 3, 1, 2, 3, 0, 0], np.float64)
    # Outward by about 2**-20 of the bound (the smallest normal float32 around 0): strictly
    # wider, so even the constant padding has low < high, and never more than 1e-5 wider here.
    assert np.all(low < exact_low) and np.all(high > exact_high)
    assert np.all(exact_low - low < 1e-5) and np.all(high - exact_high < 1e-5)
    assert np.all(low < high)


@pytest.mark.parametrize(
    "table, message",
    [
        ({"nowhere": (0.0, 1.0)}, "unknown slice 'nowhere'"),
        ({"grid": ([0.0, 1.0], 1.0)}, "slice 'grid' do not fit its shape"),
        ({"turn": (2.0, 1.0)}, "entry 0"),
        ({"pad": (np.nan, 1.0)}, "entry 7"),
    ],
)
def test_a_bad_table_is_refused(table, message):
    with pytest.raises(tcgjax.ConfigError, match=message):
        _Toy(table).observation_bounds()


@pytest.fixture(scope="module")
def game_envs():
    return {game: tcgjax.make(game) for game in GAMES}


def _unbounded_slices(env) -> set[str]:
    low, high = env.observation_bounds()
    finite = np.isfinite(low) & np.isfinite(high)
    return {
        name
        for name, (start, shape, _) in env.observation_layout.slices.items()
        if not finite[start : start + int(np.prod(shape))].all()
    }


@pytest.mark.parametrize("game", GAMES)
def test_every_game_bounds_its_observation(game, game_envs):
    env = game_envs[game]
    assert game in MIN_FINITE, f"{game}: declare its observation bounds and measure them here"
    low, high = env.observation_bounds()
    assert low.shape == high.shape == env.observation_shape
    assert low.dtype == high.dtype == np.float32
    assert np.all(low < high)
    share = float(np.mean(np.isfinite(low) & np.isfinite(high)))
    print(f"{game}: {share:.4f} of {low.size} entries bounded on both sides")
    assert share >= MIN_FINITE[game], f"{game}: only {share:.4f} of the entries are bounded"
    assert _unbounded_slices(env) == UNBOUNDED_SLICES[game]


def test_pokemon_v1_encoding_is_bounded_too():
    env = tcgjax.make("pokemon", encoding="v1")
    low, high = env.observation_bounds()
    assert low.shape == env.observation_shape and np.all(low < high)
    assert _unbounded_slices(env) == {"board"}
    # Column 0 of a v1 slot is the registry index, -1 for an empty slot.
    start, shape, _ = env.observation_layout.slices["board"]
    index_low = low[start : start + int(np.prod(shape))].reshape(shape)[:, 0]
    np.testing.assert_allclose(index_low, -1.0, rtol=1e-5)


@pytest.mark.parametrize("game", GAMES)
def test_the_gymnasium_space_carries_the_bounds(game, game_envs):
    env = game_envs[game]
    low, high = env.observation_bounds()
    box = tcg_gym.TcgjaxEnv(env).observation_space["observation"]
    np.testing.assert_array_equal(box.low, low)
    np.testing.assert_array_equal(box.high, high)
    assert box.dtype == np.float32 and box.shape == env.observation_shape


@pytest.fixture(scope="module")
def duel_gym(duel_env):
    return tcg_gym.TcgjaxEnv(duel_env)


def test_duel_observations_lie_in_the_gymnasium_space(duel_gym):
    rng = np.random.default_rng(0)
    observation, info = duel_gym.reset(seed=3)
    for _ in range(12):
        assert duel_gym.observation_space.contains(observation)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        observation, _, terminated, truncated, info = duel_gym.step(action)
        if terminated or truncated:
            observation, info = duel_gym.reset(seed=4)
    assert duel_gym.observation_space.contains(observation)


def _inside(env) -> np.ndarray:
    """An observation inside the bounds: each finite bound's midpoint (or the finite side)."""
    low, high = (b.astype(np.float64) for b in env.observation_bounds())
    mid = np.where(np.isfinite(low) & np.isfinite(high), (low + high) / 2, 0.0)
    mid = np.where(np.isfinite(low) & ~np.isfinite(high), low, mid)
    return np.where(~np.isfinite(low) & np.isfinite(high), high, mid).astype(np.float32)


def test_the_check_names_the_first_entry_out_of_bounds(duel_env):
    obs = _inside(duel_env)
    assert_observations_in_bounds(duel_env, obs)
    start = duel_env.observation_layout.slices["hand"][0]
    bad = obs.copy()
    bad[start + 5] = 7.0  # hand position 1, cost/5: no card costs 35
    with pytest.raises(AssertionError) as caught:
        assert_observations_in_bounds(duel_env, bad)
    message = str(caught.value)
    assert f"entry {start + 5} (slice 'hand' [1, 1]) = 7 is outside its bounds [" in message
    # A batch: the first game (in row-major order) out of bounds is named, and a NaN is out.
    batch = np.stack([obs, obs, bad])
    batch[1, 0] = np.nan
    with pytest.raises(AssertionError, match=r"observation \[1\] entry 0 \(slice 'life' \[0\]\)"):
        assert_observations_in_bounds(duel_env, batch)


def test_api_test_catches_a_state_whose_observation_is_out_of_bounds(duel_env, duel_gym):
    duel_gym.reset(seed=0)
    state = duel_gym.state
    _check_state(duel_env, state)  # a real state passes
    start = duel_env.observation_layout.slices["turn"][0]
    high = duel_env.observation_bounds()[1][start]
    pushed = state.replace(observation=state.observation.at[start].set(high + 1.0))
    with pytest.raises(AssertionError, match=r"entry \d+ \(slice 'turn' \[0\]\)"):
        _check_state(duel_env, pushed)
    batched = jax.tree.map(lambda x: jnp.stack([x, x]), pushed)
    with pytest.raises(AssertionError, match=r"observation \[0\] entry"):
        _check_state(duel_env, batched, (2,))
