"""AlphaZero-style search over a tcgjax game with DeepMind's ``mctx``, the env's own ``step`` as the
simulator.

:func:`search` runs ``mctx.gumbel_muzero_policy`` on a batch of states; :func:`search_policy` wraps it
as a per-game policy ``(state, key) -> action`` (what ``tcgjax.train.evaluate`` and the Gymnasium opponent
take). An **evaluator** ``states -> (logits float32[B, A], value float32[B])`` gives the prior and
the value of a batch of states, each from the point of view of the state's current player:
:func:`rollout_evaluator` (uniform prior, value of random playouts), :func:`uniform_evaluator`
(uniform prior, value 0) or :func:`network_evaluator` (a trained actor-critic, e.g. the masked
PPO's).

How the game's particulars are handled:

* **Illegal actions** are masked at the root (``invalid_actions``) and inside the recurrent function
  (their prior logits are set to the lowest float), so the search never expands one below the root.
* **Non-alternating turns.** A card-game turn is many actions by the same player. Values are from the
  current player's side, so each edge's discount is ``+1`` when the player to act after it is the
  one who acted, ``-1`` when the turn passed to the other player, and ``0`` once the game is over;
  the edge's reward is the acting player's. The sign of a backed-up value thus follows
  ``current_player``, never a fixed alternation.
* **Chance.** ``step`` consumes a key (draws, shuffles, coin flips): every expansion of an edge
  draws one outcome with the key mctx hands the recurrent function, and the tree keeps that outcome
  for the edge (the embedding stored in the node). The search is therefore exact for deterministic
  steps and, for chance steps, plans against one sampled outcome per edge (a sampled
  determinization, not an expectation over outcomes): more simulations refine the choices under
  that sample, they do not average over other draws.
* **Hidden information.** The simulator is the true state: the search sees the opponent's hand and
  the order of both decks. It is an oracle (perfect-information) search — a strong reference
  player and a teacher for distillation, not a fair player of the imperfect-information game.

Everything is pure JAX: ``jit``, ``vmap`` and both together work (``search_policy`` calls mctx with a
batch of one, which ``vmap`` batches).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import mctx

from tcgjax.core.env import Env, State
from tcgjax.wrappers.auto_reset import random_legal_action

__all__ = [
    "Evaluator",
    "rollout_evaluator",
    "uniform_evaluator",
    "network_evaluator",
    "recurrent_fn",
    "search",
    "search_policy",
]

Evaluator = Callable[[State, jax.Array], tuple[jax.Array, jax.Array]]
_LOWEST = jnp.finfo(jnp.float32).min


def _masked(logits: jax.Array, mask: jax.Array) -> jax.Array:
    return jnp.where(mask, logits, _LOWEST)


def rollout_evaluator(env: Env, *, max_steps: int = 200) -> Evaluator:
    """Uniform prior; value = the result of one random playout of at most ``max_steps`` actions
    for the state's current player (+1 / -1, 0 for a draw or an unfinished playout).

    Returns ``evaluate(states [B], key) -> (logits float32[B, A], value float32[B])``.
    """

    def playout(state: State, key: jax.Array) -> jax.Array:
        player = state.current_player

        def going(carry):
            state, _, steps = carry
            return ~(state.terminated | state.truncated) & (steps < max_steps)

        def move(carry):
            state, key, steps = carry
            key, act_key, step_key = jax.random.split(key, 3)
            action = random_legal_action(act_key, state.legal_action_mask)
            return env.step(state, action, step_key), key, steps + 1

        state, _, _ = jax.lax.while_loop(going, move, (state, key, jnp.int32(0)))
        won = state.terminated & (state.rewards[player] > 0)
        lost = state.terminated & (state.rewards[player] < 0)
        return jnp.where(won, 1.0, jnp.where(lost, -1.0, 0.0)).astype(jnp.float32)

    def evaluate(states: State, key: jax.Array):
        num = states.current_player.shape[0]
        value = jax.vmap(playout)(states, jax.random.split(key, num))
        return jnp.zeros((num, env.num_actions), jnp.float32), value

    return evaluate


def uniform_evaluator(env: Env) -> Evaluator:
    """Uniform prior and value 0 everywhere: the search then sees only the rewards it reaches."""

    def evaluate(states: State, key: jax.Array):
        del key
        num = states.current_player.shape[0]
        return jnp.zeros((num, env.num_actions), jnp.float32), jnp.zeros(num, jnp.float32)

    return evaluate


def network_evaluator(apply_fn: Callable[[Any, jax.Array], tuple[jax.Array, jax.Array]], params):
    """Prior and value from an actor-critic: ``apply_fn(params, observations float32[B, O]) ->
    (logits float32[B, A], value float32[B])`` (``tcgjax.train.networks`` modules' ``apply``). The
    observation is the state's own (its current player's view)."""

    def evaluate(states: State, key: jax.Array):
        del key
        logits, value = apply_fn(params, states.observation)
        return logits.astype(jnp.float32), value.astype(jnp.float32).reshape(-1)

    return evaluate


def recurrent_fn(env: Env, evaluate: Evaluator):
    """mctx's ``recurrent_fn(params, key, action [B], states [B]) -> (RecurrentFnOutput, states)``
    for ``env``: one exact ``step``, the acting player's reward, a discount of +1 / -1 / 0 as the
    turn stays, passes or the game ends, and masked prior logits (module docstring)."""

    def fn(params, key, action, states: State):
        del params
        step_key, eval_key = jax.random.split(key)
        num = action.shape[0]
        actor = states.current_player
        following = jax.vmap(env.step)(states, action, jax.random.split(step_key, num))
        logits, value = evaluate(following, eval_key)
        over = following.terminated | following.truncated
        reward = jnp.take_along_axis(following.rewards, actor[:, None], axis=1)[:, 0]
        same_player = following.current_player == actor
        discount = jnp.where(over, 0.0, jnp.where(same_player, 1.0, -1.0))
        output = mctx.RecurrentFnOutput(
            reward=reward.astype(jnp.float32),
            discount=discount.astype(jnp.float32),
            prior_logits=_masked(logits, following.legal_action_mask),
            value=jnp.where(over, 0.0, value).astype(jnp.float32),
        )
        return output, following

    return fn


def search(
    env: Env,
    states: State,
    key: jax.Array,
    *,
    evaluate: Evaluator,
    num_simulations: int,
    max_depth: int | None = None,
    max_num_considered_actions: int = 16,
    gumbel_scale: float = 1.0,
) -> mctx.PolicyOutput:
    """Gumbel MuZero search from a batch of states ``[B]`` (see the module docstring).

    Returns mctx's ``PolicyOutput``: ``action`` int32[B] (always legal), ``action_weights``
    float32[B, A] (the improved policy, zero on illegal actions) and ``search_tree``.
    """
    root_key, search_key = jax.random.split(key)
    logits, value = evaluate(states, root_key)
    root = mctx.RootFnOutput(
        prior_logits=_masked(logits, states.legal_action_mask), value=value, embedding=states
    )
    return mctx.gumbel_muzero_policy(
        params=None,
        rng_key=search_key,
        root=root,
        recurrent_fn=recurrent_fn(env, evaluate),
        num_simulations=num_simulations,
        invalid_actions=~states.legal_action_mask,
        max_depth=max_depth,
        max_num_considered_actions=max_num_considered_actions,
        gumbel_scale=gumbel_scale,
    )


def search_policy(
    env: Env,
    *,
    num_simulations: int,
    evaluate: Evaluator | None = None,
    greedy: bool = True,
    **kw,
):
    """The search as a per-game policy ``(state, key) -> int32[] action`` (a batch of one per
    call; ``vmap`` it for many games). ``evaluate`` defaults to :func:`rollout_evaluator`.

    ``greedy`` (for play and evaluation): the action of highest improved-policy weight
    (``action_weights``); otherwise mctx's own choice, which samples through the Gumbel noise (for
    exploration when generating training data)."""
    evaluate = rollout_evaluator(env) if evaluate is None else evaluate

    def policy(state: State, key: jax.Array) -> jax.Array:
        batch = jax.tree.map(lambda x: x[None], state)
        out = search(env, batch, key, evaluate=evaluate, num_simulations=num_simulations, **kw)
        weights = jnp.where(state.legal_action_mask, out.action_weights[0], -1.0)
        chosen = jnp.argmax(weights) if greedy else out.action[0]
        return chosen.astype(jnp.int32)

    return policy
