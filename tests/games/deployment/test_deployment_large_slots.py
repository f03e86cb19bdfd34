"""Slot indices beyond int8 range (a large pool) are stored and decoded exactly."""

import jax

import tcgjax
from tcgjax.games.deployment import decode_action, encode_deploy


def test_hex_slot_above_127_round_trips(scenario_dict):
    data = scenario_dict("small")
    data["board"] = {"cols": 20, "rows": 10}
    data["walls"] = []
    data["deployment_pools_by_player"] = {
        "player1": [[c, r] for c in range(15) for r in range(10)],
        "player2": [[c, r] for c in range(15, 20) for r in range(10)],
    }
    data["deployment_max_hex_slots"] = 150
    env = tcgjax.make("deployment", scenario=data)
    state = jax.jit(env.init)(jax.random.PRNGKey(0))
    index = encode_deploy(env, state, "blue_tank", 14, 1)  # hex slot 14 * 10 + 1 = 141
    assert index == 2 * 150 + 141
    assert decode_action(env, state, index) == ("blue_tank", 14, 1)
    state = tcgjax.checked_step(env, state, index, jax.random.PRNGKey(1))
    g = env.scenario.unit_index("blue_tank")
    assert int(state.game.deploy_hex_slot[g]) == 141
    assert (int(state.game.col[g]), int(state.game.row[g])) == (14, 1)
    assert tcgjax.to_json(env, state).count('"deployHexSlot": 141') == 1
