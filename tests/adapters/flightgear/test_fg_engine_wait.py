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


_SPUN = {"/instrumentation/heading-indicator/spin": "1.0", "/instrumentation/attitude-indicator/spin": "1.0"}
#: PHJR's variation as FlightGear computes it, and the suction of an engine above idle
_MAGVAR = {"/environment/magnetic-variation-deg": "9.48"}
_RUNNING_SUCTION = {"/systems/vacuum/suction-inhg": "5.0", **_MAGVAR}
#: the c172p's suction at idle on the ground: the gyros spin to 0.84 at most
_IDLE_SUCTION = {"/systems/vacuum/suction-inhg": "4.2"}


def _ground_start(double: TelnetDouble, clock: _Clock, primer_clears_at_s: float | None) -> Callable[[], float]:
    """The c172p on the ground: the starter brings the engine to 900 rpm within 2 simulator
    seconds, and the primer's mixture (`use-primer`) holds until `primer_clears_at_s`
    simulator seconds after the starter is let go (never, if None)."""
    released: dict[str, float] = {}

    def elapsed() -> float:
        clock.t_s += 0.25
        p = double.props
        if p.get("/controls/switches/starter") == "true":
            released.pop("at", None)
            p["/controls/engines/engine/use-primer"] = "true"
            if clock.t_s >= 102.0:
                p.update({"/engines/engine[0]/running": "true", "/engines/engine[0]/rpm": "900"})
        elif p.get("/engines/engine[0]/running") == "true":
            at = released.setdefault("at", clock.t_s)
            if primer_clears_at_s is not None and clock.t_s - at >= primer_clears_at_s:
                p["/controls/engines/engine/use-primer"] = "false"
        return clock.t_s

    return elapsed


def test_the_ground_start_hands_over_only_once_the_primers_mixture_is_over(monkeypatch):
    """The c172p cuts the primer's mixture above half throttle for 5 s after the start: the
    engine is handed over after that window, so full throttle cannot stop it."""
    clock = _Clock()
    double = TelnetDouble(
        {"/engines/engine[0]/running": "false", "/engines/engine[0]/rpm": "0", **_SPUN, **_RUNNING_SUCTION}
    )
    double.live["/sim/time/elapsed-sec"] = _ground_start(double, clock, primer_clears_at_s=5.0)
    _fake_clock(monkeypatch, time.monotonic)
    try:
        _session(double)._ensure_engine_running(on_ground=True)
        assert double.props["/controls/engines/engine/use-primer"] == "false"
        assert double.props["/controls/switches/starter"] == "false"
    finally:
        double.close()


def test_the_ground_start_waits_for_the_gyros_and_sets_the_heading_indicator(monkeypatch):
    """Lined up with the engine running means taxied there: the heading and attitude
    indicators' gyros spun up as far as the idle suction lets them (at 120 simulator seconds
    here) and the heading indicator set to the
    compass (its offset minus the magnetic variation) before the hand-over."""
    clock = _Clock()
    double = TelnetDouble(
        {
            "/engines/engine[0]/running": "false",
            "/engines/engine[0]/rpm": "0",
            "/instrumentation/heading-indicator/offset-deg": "-7.5",
            **_MAGVAR,
            **_IDLE_SUCTION,
        }
    )
    ground = _ground_start(double, clock, primer_clears_at_s=5.0)

    def elapsed() -> float:
        t = ground()
        spin = "0.83" if t >= 120.0 else "0.6"  # 0.97 of what 4.2 inHg allows
        double.props.update({p: spin for p in _SPUN})
        return t

    double.live["/sim/time/elapsed-sec"] = elapsed
    _fake_clock(monkeypatch, time.monotonic)
    try:
        _session(double)._ensure_engine_running(on_ground=True)
        assert clock.t_s >= 120.0
        # FlightGear's heading indicator shows true heading + offset: set to the compass
        assert float(double.props["/instrumentation/heading-indicator/offset-deg"]) == -9.48
    finally:
        double.close()


def test_gyros_that_never_spin_up_are_a_setup_fault(monkeypatch):
    clock = _Clock()
    double = TelnetDouble(
        {"/engines/engine[0]/running": "false", "/engines/engine[0]/rpm": "0", **_IDLE_SUCTION, **_MAGVAR}
    )
    ground = _ground_start(double, clock, primer_clears_at_s=5.0)

    def elapsed() -> float:
        double.props.update({p: "0.5" for p in _SPUN})
        return ground()

    double.live["/sim/time/elapsed-sec"] = elapsed
    _fake_clock(monkeypatch, time.monotonic)
    try:
        with pytest.raises(HarnessError, match=r"gyros did not spin up 90 s after the start \(.*spin '0.5'"):
            _session(double)._ensure_engine_running(on_ground=True)
    finally:
        double.close()


def test_a_primer_mixture_that_never_ends_is_a_setup_fault(monkeypatch):
    clock = _Clock()
    double = TelnetDouble(
        {"/engines/engine[0]/running": "false", "/engines/engine[0]/rpm": "0", **_SPUN, **_RUNNING_SUCTION}
    )
    double.live["/sim/time/elapsed-sec"] = _ground_start(double, clock, primer_clears_at_s=None)
    _fake_clock(monkeypatch, time.monotonic)
    try:
        with pytest.raises(HarnessError, match="kept the primer's mixture 15 s after the start during setup"):
            _session(double)._ensure_engine_running(on_ground=True)
    finally:
        double.close()
