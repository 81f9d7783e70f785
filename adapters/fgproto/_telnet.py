"""Client for FlightGear's telnet property protocol (`--telnet=...`, `src/Network/props.cxx`).

The client switches the connection to *data* mode once and stays there, because data mode
answers are machine-readable: `get P` answers exactly one line (the bare value, or
`-ERR "..."` when the node does not exist), while `set`, `run`, `cd` answer nothing. To know
when a command that answers nothing (or an unknown number of lines, like `ls`) is done, the
client follows it with `pwd`, whose answer is the only line that starts with `/` (property
children listed by `ls` never do). Lines end with `\\r\\n`; prompt-mode leftovers (`/> `) are
skipped.

A server implementing this subset (the embedded JSBSim cockpit does) must: accept `data`
(switch to data mode, no answer), `get` (one line), `set`/`run` (no answer in data mode,
`-ERR "..."` line on failure), `ls [dir]` (one line per child, `name/` for nodes with
children, bare `name` or `name[i]` for leaves) and `pwd` (one line, the current path).

Every network failure or timeout raises HarnessError: a lost simulator is a harness fault,
never an agent failure.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterable, Mapping, Sequence

from simbridge import HarnessError

_EOL = b"\r\n"


class TelnetProps:
    """A data-mode connection to a FlightGear-style property server. Thread-safe (one lock).

    >>> with TelnetProps("127.0.0.1", 5401) as fg:       # doctest: +SKIP
    ...     fg.get_many(["/sim/time/elapsed-sec", "/engines/engine[0]/rpm"])
    """

    def __init__(self, host: str, port: int, *, timeout_s: float = 10.0, connect_timeout_s: float = 5.0) -> None:
        self.host, self.port, self.timeout_s = host, port, timeout_s
        self._lock = threading.Lock()
        self._buf = b""
        try:
            sock = socket.create_connection((host, port), timeout=connect_timeout_s)
        except OSError as exc:
            raise HarnessError(f"telnet {host}:{port}: cannot connect: {exc}") from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.settimeout(timeout_s)
        self._sock: socket.socket | None = sock  # None once closed
        with self._lock:
            self._send([b"data", b"pwd"])
            self._read_until_pwd()

    # ------------------------------------------------------------------ context / lifetime
    def __enter__(self) -> "TelnetProps":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (sends `quit` first so the server frees its channel)."""
        sock, self._sock = getattr(self, "_sock", None), None
        if sock is None:
            return
        try:
            sock.sendall(b"quit" + _EOL)
        except OSError:
            pass
        sock.close()

    @property
    def closed(self) -> bool:
        return self._sock is None

    # ------------------------------------------------------------------ commands
    def get(self, path: str) -> str:
        """The value of one property as the string FlightGear prints (`''` for an empty node)."""
        return self.get_many([path])[0]

    def get_many(self, paths: Sequence[str]) -> list[str]:
        """Values of many properties in one round trip (all `get`s sent, then all answers read).

        FlightGear serves one telnet command batch per poll (`hz` of the `--telnet` option), so
        pipelining N gets costs about one frame instead of N. A missing node raises HarnessError.
        """
        for p in paths:
            _check_token(p)
        with self._lock:
            self._send([b"get " + p.encode() for p in paths])
            out = [self._readline() for _ in paths]
        for p, v in zip(paths, out):
            if v.startswith("-ERR"):
                raise HarnessError(f"telnet {self.host}:{self.port}: get {p}: {v}")
        return out

    def get_float(self, path: str) -> float:
        return _to_float(path, self.get(path))

    def get_floats(self, paths: Sequence[str]) -> list[float]:
        """`get_many` converted to floats (`true`/`false` → 1/0, empty → NaN)."""
        return [_to_float(p, v) for p, v in zip(paths, self.get_many(paths))]

    def set(self, path: str, value: object) -> None:
        """Set one property (FlightGear converts the string to the node's type)."""
        self.set_many({path: value})

    def set_many(self, values: Mapping[str, object] | Iterable[tuple[str, object]]) -> None:
        """Set several properties in one round trip; raises HarnessError if the server refuses one."""
        items = list(values.items()) if isinstance(values, Mapping) else list(values)
        cmds = []
        for p, v in items:
            _check_token(p)
            text = _format_value(v)
            if "\n" in text or "\r" in text:
                raise HarnessError(f"telnet: value for {p} contains a line break")
            cmds.append(f"set {p} {text}".encode())
        with self._lock:
            self._send(cmds + [b"pwd"])
            errors = self._read_until_pwd()
        if errors:
            raise HarnessError(f"telnet {self.host}:{self.port}: set: {'; '.join(errors)}")

    def run(self, command: str, *args: str) -> None:
        """Run an fgcommand (`run exit`, `run pause`...). Data mode reports no success/failure."""
        _check_token(command)
        line = " ".join(["run", command, *args]).encode()
        with self._lock:
            self._send([line, b"pwd"])
            errors = self._read_until_pwd()
        if errors:
            raise HarnessError(f"telnet {self.host}:{self.port}: run {command}: {'; '.join(errors)}")

    def ls(self, path: str = "/") -> list[str]:
        """Children of a node: `name/` for nodes with children, bare `name[i]`-style names for leaves."""
        _check_token(path)
        with self._lock:
            self._send([b"ls " + path.encode(), b"pwd"])
            lines = self._read_until_pwd()
        if lines and lines[0].startswith("-ERR"):
            raise HarnessError(f"telnet {self.host}:{self.port}: ls {path}: {lines[0]}")
        return lines

    def send_exit(self) -> None:
        """Ask the simulator to quit (`run exit`) without waiting for an answer that never comes."""
        with self._lock:
            try:
                self._send([b"run exit"])
            except HarnessError:
                pass

    # ------------------------------------------------------------------ wire
    def _send(self, lines: list[bytes]) -> None:
        if self._sock is None:
            raise HarnessError(f"telnet {self.host}:{self.port}: connection is closed")
        try:
            self._sock.sendall(b"".join(line + _EOL for line in lines))
        except OSError as exc:
            raise HarnessError(f"telnet {self.host}:{self.port}: send failed: {exc}") from None

    def _readline(self) -> str:
        """One answer line; prompt-mode prompts (`/path> `) glued in front of it are removed."""
        if self._sock is None:
            raise HarnessError(f"telnet {self.host}:{self.port}: connection is closed")
        deadline = time.monotonic() + self.timeout_s
        while _EOL not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise HarnessError(f"telnet {self.host}:{self.port}: no answer within {self.timeout_s:g} s")
            self._sock.settimeout(remaining)
            try:
                chunk = self._sock.recv(65536)
            except socket.timeout:
                raise HarnessError(f"telnet {self.host}:{self.port}: no answer within {self.timeout_s:g} s") from None
            except OSError as exc:
                raise HarnessError(f"telnet {self.host}:{self.port}: receive failed: {exc}") from None
            if not chunk:
                raise HarnessError(f"telnet {self.host}:{self.port}: connection closed by the simulator")
            self._buf += chunk
        line, self._buf = self._buf.split(_EOL, 1)
        text = line.decode("utf-8", "replace")
        # a prompt ends with '> ' and has no line end of its own
        while text.startswith("/") and "> " in text and not text.endswith("> "):
            head, _, rest = text.partition("> ")
            if " " in head:
                break
            text = rest
        return text

    def _read_until_pwd(self) -> list[str]:
        """Lines up to (excluding) the answer to `pwd`, the first line starting with '/'."""
        lines: list[str] = []
        while True:
            line = self._readline()
            if line.startswith("/"):
                return lines
            if line:
                lines.append(line)


def _check_token(text: str) -> None:
    if not text or any(c.isspace() for c in text):
        raise HarnessError(f"telnet: property path or command {text!r} must be non-empty without spaces")


def _format_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _to_float(path: str, v: str) -> float:
    s = v.strip().lower()
    if s == "true":
        return 1.0
    if s == "false":
        return 0.0
    if s in ("", "nan"):
        return float("nan")
    try:
        return float(s)
    except ValueError:
        raise HarnessError(f"telnet: {path} = {v!r} is not a number") from None
