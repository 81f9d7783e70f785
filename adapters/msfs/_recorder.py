"""Record-only mode: log an already running MSFS into a bundle, no agent and no setup.

`simbridge record --sim msfs --host H --port P` connects over SimConnect's network protocol,
records every mapped signal per sim frame (thinned to --hz) and stops after `seconds` of
simulator time. When MSFS quits or the connection drops it reconnects for up to
`reconnect_timeout_s` (MSFS restarted), replays the definitions and continues the clock (flag
`reconnected`, event `sim_restart`); past that the bundle ends as harness_error (unscored);
a stalled stream, or a paused simulator whose clock does not reach `seconds` within the wall
budget, ends `harness_error` too (the kit's `RecordLoop` and `StallGuard`): a record-only bundle has no agent to score.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from simbridge import BundleWriter, EpisodeStatus, HarnessError
from simbridge.adapters.kit import RecordLoop, Tick, record_episode
from simbridge.adapters.msfs import _mapping
from simbridge.adapters.msfs._client import SimConnectClient
from simbridge.adapters.msfs._logger import MsfsLogger
from simbridge.adapters.msfs._session import SIMCONNECT_PORT
from simbridge.adapters.msfs._transport import make_transport
from simbridge.adapters.msfs._wire import Protocol


class MsfsRecorder:
    def __init__(
        self,
        host: str,
        port: int | None = None,
        *,
        protocol: Protocol = Protocol.KITTYHAWK,
        ready_timeout_s: float = 10.0,
        stale_after_s: float = 5.0,
        reconnect_timeout_s: float = 60.0,
        wall_budget_s: float | None = None,
    ) -> None:
        self.host, self.port = host, port or SIMCONNECT_PORT
        #: wall seconds the recording may take (None: the kit's default, twice the length plus 10 s)
        self.wall_budget_s = wall_budget_s
        self.protocol = protocol
        self.ready_timeout_s, self.stale_after_s = ready_timeout_s, stale_after_s
        self.reconnect_timeout_s = reconnect_timeout_s

    def record(self, out: str | Path, *, seconds: float, hz: int = 50, task_id: str | None = None) -> Path:
        client = SimConnectClient(
            lambda: make_transport(self.host, self.port, protocol=self.protocol, prefer="tcp"),
            app_name="simbridge recorder",
        )
        logger = MsfsLogger(client, _mapping.select(None), hz=hz)
        episode = record_episode(
            "msfs",
            "simbridge.adapters.msfs",
            task_id=task_id,
            sample_rate_hz=float(hz),
            host=f"{self.host}:{self.port}",
            clock="SIMULATION TIME",
        )
        wall_start = 0.0

        def open_writer() -> BundleWriter:
            nonlocal wall_start
            server = client.open(self.ready_timeout_s)
            episode.sim_version = ".".join(map(str, server.application_version))
            logger.subscribe()
            logger.start()
            client.end_setup()
            writer = BundleWriter(out, episode, logger.signals)
            wall_start = time.monotonic()
            return writer

        def step(writer: BundleWriter) -> Tick:
            while True:
                done = False
                for s in logger.samples():
                    if s.t_sim > seconds:
                        done = True
                        break
                    writer.sample(s.t_sim, s.values)
                for ev in logger.events():
                    writer.event(ev.t_sim, ev.kind, ev.data)
                # a paused MSFS sends no sim frames: silence then is not a stall (the wall budget still is)
                tick = Tick(logger.t_sim, None if logger.paused else client.last_message_mono, done=done)
                if done or client.connected:
                    break
                lost = client.lost
                if self.reconnect_timeout_s > 0:
                    try:  # MSFS restarted: reconnect, replay the definitions, continue the clock
                        client.reconnect(self.reconnect_timeout_s, retry_s=0.2)
                        logger.restarted()
                        if "reconnected" not in writer.episode.flags:
                            writer.episode.flags.append("reconnected")
                        continue
                    except HarnessError:
                        pass
                return replace(tick, end=("harness_error", f"SimConnect lost: {lost}"))
            if not done and logger.t0 is None and time.monotonic() - wall_start > self.ready_timeout_s:
                return replace(tick, end=("harness_error", f"no sim-frame data within {self.ready_timeout_s:g} s"))
            return tick

        def wrap_up(writer: BundleWriter, status: EpisodeStatus, detail: str) -> tuple[EpisodeStatus, str]:
            if client.exceptions:
                writer.episode.flags.append("simconnect_exceptions")
            return status, detail

        loop = RecordLoop(
            seconds,
            "SimConnect stream",
            period_s=0.01,
            stale_after_s=self.stale_after_s,
            wall_budget_s=self.wall_budget_s,
        )
        try:
            return loop.run(open_writer, step, wrap_up)
        finally:
            client.close()
