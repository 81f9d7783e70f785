"""The `sandbox` fixture of the runner and guest-service tests: the `local` provider's private
Xvfb, torn down after each test; tests/conftest.py loads it as a plugin."""

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
