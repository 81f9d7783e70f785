"""Providers bring up the agent's sandbox: a display, an environment, a way to start processes.

`local` (Xvfb on this machine, unisolated) is the development provider; `netns` (Linux
namespaces + firewall) and `vm` (QEMU) implement the same `Provider` interface, and the
runner knows nothing else of them.
"""

from __future__ import annotations

import abc
from pathlib import Path
from typing import Any

from simbridge._adapter import ProcessHandle, Sandbox

#: screen size every provider gives the agent (the cockpit and reference pilots assume it)
SCREEN_W, SCREEN_H, SCREEN_DEPTH = 1280, 800, 24


class Provider(abc.ABC):
    """One sandbox for one episode. Use as a context manager: `stop()` always runs."""

    name: str = ""
    #: True when the sandbox really separates the agent from the host (not `local`)
    isolated: bool = False

    def preflight(self) -> None:
        """Check, before any bundle exists, that this provider can start a sandbox here
        (programs installed, privileges, images). Raises SimbridgeError with what is missing."""

    @abc.abstractmethod
    def start(self, workdir: str | Path) -> Sandbox:
        """Bring the sandbox up and return it. Raises HarnessError on failure."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Tear everything down, including every process started through `sandbox.spawn`. Idempotent."""

    def processes(self) -> list[tuple[str, ProcessHandle]]:
        """(name, handle) of every process this provider started for the episode and still
        holds (its display server, what went through `sandbox.spawn`), oldest first; the runner
        records their pids and CPU time. Empty before `start()` and after `stop()`."""
        return []

    def audit(self, ports: list[tuple[int, str, str]]) -> dict[str, Any] | None:
        """Run the isolation audit inside the sandbox (None: this provider has nothing to audit)."""
        return None

    def isolation_report(self) -> dict[str, Any]:
        """What the provider guarantees (stored in episode.json)."""
        return {"provider": self.name, "isolated": self.isolated}

    def __enter__(self) -> "Provider":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
