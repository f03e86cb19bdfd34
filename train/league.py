"""League training (``opponent: league``): who each env slot plays, and prioritized fictitious
self-play (PFSP) over the frozen snapshots.

The batch's ``num_envs`` slots are dealt to the opponents of :data:`LEAGUE_OPPONENTS` in
proportion to ``league_shares`` (fixed for the run, so the choice costs nothing at run time):

* ``self``: the learner plays both seats (every move is a training transition);
* ``snapshot``: a frozen copy of the learner from the pool (``snapshot_pool_size`` copies, one
  written every ``snapshot_every`` updates); each update plays one of them, drawn with PFSP
  weights: the more often a snapshot beats the learner, the more often it is drawn (AlphaStar's
  league, Vinyals et al. 2019, "hard" weighting ``(1 - p) ** pfsp_power`` where ``p`` is the
  learner's win rate against it);
* ``heuristic`` and ``random``: the game's scripted player and uniform random legal play.

The learner's win rate against each snapshot is a running average (``PFSP_AVERAGING`` of each
update's games) kept in ``RunnerState.league_win_rate``, so it is saved with the checkpoints and
restored on ``--resume`` together with the pool itself (``RunnerState.snapshots``). A draw counts
half a win. A snapshot slot written anew starts again at ``UNKNOWN_WIN_RATE``.
"""

from __future__ import annotations

from collections.abc import Mapping

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.train.config import LEAGUE_OPPONENTS

SELF, SNAPSHOT, HEURISTIC, RANDOM = (
    LEAGUE_OPPONENTS.index(k) for k in ("self", "snapshot", "heuristic", "random")
)
#: Weight of one update's games in the running win rate against the snapshot they played.
PFSP_AVERAGING = 0.1
#: The win rate assumed against a snapshot never played (an even match).
UNKNOWN_WIN_RATE = 0.5


def slot_opponents(shares: Mapping[str, float], num_envs: int) -> np.ndarray:
    """int8[num_envs]: the index in :data:`LEAGUE_OPPONENTS` each env slot plays, in contiguous
    runs in that order, sized by largest remainder so the counts sum to ``num_envs`` (8 slots at
    shares 0.25 / 0.5 / 0 / 0.25 are 2 self, 4 snapshot, 2 random)."""
    wanted = np.array([float(shares.get(k, 0.0)) for k in LEAGUE_OPPONENTS]) * num_envs
    counts = np.floor(wanted).astype(int)
    order = np.argsort(-(wanted - counts), kind="stable")
    counts[order[: num_envs - counts.sum()]] += 1
    return np.repeat(np.arange(len(LEAGUE_OPPONENTS), dtype=np.int8), counts)


def pfsp_weights(win_rate: jax.Array, power: float) -> jax.Array:
    """float32[K] summing to 1: snapshot ``k``'s chance to be played, ``(1 - win_rate[k]) **
    power`` normalised; uniform when the learner beats every snapshot every time (all zero)."""
    raw = jnp.power(jnp.clip(1.0 - win_rate, 0.0, 1.0), power)
    total = jnp.sum(raw)
    uniform = jnp.full_like(raw, 1.0 / raw.shape[0])
    return jnp.where(total > 0, raw / jnp.where(total > 0, total, 1.0), uniform)


def update_win_rates(
    win_rate: jax.Array,
    snapshot_index: jax.Array,
    finished: jax.Array,
    learner_outcome: jax.Array,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The running win rates after one update's games against snapshot ``snapshot_index``.

    Args:
      win_rate: float32[K], the learner's running win rate against each snapshot.
      snapshot_index: int32[], the snapshot this update played.
      finished: bool[T, B], games that ended at that step in a snapshot slot.
      learner_outcome: float32[T, B], the learner's reward at the end (> 0 won, < 0 lost).

    Returns:
      ``(win_rate, games, score)``: float32[K] (unchanged where no game finished), and this
      update's finished games and their score (wins plus half the draws) as float32[].
    """
    games = jnp.sum(finished, dtype=jnp.float32)
    score = jnp.sum(finished * (jnp.sign(learner_outcome) + 1.0) / 2.0, dtype=jnp.float32)
    rate = score / jnp.maximum(games, 1.0)
    old = win_rate[snapshot_index]
    new = jnp.where(games > 0, old + PFSP_AVERAGING * (rate - old), old)
    return win_rate.at[snapshot_index].set(new), games, score
