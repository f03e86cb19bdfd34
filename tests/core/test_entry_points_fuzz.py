"""Issue #33: the core entry points under random bad input (Hypothesis, fixed budgets).

Each test takes a valid input (a JSON state of each game, a recorded duel replay, ``make``'s
options), changes one field (a wrong type, an integer of 2**70 or 10**5000, JSON nested 100,000
deep, a missing or an extra key) and asserts that the entry point either gives a correct result or
raises a ``TcgjaxError`` (whose message is a short string), never anything else. Every game is
compiled once (module fixtures) and each example runs compiled code only.
"""

from __future__ import annotations

import copy
import json
import math

import jax
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tcgjax
from tcgjax import replay
from tcgjax.core.env import State
from tcgjax.testing import assert_states_equal

FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
GAMES = tcgjax.available_envs()
HUGE = "__HUGE_INTEGER__"  # replaced by an integer literal of 5000 digits in the JSON text
DEEP = "__DEEP_NESTING__"  # replaced by a list nested 100,000 deep
DEPTH = 100_000

ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([2**70, -(2**70), 2**63, 2**31, -1, 0, 1]),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from([[], {}, [1, 2], {"id": 1}, [[0, 1], [2]], "player1", "card_001"]),
    st.lists(st.integers(0, 2**32 - 1), min_size=2, max_size=2),  # a valid PRNG key
    st.sampled_from([HUGE, DEEP]),
)


def _nodes(tree, path=()):
    """Every path into ``tree`` (dict keys; the first two items of each list)."""
    yield path
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _nodes(value, (*path, key))
    elif isinstance(tree, list):
        for i, value in enumerate(tree[:2]):
            yield from _nodes(value, (*path, i))


def _mutate(base, data):
    """``base`` with one node replaced by an odd value, deleted, wrapped, given an extra key or
    an extra list item (a copy of its first), the choice drawn from ``data``. The node is drawn
    in two steps, a top-level field and then a node in it, so that small fields (``envId``, the
    random tape) are changed as often as the big ones."""
    tree = copy.deepcopy(base)
    top = data.draw(st.sampled_from(sorted(tree)), label="field")
    path = data.draw(st.sampled_from(list(_nodes(tree[top], (top,)))), label="path")
    parent = tree
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    how = data.draw(
        st.sampled_from(["replace", "replace", "delete", "wrap", "extra", "extra"]), label="how"
    )
    node = parent[last]
    if how == "replace":
        parent[last] = data.draw(ODD_VALUES, label="value")
    elif how == "delete":
        del parent[last]
    elif how == "wrap":
        parent[last] = data.draw(st.sampled_from([[node], {"value": node}]), label="wrapped")
    elif isinstance(node, dict):
        node[data.draw(st.text(max_size=4), label="key")] = 0
    elif isinstance(node, list):
        node.append(copy.deepcopy(node[0]) if node else 0)
    else:
        parent[last] = [node, 0]
    return tree


def _as_text(tree) -> str:
    text = json.dumps(tree)
    return text.replace(f'"{HUGE}"', "9" * 5000).replace(f'"{DEEP}"', "[" * DEPTH + "]" * DEPTH)


def _as_python(tree):
    """``tree`` with the sentinels made real: a Python int of 5000 digits, a list nested 100,000
    deep (built without recursion)."""
    if tree == HUGE:
        return 10**5000
    if tree == DEEP:
        deep: list = []
        for _ in range(DEPTH):
            deep = [deep]
        return deep
    if isinstance(tree, dict):
        return {k: _as_python(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_as_python(v) for v in tree]
    return tree


def _float32(tree):
    """JSON data with every float rounded to float32 (the states' float fields)."""
    if isinstance(tree, dict):
        return {k: _float32(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_float32(v) for v in tree]
    if isinstance(tree, float) and math.isfinite(tree):
        return float(np.float32(tree))
    return tree


def _refused_with_a_message(exc: tcgjax.TcgjaxError) -> None:
    message = str(exc)
    assert message and len(message) < 2000, message[:300]


# --------------------------------------------------------------------------------------------------
# from_json, every game


_GAMES: dict[str, tuple] = {}


@pytest.fixture(scope="module")
def game_json():
    def get(game):
        if game not in _GAMES:
            env = tcgjax.make(game)
            state = jax.jit(env.init)(jax.random.PRNGKey(3))
            text = tcgjax.to_json(env, state)
            tcgjax.from_json(env, text)  # compiles the env's finalize once
            _GAMES[game] = env, json.loads(text)
        return _GAMES[game]

    return get


@pytest.mark.parametrize("game", GAMES)
@FUZZ
@given(data=st.data())
def test_from_json_of_a_state_with_one_field_changed(game_json, game, data):
    env, base = game_json(game)
    tree = _mutate(base, data)
    try:
        state = tcgjax.from_json(env, _as_text(tree))
    except tcgjax.TcgjaxError as exc:
        _refused_with_a_message(exc)
        return
    # Accepted: the change was a legal position of the game, and it reads back exactly.
    assert isinstance(state, State)
    assert json.loads(tcgjax.to_json(env, state)) == _float32(tree)


# --------------------------------------------------------------------------------------------------
# replay.run / frames (the duel)


@pytest.fixture(scope="module")
def recorded(duel_env):
    rec = replay.Recorder(duel_env, jax.jit(duel_env.init)(jax.random.PRNGKey(2)))
    for i in range(5):
        legal = np.flatnonzero(np.asarray(rec.state.legal_action_mask))
        rec.step(int(legal[0] if i % 2 == 0 else legal[-1]), jax.random.PRNGKey(50 + i))
    data = json.loads(json.dumps(rec.export()))
    replay.run(data, duel_env)  # compiles the step once
    return data, rec.state


@FUZZ
@given(data=st.data(), verify=st.booleans(), stepwise=st.booleans())
def test_replay_with_one_field_changed(duel_env, recorded, data, verify, stepwise):
    base, final = recorded
    tree = _mutate(base, data)
    edited = _as_python(tree)
    try:
        if stepwise:
            states = [state for _, state, _ in replay.frames(edited, duel_env, verify=verify)]
            result = states[-1]
        else:
            result = replay.run(edited, duel_env, verify=verify)
    except tcgjax.TcgjaxError as exc:
        _refused_with_a_message(exc)
        return
    if verify:
        # Format 3 digests every field: a replay that verifies is the recorded one.
        assert tree == base or json.dumps(tree, sort_keys=True) == json.dumps(base, sort_keys=True)
        assert_states_equal(result, final, "a replay that verifies")
    else:
        assert isinstance(result, State)


# --------------------------------------------------------------------------------------------------
# make


def _accepted_options(env_id: str) -> list[str]:
    import importlib
    import inspect

    from tcgjax.registry import _ENTRY_POINTS

    module, name = _ENTRY_POINTS[env_id].split(":")
    cls = getattr(importlib.import_module(module), name)
    params = inspect.signature(cls.__init__).parameters.values()
    return [p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]


OPTION_VALUES = st.one_of(
    ODD_VALUES.filter(lambda v: v not in (HUGE, DEEP)),
    st.sampled_from(
        [
            ["st1", "st2"],
            ("tapu_koko", "melmetal_dte"),
            ["st1"],
            [5, 6],
            [None, None],
            [{}, {}],
            "small",
            "v1",
            "lose",
            "official",
            "fixed",
            50,
            "/",
            ".",
            "no/such/file.yaml",
        ]
    ),
)


@pytest.mark.parametrize("env_id", GAMES)
@settings(FUZZ, max_examples=30)
@given(data=st.data())
def test_make_with_an_odd_option(env_id, data):
    names = _accepted_options(env_id)
    options = {data.draw(st.sampled_from(names), label="name"): data.draw(OPTION_VALUES)}
    if data.draw(st.booleans(), label="another"):
        name = data.draw(st.sampled_from([*names, "seed", "colour"]), label="other")
        options[name] = data.draw(OPTION_VALUES, label="its value")
    try:
        env = tcgjax.make(env_id, **options)
    except tcgjax.TcgjaxError as exc:
        _refused_with_a_message(exc)
        return
    assert isinstance(env, tcgjax.Env) and env.id == env_id
