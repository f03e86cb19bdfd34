"""Fuzzing ``tcgjax.train.config.load_config`` (Hypothesis): config files and ``key=value`` overrides that
are valid documents with one field mutated (wrong types, huge integers, 5000-digit integers, deep
nesting, broken YAML) give a :class:`tcgjax.ConfigError` or a config that keeps every documented
rule, never another exception. Parsing and validation only: nothing is built or compiled."""

import dataclasses
import math
import os
import tempfile
from collections.abc import Mapping

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tcgjax import ConfigError
from tcgjax.train.config import CONFIG_DIR, NETWORKS, OPPONENTS, PPOConfig, load_config

FIELDS = [f.name for f in dataclasses.fields(PPOConfig)]
SIZES = (
    "num_seeds",
    "total_timesteps",
    "num_envs",
    "num_steps",
    "update_epochs",
    "num_minibatches",
    "snapshot_pool_size",
    "snapshot_every",
    "eval_games",
    "embed_dim",
)
INT32 = 2**31

# Raw YAML texts that no dumper writes: they go into the document as they are.
HUGE_DIGITS = "9" * 5000
RAW_TEXTS = [
    HUGE_DIGITS,
    "-" + HUGE_DIGITS,
    "0." + HUGE_DIGITS,
    "1e400",
    "-1e400",
    ".nan",
    ".inf",
    "-.inf",
    "[" * 600 + "]" * 600,  # past the parser's recursion limit (about 500 levels)
    "{a: " * 600 + "1" + "}" * 600,
    "{a: 1, a: 2}",
    "[1, [2, {b: 3, b: 4}]]",
    "2024-13-45",
    "'unclosed",
    "*alias",
    "!!python/object:os.system x",
    "0x7fffffff",
    "0o17",
    "1_000",
    "~",
]

JSONABLE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.sampled_from([2**31 - 1, 2**31, 2**32, 2**63, 2**70, -(2**70), 0, -1])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def check_invariants(config: PPOConfig) -> None:
    """Every rule ``PPOConfig`` documents (train/README.md, config.py) holds."""
    for name in SIZES:
        value = getattr(config, name)
        assert type(value) is int and 0 < value < INT32, (name, value)
    assert type(config.seed) is int and 0 <= config.seed and config.seed + config.num_seeds <= 2**32
    for name in ("eval_every", "checkpoint_every"):
        value = getattr(config, name)
        assert value is None or (type(value) is int and value > 0), (name, value)
    for name in ("lr", "clip_eps", "ent_coef", "vf_coef", "max_grad_norm"):
        value = getattr(config, name)
        assert type(value) is float and math.isfinite(value) and value >= 0, (name, value)
    for name in ("gamma", "gae_lambda"):
        value = getattr(config, name)
        assert type(value) is float and 0.0 <= value <= 1.0, (name, value)
    assert config.sgd_fraction is None or (
        type(config.sgd_fraction) is float and 0.0 < config.sgd_fraction <= 1.0
    )
    assert type(config.hidden_sizes) is tuple
    assert all(type(h) is int and 0 < h < INT32 for h in config.hidden_sizes)
    assert config.network in NETWORKS and config.opponent in OPPONENTS
    assert type(config.anneal_lr) is bool and type(config.clip_value) is bool
    assert type(config.env_id) is str and type(config.run_dir) is str
    assert isinstance(config.env_options, Mapping)
    assert all(type(k) is str for k in config.env_options)
    assert config.num_envs * config.num_steps < INT32
    assert (config.num_envs * config.num_steps) % config.num_minibatches == 0


def expected(name: str, value):
    """What ``load_config`` must hold for ``name`` when it accepts ``value`` of the field's own
    type (ints for floats widened; lists for ``hidden_sizes`` as tuples); None: no exact claim."""
    default = getattr(PPOConfig(), name)
    if isinstance(default, bool) or isinstance(value, bool):
        return value if type(value) is type(default) else None
    if isinstance(default, float) and type(value) in (int, float):
        return float(value)
    if name == "hidden_sizes" and isinstance(value, list):
        return tuple(value)
    if name in ("eval_every", "checkpoint_every", "sgd_fraction") and value is None:
        return None
    if type(value) is type(default) and not isinstance(value, dict | list):
        return value
    return None


def outcome(load):
    try:
        config = load()
    except ConfigError as exc:
        message = str(exc)
        assert message, "an empty message"
        return None
    check_invariants(config)
    return config


with open(os.path.join(CONFIG_DIR, "deployment.yaml"), encoding="utf-8") as fh:
    BASE = yaml.safe_load(fh)  # a valid document: the shipped default config


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(
    name=st.sampled_from(FIELDS + ["env_options.max_steps", "env_options.", "not_a_key"]),
    value=JSONABLE,
    raw=st.none() | st.sampled_from(RAW_TEXTS),
    via=st.sampled_from(["file", "override"]),
)
def test_fuzz_one_mutated_field_gives_a_config_error_or_a_valid_config(name, value, raw, via):
    if via == "override":
        text = (
            raw if raw is not None else yaml.safe_dump(value, default_flow_style=True, width=10**9)
        )
        text = text.removesuffix("\n").removesuffix("\n...").strip()
        config = outcome(lambda: load_config(None, [f"{name}={text}"]))
    else:
        document = {k: v for k, v in BASE.items()}
        marker = "__fuzz_raw__"
        if name.startswith("env_options."):
            document["env_options"] = {**document.get("env_options", {}), "max_steps": marker}
        else:
            document[name] = marker
        text = yaml.safe_dump(document, default_flow_style=False, width=10**9)
        shown = (
            raw if raw is not None else yaml.safe_dump(value, default_flow_style=True, width=10**9)
        )
        shown = shown.removesuffix("\n").removesuffix("\n...").strip()
        text = text.replace(marker, shown)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "config.yaml")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            config = outcome(lambda: load_config(path))
    if config is not None and raw is None and name in FIELDS:
        want = expected(name, value)
        if want is not None:
            got = getattr(config, name)
            assert got == want or (isinstance(want, float) and math.isnan(want)), (name, got, want)


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(
    text=st.one_of(
        st.sampled_from(RAW_TEXTS),
        st.text(max_size=40),
        st.integers(1, 700).map(lambda n: "[" * n + "]" * n),
        st.integers(1, 700).map(lambda n: "a:\n" + "".join(" " * i + "- \n" for i in range(n))),
    )
)
def test_fuzz_whole_config_files_give_a_config_error_or_a_valid_config(text):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "config.yaml")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        outcome(lambda: load_config(path))
        with open(path, "wb") as fh:
            fh.write(b"\xff\xfe" + text.encode("utf-8", "surrogatepass"))
        outcome(lambda: load_config(path))
