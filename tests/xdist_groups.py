"""How the tests are shared out on pytest-xdist's workers (scripts/test.sh: `-n 3 --dist loadgroup`).

A group's tests run on one worker, in order, so a module's fixtures are made once (one FlightGear
launch for the tests of a FlightGear module, the T06 reference drive for both tests that read
it). Every module is its own group, except the VM tests (one guest at a time: a software-emulated
guest takes both cores), the report tests (session-scoped bundles shared by their modules) and the
FlightGear reference trials (each test its own launch, so each its own group).
FlightGear modules may run beside each other: their tests assert on simulator time, not on the
frame rate.

CI's machine has two cores and three workers: at most two groups that compute run at once (one
per core, as with two workers), and the third worker takes only groups that mostly wait (a
double in real time, a browser, a database, a timeout), which two workers left to the end, with
a core idle beside them.

The groups are worked out from test ids by the scheduler below, not by `xdist_group` marks:
pytest-xdist 3.8 marks a group by rewriting `item._nodeid`, which pytest 9 no longer reads, so
those marks grouped nothing (every test went its own way, and module fixtures were made on both
workers). `tests/test_xdist_groups.py` runs real two- and three-worker sessions to keep this true.
"""

from __future__ import annotations

import pytest

_DIR_GROUPS = {"tests/vm/": "vm", "tests/report/": "report"}
#: modules whose tests share no fixture and are each a group of their own: one FlightGear launch and
#: one reference trial each, minutes long, which two workers can run side by side
_TEST_GROUPS = ("tests/adapters/flightgear/test_fg_reference_trials.py",)
_TRIALS = f"{_TEST_GROUPS[0]}::test_reference_pilot_solves_the_task_on_flightgear"
#: the longest groups are handed out first (longest processing time first), so no worker starts
#: a long group when the others are nearly done; the figures are the sums of each group's test
#: durations in seconds (CI's `--durations` on an idle 2-core machine). Groups not named here
#: follow, in collection order.
_LONGEST_FIRST = {
    "vm": 500,
    "tests/adapters/flightgear/test_fg_t10.py": 490,
    # the reference trials, measured two at a time on the idle machine
    f"{_TRIALS}[T10]": 535,
    f"{_TRIALS}[T05@PHJR]": 490,
    f"{_TRIALS}[T02@PHJR]": 465,
    f"{_TRIALS}[T03@PHJR]": 375,
    f"{_TRIALS}[P14@PHJR]": 295,
    f"{_TRIALS}[T11@PHJR]": 260,
    f"{_TRIALS}[P13@PHJR]": 115,
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
    module = nodeid.split("::", 1)[0]
    return nodeid if module in _TEST_GROUPS else module


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # the workers' collection order is the order in which groups are handed out
    items.sort(key=lambda item: -_LONGEST_FIRST.get(_xdist_group(item.nodeid), 0))


#: groups that mostly wait rather than compute: CPU / wall below 0.3 when measured alone, the CPU of
#: the module's whole process tree (a cgroup's `cpuacct.usage`: Ray's and a browser's daemons are
#: not the runner's children) — a cockpit or a double in real time, a guest door's timeout. A
#: worker beyond the first `_BUSY_AT_ONCE` runs only these. `scripts/test_timeline.py` shows a
#: run's figures per group.
_WAITING: frozenset[str] = frozenset(
    {
        "tests/redteam/test_redteam_jsbsim.py",  # 78 s, CPU 0.12 of wall
        "tests/adapters/xplane/test_session_e2e.py",  # 74 s, 0.04
        "tests/adapters/jsbsim/test_session_x11.py",  # 50 s, 0.24
        "tests/eval/test_eval_ray_token.py",  # 48 s, 0.15
        "tests/adapters/xplane/test_runner_e2e.py",  # 34 s, 0.14
        "tests/redteam/test_redteam_drive.py",  # 25 s, 0.25
        "tests/guest/test_guest_doors.py",  # 24 s, 0.00
        "tests/adapters/jsbsim/test_cockpit_x11.py",  # 14 s, 0.18
        "tests/adapters/msfs/test_session.py",  # 13 s, 0.10
        "tests/adapters/flightgear/test_fg_engine_wait.py",  # 11 s, 0.02 (a telnet double)
        "tests/adapters/xplane/test_clients.py",
        "tests/adapters/msfs/test_client.py",
        "tests/adapters/msfs/test_recording_rate.py",
        "tests/adapters/flightgear/test_fg_proto.py",
        "tests/kit/test_kit_basics.py",
        "tests/adapters/jsbsim/test_cockpit_process.py",
    }
)
#: groups that compute, at once: one per core (FlightGear's software rendering counts as computing)
_BUSY_AT_ONCE = 2


def _busy(group: str) -> bool:
    return group not in _WAITING


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        """LoadScopeScheduling with `_xdist_group` as the scope, handed out in collection order, and
        at most `_BUSY_AT_ONCE` busy groups at once: a worker with a core free takes the first busy
        group in the queue, a worker beyond them the first waiting group, or it holds its last test
        (xdist runs a test once it knows the next) until a busy group ends; with no waiting group
        left it is shut down instead."""

        def _split_scope(self, nodeid: str) -> str:
            return _xdist_group(nodeid)

        def _busy_elsewhere(self, node) -> int:
            """Other workers with a busy group not yet done (a worker runs its groups in turn)."""
            return sum(
                any(_busy(scope) and not all(tests.values()) for scope, tests in work.items())
                for other, work in self.assigned_work.items()
                if other is not node
            )

        def _assign_work_unit(self, node) -> None:
            # a free core goes to the first busy group; otherwise, or when none is left, the first waiting one
            room = self._busy_elsewhere(node) < _BUSY_AT_ONCE
            busy = next((s for s in self.workqueue if _busy(s)), None) if room else None
            scope = busy or next((s for s in self.workqueue if not _busy(s)), None)
            if scope is None:
                if not room:
                    # no waiting group is left (scope is None) and two busy groups run, whose
                    # workers take the rest: this one ends now, so its held last test runs and that
                    # module's fixtures go (a drive world held for 22 min spent 0.15 of a core)
                    node.shutdown()
                return
            self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

        def mark_test_complete(self, node, item_index: int, duration: float = 0) -> None:
            super().mark_test_complete(node, item_index, duration)
            for other in self.nodes:  # a busy group that ended makes room for a held worker
                if other is not node:
                    self._reschedule(other)

    config.option.loadscopereorder = False  # not by number of tests: by _LONGEST_FIRST, then as collected
    return GroupScheduling(config, log)
