"""Events derived from canonical samples: crash, autopilot change, touchdown.

Every simulator reports its state as canonical signals (simbridge.canonical); what happened
*between* samples is computed here, once, the same way for every adapter:

- `crash`: `crashed` rises through 0.5 (payload `CrashData`; the reason from the adapter's
  `crash_reason` callback when the simulator can say why);
- `autopilot_change`: any of the autopilot signals (`AP_SIGNALS`) the sample carries changes;
  the payload holds all of them as they are now (`AutopilotChangeData`);
- `touchdown`: `on_ground` rises through 0.5 after the vehicle was seen airborne (`vs_fpm` of
  the last airborne sample, where it sinks fastest just before contact; `TouchdownData`).

A signal's first value never makes an event (there is nothing to compare it with), so the
episode's initial state (parked on the ground, autopilot off) is not reported as a change. A
missing value (NaN: a property the aircraft does not have, a telemetry gap) is no value at all:
it neither makes an event nor replaces the last good one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from simbridge.sim import SimEvent

#: autopilot signals whose changes are `autopilot_change` events
AP_SIGNALS = ("autopilot_on", "ap_hdg", "ap_nav", "ap_alt", "ap_apr")


class DerivedEvents:
    """Feed it each new sample in time order; it returns the events that sample completes."""

    def __init__(self, *, crash_reason: Callable[[], str | None] | None = None, touchdown: bool = True) -> None:
        self._crash_reason = crash_reason
        self._touchdown = touchdown
        self._last: dict[str, float] = {}
        self._airborne_vs_fpm: float | None = None

    def update(self, t_sim: float, values: Mapping[str, float]) -> list[SimEvent]:
        """The events between the previous sample and this one (at this sample's time)."""
        last = self._last
        values = {k: v for k, v in values.items() if v is not None and math.isfinite(v)}
        out: list[SimEvent] = []
        crashed = values.get("crashed")
        if crashed is not None and crashed >= 0.5 and last.get("crashed", 1.0) < 0.5:
            data: dict[str, object] = {"crashed": crashed}
            reason = self._crash_reason() if self._crash_reason is not None else None
            if reason:
                data["reason"] = reason
            out.append(SimEvent(t_sim, "crash", data))
        if any(k in values and k in last and values[k] != last[k] for k in AP_SIGNALS):
            out.append(SimEvent(t_sim, "autopilot_change", {k: values[k] for k in AP_SIGNALS if k in values}))
        on_ground = values.get("on_ground")
        if self._touchdown and on_ground is not None:
            if on_ground < 0.5:
                vs = values.get("vs_fpm")
                self._airborne_vs_fpm = float(vs) if vs is not None else float("nan")
            elif self._airborne_vs_fpm is not None and last.get("on_ground", 1.0) < 0.5:
                vs_fpm = self._airborne_vs_fpm
                out.append(SimEvent(t_sim, "touchdown", {"vs_fpm": None if vs_fpm != vs_fpm else round(vs_fpm, 1)}))
                self._airborne_vs_fpm = None
        self._last.update(values)
        return out


__all__ = ["AP_SIGNALS", "DerivedEvents"]
