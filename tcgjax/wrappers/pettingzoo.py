"""PettingZoo adapter: a tcgjax game as an AEC environment (``pettingzoo.AECEnv``).

Agents are ``"player_0"``, ``"player_1"``, ... (seat order). Turns need not alternate: the agent to
act (``agent_selection``) is always the game's ``current_player``, so one agent may act many times in
a row (a card-game turn is many actions). Each agent observes ``{"observation": float32[O],
"action_mask": int8[A]}``: its own view of the game (hidden information respected) and, while it is
the agent to act, its legal actions (all zeros otherwise, PettingZoo's convention for the classic
games). ``rewards`` are the game's per-step rewards (+1 / -1 at the end).

**Illegal actions** follow the env's ``illegal_action`` option, as in :mod:`tcgjax.wrappers.gymnasium`:
``"reject"`` (default) leaves the game unchanged (the same agent acts again) with ``infos[agent]
["error"]`` / ``["rule"]`` naming the broken rule; ``"lose"`` ends the game with that agent losing.
An action that is not an integer id in ``[0, num_actions)`` raises ``IllegalActionError``.

**End of a game.** When the game ends, every agent is terminated (or truncated) at once; as
PettingZoo requires, each then steps with ``None`` (any other action raises
``IllegalActionError``, a ``ValueError`` as in PettingZoo) and is removed (``agents`` empties).
A step once every agent has left, or ``step``, ``observe`` or ``last`` before ``reset``, raises
:class:`tcgjax.wrappers.gymnasium.ResetNeededError` (a ``TcgjaxError``); the final observations
stay readable after the end. ``observe`` of a name that is not an agent raises ``PlayerError``.

**Seeding.** ``reset(seed=s)`` takes ``s`` None or an int in ``[0, 2**32)``
(:func:`tcgjax.wrappers.seeding.check_seed`, the rule of every wrapper; anything else is a
``ConfigError``) and the JAX key ``PRNGKey(s)``; ``reset()`` without a seed goes on from the
previous key chain (a fresh env with no seed starts from OS entropy). Chance inside steps uses
keys split from it, so the same seed and actions replay the same game.

The step is ``env.step`` jitted once per env (shared with :func:`tcgjax.checked_step`).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from tcgjax.core.checked import _compiled, action_id
from tcgjax.core.env import Env, State
from tcgjax.core.errors import ConfigError, IllegalActionError, PlayerError
from tcgjax.core.first_use import announced
from tcgjax.core.serialization import _show
from tcgjax.registry import make as make_env
from tcgjax.wrappers.gymnasium import ResetNeededError, jitted_init, observation_space
from tcgjax.wrappers.seeding import check_seed

__all__ = ["TcgjaxAECEnv", "env", "agent_name"]


def agent_name(seat: int) -> str:
    """PettingZoo name of seat ``seat``: ``"player_<seat>"``."""
    return f"player_{seat}"


@functools.lru_cache(maxsize=32)
def _jitted_observe(game: Env):
    return announced(jax.jit(game.observe), f"{game.id}'s observation")


class TcgjaxAECEnv(AECEnv):
    """A tcgjax game as a PettingZoo AEC env (see the module docstring).

    Args:
      env_id: a tcgjax game id or an ``Env`` already made.
      render_mode: None, or ``"ansi"``: :meth:`render` returns the game's text picture as a
        spectator sees it (every card face up: ``env.render(state)``).
      **env_options: passed to :func:`tcgjax.make`.
    """

    metadata = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self, env_id: str | Env = "duel", *, render_mode: str | None = None, **env_options
    ):
        super().__init__()
        self.game = env_id if isinstance(env_id, Env) else make_env(env_id, **env_options)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ConfigError(
                f"env {self.game.id!r}: render_mode={render_mode!r} is not one of "
                f"{[None, *self.metadata['render_modes']]}"
            )
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"tcgjax_{self.game.id}_v0"}
        self.possible_agents = [agent_name(seat) for seat in range(self.game.num_players)]
        self._seat = {name: seat for seat, name in enumerate(self.possible_agents)}
        # One space object per agent: PettingZoo checks that the same object comes back each time.
        self._observation_spaces = {a: observation_space(self.game) for a in self.possible_agents}
        self._action_spaces = {
            a: spaces.Discrete(self.game.num_actions) for a in self.possible_agents
        }
        self._init, self._observe = jitted_init(self.game), _jitted_observe(self.game)
        self._step = _compiled(self.game)[1]
        self._key: jax.Array | None = None
        self.state: State | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_spaces[agent]

    def _next_key(self) -> jax.Array:
        self._key, key = jax.random.split(self._key)
        return key

    def _check_started(self, call: str) -> None:
        if self.state is None:
            raise ResetNeededError(f"env {self.game.id!r}: call reset() before {call}")

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. ``seed``: None or an int in ``[0, 2**32)``
        (:func:`tcgjax.wrappers.seeding.check_seed`; else ``ConfigError``); ``options`` are not
        used."""
        seed = check_seed(seed, f"env {self.game.id!r}")
        if seed is not None:
            self._key = jax.random.PRNGKey(seed)
        elif self._key is None:
            self._key = jax.random.PRNGKey(np.random.SeedSequence().entropy % 2**32)
        self.state = self._init(self._next_key())
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {"error": 0, "rule": ""} for a in self.agents}
        self.agent_selection = agent_name(int(self.state.current_player))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s view: observation float32[O] and action_mask int8[A] (zeros unless it acts).

        Raises:
          ResetNeededError: before ``reset``.
          PlayerError: ``agent`` is not one of ``possible_agents``.
        """
        self._check_started("observe()")
        if agent not in self.possible_agents:
            raise PlayerError(
                f"env {self.game.id!r}: agent {_show(agent)} is not one of {self.possible_agents}"
            )
        seat = self._seat[agent]
        state = self.state
        acting = int(state.current_player) == seat and not bool(state.terminated | state.truncated)
        observation = state.observation if acting else self._observe(state, seat)
        mask = np.asarray(state.legal_action_mask) if acting else np.zeros(self.game.num_actions)
        return {
            "observation": np.array(observation, np.float32, copy=True),
            "action_mask": np.array(mask, np.int8, copy=True),
        }

    def last(self, observe: bool = True):
        """PettingZoo's ``last`` (the selected agent's observation, cumulative reward, flags and
        info). Raises ``ResetNeededError`` before ``reset`` and once every agent has left."""
        self._check_started("last()")
        if not self.agents:
            raise ResetNeededError(
                f"env {self.game.id!r}: the game is over and every agent has left: call reset()"
            )
        return super().last(observe)

    def step(self, action) -> None:
        """The selected agent's ``action`` (an integer id; ``None`` once it is terminated or
        truncated).

        Raises:
          IllegalActionError: an action that is not an integer id in ``[0, num_actions)``, or
            one that is not ``None`` for a terminated or truncated agent (a ``ValueError``, as
            PettingZoo's own check).
          ResetNeededError: before ``reset``, or once every agent has left.
        """
        self._check_started("step()")
        if not self.agents:
            raise ResetNeededError(
                f"env {self.game.id!r}: the game is over and every agent has left: call reset()"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalActionError(
                    f"{self.game.id}: {agent} has finished the game (terminated or truncated): "
                    f"it may only step None, got {_show(action)}",
                    rule="agent_done",
                )
            self._was_dead_step(action)
            return
        action = action_id(self.game, action)
        self.state = self._step(self.state, action, self._next_key())
        state = self.state
        code = int(state.error)
        self._cumulative_rewards[agent] = 0.0
        rewards = np.asarray(state.rewards)
        self.rewards = {a: float(rewards[self._seat[a]]) for a in self.agents}
        terminated, truncated = bool(state.terminated), bool(state.truncated)
        self.terminations = {a: terminated for a in self.agents}
        self.truncations = {a: truncated for a in self.agents}
        self.infos = {a: {"error": 0, "rule": ""} for a in self.agents}
        if code:
            self.infos[agent] = {"error": code, "rule": self.game.error_codes.name(code)}
        # After the end the agents leave in seat order (each steps None); before, the game says.
        self.agent_selection = (
            self.agents[0] if terminated or truncated else agent_name(int(state.current_player))
        )
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The spectator's text picture (``render_mode="ansi"``; None before ``reset``), else
        None."""
        if self.render_mode != "ansi" or self.state is None:
            return None
        return self.game.render(self.state).text

    def close(self) -> None:
        """Nothing to release."""


def env(env_id: str = "duel", **options) -> TcgjaxAECEnv:
    """PettingZoo's constructor convention: ``tcgjax.wrappers.pettingzoo.env("digimon")``."""
    return TcgjaxAECEnv(env_id, **options)
