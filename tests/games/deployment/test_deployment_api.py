"""The deployment env passes the conformance harness, works under jit / vmap, and its host-side
action helpers (``decode_action`` / ``encode_deploy``) follow the canonical mapping D1-D3."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from deployment_testlib import SHIPPED, shipped_dict

import tcgjax
from tcgjax.games.deployment import DeployAction, decode_action, encode_deploy
from tcgjax.testing import api_test, assert_states_equal

KEY = jax.random.PRNGKey(0)
PLAYERS = ("player1", "player2")


# --------------------------------------------------------------------------------------------------
# Conformance harness


@pytest.mark.parametrize("name", SHIPPED)
def test_api_test_passes_on_every_shipped_scenario(name):
    env = tcgjax.make("deployment", scenario=name)
    # A game lasts at most max_steps steps (truncation), so this many single steps finish at least
    # one episode whatever the random draws.
    num_steps = env.max_steps + 1
    report = api_test(env, num_steps=num_steps, batch_size=8, batch_steps=100)
    assert report.single_steps >= num_steps - 10
    assert report.episodes_finished >= 1
    assert report.replays_checked == report.episodes_finished
    assert report.json_round_trips >= num_steps // 10
    assert report.renders_checked == 3 * report.json_round_trips  # every viewer
    assert report.illegal_actions_checked >= 2 * report.single_steps
    assert report.batched_steps == 8 * 100


# --------------------------------------------------------------------------------------------------
# jit, vmap, jit(vmap) agree with single games


def _index(tree, i):
    return jax.tree.map(lambda x: x[i], tree)


def _stack(trees):
    return jax.tree.map(lambda *xs: jnp.stack(xs), *trees)


@pytest.fixture(scope="module")
def batch(deployment_env, deployment_step):
    """Four explicit states of the small scenario (init; player1 mid-deployment; player2
    mid-deployment; skirmish) and one action for each, the first one illegal (pass_deployment
    while deploys are legal), plus the keys used."""
    env, step = deployment_env, deployment_step
    s0 = jax.jit(env.init)(KEY)
    s1 = step(s0, encode_deploy(env, s0, "blue_tank", 1, 3), KEY)
    s2 = step(s1, encode_deploy(env, s1, "blue_infantry", 0, 0), KEY)
    s3 = step(s2, encode_deploy(env, s2, "blue_sniper", 1, 5), KEY)
    s4 = step(s3, encode_deploy(env, s3, "red_sniper", 6, 4), KEY)
    s5 = step(s4, encode_deploy(env, s4, "red_tank", 5, 0), KEY)
    s6 = step(s5, encode_deploy(env, s5, "red_infantry", 5, 5), KEY)
    for s in (s1, s2, s3, s4, s5, s6):
        assert int(s.error) == 0
    states = [s0, s1, s4, s6]
    layout = env.action_layout
    actions = [
        layout.start("pass_deployment"),  # illegal: deploys are legal at init
        encode_deploy(env, s1, "blue_sniper", 0, 2),
        encode_deploy(env, s4, "red_infantry", 6, 0),
        layout.start("move") + 0 * 6 + 2,  # blue_infantry (0, 0) moves SE to (1, 0)
    ]
    keys = jax.random.split(jax.random.PRNGKey(7), 4)
    return states, jnp.asarray(actions, jnp.int32), keys


def test_jit_vmap_init_match_single(deployment_env):
    env = deployment_env
    keys = jax.random.split(jax.random.PRNGKey(3), 4)
    single = [jax.jit(env.init)(k) for k in keys]
    # vmap is applied to the jitted function (eager op-by-op vmap costs seconds per call here).
    for name, fn in (
        ("vmap(jit(init))", jax.vmap(jax.jit(env.init))),
        ("jit(vmap(init))", jax.jit(jax.vmap(env.init))),
    ):
        batched = fn(keys)
        for i in range(4):
            assert_states_equal(_index(batched, i), single[i], f"{name}[{i}]")


def test_jit_vmap_step_match_single(deployment_env, deployment_step, batch):
    env = deployment_env
    states, actions, keys = batch
    single = [deployment_step(s, a, k) for s, a, k in zip(states, actions, keys, strict=True)]
    # The batch mixes a rejected action and three legal ones from different phases.
    assert env.error_codes.name(int(single[0].error)) == "pass_with_legal_deploy"
    assert [int(s.error) for s in single[1:]] == [0, 0, 0]
    g = env.scenario.unit_index("blue_infantry")
    assert (int(single[3].game.col[g]), int(single[3].game.row[g])) == (1, 0)
    stacked = _stack(states)
    for name, fn in (
        ("vmap(jit(step))", jax.vmap(deployment_step)),
        ("jit(vmap(step))", jax.jit(jax.vmap(env.step))),
    ):
        batched = fn(stacked, actions, keys)
        for i in range(4):
            assert_states_equal(_index(batched, i), single[i], f"{name}[{i}]")


def test_jit_vmap_observe_match_single(deployment_env, batch):
    env = deployment_env
    states, _, _ = batch
    players = jnp.asarray([0, 1, 1, 0], jnp.int32)
    observe = jax.jit(env.observe)
    single = [np.asarray(observe(s, p)) for s, p in zip(states, players, strict=True)]
    # The observation depends on the viewer: both seats differ somewhere mid-deployment.
    assert not np.array_equal(single[1], np.asarray(observe(states[1], 1 - int(players[1]))))
    stacked = _stack(states)
    for name, fn in (
        ("vmap(jit(observe))", jax.vmap(observe)),
        ("jit(vmap(observe))", jax.jit(jax.vmap(env.observe))),
    ):
        batched = np.asarray(fn(stacked, players))
        for i in range(4):
            np.testing.assert_array_equal(batched[i], single[i], err_msg=f"{name}[{i}]")
    # A state's cached observation is the current player's.
    for s in states:
        np.testing.assert_array_equal(np.asarray(s.observation), observe(s, s.current_player))


# --------------------------------------------------------------------------------------------------
# decode_action / encode_deploy (D1-D3)


def _deploy_mapping(env, state):
    """{deploy index: DeployAction} over the whole deploy range."""
    return {
        i: decode_action(env, state, i)
        for i in range(env.scenario.max_unit_slots * env.scenario.max_hex_slots)
    }


def _check_inverse(env, state, raw):
    """decode(encode(...)) and encode(decode(...)) are identities on every (unit, pool hex) of the
    deployer, and the index follows D1-D3 computed from the raw scenario dict."""
    player = PLAYERS[int(state.current_player)]
    units = sorted(u["id"] for u in raw["units"] if u["owner"] == player)  # D1
    pool = sorted(tuple(h) for h in raw["deployment_pools_by_player"][player])  # D2
    hex_slots = raw["deployment_max_hex_slots"]
    seen = set()
    for u, uid in enumerate(units):
        for h, (col, row) in enumerate(pool):
            index = encode_deploy(env, state, uid, col, row)
            assert index == u * hex_slots + h, (uid, col, row)  # D3
            assert decode_action(env, state, index) == DeployAction(uid, col, row)
            seen.add(index)
    assert len(seen) == len(units) * len(pool)
    # Every index whose slots hold a unit and a pool hex was covered; the others are padding.
    for index, action in _deploy_mapping(env, state).items():
        u, h = divmod(index, hex_slots)
        if u < len(units) and h < len(pool):
            assert index in seen
            assert encode_deploy(env, state, *action) == index
        else:
            expected = DeployAction(
                units[u] if u < len(units) else None, *(pool[h] if h < len(pool) else (-1, -1))
            )
            assert action == expected, index
    return units, pool


@pytest.mark.parametrize("name", SHIPPED)
def test_decode_and_encode_are_inverse_for_both_deployers(name):
    raw = shipped_dict(name)
    # Units and pools listed in an unsorted order, and spare slots: the mapping must still be the
    # sorted one (D1, D2), with padding where a slot holds no unit or hex.
    raw["units"].reverse()
    for pool in raw["deployment_pools_by_player"].values():
        pool.reverse()
    raw["deployment_max_unit_slots"] += 1
    raw["deployment_max_hex_slots"] += 2
    for first in PLAYERS:
        raw["first_deployer"] = first
        env = tcgjax.make("deployment", scenario=raw)
        state = jax.jit(env.init)(KEY)
        assert PLAYERS[int(state.current_player)] == first
        units, pool = _check_inverse(env, state, raw)
        # The padding indices: empty unit slot and empty hex slot.
        hs = raw["deployment_max_hex_slots"]
        assert decode_action(env, state, len(units) * hs) == DeployAction(None, *pool[0])
        assert decode_action(env, state, hs - 1) == DeployAction(units[0], -1, -1)


def test_decode_mapping_is_stable_within_an_episode(deployment_env, batch):
    env = deployment_env
    s0, s1, s4, s6 = batch[0]
    # Same state -> same mapping.
    assert _deploy_mapping(env, s0) == _deploy_mapping(env, s0)
    # Two different states with the same deployer (player1 before and after placing a unit):
    # slots are fixed for the episode (D1, D2), deployed units keep their slot.
    assert int(s0.current_player) == int(s1.current_player) == 0
    assert _deploy_mapping(env, s0) == _deploy_mapping(env, s1)
    # player2's mapping, at init of a player2-first scenario and mid-deployment here, agree.
    raw = shipped_dict("small")
    raw["first_deployer"] = "player2"
    env2 = tcgjax.make("deployment", scenario=raw)
    assert int(s4.current_player) == 1
    assert _deploy_mapping(env, s4) == _deploy_mapping(env2, jax.jit(env2.init)(KEY))
    # And it is player2's own: unit ids and pool hexes of player2.
    mapping = _deploy_mapping(env, s4)
    assert {a.unit_id for a in mapping.values()} == {"red_infantry", "red_sniper", "red_tank"}
    assert all(a.col >= 5 for a in mapping.values())
    # The deployed unit's indices are masked (already_deployed) but still mean the same action.
    g = env.scenario.unit_index("blue_tank")
    assert int(s1.game.col[g]) == 1
    idx = encode_deploy(env, s1, "blue_tank", 0, 0)
    assert not bool(s1.legal_action_mask[idx])
    assert decode_action(env, s1, idx) == DeployAction("blue_tank", 0, 0)


def test_encode_deploy_rejects_what_no_index_can_express(deployment_env, batch):
    env = deployment_env
    s0 = batch[0][0]
    cases = [
        (("red_tank", 5, 0), "not_deployers_unit"),
        (("green_tank", 0, 0), "not_deployers_unit"),
        (("blue_tank", 7, 0), "out_of_bounds"),
        (("blue_tank", 0, -1), "out_of_bounds"),
        (("blue_tank", 2, 0), "outside_pool"),
        (("blue_tank", 3, 1), "wall"),
    ]
    for args, rule in cases:
        with pytest.raises(tcgjax.IllegalActionError) as info:
            encode_deploy(env, s0, *args)
        assert info.value.rule == rule, args
        assert repr(args[0]) in str(info.value) and "player1" in str(info.value)


def test_decode_other_branches(deployment_env, batch):
    env = deployment_env
    s6 = batch[0][3]
    layout = env.action_layout
    assert decode_action(env, s6, layout.start("pass_deployment")) == "pass_deployment"
    assert decode_action(env, s6, layout.start("end_phase")) == "end_phase"
    move = decode_action(env, s6, layout.start("move") + 1 * 6 + 3)
    assert (move.unit_id, move.direction) == ("blue_sniper", "S")
    shoot = decode_action(env, s6, layout.start("shoot") + 2 * 3 + 1)
    assert (shoot.unit_id, shoot.target_id) == ("blue_tank", "red_sniper")
