"""How the tests are shared out on pytest-xdist's workers (scripts/test.sh: `-n 2 --dist loadgroup`).

A group's tests run on one worker, in order, so a module's fixtures are made once (one FlightGear
launch for the tests of a FlightGear module, the T06 reference drive for both tests that read
it). Every module is its own group, except the VM tests (one guest at a time: a software-emulated
guest takes both cores) and the report tests (session-scoped bundles shared by their modules).
FlightGear modules may run beside each other: their tests assert on simulator time, not on the
frame rate.

The groups are worked out from test ids by the scheduler below, not by `xdist_group` marks:
pytest-xdist 3.8 marks a group by rewriting `item._nodeid`, which pytest 9 no longer reads, so
those marks grouped nothing (every test went its own way, and module fixtures were made on both
workers). `tests/test_xdist_groups.py` runs a real two-worker session to keep this true.
"""

from __future__ import annotations

import pytest

_DIR_GROUPS = {"tests/vm/": "vm", "tests/report/": "report"}
#: the longest groups are handed out first (longest processing time first), so no worker starts
#: a long group when the others are nearly done; the figures are the sums of each group's test
#: durations in seconds (CI's `--durations` on an idle 2-core machine). Groups not named here
#: follow, in collection order.
_LONGEST_FIRST = {
    "vm": 500,
    "tests/adapters/flightgear/test_fg_t10.py": 490,
    "tests/adapters/flightgear/test_fg_t09_t16.py": 290,
    "tests/adapters/flightgear/test_fg_t15.py": 170,
    "tests/adapters/flightgear/test_fg_real.py": 165,
    "tests/agents/test_drive_reference_episodes.py": 170,
    "tests/agents/test_drive_park_crossing_episodes.py": 120,
    "tests/adapters/flightgear/test_fg_t03_t08_t11.py": 330,
    "tests/redteam/test_redteam_flightgear.py": 150,
    "tests/agents/test_forced_landing_pilots.py": 200,
    "tests/agents/test_cruise_forced_landing_pilots.py": 270,
    "tests/agents/test_approach_poh_pilots.py": 180,
    "tests/agents/test_approach_fire_door_pilots.py": 300,
    "tests/agents/test_pattern_pilot.py": 160,
    "tests/agents/test_poh_pilots.py": 135,
    "tests/agents/test_landing_pilots.py": 200,
    "tests/agents/test_site_variant_pilots.py": 100,
    "tests/agents/test_partial_panel_pilots.py": 95,
    "tests/agents/test_go_around_pilot.py": 45,
    "tests/agents/test_reference_episodes.py": 130,
    "tests/runner/test_stall.py": 115,
    "tests/adapters/xplane/test_session_e2e.py": 75,
    "tests/redteam/test_redteam_jsbsim.py": 75,
    "tests/runner/test_runner_toy.py": 75,
    "tests/adapters/flightgear/test_fg_poh.py": 57,
    "tests/adapters/flightgear/test_fg_launch_failures.py": 50,
}


def _xdist_group(nodeid: str) -> str:
    for prefix, group in _DIR_GROUPS.items():
        if nodeid.startswith(prefix):
            return group
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # the workers' collection order is the order in which groups are handed out
    items.sort(key=lambda item: -_LONGEST_FIRST.get(_xdist_group(item.nodeid), 0))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        """LoadScopeScheduling with `_xdist_group` as the scope, handed out in collection order."""

        def _split_scope(self, nodeid: str) -> str:
            return _xdist_group(nodeid)

    config.option.loadscopereorder = False  # not by number of tests: by _LONGEST_FIRST, then as collected
    return GroupScheduling(config, log)
