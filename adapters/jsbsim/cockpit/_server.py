"""The cockpit's state ports, for the host side only: a subset of FlightGear's telnet property
protocol on TCP and FlightGear's generic protocol as UDP output.

Telnet (lines end CRLF, as FlightGear's `props` server): `get|show <path>`, `set <path> <v>`,
`ls [dir]`, `data`, `prompt`, `run exit`, `run pause`, `run advance <steps>` (lockstep: from a
pause, run that many FDM steps at once and pause again; not FlightGear's), `quit`. Prompt mode answers
`<path> = '<value>' (<type>)` then the prompt `/> `; data mode answers the bare value, so a
client can pipeline many `get`s and read one line each. Errors start with `-ERR`.

Generic protocol: one ASCII line per packet, the chunks of a protocol file (default
`generic.xml`, written by `simbridge.adapters.fgproto.GenericProtocol`; first chunk the
simulator clock), produced every 1/`--generic-hz` s of simulator time and sent as a UDP
datagram (`--generic-udp`, FlightGear's generic output) and/or to every telnet connection that
asked for it with `stream` (not FlightGear's: for sandboxes that may send nothing to the host,
the host opens the connection and the packets come back on it). A `stream` connection answers
nothing else; it is dropped when it falls `MAX_STREAM_BACKLOG` bytes behind.
"""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Callable

from simbridge.adapters.jsbsim.cockpit._props import PropertyTree
from simbridge.adapters.kit.lineserver import MAX_BACKLOG, LineClient, LineServer

PROTOCOL_FILE = Path(__file__).with_name("generic.xml")
CRLF = "\r\n"


def _fmt(value, type_: str) -> str:
    if type_ == "bool":
        return "true" if value else "false"
    if type_ == "int":
        return str(int(value))
    if type_ == "double":
        return repr(float(value)) if isinstance(value, float) else str(value)
    return str(value)


#: bytes of unsent packets a `stream` connection may owe before it is dropped (~minutes of packets)
MAX_STREAM_BACKLOG = MAX_BACKLOG


class _Client(LineClient):
    def __init__(self, sock: socket.socket):
        super().__init__(sock)
        self.data_mode = False
        self.cwd = "/"
        #: receives every generic-protocol packet; answers no other command
        self.streaming = False


class TelnetServer(LineServer[_Client]):
    def __init__(
        self, tree: PropertyTree, port: int, host: str = "127.0.0.1", on_run: Callable[[str], str | None] | None = None
    ):
        super().__init__(host, port, client_class=_Client, listen_backlog=8, max_backlog=MAX_STREAM_BACKLOG)
        self.tree = tree
        self.on_run = on_run or (lambda cmd: None)

    @property
    def n_streams(self) -> int:
        """Connections that asked for the generic-protocol stream."""
        return sum(c.streaming for c in self.clients.values())

    def publish(self, packet: bytes) -> None:
        """Queue one generic-protocol packet for every `stream` connection (sent at `poll`)."""
        self.broadcast(packet, to=[c for c in self.clients.values() if c.streaming])

    def push_streams(self) -> None:
        """Send the `stream` connections what they are owed (also from inside a command)."""
        for c in [c for c in self.clients.values() if c.streaming and c.outbuf]:
            self.push(c)

    def poll(self, timeout_s: float = 0.0) -> None:
        """Serve whatever is waiting (called from the cockpit loop)."""
        self.push_streams()
        super().poll(timeout_s)

    def on_line(self, c: _Client, line: bytes) -> bool:
        return self._handle(c, line.decode("utf-8", "replace").strip())

    def answer(self, c: _Client) -> None:
        """A command's answer is sent whole (a client reads one answer per command); a stream
        connection's packets without blocking."""
        if not c.outbuf:
            return
        if c.streaming:
            self.push(c)
            return
        try:
            c.sock.setblocking(True)
            c.sock.settimeout(1.0)
            c.sock.sendall(c.outbuf)
        except OSError:
            pass
        finally:
            c.outbuf = b""
            try:
                c.sock.setblocking(False)
            except OSError:
                pass

    def _out(self, c: _Client, text: str) -> None:
        self.queue(c, text.encode())

    def _abs(self, c: _Client, path: str) -> str:
        return path if path.startswith("/") else (c.cwd.rstrip("/") + "/" + path)

    def _handle(self, c: _Client, line: str) -> bool:
        """Answer one command line; False to close the connection."""
        if not line:
            if not c.data_mode:
                self._out(c, c.cwd + "> ")
            return True
        parts = line.split()
        cmd, args = parts[0], parts[1:]
        t = self.tree
        if c.streaming:
            return cmd not in ("quit", "exit")  # a stream connection takes no other command
        if cmd in ("get", "show"):
            path = self._abs(c, args[0]) if args else c.cwd
            try:
                value, type_ = t.get(path)
                text = _fmt(value, type_)
                self._out(c, (text if c.data_mode else f"{args[0] if args else path} = '{text}' ({type_})") + CRLF)
            except KeyError:
                self._out(c, (f'-ERR "Node {path} not found"' if c.data_mode else f"{path} = '' (none)") + CRLF)
        elif cmd == "set":
            if len(args) < 2:
                self._out(c, "-ERR set needs a path and a value" + CRLF)
            else:
                path = self._abs(c, args[0])
                try:
                    t.set(path, " ".join(args[1:]))
                    if not c.data_mode:
                        value, type_ = t.get(path)
                        self._out(c, f"{args[0]} = '{_fmt(value, type_)}' ({type_})" + CRLF)
                except KeyError:
                    self._out(c, f'-ERR Node "{path}" not found' + CRLF)
                except PermissionError:
                    self._out(c, f'-ERR Node "{path}" is read-only' + CRLF)
                except ValueError as exc:
                    self._out(c, f"-ERR {exc}" + CRLF)
        elif cmd in ("ls", "ls2"):
            d = self._abs(c, args[0]) if args else c.cwd
            for name, is_dir in t.children(d):
                if is_dir:
                    self._out(c, f"{name}/" + CRLF)
                else:
                    value, type_ = t.get(d.rstrip("/") + "/" + name)
                    self._out(c, (name if c.data_mode else f"{name} =\t'{_fmt(value, type_)}'\t({type_})") + CRLF)
        elif cmd == "cd":
            c.cwd = self._abs(c, args[0]) if args else "/"
        elif cmd == "pwd":
            self._out(c, c.cwd + CRLF)
        elif cmd == "data":
            c.data_mode = True
        elif cmd == "prompt":
            c.data_mode = False
        elif cmd == "stream":
            c.streaming = c.data_mode = True
            return True
        elif cmd == "run":
            err = self.on_run(" ".join(args))
            if err:
                self._out(c, f"-ERR {err}" + CRLF)
            elif not c.data_mode:
                self._out(c, "<completed>" + CRLF)
        elif cmd in ("quit", "exit"):
            return False
        else:
            self._out(c, f"-ERR unknown command {cmd!r}" + CRLF)
        if not c.data_mode:
            self._out(c, c.cwd + "> ")
        return True


# ---------------------------------------------------------------- generic protocol


def read_protocol(path: Path = PROTOCOL_FILE) -> tuple[list[tuple[str, str, str]], str]:
    """([(node, type, printf format)], var separator) of a generic-protocol output definition."""
    root = ET.parse(path).getroot()
    out = root.find("generic/output")
    if out is None:
        raise ValueError(f"{path}: no <generic><output>")
    sep = out.findtext("var_separator") or ","
    sep = {"comma": ",", "tab": "\t", "space": " ", "semicolon": ";"}.get(sep, sep)
    chunks = []
    for ch in out.findall("chunk"):
        type_ = (ch.findtext("type") or "int").strip()
        fmt = (ch.findtext("format") or "").strip() or {"bool": "%d", "int": "%d"}.get(type_, "%f")
        chunks.append((ch.findtext("node", "").strip(), type_, fmt))
    return chunks, sep


class GenericPacket:
    """One ASCII packet of the protocol's chunks per call to `packet` (FlightGear's generic
    output, text mode: values formatted by each chunk's printf format, bools and ints as integers)."""

    def __init__(self, tree: PropertyTree, protocol: Path = PROTOCOL_FILE):
        self.tree = tree
        self.chunks, self.sep = read_protocol(protocol)

    def packet(self) -> bytes:
        vals = []
        for node, type_, fmt in self.chunks:
            try:
                v, _ = self.tree.get(node)
                v = float(v)
            except (KeyError, ValueError, TypeError):
                v = 0.0
            vals.append(fmt % (int(round(v)) if type_ in ("bool", "int") else v))
        return (self.sep.join(vals) + "\n").encode()


class GenericSender(GenericPacket):
    """Sends the packet as one UDP datagram per call to `send`."""

    def __init__(self, tree: PropertyTree, host: str, port: int, protocol: Path = PROTOCOL_FILE):
        super().__init__(tree, protocol)
        self.addr = (host, port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sent = 0

    def send(self, packet: bytes | None = None) -> None:
        """Send `packet` (already formatted by the caller) or a fresh one."""
        try:
            self.sock.sendto(packet if packet is not None else self.packet(), self.addr)
            self.sent += 1
        except OSError:
            pass

    def close(self) -> None:
        self.sock.close()
