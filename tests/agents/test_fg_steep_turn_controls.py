"""The T09 FlightGear pilot's keyboard: one step of each control a frame, pressed together as
one chord; repeated steps of one key as separate held taps; the pilot's counted positions."""

from __future__ import annotations

from simbridge.adapters.flightgear.pilots._steep_turn import Controls


class RecordingPort:
    """The part of the agent port the controls use, recording what they press."""

    def __init__(self) -> None:
        self.keys: list[tuple[str, float]] = []

    def key(self, keys: str, hold_s: float = 0.05, repeat: int = 1) -> None:
        self.keys += [(keys, hold_s)] * repeat


def test_one_step_of_each_control_goes_as_one_held_chord():
    port = RecordingPort()
    c = Controls(port)  # type: ignore[arg-type]
    assert c.chord({"aileron": -3, "elevator": 2, "trim": 0})
    assert port.keys == [("Left+Up", 0.02)]
    assert c.pos["aileron"] == -1 and c.pos["elevator"] == 1 and c.pos["trim"] == 0


def test_a_burst_sends_repeated_steps_as_taps_a_frame_apart():
    port = RecordingPort()
    c = Controls(port)  # type: ignore[arg-type]
    c.chord({"aileron": 4, "trim": -2}, {"aileron": 4, "trim": 4})
    assert port.keys == [("End+Right", 0.02), ("End+Right", 0.02), ("Right", 0.02), ("Right", 0.02)]
    assert c.pos["aileron"] == 4 and c.pos["trim"] == -2


def test_nothing_to_move_presses_nothing_and_centring_resets_the_count():
    port = RecordingPort()
    c = Controls(port)  # type: ignore[arg-type]
    c.chord({"aileron": 2, "throttle": 1})
    assert port.keys == [("Page_Up+Right", 0.02)]
    assert not c.chord({"aileron": 1, "throttle": 1})
    assert len(port.keys) == 1
    c.centre()
    assert port.keys[-1][0] == "5"  # FlightGear's own centring (keypad 5 arrives as Shift+5)
    assert c.pos["aileron"] == c.pos["elevator"] == 0 and c.pos["throttle"] == 1
    assert not c.chord({"aileron": 0, "elevator": 0, "throttle": 1})
