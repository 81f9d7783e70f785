"""The procedure table of the POH tasks: each C172 emergency or abnormal procedure as final-state
goals, checklist steps (ordered where the POH orders them), a flight-control criterion and hard
safety constraints, judged on the recorded trajectory by the shared checklist verifier
(`verifiers/poh.py`, one verifier `poh_<name>` per procedure).

The steps are the POH's, for the controls the embedded JSBSim cockpit (c172x) has: it has no
fuel shutoff valve, fuel pump, standby battery or circuit breakers, so those steps are absent;
its master switch is split BAT/ALT and its magneto key has OFF/R/L/BOTH/START. The numbers are
the C172S's (POH Section 2 and 3): best glide 68 KIAS (flaps up), 70 KIAS flaps up / 65 KIAS
flaps down for a forced landing, Vne 163 KIAS, Vfe 110 KIAS (10°) / 85 KIAS (more), stall
48 KIAS clean / 40 KIAS full flaps.

A condition is a function of an `Env` (the recording's signals, the trial's drawn values, the
failure event, when the failure showed itself) returning one boolean per sample; NaN is never true.

A check on a switch or lever (`Check.action`) is a pilot's action: it counts only when the
control was put there after the failure showed itself (or was there, untouched, from the start
of the recording); a check on the flight path (airspeed, heading, height) is a state that counts
at any sample after the indication.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from simbridge.verifiers.poh import Env

Cond = Callable[["Env"], np.ndarray]

#: the controls a check on which is an action of the pilot (see `Check.action`)
CONTROLS = frozenset(
    {
        "fuel_selector",
        "mixture",
        "magnetos",
        "throttle",
        "master_bat",
        "master_alt",
        "avionics",
        "pitot_heat",
        "carb_heat",
        "cabin_air",
        "landing_light",
        "taxi_light",
    }
)

# discrete positions of the canonical signals
SEL_OFF, SEL_LEFT, SEL_RIGHT, SEL_BOTH = 0, 1, 2, 3
MAG_OFF, MAG_R, MAG_L, MAG_BOTH, MAG_START = 0, 1, 2, 3, 4


def _eq(name: str, value: float) -> Cond:
    def f(e: "Env") -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.rint(e.s(name)) == value

    return f


def _ge(name: str, value: float) -> Cond:
    def f(e: "Env") -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return e.s(name) >= value

    return f


def _le(name: str, value: float) -> Cond:
    def f(e: "Env") -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return e.s(name) <= value

    return f


def _all(*conds: Cond) -> Cond:
    def f(e: "Env") -> np.ndarray:
        out = np.ones(e.n, dtype=bool)
        for c in conds:
            out &= c(e)
        return out

    return f


def _any(*conds: Cond) -> Cond:
    def f(e: "Env") -> np.ndarray:
        out = np.zeros(e.n, dtype=bool)
        for c in conds:
            out |= c(e)
        return out

    return f


@dataclass(frozen=True)
class Check:
    """One step or goal: the POH's words and the condition that shows it done."""

    text: str
    cond: Cond
    signals: tuple[str, ...] = ()

    def said(self, text: str) -> "Check":
        """The same condition in other words: a step's state as the goal that it holds at the end."""
        return replace(self, text=text)

    @property
    def action(self) -> bool:
        """A check on a switch or lever: the pilot's action, credited only when the control was
        moved there after the indication it answers (or sat there untouched from the start)."""
        return any(s in CONTROLS for s in self.signals)


@dataclass(frozen=True)
class Sentence:
    """A goal or limit of the instruction judged over the whole flight, not on the final window
    (e.g. "as quickly as is safe"): `judge` returns (met, what was measured)."""

    text: str
    judge: Callable[["Env"], tuple[bool, str]]
    signals: tuple[str, ...] = ()


@dataclass(frozen=True)
class Control:
    """Flying the aircraft while the procedure is run: `cond` holds for at least `fraction_min`
    of the time from the failure (plus `after_s`) to the flare (landing tasks) or the end."""

    text: str
    cond: Cond
    fraction_min: float = 0.7
    after_s: float = 0.0
    signals: tuple[str, ...] = ()
    #: the window ends when this first holds after the failure (e.g. the engine runs again)
    until: Cond | None = None


@dataclass(frozen=True)
class Constraint:
    """A hard safety constraint judged on every sample of its window ('all' or 'after_failure')."""

    name: str
    text: str
    cond: Cond
    window: str = "after_failure"
    signals: tuple[str, ...] = ()


@dataclass(frozen=True)
class Procedure:
    name: str
    title: str
    #: the failure system the harness injects (`failure_injected` event), None: none injected
    failure: str | None
    control: Control
    steps: tuple[Check, ...]
    ordered: bool
    goals: tuple[Check, ...]
    safety: tuple[Constraint, ...] = ()
    #: with no injected failure: the procedure starts when this first holds (e.g. the engine stops
    #: after a configuration deviation); None: at the start of the recording
    starts_when: Cond | None = None
    #: the task ends with a landing: goals include a survivable landing, control ends at the flare
    landing: bool = False
    #: instruction sentences judged over the whole flight (part of the final state)
    sentences: tuple[Sentence, ...] = ()
    notes: str = ""


# ------------------------------------------------------------------ shared conditions


def glide_speed(lo: float = 58.0, hi: float = 78.0) -> Cond:
    """An airspeed band lo..hi; by default best glide 68 KIAS ±10 kt (the FAA Private Pilot ACS's
    tolerance for the best glide airspeed in an emergency approach and landing)."""

    def f(e: "Env") -> np.ndarray:
        ias = e.s("ias_kt")
        with np.errstate(invalid="ignore"):
            return (ias >= lo) & (ias <= hi)

    return f


def altitude_hold(tol_ft: float) -> Cond:
    """Within ±tol of the altitude (MSL) the aircraft had at the failure (or the start)."""

    def f(e: "Env") -> np.ndarray:
        alt = e.s("alt_msl_ft")
        with np.errstate(invalid="ignore"):
            return np.abs(alt - e.alt_at_failure) <= tol_ft

    return f


def heading_near(value_name: str, tol_deg: float) -> Cond:
    """Heading within ±tol of a drawn magnetic heading (`value_name` in the trial's values; the
    compass and heading indicator read magnetic: true = magnetic + the task's variation east)."""

    def f(e: "Env") -> np.ndarray:
        hdg = e.s("heading_true_deg")
        target = float(e.value(value_name)) + e.ctx.p.mag_var_east_deg
        d = (hdg - target + 180.0) % 360.0 - 180.0
        with np.errstate(invalid="ignore"):
            return np.abs(d) <= tol_deg

    return f


def engine_running(min_rpm: float) -> Cond:
    def f(e: "Env") -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return (np.rint(e.s("engine_running")) == 1) & (e.s("engine_rpm") >= min_rpm)

    return f


def engine_not_running(e: "Env") -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return (np.rint(e.s("engine_running")) == 0) | (e.s("engine_rpm") < 1200)


def selector_feeds(e: "Env") -> np.ndarray:
    """The fuel selector on BOTH, or on the tank that was not drawn to run dry."""
    sel = np.rint(e.s("fuel_selector"))
    drawn = e.value("dry_tank")
    dry = str(drawn.get("fuel_selector") if isinstance(drawn, dict) else drawn)
    other = SEL_RIGHT if dry == "left" else SEL_LEFT
    return (sel == SEL_BOTH) | (sel == other)


def good_magneto(e: "Env") -> np.ndarray:
    """The magneto key on the magneto that did not fail (the failure event says which did)."""
    mag = np.rint(e.s("magnetos"))
    return mag == (MAG_R if e.failed_magneto == "L" else MAG_L)


def tried_magneto(side: str) -> Cond:
    return _eq("magnetos", MAG_L if side == "L" else MAG_R)


def no_start_below(agl_ft: float) -> Cond:
    """No starter cranking (magnetos START) while airborne below `agl_ft`: fly the aircraft."""

    def f(e: "Env") -> np.ndarray:
        with np.errstate(invalid="ignore"):
            low = (e.s("alt_agl_ft") < agl_ft) & e.airborne
            return ~(low & (np.rint(e.s("magnetos")) == MAG_START))

    return f


def master_stays_off(e: "Env") -> np.ndarray:
    """Once the master (BAT) is off after the fire, it is not switched on again."""
    bat = np.rint(e.s("master_bat"))
    after = e.t >= e.t_fail
    off = np.cumsum((bat == 0) & after) > 0
    return ~(off & (bat == 1))


def avionics_off_when_master_moves(e: "Env") -> np.ndarray:
    """The avionics master is OFF whenever the master switch (BAT or ALT) is moved."""
    out = np.ones(e.n, dtype=bool)
    for name in ("master_bat", "master_alt"):
        x = np.rint(e.s(name))
        moved = np.zeros(e.n, dtype=bool)
        moved[1:] = x[1:] != x[:-1]
        out &= ~(moved & (np.rint(e.s("avionics")) == 1))
    return out


def straight_ahead(climb_tol_deg: float, tol_deg: float) -> Cond:
    """While airborne: before the failure the heading stays within ±climb_tol of the heading at
    the start (lined up on the runway: "climb straight ahead"), after it within ±tol of the
    heading at the failure (no turn back to the runway: land straight ahead)."""

    def f(e: "Env") -> np.ndarray:
        hdg = e.s("heading_true_deg")
        d0 = (hdg - hdg[0] + 180.0) % 360.0 - 180.0
        d1 = (hdg - e.hdg_at_failure + 180.0) % 360.0 - 180.0
        before = e.t < e.t_fail
        with np.errstate(invalid="ignore"):
            off = np.where(before, np.abs(d0) > climb_tol_deg, np.abs(d1) > tol_deg)
            return ~(e.airborne & off)

    return f


#: the cockpit's carburettor ice (adapters/jsbsim/cockpit/_systems.py): with carb heat off and
#: the engine running, ice builds to full in 150 s at part throttle (30 % of that rate at full
#: throttle); carb heat melts it in 40 s
CARB_ICE_BUILD_S = 150.0
CARB_MELT_S = 40.0
#: the ice the pilot can see: the rpm falling steadily once ice has built for ~3 s at part throttle
CARB_ICE_SEEN = 0.02
#: melted: what carb heat leaves once the engine runs smoothly again
CARB_ICE_MELTED = 0.05


def carb_ice(e: "Env") -> np.ndarray:
    """The carburettor ice (0..1) the cockpit builds from the failure on, worked out from the
    recorded carb heat knob, throttle and engine state (the cockpit's own rule, above)."""
    if "carb_ice" in e.cache:
        return e.cache["carb_ice"]
    t = e.t
    heat = np.rint(np.nan_to_num(e.s("carb_heat"))) == 1
    thr = np.nan_to_num(e.s("throttle"))
    run = np.rint(np.nan_to_num(e.s("engine_running"))) == 1
    ice = np.zeros(e.n)
    x = 0.0
    for i in range(1, e.n):
        dt = float(t[i] - t[i - 1])
        if heat[i - 1]:
            x = max(0.0, x - dt / CARB_MELT_S)
        elif t[i - 1] >= e.t_fail and run[i - 1]:
            x = min(1.0, x + (1.0 if thr[i - 1] < 0.9 else 0.3) * dt / CARB_ICE_BUILD_S)
        ice[i] = x
    e.cache["carb_ice"] = ice
    return ice


def carb_heat_done(e: "Env") -> np.ndarray:
    """Carburettor heat ON, or OFF again once it has melted the ice (C172P POH: carb heat on
    until the engine runs smoothly, then remove carb heat and readjust the throttle)."""
    heat = np.rint(np.nan_to_num(e.s("carb_heat"))) == 1
    melted = heat & (carb_ice(e) <= CARB_ICE_MELTED) & (e.t >= e.t_ind)
    return heat | (np.cumsum(melted) > 0)


def ice_loss_gone(e: "Env", min_rpm: float, margin_rpm: float) -> np.ndarray:
    """The engine running at `min_rpm` or more, or within `margin_rpm` of the rpm it gave at the
    failure (before any ice) with the throttle no further back than it was then."""
    rpm, thr = e.s("engine_rpm"), e.s("throttle")
    i = e.i_fail
    with np.errstate(invalid="ignore"):
        back = (rpm >= rpm[i] - margin_rpm) & (thr >= thr[i] - 0.02)
        return engine_running(0.0)(e) & ((rpm >= min_rpm) | back)


def quick_descent(
    value_name: str, tol_ft: float, min_fpm: float, setup_s: float
) -> "Callable[[Env], tuple[bool, str]]":
    """ "As quickly as is safe": the assigned height (within tol) reached from the indication in at
    most `setup_s` (idle, configuration) plus the height to lose at `min_fpm`."""

    def f(e: "Env") -> tuple[bool, str]:
        agl = e.s("alt_agl_ft")
        target = float(e.value(value_name)) + tol_ft
        i0 = min(int(np.searchsorted(e.t, e.t_ind)), e.n - 1)
        drop = float(agl[i0]) - target
        if not np.isfinite(drop) or drop <= 0.0:
            return True, "already at the height when the emergency showed"
        allowed = setup_s + drop / min_fpm * 60.0
        with np.errstate(invalid="ignore"):
            reach = np.flatnonzero((e.t >= e.t_ind) & (agl <= target))
        if reach.size == 0:
            return False, f"never descended to {target:.0f} ft AGL"
        took = float(e.t[reach[0]] - e.t_ind)
        ok = took <= allowed
        return ok, (
            f"descended {drop:.0f} ft to the height in {took:.0f} s "
            f"({'within' if ok else 'slower than'} {allowed:.0f} s: {setup_s:g} s, then {min_fpm:g} fpm)"
        )

    return f


def descended_to(value_name: str, tol_ft: float) -> Cond:
    """At or within tol above a drawn height above ground (`value_name`)."""

    def f(e: "Env") -> np.ndarray:
        agl = e.s("alt_agl_ft")
        target = float(e.value(value_name))
        with np.errstate(invalid="ignore"):
            return np.abs(agl - target) <= tol_ft

    return f


def climbed_to_value(value_name: str, tol_ft: float) -> Cond:
    """At or above a drawn height above ground (`value_name`) less tol."""

    def f(e: "Env") -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return e.s("alt_agl_ft") >= float(e.value(value_name)) - tol_ft

    return f


def level(band_ft: float = 60.0) -> Cond:
    """Level: within ±band of the final altitude (a held altitude, not a zero VSI: a hand-flown
    C172's vertical speed swings a few hundred fpm either way while the altitude stays put)."""

    def f(e: "Env") -> np.ndarray:
        alt = e.s("alt_msl_ft")
        with np.errstate(invalid="ignore"):
            return np.abs(alt - alt[-1]) <= band_ft

    return f


ENGINE = ("engine_running", "engine_rpm")
GLIDE = Control("airspeed 58-78 KIAS (best glide 68 ±10) for ≥ 70% of the glide", glide_speed(), 0.7, 5.0, ("ias_kt",))
HOLD_ALT = Control(
    "altitude within ±200 ft of the altitude at the failure for ≥ 80% of the time",
    altitude_hold(200.0),
    0.8,
    10.0,
    ("alt_msl_ft",),
)

# Each state a step sets and a goal asks to hold is written once, as the step; a goal is the
# same condition in its own words (`Check.said`).
MIXTURE_RICH = Check("Mixture RICH", _ge("mixture", 0.8), ("mixture",))
SELECTOR_BOTH = Check("Fuel selector BOTH", _eq("fuel_selector", SEL_BOTH), ("fuel_selector",))
SELECTOR_FEEDS = Check("Fuel selector BOTH (or the tank with fuel)", selector_feeds, ("fuel_selector",))
MASTER_OFF = Check(
    "Master switch (ALT and BAT) OFF", _all(_eq("master_bat", 0), _eq("master_alt", 0)), ("master_bat", "master_alt")
)
AVIONICS_OFF = Check("Avionics master OFF", _eq("avionics", 0), ("avionics",))
PITOT_HEAT_ON = Check("Pitot heat ON", _eq("pitot_heat", 1), ("pitot_heat",))
PITOT_HEAT_OFF = Check("Electrical load reduced: pitot heat OFF", _eq("pitot_heat", 0), ("pitot_heat",))
ALT_OFF_BAT_ON = Check(
    "LOW VOLTS still on: ALT OFF", _all(_eq("master_alt", 0), _eq("master_bat", 1)), ("master_bat", "master_alt")
)
GOOD_MAGNETO = Check("magnetos on the good magneto", good_magneto, ("magnetos",))
MAGNETOS_BOTH = Check("magnetos BOTH", _eq("magnetos", MAG_BOTH), ("magnetos",))
DESCENDED_150 = Check("Descend to the assigned height", descended_to("target_agl_ft", 150.0), ("alt_agl_ft",))
LEVEL_AT_HEIGHT = Check("Level at the assigned height", descended_to("target_agl_ft", 200.0), ("alt_agl_ft",))
ON_NEW_HEADING = Check(
    "Turn to the assigned heading (turn coordinator and compass)",
    heading_near("new_heading_deg", 10.0),
    ("heading_true_deg",),
)

#: restart steps, C172S POH 3-6/3-7 "Engine failure during flight (restart procedures)"
RESTART_STEPS = (
    Check("Airspeed 68 KIAS ±10 (best glide)", glide_speed(), ("ias_kt",)),
    SELECTOR_BOTH,
    MIXTURE_RICH,
    Check(
        "Magnetos BOTH (or START if the propeller stopped)",
        _any(_eq("magnetos", MAG_BOTH), _eq("magnetos", MAG_START)),
        ("magnetos",),
    ),
)
#: securing steps, C172S POH 3-6 "Engine failure immediately after takeoff" / 3-8 "Emergency
#: landing without engine power" (the fuel shutoff valve is the selector OFF on this cockpit)
SECURE_STEPS = (
    Check("Mixture IDLE CUT-OFF", _le("mixture", 0.05), ("mixture",)),
    Check("Fuel selector OFF (fuel shutoff)", _eq("fuel_selector", SEL_OFF), ("fuel_selector",)),
    Check("Magnetos OFF", _eq("magnetos", MAG_OFF), ("magnetos",)),
    MASTER_OFF,
)
SECURE_GOALS = tuple(
    step.said(text)
    for step, text in zip(
        SECURE_STEPS, ("mixture idle cut-off", "fuel selector OFF", "magnetos OFF", "master (ALT and BAT) OFF")
    )
)
#: flying a landing task: airspeed 60-110 KIAS for ≥ 80% of the flight
FLY_60_110 = Control("airspeed 60-110 KIAS for ≥ 80% of the flight", glide_speed(60.0, 110.0), 0.8, 5.0, ("ias_kt",))


def forced_glide(after_s: float) -> Control:
    """The glide of a forced landing (C172S POH: 70 KIAS flaps up, 65 flaps down)."""
    return Control(
        "airspeed 55-80 KIAS (70 flaps up, 65 flaps down, ±10) for ≥ 70% of the glide",
        glide_speed(55.0, 80.0),
        0.7,
        after_s,
        ("ias_kt",),
    )


NO_START_BELOW_500FT = Constraint(
    "no_start_below_500ft",
    "no starter cranking below 500 ft AGL",
    no_start_below(500.0),
    signals=("magnetos", "alt_agl_ft"),
)
AVIONICS_OFF_FOR_MASTER = Constraint(
    "avionics_off_for_master",
    "avionics master OFF whenever the master switch is moved",
    avionics_off_when_master_moves,
    signals=("master_bat", "master_alt", "avionics"),
)
MASTER_STAYS_OFF = Constraint(
    "master_stays_off",
    "the master is not switched on again once off (the fire restarts)",
    master_stays_off,
    signals=("master_bat",),
)
GLIDE_TO_RESTART = Control(
    "airspeed 58-78 KIAS (best glide 68 ±10) for ≥ 70% of the time the engine is out",
    glide_speed(),
    0.7,
    5.0,
    ("ias_kt",),
    until=engine_running(2000.0),
)
RUNNING_CRUISE = Check("engine running at ≥ 2,000 rpm", engine_running(2000.0), ENGINE)
RESTARTED = RUNNING_CRUISE
#: "continue in cruise at your altitude": where the aircraft was when the failure came, ±200 ft
AT_ALTITUDE = Check(
    "at the altitude of the failure ±200 ft (continue at your altitude)", altitude_hold(200.0), ("alt_msl_ft",)
)
#: level: the altitude within ±60 ft of the final altitude (a hand-flown C172's VSI swings while it holds)
LEVEL = Check("level (altitude within ±60 ft of the final altitude)", level(60.0), ("alt_msl_ft",))
#: C172S POH 3-17/3-19 "Low voltage annunciator (VOLTS) comes on" (a one-piece avionics master here)
LOW_VOLTS_STEPS = (
    AVIONICS_OFF,
    MASTER_OFF,
    Check(
        "Master switch (ALT and BAT) ON (reset)",
        _all(_eq("master_bat", 1), _eq("master_alt", 1)),
        ("master_bat", "master_alt"),
    ),
    ALT_OFF_BAT_ON,
    PITOT_HEAT_OFF,
)
LOW_VOLTS_GOALS = (
    ALT_OFF_BAT_ON.said("ALT OFF, BAT ON"),
    AVIONICS_OFF.said("avionics master OFF (load shed)"),
    PITOT_HEAT_OFF.said("pitot heat OFF (load shed)"),
    RUNNING_CRUISE,
)
MAGNETO_STEPS = (
    Check("Magnetos L (check)", tried_magneto("L"), ("magnetos",)),
    Check("Magnetos R (check)", tried_magneto("R"), ("magnetos",)),
    MIXTURE_RICH.said("Mixture RICH (enrichen)"),
)
MAGNETO_GOALS = (GOOD_MAGNETO, RUNNING_CRUISE)
CARB_STEPS = (
    Check("Carburetor heat ON", _eq("carb_heat", 1), ("carb_heat",)),
    Check("Throttle FULL (≥ 90%)", _ge("throttle", 0.9), ("throttle",)),
)
CARB_GOALS = (
    Check(
        "carburetor heat ON, or OFF again once it melted the ice (then the throttle readjusted)",
        carb_heat_done,
        ("carb_heat", "throttle", "engine_running"),
    ),
    Check(
        "engine running at ≥ 2,000 rpm, or back within 100 rpm of its rpm at the failure at no less throttle "
        "(the ice's loss gone at the readjusted power)",
        lambda e: ice_loss_gone(e, 2000.0, 100.0),
        ENGINE,
    ),
)
#: C172S POH 3-11/3-12 "Electrical fire in flight" (no standby battery, no extinguisher here)
FIRE_STEPS = (
    MASTER_OFF,
    Check("Vents, cabin air and heat CLOSED", _eq("cabin_air", 0), ("cabin_air",)),
    AVIONICS_OFF,
    Check(
        "All other switches OFF (pitot heat, landing and taxi lights)",
        _all(_eq("pitot_heat", 0), _eq("landing_light", 0), _eq("taxi_light", 0)),
        ("pitot_heat", "landing_light", "taxi_light"),
    ),
    Check("Fire out: vents and cabin air OPEN", _all(_eq("cabin_air", 1), _eq("smoke", 0)), ("cabin_air", "smoke")),
)
FIRE_GOALS = (
    Check("no smoke in the cabin", _eq("smoke", 0), ("smoke",)),
    MASTER_OFF.said("master (ALT and BAT) OFF"),
    AVIONICS_OFF.said("avionics master OFF"),
    Check("cabin air OPEN (smoke vented)", _eq("cabin_air", 1), ("cabin_air",)),
    RUNNING_CRUISE.said("engine running at ≥ 2,000 rpm (magnetos stay on)"),
)


def _p(**kw: Any) -> Procedure:
    return Procedure(**kw)


PROCEDURES: dict[str, Procedure] = {
    p.name: p
    for p in [
        _p(
            name="engine_restart",
            title="Engine failure during flight: restart",
            failure=None,  # a configuration deviation stops the engine (selector OFF, mixture cut-off, magnetos OFF)
            starts_when=engine_not_running,
            control=GLIDE_TO_RESTART,
            steps=RESTART_STEPS,
            ordered=False,
            goals=(
                RESTARTED,
                SELECTOR_BOTH.said("fuel selector BOTH"),
                MAGNETOS_BOTH,
                MIXTURE_RICH.said("mixture RICH"),
            ),
            safety=(NO_START_BELOW_500FT,),
        ),
        _p(
            name="tank_dry_restart",
            title="Engine failure during flight (fuel starvation): restart on the other tank",
            failure="fuel_empty_tank",
            control=GLIDE_TO_RESTART,
            steps=(RESTART_STEPS[0], SELECTOR_FEEDS, *RESTART_STEPS[2:]),
            ordered=False,
            goals=(RESTARTED, SELECTOR_FEEDS.said("fuel selector on BOTH or the tank with fuel"), MAGNETOS_BOTH),
            safety=(NO_START_BELOW_500FT,),
        ),
        _p(
            name="fuel_imbalance",
            title="Low fuel in the selected tank: select BOTH before it runs dry",
            failure=None,
            control=HOLD_ALT,
            steps=(SELECTOR_FEEDS.said("Fuel selector BOTH (or the fuller tank)"),),
            ordered=False,
            goals=(SELECTOR_FEEDS.said("fuel selector on BOTH or the fuller tank"), RUNNING_CRUISE),
            safety=(
                Constraint(
                    "engine_never_stops",
                    "the engine keeps running (no fuel starvation)",
                    lambda e: ~engine_not_running(e),
                    window="all",
                    signals=ENGINE,
                ),
            ),
        ),
        _p(
            name="efato",
            title="Engine failure immediately after takeoff",
            failure="engine",
            control=forced_glide(after_s=3.0),
            steps=SECURE_STEPS,
            ordered=False,
            goals=SECURE_GOALS,
            safety=(
                Constraint(
                    "no_turn_back",
                    "climb straight ahead (heading within ±30° of the runway heading until the failure) and land "
                    "straight ahead (within ±90° of the heading at the failure) while airborne",
                    straight_ahead(30.0, 90.0),
                    window="all",
                    signals=("heading_true_deg", "on_ground"),
                ),
            ),
            landing=True,
        ),
        _p(
            name="forced_landing",
            title="Emergency landing without engine power",
            failure="engine",
            control=forced_glide(after_s=5.0),
            steps=SECURE_STEPS,
            ordered=False,
            goals=SECURE_GOALS,
            landing=True,
        ),
        _p(
            name="restart_then_forced_landing",
            title="Engine failure during flight: restart attempt, then a forced landing",
            failure="engine",
            control=GLIDE,
            steps=(*RESTART_STEPS[1:], *SECURE_STEPS),
            ordered=True,
            goals=SECURE_GOALS,
            safety=(NO_START_BELOW_500FT,),
            landing=True,
        ),
        _p(
            name="rough_magneto",
            title="Rough engine operation: magneto check",
            failure="engine_rough",
            control=HOLD_ALT,
            steps=MAGNETO_STEPS,
            ordered=False,
            goals=(*MAGNETO_GOALS, AT_ALTITUDE),
        ),
        _p(
            name="rough_magneto_land",
            title="Rough engine operation: magneto check and precautionary landing",
            failure="engine_rough",
            control=FLY_60_110,
            steps=MAGNETO_STEPS,
            ordered=False,
            goals=(GOOD_MAGNETO,),
            landing=True,
        ),
        _p(
            name="carb_ice",
            title="Carburetor icing",
            failure="carb_ice",
            control=HOLD_ALT,
            steps=CARB_STEPS,
            ordered=False,
            goals=(*CARB_GOALS, LEVEL),
        ),
        _p(
            name="low_volts",
            title="Low voltage (alternator failure): reset, then load shedding",
            failure="alternator",
            control=HOLD_ALT,
            steps=LOW_VOLTS_STEPS,
            ordered=True,
            goals=(*LOW_VOLTS_GOALS, AT_ALTITUDE),
            safety=(AVIONICS_OFF_FOR_MASTER,),
        ),
        _p(
            name="low_volts_land",
            title="Low voltage (alternator failure): load shedding and landing as soon as practical",
            failure="alternator",
            control=FLY_60_110,
            steps=LOW_VOLTS_STEPS,
            ordered=True,
            goals=(LOW_VOLTS_GOALS[0], LOW_VOLTS_GOALS[2]),
            safety=(AVIONICS_OFF_FOR_MASTER,),
            landing=True,
        ),
        _p(
            name="vacuum_partial_panel",
            title="Vacuum system failure: partial panel",
            failure="vacuum",
            control=HOLD_ALT,
            steps=(ON_NEW_HEADING,),
            ordered=False,
            goals=(
                ON_NEW_HEADING.said("on the assigned heading ±10°"),
                Check("at the altitude of the failure ±200 ft", altitude_hold(200.0), ("alt_msl_ft",)),
                Check("wings level (|bank| ≤ 10°)", lambda e: np.abs(e.s("bank_deg")) <= 10.0, ("bank_deg",)),
            ),
        ),
        _p(
            name="vacuum_descent",
            title="Vacuum system failure: partial-panel descent",
            failure="vacuum",
            control=Control(
                "wings within ±30° of bank for ≥ 90% of the time",
                lambda e: np.abs(e.s("bank_deg")) <= 30.0,
                0.9,
                5.0,
                ("bank_deg",),
            ),
            steps=(ON_NEW_HEADING.said("Turn to the assigned heading"), DESCENDED_150),
            ordered=False,
            goals=(
                ON_NEW_HEADING.said("on the assigned heading ±10°"),
                DESCENDED_150.said("at the assigned height ±150 ft"),
                LEVEL,
            ),
        ),
        _p(
            name="pitot_blocked",
            title="Pitot blockage: pitot heat",
            failure="pitot",
            control=HOLD_ALT,
            steps=(PITOT_HEAT_ON,),
            ordered=False,
            goals=(
                PITOT_HEAT_ON.said("pitot heat ON"),
                Check("airspeed 80-120 KIAS (cruise)", glide_speed(80.0, 120.0), ("ias_kt",)),
                RUNNING_CRUISE,
                AT_ALTITUDE,
            ),
        ),
        _p(
            name="pitot_blocked_climb",
            title="Pitot blockage in the climb: pitot heat, level off",
            failure="pitot",
            control=Control(
                "airspeed 65-110 KIAS for ≥ 80% of the time", glide_speed(65.0, 110.0), 0.8, 5.0, ("ias_kt",)
            ),
            steps=(PITOT_HEAT_ON, LEVEL_AT_HEIGHT),
            ordered=False,
            goals=(
                PITOT_HEAT_ON.said("pitot heat ON"),
                LEVEL_AT_HEIGHT.said("at the assigned height ±200 ft"),
                LEVEL,
            ),
        ),
        _p(
            name="flaps_fail_landing",
            title="Flaps failure on approach: no-flap landing",
            failure="flaps",
            control=Control(
                "approach airspeed 60-80 KIAS (no-flap approach) for ≥ 70% of the approach",
                glide_speed(60.0, 80.0),
                0.7,
                5.0,
                ("ias_kt",),
            ),
            steps=(Check("Approach speed 60-80 KIAS", glide_speed(60.0, 80.0), ("ias_kt",)),),
            ordered=False,
            goals=(),
            landing=True,
        ),
        _p(
            name="flaps_stuck_go_around",
            title="Go-around with the flaps stuck down",
            failure="flaps",
            control=Control(
                "airspeed 55-85 KIAS for ≥ 80% of the time", glide_speed(55.0, 85.0), 0.8, 3.0, ("ias_kt",)
            ),
            steps=(
                Check("Throttle FULL", _ge("throttle", 0.9), ("throttle",)),
                Check("Carburetor heat OFF (cold)", _eq("carb_heat", 0), ("carb_heat",)),
                Check("Climb to the assigned height", climbed_to_value("target_agl_ft", 150.0), ("alt_agl_ft",)),
            ),
            ordered=False,
            goals=(
                Check(
                    "at the assigned height ±150 ft (climb to it and stay there)",
                    descended_to("target_agl_ft", 150.0),
                    ("alt_agl_ft",),
                ),
                LEVEL,
                RUNNING_CRUISE,
            ),
        ),
        _p(
            name="electrical_fire",
            title="Electrical fire in flight",
            failure="electrical_fire",
            control=HOLD_ALT,
            steps=FIRE_STEPS,
            ordered=True,
            goals=(*FIRE_GOALS, AT_ALTITUDE),
            safety=(MASTER_STAYS_OFF,),
        ),
        _p(
            name="electrical_fire_land",
            title="Electrical fire in flight: land as soon as possible",
            failure="electrical_fire",
            control=FLY_60_110,
            steps=FIRE_STEPS[:3],
            ordered=True,
            goals=(FIRE_GOALS[0], FIRE_GOALS[1], FIRE_GOALS[2]),
            safety=(MASTER_STAYS_OFF,),
            landing=True,
        ),
        _p(
            name="door_open",
            title="Cabin door open in flight",
            failure="door",
            control=Control(
                "airspeed 60-110 KIAS for ≥ 80% of the flight (fly the aircraft)",
                glide_speed(60.0, 110.0),
                0.8,
                3.0,
                ("ias_kt",),
            ),
            steps=(Check("Reduce airspeed below 100 KIAS", _le("ias_kt", 100.0), ("ias_kt",)),),
            ordered=False,
            goals=(),
            landing=True,
        ),
        _p(
            name="emergency_descent",
            title="Emergency descent",
            failure="electrical_fire",
            control=Control(
                "airspeed ≤ 129 KIAS (Vno) for ≥ 90% of the descent", _le("ias_kt", 129.0), 0.9, 0.0, ("ias_kt",)
            ),
            steps=(
                Check("Throttle IDLE", _le("throttle", 0.1), ("throttle",)),
                Check(
                    "Master switch (ALT and BAT) OFF",
                    _all(_eq("master_bat", 0), _eq("master_alt", 0)),
                    ("master_bat", "master_alt"),
                ),
                Check("Descend to the assigned height", descended_to("target_agl_ft", 200.0), ("alt_agl_ft",)),
            ),
            ordered=False,
            goals=(
                Check("at the assigned height ±200 ft", descended_to("target_agl_ft", 200.0), ("alt_agl_ft",)),
                Check("no smoke in the cabin", _eq("smoke", 0), ("smoke",)),
                LEVEL,
            ),
            sentences=(
                Sentence(
                    "as quickly as is safe: at the assigned height (+200 ft) within 30 s of the smoke plus the "
                    "height to lose at 1,000 fpm",
                    quick_descent("target_agl_ft", 200.0, 1000.0, 30.0),
                    ("alt_agl_ft",),
                ),
            ),
            safety=(MASTER_STAYS_OFF,),
        ),
    ]
}
