"""Action designs (tcgjax.train.designs): the factored and pointer distributions against enumerated
references on masks that real play produced (tests/train/data/legal_masks.json, tools/
record_masks.py: every game, selection phases included), and unmasked play's penalty, count and
forfeit on a scripted sequence."""

from __future__ import annotations

import functools
import json
import math
import os

import distrax
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.core.errors import ConfigError
from tcgjax.train.config import PPOConfig, load_config
from tcgjax.train.designs import (
    MAX_LEGAL_ACTIONS,
    PolicyHead,
    action_structure,
    factored_head_size,
    factored_log_probs,
    pointer_candidates,
)
from tcgjax.train.evaluate import network_policy
from tcgjax.train.networks import ActorCritic
from tcgjax.train.ppo import make_env, make_network, make_ppo

MASKS = os.path.join(os.path.dirname(__file__), "data", "legal_masks.json")
GAMES = ("deployment", "digimon", "duel", "pokemon")


@functools.cache
def recorded() -> dict:
    with open(MASKS) as fh:
        return json.load(fh)["games"]


@functools.cache
def structure(game: str):
    return action_structure(tcgjax.make(game))


def masks_of(game: str) -> list[tuple[str, np.ndarray]]:
    entry = recorded()[game]
    out = []
    for m in entry["masks"]:
        mask = np.zeros(entry["num_actions"], bool)
        mask[m["legal"]] = True
        out.append((m["phase"], mask))
    return out


def test_recorded_masks_cover_every_game_and_the_selection_phases():
    assert sorted(recorded()) == sorted(tcgjax.available_envs())
    for game in GAMES:
        assert recorded()[game]["num_actions"] == tcgjax.make(game).num_actions
    phases = {g: {p for p, _ in masks_of(g)} for g in GAMES}
    assert {"select_target", "block_timing", "select_source"} <= phases["digimon"]
    assert {"select", "promote", "retreat_payment", "setup_bench"} <= phases["pokemon"]
    assert {"deployment", "movement", "shooting"} <= phases["deployment"]


# ------------------------------------------------------------------------------------------------
# factored: the vectorised joint against a sequential enumeration


def sequential_probabilities(head: np.ndarray, mask: np.ndarray, s) -> dict[int, float]:
    """p(id) for every legal id, by the sequential process the design describes: a kind among
    those with a legal id, then each argument among the values leaving a legal id given the
    earlier ones, each a softmax of its logits over the allowed values (explicit loops)."""

    def softmax_over(logits, allowed):
        z = np.exp(logits[allowed] - logits[allowed].max())
        return dict(zip(allowed, z / z.sum(), strict=True))

    legal_ids = np.flatnonzero(mask)
    arguments = {}
    for a in legal_ids:
        k = max(i for i, start in enumerate(s.starts) if start <= a)
        arguments[int(a)] = (k, np.unravel_index(a - s.starts[k], s.shapes[k]))
    kinds = sorted({k for k, _ in arguments.values()})
    p_kind = softmax_over(head[: len(s.kinds)], kinds)
    offsets, at = [], len(s.kinds)
    for shape in s.shapes:
        offsets.append([])
        for d in shape:
            offsets[-1].append(at)
            at += d
    out = {}
    for a, (k, args) in arguments.items():
        p = p_kind[k]
        for j, value in enumerate(args):
            prefix = tuple(int(v) for v in args[:j])
            allowed = sorted(
                {
                    int(other[j])
                    for kk, other in arguments.values()
                    if kk == k and tuple(int(v) for v in other[:j]) == prefix
                }
            )
            d = s.shapes[k][j]
            p *= softmax_over(head[offsets[k][j] : offsets[k][j] + d], allowed)[int(value)]
        out[a] = p
    return out


@pytest.mark.parametrize("game", GAMES)
def test_factored_joint_equals_the_sequential_enumeration(game):
    s = structure(game)
    rng = np.random.default_rng(0)
    joint_fn = jax.jit(lambda h, m: factored_log_probs(h, m, s))
    for index, (phase, mask) in enumerate(masks_of(game)):
        head = rng.normal(0, 2, factored_head_size(s)).astype(np.float32)
        joint = np.asarray(joint_fn(head, mask), np.float64)
        probs = np.exp(joint)
        reference = sequential_probabilities(head.astype(np.float64), mask, s)
        where = f"{game} mask {index} ({phase})"
        assert probs[~mask].max(initial=0.0) == 0.0, where
        assert math.isclose(probs[mask].sum(), 1.0, rel_tol=1e-5), where
        for a, p in reference.items():
            assert math.isclose(probs[a], p, rel_tol=1e-4, abs_tol=1e-7), (where, a)
        dist = distrax.Categorical(logits=jnp.asarray(joint, jnp.float32))
        entropy = -sum(p * math.log(p) for p in reference.values() if p > 0)
        assert math.isclose(float(dist.entropy()), entropy, rel_tol=1e-4, abs_tol=1e-6), where
        sample = int(dist.sample(seed=jax.random.key(index)))
        assert mask[sample], where
        assert math.isclose(
            float(dist.log_prob(sample)), math.log(reference[sample]), abs_tol=1e-4
        ), where


def test_factored_conditions_each_argument_on_the_earlier_ones():
    # Digimon attack = attacker (20) x target (15); only attacker 2 -> target 12 and attacker 5 ->
    # target 0 legal: given attacker 2, target 12 is certain whatever the target logits say.
    s = structure("digimon")
    mask = np.zeros(s.num_actions, bool)
    start = s.starts[s.kinds.index("attack")]
    mask[[start + 2 * 15 + 12, start + 5 * 15 + 0]] = True
    head = np.zeros(factored_head_size(s), np.float32)
    joint = np.exp(np.asarray(factored_log_probs(jnp.asarray(head), mask, s)))
    # One kind, two attackers, uniform logits: 1/2 each, then the only target left.
    assert joint[start + 2 * 15 + 12] == pytest.approx(0.5)
    assert joint[start + 5 * 15] == pytest.approx(0.5)
    # With the mask removed every id has probability, and they sum to 1.
    free = np.exp(np.asarray(factored_log_probs(jnp.asarray(head), None, s), np.float64))
    assert free.min() > 0 and free.sum() == pytest.approx(1.0, rel=1e-5)


def test_factored_batches_and_vmaps_alike():
    s = structure("pokemon")
    masks = np.stack([m for _, m in masks_of("pokemon")[:5]])
    heads = np.random.default_rng(1).normal(size=(5, factored_head_size(s))).astype(np.float32)
    batched = factored_log_probs(jnp.asarray(heads), masks, s)
    mapped = jax.jit(jax.vmap(lambda h, m: factored_log_probs(h, m, s)))(heads, masks)
    np.testing.assert_allclose(batched, mapped, rtol=1e-6)


# ------------------------------------------------------------------------------------------------
# pointer


def test_pointer_candidates_list_the_legal_ids_and_flag_overflow():
    mask = np.zeros(12, bool)
    mask[[1, 4, 9]] = True
    ids, valid, overflow = pointer_candidates(jnp.asarray(mask), 5)
    assert ids.tolist() == [1, 4, 9, 12, 12] and valid.tolist() == [True] * 3 + [False] * 2
    assert not bool(overflow)
    ids, valid, overflow = pointer_candidates(jnp.asarray(mask), 2)
    assert ids.tolist() == [1, 4] and valid.all() and bool(overflow)


def _pointer_head(game: str, max_options: int):
    env = tcgjax.make(game)
    head = PolicyHead(
        design="pointer",
        structure=action_structure(env),
        max_options=max_options,
        num_card_ids=int(getattr(env, "num_card_ids", 0)),
    )
    x = jnp.ones((16,), jnp.float32)
    obs = jnp.zeros(env.observation_shape, jnp.float32)
    params = head.init(jax.random.key(0), x, jnp.ones(env.num_actions, bool), obs)
    return env, head, params, obs


@pytest.mark.parametrize("game", GAMES)
def test_pointer_is_a_distribution_over_the_listed_legal_ids(game):
    env, head, params, obs = _pointer_head(game, MAX_LEGAL_ACTIONS[game])
    rng = np.random.default_rng(2)
    apply = jax.jit(lambda p, x, m: head.apply(p, x, m, obs))
    for index, (phase, mask) in enumerate(masks_of(game)):
        x = jnp.asarray(rng.normal(size=16), jnp.float32)
        logits = np.asarray(apply(params, x, mask), np.float64)
        dist = distrax.Categorical(logits=jnp.asarray(logits, jnp.float32))
        probs = np.asarray(dist.probs, np.float64)
        where = f"{game} mask {index} ({phase})"
        assert probs[~mask].max(initial=0.0) == 0.0, where
        assert probs.sum() == pytest.approx(1.0, rel=1e-5), where
        # Enumerated: a softmax over the candidates' scores, in id order.
        legal = np.flatnonzero(mask)
        z = np.exp(logits[legal] - logits[legal].max())
        reference = z / z.sum()
        np.testing.assert_allclose(probs[legal], reference, rtol=1e-4, atol=1e-7)
        entropy = -np.sum(reference * np.log(np.maximum(reference, 1e-300)))
        assert float(dist.entropy()) == pytest.approx(entropy, rel=1e-4, abs=1e-6), where
        sample = int(dist.sample(seed=jax.random.key(index)))
        assert mask[sample]
        assert float(dist.log_prob(sample)) == pytest.approx(
            math.log(reference[list(legal).index(sample)]), abs=1e-4
        )


def test_pointer_overflow_leaves_the_ids_past_max_options_out():
    env, head, params, obs = _pointer_head("duel", 2)
    mask = np.zeros(env.num_actions, bool)
    mask[[0, 3, 9]] = True
    probs = np.asarray(jax.nn.softmax(head.apply(params, jnp.ones(16), mask, obs)))
    assert probs[[0, 3]].sum() == pytest.approx(1.0) and probs[9] == 0.0


def test_pointer_card_feature_reads_the_card_an_action_names():
    # Pokémon names cards by definition: play[d] and play[d'] differ only by their card.
    env, head, params, obs = _pointer_head("pokemon", 8)
    s = action_structure(env)
    play = s.starts[s.kinds.index("play")]
    mask = np.zeros(env.num_actions, bool)
    mask[[play + 1, play + 2]] = True
    logits = np.asarray(head.apply(params, jnp.ones(16), mask, obs))
    assert logits[play + 1] != pytest.approx(logits[play + 2])
    # Digimon names hand positions: the score of play[3] follows the card in hand slot 3 only.
    env, head, params, obs = _pointer_head("digimon", 8)
    s = action_structure(env)
    hand = env.observation_layout.slices["my_hand"][0]
    mask = np.zeros(env.num_actions, bool)
    mask[[3, 4]] = True  # play hand 3, play hand 4
    before = np.asarray(head.apply(params, jnp.ones(16), mask, obs.at[hand + 3].set(5.0)))
    after = np.asarray(head.apply(params, jnp.ones(16), mask, obs.at[hand + 3].set(7.0)))
    assert before[3] != pytest.approx(after[3])
    assert before[4] == pytest.approx(after[4])
    assert s.card_column[3] == hand + 3


@pytest.mark.parametrize("design", ["flat", "factored", "pointer"])
def test_gradients_are_finite_with_a_single_legal_action(design):
    env = tcgjax.make("duel")
    s = action_structure(env)
    net = ActorCritic(
        env.num_actions,
        (16,),
        action_design=design,
        structure=s,
        max_options=MAX_LEGAL_ACTIONS["duel"],
    )
    obs = jnp.zeros((2,) + env.observation_shape, jnp.float32)
    mask = np.zeros((2, env.num_actions), bool)
    mask[:, 7] = True
    params = net.init(jax.random.key(0), obs, mask)

    def loss(p):
        logits, value = net.apply(p, obs, mask)
        dist = distrax.Categorical(logits=jnp.where(mask, logits, jnp.finfo(logits.dtype).min))
        return jnp.sum(dist.log_prob(jnp.array([7, 7])) + dist.entropy() + value)

    grads = jax.grad(loss)(params)
    assert all(bool(jnp.all(jnp.isfinite(g))) for g in jax.tree.leaves(grads))
    logits, _ = net.apply(params, obs, mask)
    assert np.allclose(jax.nn.softmax(jnp.where(mask, logits, -jnp.inf))[:, 7], 1.0)


# ------------------------------------------------------------------------------------------------
# Config


@pytest.mark.parametrize(
    ("override", "match"),
    [
        ("action_design=masked", "action_design"),
        ("invalid_penalty=0.5", "invalid_penalty"),
        ("invalid_penalty=.nan", "invalid_penalty"),
        ("max_invalid=0", "max_invalid"),
        ("max_options=0", "max_options"),
    ],
)
def test_design_config_keys_are_checked(override, match):
    with pytest.raises(ConfigError, match=match):
        load_config(None, [override])


def test_unmasked_needs_the_env_to_record_a_forfeit():
    config = PPOConfig(env_id="duel", action_design="unmasked")
    assert make_env(config).illegal_action == "lose"
    with pytest.raises(ConfigError, match="illegal_action"):
        make_env(
            PPOConfig(
                env_id="duel", action_design="unmasked", env_options={"illegal_action": "reject"}
            )
        )
    with pytest.raises(ConfigError, match="illegal_action='lose'"):
        make_ppo(config, tcgjax.make("duel"))


def test_pointer_max_options_defaults_to_the_measured_maximum():
    env = tcgjax.make("duel")
    assert make_network(PPOConfig(env_id="duel", action_design="pointer"), env).max_options == 9
    net = make_network(PPOConfig(env_id="duel", action_design="pointer", max_options=4), env)
    assert net.max_options == 4


def test_a_pointer_network_has_no_unmasked_form():
    env = tcgjax.make("duel")
    net = make_network(PPOConfig(env_id="duel", action_design="pointer"), env)
    with pytest.raises(ConfigError, match="pointer"):
        network_policy(net, {}, masked=False)


# ------------------------------------------------------------------------------------------------
# unmasked: penalty, count and forfeit on a scripted sequence


def _always_choosing(runner, action: int):
    """``runner`` with a one-hidden-layer flat network that puts all its weight on ``action``
    (every parameter zero but that logit's bias)."""
    params = jax.tree.map(jnp.zeros_like, runner.params)
    bias = params["params"]["Dense_1"]["bias"].at[action].set(50.0)
    params["params"]["Dense_1"]["bias"] = bias
    return runner._replace(params=params)


def test_unmasked_refuses_penalises_counts_and_forfeits():
    max_invalid = 3
    config = PPOConfig(
        env_id="duel",
        action_design="unmasked",
        opponent="random",
        num_envs=2,
        num_steps=6,
        hidden_sizes=(8,),
        invalid_penalty=-0.25,
        max_invalid=max_invalid,
    )
    ppo = make_ppo(config)
    runner = jax.jit(ppo.init)(jax.random.key(0))
    # A policy that always chooses attack[0]: illegal while its side has no creature in play.
    attack = ppo.env.action_layout.encode("attack", 0)
    runner = _always_choosing(runner, attack)
    runner, traj = jax.jit(ppo.rollout)(runner, jax.random.key(1))
    traj = jax.device_get(traj)
    for game in range(2):
        seat = game % 2  # the learner's seat in env slot `game`
        mine = np.flatnonzero(traj.weight[:, game] > 0)
        assert len(mine) >= max_invalid, "the learner must act max_invalid times"
        first = mine[:max_invalid]
        assert traj.action[first, game].tolist() == [attack] * max_invalid
        assert traj.invalid[first, game].all()
        # Refused: the penalty only, the game as it was; the max_invalid-th forfeits.
        refused, last = first[:-1], first[-1]
        assert traj.rewards[refused, game, seat].tolist() == [-0.25] * (max_invalid - 1)
        assert not traj.episode_done[refused, game].any()
        assert not traj.forfeit[refused, game].any()
        assert traj.forfeit[last, game] and traj.terminated[last, game]
        assert traj.rewards[last, game, seat] == pytest.approx(-1.25)
        assert traj.rewards[last, game, 1 - seat] == pytest.approx(1.0)
        assert traj.learner_outcome[last, game] == pytest.approx(-1.25)
        # Refusals leave the observation (and so the game) unchanged.
        for t in refused[1:]:
            np.testing.assert_array_equal(
                traj.observation[t, game], traj.observation[first[0], game]
            )


def test_unmasked_metrics_count_invalid_attempts_and_forfeits():
    config = PPOConfig(
        env_id="duel",
        action_design="unmasked",
        opponent="random",
        num_envs=4,
        num_steps=8,
        hidden_sizes=(8,),
        max_invalid=2,
        total_timesteps=32,
    )
    ppo = make_ppo(config)
    runner = jax.jit(ppo.init)(jax.random.key(0))
    attack = ppo.env.action_layout.encode("attack", 0)
    runner, metrics = jax.jit(ppo.update)(_always_choosing(runner, attack))
    # Every learner decision starts from no creature in play: each is refused once then forfeits.
    assert float(metrics["invalid_attempt_rate"]) == pytest.approx(1.0)
    assert float(metrics["forfeits"]) > 0
    assert float(metrics["learner_wins"]) == 0


@pytest.mark.parametrize("game", ["pokemon", "digimon"])
def test_factored_and_pointer_build_on_the_card_games_shipped_networks(game):
    """The two designs with heads of their own on the card-embedding network of
    ``configs/ppo/<game>.yaml`` (the duel and the deployment game use the MLP, tested above; flat
    and unmasked are the shipped head): one forward pass on a recorded mask gives a distribution
    over the legal ids, and the pointer reads the torso's card table, not one of its own."""
    env = tcgjax.make(game)
    phase, mask = masks_of(game)[-1]
    obs = jnp.zeros((1,) + env.observation_shape, jnp.float32)
    for design in ("factored", "pointer"):
        config = load_config(game, [f"action_design={design}"])
        assert config.network == "card_embedding"
        net = make_network(config, env)
        params = net.init(jax.random.key(0), obs, mask[None])
        logits, value = net.apply(params, obs, mask[None])
        assert logits.shape == (1, env.num_actions) and value.shape == (1,), design
        probs = np.asarray(jax.nn.softmax(logits[0]), np.float64)
        assert probs[~mask].max(initial=0.0) == 0.0, (game, design, phase)
        assert probs.sum() == pytest.approx(1.0, rel=1e-5), (game, design)
        if design == "pointer":
            assert "card_embedding" not in params["params"]["policy"]
            assert "card_feature" in params["params"]["policy"]
