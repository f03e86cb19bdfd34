"""``PPOConfig`` / ``load_config`` validation: every bad key, type or value is a ConfigError that
names the key (and the file it came from); overrides parse as YAML scalars."""

import dataclasses
import os

import pytest
import yaml

from tcgjax import ConfigError
from tcgjax.train import config as config_module
from tcgjax.train.checkpoint import config_to_dict
from tcgjax.train.config import CONFIG_DIR, PPOConfig, load_config


def _error(overrides=(), path=None) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path, list(overrides))
    return str(info.value)


def test_defaults_are_valid_and_frozen():
    config = load_config()
    assert config == PPOConfig()
    assert config.num_updates == config.total_timesteps // (config.num_envs * config.num_steps)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.lr = 0.1  # type: ignore[misc]
    with pytest.raises(TypeError):
        config.env_options["scenario"] = "walls"  # read-only mapping


def test_unknown_key_is_named():
    message = _error(["learning_rate=0.1"])
    assert "'learning_rate'" in message and "unknown config key" in message


@pytest.mark.parametrize(
    "override, key",
    [
        ("lr=fast", "lr"),
        ("num_envs=2.5", "num_envs"),
        ("anneal_lr=1", "anneal_lr"),  # an int is not a bool
        ("clip_value=yes please", "clip_value"),
        ("seed=true", "seed"),  # a bool is not an int
        ("hidden_sizes=[64, 0]", "hidden_sizes"),
        ("hidden_sizes=64", "hidden_sizes"),
        ("env_id=3", "env_id"),
        ("env_options=walls", "env_options"),
        ("gamma=[0.9]", "gamma"),
    ],
)
def test_wrong_type_names_the_key(override, key):
    message = _error([override])
    assert f"'{key}'" in message and "expected" in message


@pytest.mark.parametrize(
    "override, key",
    [
        ("num_envs=0", "num_envs"),
        ("total_timesteps=-5", "total_timesteps"),
        ("update_epochs=0", "update_epochs"),
        ("num_minibatches=0", "num_minibatches"),
        ("eval_games=0", "eval_games"),
        ("snapshot_pool_size=0", "snapshot_pool_size"),
        ("opponent=mirror", "opponent"),
        ("gamma=1.5", "gamma"),
        ("gae_lambda=-0.1", "gae_lambda"),
    ],
)
def test_bad_value_names_the_key(override, key):
    assert f"'{key}'" in _error([override])


def test_minibatches_must_divide_the_batch():
    message = _error(["num_envs=10", "num_steps=3", "num_minibatches=4"])
    assert "'num_minibatches'" in message and "30" in message
    config = load_config(None, ["num_envs=10", "num_steps=3", "num_minibatches=5"])
    assert config.minibatch_size == 6


def test_override_without_equals_sign():
    assert "key=value" in _error(["lr"])


def test_overrides_parse_as_yaml_scalars():
    config = load_config(
        None,
        [
            "lr=0.0003",
            "num_envs=64",
            "anneal_lr=false",
            "hidden_sizes=[64, 32]",
            "env_id=duel",
            "max_grad_norm=1",  # an int where a float is expected is accepted as a float
            "env_options.max_steps=50",
            "env_options.illegal_action=lose",
        ],
    )
    assert config.lr == pytest.approx(3e-4) and isinstance(config.lr, float)
    assert config.num_envs == 64 and config.anneal_lr is False
    assert config.hidden_sizes == (64, 32)
    assert config.env_id == "duel"
    assert config.max_grad_norm == 1.0 and isinstance(config.max_grad_norm, float)
    assert dict(config.env_options) == {"max_steps": 50, "illegal_action": "lose"}


def test_later_override_wins():
    assert load_config(None, ["seed=1", "seed=2"]).seed == 2


def test_exponent_without_dot_is_a_float():
    """PyYAML (YAML 1.1) reads '3e-4' as a string; the config still takes it as a float."""
    assert load_config(None, ["lr=3e-4"]).lr == pytest.approx(3e-4)
    with pytest.raises(ConfigError, match="'lr'"):
        load_config(None, ["lr=fast"])


def test_to_dict_round_trips():
    config = load_config("deployment", ["env_options.scenario=walls"])
    data = config.to_dict()
    assert data["env_options"] == {"scenario": "walls"} and data["hidden_sizes"] == [128, 128]
    assert (
        PPOConfig(**{k: (tuple(v) if k == "hidden_sizes" else v) for k, v in data.items()})
        == config
    )


def test_yaml_file_with_unknown_key_names_key_and_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("lr: 0.001\nnum_env: 16\n")
    message = _error(path=str(path))
    assert "'num_env'" in message and str(path) in message


def test_yaml_file_with_wrong_type_names_key_and_file(tmp_path):
    path = tmp_path / "typed.yaml"
    path.write_text("num_envs: 2.5\n")
    message = _error(path=str(path))
    assert "'num_envs'" in message and str(path) in message


def test_yaml_file_errors(tmp_path):
    missing = tmp_path / "missing.yaml"
    assert str(missing) in _error(path=str(missing))
    not_mapping = tmp_path / "list.yaml"
    not_mapping.write_text("- lr\n- 0.1\n")
    assert "mapping" in _error(path=str(not_mapping))
    broken = tmp_path / "broken.yaml"
    broken.write_text("lr: [0.1\n")
    assert "YAML" in _error(path=str(broken))


def test_file_then_overrides(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("num_envs: 32\nnum_steps: 16\nlr: 0.01\nenv_options: {scenario: walls}\n")
    config = load_config(str(path), ["lr=0.02", "env_options.max_steps=40"])
    assert (config.num_envs, config.num_steps, config.lr) == (32, 16, 0.02)
    assert dict(config.env_options) == {"scenario": "walls", "max_steps": 40}


def test_config_name_resolves_in_config_dir(tmp_path, monkeypatch):
    (tmp_path / "mine.yaml").write_text("num_envs: 8\nnum_minibatches: 2\n")
    monkeypatch.setattr(config_module, "CONFIG_DIR", str(tmp_path))
    config = load_config("mine")
    assert (config.num_envs, config.num_minibatches) == (8, 2)
    assert "nope.yaml" in _error(path="nope")


def test_dict_round_trips_through_yaml(tmp_path):
    """What ``tcgjax.train.run`` writes to config.yaml loads back to the same config (``--resume``)."""
    config = load_config(
        None, ["hidden_sizes=[16, 8]", "env_options.scenario=walls", "opponent=random"]
    )
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config_to_dict(config), sort_keys=False))
    assert load_config(str(path)) == config


def test_every_opponent_kind_is_accepted_and_others_named():
    for opponent in ("self", "random", "heuristic", "mixed", "snapshot"):
        assert load_config(None, [f"opponent={opponent}"]).opponent == opponent
    with pytest.raises(ConfigError, match="'opponent' = 'bot'"):
        load_config(None, ["opponent=bot"])


@pytest.mark.parametrize(
    "override, key",
    [
        ("lr=nan", "lr"),
        ("lr=.inf", "lr"),
        ("lr=-0.001", "lr"),
        ("clip_eps=-0.2", "clip_eps"),
        ("clip_eps=nan", "clip_eps"),
        ("ent_coef=-1", "ent_coef"),
        ("ent_coef=inf", "ent_coef"),
        ("vf_coef=-0.5", "vf_coef"),
        ("max_grad_norm=nan", "max_grad_norm"),
        ("max_grad_norm=-1", "max_grad_norm"),
        ("gamma=nan", "gamma"),
        ("gae_lambda=nan", "gae_lambda"),
        ("eval_every=0", "eval_every"),
        ("eval_every=-3", "eval_every"),
        ("checkpoint_every=0", "checkpoint_every"),
        ("checkpoint_every=-1", "checkpoint_every"),
        ("seed=-1", "seed"),
        ("seed=4294967296", "seed"),
        ("num_envs=2147483648", "num_envs"),
        ("total_timesteps=10000000000", "total_timesteps"),
        ("snapshot_every=0", "snapshot_every"),
        ("sgd_fraction=0", "sgd_fraction"),
        ("sgd_fraction=1.5", "sgd_fraction"),
        ("sgd_fraction=nan", "sgd_fraction"),
        ("sgd_fraction=-0.5", "sgd_fraction"),
    ],
)
def test_every_numeric_field_is_range_checked(override, key):
    message = _error([override])
    assert f"'{key}'" in message, message


def test_sgd_fraction_sets_the_sgd_batch_in_whole_minibatches():
    full = load_config(None, ["num_envs=10", "num_steps=3", "num_minibatches=5"])
    assert (full.sgd_batch, full.minibatch_size) == (30, 6)
    # 0.5 * 30 = 15 transitions, rounded down to a multiple of 5 minibatches... 15 is one.
    half = load_config(
        None, ["num_envs=10", "num_steps=3", "num_minibatches=5", "sgd_fraction=0.5"]
    )
    assert (half.sgd_batch, half.minibatch_size) == (15, 3)
    # 0.45 * 30 = 13.5 -> 13 -> 10: two transitions a minibatch.
    cut = load_config(
        None, ["num_envs=10", "num_steps=3", "num_minibatches=5", "sgd_fraction=0.45"]
    )
    assert (cut.sgd_batch, cut.minibatch_size) == (10, 2)
    assert load_config(None, ["sgd_fraction=1"]).sgd_batch == load_config(None).sgd_batch
    message = _error(["num_envs=10", "num_steps=3", "num_minibatches=5", "sgd_fraction=0.1"])
    assert "'sgd_fraction'" in message and "num_minibatches = 5" in message


def test_batch_of_one_update_must_fit_int32():
    assert "one update's batch" in _error(["num_envs=65536", "num_steps=65536"])


def test_boundaries_that_are_valid():
    config = load_config(None, ["lr=0", "ent_coef=0", "max_grad_norm=0", "clip_eps=0", "seed=0"])
    assert (config.lr, config.ent_coef, config.max_grad_norm) == (0.0, 0.0, 0.0)
    assert load_config(None, ["eval_every=null"]).eval_every is None
    assert load_config(None, ["eval_every=1", "checkpoint_every=1"]).checkpoint_every == 1


@pytest.mark.parametrize(
    "override",
    [
        "lr=[0.1",
        "hidden_sizes=[64, 32",
        "env_options={a: 1",
        "lr=: 0.1",
        "env_options={a: 1, a: 2}",
    ],
)
def test_override_with_a_yaml_error_names_the_override(override):
    message = _error([override])
    assert message.startswith(f"override {override!r}"), message


def test_every_shipped_config_loads():
    names = sorted(f[: -len(".yaml")] for f in os.listdir(CONFIG_DIR) if f.endswith(".yaml"))
    assert {"deployment_gpu", "digimon_gpu", "duel_gpu", "pokemon_gpu"} <= set(names)
    for name in names:
        config = load_config(name)
        assert config.env_id in name, name
