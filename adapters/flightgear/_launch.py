"""Launching FlightGear in a task's initial state and deciding when it is ready — or broken.

Software rendering (Mesa llvmpipe under Xvfb) needs `DBUS_FATAL_WARNINGS=0` (libdbus aborts
fgfs without a session bus) and `--texture-filtering=1` (the default anisotropic filtering
drops llvmpipe to <1 fps). Each launch gets a fresh FG_HOME; the 166 MB navdata cache that a
first launch builds (~25 s) is kept in a cache folder and copied into the next FG_HOME.

Ready means: telnet answers, `/sim/signals/fdm-initialized` and `/sim/sceneryloaded` are
true, the generic UDP stream delivers frames, and — for ground starts — there is solid
ground under the wheels (`/fdm/jsbsim/ground/solid` or weight on the main gear). A launch
that cannot get there is a `HarnessError`, detected early where possible: fgfs exited, a
modal "Fatal exception" window (fgfs then waits forever; found with `xwininfo -root -tree`),
no rendered frames (GL failure), or water/no scenery under a ground start.

"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simbridge import HarnessError
from simbridge.adapters.fgproto import GenericProtocol, TelnetProps, UdpReceiver
from simbridge.adapters.kit import end_process, free_port
from simbridge.adapters.flightgear._lockdown import KEY_WHITELIST, PROP_OVERRIDES, menu_overrides, render_lockdown

FGFS = os.environ.get("SIMBRIDGE_FGFS", "/usr/games/fgfs")
FG_ROOT = Path(os.environ.get("SIMBRIDGE_FG_ROOT", "/usr/share/games/flightgear"))
FG_HOME_CACHE = Path(os.environ.get("SIMBRIDGE_FG_CACHE", Path.home() / ".cache" / "simbridge" / "flightgear"))
#: frames a second FlightGear may draw at most (`/sim/frame-rate-throttle-hz`; unset or 0: as many as
#: it can). Software rendering takes every core it can get; on a machine that runs other work beside
#: FlightGear (CI: a test runner beside it on two cores) a cap above the frame rate the simulator's
#: step needs (4 fps for a 0.25 s step) hands the rest of the CPU to that work.
MAX_FPS = float(os.environ.get("SIMBRIDGE_FG_MAX_FPS") or 0)

#: options that make Mesa software rendering usable and keep the scene cheap
RENDER_OPTIONS: tuple[str, ...] = (
    "--texture-filtering=1",
    "--disable-clouds",
    "--disable-clouds3d",
    "--fog-disable",
    "--disable-random-objects",
    "--disable-random-vegetation",
    "--disable-random-buildings",
    "--disable-ai-traffic",
    "--disable-real-weather-fetch",
    "--disable-terrasync",
    "--disable-sound",
    "--disable-splash-screen",
    "--disable-save-on-exit",
    "--prop:/sim/rendering/shaders/quality-level=0",
    "--prop:/sim/rendering/draw-mask/clouds=false",
    "--prop:/sim/rendering/particles=false",
)


@dataclass
class LaunchSpec:
    """Where and how FlightGear starts. Ground start: airport + parking or runway. Air start:
    lat/lon (or airport + runway + offset_distance_nm on final) with alt_ft and vc_kt."""

    aircraft: str = "c172p"
    airport: str | None = None
    runway: str | None = None
    parking: str | None = None
    lat_deg: float | None = None
    lon_deg: float | None = None
    alt_ft: float | None = None
    heading_deg: float | None = None
    vc_kt: float | None = None
    offset_distance_nm: float | None = None
    on_ground: bool = True
    timeofday: str = "noon"
    wind: tuple[float, float] | None = None  # (from deg, kt)
    visibility_m: float | None = None
    geometry: tuple[int, int] = (1280, 800)
    allowed_keys: dict[int, str] = field(default_factory=lambda: dict(KEY_WHITELIST))
    #: menus and items the agent may use (menu name -> item names); None: the menubar is hidden
    menus: dict[str, tuple[str, ...]] | None = None
    extra_args: list[str] = field(default_factory=list)
    #: the most simulator time one frame may advance (`/sim/max-simtime-per-frame`, FlightGear's
    #: default 1 s): a frame that takes longer in wall time slows the simulator instead of
    #: jumping its clock, so the per-frame stream never leaves a longer gap. None: the default
    max_sim_step_s: float | None = None

    def position_args(self) -> list[str]:
        a: list[str] = []
        if self.airport:
            a.append(f"--airport={self.airport}")
        if self.on_ground:
            if self.parking:
                a.append(f"--parking-id={self.parking}")
            elif self.runway:
                a.append(f"--runway={self.runway}")
            elif self.lat_deg is not None and self.lon_deg is not None:
                a += [f"--lat={self.lat_deg}", f"--lon={self.lon_deg}"]
        else:
            if self.runway and self.offset_distance_nm is not None:
                a += [f"--runway={self.runway}", f"--offset-distance={self.offset_distance_nm}"]
            elif self.lat_deg is not None and self.lon_deg is not None:
                a += [f"--lat={self.lat_deg}", f"--lon={self.lon_deg}"]
            else:
                raise HarnessError("flightgear: an air start needs lat/lon or a runway with an offset distance")
            if self.alt_ft is None or self.vc_kt is None:
                raise HarnessError("flightgear: an air start needs alt_ft and vc_kt")
            a += [f"--altitude={self.alt_ft}", f"--vc={self.vc_kt}"]
        if self.heading_deg is not None:
            a.append(f"--heading={self.heading_deg}")
        return a


def fatal_windows(display: str) -> list[str]:
    """Titles of FlightGear's modal error windows on the display (empty when none or no X tools)."""
    try:
        out = subprocess.run(
            ["xwininfo", "-root", "-tree", "-display", display], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line.strip() for line in out.splitlines() if "Fatal exception" in line or "Fatal error" in line]


class FlightGearProcess:
    """One fgfs process with its telnet connection and UDP stream. `start()` returns when ready."""

    def __init__(
        self,
        spec: LaunchSpec,
        protocol: GenericProtocol,
        *,
        workdir: str | Path,
        display: str,
        env: dict[str, str] | None = None,
        spawn: Callable[..., Any] | None = None,
        fgfs: str = FGFS,
        fg_root: Path = FG_ROOT,
        cache_dir: Path | None = FG_HOME_CACHE,
        telnet_port: int | None = None,
        reach: Callable[[int], tuple[str, int]] | None = None,
        harness_addr: str = "127.0.0.1",
        harness_udp_port: int = 0,
        sim_uid: int | None = None,
    ) -> None:
        """`telnet_port`: the port fgfs listens on (None: a free one); `reach(port)`: where the
        harness connects to it (default loopback); the generic UDP stream goes to
        `harness_addr:harness_udp_port` (0: a free port); `sim_uid`: the user fgfs runs as in
        an isolated sandbox, which gets its FG_HOME, HOME and XDG runtime folder."""
        self.spec, self.protocol = spec, protocol
        self._fixed_telnet_port = telnet_port
        self._reach = reach or (lambda port: ("127.0.0.1", port))
        self.harness_addr, self.harness_udp_port, self.sim_uid = harness_addr, harness_udp_port, sim_uid
        self.telnet_addr = "127.0.0.1"
        self.workdir = Path(workdir)
        self.display = display
        self.base_env = dict(env or {})
        self.spawn = spawn
        self.fgfs, self.fg_root, self.cache_dir = fgfs, Path(fg_root), cache_dir
        self.proc: Any = None
        self.telnet: TelnetProps | None = None
        self.udp: UdpReceiver | None = None
        self.telnet_port = 0
        self.log_path = self.workdir / "fgfs.log"
        self.t_launch = 0.0
        self.launch_to_ready_s: float | None = None
        self.warm_home = False

    def props(self) -> TelnetProps:
        """The telnet property connection; HarnessError when fgfs is not (or no longer) connected."""
        if self.telnet is None:
            raise HarnessError("flightgear: telnet property server not connected (fgfs not started, or stopped)")
        return self.telnet

    def receiver(self) -> UdpReceiver:
        """The generic-protocol UDP receiver; HarnessError before `start()` opened it or after `stop()`."""
        if self.udp is None:
            raise HarnessError("flightgear: generic-protocol UDP receiver not open (fgfs not started, or stopped)")
        return self.udp

    # ------------------------------------------------------------------ launch
    def command(self) -> list[str]:
        w, h = self.spec.geometry
        proto_xml = self.protocol.write(self.workdir / "proto")
        lock = self.workdir / "lockdown.xml"
        lock.write_text(
            render_lockdown(
                self.fg_root, self.spec.aircraft, self.spec.allowed_keys, menubar_visible=self.spec.menus is not None
            )
        )
        try:
            menus = menu_overrides(self.fg_root, self.spec.menus) if self.spec.menus is not None else []
        except (OSError, ET.ParseError, ValueError) as exc:
            raise HarnessError(f"flightgear: cannot lock the menubar down to the task's menus: {exc}") from None
        argv = [
            self.fgfs,
            f"--fg-root={self.fg_root}",
            f"--aircraft={self.spec.aircraft}",
            *self.spec.position_args(),
            # the host field is ignored: fgfs 2020.3 listens on all interfaces (see _lockdown.py)
            f"--telnet=socket,bi,60,127.0.0.1,{self.telnet_port},tcp",
            GenericProtocol.option(proto_xml, self.fg_root, port=self.receiver().port, host=self.harness_addr, hz=60),
            *RENDER_OPTIONS,
            f"--geometry={w}x{h}",
            f"--timeofday={self.spec.timeofday}",
            "--log-level=warn",
            f"--config={lock}",
            *PROP_OVERRIDES,
            *menus,
        ]
        if self.spec.wind is not None:
            argv.append(f"--wind={self.spec.wind[0]:g}@{self.spec.wind[1]:g}")
        if self.spec.visibility_m is not None:
            argv.append(f"--visibility={self.spec.visibility_m:g}")
        if self.spec.max_sim_step_s is not None:
            argv.append(f"--prop:/sim/max-simtime-per-frame={self.spec.max_sim_step_s:g}")
        if MAX_FPS > 0:
            argv.append(f"--prop:/sim/frame-rate-throttle-hz={MAX_FPS:g}")
        return argv + list(self.spec.extra_args)

    def environment(self) -> dict[str, str]:
        fg_home, home, xdg = self.workdir / "fghome", self.workdir / "home", self.workdir / "xdg"
        for d in (fg_home, home, xdg):
            d.mkdir(parents=True, exist_ok=True)
        xdg.chmod(0o700)
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TZ")}
        env.update(self.base_env)
        env.update(self.fg_environment())
        env["DISPLAY"] = self.display
        return env

    def fg_environment(self) -> dict[str, str]:
        """What fgfs itself needs in its environment (passed explicitly into a sandbox, whose
        spawn lets only a minimal environment through)."""
        return {
            "FG_ROOT": str(self.fg_root),
            "FG_HOME": str(self.workdir / "fghome"),
            "HOME": str(self.workdir / "home"),
            "XDG_RUNTIME_DIR": str(self.workdir / "xdg"),
            "LIBGL_ALWAYS_SOFTWARE": "1",
            "DBUS_FATAL_WARNINGS": "0",
        }

    def _hand_over(self) -> None:
        """Give the sandbox's simulator user the folders fgfs writes to."""
        if self.sim_uid is None:
            return
        for d in ("fghome", "home", "xdg"):
            top = self.workdir / d
            for p in [top, *top.rglob("*")]:
                os.chown(p, self.sim_uid, -1, follow_symlinks=False)

    def _seed_home(self) -> None:
        if self.cache_dir is None or not self.cache_dir.is_dir():
            return
        for f in self.cache_dir.glob("*.cache"):
            shutil.copy2(f, self.workdir / "fghome" / f.name)
            self.warm_home = True

    def _fill_cache(self) -> None:
        if self.cache_dir is None or self.warm_home:
            return
        try:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            for f in (self.workdir / "fghome").glob("navdata*.cache"):
                tmp = self.cache_dir / (f.name + ".tmp")
                shutil.copy2(f, tmp)
                os.replace(tmp, self.cache_dir / f.name)
        except OSError:
            pass  # a cache is an optimisation only

    def start(self, timeout_s: float = 240.0, ground_timeout_s: float = 30.0) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.udp = UdpReceiver(self.protocol, host=self.harness_addr, port=self.harness_udp_port).start()
        # fgfs ignores the telnet host field and listens on every interface: free there
        self.telnet_port = self._fixed_telnet_port or free_port(socket.SOCK_STREAM, "0.0.0.0")
        self.telnet_addr, self._telnet_reach_port = self._reach(self.telnet_port)
        env = self.environment()
        self._seed_home()
        self._hand_over()
        argv = self.command()
        (self.workdir / "fgfs.cmd").write_text(" ".join(argv) + "\n")
        self.t_launch = time.monotonic()
        log = open(self.log_path, "wb")
        try:
            if self.spawn is not None:
                pinned = [f"{k}={v}" for k, v in self.fg_environment().items()]
                self.proc = self.spawn(["env", *pinned, *argv], env=env, stdout=log, stderr=subprocess.STDOUT)
            else:
                self.proc = subprocess.Popen(
                    argv,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
        except OSError as exc:
            raise HarnessError(f"flightgear: cannot start {self.fgfs}: {exc}") from None
        finally:
            log.close()
        try:
            self._wait_ready(timeout_s, ground_timeout_s)
        except BaseException:
            self.stop()
            raise
        self.launch_to_ready_s = time.monotonic() - self.t_launch
        self._fill_cache()

    def _check_alive(self, stage: str) -> None:
        if self.proc.poll() is not None:
            raise HarnessError(
                f"flightgear: fgfs exited with code {self.proc.returncode} while {stage}; log: {self.log_tail()}"
            )
        fatal = fatal_windows(self.display)
        if fatal:
            raise HarnessError(f"flightgear: modal error window while {stage}: {fatal[0]}; log: {self.log_tail()}")

    def _wait_ready(self, timeout_s: float, ground_timeout_s: float) -> None:
        deadline = self.t_launch + timeout_s
        stage = "waiting for telnet"
        last_check = 0.0
        while True:
            now = time.monotonic()
            if now > deadline:
                raise HarnessError(f"flightgear: not ready after {timeout_s:g} s ({stage}); log: {self.log_tail()}")
            if now - last_check > 2.0:
                self._check_alive(stage)
                last_check = now
            if self.telnet is None:
                try:
                    self.telnet = TelnetProps(
                        self.telnet_addr, self._telnet_reach_port, timeout_s=15, connect_timeout_s=2
                    )
                except HarnessError:
                    time.sleep(1.0)
                    continue
                stage = "waiting for the flight model and scenery"
            try:
                init, scenery = self.telnet.get_many(["/sim/signals/fdm-initialized", "/sim/sceneryloaded"])
            except HarnessError:
                # fgfs blocks its main loop while it loads (navcache, scenery): not an error
                # before the deadline; reconnect so a late answer cannot desynchronise the stream
                self.telnet.close()
                self.telnet = None
                continue
            if init == "true" and scenery == "true":
                break
            time.sleep(1.0)
        stage = "waiting for rendered frames (generic UDP stream)"
        try:
            self.receiver().wait_first(max(5.0, min(60.0, deadline - time.monotonic())))
        except HarnessError as exc:
            self._check_alive(stage)
            raise HarnessError(
                f"flightgear: no frames rendered after the scenery loaded (GL failure?): {exc}"
            ) from None
        if self.spec.on_ground:
            stage = "waiting for solid ground under the wheels"
            g_deadline = time.monotonic() + ground_timeout_s
            while True:
                solid, w1, w2 = self.telnet.get_many(
                    ["/fdm/jsbsim/ground/solid", "/gear/gear[1]/wow", "/gear/gear[2]/wow"]
                )
                if solid != "false" and w1 == "true" and w2 == "true":
                    break
                if time.monotonic() > g_deadline:
                    raise HarnessError(
                        f"flightgear: no solid ground under the wheels at {self.spec.airport} after the scenery "
                        f"loaded (solid={solid!r}, main gear wow={w1!r}/{w2!r}): the scenery for this airport is "
                        "probably not installed (Debian's FlightGear ships Hawaii and Iceland only)"
                    )
                self._check_alive(stage)
                time.sleep(1.0)

    # ------------------------------------------------------------------ lifetime
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, n_chars: int = 600) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        lines = [ln for ln in text.splitlines() if ln.strip()]
        return " | ".join(lines[-8:])[-n_chars:] or "(empty log)"

    def stop(self) -> None:
        """`run exit` first (clean, ~3 s), then the kit's SIGTERM -> SIGKILL of the process group."""
        if self.telnet is not None:
            self.telnet.send_exit()
            self.telnet.close()
            self.telnet = None
        if self.proc is not None:
            end_process(self.proc, exit_wait_s=8.0, grace_s=8.0)
        if self.udp is not None:
            self.udp.close()
            self.udp = None
