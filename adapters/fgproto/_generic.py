"""FlightGear's *generic* protocol: a list of property chunks streamed as text lines over UDP.

The harness writes the protocol XML itself (`GenericProtocol.write`) into its own folder and
points FlightGear at it with `--generic=socket,out,HZ,HOST,PORT,udp,NAME`, where NAME is a
path relative to `$FG_ROOT/Protocol` (`option()` builds one that climbs out of FG_ROOT).
FlightGear sends one packet per rendered frame at most (the `HZ` is an upper bound).

Text mode was chosen over binary mode: packets are one line of decimal numbers separated by
`,`, so a double keeps its precision (lat/lon), the packet validates itself (field count), a
person can read it with `nc -ul`, and another server (the embedded JSBSim cockpit) produces it
with a plain format string. The **first chunk is always `/sim/time/elapsed-sec`** (canonical
name `t_sim`): the task clock, FlightGear's simulator seconds since start.

Wire format of one packet (what a compatible sender must produce):

    <t_sim>,<value 1>,<value 2>,...,<value n>\\n

values in chunk order, each formatted with its chunk's printf format (bools as 0/1).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from xml.sax.saxutils import escape

ChunkType = Literal["bool", "int", "float", "double"]

#: the property every packet starts with: FlightGear's simulator time, seconds
CLOCK_NODE = "/sim/time/elapsed-sec"
CLOCK_NAME = "t_sim"

_DEFAULT_FORMAT: dict[str, str] = {"bool": "%d", "int": "%d", "float": "%.6f", "double": "%.9f"}


@dataclass(frozen=True)
class Chunk:
    """One field of the packet: `name` (canonical or internal) read from property `node`."""

    name: str
    node: str
    type: ChunkType = "double"
    format: str = ""

    @property
    def fmt(self) -> str:
        return self.format or _DEFAULT_FORMAT[self.type]


class GenericProtocol:
    """An ordered list of chunks, with the clock chunk prepended. Renders XML, decodes packets."""

    def __init__(self, chunks: list[Chunk], *, name: str = "simbridge") -> None:
        names = [c.name for c in chunks]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate chunk names: {sorted({n for n in names if names.count(n) > 1})}")
        if CLOCK_NAME in names:
            raise ValueError(f"chunk name {CLOCK_NAME!r} is reserved for the clock")
        for c in chunks:
            if not c.node.startswith("/"):
                raise ValueError(f"chunk {c.name}: node {c.node!r} must be an absolute property path")
            if c.type not in _DEFAULT_FORMAT:
                raise ValueError(f"chunk {c.name}: type {c.type!r} is not one of {sorted(_DEFAULT_FORMAT)}")
        self.name = name
        self.chunks: list[Chunk] = [Chunk(CLOCK_NAME, CLOCK_NODE, "double", "%.4f"), *chunks]

    @property
    def names(self) -> list[str]:
        """Value names in packet order, without the clock."""
        return [c.name for c in self.chunks[1:]]

    # ------------------------------------------------------------------ FlightGear side
    def render_xml(self) -> str:
        """The protocol file FlightGear loads (`<PropertyList><generic><output>...`)."""
        lines = [
            '<?xml version="1.0"?>',
            "<!-- written by simbridge: one line per frame, fields separated by ',' -->",
            "<PropertyList>",
            " <generic>",
            "  <output>",
            "   <binary_mode>false</binary_mode>",
            "   <line_separator>newline</line_separator>",
            "   <var_separator>,</var_separator>",
        ]
        for c in self.chunks:
            lines += [
                "   <chunk>",
                f"    <name>{escape(c.name)}</name>",
                f"    <type>{c.type}</type>",
                f"    <node>{escape(c.node)}</node>",
                f"    <format>{escape(c.fmt)}</format>",
                "   </chunk>",
            ]
        lines += ["  </output>", " </generic>", "</PropertyList>", ""]
        return "\n".join(lines)

    def write(self, folder: str | Path) -> Path:
        """Write `<folder>/<name>.xml`; returns its path."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.name}.xml"
        path.write_text(self.render_xml(), encoding="utf-8")
        return path

    @staticmethod
    def option(xml_path: str | Path, fg_root: str | Path, *, port: int, host: str = "127.0.0.1", hz: int = 60) -> str:
        """The `--generic=` option that makes FlightGear stream this protocol to host:port.

        FlightGear looks the protocol up as `$FG_ROOT/Protocol/<name>.xml`, so a file outside
        FG_ROOT is named by a relative path that climbs to `/` first.
        """
        xml_path = Path(xml_path).resolve()
        if xml_path.suffix != ".xml":
            raise ValueError(f"{xml_path}: a protocol file must end in .xml")
        proto_dir = Path(fg_root).resolve() / "Protocol"
        rel = os.path.relpath(xml_path.with_suffix(""), proto_dir)
        return f"--generic=socket,out,{hz},{host},{port},udp,{rel}"

    # ------------------------------------------------------------------ harness side
    def encode(self, t_sim: float, values: dict[str, float]) -> bytes:
        """One packet as FlightGear would send it (for servers and tests)."""
        fields = [self.chunks[0].fmt % t_sim]
        for c in self.chunks[1:]:
            v = values[c.name]
            fields.append(c.fmt % (int(round(v)) if c.type in ("bool", "int") else float(v)))
        return (",".join(fields) + "\n").encode()

    def decode(self, packet: bytes) -> tuple[float, dict[str, float]]:
        """(t_sim, {name: value}) from one packet. Raises ValueError on a malformed packet."""
        text = packet.decode("ascii", "replace").strip().rstrip(",")
        fields = text.split(",")
        if len(fields) != len(self.chunks):
            raise ValueError(f"packet has {len(fields)} fields, protocol {self.name!r} has {len(self.chunks)}")
        try:
            nums = [_num(f) for f in fields]
        except ValueError:
            raise ValueError(f"packet has a non-numeric field: {text[:120]!r}") from None
        t = nums[0]
        if not math.isfinite(t):
            raise ValueError("packet clock is not a number")
        return t, dict(zip(self.names, nums[1:]))


def _num(field: str) -> float:
    s = field.strip().lower()
    if s == "true":
        return 1.0
    if s == "false":
        return 0.0
    return float(s)
