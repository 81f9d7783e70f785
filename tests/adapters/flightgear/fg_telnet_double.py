"""A test double of FlightGear's telnet property server (not FlightGear): a dict of properties
served with the prompt/data modes and the `get`/`set`/`ls`/`pwd`/`run`/`data`/`prompt`/`quit`
commands of `src/Network/props.cxx`, enough to test the client's parsing and error paths."""

from __future__ import annotations

import socketserver
import threading


class TelnetDouble:
    """`props` maps absolute paths to string values; `runs` records `run` commands; `mute`
    makes the server swallow commands (to test timeouts)."""

    def __init__(self, props: dict[str, str]) -> None:
        self.props = dict(props)
        self.runs: list[str] = []
        self.mute = False
        #: when set, values computed on each `get` (e.g. an advancing clock)
        self.live: dict[str, object] = {}
        double = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                mode = "prompt"
                buf = b""
                while True:
                    try:
                        chunk = self.request.recv(4096)
                    except OSError:
                        return
                    if not chunk:
                        return
                    buf += chunk
                    while b"\r\n" in buf:
                        line, buf = buf.split(b"\r\n", 1)
                        if double.mute:
                            continue
                        out, mode, quit_ = double.answer(line.decode(), mode)
                        if out:
                            self.request.sendall(out.encode())
                        if quit_:
                            return

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def answer(self, line: str, mode: str) -> tuple[str, str, bool]:
        tokens = line.split()
        out = ""
        if not tokens:
            pass
        elif tokens[0] == "data":
            mode = "data"
        elif tokens[0] == "prompt":
            mode = "prompt"
        elif tokens[0] in ("quit", "exit"):
            return "", mode, True
        elif tokens[0] == "pwd":
            out = "/\r\n"
        elif tokens[0] == "get":
            path = tokens[1]
            if path in self.live:
                self.props[path] = str(self.live[path]())
            if path in self.props:
                v = self.props[path]
                out = (v if mode == "data" else f"{path} = '{v}' (string)") + "\r\n"
            else:
                out = f"-ERR \"node '{path}' not found\"\r\n"
        elif tokens[0] == "set":
            self.props[tokens[1]] = " ".join(tokens[2:])
            if mode == "prompt":
                out = f"{tokens[1]} = '{self.props[tokens[1]]}' (string)\r\n"
        elif tokens[0] == "run":
            self.runs.append(" ".join(tokens[1:]))
        elif tokens[0] == "ls":
            d = tokens[1].rstrip("/") if len(tokens) > 1 else ""
            kids = sorted(
                {
                    p[len(d) + 1 :].split("/")[0] + ("/" if "/" in p[len(d) + 1 :] else "")
                    for p in self.props
                    if p.startswith(d + "/")
                }
            )
            if not kids:
                out = f"-ERR \"node '{d}' not found\"\r\n"
            else:
                out = "".join(k + "\r\n" for k in kids)
        if mode == "prompt":
            out += "/> "
        return out, mode, False

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
