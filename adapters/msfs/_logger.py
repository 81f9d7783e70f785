"""SimVars per sim frame -> StateSamples and the events derived from them.

One data definition holds the clock (SIMULATION TIME), the canonical rows and the touchdown
SimVars; RequestDataOnSimObject with period SIM_FRAME delivers it every simulated frame, which
is what the bundle records (optionally thinned to `hz` on average by the kit's `RateThinner`,
in simulator time). Events come from value changes
(CRASH FLAG, the autopilot modes, PLANE TOUCHDOWN *) and from the system events
(Crashed, Pause, Sim, FlightLoaded).
"""

from __future__ import annotations

import math
from typing import Any

from simbridge.sim import SimEvent, StateSample
from simbridge.adapters.kit import DerivedEvents, RateThinner
from simbridge.adapters.msfs import _mapping
from simbridge.adapters.msfs._client import SimConnectClient
from simbridge.adapters.msfs._wire import Period

DEFINE_LOG, REQUEST_LOG = 1, 1
EV_CRASHED, EV_PAUSE, EV_SIM, EV_FLIGHT_LOADED = 1, 2, 3, 4
SYSTEM_EVENTS = {EV_CRASHED: "Crashed", EV_PAUSE: "Pause", EV_SIM: "Sim", EV_FLIGHT_LOADED: "FlightLoaded"}


class MsfsLogger:
    def __init__(self, client: SimConnectClient, rows: list[_mapping.SignalMap], *, hz: float | None = None) -> None:
        self.client, self.rows, self.hz = client, rows, hz
        self.signals = [r.signal for r in rows if not r.signal.startswith("_")]
        self.t0: float | None = None
        self.t_sim = 0.0
        self.frames_in = 0
        self.frames_out = 0
        self.paused = False
        self._thin = RateThinner(hz)  # kept frames: `hz` on average, in simulator time
        self._td_prev: tuple[float, float] | None = None
        self._events: list[SimEvent] = []
        self.decode_s_total = 0.0
        self._crash_reported = False
        self._derived = DerivedEvents(crash_reason=lambda: "CRASH FLAG", touchdown=False)
        self._rebase = False
        self._frame_s = 1 / 60
        client.on_event(self._on_event)

    def subscribe(self) -> None:
        for ev, name in SYSTEM_EVENTS.items():
            self.client.subscribe(ev, name)

    def start(self) -> None:
        self.client.define(DEFINE_LOG, [r.datum for r in self.rows])
        self.client.request(REQUEST_LOG, DEFINE_LOG, Period.SIM_FRAME)

    def _on_event(self, ev: Any) -> None:  # reader thread; list.append is atomic
        if ev.event_id == EV_PAUSE:
            self.paused = bool(ev.data)
            self._events.append(SimEvent(self.t_sim, "pause", {"paused": self.paused}))
        elif ev.event_id == EV_CRASHED and not self._crash_reported:
            self._crash_reported = True  # one crash per episode: the event or CRASH FLAG, whichever comes first
            self._events.append(SimEvent(self.t_sim, "crash", {"reason": "MSFS Crashed system event"}))

    def samples(self) -> list[StateSample]:
        out: list[StateSample] = []
        for f in self.client.frames(REQUEST_LOG):
            self.frames_in += 1
            self.decode_s_total += f.decode_s
            t, values, extra = _mapping.to_canonical(self.rows, f.values)
            if math.isnan(t):
                continue
            if self.t0 is None:
                self.t0 = t
                self._td_prev = (extra.get("_td_lat_deg", math.nan), extra.get("_td_lon_deg", math.nan))
            elif self._rebase:
                # after a reconnect the simulator's clock restarted: continue one frame on
                self._rebase = False
                self.t0 = t - self.t_sim - self._frame_s
                self._td_prev = (extra.get("_td_lat_deg", math.nan), extra.get("_td_lon_deg", math.nan))
            elif t < self.t0 + self.t_sim - 1.0:
                continue  # a stale frame from before a restart
            if t - self.t0 > self.t_sim:
                self._frame_s = min(0.1, t - self.t0 - self.t_sim)
            self.t_sim = t - self.t0
            self._watch(values, extra)
            if not self._thin.keep(self.t_sim):
                continue
            self.frames_out += 1
            out.append(StateSample(round(self.t_sim, 6), values))
        return out

    def _watch(self, v: dict[str, float], extra: dict[str, float]) -> None:
        t = self.t_sim
        # crash and autopilot changes the kit's way; touchdown from MSFS's own PLANE TOUCHDOWN vars
        for ev in self._derived.update(t, v):
            if ev.kind == "crash":
                if self._crash_reported:
                    continue
                self._crash_reported = True
            self._events.append(ev)
        td = (extra.get("_td_lat_deg", math.nan), extra.get("_td_lon_deg", math.nan))
        if self._td_prev is not None and td != self._td_prev and not math.isnan(td[0]) and td[0] != 0:
            sink = extra.get("_td_vs_fpm", math.nan)
            self._events.append(
                SimEvent(
                    t,
                    "touchdown",
                    {
                        "vs_fpm": -abs(sink) if not math.isnan(sink) else None,
                        "lat_deg": td[0],
                        "lon_deg": td[1],
                        "bank_deg": extra.get("_td_bank_deg"),
                        "pitch_deg": extra.get("_td_pitch_deg"),
                    },
                )
            )
        self._td_prev = td

    def restarted(self) -> None:
        """The client reconnected to a restarted simulator: the next frame continues the clock."""
        self._rebase = True
        self._events.append(SimEvent(self.t_sim, "sim_restart", {"reason": "SimConnect reconnected"}))

    def events(self) -> list[SimEvent]:
        out, self._events = self._events, []
        return out
