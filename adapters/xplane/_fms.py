"""Reading FMS legs: the XPLM navigation API through a host-side harness plugin.

FMS legs are not datarefs, and neither the native UDP protocol, XPlaneConnect nor the Web API
(up to v3) exposes them. Only a plugin can call `XPLMCountFMSEntries` / `XPLMGetFMSEntryInfo` /
`XPLMGetDestinationFMSEntry` (XPLMNavigation.h). The harness therefore expects a small native
plugin (C, not a scripting plugin, so the lockdown still holds) that answers one UDP request on a
host-only port with the legs. This module is the harness side of that exchange:

request  `FMSQ\\0`                                   (5 B)
reply    `FMSL\\0` i32 count, i32 destination index, then per entry:
         i32 nav type (XPLMNavType), i32 nav ref, i32 altitude ft, f32 lat, f32 lon,
         u8 id length, id (ASCII)

The layout mirrors the outputs of `XPLMGetFMSEntryInfo`. The plugin's source is
`adapters/xplane/plugin/simbridge_fms.c` (Linux build); the tests build it and drive it with a stub
of the XPLM API, and the X-Plane double implements the same reply. It has not been loaded into a
real X-Plane yet.
"""

from __future__ import annotations

import struct
import time
from dataclasses import asdict, dataclass
from typing import Any

from simbridge import HarnessError
from simbridge.adapters.xplane._transport import DatagramTransport

FMS_PORT = 49010
_HEAD = struct.Struct("<ii")
_ENTRY = struct.Struct("<iiiffB")

#: XPLMNavType values (XPLMNavigation.h)
NAV_TYPES = {
    0: "unknown",
    1: "airport",
    2: "ndb",
    4: "vor",
    8: "ils",
    16: "localizer",
    32: "glideslope",
    64: "outer_marker",
    128: "middle_marker",
    256: "inner_marker",
    512: "fix",
    1024: "dme",
    2048: "latlon",
}


@dataclass(frozen=True)
class FmsEntry:
    index: int
    nav_type: int
    ident: str
    nav_ref: int
    alt_ft: int
    lat_deg: float
    lon_deg: float

    @property
    def kind(self) -> str:
        return NAV_TYPES.get(self.nav_type, str(self.nav_type))


def encode_fmsq() -> bytes:
    return b"FMSQ\x00"


def encode_fmsl(entries: list[FmsEntry], destination: int) -> bytes:
    out = b"FMSL\x00" + _HEAD.pack(len(entries), destination)
    for e in entries:
        raw = e.ident.encode("ascii")[:255]
        out += _ENTRY.pack(e.nav_type, e.nav_ref, e.alt_ft, e.lat_deg, e.lon_deg, len(raw)) + raw
    return out


def decode_fmsl(data: bytes) -> tuple[list[FmsEntry], int]:
    if data[:4] != b"FMSL" or len(data) < 5 + _HEAD.size:
        raise HarnessError(f"FMS probe: not an FMSL reply: {data[:5]!r}")
    count, dest = _HEAD.unpack_from(data, 5)
    pos, entries = 5 + _HEAD.size, []
    for i in range(count):
        if pos + _ENTRY.size > len(data):
            raise HarnessError(f"FMS probe: reply truncated at entry {i} of {count}")
        nav_type, ref, alt, lat, lon, n = _ENTRY.unpack_from(data, pos)
        pos += _ENTRY.size
        ident = data[pos : pos + n].decode("ascii", "replace")
        pos += n
        entries.append(FmsEntry(i, nav_type, ident, ref, alt, lat, lon))
    return entries, dest


class FmsProbeClient:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = FMS_PORT,
        *,
        timeout_s: float = 0.5,
        retries: int = 2,
        transport: DatagramTransport | None = None,
    ) -> None:
        self.transport = transport or DatagramTransport(host, port)
        self.timeout_s, self.retries = timeout_s, retries

    def legs(self) -> tuple[list[FmsEntry], int]:
        for _ in range(self.retries + 1):
            self.transport.send(encode_fmsq())
            deadline = time.monotonic() + self.timeout_s
            while (left := deadline - time.monotonic()) > 0:
                data = self.transport.recv(left)
                if data is not None and data[:4] == b"FMSL":
                    return decode_fmsl(data)
        raise HarnessError(
            f"FMS probe: no reply from {self.transport.remote[0]}:{self.transport.remote[1]}; "
            "is the simbridge FMS plugin installed in X-Plane?"
        )

    def snapshot(self) -> dict[str, Any]:
        entries, dest = self.legs()
        airports = [e.ident for e in entries if e.nav_type == 1]
        return {
            "legs": [asdict(e) | {"kind": e.kind} for e in entries],
            "destination_index": dest,
            "origin": airports[0] if airports else None,
            "destination": airports[-1] if len(airports) > 1 else None,
            "source": "XPLMNavigation via simbridge FMS plugin",
        }

    def close(self) -> None:
        self.transport.close()
