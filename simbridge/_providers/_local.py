"""The `local` provider: a private Xvfb display on this machine. For development only: the
agent process is not separated from the host, so results are marked `unisolated`."""

from __future__ import annotations

import os
import select
import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from simbridge._adapter import ProcessHandle, Sandbox
from simbridge._errors import HarnessError, SimbridgeError
from simbridge._providers._base import SCREEN_DEPTH, SCREEN_H, SCREEN_W, Provider
from simbridge._providers._procs import ProcessSet

#: variables that would point the sandbox's programs at the host's own display or session
_SCRUB = ("DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "SESSION_MANAGER")


class LocalProvider(Provider):
    name = "local"
    isolated = False

    def __init__(
        self, *, size: tuple[int, int] = (SCREEN_W, SCREEN_H), depth: int = SCREEN_DEPTH, start_timeout_s: float = 15.0
    ) -> None:
        self.size, self.depth, self.start_timeout_s = size, depth, start_timeout_s
        self.procs: ProcessSet | None = None
        self.sandbox: Sandbox | None = None
        self.xvfb: Any = None

    def preflight(self) -> None:
        if shutil.which("Xvfb") is None:
            raise SimbridgeError("local provider needs Xvfb (sudo apt-get install xvfb; scripts/setup.sh installs it)")

    def start(self, workdir: str | Path) -> Sandbox:
        exe = shutil.which("Xvfb")
        if exe is None:
            raise HarnessError("local provider needs Xvfb (sudo apt-get install xvfb; scripts/setup.sh installs it)")
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        self.procs = ProcessSet(workdir / "logs")
        display = self._start_xvfb(exe)
        env = {k: v for k, v in os.environ.items() if k not in _SCRUB}
        env.update(DISPLAY=display, SDL_AUDIODRIVER="dummy", SDL_VIDEODRIVER="x11")

        def spawn(
            argv: Sequence[str], env: Mapping[str, str] | None = None, *, name: str | None = None, **kw: Any
        ) -> ProcessHandle:
            """Start `cmd` on the sandbox display; `env` adds to (overrides) the sandbox environment."""
            assert self.procs is not None
            merged = {**base_env, **(env or {})}
            merged["DISPLAY"] = base_env["DISPLAY"]  # never the host's display
            return self.procs.spawn(argv, name=name, env=merged, **kw)

        base_env = env
        self.sandbox = Sandbox(
            display=display,
            env=env,
            workdir=str(workdir),
            host_addr="127.0.0.1",
            isolated=False,
            provider=self.name,
            spawn=spawn,
            info={"screen": f"{self.size[0]}x{self.size[1]}x{self.depth}", "xvfb_pid": self.xvfb.pid},
        )
        return self.sandbox

    def _start_xvfb(self, exe: str) -> str:
        """Start Xvfb on a free display number: Xvfb picks it and writes it to a pipe (-displayfd)."""
        assert self.procs is not None
        r, w = os.pipe()
        try:
            self.xvfb = self.procs.spawn(
                [
                    exe,
                    "-displayfd",
                    str(w),
                    "-screen",
                    "0",
                    f"{self.size[0]}x{self.size[1]}x{self.depth}",
                    "-nolisten",
                    "tcp",
                    "-noreset",
                    "+extension",
                    "XTEST",
                ],
                name="Xvfb",
                pass_fds=(w,),
            )
        finally:
            os.close(w)
        try:
            buf = b""
            t_end = time.monotonic() + self.start_timeout_s
            while not buf.endswith(b"\n"):
                left = t_end - time.monotonic()
                if left <= 0 or self.xvfb.poll() is not None:
                    raise HarnessError(f"Xvfb did not start (exit code {self.xvfb.poll()}); see logs/Xvfb.log")
                ready, _, _ = select.select([r], [], [], min(left, 0.2))
                if ready:
                    chunk = os.read(r, 64)
                    if not chunk:
                        raise HarnessError("Xvfb closed its display pipe without a display number")
                    buf += chunk
        finally:
            os.close(r)
        return f":{int(buf.strip())}"

    def processes(self) -> list[tuple[str, ProcessHandle]]:
        """Xvfb first, then what went through `sandbox.spawn`."""
        return [(n, p) for n, p in self.procs.processes()] if self.procs is not None else []

    def stop(self) -> None:
        if self.procs is not None:
            self.procs.stop()
        self.procs = None

    def isolation_report(self) -> dict[str, Any]:
        return {
            "provider": self.name,
            "isolated": False,
            "note": "local provider: the agent shares the host; for development, results are unisolated",
        }
