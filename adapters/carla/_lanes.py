"""Where a vehicle is on the map (nearest driving-lane centre, signed offset): the code lives in
the adapter kit (`simbridge.adapters.kit.opendrive`), shared with the embedded drive simulator."""

from simbridge.adapters.kit.opendrive import LaneLocator, LanePosition

__all__ = ["LaneLocator", "LanePosition"]
