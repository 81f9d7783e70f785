"""RREF logging: subscribe the mapped datarefs, turn packets into canonical samples.

Shared by the episode session, `simbridge record` and the benchmark so all three measure the
same path.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from simbridge.sim import StateSample
from simbridge import HarnessError
from simbridge.adapters.xplane._frames import Frame, FrameAssembler
from simbridge.adapters.xplane._mapping import SignalMap, datarefs_for, to_canonical
from simbridge.adapters.xplane._udp import UdpClient


class RrefLogger:
    def __init__(self, udp: UdpClient, rows: Sequence[SignalMap], *, hz: int = 50, reorder_depth: int = 3) -> None:
        self.udp = udp
        self.rows = list(rows)
        self.hz = hz
        self.datarefs = datarefs_for(self.rows)
        self.assembler = FrameAssembler(reorder_depth=reorder_depth)
        self.frames_out = 0
        self.last_raw: dict[str, float] = {}

    @property
    def signals(self) -> list[str]:
        return [r.signal for r in self.rows]

    def start(self, *, ready_timeout_s: float = 10.0, require_data: bool = True) -> None:
        """Subscribe and wait for the first packet (raises HarnessError if none arrives)."""
        self.udp.subscribe(self.datarefs, self.hz)
        self.udp.start_reader()
        if not require_data:
            return
        deadline = time.monotonic() + ready_timeout_s
        while self.udp.packets_received == 0:
            if time.monotonic() > deadline:
                host, port = self.udp.transport.remote
                raise HarnessError(
                    f"X-Plane at {host}:{port} sent no RREF data within {ready_timeout_s:g} s "
                    "(is it running, and is 'accept incoming connections' enabled in its network settings?)"
                )
            time.sleep(0.01)

    def frames(self) -> list[Frame]:
        out = []
        for pkt in self.udp.drain():
            out.extend(self.assembler.push(pkt))
        self.frames_out += len(out)
        return out

    def samples(self, frames: Sequence[Frame] | None = None) -> list[StateSample]:
        out = []
        for f in self.frames() if frames is None else frames:
            self.last_raw.update(f.raw)
            out.append(StateSample(f.t_sim, to_canonical(self.rows, f.raw)))
        return out

    def stop(self) -> list[Frame]:
        """Unsubscribe and return the frames still held in the reorder window."""
        self.udp.stop_reader()
        rest = [f for pkt in self.udp.drain() for f in self.assembler.push(pkt)] + self.assembler.flush()
        try:
            self.udp.unsubscribe()
        except OSError:
            pass
        return rest
