"""Training config: a frozen, typed dataclass loaded from ``configs/ppo/*.yaml`` plus overrides.

Every key is known and typed: an unknown key, a wrong type or a bad value raises
:class:`tcgjax.ConfigError` naming the key (and the file). Command-line overrides are ``key=value``
strings parsed as YAML scalars (``lr=3e-4``, ``env_options.scenario=walls``).
"""

from __future__ import annotations

import dataclasses
import math
import os
import reprlib
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

import tcgjax
from tcgjax.core.errors import ConfigError
from tcgjax.core.files import DuplicateKeyError, yaml_loads

__all__ = ["PPOConfig", "load_config", "short_repr", "CONFIG_DIR"]

# The package data of tcgjax (tcgjax/configs is the repository's configs/ folder), so the same path
# holds in a source checkout and in an installed wheel.
CONFIG_DIR = os.path.join(os.path.dirname(tcgjax.__file__), "configs", "ppo")
INT32_LIMIT = 2**31
OPPONENTS = ("self", "random", "heuristic", "mixed", "snapshot", "league")
# What a league's env slots face (opponent="league", tcgjax.train.league), in slot order.
LEAGUE_OPPONENTS = ("self", "snapshot", "heuristic", "random")
NETWORKS = ("mlp", "card_embedding")
ACTION_DESIGNS = ("flat", "unmasked", "factored", "pointer")  # tcgjax.train.designs
CRITICS = ("shared", "player", "omniscient")
# Integer keys that size arrays, loops or counters on the device: > 0 and < 2**31.
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
    "max_invalid",
)


class _ShortRepr(reprlib.Repr):
    """``reprlib`` whose ints beyond Python's int-to-text limit (4300 digits) are described, not
    printed (``repr`` of those raises ``ValueError``)."""

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 14_000:  # ~4,200 digits
            return f"<an int of {x.bit_length()} bits>"
        return super().repr_int(x, level)


_SHORT = _ShortRepr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 3, 60, 60, 40


def short_repr(value: Any) -> str:
    """``repr(value)`` for an error message: bounded in length and depth, never raising (an int of
    5000 digits or a list nested 10,000 deep is described, not printed)."""
    return _SHORT.repr(value)


@dataclasses.dataclass(frozen=True)
class PPOConfig:
    """Masked PPO hyperparameters (PureJaxRL names where they exist).

    The env batch is ``num_envs``; one update consumes ``num_envs * num_steps`` env steps.
    """

    env_id: str = "deployment"
    env_options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    seed: int = 0
    num_seeds: int = 1  # jax.vmap(train) over this many seeds
    total_timesteps: int = 2_000_000
    num_envs: int = 256
    num_steps: int = 64
    update_epochs: int = 4
    num_minibatches: int = 4
    # Share of a rollout's transitions the SGD phase keeps, the learner's own (weight 1) first in
    # random order: against a scripted or frozen opponent about half the transitions are the
    # opponent's (weight 0) and cost a forward and backward pass for nothing. None keeps them all.
    sgd_fraction: float | None = None
    lr: float = 1e-3
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_eps: float = 0.2
    clip_value: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden_sizes: tuple[int, ...] = (256, 256)
    network: str = "mlp"  # mlp | card_embedding (envs that declare card-id slices)
    embed_dim: int = 32  # card embedding width for network="card_embedding"
    # How the policy chooses among action ids (tcgjax.train.designs): flat | unmasked | factored | pointer.
    action_design: str = "flat"
    # The value function: "shared" (one torso with the policy), or a torso of its own on the
    # acting player's view ("player") or on every card face up ("omniscient", training only).
    critic: str = "shared"
    # unmasked: the reward (<= 0) an illegal choice gives its actor, and the refused choices in
    # one decision after which the actor forfeits (so that every episode ends).
    invalid_penalty: float = -0.1
    max_invalid: int = 8
    # pointer: candidates listed per decision (null: the game's measured maximum of legal ids,
    # tcgjax.train.designs.MAX_LEGAL_ACTIONS); decisions with more legal ids are counted.
    max_options: int | None = None
    opponent: str = "self"  # self | random | heuristic | mixed | snapshot | league
    snapshot_pool_size: int = 4  # frozen snapshots for opponent="snapshot" or "league"
    # opponent="league": the share of env slots facing each of LEAGUE_OPPONENTS (a key left out
    # is 0; the shares sum to 1): the learner itself in both seats, a frozen snapshot chosen by
    # prioritized fictitious self-play, the scripted heuristic, random play.
    league_shares: Mapping[str, float] = dataclasses.field(
        default_factory=lambda: {"self": 0.25, "snapshot": 0.5, "random": 0.25}
    )
    # PFSP: a snapshot's weight is (1 - the learner's win rate against it) ** pfsp_power (0:
    # uniform; AlphaStar's "hard" weighting used 2).
    pfsp_power: float = 2.0
    snapshot_every: int = 10  # updates between snapshots
    eval_games: int = 2000
    # Evaluate against the game's shipped baseline too (tcgjax/train/baselines/<game>: the
    # CPU-trained agent the GPU configs must beat); it must read this run's observation and ids.
    eval_baseline: bool = False
    eval_every: int | None = None  # updates between evaluations (None = only at the end)
    checkpoint_every: int | None = None  # updates between checkpoints (None = only at the end)
    run_dir: str = "runs"

    def __post_init__(self):
        for f in dataclasses.fields(self):
            _check_type(f.name, getattr(self, f.name), _hints()[f.name])
        for name in SIZES:
            if getattr(self, name) <= 0:
                raise ConfigError(
                    f"config key {name!r} = {short_repr(getattr(self, name))}: must be > 0"
                )
        for name in ("eval_every", "checkpoint_every"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ConfigError(
                    f"config key {name!r} = {short_repr(value)}: must be > 0 (null = only at the end)"
                )
        # Sizes become int32 array dimensions, loop bounds or counters on the device.
        for name in SIZES:
            if getattr(self, name) >= INT32_LIMIT:
                raise ConfigError(
                    f"config key {name!r} = {short_repr(getattr(self, name))}: must be < 2**31"
                )
        for size in self.hidden_sizes:
            if size >= INT32_LIMIT:
                raise ConfigError(
                    f"config key 'hidden_sizes' = {short_repr(list(self.hidden_sizes))}: each "
                    "size must be < 2**31"
                )
        if self.num_envs * self.num_steps >= INT32_LIMIT:
            raise ConfigError(
                f"config key 'num_envs' * 'num_steps' = {self.num_envs * self.num_steps}: one "
                "update's batch must be < 2**31 transitions"
            )
        # Seeds are jax.random.key(seed + i) for i < num_seeds: uint32 seeds, non-negative here.
        if not 0 <= self.seed or self.seed + self.num_seeds > 2**32:
            raise ConfigError(
                f"config key 'seed' = {short_repr(self.seed)}: must be >= 0 with seed + num_seeds "
                "<= 2**32"
            )
        # Non-negative finite reals; a NaN fails every comparison, so test finiteness first.
        for name in ("lr", "clip_eps", "ent_coef", "vf_coef", "max_grad_norm"):
            value = getattr(self, name)
            if not _finite(value) or value < 0:
                raise ConfigError(
                    f"config key {name!r} = {short_repr(value)}: must be finite and >= 0"
                )
        if (self.num_envs * self.num_steps) % self.num_minibatches:
            raise ConfigError(
                f"config key 'num_minibatches' = {self.num_minibatches}: must divide "
                f"num_envs * num_steps = {self.num_envs * self.num_steps}"
            )
        if self.sgd_fraction is not None:
            if not 0.0 < self.sgd_fraction <= 1.0:  # False for NaN too
                raise ConfigError(
                    f"config key 'sgd_fraction' = {short_repr(self.sgd_fraction)}: must be in "
                    "(0, 1] (null keeps every transition)"
                )
            if self.sgd_batch < self.num_minibatches:
                raise ConfigError(
                    f"config key 'sgd_fraction' = {self.sgd_fraction!r}: keeps fewer transitions "
                    f"than num_minibatches = {self.num_minibatches}"
                )
        if self.network not in NETWORKS:
            raise ConfigError(
                f"config key 'network' = {short_repr(self.network)}: one of {NETWORKS}"
            )
        if self.action_design not in ACTION_DESIGNS:
            raise ConfigError(
                f"config key 'action_design' = {short_repr(self.action_design)}: one of "
                f"{ACTION_DESIGNS}"
            )
        if self.critic not in CRITICS:
            raise ConfigError(f"config key 'critic' = {short_repr(self.critic)}: one of {CRITICS}")
        if not _finite(self.invalid_penalty) or self.invalid_penalty > 0:
            raise ConfigError(
                f"config key 'invalid_penalty' = {short_repr(self.invalid_penalty)}: must be "
                "finite and <= 0 (a reward for an illegal choice)"
            )
        if self.max_options is not None and not 0 < self.max_options < INT32_LIMIT:
            raise ConfigError(
                f"config key 'max_options' = {short_repr(self.max_options)}: must be > 0 and "
                "< 2**31 (null: the game's measured maximum)"
            )
        if self.opponent not in OPPONENTS:
            raise ConfigError(
                f"config key 'opponent' = {short_repr(self.opponent)}: one of {OPPONENTS}"
            )
        self._check_league()
        for name in ("gamma", "gae_lambda"):
            if not 0.0 <= getattr(self, name) <= 1.0:  # False for NaN too
                raise ConfigError(
                    f"config key {name!r} = {short_repr(getattr(self, name))}: must be in [0, 1]"
                )
        for key in self.env_options:
            if not isinstance(key, str):
                raise ConfigError(
                    f"config key 'env_options': option name {short_repr(key)} is not a string"
                )
        object.__setattr__(self, "env_options", types.MappingProxyType(dict(self.env_options)))
        object.__setattr__(self, "league_shares", types.MappingProxyType(dict(self.league_shares)))

    def _check_league(self) -> None:
        for key, share in self.league_shares.items():
            if key not in LEAGUE_OPPONENTS:
                raise ConfigError(
                    f"config key 'league_shares': unknown opponent {short_repr(key)}: one of "
                    f"{LEAGUE_OPPONENTS}"
                )
            if isinstance(share, bool) or not isinstance(share, int | float):
                raise ConfigError(
                    f"config key 'league_shares.{key}' = {short_repr(share)}: expected a number"
                )
            if not _finite(share) or share < 0:
                raise ConfigError(
                    f"config key 'league_shares.{key}' = {short_repr(share)}: must be finite and "
                    ">= 0"
                )
        total = sum(self.league_shares.values())
        if abs(total - 1.0) > 1e-6:
            raise ConfigError(
                f"config key 'league_shares' = {short_repr(dict(self.league_shares))}: the shares "
                f"sum to {total:.6g}, not 1"
            )
        if not _finite(self.pfsp_power) or self.pfsp_power < 0:
            raise ConfigError(
                f"config key 'pfsp_power' = {short_repr(self.pfsp_power)}: must be finite and >= 0"
            )

    @property
    def num_updates(self) -> int:
        return max(self.total_timesteps // (self.num_envs * self.num_steps), 1)

    @property
    def sgd_batch(self) -> int:
        """Transitions one epoch of SGD uses: all ``num_envs * num_steps``, or ``sgd_fraction`` of
        them rounded down to a multiple of ``num_minibatches``."""
        total = self.num_envs * self.num_steps
        if self.sgd_fraction is None:
            return total
        return int(self.sgd_fraction * total) // self.num_minibatches * self.num_minibatches

    @property
    def minibatch_size(self) -> int:
        return self.sgd_batch // self.num_minibatches

    def to_dict(self) -> dict[str, Any]:
        """Plain, YAML/JSON-ready dict (``env_options`` as a dict, tuples as lists)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["env_options"] = dict(self.env_options)
        out["league_shares"] = dict(self.league_shares)
        out["hidden_sizes"] = list(self.hidden_sizes)
        return out


def _finite(value: float) -> bool:
    """``math.isfinite`` that is False for an int too large for a float (instead of raising)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _hints():
    return typing.get_type_hints(PPOConfig)


def _check_type(name: str, value: Any, hint: Any) -> None:
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):  # ``int | None``: None, or the other member
        if value is None:
            return
        (hint,) = [h for h in typing.get_args(hint) if h is not type(None)]
        origin = typing.get_origin(hint)
    if hint is bool:
        ok = isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif hint is str:
        ok = isinstance(value, str)
    elif origin is tuple:
        ok = isinstance(value, tuple) and all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value
        )
    elif origin is Mapping or hint is Mapping:
        ok = isinstance(value, Mapping)
    else:
        ok = True
    if not ok:
        raise ConfigError(f"config key {name!r} = {short_repr(value)}: expected {hint}")


def _coerce(name: str, value: Any) -> Any:
    hint = _hints()[name]
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            raise ConfigError(
                f"config key {name!r} = {short_repr(value)}: too large for a float"
            ) from None
    if hint is float and isinstance(value, str):
        # YAML 1.1 reads "3e-4" (no dot) as a string; accept what Python reads as a float.
        try:
            return float(value)
        except ValueError:
            return value
    if typing.get_origin(hint) is tuple and isinstance(value, list):
        return tuple(value)
    return value


def load_config(path: str | None = None, overrides: Sequence[str] = ()) -> PPOConfig:
    """Build a :class:`PPOConfig` from an optional YAML file (a path or a name in ``configs/ppo``)
    and ``key=value`` overrides (YAML scalars; ``env_options.KEY=value`` for env options).

    Raises:
      ConfigError: unreadable file, unknown key, wrong type or value; names the key and the source.
    """
    data: dict[str, Any] = {}
    source = "<defaults>"
    if path is not None:
        if not os.path.splitext(path)[1] and os.sep not in path:
            path = os.path.join(CONFIG_DIR, path + ".yaml")
        source = os.path.normpath(path)
        try:
            with open(path, encoding="utf-8") as fh:
                loaded = yaml_loads(fh.read())
        except OSError as exc:
            raise ConfigError(f"{source}: cannot read config: {exc.strerror}") from exc
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{source}: not UTF-8 text: {exc}") from exc
        except DuplicateKeyError as exc:
            raise ConfigError(f"{source}: {exc}") from exc
        except yaml.YAMLError as exc:
            raise ConfigError(f"{source}: not valid YAML: {exc}") from exc
        except RecursionError:
            raise ConfigError(f"{source}: not a config: nested too deeply") from None
        except ValueError as exc:  # an int past 4300 digits, a date like 2024-13-45
            raise ConfigError(f"{source}: a value cannot be read: {exc}") from None
        if loaded is None:
            loaded = {}  # an empty file: every key at its default
        if not isinstance(loaded, Mapping):
            raise ConfigError(f"{source}: top level must be a mapping of config keys")
        data.update(loaded)
    known = {f.name for f in dataclasses.fields(PPOConfig)}
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"override {short_repr(item)}: expected key=value")
        key, raw = item.split("=", 1)
        shown = short_repr(item)
        try:
            value = yaml_loads(raw)
        except (yaml.YAMLError, DuplicateKeyError) as exc:
            problem = str(exc).replace("\n", " ")
            raise ConfigError(f"override {shown}: the value is not valid YAML: {problem}") from None
        except RecursionError:
            raise ConfigError(f"override {shown}: the value is nested too deeply") from None
        except ValueError as exc:  # an int past 4300 digits, a date like 2024-13-45
            raise ConfigError(f"override {shown}: the value cannot be read: {exc}") from None
        if key.startswith("env_options."):
            option = key.split(".", 1)[1]
            if not option:
                raise ConfigError(f"override {shown}: no option name after 'env_options.'")
            options = data.setdefault("env_options", {})
            if not isinstance(options, Mapping):
                raise ConfigError(
                    f"override {shown}: config key 'env_options' = {short_repr(options)} is not "
                    "a mapping of options"
                )
            data["env_options"] = {**options, option: value}
        else:
            data[key] = value
    for key in data:
        if key not in known:
            raise ConfigError(
                f"{source}: unknown config key {short_repr(key)}; known: {sorted(known)}"
            )
    try:
        return PPOConfig(**{k: _coerce(k, v) for k, v in data.items()})
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
