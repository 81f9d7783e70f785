"""One failure-injection plan for every adapter, and one `failure_injected` event schema.

A task's harness-injected failures (`initial_state.failures` with `injected_by: harness`) are
planned once at `start`: a trigger height drawn from `agl_ft_between` is drawn here, reproducibly
from (task id, seed), so a re-run of a seed fails the engine at the same height in every
simulator; a trigger time drawn from `after_s_between` (when the task's trigger has one) is
drawn the same way (`draw_time`). The adapter feeds each canonical sample to `FailurePlan.due`; a failure is due once
the vehicle has been airborne, is at or above its trigger height and past its `after_s`. The
adapter applies it (a property or dataref write) and records `FailurePlan.event(...)`, whose
payload is `simbridge.sim.FailureInjectedData`: `t` the simulator time of the injection,
`trigger_agl_ft` the planned height, `agl_ft` the height at which it was actually injected,
`after_s` the planned time (with `drawn_from_after_s` when it was drawn).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from simbridge.sim import SimEvent

if TYPE_CHECKING:
    from simbridge import FailureSpec, TaskSpec


def draw_height(task_id: str, seed: int | None, lo: float, hi: float) -> float:
    """The trial's trigger height: uniform in [lo, hi], reproducible from (task, seed)."""
    return random.Random(f"{task_id}:{seed}").uniform(lo, hi)


def draw_time(task_id: str, seed: int | None, system: str, lo: float, hi: float) -> float:
    """The trial's trigger time (simulator s): uniform in [lo, hi], reproducible from
    (task, seed, system); a stream of its own, so it does not follow the drawn height."""
    return round(random.Random(f"{task_id}:{seed}:after_s:{system}").uniform(lo, hi), 1)


@dataclass
class PlannedFailure:
    """One failure to inject: when (height and/or time) and, once done, when it happened."""

    system: str
    trigger_agl_ft: float | None = None
    after_s: float | None = None
    drawn_from_agl_ft: tuple[float, float] | None = None
    drawn_from_after_s: tuple[float, float] | None = None
    #: the adapter's own target (a property path, a dataref), for the record
    target: str | None = None
    injected_at_t: float | None = None
    injected_agl_ft: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The plan as episode info / snapshots record it."""
        return {
            "system": self.system,
            "trigger_agl_ft": _r(self.trigger_agl_ft),
            "after_s": self.after_s,
            "drawn_from_agl_ft": list(self.drawn_from_agl_ft) if self.drawn_from_agl_ft else None,
            "drawn_from_after_s": list(self.drawn_from_after_s) if self.drawn_from_after_s else None,
            "target": self.target,
            "injected_at_t": self.injected_at_t,
        }


@dataclass
class FailurePlan:
    """The harness-injected failures of one episode."""

    failures: list[PlannedFailure] = field(default_factory=list)
    #: failures the task asks for that this simulator cannot inject ("failure of 'x'")
    unsupported: list[str] = field(default_factory=list)
    _airborne: bool = False

    @classmethod
    def from_task(
        cls, task: "TaskSpec", seed: int | None, targets: Mapping[str, str], extra: Iterable["FailureSpec"] = ()
    ) -> "FailurePlan":
        """Plan `task`'s harness failures (plus `extra`) that have a target in `targets`
        (system -> the adapter's property/dataref); the rest are listed in `unsupported`."""
        plan = cls()
        for f in [*task.initial_state.failures, *extra]:
            if f.injected_by != "harness":
                continue
            if f.system not in targets:
                plan.unsupported.append(f"failure of {f.system!r}")
                continue
            trig = f.trigger
            p = PlannedFailure(f.system, target=targets[f.system], after_s=trig.after_s)
            after_between = getattr(trig, "after_s_between", None)
            if after_between is not None:
                lo, hi = after_between
                p.after_s = draw_time(task.id, seed, f.system, lo, hi)
                p.drawn_from_after_s = (float(lo), float(hi))
            if trig.agl_ft_between is not None:
                lo, hi = trig.agl_ft_between
                p.trigger_agl_ft, p.drawn_from_agl_ft = draw_height(task.id, seed, lo, hi), (float(lo), float(hi))
            elif trig.agl_ft is not None:
                p.trigger_agl_ft = float(trig.agl_ft)
            if p.trigger_agl_ft is None and p.after_s is None:
                p.after_s = 0.0
            plan.failures.append(p)
        return plan

    @property
    def pending(self) -> list[PlannedFailure]:
        return [f for f in self.failures if f.injected_at_t is None]

    def due(self, t_sim: float, values: Mapping[str, float]) -> list[PlannedFailure]:
        """The pending failures this sample triggers (the caller injects them, then `event`s)."""
        if values.get("on_ground", 1.0) < 0.5:
            self._airborne = True
        out = []
        for f in self.pending:
            if f.after_s is not None and t_sim < f.after_s:
                continue
            if f.trigger_agl_ft is not None:
                agl = values.get("alt_agl_ft")
                if not self._airborne or agl is None or agl < f.trigger_agl_ft:
                    continue
            out.append(f)
        return out

    def event(self, f: PlannedFailure, t_sim: float, values: Mapping[str, float], **extra: Any) -> SimEvent:
        """Mark `f` injected at this sample and return its `failure_injected` event."""
        f.injected_at_t = t_sim
        agl = values.get("alt_agl_ft")
        f.injected_agl_ft = float(agl) if agl is not None else None
        data: dict[str, Any] = {
            "system": f.system,
            "t": round(float(t_sim), 3),
            "trigger_agl_ft": _r(f.trigger_agl_ft),
            "agl_ft": _r(agl),
            "after_s": f.after_s,
            "drawn_from_agl_ft": list(f.drawn_from_agl_ft) if f.drawn_from_agl_ft else None,
            "drawn_from_after_s": list(f.drawn_from_after_s) if f.drawn_from_after_s else None,
        }
        data.update(extra)
        return SimEvent(t_sim, "failure_injected", {k: v for k, v in data.items() if v is not None})


def _r(v: float | None) -> float | None:
    return None if v is None else round(float(v), 1)


__all__ = ["FailurePlan", "PlannedFailure", "draw_height", "draw_time"]
