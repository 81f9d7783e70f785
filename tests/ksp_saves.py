"""Hand-built `persistent.sfs` text in the layout KSP 1.12 writes (tab indentation, a node
name on its own line, `{` on the next). Only the fields the importer reads plus enough of
the surrounding save to be realistic."""

from __future__ import annotations

VESSEL = """\t\tVESSEL
\t\t{{
\t\t\tpid = 6f2b1c3d0a9e4c5b8d7e6f5a4b3c2d1e
\t\t\tpersistentId = 1820541512
\t\t\tname = {name}
\t\t\ttype = {type}
\t\t\tsit = {sit}
\t\t\tlanded = False
\t\t\tsplashed = False
\t\t\tmet = 612.34
\t\t\tlct = 1000
\t\t\tlastUT = {last_ut}
\t\t\tlat = -0.0972
\t\t\tlon = -74.557
\t\t\talt = {alt}
\t\t\thgt = -1
\t\t\tnrm = 0,1,0
\t\t\trot = 0,0,0,1
\t\t\tCoM = 0,0,0
\t\t\tstg = 1
\t\t\tprst = False
\t\t\tref = 0
\t\t\tctrl = True
\t\t\tORBIT
\t\t\t{{
\t\t\t\tSMA = {sma}
\t\t\t\tECC = {ecc}
\t\t\t\tINC = 0.0713
\t\t\t\tLPE = 112.5
\t\t\t\tLAN = 287.1
\t\t\t\tMNA = 1.9
\t\t\t\tEPH = 1612.34
\t\t\t\tREF = {ref}
\t\t\t\tOBJ = 0
\t\t\t\tORB = 0
\t\t\t\tCIRC = 0
\t\t\t}}
{parts}\t\t}}
"""

PART = """\t\t\tPART
\t\t\t{{
\t\t\t\tname = {part}
\t\t\t\tcid = 4294409872
\t\t\t\tuid = 1736523598
\t\t\t\tparent = 0
\t\t\t\tposition = 0,0,0
\t\t\t}}
"""


def vessel(
    name="SB Two-Stage",
    type="Ship",
    sit="ORBITING",
    alt=80000.0,
    sma=680000.0,
    ecc=0.0,
    ref=1,
    parts=("mk1pod.v2", "fuelTankSmallFlat", "liquidEngine2"),
    last_ut=None,
) -> str:
    """One VESSEL node; `last_ut` None: the save's UT (a vessel loaded when the game saved, whose
    `alt` is current)."""
    body = "".join(PART.format(part=p) for p in parts)
    last = _SAVE_UT if last_ut is None else last_ut
    return VESSEL.format(name=name, type=type, sit=sit, alt=alt, sma=sma, ecc=ecc, ref=ref, parts=body, last_ut=last)


_SAVE_UT = "@SAVE_UT@"  # replaced by save() with its UT


def save(*vessels: str, ut: float = 1612.34, active: int = 0, scene: int = 7) -> str:
    text = (
        "GAME\n{\n\tversion = 1.12.5\n\tTitle = simbridge T19 (SANDBOX)\n\tMode = SANDBOX\n\tStatus = 1\n"
        f"\tscene = {scene}\n"
        "\tPARAMETERS\n\t{\n\t\tFLIGHT\n\t\t{\n\t\t\tCanQuickSave = True\n\t\t}\n\t}\n"
        f"\tFLIGHTSTATE\n\t{{\n\t\tversion = 1.12.5\n\t\tUT = {ut}\n\t\tactiveVessel = {active}\n"
        "\t\tmapViewFiltering = -1026\n" + "".join(vessels) + "\t}\n}\n"
    )
    return text.replace(_SAVE_UT, repr(float(ut)))


def orbit_from(pe_km: float, ap_km: float) -> tuple[float, float]:
    """SMA (m) and ECC for periapsis/apoapsis altitudes over Kerbin (R = 600 km)."""
    rp, ra = 600e3 + pe_km * 1e3, 600e3 + ap_km * 1e3
    return (rp + ra) / 2, (ra - rp) / (ra + rp)
