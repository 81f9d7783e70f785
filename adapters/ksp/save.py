"""`persistent.sfs` → vessel states → episode bundle (signals by save time + snapshots).

FLIGHTSTATE { UT, activeVessel, VESSEL { name, type, sit, alt, ORBIT { SMA ECC INC LPE LAN MNA
EPH REF }, PART {…}… } } (KSP wiki, "Orbits in the save file").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from simbridge._bundle import EpisodeInfo, write_bundle
from simbridge._errors import SimbridgeError
from simbridge._import_policy import check_out, no_such_name, prepare_out
from simbridge.adapters.ksp.confignode import ConfigNode, read_confignode
from simbridge.adapters.ksp.orbit import Orbit


class SaveError(SimbridgeError):
    """A save that parses as ConfigNode text but lacks what a KSP save must hold."""


@dataclass(frozen=True)
class VesselState:
    name: str
    type: str
    situation: str
    alt_m: float
    parts: int
    ref: int
    sma_m: float
    ecc: float
    inc_deg: float
    pe_alt_m: float
    ap_alt_m: float | None
    period_s: float | None
    active: bool

    def as_snapshot(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SaveState:
    path: str
    ut_s: float
    vessels: list[VesselState]

    @property
    def active(self) -> VesselState | None:
        return next((v for v in self.vessels if v.active), None)

    def vessel(self, name: str | None) -> VesselState | None:
        """The named vessel (not debris), or the active one when no name is given."""
        if name is None:
            return self.active
        return next((v for v in self.vessels if v.name == name and v.type != "Debris"), None)


def _num(node: ConfigNode, key: str, where: str, *, required: bool = True, default: float = math.nan) -> float:
    raw = node.get(key)
    if raw is None or raw == "":
        if required:
            raise SaveError(f"{where} (line {node.line}): {node.name} has no {key}")
        return default
    try:
        v = float(raw)
    except ValueError:
        raise SaveError(f"{where} (line {node.line}): {node.name}.{key} = {raw!r} is not a number") from None
    if not math.isfinite(v):
        raise SaveError(f"{where} (line {node.line}): {node.name}.{key} = {raw!r} is not a finite number")
    return v


def read_save(path: str | Path) -> SaveState:
    """Parse one save file into the state of its vessels."""
    path = Path(path)
    root = read_confignode(path)
    game = root.node("GAME") or root
    fs = game.node("FLIGHTSTATE")
    if fs is None:
        raise SaveError(f"{path}: no FLIGHTSTATE node (not a KSP game save)")
    where = str(path)
    ut = _num(fs, "UT", where)
    active_idx = int(_num(fs, "activeVessel", where, required=False, default=-1))
    vessels = []
    for i, v in enumerate(fs.all("VESSEL")):
        orb = v.node("ORBIT")
        if orb is None:
            raise SaveError(f"{where} (line {v.line}): VESSEL {v.get('name')!r} has no ORBIT node")
        o = Orbit(sma_m=_num(orb, "SMA", where), ecc=_num(orb, "ECC", where), inc_deg=_num(orb, "INC", where, required=False, default=0.0),
                  ref=int(_num(orb, "REF", where)))
        vessels.append(VesselState(
            name=v.get("name", "") or "", type=v.get("type", "") or "", situation=(v.get("sit", "") or "").upper(),
            alt_m=_num(v, "alt", where, required=False), parts=len(v.all("PART")), ref=o.ref, sma_m=o.sma_m, ecc=o.ecc,
            inc_deg=o.inc_deg, pe_alt_m=o.pe_alt_m, ap_alt_m=o.ap_alt_m if o.closed else None,
            period_s=o.period_s if o.closed else None, active=(i == active_idx)))
    return SaveState(str(path), ut, vessels)


def _check_vessel(saves: Sequence[SaveState], vessel: str | None) -> None:
    """The vessel must be in at least one save (it may be gone from later ones: destroyed or
    recovered), or have left debris (KSP names it '<vessel> Debris'). A name in none of them is
    a typo, not a destroyed vessel."""
    if any(s.vessel(vessel) is not None for s in saves):
        return
    if vessel is not None and any(v.type == "Debris" and v.name.startswith(f"{vessel} Debris")
                                  for s in saves for v in s.vessels):
        return
    source = saves[0].path if len(saves) == 1 else f"any of the {len(saves)} saves ({', '.join(s.path for s in saves)})"
    known = [v.name for s in saves for v in s.vessels if v.type != "Debris"]
    if vessel is None:
        raise SaveError(f"no active vessel in {source}; name one with --vessel (vessels: "
                        f"{', '.join(repr(n) for n in sorted(set(known))) or 'none'})")
    raise no_such_name("vessel", vessel, source, known)


def import_saves(paths: Sequence[str | Path], out: str | Path, *, task_id: str = "T19", vessel: str | None = None,
                 force: bool = False) -> Path:
    """Write a bundle from one or more saves of one flight, ordered by UT: signals alt_m,
    pe_alt_m, apoapsis_m of the vessel per save; snapshots start/end `ksp_vessel` (null when the
    vessel is gone from the save, i.e. destroyed or recovered) and `ksp_ut_s`. A vessel that is
    in none of the saves is an error naming the vessels there are."""
    if not paths:
        raise SaveError("no save files given")
    check_out(out, force=force)
    saves = sorted((read_save(p) for p in paths), key=lambda s: s.ut_s)
    _check_vessel(saves, vessel)
    ut0 = saves[0].ut_s
    rows: dict[str, list[float]] = {"t": [], "alt_m": [], "pe_alt_m": [], "apoapsis_m": []}
    for s in saves:
        v = s.vessel(vessel)
        rows["t"].append(s.ut_s - ut0)
        rows["alt_m"].append(v.alt_m if v else math.nan)
        rows["pe_alt_m"].append(v.pe_alt_m if v else math.nan)
        rows["apoapsis_m"].append(v.ap_alt_m if v and v.ap_alt_m is not None else math.nan)

    def snap(s: SaveState) -> dict[str, Any]:
        v = s.vessel(vessel)
        return {"ksp_ut_s": s.ut_s, "ksp_vessel": v.as_snapshot() if v else None, "ksp_save": s.path,
                "ksp_vessels": [x.name for x in s.vessels]}

    ep = EpisodeInfo(task_id=task_id, sim="ksp", adapter="ksp.save")
    return write_bundle(prepare_out(out, force=force), ep, rows, snapshots={"start": snap(saves[0]), "end": snap(saves[-1])})
