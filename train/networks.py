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

__all__ = ["ActorCritic", "masked_logits", "masked_distribution", "greedy_action"]


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
