"""The kit's one record-only loop (`RecordLoop`): how a recording ends, with a fake read step (no simulator)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from simbridge._bundle import BundleWriter, EpisodeStatus, read_bundle
from simbridge._errors import HarnessError
from simbridge.adapters.kit import RecordLoop, Tick, record_episode


def _opener(out: Path):
    def open_writer() -> BundleWriter:
        return BundleWriter(out, record_episode("toy", "tests.toy", task_id=None, sample_rate_hz=10.0), ["x"])

    return open_writer


class Clock:
    """A read step that writes one sample per call, 0.1 s of simulator time each."""

    def __init__(self, *, stop_data_after: int | None = None, fail_at: int | None = None, seconds: float = 0.5):
        self.n = 0
        self.stop_data_after, self.fail_at, self.seconds = stop_data_after, fail_at, seconds
        self.last_data = time.monotonic()

    def __call__(self, writer: BundleWriter) -> Tick:
        if self.n == self.fail_at:
            raise HarnessError("toy: connection reset")
        if self.stop_data_after is None or self.n < self.stop_data_after:
            t = round(self.n * 0.1, 3)
            writer.sample(t, {"x": float(self.n)})
            self.last_data = time.monotonic()
            self.n += 1
        t_sim = round((self.n - 1) * 0.1, 3)
        return Tick(t_sim, self.last_data, done=t_sim >= self.seconds)


def test_a_recording_that_reaches_its_length_completes_with_every_sample(tmp_path):
    seen: list[tuple[str, str]] = []

    def wrap_up(writer: BundleWriter, status: EpisodeStatus, detail: str) -> tuple[EpisodeStatus, str]:
        seen.append((status, detail))
        writer.episode.flags.append("wrapped")
        return status, detail

    loop = RecordLoop(0.5, "toy stream", period_s=0.001, done_detail="recorded 0.5 s")
    b = read_bundle(loop.run(_opener(tmp_path / "b"), Clock(), wrap_up))
    assert seen == [("completed", "recorded 0.5 s")]
    assert (b.episode.status, b.episode.status_detail) == ("completed", "recorded 0.5 s")
    assert list(b.signals["x"]) == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert b.episode.flags == ["record_only", "wrapped"] and b.episode.agent == "none"
    assert b.episode.task_id == "record" and b.episode.provider == "none"


def test_a_stream_that_goes_quiet_ends_harness_error_naming_the_source(tmp_path):
    loop = RecordLoop(60.0, "toy stream", period_s=0.005, stale_after_s=0.2)
    b = read_bundle(loop.run(_opener(tmp_path / "b"), Clock(stop_data_after=3, seconds=60.0)))
    assert b.episode.status == "harness_error"
    assert b.episode.status_detail.startswith("record-only: no data from the toy stream for ")
    assert b.episode.status_detail.endswith(" s (stream stalled)")
    assert list(b.signals["x"]) == [0.0, 1.0, 2.0]


def test_a_clock_that_never_reaches_the_length_ends_on_the_wall_budget(tmp_path):
    def frozen(writer: BundleWriter) -> Tick:  # fresh data, but the simulator clock stands still (paused)
        return Tick(1.25, time.monotonic())

    loop = RecordLoop(5.0, "toy stream", period_s=0.005, wall_budget_s=0.2)
    b = read_bundle(loop.run(_opener(tmp_path / "b"), frozen))
    assert b.episode.status == "harness_error"
    assert b.episode.status_detail == (
        "record-only: simulator time reached 1.2 s of 5 s in 0.2 s of wall time (paused or stalled?)"
    )


def test_a_step_may_end_the_recording_itself_and_wrap_up_may_change_the_ending(tmp_path):
    def lost(writer: BundleWriter) -> Tick:
        return Tick(0.0, None, end=("harness_error", "toy lost: reset"))

    loop = RecordLoop(5.0, "toy stream", period_s=0.005)
    b = read_bundle(loop.run(_opener(tmp_path / "a"), lost))
    assert (b.episode.status, b.episode.status_detail) == ("harness_error", "toy lost: reset")

    def last_read_failed(writer: BundleWriter, status: EpisodeStatus, detail: str) -> tuple[EpisodeStatus, str]:
        return "harness_error", f"record-only: end snapshot failed after {detail!r}"

    b = read_bundle(
        RecordLoop(0.2, "toy", period_s=0.001, done_detail="ok").run(_opener(tmp_path / "b"), Clock(), last_read_failed)
    )
    assert (b.episode.status, b.episode.status_detail) == (
        "harness_error",
        "record-only: end snapshot failed after 'ok'",
    )


def test_a_harness_error_finishes_the_opened_bundle_and_propagates(tmp_path):
    loop = RecordLoop(5.0, "toy stream", period_s=0.001)
    with pytest.raises(HarnessError, match="toy: connection reset"):
        loop.run(_opener(tmp_path / "b"), Clock(fail_at=2, seconds=5.0))
    b = read_bundle(tmp_path / "b")
    assert (b.episode.status, b.episode.status_detail) == ("harness_error", "recording failed")
    assert list(b.signals["x"]) == [0.0, 1.0]


def test_a_harness_error_before_the_bundle_opens_writes_nothing(tmp_path):
    def refuse() -> BundleWriter:
        raise HarnessError("toy: nothing listens on 127.0.0.1:1")

    with pytest.raises(HarnessError, match="nothing listens"):
        RecordLoop(5.0, "toy stream", period_s=0.001).run(refuse, Clock())
    assert not (tmp_path / "b").exists()
