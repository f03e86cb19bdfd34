"""Random-play invariants of the deployment game, computed on device for every step.

One jitted ``lax.scan`` per shipped scenario runs ``vmap``-ed games (auto-reset, uniform random legal
actions) and evaluates, on every state reached, the invariants of ``deployment_phase_v1.md`` 3.2 and
the board's own invariants; the game's own host-side ``validate`` (``rules.validate``) runs on every
state of 64 of those games over 300 steps (16 games outside the default scenario), each also
round-tripped through JSON. The scan returns one boolean per invariant per step (each already
reduced over the batch); the host asserts them all and names the first failure. The situations are
whatever random play meets: the properties must hold in *every* state, so no particular draw matters
(the scripted situations are in ``test_deployment_spec.py``).

Reference tables (unit slots, max HP, walls, pools) are rebuilt here from the scenario's plain
fields and decisions D1/D2, not read from the rules' own tables.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from deployment_testlib import SHIPPED

import tcgjax
from tcgjax.games.deployment import encode_deploy
from tcgjax.games.deployment.rules import OUTCOMES
from tcgjax.games.deployment.scenario import PHASES
from tcgjax.testing import round_trip_states
from tcgjax.wrappers import random_legal_action, reset_if_done

BATCH, STEPS = 256, 400  # 102,400 steps per scenario, 307,200 over the three shipped ones
# The validate sweep (issue #33): every state of the first 64 games over the first 300 steps of
# the default scenario passes env.validate and round-trips through JSON exactly (19,200 states);
# of the first 16 games in the other scenarios (4,800 each: ~0.6 ms a state on the host).
VALIDATED_GAMES, VALIDATED_STEPS = 64, 300
VALIDATED = {"small": VALIDATED_GAMES, "walls": 16, "overlap": 16}
MIN_STEPS = 100_000  # each scenario alone is checked on at least this many steps
DEPLOYMENT = PHASES.index("deployment")

INVARIANTS = {  # key -> what it asserts (spec section first)
    "placed_in_board": "3.2.1 deployed units have in-board coordinates",
    "unplaced_sentinel": "3.2.2 unplaced units (and empty slots) sit at (-1, -1)",
    "deployable_disjoint": "3.2.3 deployable units (observed) are exactly the unplaced ones",
    "complete_iff_placed": "3.2.4 deployment_complete iff every unit is placed",
    "complete_leaves_phase": "3.2.5 complete implies phase != deployment",
    "phase_needs_complete": "7.2 phase != deployment implies complete",
    "player_by_player": "3.3 the deployer has units left; the second deploys after the first",
    "pass_rule": "5.3 pass legal iff deployment and no deploy legal; terminal mask all True",
    "mask_matches_rules": "the mask agrees with the named rules (action_errors == 0)",
    "on_pool_hex": "D2 a unit deployed this phase stands on the pool hex of its hex slot",
    "metrics_facts": "9 deploy_steps counts placements; deploy_order is distinct 0..n-1",
    "one_per_hex": "one living unit per hex",
    "not_on_wall": "no living unit on a wall",
    "hp_bounds": "0 <= hp <= max hp",
    "legal_accepted": "a legal random action is accepted (error == 0)",
    "mask_not_empty": "the mask is never all False",
    "rewards_finite": "rewards are finite",
    "not_truncated": "no truncation under the default max_steps",
}


def reference_tables(env) -> dict[str, np.ndarray]:
    """Unit slots (D1), pools (D2), walls and max HP from the scenario's plain fields."""
    s = env.scenario
    U, Hs, rows = s.max_unit_slots, s.max_hex_slots, s.rows
    exists = np.zeros(2 * U, bool)
    max_hp = np.zeros(2 * U, np.int32)
    ids = [""] * (2 * U)
    for p in range(2):
        mine = sorted((u for u in s.units if u.owner == p), key=lambda u: u.id)
        for slot, u in enumerate(mine):
            ids[p * U + slot] = u.id
            exists[p * U + slot] = True
            max_hp[p * U + slot] = u.hp
    assert tuple(ids) == s.unit_ids, "D1: unit slots sorted by unit_id"
    pool = np.full((2, Hs), -1, np.int32)
    for p in range(2):
        for h, (col, row) in enumerate(sorted(s.pools[p])):
            pool[p, h] = col * rows + row
    wall = np.zeros(s.num_hexes, bool)
    for col, row in s.walls:
        wall[col * rows + row] = True
    return {
        "exists": exists,
        "owner": np.repeat(np.arange(2), U),
        "max_hp": max_hp,
        "pool": pool,
        "wall": wall,
        "first_deployer": np.int32(s.first_deployer),
    }


def invariants(env, t, state, legal_action_error) -> jax.Array:
    """bool[len(INVARIANTS)] for one game's ``state`` (the result of a step)."""
    s = env.scenario
    U, rows, cols = s.max_unit_slots, s.rows, s.cols
    g = state.game
    col, row = g.col.astype(jnp.int32), g.row.astype(jnp.int32)
    exists = t["exists"]
    done = state.terminated | state.truncated
    deploying = g.phase == DEPLOYMENT

    in_board = (col >= 0) & (col < cols) & (row >= 0) & (row < rows)
    placed = col >= 0
    deployed = exists & placed
    unplaced_at_sentinel = (col == -1) & (row == -1)
    # 6.2/3.1 deployable_units_by_player as observed: remaining_units is (me, opponent).
    remaining = env.observation_layout.view(state.observation, "remaining_units") > 0.5
    by_player = jnp.where(state.current_player == 0, remaining, remaining[::-1]).reshape(-1)
    all_placed = jnp.all(deployed | ~exists)
    complete = env.rules.deployment_complete(g)  # the engine's deployment_complete
    left = jnp.stack([jnp.any(exists & ~placed & (t["owner"] == p)) for p in range(2)])
    active = g.active_player.astype(jnp.int32)
    second = active != t["first_deployer"]

    mask = state.legal_action_mask
    layout = env.action_layout
    deploy_mask = mask[: layout.size("deploy")]
    pass_legal = mask[layout.start("pass_deployment")]
    expected_pass = deploying & ~jnp.any(deploy_mask)
    pass_ok = jnp.where(done, jnp.all(mask), pass_legal == expected_pass)
    pass_ok &= done | deploying | ~jnp.any(deploy_mask)

    rule_legal = env.rules.action_errors(g) == 0  # one code per action, from the named rules
    mask_matches_rules = done | jnp.all(mask == rule_legal)

    flat = col * rows + row
    slot = g.deploy_hex_slot.astype(jnp.int32)
    pool_hex = t["pool"][t["owner"], jnp.clip(slot, 0)]
    on_pool_hex = jnp.where(deployed & deploying, (slot >= 0) & (pool_hex == flat), True)
    order = g.deploy_order.astype(jnp.int32)
    n_deployed = jnp.sum(deployed)
    order_ok = jnp.where(deployed, (order >= 0) & (order < n_deployed), order == -1)
    same_order = (order[:, None] == order[None, :]) & deployed[:, None] & deployed[None, :]
    distinct = ~jnp.any(same_order & ~jnp.eye(2 * U, dtype=bool))

    alive = deployed & (g.hp > 0)
    same_hex = (flat[:, None] == flat[None, :]) & alive[:, None] & alive[None, :]
    one_per_hex = ~jnp.any(same_hex & ~jnp.eye(2 * U, dtype=bool))
    on_wall = alive & t["wall"][jnp.clip(flat, 0, s.num_hexes - 1)]
    hp = g.hp.astype(jnp.int32)

    checks = {
        "placed_in_board": jnp.all(jnp.where(deployed, in_board, True)),
        "unplaced_sentinel": jnp.all(jnp.where(deployed, True, unplaced_at_sentinel)),
        "deployable_disjoint": jnp.all(by_player == (exists & ~placed))
        & ~jnp.any(by_player & deployed),
        "complete_iff_placed": complete == all_placed,
        "complete_leaves_phase": ~complete | ~deploying,
        "phase_needs_complete": deploying | complete,
        "player_by_player": ~deploying | (left[active] & (~second | ~left[t["first_deployer"]])),
        "pass_rule": pass_ok,
        "mask_matches_rules": mask_matches_rules,
        "on_pool_hex": jnp.all(on_pool_hex),
        "metrics_facts": (g.deploy_steps == n_deployed) & jnp.all(order_ok) & distinct,
        "one_per_hex": one_per_hex,
        "not_on_wall": ~jnp.any(on_wall),
        "hp_bounds": jnp.all((hp >= 0) & (hp <= t["max_hp"])),
        "legal_accepted": legal_action_error == 0,
        "mask_not_empty": jnp.any(mask),
        "rewards_finite": jnp.all(jnp.isfinite(state.rewards)),
        "not_truncated": ~state.truncated,
    }
    assert list(checks) == list(INVARIANTS)
    return jnp.stack(list(checks.values()))


@functools.cache
def compiled_rollout(env):
    """jit(scan over STEPS of vmap over BATCH): per-step invariants and episode counters."""
    t = jax.tree.map(jnp.asarray, reference_tables(env))
    check = jax.vmap(lambda state, err: invariants(env, t, state, err))

    def body(state, key):
        k_reset, k_act, k_step = jax.random.split(key, 3)
        state = jax.vmap(reset_if_done, in_axes=(None, 0, 0))(
            env.init, state, jax.random.split(k_reset, BATCH)
        )
        pre_ok = check(state, jnp.zeros(BATCH, jnp.int32)).all(0)  # the state the policy sees
        action = random_legal_action(k_act, state.legal_action_mask)
        nxt = jax.vmap(env.step)(state, action, jax.random.split(k_step, BATCH))
        ok = pre_ok & check(nxt, nxt.error).all(0)
        counts = {
            "steps": jnp.int32(BATCH),
            "episodes": jnp.sum(nxt.terminated | nxt.truncated),
            "deployments_completed": jnp.sum(
                (state.game.phase == DEPLOYMENT) & (nxt.game.phase != DEPLOYMENT)
            ),
            "outcome": jnp.stack(
                [jnp.sum(nxt.terminated & (nxt.game.outcome == o)) for o in range(len(OUTCOMES))]
            ),
        }
        sample = jax.tree.map(lambda x: x[:VALIDATED_GAMES], nxt)  # for the host-side validate
        return nxt, (ok, counts, sample)

    def run(key):
        state = jax.vmap(env.init)(jax.random.split(key, BATCH))
        return jax.lax.scan(body, state, jax.random.split(key, STEPS))[1]

    return jax.jit(run)


@pytest.mark.parametrize("name", SHIPPED)
def test_random_play_invariants_hold_on_every_step(name):
    env = tcgjax.make("deployment", scenario=name)
    ok, counts, sample = jax.device_get(compiled_rollout(env)(jax.random.PRNGKey(2024)))
    assert ok.shape == (STEPS, len(INVARIANTS))
    # The game's declared invariants (rules.validate via env.validate, run by from_json) and an
    # exact JSON round trip, on every state of the first games and steps.
    games = VALIDATED[name]
    sample = jax.tree.map(lambda x: x[:VALIDATED_STEPS, :games], sample)
    assert round_trip_states(env, sample, "state (step, game)") == VALIDATED_STEPS * games
    for k, (key, what) in enumerate(INVARIANTS.items()):
        bad = np.flatnonzero(~ok[:, k])
        assert bad.size == 0, f"{name}: {key} ({what}) broken at scan steps {bad[:5]}"
    steps = int(counts["steps"].sum())
    assert steps == BATCH * STEPS >= MIN_STEPS, f"{name}: only {steps} steps checked"
    episodes = int(counts["episodes"].sum())
    assert episodes >= BATCH, f"{name}: only {episodes} episodes finished"
    assert int(counts["deployments_completed"].sum()) >= episodes
    outcomes = dict(zip(OUTCOMES, counts["outcome"].sum(0).tolist(), strict=True))
    # Shipped pools hold every unit of both players: no deadlock can arise (7.3).
    assert outcomes["deadlock"] == 0, f"{name}: {outcomes}"
    assert outcomes["player1_won"] > 0 and outcomes["player2_won"] > 0, f"{name}: {outcomes}"


def test_invariant_checker_flags_corrupted_states():
    """The checker is not vacuous: each corruption breaks the invariant that describes it."""
    env = tcgjax.make("deployment", scenario="small")
    t = jax.tree.map(jnp.asarray, reference_tables(env))
    check = jax.jit(lambda state: invariants(env, t, state, state.error))
    key = jax.random.PRNGKey(0)
    start = jax.jit(env.init)(key)
    step = jax.jit(env.step)
    deployed = start
    placements = [("blue_infantry", 0, 0), ("blue_sniper", 1, 2), ("blue_tank", 0, 5)]
    placements += [("red_tank", 6, 0), ("red_infantry", 5, 3), ("red_sniper", 6, 5)]
    for uid, col, row in placements:
        deployed = step(deployed, encode_deploy(env, deployed, uid, col, row), key)
    for clean in (start, deployed):
        assert np.asarray(check(clean)).all()

    def corrupt(state, **fields):
        return state.replace(game=state.game.replace(**fields))

    s0, g = start.game, deployed.game
    no_mask = jnp.zeros_like(deployed.legal_action_mask)
    cases = {
        "placed_in_board": corrupt(start, col=s0.col.at[0].set(2)),  # (2, -1)
        "unplaced_sentinel": corrupt(start, row=s0.row.at[0].set(3)),  # (-1, 3)
        "deployable_disjoint": corrupt(start, col=s0.col.at[0].set(0), row=s0.row.at[0].set(0)),
        "phase_needs_complete": corrupt(start, phase=jnp.int8(PHASES.index("movement"))),
        "complete_leaves_phase": corrupt(deployed, phase=jnp.int8(DEPLOYMENT)),
        "one_per_hex": corrupt(
            deployed, col=g.col.at[1].set(g.col[0]), row=g.row.at[1].set(g.row[0])
        ),
        "not_on_wall": corrupt(deployed, col=g.col.at[0].set(3), row=g.row.at[0].set(1)),
        "hp_bounds": corrupt(deployed, hp=g.hp.at[2].add(1)),
        "metrics_facts": corrupt(deployed, deploy_steps=g.deploy_steps + 1),
        "mask_not_empty": deployed.replace(legal_action_mask=no_mask),
        "mask_matches_rules": deployed.replace(
            legal_action_mask=deployed.legal_action_mask.at[0].set(True)
        ),
        "rewards_finite": deployed.replace(rewards=jnp.array([jnp.nan, 0.0])),
        "legal_accepted": start.replace(error=jnp.int32(33)),
    }
    for broken, state in cases.items():
        result = dict(zip(INVARIANTS, np.asarray(check(state)).tolist(), strict=True))
        assert result[broken] is False, broken
