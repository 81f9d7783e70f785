"""Shared fixtures of the framework-integration tests: the real JSBSim cockpit runs in a private
Xvfb started by the runner's local provider; `no_leftovers` checks nothing is left running."""

from __future__ import annotations

import pytest

from integrations.helpers import children


@pytest.fixture
def no_leftovers():
    """Fails the test when a process it started is still alive after it (polled, not slept)."""
    import psutil

    before = {p.pid for p in children()}
    yield
    left = [p for p in children() if p.pid not in before]
    gone, alive = psutil.wait_procs(left, timeout=15)
    assert not alive, f"left running: {[' '.join(p.cmdline())[:120] for p in alive]}"
