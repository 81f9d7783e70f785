"""Helpers of the framework-integration tests: processes this test started, the cockpit among them."""

from __future__ import annotations

import os
import shutil

import pytest

needs_xvfb = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed")


def children() -> list:
    """Live descendants of this test process (the episode's Xvfb, cockpit, helpers)."""
    import psutil

    out = []
    for p in psutil.Process(os.getpid()).children(recursive=True):
        try:
            if p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


def cockpits() -> list:
    """The JSBSim cockpit processes this test started."""
    import psutil

    found = []
    for p in children():
        try:
            if "simbridge.adapters.jsbsim.cockpit" in " ".join(p.cmdline()):
                found.append(p)
        except psutil.NoSuchProcess:
            pass
    return found
