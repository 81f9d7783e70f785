"""Shared bits of the browser tests: Debian's chromium driven by Playwright (no `playwright
install`), a page opener that records console errors, and where screenshots go."""

from __future__ import annotations

import os
from pathlib import Path

from support.browser import ARGS, CHROMIUM, launch_chromium, needs_chromium

__all__ = ["ARGS", "ARTIFACTS", "CHROMIUM", "launch_chromium", "needs_chromium", "open_page", "screenshot"]

#: screenshots of the browser tests (git-ignored); SIMBRIDGE_REPORT_ARTIFACTS overrides
ARTIFACTS = Path(os.environ.get("SIMBRIDGE_REPORT_ARTIFACTS", Path(__file__).resolve().parent / "artifacts"))


def open_page(browser, url: str, ready: str, *, timeout_ms: int = 30_000):
    """A new page at `url`, waited until the JS expression `ready` holds; (page, errors, requests)."""
    errors: list[str] = []
    requests: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(url)
    page.wait_for_function(ready, timeout=timeout_ms)
    return page, errors, requests


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    out = ARTIFACTS / name
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(out), full_page=True)
    return out
