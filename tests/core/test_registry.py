"""``tcgjax.make`` / ``available_envs`` / ``register``."""

import pytest

import tcgjax
from tcgjax.core.errors import ConfigError


def test_available_envs_lists_duel():
    assert "duel" in tcgjax.available_envs()
    assert list(tcgjax.available_envs()) == sorted(tcgjax.available_envs())


def test_make_returns_an_env_with_options():
    env = tcgjax.make("duel", illegal_action="lose", max_steps=50)
    assert isinstance(env, tcgjax.Env)
    assert env.options == {"illegal_action": "lose", "max_steps": 50}


def test_unknown_env_id_lists_available():
    with pytest.raises(ConfigError, match="unknown env id 'dueling'.*duel"):
        tcgjax.make("dueling")


def test_unknown_option_is_named():
    with pytest.raises(ConfigError, match="unknown option 'seed'"):
        tcgjax.make("duel", seed=3)


@pytest.mark.parametrize(
    "options, match",
    [
        ({"illegal_action": "ignore"}, "illegal_action='ignore'"),
        ({"max_steps": 0}, "max_steps=0"),
        ({"max_steps": 2.5}, "max_steps=2.5"),
        ({"max_steps": True}, "max_steps=True"),
    ],
)
def test_bad_option_values_are_named(options, match):
    with pytest.raises(ConfigError, match=match):
        tcgjax.make("duel", **options)


def test_register_rejects_duplicates_and_bad_entry_points():
    with pytest.raises(ConfigError, match="already registered"):
        tcgjax.register("duel", "tcgjax.games.duel.env:DuelEnv")
    with pytest.raises(ConfigError, match="entry point"):
        tcgjax.register("another", "no_colon_here")


def test_errors_share_one_base():
    for cls in (
        tcgjax.ConfigError,
        tcgjax.CardDataError,
        tcgjax.IllegalActionError,
        tcgjax.SerializationError,
        tcgjax.ReplayError,
    ):
        assert issubclass(cls, tcgjax.TcgjaxError)
