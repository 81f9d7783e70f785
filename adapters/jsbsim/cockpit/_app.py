"""The embedded simulator's process: JSBSim paced to real time in a pygame cockpit window.

    python -m simbridge.adapters.jsbsim.cockpit --task T09 --telnet-port 5401 \
        --generic-udp 127.0.0.1:5500

The FDM runs at 120 Hz of simulator time, paced to the wall clock; the window redraws at
`--fps`; the generic-protocol packet goes out every `1/--generic-hz` s of simulator time (as a
UDP datagram with `--generic-udp`, and on every telnet connection that asked for `stream`) and
the telnet port is served between ticks. Prints `READY telnet=<port>` on stdout once listening.

Lockstep (`run advance <steps>` on the telnet port, while frozen): the input that came in is
applied, then that many FDM steps run back to back as fast as the CPU allows (held keys repeat
per simulator step), the packets go out at their rate in simulator time, the frame the agent
will see is drawn, and the command is answered; the simulator is frozen again. While frozen the
window is redrawn only when input arrives (and twice a second), so a paused cockpit costs little.
The window (title `simbridge JSBSim <aircraft> <airport>`) opens at the screen's top-left, so
the pixel positions in `_layout` are screen positions on a 1280x800 display.

The panel is what a C172 pilot sees: needles, the radios' and transponder's digits, the
Kollsman window. `--assist readout` (repeatable `--assist NAME`; an unknown name is a usage
error) adds the digital readout strip along the bottom edge, an aid no C172 has; the property
`/sim/rendering/assists` says which aids the cockpit draws.
"""

from __future__ import annotations

import argparse
import collections
import os
import signal
import sys
import time
from pathlib import Path

from simbridge.adapters.jsbsim import _layout as L
from simbridge.adapters.jsbsim._airports import load_airport
from simbridge.adapters.jsbsim.cockpit._controls import Controls
from simbridge.adapters.jsbsim.cockpit._fdm import DT_S, LBS_PER_GAL_DEFAULT, FlightModel
from simbridge.adapters.jsbsim.cockpit._props import PropertyTree
from simbridge.adapters.jsbsim._scenario import Scenario, from_task, resolve
from simbridge.adapters.jsbsim.cockpit._server import PROTOCOL_FILE, GenericPacket, GenericSender, TelnetServer

TICK_S = 1.0 / 120.0
MAX_CATCHUP_S = 0.25  # behind by more than this: drop time instead of racing (real-time factor < 1)
#: the most FDM steps one `run advance` may ask for (10 simulator minutes)
MAX_ADVANCE_STEPS = 72_000
#: while frozen, the window is redrawn at least this often (seconds) even without input
FROZEN_REDRAW_S = 0.5
#: `--assist` names: aids a real C172 does not have, drawn only when asked for
ASSISTS = ("readout",)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="simbridge.adapters.jsbsim.cockpit", description=__doc__.splitlines()[0])
    ap.add_argument("--task", help="task id (initial state from its YAML)")
    ap.add_argument("--scenario", help="JSON file of a resolved Scenario")
    ap.add_argument(
        "--scenario-json",
        help="a resolved Scenario as JSON text (what the host-side session passes: "
        "the sandbox may not see the host's files)",
    )
    ap.add_argument("--airport", default="KPAO")
    ap.add_argument("--runway")
    ap.add_argument("--parking")
    ap.add_argument("--alt-ft", type=float)
    ap.add_argument("--ias-kt", type=float)
    ap.add_argument("--heading-deg", type=float)
    ap.add_argument("--engine", default="any", choices=["running", "cold_and_dark", "off", "any"])
    ap.add_argument("--aircraft", default=None)
    ap.add_argument("--telnet-port", type=int, default=5401, help="0 picks a free port")
    ap.add_argument("--telnet-host", default="127.0.0.1", help="address the telnet port binds (host side only)")
    ap.add_argument("--generic-udp", help="HOST:PORT for the generic-protocol UDP output")
    ap.add_argument("--generic-hz", type=float, default=60.0)
    ap.add_argument(
        "--generic-protocol",
        help="protocol XML of the generic packets, UDP and telnet `stream` (default: the cockpit's generic.xml)",
    )
    ap.add_argument("--fps", type=float, default=25.0)
    ap.add_argument("--paused", action="store_true", help="start frozen (lockstep)")
    ap.add_argument("--headless", action="store_true", help="no window (SDL dummy driver)")
    ap.add_argument(
        "--assist",
        action="append",
        default=[],
        choices=ASSISTS,
        metavar="NAME",
        help="draw an aid no C172 has (repeatable; an assisted episode): "
        "`readout`, the digital strip of IAS ALT HDG VS BANK PITCH RPM THR MIX FLAPS T along the "
        "bottom edge. Default: none, the panel as the aircraft has it",
    )
    return ap.parse_args(argv)


def scenario_from_args(a: argparse.Namespace) -> Scenario:
    if a.scenario_json:
        return Scenario.from_json(a.scenario_json)
    if a.scenario:
        return Scenario.from_json(Path(a.scenario).read_text())
    if a.task:
        from simbridge import load_task

        sc = from_task(load_task(a.task))
        if a.aircraft:
            sc.aircraft = a.aircraft
        return sc
    kw = {}
    if a.aircraft:
        kw["aircraft"] = a.aircraft
    return resolve(
        load_airport(a.airport),
        runway=a.runway,
        parking=a.parking,
        alt_msl_ft=a.alt_ft,
        ias_kt=a.ias_kt,
        heading_deg=a.heading_deg,
        engine=a.engine,
        **kw,
    )


class Cockpit:
    def __init__(self, a: argparse.Namespace):
        if a.headless:
            os.environ["SDL_VIDEODRIVER"] = "dummy"
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
        # SDL would otherwise present the window through an OpenGL texture: on a GPU-less X
        # server that is Mesa llvmpipe, ~13 ms of CPU per frame; the plain X11 shared-memory
        # framebuffer costs ~0.4 ms
        os.environ.setdefault("SDL_FRAMEBUFFER_ACCELERATION", "0")
        os.environ.setdefault("SDL_VIDEO_WINDOW_POS", "0,0")  # the layout's pixels are screen pixels
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        from simbridge.adapters.jsbsim.cockpit._input import InputHandler
        from simbridge.adapters.jsbsim.cockpit._panel import Panel
        from simbridge.adapters.jsbsim.cockpit._view import OutsideView

        self.pg = pygame
        self.args = a
        #: aids a C172 does not have, drawn only when the episode asked for them (`--assist`)
        self.assists = frozenset(getattr(a, "assist", None) or ())
        self.scenario = scenario_from_args(a)
        self.controls = Controls()
        self.model = FlightModel(self.scenario, self.controls)
        self.runtime: dict = {
            "frame_rate": 0.0,
            "rt_factor": 1.0,
            "frames": 0,
            "assists": ",".join(sorted(self.assists)),
        }
        try:
            import jsbsim

            self.runtime["jsbsim_version"] = jsbsim.__version__
        except AttributeError:
            pass
        self.tree = PropertyTree(self.model, self.controls, self.runtime)
        self.server = TelnetServer(self.tree, a.telnet_port, host=a.telnet_host, on_run=self._run_command)
        proto = Path(a.generic_protocol) if a.generic_protocol else PROTOCOL_FILE
        self.packets = GenericPacket(self.tree, proto)
        self.sender = None
        if a.generic_udp:
            host, _, port = a.generic_udp.rpartition(":")
            self.sender = GenericSender(self.tree, host or "127.0.0.1", int(port), proto)
        pygame.display.init()
        pygame.font.init()
        self.screen = pygame.display.set_mode((L.WIDTH, L.HEIGHT))
        self.runtime["video_driver"] = pygame.display.get_driver()  # "dummy": no window anywhere
        pygame.display.set_caption(f"simbridge JSBSim {self.scenario.aircraft} {self.scenario.airport}")
        pygame.key.set_repeat()  # no wall-clock repeats: held keys repeat in simulator time (_input)
        pygame.event.set_allowed(
            [
                pygame.QUIT,
                pygame.KEYDOWN,
                pygame.KEYUP,
                pygame.MOUSEBUTTONDOWN,
                pygame.MOUSEBUTTONUP,
                pygame.MOUSEMOTION,
            ]
        )
        self.panel = Panel(self.model.has_autopilot)
        self.view = OutsideView(load_airport(self.scenario.airport))
        self.input = InputHandler(self.controls, self.model.has_autopilot)
        self.model.frozen = bool(a.paused)
        self.running = True
        self._last_draw = 0.0
        self._input_since_draw = False  # input arrived that no frame has shown yet
        self._steps_per_packet = max(1, round(1.0 / (a.generic_hz * DT_S))) if a.generic_hz > 0 else 0

    # ---------------------------------------------------------------- commands
    def _run_command(self, cmd: str) -> str | None:
        name, _, arg = cmd.partition(" ")
        if name == "exit":
            self.running = False
        elif name == "pause":
            self.model.frozen = not self.model.frozen
        elif name == "advance":
            try:
                steps = int(arg)
            except ValueError:
                return f"advance: {arg!r} is not a whole number of FDM steps"
            if not 1 <= steps <= MAX_ADVANCE_STEPS:
                return f"advance: {steps} steps is outside 1..{MAX_ADVANCE_STEPS}"
            if not self.model.frozen:
                return "advance: the simulator is running (set /sim/freeze/master true first)"
            self.advance(steps)
        else:
            return f"unknown command {cmd!r} (known: exit, pause, advance <steps>)"
        return None

    def _step(self) -> None:
        """One FDM step with the input held at this simulator time, and its packet when due."""
        m = self.model
        self.input.tick(m.sim_time_s)
        m.step()
        if self._steps_per_packet and m.steps % self._steps_per_packet == 0:
            self._emit()

    def advance(self, steps: int) -> None:
        """Lockstep from a freeze: `steps` FDM steps at full speed (fewer if the aircraft
        crashes), then the frame at the time reached; frozen again afterwards."""
        m = self.model
        self._events()  # what the agent did while frozen acts from the first step
        m.frozen = False
        try:
            for i in range(steps):
                if m.crashed:
                    break
                self._step()
                if i % 60 == 59:
                    self.server.push_streams()
        finally:
            m.frozen = True
        if self._steps_per_packet and m.steps % self._steps_per_packet:
            self._emit()  # the host learns the time reached without waiting for the idle packet
        self._render()
        self.runtime["frames"] += 1
        self._last_draw = time.monotonic()
        self.server.push_streams()

    def _emit(self) -> None:
        """One generic-protocol packet to the UDP receiver and the telnet streams, if any."""
        if self.sender is None and not self.server.n_streams:
            return
        packet = self.packets.packet()
        if self.sender is not None:
            self.sender.send(packet)
        self.server.publish(packet)

    # ---------------------------------------------------------------- loop
    def run(self) -> int:
        frame_dt = 1.0 / self.args.fps
        now = time.monotonic()
        next_frame = now
        sim_budget_s = 0.0  # simulator seconds owed to the wall clock
        last = now
        rt_hist: collections.deque = collections.deque(maxlen=250)  # (wall, sim) pairs
        frame_times: collections.deque = collections.deque(maxlen=50)
        print(f"READY telnet={self.server.port}", flush=True)
        parent = os.getppid()
        next_parent_check = 0.0
        was_running = False
        while self.running:
            now = time.monotonic()
            if now >= next_parent_check:
                next_parent_check = now + 1.0
                if os.getppid() != parent:  # whoever launched us is gone: do not linger
                    break
            elapsed, last = now - last, now
            m = self.model
            # Where a frame takes long to draw (a software-emulated VM: 100-200 ms), a pause or
            # resume that came in meanwhile acts before the simulator advances, a resumed
            # simulator owes nothing for the time it stood still, and the packets go out before
            # the next frame is drawn: lockstep slices end close to where the host asked.
            self.server.poll(0.0)
            running = not m.frozen and not m.crashed
            if running:
                sim_budget_s = min(sim_budget_s + (elapsed if was_running else 0.0), MAX_CATCHUP_S)
                stepped = sim_budget_s >= DT_S
                while sim_budget_s >= DT_S:
                    self._step()
                    sim_budget_s -= DT_S
                if stepped:
                    self.server.poll(0.0)
            else:
                sim_budget_s = 0.0
                if self._steps_per_packet and now - getattr(self, "_last_idle_send", 0) > 0.1:
                    self._last_idle_send = now
                    self._emit()  # keep the host informed while frozen (10 Hz)
            was_running = running
            rt_hist.append((now, m.sim_time_s, m.frozen or m.crashed))
            # input is read every tick, not every frame: a key or a click acts at once and
            # its frame is drawn now (key -> visible within a tick and a draw, not up to a
            # frame later); pointer motion alone waits for the next frame
            moved, pressed = self._events()
            had_input = self._input_since_draw = self._input_since_draw or moved or pressed
            if now >= next_frame or pressed:
                if running or had_input or now - self._last_draw >= FROZEN_REDRAW_S:
                    self._render()
                    self._last_draw = now
                    self._input_since_draw = False
                    self.runtime["frames"] += 1
                    frame_times.append(now)
                if len(frame_times) > 1:
                    self.runtime["frame_rate"] = (len(frame_times) - 1) / (frame_times[-1] - frame_times[0])
                self.runtime["rt_factor"] = _rt_factor(rt_hist)
            if now >= next_frame:
                next_frame += frame_dt
                if next_frame < now:
                    next_frame = now + frame_dt
            wait = min(next_frame, time.monotonic() + TICK_S) - time.monotonic()
            self.server.poll(max(0.0, wait))
        self.close()
        return 0

    def _events(self) -> tuple[bool, bool]:
        """Apply the window's pending input: (any input, a key or button among it)."""
        pg = self.pg
        events = pg.event.get()
        for ev in events:
            if ev.type == pg.QUIT:
                self.running = False
            elif ev.type == pg.KEYDOWN:
                self.input.key_down(ev.key, ev.unicode, ev.mod)
            elif ev.type == pg.KEYUP:
                self.input.key_up(ev.key)
            elif ev.type == pg.MOUSEBUTTONDOWN:
                self.input.mouse_down(ev.pos[0], ev.pos[1], ev.button)
            elif ev.type == pg.MOUSEBUTTONUP:
                self.input.mouse_up(ev.pos[0], ev.pos[1], ev.button)
            elif ev.type == pg.MOUSEMOTION:
                self.input.mouse_motion(ev.pos[0], ev.pos[1], ev.buttons)
        pressed = any(ev.type in (pg.KEYDOWN, pg.KEYUP, pg.MOUSEBUTTONDOWN, pg.MOUSEBUTTONUP) for ev in events)
        return bool(events), pressed

    def readings(self):
        from simbridge.adapters.jsbsim.cockpit._panel import Readings

        m, f = self.model, self.model.fdm
        nav = m.nav1()
        status = detail = ""
        if m.crashed:  # (a harness freeze is not shown: lockstep screenshots look like real time)
            status, detail = "CRASHED", m.crash_reason
        pitch, bank = m.attitude_indication()
        sy = m.sys
        lit = sy.powered  # annunciators need the bus
        return Readings(
            ias_kt=m.indicated_airspeed_kt(),
            pitch_deg=pitch,
            bank_deg=bank,
            alt_ind_ft=m.indicated_altitude_ft(),
            turn_rate_dps=m.turn_rate_dps(),
            slip_g=f["accelerations/Ny"] if m.has_ny else 0.0,
            heading_mag_deg=m.heading_indication(),
            vs_fpm=f["velocities/h-dot-fps"] * 60.0,
            rpm=f["propulsion/engine/engine-rpm"],
            fuel_l_gal=f["propulsion/tank[0]/contents-lbs"] / LBS_PER_GAL_DEFAULT,
            fuel_r_gal=f["propulsion/tank[1]/contents-lbs"] / LBS_PER_GAL_DEFAULT,
            oil_t_degf=f["propulsion/engine/oil-temperature-degF"] if m.elec.bus_volts > 0 else 0.0,
            oil_p_psi=f["propulsion/engine/oil-pressure-psi"],
            volts=m.elec.bus_volts,
            avionics_powered=m.elec.avionics_powered,
            flaps_deg=m.flaps_deg,
            ammeter_amps=sy.ammeter_amps,
            suction_inhg=sy.suction_inhg,
            annunciators={
                "low_volts": sy.low_volts_light,
                "vacuum": sy.vacuum_light(),
                "smoke": lit and sy.smoke_in_cabin,
                "door": lit and sy.door_open,
                "stall": m.stall_warning,
            },
            smoke_density=sy.smoke_density,
            loc_dev_dots=nav.dots,
            nav_flag=not nav.in_range,
            gs_dev_dots=nav.gs_dots,
            gs_flag=not nav.gs_in_range,
            nav_to=nav.to_flag,
            t_sim=m.sim_time_s,
            status=status,
            status_detail=detail,
        )

    def _render(self) -> None:
        f, c = self.model.fdm, self.controls
        r = self.readings()
        self.view.draw(
            self.screen,
            f["position/lat-geod-deg"],
            f["position/long-gc-deg"],
            f["position/h-sl-ft"],
            f["attitude/psi-deg"],
            f["attitude/theta-deg"],
            f["attitude/phi-deg"],
        )
        from simbridge.adapters.jsbsim.cockpit._panel import readout_line

        readout = readout_line(r, c) if "readout" in self.assists else None
        self.panel.draw(self.screen, r, c, readout)
        self._present()

    def _present(self) -> None:
        self.pg.display.flip()

    def close(self) -> None:
        self.server.close()
        if self.sender:
            self.sender.close()
        self.pg.quit()


def _rt_factor(hist) -> float:
    """Simulator seconds per wall second over the recent window, frozen stretches excluded."""
    if len(hist) < 2:
        return 1.0
    wall = sim = 0.0
    for (w0, s0, p0), (w1, s1, _) in zip(hist, list(hist)[1:]):
        if not p0:
            wall += w1 - w0
            sim += s1 - s0
    return sim / wall if wall > 0 else 1.0


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    cockpit = Cockpit(a)
    signal.signal(signal.SIGTERM, lambda *_: setattr(cockpit, "running", False))
    signal.signal(signal.SIGINT, lambda *_: setattr(cockpit, "running", False))
    return cockpit.run()


if __name__ == "__main__":
    sys.exit(main())
