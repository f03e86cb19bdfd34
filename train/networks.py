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

__all__ = [
    "ActorCritic",
    "CardEmbeddingActorCritic",
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


class ActorCritic(nn.Module):
    """MLP torso shared by a policy head (``A`` logits) and a value head.

    Input ``observation`` float32[..., O]; returns ``(logits float32[..., A], value float32[...])``.
    """

    num_actions: int
    hidden_sizes: Sequence[int] = (256, 256)

    @nn.compact
    def __call__(self, observation: jax.Array) -> tuple[jax.Array, jax.Array]:
        x = observation
        for size in self.hidden_sizes:
            x = nn.tanh(nn.Dense(size, kernel_init=nn.initializers.orthogonal(jnp.sqrt(2)))(x))
        logits = nn.Dense(self.num_actions, kernel_init=nn.initializers.orthogonal(0.01))(x)
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(x)
        return logits, jnp.squeeze(value, -1)


class CardEmbeddingActorCritic(nn.Module):
    """Actor-critic for observations that hold card ids, one embedding table shared by every zone.

    ``card_slices`` names observation slices (``ObservationLayout`` names) holding card ids laid out
    ``[zones, slots]`` or ``[slots]`` (one zone) (0 = empty, ids ``1..num_card_ids-1``; decisions
    G2/G3; a negative id, a hidden card, counts as empty).
    Each id goes through the same ``nn.Embed``; embeddings are mean-pooled per zone over the non-empty
    slots; the pooled zone vectors are concatenated with the rest of the observation and fed to the
    MLP torso. So a card means the same thing in a hand, on a board or in a trash pile, and the
    network never sees raw ids as magnitudes.

    Input ``observation`` float32[..., O]; returns ``(logits [..., A], value [...])``.
    """

    num_actions: int
    layout: object  # tcgjax.ObservationLayout
    card_slices: tuple[str, ...]
    num_card_ids: int
    embed_dim: int = 32
    hidden_sizes: Sequence[int] = (256, 256)

    @nn.compact
    def __call__(self, observation: jax.Array) -> tuple[jax.Array, jax.Array]:
        embed = nn.Embed(self.num_card_ids, self.embed_dim, name="card_embedding")
        pooled, id_columns = [], []
        for name in self.card_slices:
            start, shape, _ = self.layout.slices[name]
            ids = self.layout.view(observation, name)  # [..., zones, slots] or [..., slots]
            if len(shape) == 1:  # one zone
                ids = ids[..., None, :]
            ids = jnp.clip(ids.astype(jnp.int32), 0, self.num_card_ids - 1)
            present = (ids > 0)[..., None]
            vectors = embed(ids) * present  # [..., zones, slots, E]
            count = jnp.maximum(jnp.sum(present, axis=-2), 1)
            pooled.append((jnp.sum(vectors, axis=-2) / count).reshape(ids.shape[:-2] + (-1,)))
            size = 1
            for s in shape:
                size *= s
            id_columns.append((start, start + size))
        keep = jnp.ones(observation.shape[-1], bool)
        for start, end in id_columns:
            keep = keep.at[start:end].set(False)
        rest = observation[
            ...,
            jnp.flatnonzero(
                keep, size=int(observation.shape[-1]) - sum(e - s for s, e in id_columns)
            ),
        ]
        x = jnp.concatenate([rest] + pooled, axis=-1)
        for size in self.hidden_sizes:
            x = nn.tanh(nn.Dense(size, kernel_init=nn.initializers.orthogonal(jnp.sqrt(2)))(x))
        logits = nn.Dense(self.num_actions, kernel_init=nn.initializers.orthogonal(0.01))(x)
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(x)
        return logits, jnp.squeeze(value, -1)
