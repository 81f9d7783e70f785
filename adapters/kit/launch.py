"""Starting a simulator's window process on the sandbox's display.

An embedded simulator (the JSBSim cockpit, the drive world) is a pygame process in the sandbox:
through the provider's own `spawn` when it has one (netns user, VM guest; the provider keeps
its output), else a local process in its own session (so `kill_group` ends all of it) whose
output goes to a log file the session can quote when the process dies.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from simbridge.sim import ProcessHandle, Sandbox
from simbridge import HarnessError

#: what every pygame window process needs beside the sandbox's environment
PYGAME_ENV = {"SDL_AUDIODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}


def window_env(sandbox: Sandbox) -> dict[str, str]:
    """The window process's environment: the runner's, without its SDL settings, then the
    sandbox's. A runner that set SDL_VIDEODRIVER=dummy for itself (a test process drawing
    off-screen) would otherwise put the simulator's window nowhere, and the agent would be
    scored on a black screen. With a display the video driver is X11 unless the sandbox says."""
    host = {k: v for k, v in os.environ.items() if not k.startswith("SDL_")}
    video = {"SDL_VIDEODRIVER": "x11" if sandbox.display else "dummy"}
    return {**host, **video, **(sandbox.env or {}), "DISPLAY": sandbox.display, **PYGAME_ENV}


def check_window(sim: str, sandbox: Sandbox, video_driver: str | None) -> None:
    """HarnessError when the simulator reports it draws no window although the sandbox has a
    display: the agent would see nothing, which is the harness's fault, not the agent's."""
    if sandbox.display and video_driver == "dummy":
        raise HarnessError(
            f"{sim}: the simulator's window is not on display {sandbox.display} (SDL video driver "
            f"{video_driver!r}): the agent would see a blank screen"
        )


def launch_window_process(
    sandbox: Sandbox, argv: Sequence[str], log_path: Path, *, name: str
) -> tuple[ProcessHandle, IO[bytes] | None]:
    """The started process and, when it runs locally, its open log file (the caller closes it).
    OSError propagates: the caller says which simulator could not start."""
    env = window_env(sandbox)
    if sandbox.spawn is not None:
        return sandbox.spawn(list(argv), env, name=name), None
    log_file = open(log_path, "wb")
    try:
        proc = subprocess.Popen(
            list(argv),
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        log_file.close()
        raise
    return proc, log_file
