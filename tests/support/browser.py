"""Debian's chromium as the browser tests launch it through Playwright (no `playwright install`;
scripts/setup.sh installs both): where it is, its launch arguments, and the mark that skips a
test on a machine without it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
#: headless, no sandbox (the tests run as root in a container), and nothing that reaches the network
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (scripts/setup.sh)")


def launch_chromium(pw: Any) -> Any:
    """A browser from a `sync_playwright()` context: Debian's chromium with `ARGS`."""
    return pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
