"""The card-embedding torso shares one table across zones and ignores empty slots."""

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax import ObservationLayout
from train.networks import CardEmbeddingActorCritic

LAYOUT = ObservationLayout(
    [
        ("life", (2,), "life"),
        ("hand", (1, 4), "card ids in my hand (0 = empty)"),
        ("boards", (2, 3), "card ids on both boards"),
    ]
)


def _obs(life, hand, boards):
    return LAYOUT.pack(
        {
            "life": jnp.asarray(life, jnp.float32),
            "hand": jnp.asarray([hand]),
            "boards": jnp.asarray(boards),
        }
    )


def test_card_embedding_network_shares_and_pools():
    net = CardEmbeddingActorCritic(
        num_actions=5,
        layout=LAYOUT,
        card_slices=("hand", "boards"),
        num_card_ids=10,
        embed_dim=4,
        hidden_sizes=(8,),
    )
    obs = _obs([1, 1], [3, 0, 0, 0], [[0, 0, 0], [0, 0, 0]])
    params = net.init(jax.random.PRNGKey(0), obs)
    assert list(params["params"]) == ["card_embedding", "Dense_0", "Dense_1", "Dense_2"]
    apply = jax.jit(net.apply)
    # Order inside a zone does not matter (mean pooling); empty slots are ignored.
    a = apply(params, _obs([1, 1], [3, 5, 0, 0], [[2, 0, 0], [0, 0, 0]]))
    b = apply(params, _obs([1, 1], [0, 5, 0, 3], [[0, 0, 2], [0, 0, 0]]))
    np.testing.assert_allclose(a[0], b[0], rtol=1e-5, atol=1e-6)
    # The same card in another zone moves the output (zones are distinguished after pooling).
    c = apply(params, _obs([1, 1], [3, 5, 0, 0], [[0, 0, 0], [2, 0, 0]]))
    assert not np.allclose(a[0], c[0])
    # Batched and finite, with gradients into the shared table.
    batch = jnp.stack([_obs([1, 0], [1, 2, 3, 4], [[5, 6, 7], [8, 9, 0]])] * 3)
    logits, value = apply(params, batch)
    assert logits.shape == (3, 5) and value.shape == (3,)
    grads = jax.grad(lambda p: jnp.sum(net.apply(p, batch)[1]))(params)
    assert float(jnp.abs(grads["params"]["card_embedding"]["embedding"]).sum()) > 0
