"""Where a test run's time goes, per test: which worker, when, and how much CPU.

With SIMBRIDGE_TEST_TIMELINE=FILE, every test (setup, call and teardown together) appends one
JSON line to FILE: its id, its scheduling group (xdist_groups), the worker, the wall-clock start
and end, and the CPU seconds the worker process and its reaped children spent on it. Lines are
short single `write`s in append mode, so two workers can share the file. `scripts/test_timeline.py`
turns the file into the per-group wall and CPU table, and the number of tests running at each
moment — which groups keep a core busy and which only wait (a simulator in real time, a timeout).
"""

from __future__ import annotations

import json
import os
import resource
import time

import pytest
from xdist_groups import _xdist_group

_FILE = os.environ.get("SIMBRIDGE_TEST_TIMELINE")


def _cpu_s() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    if not _FILE:
        yield
        return
    start_s, cpu0 = time.time(), _cpu_s()
    yield
    line = {
        "test": item.nodeid,
        "group": _xdist_group(item.nodeid),
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        "start_s": round(start_s, 3),
        "end_s": round(time.time(), 3),
        "cpu_s": round(_cpu_s() - cpu0, 3),
    }
    fd = os.open(_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(line) + "\n").encode())
    finally:
        os.close(fd)
