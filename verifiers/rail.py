"""Train driving to a timetable (T14, OpenBVE): stop accuracy at the stop marker, arrival and
departure times against the timetable, and no overspeed or emergency-brake penalties."""

from __future__ import annotations


import numpy as np
from pydantic import Field, field_validator

from simbridge import primitives as P
from simbridge.params import FiniteFloat, FiniteParams, PositiveFinite
from simbridge.verifier import VerifyContext, verifier


def clock_to_s(hhmmss: str) -> float:
    """'HH:MM:SS' (or 'HH:MM') → seconds since midnight, as OpenBVE's game clock counts."""
    parts = [float(x) for x in hhmmss.split(":")]
    if not 2 <= len(parts) <= 3:
        raise ValueError(f"time {hhmmss!r} is not HH:MM[:SS]")
    h, m, s = (parts + [0.0])[:3]
    return h * 3600 + m * 60 + s


class Station(FiniteParams):
    name: str = Field(min_length=1)
    stop_position_m: FiniteFloat = Field(description="track position of the stop marker for this train length")
    arrival: str | None = Field(default=None, pattern=r"^\d{1,2}:\d{2}(:\d{2})?$")
    departure: str | None = Field(default=None, pattern=r"^\d{1,2}:\d{2}(:\d{2})?$")

    @field_validator("arrival", "departure")
    @classmethod
    def _clock(cls, v: str | None) -> str | None:
        if v is not None:
            clock_to_s(v)
        return v


class TimetableParams(FiniteParams):
    stations: list[Station] = Field(min_length=3, max_length=3)
    stop_tol_m: PositiveFinite = 2.0
    time_tol_s: PositiveFinite = 30.0
    stopped_kmh: PositiveFinite = 0.5
    station_window_m: PositiveFinite = 50.0
    front_offset_m: FiniteFloat = 0.0
    penalty_tokens: list[str] = ["overspeed"]
    #: OpenBVE score tokens that are a safety violation anywhere in the run: they gate the score
    safety_tokens: list[str] = ["overspeed", "passed_red_signal", "derailed", "toppling"]


def _station_stop(st: Station, p: TimetableParams, stops: list[P.Window], pos: np.ndarray):
    """The last standstill within `station_window_m` of the marker: where the train came to rest
    and later left from (a stop short of the marker followed by a creep forward counts at its
    final position)."""
    near = [
        w
        for w in stops
        if abs(float(np.nanmedian(pos[w.i0 : w.i1 + 1])) + p.front_offset_m - st.stop_position_m) <= p.station_window_m
    ]
    return near[-1] if near else None


@verifier(
    "openbve_timetable",
    params=TimetableParams,
    components=("stop_station_2", "stop_station_3", "timetable_leg_1", "timetable_leg_2", "no_penalties"),
    safety=("safe_running",),
    quality=("no_penalties",),
)
def openbve_timetable(ctx: VerifyContext) -> str:
    """Stations 1→2→3. Each stop is the train's last standstill near the station's marker; stop
    error = front position − marker. Arrival = game clock when that standstill began, departure
    = game clock of its last stationary sample. Leg k is on time when the departure from
    station k and the arrival at station k+1 are both within the tolerance. The penalty-free
    item is worth the part of the run from station 1 to station 3 driven (task progress: a train
    that stops for good at station 2 has driven half of it); an overspeed, a signal passed at
    danger, a derailment or toppling anywhere gates the score (`safe_running`)."""
    p: TimetableParams = ctx.p
    t = ctx.t
    clock, pos, v = ctx.sig("clock_s"), ctx.sig("track_position_m"), ctx.sig("speed_kmh")
    eb = ctx.sig("emergency_brake")
    ctx.require_coverage(float(t[0]), float(t[-1]), "the run")
    with np.errstate(invalid="ignore"):
        still = np.abs(v) < p.stopped_kmh
    stops = P.runs(t, still, ctx.max_gap_s)
    found = [_station_stop(st, p, stops, pos) for st in p.stations]
    s1, s2, s3 = p.stations
    notes: list[str] = []
    for k, (st, w) in enumerate(zip(p.stations[1:], found[1:]), start=2):
        name = f"stop_station_{k}"
        if w is None:
            ctx.component(name, 0.0, tolerance=f"±{p.stop_tol_m:g} m", explanation=f"no stop at {st.name}")
            continue
        err = float(np.nanmedian(pos[w.i0 : w.i1 + 1])) + p.front_offset_m - st.stop_position_m
        ctx.component(
            name,
            abs(err) <= p.stop_tol_m,
            measured=err,
            tolerance=f"±{p.stop_tol_m:g} m of the marker",
            window=w.as_tuple(),
            explanation=f"{st.name}: {'over' if err > 0 else 'short'}run {abs(err):.2f} m",
        )

    def dep(w: P.Window | None) -> float | None:
        return None if w is None or w.i1 == t.size - 1 else float(clock[w.i1])

    def arr(w: P.Window | None) -> float | None:
        return None if w is None else float(clock[w.i0])

    for leg, (a, b, wa, wb) in enumerate(((s1, s2, found[0], found[1]), (s2, s3, found[1], found[2])), start=1):
        name = f"timetable_leg_{leg}"
        d_act, a_act = dep(wa), arr(wb)
        pairs = []  # (label, actual clock or None, scheduled clock)
        if a.departure is not None:
            pairs.append((f"dep {a.name}", d_act, clock_to_s(a.departure)))
        if b.arrival is not None:
            pairs.append((f"arr {b.name}", a_act, clock_to_s(b.arrival)))
        devs = [None if act is None else act - sched for _, act, sched in pairs]
        ok = bool(pairs) and all(d is not None and abs(d) <= p.time_tol_s for d in devs)
        known = [d for d in devs if d is not None]
        worst = max(abs(d) for d in known) if devs and len(known) == len(devs) else None
        ctx.component(
            name,
            ok,
            measured=None if worst is None else round(worst, 1),
            tolerance=f"±{p.time_tol_s:g} s",
            explanation="; ".join(
                f"{lab} {d:+.0f} s" if d is not None else f"{lab}: did not happen"
                for (lab, _, _), d in zip(pairs, devs)
            ),
        )

    start_m, end_m = s1.stop_position_m, s3.stop_position_m
    with np.errstate(invalid="ignore"):
        reached = float(np.nanmax(pos)) + p.front_offset_m if np.isfinite(pos).any() else start_m
    span = end_m - start_m
    ctx.progress(
        1.0 if found[2] is not None or span <= 0 else (reached - start_m) / span,
        f"stopped at {s3.name}"
        if found[2] is not None
        else f"front reached {reached:.0f} m of the run {start_m:.0f} → {end_m:.0f} m",
    )
    bad = [e for e in ctx.bundle.events_of("openbve_score") if e.data.get("token") in p.safety_tokens]
    what = "no " + ", ".join(x.replace("_", " ") for x in p.safety_tokens) + " anywhere in the run"
    if bad:
        ctx.safety(
            "safe_running",
            False,
            first_violation_t=float(bad[0].t),
            explanation=f"violated: {what} ("
            + ", ".join(f"{e.data.get('token')} at t={e.t:.0f} s" for e in bad[:5])
            + ")",
        )
    else:
        ctx.safety("safe_running", True, explanation=what)
    pens = [e for e in ctx.bundle.events_of("openbve_score") if e.data.get("token") in p.penalty_tokens]
    with np.errstate(invalid="ignore"):
        eb_moving = (eb > 0.5) & (np.abs(v) >= p.stopped_kmh)
    t_eb = P.first_true(t, eb_moving)
    n_eb = len(P.runs(t, eb_moving, ctx.max_gap_s))
    drove = found[1] is not None
    ok = drove and not pens and t_eb is None
    expl = [] if drove else [f"never reached {s2.name}: a train that does not drive earns no penalty-free credit"]
    if pens:
        expl.append(", ".join(f"{e.data.get('token')} {e.data.get('value')} at t={e.t:.0f}s" for e in pens))
    if t_eb is not None:
        expl.append(f"emergency brake while moving at t={t_eb:.0f}s ({n_eb}×)")
    ctx.component(
        "no_penalties",
        ok,
        measured=len(pens) + n_eb,
        tolerance="0 overspeed records, 0 emergency brakes while moving",
        explanation="; ".join(expl),
    )
    others = [e for e in ctx.bundle.events_of("openbve_score") if (e.data.get("value") or 0) < 0 and e not in pens]
    notes += (
        [f"other OpenBVE penalties (not scored): {', '.join(str(e.data.get('token')) for e in others)}"]
        if others
        else []
    )
    return "; ".join(notes)
