"""Failure trigger times drawn per (task, seed) and the injection time in the event."""

from __future__ import annotations

from types import SimpleNamespace

from simbridge._events import FailureInjectedData
from simbridge.adapters.kit.failures import FailurePlan


def _task(trigger: SimpleNamespace, task_id: str = "P01") -> SimpleNamespace:
    f = SimpleNamespace(system="vacuum", trigger=trigger, injected_by="harness")
    return SimpleNamespace(id=task_id, initial_state=SimpleNamespace(failures=[f]))


def _trigger(**kw) -> SimpleNamespace:
    base = {"agl_ft": None, "agl_ft_between": None, "after_s": None, "after_s_between": None}
    return SimpleNamespace(**{**base, **kw})


def test_a_drawn_trigger_time_is_reproducible_per_seed_and_lies_in_its_range():
    times = {}
    for seed in range(20):
        plan = FailurePlan.from_task(_task(_trigger(after_s_between=(30.0, 90.0))), seed, {"vacuum": "x"})
        (p,) = plan.failures
        assert 30.0 <= p.after_s <= 90.0
        assert p.drawn_from_after_s == (30.0, 90.0)
        again = FailurePlan.from_task(_task(_trigger(after_s_between=(30.0, 90.0))), seed, {"vacuum": "x"})
        assert again.failures[0].after_s == p.after_s
        times[seed] = p.after_s
    assert len(set(times.values())) > 15  # seeds draw different times


def test_the_event_records_the_injection_time_and_the_drawn_time():
    plan = FailurePlan.from_task(_task(_trigger(after_s_between=(10.0, 20.0))), 7, {"vacuum": "x"})
    (p,) = plan.failures
    assert plan.due(p.after_s - 0.5, {"on_ground": 0.0, "alt_agl_ft": 3000.0}) == []
    (due,) = plan.due(p.after_s + 0.01, {"on_ground": 0.0, "alt_agl_ft": 3000.0})
    ev = plan.event(due, p.after_s + 0.01, {"alt_agl_ft": 3000.0}, detail={"side": "L"})
    data = FailureInjectedData.model_validate(ev.data)
    assert data.t == round(p.after_s + 0.01, 3)
    assert data.after_s == p.after_s
    assert data.drawn_from_after_s == [10.0, 20.0]
    assert data.detail == {"side": "L"}
    assert data.agl_ft == 3000.0
