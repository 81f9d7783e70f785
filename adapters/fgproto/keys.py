"""FlightGear's default keyboard bindings (Debian's FlightGear 2020.3 keyboard.xml) as told to
an agent: FlightGear and the embedded cockpit that copies them share this one list.

A press acts once in real time and in lockstep alike: FlightGear's lockdown makes every key it
leaves the agent non-repeatable (the X server repeats held keys on the wall clock, which a
paused simulator would otherwise turn into dozens of steps), so the agent taps a key `repeat`
times rather than holding it."""

from __future__ import annotations

#: (keys, what they do), in the order a pilot looks for them
FLIGHTGEAR_KEYS: tuple[tuple[str, str], ...] = (
    ("Up / Down (or keypad 8 / 2)", "elevator nose down / nose up, one step per press"),
    ("Left / Right (or keypad 4 / 6)", "aileron: roll left / right, one step per press"),
    ("keypad 0 / keypad Enter (Insert / Return)", "rudder left / right"),
    ("keypad 5", "centre aileron, elevator and rudder"),
    ("Page_Up / Page_Down (keypad 9 / 3)", "throttle up / down 0.01 per press: tap repeatedly to move further"),
    ("Home / End (keypad 7 / 1)", "elevator trim nose down / nose up"),
    ("m / M", "mixture richer / leaner"),
    ("} / {", "magnetos one position up / down (OFF, R, L, BOTH)"),
    ("s (hold)", "starter: key to START while held"),
    ("b (hold)", "wheel brakes; comma / period: left / right brake; B toggles the parking brake"),
    ("] / [", "flaps one notch down / up"),
    ("Tab or right mouse button", "mouse yoke on / off"),
)
