"""Fixtures for the report tests: bundles built by tests/report/bundles.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from report.bundles import build_suite, build_t09


@pytest.fixture(scope="session")
def t09_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_t09(tmp_path_factory.mktemp("report") / "t09")


@pytest.fixture(scope="session")
def suite_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_suite(tmp_path_factory.mktemp("suite") / "eval")
