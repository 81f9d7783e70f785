"""Tolerance bands to draw on the time-series plots, read from a task's verifier params.

Only where the band is unambiguous: a verifier family whose criterion is "signal within
lo..hi over a window" gets an extractor here. Each returns plain data, so the page draws what
the verifier judged and the extraction is unit-tested without a browser. A family without an
extractor gets no bands (the plots still show the evidence windows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from simbridge._score import Component, Score
from simbridge._signals import Signals
from simbridge._task import TaskSpec


@dataclass(frozen=True)
class Band:
    """`signal` should lie within [lo, hi] from t0 to t1 (sim s; None: the whole episode)."""

    signal: str
    lo: float
    hi: float
    t0: float | None
    t1: float | None
    label: str


#: (validated params, score, signals, task) → bands; the task for geometry (runway elevation)
Extractor = Callable[[dict, Score, Signals, TaskSpec], list[Band]]
_EXTRACTORS: dict[str, Extractor] = {}


def _extractor(name: str) -> Callable[[Extractor], Extractor]:
    def deco(fn: Extractor) -> Extractor:
        _EXTRACTORS[name] = fn
        return fn

    return deco


def families() -> list[str]:
    """Verifier names that have a band extractor."""
    return sorted(_EXTRACTORS)


def _component(score: Score, name: str) -> Component | None:
    return next((c for c in score.components if c.name == name), None)


def value_at(signals: Signals, name: str, t: float) -> float | None:
    """The recorded value of `name` at sim time t (linear between valid samples; None if unknown)."""
    if name not in signals:
        return None
    v = signals[name]
    ok = np.isfinite(v)
    if not ok.any():
        return None
    return float(np.interp(t, signals.t[ok], v[ok]))


def _params(task: TaskSpec) -> dict:
    """The verifier's validated params (defaults filled in), as the verifier saw them."""
    from simbridge.verifiers import _registry

    return _registry.get(task.verifier.name).params.model_validate(task.verifier.params).model_dump()


def bands_for(task: TaskSpec, score: Score, signals: Signals) -> list[Band]:
    """The tolerance bands of this task's verifier (empty for a family without an extractor)."""
    fn = _EXTRACTORS.get(task.verifier.name)
    if fn is None:
        return []
    return fn(_params(task), score, signals, task)


@_extractor("steep_turn")
def _steep_turn(p: dict, score: Score, signals: Signals, task: TaskSpec) -> list[Band]:
    """Bank band over the turn (signed: a left turn is negative bank); altitude and airspeed
    ± tolerance of their value at the maneuver's entry (the component window's start)."""
    out: list[Band] = []
    sign = -1.0 if p["direction"] == "left" else 1.0
    bank = _component(score, "bank_maintained")
    if bank is not None and bank.window is not None:
        a, b = sign * (p["bank_deg"] - p["bank_tol_deg"]), sign * (p["bank_deg"] + p["bank_tol_deg"])
        out.append(
            Band(
                "bank_deg",
                min(a, b),
                max(a, b),
                *bank.window,
                label=f"bank {p['bank_deg']:g}±{p['bank_tol_deg']:g}° {p['direction']}",
            )
        )
    for comp, sig, tol, unit in (
        ("altitude_held", "alt_msl_ft", p["alt_tol_ft"], "ft"),
        ("airspeed_held", "ias_kt", p["ias_tol_kt"], "kt"),
    ):
        c = _component(score, comp)
        if c is None or c.window is None:
            continue
        entry = value_at(signals, sig, c.window[0])
        if entry is not None:
            out.append(Band(sig, entry - tol, entry + tol, *c.window, label=f"entry {entry:.0f} ±{tol:g} {unit}"))
    return out


@_extractor("takeoff_hold")
def _takeoff_hold(p: dict, score: Score, signals: Signals, task: TaskSpec) -> list[Band]:
    """Heading, altitude and airspeed targets ± tolerance, over the hold window when one was
    found, else from the liftoff (the takeoff component's window) to the end."""
    hold, take = _component(score, "hold_window"), _component(score, "takeoff")
    t0: float | None
    t1: float | None
    if hold is not None and hold.window is not None:
        t0, t1 = hold.window
    elif take is not None and take.window is not None:
        t0, t1 = take.window[0], None
    else:
        t0 = t1 = None
    return [
        Band(
            "heading_mag_deg",
            p["heading_deg"] - p["heading_tol_deg"],
            p["heading_deg"] + p["heading_tol_deg"],
            t0,
            t1,
            label=f"heading {p['heading_deg']:g}±{p['heading_tol_deg']:g}°",
        ),
        Band(
            "alt_msl_ft",
            p["alt_ft"] - p["alt_tol_ft"],
            p["alt_ft"] + p["alt_tol_ft"],
            t0,
            t1,
            label=f"{p['alt_ft']:g}±{p['alt_tol_ft']:g} ft",
        ),
        Band(
            "ias_kt",
            p["ias_kt"] - p["ias_tol_kt"],
            p["ias_kt"] + p["ias_tol_kt"],
            t0,
            t1,
            label=f"{p['ias_kt']:g}±{p['ias_tol_kt']:g} kt",
        ),
    ]


@_extractor("engine_failure")
def _engine_failure(p: dict, score: Score, signals: Signals, task: TaskSpec) -> list[Band]:
    """Best-glide airspeed band over the glide (failure to flare: the best_glide window)."""
    c = _component(score, "best_glide")
    if c is None or c.window is None:
        return []
    return [
        Band(
            "ias_kt",
            p["glide_ias_lo_kt"],
            p["glide_ias_hi_kt"],
            *c.window,
            label=f"best glide {p['glide_ias_lo_kt']:g}-{p['glide_ias_hi_kt']:g} KIAS",
        )
    ]


@_extractor("ils_approach")
def _ils_approach(p: dict, score: Score, signals: Signals, task: TaskSpec) -> list[Band]:
    """Localizer and glideslope ± max_dev_dots at the gate (an instant), and the disconnect
    height band at the disconnect (over the whole episode when it never disconnected)."""
    out: list[Band] = []
    dev = _component(score, "deviations")
    if dev is not None and dev.window is not None:
        for sig, what in (("loc_dev_dots", "LOC"), ("gs_dev_dots", "GS")):
            out.append(
                Band(
                    sig,
                    -p["max_dev_dots"],
                    p["max_dev_dots"],
                    *dev.window,
                    label=f"{what} ±{p['max_dev_dots']:g} dot at {p['gate_agl_ft']:g} ft AGL",
                )
            )
    disc = _component(score, "disconnect_at_dh")
    if disc is not None:
        lo, hi = p["disconnect_agl_ft"]
        t0, t1 = disc.window if disc.window is not None else (None, None)
        out.append(Band("alt_agl_ft", lo, hi, t0, t1, label=f"disconnect {lo:g}-{hi:g} ft AGL"))
    return out


def _window(score: Score, name: str) -> tuple[float | None, float | None]:
    c = _component(score, name)
    return (c.window[0], c.window[1]) if c is not None and c.window is not None else (None, None)


@_extractor("hover")
def _hover(p: dict, score: Score, signals: Signals, task: TaskSpec) -> list[Band]:
    """The skid-height band drawn on alt_agl_ft: the verifier judges AGL less what the sensor read
    sitting on the pad (its own `_skid_height_ft`), so the band is shifted up by that reading;
    over the hover window (the whole episode when it never hovered)."""
    if "alt_agl_ft" not in signals or "on_ground" not in signals:
        return []
    from simbridge import primitives as P
    from simbridge.verifiers.hover import _skid_height_ft

    ground = P._ground(signals["on_ground"]).astype(float)
    _, zero = _skid_height_ft(signals.t, signals["alt_agl_ft"], ground)
    lo, hi = p["hover_min_ft"], p["hover_max_ft"]
    return [
        Band(
            "alt_agl_ft",
            lo + zero,
            hi + zero,
            *_window(score, "hover_window"),
            label=f"skids {lo:g}-{hi:g} ft (AGL − {zero:.1f} ft on the pad)",
        )
    ]


@_extractor("traffic_pattern")
def _traffic_pattern(p: dict, score: Score, signals: Signals, task: TaskSpec) -> list[Band]:
    """Pattern altitude ± tolerance above the runway's field elevation, in MSL, on the downwind
    leg (the altitude_discipline window; no band when no downwind was found)."""
    t0, t1 = _window(score, "altitude_discipline")
    if t0 is None:
        return []
    elev = task.geometry.runway(p["runway"]).elevation_ft
    mid, tol = elev + p["pattern_alt_agl_ft"], p["alt_tol_ft"]
    return [
        Band(
            "alt_msl_ft",
            mid - tol,
            mid + tol,
            t0,
            t1,
            label=f"{p['pattern_alt_agl_ft']:g}±{tol:g} ft above field ({elev:g} ft) on downwind",
        )
    ]


@_extractor("carla_lane_keep")
def _carla_lane_keep(p: dict, score: Score, signals: Signals, task: TaskSpec) -> list[Band]:
    """The speed band over the lane-keeping window (from first reaching start_speed_kmh)."""
    t0, t1 = _window(score, "speed_in_band")
    if t0 is None:
        return []
    lo, hi = p["speed_kmh"] - p["speed_tol_kmh"], p["speed_kmh"] + p["speed_tol_kmh"]
    return [Band("speed_kmh", lo, hi, t0, t1, label=f"{lo:g}-{hi:g} km/h")]


@_extractor("fms_nav")
def _fms_nav(p: dict, score: Score, signals: Signals, task: TaskSpec) -> list[Band]:
    """The autopilot's altitude target ± tolerance over the final hold (altitude_target's window)."""
    t0, t1 = _window(score, "altitude_target")
    if t0 is None:
        return []
    a, tol = p["alt_target_ft"], p["alt_target_tol_ft"]
    return [Band("ap_alt_target_ft", a - tol, a + tol, t0, t1, label=f"target {a:g}±{tol:g} ft")]
