"""What a verifier author writes against: `@verifier`, `Params`, `VerifyContext`, `scenario_check`.

A verifier is one Python function registered by name plus a pydantic model of its parameters.
The task YAML names the verifier, gives its tolerances and the weights of its partial-credit
items; the scoring engine (`simbridge._scoring`) applies the safety gate, the unscored rules and
the weighting, so a verifier only measures. Verifiers live in plug-ins (simbridge's own are in
verifiers/); `@verifier` declares one, and the plug-in's `register(registry)` adds its modules'
declarations to the one registry with `register_module` (`simbridge.registry`, kind `verifier`):
as for every kind, registration is the plug-in's explicit `register`, never a side effect of an import.

The data-quality contract (simbridge._signals) is applied by the engine, once: the time axis
before the verifier runs, and each column's range and missing-sample rules when it is first read.
A verifier sees the checked signals (duplicates dropped, out-of-range samples removed, short runs
of missing samples bridged), `VerifyContext.gaps()` reports the gaps of every signal the verifier
has read as well as the gaps of `t`, and the Score carries the `DataQuality` record of the task's
signals and those the verifier read: a column no one reads is never a note (nor costs time).
"""

from __future__ import annotations

import math
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from simbridge import primitives as P
from simbridge._bundle import Bundle
from simbridge._canonical import SIGNALS
from simbridge._errors import Unscorable, error_loc
from simbridge._score import Band, Component, SafetyResult
from simbridge._taskspec import TaskSpec
from simbridge.registry import registry

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
    #: signals the verifier may draw tolerance bands on (`VerifyContext.band`)
    bands: tuple[str, ...] = ()
    #: items that measure *how* the task was done (held altitude, no red light, …): the engine
    #: scales them by the task progress the verifier records (`VerifyContext.progress`), so they
    #: are worth only as much of the task as was done, and nothing when it was not attempted
    quality: tuple[str, ...] = ()


def verifier(
    name: str,
    *,
    params: type[Params] = Params,
    components: tuple[str, ...],
    safety: tuple[str, ...] = (),
    bands: tuple[str, ...] = (),
    quality: tuple[str, ...] = (),
):
    """Declare `fn` as verifier `name` (a plug-in's `register(registry)` adds it with
    `register_module`). It must record every component and safety item it declares, and may draw
    tolerance bands (the report's evidence) on the signals in `bands`. Items in `quality` (a
    subset of `components`) are scaled by the task progress the verifier must then record with
    `VerifyContext.progress`."""
    unknown = [q for q in quality if q not in components]
    if unknown:
        raise ValueError(f"verifier {name!r}: quality items {unknown} are not among its components")

    def deco(fn: VerifierFn) -> VerifierFn:
        vdef = VerifierDef(
            name,
            fn,
            params,
            tuple(components),
            tuple(safety),
            (fn.__doc__ or "").strip(),
            tuple(bands),
            tuple(quality),
        )
        _declarations(fn).append(("verifier", vdef.name, vdef))
        return fn

    return deco


#: (bundle, task) -> what of the task's scenario the recording lacks, or None: per verifier name
ScenarioCheck = Callable[[Bundle, TaskSpec], "str | None"]


def scenario_check(*names: str) -> Callable[[ScenarioCheck], ScenarioCheck]:
    """Declare `fn` as the scenario check of these verifiers (added by `register_module`):
    before the verifier runs, the recording must show the task's scenario (its actors, events,
    map, route); a recording that does not is unscored: "not this task's scenario" (imported) or
    a harness fault (live)."""

    def deco(fn: ScenarioCheck) -> ScenarioCheck:
        _declarations(fn).extend(("scenario_check", n, fn) for n in names)
        return fn

    return deco


def register_module(registry: Any, module: types.ModuleType) -> list[str]:
    """Add the verifiers and scenario checks declared in `module` (`@verifier`,
    `@scenario_check`) to `registry`: what a plug-in's `register(registry)` calls for each of
    its verifier modules, the one way a verifier is registered. Returns the verifiers' names."""
    added = []
    for kind, name, value in vars(module).get(DECLARED, ()):
        if isinstance(value, VerifierDef):
            registry.add(kind, name, value, doc=value.doc.split("\n")[0])
            added.append(name)
        else:
            registry.add(kind, name, value)
    return added


#: the module attribute where `@verifier` and `@scenario_check` list what a module declares
DECLARED = "__simbridge_declared__"


def _declarations(fn: Callable[..., Any]) -> list[tuple[str, str, Any]]:
    """The declaration list of the module `fn` is defined in (made on first use)."""
    module = sys.modules[fn.__module__]
    found: list[tuple[str, str, Any]] = vars(module).setdefault(DECLARED, [])
    return found


def scenario_problem(bundle: Bundle, task: TaskSpec) -> str | None:
    """The unscored reason when the recording is not of the task's scenario (see scenario_check)."""
    reg = registry()
    name = task.verifier.name
    problem = reg.scenario_check(name)(bundle, task) if reg.find("scenario_check", name) is not None else None
    if problem is None:
        return None
    if "imported" in bundle.episode.flags:
        return f"not this task's scenario: {problem}"
    return f"harness fault, not an agent failure: the simulator did not set up this task's scenario: {problem}"


def get(name: str) -> VerifierDef:
    """The registered verifier `name`; KeyError naming the known ones."""
    reg = registry()
    if reg.find("verifier", name) is None:
        raise KeyError(f"no verifier named {name!r} (known: {', '.join(names())})")
    return reg.verifier(name)


def names() -> list[str]:
    return registry().names("verifier")


def check_spec(spec: "TaskSpec") -> None:
    """The task's verifier exists, its params validate and its items match the verifier's."""
    vdef = get(spec.verifier.name)
    try:
        vdef.params.model_validate(spec.verifier.params)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ValueError(f"{error_loc(('params', *err['loc']), indexed=True)}: {err['msg']}") from None
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
    #: tolerance bands the verifier judged signals against, in the order drawn (see band())
    bands: list[Band] = field(default_factory=list)
    #: the signals band() may draw on (the verifier's declared `bands`); None: any
    band_signals: tuple[str, ...] | None = None
    #: how much of the task was done, 0..1 (see progress()); None: not recorded
    task_progress: float | None = None
    progress_note: str = ""

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

    def band(
        self,
        signal: str,
        lo: float,
        hi: float,
        t0: float | None = None,
        t1: float | None = None,
        *,
        label: str = "",
    ) -> None:
        """Record that `signal` was judged against [lo, hi] from t0 to t1 (sim s; None: from the
        episode's start / to its end). The Score carries it and the report draws it: the page
        shows the band the verifier used, never one it re-derives."""
        if self.band_signals is not None and signal not in self.band_signals:
            raise ValueError(f"band on {signal!r}: not among the verifier's declared bands {list(self.band_signals)}")
        lo, hi = float(lo), float(hi)
        self.bands.append(
            Band(
                signal=signal,
                lo=min(lo, hi),
                hi=max(lo, hi),
                t0=None if t0 is None else float(t0),
                t1=None if t1 is None else float(t1),
                label=label,
            )
        )

    def progress(self, fraction: float, explanation: str) -> None:
        """Record how much of the task was done (0..1: 185° of a 360° turn is 0.51, half the route
        0.5, nothing 0). The engine scales the verifier's `quality` items by it: how well a part
        of the task was flown is worth only that part, and holding still earns nothing."""
        f = float(fraction)
        self.task_progress = 0.0 if math.isnan(f) else min(1.0, max(0.0, f))
        self.progress_note = explanation

    def no_events(
        self,
        name: str,
        kinds: tuple[str, ...],
        explanation: str,
        *,
        flag: str | None = None,
        t0: float = -math.inf,
        latched: bool = False,
    ) -> bool:
        """A safety item violated by any event of `kinds` (crash, collision, red_light, …) or any
        sample of the 0/1 signal `flag` set, anywhere in the episode from `t0` on (the whole
        episode by default: a crash after the judged part still gates). A gap in `flag` that could
        hide a violation is undecidable, as in throughout() — unless the flag is `latched`: one the
        simulator never clears once set (the crash flag: FlightGear's and the JSBSim cockpit's
        /sim/crashed, X-Plane's has_crashed), where a clean sample after a gap shows that nothing
        was hidden in it; then only an unknown last sample is undecidable."""
        evs = [e for k in kinds for e in self.bundle.events_of(k) if float(e.t) >= t0]
        t_ev = min((float(e.t) for e in evs), default=None)
        if flag is not None and latched:
            f = self.sig(flag)
            with np.errstate(invalid="ignore"):
                hit = np.flatnonzero((f > 0.5) & (self.t >= t0))
            if hit.size:
                t_hit = float(self.t[hit[0]])
                t_ev = t_hit if t_ev is None or t_hit < t_ev else t_ev
            elif t_ev is None and not np.isfinite(f[-1]):
                raise Unscorable(f"{self._what(flag)} at the recording's end makes '{explanation}' undecidable")
        elif flag is not None:
            f = self.sig(flag)
            with np.errstate(invalid="ignore"):
                cond = ~(f > 0.5) | (self.t < t0)
            ok_flag = self.throughout(name, cond, explanation, signals=(flag,))
            if not ok_flag:
                t_flag = self.safety_results[name].first_violation_t
                t_ev = t_flag if t_ev is None or (t_flag is not None and t_flag < t_ev) else t_ev
        if t_ev is None:
            self.safety(name, True, explanation=explanation)
            return True
        what = ", ".join(sorted({e.kind for e in evs})) or (flag or "")
        self.safety(
            name, False, first_violation_t=t_ev, explanation=f"violated: {explanation} ({what} at t={t_ev:.1f} s)"
        )
        return False

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
