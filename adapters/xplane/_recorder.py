"""Record-only mode: log an already running X-Plane into a bundle, no agent and no setup.

Operators use it to check a lab setup, instructors to record reference flights. It subscribes
every mapped signal over RREF (50 Hz by default) and stops after `seconds` of simulator time
(bounded in wall time too, so a paused simulator cannot hold it forever). A stream that stalls
ends the bundle `harness_error` (the kit's `StallGuard`): a record-only bundle has no agent
to score.
"""

from __future__ import annotations

import time
from pathlib import Path

from simbridge._bundle import BundleWriter, EpisodeInfo
from simbridge._errors import HarnessError
from simbridge.adapters.kit import STALL_STATUS, StallGuard
from simbridge.adapters.xplane import _mapping
from simbridge.adapters.xplane._logger import RrefLogger
from simbridge.adapters.xplane._udp import UDP_PORT, UdpClient


class XPlaneRecorder:
    def __init__(
        self,
        host: str,
        port: int | None = None,
        *,
        twin: bool = False,
        ready_timeout_s: float = 10.0,
        stale_after_s: float = 5.0,
    ) -> None:
        self.host, self.port = host, port or UDP_PORT
        self.twin = twin
        self.ready_timeout_s = ready_timeout_s
        self.stale_after_s = stale_after_s

    def record(self, out: str | Path, *, seconds: float, hz: int = 50, task_id: str | None = None) -> Path:
        rows = _mapping.select(None, twin=self.twin)
        udp = UdpClient(self.host, self.port)
        logger = RrefLogger(udp, rows, hz=hz)
        episode = EpisodeInfo(
            task_id=task_id or "record",
            sim="xplane",
            adapter="simbridge.adapters.xplane",
            provider="none",
            agent="none",
            sample_rate_hz=float(hz),
            flags=["record_only"],
            host=f"{self.host}:{self.port}",
            clock=_mapping.CLOCK_DATAREF,
        )
        writer: BundleWriter | None = None
        status, detail = "completed", ""
        try:
            logger.start(ready_timeout_s=self.ready_timeout_s)
            writer = BundleWriter(out, episode, logger.signals)
            guard = StallGuard(seconds, stale_after_s=self.stale_after_s, source="RREF stream")
            last_t = 0.0
            while last_t < seconds:
                stalled = guard.check(udp.last_packet_mono, last_t)
                if stalled is not None:
                    status, detail = STALL_STATUS, stalled
                    break
                for s in logger.samples():
                    if s.t_sim > seconds:
                        last_t = s.t_sim
                        break
                    writer.sample(s.t_sim, s.values)
                    last_t = s.t_sim
                time.sleep(0.02)
            for f in logger.stop():
                if f.t_sim <= seconds:
                    s = logger.samples([f])[0]
                    writer.sample(s.t_sim, s.values)
            writer.episode.rref_packets = udp.packets_received
            writer.episode.dropped_late = logger.assembler.dropped_late
            return writer.finish(status, detail)  # type: ignore[arg-type]
        except HarnessError:
            if writer is not None:
                writer.finish("harness_error", "recording failed")
            raise
        finally:
            udp.close()
