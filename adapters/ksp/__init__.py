"""Kerbal Space Program: read `persistent.sfs` saves (ConfigNode text) into episode bundles.

KSP has no state API the harness may use (kRPC would be an autopilot door), so the scored state
is the save file the game writes on quicksave and scene change.
"""

from simbridge.adapters.ksp.confignode import ConfigNode, ConfigNodeError, parse_confignode, read_confignode
from simbridge.adapters.ksp.orbit import KERBIN_GM_M3S2, KERBIN_RADIUS_M, Orbit
from simbridge.adapters.ksp.save import SaveError, VesselState, import_saves, read_save

__all__ = [
    "ConfigNode",
    "ConfigNodeError",
    "KERBIN_GM_M3S2",
    "KERBIN_RADIUS_M",
    "Orbit",
    "SaveError",
    "VesselState",
    "import_saves",
    "parse_confignode",
    "read_confignode",
    "read_save",
]
