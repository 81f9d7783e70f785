"""`FlightGearSession`: one FlightGear 2020.3 instance for one episode (the `SimSession` contract).

State comes from the generic UDP stream (one packet per rendered frame, clock
`/sim/time/elapsed-sec`); telnet is used for setup (initial state the command line cannot
express), snapshots and shutdown. The task clock is FlightGear's simulator time minus its
value when the episode started.

Initial state: the c172p of this release has one state, `auto`: on the ground it is cold and
dark, in the air the engine runs (FlightGear starts it). A ground task that says
`engine: running` is brought there over telnet (master, mixture, magnetos, primer, starter)
before the episode starts; `avionics_on`, `scenario.nav1_mhz` / `nav1_obs_deg` and
`scenario.flightgear_props` (property path → value) are set the same way.

Harness-injected failures (T11) are the adapter kit's `FailurePlan`: each sample is offered to
the plan and a due failure is injected through FlightGear's own failure manager (the
`serviceable` flag of its failure mode, `FAILURE_PROPS`), logged as `failure_injected`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simbridge.sim import Sandbox, SimEvent, SimSession, StateSample, process_state
from simbridge import HarnessError
from simbridge.adapters.fgproto import GenericProtocol
from simbridge.adapters.fgproto.keys import FLIGHTGEAR_KEYS
from simbridge.adapters.flightgear._launch import FGFS, FlightGearProcess, LaunchSpec
from simbridge.adapters.flightgear._lockdown import (
    KEY_WHITELIST,
    TASK_EXTRA_KEYS,
    TASK_MENUS,
    LOCKDOWN_STATUS,
    TELNET_BINDS_ALL_INTERFACES,
)
from simbridge.adapters.flightgear._mapping import (
    FAILURE_PROPS,
    RAW_CHUNKS,
    SIGNALS,
    SNAPSHOT_NODES,
    CanonicalMapper,
    read_setup,
)
from simbridge.adapters.kit import DerivedEvents, FailurePlan

if TYPE_CHECKING:
    from simbridge import TaskSpec

#: real-time factor below which episode.json is flagged (the agent saw a slowed world)
RTF_FLAG_BELOW = 0.8
#: the most simulator time one frame may advance, as a share of the task's sample-gap limit:
#: a long frame (a screenshot, a scenery tile, a busy CPU) then slows the simulator instead of
#: leaving a gap that makes the episode unscored (FlightGear's own cap is 1 s)
SIM_STEP_OF_GAP = 0.5

#: a stream silent while fgfs is up is a clock standing still (a view change or scenery load on
#: a loaded machine), waited for up to the session's frozen limit (SimSession.frozen_limit(),
#: 120 s); in a task whose work is in FlightGear's dialogs the runner does not even count a
#: silence this long as a freeze: Location → Select Airport repositions the aircraft, and
#: FlightGear's main loop (so its stream) stops while it loads the new place (15.2 s measured
#: PHNL → PHJR on a loaded 2-core machine)
DIALOG_STREAM_LOST_S = 120.0

#: the share of the spin the suction allows that a pilot waits for before take-off, and where
#: FlightGear keeps the spin and the suction
GYRO_SPUN = 0.97

#: simulator seconds from the restart at an air start's state to the hand-over: the VSI and the
#: airspeed needle, both lagged, come back from the autostart's dive
RESTART_SETTLE_SIM_S = 2.0
_SUCTION_PROP = "/systems/vacuum/suction-inhg"
_HI_OFFSET_PROP = "/instrumentation/heading-indicator/offset-deg"
_MAGVAR_PROP = "/environment/magnetic-variation-deg"
_GYRO_SPIN_PROPS = ("/instrumentation/heading-indicator/spin", "/instrumentation/attitude-indicator/spin")

_ENGINE_START_PROPS = {
    "/controls/switches/master-bat": "true",
    "/controls/switches/master-alt": "true",
    # the c172p drives engine[0] from current-engine: setting engine[0] directly is undone
    "/controls/engines/current-engine/mixture": "1",
    "/controls/engines/current-engine/throttle": "0.2",
    "/controls/engines/engine[0]/primer": "3",
    "/controls/switches/magnetos": "3",
}


def weight_balance_snapshot(tn: Any) -> dict[str, Any]:
    """The loading in the shape the weight-and-balance verifier reads: `payload` with
    `<station>_lb` (the c172p's /payload/weight[0..4]: pilot, co-pilot, left and right rear
    passenger, baggage), per-tank `fuel_lb` / `fuel_gal`, and `active_engine` (1 = 180 hp)."""
    stations = ("pilot", "copilot", "rear_left", "rear_right", "baggage")
    paths = [f"/payload/weight[{i}]/weight-lb" for i in range(5)]
    paths += [f"/consumables/fuel/tank[{i}]/level-lbs" for i in range(2)]
    paths += [f"/consumables/fuel/tank[{i}]/level-gal_us" for i in range(2)]
    paths.append("/controls/engines/active-engine")
    v = [float(x) if x not in ("", "nan") else float("nan") for x in tn.get_many(paths)]
    return {
        "payload": {f"{s}_lb": v[i] for i, s in enumerate(stations)},
        "fuel_lb": v[5:7],
        "fuel_gal": v[7:9],
        "active_engine": int(v[9]) if v[9] == v[9] else None,
    }


def launch_spec(task: "TaskSpec") -> LaunchSpec:
    """The command-line part of a task's initial state."""
    st = task.initial_state
    aircraft = task.vehicle.ids.get("flightgear", "c172p")
    on_ground = st.on_ground if st.on_ground is not None else (st.parking is not None or st.engine == "cold_and_dark")
    allowed = dict(KEY_WHITELIST)
    allowed.update(TASK_EXTRA_KEYS.get(task.id.split("@")[0], {}))
    spec = LaunchSpec(
        aircraft=aircraft,
        airport=st.airport,
        runway=st.runway,
        parking=st.parking,
        on_ground=on_ground,
        heading_deg=st.heading_deg,
        allowed_keys=allowed,
        menus=TASK_MENUS.get(task.id.split("@")[0]),
        max_sim_step_s=round(min(1.0, SIM_STEP_OF_GAP * task.max_sample_gap_s), 3),
    )
    if st.position is not None and (not on_ground or (not st.parking and not st.runway)):
        spec.lat_deg, spec.lon_deg = st.position.lat_deg, st.position.lon_deg
    if not on_ground:
        spec.alt_ft = st.alt_msl_ft
        spec.vc_kt = st.ias_kt
        spec.offset_distance_nm = st.distance_nm
        if st.distance_nm is not None and st.runway:
            spec.lat_deg = spec.lon_deg = None
    w = st.weather
    if w.wind_kt is not None:
        spec.wind = (w.wind_dir_deg or 0.0, w.wind_kt)
    if w.visibility_sm is not None:
        spec.visibility_m = w.visibility_sm * 1609.344
    if st.time.local_time and st.time.date:
        spec.extra_args.append(f"--start-date-lcl={st.time.date.replace('-', ':')}:{st.time.local_time}:00")
    elif st.time.local_time:
        hour = int(st.time.local_time.split(":")[0])
        spec.timeofday = "morning" if hour < 11 else "noon" if hour < 15 else "afternoon" if hour < 18 else "dusk"
    return spec


#: FlightGear's telnet port in an isolated sandbox (the catalog's lockdown lists it)
TELNET_PORT = 5401
#: the Debug menu (Nasal console, property browser) in fgdata's menubar
DEBUG_MENU_ENABLED = "/sim/menubar/default/menu[8]/enabled"
#: keys that open consoles or dialogs in keyboard.xml: '/' property browser, ':' multikey,
#: F10 menubar (266)
CONSOLE_KEYS = {47: "/", 58: ":", 266: "F10"}
#: the in-simulator consoles every FlightGear episode's isolation record covers
FLIGHTGEAR_CONSOLES = (
    "Nasal console",
    "property browser",
    "checklist automation",
    "simulation rate",
    "Map dialog (Ctrl+Enter)",
    "Walker menu",
)
#: the Walker menu fgdata's walker-include.xml adds to the c172p's menubar
WALKER_MENU_ENABLED = "/sim/menubar/default/menu[11]/enabled"


def check_push_telemetry(sandbox: Sandbox) -> None:
    """FlightGear's only per-frame stream is its generic protocol pushed over UDP to the
    harness (fgfs 2020.3 has no server mode that the host could pull it from), so a sandbox
    whose telemetry is `pull` — or that gives no address to push to — cannot host it. Decided
    from the provider's declared capability (`Sandbox.telemetry`), not from its name."""
    if sandbox.telemetry != "push":
        raise HarnessError(
            "flightgear: this sandbox only lets the host pull telemetry (telemetry=pull), but "
            "FlightGear pushes its generic-protocol stream over UDP; run it on the local or netns provider"
        )
    if sandbox.harness_addr is None:
        raise HarnessError(
            "flightgear: this sandbox gives FlightGear no harness address to push its "
            "generic-protocol UDP stream to (harness_addr is None)"
        )


class FlightGearSession(SimSession):
    sim_name = "flightgear"
    signals = SIGNALS
    state_ports = (("tcp", TELNET_PORT),)
    controls = (
        *FLIGHTGEAR_KEYS,
        ("mouse on the panel", "click switches and knobs in the 3D cockpit (wheel turns knobs)"),
    )

    @classmethod
    def preflight(cls, provider: str) -> None:
        import os

        from simbridge import SimbridgeError

        if provider != "vm" and not os.access(FGFS, os.X_OK):
            raise SimbridgeError(
                f"flightgear simulator: {FGFS} not found (apt-get install flightgear, or set SIMBRIDGE_FGFS)"
            )
        if provider == "vm":
            raise SimbridgeError(
                "flightgear does not run in the vm provider (it is not in the guest image); "
                "use --provider local or netns"
            )

    def __init__(self) -> None:
        self.fg: FlightGearProcess | None = None
        self.mapper = CanonicalMapper()
        self._t0: float | None = None
        self._t_last = 0.0
        self._frames = 0
        #: crash, autopilot change and touchdown, derived from the samples as for every adapter
        self._derived = DerivedEvents()
        self._events: list[SimEvent] = []
        self._wall0 = 0.0
        self._sim0 = 0.0
        self._version = ""
        self._flags: list[str] = []
        self._stopped = False
        #: harness-injected failures (planned at start from the task and the seed)
        self._failures = FailurePlan()
        #: a longer pause the runner allows this episode's stream (None: the runner's default)
        self.telemetry_stall_s: float | None = None

    def _process(self) -> FlightGearProcess:
        """The running fgfs; HarnessError if `start()` has not created it."""
        if self.fg is None:
            raise HarnessError("flightgear: not running")
        return self.fg

    # ------------------------------------------------------------------ lifecycle
    def start(self, task: "TaskSpec", sandbox: Sandbox, *, seed: int | None = None) -> None:
        self._failures = FailurePlan.from_task(task, seed, FAILURE_PROPS)
        if self._failures.unsupported:
            # an episode without the failure its task is about would be scored as if it had one
            raise HarnessError(
                f"flightgear: task {task.id} asks for a {', '.join(self._failures.unsupported)}, "
                f"which this adapter cannot inject (it can: {', '.join(sorted(FAILURE_PROPS))})"
            )
        spec = launch_spec(task)
        if spec.menus is not None:
            self.telemetry_stall_s = DIALOG_STREAM_LOST_S
        screen = str((sandbox.info or {}).get("screen", ""))
        if screen.count("x") >= 1:  # fill the sandbox screen (e.g. "1280x800x24")
            w, h = screen.split("x")[:2]
            if w.isdigit() and h.isdigit():
                spec.geometry = (int(w), int(h))
        isolated = sandbox.isolated
        check_push_telemetry(sandbox)
        self.fg = FlightGearProcess(
            spec,
            GenericProtocol(RAW_CHUNKS, name="simbridge-c172p"),
            workdir=Path(sandbox.workdir) / "flightgear",
            display=sandbox.display,
            env=sandbox.env,
            spawn=sandbox.spawn,
            # in a sandbox: the task's documented port, firewalled from the agent
            telnet_port=TELNET_PORT if isolated else None,
            reach=sandbox.reach,
            harness_addr=sandbox.harness_addr or "127.0.0.1",
            harness_udp_port=sandbox.harness_udp_ports[0] if sandbox.harness_udp_ports else 0,
            sim_uid=sandbox.sim_uid,
        )
        self.fg.start()
        tn = self.fg.props()
        self._version = tn.get("/sim/version/flightgear")
        st = task.initial_state
        setup: dict[str, str] = {}
        if st.avionics_on:
            # the c172p's radios sit on the avionics bus, which the battery master feeds
            setup["/controls/switches/master-bat"] = "true"
            setup["/controls/switches/master-avionics"] = "true"
        if "nav1_mhz" in st.scenario:
            setup["/instrumentation/nav[0]/frequencies/selected-mhz"] = str(st.scenario["nav1_mhz"])
        if "nav1_obs_deg" in st.scenario:
            setup["/instrumentation/nav[0]/radials/selected-deg"] = str(st.scenario["nav1_obs_deg"])
        for path, value in (st.scenario.get("flightgear_props") or {}).items():
            setup[str(path)] = str(value).lower() if isinstance(value, bool) else str(value)
        if setup:
            tn.set_many(setup)
        if st.engine == "running":
            self._ensure_engine_running(spec.on_ground)
            if not spec.on_ground and setup:
                # the c172p's air start sets throttle, flaps and the altimeter itself once its
                # autostart is over (state-manager.nas, 5 s after the FDM starts): the task's
                # own settings go in after that, or the aircraft would not be as the task says
                self._wait_autostart_over()
                tn.set_many(setup)
                if "/controls/flight/flaps" in setup:
                    # the task overrides the autostart's approach configuration: hand over
                    # once the aircraft flies as the task says, not while it is changing
                    # the autostart's approach flaps extend while setup runs (further the faster
                    # the machine runs the simulator) and the c172p's flap motor takes seconds to
                    # bring them back; they and the power bled speed off, which cruise power
                    # regains in seconds of simulator time
                    flaps = float(setup["/controls/flight/flaps"])
                    self._wait_prop_near(
                        "/fdm/jsbsim/fcs/flap-pos-norm", flaps, 0.02, 30.0, f"the flaps did not reach {flaps:g}"
                    )
                    if st.ias_kt:
                        self._restart_at_initial_conditions()
                        self._wait_prop_near(
                            "/velocities/airspeed-kt",
                            float(st.ias_kt),
                            8.0,
                            10.0,
                            f"the airspeed was not {st.ias_kt:g} kt after the restart at the start state",
                        )
        # the episode starts now: drop what came before, remember the clock
        rx = self.fg.receiver()
        rx.drain()
        first = rx.wait_first(10.0)
        self._t0 = first[0]
        self._sim0, self._wall0 = first[0], time.monotonic()

    def _ensure_engine_running(self, on_ground: bool) -> None:
        """In the air the c172p's `auto` state starts the engine itself (it cranks for a few
        simulator seconds after the FDM is ready): wait for it and do not interfere. On the
        ground it starts cold and dark: master, mixture, primer, magnetos, then the starter."""
        tn = self._process().props()

        last: dict[str, str] = {}

        def wait_running(sim_s: float, min_rpm: float) -> bool:
            """Running with rpm above min_rpm on 3 reads in a row, each at a later simulator
            time (the c172p sets `running` before its autostart has cranked, so one read of the
            flag is not enough), within `sim_s` simulator seconds. At 1 fps simulator seconds
            pass slowly, so the limit is the simulator's clock; the wall clock only backstops a
            simulator that stopped."""
            wall_deadline = time.monotonic() + max(60.0, 10.0 * sim_s)
            streak, t_first, t_prev = 0, None, None
            while time.monotonic() < wall_deadline:
                running, rpm, elapsed = tn.get_many(
                    ["/engines/engine[0]/running", "/engines/engine[0]/rpm", "/sim/time/elapsed-sec"]
                )
                last.update(running=running, rpm=rpm, elapsed=elapsed)
                t_sim = _float_or_none(elapsed)
                if t_sim is not None and t_first is None:
                    t_first = t_sim
                if t_sim is None or t_sim != t_prev:
                    ok = running == "true" and (_float_or_none(rpm) or 0.0) > min_rpm
                    streak = streak + 1 if ok else 0
                    if streak >= 3:
                        return True
                t_prev = t_sim
                if t_sim is not None and t_first is not None and t_sim - t_first > sim_s:
                    return False
                time.sleep(1.0)
            return False

        def state() -> str:
            return f"running {last.get('running')!r}, rpm {last.get('rpm')!r} at sim time {last.get('elapsed')!r} s"

        if not on_ground:
            if wait_running(120.0, 1500.0):
                return
            raise HarnessError(f"flightgear: the c172p auto state did not start the engine in the air ({state()})")
        if wait_running(3.0, 500.0):
            return
        tn.set_many(_ENGINE_START_PROPS)
        ok = False
        for _attempt in range(3):
            # the c172p's key switch (its START position); the primer count feeds the first seconds
            tn.set_many({"/controls/engines/engine[0]/primer": "3", "/controls/switches/starter": "true"})
            try:
                ok = wait_running(20.0, 500.0)
            finally:
                tn.set("/controls/switches/starter", "false")
            if ok or wait_running(5.0, 500.0):
                ok = True
                break
        if not ok:
            raise HarnessError(
                f"flightgear: the engine did not start during setup (task says engine running; {state()})"
            )
        # For 5 s after the starter is let go the c172p takes a cold engine's mixture from the
        # primer, and that mixture is cut to 0 above half throttle (c172p.xml `mixture-primer-cmd`,
        # engine.nas `primerTimer`). Handed over inside that window, full throttle stopped the
        # engine (T02@PHJR: 887 rpm at the hand-over, 0 within 8 s). The agent gets an engine
        # that runs at any throttle.
        self._wait_sim(
            lambda tn: tn.get("/controls/engines/engine/use-primer") in ("false", "0", ""),
            15.0,
            lambda: "the c172p kept the primer's mixture 15 s after the start",
        )
        if not wait_running(3.0, 500.0):
            raise HarnessError(f"flightgear: the engine stopped after its start during setup ({state()})")
        self._settle_gyros(tn)

    def _settle_gyros(self, tn: Any) -> None:
        """An aircraft lined up with its engine running has taxied there: its vacuum gyros are
        up to speed and its heading indicator is set to the compass. Handed over seconds after
        the start, the c172p's heading indicator had not spun up; on the take-off roll it missed
        a 10° swing and read 9° off for the rest of the flight (T02@PHJR). This waits for both
        gyros (`spin`, FlightGear's heading and attitude indicators) and sets the heading
        indicator to the compass, as a pilot does before take-off."""

        def spun(t: Any) -> bool:
            # at idle the suction holds the spin under 1 (FlightGear: spin at most suction / 5;
            # 4.2 inHg and 0.84 on the c172p at PHJR): as far as the suction lets it spin
            most = min(1.0, (_float_or_none(t.get(_SUCTION_PROP)) or 0.0) / 5.0)
            return all((_float_or_none(t.get(p)) or 0.0) >= GYRO_SPUN * most > 0.5 for p in _GYRO_SPIN_PROPS)

        self._wait_sim(
            spun,
            90.0,
            lambda: (
                "the vacuum gyros did not spin up 90 s after the start ("
                + ", ".join(f"{p} {tn.get(p)!r}" for p in (*_GYRO_SPIN_PROPS, _SUCTION_PROP))
                + ")"
            ),
        )
        # FlightGear's heading indicator shows the true heading plus its offset: set to the
        # compass, the offset is minus the magnetic variation
        var = _float_or_none(tn.get(_MAGVAR_PROP))
        if var is None:
            raise HarnessError(f"flightgear: no magnetic variation at {_MAGVAR_PROP} to set the heading indicator")
        tn.set(_HI_OFFSET_PROP, f"{-var:.3f}")

    def _restart_at_initial_conditions(self) -> None:
        """Put the aircraft back where, how fast and which way the task starts, wings level and
        not rotating, with the task's configuration already set.

        While the autostart's approach flaps come and go the c172p pitches and rolls on its own:
        left alone it was handed over in a phugoid, banked 10-20° and diving at up to 1,700 ft/min,
        80-95 kt where the task says 100 kt straight and level (T09@PHJR's CI fault: 82 kt after
        90 s of waiting). JSBSim's `simulation/do_simple_trim` re-initialises the FDM from its
        initial conditions, which FlightGear set from the command line (`--lat --lon --altitude
        --vc --heading`). The trim itself does not hold under FlightGear, which writes its own
        controls to JSBSim every frame; the task's throttle and elevator trim are set for level
        flight at the start's airspeed instead. The VSI and the airspeed needle lag the jump, so
        the hand-over waits RESTART_SETTLE_SIM_S of simulator time after it."""
        tn = self._process().props()
        tn.set("/fdm/jsbsim/simulation/do_simple_trim", "1")
        t_restart = _float_or_none(tn.get("/sim/time/elapsed-sec"))

        def settled(t: Any) -> bool:
            now = _float_or_none(t.get("/sim/time/elapsed-sec"))
            return t_restart is not None and now is not None and now - t_restart >= RESTART_SETTLE_SIM_S

        self._wait_sim(settled, 2 * RESTART_SETTLE_SIM_S, lambda: "the simulator clock stopped after the restart")

    def _wait_autostart_over(self, sim_s: float = 30.0) -> None:
        """Until the c172p clears `/engines/active-engine/auto-start` (its autostart timer has
        run and applied its approach configuration), within `sim_s` simulator seconds."""
        self._wait_sim(
            lambda tn: tn.get("/engines/active-engine/auto-start") in ("false", "0", ""),
            sim_s,
            lambda: "the c172p autostart did not finish (auto-start still set)",
        )

    def _wait_prop_near(self, node: str, target: float, within: float, sim_s: float, failure: str) -> None:
        """Until the property `node` reads within `within` of `target`, within `sim_s`
        simulator seconds; else a HarnessError saying `failure` and the last value read."""
        last = [""]

        def near(tn: Any) -> bool:
            last[0] = tn.get(node)
            value = _float_or_none(last[0])
            return value is not None and abs(value - target) <= within

        self._wait_sim(near, sim_s, lambda: f"{failure} (at {last[0]!r})")

    def _wait_sim(self, done: Callable[[Any], bool], sim_s: float, failure: Callable[[], str]) -> None:
        """Poll `done(props)` until it holds or `sim_s` seconds of FlightGear's own clock have
        passed. A loaded machine runs the simulator slower than real time, so the limit is the
        simulator's clock; the wall clock (ten times as long, at least 120 s) only backstops a
        simulator that stopped."""
        tn = self._process().props()
        wall_deadline = time.monotonic() + max(120.0, 10.0 * sim_s)
        t_first: float | None = None
        while time.monotonic() < wall_deadline:
            if done(tn):
                return
            t_sim = _float_or_none(tn.get("/sim/time/elapsed-sec"))
            if t_sim is not None:
                t_first = t_sim if t_first is None else t_first
                if t_sim - t_first > sim_s:
                    break
            time.sleep(0.25)
        raise HarnessError(f"flightgear: {failure()} during setup")

    def poll(self) -> list[StateSample]:
        if self.fg is None or self.fg.udp is None:
            return []
        out = []
        for t, raw in self.fg.udp.drain():
            if self._t0 is None or t < self._t0:
                continue
            if self._frames and t - self._t0 <= self._t_last:
                # the clock stands still (paused, or FlightGear loading a new place after a
                # reposition) while frames still come: one sample per simulator instant
                continue
            self._frames += 1
            self._t_last = t - self._t0
            sample = StateSample(self._t_last, self.mapper(raw))
            self._events.extend(self._derived.update(sample.t_sim, sample.values))
            if self._failures.pending:
                self._inject_due(sample)
            out.append(sample)
        return out

    def _inject_due(self, sample: StateSample) -> None:
        """Fail what the plan says is due at this sample through FlightGear's failure manager
        (its `serviceable` flag set false) and record the `failure_injected` event."""
        if self.fg is None or self.fg.telnet is None:
            return
        for f in self._failures.due(sample.t_sim, sample.values):
            self.fg.telnet.set(FAILURE_PROPS[f.system], "false")
            self._events.append(self._failures.event(f, sample.t_sim, sample.values, property=f.target, value=0.0))

    def events(self) -> list[SimEvent]:
        out, self._events = self._events, []
        return out

    def sim_time(self) -> float:
        return self._t_last

    def alive(self) -> bool:
        if self.fg is None or not self.fg.alive():
            return False
        return self.fg.udp is not None and self.fg.udp.last_packet_age_s() < self.frozen_limit()

    def lost_reason(self) -> str | None:
        if self.fg is None or self.fg.udp is None or self._stopped or not self.fg.alive():
            return None
        age = self.fg.udp.last_packet_age_s()
        return self.frozen_reason(age, "no generic-protocol packet") if age >= self.frozen_limit() else None

    def process_state(self) -> str | None:
        return process_state(self.fg.proc if self.fg is not None else None)

    def set_paused(self, paused: bool) -> None:
        if self.fg is None or self.fg.telnet is None:
            raise HarnessError("flightgear: not running")
        v = "true" if paused else "false"
        self.fg.telnet.set_many({"/sim/freeze/master": v, "/sim/freeze/clock": v})

    def snapshot(self) -> dict[str, Any]:
        if self.fg is None or self.fg.telnet is None:
            return {}
        names = list(SNAPSHOT_NODES)
        values = self.fg.telnet.get_many([SNAPSHOT_NODES[n] for n in names])
        snap: dict[str, Any] = {}
        for n, v in zip(names, values):
            try:
                snap[n] = float(v)
            except ValueError:
                snap[n] = v
        snap.update(weight_balance_snapshot(self.fg.telnet))
        # the clock, the weather and the failure schedule as FlightGear's dialogs leave them (T08)
        snap.update(read_setup(self.fg.telnet))
        if self._failures.failures:
            first = self._failures.failures[0].trigger_agl_ft
            if first is not None:
                snap["failure_agl_ft"] = round(first, 1)
            snap["failure_schedule"] = [f.as_dict() for f in self._failures.failures]
        return snap

    def info(self) -> dict[str, Any]:
        wall = time.monotonic() - self._wall0 if self._wall0 else 0.0
        if wall > 5.0:  # the episode so far
            fps: float | None = self._frames / wall
            rtf: float | None = self._t_last / wall
        else:  # right after start (the runner asks then): the stream since launch
            fps, rtf = self.fg.udp.rates() if self.fg is not None and self.fg.udp is not None else (None, None)
        flags = list(self._flags)
        if rtf is not None and rtf < RTF_FLAG_BELOW:
            flags.append(f"real_time_factor_below_{RTF_FLAG_BELOW}")
        out: dict[str, Any] = {
            "sim_version": self._version or None,
            "frame_rate_hz": round(fps, 2) if fps else None,
            "real_time_factor": round(rtf, 3) if rtf else None,
            "sample_rate_hz": round(fps, 2) if fps else None,
            "flags": flags,
            "flightgear": {
                "launch_to_ready_s": round(self.fg.launch_to_ready_s, 1)
                if self.fg and self.fg.launch_to_ready_s
                else None,
                "warm_fg_home": bool(self.fg and self.fg.warm_home),
                "telnet_binds_all_interfaces": TELNET_BINDS_ALL_INTERFACES,
                "telnet_port": self.fg.telnet_port if self.fg else None,
                "udp_port": self.fg.udp.port if self.fg and self.fg.udp else None,
                "udp_bad_packets": self.fg.udp.n_bad if self.fg and self.fg.udp else None,
                # set at launch by the harness (`/sim/max-simtime-per-frame`); the agent's keys cannot change it
                "max_sim_step_s": self.fg.spec.max_sim_step_s if self.fg else None,
            },
        }
        return out

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.fg is not None:
            self.fg.stop()

    def check_consoles(self, names: list[str]) -> dict[str, dict[str, str]]:
        """Read back over telnet what the lockdown set: Debug menu (Nasal console, property
        browser) disabled, menubar hidden unless the task works in its dialogs, and the keys
        that open dialogs nulled. FlightGear's own consoles are always checked: a task written for another simulator (T09, T16 list
        MSFS's developer mode) would otherwise leave them out of the isolation record."""
        names = list(dict.fromkeys([*names, *FLIGHTGEAR_CONSOLES]))
        if self.fg is None or self.fg.telnet is None:
            return super().check_consoles(names)
        status = LOCKDOWN_STATUS
        props = {
            "menubar": "/sim/menubar/visibility",
            "debug_menu": DEBUG_MENU_ENABLED,
            "walker_menu": WALKER_MENU_ENABLED,
            "nasal_loaded": f"{status}/loaded",
            "checklist_live": f"{status}/checklist-bindings-live",
            "checklist_removed": f"{status}/checklist-bindings-removed",
            "speed_up_held": f"{status}/speed-up-held",
            "speed_up": "/sim/speed-up",
            "ctrl_enter": "/input/keyboard/key[10]/mod-ctrl/binding[0]/command",
        }
        props.update({f"key{k}": f"/input/keyboard/key[{k}]/binding[0]/command" for k in CONSOLE_KEYS})
        got = dict(zip(props, self.fg.telnet.get_many(list(props.values()))))
        # the Debug menu is the consoles' only menubar entry: disabled, they are out of reach
        # whether the menubar is hidden (most tasks) or shown with the task's menus (T08)
        menu_off = got["debug_menu"] == "false"
        keys_off = all(got[f"key{k}"] == "null" for k in CONSOLE_KEYS)
        evidence = f"menubar visible={got['menubar']}, Debug menu enabled={got['debug_menu']}, " + ", ".join(
            f"key {CONSOLE_KEYS[k]}={got[f'key{k}'] or '(none)'}" for k in CONSOLE_KEYS
        )
        loaded = got["nasal_loaded"] == "true"
        automation: dict[str, tuple[bool, str]] = {
            # the checklist dialog builds its `>` buttons from these bindings when it opens
            "checklist": (
                loaded and got["checklist_live"] == "0",
                f"lockdown module loaded={got['nasal_loaded'] or '(none)'}, checklist bindings removed="
                f"{got['checklist_removed'] or '(none)'}, live={got['checklist_live'] or '(none)'}",
            ),
            "simulation rate": (
                loaded and got["speed_up_held"] == "true" and _float_or_none(got["speed_up"]) == 1.0,
                f"/sim/speed-up={got['speed_up'] or '(none)'} held at 1={got['speed_up_held'] or '(none)'}",
            ),
            "map dialog": (got["ctrl_enter"] == "null", f"Ctrl+Enter binding={got['ctrl_enter'] or '(none)'}"),
            "walker": (
                got["walker_menu"] == "false",
                f"menubar visible={got['menubar']}, Walker menu enabled={got['walker_menu'] or '(none)'}",
            ),
        }
        out: dict[str, dict[str, str]] = {}
        for name in names:
            low = name.lower()
            hit = next((k for k in automation if k in low), None)
            if hit is not None:
                off, why = automation[hit]
                out[name] = {"state": "disabled" if off else "enabled", "evidence": why}
            elif "debug" in low or "nasal" in low or "property" in low:
                # all three are reached through the Debug menu; the property browser also by '/'
                off = menu_off and (keys_off if "property" in low else True)
                out[name] = {"state": "disabled" if off else "enabled", "evidence": evidence}
            else:
                out[name] = {"state": "unchecked", "evidence": "not a FlightGear console this adapter knows"}
        return out

    @property
    def telnet_port(self) -> int:
        return self.fg.telnet_port if self.fg else 0


def _float_or_none(text: str | None) -> float | None:
    """A property's value as a float, or None when it is empty or not a number."""
    try:
        return float(text) if text else None
    except ValueError:
        return None
