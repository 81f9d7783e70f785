"""Reference pilots: built-in agents that fly catalog tasks through the agent port alone — T01,
T02, T09 and T16 on the embedded JSBSim cockpit, T15 (its Fuel and Payload dialog) and T16 (the
c172p's panel knobs) on FlightGear.

They read the instruments from screenshot pixels only (template-matched digits of the readout
strip and the radio displays, colours of lit buttons, the out-the-window horizon) and act only
through keys and mouse. They know the published panel layout (`adapters.jsbsim.layout`) and
the cockpit's font, never the simulator state: no property reads, no telnet, no bundle reads,
no import of the simulator session or cockpit process modules (a test enforces this).

    make(task_id) -> Agent | None
"""

from __future__ import annotations

from simbridge.agents._base import Agent


def make(task_id: str) -> Agent | None:
    """The reference pilot or driver of a task (T01, T02, T06, T09, T15, T16, T18), or None."""
    base = task_id.split("@")[0]
    if base == "T01":
        from simbridge.agents.reference._engine_start import EngineStartPilot

        return EngineStartPilot()
    if base == "T02":
        from simbridge.agents.reference._takeoff import TakeoffHoldPilot

        return TakeoffHoldPilot()
    if base == "T09":
        from simbridge.agents.reference._fg_radios import BySimPilot
        from simbridge.agents.reference._fg_steep_turn import FlightGearSteepTurnPilot
        from simbridge.agents.reference._steep_turn import SteepTurnPilot

        return BySimPilot({"flightgear": FlightGearSteepTurnPilot()}, SteepTurnPilot())
    if base == "T15":
        from simbridge.agents.reference._weight_balance import WeightBalancePilot

        return WeightBalancePilot()
    if base == "T16":
        from simbridge.agents.reference._fg_radios import BySimPilot, FlightGearRadiosPilot
        from simbridge.agents.reference._radios import RadiosPilot

        return BySimPilot({"flightgear": FlightGearRadiosPilot()}, RadiosPilot())
    if base == "T18":
        from simbridge.agents.reference._drive_lane_keep import LaneKeepDriver

        return LaneKeepDriver()
    if base == "T06":
        from simbridge.agents.reference._drive_route import RouteDriver

        return RouteDriver()
    return None
