"""``api_test``: the conformance harness every tcgjax env passes (Pgx's ``api_test``, extended).

It plays random legal games, single (host loop through :class:`tcgjax.replay.Recorder`) and batched
(``jit(vmap(step))`` inside ``lax.scan`` with auto-reset), and checks on every state met:

* dtypes and shapes of every ``State`` field; the mask is never all False;
* ``action_error`` is 0 exactly where the mask is True (one source of truth for legality);
* the cached mask and observation are what ``legal_action_mask`` and ``observe`` give now;
* rewards are finite, zero outside terminal steps... and sum to zero for two players;
* every observation (and another seat's view) lies within ``env.observation_bounds()``;
* illegal and out-of-range actions under ``"reject"`` leave the state unchanged but ``error``;
* terminal states are absorbing (any action: same state, zero rewards);
* no retracing (``chex.assert_max_traces`` on the batched step, one compiled single-game step);
* card conservation (dense positions, capacities, definitions unchanged) for board games;
* the game's invariants (``env.validate``) on every single-game state and on samples of the batch
  (or, with ``batch_check_every``, on every game's state at every k-th batched step, each also
  round-tripped through JSON);
* ``checked_step`` refuses non-integer actions (floats, strings, bools, None) by name;
* JSON round trip on states met along the way, and replay reproduction of every finished episode;
* the picture of those states (``env.render`` for the omniscient view and each player's): a
  standalone SVG document and a non-empty text, the same on a second call.
"""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET

import chex
import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core import errors, replay
from tcgjax.core.checked import _compiled, checked_step
from tcgjax.core.env import Env, State
from tcgjax.core.serialization import from_json, from_json_batch, to_json
from tcgjax.wrappers import random_legal_action, reset_if_done

__all__ = [
    "api_test",
    "ApiTestReport",
    "assert_states_equal",
    "assert_card_conservation",
    "assert_observations_in_bounds",
    "round_trip_states",
]


@dataclasses.dataclass
class ApiTestReport:
    """What ``api_test`` saw, so callers can assert the run was meaningful."""

    single_steps: int = 0
    episodes_finished: int = 0
    replays_checked: int = 0
    json_round_trips: int = 0
    renders_checked: int = 0
    illegal_actions_checked: int = 0
    batched_steps: int = 0
    batched_episodes_finished: int = 0
    states_validated: int = 0
    batched_json_round_trips: int = 0


def assert_states_equal(a: State, b: State, what: str = "states") -> None:
    """Every array of ``a`` equals the corresponding array of ``b`` (same dtypes)."""
    leaves_a, tree_a = jax.tree.flatten_with_path(a)
    leaves_b, tree_b = jax.tree.flatten(b)
    assert jax.tree.structure(a) == tree_b, f"{what}: different tree structure"
    del tree_a
    for (path, x), y in zip(leaves_a, leaves_b, strict=True):
        name = jax.tree_util.keystr(path)
        assert x.dtype == y.dtype, f"{what}: {name} dtype {x.dtype} != {y.dtype}"
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=f"{what}: {name}")


def round_trip_states(env: Env, states: State, what: str = "state", chunk: int = 256) -> int:
    """Every game's state in ``states`` (a batch with any leading axes, e.g. ``[T, B]`` from a
    ``lax.scan`` of ``vmap``-ed steps) passes the game's invariants and round-trips through JSON
    exactly: :func:`~tcgjax.from_json_batch` of their :func:`~tcgjax.to_json` documents (which
    runs ``env.validate`` on each) equals them in every array, derived fields included. Returns
    how many states were checked.

    Built for the random-play sweeps (tens of thousands of states): ``chunk`` documents at a time
    come back in one device call and are compared array by array against the originals;
    :func:`assert_states_equal` names the first differing field and state only when one differs.

    Raises:
      tcgjax.core.errors.SerializationError: a state the invariants refuse (the message names the
        broken field and where in the batch the state was).
      AssertionError: a state that comes back different.
    """
    host = jax.device_get(states)
    batch = np.shape(host.terminated)
    count = int(np.prod(batch, dtype=np.int64))
    # An explicit leading size: a zero-size leaf (a board without card attributes) has no -1.
    flat = jax.tree.map(lambda x: np.reshape(x, (count,) + np.shape(x)[len(batch) :]), host)
    # Equal chunks (the largest divisor of ``count`` up to ``chunk``): one compiled batch size.
    chunk = max(d for d in range(1, max(1, min(chunk, count)) + 1) if count % d == 0)
    for start in range(0, count, chunk):
        part = jax.tree.map(lambda x, start=start: x[start : start + chunk], flat)
        size = int(np.shape(part.terminated)[0])
        ones = [jax.tree.map(lambda x, i=i: x[i], part) for i in range(size)]
        try:
            back = jax.device_get(from_json_batch(env, [to_json(env, one) for one in ones]))
        except errors.SerializationError as exc:  # "texts[i]: field: problem"
            index, problem = str(exc).removeprefix("texts[").split("]: ", 1)
            where = [int(k) for k in np.unravel_index(start + int(index), batch)]
            raise errors.SerializationError(f"{what} {where}: {problem}") from exc
        if not all(
            x.dtype == y.dtype and np.array_equal(x, y)
            for x, y in zip(jax.tree.leaves(part), jax.tree.leaves(back), strict=True)
        ):
            for i, one in enumerate(ones):
                where = [int(k) for k in np.unravel_index(start + i, batch)]
                again = jax.tree.map(lambda x, i=i: x[i], back)
                assert_states_equal(again, one, f"{env.id}: JSON round trip of {what} {where}")
    return count


def assert_card_conservation(env: Env, state: State, initial: State | None = None) -> None:
    """No card lost or duplicated: in every zone positions are exactly ``0..n-1`` and ``n`` is within
    ``max_size``; zone and owner indices are valid; definitions unchanged since ``initial``."""
    layout = env.board_layout
    if layout is None:
        return
    board = jax.tree.map(np.asarray, state.game.board)
    assert board.zone.shape == (layout.num_cards,)
    assert np.all((board.zone >= 0) & (board.zone < layout.num_zones)), "zone index out of range"
    assert np.all((board.owner >= 0) & (board.owner < layout.num_players)), "bad owner"
    for z in range(layout.num_zones):
        pos = np.sort(board.position[board.zone == z])
        np.testing.assert_array_equal(
            pos, np.arange(len(pos)), err_msg=f"zone {layout.zone_id(z)}: positions not dense"
        )
        assert len(pos) <= layout.zone_max_size[z], f"zone {layout.zone_id(z)} over max_size"
    if initial is not None:
        np.testing.assert_array_equal(
            board.definition, np.asarray(initial.game.board.definition), "card definitions changed"
        )


def assert_observations_in_bounds(env: Env, observations, what: str = "observation") -> None:
    """Every observation (``[..., O]``, host or device) lies within ``env.observation_bounds()``;
    else an ``AssertionError`` naming the first entry out of bounds (a NaN is out): its batch
    position, its index, the layout slice it belongs to (and where in the slice), its value and
    the bounds."""
    obs = np.asarray(observations, np.float32)
    low, high = env.observation_bounds()
    outside = ~((obs >= low) & (obs <= high))
    if not outside.any():
        return
    where = tuple(int(i) for i in np.argwhere(outside)[0])
    entry = where[-1]
    name, at = "?", ""
    for slice_name, (start, shape, _) in env.observation_layout.slices.items():
        if start <= entry < start + int(np.prod(shape, dtype=np.int64)):
            name = slice_name
            at = str([int(i) for i in np.unravel_index(entry - start, shape)])
            break
    batch = f" {list(where[:-1])}" if len(where) > 1 else ""
    raise AssertionError(
        f"{env.id}: {what}{batch} entry {entry} (slice {name!r} {at}) = {float(obs[where]):.9g} "
        f"is outside its bounds [{float(low[entry]):.9g}, {float(high[entry]):.9g}]"
    )


def _check_pictures(env: Env, state: State) -> int:
    """``env.render`` of one state for every viewer: an SVG document, a text, deterministic."""
    for viewer in (None, *range(env.num_players)):
        picture = env.render(state, viewer)
        root = ET.fromstring(picture.svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg", f"{env.id}: render: not an SVG"
        assert picture.text.strip(), f"{env.id}: render: empty text"
        assert env.render(state, viewer) == picture, f"{env.id}: render is not deterministic"
    return env.num_players + 1


def _check_state(env: Env, s: State, batch: tuple[int, ...] = ()) -> None:
    num_p, num_a = env.num_players, env.num_actions
    expected = {
        "current_player": (batch, jnp.int32),
        "observation": (batch + tuple(env.observation_shape), jnp.float32),
        "legal_action_mask": (batch + (num_a,), jnp.bool_),
        "rewards": (batch + (num_p,), jnp.float32),
        "terminated": (batch, jnp.bool_),
        "truncated": (batch, jnp.bool_),
        "step_count": (batch, jnp.int32),
        "error": (batch, jnp.int32),
    }
    for name, (shape, dtype) in expected.items():
        x = getattr(s, name)
        assert x.shape == shape, f"{env.id}: State.{name} shape {x.shape} != {shape}"
        assert x.dtype == dtype, f"{env.id}: State.{name} dtype {x.dtype} != {dtype}"
    mask = np.asarray(s.legal_action_mask)
    assert mask.any(axis=-1).all(), f"{env.id}: an all-False legal_action_mask"
    rewards = np.asarray(s.rewards)
    assert np.isfinite(rewards).all(), f"{env.id}: non-finite rewards {rewards}"
    assert np.isfinite(np.asarray(s.observation)).all(), f"{env.id}: non-finite observation"
    assert_observations_in_bounds(env, s.observation)
    if num_p == 2 and env.zero_sum:
        np.testing.assert_allclose(rewards.sum(-1), 0.0, atol=1e-6, err_msg="not zero-sum")
    done = np.asarray(s.terminated | s.truncated)
    assert mask[done].all(), f"{env.id}: terminal mask must be all True"
    assert not np.asarray(s.terminated & s.truncated).any(), "terminated and truncated both set"


def api_test(
    env: Env,
    *,
    num_steps: int = 300,
    batch_size: int = 16,
    batch_steps: int = 200,
    json_every: int = 10,
    batch_check_every: int | None = None,
    seed: int = 0,
) -> ApiTestReport:
    """Run the conformance checks on ``env`` (see the module docstring); raise on any failure.

    Args:
      env: the env under test (built with ``illegal_action="reject"``, the default).
      num_steps: steps of single-game random play (episodes restart when they end).
      batch_size: ``B`` games for the ``jit(vmap(...))`` part.
      batch_steps: steps of the batched part.
      json_every: JSON round trip every this many single-game steps (and on every terminal state).
      batch_check_every: if given, every game's state after every this-many-th batched step is
        validated and round-tripped through JSON (a random-play sweep of ``validate``: the
        batched program is compiled once for both checks; 1 checks every state, with
        :func:`round_trip_states`); by default, every game at 8 evenly spaced steps is validated.
      seed: PRNG seed; the checks never depend on a particular draw.

    Returns:
      An :class:`ApiTestReport` with counts, so a caller can assert episodes actually finished.
    """
    assert env.illegal_action == "reject", "api_test expects illegal_action='reject'"
    if batch_check_every is not None and (
        isinstance(batch_check_every, bool)
        or not isinstance(batch_check_every, int)
        or batch_check_every < 1
    ):
        raise errors.ConfigError(
            f"api_test: batch_check_every={batch_check_every!r} is not a positive whole number "
            "of steps (or None)"
        )
    report = ApiTestReport()
    key = jax.random.PRNGKey(seed)

    # chex counts traces per function definition: start each api_test call from zero.
    chex.clear_trace_counter()

    # The env's own jitted step, shared with checked_step and replays (one compile of the game,
    # not two); it must be traced once for every single-game call below (checked at the end).
    step = _compiled(env)[1]
    errors_fn = jax.jit(jax.vmap(env.action_error, in_axes=(None, 0)))
    # The game's own rule codes, without the core's mask shortcut: an independent legality check.
    game_errors_fn = jax.jit(jax.vmap(env._action_error, in_axes=(None, 0)))
    game_mask_fn = jax.jit(env._legal_action_mask)
    observe_fn = jax.jit(env.observe)
    all_actions = jnp.arange(env.num_actions, dtype=jnp.int32)
    init = jax.jit(env.init)

    # ---- single game, host loop, recorded ------------------------------------------------------
    key, sub = jax.random.split(key)
    state = init(sub)
    episode_start = state
    recorder = replay.Recorder(env, state)
    _check_state(env, state)
    env.validate(state)
    for bad in (0.0, float(env.num_actions - 1), "0", True, None, np.float32(0)):
        try:
            checked_step(env, state, bad, key)
        except errors.IllegalActionError:
            report.illegal_actions_checked += 1
        else:
            raise AssertionError(f"{env.id}: checked_step accepted the non-integer action {bad!r}")
    for i in range(num_steps):
        done = bool(state.terminated | state.truncated)
        if done:
            # Terminal states are absorbing, whatever the action.
            key, k1 = jax.random.split(key)
            for action in (0, env.num_actions - 1):
                again = step(state, action, k1)
                assert_states_equal(
                    again,
                    state.replace(rewards=jnp.zeros_like(state.rewards)),
                    f"{env.id}: absorbing terminal",
                )
            # Replay of the finished episode reproduces it exactly (through JSON).
            exported = json.loads(json.dumps(recorder.export()))
            assert_states_equal(replay.run(exported, env), state, f"{env.id}: replay")
            report.replays_checked += 1
            report.episodes_finished += 1
            key, sub = jax.random.split(key)
            state = episode_start = init(sub)
            recorder = replay.Recorder(env, state)
            _check_state(env, state)
            continue

        codes = np.asarray(errors_fn(state, all_actions))
        mask = np.asarray(state.legal_action_mask)
        np.testing.assert_array_equal(
            codes == 0, mask, err_msg=f"{env.id}: action_error disagrees with the mask"
        )
        np.testing.assert_array_equal(
            mask, np.asarray(game_mask_fn(state.game)), err_msg=f"{env.id}: stale cached mask"
        )
        # The cached observation is the acting player's (a game may build it from the step's
        # mask, ``Env._observe_acting``: it must equal ``observe``).
        np.testing.assert_array_equal(
            np.asarray(state.observation),
            np.asarray(observe_fn(state, state.current_player)),
            err_msg=f"{env.id}: the cached observation is not observe(state, current_player)",
        )
        # Another seat's view (what PettingZoo shows it) lies within the bounds too (an int32
        # like current_player: the same compiled observe).
        other = np.int32((int(state.current_player) + 1) % env.num_players)
        assert_observations_in_bounds(env, observe_fn(state, other), "another seat's observation")
        game_codes = np.asarray(game_errors_fn(state.game, all_actions))
        np.testing.assert_array_equal(
            game_codes == 0,
            mask,
            err_msg=f"{env.id}: the game's _action_error disagrees with its mask",
        )
        key, k_act, k_step = jax.random.split(key, 3)
        # An illegal (or out-of-range) action is rejected without changing anything but `error`.
        illegal = np.flatnonzero(~mask)
        for bad in ([int(illegal[0])] if illegal.size else []) + [-1, env.num_actions]:
            rejected = step(state, bad, k_step)
            expected_code = (
                errors.ACTION_OUT_OF_RANGE if bad in (-1, env.num_actions) else codes[bad]
            )
            assert int(rejected.error) == expected_code != 0, f"{env.id}: illegal action {bad}"
            assert_states_equal(
                rejected,
                state.replace(rewards=jnp.zeros_like(state.rewards), error=rejected.error),
                f"{env.id}: rejected action {bad}",
            )
            report.illegal_actions_checked += 1

        action = int(random_legal_action(k_act, state.legal_action_mask))
        stepped = step(state, action, k_step)
        state = recorder.step(action, k_step)
        assert_states_equal(stepped, state, f"{env.id}: checked_step vs step")
        assert int(state.error) == 0, (
            f"{env.id}: legal action {action} set error {int(state.error)}"
        )
        _check_state(env, state)
        assert_card_conservation(env, state, episode_start)
        env.validate(state)
        report.states_validated += 1
        report.single_steps += 1
        if i % json_every == 0 or bool(state.terminated | state.truncated):
            text = to_json(env, state)
            assert_states_equal(from_json(env, text), state, f"{env.id}: JSON round trip")
            assert to_json(env, from_json(env, text)) == text
            report.json_round_trips += 1
            report.renders_checked += _check_pictures(env, state)

    # ---- batched: jit(vmap(...)) inside lax.scan with auto-reset ---------------------------------
    def batched_step(state, action, key):
        return jax.vmap(env.step)(state, action, key)

    traced_step = chex.assert_max_traces(batched_step, n=1)

    @jax.jit
    def rollout(state, key):
        def body(state, key):
            k_reset, k_act, k_step = jax.random.split(key, 3)
            state = jax.vmap(reset_if_done, in_axes=(None, 0, 0))(
                env.init, state, jax.random.split(k_reset, batch_size)
            )
            action = random_legal_action(k_act, state.legal_action_mask)
            state = traced_step(state, action, jax.random.split(k_step, batch_size))
            return state, state

        return jax.lax.scan(body, state, jax.random.split(key, batch_steps))

    key, k_init, k_roll = jax.random.split(key, 3)
    states = jax.jit(jax.vmap(env.init))(jax.random.split(k_init, batch_size))
    _check_state(env, states, (batch_size,))
    final, trajectory = rollout(states, k_roll)
    _check_state(env, final, (batch_size,))
    # An explicit leading size: a zero-size leaf (a board without card attributes) has no -1.
    flat = jax.tree.map(lambda x: x.reshape((batch_size * batch_steps,) + x.shape[2:]), trajectory)
    _check_state(env, flat, (batch_size * batch_steps,))
    # The game's invariants on batched states: every game at 8 time points, or at every
    # ``batch_check_every``-th step with a JSON round trip of each.
    if batch_check_every is None:
        times = np.linspace(0, batch_steps - 1, num=min(8, batch_steps)).astype(int)
    else:
        times = np.arange(batch_check_every - 1, batch_steps, batch_check_every)
    checked = jax.device_get(jax.tree.map(lambda x: x[times], trajectory))
    if batch_check_every is None:
        for i in range(len(times)):
            for g in range(batch_size):
                env.validate(jax.tree.map(lambda x, i=i, g=g: x[i, g], checked))
                report.states_validated += 1
    else:  # from_json validates each state it reads
        count = round_trip_states(env, checked, "batched state (checked step, game)")
        report.states_validated += count
        report.batched_json_round_trips += count
    errs = np.asarray(trajectory.error)
    assert (errs == 0).all(), f"{env.id}: random legal play produced error codes {np.unique(errs)}"
    report.batched_steps = batch_size * batch_steps
    report.batched_episodes_finished = int(
        np.asarray(trajectory.terminated | trajectory.truncated).sum()
    )
    # Same scan again (new key): compiled once, never retraced.
    rollout(states, jax.random.PRNGKey(seed + 1))
    assert step._cache_size() == 1, f"{env.id}: the single-game step was traced more than once"
    return report
