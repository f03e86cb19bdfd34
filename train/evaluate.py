"""Head-to-head evaluation: thousands of vmapped games played to the end in one jitted loop.

A *policy* is ``(state, key) -> int32[] action`` for ONE game (``tcgjax.train.opponents``); it is vmapped
here. :func:`evaluate` plays ``num_games`` games of ``policy_a`` against ``policy_b``, ``policy_a`` in
seat 0 in the even-numbered games and seat 1 in the odd ones (so ``ceil(n / 2)`` and ``floor(n / 2)``
games), inside one ``lax.while_loop`` that stops when every game is over (at most ``env.max_steps``
iterations: the env truncates a game there itself).

Outcome of a game for ``policy_a``: the reward its seat receives on the step that ends the game —
``> 0`` a win, ``< 0`` a loss, ``0`` a draw. **Truncated games count as draws** whatever that last
reward, and so do games still unfinished after ``env.max_steps`` loop iterations (only possible when
a policy keeps playing illegal actions under ``illegal_action="reject"``, which leaves the state and
its step count unchanged); both are reported (``truncated``, ``unfinished``), as are the illegal
actions each side attempted.

:func:`evaluate_against` plays one policy against several opponents in one program (one compilation
for a whole :func:`evaluation_table`). Policies that are pytrees (:class:`NetworkPolicy`,
``jax.tree_util.Partial``) pass their arrays to the jitted loop as arguments, so evaluating new
parameters of the same network reuses the compiled program; plain functions are static (one
compilation per function object, env, game count and set of opponents). ``heuristic_policy`` and
``random_policy`` are re-exported from :mod:`tcgjax.train.opponents`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax.core.env import Env, State
from tcgjax.core.errors import ConfigError
from tcgjax.core.tree import tree_where
from tcgjax.train.networks import ActorCritic, greedy_action, masked_distribution
from tcgjax.train.opponents import HEURISTICS, Policy, heuristic_policy, random_policy

__all__ = [
    "NetworkPolicy",
    "network_policy",
    "evaluate",
    "evaluate_against",
    "evaluation_table",
    "mask_removed_table",
    "format_table",
    "heuristic_policy",
    "random_policy",
]


@struct.dataclass
class NetworkPolicy:
    """An ``ActorCritic`` as a one-game policy: greedy (most probable action) or sampled, over the
    legal actions (``masked``) or over every id (the mask removed). A pytree: ``params`` are its
    leaves, ``network``, ``greedy`` and ``masked`` static."""

    network: ActorCritic = struct.field(pytree_node=False)
    params: Any
    greedy: bool = struct.field(pytree_node=False, default=True)
    masked: bool = struct.field(pytree_node=False, default=True)

    # Identity, not the fields' values (its parameters are arrays): so that ``jax.jit(policy)``
    # works like on any function, cached per policy object.
    __hash__ = object.__hash__
    __eq__ = object.__eq__

    def __call__(self, state: State, key: jax.Array) -> jax.Array:
        mask = state.legal_action_mask if self.masked else None
        logits, _ = self.network.apply(self.params, state.observation, mask)
        if not self.masked:
            mask = jnp.ones_like(state.legal_action_mask)
        if self.greedy:
            return greedy_action(logits, mask)
        dist = masked_distribution(logits, mask)
        return dist.sample(seed=key).astype(jnp.int32)


def network_policy(
    network: ActorCritic, params: Any, greedy: bool = True, *, masked: bool = True
) -> NetworkPolicy:
    """``(state, key) -> action`` from a network's logits on ``state.observation`` (the actor's view).

    Args:
      network: the ``ActorCritic`` module.
      params: its parameters (a pytree).
      greedy: True: ``tcgjax.train.networks.greedy_action`` (``key`` unused); False: a sample of
        ``masked_distribution`` (consumes ``key``).
      masked: False removes the legal-action mask: the network sees none (``factored`` then
        spreads its probability over every id) and its choice may be illegal (see
        :func:`evaluate_against`'s ``max_invalid``).
    Raises:
      ConfigError: ``masked=False`` for a ``pointer`` network (its options are the legal ids).
    """
    if not masked and getattr(network, "action_design", "flat") == "pointer":
        raise ConfigError(
            "network_policy: the pointer design chooses among the legal ids; it has no unmasked "
            "form"
        )
    return NetworkPolicy(network=network, params=params, greedy=bool(greedy), masked=bool(masked))


# --------------------------------------------------------------------------------------------------
# The jitted loop


class _Static(NamedTuple):
    """The hashable part of a policy pytree: its structure and its non-array leaves."""

    treedef: Any
    is_array: tuple[bool, ...]
    leaves: tuple[Any, ...]


def _partition(policy) -> tuple[_Static, list]:
    """Split a policy pytree into its hashable part (static under jit) and its array leaves."""
    leaves, treedef = jax.tree.flatten(policy)
    is_array = tuple(isinstance(x, jax.Array | np.ndarray) for x in leaves)
    arrays = [x for x, a in zip(leaves, is_array, strict=True) if a]
    others = tuple(x for x, a in zip(leaves, is_array, strict=True) if not a)
    return _Static(treedef, is_array, others), arrays


def _combine(static: _Static, arrays) -> Policy:
    arrays, others = iter(arrays), iter(static.leaves)
    leaves = [next(arrays) if a else next(others) for a in static.is_array]
    return jax.tree.unflatten(static.treedef, leaves)


class _Carry(NamedTuple):
    state: State
    key: jax.Array
    final_rewards: jax.Array  # float32[N, P], rewards of the step that ended each game
    returns_a: jax.Array  # float32[N], policy_a's summed rewards
    illegal: jax.Array  # int32[N, 2], illegal actions attempted by a, b in each game
    iteration: jax.Array  # int32[]
    decisions_a: jax.Array  # int32[N], a's choices at live states (refused ones included)
    attempts: jax.Array  # int32[N], a's choices refused so far in its current decision


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3, 4))
def _play(
    env: Env,
    static_a: _Static,
    statics_b: tuple,
    games_per_opponent: int,
    max_invalid: int,
    arrays_a,
    arrays_b,
    key,
):
    """``policy_a`` against each opponent of ``statics_b`` (a block of ``games_per_opponent`` games
    each), all in one batch: every opponent acts in every game, the game's own is selected.
    ``max_invalid > 0``: ``a``'s illegal choices are refused (the game unchanged) until its
    ``max_invalid``-th in one decision, which the env (``illegal_action="lose"``) makes a loss."""
    policy_a = jax.vmap(_combine(static_a, arrays_a))
    opponents = [jax.vmap(_combine(s, a)) for s, a in zip(statics_b, arrays_b, strict=True)]
    num_games = len(opponents) * games_per_opponent
    index = jnp.arange(num_games, dtype=jnp.int32)
    opponent = index // games_per_opponent  # [N]
    seat_a = (index % games_per_opponent) % 2  # [N], balanced within each block
    num_players = env.num_players
    is_a_seat = jnp.arange(num_players)[None, :] == seat_a[:, None]  # [N, P]
    k_init, k_run = jax.random.split(key)
    state = jax.vmap(env.init)(jax.random.split(k_init, num_games))
    matchup = jax.vmap(env.matchup)(state)  # [N], the decks each game was drawn with

    def done(s: State) -> jax.Array:
        return s.terminated | s.truncated

    def cond(c: _Carry) -> jax.Array:
        # A refused choice costs an iteration but no step: a game needs at most max_invalid
        # iterations a step.
        return (c.iteration < env.max_steps * max(max_invalid, 1)) & ~jnp.all(done(c.state))

    def body(c: _Carry) -> _Carry:
        key, k_a, k_b, k_step = jax.random.split(c.key, 4)
        state = c.state
        a = policy_a(state, jax.random.split(k_a, num_games)).astype(jnp.int32)
        keys_b = jax.random.split(k_b, len(opponents))
        b_all = jnp.stack(
            [
                p(state, jax.random.split(k, num_games))
                for p, k in zip(opponents, keys_b, strict=True)
            ]
        ).astype(jnp.int32)  # [K, N]
        b = jnp.take_along_axis(b_all, opponent[None, :], axis=0)[0]
        a_to_act = state.current_player == seat_a
        action = jnp.where(a_to_act, a, b)
        was_done = done(state)
        illegal = ~was_done & ~_legal(state, action)
        new = jax.vmap(env.step)(state, action, jax.random.split(k_step, num_games))
        attempts = c.attempts
        if max_invalid:
            refused = illegal & a_to_act & (c.attempts + 1 < max_invalid)
            kept = state.replace(rewards=jnp.zeros_like(state.rewards))
            new = jax.vmap(tree_where)(refused, kept, new)
            attempts = jnp.where(refused, c.attempts + 1, 0)
        ended = ~was_done & done(new)
        return _Carry(
            state=new,
            key=key,
            final_rewards=jnp.where(ended[:, None], new.rewards, c.final_rewards),
            returns_a=c.returns_a + jnp.sum(jnp.where(is_a_seat, new.rewards, 0.0), axis=-1),
            illegal=c.illegal + jnp.stack([illegal & a_to_act, illegal & ~a_to_act], -1),
            iteration=c.iteration + 1,
            decisions_a=c.decisions_a + (~was_done & a_to_act),
            attempts=attempts,
        )

    carry = _Carry(
        state=state,
        key=k_run,
        final_rewards=jnp.zeros((num_games, num_players), jnp.float32),
        returns_a=jnp.zeros(num_games, jnp.float32),
        illegal=jnp.zeros((num_games, 2), jnp.int32),
        iteration=jnp.int32(0),
        decisions_a=jnp.zeros(num_games, jnp.int32),
        attempts=jnp.zeros(num_games, jnp.int32),
    )
    c = jax.lax.while_loop(cond, body, carry)
    return {
        "seat_a": seat_a,
        "reward_a": jnp.sum(jnp.where(is_a_seat, c.final_rewards, 0.0), axis=-1),
        "return_a": c.returns_a,
        "terminated": c.state.terminated,
        "truncated": c.state.truncated,
        "length": c.state.step_count,
        "illegal": c.illegal,
        "decisions_a": c.decisions_a,
        "matchup": matchup,
    }


def _legal(state: State, action: jax.Array) -> jax.Array:
    """bool[N]: ``action`` is in range and legal in ``state`` (the cached mask)."""
    num_actions = state.legal_action_mask.shape[-1]
    in_range = (action >= 0) & (action < num_actions)
    safe = jnp.clip(action, 0, num_actions - 1)
    return in_range & jnp.take_along_axis(state.legal_action_mask, safe[:, None], axis=1)[:, 0]


def _summary(out: dict, block: slice, matchups: tuple[str, ...] = ()) -> dict:
    """Host-side results of one opponent's block of games (see :func:`evaluate`); with more than
    one matchup, also ``by_matchup`` (the same counts per matchup, by name)."""
    out = {k: v[block] for k, v in out.items()}
    result = _counts(out)
    if len(matchups) > 1:
        result["by_matchup"] = {
            name: _counts({k: v[out["matchup"] == i] for k, v in out.items()})
            for i, name in enumerate(matchups)
        }
    return result


def _counts(out: dict) -> dict:
    """The result counts of a set of games (host arrays of :func:`_play`'s fields)."""
    n = len(out["seat_a"])
    finished = out["terminated"] & ~out["truncated"]
    win = finished & (out["reward_a"] > 0)
    loss = finished & (out["reward_a"] < 0)
    seat = out["seat_a"]
    wins, losses = int(win.sum()), int(loss.sum())
    draws = n - wins - losses
    return {
        "games": n,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "win_rate": wins / max(n, 1),
        "draw_rate": draws / max(n, 1),
        "loss_rate": losses / max(n, 1),
        "score": (wins + 0.5 * draws) / max(n, 1),
        "truncated": int(out["truncated"].sum()),
        "unfinished": int((~out["terminated"] & ~out["truncated"]).sum()),
        "mean_length": float(out["length"].mean()) if n else 0.0,
        "mean_return": float(out["return_a"].mean()) if n else 0.0,
        "games_as_seat": [int((seat == p).sum()) for p in range(2)],
        "wins_as_seat": [int((win & (seat == p)).sum()) for p in range(2)],
        "losses_as_seat": [int((loss & (seat == p)).sum()) for p in range(2)],
        "illegal_a": int(out["illegal"][:, 0].sum()),
        "illegal_b": int(out["illegal"][:, 1].sum()),
        "decisions_a": int(out["decisions_a"].sum()),
        "invalid_choice_rate": int(out["illegal"][:, 0].sum())
        / max(int(out["decisions_a"].sum()), 1),
    }


def evaluate_against(
    env: Env,
    policy_a: Policy,
    opponents: Mapping[str, Policy],
    key: jax.Array,
    num_games: int,
    *,
    max_invalid: int | None = None,
) -> dict[str, dict]:
    """:func:`evaluate` of ``policy_a`` against each named opponent, ``num_games`` games each, in
    ONE jitted program (one compilation for the whole set; every opponent is computed in every game
    and the game's own is selected, so per step it costs about one policy per opponent more).

    ``max_invalid`` (a policy that may choose illegal ids: the mask removed, or trained
    ``unmasked``): ``policy_a``'s illegal choices are refused, the game unchanged, and it chooses
    again; its ``max_invalid``-th in one decision loses the game (``env`` must be built with
    ``illegal_action="lose"``). ``invalid_choice_rate`` = illegal choices / ``decisions_a``.

    Returns ``{name: evaluate-style dict}`` in the order of ``opponents``.
    """
    if max_invalid is not None:
        if isinstance(max_invalid, bool) or not isinstance(max_invalid, int) or max_invalid < 1:
            raise ConfigError(f"evaluate: max_invalid={max_invalid!r} must be a positive int")
        if env.illegal_action != "lose":
            raise ConfigError(
                f"evaluate: max_invalid needs env {env.id!r} built with illegal_action='lose' "
                f"(it has {env.illegal_action!r})"
            )
    if isinstance(num_games, bool) or not isinstance(num_games, int | np.integer) or num_games < 1:
        raise ConfigError(f"evaluate: num_games={num_games!r} must be a positive int")
    if env.num_players != 2:
        raise ConfigError(f"env {env.id!r}: evaluate needs a two-player env")
    if not opponents:
        raise ConfigError("evaluate: no opponent given")
    static_a, arrays_a = _partition(policy_a)
    statics_b, arrays_b = zip(*(_partition(p) for p in opponents.values()), strict=True)
    n = int(num_games)
    out = jax.device_get(
        _play(env, static_a, statics_b, n, max_invalid or 0, arrays_a, list(arrays_b), key)
    )
    return {
        name: _summary(out, slice(i * n, (i + 1) * n), tuple(env.matchups))
        for i, name in enumerate(opponents)
    }


def evaluate(env: Env, policy_a: Policy, policy_b: Policy, key: jax.Array, num_games: int) -> dict:
    """Play ``num_games`` games of ``policy_a`` against ``policy_b`` to the end; results for ``a``.

    Args:
      env: a two-player ``tcgjax.Env``.
      policy_a, policy_b: ``(state, key) -> int32[] action`` for one game (vmapped here).
      key: PRNG key (consumed: game setup, both policies, env chance events).
      num_games: games in the batch (>= 1), ``policy_a`` in seat 0 for the even-numbered ones.
    Returns:
      A dict of Python numbers: ``games``, ``wins``, ``draws``, ``losses`` and their ``win_rate``,
      ``draw_rate``, ``loss_rate``; ``score`` (``(wins + draws / 2) / games``); ``truncated`` and
      ``unfinished`` (both counted as draws); ``mean_length`` (steps); ``mean_return`` (``a``'s summed
      rewards, shaping included); ``games_as_seat``, ``wins_as_seat``, ``losses_as_seat`` (lists per
      seat); ``illegal_a``, ``illegal_b`` (illegal actions attempted at live states).
    Raises:
      ConfigError: ``num_games`` < 1 or the env is not two-player.
    """
    return evaluate_against(env, policy_a, {"b": policy_b}, key, num_games)["b"]


# --------------------------------------------------------------------------------------------------
# Tables


def evaluation_table(
    env: Env,
    network: ActorCritic,
    params: Any,
    key: jax.Array,
    num_games: int,
    checkpoint_params: Any = None,
    *,
    greedy: bool = True,
    max_invalid: int = 8,
    others: Mapping[str, Policy] | None = None,
) -> dict[str, dict]:
    """The network (``params``) against the standard opponents, one :func:`evaluate` row each.

    Rows, in order: ``"random"``; ``"heuristic"`` if ``env.id`` has one in
    ``tcgjax.train.opponents.HEURISTICS``; ``"checkpoint"`` (the same network with ``checkpoint_params``)
    when given. The checkpoint's copy always samples its moves: two greedy copies of one policy
    would replay the same games, so that row said 0, 50 or 100% by construction. Then one row per
    entry of ``others`` (e.g. ``{"baseline": load_policy("baseline", env)}``). ``greedy`` picks
    how the network acts (see :func:`network_policy`). ``key`` is consumed. All rows are one jitted program
    (:func:`evaluate_against`), and the parameters are its arguments: evaluating new ``params`` of
    the same network does not recompile.

    A network trained ``unmasked`` plays as it was trained, without the mask: its illegal choices
    are refused and its ``max_invalid``-th in a decision loses (``env`` built with
    ``illegal_action="lose"``, as ``tcgjax.train.ppo.make_env`` builds it); the checkpoint row's copy
    plays masked.
    """
    unmasked = getattr(network, "action_design", "flat") == "unmasked"
    learner = network_policy(network, params, greedy, masked=not unmasked)
    opponents: dict[str, Policy] = {"random": random_policy(env)}
    if env.id in HEURISTICS:
        opponents["heuristic"] = heuristic_policy(env)
    if checkpoint_params is not None:
        opponents["checkpoint"] = network_policy(network, checkpoint_params, greedy=False)
    for name, policy in (others or {}).items():
        if name in opponents:
            raise ValueError(f"evaluation_table: others={name!r} is already a standard row")
        opponents[name] = policy
    return evaluate_against(
        env, learner, opponents, key, num_games, max_invalid=max_invalid if unmasked else None
    )


def mask_removed_table(
    env: Env,
    network: ActorCritic,
    params: Any,
    key: jax.Array,
    num_games: int,
    *,
    max_invalid: int = 8,
) -> dict[str, dict]:
    """A masked policy with its mask removed (Huang & Ontanon 2022): the network *sampled* over
    every id, no mask given to it, against ``"random"`` and (where the game has one)
    ``"heuristic"``; its illegal choices are refused and it samples again, its ``max_invalid``-th
    in one decision loses. Each row adds ``invalid_choice_rate`` (illegal choices / choices).

    ``env`` may be built with either ``illegal_action``: the rows play on a copy with ``"lose"``.

    Raises:
      ConfigError: a ``pointer`` network (it has no unmasked form).
    """
    learner = network_policy(network, params, greedy=False, masked=False)
    lose = env if env.illegal_action == "lose" else _with_options(env, illegal_action="lose")
    opponents: dict[str, Policy] = {"random": random_policy(lose)}
    if lose.id in HEURISTICS:
        opponents["heuristic"] = heuristic_policy(lose)
    return evaluate_against(lose, learner, opponents, key, num_games, max_invalid=max_invalid)


def _with_options(env: Env, **changes) -> Env:
    """The same game with some options changed (``env.options`` rebuilt through the registry)."""
    import tcgjax

    return tcgjax.make(env.id, **{**env.options, **changes})


def format_table(table: dict[str, dict]) -> str:
    """A readable text table of :func:`evaluation_table`'s rows: opponent, games, win, draw, loss
    (rates in percent); a mixed-deck env's matchups indented under each opponent."""
    rows = []  # (label, row): each opponent, then its matchups indented under it
    for name, row in table.items():
        rows.append((name, row))
        rows += [(f"  {m}", r) for m, r in row.get("by_matchup", {}).items()]
    width = max([len("opponent")] + [len(label) for label, _ in rows])
    lines = [f"{'opponent':<{width}}  {'games':>6}  {'win':>6}  {'draw':>6}  {'loss':>6}"]
    for label, row in rows:
        lines.append(
            f"{label:<{width}}  {row['games']:>6d}  {row['win_rate']:>6.1%}  "
            f"{row['draw_rate']:>6.1%}  {row['loss_rate']:>6.1%}"
        )
    return "\n".join(lines)
