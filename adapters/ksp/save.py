"""`persistent.sfs` → vessel states → episode bundle (signals by save time + snapshots).

FLIGHTSTATE { UT, activeVessel, VESSEL { name, type, sit, alt, ORBIT { SMA ECC INC LPE LAN MNA
EPH REF }, PART {…}… } } (KSP wiki, "Orbits in the save file").

Real saves (tests/fixtures/ksp/, KSP 1.1.3 … 1.7.3, stock and modded) hold every situation,
debris, flags, orbits of other bodies (REF ≠ 1) and vessels with no orbit (`SMA = NaN`,
`ECC = 1` for landed or splashed ones; `SMA = 0` for some flags). Only the vessel the task
names is scored, so only its numbers must be readable.

Altitudes use the radius of the body the orbit's REF names (STOCK_BODIES in orbit.py: Mun,
Minmus, Gilly, the Sun, ...), never Kerbin's for all. A save from a solar system that is not
stock (Kopernicus, Real Solar System, planet packs) renumbers and resizes the bodies, so its
altitudes cannot be known from the save: `SaveState.non_stock` says why the importer thinks so
(LoaderInfo lists a system-replacing mod, or an orbit's REF is no stock body; on import also
when the named vessel is ORBITING at an `alt` far outside its own orbit computed with the
stock radius); the bundle carries
the reason (flag `non_stock_system`, snapshot `ksp_system`) and T19 leaves it unscored.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from simbridge._bundle import EpisodeInfo, write_bundle
from simbridge._errors import SimbridgeError
from simbridge._import_policy import check_out, no_such_name, prepare_out
from simbridge.adapters.ksp.confignode import ConfigNode, read_confignode
from simbridge.adapters.ksp.orbit import STOCK_BODIES, Orbit


class SaveError(SimbridgeError):
    """A save that parses as ConfigNode text but lacks what a KSP save must hold."""


#: Vessel.Situations as the save spells them (`sit = ...`)
SITUATIONS = ("PRELAUNCH", "LANDED", "SPLASHED", "FLYING", "SUB_ORBITAL", "ORBITING", "ESCAPING", "DOCKED")


@dataclass(frozen=True)
class VesselState:
    """One VESSEL node. `no_orbit` explains a vessel KSP keeps no orbit for (landed or splashed
    vessels loaded on the surface are saved with `SMA = NaN`, `ECC = 1`; flags with `SMA = 0`):
    its orbit fields are then None. Altitudes are above the body REF names (stock radii)."""

    name: str
    type: str
    situation: str
    alt_m: float
    parts: int
    ref: int | None
    body: str
    sma_m: float | None
    ecc: float | None
    inc_deg: float | None
    pe_alt_m: float | None
    ap_alt_m: float | None
    period_s: float | None
    active: bool
    no_orbit: str | None = None
    line: int = 0
    #: why this vessel's numbers cannot be read; only an error when the task names this vessel
    problem: str | None = field(default=None, compare=False)

    def as_snapshot(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("problem")
        return d


@dataclass(frozen=True)
class SaveState:
    path: str
    ut_s: float
    vessels: list[VesselState]
    version: str | None = None
    #: why the save's solar system is not KSP's stock one, or None
    non_stock: str | None = None

    @property
    def active(self) -> VesselState | None:
        return next((v for v in self.vessels if v.active), None)

    def vessel(self, name: str | None) -> VesselState | None:
        """The named vessel (not debris), or the active one when no name is given. KSP lets two
        vessels share a name: then the active one of them, else an error (which one is meant is
        not knowable). A vessel whose numbers cannot be read is an error only here, when named."""
        if name is None:
            found = self.active
        else:
            same = [v for v in self.vessels if v.name == name and v.type != "Debris"]
            if len(same) > 1:
                found = next((v for v in same if v.active), None)
                if found is None:
                    raise SaveError(
                        f"{self.path}: {len(same)} vessels are named {name!r} (VESSEL nodes at lines "
                        f"{', '.join(str(v.line) for v in same)}) and none is the active vessel; "
                        "rename one in the game"
                    )
            else:
                found = same[0] if same else None
        if found is not None and found.problem:
            raise SaveError(f"{self.path}: vessel {found.name!r}: {found.problem}")
        return found


class _Numbers:
    """Reads a vessel's numbers, collecting what is wrong instead of raising: a save holds many
    vessels and only the one the task names must be readable."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def get(
        self, node: ConfigNode, key: str, *, required: bool = True, default: float = math.nan, nan_ok: bool = False
    ) -> float:
        raw = node.get(key)
        if raw is None or raw == "":
            if required:
                self.problems.append(f"line {node.line}: {node.name} has no {key}")
            return default
        try:
            v = float(raw)
        except ValueError:
            self.problems.append(f"line {node.line}: {node.name}.{key} = {raw!r} is not a number")
            return default
        if math.isinf(v) or (math.isnan(v) and not nan_ok):
            self.problems.append(f"line {node.line}: {node.name}.{key} = {raw!r} is not a finite number")
            return default
        return v


def _num(node: ConfigNode, key: str, where: str, *, required: bool = True, default: float = math.nan) -> float:
    n = _Numbers()
    v = n.get(node, key, required=required, default=default)
    if n.problems:
        raise SaveError(f"{where} ({n.problems[0]})")
    return v


def _vessel(v: ConfigNode, active: bool) -> VesselState:
    n = _Numbers()
    name, vtype = v.get("name", "") or "", v.get("type", "") or ""
    sit = (v.get("sit", "") or "").upper()
    if sit not in SITUATIONS:
        n.problems.append(f"line {v.line}: VESSEL.sit = {sit!r} is not one of {', '.join(SITUATIONS)}")
    alt = n.get(v, "alt", required=False, nan_ok=True)
    orb = v.node("ORBIT")
    ref: int | None = None
    sma = ecc = inc = None
    no_orbit = None
    o = None
    if orb is None:
        n.problems.append(f"line {v.line}: VESSEL has no ORBIT node")
    else:
        ref_f = n.get(orb, "REF")
        ref = int(ref_f) if math.isfinite(ref_f) else None
        sma_f, ecc_f = n.get(orb, "SMA", nan_ok=True), n.get(orb, "ECC", nan_ok=True)
        inc_f = n.get(orb, "INC", required=False, default=0.0, nan_ok=True)
        if math.isnan(sma_f) or math.isnan(ecc_f) or sma_f == 0.0:
            bad = "SMA = NaN" if math.isnan(sma_f) else "ECC = NaN" if math.isnan(ecc_f) else "SMA = 0"
            no_orbit = f"no orbit ({bad} at line {orb.line}; situation {sit or 'unknown'})"
        else:
            sma, ecc, inc = sma_f, ecc_f, inc_f
            o = Orbit.around(ref, sma, ecc, inc) if ref is not None else None
    closed = o is not None and o.closed
    return VesselState(
        name=name,
        type=vtype,
        situation=sit,
        alt_m=alt,
        parts=len(v.all("PART")),
        ref=ref,
        body=(o.body if o else STOCK_BODIES[ref][0] if ref in STOCK_BODIES else f"body {ref}"),
        sma_m=sma,
        ecc=ecc,
        inc_deg=inc,
        pe_alt_m=o.pe_alt_m if o else None,
        ap_alt_m=o.ap_alt_m if o and closed else None,
        period_s=o.period_s if o and closed else None,
        active=active,
        no_orbit=no_orbit,
        line=v.line,
        problem="; ".join(n.problems) or None,
    )


#: LoaderInfo entries (assembly names) of mods that replace or resize the solar system
_SYSTEM_MODS = re.compile(r"^(Kopernicus|RealSolarSystem|RSS|SigmaDimensions|GalileosPlanetPack|GPP|OPM)\b", re.I)


def non_stock_reason(game: ConfigNode, vessels: Sequence[VesselState]) -> str | None:
    """Why the save is not from KSP's stock solar system, or None when nothing says so."""
    loader = game.node("LoaderInfo")
    mods = sorted({k.split(" v")[0].strip() for k, _ in (loader.values if loader else []) if _SYSTEM_MODS.match(k)})
    if mods:
        return f"LoaderInfo lists {', '.join(mods)} (a solar system that is not stock)"
    odd = sorted({v.ref for v in vessels if v.ref is not None and v.ref not in STOCK_BODIES})
    if odd:
        return f"orbit REF {', '.join(map(str, odd))} is no stock body (stock has 0-{max(STOCK_BODIES)})"
    return None


def orbit_mismatch(v: VesselState) -> str | None:
    """Why this ORBITING vessel's own altitude says the bodies are not stock, or None. Only a
    closed orbit far from the vessel's altitude counts (RSS's Earth read with Kerbin's radius
    puts a 200 km orbit's periapsis near 5,971 km); checked for the vessel a task names, as an
    unloaded vessel's `alt` can be stale."""
    if v.situation != "ORBITING" or v.pe_alt_m is None or v.ap_alt_m is None or not math.isfinite(v.alt_m):
        return None
    slack = 0.25 * STOCK_BODIES[v.ref][1] + 1000.0 if v.ref in STOCK_BODIES else math.inf
    if v.pe_alt_m - slack <= v.alt_m <= v.ap_alt_m + slack:
        return None
    return (
        f"vessel {v.name!r} (line {v.line}) is ORBITING at altitude {v.alt_m / 1000:,.1f} km, outside its "
        f"own orbit ({v.pe_alt_m / 1000:,.1f} to {v.ap_alt_m / 1000:,.1f} km with stock {v.body}'s "
        "radius): the bodies are not stock"
    )


def _without_altitudes(s: SaveState, why: str) -> SaveState:
    """The save marked not stock: no altitude computed from an orbit with stock radii is kept."""
    vessels = [
        replace(v, pe_alt_m=None, ap_alt_m=None, period_s=None, body=f"body {v.ref}" if v.ref is not None else "")
        for v in s.vessels
    ]
    return replace(s, vessels=vessels, non_stock=why)


def read_save(path: str | Path) -> SaveState:
    """Parse one save file into the state of its vessels. The ConfigNode structure and the
    FLIGHTSTATE header must be sound; a vessel's unreadable numbers are kept as its `problem`
    and raised only when that vessel is asked for."""
    path = Path(path)
    root = read_confignode(path)
    game = root.node("GAME") or root
    fs = game.node("FLIGHTSTATE")
    if fs is None:
        raise SaveError(f"{path}: no FLIGHTSTATE node (not a KSP game save)")
    where = str(path)
    ut = _num(fs, "UT", where)
    active_idx = int(_num(fs, "activeVessel", where, required=False, default=-1))
    vessels = [_vessel(v, i == active_idx) for i, v in enumerate(fs.all("VESSEL"))]
    state = SaveState(str(path), ut, vessels, version=game.get("version"))
    why = non_stock_reason(game, vessels)
    return _without_altitudes(state, why) if why else state


def _check_vessel(saves: Sequence[SaveState], vessel: str | None) -> None:
    """The vessel must be in at least one save (it may be gone from later ones: destroyed or
    recovered), or have left debris (KSP names it '<vessel> Debris'). A name in none of them is
    a typo, not a destroyed vessel."""
    if any(s.vessel(vessel) is not None for s in saves):
        return
    if vessel is not None and any(
        v.type == "Debris" and v.name.startswith(f"{vessel} Debris") for s in saves for v in s.vessels
    ):
        return
    source = saves[0].path if len(saves) == 1 else f"any of the {len(saves)} saves ({', '.join(s.path for s in saves)})"
    known = [v.name for s in saves for v in s.vessels if v.type != "Debris"]
    debris = sorted({v.name for s in saves for v in s.vessels if v.type == "Debris"})
    listed = ", ".join(repr(n) for n in debris[:20]) + (f", … {len(debris) - 20} more" if len(debris) > 20 else "")
    debris_note = f"; debris: {listed}" if debris else ""
    if vessel is None:
        raise SaveError(
            f"no active vessel in {source}; name one with --vessel (vessels: "
            f"{', '.join(repr(n) for n in sorted(set(known))) or 'none'}{debris_note})"
        )
    if vessel in debris:
        raise SaveError(
            f"vessel {vessel!r} is debris (type Debris) in {source}, not a vessel a task can fly (vessels: "
            f"{', '.join(repr(n) for n in sorted(set(known))) or 'none'}{debris_note})"
        )
    err = no_such_name("vessel", vessel, source, known)
    if debris:
        msg = str(err)
        raise type(err)(msg[: msg.rindex(")")] + debris_note + msg[msg.rindex(")") :])
    raise err


def import_saves(
    paths: Sequence[str | Path],
    out: str | Path,
    *,
    task_id: str = "T19",
    vessel: str | None = None,
    force: bool = False,
) -> Path:
    """Write a bundle from one or more saves of one flight, ordered by UT: signals alt_m,
    pe_alt_m, apoapsis_m of the vessel per save; snapshots start/end `ksp_vessel` (null when the
    vessel is gone from the save, i.e. destroyed or recovered) and `ksp_ut_s`. A vessel that is
    in none of the saves is an error naming the vessels there are."""
    if not paths:
        raise SaveError("no save files given")
    check_out(out, force=force)
    saves = sorted((read_save(p) for p in paths), key=lambda s: s.ut_s)
    _check_vessel(saves, vessel)
    for i, s in enumerate(saves):
        named = s.vessel(vessel)
        why = orbit_mismatch(named) if named is not None and s.non_stock is None else None
        if why:
            saves[i] = _without_altitudes(s, why)
    ut0 = saves[0].ut_s
    rows: dict[str, list[float]] = {"t": [], "alt_m": [], "pe_alt_m": [], "apoapsis_m": []}
    for s in saves:
        v = s.vessel(vessel)
        rows["t"].append(s.ut_s - ut0)
        rows["alt_m"].append(v.alt_m if v else math.nan)
        rows["pe_alt_m"].append(v.pe_alt_m if v and v.pe_alt_m is not None else math.nan)
        rows["apoapsis_m"].append(v.ap_alt_m if v and v.ap_alt_m is not None else math.nan)

    def snap(s: SaveState) -> dict[str, Any]:
        v = s.vessel(vessel)
        return {
            "ksp_ut_s": s.ut_s,
            "ksp_vessel": v.as_snapshot() if v else None,
            "ksp_save": s.path,
            "ksp_vessels": [x.name for x in s.vessels],
            "ksp_system": {"stock": s.non_stock is None, "why": s.non_stock},
        }

    non_stock = next((f"{s.path}: {s.non_stock}" for s in saves if s.non_stock), None)
    ep = EpisodeInfo(task_id=task_id, sim="ksp", adapter="ksp.save", flags=["non_stock_system"] if non_stock else [])
    return write_bundle(
        prepare_out(out, force=force), ep, rows, snapshots={"start": snap(saves[0]), "end": snap(saves[-1])}
    )
