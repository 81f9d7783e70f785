"""Derived events, the failure plan and its event schema, the record-only stall guard."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from simbridge._events import validate_event
from simbridge._task import FailureSpec, FailureTrigger, load_task
from simbridge.adapters.kit import DerivedEvents, FailurePlan, StallGuard, draw_height


def _feed(d: DerivedEvents, rows):
    return [e for t, v in rows for e in d.update(t, v)]


def test_crash_is_reported_once_when_the_flag_rises_with_the_reason():
    d = DerivedEvents(crash_reason=lambda: "tail strike")
    ev = _feed(d, [(0.0, {"crashed": 0.0}), (0.1, {"crashed": 1.0}), (0.2, {"crashed": 1.0})])
    assert [(e.t_sim, e.kind, e.data) for e in ev] == [(0.1, "crash", {"crashed": 1.0, "reason": "tail strike"})]
    validate_event("crash", ev[0].data)


def test_a_first_sample_already_crashed_or_engaged_makes_no_event():
    assert _feed(DerivedEvents(), [(0.0, {"crashed": 1.0, "autopilot_on": 1.0, "on_ground": 1.0})]) == []


def test_autopilot_change_carries_every_mode_now():
    ev = _feed(
        DerivedEvents(),
        [
            (0.0, {"autopilot_on": 0.0, "ap_hdg": 0.0}),
            (1.0, {"autopilot_on": 1.0, "ap_hdg": 0.0}),
            (2.0, {"autopilot_on": 1.0, "ap_hdg": 0.0}),
            (3.0, {"autopilot_on": 1.0, "ap_hdg": 1.0}),
        ],
    )
    assert [(e.t_sim, e.data) for e in ev] == [
        (1.0, {"autopilot_on": 1.0, "ap_hdg": 0.0}),
        (3.0, {"autopilot_on": 1.0, "ap_hdg": 1.0}),
    ]


def test_touchdown_after_airborne_with_the_sink_rate_before_contact():
    rows = [
        (0.0, {"on_ground": 1.0, "vs_fpm": 0.0}),
        (1.0, {"on_ground": 0.0, "vs_fpm": 500.0}),
        (2.0, {"on_ground": 0.0, "vs_fpm": -350.0}),
        (3.0, {"on_ground": 1.0, "vs_fpm": -20.0}),
        (4.0, {"on_ground": 1.0, "vs_fpm": 0.0}),
    ]
    ev = _feed(DerivedEvents(), rows)
    assert [(e.t_sim, e.kind, e.data) for e in ev] == [(3.0, "touchdown", {"vs_fpm": -350.0})]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from([0.0, 1.0]), st.floats(-2000, 2000)), min_size=1, max_size=40))
def test_touchdowns_match_ground_contacts(rows):
    d = DerivedEvents()
    ev = _feed(d, [(float(i), {"on_ground": g, "vs_fpm": vs}) for i, (g, vs) in enumerate(rows)])
    contacts = sum(1 for a, b in zip(rows, rows[1:]) if a[0] == 0.0 and b[0] == 1.0)
    assert len([e for e in ev if e.kind == "touchdown"]) == contacts


def _t11():
    return load_task("T11")


def test_plan_draws_the_trigger_from_task_and_seed_and_injects_once_airborne_above_it():
    task = _t11()
    plan = FailurePlan.from_task(task, 7, {"engine": "/engine/serviceable"})  # T11: engine at 400-1200 ft
    (f,) = plan.failures
    assert f.drawn_from_agl_ft == (400.0, 1200.0) and f.target == "/engine/serviceable"
    assert f.trigger_agl_ft == draw_height(task.id, 7, 400, 1200) and 400 <= f.trigger_agl_ft <= 1200
    assert FailurePlan.from_task(task, 7, {"engine": "x"}).failures[0].trigger_agl_ft == f.trigger_agl_ft
    assert FailurePlan.from_task(task, 8, {"engine": "x"}).failures[0].trigger_agl_ft != f.trigger_agl_ft
    assert plan.due(0.0, {"on_ground": 1.0, "alt_agl_ft": 5000.0}) == []  # never airborne: a parked tower
    assert plan.due(10.0, {"on_ground": 0.0, "alt_agl_ft": f.trigger_agl_ft - 1}) == []
    due = plan.due(20.0, {"on_ground": 0.0, "alt_agl_ft": f.trigger_agl_ft + 3.04})
    assert f in due
    ev = plan.event(f, 20.0, {"alt_agl_ft": f.trigger_agl_ft + 3.04}, dataref="d", value=6.0)
    data = validate_event(ev.kind, ev.data)
    assert data.trigger_agl_ft == round(f.trigger_agl_ft, 1) and data.agl_ft == round(f.trigger_agl_ft + 3.04, 1)
    assert data.drawn_from_agl_ft == [400.0, 1200.0] and f not in plan.pending


def test_plan_lists_systems_the_simulator_cannot_fail_and_times_without_height():
    task = _t11()
    extra = [
        FailureSpec(system="vacuum_pump", trigger=FailureTrigger(after_s=30)),
        FailureSpec(system="engine", trigger=FailureTrigger(after_s=30)),
    ]
    plan = FailurePlan.from_task(task, 1, {"engine": "e"}, extra=extra)
    assert "failure of 'vacuum_pump'" in plan.unsupported
    (timed,) = [p for p in plan.failures if p.after_s == 30]
    assert timed not in plan.due(29.9, {"on_ground": 1.0}) and timed in plan.due(30.0, {"on_ground": 1.0})


def test_old_jsbsim_failure_payload_reads_as_trigger_and_actual():
    old = validate_event("failure_injected", {"system": "engine", "agl_ft": 612.4, "actual_agl_ft": 615.0})
    new = validate_event("failure_injected", {"system": "engine", "trigger_agl_ft": 612.4, "agl_ft": 615.0})
    assert (old.trigger_agl_ft, old.agl_ft) == (new.trigger_agl_ft, new.agl_ft) == (612.4, 615.0)


def test_stall_guard_names_a_silent_stream_and_a_clock_that_does_not_advance():
    g = StallGuard(10.0, stale_after_s=5.0, source="RREF stream")
    assert g.check(time.monotonic(), 0.0) is None
    assert "no data from the RREF stream for" in g.check(time.monotonic() - 6.0, 1.0)
    assert "simulator time reached 2.0 s of 10 s" in StallGuard(10.0, wall_budget_s=0.0).check(None, 2.0)


def test_missing_values_make_no_events_and_keep_the_last_good_one():
    """An aircraft without an autopilot reports NaN for it: that must not be a change per sample."""
    from simbridge.adapters.kit import DerivedEvents

    d = DerivedEvents()
    nan = float("nan")
    assert d.update(0.0, {"autopilot_on": nan, "on_ground": 0.0, "vs_fpm": -300.0}) == []
    assert d.update(0.1, {"autopilot_on": nan, "on_ground": nan, "vs_fpm": nan}) == []
    assert d.update(0.2, {"autopilot_on": nan, "on_ground": 0.0, "vs_fpm": -250.0}) == []
    [td] = d.update(0.3, {"autopilot_on": nan, "on_ground": 1.0, "vs_fpm": 0.0})
    assert td.kind == "touchdown" and td.data["vs_fpm"] == -250.0
    assert d.update(0.4, {"autopilot_on": 0.0}) == []  # first good value: nothing to compare with
    [ap] = d.update(0.5, {"autopilot_on": 1.0})
    assert ap.kind == "autopilot_change"
