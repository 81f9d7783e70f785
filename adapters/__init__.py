"""simbridge's own simulator adapters, one folder each.

Inside a simulator's folder, the host side (its `SimSession`, recorder, importers) sits at the
top; what runs inside the sandbox lives in a subpackage of its own (`jsbsim/cockpit/`,
`drive/world/`), and the reference pilots that fly its tasks through the GUI in `pilots/`.
`kit/` is a library shared by adapters, `fgproto/` FlightGear's wire protocols.

The core never imports this package: `register` (the `simbridge.plugins` entry point
`adapters` in pyproject.toml) declares each simulator as an `AdapterSpec` of "module:attribute"
strings, imported only when that simulator is used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simbridge.sim import AdapterSpec, EpisodeCost, ImporterSpec, Option

_A = __name__
#: what the JSBSim cockpit can show beyond a real C172's panel, drawn only when an episode asks for
#: it (`simbridge run --assist readout`, passed on as the cockpit's own `--assist readout`):
#: name -> what it shows, as the agent's brief says it. By default the cockpit shows the panel only.
_JSBSIM_ASSISTS = {
    "readout": "a digital readout strip along the bottom of the panel giving airspeed, altitude, heading, "
    "vertical speed, bank, pitch, engine RPM, throttle, mixture, flaps and the simulator clock in figures "
    "(no real C172 shows it)",
}
#: the road maps of the driving simulators: OpenDRIVE files, read by the kit
_OPENDRIVE = f"{_A}.kit.opendrive:lane_map"

BUILTIN_SIMULATORS: tuple[AdapterSpec, ...] = (
    AdapterSpec(
        "jsbsim",
        session=f"{_A}.jsbsim:JSBSimSession",
        assists=_JSBSIM_ASSISTS,
        title="simbridge's JSBSim cockpit: one window, out-the-window view over a six-pack instrument panel",
        # measured (simbridge._eval._cost): 0.33 cores over a 30 s episode, ~400 MB
        cost=EpisodeCost(cpu_cores=0.33, mem_mb=400, measured=True),
        conventions={
            "heading_mag_deg": "JSBSim's /orientation/heading-magnetic-deg: the true heading less the start "
            "airport's magnetic variation (east positive), constant over an episode; instructions' 'magnetic' "
            "headings use it, and the panel's heading indicator shows it plus its own drift",
            "heading_true_deg": "true heading; a task's told wind direction is true, the direction it blows from",
            "alt_agl_ft": "JSBSim's /position/altitude-agl-ft: the aircraft's reference point above the terrain, "
            "not the wheels' height (about 5.5 ft with the wheels on the ground)",
        },
    ),
    AdapterSpec(
        "drive",
        session=f"{_A}.drive._session:DriveSession",
        lane_map=_OPENDRIVE,
        title="simbridge's drive simulator (SUMO road network, one window)",
    ),
    AdapterSpec(
        "flightgear",
        session=f"{_A}.flightgear:FlightGearSession",
        recorder=f"{_A}.flightgear:TelnetRecorder",
        title="FlightGear",
        # an estimate: 3-D scenery rendered in software under Xvfb takes a core at least
        cost=EpisodeCost(cpu_cores=1.5, mem_mb=1500),
        conventions={
            "heading_mag_deg": "FlightGear's /orientation/heading-magnetic-deg: true heading less its own "
            "magnetic model's variation at the aircraft's position (it changes as the aircraft moves)",
            "heading_true_deg": "FlightGear's /orientation/heading-deg (true)",
        },
    ),
    AdapterSpec(
        "xplane",
        session=f"{_A}.xplane:XPlaneSession",
        recorder=f"{_A}.xplane:XPlaneRecorder",
        title="X-Plane",
        cost=EpisodeCost(cpu_cores=2.0, mem_mb=4000),  # an estimate
    ),
    AdapterSpec(
        "msfs", session=f"{_A}.msfs:MsfsSession", recorder=f"{_A}.msfs:MsfsRecorder", title="Microsoft Flight Simulator"
    ),
    AdapterSpec(
        "carla",
        title="CARLA",
        session=f"{_A}.carla:CarlaSession",
        lane_map=_OPENDRIVE,
        importers={
            "carla": ImporterSpec(
                f"{_A}.carla:import_recording",
                help="a CARLA recorder file (client.start_recorder)",
                file_help="recorder file (.log)",
                default_task="T18",
                summary="ego {ego_id} {ego_type_id} on {map}",
                options=(
                    Option(
                        "--map",
                        "map_path",
                        "the town's OpenDRIVE file (.xodr): adds lane_id, lane_offset_m, lane_invasion and red_light",
                        type=Path,
                    ),
                    Option(
                        "--ego", "ego", "actor id of the ego (default: the actor whose role_name is 'hero')", type=int
                    ),
                    Option(
                        "--allow-truncated",
                        "allow_truncated",
                        "keep the frames before a truncated end instead of failing (flagged 'truncated_import')",
                        action="store_true",
                    ),
                ),
            )
        },
    ),
    AdapterSpec(
        "ksp",
        title="Kerbal Space Program",
        importers={
            "ksp": ImporterSpec(
                f"{_A}.ksp:import_saves",
                help="persistent.sfs save file(s) of one flight, in any order",
                file_help="KSP save files (persistent.sfs, quicksaves) of one flight",
                default_task="T19",
                many_files=True,
                vehicle_option="vessel",
                options=(
                    Option(
                        "--vessel",
                        "vessel",
                        "vessel name (default: the task's vessel id for ksp, else the active vessel)",
                    ),
                ),
            )
        },
    ),
    AdapterSpec(
        "openbve",
        title="OpenBVE",
        importers={
            "openbve": ImporterSpec(
                f"{_A}.openbve:import_logs",
                help="OpenBVE black-box file logs.bin",
                file_help="the black-box file (logs.bin)",
                default_task="T14",
            )
        },
    ),
    AdapterSpec(
        "bridgecommand",
        title="Bridge Command",
        importers={
            "bridgecommand": ImporterSpec(
                f"{_A}.bridgecommand:import_nmea",
                help="capture of Bridge Command's NMEA 0183 output (one sentence per line)",
                file_help="NMEA capture, one sentence per line",
                default_task="T17",
                aliases=("nmea",),
                options=(
                    Option(
                        "--lenient",
                        "strict",
                        "skip bad sentences (listed in snapshots) instead of failing",
                        action="store_false",
                    ),
                ),
            )
        },
    ),
)


_J, _F, _D = (f"{__name__}.{sim}.pilots" for sim in ("jsbsim", "flightgear", "drive"))

#: reference pilots: `TASK/SIM` (`TASK/*`: any simulator without its own) -> "module:factory"
BUILTIN_PILOTS: dict[str, str] = {
    "T01/jsbsim": f"{_J}._engine_start:EngineStartPilot",
    "T01/flightgear": f"{_F}._engine_start:FlightGearEngineStartPilot",
    "T02/jsbsim": f"{_J}._takeoff:TakeoffHoldPilot",
    "T02/flightgear": f"{_F}._takeoff:FlightGearTakeoffHoldPilot",
    "T08/flightgear": f"{_F}._setup_dialogs:FlightGearSetupPilot",
    "T09/flightgear": f"{_F}._steep_turn:FlightGearSteepTurnPilot",
    "T09/*": f"{_J}._steep_turn:SteepTurnPilot",
    "T15/*": f"{_F}._weight_balance:WeightBalancePilot",
    "T10/flightgear": f"{_F}._ils:FlightGearIlsPilot",
    "T16/flightgear": f"{_F}._radios:FlightGearRadiosPilot",
    "T16/*": f"{_J}._radios:RadiosPilot",
    "T18/*": f"{_D}._lane_keep:LaneKeepDriver",
    "P01/jsbsim": f"{_J}._poh:EngineRestartPilot",
    "P02/jsbsim": f"{_J}._poh:EngineRestartPilot",
    "P03/jsbsim": f"{_J}._poh:FuelImbalancePilot",
    "P07/jsbsim": f"{_J}._poh:MagnetoCheckPilot",
    "P09/jsbsim": f"{_J}._poh:CarbIcePilot",
    "P10/jsbsim": f"{_J}._poh:CarbIcePilot",
    "P11/jsbsim": f"{_J}._poh:LowVoltsPilot",
    "P15/jsbsim": f"{_J}._poh:PitotBlockagePilot",
    "P16/jsbsim": f"{_J}._poh:PitotClimbPilot",
    "P19/jsbsim": f"{_J}._poh:ElectricalFirePilot",
    "P22/jsbsim": f"{_J}._poh:EmergencyDescentPilot",
    "P20/jsbsim": f"{_J}._approach_poh:ElectricalFireApproachPilot",
    "P21/jsbsim": f"{_J}._approach_poh:DoorOpenApproachPilot",
    "P13/jsbsim": f"{_J}._partial_panel:PartialPanelPilot",
    "P13/flightgear": f"{_F}._partial_panel:FlightGearPartialPanelPilot",
    "P14/jsbsim": f"{_J}._partial_panel:PartialPanelPilot",
    "P14/flightgear": f"{_F}._partial_panel:FlightGearPartialPanelPilot",
    "T03/jsbsim": f"{_J}._landing:TouchdownZonePilot",
    "T11/jsbsim": f"{_J}._forced_landing:TurnBackPilot",
    "T11/flightgear": f"{_F}._turn_back:FlightGearTurnBackPilot",
    "T05/flightgear": f"{_F}._pattern:FlightGearPatternPilot",
    "T03/flightgear": f"{_F}._visual_landing:FlightGearVisualLandingPilot",
    "P17/jsbsim": f"{_J}._landing:NoFlapLandingPilot",
    "P18/jsbsim": f"{_J}._go_around:GoAroundPilot",
    "P08/jsbsim": f"{_J}._approach_poh:RoughMagnetoApproachPilot",
    "P12/jsbsim": f"{_J}._approach_poh:LowVoltsApproachPilot",
    "T05/jsbsim": f"{_J}._pattern:PatternPilot",
    "P04/jsbsim": f"{_J}._forced_landing:EfatoPilot",
    "P05/jsbsim": f"{_J}._forced_landing:CruiseForcedLandingPilot",
    "P06/jsbsim": f"{_J}._forced_landing:CruiseRestartPilot",
    "T06/*": f"{_D}._route:RouteDriver",
    "T13/drive": f"{_D}._crossing:CrossingDriver",
    "T07/drive": f"{_D}._park:ParkingDriver",
}


def register(registry: Any) -> None:
    """Declare the built-in simulators and their reference pilots."""
    for spec in BUILTIN_SIMULATORS:
        registry.add("simulator", spec.name, spec)
    for name, target in BUILTIN_PILOTS.items():
        registry.add("pilot", name, target)
