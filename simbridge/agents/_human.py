"""`human`: a person flies the simulator window through VNC.

The runner starts `x11vnc` on the sandbox display (loopback only, no password: the address is
reachable from this machine alone) and prints the address; connect any VNC viewer to it. Type
`done` (or `give up`) and Enter in the runner's terminal to end the episode early; otherwise it
ends at the time limit. The person's input is not seen by the agent port, so actions.jsonl
stays empty for human episodes.
"""

from __future__ import annotations

import shutil
import sys
import threading
from typing import TYPE_CHECKING, Any

from simbridge._errors import SimbridgeError
from simbridge._net import free_port
from simbridge.agents._base import Agent, AgentContext, AgentResult

if TYPE_CHECKING:
    from simbridge._agent_port import AgentPortClient
    from simbridge._task import TaskSpec


class HumanAgent(Agent):
    name = "human"

    def __init__(self) -> None:
        if shutil.which("x11vnc") is None:
            raise SimbridgeError("human agent needs x11vnc (sudo apt-get install x11vnc; scripts/setup.sh installs it)")
        self._ctx: AgentContext | None = None
        self._vnc: Any = None
        self._said: tuple[str, str] | None = None
        self.vnc_port: int | None = None

    def setup(self, ctx: AgentContext) -> None:
        self._ctx = ctx
        exe = shutil.which("x11vnc")
        if exe is None:
            raise SimbridgeError("human agent needs x11vnc (sudo apt-get install x11vnc; scripts/setup.sh installs it)")
        if ctx.spawn is None:
            raise SimbridgeError("human agent: the provider cannot start processes in the sandbox")
        self.vnc_port = free_port()
        self._vnc = ctx.spawn(
            [
                exe,
                "-display",
                ctx.display,
                "-localhost",
                "-rfbport",
                str(self.vnc_port),
                "-nopw",
                "-forever",
                "-shared",
                "-quiet",
                "-noxdamage",
            ],
            name="x11vnc",
        )
        ctx.say(f"human agent: connect a VNC viewer to 127.0.0.1:{self.vnc_port} (display {ctx.display})")
        ctx.say("type 'done' or 'give up' + Enter here to end early; otherwise the time limit ends the episode")

    def _read_stdin(self) -> None:
        for line in sys.stdin:
            word = line.strip().lower()
            if word in ("done", "d"):
                self._said = ("done", "typed done")
            elif word in ("give up", "give_up", "quit", "q"):
                self._said = ("give_up", "typed give up")
            if self._said and self._ctx:
                self._ctx.ended.set()
                return

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        assert self._ctx is not None
        if sys.stdin is not None and sys.stdin.isatty():
            threading.Thread(target=self._read_stdin, name="human-stdin", daemon=True).start()
        while not self._ctx.ended.wait(0.2):
            pass
        return self._said[0] if self._said else "give_up"  # type: ignore[return-value]

    def close(self) -> None:
        if self._vnc is not None and self._vnc.poll() is None:
            self._vnc.terminate()
        self._vnc = None
