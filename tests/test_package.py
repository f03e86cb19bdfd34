"""The package as users meet it: one version, the namespace (nothing but ``tcgjax`` at top level),
the trainer's module entry point, the compilation cache's default and switches, and Gymnasium ids
registered by ``import tcgjax``. Each check runs in a fresh interpreter started outside the
checkout, where only the installed package can be imported (the wheel itself is built, installed
and used in a fresh venv by ``make wheel-check``, which CI runs after the suite)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

import pytest

import tcgjax

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _python(code: str, cwd, **env) -> str:
    """Run ``code`` in a new interpreter in ``cwd`` with ``env`` added (a None value removes the
    variable); returns its stdout (stderr on failure, in the assertion)."""
    environ = {
        k: v for k, v in os.environ.items() if not k.startswith(("JAX_COMPILATION", "TCGJAX_"))
    }
    for key, value in env.items():
        if value is None:
            environ.pop(key, None)
        else:
            environ[key] = value
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_version_has_one_source():
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as fh:
        project = tomllib.load(fh)
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "tcgjax._version.__version__"
    }
    assert tcgjax.__version__ == tcgjax._version.__version__
    assert os.path.isfile(os.path.join(os.path.dirname(tcgjax.__file__), "py.typed"))


def test_only_the_tcgjax_namespace_is_installed():
    """The trainer and its configs are ``tcgjax.train`` and package data of ``tcgjax``: a user's
    own ``train.py`` (here, in the working folder) shadows nothing."""
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as fh:
        project = tomllib.load(fh)
    assert project["tool"]["setuptools"]["packages"]["find"]["include"] == ["tcgjax*"]


def test_a_users_own_train_module_does_not_shadow_the_trainer(tmp_path):
    (tmp_path / "train.py").write_text("raise RuntimeError('the user module was imported')\n")
    out = _python(
        "import tcgjax.train.opponents as o, tcgjax.train.config as c, os\n"
        "print(o.heuristic_policy.__module__, os.path.isfile(os.path.join(c.CONFIG_DIR, 'duel.yaml')))",
        tmp_path,
    )
    assert out.splitlines()[-1] == "tcgjax.train.opponents True"


def test_python_m_tcgjax_train_is_the_training_job(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "tcgjax.train", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m tcgjax.train")
    done = subprocess.run(
        [sys.executable, "-m", "tcgjax.train", "--env", "duel", "no_such_key=1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and "no_such_key" in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []  # a refused config writes nothing


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"HOME": "{tmp}/home", "XDG_CACHE_HOME": None}, "{tmp}/home/.cache/tcgjax/jax"),
        ({"XDG_CACHE_HOME": "{tmp}/xdg"}, "{tmp}/xdg/tcgjax/jax"),
        ({"TCGJAX_CACHE_DIR": "{tmp}/mine", "XDG_CACHE_HOME": "{tmp}/xdg"}, "{tmp}/mine"),
        ({"JAX_COMPILATION_CACHE_DIR": "{tmp}/jax", "TCGJAX_CACHE_DIR": "{tmp}/mine"}, "{tmp}/jax"),
        ({"TCGJAX_COMPILATION_CACHE": "off", "TCGJAX_CACHE_DIR": "{tmp}/mine"}, "None"),
        ({"TCGJAX_COMPILATION_CACHE": "0"}, "None"),
    ],
)
def test_compilation_cache_default_and_switches(tmp_path, env, expected):
    """On by default in the user's cache folder; ``$TCGJAX_CACHE_DIR`` moves it; a folder the user
    gave JAX is kept; ``TCGJAX_COMPILATION_CACHE=0|off`` leaves JAX's cache off. A jitted program
    that takes long enough to compile is then written there."""
    env = {k: (None if v is None else v.format(tmp=tmp_path)) for k, v in env.items()}
    out = _python(
        "import tcgjax, jax\n"
        "jax.config.update('jax_persistent_cache_min_compile_time_secs', 0)\n"
        "jax.jit(lambda x: x * 2 + 1)(jax.numpy.arange(3)).block_until_ready()\n"
        "print(tcgjax.compilation_cache.cache_dir())",
        tmp_path,
        **env,
    )
    expected = expected.format(tmp=tmp_path)
    assert out.splitlines()[-1] == expected
    if expected != "None":
        assert os.listdir(expected), "no program was written to the cache"


def test_gymnasium_make_works_after_import_tcgjax(tmp_path):
    out = _python(
        "import gymnasium, tcgjax\n"
        "env = gymnasium.make('tcgjax/Duel-v0')\n"
        "observation, info = env.reset(seed=1)\n"
        "print(env.spec.id, observation['observation'].shape, int(info['action_mask'].sum()) > 0)",
        tmp_path,
    )
    assert out.splitlines()[-1] == "tcgjax/Duel-v0 (56,) True"
