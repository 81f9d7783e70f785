"""The installed version of simbridge. The one place it is written is pyproject.toml; this reads
it back from the package metadata that installing (also `pip install -e .`) generates."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def installed_version() -> str:
    """The version in the installed distribution's metadata, or "unknown" when run uninstalled
    from a source tree (no metadata to read, and no second copy of the number to fall back on)."""
    try:
        return version("simbridge")
    except PackageNotFoundError:
        return "unknown"


__version__ = installed_version()
