"""The card-embedding torso: one table shared across zones, empty slots ignored, zone fills
and the ids that actions name kept; the MLP's input scale."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tcgjax import ObservationLayout
from tcgjax.train.networks import ActorCritic, CardEmbeddingActorCritic

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
    # A hidden card (-1) has no embedding, but it fills its zone: the network sees the count.
    hidden = apply(params, _obs([1, 1], [3, 5, -1, 0], [[2, 0, 0], [0, 0, 0]]))
    assert not np.allclose(a[0], hidden[0])
    h1 = apply(params, _obs([1, 1], [-1, 0, 0, 0], [[0, 0, 0], [0, 0, 0]]))
    h2 = apply(params, _obs([1, 1], [0, 0, 0, -1], [[0, 0, 0], [0, 0, 0]]))
    np.testing.assert_allclose(h1[0], h2[0], rtol=1e-5, atol=1e-6)
    # Batched and finite, with gradients into the shared table.
    batch = jnp.stack([_obs([1, 0], [1, 2, 3, 4], [[5, 6, 7], [8, 9, 0]])] * 3)
    logits, value = apply(params, batch)
    assert logits.shape == (3, 5) and value.shape == (3,)
    grads = jax.grad(lambda p: jnp.sum(net.apply(p, batch)[1]))(params)
    assert float(jnp.abs(grads["params"]["card_embedding"]["embedding"]).sum()) > 0


def test_card_positions_see_where_each_card_is():
    """Pooling alone is blind to position; ``card_positions`` puts the ids the actions name
    (a hand index, a board slot's column 0) back in place, through the same embedding table."""
    net = CardEmbeddingActorCritic(
        num_actions=5,
        layout=LAYOUT,
        card_slices=("hand", "boards"),
        num_card_ids=10,
        embed_dim=4,
        hidden_sizes=(8,),
        card_positions=(("hand", -1), ("boards", 0)),
        position_dim=3,
    )
    obs = _obs([1, 1], [3, 5, 0, 0], [[2, 0, 0], [0, 0, 0]])
    params = net.init(jax.random.PRNGKey(0), obs)
    assert list(params["params"]) == [
        "card_embedding",
        "card_position",
        "Dense_0",
        "Dense_1",
        "Dense_2",
    ]
    # Raw input: life (2); pooled: 1 hand zone + 2 board rows, 4 each, and their 3 fills;
    # placed: (4 hand slots + column 0 of 2 board rows) x 3.
    assert params["params"]["Dense_0"]["kernel"].shape == (2 + 12 + 3 + 18, 8)
    apply = jax.jit(net.apply)
    a = apply(params, obs)
    # The same bag of cards in another order: the pooled part is equal, the placed part is not.
    swapped = apply(params, _obs([1, 1], [5, 3, 0, 0], [[2, 0, 0], [0, 0, 0]]))
    assert not np.allclose(a[0], swapped[0])
    # Board column 1 is not a placed column: moving a card there from column 2 changes nothing.
    b = apply(params, _obs([1, 1], [3, 5, 0, 0], [[2, 7, 0], [0, 0, 0]]))
    c = apply(params, _obs([1, 1], [3, 5, 0, 0], [[2, 0, 7], [0, 0, 0]]))
    np.testing.assert_allclose(b[0], c[0], rtol=1e-5, atol=1e-6)
    # ... while swapping it with the card in column 0 (the same bag for pooling) does.
    d = apply(params, _obs([1, 1], [3, 5, 0, 0], [[7, 2, 0], [0, 0, 0]]))
    assert not np.allclose(b[0], d[0])
    # A name or column that is not in the layout is refused when the network is built.
    for bad in ((("nowhere", -1),), (("boards", 3),)):
        broken = CardEmbeddingActorCritic(
            num_actions=5,
            layout=LAYOUT,
            card_slices=("hand",),
            num_card_ids=10,
            card_positions=bad,
        )
        with pytest.raises(ValueError, match="card_positions"):
            broken.init(jax.random.PRNGKey(0), obs)


COUNT_LAYOUT = ObservationLayout(
    [
        ("life", (2,), "life"),
        ("hand", (6,), "cards of each definition in my hand (0 = padding)"),
        ("discard", (6,), "cards of each definition in my discard pile"),
    ]
)


def _count_obs(hand, discard):
    return COUNT_LAYOUT.pack(
        {
            "life": jnp.ones(2, jnp.float32),
            "hand": jnp.asarray(hand, jnp.float32),
            "discard": jnp.asarray(discard, jnp.float32),
        }
    )


def test_card_count_slices_weight_the_shared_embedding_by_count():
    """Per-definition counts (Pokémon's hand and discard piles) pool the same table, weighted by
    count; a definition no counted zone holds gets no gradient from them."""
    net = CardEmbeddingActorCritic(
        num_actions=3,
        layout=COUNT_LAYOUT,
        card_slices=(),
        card_count_slices=("hand", "discard"),
        num_card_ids=6,
        embed_dim=4,
        hidden_sizes=(8,),
    )
    obs = _count_obs([0, 2, 1, 0, 0, 0], [0, 0, 0, 3, 0, 0])
    params = net.init(jax.random.PRNGKey(0), obs)
    # Raw: life 2 + both count slices 12 (kept); pooled: 2 zones x 4.
    assert params["params"]["Dense_0"]["kernel"].shape == (2 + 12 + 8, 8)
    table = params["params"]["card_embedding"]["embedding"]
    pooled = net.apply(params, obs, capture_intermediates=True, mutable=["intermediates"])[1]
    torso_input = pooled["intermediates"]["Dense_0"]["__call__"][0]
    # Dense_0's input is [raw 14 | hand mean | discard mean]; recover it from its output.
    kernel, bias = params["params"]["Dense_0"]["kernel"], params["params"]["Dense_0"]["bias"]
    expected_hand = (2 * table[1] + table[2]) / 3
    expected_discard = table[3]
    x = jnp.concatenate([obs, expected_hand, expected_discard])
    np.testing.assert_allclose(torso_input, x @ kernel + bias, rtol=1e-5, atol=1e-5)
    # Gradients reach exactly the counted definitions.
    grads = jax.grad(lambda p: jnp.sum(net.apply(p, obs)[1] + net.apply(p, obs)[0]))(params)
    rows = np.abs(np.asarray(grads["params"]["card_embedding"]["embedding"])).sum(axis=1)
    assert (rows[[1, 2, 3]] > 0).all()
    np.testing.assert_array_equal(rows[[0, 4, 5]], 0.0)
    # A slice that is not N per-definition counts is refused when the network is built.
    broken = CardEmbeddingActorCritic(
        num_actions=3,
        layout=COUNT_LAYOUT,
        card_slices=(),
        card_count_slices=("life",),
        num_card_ids=6,
    )
    with pytest.raises(ValueError, match="card_count_slices: 'life'"):
        broken.init(jax.random.PRNGKey(0), obs)


def test_input_scale_multiplies_the_raw_observation_first():
    """``input_scale`` is the observation's per-entry factor: the scaled network on ``x`` is the
    unscaled one on ``x * scale`` (same parameters); a scale of the wrong length is refused."""
    scale = (0.5, 1e-4, 1.0, 2.0)
    plain, scaled = ActorCritic(3, (8,)), ActorCritic(3, (8,), input_scale=scale)
    x = jnp.asarray([[1.0, 5000.0, -1.0, 0.25], [0.0, 12000.0, 3.0, -0.5]])
    params = plain.init(jax.random.PRNGKey(0), x)
    for got, want in zip(
        scaled.apply(params, x), plain.apply(params, x * jnp.asarray(scale)), strict=True
    ):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert not np.allclose(scaled.apply(params, x)[0], plain.apply(params, x)[0])
    with pytest.raises(ValueError, match="input_scale has 3 entries"):
        ActorCritic(3, (8,), input_scale=scale[:3]).init(jax.random.PRNGKey(0), x)
