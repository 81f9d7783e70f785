import os
import sys
from pathlib import Path

import pytest

# tests/ helpers (synth, doubles) import as plain modules
sys.path.insert(0, str(Path(__file__).parent))

#: the `sandbox` fixture (the local provider's private Xvfb) of the runner and guest-service tests
pytest_plugins = ["local_sandbox"]

#: scripts/test.sh sets this: its setup installs every tool and package the tests use, so a test
#: that skips there (a missing simulator, browser, database or package) is a failure, not a
#: quiet gap in the run. Only the VM tests may be opted out, with SIMBRIDGE_VM_TESTS=0.
STRICT_SKIPS = os.environ.get("SIMBRIDGE_STRICT_SKIPS") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report = outcome.get_result()
    if not (STRICT_SKIPS and report.skipped) or hasattr(report, "wasxfail"):
        return
    if os.environ.get("SIMBRIDGE_VM_TESTS") == "0" and item.nodeid.startswith("tests/vm/"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = f"skipped where scripts/test.sh installed everything it needs: {reason}"


@pytest.fixture(scope="module")
def sdl_offscreen():
    """pygame in the test process draws off-screen (SDL's dummy video driver) for one module,
    then the environment is as it was: a process-wide SDL_VIDEODRIVER=dummy would follow every
    later test into the simulators it launches."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SDL_VIDEODRIVER", "dummy")
        mp.setenv("SDL_AUDIODRIVER", "dummy")
        yield


#: tests that share an expensive or exclusive resource run in one pytest-xdist group (one worker,
#: in order): one FlightGear at a time (two software-rendered FlightGears on 2 cores halve each
#: other's frame rate), the VM guest image (built once, booted by each VM test), the report's
#: session-scoped bundles. Every other module is its own group, so a module's fixtures are made once.
_SHARED_GROUPS = {"flightgear": "flightgear", "vm": "vm"}
_DIR_GROUPS = {"tests/vm/": "vm", "tests/report/": "report"}
#: the groups that take longest start first, so the last worker does not finish alone on one
_FIRST = ("flightgear", "vm")


def _xdist_group(item: pytest.Item) -> str:
    for marker, group in _SHARED_GROUPS.items():
        if item.get_closest_marker(marker) is not None:
            return group
    for prefix, group in _DIR_GROUPS.items():
        if item.nodeid.startswith(prefix):
            return group
    return item.nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(pytest.mark.xdist_group(_xdist_group(item)))
    rank = {group: i for i, group in enumerate(_FIRST)}
    items.sort(key=lambda item: rank.get(_xdist_group(item), len(_FIRST)))
