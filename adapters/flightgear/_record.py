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

from simbridge import BundleWriter, EpisodeStatus, HarnessError
from simbridge.adapters.fgproto import CLOCK_NODE, TelnetProps
from simbridge.adapters.kit import STALL_STATUS, RecordLoop, Tick, record_episode
from simbridge.adapters.flightgear._mapping import RAW_CHUNKS, SIGNALS, SNAPSHOT_NODES, CanonicalMapper, read_setup

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
        out.update(read_setup(tn))
        return out

    def record(self, out: str | Path, *, seconds: float, hz: int = 50, task_id: str | None = None) -> Path:
        nodes = [CLOCK_NODE, *(c.node for c in RAW_CHUNKS)]
        names = [c.name for c in RAW_CHUNKS]
        mapper = CanonicalMapper()
        with TelnetProps(self.host, self.port, timeout_s=self.timeout_s) as tn:
            snaps: dict[str, object] = {}
            t0: float | None = None
            t_sim = math.nan
            failed = False  # telnet stopped answering: a stall, unscored like every record-only stall
            w0 = 0.0

            def open_writer() -> BundleWriter:
                nonlocal w0
                episode = record_episode(
                    "flightgear",
                    "simbridge.adapters.flightgear.TelnetRecorder",
                    task_id=task_id,
                    sim_version=tn.get("/sim/version/flightgear"),
                    provider="external",
                    flags=["telnet_polling"],
                )
                writer = BundleWriter(out, episode, list(SIGNALS))
                snaps["start"] = self._snapshot(tn)
                w0 = time.monotonic()
                return writer

            def step(writer: BundleWriter) -> Tick:
                nonlocal t0, t_sim, failed
                try:
                    values = tn.get_many(nodes)
                except HarnessError as exc:
                    failed = True
                    t_done = t_sim - t0 if t0 is not None else 0.0
                    return Tick(t_done, None, end=(STALL_STATUS, f"record-only: {exc}"))
                t_sim = _num(values[0])
                if t0 is None:
                    t0 = t_sim
                t = t_sim - t0
                writer.sample(t, mapper(dict(zip(names, (_num(v) for v in values[1:])))))
                self.n_samples += 1
                # each answer is fresh data: only the wall budget can stall it
                return Tick(t, time.monotonic(), done=t >= seconds)

            def wrap_up(writer: BundleWriter, status: EpisodeStatus, detail: str) -> tuple[EpisodeStatus, str]:
                if not failed:
                    try:
                        snaps["end"] = self._snapshot(tn)
                    except HarnessError as exc:
                        status, detail = STALL_STATUS, f"record-only: {exc}"
                wall = time.monotonic() - w0
                writer.episode.sample_rate_hz = round(self.n_samples / wall, 2) if wall > 0 else None
                if t0 is not None and wall > 0:
                    writer.episode.real_time_factor = round((t_sim - t0) / wall, 3)
                writer.snapshots(snaps)
                return status, detail

            # FlightGear in software GL may run well below real time: a generous wall budget
            loop = RecordLoop(
                seconds,
                "FlightGear telnet server",
                period_s=1.0 / hz,
                stale_after_s=self.timeout_s,
                wall_budget_s=seconds * 10 + 30,
                done_detail=f"recorded {seconds:g} s of simulator time",
            )
            return loop.run(open_writer, step, wrap_up)
