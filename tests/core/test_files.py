"""Every YAML and JSON file the library reads refuses a repeated key (never "last one wins")."""

import json
import os

import jax
import pytest
import yaml

import tcgjax
from tcgjax.core.cards import CardRegistry
from tcgjax.core.files import DuplicateKeyError, json_loads, yaml_loads
from tcgjax.games.duel.rules import SCHEMA
from tcgjax.train.config import load_config


def test_yaml_loader_refuses_duplicates_at_any_depth_and_keeps_merge_keys():
    assert yaml_loads("a: 1\nb: {c: 2}\n") == {"a": 1, "b": {"c": 2}}
    with pytest.raises(DuplicateKeyError, match="'a'.*line 2, first at line 1"):
        yaml_loads("a: 1\na: 2\n")
    with pytest.raises(DuplicateKeyError, match="'c'"):
        yaml_loads("x:\n  - {c: 1, c: 3}\n")
    # A merge key's values may be overridden: that is YAML, not a duplicate.
    assert yaml_loads("b: &b {k: 1}\nd:\n  <<: *b\n  k: 2\n")["d"] == {"k": 2}
    # ... and the keys after a merge key are still checked.
    with pytest.raises(DuplicateKeyError, match="'k'"):
        yaml_loads("b: &b {k: 1}\nd:\n  <<: *b\n  k: 2\n  k: 3\n")


def test_an_unhashable_key_does_not_hide_a_later_duplicate():
    """A complex key (``? [1, 2]``) is YAML's own error; the duplicate after it is still named."""
    with pytest.raises(DuplicateKeyError, match="'b'.*line 4, first at line 3"):
        yaml_loads("? [1, 2]\n: x\nb: 1\nb: 2\n")
    with pytest.raises(yaml.constructor.ConstructorError, match="unhashable"):
        yaml_loads("? [1, 2]\n: x\nb: 1\n")


def test_yaml_loader_accepts_what_safe_load_accepts_recursive_aliases_included():
    """Only repeated keys are refused: a self-referencing sequence loads as with ``safe_load``."""
    text = "a: &x [1, *x]\nb: {c: &y [*y]}\n"
    out, ref = yaml_loads(text), yaml.safe_load(text)
    assert out["a"][0] == ref["a"][0] == 1 and out["a"][1] is out["a"]
    assert out["b"]["c"][0] is out["b"]["c"]


def test_json_loader_refuses_duplicates():
    assert json_loads('{"a": [{"b": 1}]}') == {"a": [{"b": 1}]}
    with pytest.raises(DuplicateKeyError, match="'b'"):
        json_loads('{"a": [{"b": 1, "b": 2}]}')


def test_card_file_with_a_duplicate_key(tmp_path):
    path = tmp_path / "cards.yaml"
    path.write_text(
        "- {id: a, name: A, kind: creature, cost: 1, power: 1}\n"
        "- {id: b, name: B, kind: spell, cost: 1, power: 2, power: 3}\n"
    )
    with pytest.raises(tcgjax.CardDataError, match=r"cards\.yaml.*duplicate key 'power'"):
        CardRegistry.load(str(path), SCHEMA)
    json_path = tmp_path / "cards.json"
    json_path.write_text(
        '[{"id": "a", "id": "b", "name": "A", "kind": "spell", "cost": 1, "power": 1}]'
    )
    with pytest.raises(tcgjax.CardDataError, match=r"cards\.json.*duplicate key 'id'"):
        CardRegistry.load(str(json_path), SCHEMA)


def test_scenario_file_with_a_duplicate_key(tmp_path):
    from tcgjax.games.deployment.scenario import SCENARIO_DIR

    text = open(os.path.join(SCENARIO_DIR, "small.yaml"), encoding="utf-8").read()
    path = tmp_path / "dup.yaml"
    path.write_text(text + "max_turns: 3\n")
    with pytest.raises(tcgjax.ConfigError, match=r"dup\.yaml.*duplicate key 'max_turns'"):
        tcgjax.make("deployment", scenario=str(path))


@pytest.mark.parametrize("scenario", [3, 2.5, None, ["small"], b"small", object()])
def test_scenario_of_the_wrong_kind(scenario):
    with pytest.raises(tcgjax.ConfigError, match="scenario"):
        tcgjax.make("deployment", scenario=scenario)


def test_config_file_with_a_duplicate_key(tmp_path):
    path = tmp_path / "ppo.yaml"
    path.write_text("num_envs: 16\nlr: 0.001\nnum_envs: 32\n")
    with pytest.raises(tcgjax.ConfigError, match=r"ppo\.yaml.*duplicate key 'num_envs'"):
        load_config(str(path))


def test_json_state_with_a_duplicate_key(duel_env):
    text = tcgjax.to_json(duel_env, jax.jit(duel_env.init)(jax.random.PRNGKey(0)))
    data = json.loads(text)
    assert tcgjax.from_json(duel_env, text) is not None
    doubled = text[:-1] + ', "envId": ' + json.dumps(data["envId"]) + "}"
    with pytest.raises(tcgjax.SerializationError, match="duplicate key 'envId'"):
        tcgjax.from_json(duel_env, doubled)
