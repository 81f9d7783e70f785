"""Weight and balance (T15): payload entered, loaded weight and CG inside the POH envelope, and the
pilot's reported weight and CG, computed from the loading the simulator ended with."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
from pydantic import Field, model_validator

from simbridge import Unscorable
from simbridge import primitives as P
from simbridge.params import FiniteFloat, FiniteParams, NonNegativeFinite, PositiveFinite
from simbridge.verifier import VerifyContext, verifier

STATIONS = ("pilot", "copilot", "rear_left", "rear_right", "baggage")


class WeightBalanceParams(FiniteParams):
    empty_weight_lb: PositiveFinite = 1467.0
    empty_arm_in: FiniteFloat = 39.06
    station_arm_in: dict[str, FiniteFloat] = {
        "pilot": 36.0,
        "copilot": 36.0,
        "rear_left": 70.0,
        "rear_right": 70.0,
        "baggage": 95.0,
    }
    fuel_tank_arm_in: list[FiniteFloat] = Field(default=[48.0, 48.0], min_length=1)
    fuel_lb_per_gal: PositiveFinite = 6.0
    engine_180hp_extra_lb: NonNegativeFinite = 175.0
    engine_180hp_extra_arm_in: FiniteFloat = 30.29
    payload_lb: dict[str, NonNegativeFinite]
    payload_tol_lb: PositiveFinite = 2.0
    max_weight_lb: PositiveFinite = 2450.0
    envelope_in_lb: list[tuple[FiniteFloat, PositiveFinite]] = Field(
        default=[(35.0, 1450.0), (35.0, 1950.0), (41.0, 2550.0), (47.2, 2550.0), (47.2, 1450.0)],
        min_length=3,
        description="CG envelope polygon, (arm in, weight lb) corners",
    )
    answer_weight_tol_lb: PositiveFinite = 5.0
    answer_cg_tol_in: PositiveFinite = 0.1

    @model_validator(mode="after")
    def _known_stations(self) -> "WeightBalanceParams":
        unknown = sorted(set(self.payload_lb) - set(self.station_arm_in))
        if unknown:
            raise ValueError(f"payload_lb station(s) {unknown} have no arm in station_arm_in")
        return self


def _fuel_lb(ctx: VerifyContext, p: WeightBalanceParams) -> list[float]:
    """Per-tank fuel in lb from `end.fuel_lb` (preferred, what the FDM uses) or `end.fuel_gal`."""
    lb = ctx.snapshot("end", "fuel_lb", required=False)
    if lb is None:
        gal = ctx.snapshot("end", "fuel_gal", required=False)
        if gal is None:
            raise Unscorable("snapshot 'end.fuel_lb' (or 'end.fuel_gal') missing from snapshots.json")
        lb = [g * p.fuel_lb_per_gal for g in (gal if isinstance(gal, list) else [gal])]
    lb = lb if isinstance(lb, list) else [lb]
    if len(lb) > len(p.fuel_tank_arm_in) or not all(isinstance(v, (int, float)) for v in lb):
        raise Unscorable(f"snapshot fuel {lb!r}: expected up to {len(p.fuel_tank_arm_in)} numeric tank quantities")
    return [float(v) for v in lb]


def loaded_weight_cg(
    p: WeightBalanceParams, payload: dict[str, float], fuel_lb: list[float], engine_180hp: bool = False
) -> tuple[float, float]:
    """Total weight (lb) and CG arm (in aft of datum): sum of moments over sum of weights, POH style."""
    w = [p.empty_weight_lb] + [payload[s] for s in STATIONS] + fuel_lb
    arm = [p.empty_arm_in] + [p.station_arm_in[s] for s in STATIONS] + p.fuel_tank_arm_in[: len(fuel_lb)]
    if engine_180hp:
        w.append(p.engine_180hp_extra_lb)
        arm.append(p.engine_180hp_extra_arm_in)
    wt = float(np.sum(w))
    return wt, float(np.dot(w, arm) / wt)


_NUM = re.compile(r"-?\d+(?:\.\d+)?")


def _answer_number(answer: dict[str, Any], pattern: str) -> float | None:
    """First numeric value whose key matches `pattern` (numbers or strings like '2,310 lb')."""
    for k, v in answer.items():
        if re.search(pattern, str(k), re.I) and not re.search(r"empty|max|limit", str(k), re.I):
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return float(v)
            if isinstance(v, str):
                m = _NUM.search(v.replace(",", ""))
                if m:
                    return float(m.group())
    return None


@verifier(
    "weight_balance", params=WeightBalanceParams, components=("payload_entered", "within_envelope", "answer_correct")
)
def weight_balance(ctx: VerifyContext) -> str:
    """Weight and CG are recomputed from the end-state loading with the aircraft's own mass and
    balance (empty weight and arm, station arms, tank arms), never read from the answer."""
    p: WeightBalanceParams = ctx.p
    raw = ctx.snapshot("end", "payload")
    if not isinstance(raw, dict):
        raise Unscorable("snapshot 'end.payload' is not an object")
    try:
        payload = {s: float(raw[f"{s}_lb"]) for s in STATIONS}
    except (KeyError, TypeError, ValueError):
        raise Unscorable(f"snapshot 'end.payload' needs numeric {', '.join(s + '_lb' for s in STATIONS)}") from None
    fuel = _fuel_lb(ctx, p)
    engine_180 = ctx.snapshot("end", "active_engine", required=False) == 1

    # the two rear seats share one arm: which passenger sits left or right does not matter
    want, tol = p.payload_lb, p.payload_tol_lb
    pairs = [("pilot", "pilot"), ("copilot", "copilot"), ("baggage", "baggage")]
    ok_fixed = all(abs(payload[a] - want[b]) <= tol for a, b in pairs)
    rear = sorted((payload["rear_left"], payload["rear_right"]))
    rear_want = sorted((want["rear_left"], want["rear_right"]))
    ok_rear = all(abs(a - b) <= tol for a, b in zip(rear, rear_want))
    ctx.component(
        "payload_entered",
        ok_fixed and ok_rear,
        measured=", ".join(f"{s} {payload[s]:.0f}" for s in STATIONS),
        tolerance=", ".join(f"{s} {want[s]:.0f}" for s in STATIONS) + f" ±{tol:g} lb",
    )

    weight, cg = loaded_weight_cg(p, payload, fuel, engine_180)
    inside = bool(P.points_in_polygon([cg], [weight], p.envelope_in_lb)[0])
    # the envelope is judged for the task's loading only: the default load (pilot alone) is
    # inside it too, and an agent that changed nothing must not earn the planning credit
    loaded = ok_fixed and ok_rear
    ok = inside and weight <= p.max_weight_lb and loaded
    why = f"fuel {sum(fuel):.1f} lb" + (" (180 hp engine)" if engine_180 else "")
    if inside and weight <= p.max_weight_lb and not loaded:
        why += "; inside the envelope, but not with the task's payload, so not earned"
    ctx.component(
        "within_envelope",
        ok,
        measured=f"{weight:.1f} lb @ {cg:.2f} in",
        tolerance=f"≤ {p.max_weight_lb:g} lb, CG inside the normal-category envelope, task's payload",
        explanation=why,
    )

    bundle_end = ctx.bundle.snapshots.get("end") or {}
    if "answer" not in bundle_end:
        raise Unscorable("snapshot 'end.answer' missing: the harness did not record answer.json (null = no file)")
    answer = bundle_end["answer"]
    got_w = _answer_number(answer, r"weight|mass|gross") if isinstance(answer, dict) else None
    got_cg = _answer_number(answer, r"cg|cent(er|re)|arm") if isinstance(answer, dict) else None
    ok = (
        got_w is not None
        and got_cg is not None
        and abs(got_w - weight) <= p.answer_weight_tol_lb
        and abs(got_cg - cg) <= p.answer_cg_tol_in
    )
    ctx.component(
        "answer_correct",
        ok,
        measured=f"{got_w} lb @ {got_cg} in" if answer is not None else "no answer.json",
        tolerance=f"{weight:.1f}±{p.answer_weight_tol_lb:g} lb, {cg:.2f}±{p.answer_cg_tol_in:g} in",
    )
    return "" if math.isfinite(cg) else "CG undefined"
