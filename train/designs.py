"""Action designs: how a policy turns a state's features into a distribution over action ids.

Every design ends in the same place, logits over the env's ``A`` ids, so that PPO, evaluation,
checkpoints and search treat them alike; what differs is how those logits are made, and whether the
legal-action mask shapes the policy or is left for the env to enforce (config ``action_design``):

* ``flat``: one ``Dense(A)`` head, masked (illegal ids at ``finfo.min``) — the baseline.
* ``unmasked``: the same head, never masked: an illegal choice is refused by the env, penalised,
  counted, and after ``max_invalid`` refusals in one decision the actor forfeits (``tcgjax.train.ppo``).
* ``factored``: a head over the action *kinds* (the ranges of the game's ``ActionLayout``), then
  one head per argument of each kind (the range's declared shape, e.g. Digimon ``attack`` =
  attacker 20 x target 15), each masked by what is still legal given the choices before it.
  :func:`factored_log_probs` gives the exact joint log-probability of every id in one pass, so
  sampling, log-probabilities and entropy are those of the sequential process, exactly.
* ``pointer``: the legal ids as a list of at most ``max_options`` candidates
  (id order), each described by its kind, its arguments and, in the card games,
  the embedding of the card it names (the torso's own embedding table when ``network:
  card_embedding``), scored by a dot product with the state's features. Legal ids beyond
  ``max_options`` cannot be chosen: PPO counts every such decision (``pointer_overflow``).

Argument heads of ``factored`` are conditioned on the earlier choices through the masks only (as
MultiDiscrete heads with conditional masks), not through their logits: a per-prefix network
would cost a forward pass per prefix.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core.actions import ActionLayout
from tcgjax.core.errors import ConfigError
from tcgjax.train.config import ACTION_DESIGNS

__all__ = [
    "ACTION_DESIGNS",
    "MAX_LEGAL_ACTIONS",
    "ACTION_CARDS",
    "ActionStructure",
    "action_structure",
    "factored_head_size",
    "factored_log_probs",
    "pointer_candidates",
    "PolicyHead",
]


# The most ids legal at once under random play (benchmarks/legal_actions.py, 256 games x 2000
# steps each, 2026-11-27): the pointer design's default max_options.
MAX_LEGAL_ACTIONS = {"deployment": 36, "digimon": 53, "duel": 9, "pokemon": 28}

# Which argument of which range names a card, per game (for the pointer's card feature):
# ``("definition", k)``: argument k is the card definition (Pokémon names cards by definition);
# ``("observation", k, slice)``: argument k indexes an observation slice of card ids (Digimon's
# hand positions: entry k of ``my_hand``). The Main-phase meanings: in a selection phase an id may
# name another thing, and the feature is then only a learned hint.
ACTION_CARDS: Mapping[str, Mapping[str, tuple]] = {
    "pokemon": {
        "play": ("definition", 0),
        "evolve": ("definition", 0),
        "attach": ("definition", 0),
        "select_card": ("definition", 0),
    },
    "digimon": {
        "play": ("observation", 0, "my_hand"),
        "trash_hand": ("observation", 0, "my_hand"),
        "dna": ("observation", 0, "my_hand"),
        "digivolve": ("observation", 0, "my_hand"),
    },
}


@dataclasses.dataclass(frozen=True)
class ActionStructure:
    """The static description of an action space the designs read (hashable: a module field).

    Attributes:
      kinds: range names in id order.
      starts: first id of each range.
      shapes: argument shape of each range (``ActionLayout.shapes``).
      num_actions: ``A``.
      card_column: per id, the observation column holding the card it names, or -1.
      card_definition: per id, the card definition it names, or -1.
    """

    kinds: tuple[str, ...]
    starts: tuple[int, ...]
    shapes: tuple[tuple[int, ...], ...]
    num_actions: int
    card_column: tuple[int, ...] = ()
    card_definition: tuple[int, ...] = ()

    @property
    def max_arguments(self) -> int:
        return max(len(s) for s in self.shapes)

    def kind_of(self) -> np.ndarray:
        """int32[A]: the range index of every id."""
        out = np.zeros(self.num_actions, np.int32)
        for k, (start, shape) in enumerate(zip(self.starts, self.shapes, strict=True)):
            out[start : start + math.prod(shape)] = k
        return out

    def argument_tokens(self) -> np.ndarray:
        """int32[A, L]: per id and argument position, one token for (kind, position, value),
        numbered from 1 over every kind; 0 where the kind has fewer than ``L`` arguments."""
        width = self.max_arguments
        out = np.zeros((self.num_actions, width), np.int32)
        token = 1
        for start, shape in zip(self.starts, self.shapes, strict=True):
            size = math.prod(shape)
            values = np.stack(np.unravel_index(np.arange(size), shape), axis=-1)  # [size, n]
            for j, d in enumerate(shape):
                out[start : start + size, j] = token + values[:, j]
                token += d
        return out

    @property
    def num_argument_tokens(self) -> int:
        return 1 + sum(sum(shape) for shape in self.shapes)


def action_structure(env) -> ActionStructure:
    """The :class:`ActionStructure` of ``env`` (its ``action_layout`` and, for the card games,
    :data:`ACTION_CARDS` resolved against its observation layout)."""
    layout: ActionLayout = env.action_layout
    kinds = tuple(layout.ranges)
    starts = tuple(layout.ranges[k][0] for k in kinds)
    shapes = tuple(layout.shapes[k] for k in kinds)
    column = np.full(layout.num_actions, -1, np.int64)
    definition = np.full(layout.num_actions, -1, np.int64)
    for kind, source in ACTION_CARDS.get(env.id, {}).items():
        start, size = layout.ranges[kind]
        shape = layout.shapes[kind]
        argument = np.unravel_index(np.arange(size), shape)[source[1]]
        ids = start + np.arange(size)
        if source[0] == "definition":
            definition[ids] = argument
        else:
            first, slice_shape, _ = env.observation_layout.slices[source[2]]
            inside = argument < math.prod(slice_shape)
            column[ids[inside]] = first + argument[inside]
    return ActionStructure(
        kinds,
        starts,
        shapes,
        layout.num_actions,
        tuple(int(c) for c in column) if (column >= 0).any() else (),
        tuple(int(d) for d in definition) if (definition >= 0).any() else (),
    )


def factored_head_size(structure: ActionStructure) -> int:
    """Outputs of the ``factored`` head: one logit per kind, then per kind one per argument value."""
    return len(structure.kinds) + sum(sum(shape) for shape in structure.shapes)


def factored_log_probs(
    head: jax.Array, legal_action_mask: jax.Array | None, structure: ActionStructure
) -> jax.Array:
    """Exact joint log-probabilities of every action id under the factored design.

    The policy picks a kind ``k`` from the kind logits among the kinds with a legal id, then each
    argument ``i_j`` of ``k`` in order from that argument's logits among the values that leave a
    legal id given ``i_1 .. i_{j-1}``. So ``log p(id) = log p(k) + sum_j log p(i_j | k, i_<j)``,
    computed for every id at once: per kind, the mask reshaped to the kind's argument shape, the
    legal values at depth ``j`` are those with any legal id below them.

    Args:
      head: float[..., factored_head_size(structure)] (kind logits, then each kind's argument
        logits, kind by kind, argument by argument).
      legal_action_mask: bool[..., A], or None (every id legal: the mask removed).
      structure: the env's :class:`ActionStructure`.
    Returns:
      float[..., A]: ``log p(id)`` on legal ids (they sum to 1 in probability), ``finfo.min`` on
      illegal ones (a categorical over them is the factored policy).
    """
    neg = jnp.finfo(head.dtype).min
    batch = head.shape[:-1]
    num_kinds = len(structure.kinds)
    if legal_action_mask is None:
        legal_action_mask = jnp.ones(batch + (structure.num_actions,), bool)
    kind_logits = head[..., :num_kinds]
    offset = num_kinds
    kind_legal, within = [], []
    for start, shape in zip(structure.starts, structure.shapes, strict=True):
        size = math.prod(shape)
        legal = legal_action_mask[..., start : start + size].reshape(batch + shape)
        kind_legal.append(jnp.any(legal.reshape(batch + (size,)), axis=-1))
        log_p = jnp.zeros(batch + shape, head.dtype)
        n = len(shape)
        for j, d in enumerate(shape):
            logits = head[..., offset : offset + d]
            offset += d
            # Values of argument j that leave a legal id, given the arguments before it.
            reachable = jnp.any(legal, axis=tuple(range(len(batch) + j + 1, len(batch) + n)))
            expand = (Ellipsis,) + (None,) * j + (slice(None),)
            level = jax.nn.log_softmax(jnp.where(reachable, logits[expand], neg), axis=-1)
            log_p = log_p + level[(Ellipsis,) + (slice(None),) * (j + 1) + (None,) * (n - j - 1)]
        within.append(log_p.reshape(batch + (size,)))
    kind_log_p = jax.nn.log_softmax(jnp.where(jnp.stack(kind_legal, -1), kind_logits, neg), -1)
    joint = jnp.concatenate([kind_log_p[..., k : k + 1] + w for k, w in enumerate(within)], axis=-1)
    return jnp.where(legal_action_mask, joint, neg)


def _selection(legal_action_mask: jax.Array, max_options: int) -> jax.Array:
    """bool[..., M, A]: row ``m`` marks the ``m``-th legal id (id order), none past the last.

    Dense on purpose: ``jnp.nonzero`` and scattering scores back are sorts and scatters, which
    XLA runs as serial loops on the CPU (a pointer update was 4x slower than flat with them); a
    cumulative sum, a comparison and one matrix product do the same in vector code."""
    rank = jnp.cumsum(legal_action_mask, axis=-1, dtype=jnp.int32) - 1  # [..., A]
    slots = jnp.arange(max_options, dtype=jnp.int32)[:, None]  # [M, 1]
    return legal_action_mask[..., None, :] & (rank[..., None, :] == slots)


def pointer_candidates(legal_action_mask: jax.Array, max_options: int):
    """The legal ids of a state as a fixed-size list (id order).

    Args:
      legal_action_mask: bool[..., A].
      max_options: the list length ``M``.
    Returns:
      ``(ids int32[..., M], valid bool[..., M], overflow bool[...])``: ids padded with ``A`` (out of
      range), ``valid`` marks real entries, ``overflow`` is True when more than ``M`` ids were
      legal (those past the first ``M`` cannot be chosen).
    """
    num_actions = legal_action_mask.shape[-1]
    selection = _selection(legal_action_mask, max_options)
    valid = jnp.any(selection, axis=-1)
    ids = jnp.where(valid, jnp.argmax(selection, axis=-1), num_actions).astype(jnp.int32)
    overflow = jnp.sum(legal_action_mask, axis=-1) > max_options
    return ids, valid, overflow


class PolicyHead(nn.Module):
    """The policy part of an actor-critic for one action design: features -> logits over ``A``.

    Input ``x`` float[..., H] (the torso's output), ``legal_action_mask`` bool[..., A] or None
    (``factored``: every id legal; ``pointer`` needs the mask), ``observation`` float[..., O]
    (``pointer``'s card feature), ``card_embedding`` the torso's ``nn.Embed`` or None.
    Returns float[..., A]: raw logits (``flat``, ``unmasked``), exact joint log-probabilities
    (``factored``) or candidate scores at their ids (``pointer``), ``finfo.min`` where a design
    gives an id no probability.
    """

    design: str
    structure: ActionStructure
    max_options: int = 0
    feature_dim: int = 32
    num_card_ids: int = 0

    @nn.compact
    def __call__(self, x, legal_action_mask=None, observation=None, card_embedding=None):
        s = self.structure
        small = nn.initializers.orthogonal(0.01)
        if self.design in ("flat", "unmasked"):
            return nn.Dense(s.num_actions, kernel_init=small, name="logits")(x)
        if self.design == "factored":
            head = nn.Dense(factored_head_size(s), kernel_init=small, name="factored")(x)
            return factored_log_probs(head, legal_action_mask, s)
        if self.design != "pointer":
            raise ConfigError(f"action_design {self.design!r}: one of {ACTION_DESIGNS}")
        if legal_action_mask is None:
            raise ConfigError("action_design 'pointer' lists the legal ids: it needs the mask")
        return self._pointer(x, legal_action_mask, observation, card_embedding)

    def _pointer(self, x, mask, observation, card_embedding):
        s, dim = self.structure, self.feature_dim
        selection = _selection(mask, self.max_options)  # [..., M, A]
        valid = jnp.any(selection, axis=-1)  # [..., M]
        safe = jnp.argmax(selection, axis=-1)  # [..., M], 0 where not valid
        # What an id is (its kind and arguments) does not depend on the state: one [A, dim]
        # table a call, then one gather for the candidates.
        tokens = jnp.asarray(s.argument_tokens())  # [A, L]
        per_id = nn.Embed(len(s.kinds), dim, name="kind_embedding")(jnp.asarray(s.kind_of()))
        per_id = per_id + jnp.sum(
            nn.Embed(s.num_argument_tokens, dim, name="argument_embedding")(tokens)
            * (tokens > 0)[..., None],
            axis=-2,
        )
        feature = per_id[safe]  # [..., M, dim]
        if s.card_column or s.card_definition:
            card = jnp.full(safe.shape, -1, jnp.int32)
            if s.card_definition:
                card = jnp.asarray(s.card_definition, jnp.int32)[safe]
            if s.card_column:
                column = jnp.asarray(s.card_column, jnp.int32)[safe]
                in_view = jnp.take_along_axis(observation, jnp.maximum(column, 0), axis=-1).astype(
                    jnp.int32
                )
                card = jnp.where(column >= 0, in_view, card)
            if card_embedding is None:
                if self.num_card_ids <= 0:
                    raise ValueError("pointer: card features need num_card_ids (the env's)")
                card_embedding = nn.Embed(self.num_card_ids, dim, name="card_embedding")
            named = card_embedding(jnp.clip(card, 0, self.num_card_ids - 1))
            present = (card >= 0) if s.card_definition else (card > 0)  # Digimon: 0 = empty
            feature = feature + nn.Dense(dim, name="card_feature")(named) * present[..., None]
        # Additive attention (Bahdanau; the pointer networks of Vinyals et al.): one tanh layer
        # over the candidate and the state, then a score. Each candidate costs ``feature_dim``
        # tanh units, the flat head none: on games with few ids (the duel's 10, the small
        # deployment scenario's 65) the pointer is the slower design (benchmarks/RESULTS.md).
        query = nn.Dense(dim, name="query")(x)
        hidden = nn.tanh(feature + query[..., None, :])  # [..., M, dim]
        scores = nn.Dense(1, kernel_init=nn.initializers.orthogonal(0.01), name="score")(hidden)
        scores = jnp.where(valid, scores[..., 0], 0.0)  # [..., M]
        # Each listed id gets its candidate's score (one candidate per id: a masked sum).
        at_ids = jnp.sum(jnp.where(selection, scores[..., :, None], 0.0), axis=-2)  # [..., A]
        listed = jnp.any(selection, axis=-2)
        return jnp.where(listed, at_ids, jnp.finfo(scores.dtype).min)
