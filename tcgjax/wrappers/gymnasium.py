"""Gymnasium adapters: one seat of a tcgjax game as a ``gymnasium.Env``, and a ``VectorEnv`` that
steps a whole batch of games in one jitted call.

The agent plays one seat (``agent_seat``); the other seat is an **opponent policy** that moves inside
the same jitted function until it is the agent's turn again (turns need not alternate: a card-game
turn is many actions, so the opponent may act any number of times between two agent actions):

* ``"random"``: uniform over the legal actions; ``"heuristic"``: the game's scripted greedy player
  (``tcgjax.train.opponents``, installed with tcgjax);
* any callable ``(state, key) -> int32[] action`` on ONE game that is pure JAX (jittable and
  vmappable: ``tcgjax.train.opponents`` policies, a trained network closed over its parameters, ...).

Observations are ``{"observation": float32[O], "action_mask": int8[A]}`` (the seat's view, respecting
hidden information); the mask is also ``info["action_mask"]`` (bool[A]) and ``action_masks()``
(what sb3-contrib's ``MaskablePPO`` calls). Rewards are the agent seat's, summed over its action and
the opponent's replies (+1 / -1 at the end of a game, 0 before).

**Illegal actions** follow the env's ``illegal_action`` option. ``"reject"`` (default): the game is
unchanged, the reward is 0, the episode goes on and ``info["error"]`` / ``info["rule"]`` name the
broken rule (so an unmasked ``action_space.sample()``, as Gymnasium's ``check_env`` sends, never
crashes and never changes the game). ``"lose"``: the agent forfeits and the episode terminates. An
action that is not an integer id in ``[0, num_actions)`` raises ``IllegalActionError`` (like
``checked_step``); an opponent policy that returns an illegal action raises ``IllegalActionError``
naming it, since it would otherwise stall the game, and so does one whose action is not one
integer id (a float such as ``1.5``, a bool, a vector: refused when the wrapper is first reset,
never truncated). ``step`` or ``action_masks`` before ``reset`` raises :class:`ResetNeededError`
(Gymnasium's ``ResetNeeded`` and a ``TcgjaxError``).

**Seeding.** ``reset(seed=s)`` takes ``s`` None or an int in ``[0, 2**32)``
(:func:`tcgjax.wrappers.seeding.check_seed`, the rule of every wrapper; anything else is a
``ConfigError``), seeds ``np_random`` with it (Gymnasium's rule) and draws the JAX key of the
episode from it; chance inside steps (draws, shuffles, the random opponent) uses keys split from
it. The same seed and the same actions give the same episode, bit for bit, on the same machine.

**Vector env and autoreset.** :class:`TcgjaxVectorEnv` follows Gymnasium 1.x's
``AutoresetMode.NEXT_STEP`` (declared in ``metadata["autoreset_mode"]``): when a game ends, the step
that ended it returns its final observation with ``terminated``/``truncated`` set; the *next*
``step`` call ignores that game's action and resets it, returning its first observation with reward 0
and both flags False. Every game's step and reset run in the same jitted call (only the games that
need it are initialised: :func:`tcgjax.core.tree.when_some`); nothing loops over games in Python.

Registered ids, on ``import tcgjax.wrappers.gymnasium``: ``tcgjax/<Game>-v0`` for every game of
:func:`tcgjax.available_envs` (``tcgjax/Digimon-v0``, ...). ``gymnasium.make`` passes keyword options
through (``opponent=``, ``agent_seat=``, and the game's own options such as ``decks=``);
``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` builds the jitted vector env.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from tcgjax.core import errors
from tcgjax.core.checked import action_id
from tcgjax.core.env import Env, State
from tcgjax.core.errors import ConfigError, IllegalActionError, TcgjaxError
from tcgjax.core.first_use import announced
from tcgjax.core.tree import when_some
from tcgjax.registry import available_envs
from tcgjax.registry import make as make_env
from tcgjax.wrappers.seeding import check_seed

__all__ = [
    "TcgjaxEnv",
    "TcgjaxVectorEnv",
    "observation_space",
    "opponent_policy",
    "gymnasium_id",
    "register_envs",
    "ResetNeededError",
]

Policy = Callable[[State, jax.Array], jax.Array]


class ResetNeededError(TcgjaxError, ResetNeeded):
    """A wrapper was stepped or read before ``reset`` (or after its game ended): Gymnasium's
    ``ResetNeeded`` (what its ecosystem catches) and a ``TcgjaxError``. The PettingZoo wrapper
    raises it too."""


def _opponent_action(env: Env, action: Any) -> jax.Array:
    """The opponent policy's ``action`` as int32[], refused at trace time (``IllegalActionError``,
    rule ``action_not_an_integer``) unless it is one integer id: a float (``1.5`` would be
    truncated to 1), a bool or an array with a dimension is the policy's bug."""
    try:
        value = jnp.asarray(action)
    except TypeError:
        value = None
    if (
        value is None
        or value.shape != ()
        or value.dtype == jnp.bool_
        or not jnp.issubdtype(value.dtype, jnp.integer)
    ):
        what = "a value JAX cannot hold" if value is None else f"{value.dtype}{list(value.shape)}"
        raise IllegalActionError(
            f"{env.id}: the opponent policy must return one integer id (int32[]), got {what}: "
            "an action is never rounded or truncated",
            rule="action_not_an_integer",
        )
    return value.astype(jnp.int32)


def gymnasium_id(env_id: str) -> str:
    """The registered Gymnasium id of a tcgjax game: ``"digimon"`` -> ``"tcgjax/Digimon-v0"``."""
    return f"tcgjax/{env_id.capitalize()}-v0"


def observation_space(env: Env) -> spaces.Dict:
    """``Dict(observation=Box(float32[O]), action_mask=MultiBinary(A))`` for one seat of ``env``;
    the ``Box`` bounds are ``env.observation_bounds()`` (finite where the game bounds an entry,
    ``±inf`` where it does not)."""
    low, high = env.observation_bounds()
    return spaces.Dict(
        {
            "observation": spaces.Box(low, high, env.observation_shape, np.float32),
            "action_mask": spaces.MultiBinary(env.num_actions),
        }
    )


def opponent_policy(env: Env, opponent: str | Policy) -> Policy:
    """The opponent as a pure policy ``(state, key) -> int32[]`` for one game of ``env``
    (:func:`tcgjax.train.policies.opponent_policy`: ``"random"``, ``"heuristic"``,
    ``"baseline"``, a run directory of ``python -m tcgjax.train``, or a callable).

    Raises:
      ConfigError: anything else, or a trained agent that cannot be loaded for this env.
    """
    from tcgjax.train.policies import opponent_policy as resolve  # pulls in the trainer

    return resolve(env, opponent)


def _check_seat(env: Env, agent_seat) -> int:
    if isinstance(agent_seat, bool) or not isinstance(agent_seat, int | np.integer):
        raise ConfigError(f"env {env.id!r}: agent_seat={agent_seat!r} must be an int")
    if not 0 <= int(agent_seat) < env.num_players:
        raise ConfigError(
            f"env {env.id!r}: agent_seat={agent_seat!r} is outside [0, {env.num_players})"
        )
    return int(agent_seat)


class SeatStep(NamedTuple):
    """What the agent sees after its action and the opponent's replies (one game; a batch under
    ``vmap``).

    Attributes:
      state: the game, at the agent's turn or over.
      observation: float32[O], the agent seat's view.
      action_mask: bool[A], the agent's legal actions (all True once the game is over).
      reward: float32[], the agent seat's reward summed over the agent's and opponent's steps.
      terminated, truncated: bool[].
      error: int32[], the error code of the agent's action (0 = legal).
      opponent_error: int32[], the error code of an illegal opponent action (0 = none).
      opponent_action: int32[], the opponent's last action (-1 = it did not act).
    """

    state: State
    observation: jax.Array
    action_mask: jax.Array
    reward: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    error: jax.Array
    opponent_error: jax.Array
    opponent_action: jax.Array


class _Seat:
    """The pure functions of one seat against one opponent (one game each; vmap them for a batch).

    One loop, :meth:`advance`, applies the agent's action and then the opponent's replies, so that
    the game's ``step`` is traced (and compiled) once per wrapper, not once per caller. The agent's
    seat is an argument, not a constant: wrappers of either seat share one compiled program.
    """

    def __init__(self, env: Env, opponent: Policy):
        self.env, self.opponent = env, opponent

    def advance(
        self, state: State, action: jax.Array, key: jax.Array, agent_acts, seat: jax.Array
    ) -> SeatStep:
        """If ``agent_acts``, the agent's ``action``; then the opponent until the agent's turn
        (``seat``, int32[]), the end, or an illegal opponent action. A rejected agent action
        changes nothing (and the opponent does not move: it is still the agent's turn).
        ``agent_acts`` False: only the opponent (after ``init``)."""
        env = self.env
        seat = jnp.asarray(seat, jnp.int32)

        def going_on(carry):
            state, _, _, _, opponent_error, _, agent_turn = carry
            done = state.terminated | state.truncated
            opponent_turn = ~done & (state.current_player != seat) & (opponent_error == errors.OK)
            return agent_turn | opponent_turn

        def move(carry):
            state, key, reward, error, opponent_error, opponent_action, agent_turn = carry
            key, act_key, step_key = jax.random.split(key, 3)
            chosen = jnp.where(
                agent_turn, action, _opponent_action(env, self.opponent(state, act_key))
            )
            state = env.step(state, chosen, step_key)
            return (
                state,
                key,
                reward + state.rewards[seat],
                jnp.where(agent_turn, state.error, error),
                jnp.where(agent_turn, opponent_error, state.error),
                jnp.where(agent_turn, opponent_action, chosen),
                jnp.bool_(False),
            )

        ok = jnp.int32(errors.OK)
        carry = (state, key, jnp.float32(0.0), ok, ok, jnp.int32(-1), jnp.asarray(agent_acts))
        state, _, reward, error, opponent_error, opponent_action, _ = jax.lax.while_loop(
            going_on, move, carry
        )
        at_seat = state.current_player == seat
        # state.observation is the current player's; the seat's own view differs only when the
        # game ended on the opponent's action.
        observation = jnp.where(at_seat, state.observation, env.observe(state, seat))
        return SeatStep(
            state=state,
            observation=observation,
            action_mask=state.legal_action_mask | state.terminated | state.truncated,
            reward=reward,
            terminated=state.terminated,
            truncated=state.truncated,
            error=error,
            opponent_error=opponent_error,
            opponent_action=opponent_action,
        )


@functools.lru_cache(maxsize=32)
def jitted_init(env: Env):
    """``jax.jit(env.init)``, one per env (shared by the Gymnasium and PettingZoo wrappers)."""
    return announced(jax.jit(env.init), f"{env.id}'s init")


@functools.lru_cache(maxsize=32)
def _compiled_seat(env: Env, opponent: Policy, batched: bool):
    """``(init, advance)`` against one opponent, jitted and cached so that wrappers of the same
    env (either seat) share them. Batched: ``init`` is None and ``advance(states, actions, key,
    needs_reset, seat)`` first re-initialises the games that need it (only those: ``when_some``),
    then advances every game in one loop."""
    seat_fns = _Seat(env, opponent)
    if not batched:
        return jitted_init(env), announced(
            jax.jit(seat_fns.advance), f"{env.id}'s step with its opponent"
        )

    def vector_advance(states: State, actions, key, needs_reset, seat):
        num = actions.shape[0]
        init_keys, step_keys = jnp.split(jax.random.split(key, 2 * num), 2)

        def fresh(state, init_key):
            del state
            return env.init(init_key)

        states = jax.vmap(lambda s, k, n: when_some(n, fresh, s, k))(states, init_keys, needs_reset)
        return jax.vmap(seat_fns.advance, in_axes=(0, 0, 0, 0, None))(
            states, actions, step_keys, ~needs_reset, seat
        )

    # The vector env starts from placeholders (reset).
    return None, announced(jax.jit(vector_advance), f"{env.id}'s batched step with its opponent")


def _host(x, dtype=None) -> np.ndarray:
    """A fresh NumPy copy (Gymnasium's checker requires that no two calls share arrays)."""
    return np.array(jax.device_get(x), dtype=dtype, copy=True)


def _raise_opponent_error(env: Env, result: SeatStep) -> None:
    codes = np.atleast_1d(np.asarray(result.opponent_error))
    if np.any(codes != errors.OK):
        game = int(np.flatnonzero(codes != errors.OK)[0])
        code = int(codes[game])
        action = int(np.atleast_1d(np.asarray(result.opponent_action))[game])
        raise IllegalActionError(
            f"{env.id}: the opponent policy chose action {action} "
            f"({_opponent_move_name(env, result, game, action)}), "
            f"which is illegal: rule {env.error_codes.name(code)!r}: "
            f"{env.error_codes.message(code)}" + (f" (game {game})" if codes.size > 1 else ""),
            code=code,
            rule=env.error_codes.name(code),
        )


def _opponent_move_name(env: Env, result: SeatStep, game: int, action: int) -> str:
    """The name of the opponent's illegal ``action`` in game ``game`` of ``result``. Under
    ``illegal_action="reject"`` the rejected action left the state as the opponent saw it, so
    the move is named there (``env.describe_action``); under ``"lose"`` the game has ended, and
    the id gets its phase-free name (``env.action_name``), said to be one."""
    if env.illegal_action != "reject" or not 0 <= action < env.num_actions:
        return f"id {env.action_name(action)}"
    state = result.state
    if np.ndim(state.terminated) != 0:  # a batch: the failing game
        state = jax.tree.map(lambda x: x[game], state)
    return env.describe_action(state, action)


def _key_from(np_random: np.random.Generator) -> jax.Array:
    return jax.random.PRNGKey(int(np_random.integers(0, 2**32, dtype=np.uint64)))


def _seat_setup(wrapper, env_id, opponent, agent_seat, render_mode, env_options) -> None:
    """What both wrappers set up alike: ``game`` (the tcgjax ``Env``), ``render_mode`` (one of
    the wrapper's ``metadata["render_modes"]`` or None), ``agent_seat`` and ``opponent``
    (checked)."""
    wrapper.game = env_id if isinstance(env_id, Env) else make_env(env_id, **env_options)
    modes = wrapper.metadata["render_modes"]
    if render_mode is not None and render_mode not in modes:
        raise ConfigError(
            f"env {wrapper.game.id!r}: render_mode={render_mode!r} is not one of {[None, *modes]}"
        )
    wrapper.render_mode = render_mode
    wrapper.agent_seat = _check_seat(wrapper.game, agent_seat)
    wrapper.opponent = opponent_policy(wrapper.game, opponent)


def _observation_of(env: Env, result: SeatStep) -> dict[str, np.ndarray]:
    """The Dict observation (fresh NumPy copies) of ``result``, after refusing an illegal
    opponent action."""
    _raise_opponent_error(env, result)
    return {
        "observation": _host(result.observation, np.float32),
        "action_mask": _host(result.action_mask, np.int8),
    }


class TcgjaxEnv(gymnasium.Env):
    """One seat of a tcgjax game as a single-agent ``gymnasium.Env`` (see the module docstring).

    Args:
      env_id: a tcgjax game id (:func:`tcgjax.available_envs`) or an ``Env`` already made.
      opponent: ``"random"`` (default), ``"heuristic"`` or a pure policy ``(state, key) -> action``.
      agent_seat: the seat the agent plays (0 default).
      render_mode: None, ``"ansi"``: :meth:`render` returns the game's text picture from the
        agent's seat (``env.render(state, viewer=agent_seat)``: the opponent's hidden cards face
        down), or ``"rgb_array"``: the same picture rasterized, ``uint8[H, W, 3]``
        (:meth:`tcgjax.core.render.Picture.rgb`; every frame of an env the size of its first, so
        Gymnasium's ``RecordVideo`` can write them); ``game.render(wrapper.state)`` gives the SVG.
      **env_options: passed to :func:`tcgjax.make` (e.g. ``decks=``, ``illegal_action=``).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        env_id: str | Env = "duel",
        *,
        opponent: str | Policy = "random",
        agent_seat: int = 0,
        render_mode: str | None = None,
        **env_options,
    ):
        _seat_setup(self, env_id, opponent, agent_seat, render_mode, env_options)
        self.observation_space = observation_space(self.game)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self._init_fn, self._advance_fn = _compiled_seat(self.game, self.opponent, False)
        self._seat = jnp.int32(self.agent_seat)
        self._key: jax.Array | None = None
        self._last: SeatStep | None = None
        self._frame_size: tuple[int, int] | None = None

    @property
    def state(self) -> State:
        """The current ``tcgjax.State`` (at the agent's turn, or over). Raises before ``reset``."""
        if self._last is None:
            raise ResetNeededError(f"env {self.game.id!r}: call reset() before reading the state")
        return self._last.state

    def render(self) -> str | np.ndarray | None:
        """The picture of the game from the agent's seat: its text (``render_mode="ansi"``), its
        pixels ``uint8[H, W, 3]`` (``"rgb_array"``), else None."""
        if self.render_mode is None:
            return None
        picture = self.game.render(self.state, viewer=self.agent_seat)
        if self.render_mode == "ansi":
            return picture.text
        frame = picture.rgb(self._frame_size)
        self._frame_size = frame.shape[:2]  # later frames fit this size (one video size)
        return frame

    def _output(self, result: SeatStep):
        observation = _observation_of(self.game, result)
        self._last = result
        code = int(result.error)
        info = {
            "action_mask": _host(result.action_mask, bool),
            "error": code,
            "rule": self.game.error_codes.name(code) if code else "",
            "current_player": int(result.state.current_player),
        }
        return observation, info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a new game; returns ``(observation, info)``. ``seed``: None or an int in
        ``[0, 2**32)`` (:func:`tcgjax.wrappers.seeding.check_seed`; else ``ConfigError``).
        ``options`` are not used."""
        super().reset(seed=check_seed(seed, f"env {self.game.id!r}"))
        self._key = _key_from(self.np_random)
        self._key, init_key, key = jax.random.split(self._key, 3)
        state = self._init_fn(init_key)
        return self._output(self._advance_fn(state, jnp.int32(0), key, False, self._seat))

    def step(self, action):
        """Apply the agent's ``action`` (an integer id), then the opponent's replies.

        Returns ``(observation, reward, terminated, truncated, info)``.
        Raises:
          ResetNeededError: before ``reset`` or after the episode ended.
          IllegalActionError: ``action`` is not an integer id in ``[0, num_actions)``, or the
            opponent policy chose an illegal action.
        """
        if self._last is None or bool(self._last.terminated | self._last.truncated):
            raise ResetNeededError(
                f"env {self.game.id!r}: the episode is over (or never started): call reset()"
            )
        action = action_id(self.game, action)
        self._key, key = jax.random.split(self._key)
        result = self._advance_fn(self._last.state, jnp.int32(action), key, True, self._seat)
        observation, info = self._output(result)
        return (
            observation,
            float(result.reward),
            bool(result.terminated),
            bool(result.truncated),
            info,
        )

    def action_masks(self) -> np.ndarray:
        """bool[A], the agent's legal actions now (sb3-contrib ``MaskablePPO`` reads this)."""
        if self._last is None:
            raise ResetNeededError(
                f"env {self.game.id!r}: call reset() before asking for the action mask"
            )
        return _host(self._last.action_mask, bool)


class TcgjaxVectorEnv(VectorEnv):
    """``num_envs`` games of one seat, stepped together in one jitted call (Gymnasium 1.x
    ``VectorEnv``, autoreset ``NEXT_STEP``; see the module docstring).

    Observations are batched dicts (``observation`` float32[N, O], ``action_mask`` int8[N, A]);
    ``infos`` holds ``action_mask`` bool[N, A] and ``error`` int32[N]; ``action_masks()`` returns
    bool[N, A]. Args as :class:`TcgjaxEnv`, plus ``num_envs``; no render mode (draw one game
    with ``game.render``).
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        env_id: str | Env = "duel",
        num_envs: int = 8,
        *,
        opponent: str | Policy = "random",
        agent_seat: int = 0,
        render_mode: str | None = None,
        **env_options,
    ):
        _seat_setup(self, env_id, opponent, agent_seat, render_mode, env_options)
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ConfigError(f"env {self.game.id!r}: num_envs={num_envs!r} must be an int >= 1")
        self.num_envs = num_envs
        self.single_observation_space = observation_space(self.game)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        _, self._advance_fn = _compiled_seat(self.game, self.opponent, True)
        self._seat = jnp.int32(self.agent_seat)
        keys = jax.ShapeDtypeStruct((num_envs, 2), jnp.uint32)
        self._state_shapes = jax.eval_shape(jax.vmap(self.game.init), keys)
        self._key: jax.Array | None = None
        self._last: SeatStep | None = None

    @property
    def states(self) -> State:
        """The batch of ``tcgjax.State`` now (leading axis ``num_envs``)."""
        if self._last is None:
            raise ResetNeededError(f"env {self.game.id!r}: call reset() before reading the states")
        return self._last.state

    def _output(self, result: SeatStep):
        observation = _observation_of(self.game, result)
        self._last = result
        info = {"action_mask": _host(result.action_mask, bool), "error": _host(result.error)}
        return observation, info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset every game; returns ``(observations, infos)``. ``seed``: None or an int in
        ``[0, 2**32)`` (the games' keys are split from it;
        :func:`tcgjax.wrappers.seeding.check_seed`, else ``ConfigError``). ``options`` are not
        used."""
        seed = check_seed(seed, f"env {self.game.id!r}")
        if seed is not None:
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
        self._key, key = jax.random.split(_key_from(self.np_random))
        # Every game is initialised by the same jitted call as step's autoreset: the states passed
        # in are placeholders of the right shapes (all marked for reset), not a second program.
        states = jax.tree.map(lambda leaf: jnp.zeros(leaf.shape, leaf.dtype), self._state_shapes)
        actions = jnp.zeros(self.num_envs, jnp.int32)
        everyone = jnp.ones(self.num_envs, jnp.bool_)
        return self._output(self._advance_fn(states, actions, key, everyone, self._seat))

    def step(self, actions):
        """One action per game (int array [N]); games that ended on the previous step are reset
        instead (their action is ignored). Returns ``(observations, rewards float32[N],
        terminations bool[N], truncations bool[N], infos)``.

        Raises:
          ResetNeededError: before ``reset``.
          IllegalActionError: an action that is not an integer id in ``[0, num_actions)``
            (naming the game), or an illegal opponent action.
        """
        if self._last is None:
            raise ResetNeededError(f"env {self.game.id!r}: call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                f"{self.game.id}: actions must be an integer array of shape ({self.num_envs},), "
                f"got {actions.dtype} {actions.shape}",
                rule="action_not_an_integer",
            )
        bad = (actions < 0) | (actions >= self.game.num_actions)
        if np.any(bad):
            game = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(
                f"{self.game.id}: action {int(actions[game])} of game {game} is outside "
                f"[0, {self.game.num_actions})",
                code=errors.ACTION_OUT_OF_RANGE,
                rule="action_out_of_range",
            )
        needs_reset = self._last.terminated | self._last.truncated
        self._key, key = jax.random.split(self._key)
        result = self._advance_fn(
            self._last.state, jnp.asarray(actions, jnp.int32), key, needs_reset, self._seat
        )
        observation, info = self._output(result)
        return (
            observation,
            _host(result.reward, np.float32),
            _host(result.terminated, bool),
            _host(result.truncated, bool),
            info,
        )

    def action_masks(self) -> np.ndarray:
        """bool[N, A], every game's legal actions now."""
        if self._last is None:
            raise ResetNeededError(
                f"env {self.game.id!r}: call reset() before asking for the action masks"
            )
        return _host(self._last.action_mask, bool)


def register_envs() -> tuple[str, ...]:
    """Register ``tcgjax/<Game>-v0`` for every tcgjax game (idempotent); returns the ids."""
    ids = []
    for env_id in available_envs():
        gym_id = gymnasium_id(env_id)
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                gym_id,
                entry_point=TcgjaxEnv,
                vector_entry_point=TcgjaxVectorEnv,
                kwargs={"env_id": env_id},
            )
        ids.append(gym_id)
    return tuple(ids)


register_envs()
