"""The air start's wait for the c172p's autostart counts simulator seconds, not wall seconds:
at 1 fps on a loaded machine FlightGear's clock crawls, and a wall-clock limit failed a healthy
start. Played against the telnet double with a scripted simulator clock (no fgfs)."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import SimpleNamespace

import pytest
from fg_telnet_double import TelnetDouble

from simbridge._errors import HarnessError
from simbridge.adapters.fgproto import TelnetProps
from simbridge.adapters.flightgear import FlightGearSession
from simbridge.adapters.flightgear import _session as fg_session


class _Clock:
    """The simulator clock the double answers: it advances only when the test says so."""

    def __init__(self) -> None:
        self.t_s = 100.0


def _fake_clock(monkeypatch: pytest.MonkeyPatch, monotonic: Callable[[], float]) -> None:
    """The session module's own clock and sleep only (the telnet client keeps the real ones)."""
    monkeypatch.setattr(fg_session, "time", SimpleNamespace(monotonic=monotonic, sleep=lambda _s: None))


def _session(double: TelnetDouble) -> FlightGearSession:
    s = FlightGearSession()
    tn = TelnetProps("127.0.0.1", double.port, timeout_s=5)
    s.fg = SimpleNamespace(props=lambda: tn)  # type: ignore[assignment]
    return s


def test_a_slow_simulator_clock_gets_simulator_time_to_start_the_engine(monkeypatch):
    """At 1 fps each read takes wall seconds while the simulator clock crawls: the engine that
    runs after 5 simulator seconds is accepted although that took 150 wall seconds, more than
    the 120 the wait used to allow. Reads at a standing simulator time count once."""
    clock = _Clock()
    double = TelnetDouble({"/engines/engine[0]/running": "false", "/engines/engine[0]/rpm": "0"})
    wall = {"s": 0.0}

    def elapsed() -> float:
        clock.t_s += 0.1  # 0.1 simulator second per read ...
        if clock.t_s >= 105.0:
            double.props.update({"/engines/engine[0]/running": "true", "/engines/engine[0]/rpm": "2200"})
        return clock.t_s

    def monotonic() -> float:
        wall["s"] += 3.0  # ... and 3 wall seconds
        return wall["s"]

    double.live["/sim/time/elapsed-sec"] = elapsed
    _fake_clock(monkeypatch, monotonic)
    try:
        _session(double)._ensure_engine_running(on_ground=False)
        assert wall["s"] > 120.0
    finally:
        double.close()


def test_running_reads_at_one_frozen_simulator_instant_are_not_three_reads(monkeypatch):
    """A frozen clock with `running` true: one instant is one read, so the wait does not accept
    it; the wall-clock backstop ends it with the last values in the message."""
    double = TelnetDouble(
        {"/engines/engine[0]/running": "true", "/engines/engine[0]/rpm": "2300", "/sim/time/elapsed-sec": "42.5"}
    )
    t = {"wall_s": 0.0}

    def tick() -> float:
        t["wall_s"] += 30.0
        return t["wall_s"]

    _fake_clock(monkeypatch, tick)
    try:
        with pytest.raises(HarnessError) as e:
            _session(double)._ensure_engine_running(on_ground=False)
        assert "did not start the engine in the air" in str(e.value)
        assert "running 'true', rpm '2300' at sim time '42.5' s" in str(e.value)
    finally:
        double.close()


def test_an_engine_that_never_runs_fails_after_120_simulator_seconds(monkeypatch):
    clock = _Clock()
    double = TelnetDouble({"/engines/engine[0]/running": "false", "/engines/engine[0]/rpm": "0"})

    def elapsed() -> float:
        clock.t_s += 4.0
        return clock.t_s

    double.live["/sim/time/elapsed-sec"] = elapsed
    _fake_clock(monkeypatch, time.monotonic)
    try:
        with pytest.raises(HarnessError, match=r"in the air \(running 'false', rpm '0' at sim time '2\d\d"):
            _session(double)._ensure_engine_running(on_ground=False)
        assert clock.t_s - 100.0 == pytest.approx(124.0, abs=8.0)
    finally:
        double.close()
