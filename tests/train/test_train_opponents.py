"""Scripted opponents (``tcgjax.train.opponents``): legal under random play, right on scripted situations,
and clearly stronger than random.

Situations are built explicitly (STYLE lesson 12): duel states with ``build_state``, deployment states
with scripted ``encode_deploy`` placements. Expected choices are strict preferences of the heuristic,
so they hold for every tie-break key (each is checked over several keys).

Boards below are ``(col, row)`` odd-q hexes; ``small`` is 7x6 (pools: columns 0-1 vs 5-6),
``overlap`` is 8x6 (pools: columns 0, 3, 4 vs 3, 4, 7).
"""

from __future__ import annotations

import types

import jax
import numpy as np
import pytest
from train_testlib import sweep

import tcgjax
from tcgjax.games.deployment import DeployAction, MoveAction, ShootAction, decode_action
from tcgjax.games.deployment import encode_deploy as encode
from tcgjax.games.deployment.hexgrid import distance
from tcgjax.games.deployment.rules import MOVEMENT, SHOOTING
from tcgjax.games.duel.scenario import build_state
from tcgjax.train.opponents import HEURISTICS, heuristic_policy, random_policy

KEY = jax.random.PRNGKey(0)
KEYS = jax.random.split(jax.random.PRNGKey(7), 8)  # tie-break keys for the scripted checks
SCENARIOS = ("small", "walls", "overlap")


@pytest.fixture(scope="module")
def deployment_envs():
    return {name: tcgjax.make("deployment", scenario=name) for name in SCENARIOS}


def choices(env):
    """Jitted ``(state) -> int list``: the heuristic's action in ``state`` for each key of KEYS."""
    choose = jax.jit(jax.vmap(heuristic_policy(env), in_axes=(None, 0)))
    return lambda state: [int(a) for a in choose(state, KEYS)]


# ---------------------------------------------------------------------------------------------------
# Registry


def test_registry_is_keyed_by_registered_env_ids():
    assert {"deployment", "duel"} <= set(HEURISTICS) <= set(tcgjax.available_envs())


def test_unknown_env_raises_config_error_naming_it():
    with pytest.raises(tcgjax.ConfigError, match="'chess'"):
        heuristic_policy(types.SimpleNamespace(id="chess"))


def test_same_env_gets_the_same_policy_object(duel_env):
    assert heuristic_policy(duel_env) is heuristic_policy(duel_env)
    assert random_policy(duel_env) is random_policy(duel_env)


# ---------------------------------------------------------------------------------------------------
# Legal under random play, and stronger than random: ONE jitted scan per env (compiled once, shared by
# both tests) over two groups of games that share every step. The heuristic is asked at every state
# of both groups, whoever acts, and each answer is checked against the mask.
#   * RANDOM_PLAY games: each step applies, per game, the heuristic's action or a random legal one
#     (coin flip), so the heuristic also meets positions it would never create itself.
#   * VERSUS games: the heuristic (seat = game index % 2) against the uniform random player.
# Every game runs from the start to its end, no reset (a reset would compile a second env.init).

RANDOM_PLAY, VERSUS = 256, 1000
ENVS = ("small", "walls", "overlap", "duel")
# Measured win rates of the heuristic over the 1000 VERSUS games (key 0): small 99.7%, walls 99.3%,
# overlap 98.0% (96% as the second player), duel 91.5% (98.6% first to act, 84.4% second).
# Thresholds leave a wide margin; each seat is checked too, 10 points lower.
MIN_WIN_RATE = {"small": 0.9, "walls": 0.9, "overlap": 0.85, "duel": 0.8}
EXPECTED_RANGES = {
    "deployment": {"deploy", "move", "shoot", "end_phase"},  # pass only in a deadlock
    "duel": {"play", "attack", "end_turn"},
}


@pytest.fixture(scope="module", params=ENVS)
def swept(request, deployment_envs, duel_env):
    name = request.param
    env = duel_env if name == "duel" else deployment_envs[name]
    # Every game must end inside the scan: deployment games are truncated at max_steps by the
    # env; a duel game ends within about 20 turns (each turn draws a card from a 12-card deck).
    steps = 300 if name == "duel" else env.max_steps
    return name, env, sweep(env, heuristic_policy(env), KEY, steps, RANDOM_PLAY, VERSUS)


def test_heuristic_is_legal_under_random_play(swept):
    name, env, (legal, live, actions, *_) = swept
    bad = np.argwhere(~legal & live)
    assert bad.size == 0, (
        f"{name}: illegal heuristic action {env.action_name(actions[tuple(bad[0])])}"
    )
    assert live.sum() > 20_000
    chosen = {env.action_layout.decode(int(a))[0] for a in np.unique(actions[live])}
    assert chosen == EXPECTED_RANGES[env.id], chosen


def test_heuristic_beats_random(swept):
    name, _, (*_, seat, reward, done) = swept
    assert done.all(), f"{name}: {int((~done).sum())} games unfinished"
    win_rate = float((reward > 0).mean())
    assert win_rate > MIN_WIN_RATE[name], (name, win_rate)
    for p in (0, 1):
        assert float((reward[seat == p] > 0).mean()) > MIN_WIN_RATE[name] - 0.1, (name, p)


# ---------------------------------------------------------------------------------------------------
# duel situations


class _JittedSetup:
    """The env with jitted ``init``/``finalize`` for ``build_state`` (eager, op by op, they cost
    seconds of per-op compilation on a cold start)."""

    def __init__(self, env):
        self._env = env
        self.init = jax.jit(env.init)
        self.finalize = jax.jit(env.finalize)

    def __getattr__(self, name):
        return getattr(self._env, name)


@pytest.fixture(scope="module")
def duel(duel_env):
    return duel_env, choices(duel_env), jax.jit(duel_env.step)


@pytest.fixture(scope="module")
def build(duel_env):
    setup = _JittedSetup(duel_env)
    return lambda players: build_state(setup, players)


def test_duel_plays_the_dragon_with_five_mana(duel, build):
    env, choose, _ = duel
    s = build([{"hand": ["goblin", "wolf", "dragon", "spark"], "mana": 5}, {}])
    assert set(choose(s)) == {env.action_layout.encode("play", 2)}


def test_duel_plays_the_most_expensive_affordable_card(duel, build):
    env, choose, _ = duel
    s = build([{"hand": ["goblin", "dragon", "knight", "wolf"], "mana": 4}, {}])
    assert set(choose(s)) == {env.action_layout.encode("play", 2)}  # knight, not dragon


def test_duel_plays_a_spell_when_the_board_is_full(duel, build):
    env, choose, _ = duel
    full = ["goblin", "goblin", "wolf"]
    s = build(
        [{"hand": ["knight", "fireball"], "board": full, "exhausted": [0, 1, 2], "mana": 3}, {}]
    )
    assert set(choose(s)) == {env.action_layout.encode("play", 1)}


def test_duel_attacks_with_every_ready_creature_then_ends_the_turn(duel, build):
    env, choose, step = duel
    s = build([{"hand": ["dragon"], "board": ["wolf", "goblin"], "mana": 0}, {}])
    names = []
    for i in range(3):
        action = choose(s)[i]
        names.append(env.action_name(action))
        s = step(s, action, KEY)
        assert int(s.error) == 0
    assert sorted(names[:2]) == ["attack[0]", "attack[1]"] and names[2] == "end_turn"
    assert int(s.current_player) == 1


# ---------------------------------------------------------------------------------------------------
# deployment situations, all on ``overlap`` (8x6, walls (2,2) (5,3); pools: columns 0, 3, 4 for
# blue, 3, 4, 7 for red; slots by id: infantry 0, sniper 1, tank 2)


@pytest.fixture(scope="module")
def overlap(deployment_envs):
    env = deployment_envs["overlap"]
    init, step = jax.jit(env.init), jax.jit(env.step)

    def deploy(placements):
        """Scripted deployment: ``(unit_id, col, row)`` in order (blue's units, then red's)."""
        state = init(KEY)
        for unit_id, col, row in placements:
            state = step(state, encode(env, state, unit_id, col, row), KEY)
            assert int(state.error) == 0, (unit_id, col, row)
        return state

    return env, choices(env), step, deploy


def position(env, state, unit_id):
    g = env.scenario.unit_index(unit_id)
    return int(state.game.col[g]), int(state.game.row[g])


def nearest_enemy(env, state, unit_id):
    """Hex distance from ``unit_id`` to the nearest living enemy unit."""
    s = env.scenario
    owner = s.unit_index(unit_id) // s.max_unit_slots
    hp, col = np.asarray(state.game.hp), np.asarray(state.game.col)
    return min(
        distance(position(env, state, unit_id), position(env, state, other))
        for other in s.units_by_player[1 - owner]
        if hp[s.unit_index(other)] > 0 and col[s.unit_index(other)] >= 0
    )


def unit_range(env, unit_id):
    return next(u.range for u in env.scenario.units if u.id == unit_id)


def test_deployment_first_placement_puts_the_toughest_unit_nearest_the_enemy(overlap):
    env, choose, _, deploy = overlap
    s = env.scenario
    state = deploy([])
    enemy_pool = [h for h in s.pools[1] if h not in s.walls]
    centre = (s.cols // 2, s.rows // 2)

    def rank(h):  # nearest the enemy's pool, then nearest the centre
        return (min(distance(h, e) for e in enemy_pool), distance(h, centre))

    best = min(rank(h) for h in s.pools[0])
    for action in choose(state):
        placed = decode_action(env, state, action)
        assert isinstance(placed, DeployAction) and placed.unit_id == "blue_tank"  # 5 HP
        assert rank((placed.col, placed.row)) == best


def test_deployment_second_deployer_faces_the_deployed_enemy(overlap):
    env, choose, _, deploy = overlap
    blue = [("blue_infantry", 0, 0), ("blue_sniper", 0, 1), ("blue_tank", 3, 0)]
    state = deploy(blue)
    assert int(state.game.active_player) == 1
    # Nearest a deployed blue unit (the top of columns 3-4), not the board's centre.
    free = [h for h in env.scenario.pools[1] if h not in {(c, r) for _, c, r in blue}]
    best = min(min(distance(h, (c, r)) for _, c, r in blue) for h in free)
    for action in choose(state):
        placed = decode_action(env, state, action)
        assert placed.unit_id == "red_tank"
        assert min(distance((placed.col, placed.row), (c, r)) for _, c, r in blue) == best == 1


FAR_APART = [
    ("blue_infantry", 0, 1),
    ("blue_sniper", 0, 2),
    ("blue_tank", 0, 3),
    ("red_infantry", 7, 1),
    ("red_sniper", 7, 2),
    ("red_tank", 7, 3),
]


def test_deployment_moves_toward_the_enemy_until_in_range_then_ends_the_phase(overlap):
    env, choose, step, deploy = overlap
    state = deploy(FAR_APART)
    assert int(state.game.phase) == MOVEMENT and int(state.current_player) == 0
    moved = set()
    for i in range(20):
        action = choose(state)[i % len(KEYS)]
        meaning = decode_action(env, state, action)
        if meaning == "end_phase":
            break
        assert isinstance(meaning, MoveAction), meaning
        unit = meaning.unit_id
        before = nearest_enemy(env, state, unit)
        assert before > unit_range(env, unit), f"{unit} was already in range"
        state = step(state, action, KEY)
        assert int(state.error) == 0 and nearest_enemy(env, state, unit) < before
        moved.add(unit)
    else:
        raise AssertionError("the movement phase never ended")
    assert moved == set(env.scenario.units_by_player[0])
    for unit in moved:  # each stopped in range or out of moves
        g = env.scenario.unit_index(unit)
        in_range = nearest_enemy(env, state, unit) <= unit_range(env, unit)
        assert in_range or int(state.game.moves_left[g]) == 0, unit


def test_deployment_shooting_ends_the_phase_when_no_enemy_is_in_range(overlap):
    env, choose, step, deploy = overlap
    end_phase = env.action_layout.encode("end_phase")
    state = step(deploy(FAR_APART), end_phase, KEY)  # skip blue's movement
    assert int(state.game.phase) == SHOOTING
    assert set(choose(state)) == {end_phase}


def test_deployment_holds_position_in_range_kills_first_then_shoots_the_weakest(overlap):
    env, choose, step, deploy = overlap
    #   blue_tank (3,0) is next to red_sniper (4,0): 2 damage kills its 2 HP; nothing else in range.
    #   blue_infantry (3,5) reaches red_infantry (4,5) at 1 and red_tank (3,3) at 2.
    #   blue_sniper (0,5) reaches red_tank (3,3) at 3 and red_infantry (4,5) at 4.
    state = deploy(
        [
            ("blue_infantry", 3, 5),
            ("blue_sniper", 0, 5),
            ("blue_tank", 3, 0),
            ("red_infantry", 4, 5),
            ("red_sniper", 4, 0),
            ("red_tank", 3, 3),
        ]
    )
    end_phase = env.action_layout.encode("end_phase")
    assert int(state.game.phase) == MOVEMENT
    assert set(choose(state)) == {end_phase}  # every blue unit already has a target
    state = step(state, end_phase, KEY)
    assert int(state.game.phase) == SHOOTING

    firsts = choose(state)
    assert {decode_action(env, state, a) for a in firsts} == {
        ShootAction("blue_tank", "red_sniper")
    }
    state = step(state, firsts[0], KEY)  # the shot that kills
    assert int(state.error) == 0 and nearest_enemy(env, state, "blue_tank") > 2
    targets = []
    for i in range(3):
        action = choose(state)[i]
        meaning = decode_action(env, state, action)
        if meaning == "end_phase":
            break
        targets.append(meaning.target_id)
        state = step(state, action, KEY)
        assert int(state.error) == 0
    assert targets == ["red_infantry", "red_infantry"]  # 3 HP < the tank's 5, then 2 HP
    assert decode_action(env, state, choose(state)[3]) == "end_phase"
