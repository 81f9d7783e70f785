"""`simbridge record --sim flightgear`: record an already running FlightGear by telnet polling.

No launch, no setup, no lockdown: the simulator is someone else's. All c172p properties of the
mapping are read in one pipelined batch per sample (`TelnetProps.get_many`), about 5 samples/s
at 12 fps — the telnet server answers once per frame — so `--hz` is an upper bound. The clock
is `/sim/time/elapsed-sec` relative to the first sample; snapshots are read at start and end.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

from simbridge._bundle import BundleWriter, EpisodeInfo
from simbridge._errors import HarnessError
from simbridge.adapters.fgproto import CLOCK_NODE, TelnetProps
from simbridge.adapters.kit import STALL_STATUS, StallGuard
from simbridge.adapters.flightgear._mapping import RAW_CHUNKS, SIGNALS, SNAPSHOT_NODES, CanonicalMapper

DEFAULT_TELNET_PORT = 5401


def _num(v: str) -> float:
    s = v.strip().lower()
    if s in ("true", "false"):
        return 1.0 if s == "true" else 0.0
    try:
        return float(s)
    except ValueError:
        return math.nan


class TelnetRecorder:
    """Polls the mapping's properties over telnet and writes a bundle."""

    def __init__(self, host: str, port: int | None = None, *, timeout_s: float = 10.0) -> None:
        self.host, self.port = host, port or DEFAULT_TELNET_PORT
        self.timeout_s = timeout_s
        self.n_samples = 0

    def _snapshot(self, tn: TelnetProps) -> dict[str, object]:
        names = list(SNAPSHOT_NODES)
        out: dict[str, object] = {}
        for n, v in zip(names, tn.get_many([SNAPSHOT_NODES[n] for n in names])):
            f = _num(v)
            out[n] = v if math.isnan(f) else f
        return out

    def record(self, out: str | Path, *, seconds: float, hz: int = 50, task_id: str | None = None) -> Path:
        nodes = [CLOCK_NODE, *(c.node for c in RAW_CHUNKS)]
        names = [c.name for c in RAW_CHUNKS]
        mapper = CanonicalMapper()
        with TelnetProps(self.host, self.port, timeout_s=self.timeout_s) as tn:
            version = tn.get("/sim/version/flightgear")
            episode = EpisodeInfo(
                task_id=task_id or "record",
                sim="flightgear",
                sim_version=version,
                adapter="simbridge.adapters.flightgear.TelnetRecorder",
                provider="external",
                agent="none",
                flags=["record_only", "telnet_polling"],
            )
            writer = BundleWriter(out, episode, list(SIGNALS))
            snaps: dict[str, object] = {"start": self._snapshot(tn)}
            status, detail = "completed", f"recorded {seconds:g} s of simulator time"
            t0 = None
            period = 1.0 / hz
            w0 = time.monotonic()
            # FlightGear in software GL may run well below real time: a generous wall budget
            guard = StallGuard(
                seconds,
                stale_after_s=self.timeout_s,
                wall_budget_s=seconds * 10 + 30,
                source="FlightGear telnet server",
            )
            try:
                while True:
                    tick = time.monotonic()
                    values = tn.get_many(nodes)
                    t_sim = _num(values[0])
                    if t0 is None:
                        t0 = t_sim
                    t = t_sim - t0
                    writer.sample(t, mapper(dict(zip(names, (_num(v) for v in values[1:])))))
                    self.n_samples += 1
                    if t >= seconds:
                        break
                    stalled = guard.check(time.monotonic(), t)  # each answer is fresh data: only the wall budget
                    if stalled is not None:
                        status, detail = STALL_STATUS, stalled
                        break
                    rest = period - (time.monotonic() - tick)
                    if rest > 0:
                        time.sleep(rest)
                snaps["end"] = self._snapshot(tn)
            except HarnessError as exc:  # telnet stopped answering: a stall, unscored like every record-only stall
                status, detail = STALL_STATUS, f"record-only: {exc}"
            wall = time.monotonic() - w0
            episode.sample_rate_hz = round(self.n_samples / wall, 2) if wall > 0 else None
            if t0 is not None and wall > 0:
                episode.real_time_factor = round((t_sim - t0) / wall, 3)
            writer.snapshots(snaps)
            return writer.finish(status, detail)  # type: ignore[arg-type]
