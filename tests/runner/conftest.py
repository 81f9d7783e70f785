"""Fixtures for the runner, provider and agent-port tests: a private Xvfb, torn down after each test."""

from __future__ import annotations

import pytest

from simbridge._providers import LocalProvider


@pytest.fixture
def sandbox(tmp_path):
    provider = LocalProvider()
    sb = provider.start(tmp_path / "sandbox")
    try:
        yield sb
    finally:
        provider.stop()
