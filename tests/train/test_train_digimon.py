"""The Digimon heuristic opponent and the card-embedding network of the PPO config: scripted
situations (explicit states built with the scenario notation), legality under random play, and
the heuristic against the uniform random player."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from train_testlib import sweep

import tcgjax
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.scenario import build_state
from tcgjax.train.config import PPOConfig, load_config
from tcgjax.train.opponents import heuristic_policy
from tcgjax.train.ppo import make_network

KEY = jax.random.PRNGKey(0)


@pytest.fixture(scope="module")
def env():
    return tcgjax.make("digimon", max_turns=30)


@pytest.fixture(scope="module")
def decide(env):
    """``(players, **situation) -> the heuristic's action`` in that explicit situation."""
    policy = jax.jit(heuristic_policy(env))
    finalize = jax.jit(env.finalize)
    blank = jax.jit(env.init)(KEY)

    def run(players, attack=None, **situation):
        game = build_state(env.rules, players, **situation)
        if attack is not None:  # (attacker slot, target): waiting in the block timing
            attacker, target = attack
            game = game.replace(
                attacker=jnp.int8(attacker),
                attack_target=jnp.int8(target),
                attack_stage=jnp.int8(1),  # official order: the counter timing is over
                attacked=jnp.bool_(True),  # the attack was declared this turn
                suspended=game.suspended.at[game.board.active_player, attacker].set(True),
                board=game.board.replace(phase=jnp.int8(A.PHASES.index("block_timing"))),
            )
        state = finalize(blank.replace(game=game))
        env.validate(state)
        return int(policy(state, KEY)), state

    return run


def test_heuristic_attacks_the_player_before_playing_or_passing(decide):
    action, state = decide(
        [{"hand": ["ST1-05", "ST1-12"], "field": [["ST1-03", "ST1-05"]]}, {"field": []}],
        memory=4,
    )
    assert bool(state.legal_action_mask[A.encode("play", 0)]), "playing was an option"
    assert action == A.encode("attack", 0, A.TARGET_PLAYER), A.action_name(action)


def test_heuristic_attacks_a_suspended_digimon_it_beats_rather_than_the_player(decide):
    action, _ = decide(
        [
            {"field": [["ST1-03", "ST1-05"]]},
            {"field": [["ST2-02"], ["ST2-08"]], "suspended": [0, 1]},
        ],
        memory=2,
    )
    # ST1-05 (5000 DP) beats ST2-02 (3000) but not ST2-08 (7000).
    assert action == A.encode("attack", 0, 0), A.action_name(action)


def test_heuristic_blocks_with_a_surviving_blocker_or_to_save_its_last_security(decide):
    three = ["ST2-02", "ST2-03", "ST2-04"]  # the defender's security: a hit is not yet critical
    defender = {"field": [["ST2-07"]], "security": three}  # a 6000 DP <Blocker>
    weak = [{"field": [["ST1-02", "ST1-08"]]}, defender]  # 7000 attacks: the blocker would die
    strong = [{"field": [["ST1-03", "ST1-05"]]}, defender]  # 5000 attacks
    critical = [weak[0], dict(defender, security=three[:2])]  # 2 security cards left
    block = A.LAYOUT.start("attack")  # 100 + i: block with the defender's Digimon in slot i
    cases = ((weak, A.LAYOUT.start("pass")), (strong, block), (critical, block))
    for players, expected in cases:
        action, state = decide(players, attack=(0, A.TARGET_PLAYER), memory=2)
        assert bool(state.legal_action_mask[block]), "blocking was an option"
        assert action == expected, A.decode(int(state.game.board.phase), action).name


def test_card_embedding_network_reads_the_digimon_observation(env):
    config = load_config("digimon")
    assert config.network == "card_embedding" and config.env_id == "digimon"
    network = make_network(config, env)
    obs = jax.jit(jax.vmap(env.init))(jax.random.split(KEY, 3)).observation
    params = network.init(KEY, obs)
    logits, value = network.apply(params, obs)
    assert logits.shape == (3, 2120) and value.shape == (3,)
    table = params["params"]["card_embedding"]["embedding"]
    assert table.shape == (env.num_card_ids, config.embed_dim)
    # The hand's ids reach the network through the embedding: changing one changes the output.
    start = env.observation_layout.slices["my_hand"][0]
    other = obs.at[:, start].set(jnp.where(obs[:, start] == 3.0, 4.0, 3.0))
    assert not np.allclose(network.apply(params, other)[0], logits)
    with pytest.raises(tcgjax.ConfigError, match="declares no card-id"):
        make_network(PPOConfig(env_id="duel", network="card_embedding"), tcgjax.make("duel"))


def test_network_input_is_scaled_but_the_tensor_keeps_the_spec_values(env, decide):
    """The tensor holds DP in points (the spec's values); the network's input factors bring every
    raw entry (ids aside: they go through the embedding) to about [-1, 1]."""
    _, state = decide(
        [
            {"hand": ["ST1-05", "ST1-12"], "field": [["ST1-03", "ST1-05"], ["ST1-07"]]},
            {"field": [["ST2-03", "ST2-06"]], "hand": ["ST2-02"]},
        ],
        memory=4,
    )
    obs = np.asarray(state.observation)
    layout, scale = env.observation_layout, np.asarray(env.observation_scale)
    dp = layout.slices["my_field"][0] + 1  # slot 0's DP entry
    assert obs[dp] >= 1000 and scale[dp] * obs[dp] == pytest.approx(obs[dp] / 10_000)
    ids = np.zeros(obs.shape, bool)
    for name in env.card_id_slices:
        start, shape, _ = layout.slices[name]
        ids[start : start + int(np.prod(shape))] = True
    for name, column in env.card_id_positions:
        start, shape, _ = layout.slices[name]
        flat = start + np.arange(int(np.prod(shape))).reshape(shape)
        ids[flat.reshape(-1) if column < 0 else flat[..., column].reshape(-1)] = True
    raw = obs * scale
    worst = int(np.argmax(np.abs(raw) * ~ids))
    assert np.abs(raw[~ids]).max() <= 1.0, f"entry {worst}: {obs[worst]} x {scale[worst]}"
    assert np.abs(obs[~ids]).max() >= 1000  # the unscaled tensor does hold raw DP


RANDOM_PLAY, VERSUS, STEPS = 32, 96, 400


@pytest.fixture(scope="module")
def swept(env):
    """The shared sweep (train_testlib): the heuristic in coin-flip random play and against the
    random player, checked against the mask at every state."""
    return sweep(env, heuristic_policy(env), KEY, STEPS, RANDOM_PLAY, VERSUS)


def test_heuristic_is_legal_under_random_play_and_every_game_finishes(swept):
    legal, live, actions, error, _, _, done = swept
    bad = np.argwhere(~legal & live)
    assert bad.size == 0, f"illegal heuristic action {A.action_name(int(actions[tuple(bad[0])]))}"
    assert not np.any(error[live] != 0), "a step of the scan was refused"
    assert done.all(), f"{int((~done).sum())} versus games unfinished in {STEPS} steps"


def test_heuristic_beats_the_random_player(swept):
    *_, seat, reward, _ = swept
    win_rate = float((reward > 0).mean())
    assert win_rate > 0.8, win_rate
    for p in (0, 1):
        assert float((reward[seat == p] > 0).mean()) > 0.7, (p, win_rate)
