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

from simbridge._adapter import ProcessHandle, Sandbox

#: what every pygame window process needs beside the sandbox's environment
PYGAME_ENV = {"SDL_AUDIODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}


def launch_window_process(
    sandbox: Sandbox, argv: Sequence[str], log_path: Path, *, name: str
) -> tuple[ProcessHandle, IO[bytes] | None]:
    """The started process and, when it runs locally, its open log file (the caller closes it).
    OSError propagates: the caller says which simulator could not start."""
    env = {**os.environ, **(sandbox.env or {}), "DISPLAY": sandbox.display, **PYGAME_ENV}
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
