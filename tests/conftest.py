import os
import sys
from pathlib import Path

import pytest

# tests/ helpers (synth, doubles) import as plain modules
sys.path.insert(0, str(Path(__file__).parent))

#: the `sandbox` fixture (the local provider's private Xvfb) of the runner and guest-service tests;
#: how the tests are grouped on pytest-xdist's workers (xdist_groups.py); where the time goes (timeline.py)
pytest_plugins = ["local_sandbox", "xdist_groups", "timeline"]

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
