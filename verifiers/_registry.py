"""Verifier registry and the context a verifier function works in.

A verifier is one Python function registered by name plus a pydantic model of its parameters.
The task YAML names the verifier, gives its tolerances and the weights of its partial-credit
items; the framework applies the safety gate, the unscored rules and the weighting, so a
verifier only measures.

The data-quality contract (simbridge._signals) is applied here, once: the time axis before the
verifier runs, and each column's range and missing-sample rules when it is first read. A verifier
sees the checked signals (duplicates dropped, out-of-range samples removed, short runs of missing
samples bridged), `VerifyContext.gaps()` reports the gaps of every signal the verifier has read
as well as the gaps of `t`, and the Score carries the `DataQuality` record of the task's signals
and those the verifier read: a column no one reads is never a note (nor costs time).
"""

from __future__ import annotations

import importlib
import math
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from simbridge._bundle import HARNESS_FAULTS, Bundle
from simbridge._canonical import SIGNALS
from simbridge._errors import Unscorable
from simbridge._score import Component, DataQuality, SafetyResult, Score
from simbridge._signals import check_quality
from simbridge._taskspec import TaskSpec

from . import primitives as P

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


#: (bundle, task) -> what of the task's scenario the recording lacks, or None: per verifier name
ScenarioCheck = Callable[[Bundle, TaskSpec], "str | None"]
_SCENARIO_CHECKS: dict[str, ScenarioCheck] = {}


def scenario_check(*names: str) -> Callable[[ScenarioCheck], ScenarioCheck]:
    """Register `fn` as the scenario check of these verifiers: before the verifier runs, the
    recording must show the task's scenario (its actors, events, map, route); a recording that
    does not is unscored: "not this task's scenario" (imported) or a harness fault (live)."""

    def deco(fn: ScenarioCheck) -> ScenarioCheck:
        for n in names:
            _SCENARIO_CHECKS[n] = fn
        return fn

    return deco


def scenario_problem(bundle: Bundle, task: TaskSpec) -> str | None:
    """The unscored reason when the recording is not of the task's scenario (see scenario_check)."""
    _load_builtin()
    check = _SCENARIO_CHECKS.get(task.verifier.name)
    problem = check(bundle, task) if check is not None else None
    if problem is None:
        return None
    if "imported" in bundle.episode.flags:
        return f"not this task's scenario: {problem}"
    return f"harness fault, not an agent failure: the simulator did not set up this task's scenario: {problem}"


def _load_builtin() -> None:
    global _LOADED
    if _LOADED:
        return
    # the modules beside this one, found by folder: the package imports this module, not the reverse
    for mod in pkgutil.iter_modules([str(Path(__file__).parent)]):
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
        raise ValueError(
            f"partial_credit items {credit} do not match verifier {vdef.name!r} components {list(vdef.components)}"
        )
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
    #: signals the verifier has read through sig()/opt(): their gaps are gaps of the evidence
    read: list[str] = field(default_factory=list)
    #: every signal the verifier asked sig()/opt() for, found or not: its data quality is reported
    asked: list[str] = field(default_factory=list)
    #: set when the recording is a single sample: reading a time series is then undecidable
    too_short: str | None = None

    @property
    def t(self) -> np.ndarray:
        return self.bundle.signals.t

    @property
    def max_gap_s(self) -> float:
        return self.task.max_sample_gap_s

    def _ask(self, name: str) -> None:
        if name not in self.asked:
            self.asked.append(name)

    def _note(self, name: str) -> None:
        if name not in self.read:
            self.read.append(name)

    def sig(self, name: str) -> np.ndarray:
        """A required signal; missing → the episode is unscored, never a silent 0."""
        self._ask(name)
        if self.too_short:
            raise Unscorable(self.too_short)
        if not self.bundle.signals.valid(name) or not len(self.bundle.signals):
            raise Unscorable(f"required signal {name!r} missing from the recording")
        self._note(name)
        return self.bundle.signals[name]

    def opt(self, name: str) -> np.ndarray | None:
        self._ask(name)
        s = self.bundle.signals
        if s.valid(name) and len(s):
            self._note(name)
            return s[name]
        return None

    def gaps(self, t0: float = -math.inf, t1: float = math.inf) -> list[tuple[float, float]]:
        """Stretches overlapping (t0, t1) with no rows, or with no valid sample of a signal the
        verifier has read, longer than max_sample_gap_s; sorted by start."""
        return [(a, b) for a, b, _ in self._gaps(t0, t1)]

    def _gaps(
        self, t0: float = -math.inf, t1: float = math.inf, signals: "tuple[str, ...] | list[str] | None" = None
    ) -> list[tuple[float, float, str]]:
        s = self.bundle.signals
        out = [(a, b, "") for a, b in s.gaps(self.max_gap_s)]
        for name in self.read if signals is None else signals:
            out += [(a, b, name) for a, b in s.value_gaps(name, self.max_gap_s)]
        return sorted((g for g in out if g[1] > t0 and g[0] < t1), key=lambda g: (g[0], g[1]))

    @staticmethod
    def _what(name: str) -> str:
        if not name:
            return "telemetry gap"
        desc = SIGNALS.get(name, "")
        return f"signal {name!r}" + (f" ({desc.split(',')[0]})" if desc else "") + " missing"

    def require_coverage(self, t0: float, t1: float, what: str, *, signals: tuple[str, ...] | None = None) -> None:
        """Unscorable if a telemetry gap, or a gap of a signal read so far (or of `signals`, when
        the verifier names the ones `what` depends on), lies inside [t0, t1], where `what` is judged."""
        g = self._gaps(t0, t1, signals)
        if g:
            a, b, name = g[0]
            raise Unscorable(
                f"{self._what(name)} {a:.2f}-{b:.2f} s ({b - a:.2f} s > {self.max_gap_s:g} s, a gap) "
                f"makes {what} undecidable"
            )

    def snapshot(self, which: str, key: str, *, required: bool = True) -> Any:
        val = self.bundle.snapshot(which, key)  # type: ignore[arg-type]
        if val is None and required:
            raise Unscorable(f"snapshot '{which}.{key}' missing from snapshots.json")
        return val

    # -- results
    def component(
        self,
        name: str,
        earned: float,
        *,
        measured: Any = None,
        tolerance: str = "",
        window: tuple[float, float] | None = None,
        explanation: str = "",
    ) -> None:
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
        elif isinstance(measured, float):
            # six significant digits: enough to see why a value at a tolerance's edge earned
            # nothing (0.7996 of the turn against ≥ 0.8), which a verifier's rounding hid
            measured = float(f"{measured:.6g}")
        self.components[name] = Component(
            name=name,
            weight=item.weight,
            earned=e,
            kind=item.kind,
            measured=measured,
            tolerance=tolerance,
            window=window,
            explanation=explanation,
        )

    def safety(self, name: str, ok: bool, *, first_violation_t: float | None = None, explanation: str = "") -> None:
        self.safety_results[name] = SafetyResult(
            name=name, ok=bool(ok), first_violation_t=first_violation_t, explanation=explanation
        )

    def throughout(self, name: str, cond: Any, explanation: str, *, signals: tuple[str, ...] | None = None) -> bool:
        """A hard constraint that must hold on every sample. A violation is decided as soon as it is
        seen on a sample where every signal read so far (or every one of `signals`, when the
        verifier names the ones `cond` depends on) is known; a clean record with a gap (of `t` or
        of those signals) is undecidable: the gap could hide a violation, NaN never "holds"."""
        deps = self.read if signals is None else signals
        known = np.ones(self.t.shape, dtype=bool)
        for n in deps:
            known &= np.isfinite(self.bundle.signals.get(n))  # a signal not recorded is unknown throughout
        c = P._as_bool(cond, self.t.size)
        ok, t_bad = P.held_throughout(self.t, c | ~known)
        if ok:
            g = self._gaps(signals=deps)
            if g:
                a, b, sig = g[0]
                raise Unscorable(f"{self._what(sig)} {a:.2f}-{b:.2f} s makes '{explanation}' undecidable")
            if not known.all():  # unknown samples outside a gap cannot occur (short runs are bridged); be safe
                i = int(np.flatnonzero(~known)[0])
                raise Unscorable(f"samples missing at t={self.t[i]:.2f} s make '{explanation}' undecidable")
        self.safety(name, ok, first_violation_t=t_bad, explanation=explanation if ok else f"violated: {explanation}")
        return ok


class _ScoreHeader(TypedDict):
    """The fields every Score from score_bundle carries, scored or not."""

    task_id: str
    verifier: str
    unisolated: bool
    verifier_version: str
    flags: list[str]
    data_quality: DataQuality | None


def score_bundle(bundle: Bundle, task: "TaskSpec") -> Score:
    """Run the task's verifier on the bundle and apply weighting, the safety gate and unscored rules."""
    vname = task.verifier.name
    ep = bundle.episode
    # the episode's own flags (lockstep, time_limit_cut, truncated_import, audit_failed …) travel with
    # the score, so a score written by the runner says what a re-verification says
    base = _ScoreHeader(
        task_id=task.id,
        verifier=vname,
        unisolated=ep.unisolated,
        verifier_version=VERIFIER_API_VERSION,
        flags=list(ep.flags),
        data_quality=None,
    )
    if ep.task_id != task.id:
        return Score.unscored(reason=f"bundle is for task {ep.task_id!r}, not {task.id!r}", **base)
    if ep.status in HARNESS_FAULTS:
        return Score.unscored(
            reason=f"harness fault, not an agent failure: {ep.status}"
            + (f" ({ep.status_detail})" if ep.status_detail else ""),
            **base,
        )
    if ep.status == "running":
        last = f"{bundle.signals.t[-1]:.1f} s" if len(bundle.signals) else "no samples"
        return Score.unscored(
            reason=f"episode did not finish (status 'running', recording ends at {last}): "
            "the runner stopped before closing the bundle",
            **base,
        )
    if len(bundle.signals) == 0:
        return Score.unscored(reason="the recording has no samples", **base)
    # the time axis is checked whole; a column's range and missing samples when it is first read,
    # so the quality record (and its cost) covers only the signals the task and its verifier read
    checked = check_quality(bundle.signals, task.max_sample_gap_s, sim_end_s=_sim_end_s(ep), on_read=True)
    episode_flags = list(base["flags"])

    def report_quality(asked: list[str]) -> None:
        """Data quality of the columns the task or the verifier read, into the score's header."""
        dq = checked.report([*task.signals, *asked])
        base["data_quality"] = dq
        base["flags"] = [*episode_flags, *(f for f in dq.flags() if f not in episode_flags)]

    report_quality([])
    dq = checked.quality
    if checked.broken:
        return Score.unscored(reason=f"broken recording: {checked.broken}", **base)
    missing = checked.signals.missing(task.signals)
    if missing:
        why = [
            f"{m} ({dq.signals[m].out_of_range} sample(s) out of range)"
            if m in dq.signals and dq.signals[m].out_of_range
            else m
            for m in missing
        ]
        return Score.unscored(reason=f"required signal(s) missing from the recording: {', '.join(why)}", **base)
    bundle = Bundle(bundle.path, ep, checked.signals, bundle.events, bundle.snapshots, bundle.actions, bundle.files)
    if (problem := scenario_problem(bundle, task)) is not None:
        return Score.unscored(reason=problem, **base)
    vdef = get(vname)
    params = vdef.params.model_validate(task.verifier.params)
    ctx = VerifyContext(bundle=bundle, task=task, p=params, too_short=checked.single)
    try:
        explanation = vdef.fn(ctx) or ""
    except Unscorable as exc:
        report_quality(ctx.asked)
        violated = [r for r in ctx.safety_results.values() if not r.ok]
        if not violated and checked.single and str(exc) == checked.single and ep.status in AGENT_ENDED:
            # The agent itself ended the episode (gave up, went away) before a second sample:
            # nothing was flown, which is the agent's failure, scored 0, never hidden as unscored.
            for c in vdef.components:
                if c not in ctx.components:
                    ctx.component(c, 0.0, explanation=f"not shown: the agent ended the episode ({ep.status}) at once")
            return Score(
                status="scored",
                score=0.0,
                raw_score=0.0,
                success=False,
                components=[ctx.components[c.name] for c in task.partial_credit],
                safety=[ctx.safety_results[x.name] for x in task.safety if x.name in ctx.safety_results],
                explanation=f"the agent ended the episode ({ep.status}) before anything could be judged: {exc}",
                **base,
            )
        if not violated:
            return Score.unscored(reason=str(exc), **base)
        # A hard constraint was already seen violated: the safety gate decides the score (0)
        # whatever the undecidable items would have earned. The agent's failure is scored.
        for c in vdef.components:
            if c not in ctx.components:
                ctx.component(c, 0.0, explanation=f"not judged: {exc}")
        comps = [ctx.components[c.name] for c in task.partial_credit]
        safety = [ctx.safety_results[s.name] for s in task.safety if s.name in ctx.safety_results]  # judged only
        return Score(
            status="scored",
            score=0.0,
            raw_score=None,
            success=False,
            components=comps,
            safety=safety,
            explanation=f"safety gate: {', '.join(r.name for r in violated)} violated, score 0; "
            f"the rest not judged: {exc}",
            **base,
        )
    report_quality(ctx.asked)
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
    return Score(
        status="scored",
        score=gated,
        raw_score=raw,
        success=success,
        components=comps,
        safety=safety,
        explanation="; ".join(notes),
        **base,
    )


#: statuses in which the agent itself ended the episode early (its own failure, always scored)
AGENT_ENDED = frozenset({"agent_quit", "agent_disconnected"})


def _sim_end_s(ep: Any) -> float | None:
    """The sim time the episode ended at, if episode.json tells it."""
    v = getattr(ep, "sim_end_s", None)
    try:
        return float(v) if v is not None else None
    except (TypeError, ValueError):
        return None
