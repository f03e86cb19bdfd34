"""Masked PPO, PureJaxRL-style: rollouts and updates in one jittable program, with self-play.

``make_train(config)`` returns ``train(key) -> (RunnerState, metrics)`` that runs every update inside
one ``lax.scan``; ``jax.vmap(train)(keys)`` trains several seeds at once. ``make_ppo(config)`` exposes
the pieces (``init``, ``update``) that ``tcgjax.train.run`` drives in chunks for progress, evaluation and
checkpoints; both consume randomness identically, so a run resumed from a checkpoint continues
exactly like an uninterrupted one.

Two-player games, turns not necessarily alternating: every transition is taken by
``state.current_player`` (its ``actor``). One network acts for whichever seat is to play, from that
seat's observation. Per-seat returns: the reward of a transition is what its actor receives from that
step until it acts again (or the episode ends), and its bootstrap value is the value of the actor's
*next* transition, found by a reverse scan that carries one (reward, value, advantage) slot per seat.
Terminated episodes bootstrap with 0; truncated ones with the critic's value of the final state from
each seat's view (computed only when some game in the batch was truncated, under ``lax.cond``).

Opponents (``config.opponent``): ``self`` (the learner plays both seats, every transition trains),
``random``, ``heuristic`` (a scripted player per game, ``tcgjax.train.opponents``), ``mixed`` (even env slots
random, odd ones the heuristic) or ``snapshot`` (a pool of frozen past parameters). With an
opponent, the learner's seat alternates between episodes in each env slot and only the learner's
transitions enter the loss (their weights are 1, the opponent's 0).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import distrax
import jax
import jax.numpy as jnp
import optax

import tcgjax
from tcgjax.core.env import Env, State
from tcgjax.core.tree import tree_where
from tcgjax.train import league as L
from tcgjax.train.config import LEAGUE_OPPONENTS, PPOConfig
from tcgjax.train.designs import MAX_LEGAL_ACTIONS, action_structure
from tcgjax.train.networks import (
    ActorCritic,
    AsymmetricActorCritic,
    CardEmbeddingActorCritic,
    masked_distribution,
)
from tcgjax.wrappers import random_legal_action, reset_if_done

__all__ = [
    "RunnerState",
    "Transition",
    "make_ppo",
    "make_env",
    "make_train",
    "init_seeds",
    "per_seat_gae",
    "policy_distribution",
    "PPO",
]


class Transition(NamedTuple):
    """One step of a batch of games; every field has a leading ``[B]`` (``[T, B]`` once stacked)."""

    observation: jax.Array  # float32[B, O], the actor's view
    legal_action_mask: jax.Array  # bool[B, A], stored and re-applied in the loss
    action: jax.Array  # int32[B]
    log_prob: jax.Array  # float32[B]
    value: jax.Array  # float32[B], actor's perspective
    rewards: jax.Array  # float32[B, P], every seat's reward from this step
    actor: jax.Array  # int32[B]
    terminated: jax.Array  # bool[B]
    truncated: jax.Array  # bool[B]
    truncation_values: jax.Array  # float32[B, P], critic value of the final state per seat
    weight: jax.Array  # float32[B], 1 for learner transitions
    learner_outcome: jax.Array  # float32[B]: learner's reward when an episode ends, else 0
    episode_done: jax.Array  # bool[B]
    invalid: jax.Array  # bool[B]: the choice was illegal (only under action_design="unmasked")
    forfeit: jax.Array  # bool[B]: ... and the actor's max_invalid-th in the decision: it lost
    overflow: jax.Array  # bool[B]: more legal ids than the pointer's max_options
    critic_observation: jax.Array  # float32[B, 2, O] (critic="omniscient"), else float32[B, 0]


class RunnerState(NamedTuple):
    params: Any
    opt_state: Any
    env_state: State
    learner_seat: jax.Array  # int32[B]
    snapshots: Any  # params pytree with a leading [K] axis (opponent="snapshot")
    key: jax.Array
    update: jax.Array  # int32[]
    # action_design="unmasked": illegal choices refused so far in each game's current decision.
    invalid_attempts: jax.Array  # int32[B]
    # opponent="league": the learner's running win rate against each snapshot (PFSP; 0.5 otherwise).
    league_win_rate: jax.Array  # float32[K]


def per_seat_gae(traj: Transition, last_values: jax.Array, gamma: float, lam: float):
    """Advantages and value targets per transition, each seat bootstrapping on its own next turn.

    Args:
      traj: stacked ``Transition`` ``[T, B]``.
      last_values: float32[B, P], the critic's value of the state after the last step, per seat.
    Returns:
      ``(advantages float32[T, B], targets float32[T, B])``.
    """
    num_players = traj.rewards.shape[-1]
    seats = jnp.arange(num_players)

    def step(carry, t):
        acc, next_v, next_gae = carry
        done = (t.terminated | t.truncated)[:, None]
        next_v = jnp.where(done, jnp.where(t.truncated[:, None], t.truncation_values, 0.0), next_v)
        next_gae = jnp.where(done, 0.0, next_gae)
        acc = jnp.where(done, 0.0, acc) + t.rewards
        mine = t.actor[:, None] == seats[None, :]
        reward = jnp.sum(jnp.where(mine, acc, 0.0), axis=-1)
        bootstrap = jnp.sum(jnp.where(mine, next_v, 0.0), axis=-1)
        gae_next = jnp.sum(jnp.where(mine, next_gae, 0.0), axis=-1)
        delta = reward + gamma * bootstrap - t.value
        gae = delta + gamma * lam * gae_next
        carry = (
            jnp.where(mine, 0.0, acc),
            jnp.where(mine, t.value[:, None], next_v),
            jnp.where(mine, gae[:, None], next_gae),
        )
        return carry, gae

    zeros = jnp.zeros_like(last_values)
    _, advantages = jax.lax.scan(step, (zeros, last_values, zeros), traj, reverse=True)
    return advantages, advantages + traj.value


class PPO(NamedTuple):
    """The pieces of one training run (all pure; ``update`` is jittable)."""

    env: Env
    network: ActorCritic
    config: PPOConfig
    init: Any  # key -> RunnerState
    update: Any  # RunnerState -> (RunnerState, metrics dict)
    policy_logits: Any  # (params, observation, legal_action_mask=None) -> logits
    rollout: Any  # (RunnerState, key, snapshot_index=0) -> (RunnerState, Transition [T, B])


def sgd_indices(key: jax.Array, weight: jax.Array, size: int) -> jax.Array:
    """The transitions one epoch of SGD uses, in a random order.

    Args:
      key: PRNG key.
      weight: float32[N], 1 for the learner's transitions, 0 for the opponent's.
      size: static ``<= N`` (``PPOConfig.sgd_batch``).

    Returns:
      int32[size]: ``N == size``: a random permutation of ``range(N)``. Otherwise the learner's
      transitions first, in random order, then as many of the opponent's (weight 0: padding the
      loss ignores) as fill ``size``; learner transitions beyond ``size`` are left out at random.
    """
    perm = jax.random.permutation(key, weight.shape[0])
    if size == weight.shape[0]:
        return perm
    first = jnp.argsort(weight[perm] == 0, stable=True)  # stable: each group keeps its order
    return perm[first[:size]]


def make_network(config: PPOConfig, env: Env):
    """The actor-critic of ``config``: :func:`make_torso`, shared by the policy and the value
    (``critic: shared``), or an :class:`AsymmetricActorCritic` whose critic is a second torso of
    the same kind (``player`` or ``omniscient``: what it reads is :func:`make_ppo`'s business)."""
    actor = make_torso(config, env)
    if config.critic == "shared":
        return actor
    views = 2 if config.critic == "omniscient" else 1
    return AsymmetricActorCritic(
        actor=actor, critic=make_torso(config, env, features_only=True), views=views
    )


def make_torso(config: PPOConfig, env: Env, *, features_only: bool = False):
    """The actor-critic of ``config.network``: ``mlp`` (:class:`ActorCritic`) or
    ``card_embedding`` (:class:`CardEmbeddingActorCritic` over the env's ``card_id_slices``,
    pooled, its ``card_count_slices`` (per-definition counts), weighted, and its
    ``card_id_positions``, in place; one embedding per card definition:
    ``num_card_ids``). An env's ``observation_scale`` (per-entry input factors) goes to either.

    Raises:
      ConfigError: ``card_embedding`` for an env that declares no card-id slices.
    """
    scale = getattr(env, "observation_scale", None)
    scale = None if scale is None else tuple(float(f) for f in scale)
    design = {
        "action_design": config.action_design,
        "structure": action_structure(env),
        "max_options": max_options(config, env),
        "features_only": features_only,
    }
    if config.network == "mlp":
        return ActorCritic(
            env.num_actions,
            config.hidden_sizes,
            input_scale=scale,
            num_card_ids=int(getattr(env, "num_card_ids", 0)),
            **design,
        )
    slices = tuple(getattr(env, "card_id_slices", ()) or ())
    count_slices = tuple(getattr(env, "card_count_slices", ()) or ())
    if not slices and not count_slices:
        raise tcgjax.ConfigError(
            f"config key 'network' = 'card_embedding': env {env.id!r} declares no card-id "
            "observation slices (card_id_slices, card_count_slices)"
        )
    return CardEmbeddingActorCritic(
        num_actions=env.num_actions,
        layout=env.observation_layout,
        card_slices=slices,
        card_count_slices=count_slices,
        num_card_ids=int(env.num_card_ids),
        embed_dim=config.embed_dim,
        hidden_sizes=tuple(config.hidden_sizes),
        card_positions=tuple(getattr(env, "card_id_positions", ())),
        input_scale=scale,
        **design,
    )


def max_options(config: PPOConfig, env: Env) -> int:
    """The pointer design's candidate list length: ``config.max_options``, or the game's measured
    maximum of legal ids (``tcgjax.train.designs.MAX_LEGAL_ACTIONS``); 0 for the other designs.

    Raises:
      ConfigError: a pointer design on a game with no measured maximum and no ``max_options``.
    """
    if config.action_design != "pointer":
        return 0
    if config.max_options is not None:
        return min(config.max_options, env.num_actions)
    if env.id not in MAX_LEGAL_ACTIONS:
        raise tcgjax.ConfigError(
            f"config key 'max_options' = null: env {env.id!r} has no measured maximum of legal "
            f"ids (measured: {sorted(MAX_LEGAL_ACTIONS)}); set max_options"
        )
    return MAX_LEGAL_ACTIONS[env.id]


def policy_distribution(config: PPOConfig, logits: jax.Array, legal_action_mask: jax.Array):
    """The categorical the learner samples from: over every id for ``unmasked``, over the legal
    ids otherwise (for ``factored`` and ``pointer`` the logits already give illegal ids nothing;
    masking again changes nothing)."""
    if config.action_design == "unmasked":
        return distrax.Categorical(logits=logits)
    return masked_distribution(logits, legal_action_mask)


def make_env(config: PPOConfig) -> Env:
    """The run's env: ``tcgjax.make(config.env_id, **config.env_options)``; for ``unmasked``
    with ``illegal_action="lose"`` (the trainer refuses choices below ``max_invalid`` itself and
    lets the env record the forfeit at the last one).

    Raises:
      ConfigError: ``unmasked`` with an ``env_options.illegal_action`` other than ``"lose"``.
    """
    options = dict(config.env_options)
    if config.action_design == "unmasked":
        if options.get("illegal_action", "lose") != "lose":
            raise tcgjax.ConfigError(
                f"config key 'env_options.illegal_action' = {options['illegal_action']!r}: "
                "action_design 'unmasked' needs 'lose' (the forfeit after max_invalid refusals)"
            )
        options["illegal_action"] = "lose"
    return tcgjax.make(config.env_id, **options)


def make_ppo(
    config: PPOConfig, env: Env | None = None, opponent_policy=None, *, minibatch_sharding=None
) -> PPO:
    """Build the env, network, optimizer and the jittable ``init`` / ``update`` of a run.

    Args:
      config: the run's ``PPOConfig``.
      env: defaults to ``tcgjax.make(config.env_id, **config.env_options)``.
      opponent_policy: ``(state, key) -> action`` for ``opponent="heuristic"``; defaults to the
        game's entry in ``tcgjax.train.opponents.HEURISTICS``.
      minibatch_sharding: optional sharding of the shuffled minibatches ``[M, N / M, ...]``
        (``tcgjax.train.distributed.minibatch_sharding(mesh)``) so the SGD phase is data-parallel too;
        ``None`` leaves the layout to the compiler (single device).
    """
    env = env or make_env(config)
    if env.num_players != 2:
        raise tcgjax.ConfigError(f"{env.id}: self-play PPO needs a two-player env")
    unmasked = config.action_design == "unmasked"
    if unmasked and env.illegal_action != "lose":
        raise tcgjax.ConfigError(
            f"action_design 'unmasked': env {env.id!r} has illegal_action="
            f"{env.illegal_action!r}; build it with illegal_action='lose' (tcgjax.train.ppo.make_env)"
        )
    options = max_options(config, env)
    network = make_network(config, env)
    num_envs, num_steps = config.num_envs, config.num_steps
    num_updates = config.num_updates
    sgd_batch = config.sgd_batch
    league = config.opponent == "league"
    if league:
        slot_opponent = jnp.asarray(L.slot_opponents(config.league_shares, num_envs))
        plays = {k: config.league_shares.get(k, 0.0) > 0 for k in LEAGUE_OPPONENTS}
    needs_heuristic = config.opponent in ("heuristic", "mixed") or (league and plays["heuristic"])
    if needs_heuristic and opponent_policy is None:
        from tcgjax.train.opponents import heuristic_policy

        opponent_policy = heuristic_policy(env)

    def schedule(count):
        frac = 1.0 - (count // (config.num_minibatches * config.update_epochs)) / num_updates
        return config.lr * jnp.where(config.anneal_lr, frac, 1.0)

    tx = optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm),
        optax.adam(learning_rate=schedule, eps=1e-5),
    )
    batched_reset = jax.vmap(reset_if_done, in_axes=(None, 0, 0))
    batched_step = jax.vmap(env.step)
    batched_observe = jax.vmap(env.observe, in_axes=(0, None))

    omniscient = config.critic == "omniscient"
    batched_omniscient = jax.vmap(env.observe_omniscient, in_axes=(0, 0))

    def apply(params, observation, mask, critic_observation):
        """``(logits, value)``: the critic reads ``critic_observation`` where it has a torso of
        its own (``None``: the actor's view)."""
        if config.critic == "shared":
            return network.apply(params, observation, mask)
        return network.apply(params, observation, mask, critic_observation)

    def critic_view(state, player):
        """What the critic reads for ``player`` (int32[B]): when it is omniscient, float32[B, 2, O]
        (that player's and the opponent's views, every card face up), else float32[B, 0]
        (nothing stored: the critic reads the actor's view)."""
        if omniscient:
            return jnp.stack(
                [batched_omniscient(state, player), batched_omniscient(state, 1 - player)], axis=1
            )
        return jnp.zeros((player.shape[0], 0), jnp.float32)

    def values_per_seat(params, state):
        values = []
        for p in range(env.num_players):
            seat = jnp.full((num_envs,), p, jnp.int32)
            critic_obs = critic_view(state, seat) if omniscient else None
            obs = batched_observe(state, p)
            values.append(apply(params, obs, state.legal_action_mask, critic_obs)[1])
        return jnp.stack(values, axis=-1)

    def init(key: jax.Array) -> RunnerState:
        k_net, k_env, k_run = jax.random.split(key, 3)
        obs = jnp.zeros((1,) + tuple(env.observation_shape), jnp.float32)
        mask = jnp.ones((1, env.num_actions), bool)
        if config.critic == "shared":
            params = network.init(k_net, obs, mask)
        else:
            views = 2 if omniscient else 1
            params = network.init(k_net, obs, mask, jnp.zeros((1, views, obs.shape[-1])))
        env_state = jax.vmap(env.init)(jax.random.split(k_env, num_envs))
        snapshots = jax.tree.map(lambda p: jnp.stack([p] * config.snapshot_pool_size), params)
        return RunnerState(
            params=params,
            opt_state=tx.init(params),
            env_state=env_state,
            learner_seat=(jnp.arange(num_envs) % 2).astype(jnp.int32),
            snapshots=snapshots,
            key=k_run,
            update=jnp.int32(0),
            invalid_attempts=jnp.zeros(num_envs, jnp.int32),
            league_win_rate=jnp.full(config.snapshot_pool_size, L.UNKNOWN_WIN_RATE, jnp.float32),
        )

    def opponent_actions(runner, state, key, snapshot_index):
        if config.opponent == "random":
            return random_legal_action(key, state.legal_action_mask)
        if config.opponent == "heuristic":
            return jax.vmap(opponent_policy)(state, jax.random.split(key, num_envs))
        if config.opponent == "mixed":  # even env slots face random, odd ones the heuristic
            k_random, k_heuristic = jax.random.split(key)
            scripted = jax.vmap(opponent_policy)(state, jax.random.split(k_heuristic, num_envs))
            random = random_legal_action(k_random, state.legal_action_mask)
            return jnp.where(jnp.arange(num_envs) % 2 == 0, random, scripted)
        if config.opponent == "snapshot":
            return snapshot_actions(runner, state, key, snapshot_index)
        if league:
            # Only the opponents with a share run (a table of slots, not a branch per game); the
            # self-play slots' entry is never used (both their seats are the learner's).
            k_snap, k_heuristic, k_random = jax.random.split(key, 3)
            action = jnp.zeros(num_envs, jnp.int32)
            if plays["random"]:
                random = random_legal_action(k_random, state.legal_action_mask)
                action = jnp.where(slot_opponent == L.RANDOM, random, action)
            if plays["heuristic"]:
                keys = jax.random.split(k_heuristic, num_envs)
                scripted = jax.vmap(opponent_policy)(state, keys).astype(jnp.int32)
                action = jnp.where(slot_opponent == L.HEURISTIC, scripted, action)
            if plays["snapshot"]:
                frozen = snapshot_actions(runner, state, k_snap, snapshot_index)
                action = jnp.where(slot_opponent == L.SNAPSHOT, frozen, action)
            return action
        raise AssertionError("self-play has no opponent")

    def snapshot_actions(runner, state, key, snapshot_index):
        # A frozen opponent plays masked whatever the design (its illegal choice would forfeit).
        params = jax.tree.map(lambda p: p[snapshot_index], runner.snapshots)
        logits, _ = network.apply(params, state.observation, state.legal_action_mask)
        return (
            masked_distribution(logits, state.legal_action_mask).sample(seed=key).astype(jnp.int32)
        )

    def env_step(carry, key):
        runner, snapshot_index = carry
        k_reset, k_act, k_opp, k_step = jax.random.split(key, 4)
        state = runner.env_state
        was_done = state.terminated | state.truncated
        state = batched_reset(env.init, state, jax.random.split(k_reset, num_envs))
        learner_seat = jnp.where(was_done, 1 - runner.learner_seat, runner.learner_seat)
        critic_obs = critic_view(state, state.current_player)
        logits, value = apply(
            runner.params,
            state.observation,
            state.legal_action_mask,
            critic_obs if omniscient else None,
        )
        dist = policy_distribution(config, logits, state.legal_action_mask)
        action = dist.sample(seed=k_act).astype(jnp.int32)
        if config.opponent == "self":
            weight = jnp.ones(num_envs, jnp.float32)
        else:
            is_learner = state.current_player == learner_seat
            if league:
                is_learner = is_learner | (slot_opponent == L.SELF)
            opp = opponent_actions(runner, state, k_opp, snapshot_index).astype(jnp.int32)
            action = jnp.where(is_learner, action, opp)
            weight = is_learner.astype(jnp.float32)
        next_state = batched_step(state, action, jax.random.split(k_step, num_envs))
        attempts = jnp.where(was_done, 0, runner.invalid_attempts)
        chosen_legal = jnp.take_along_axis(state.legal_action_mask, action[:, None], axis=1)[:, 0]
        invalid = ~chosen_legal  # only the learner's unmasked choices can be illegal
        forfeit = jnp.zeros(num_envs, bool)
        if unmasked:
            # Below max_invalid the choice is refused: the game as it was (the env's "reject"),
            # the actor penalised; at the max_invalid-th the env's "lose" records the forfeit.
            forfeit = invalid & (attempts + 1 >= config.max_invalid)
            refused = invalid & ~forfeit
            penalty = jnp.where(
                jnp.arange(env.num_players)[None, :] == state.current_player[:, None],
                jnp.float32(config.invalid_penalty),
                0.0,
            ) * invalid[:, None].astype(jnp.float32)
            next_state = jax.vmap(tree_where)(refused, state, next_state)
            next_state = next_state.replace(
                rewards=next_state.rewards * ~refused[:, None] + penalty
            )
            attempts = jnp.where(refused, attempts + 1, 0)
        overflow = jnp.zeros(num_envs, bool)
        if config.action_design == "pointer":
            overflow = jnp.sum(state.legal_action_mask, axis=-1) > options
        truncation_values = jax.lax.cond(
            jnp.any(next_state.truncated),
            lambda: values_per_seat(runner.params, next_state),
            lambda: jnp.zeros((num_envs, env.num_players), jnp.float32),
        )
        episode_done = next_state.terminated | next_state.truncated
        outcome = jnp.take_along_axis(next_state.rewards, learner_seat[:, None], axis=1)[:, 0]
        transition = Transition(
            observation=state.observation,
            legal_action_mask=state.legal_action_mask,
            action=action,
            log_prob=dist.log_prob(action),
            value=value,
            rewards=next_state.rewards,
            actor=state.current_player,
            terminated=next_state.terminated,
            truncated=next_state.truncated,
            truncation_values=truncation_values,
            weight=weight,
            learner_outcome=jnp.where(episode_done, outcome, 0.0),
            episode_done=episode_done,
            invalid=invalid,
            forfeit=forfeit,
            overflow=overflow,
            critic_observation=critic_obs,
        )
        runner = runner._replace(
            env_state=next_state, learner_seat=learner_seat, invalid_attempts=attempts
        )
        return (runner, snapshot_index), transition

    def loss_fn(params, batch, advantages, targets):
        logits, value = apply(
            params,
            batch.observation,
            batch.legal_action_mask,
            batch.critic_observation if omniscient else None,
        )
        # The stored mask, re-applied (not at all for unmasked).
        dist = policy_distribution(config, logits, batch.legal_action_mask)
        log_prob = dist.log_prob(batch.action)
        w = batch.weight
        denom = jnp.maximum(jnp.sum(w), 1.0)
        mean_adv = jnp.sum(advantages * w) / denom
        std_adv = jnp.sqrt(jnp.sum(w * (advantages - mean_adv) ** 2) / denom)
        adv = (advantages - mean_adv) / (std_adv + 1e-8)
        ratio = jnp.exp(log_prob - batch.log_prob)
        actor_loss = -jnp.minimum(
            ratio * adv, jnp.clip(ratio, 1 - config.clip_eps, 1 + config.clip_eps) * adv
        )
        value_loss = jnp.square(value - targets)
        if config.clip_value:
            clipped = batch.value + jnp.clip(value - batch.value, -config.clip_eps, config.clip_eps)
            value_loss = jnp.maximum(value_loss, jnp.square(clipped - targets))
        entropy = dist.entropy()
        total = (
            jnp.sum(w * actor_loss) / denom
            + config.vf_coef * 0.5 * jnp.sum(w * value_loss) / denom
            - config.ent_coef * jnp.sum(w * entropy) / denom
        )
        stats = {
            "loss": total,
            "actor_loss": jnp.sum(w * actor_loss) / denom,
            "value_loss": jnp.sum(w * value_loss) / denom,
            "entropy": jnp.sum(w * entropy) / denom,
            "approx_kl": jnp.sum(w * (batch.log_prob - log_prob)) / denom,
            "clip_fraction": jnp.sum(w * (jnp.abs(ratio - 1) > config.clip_eps)) / denom,
        }
        return total, stats

    def rollout(runner: RunnerState, key: jax.Array, snapshot_index=0):
        """``num_steps`` steps of every game: ``(runner, Transition [T, B])`` (``key`` consumed;
        ``snapshot_index`` picks the frozen opponent for ``opponent="snapshot"``)."""
        (runner, _), traj = jax.lax.scan(
            env_step, (runner, jnp.int32(snapshot_index)), jax.random.split(key, num_steps)
        )
        return runner, traj

    def update(runner: RunnerState):
        key, k_roll, k_snap, k_perm = jax.random.split(runner.key, 4)
        if league:
            weights = L.pfsp_weights(runner.league_win_rate, config.pfsp_power)
            snapshot_index = jax.random.choice(k_snap, config.snapshot_pool_size, p=weights)
        else:
            snapshot_index = jax.random.randint(k_snap, (), 0, config.snapshot_pool_size)
        runner, traj = rollout(runner, k_roll, snapshot_index)
        last_values = values_per_seat(runner.params, runner.env_state)
        final_done = (runner.env_state.terminated | runner.env_state.truncated)[:, None]
        last_values = jnp.where(final_done, 0.0, last_values)
        advantages, targets = per_seat_gae(traj, last_values, config.gamma, config.gae_lambda)

        flat = jax.tree.map(
            lambda x: x.reshape((num_envs * num_steps,) + x.shape[2:]), (traj, advantages, targets)
        )

        def epoch(carry, k):
            params, opt_state = carry
            perm = sgd_indices(k, flat[0].weight, sgd_batch)
            shuffled = jax.tree.map(
                lambda x: x[perm].reshape(
                    (config.num_minibatches, sgd_batch // config.num_minibatches) + x.shape[1:]
                ),
                flat,
            )
            if minibatch_sharding is not None:
                shuffled = jax.lax.with_sharding_constraint(shuffled, minibatch_sharding)

            def minibatch(carry, mb):
                params, opt_state = carry
                batch, adv, tgt = mb
                grads, stats = jax.grad(loss_fn, has_aux=True)(params, batch, adv, tgt)
                updates, opt_state = tx.update(grads, opt_state, params)
                stats = {**stats, "grad_norm": optax.tree.norm(grads)}
                return (optax.apply_updates(params, updates), opt_state), stats

            return jax.lax.scan(minibatch, (params, opt_state), shuffled)

        (params, opt_state), stats = jax.lax.scan(
            epoch, (runner.params, runner.opt_state), jax.random.split(k_perm, config.update_epochs)
        )
        update_index = runner.update + 1
        new_snapshot = update_index % config.snapshot_every == 0
        written = (update_index // config.snapshot_every) % config.snapshot_pool_size
        snapshots = jax.tree.map(
            lambda pool, p: jnp.where(new_snapshot, pool.at[written].set(p), pool),
            runner.snapshots,
            params,
        )
        league_win_rate, league_metrics = runner.league_win_rate, {}
        if league:
            finished = traj.episode_done & (slot_opponent == L.SNAPSHOT)[None, :]
            league_win_rate, _, _ = L.update_win_rates(
                league_win_rate, snapshot_index, finished, traj.learner_outcome
            )
            # The slot a new snapshot replaces is an unknown opponent again.
            fresh = new_snapshot & (jnp.arange(config.snapshot_pool_size) == written)
            league_win_rate = jnp.where(fresh, L.UNKNOWN_WIN_RATE, league_win_rate)
            league_metrics = {
                "league_snapshot_played": snapshot_index.astype(jnp.float32),
                "league_snapshot_weight": weights[snapshot_index],
            }
            for name in ("snapshot", "heuristic", "random"):
                kind = LEAGUE_OPPONENTS.index(name)
                done = traj.episode_done & (slot_opponent == kind)[None, :]
                games = jnp.sum(done, dtype=jnp.float32)
                # Wins plus half the draws, per finished game (0 when none finished).
                score = jnp.sum(done * (jnp.sign(traj.learner_outcome) + 1.0) / 2.0)
                league_metrics[f"league_games_vs_{name}"] = games
                league_metrics[f"league_win_rate_vs_{name}"] = score / jnp.maximum(games, 1.0)
        finished = traj.episode_done
        learner_transitions = jnp.sum(traj.weight)
        metrics = {k: jnp.mean(v) for k, v in stats.items()}
        metrics.update(
            learner_share=learner_transitions / (num_envs * num_steps),
            # Share of the learner's transitions that did not fit in the SGD batch (sgd_fraction).
            sgd_dropped=jnp.maximum(learner_transitions - sgd_batch, 0.0)
            / jnp.maximum(learner_transitions, 1.0),
            episodes=jnp.sum(finished),
            learner_wins=jnp.sum(finished & (traj.learner_outcome > 0)),
            learner_losses=jnp.sum(finished & (traj.learner_outcome < 0)),
            mean_value=jnp.mean(traj.value),
            # Shares of the learner's decisions: illegal choices (unmasked), forfeits after
            # max_invalid of them, and more legal ids than the pointer lists.
            invalid_attempt_rate=jnp.sum(traj.weight * traj.invalid)
            / jnp.maximum(learner_transitions, 1.0),
            forfeits=jnp.sum(traj.weight * traj.forfeit),
            pointer_overflow=jnp.sum(traj.weight * traj.overflow)
            / jnp.maximum(learner_transitions, 1.0),
            env_steps=jnp.int32(num_envs * num_steps),
            # 1.0 iff every parameter is finite after the update (tcgjax.train.run stops on 0.0).
            params_finite=jnp.all(
                jnp.stack([jnp.all(jnp.isfinite(x)) for x in jax.tree.leaves(params)])
            ).astype(jnp.float32),
        )
        metrics.update(league_metrics)
        runner = runner._replace(
            params=params,
            opt_state=opt_state,
            snapshots=snapshots,
            key=key,
            update=update_index,
            league_win_rate=league_win_rate,
        )
        return runner, metrics

    def policy_logits(params, observation, legal_action_mask=None):
        return network.apply(params, observation, legal_action_mask)[0]

    return PPO(env, network, config, init, update, policy_logits, rollout)


def init_seeds(ppo: PPO, keys: jax.Array) -> RunnerState:
    """``jax.vmap(ppo.init)(keys)``, computed one seed at a time (one compiled ``init``, then the
    runners stacked along a leading seed axis; the same values).

    Why not one vmapped program: on XLA's CPU backend (jax 0.10.2, 2026-11-27) the vmapped
    ``init`` of a ``pointer`` network with the duel's 512 env states never returns (every thread
    waits on a futex; a flat or factored network, or either half alone, runs in seconds). One seed
    per call avoids that program altogether and costs one call per seed, once per run."""
    init = jax.jit(ppo.init)
    runners = [init(k) for k in keys]
    return jax.tree.map(lambda *xs: jnp.stack(xs), *runners)


def make_train(config: PPOConfig, env: Env | None = None):
    """``train(key) -> (RunnerState, metrics stacked over updates)``: the whole run, jittable."""
    ppo = make_ppo(config, env)

    def train(key: jax.Array):
        runner = ppo.init(key)
        return jax.lax.scan(lambda r, _: ppo.update(r), runner, None, length=config.num_updates)

    return train
