"""Section-9 training metrics: hand-computed values on scripted episodes, a NumPy reference on
random play, the attempt accumulator, the 0/0 conventions, jit and vmap.

The scripted scenario is a 6x1 board (one row: hex distance is the column difference), two units a
side in 3 unit slots, 5 hex slots. player1's pool is columns 0-3, player2's is columns 2, 3, 5, so
player1 can fill columns 2 and 3 and leave player2's second unit with no hex (a deadlock).
"""

import functools
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.games.deployment import encode_deploy, hexgrid
from tcgjax.games.deployment import metrics as metrics_module
from tcgjax.games.deployment import rules as R
from tcgjax.games.deployment.metrics import (
    DeploymentAttempts,
    deployment_metrics,
    init_attempts,
    update_attempts,
)
from tcgjax.wrappers.auto_reset import random_legal_action


def line_dict(move: int = 0, **changes) -> dict:
    unit = lambda uid, owner: {  # noqa: E731
        "id": uid,
        "owner": owner,
        "hp": 2,
        "move": move,
        "range": 5,
        "damage": 1,
    }
    d = {
        "board": {"cols": 6, "rows": 1},
        "walls": [],
        "units": [unit("a1", "player1"), unit("a2", "player1")]
        + [unit("b1", "player2"), unit("b2", "player2")],
        "deployment_type": "active",
        "fixed_positions": {},
        "deployment_pools_by_player": {
            "player1": [[0, 0], [1, 0], [2, 0], [3, 0]],
            "player2": [[2, 0], [3, 0], [5, 0]],
        },
        "deployment_max_unit_slots": 3,
        "deployment_max_hex_slots": 5,
        "deployment_restrictions": {},
        "first_deployer": "player1",
        "post_deployment_start_phase": "movement",
        "first_player": "player1",
        "max_turns": 1,
        "rewards": {"win": 1.0, "loss": -1.0, "draw": 0.0, "deployment_shaping": 0.0},
    }
    d.update(changes)
    return d


# Global unit index g = player * 3 + slot: a1 0, a2 1, (pad 2), b1 3, b2 4, (pad 5).
A1, A2, B1, B2 = 0, 1, 3, 4
PASS = 3 * 5


@pytest.fixture(scope="module")
def line_env():
    return tcgjax.make("deployment", scenario=line_dict())


@pytest.fixture(scope="module")
def line_step(line_env):
    return jax.jit(line_env.step)


@pytest.fixture(scope="module")
def metrics_fn(line_env):
    return jax.jit(functools.partial(deployment_metrics, line_env), static_argnames="unit_scope")


def play(env, step, script, acc, state=None):
    """Play ``script`` (``(unit_id, col)`` deploys, raw int indices, or "pass") from ``state``
    (default ``init``). Every step goes through the accumulator. Returns ``(state, acc)``.
    """
    key = jax.random.PRNGKey(0)
    state = env.init(key) if state is None else state
    for move in script:
        if isinstance(move, tuple):
            action = encode_deploy(env, state, move[0], move[1], 0)
        elif move == "pass":
            action = env.action_layout.start("pass_deployment")
        else:
            action = move
        new = step(state, action, key)
        acc = update_attempts(acc, state, new)
        state = new
    return state, acc


def finish(state, outcome, end_reason, hp, damage):
    """Hand-set the end of a game whose deployment was played out (skirmish not simulated)."""
    return state.replace(
        terminated=jnp.bool_(True),
        game=state.game.replace(
            outcome=jnp.int8(outcome),
            end_reason=jnp.int8(end_reason),
            hp=jnp.asarray(hp, jnp.int8),
            damage_dealt=jnp.asarray(damage, jnp.int16),
        ),
    )


def stack(states):
    return jax.tree.map(lambda *xs: jnp.stack(xs), *states)


@pytest.fixture(scope="module")
def episodes(line_env, line_step):
    """E1 player1 wins, E2 player2 wins, E3 deadlock, plus a game still running (masked out)."""
    env, step = line_env, line_step
    acc = init_attempts()
    # E1: two illegal attempts first (empty unit slot 2; pass while deploys are legal), and an
    # end_phase after deployment (skirmish phase: not an attempt).
    e1, acc = play(
        env,
        step,
        [2 * 5 + 0, PASS, ("a2", 0), ("a1", 3), ("b1", 5), ("b2", 2)],
        acc,
    )
    assert int(e1.game.phase) == R.MOVEMENT
    end = env.action_layout.start("end_phase")
    after = step(e1, end, jax.random.PRNGKey(0))
    acc = update_attempts(acc, e1, after)
    e1 = finish(e1, R.PLAYER1_WON, 1, [2, 0, 0, 0, 0, 0], [3, 1, 0, 1, 0, 0])
    e2, acc = play(env, step, [("a1", 0), ("a2", 1), ("b2", 5), ("b1", 3)], acc)
    e2 = finish(e2, R.PLAYER2_WON, 1, [0, 0, 0, 1, 2, 0], [1, 0, 0, 2, 1, 0])
    # E3: player1 takes columns 2 and 3; b1 takes column 5; b2 has no hex left -> pass.
    e3, acc = play(env, step, [("a1", 2), ("a2", 3), ("b1", 5)], acc)
    mask = np.asarray(e3.legal_action_mask)
    assert not mask[:PASS].any() and mask[PASS]
    e3, acc = play(env, step, ["pass"], acc, e3)
    assert bool(e3.terminated) and int(e3.game.outcome) == R.DEADLOCK
    # A step on the finished game is not an attempt.
    acc = update_attempts(acc, e3, step(e3, 0, jax.random.PRNGKey(0)))
    running = jax.jit(env.init)(jax.random.PRNGKey(0))
    return stack([e1, e2, e3, running]), acc


def test_accumulator_counts_valid_and_invalid_deployment_steps(episodes):
    states, acc = episodes
    # 2 invalid, then E1 4 placements, E2 4, E3 3 + pass; end_phase and the step after the end
    # are not deployment attempts.
    assert int(acc.invalid_attempts) == 2
    assert int(acc.attempts) == 2 + 4 + 4 + 4
    # Every valid deployment step is a placement or a pass.
    steps = np.asarray(states.game.deploy_steps)
    assert int(acc.attempts - acc.invalid_attempts) == steps.sum() + 1


def test_accumulator_under_lose_policy_counts_the_losing_step():
    env = tcgjax.make("deployment", scenario=line_dict(), illegal_action="lose")
    state = jax.jit(env.init)(jax.random.PRNGKey(0))
    new = env.step(state, PASS, jax.random.PRNGKey(0))
    assert bool(new.terminated) and int(new.error) != 0
    acc = update_attempts(init_attempts(), state, new)
    assert (int(acc.attempts), int(acc.invalid_attempts)) == (1, 1)


def test_every_metric_matches_hand_computed_values(line_env, episodes, metrics_fn):
    states, acc = episodes
    m = metrics_fn(states, acc)
    assert int(m["deployment_attempts"]) == 14 and int(m["deployment_invalid_attempts"]) == 2
    np.testing.assert_allclose(m["deployment_valid_action_rate"], 12 / 14, rtol=1e-6)
    np.testing.assert_allclose(m["deployment_invalid_action_attempt_rate"], 2 / 14, rtol=1e-6)
    assert int(m["deployment_episodes"]) == 3  # the running game is not an episode
    np.testing.assert_allclose(m["deployment_steps_mean"], (4 + 4 + 3) / 3, rtol=1e-6)
    assert int(m["deployment_deadlock_count"]) == 1
    assert int(m["deployment_pass_count"]) == 1
    np.testing.assert_allclose(m["winrate"], 1 / 3, rtol=1e-6)
    np.testing.assert_allclose(m["winrate_with_active_deployment"], 1 / 3, rtol=1e-6)
    assert float(m["deployment_active"]) == 1.0
    # Hex slots: player1's pool is columns 0-3 (slots 0-3); player2's is columns 2, 3, 5.
    # E1 a1 3, a2 0, b1 2, b2 0; E2 a1 0, a2 1, b1 1, b2 2; E3 a1 2, a2 3, b1 2.
    np.testing.assert_allclose(m["hex_slot_distribution"], np.array([3, 2, 4, 2, 0]) / 11)
    # Placement order within each player: E1 a2 a1 | b1 b2; E2 a1 a2 | b2 b1; E3 a1 a2 | b1.
    np.testing.assert_allclose(
        m["unit_slot_distribution"], [[4 / 6, 2 / 6, 0], [2 / 5, 3 / 5, 0], [0, 0, 0]]
    )
    # Nearest enemy initial hex (column difference), E1 then E2 (E3 deadlocked: no skirmish).
    x = np.array([1, 2, 2, 1, 3, 2, 2, 4], np.float64)
    survived = np.array([1, 0, 0, 0, 0, 0, 1, 1], np.float64)
    damage = np.array([3, 1, 1, 0, 1, 0, 2, 1], np.float64)
    assert int(m["placement_units"]) == 8
    np.testing.assert_allclose(m["placement_enemy_distance_mean"], x.mean(), rtol=1e-6)
    np.testing.assert_allclose(
        m["placement_survival_correlation"], np.corrcoef(x, survived)[0, 1], rtol=1e-5
    )
    np.testing.assert_allclose(
        m["placement_damage_correlation"], np.corrcoef(x, damage)[0, 1], rtol=1e-5
    )
    assert all(np.isfinite(np.asarray(v)).all() for v in m.values())


def test_learner_seat_and_unit_scope(episodes, metrics_fn):
    states, acc = episodes
    m = metrics_fn(states, acc, 1)
    np.testing.assert_allclose(m["winrate"], 1 / 3, rtol=1e-6)  # E2
    m = metrics_fn(states, acc, jnp.array([0, 1, 0, 0]))
    np.testing.assert_allclose(m["winrate"], 2 / 3, rtol=1e-6)  # E1 and E2
    m = metrics_fn(states, acc, 0, unit_scope="learner")  # player1's units only
    np.testing.assert_allclose(m["hex_slot_distribution"], np.array([2, 1, 1, 2, 0]) / 6)
    np.testing.assert_allclose(
        m["unit_slot_distribution"], [[2 / 3, 1 / 3, 0], [1 / 3, 2 / 3, 0], [0, 0, 0]]
    )
    x, damage = np.array([1, 2, 3, 2.0]), np.array([3, 1, 1, 0.0])
    assert int(m["placement_units"]) == 4
    np.testing.assert_allclose(
        m["placement_damage_correlation"], np.corrcoef(x, damage)[0, 1], rtol=1e-5
    )
    np.testing.assert_allclose(
        m["placement_survival_correlation"], np.corrcoef(x, [1, 0, 0, 0])[0, 1], rtol=1e-5
    )
    with pytest.raises(ValueError, match="unit_scope"):
        deployment_metrics(None, states, unit_scope="mine")


def test_batch_shapes_masks_and_eager_equal_jit(line_env, episodes, metrics_fn):
    states, acc = episodes
    jitted = metrics_fn(states, acc)
    eager = deployment_metrics(line_env, states, acc)
    as_grid = deployment_metrics(
        line_env, jax.tree.map(lambda x: x.reshape(2, 2, *x.shape[1:]), states), acc
    )
    assert jitted.keys() == eager.keys() == as_grid.keys()
    for k in jitted:
        np.testing.assert_allclose(jitted[k], eager[k], rtol=1e-6, err_msg=k)
        np.testing.assert_allclose(as_grid[k], eager[k], rtol=1e-6, err_msg=k)
    # An explicit episode mask; a single state; no accumulator -> no attempt keys.
    only_e3 = deployment_metrics(line_env, states, episode_mask=jnp.array([0, 0, 1, 0], bool))
    assert "deployment_attempts" not in only_e3 and "deployment_valid_action_rate" not in only_e3
    assert int(only_e3["deployment_episodes"]) == 1
    assert float(only_e3["deployment_steps_mean"]) == 3.0
    assert int(only_e3["placement_units"]) == 0
    single = deployment_metrics(line_env, jax.tree.map(lambda x: x[0], states))
    assert int(single["deployment_episodes"]) == 1 and float(single["winrate"]) == 1.0


def test_empty_and_zero_variance_give_zero_not_nan(line_env, episodes, metrics_fn):
    states, _ = episodes
    none = metrics_fn(states, init_attempts((4,)), episode_mask=jnp.zeros(4, bool))
    assert float(none.pop("deployment_active")) == 1.0  # a scenario fact, not a measurement
    for k, v in none.items():
        assert np.isfinite(np.asarray(v)).all(), k
        assert not np.asarray(v).any(), k  # every count, rate and distribution is 0
    # Every unit survives and deals the same damage: both correlations are undefined -> 0.
    e1 = jax.tree.map(lambda x: x[0], states)
    flat = e1.replace(
        game=e1.game.replace(
            hp=jnp.full_like(e1.game.hp, 1), damage_dealt=jnp.full_like(e1.game.damage_dealt, 2)
        )
    )
    m = metrics_fn(stack([flat, flat]))
    assert int(m["placement_units"]) == 8
    assert float(m["placement_survival_correlation"]) == 0.0
    assert float(m["placement_damage_correlation"]) == 0.0
    # One unit a side: both have the same feature (zero variance on the placement side) -> 0,
    # although survival and damage vary.
    d = line_dict()
    d["units"] = [u for u in d["units"] if u["id"] in ("a1", "b1")]
    env = tcgjax.make("deployment", scenario=d)
    state, _ = play(env, env.step, [("a1", 1), ("b1", 3)], init_attempts())
    state = finish(state, R.PLAYER2_WON, 1, [0, 0, 0, 2, 0, 0], [0, 0, 0, 2, 0, 0])
    m = deployment_metrics(env, state)
    assert int(m["placement_units"]) == 2
    assert float(m["placement_enemy_distance_mean"]) == 2.0
    assert float(m["placement_survival_correlation"]) == 0.0
    assert float(m["placement_damage_correlation"]) == 0.0


def test_docstring_table_lists_exactly_the_returned_metrics(line_env, episodes):
    states, acc = episodes
    documented = set(re.findall(r"^``(\w+)``\s+\w+32\[", metrics_module.__doc__, re.MULTILINE))
    assert documented == set(deployment_metrics(line_env, states, acc))


def test_fixed_deployment_uses_fixed_positions(line_env):
    d = line_dict(
        deployment_type="fixed",
        fixed_positions={"a1": [0, 0], "a2": [2, 0], "b1": [5, 0], "b2": [3, 0]},
    )
    env = tcgjax.make("deployment", scenario=d)
    state = jax.jit(env.init)(jax.random.PRNGKey(0))
    state = finish(state, R.PLAYER2_WON, 1, [0, 0, 0, 2, 1, 0], [0, 1, 0, 1, 2, 0])
    m = deployment_metrics(env, stack([state]), learner_player=1)
    assert float(m["deployment_active"]) == 0.0 and float(m["winrate"]) == 1.0
    assert float(m["deployment_steps_mean"]) == 0.0
    assert not np.asarray(m["hex_slot_distribution"]).any()
    assert not np.asarray(m["unit_slot_distribution"]).any()
    x = np.array([3, 1, 3, 1.0])  # a1 0 -> b2 3, a2 2 -> b2 3, b1 5 -> a2 2, b2 3 -> a2 2
    assert int(m["placement_units"]) == 4
    np.testing.assert_allclose(
        m["placement_damage_correlation"], np.corrcoef(x, [0, 1, 1, 2])[0, 1], rtol=1e-5
    )
    np.testing.assert_allclose(
        m["placement_survival_correlation"], np.corrcoef(x, [0, 0, 1, 1])[0, 1], rtol=1e-5
    )


# -- random play under vmap, against a NumPy reference --------------------------------------------


def reference_metrics(env, states, learner):
    """Loop-by-loop NumPy version of the definitions (every entry is a finished episode)."""
    s = env.scenario
    U, Hs = s.max_unit_slots, s.max_hex_slots
    g = jax.tree.map(np.asarray, states.game)
    pools = [sorted(p) for p in s.pools]
    hex_counts, unit_counts = np.zeros(Hs), np.zeros((U, U))
    xs, alive, damage = [], [], []
    for e in range(len(g.outcome)):
        initial = {}
        for i, uid in enumerate(s.unit_ids):
            if uid and g.deploy_hex_slot[e, i] >= 0:
                hex_counts[g.deploy_hex_slot[e, i]] += 1
                initial[i] = pools[i // U][g.deploy_hex_slot[e, i]]
        for p in range(2):
            placed = sorted(
                (g.deploy_order[e, i], i % U) for i in range(p * U, p * U + U) if i in initial
            )
            for k, (_, u) in enumerate(placed):
                unit_counts[k, u] += 1
        if g.phase[e] == R.DEPLOYMENT:
            continue
        for i, hex_ in initial.items():
            enemies = [h for j, h in initial.items() if j // U != i // U]
            xs.append(min(hexgrid.distance(hex_, h) for h in enemies))
            alive.append(float(g.hp[e, i] > 0))
            damage.append(float(g.damage_dealt[e, i]))
    rows = unit_counts.sum(1, keepdims=True)
    return {
        "deployment_steps_mean": g.deploy_steps.mean(),
        "deployment_deadlock_count": (g.outcome == R.DEADLOCK).sum(),
        "winrate": (g.outcome == R.PLAYER1_WON + learner).mean(),
        "hex_slot_distribution": hex_counts / hex_counts.sum(),
        "unit_slot_distribution": np.divide(unit_counts, rows, where=rows > 0, out=unit_counts * 0),
        "placement_units": len(xs),
        "placement_survival_correlation": np.corrcoef(xs, alive)[0, 1],
        "placement_damage_correlation": np.corrcoef(xs, damage)[0, 1],
    }


def test_random_vmap_rollout_matches_numpy_reference():
    env = tcgjax.make("deployment", scenario=line_dict(move=1))
    batch, steps = 96, env.default_max_steps

    def episode(key):
        def body(carry, key):
            state, acc = carry
            k1, k2, k3 = jax.random.split(key, 3)
            legal = random_legal_action(k1, state.legal_action_mask)
            # One step in four picks any deploy/pass index: often illegal.
            wild = jax.random.randint(k2, (), 0, PASS + 1)
            action = jnp.where(jax.random.uniform(k3) < 0.25, wild, legal)
            new = env.step(state, action, key)
            return (new, update_attempts(acc, state, new)), None

        state = env.init(key)
        keys = jax.random.split(key, steps)
        (state, acc), _ = jax.lax.scan(body, (state, init_attempts()), keys)
        return state, acc

    states, acc = jax.jit(jax.vmap(episode))(jax.random.split(jax.random.PRNGKey(3), batch))
    assert isinstance(acc, DeploymentAttempts) and acc.attempts.shape == (batch,)
    done = np.asarray(states.terminated | states.truncated)
    assert done.all()
    m = jax.jit(functools.partial(deployment_metrics, env))(states, acc, 1)
    ref = reference_metrics(env, states, 1)
    deadlocks = int(ref["deployment_deadlock_count"])
    assert 0 < deadlocks < batch and int(m["deployment_pass_count"]) == deadlocks
    assert 0 < int(m["deployment_invalid_attempts"]) < int(m["deployment_attempts"])
    valid = int(m["deployment_attempts"]) - int(m["deployment_invalid_attempts"])
    assert valid == int(np.asarray(states.game.deploy_steps).sum()) + deadlocks
    np.testing.assert_allclose(
        float(m["deployment_valid_action_rate"])
        + float(m["deployment_invalid_action_attempt_rate"]),
        1.0,
        rtol=1e-6,
    )
    assert int(m["deployment_episodes"]) == batch
    for k, want in ref.items():
        np.testing.assert_allclose(m[k], want, rtol=1e-5, atol=1e-6, err_msg=k)
