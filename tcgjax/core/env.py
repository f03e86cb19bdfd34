"""The env template: ``State`` and ``Env``, owning every cross-game convention once.

A game subclasses :class:`Env` and implements only its rules hooks (``_init_game``, ``_apply_action``,
``_legal_action_mask``, ``_observe``, ``_current_player``, ``_is_terminal``, optionally
``_action_error`` and ``_describe_action``, the names of moves). The core owns, for every game:

* **Absorbing terminals.** Stepping a terminated or truncated state returns it unchanged with zero
  rewards.
* **Terminal mask.** At terminal (or truncated) states ``legal_action_mask`` is all True (Pgx's
  convention: any action is a no-op there, and a policy never divides by an empty mask). Elsewhere it
  is the game's mask, which is never all False.
* **Illegal actions**, including ids outside ``[0, num_actions)``. ``illegal_action="reject"``
  (default): every game field and ``step_count`` unchanged, rewards zero, ``error``
  set to the code of the broken rule. ``illegal_action="lose"``: the actor loses (reward -1, the others
  share +1), the episode terminates, ``error`` names the rule.
* **Truncation** once ``step_count`` reaches ``max_steps`` (an env option; each game has a default),
  or when the game reaches a limit of its own (``_is_truncated``, e.g. a turn limit).
* **Derived fields.** ``current_player``, ``observation`` and ``legal_action_mask`` are recomputed from
  the rules state after every step; a game never writes them.
"""

from __future__ import annotations

import abc
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax.core import errors
from tcgjax.core.actions import ActionLayout
from tcgjax.core.observation import ObservationLayout
from tcgjax.core.tree import tree_where, when_any

__all__ = ["State", "Env", "StepResult", "tree_where", "ILLEGAL_ACTION_POLICIES"]

ILLEGAL_ACTION_POLICIES = ("reject", "lose")
MAX_STEPS_LIMIT = 2**31 - 1  # step_count is int32 and never counts past max_steps


@struct.dataclass
class State:
    """The state of one game. Shape letters: ``P`` players, ``A`` actions, ``O`` observation.

    Attributes:
      current_player: int32[] — the player to act (derived from the rules state).
      observation: float32[O] — ``observe(state, current_player)``.
      legal_action_mask: bool[A] — True = legal; all True at terminal/truncated states.
      rewards: float32[P] — rewards produced by the last step.
      terminated: bool[] — the game ended by its rules (or an illegal action under ``"lose"``).
      truncated: bool[] — the step limit (or the game's own limit) was reached first.
      step_count: int32[] — applied steps since the state began: ``init``, or a situation built
        by hand or loaded from JSON, which may start at step 0 in any turn (so the count is not
        bounded below by the turn number; ``max_steps`` truncates that many steps after it).
      error: int32[] — error code of the last step (0 = none); see ``env.error_codes``.
      game: the game's rules state (a pytree of fixed-shape arrays, usually holding a ``Board``).
    """

    current_player: jax.Array
    observation: jax.Array
    legal_action_mask: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    step_count: jax.Array
    error: jax.Array
    game: Any

    def _repr_svg_(self) -> str | None:
        """Notebook display: the picture of one game, drawn by the env that made it (see
        :func:`tcgjax.core.render.display_env`); ``None`` (text repr) for a batch or when
        ambiguous."""
        from tcgjax.core.render import display_env

        env = display_env(self.game)
        if env is None or np.ndim(self.terminated) != 0:
            return None
        return env.render(self).svg


class StepResult(NamedTuple):
    """What a game's ``_apply_action`` returns: the new rules state and rewards float32[P]."""

    game: Any
    rewards: jax.Array


class Env(abc.ABC):
    """Base class of every tcgjax environment (Pgx-compatible names).

    Subclasses set, in ``__init__`` before calling ``super().__init__``: ``id``, ``version``,
    ``num_players``, ``action_layout`` (an :class:`ActionLayout`), ``observation_layout`` (an
    :class:`ObservationLayout`), ``default_max_steps``, ``rule_errors`` (their error codes) and, for
    card games, ``board_layout``.

    Args (keyword-only, common to every env):
      illegal_action: ``"reject"`` (default) or ``"lose"``.
      max_steps: truncation limit; ``None`` takes the game's ``default_max_steps``.
    """

    id: str
    version: str
    num_players: int
    action_layout: ActionLayout
    observation_layout: ObservationLayout
    default_max_steps: int
    rule_errors: tuple[errors.RuleError, ...] = ()
    board_layout: Any = None
    zero_sum: bool = True  # two-player rewards always sum to zero (checked by api_test)
    # Whether a step may reward players while the game goes on (shaping rewards). When False,
    # ``validate`` refuses a state with non-zero rewards that is neither terminated nor truncated.
    rewards_mid_game: bool = False
    game_state_type: type | None = None  # the rules state's class: its States display themselves
    # The matchups (each seat's deck) a game is drawn from, by name ("tapu_koko vs melmetal_dte");
    # () for a game without decks. ``matchup(state)`` is the game's index into it.
    matchups: tuple[str, ...] = ()

    def __init__(self, *, illegal_action: str = "reject", max_steps: int | None = None, **options):
        if illegal_action not in ILLEGAL_ACTION_POLICIES:
            raise errors.ConfigError(
                f"env {self.id!r}: option illegal_action={illegal_action!r} is not one of "
                f"{ILLEGAL_ACTION_POLICIES}"
            )
        if max_steps is None:
            max_steps = self.default_max_steps
        if (
            isinstance(max_steps, bool)
            or not isinstance(max_steps, int)
            or not 0 < max_steps <= MAX_STEPS_LIMIT
        ):
            raise errors.ConfigError(
                f"env {self.id!r}: option max_steps={max_steps!r} must be an int in "
                f"[1, {MAX_STEPS_LIMIT}] (step_count is an int32)"
            )
        self.illegal_action = illegal_action
        self.max_steps = max_steps
        self.options = {"illegal_action": illegal_action, "max_steps": max_steps, **options}
        self.error_codes = errors.ErrorCodes(self.rule_errors)
        if self.game_state_type is not None:
            from tcgjax.core.render import register_display

            register_display(self.game_state_type, self)

    # ----------------------------------------------------------------------------------------------
    # Metadata

    @property
    def num_actions(self) -> int:
        return self.action_layout.num_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return self.observation_layout.shape

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-entry bounds of the observations this env gives: ``(low, high)``.

        Every ``observe(state, player)`` (so every ``State.observation``) of a state reachable
        from ``init`` by play satisfies ``low <= observation <= high`` entry by entry; the
        Gymnasium and PettingZoo wrappers use them as the bounds of their ``Box``, and
        ``api_test`` checks them on every state it meets. A game declares them slice by slice
        of its :class:`~tcgjax.core.observation.ObservationLayout` (``_observation_bound_table``)
        from what its rules guarantee: counts by deck and zone sizes, card ids by the card
        definitions, ``-1.0`` for a hidden card, HP and damage by the card registry. An entry the
        game cannot bound is ``-inf`` / ``+inf`` on that side (the core default: every entry).
        The bounds are of the player's view: ``observe_omniscient`` may show card ids where
        ``observe`` shows ``-1.0``, and a situation built by hand (a scenario, a JSON state) may
        hold values play never reaches (e.g. a turn past the deck-out).

        Each finite bound is moved outward by about 2**-20 of its size (at least the smallest
        normal float32), so that a value the game computes in float32 (a product by a
        reciprocal) is never an ulp beyond it, and ``low < high`` in every entry (Gymnasium's
        checker warns on a ``Box`` entry whose bounds are equal, such as a padding entry that is
        always 0).

        Host-side; computed once per env and cached (envs are immutable).

        Returns:
          ``(low, high)``: read-only ``float32[O]`` NumPy arrays, ``O`` the observation size
          (``observation_shape``).

        Raises:
          ConfigError: the game's table names a slice its layout does not have, gives a bound
            of the wrong shape or NaN, or a low above its high.
        """
        cached = self.__dict__.get("_observation_bounds")
        if cached is not None:
            return cached
        layout = self.observation_layout
        low = np.full(layout.size, -np.inf)
        high = np.full(layout.size, np.inf)
        for name, (lo, hi) in self._observation_bound_table().items():
            if name not in layout.slices:
                raise errors.ConfigError(
                    f"env {self.id!r}: observation bounds for an unknown slice {name!r}; the "
                    f"layout has {list(layout.slices)}"
                )
            start, shape, _ = layout.slices[name]
            end = start + int(np.prod(shape, dtype=np.int64))
            try:
                low[start:end] = np.broadcast_to(np.asarray(lo, np.float64), shape).reshape(-1)
                high[start:end] = np.broadcast_to(np.asarray(hi, np.float64), shape).reshape(-1)
            except ValueError as exc:
                raise errors.ConfigError(
                    f"env {self.id!r}: observation bounds of slice {name!r} do not fit its shape "
                    f"{list(shape)}: {exc}"
                ) from None
        bad = np.flatnonzero(np.isnan(low) | np.isnan(high) | (low > high))
        if bad.size:
            i = int(bad[0])
            raise errors.ConfigError(
                f"env {self.id!r}: observation bounds of entry {i}: [{low[i]}, {high[i]}]"
            )
        tiny = float(np.finfo(np.float32).tiny)
        slack_low = np.maximum(np.abs(np.where(np.isfinite(low), low, 0.0)) * 2.0**-20, tiny)
        slack_high = np.maximum(np.abs(np.where(np.isfinite(high), high, 0.0)) * 2.0**-20, tiny)
        bounds = ((low - slack_low).astype(np.float32), (high + slack_high).astype(np.float32))
        for array in bounds:
            array.setflags(write=False)
        self.__dict__["_observation_bounds"] = bounds
        return bounds

    def action_name(self, action: int) -> str:
        """The phase-free name of an action id: its range and offset in the action layout
        (``play[0]``, ``attack[2->player]``), the same in every state.

        For places where no game state exists (a policy's logits, a mask, a table of ids). It does
        not say what the id does in a given position: where the ranges are reused by phase (a
        Digimon block or selection, a Pokémon promotion) it names the id's Main-phase meaning. A
        move in a game is named by :meth:`describe_action`.

        Args:
          action: an integer id; one outside ``[0, num_actions)`` is named ``<out of range: N>``.

        Returns:
          the id's name (a string without spaces; distinct ids have distinct names).
        """
        if not 0 <= int(action) < self.num_actions:
            return f"<out of range: {int(action)}>"
        return self.action_layout.name(int(action))

    def describe_action(self, state: State, action: int, *, viewer: int | None = None) -> str:
        """The name of ``action`` as a move in ``state``: what it does there, naming its cards.

        Host-side, for one concrete game (not jittable, not vmappable): the game reads the phase
        and the cards of ``state``, e.g. ``digivolve Greymon (hand 3) onto Agumon (field 1)``,
        ``block with Garurumon (field 0)``, ``evolve Tynamo (Active) into Eelektrik``. Positions
        are the action's own indices (0-based, as in the ids). ``tcgjax play``, the replay
        recordings (``actionName``), the replay viewer and the illegal-action messages name
        moves with it, always from the state *before* the move. A game without an override
        names the id by :meth:`action_name`.

        Every id in ``[0, num_actions)`` gets a name in every state, legal or not (an illegal id
        is named by what it would mean in this phase); the legal moves of one state have
        distinct names.

        Args:
          state: one game's ``State`` (no batch axis), concrete: the position the move is made in.
          action: an integer id; one outside ``[0, num_actions)`` is named ``<out of range: N>``.
          viewer: the player the name is shown to, or ``None`` (default: every card named, as in
            a recording). A card the move keeps hidden from ``viewer`` (a Pokémon put face down
            in setup, a card searched into the hand by the other player) is named ``a card``; the
            acting player sees every card of their own moves.

        Returns:
          the move's name, a readable string.

        Raises:
          ValueError: a batch of games; ``PlayerError`` (a ``ValueError``): a viewer that is not
            None or a player in ``[0, num_players)``.
        """
        self._check_one_game(state, viewer, "describe_action")
        action = int(action)
        if not 0 <= action < self.num_actions:
            return f"<out of range: {action}>"
        host = jax.device_get(state)
        return self._describe_action(host, action, None if viewer is None else int(viewer))

    def render(self, state: State, viewer: int | None = None):
        """A picture of one game (host-side, not jittable): SVG and text.

        Args:
          state: one game's ``State`` (no batch axis), concrete.
          viewer: the player whose view is drawn (hidden cards face down, their side at the
            bottom), or ``None`` for everything face up.

        Returns:
          a :class:`tcgjax.core.render.Picture` (``.svg``, ``.text``; displays in notebooks).

        Raises:
          ValueError: a batch of games; ``PlayerError`` (a ``ValueError``): a viewer that is not
            None or a player in ``[0, num_players)``.
        """
        self._check_one_game(state, viewer, "render")
        host = jax.tree.map(np.asarray, state)
        return self._picture(host, None if viewer is None else int(viewer))

    def render_grid(
        self, states: State, viewer: int | None = None, *, columns: int = 4, limit: int = 16
    ):
        """A picture of the first ``limit`` games of a batch, ``columns`` to a row (host-side):
        the batch-grid picture Pgx users know from ``save_svg`` of a batched state.

        Args:
          states: a ``State`` with one batch axis (``[B]`` leading every leaf), concrete.
          viewer: as in :meth:`render`, for every game.
          columns: games per row (a positive int).
          limit: how many games of the batch are drawn, from the first (a positive int).

        Returns:
          a :class:`tcgjax.core.render.Picture`; its text lists each game under ``game i``.

        Raises:
          ValueError: not a batch of one axis, or ``columns``/``limit`` not positive ints;
            ``PlayerError`` for a bad viewer.
        """
        from tcgjax.core.render import grid_picture

        shape = np.shape(states.terminated)
        if len(shape) != 1:
            raise ValueError(
                f"env {self.id!r}: render_grid takes a batch of games (one batch axis); this "
                f"state has batch shape {shape}"
            )
        for name, value in (("columns", columns), ("limit", limit)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"render_grid({name}={value!r}): expected a positive int")
        self._check_viewer(viewer)
        count = min(shape[0], limit)
        host = jax.tree.map(np.asarray, states)
        pictures = [
            self._picture(jax.tree.map(lambda x, i=i: x[i], host), viewer) for i in range(count)
        ]
        labels = [f"game {i}" for i in range(count)]
        return grid_picture(pictures, min(columns, count), labels)

    def save_svg(self, state: State, path, viewer: int | None = None, **grid) -> None:
        """Write ``state`` as SVG to ``path``: one game (:meth:`render`) or, for a batch, the grid
        of :meth:`render_grid` (``columns``, ``limit`` keywords): what ``pgx.save_svg`` does."""
        if np.ndim(state.terminated) == 0:
            if grid:
                raise ValueError(f"save_svg: {sorted(grid)} apply to a batch of games only")
            picture = self.render(state, viewer)
        else:
            picture = self.render_grid(state, viewer, **grid)
        with open(path, "w", encoding="utf-8") as f:
            f.write(picture.svg)

    def _check_one_game(self, state: State, viewer, caller: str) -> None:
        """Raise ``ValueError`` for a batch of games, then check ``viewer`` (host-side calls
        that take one game: render, describe_action)."""
        if np.ndim(state.terminated) != 0:
            raise ValueError(
                f"env {self.id!r}: {caller} takes one game; this state has batch shape "
                f"{np.shape(state.terminated)} (index it first, e.g. jax.tree.map(lambda x: x[0], s))"
            )
        self._check_viewer(viewer)

    def _check_viewer(self, viewer) -> None:
        """Raise ``PlayerError`` (a ``ValueError``) unless ``viewer`` is None or a player index
        (render, names, the replay page)."""
        if viewer is not None and (
            isinstance(viewer, bool)
            or not isinstance(viewer, int | np.integer)
            or not 0 <= int(viewer) < self.num_players
        ):
            raise errors.PlayerError(
                f"env {self.id!r}: viewer={viewer!r} must be None or a player in "
                f"[0, {self.num_players})"
            )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r}, version={self.version!r}, options={self.options})"

    # ----------------------------------------------------------------------------------------------
    # Public API (pure, jittable, vmappable)

    def init(self, key: jax.Array) -> State:
        """A new game. ``key``: PRNG key (consumed). Returns ``State``."""
        game = self._init_game(key)
        num_p = self.num_players
        state = State(
            current_player=jnp.int32(0),
            observation=jnp.zeros(self.observation_shape, jnp.float32),
            legal_action_mask=jnp.ones(self.num_actions, jnp.bool_),
            rewards=jnp.zeros(num_p, jnp.float32),
            terminated=jnp.asarray(self._is_terminal(game), jnp.bool_),
            truncated=jnp.bool_(False),
            step_count=jnp.int32(0),
            error=jnp.int32(errors.OK),
            game=game,
        )
        return self.finalize(state)

    def step(self, state: State, action: jax.Array, key: jax.Array) -> State:
        """Apply ``action`` (int) for ``state.current_player``; ``key`` is consumed by chance events.

        See the module docstring for terminal, illegal-action and truncation conventions.
        """
        action = jnp.asarray(action, jnp.int32)
        zeros = jnp.zeros(self.num_players, jnp.float32)
        error = self.action_error(state, action)
        illegal = error != errors.OK
        safe_action = jnp.clip(action, 0, self.num_actions - 1)

        game, rewards = self._apply_action(state.game, safe_action, key)
        step_count = state.step_count + 1
        terminated = jnp.asarray(self._is_terminal(game), jnp.bool_)
        stepped = state.replace(
            game=game,
            rewards=rewards.astype(jnp.float32),
            terminated=terminated,
            truncated=~terminated
            & ((step_count >= self.max_steps) | jnp.asarray(self._is_truncated(game), jnp.bool_)),
            step_count=step_count,
            error=jnp.int32(errors.OK),
        )
        stepped = self.finalize(stepped)

        done = state.terminated | state.truncated
        if self.illegal_action == "reject":
            # One select per leaf: a finished game or a rejected action keeps the old state.
            keep = done | illegal
            new = tree_where(keep, state, stepped)
            return new.replace(
                rewards=jnp.where(keep, zeros, stepped.rewards),
                error=jnp.where(done, state.error, jnp.where(illegal, error, errors.OK)),
            )
        else:  # "lose": the actor forfeits; the game records it (outcome agrees with terminated).
            share = 1.0 / max(self.num_players - 1, 1)
            lose_rewards = jnp.where(
                jnp.arange(self.num_players) == state.current_player, -1.0, share
            ).astype(jnp.float32)
            failed = state.replace(
                game=self._forfeit(state.game, state.current_player),
                rewards=lose_rewards,
                terminated=jnp.bool_(True),
                step_count=step_count,
                error=error,
                legal_action_mask=jnp.ones_like(state.legal_action_mask),
            )
        new = tree_where(illegal, failed, stepped)
        return tree_where(done, state.replace(rewards=zeros), new)

    def observe(self, state: State, player) -> jax.Array:
        """Observation of ``state`` from ``player``'s point of view (respects visibility). float32[O].

        Args:
          state: one game (or a batch under ``vmap``).
          player: int in ``[0, num_players)``. A concrete value (a Python or NumPy int, or a
            concrete array) outside that range raises ``ValueError`` (a ``TcgjaxError``). Under
            ``jit``/``vmap`` the value is traced and cannot be checked: an out-of-range traced
            player gives an unspecified observation (for two-player games, the view of some seat)
            — check it before tracing.
        """
        self._check_player(player)
        return self._observe(state.game, jnp.asarray(player, jnp.int32))

    def observe_omniscient(self, state: State, player) -> jax.Array:
        """What ``player``'s observation would be with every card face up (hands, decks, prizes
        and security included). float32[O], the layout of :meth:`observe`.

        For training only (an asymmetric critic, analysis): a game whose rules state holds a core
        ``Board`` is observed with :func:`tcgjax.core.visibility.reveal_all`; a game without one
        (the deployment wargame) has no hidden information, and its view is returned as is.
        Same arguments and checks as :meth:`observe`.
        """
        self._check_player(player)
        game = state.game
        board = getattr(game, "board", None)
        if board is not None:
            from tcgjax.core.visibility import reveal_all

            game = game.replace(board=reveal_all(board))
        return self._observe(game, jnp.asarray(player, jnp.int32))

    def _check_player(self, player) -> None:
        if isinstance(player, jax.core.Tracer):
            return  # traced: see the docstring of observe
        if isinstance(player, bool | np.bool_) or np.ndim(player) != 0:
            raise errors.PlayerError(
                f"env {self.id!r}: player must be one integer in [0, {self.num_players}), "
                f"got {player!r}"
            )
        value = np.asarray(player)
        if not np.issubdtype(value.dtype, np.integer) or not 0 <= int(value) < self.num_players:
            raise errors.PlayerError(
                f"env {self.id!r}: player {player!r} is outside [0, {self.num_players})"
            )

    def matchup(self, state: State) -> jax.Array:
        """The matchup ``state``'s game was drawn with: an index into ``matchups`` (int32[]; 0 for
        a game without decks or with one matchup). Per-matchup results (``tcgjax.train.evaluate``)
        split games by it."""
        return jnp.asarray(self._matchup(state.game), jnp.int32)

    def _matchup(self, game) -> jax.Array:
        return jnp.int32(0)

    def legal_action_mask(self, state: State) -> jax.Array:
        """The game's mask for ``state`` (recomputed, not the cached field). bool[A]."""
        done = state.terminated | state.truncated
        return jnp.where(done, True, self._legal_action_mask(state.game))

    def action_error(self, state: State, action: jax.Array) -> jax.Array:
        """Error code ``action`` would get in ``state`` (0 = legal, out of range included). int32[].

        Legality is read from the cached ``state.legal_action_mask`` (always recomputed by
        ``finalize``); the game's ``_action_error`` is consulted only to name the rule an illegal
        action breaks, so it may assume the action is illegal (``api_test`` checks it against the
        mask on every state it meets).
        """
        action = jnp.asarray(action, jnp.int32)
        in_range = (action >= 0) & (action < self.num_actions)
        safe_action = jnp.clip(action, 0, self.num_actions - 1)
        # The rule is looked up only where the action is illegal (``when_any``: under ``vmap``,
        # only when some game of the batch chose an illegal action).
        illegal = ~state.legal_action_mask[safe_action]
        code = when_any(
            illegal,
            lambda ok: self._action_error(state.game, safe_action).astype(jnp.int32),
            jnp.int32(errors.OK),
        )
        return jnp.where(in_range, code, errors.ACTION_OUT_OF_RANGE).astype(jnp.int32)

    def finalize(self, state: State) -> State:
        """Recompute the derived fields (``current_player``, ``observation``, mask) of ``state``."""
        player = jnp.asarray(self._current_player(state.game), jnp.int32)
        mask = self._legal_action_mask(state.game)
        done = state.terminated | state.truncated
        return state.replace(
            current_player=player,
            observation=self._observe_acting(state.game, player, mask).astype(jnp.float32),
            legal_action_mask=jnp.where(done, True, mask),
        )

    # ----------------------------------------------------------------------------------------------
    # Invariants (host side)

    def validate(self, state: State) -> None:
        """Raise ``InvalidStateError`` if ``state`` (one game) is not a state the rules can reach.

        Host-side, for loaded or hand-built states: ``from_json`` rejects with it, the random-play
        invariant tests and ``api_test`` call it on the states they meet. The core checks what it
        owns (the env fields agree with each other and with the rules state: ``terminated`` with
        the game's own end, ``truncated`` with ``max_steps``, ``error`` a known code, finite
        rewards, no reward while the game goes on unless the game pays shaping rewards
        (``rewards_mid_game``), the derived fields recomputed), then the game's
        ``_validate_game`` checks its rules invariants. The error's ``field`` is the JSON path
        of the broken fact.
        """
        if np.ndim(state.terminated) != 0:
            raise errors.InvalidStateError("$", "validate takes one game, not a batch")
        host = jax.device_get(state)
        rewards = np.asarray(host.rewards)
        if rewards.shape != (self.num_players,):
            raise errors.InvalidStateError(
                "env.rewards",
                f"shape {rewards.shape}, not one reward per player ({self.num_players},)",
            )
        if not np.all(np.isfinite(rewards)):
            raise errors.InvalidStateError("env.rewards", f"{rewards.tolist()} is not finite")
        steps = int(host.step_count)
        if not 0 <= steps <= self.max_steps:
            raise errors.InvalidStateError(
                "env.stepCount", f"{steps} outside [0, max_steps={self.max_steps}]"
            )
        code = int(host.error)
        if self.error_codes.name(code).startswith("unknown_"):
            raise errors.InvalidStateError("env.error", f"{code} is not an error code of this env")
        game_over = bool(np.asarray(self._is_terminal(state.game)))
        if bool(host.terminated) != game_over:
            raise errors.InvalidStateError(
                "env.terminated",
                f"{bool(host.terminated)} but the rules state says the game is "
                f"{'over' if game_over else 'not over'}",
            )
        truncated = bool(host.truncated)
        limit = bool(np.asarray(self._is_truncated(state.game)))  # the game's own limit
        if truncated and (game_over or (steps < self.max_steps and not limit)):
            raise errors.InvalidStateError(
                "env.truncated",
                f"true at step {steps} (max_steps={self.max_steps}, terminated "
                f"{game_over}): truncation happens only at max_steps or the game's own limit, "
                "before the game ends",
            )
        if not truncated and not game_over and (steps >= self.max_steps or limit):
            raise errors.InvalidStateError(
                "env.truncated",
                f"false at step {steps} with the game not over and past "
                + ("max_steps" if steps >= self.max_steps else "the game's own limit"),
            )
        if not (self.rewards_mid_game or game_over or truncated) and np.any(rewards != 0):
            raise errors.InvalidStateError(
                "env.rewards",
                f"{rewards.tolist()} while the game goes on: {self.id} rewards only the step "
                "that ends a game",
            )
        if self.zero_sum and not np.isclose(rewards.sum(), 0.0):
            raise errors.InvalidStateError(
                "env.rewards", f"{rewards.tolist()} do not sum to zero in a zero-sum game"
            )
        self._validate_game(jax.device_get(state.game))

    # ----------------------------------------------------------------------------------------------
    # Game hooks

    @abc.abstractmethod
    def _init_game(self, key: jax.Array) -> Any:
        """A new rules state."""

    @abc.abstractmethod
    def _apply_action(self, game: Any, action: jax.Array, key: jax.Array) -> StepResult:
        """Apply an action the core has checked as legal (it must not crash on others: the result
        is computed for every game in a batch and discarded where illegal)."""

    @abc.abstractmethod
    def _legal_action_mask(self, game: Any) -> jax.Array:
        """bool[A], never all False for a non-terminal rules state."""

    def _observe_acting(self, game: Any, player: jax.Array, mask: jax.Array) -> jax.Array:
        """``_observe(game, player)`` for the player to act, given the game's mask (bool[A], from
        ``_legal_action_mask``, computed once per step anyway). A game whose observation
        summarizes the legal actions overrides this to read them from ``mask`` instead of
        working them out again; the result must equal ``_observe(game, player)``."""
        del mask
        return self._observe(game, player)

    @abc.abstractmethod
    def _observe(self, game: Any, player: jax.Array) -> jax.Array:
        """float32[O] from ``player``'s point of view."""

    def _observation_bound_table(self) -> dict[str, tuple[Any, Any]]:
        """The game's bounds of its observation, for :meth:`observation_bounds`: ``{slice name:
        (low, high)}`` over the slices of ``observation_layout``, each bound a number or an
        array that broadcasts to the slice's shape (``±inf`` where the game cannot bound an
        entry). A slice left out is unbounded. Default: ``{}`` (every entry unbounded)."""
        return {}

    @abc.abstractmethod
    def _current_player(self, game: Any) -> jax.Array:
        """int32[] player to act."""

    @abc.abstractmethod
    def _is_terminal(self, game: Any) -> jax.Array:
        """bool[] whether the rules say the game is over."""

    def _is_truncated(self, game: Any) -> jax.Array:
        """bool[] the game has reached a limit of its own (e.g. a turn limit) without ending by
        its rules: the core then truncates it like ``max_steps``. Default: never (a host constant:
        ``validate`` asks it of every state it checks, and a JAX scalar costs a dispatch)."""
        del game
        return np.bool_(False)

    def _action_error(self, game: Any, action: jax.Array) -> jax.Array:
        """int32[] error code of an in-range action; default: mask-based ``action_not_legal``.

        Games override it to name the precise rule. It must be 0 exactly where the game's mask is
        True (``api_test`` checks this); the core only calls it for illegal actions.
        """
        legal = self._legal_action_mask(game)[action]
        return jnp.where(legal, errors.OK, errors.ACTION_NOT_LEGAL).astype(jnp.int32)

    @abc.abstractmethod
    def _forfeit(self, game: Any, loser: jax.Array) -> Any:
        """The rules state after ``loser`` (int32[]) forfeits by an illegal action under
        ``illegal_action="lose"``: the game records the other player's win and why, so that its
        outcome agrees with ``terminated`` (``_is_terminal`` must hold on the result)."""

    def _describe_action(self, state: State, action: int, viewer: int | None) -> str:
        """The game's name of ``action`` (an id in range) as a move in ``state`` (one game, NumPy
        leaves), for ``viewer`` (None or a player): see :meth:`describe_action`. Default: the
        phase-free :meth:`action_name` (games whose ids mean one thing in every phase and name no
        card, e.g. the deployment wargame's)."""
        del state, viewer
        return self.action_name(action)

    def _picture(self, state: State, viewer: int | None):
        """The game's :class:`~tcgjax.core.render.Picture` of one host ``state`` (NumPy leaves)."""
        raise NotImplementedError(f"env {self.id!r} has no renderer")

    def _validate_game(self, game: Any) -> None:
        """Host-side: raise ``InvalidStateError`` naming the field if ``game`` (a host copy of the
        rules state) breaks a rules invariant. Games call their rules layer's ``validate``."""
        del game

    def _check_action_host(self, state: State, action: int) -> None:
        """Host-side hook of :func:`tcgjax.checked_step` for game-specific exceptions (e.g. a
        deadlock). Runs before the generic legality check; default does nothing."""
        del state, action
