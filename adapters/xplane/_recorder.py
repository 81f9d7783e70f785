"""Record-only mode: log an already running X-Plane into a bundle, no agent and no setup.

Operators use it to check a lab setup, instructors to record reference flights. It subscribes
every mapped signal over RREF (50 Hz by default) and stops after `seconds` of simulator time
(bounded in wall time too, so a paused simulator cannot hold it forever). A stream that stalls
ends the bundle `harness_error` (the kit's `RecordLoop` and `StallGuard`): a record-only bundle has no agent
to score.
"""

from __future__ import annotations

from pathlib import Path

from simbridge import BundleWriter, EpisodeStatus
from simbridge.adapters.kit import RecordLoop, Tick, record_episode
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
        episode = record_episode(
            "xplane",
            "simbridge.adapters.xplane",
            task_id=task_id,
            sample_rate_hz=float(hz),
            host=f"{self.host}:{self.port}",
            clock=_mapping.CLOCK_DATAREF,
        )
        last_t = 0.0

        def open_writer() -> BundleWriter:
            logger.start(ready_timeout_s=self.ready_timeout_s)
            return BundleWriter(out, episode, logger.signals)

        def step(writer: BundleWriter) -> Tick:
            nonlocal last_t
            for s in logger.samples():
                last_t = s.t_sim
                if s.t_sim > seconds:
                    break
                writer.sample(s.t_sim, s.values)
            return Tick(last_t, udp.last_packet_mono, done=last_t >= seconds)

        def wrap_up(writer: BundleWriter, status: EpisodeStatus, detail: str) -> tuple[EpisodeStatus, str]:
            for f in logger.stop():
                if f.t_sim <= seconds:
                    s = logger.samples([f])[0]
                    writer.sample(s.t_sim, s.values)
            counts = {"rref_packets": udp.packets_received, "dropped_late": logger.assembler.dropped_late}
            writer.episode.sim_info = {**(writer.episode.sim_info or {}), **counts}
            return status, detail

        loop = RecordLoop(seconds, "RREF stream", period_s=0.02, stale_after_s=self.stale_after_s)
        try:
            return loop.run(open_writer, step, wrap_up)
        finally:
            udp.close()
