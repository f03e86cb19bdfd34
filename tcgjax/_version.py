"""The package version, in one place (read by pyproject.toml at build time and by ``tcgjax.__version__``)."""

__version__ = "0.1.0"
