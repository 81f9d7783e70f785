"""The driving simulator's process inside the sandbox: the driver's window on the sandbox's
display, the world (SUMO + the ego's dynamics) at a fixed 20 Hz, and the true state streamed
to the host.

    python -m simbridge.adapters.drive.world.sim --scenario-json '{...}' --port 8800 [--host 0.0.0.0]

Each frame: keyboard -> `EgoControls` (CARLA manual_control bindings), the world steps it owes
(one per 50 ms of wall time while running: a frame that took 100 ms to draw is followed by two
steps, so simulator time keeps up with wall time as a CARLA server does whatever its client's
frame rate), the driver's view drawn and flipped, each step's sample and events sent. A host
that pauses (lockstep) freezes the world's clock while the window keeps drawing; from a pause,
`advance` runs exactly N steps (one drawn frame each, as fast as they draw) and pauses again,
so a lockstep slice is whole frames, not however many frames pass before a pause arrives.

State protocol (TCP, the host connects; one JSON object per line, UTF-8):
- to the host: `{"hello": {...}}` once (the start snapshot: town, spawn, planned route...),
  then `{"sample": {t, x, y, yaw, speed_kmh, throttle, steer, brake, reverse, hand_brake,
  gear}}` each frame, `{"event": {t, kind, data}}`, `{"lights": {t, states}}` when a traffic
  light changes (SUMO's link-state string per light), `{"snapshot": {...}}` when asked,
  `{"advanced": {"t": ...}}` once an `advance` is done and its last frame is on the screen.
- from the host: `{"cmd": "run"}` (the world starts: nothing moves before the host listens),
  `pause`, `resume`, `{"cmd": "advance", "steps": N}` (while paused), `snapshot`, `exit`.
Nothing on this port is for the agent: it is a blocked port of the drive tasks.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from typing import Any

from simbridge.adapters.drive._scenario import DriveScenario
from simbridge.adapters.drive.world._scene import EgoControls
from simbridge.adapters.kit.lineserver import LineClient, LineServer

FRAME_S = 0.05
WINDOW_SIZE = (1280, 800)
AUTOPILOT_NOTICE = "Autopilot is disabled"
#: wall time a slow window may fall behind before the world runs slower than real time
MAX_CATCH_UP_S = 0.25
MAX_STEPS_PER_FRAME = 5
#: seconds without any host connection after which a started world exits (its host is gone)
ORPHAN_EXIT_S = 30.0


class StateServer(LineServer[LineClient]):
    """Broadcasts JSON lines (each client first gets `hello`), collects the host's commands."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(host, port, client_class=LineClient, listen_backlog=4)
        self.hello: dict[str, Any] = {}
        self._cmds: list[dict[str, Any]] = []

    def on_connect(self, c: LineClient) -> None:
        self.queue(c, _line({"hello": self.hello}))

    def on_line(self, c: LineClient, line: bytes) -> bool:
        try:
            obj = json.loads(line)
            self._cmds.append({**obj, "cmd": str(obj.get("cmd", ""))})
        except (ValueError, AttributeError, TypeError):
            pass
        return True

    def answer(self, c: LineClient) -> None:
        """Nothing is answered to a command line: what is owed goes out at `flush`."""

    def poll(self, timeout_s: float = 0.0) -> list[dict[str, Any]]:  # type: ignore[override]
        """Accept, read and flush; returns the commands that arrived (`{"cmd": ..., ...}`)."""
        self._cmds = []
        super().poll(timeout_s)
        self.flush()
        cmds, self._cmds = self._cmds, []
        return cmds

    def send(self, obj: dict[str, Any]) -> None:
        self.broadcast(_line(obj))

    def close(self) -> None:
        self.flush()
        super().close()


def _line(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


class _FallbackKeys:
    """CARLA manual_control.py's keyboard mapping, used until the view's `KeyboardControl` exists."""

    def __init__(self) -> None:
        self.controls = EgoControls()
        self.quit_requested = False
        self.notice: str | None = None
        self._steer_cache = 0.0

    def update(self, events: list[Any], pressed: Any, dt_ms: float) -> EgoControls:
        import pygame

        c = self.controls
        reverse, hand = c.reverse, c.hand_brake
        for ev in events:
            if ev.type == pygame.QUIT:
                self.quit_requested = True
            elif ev.type == pygame.KEYUP and ev.key == pygame.K_q:
                reverse = not reverse
            elif ev.type == pygame.KEYUP and ev.key == pygame.K_p:
                self.notice = AUTOPILOT_NOTICE
        up = pressed[pygame.K_UP] or pressed[pygame.K_w]
        down = pressed[pygame.K_DOWN] or pressed[pygame.K_s]
        left = pressed[pygame.K_LEFT] or pressed[pygame.K_a]
        right = pressed[pygame.K_RIGHT] or pressed[pygame.K_d]
        throttle = min(c.throttle + 0.01 * dt_ms / 10.0, 1.0) if up else 0.0
        brake = min(c.brake + 0.2, 1.0) if down else 0.0
        inc = 5e-4 * dt_ms
        if left:
            self._steer_cache = 0.0 if self._steer_cache > 0 else self._steer_cache - inc
        elif right:
            self._steer_cache = 0.0 if self._steer_cache < 0 else self._steer_cache + inc
        else:
            self._steer_cache = 0.0
        self._steer_cache = max(-0.7, min(0.7, self._steer_cache))
        hand = bool(pressed[pygame.K_SPACE])
        self.controls = replace(
            c,
            throttle=throttle,
            brake=brake,
            steer=round(self._steer_cache, 1),
            reverse=reverse,
            hand_brake=hand,
            gear=-1 if reverse else 1,
        )
        return self.controls


def _keyboard() -> Any:
    try:
        from simbridge.adapters.drive.world._keys import KeyboardControl

        return KeyboardControl()
    except ImportError:
        return _FallbackKeys()


def _view(net: Any) -> Any:
    """The view's `DriverView` over the town's road geometry, or None (a plain background)."""
    try:
        from simbridge.adapters.drive.world._roads import RoadGeometry
        from simbridge.adapters.drive.world._view import DriverView
    except ImportError as exc:
        print(f"drive: no driver's view yet ({exc}); drawing a plain background", flush=True)
        return None
    return DriverView(WINDOW_SIZE, RoadGeometry.from_net(net))


def start_snapshot(world: Any) -> dict[str, Any]:
    from simbridge.adapters.drive.world._net import sumo_version

    sc: DriveScenario = world.sc
    return {
        "town": sc.town,
        "map": sc.town,
        "map_file": f"{sc.town}.xodr",
        "sumo_net": world.net.name,
        "sumo_version": sumo_version(),
        "ego_spawn": {"x_m": sc.ego_x_m, "y_m": sc.ego_y_m, "yaw_deg": sc.ego_yaw_deg},
        "ego_type_id": "vehicle.lincoln.mkz_2017",
        "route_xy_m": [list(p) for p in world.route_xy_m],
        "route_edges": world.route_edges,
        "traffic_vehicles": sc.traffic_vehicles,
        "traffic_lights": len(world._tls_ids),
        "parked": len(sc.parked),
        "walker": sc.walker is not None,
        "actors": scenario_actors(sc),
        "sim_time_s": world.t,
    }


def scenario_actors(sc: DriveScenario) -> list[dict[str, Any]]:
    """The scenario's actors as the world placed them (parked vehicles, the walker at its start),
    in the form of the CARLA importer's snapshots start.actors: what a task's scenario check
    matches its declared actors against. Whether the walker stepped out is the
    `scenario_trigger` event (and end.walker_started_t)."""
    out: list[dict[str, Any]] = [
        {"kind": "vehicle", "type_id": c.blueprint, "x_m": c.x_m, "y_m": c.y_m, "parked": True} for c in sc.parked
    ]
    if sc.walker is not None:
        x, y = sc.walker.start_xy_m
        out.append({"kind": "walker", "type_id": sc.walker.blueprint, "x_m": x, "y_m": y})
    return out


def end_snapshot(world: Any) -> dict[str, Any]:
    s = world.ego.state
    return {
        "sim_time_s": world.t,
        "ego": {"x_m": s.x_m, "y_m": s.y_m, "yaw_deg": s.yaw_deg, "speed_kmh": s.speed_kmh},
        "collisions_total": len(world.collisions),
        "walker_started_t": world.walker_started_t,
        "walker_xy_m": list(world.walker_xy) if world.walker_xy is not None else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="simbridge.adapters.drive.world.sim", description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario-json", required=True, help="the DriveScenario as JSON")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--start-timeout", type=float, default=120.0, help="exit when no host says run within this")
    args = ap.parse_args(argv)
    try:
        scenario = DriveScenario.from_json(args.scenario_json)
    except (ValueError, TypeError, KeyError) as exc:
        print(f"drive: bad --scenario-json: {exc}", file=sys.stderr)
        return 2
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    # SDL's default presents the window through an OpenGL renderer, which on software Mesa costs
    # ~10 ms of CPU per 1280x800 flip; the plain X11 framebuffer (MIT-SHM) costs ~0.05 ms
    os.environ.setdefault("SDL_FRAMEBUFFER_ACCELERATION", "0")
    import pygame

    from simbridge.adapters.drive.world._world import World

    try:
        world = World(scenario)
    except Exception as exc:  # SUMO's own exceptions: one line, the host reports a harness error
        print(f"drive: cannot build the world: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 3
    server = StateServer(args.host, args.port)
    server.hello = start_snapshot(world)
    pygame.init()
    screen = pygame.display.set_mode(WINDOW_SIZE)
    server.hello["video_driver"] = pygame.display.get_driver()  # "dummy": no window anywhere
    pygame.display.set_caption(f"simbridge drive - {scenario.town} - {scenario.task_id}")
    view = _view(world.net)
    keys = _keyboard()
    started_wall = time.monotonic()
    running = paused = False
    advance_left = 0  # steps an `advance` still owes (lockstep)
    budget_s = 0.0
    last_iter = time.monotonic()
    last_lights: dict[str, str] = {}
    notice_until = 0.0
    notice = ""
    last_client = time.monotonic()
    carried: list[dict[str, Any]] = []  # commands read while waiting out a paused frame
    print(f"drive: {scenario.town} ready on {args.host}:{server.port}", flush=True)
    try:
        while True:
            cmds, carried = carried + server.poll(), []
            for msg_in in cmds:
                cmd = msg_in["cmd"]
                if cmd == "run":
                    running = True
                elif cmd == "pause":
                    paused = True
                elif cmd == "resume":
                    paused, advance_left = False, 0
                elif cmd == "advance" and paused:
                    advance_left += max(0, int(msg_in.get("steps", 0)))
                elif cmd == "snapshot":
                    server.send({"snapshot": end_snapshot(world)})
                elif cmd == "exit":
                    return 0
            if not running and time.monotonic() - started_wall > args.start_timeout:
                print("drive: no host started the world; exiting", file=sys.stderr)
                return 4
            if server.clients:
                last_client = time.monotonic()
            elif running and time.monotonic() - last_client > ORPHAN_EXIT_S:
                print("drive: the host has gone; exiting", file=sys.stderr)
                return 5
            now = time.monotonic()
            elapsed_s, last_iter = now - last_iter, now
            n_steps = 0
            if running and not paused:
                # real time: the world owes one step per 50 ms of wall time; a slow frame is made up
                # by more steps before the next drawing, up to MAX_CATCH_UP_S (beyond, it runs slow)
                budget_s = min(budget_s + elapsed_s, MAX_CATCH_UP_S)
                n_steps = min(int(budget_s / FRAME_S + 1e-9), MAX_STEPS_PER_FRAME)
                budget_s -= n_steps * FRAME_S
            elif running and advance_left > 0:
                n_steps, advance_left = 1, advance_left - 1  # one step per drawn frame, as in real time
            events = pygame.event.get()
            # paused (lockstep), keys still toggle but held keys do not steer on: no time passes
            controls = keys.update(events, pygame.key.get_pressed(), n_steps * FRAME_S * 1000.0)
            if getattr(keys, "quit_requested", False):
                keys.quit_requested = False  # the agent cannot end the episode by closing the window
            msg = getattr(keys, "notice", None)
            if msg:
                notice, notice_until, keys.notice = str(msg), now + 3.0, None
                if view is not None and hasattr(view, "notify"):
                    view.notify(notice, world.t)
            for _ in range(n_steps):
                for ev in world.step(controls):
                    server.send({"event": ev})
                server.send({"sample": world.sample()})
                if world._tls_state != last_lights:
                    last_lights = dict(world._tls_state)
                    server.send({"lights": {"t": world.t, "states": last_lights}})
            if running and paused and n_steps == 0:
                # the same sample again (the clock stands still): the host keeps the first and
                # knows the stream is alive
                server.send({"sample": world.sample()})
            frame = world.frame(notices=(notice,) if now < notice_until else ())
            if view is not None:
                view.draw(screen, frame)
            else:
                screen.fill((70, 110, 60))
            pygame.display.flip()
            if paused and n_steps and advance_left == 0:
                server.send({"advanced": {"t": world.t}})  # its last frame is on the screen now
            server.flush()
            delay = FRAME_S - budget_s - (time.monotonic() - now)
            if delay > 0 and not advance_left:
                if paused:
                    # lockstep: the host's next `advance` ends the wait at once (sleeping out the
                    # frame added up to 50 ms to every slice)
                    carried = server.poll(delay)
                else:
                    time.sleep(delay)
    finally:
        server.close()
        world.close()
        pygame.quit()


if __name__ == "__main__":
    sys.exit(main())
