"""The report's dependency floors are the versions its tests run with: pyproject's floors for
plotly, imageio-ffmpeg and playwright were raised to what is tested rather than tested at older
releases, so an environment below a floor is a setup error, not a silent pass."""

from __future__ import annotations

import importlib.metadata as md
import re
from pathlib import Path

import pytest
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["plotly", "imageio-ffmpeg", "playwright"])
def test_installed_version_meets_the_floor(name):
    m = re.search(rf'"{re.escape(name)}>=([0-9][0-9.]*)"', (ROOT / "pyproject.toml").read_text())
    assert m, f"pyproject.toml has no floor for {name}"
    try:
        installed = md.version(name)
    except md.PackageNotFoundError:
        pytest.skip(f"{name} is not installed")
    assert Version(installed) >= Version(m.group(1)), f"{name} {installed} is below pyproject's floor {m.group(1)}"
