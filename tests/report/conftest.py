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


@pytest.fixture(scope="session")
def suite_report(suite_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """(suite page, its text) written by `simbridge report DIR --out`, episode pages beside it:
    written once for the page tests and the browser test (nine episode pages take a while)."""
    from simbridge._cli import main

    out = tmp_path_factory.mktemp("suite-html") / "suite.html"
    assert main(["report", str(suite_dir), "--out", str(out)]) == 0
    return out, out.read_text()
