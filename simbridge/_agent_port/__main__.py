"""Serve an agent port on its own: `python -m simbridge._agent_port --display :1 [--port 8765]`.

This is the piece a `netns` or `vm` provider runs inside the sandbox, next to the simulator
window; the runner then talks to it over MCP like an external agent does. Without the runner's
simulator clock the task time `t` in the action log is seconds since the server started.

It prints its URL on the first line and `token TOKEN` on the second: the bearer token every
request must carry (`--token`, else $SIMBRIDGE_AGENT_TOKEN, else a fresh random one); `--no-token`
prints `no token` and admits any client.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any


def main(argv: list[str] | None = None) -> int:
    from simbridge._agent_port import AgentPort, McpPortServer

    ap = argparse.ArgumentParser(prog="python -m simbridge._agent_port", description=__doc__.splitlines()[0])
    ap.add_argument("--display", required=True, help="X display to capture and drive, e.g. :1")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="TCP port (0 = any free port)")
    ap.add_argument("--log", default=None, help="append actions as JSON lines to this file")
    ap.add_argument("--token", default=None, help="bearer token (default $SIMBRIDGE_AGENT_TOKEN, else a fresh one)")
    ap.add_argument("--no-token", action="store_false", dest="auth", help="admit any client without a token")
    args = ap.parse_args(argv)
    import os

    from simbridge._agent_port._mcp_server import new_token

    token = (args.token or os.environ.get("SIMBRIDGE_AGENT_TOKEN") or new_token()) if args.auth else None
    t0 = time.monotonic()
    lock = threading.Lock()
    fh = open(args.log, "a", encoding="utf-8") if args.log else None

    def log(record: Mapping[str, Any]) -> None:
        if fh is not None:
            with lock:
                fh.write(json.dumps(record) + "\n")
                fh.flush()

    port = AgentPort(args.display, clock=lambda: time.monotonic() - t0, log=log)
    server = McpPortServer(port, host=args.host, tcp_port=args.port, token=token).start()
    print(server.url, flush=True)
    print(f"token {token}" if token else "no token", flush=True)
    try:
        port.finished.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        port.close()
        if fh is not None:
            fh.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
