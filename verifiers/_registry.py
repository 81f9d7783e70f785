"""Verifier registry and the context a verifier function works in.

A verifier is one Python function registered by name plus a pydantic model of its parameters.
The task YAML names the verifier, gives its tolerances and the weights of its partial-credit
items; the framework applies the safety gate, the unscored rules and the weighting, so a
verifier only measures.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from simbridge._bundle import HARNESS_FAULTS, Bundle
from simbridge._errors import Unscorable
from simbridge._score import Component, SafetyResult, Score

from . import primitives as P

if TYPE_CHECKING:
    from simbridge._task import TaskSpec

VERIFIER_API_VERSION = "1"


class Params(BaseModel):
    """Base class of verifier parameter models: unknown keys in the YAML are an error."""

    model_config = ConfigDict(extra="forbid")


VerifierFn = Callable[["VerifyContext"], "str | None"]


@dataclass
class VerifierDef:
    name: str
    fn: VerifierFn
    params: type[Params]
    components: tuple[str, ...]
    safety: tuple[str, ...]
    doc: str = ""


_REGISTRY: dict[str, VerifierDef] = {}
_LOADED = False


def verifier(name: str, *, params: type[Params] = Params, components: tuple[str, ...], safety: tuple[str, ...] = ()):
    """Register `fn` as verifier `name`. It must record every component and safety item it declares."""

    def deco(fn: VerifierFn) -> VerifierFn:
        if name in _REGISTRY and _REGISTRY[name].fn is not fn:
            raise ValueError(f"verifier {name!r} registered twice")
        _REGISTRY[name] = VerifierDef(name, fn, params, tuple(components), tuple(safety), (fn.__doc__ or "").strip())
        return fn

    return deco


def _load_builtin() -> None:
    global _LOADED
    if _LOADED:
        return
    import simbridge.verifiers as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        if not mod.name.startswith("_") and mod.name != "primitives":
            importlib.import_module(f"simbridge.verifiers.{mod.name}")
    _LOADED = True


def get(name: str) -> VerifierDef:
    _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no verifier named {name!r} (known: {', '.join(sorted(_REGISTRY))})") from None


def names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def check_spec(spec: "TaskSpec") -> None:
    """The task's verifier exists, its params validate and its items match the verifier's."""
    vdef = get(spec.verifier.name)
    try:
        vdef.params.model_validate(spec.verifier.params)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ValueError(f"params.{'.'.join(map(str, err['loc']))}: {err['msg']}") from None
    credit = [c.name for c in spec.partial_credit]
    if sorted(credit) != sorted(vdef.components):
        raise ValueError(f"partial_credit items {credit} do not match verifier {vdef.name!r} components {list(vdef.components)}")
    safety = [s.name for s in spec.safety]
    if sorted(safety) != sorted(vdef.safety):
        raise ValueError(f"safety items {safety} do not match verifier {vdef.name!r} constraints {list(vdef.safety)}")


@dataclass
class VerifyContext:
    """What a verifier function sees: the bundle, the task, its validated params, and recorders
    for components and safety results."""

    bundle: Bundle
    task: "TaskSpec"
    p: Any
    components: dict[str, Component] = field(default_factory=dict)
    safety_results: dict[str, SafetyResult] = field(default_factory=dict)

    @property
    def t(self) -> np.ndarray:
        return self.bundle.signals.t

    @property
    def max_gap_s(self) -> float:
        return self.task.max_sample_gap_s

    def sig(self, name: str) -> np.ndarray:
        """A required signal; missing → the episode is unscored, never a silent 0."""
        if name not in self.bundle.signals or not np.isfinite(self.bundle.signals[name]).any():
            raise Unscorable(f"required signal {name!r} missing from the recording")
        return self.bundle.signals[name]

    def opt(self, name: str) -> np.ndarray | None:
        s = self.bundle.signals
        return s[name] if name in s and np.isfinite(s[name]).any() else None

    def gaps(self, t0: float = -math.inf, t1: float = math.inf) -> list[tuple[float, float]]:
        return [(a, b) for a, b in self.bundle.signals.gaps(self.max_gap_s) if b > t0 and a < t1]

    def require_coverage(self, t0: float, t1: float, what: str) -> None:
        """Unscorable if a telemetry gap lies inside [t0, t1], where `what` is judged."""
        g = self.gaps(t0, t1)
        if g:
            a, b = g[0]
            raise Unscorable(f"telemetry gap {a:.2f}-{b:.2f} s ({b - a:.2f} s > {self.max_gap_s:g} s) makes {what} undecidable")

    def snapshot(self, which: str, key: str, *, required: bool = True) -> Any:
        val = self.bundle.snapshot(which, key)  # type: ignore[arg-type]
        if val is None and required:
            raise Unscorable(f"snapshot '{which}.{key}' missing from snapshots.json")
        return val

    # -- results
    def component(self, name: str, earned: float, *, measured: Any = None, tolerance: str = "",
                  window: tuple[float, float] | None = None, explanation: str = "") -> None:
        item = self.task.credit(name)
        e = float(earned)
        if math.isnan(e):
            e = 0.0
        e = min(1.0, max(0.0, e))
        if item.kind == "binary":
            e = 1.0 if e >= 1.0 - 1e-9 else 0.0
        if isinstance(measured, (np.floating, np.integer)):
            measured = measured.item()
        if isinstance(measured, float) and not math.isfinite(measured):
            measured = None
        self.components[name] = Component(name=name, weight=item.weight, earned=e, kind=item.kind, measured=measured,
                                          tolerance=tolerance, window=window, explanation=explanation)

    def safety(self, name: str, ok: bool, *, first_violation_t: float | None = None, explanation: str = "") -> None:
        self.safety_results[name] = SafetyResult(name=name, ok=bool(ok), first_violation_t=first_violation_t,
                                                 explanation=explanation)

    def throughout(self, name: str, cond: Any, explanation: str) -> bool:
        """A hard constraint that must hold on every sample. A violation is decided as soon as it is
        seen; a clean record with telemetry gaps is undecidable (the gap could hide a violation)."""
        ok, t_bad = P.held_throughout(self.t, cond)
        if ok and self.gaps():
            a, b = self.gaps()[0]
            raise Unscorable(f"telemetry gap {a:.2f}-{b:.2f} s makes '{explanation}' undecidable")
        self.safety(name, ok, first_violation_t=t_bad, explanation=explanation if ok else f"violated: {explanation}")
        return ok


def score_bundle(bundle: Bundle, task: "TaskSpec") -> Score:
    """Run the task's verifier on the bundle and apply weighting, the safety gate and unscored rules."""
    vname = task.verifier.name
    ep = bundle.episode
    base = dict(task_id=task.id, verifier=vname, unisolated=ep.unisolated, verifier_version=VERIFIER_API_VERSION)
    if ep.task_id != task.id:
        return Score.unscored(reason=f"bundle is for task {ep.task_id!r}, not {task.id!r}", **base)
    if ep.status in HARNESS_FAULTS:
        return Score.unscored(reason=f"harness fault, not an agent failure: {ep.status}"
                              + (f" ({ep.status_detail})" if ep.status_detail else ""), **base)
    if ep.status == "running":
        last = f"{bundle.signals.t[-1]:.1f} s" if len(bundle.signals) else "no samples"
        return Score.unscored(reason=f"episode did not finish (status 'running', recording ends at {last}): "
                              "the runner stopped before closing the bundle", **base)
    if len(bundle.signals) == 0:
        return Score.unscored(reason="the recording has no samples", **base)
    missing = bundle.signals.missing(task.signals)
    if missing:
        return Score.unscored(reason=f"required signal(s) missing from the recording: {', '.join(missing)}", **base)
    vdef = get(vname)
    params = vdef.params.model_validate(task.verifier.params)
    ctx = VerifyContext(bundle=bundle, task=task, p=params)
    try:
        explanation = vdef.fn(ctx) or ""
    except Unscorable as exc:
        return Score.unscored(reason=str(exc), **base)
    missing_c = [c for c in vdef.components if c not in ctx.components]
    missing_s = [s for s in vdef.safety if s not in ctx.safety_results]
    if missing_c or missing_s:
        raise RuntimeError(f"verifier {vname!r} did not record {missing_c + missing_s}")
    comps = [ctx.components[c.name] for c in task.partial_credit]
    safety = [ctx.safety_results[s.name] for s in task.safety]
    raw = round(sum(c.points for c in comps), 6)
    safe = all(s.ok for s in safety)
    primary_failed = [c.name for c in comps if task.credit(c.name).primary and c.earned == 0.0]
    gated = raw if safe and not primary_failed else 0.0
    notes = []
    if not safe:
        bad = [s.name for s in safety if not s.ok]
        notes.append(f"safety gate: {', '.join(bad)} violated, score 0")
    if primary_failed:
        notes.append(f"primary goal failed: {', '.join(primary_failed)}, score 0")
    if explanation:
        notes.append(explanation)
    success = safe and all(c.earned >= 1.0 - 1e-9 for c in comps)
    return Score(status="scored", score=gated, raw_score=raw, success=success, components=comps, safety=safety,
                 explanation="; ".join(notes), **base)
