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


Extractor = Callable[[dict, Score, Signals], list[Band]]
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
    return fn(_params(task), score, signals)


@_extractor("steep_turn")
def _steep_turn(p: dict, score: Score, signals: Signals) -> list[Band]:
    """Bank band over the turn (signed: a left turn is negative bank); altitude and airspeed
    ± tolerance of their value at the maneuver's entry (the component window's start)."""
    out: list[Band] = []
    sign = -1.0 if p["direction"] == "left" else 1.0
    bank = _component(score, "bank_maintained")
    if bank is not None and bank.window is not None:
        a, b = sign * (p["bank_deg"] - p["bank_tol_deg"]), sign * (p["bank_deg"] + p["bank_tol_deg"])
        out.append(Band("bank_deg", min(a, b), max(a, b), *bank.window,
                        label=f"bank {p['bank_deg']:g}±{p['bank_tol_deg']:g}° {p['direction']}"))
    for comp, sig, tol, unit in (("altitude_held", "alt_msl_ft", p["alt_tol_ft"], "ft"),
                                 ("airspeed_held", "ias_kt", p["ias_tol_kt"], "kt")):
        c = _component(score, comp)
        if c is None or c.window is None:
            continue
        entry = value_at(signals, sig, c.window[0])
        if entry is not None:
            out.append(Band(sig, entry - tol, entry + tol, *c.window, label=f"entry {entry:.0f} ±{tol:g} {unit}"))
    return out


@_extractor("takeoff_hold")
def _takeoff_hold(p: dict, score: Score, signals: Signals) -> list[Band]:
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
        Band("heading_mag_deg", p["heading_deg"] - p["heading_tol_deg"], p["heading_deg"] + p["heading_tol_deg"],
             t0, t1, label=f"heading {p['heading_deg']:g}±{p['heading_tol_deg']:g}°"),
        Band("alt_msl_ft", p["alt_ft"] - p["alt_tol_ft"], p["alt_ft"] + p["alt_tol_ft"], t0, t1,
             label=f"{p['alt_ft']:g}±{p['alt_tol_ft']:g} ft"),
        Band("ias_kt", p["ias_kt"] - p["ias_tol_kt"], p["ias_kt"] + p["ias_tol_kt"], t0, t1,
             label=f"{p['ias_kt']:g}±{p['ias_tol_kt']:g} kt"),
    ]


@_extractor("engine_failure")
def _engine_failure(p: dict, score: Score, signals: Signals) -> list[Band]:
    """Best-glide airspeed band over the glide (failure to flare: the best_glide window)."""
    c = _component(score, "best_glide")
    if c is None or c.window is None:
        return []
    return [Band("ias_kt", p["glide_ias_lo_kt"], p["glide_ias_hi_kt"], *c.window,
                 label=f"best glide {p['glide_ias_lo_kt']:g}-{p['glide_ias_hi_kt']:g} KIAS")]


@_extractor("ils_approach")
def _ils_approach(p: dict, score: Score, signals: Signals) -> list[Band]:
    """Localizer and glideslope ± max_dev_dots at the gate (an instant), and the disconnect
    height band at the disconnect (over the whole episode when it never disconnected)."""
    out: list[Band] = []
    dev = _component(score, "deviations")
    if dev is not None and dev.window is not None:
        for sig, what in (("loc_dev_dots", "LOC"), ("gs_dev_dots", "GS")):
            out.append(Band(sig, -p["max_dev_dots"], p["max_dev_dots"], *dev.window,
                            label=f"{what} ±{p['max_dev_dots']:g} dot at {p['gate_agl_ft']:g} ft AGL"))
    disc = _component(score, "disconnect_at_dh")
    if disc is not None:
        lo, hi = p["disconnect_agl_ft"]
        t0, t1 = disc.window if disc.window is not None else (None, None)
        out.append(Band("alt_agl_ft", lo, hi, t0, t1, label=f"disconnect {lo:g}-{hi:g} ft AGL"))
    return out
