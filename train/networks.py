"""Actor-critic networks (Flax Linen) and the masked categorical policy.

Linen, not NNX: parameters stay a plain pytree, so ``jax.vmap(train)`` over seeds, ``lax.scan``
over updates, orbax checkpoints and ``jax.sharding`` replication all apply to them directly, as in
PureJaxRL. Masking uses ``jnp.finfo(dtype).min`` (never ``-inf``, whose ``0 * -inf`` is NaN), so
illegal actions get probability 0 and contribute nothing to the entropy.
"""

from __future__ import annotations

from collections.abc import Sequence

import distrax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.train.designs import ActionStructure, PolicyHead

__all__ = [
    "ActorCritic",
    "CardEmbeddingActorCritic",
    "AsymmetricActorCritic",
    "masked_logits",
    "masked_distribution",
    "greedy_action",
]


def masked_logits(logits: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """Logits with illegal actions at ``finfo.min``. ``[..., A]``."""
    return jnp.where(legal_action_mask, logits, jnp.finfo(logits.dtype).min)


def masked_distribution(logits: jax.Array, legal_action_mask: jax.Array) -> distrax.Categorical:
    """A categorical over the legal actions only (log-prob, entropy and samples ignore the rest)."""
    return distrax.Categorical(logits=masked_logits(logits, legal_action_mask))


def greedy_action(logits: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """The most probable legal action. int32[...]."""
    return jnp.argmax(masked_logits(logits, legal_action_mask), axis=-1).astype(jnp.int32)


def _policy(module, x, legal_action_mask, observation, embed, num_card_ids):
    """The policy logits of ``module``'s action design, from its torso's features ``x``.

    ``flat`` / ``unmasked``: one unnamed ``Dense(A)``, as before designs existed (so checkpoints of
    the flat networks keep their parameter names); the others: a ``PolicyHead`` named ``policy``.
    """
    if module.features_only:
        return None
    if module.action_design in ("flat", "unmasked"):
        return nn.Dense(module.num_actions, kernel_init=nn.initializers.orthogonal(0.01))(x)
    if module.structure is None:
        raise ValueError(f"action_design {module.action_design!r} needs the action structure")
    return PolicyHead(
        design=module.action_design,
        structure=module.structure,
        max_options=module.max_options,
        num_card_ids=num_card_ids,
        name="policy",
    )(x, legal_action_mask, observation, embed)


def _scaled(observation: jax.Array, scale: tuple[float, ...] | None) -> jax.Array:
    if scale is None:
        return observation
    if len(scale) != observation.shape[-1]:
        raise ValueError(
            f"input_scale has {len(scale)} entries for an observation of {observation.shape[-1]}"
        )
    return observation * jnp.asarray(scale, observation.dtype)


class ActorCritic(nn.Module):
    """MLP torso shared by a policy head (``A`` logits) and a value head.

    ``input_scale`` (``O`` floats, or ``None``) multiplies the observation first: an env whose
    tensor holds raw magnitudes (Digimon DP in points) declares it as ``observation_scale``, so
    that a ``tanh`` layer does not saturate on them.

    ``action_design`` (``tcgjax.train.designs``): ``flat`` and ``unmasked`` end in one ``Dense(A)``;
    ``factored`` and ``pointer`` in a :class:`~tcgjax.train.designs.PolicyHead` over ``structure``, which
    reads ``legal_action_mask``; ``num_card_ids`` sizes the ``pointer``'s card table in a card
    game (this network has no embedding of its own).

    Input ``observation`` float32[..., O] and ``legal_action_mask`` bool[..., A] (or None: every
    id legal); returns ``(logits float32[..., A], value float32[...])``.
    """

    num_actions: int
    hidden_sizes: Sequence[int] = (256, 256)
    input_scale: tuple[float, ...] | None = None
    action_design: str = "flat"
    structure: ActionStructure | None = None
    max_options: int = 0
    num_card_ids: int = 0  # rows of the pointer's own card table (card games); 0: none
    features_only: bool = False  # AsymmetricActorCritic's critic torso: (None, features [..., H])

    @nn.compact
    def __call__(
        self, observation: jax.Array, legal_action_mask: jax.Array | None = None
    ) -> tuple[jax.Array, jax.Array]:
        x = _scaled(observation, self.input_scale)
        for size in self.hidden_sizes:
            x = nn.tanh(nn.Dense(size, kernel_init=nn.initializers.orthogonal(jnp.sqrt(2)))(x))
        logits = _policy(self, x, legal_action_mask, observation, None, self.num_card_ids)
        if self.features_only:
            return None, x
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(x)
        return logits, jnp.squeeze(value, -1)


class CardEmbeddingActorCritic(nn.Module):
    """Actor-critic for observations that hold card ids, one embedding table shared by every zone.

    ``card_slices`` names observation slices (``ObservationLayout`` names) holding card ids laid out
    ``[zones, slots]`` or ``[slots]`` (one zone) (0 = empty, ids ``1..num_card_ids-1``; decisions
    G2/G3; a negative id, a hidden card, has no embedding).
    Each id goes through the same ``nn.Embed``; embeddings are mean-pooled per zone over the non-empty
    slots; the pooled zone vectors are concatenated with the rest of the observation and fed to the
    MLP torso. So a card means the same thing in a hand, on a board or in a trash pile, and the
    network never sees raw ids as magnitudes.

    Each zone also gives its fill (non-empty slots / slots, hidden cards counted): the size of a
    face-down security stack or of the opponent's hand is information even where no id is.

    A pooled zone is a bag: it says *which* cards a hand holds, not *where*. Actions name positions
    ("play hand card 3", "digivolve onto battle slot 2"), so ``card_positions`` lists the ids the
    policy must also see in place: ``(slice, column)`` pairs, ``column = -1`` for a slice of ids
    (``[slots]``: each element), ``column = c`` for a slice of rows (``[rows, cols]`` or ``[cols]``:
    column ``c`` of each row, e.g. a permanent's top card). Each such id's embedding goes through one
    shared ``Dense(position_dim)`` and the results are concatenated in order; those columns leave
    the raw part of the input. ``input_scale`` multiplies the raw part (ids are read unscaled).

    ``card_count_slices`` names slices that count cards *per definition* (``[num_card_ids]``:
    entry ``d`` is how many cards of definition ``d`` a zone holds, as Pokémon's hand and discard
    piles): each gives the count-weighted mean of the same embeddings, and its raw counts stay in
    the raw part (how many of a card is information the mean loses).

    ``action_design``, ``structure``, ``max_options``: as :class:`ActorCritic` (the ``pointer``
    design's card feature reads this network's embedding table).

    Input ``observation`` float32[..., O] and ``legal_action_mask`` bool[..., A] (or None);
    returns ``(logits [..., A], value [...])``.
    """

    num_actions: int
    layout: object  # tcgjax.ObservationLayout
    card_slices: tuple[str, ...]
    num_card_ids: int
    embed_dim: int = 32
    hidden_sizes: Sequence[int] = (256, 256)
    card_positions: tuple[tuple[str, int], ...] = ()
    position_dim: int = 8
    input_scale: tuple[float, ...] | None = None
    card_count_slices: tuple[str, ...] = ()
    action_design: str = "flat"
    structure: ActionStructure | None = None
    max_options: int = 0
    features_only: bool = False

    @nn.compact
    def __call__(
        self, observation: jax.Array, legal_action_mask: jax.Array | None = None
    ) -> tuple[jax.Array, jax.Array]:
        embed = nn.Embed(self.num_card_ids, self.embed_dim, name="card_embedding")
        pooled, id_columns = [], []
        for name in self.card_count_slices:
            if name not in self.layout.slices or self.layout.slices[name][1] != (
                self.num_card_ids,
            ):
                raise ValueError(
                    f"card_count_slices: {name!r} is not a slice of {self.num_card_ids} "
                    "per-definition counts in the observation layout"
                )
            counts = self.layout.view(observation, name)  # [..., N]
            total = jnp.sum(counts, axis=-1, keepdims=True)
            pooled.append((counts @ embed.embedding) / jnp.maximum(total, 1.0))
        for name in self.card_slices:
            start, shape, _ = self.layout.slices[name]
            ids = self.layout.view(observation, name)  # [..., zones, slots] or [..., slots]
            if len(shape) == 1:  # one zone
                ids = ids[..., None, :]
            # How full each zone is, hidden cards included: a face-down security stack or an
            # opponent's hand has no ids to embed, but its size matters.
            pooled.append(jnp.mean(ids != 0, axis=-1, dtype=observation.dtype))
            ids = jnp.clip(ids.astype(jnp.int32), 0, self.num_card_ids - 1)
            present = (ids > 0)[..., None]
            vectors = embed(ids) * present  # [..., zones, slots, E]
            count = jnp.maximum(jnp.sum(present, axis=-2), 1)
            pooled.append((jnp.sum(vectors, axis=-2) / count).reshape(ids.shape[:-2] + (-1,)))
            size = 1
            for s in shape:
                size *= s
            id_columns.append((start, start + size))
        keep = np.ones(observation.shape[-1], bool)
        for start, end in id_columns:
            keep[start:end] = False
        placed = []
        if self.card_positions:
            columns = np.concatenate(
                [self._position_columns(name, column) for name, column in self.card_positions]
            )
            keep[columns] = False
            ids = jnp.clip(observation[..., columns].astype(jnp.int32), 0, self.num_card_ids - 1)
            vectors = embed(ids) * (ids > 0)[..., None]  # [..., P, E]
            vectors = nn.Dense(self.position_dim, name="card_position")(vectors)
            placed.append(vectors.reshape(ids.shape[:-1] + (-1,)))
        rest = _scaled(observation, self.input_scale)[..., np.flatnonzero(keep)]
        x = jnp.concatenate([rest] + pooled + placed, axis=-1)
        for size in self.hidden_sizes:
            x = nn.tanh(nn.Dense(size, kernel_init=nn.initializers.orthogonal(jnp.sqrt(2)))(x))
        logits = _policy(self, x, legal_action_mask, observation, embed, self.num_card_ids)
        if self.features_only:
            return None, x
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(x)
        return logits, jnp.squeeze(value, -1)

    def _position_columns(self, name: str, column: int) -> np.ndarray:
        """Flat observation indices of the ids that ``(name, column)`` of ``card_positions`` names."""
        if name not in self.layout.slices:
            raise ValueError(f"card_positions: no observation slice {name!r}")
        start, shape, _ = self.layout.slices[name]
        flat = start + np.arange(int(np.prod(shape))).reshape(shape)
        if column < 0:
            return flat.reshape(-1)
        if not 0 <= column < shape[-1]:
            raise ValueError(f"card_positions: column {column} outside slice {name!r} {shape}")
        return flat[..., column].reshape(-1)


class AsymmetricActorCritic(nn.Module):
    """An actor and a critic with torsos of their own (config ``critic``: ``player`` or
    ``omniscient``). The actor reads ``observation`` (the acting player's view) only. The critic
    reads ``critic_observation``, ``V`` views of the game each encoded by its torso (built with
    ``features_only=True``), the features concatenated into one value: ``V = 1``, the actor's own
    view (``player``); ``V = 2``, the acting player's and the opponent's views with every card
    face up (``omniscient``: ``Env.observe_omniscient``; the opponent's view is where its hand is
    encoded). Training may use what play never sees: only the actor acts.

    Input ``observation`` float32[..., O], ``legal_action_mask`` bool[..., A] or None,
    ``critic_observation`` float32[..., V, O]; returns ``(logits [..., A], value [...])`` like the
    shared-torso networks. Without ``critic_observation`` (play: a policy, the evaluation) a
    ``player`` critic reads ``observation`` as its one view, and an ``omniscient`` one, whose views
    a player's observation does not hold, gives a NaN value, so that no caller mistakes it for one.
    """

    actor: nn.Module
    critic: nn.Module
    views: int = 1  # V: 1 (player) or 2 (omniscient)

    @property
    def action_design(self) -> str:
        return self.actor.action_design

    @property
    def max_options(self) -> int:
        return self.actor.max_options

    @nn.compact
    def __call__(self, observation, legal_action_mask=None, critic_observation=None):
        logits, _ = self.actor(observation, legal_action_mask)
        if critic_observation is None:
            if self.views > 1:
                return logits, jnp.full(observation.shape[:-1], jnp.nan, jnp.float32)
            critic_observation = observation[..., None, :]
        _, features = self.critic(critic_observation)  # [..., V, H]
        features = features.reshape(features.shape[:-2] + (-1,))
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0), name="value")(features)
        return logits, jnp.squeeze(value, -1)
