"""Simulator setup before flight (T08): date/time, manual weather, a scheduled failure, airport
and aircraft, all read from the state snapshot taken after the flight started."""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from simbridge import Unscorable
from simbridge import primitives as P
from simbridge.params import (
    AngleTolDeg,
    FiniteFloat,
    FiniteParams,
    HeadingDeg,
    Icao,
    NonNegativeFinite,
    PositiveFinite,
    Regex,
)
from simbridge.verifier import VerifyContext, verifier

#: METAR coverage in oktas -> the band of sky fraction it stands for (halfway to the next class)
COVERAGE_BANDS: dict[str, tuple[float, float]] = {
    "clear": (0.0, 1 / 16),
    "few": (1 / 16, 5 / 16),
    "scattered": (5 / 16, 9 / 16),
    "broken": (9 / 16, 15 / 16),
    "overcast": (15 / 16, 1.0),
}
DAY_S = 86400.0
M_PER_SM = 1609.344


def _iso_date(v: str) -> str:
    try:
        dt.date.fromisoformat(v)
    except ValueError:
        raise ValueError(f"date {v!r} is not YYYY-MM-DD") from None
    return v


class SimSetupParams(FiniteParams):
    date: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$"), AfterValidator(_iso_date)] = "2026-12-21"
    local_time: Annotated[str, Field(pattern=r"^([01]\d|2[0-3]):[0-5]\d$", description="HH:MM")] = "16:30"
    time_tol_min: PositiveFinite = 10.0
    wind_dir_deg: HeadingDeg = 270.0
    wind_dir_tol_deg: AngleTolDeg = 10.0
    wind_kt: NonNegativeFinite = 15.0
    wind_tol_kt: PositiveFinite = 2.0
    cloud_coverage: Literal["clear", "few", "scattered", "broken", "overcast"] = "broken"
    cloud_base_agl_ft: NonNegativeFinite = 1500.0
    cloud_base_tol_ft: PositiveFinite = 200.0
    field_elevation_ft: FiniteFloat = 20.0
    visibility_sm: PositiveFinite = 5.0
    visibility_tol_sm: PositiveFinite = 0.5
    weather_mode: Literal["manual", "real"] = "manual"
    failure_systems: list[str] = Field(default=["vacuum_pump", "vacuum", "vacuum_1", "rel_vacuum"], min_length=1)
    failure_trigger: Literal["agl_ft", "ias_kt", "time_s", "mtbf_h", "key"] = "agl_ft"
    failure_value: FiniteFloat = 2000.0
    failure_tol: PositiveFinite = 50.0
    airport: Icao = "KBOS"
    aircraft_pattern: Regex = r"(?i)(cessna[ _-]?172|c172)"


def _num(d: dict[str, Any], *keys: str) -> float | None:
    for k in keys:
        v = d.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
    return None


def _coverage_fraction(layer: dict[str, Any]) -> float | None:
    """Sky fraction 0..1 of a cloud layer from `coverage_pct`, `coverage` (0..1) or a METAR word."""
    pct = _num(layer, "coverage_pct")
    if pct is not None:
        return pct / 100.0
    cov = layer.get("coverage")
    if isinstance(cov, (int, float)) and not isinstance(cov, bool):
        return float(cov)
    if isinstance(cov, str) and cov.lower() in COVERAGE_BANDS:
        lo, hi = COVERAGE_BANDS[cov.lower()]
        return (lo + hi) / 2
    return None


def _check_time(ctx: VerifyContext, p: SimSetupParams) -> None:
    days = ctx.snapshot("end", "local_date_days")
    secs = ctx.snapshot("end", "local_time_s")
    elapsed = ctx.snapshot("end", "flight_elapsed_s", required=False)
    want = dt.date.fromisoformat(p.date)
    hh, mm = (int(x) for x in p.local_time.split(":"))
    want_s = (want.timetuple().tm_yday - 1) * DAY_S + hh * 3600 + mm * 60
    try:
        got_s = float(days) * DAY_S + float(secs)
        elapsed = None if elapsed is None else float(elapsed)
    except (TypeError, ValueError):
        raise Unscorable(f"snapshot date/time not numeric: {days!r} days, {secs!r} s, elapsed {elapsed!r}") from None
    # no year in the simulator's calendar: compare within one year, wrapping at New Year
    year_s = 365 * DAY_S
    if elapsed is not None:
        diff = (got_s - float(elapsed) - want_s + year_s / 2) % year_s - year_s / 2
        ok, slack = abs(diff) <= p.time_tol_min * 60, ""
    else:
        # the clock ran for an unknown part of the recording since the flight started
        diff = (got_s - want_s + year_s / 2) % year_s - year_s / 2
        run = ctx.bundle.signals.duration_s
        ok = -p.time_tol_min * 60 <= diff <= p.time_tol_min * 60 + run
        slack = f" (+{run:.0f} s run time, flight start time not recorded)"
    got_day = int((want_s + diff) // DAY_S)
    got_date = dt.date(want.year, 1, 1) + dt.timedelta(days=got_day)
    clock = (want_s + diff) % DAY_S
    ctx.component(
        "time_date",
        ok,
        measured=f"{got_date:%m-%d} {int(clock // 3600):02d}:{int(clock % 3600 // 60):02d}",
        tolerance=f"{p.date[5:]} {p.local_time} ±{p.time_tol_min:g} min{slack}",
        explanation=f"configured time is {diff / 60:+.0f} min from the target",
    )


def _check_weather(ctx: VerifyContext, p: SimSetupParams) -> None:
    wx = ctx.snapshot("end", "weather")
    if not isinstance(wx, dict) or not {"wind_layers", "cloud_layers"} <= wx.keys():
        raise Unscorable("snapshot 'end.weather' lacks wind_layers/cloud_layers")
    problems = []
    mode = wx.get("mode")
    if mode is not None and str(mode).lower() != p.weather_mode:
        problems.append(f"weather mode {mode!r}, not {p.weather_mode}")
    winds = [w for w in wx.get("wind_layers") or [] if isinstance(w, dict)]
    if not winds:
        problems.append("no wind layer")
    else:
        low = min(winds, key=lambda w: _num(w, "alt_msl_ft") or 0.0)
        d, s = _num(low, "dir_degt", "dir_deg"), _num(low, "speed_kt")
        if (
            d is None
            or s is None
            or abs(P.angle_diff(d, p.wind_dir_deg)) > p.wind_dir_tol_deg
            or abs(s - p.wind_kt) > p.wind_tol_kt
        ):
            problems.append(f"surface wind {d}°/{s} kt")
    clouds = [c for c in wx.get("cloud_layers") or [] if isinstance(c, dict)]
    clouds = [c for c in clouds if (_coverage_fraction(c) or 0.0) > COVERAGE_BANDS["clear"][1]]
    lo, hi = COVERAGE_BANDS[p.cloud_coverage]
    if not clouds:
        problems.append("no cloud layer")
    else:

        def base_agl(c: dict[str, Any]) -> float:
            agl = _num(c, "base_agl_ft")
            msl = _num(c, "base_msl_ft")
            return agl if agl is not None else (msl - p.field_elevation_ft if msl is not None else math.nan)

        lowest = min(clouds, key=lambda c: base_agl(c) if math.isfinite(base_agl(c)) else math.inf)
        frac, base = _coverage_fraction(lowest), base_agl(lowest)
        if frac is None or not lo <= frac <= hi or not abs(base - p.cloud_base_agl_ft) <= p.cloud_base_tol_ft:
            problems.append(
                f"lowest cloud layer {frac if frac is None else round(frac * 8, 1)} oktas at {base:.0f} ft AGL"
            )
    vis = _num(wx, "visibility_sm")
    vis_m = _num(wx, "visibility_m")
    if vis is None and vis_m is not None:
        vis = vis_m / M_PER_SM
    if vis is None or abs(vis - p.visibility_sm) > p.visibility_tol_sm:
        problems.append(f"visibility {vis if vis is None else round(vis, 2)} sm")
    ctx.component(
        "weather",
        not problems,
        measured="; ".join(problems) or "as set",
        tolerance=(
            f"wind {p.wind_dir_deg:g}±{p.wind_dir_tol_deg:g}°/{p.wind_kt:g}±{p.wind_tol_kt:g} kt, "
            f"{p.cloud_coverage} {p.cloud_base_agl_ft:g}±{p.cloud_base_tol_ft:g} ft AGL, "
            f"vis {p.visibility_sm:g}±{p.visibility_tol_sm:g} sm"
        ),
    )


def _check_failure(ctx: VerifyContext, p: SimSetupParams) -> None:
    failures = ctx.snapshot("end", "failures")
    if not isinstance(failures, list):
        raise Unscorable("snapshot 'end.failures' is not a list")
    names = {s.lower() for s in p.failure_systems}
    # (failure entry, trigger kind, trigger dict) for the task's systems and for any other system
    target: list[tuple[dict[str, Any], str, dict[str, Any]]] = []
    others: list[tuple[dict[str, Any], str, dict[str, Any]]] = []
    for f in failures:
        if not isinstance(f, dict):
            continue
        trig = f.get("trigger") or {}
        kind = str(trig.get("kind", "")).lower()
        if kind in ("", "none", "always_working", "working"):
            continue
        (target if str(f.get("system", "")).lower() in names else others).append((f, kind, trig))
    ok = False
    measured = "no vacuum failure scheduled"
    if target:
        f, kind, trig = target[0]
        val = trig.get("value")
        measured = f"{f.get('system')} at {kind} {val}"
        ok = kind == p.failure_trigger and isinstance(val, (int, float)) and abs(val - p.failure_value) <= p.failure_tol
        ok = ok and not f.get("failed", False)
    if others:
        ok = False
        measured += "; also scheduled: " + ", ".join(str(f.get("system")) for f, _, _ in others)
    ctx.component(
        "failure_scheduled",
        ok,
        measured=measured,
        tolerance=f"only vacuum pump, {p.failure_trigger} {p.failure_value:g}±{p.failure_tol:g}",
    )


@verifier(
    "sim_setup", params=SimSetupParams, components=("time_date", "weather", "failure_scheduled", "airport_aircraft")
)
def sim_setup(ctx: VerifyContext) -> str:
    """Every item is judged on the `end` snapshot (datarefs read after the flight started)."""
    p: SimSetupParams = ctx.p
    _check_time(ctx, p)
    _check_weather(ctx, p)
    _check_failure(ctx, p)
    airport = ctx.snapshot("end", "airport")
    aircraft = ctx.snapshot("end", "aircraft")
    ok = str(airport).strip().upper() == p.airport and re.search(p.aircraft_pattern, str(aircraft)) is not None
    ctx.component(
        "airport_aircraft", ok, measured=f"{airport} / {aircraft}", tolerance=f"{p.airport} / {p.aircraft_pattern}"
    )
    return ""
