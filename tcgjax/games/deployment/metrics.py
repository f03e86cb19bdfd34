"""Training metrics of the deployment wargame (``deployment_phase_v1.md`` section 9), on device.

Pure and jittable: no Python control flow on traced values, every ratio with an explicit 0/0 case,
so no metric is ever NaN. Two pieces:

* :class:`DeploymentAttempts`, a per-step accumulator the rollout carries. Counted steps are those
  taken from a state in the deployment phase that was not done; a counted step is *invalid* iff
  the state it produced has ``error != 0`` (the core's illegal-action convention: under ``"reject"``
  nothing changed, under ``"lose"`` the actor lost). Feed it the state ``env.step`` returned, before
  any auto-reset (see :mod:`tcgjax.wrappers.auto_reset`).
* :func:`deployment_metrics`, over a batch of finished episodes (``State`` with any leading batch
  shape ``B``; each selected entry counts as one episode, so pass each finished episode once).

Shape letters: ``U`` = ``deployment_max_unit_slots``, ``Hs`` = ``deployment_max_hex_slots``.
"Units in scope" are the learner's units (``unit_scope="learner"``) or both players' (``"all"``,
the default, for self-play where one policy places both sides' units).

==========================================  =============  ===================================================
metric                                      shape          definition
==========================================  =============  ===================================================
``deployment_attempts``                     int32[]        counted steps (deployment phase, not done) in the
                                                           accumulator
``deployment_invalid_attempts``             int32[]        counted steps whose result has ``error != 0``
``deployment_valid_action_rate``            float32[]      ``(attempts - invalid) / attempts``; 0 when
                                                           ``attempts == 0``
``deployment_invalid_action_attempt_rate``  float32[]      ``invalid / attempts``; 0 when ``attempts == 0``
``deployment_episodes``                     int32[]        episodes measured (True entries of
                                                           ``episode_mask``)
``deployment_steps_mean``                   float32[]      mean ``deploy_steps`` (applied placements) per
                                                           episode; 0 if no episode
``deployment_deadlock_count``               int32[]        episodes whose ``outcome`` is ``deadlock``
``deployment_pass_count``                   int32[]        ``pass_deployment`` actions applied. An applied
                                                           pass always ends the episode with ``end_reason ==
                                                           "deadlock"`` (D5) and nothing else does, so it is
                                                           the count of those episodes (equal to the deadlock
                                                           count by construction)
``winrate``                                 float32[]      learner wins / episodes (deadlocks, draws and
                                                           truncations are not wins); 0 if no episode
``winrate_with_active_deployment``          float32[]      the same number; it means "with active deployment"
                                                           only when ``deployment_active == 1`` (for a
                                                           ``fixed`` scenario it is the fixed-placement
                                                           baseline)
``deployment_active``                       float32[]      1.0 if the scenario's ``deployment_type`` is
                                                           ``active``, else 0.0
``hex_slot_distribution``                   float32[Hs]    histogram of the ``hex_slot`` (D2: index into the
                                                           deployer's sorted pool) chosen for every deployed
                                                           unit in scope, normalised to sum 1; all 0 when no
                                                           unit was deployed (e.g. ``fixed``)
``unit_slot_distribution``                  float32[U, U]  ``[k, u]``: among the (episode, player) deployments
                                                           in scope that have a k-th placement, the fraction
                                                           in which unit slot ``u`` (D1) was that player's
                                                           k-th (0-based) unit placed. Rows with data sum to
                                                           1, rows without are 0. (Every unit is placed
                                                           eventually: the order is what the policy chooses.)
``placement_units``                         int32[]        units in the correlations: in scope, in episodes
                                                           whose deployment completed (no deadlock: the
                                                           skirmish was reached), with an initial hex and an
                                                           enemy with one
``placement_enemy_distance_mean``           float32[]      mean placement feature over those units; 0 if none
``placement_survival_correlation``          float32[]      Pearson r between the placement feature and
                                                           survival (``hp > 0`` at the end, as 1/0); 0 when
                                                           either side has zero variance or there are fewer
                                                           than 2 units
``placement_damage_correlation``            float32[]      Pearson r between the placement feature and
                                                           ``damage_dealt``; same 0 convention
==========================================  =============  ===================================================

The placement feature is the hex distance from a unit's initial hex to the nearest initial hex of an
enemy unit, i.e. how close to the enemy it was put at the end of deployment. The initial hex comes
from ``deploy_hex_slot`` through the scenario's ``pool_hex`` table (active deployment), or from
``fixed_positions`` (fixed deployment), never from ``col``/``row``, which units change by moving.
The rate keys and the two attempt counts are present only when ``attempts`` is given.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax.core.env import State
from tcgjax.games.deployment import rules as R

__all__ = ["DeploymentAttempts", "init_attempts", "update_attempts", "deployment_metrics"]

UNIT_SCOPES = ("all", "learner")
_DEADLOCK_END = R.END_REASONS.index("deadlock")


@struct.dataclass
class DeploymentAttempts:
    """Deployment-phase action attempts, counted per game (carry it through the rollout).

    Attributes:
      attempts: int32[B] — steps taken from a non-done state in the deployment phase.
      invalid_attempts: int32[B] — those whose resulting state has ``error != 0``.
    """

    attempts: jax.Array
    invalid_attempts: jax.Array

    @classmethod
    def zeros(cls, batch_shape: tuple[int, ...] = ()) -> DeploymentAttempts:
        """An empty accumulator of shape ``batch_shape`` (the batch shape of the states)."""
        return cls(
            attempts=jnp.zeros(batch_shape, jnp.int32),
            invalid_attempts=jnp.zeros(batch_shape, jnp.int32),
        )

    def update(self, prev_state: State, next_state: State) -> DeploymentAttempts:
        """Same as :func:`update_attempts`."""
        return update_attempts(self, prev_state, next_state)


def init_attempts(batch_shape: tuple[int, ...] = ()) -> DeploymentAttempts:
    """An empty :class:`DeploymentAttempts` of shape ``batch_shape``."""
    return DeploymentAttempts.zeros(batch_shape)


def update_attempts(
    acc: DeploymentAttempts, prev_state: State, next_state: State
) -> DeploymentAttempts:
    """Count the step ``prev_state -> next_state = env.step(prev_state, action, key)``.

    Elementwise over any batch shape (works under ``jit`` and ``vmap``); ``acc`` broadcasts with the
    states' batch shape, so give it that shape to keep a ``lax.scan`` carry fixed.

    Args:
      acc: the counts so far, int32[B].
      prev_state: the states the actions were chosen in, ``State`` [B].
      next_state: what ``env.step`` returned for them (before any auto-reset), ``State`` [B].

    Returns:
      ``acc`` plus 1 attempt where ``prev_state`` was in the deployment phase and not done, plus 1
      invalid attempt where, in addition, ``next_state.error != 0``.
    """
    counted = (prev_state.game.phase == R.DEPLOYMENT) & ~(
        prev_state.terminated | prev_state.truncated
    )
    invalid = counted & (next_state.error != 0)
    return DeploymentAttempts(
        attempts=acc.attempts + counted.astype(jnp.int32),
        invalid_attempts=acc.invalid_attempts + invalid.astype(jnp.int32),
    )


def _ratio(num: jax.Array, den: jax.Array) -> jax.Array:
    """``num / den`` as float32, 0 where ``den == 0`` (no NaN, no inf)."""
    num = jnp.asarray(num, jnp.float32)
    den = jnp.asarray(den, jnp.float32)
    return jnp.where(den > 0, num / jnp.where(den > 0, den, 1.0), 0.0)


def _pearson(x: jax.Array, y: jax.Array, weight: jax.Array) -> jax.Array:
    """Pearson r of ``x``, ``y`` over the entries where ``weight`` is True; 0 if undefined."""
    w = weight.astype(jnp.float32)
    n = jnp.sum(w)
    mx = _ratio(jnp.sum(w * x), n)
    my = _ratio(jnp.sum(w * y), n)
    dx, dy = (x - mx) * w, (y - my) * w
    sxy, sxx, syy = jnp.sum(dx * dy), jnp.sum(dx * dx), jnp.sum(dy * dy)
    ok = (n >= 2) & (sxx > 0) & (syy > 0)
    r = sxy / jnp.sqrt(jnp.where(ok, sxx * syy, 1.0))
    return jnp.where(ok, jnp.clip(r, -1.0, 1.0), 0.0).astype(jnp.float32)


def _flatten_batch(tree, batch_ndim: int):
    """Merge the ``batch_ndim`` leading axes of every leaf into one."""
    return jax.tree.map(lambda x: x.reshape((-1,) + x.shape[batch_ndim:]), tree)


def deployment_metrics(
    env,
    final_states: State,
    attempts: DeploymentAttempts | None = None,
    learner_player=0,
    *,
    episode_mask: jax.Array | None = None,
    unit_scope: str = "all",
) -> dict[str, jax.Array]:
    """Section-9 metrics of a batch of finished episodes (see the module docstring's table).

    Jittable with ``env`` (and ``unit_scope``) static, e.g.
    ``jax.jit(functools.partial(deployment_metrics, env))``.

    Args:
      env: the :class:`~tcgjax.games.deployment.DeploymentEnv` that produced the states.
      final_states: ``State`` with batch shape ``[B...]`` (or a single state): the last state of
        each episode.
      attempts: the rollout's :class:`DeploymentAttempts` (any shape; summed), or None to leave out
        the attempt counts and rates.
      learner_player: int or int[B...], the learner's seat (0 = player1) in each episode.
      episode_mask: bool[B...], which entries are episodes to measure; default
        ``terminated | truncated`` (entries still running are left out).
      unit_scope: ``"all"`` (both players' units) or ``"learner"`` (the learner's units only) for
        the distributions and correlations.

    Returns:
      ``{name: array}``: scalars (int32 counts, float32 rates), ``hex_slot_distribution``
      float32[Hs], ``unit_slot_distribution`` float32[U, U].
    """
    if unit_scope not in UNIT_SCOPES:
        raise ValueError(f"unit_scope={unit_scope!r} is not one of {UNIT_SCOPES}")
    s = env.scenario
    U, Hs = s.max_unit_slots, s.max_hex_slots
    tables = s.tables

    game = final_states.game
    batch_shape = game.outcome.shape
    if episode_mask is None:
        episode_mask = final_states.terminated | final_states.truncated
    mask = jnp.broadcast_to(jnp.asarray(episode_mask, jnp.bool_), batch_shape).reshape(-1)
    learner = jnp.broadcast_to(jnp.asarray(learner_player, jnp.int32), batch_shape).reshape(-1)
    game = _flatten_batch(game, len(batch_shape))  # every leaf [N, ...]

    metrics: dict[str, jax.Array] = {}
    if attempts is not None:
        total = jnp.sum(attempts.attempts).astype(jnp.int32)
        invalid = jnp.sum(attempts.invalid_attempts).astype(jnp.int32)
        metrics["deployment_attempts"] = total
        metrics["deployment_invalid_attempts"] = invalid
        metrics["deployment_valid_action_rate"] = _ratio(total - invalid, total)
        metrics["deployment_invalid_action_attempt_rate"] = _ratio(invalid, total)

    # -- per-episode counts and rates ----------------------------------------------------------
    episodes = jnp.sum(mask).astype(jnp.int32)
    deadlock = mask & (game.outcome == R.DEADLOCK)
    passed = mask & (game.end_reason == _DEADLOCK_END)  # D5: each applied pass ends it so
    won = mask & (game.outcome.astype(jnp.int32) == R.PLAYER1_WON + learner)
    winrate = _ratio(jnp.sum(won), episodes)
    metrics["deployment_episodes"] = episodes
    metrics["deployment_steps_mean"] = _ratio(
        jnp.sum(jnp.where(mask, game.deploy_steps.astype(jnp.int32), 0)), episodes
    )
    metrics["deployment_deadlock_count"] = jnp.sum(deadlock).astype(jnp.int32)
    metrics["deployment_pass_count"] = jnp.sum(passed).astype(jnp.int32)
    metrics["winrate"] = winrate
    metrics["winrate_with_active_deployment"] = winrate
    metrics["deployment_active"] = jnp.float32(s.deployment_type == "active")

    # -- units in scope: [N, U2] ------------------------------------------------------------------
    owner = jnp.asarray(tables["unit_owner"], jnp.int32)  # [U2]
    exists = jnp.asarray(tables["unit_exists"])  # [U2]
    in_scope = mask[:, None] & exists[None, :]
    if unit_scope == "learner":
        in_scope = in_scope & (owner[None, :] == learner[:, None])

    # hex_slot_distribution: the slot chosen for each deployed unit.
    slot = game.deploy_hex_slot.astype(jnp.int32)  # [N, U2], -1 if not deployed
    chose = in_scope & (slot >= 0)
    hex_counts = jnp.sum(
        jax.nn.one_hot(jnp.where(chose, slot, Hs), Hs + 1, dtype=jnp.float32), axis=(0, 1)
    )[:Hs]
    metrics["hex_slot_distribution"] = hex_counts / jnp.maximum(jnp.sum(hex_counts), 1.0)

    # unit_slot_distribution: [k, u] = unit slot u was its player's k-th placement.
    order = game.deploy_order.astype(jnp.int32)  # [N, U2], global placement index
    placed = exists[None, :] & (order >= 0)
    same_player = owner[:, None] == owner[None, :]  # [U2, U2]
    before = placed[:, None, :] & (order[:, None, :] < order[:, :, None])  # [N, g, g']
    rank = jnp.sum(before & same_player[None], axis=-1)  # [N, U2], 0-based within the player
    counted = chose & placed  # deployed units in scope
    rank_hot = jax.nn.one_hot(jnp.where(counted, rank, U), U + 1, dtype=jnp.float32)[..., :U]
    unit_hot = jax.nn.one_hot(jnp.arange(2 * U) % U, U, dtype=jnp.float32)  # [U2, U]
    unit_counts = jnp.einsum("ngk,gu->ku", rank_hot, unit_hot)
    metrics["unit_slot_distribution"] = unit_counts / jnp.maximum(
        jnp.sum(unit_counts, axis=1, keepdims=True), 1.0
    )

    # -- placement -> survival / damage -------------------------------------------------------------
    if s.deployment_type == "active":
        pool_hex = jnp.asarray(tables["pool_hex"], jnp.int32)  # [2, Hs]
        initial = jnp.where(
            slot >= 0, pool_hex[owner[None, :], jnp.clip(slot, 0, Hs - 1)], -1
        )  # [N, U2], flat hex or -1
    else:
        fixed = np.where(
            tables["fixed_col"] >= 0,
            tables["fixed_col"].astype(np.int32) * s.rows + tables["fixed_row"],
            -1,
        )
        initial = jnp.broadcast_to(jnp.asarray(fixed, jnp.int32), slot.shape)
    initial = jnp.where(exists[None, :], initial, -1)
    distance = jnp.asarray(tables["distance"], jnp.int32)  # [H, H]
    safe = jnp.maximum(initial, 0)
    pair = distance[safe[:, :, None], safe[:, None, :]]  # [N, g, g']
    enemy = (owner[:, None] != owner[None, :])[None] & (initial[:, None, :] >= 0)
    far = jnp.iinfo(jnp.int32).max
    nearest = jnp.min(jnp.where(enemy, pair, far), axis=-1)  # [N, U2]
    completed = game.phase != R.DEPLOYMENT  # the skirmish was reached (no deadlock)
    used = in_scope & completed[:, None] & (initial >= 0) & (nearest < far)
    feature = jnp.where(used, nearest, 0).astype(jnp.float32)
    survived = (game.hp > 0).astype(jnp.float32)
    damage = game.damage_dealt.astype(jnp.float32)
    n_used = jnp.sum(used).astype(jnp.int32)
    metrics["placement_units"] = n_used
    metrics["placement_enemy_distance_mean"] = _ratio(jnp.sum(feature), n_used)
    metrics["placement_survival_correlation"] = _pearson(feature, survived, used)
    metrics["placement_damage_correlation"] = _pearson(feature, damage, used)
    return metrics
