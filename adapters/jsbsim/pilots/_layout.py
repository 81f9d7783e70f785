"""The cockpit's published panel layout (`simbridge.adapters.jsbsim.layout`): pixel positions and
gauge scales only. The adapter package loads its names lazily, so this import pulls in no
simulator session machinery."""

from simbridge.adapters.jsbsim import layout as L

__all__ = ["L"]
