"""Asymmetric critics (config ``critic``): the omniscient critic sees hidden cards, the actor never
does; ``Env.observe_omniscient`` reveals every card through the core's visibility."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.core.errors import ConfigError
from tcgjax.games.duel import rules as R
from tcgjax.train.config import PPOConfig, load_config
from tcgjax.train.networks import AsymmetricActorCritic
from tcgjax.train.ppo import make_network, make_ppo

KEY = jax.random.key(3)


def _hidden_swap(state):
    """The duel state with two of player 2's cards exchanged that player 1 cannot see: one in
    player 2's hand and one of another definition in player 2's deck."""
    b = jax.device_get(state.game.board)
    hand = [c for c in range(len(b.zone)) if b.zone[c] == int(R.zone_of("hand", 1))]
    deck = [c for c in range(len(b.zone)) if b.zone[c] == int(R.zone_of("deck", 1))]
    a = hand[0]
    other = next(c for c in deck if b.definition[c] != b.definition[a])
    definition = np.asarray(b.definition).copy()
    definition[a], definition[other] = definition[other], definition[a]
    board = state.game.board.replace(definition=jnp.asarray(definition))
    return state.replace(game=state.game.replace(board=board))


@pytest.fixture(scope="module")
def duel():
    env = tcgjax.make("duel")
    state = jax.jit(env.init)(KEY)
    return env, state, _hidden_swap(state)


def test_observe_omniscient_reveals_what_the_player_view_hides(duel):
    env, state, swapped = duel
    # Player 1 cannot tell the two states apart, in either view of their own seat (the duel's
    # tensor has no place for the opponent's hand); player 2's view, face up, shows the swap.
    np.testing.assert_array_equal(env.observe(state, 0), env.observe(swapped, 0))
    assert not np.array_equal(env.observe_omniscient(state, 1), env.observe_omniscient(swapped, 1))
    # Cards hidden from their own owner (a deck's order) are revealed too.
    deck = int(R.zone_of("deck", 0))
    b = jax.device_get(state.game.board)
    assert (np.asarray(b.zone) == deck).any()


def test_observe_omniscient_shows_the_digimon_cards_the_player_view_hides():
    env = tcgjax.make("digimon")
    state = jax.jit(env.init)(KEY)  # jitted: eager Digimon dispatches thousands of small ops
    layout = env.observation_layout
    seen = jax.jit(env.observe, static_argnums=1)(state, 0)
    revealed = jax.jit(env.observe_omniscient, static_argnums=1)(state, 0)
    for name in ("opponent_hand", "my_security", "opponent_security"):
        hidden = np.asarray(layout.view(seen, name))
        shown = np.asarray(layout.view(revealed, name))
        assert (hidden == -1).sum() == 5, name  # 5 cards each at the start, hidden: -1
        # Every hidden card has its id in the revealed view; padding (0) stays padding.
        assert (shown[hidden == -1] > 0).all() and (shown[hidden == 0] == 0).all(), name
    np.testing.assert_array_equal(layout.view(seen, "my_hand"), layout.view(revealed, "my_hand"))


def test_observe_omniscient_of_a_perfect_information_game_is_its_view():
    env = tcgjax.make("deployment")
    state = env.init(KEY)
    for player in (0, 1):
        np.testing.assert_array_equal(
            env.observe_omniscient(state, player), env.observe(state, player)
        )


def test_omniscient_critic_moves_with_hidden_cards_and_the_actor_does_not(duel):
    env, state, swapped = duel
    config = PPOConfig(env_id="duel", critic="omniscient", hidden_sizes=(16,))
    net = make_network(config, env)
    assert isinstance(net, AsymmetricActorCritic)
    mask = state.legal_action_mask[None]

    def views(s):  # what tcgjax.train.ppo gives the omniscient critic for player 1 to act
        return jnp.stack([env.observe_omniscient(s, 0), env.observe_omniscient(s, 1)])[None]

    obs = env.observe(state, 0)[None]
    params = net.init(jax.random.key(0), obs, mask, views(state))
    logits_a, value_a = net.apply(params, obs, mask, views(state))
    logits_b, value_b = net.apply(params, env.observe(swapped, 0)[None], mask, views(swapped))
    np.testing.assert_array_equal(logits_a, logits_b)  # the actor reads the player view only
    assert not np.allclose(value_a, value_b)  # the critic reads the hidden cards


def test_an_omniscient_policy_plays_on_the_player_view_alone(duel):
    """Evaluation and play give the network the player's observation only: the actor's logits are
    the trained ones, and the value, which needs views play does not have, is NaN, not a guess.
    (The evaluation used to fail on the critic's input shape.)"""
    from tcgjax.train.evaluate import evaluation_table

    env, state, _ = duel
    net = make_network(PPOConfig(env_id="duel", critic="omniscient", hidden_sizes=(8,)), env)
    obs, mask = env.observe(state, 0)[None], state.legal_action_mask[None]
    views = jnp.stack([env.observe_omniscient(state, 0), env.observe_omniscient(state, 1)])[None]
    params = net.init(jax.random.key(0), obs, mask, views)
    logits, value = net.apply(params, obs, mask)
    np.testing.assert_array_equal(logits, net.apply(params, obs, mask, views)[0])
    assert value.shape == (1,) and np.isnan(value).all()
    table = evaluation_table(env, net, params, jax.random.key(1), 4)
    assert {row["games"] for row in table.values()} == {4}, table


def test_player_critic_has_its_own_torso_on_the_player_view(duel):
    env, state, swapped = duel
    net = make_network(PPOConfig(env_id="duel", critic="player", hidden_sizes=(16,)), env)
    obs = env.observe(state, 0)[None]
    mask = state.legal_action_mask[None]
    params = net.init(jax.random.key(0), obs, mask)
    assert set(params["params"]) == {"actor", "critic", "value"}
    # The critic torso has no policy head, and reads the actor's view.
    assert set(params["params"]["critic"]) == {"Dense_0"}
    _, value = net.apply(params, obs, mask)
    _, same = net.apply(params, env.observe(swapped, 0)[None], mask)
    np.testing.assert_array_equal(value, same)


@pytest.mark.parametrize("critic", ["omniscient"])
def test_a_separate_critic_trains(critic):
    config = PPOConfig(
        env_id="duel",
        critic=critic,
        opponent="random",
        num_envs=4,
        num_steps=8,
        hidden_sizes=(8,),
        total_timesteps=64,
    )
    ppo = make_ppo(config)
    runner = jax.jit(ppo.init)(jax.random.key(0))
    before = jax.device_get(runner.params)
    runner, metrics = jax.jit(ppo.update)(runner)
    assert float(metrics["params_finite"]) == 1.0
    changed = jax.tree.map(
        lambda a, b: not np.array_equal(a, b), before, jax.device_get(runner.params)
    )
    assert all(jax.tree.leaves(changed["params"]["critic"])), "the critic learns"
    assert all(jax.tree.leaves(changed["params"]["value"]))
    assert any(jax.tree.leaves(changed["params"]["actor"])), "the actor learns"


def test_critic_key_is_checked():
    with pytest.raises(ConfigError, match="critic"):
        load_config(None, ["critic=cheating"])
