"""POH emergency and abnormal procedures (tasks P01..): one checklist verifier per procedure of
the table in `verifiers/_procedures.py`, scored the AeroCopilotBench way over the trajectory.

Every POH verifier `poh_<procedure>` has the same three items and the same shared constraints:

- `control` (binary, a quality item): the aircraft is flown while the checklist is run (best
  glide, altitude held, ...), a time-weighted fraction from the indication (plus a reaction time)
  to the flare (landing tasks) or the end; worth the procedure's progress (1 once the final state
  is reached, else the fraction of the steps done): flying well is worth nothing on its own;
- `checklist` (linear): the fraction of the POH steps done after the indication; where the POH
  orders them, a step counts only if done after the steps before it that counted;
- `final_state` (binary, primary in the YAMLs): every goal holds on every sample of the last
  `hold_s` seconds (and, for landing tasks, a survivable landing: no crash flag, touchdown sink
  below `max_touchdown_fpm`, stopped upright on the ground, and when a runway is named the whole
  roll-out on it, from the first contact to the stop),
  and the instruction's whole-flight sentences ("as quickly as is safe") are met;
- hard constraints throughout: `no_stall` (IAS below the stall speed of the flap setting while
  airborne above the flare height), `vne` (163 KIAS), `flap_speed` (Vfe 110 KIAS at 10°, 85 KIAS
  beyond), `no_crash` (the crash flag or a crash event anywhere), plus the procedure's own.

Credit only for answering the failure. The failure is the harness's `failure_injected` event;
the procedure answers its *indication*, what the POH says the pilot sees (`_indication`: smoke,
LOW VOLTS, the engine stopping, rough running, the rpm falling, a frozen airspeed indicator),
read from the recorded cockpit. A failure the agent's own actions kept from showing (the master
off before the fire, BOTH before the tank ran dry, ...) scores 0 with the reason, scored: not
"not this task's scenario", which stays for a simulator or import that lacks the failure. A check
on a switch or lever counts only when the control was put there at or after the indication (or
has sat there untouched since the first sample), so a checklist run before the problem earns
nothing; a flight-path check (airspeed, heading, height) counts at any sample after it.

The trial's drawn values (new heading, target height, which tank runs dry) are read from
episode.json `variant.values`, or drawn again from the episode's seed when a bundle lacks the
record. A recording that ends before the failure (an immediate `done`) earns 0 on every item;
one that outlived the failure's trigger without the event is a harness fault (unscored).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simbridge import primitives as P
from simbridge import Bundle, TaskSpec, Unscorable
from simbridge.params import AngleTolDeg, FiniteParams, NonNegativeFinite, PositiveFinite
from simbridge.verifier import VerifyContext, scenario_check, verifier
from simbridge.verifiers._final_state import final_mask, holds
from simbridge.verifiers.landing import runway_frame
from simbridge.verifiers._procedures import (
    CARB_ICE_SEEN,
    MAG_BOTH,
    MAG_L,
    MAG_R,
    MAG_START,
    PROCEDURES,
    Check,
    Constraint,
    Procedure,
    carb_ice,
)

COMPONENTS = ("control", "checklist", "final_state")
COMMON_SAFETY = ("no_stall", "vne", "flap_speed", "no_crash")


class PohParams(FiniteParams):
    hold_s: PositiveFinite = 10.0
    flare_agl_ft: NonNegativeFinite = 20.0
    stall_clean_kias: PositiveFinite = 48.0
    stall_flaps10_kias: PositiveFinite = 43.0
    stall_full_kias: PositiveFinite = 40.0
    vne_kias: PositiveFinite = 163.0
    vfe_10_kias: PositiveFinite = 110.0
    vfe_full_kias: PositiveFinite = 85.0
    max_touchdown_fpm: PositiveFinite = 700.0
    stop_kt: PositiveFinite = 1.0
    upright_max_deg: AngleTolDeg = 30.0
    #: magnetic variation east at the task's area (a heading the agent is given is magnetic)
    mag_var_east_deg: float = 0.0
    #: landing tasks: the runway (task geometry id) the aircraft must roll out and stop on; None:
    #: anywhere survivable
    runway: str | None = None


class Env:
    """What a procedure's conditions see: signals, drawn values, the failure's time and detail."""

    def __init__(self, ctx: VerifyContext, t_fail: float, failure: dict[str, Any] | None) -> None:
        self.ctx, self.t, self.n = ctx, ctx.t, ctx.t.size
        self.t_fail = t_fail
        #: when the failure showed itself (the indication the POH names); set by `_indication`
        self.t_ind = t_fail
        self.failure = failure or {}
        self._values: dict[str, Any] | None = None
        self.cache: dict[str, Any] = {}

    def s(self, name: str) -> np.ndarray:
        return self.ctx.sig(name)

    @property
    def values(self) -> dict[str, Any]:
        if self._values is None:
            self._values = drawn_values(self.ctx)
        return self._values

    def value(self, name: str, default: Any = None) -> Any:
        if name in self.values:
            return self.values[name]
        if default is not None:
            return default
        raise Unscorable(f"the trial's drawn value {name!r} is in neither episode.json variant nor the task's variants")

    @property
    def i_fail(self) -> int:
        return min(int(np.searchsorted(self.t, self.t_fail)), self.n - 1)

    @property
    def alt_at_failure(self) -> float:
        return float(self.s("alt_msl_ft")[self.i_fail])

    @property
    def hdg_at_failure(self) -> float:
        return float(self.s("heading_true_deg")[self.i_fail])

    @property
    def airborne(self) -> np.ndarray:
        return ~P._ground(self.s("on_ground"))

    @property
    def failed_magneto(self) -> str:
        """'L' or 'R': the magneto the harness failed (the event's property path says which)."""
        detail = self.failure.get("detail") or {}
        where = str(detail.get("property") or detail.get("magneto") or "")
        if "left" in where.lower() or where.upper() == "L":
            return "L"
        if "right" in where.lower() or where.upper() == "R":
            return "R"
        raise Unscorable("the failure_injected event does not say which magneto failed")


def drawn_values(ctx: VerifyContext) -> dict[str, Any]:
    """The trial's drawn values: episode.json `variant.values`, else drawn again from its seed."""
    ep = ctx.bundle.episode
    rec = getattr(ep, "variant", None) or (getattr(ep, "extra", None) or {}).get("variant")
    if isinstance(rec, dict) and isinstance(rec.get("values"), dict):
        return dict(rec["values"])
    if not ctx.task.variants:
        return {}
    return dict((ctx.task.drawn(ep.seed).variant or {}).get("values") or {})


def _stall_kias(p: PohParams, flaps: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.where(
            flaps >= 25.0, p.stall_full_kias, np.where(flaps >= 5.0, p.stall_flaps10_kias, p.stall_clean_kias)
        )


def _common_safety(ctx: VerifyContext, p: PohParams) -> None:
    ias, agl, flaps = ctx.sig("ias_kt"), ctx.sig("alt_agl_ft"), ctx.sig("flaps_deg")
    airborne = ~P._ground(ctx.sig("on_ground"))
    with np.errstate(invalid="ignore"):
        high = airborne & (agl > p.flare_agl_ft)
        ctx.throughout(
            "no_stall",
            ~high | (ias >= _stall_kias(p, flaps)),
            f"no stall: IAS ≥ {p.stall_clean_kias:g} KIAS clean, {p.stall_flaps10_kias:g} flaps 10-20°, "
            f"{p.stall_full_kias:g} full flaps while airborne above {p.flare_agl_ft:g} ft AGL",
            signals=("ias_kt", "alt_agl_ft", "flaps_deg", "on_ground"),
        )
        ctx.throughout("vne", ias <= p.vne_kias, f"Vne {p.vne_kias:g} KIAS never exceeded", signals=("ias_kt",))
        vfe = np.where(flaps > 12.0, p.vfe_full_kias, np.where(flaps > 2.0, p.vfe_10_kias, np.inf))
        ctx.throughout(
            "flap_speed",
            ias <= vfe,
            f"flap speed: ≤ {p.vfe_10_kias:g} KIAS with 10° of flaps, ≤ {p.vfe_full_kias:g} KIAS beyond",
            signals=("ias_kt", "flaps_deg"),
        )


def _own_safety(ctx: VerifyContext, env: Env | None, c: Constraint) -> None:
    if env is None:  # ended before the failure: the procedure's own constraints had nothing to judge
        ctx.safety(c.name, True, explanation=f"{c.text} (the episode ended before the failure)")
        return
    cond = c.cond(env)
    if c.window == "after_failure":
        cond = cond | (env.t < env.t_fail)
    ctx.throughout(c.name, cond, c.text, signals=c.signals or None)


def _trigger_bound(ctx: VerifyContext, system: str) -> tuple[float | None, float | None]:
    """(latest trigger time, lowest trigger height) of the task's failure of `system`."""
    for f in ctx.task.initial_state.failures:
        if f.system == system:
            tr = f.trigger
            t_hi = tr.after_s_between[1] if tr.after_s_between else tr.after_s
            h_lo = tr.agl_ft_between[0] if tr.agl_ft_between else tr.agl_ft
            return t_hi, h_lo
    return None, None


def _zero(ctx: VerifyContext, why: str) -> str:
    for n in COMPONENTS:
        ctx.component(n, 0.0, explanation=why)
    return why


def _failure_time(ctx: VerifyContext, proc: Procedure) -> tuple[float | None, dict[str, Any] | None, str]:
    """(when the procedure starts, the failure event's data, why not when it never did). None
    with a reason: the recording ended before it (scored 0); Unscorable: a harness fault."""
    t = ctx.t
    t_end = float(t[-1])
    if proc.failure is not None:
        evs = [e for e in ctx.bundle.events_of("failure_injected") if e.data.get("system") == proc.failure]
        if evs:
            return float(evs[0].data.get("t", evs[0].t) or evs[0].t), dict(evs[0].data), ""
        t_hi, h_lo = _trigger_bound(ctx, proc.failure)
        if h_lo is not None:
            peak = float(np.nanmax(ctx.sig("alt_agl_ft"))) if t.size else 0.0
            if peak < h_lo:
                return None, None, f"no {proc.failure} failure: the aircraft never reached {h_lo:g} ft AGL"
        if t_hi is not None and t_end < t_hi + ctx.max_gap_s:
            return (
                None,
                None,
                f"the episode ended at t={t_end:.1f} s, before the {proc.failure} failure (by {t_hi:g} s)",
            )
        raise Unscorable(f"no failure_injected event for {proc.failure!r} although its trigger passed: harness fault")
    if proc.starts_when is not None:
        env = Env(ctx, float(t[0]), None)
        first = P.first_true(t, proc.starts_when(env))
        if first is None:
            fixed = _deviation_fixed(ctx)
            if fixed:
                return None, None, f"the engine never stopped: {fixed} before it could (not the task's emergency)"
            if t_end - float(t[0]) < 60.0:
                return None, None, f"the episode ended at t={t_end:.1f} s before the engine stopped"
            raise Unscorable("the configuration deviation never stopped the engine: harness fault")
        return float(first), None, ""
    return float(t[0]), None, ""


def _deviation_fixed(ctx: VerifyContext) -> str:
    """What the pilot changed of a start configuration that would stop the engine (fuel selector
    OFF, mixture idle cut-off, magnetos OFF at the first sample), before it stopped; "" if none."""
    out = []
    for name, bad, what in (
        ("fuel_selector", lambda x: _is(x, 0), "the fuel selector moved off OFF"),
        ("mixture", lambda x: x <= 0.05, "the mixture moved out of cut-off"),
        ("magnetos", lambda x: _is(x, 0), "the magnetos switched on"),
    ):
        x = ctx.opt(name)
        if x is None or not x.size:
            continue
        with np.errstate(invalid="ignore"):
            b = np.asarray(bad(x), dtype=bool)
        if b[0] and not b.all():
            out.append(what)
    return ", ".join(out)


def _landing(ctx: VerifyContext, p: PohParams, env: Env) -> tuple[bool, str]:
    t = ctx.t
    ground, vs, gs = ctx.sig("on_ground"), ctx.sig("vs_fpm"), ctx.sig("gs_kt")
    crashed, bank, pitch = ctx.sig("crashed"), ctx.sig("bank_deg"), ctx.sig("pitch_deg")
    after = t >= env.t_fail
    problems = []
    if np.any(crashed[after] > 0.5):
        problems.append(f"crash flag at t={t[after][np.argmax(crashed[after] > 0.5)]:.1f} s")
    tds = [td for td in P.touchdowns(t, ground, vs) if td.t > env.t_fail]
    if not tds:
        problems.append("no touchdown")
    else:
        if np.isfinite(tds[0].vs_fpm) and not tds[0].vs_fpm > -p.max_touchdown_fpm:
            problems.append(f"touchdown at {tds[0].vs_fpm:.0f} fpm")
        stop = P.stop_time(t, gs, after_t=tds[-1].t, threshold=p.stop_kt)
        if stop is None or not bool(P._ground(ground)[-1]):
            problems.append("not stopped on the ground at the end")
        if not (abs(bank[-1]) <= p.upright_max_deg and abs(pitch[-1]) <= p.upright_max_deg):
            problems.append(f"not upright (bank {bank[-1]:.0f}°, pitch {pitch[-1]:.0f}°)")
        if p.runway is not None and not problems:
            # the whole roll-out on the pavement, from the first contact to the end: a runway
            # excursion is an accident even when the aircraft comes back and stops on it
            frame = runway_frame(ctx, p.runway, 0.0)
            i0 = tds[0].index
            on = frame.on_runway(*frame.xy(ctx.sig("lat_deg")[i0:], ctx.sig("lon_deg")[i0:]))
            if not on[-1]:
                problems.append(f"stopped off runway {p.runway}")
            elif not on.all():
                problems.append(f"left runway {p.runway} on the roll-out at t={t[i0 + int(np.argmin(on))]:.1f} s")
    return not problems, "; ".join(problems) or "landed, stopped upright"


def _first_at_or_after(t: np.ndarray, cond: np.ndarray, t0: float) -> float | None:
    hit = np.flatnonzero(np.asarray(cond, dtype=bool) & (t >= t0 - 1e-9))
    return float(t[hit[0]]) if hit.size else None


def _is(x: np.ndarray, value: float) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.rint(x) == value


def _engine_stopped(ctx: VerifyContext) -> np.ndarray | None:
    run, rpm = ctx.opt("engine_running"), ctx.opt("engine_rpm")
    if run is None and rpm is None:
        return None
    out = np.zeros(ctx.t.size, dtype=bool)
    with np.errstate(invalid="ignore"):
        if run is not None:
            out |= np.rint(run) == 0
        if rpm is not None:
            out |= rpm < 1200.0
    return out


def _indication(ctx: VerifyContext, proc: Procedure, env: Env) -> tuple[float | None, str]:
    """(when the failure first showed itself as the POH says the pilot sees it, what showed), or
    (None, why it never did). Read from the recorded cockpit signals (annunciators, gauges, the
    engine); where a recording lacks the gauge's signal, from the cockpit's own rule applied to
    the recorded switches (e.g. LOW VOLTS lights on the battery's 24.3 V as soon as the
    alternator is off line with the battery master on)."""
    t, t_fail = ctx.t, env.t_fail
    system = proc.failure
    if system is None:
        if proc.starts_when is not None:
            return t_fail, "the engine stopped (tachometer below 1,200 rpm)"
        return t_fail, "the fuel gauges show the selected tank almost empty from the start"
    if system == "fuel_empty_tank":  # the tank the selector is on runs dry: the engine stops
        stopped = _engine_stopped(ctx)
        if stopped is None:
            raise Unscorable("the engine's signals (engine_running, engine_rpm) are missing from the recording")
        got = _first_at_or_after(t, stopped, t_fail)
        if got is not None:
            return got, "the engine stopped"
        return None, "the engine never stopped: the selector was on a tank with fuel before the tank ran dry"
    if system == "engine_rough":
        mags = ctx.sig("magnetos")
        bad = MAG_L if env.failed_magneto == "L" else MAG_R
        rough = _is(mags, MAG_BOTH) | _is(mags, MAG_START) | _is(mags, bad)
        got = _first_at_or_after(t, rough, t_fail)
        if got is not None:
            return got, "the engine ran rough and lost rpm (magnetos on BOTH or on the failed one)"
        return None, "the engine never ran rough: the magnetos were on the good magneto alone before the failure"
    if system == "carb_ice":
        ice = carb_ice(env)
        seen = ice >= CARB_ICE_SEEN
        rpm, thr = ctx.opt("engine_rpm"), ctx.opt("throttle")
        if rpm is not None and thr is not None:
            i = env.i_fail
            with np.errstate(invalid="ignore"):
                seen = seen | ((rpm < rpm[i] - 50.0) & (thr >= thr[i] - 0.02) & (t >= t_fail))
        got = _first_at_or_after(t, seen, t_fail)
        if got is not None:
            return got, "the rpm fell (carburettor ice)"
        return None, "no carburettor ice built (carb heat was on before it could, or the episode ended first)"
    if system == "alternator":
        # LOW VOLTS lights (and the ammeter shows the discharge) once the failed alternator is
        # asked to charge: battery master and ALT on (the battery's 24.3 V is below the light's
        # 24.5 V). With ALT already off, the failure changes nothing the pilot can see.
        cue = _is(ctx.sig("master_bat"), 1) & _is(ctx.sig("master_alt"), 1)
        got = _first_at_or_after(t, cue, t_fail)
        if got is not None:
            return got, "LOW VOLTS lit, the ammeter showing a discharge"
        return None, "LOW VOLTS never lit for the failure: the master (BAT or ALT) was off before the alternator failed"
    if system == "pitot":
        # the airspeed indicator freezes at the blockage; with pitot heat already on (switched on
        # by the pilot, not handed on) the heat clears it unanswered
        # unanswered; switched on and off again before it, the heat was worked before the problem
        # (a toggling agent would otherwise be paid whenever the blockage fell in an off phase)
        heat = _is(ctx.sig("pitot_heat"), 1)
        i = env.i_fail
        before = heat[: i + 1]
        turned_on = np.flatnonzero(before[1:] & ~before[:-1])
        if turned_on.size:
            on = float(t[int(turned_on[0]) + 1])
            return (
                None,
                f"pitot heat was switched on at t={on:.1f} s, before the blockage (the problem answered in advance)",
            )
        return t_fail, "the airspeed indicator froze (pitot blocked)"
    if system == "electrical_fire":
        got = _first_at_or_after(t, _is(ctx.sig("smoke"), 1), t_fail)
        if got is not None:
            return got, "smoke in the cabin"
        return None, "no smoke ever built: the electrical bus was dead before the fire could start"
    # failures no action of the pilot keeps from showing, from the failure on: the engine stops,
    # the suction falls to 0 (VAC), the airspeed indicator freezes (pitot heat does not prevent a
    # blockage: it clears one after ~40 s of heating), the flaps jam, the door opens (DOOR)
    return t_fail, {
        "engine": "the engine stopped",
        "vacuum": "suction lost (VAC)",
        "flaps": "the flaps jammed",
        "door": "the cabin door opened (DOOR)",
    }.get(system, f"the {system} failure")


def _credit(env: Env, check: Check, t_ind: float) -> np.ndarray:
    """Samples where `check` counts: after the indication, and for an action (a switch or lever)
    only when the control was put there at or after the indication, or has sat there untouched
    since the first sample (the configuration the pilot was handed)."""
    cond = np.asarray(check.cond(env), dtype=bool)
    ok = cond & (env.t >= t_ind - 1e-9)
    if not check.action:
        return ok
    idx = np.arange(cond.size)
    prev = np.concatenate(([False], cond[:-1]))
    start = np.maximum.accumulate(np.where(cond & ~prev, idx, 0))
    began = env.t[start]
    return ok & ((began >= t_ind - 1e-9) | (start == 0))


def _no_crash(ctx: VerifyContext) -> None:
    flag = "crashed" if ctx.opt("crashed") is not None else None
    ctx.no_events(
        "no_crash",
        ("crash",),
        "no crash anywhere in the episode (the simulator's crash flag or crash event)",
        flag=flag,
    )


def _judge(ctx: VerifyContext, proc: Procedure) -> str:
    p: PohParams = ctx.p
    t = ctx.t
    _common_safety(ctx, p)
    _no_crash(ctx)
    t_fail, data, why = _failure_time(ctx, proc)
    if t_fail is None:
        for c in proc.safety:
            _own_safety(ctx, None, c)
        ctx.progress(0.0, why)
        return _zero(ctx, why)
    env = Env(ctx, t_fail, data)
    for c in proc.safety:
        _own_safety(ctx, env, c)
    t_end = float(t[-1])
    t_ind, shown = _indication(ctx, proc, env)
    if t_ind is None:
        why = (
            f"the {proc.failure or 'configured'} failure at t={t_fail:.1f} s never showed itself ({shown}): "
            "nothing of the procedure answered it"
        )
        ctx.progress(0.0, why)
        return _zero(ctx, why)
    env.t_ind = t_ind

    # the flight: from the indication (plus the reaction time) to the flare or the end
    t_ctrl_end = t_end
    if proc.landing:
        agl = ctx.sig("alt_agl_ft")
        with np.errstate(invalid="ignore"):
            low = P.first_true(t, (t > t_fail) & (agl < p.flare_agl_ft))
        if low is not None:
            t_ctrl_end = float(low)
    c0 = t_ind + proc.control.after_s
    if proc.control.until is not None:
        ok_again = proc.control.until(env)
        lost = P.first_true(t, ~ok_again & (t >= t_fail))
        back = P.first_true(t, ok_again & (t > lost)) if lost is not None else t_fail
        if back is not None and float(back) <= c0:
            ctx.component("control", 1.0, explanation=f"recovered at t={float(back):.1f} s, within the reaction time")
            t_ctrl_end = -np.inf
        elif back is not None:
            t_ctrl_end = min(t_ctrl_end, float(back))
    if t_ctrl_end == -np.inf:
        pass
    elif t_ctrl_end - c0 < 1.0:
        ctx.component("control", 0.0, explanation="no time flown after the failure", window=(c0, t_ctrl_end))
    else:
        ctx.require_coverage(c0, t_ctrl_end, "the flight after the failure", signals=proc.control.signals or None)
        frac = P.fraction_true(t, proc.control.cond(env), c0, t_ctrl_end, ctx.max_gap_s)
        ctx.component(
            "control",
            frac >= proc.control.fraction_min,
            measured=frac,
            tolerance=proc.control.text,
            window=(c0, t_ctrl_end),
        )

    # the checklist: steps after the indication, in order where the POH orders them; an action
    # counts only when the control was moved there after the indication (never before the problem)
    t_cur = t_ind
    done: list[str] = []
    missed: list[str] = []
    for step in proc.steps:
        ok = _credit(env, step, t_ind) & (t >= (t_cur if proc.ordered else t_ind) - 1e-9)
        first = P.first_true(t, ok)
        if first is None:
            missed.append(step.text)
            continue
        done.append(step.text)
        if proc.ordered:
            t_cur = float(first)
    n = len(proc.steps)
    steps_frac = len(done) / n if n else 1.0
    ctx.component(
        "checklist",
        steps_frac,
        measured=f"{len(done)}/{n}",
        tolerance=("in the POH's order: " if proc.ordered else "")
        + "; ".join(s.text for s in proc.steps)
        + f" (after the indication at t={t_ind:.1f} s: {shown})",
        window=(t_ind, t_end),
        explanation=("missed: " + "; ".join(missed)) if missed else "every step done",
    )

    # the final state: every goal held over the last hold_s seconds (a switch goal set after the
    # indication or untouched since the start), and the instruction's whole-flight sentences
    if t_end - max(t_ind, float(t[0])) < p.hold_s:
        why = f"the episode ended {t_end - t_ind:.1f} s after the indication, before a {p.hold_s:g} s final state"
        ctx.component("final_state", 0.0, explanation=why)
        ctx.progress(steps_frac, f"{len(done)} of {n} steps; {why}")
        return ""
    mask, window = final_mask(ctx, p.hold_s)
    failed = [g.text for g in proc.goals if not holds(_credit(env, g, t_ind), mask)]
    notes = []
    for sen in proc.sentences:
        met, what = sen.judge(env)
        notes.append(what)
        if not met:
            failed.append(f"{sen.text}: {what}")
    if proc.landing:
        landed, what = _landing(ctx, p, env)
        if not landed:
            failed.append(what)
    ctx.component(
        "final_state",
        not failed,
        measured="; ".join(failed) or "; ".join(["every goal holds", *notes]),
        tolerance="; ".join(
            [g.text for g in proc.goals]
            + [s.text for s in proc.sentences]
            + (["survivable landing"] if proc.landing else [])
        ),
        window=window,
    )
    if not failed:
        ctx.progress(1.0, "the procedure's final state reached")
    else:
        ctx.progress(steps_frac, f"{len(done)} of {n} steps, the final state not reached")
    return ""


def _make(proc: Procedure) -> None:
    def fn(ctx: VerifyContext) -> str:
        return _judge(ctx, proc)

    fn.__doc__ = f"C172 POH: {proc.title} (the procedure table, verifiers/_procedures.py)."
    verifier(
        f"poh_{proc.name}",
        params=PohParams,
        components=COMPONENTS,
        safety=(*COMMON_SAFETY, *(c.name for c in proc.safety)),
        quality=("control",),
    )(fn)


for _proc in PROCEDURES.values():
    _make(_proc)


@scenario_check(*(f"poh_{n}" for n in PROCEDURES))
def _set_up(bundle: Bundle, task: TaskSpec) -> str | None:
    """The simulator injected the task's failure and applied its configuration: a session that
    reports either unsupported ran another task (unscored, never a silent pass or 0)."""
    info = bundle.episode.sim_info or {}
    missing = [str(u) for u in info.get("unsupported") or [] if str(u).startswith(("failure of", "configuration"))]
    return f"unsupported by the simulator: {', '.join(missing)}" if missing else None
