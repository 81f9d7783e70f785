"""`persistent.sfs` → vessel states → episode bundle (signals by save time + snapshots).

FLIGHTSTATE { UT, activeVessel, VESSEL { name, type, sit, alt, ORBIT { SMA ECC INC LPE LAN MNA
EPH REF }, PART {…}… } } (KSP wiki, "Orbits in the save file").

Real saves (tests/fixtures/ksp/, KSP 1.1.3 … 1.7.3, stock and modded) hold every situation,
debris, flags, orbits of other bodies (REF ≠ 1) and vessels with no orbit (`SMA = NaN`,
`ECC = 1` for landed or splashed ones; `SMA = 0` for some flags). Only the vessel the task
names is scored, so only its numbers must be readable.

Altitudes use the radius of the body the orbit's REF names (STOCK_BODIES in orbit.py: Mun,
Minmus, Gilly, the Sun, ...), never Kerbin's for all. A vessel's stored `alt` is from its
`lastUT`: for a vessel not loaded when the game saved (lastUT before UT), it is stale — up to
another body's altitude after an SOI change on rails — so an ORBITING, ESCAPING or SUB_ORBITAL
vessel's `alt_m` is computed from its ORBIT at the save's UT (MNA at EPH, Kepler's equation),
the stored value kept as `alt_saved_m` (`alt_source` says which one `alt_m` is).

A save from a solar system that is not stock renumbers and resizes the bodies, so altitudes
around them cannot be known from the save. `SaveState.non_stock` says why the importer thinks
the whole system is not stock (LoaderInfo lists a system-replacing mod — RSS, Sigma
Dimensions, GPP, … —, Kopernicus is loaded with no pack the save names, the save's bodies
include names that are not stock, an orbit's REF is no stock body without a known pack; on
import also when the named vessel, loaded at the save's UT, is at an `alt` far from where its
own orbit puts it with the stock radius). A pack that keeps the stock bodies and adds its own
(Outer Planets Mod, with Kopernicus) leaves the stock bodies measurable: only orbits of its
bodies (REF 17 and up) are unknown (`SaveState.body_unknown`). The bundle carries the reason
for the named vessel's body (flag `non_stock_system`, snapshot `ksp_system`) and T19 leaves it
unscored.

`activeVessel` is trusted only in a save written in flight (GAME `scene = 7`, or no scene): at
the Space Center, in the editor or the tracking station it is 0 or the vessel last flown, and
a save there names no vessel the importer may pick.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from simbridge import EpisodeInfo, SimbridgeError, write_bundle
from simbridge.importing import check_out, no_such_name, prepare_out
from simbridge.adapters.ksp.confignode import ConfigNode, read_confignode
from simbridge.adapters.ksp.orbit import STOCK_BODIES, Orbit, radius_at


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
    pid: str = ""
    #: the `alt` the save stores (from lastUT), the vessel's lastUT, and what `alt_m` is:
    #: "save" (the stored alt, current when lastUT is the save's UT or unknown) or "orbit at UT"
    alt_saved_m: float = math.nan
    last_ut_s: float | None = None
    alt_source: str = "save"
    #: the altitude the ORBIT gives at the save's UT (ORBITING/ESCAPING/SUB_ORBITAL, stock body)
    orbit_alt_m: float | None = None

    def as_snapshot(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("problem")
        return d


#: GAME `scene` values (GameScenes): activeVessel names the vessel flown only in FLIGHT
SCENES = {5: "the Space Center", 6: "the editor", 7: "flight", 8: "the tracking station"}
FLIGHT_SCENE = 7


@dataclass(frozen=True)
class SaveState:
    path: str
    ut_s: float
    vessels: list[VesselState]
    version: str | None = None
    #: why the save's solar system is not KSP's stock one, or None
    non_stock: str | None = None
    #: GAME scene the save was written in (7 = flight), None when the save does not say
    scene: int | None = None
    #: why no vessel of this save is taken as the active one (activeVessel not trusted), or None
    no_active: str | None = None
    #: a planet pack that keeps the stock bodies (then only REFs beyond them are unknown)
    pack: str | None = None
    #: what the reader tolerated ('line N: ...')
    notes: tuple[str, ...] = ()

    @property
    def active(self) -> VesselState | None:
        return next((v for v in self.vessels if v.active), None)

    def body_unknown(self, ref: int | None) -> str | None:
        """Why the radius of body REF is not known from this save, or None (a stock body of a
        stock system, or of a pack that keeps them)."""
        if self.non_stock:
            return self.non_stock
        if ref is not None and ref not in STOCK_BODIES:
            return (
                f"orbit REF {ref} is a body of {self.pack or 'a planet pack'}, not a stock one: its radius is unknown"
            )
        return None

    def _names(self) -> str:
        known = sorted({v.name for v in self.vessels if v.type != "Debris"})
        return ", ".join(repr(n) for n in known[:20]) + (f", … {len(known) - 20} more" if len(known) > 20 else "")

    def vessel(self, name: str | None) -> VesselState | None:
        """The named vessel (not debris; a name or a vessel's pid), or the active one when no
        name is given. KSP lets two vessels share a name: then the active one of them (in a save
        written in flight), else an error (which one is meant is not knowable; a pid names one).
        A vessel whose numbers cannot be read is an error only here, when named."""
        if name is None:
            if self.no_active:
                raise SaveError(
                    f"{self.path}: {self.no_active}; name the vessel with --vessel (vessels: {self._names() or 'none'})"
                )
            found = self.active
            if found is not None and found.type == "Debris":
                raise SaveError(
                    f"{self.path}: activeVessel is debris ({found.name!r}, line {found.line}), not a vessel a task "
                    f"flies; name the vessel with --vessel (vessels: {self._names() or 'none'})"
                )
        else:
            same = [v for v in self.vessels if v.name == name and v.type != "Debris"]
            if not same:
                same = [v for v in self.vessels if name and v.pid == name and v.type != "Debris"]
            if len(same) > 1:
                found = next((v for v in same if v.active), None)
                if found is None:
                    where = (
                        f"{self.no_active.split(', where')[0]}, where activeVessel does not say which was flown"
                        if self.no_active
                        else "none is the active vessel"
                    )
                    pids = ", ".join(f"line {v.line} pid {v.pid or '?'}" for v in same)
                    raise SaveError(
                        f"{self.path}: {len(same)} vessels are named {name!r} ({pids}) and {where}; "
                        "name one by its pid with --vessel, or rename one in the game"
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


def _vessel(v: ConfigNode, active: bool, ut_s: float) -> VesselState:
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
    last_ut = n.get(v, "lastUT", required=False, nan_ok=True)
    last = last_ut if math.isfinite(last_ut) and last_ut >= 0 else None
    alt_m, source = alt, "save"
    orbit_alt = _orbit_alt(o, orb, ut_s) if sit in ORBIT_SITUATIONS and o is not None and orb is not None else None
    if orbit_alt is not None and (last is None or last < ut_s - STALE_S):
        # the stored alt is from lastUT (or, without one, of unknown age): where the orbit puts
        # the vessel at the save's UT is its altitude now
        alt_m, source = orbit_alt, "orbit at UT"
    return VesselState(
        name=name,
        type=vtype,
        situation=sit,
        alt_m=alt_m,
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
        pid=v.get("pid", "") or "",
        alt_saved_m=alt,
        last_ut_s=last,
        alt_source=source,
        orbit_alt_m=orbit_alt,
    )


#: situations in which KSP moves a vessel along its ORBIT (on rails when unloaded)
ORBIT_SITUATIONS = ("ORBITING", "ESCAPING", "SUB_ORBITAL")
#: a lastUT this far before UT means the vessel was not loaded when the game saved
STALE_S = 1.0


def _orbit_alt(o: Orbit, orb: ConfigNode, ut_s: float) -> float | None:
    """Altitude above the body at time `ut_s` on the ORBIT node's orbit, or None without a
    usable MNA/EPH."""
    raw = orb.get("MNA"), orb.get("EPH")
    try:
        mna, eph = float(raw[0] or "nan"), float(raw[1] or "nan")
    except ValueError:
        return None
    if not (math.isfinite(mna) and math.isfinite(eph) and math.isfinite(ut_s)) or o.ecc == 1.0:
        return None
    r = radius_at(o.sma_m, o.ecc, o.gm_m3s2, mna, eph, ut_s)
    return r - o.radius_m if math.isfinite(r) else None


#: LoaderInfo entries (assembly names) of mods that replace or resize the whole solar system
_SYSTEM_MODS = re.compile(
    r"^(RealSolarSystem|RSS|SigmaDimensions|Sigma\.?Dimensions|GalileosPlanetPack|GPP|KSRSS|JNSQ|Rescale)", re.I
)
_KOPERNICUS = re.compile(r"^Kopernicus", re.I)
_OPM = re.compile(r"^(OPM|OuterPlanets)", re.I)
STOCK_NAMES = frozenset(name for name, _, _ in STOCK_BODIES.values())
#: Outer Planets Mod's bodies: it adds them (REF 17 and up) and keeps the stock ones
OPM_BODIES = frozenset(
    {"Sarnus", "Hale", "Ovok", "Slate", "Tekto", "Urlum", "Polta", "Priax", "Wal", "Tal", "Neidon", "Thatmo"}
    | {"Nissee", "Plock", "Karen"}
)


def save_bodies(game: ConfigNode) -> set[str]:
    """Names of the bodies the save has reached (ProgressTracking's per-body nodes: a `reached`
    value, not a Records… node)."""
    out: set[str] = set()
    for sc in game.all("SCENARIO"):
        if sc.get("name") == "ProgressTracking":
            for prog in sc.all("Progress"):
                out |= {n.name for n in prog.nodes if n.get("reached") is not None and not n.name.startswith("Records")}
    return out


def solar_system(game: ConfigNode, vessels: Sequence[VesselState]) -> tuple[str | None, str | None]:
    """(why the whole system is not stock, or None; a pack that keeps the stock bodies, or None)."""
    loader = game.node("LoaderInfo")
    names = sorted({k.split(" v")[0].strip() for k, _ in (loader.values if loader else [])})
    replacing = [n for n in names if _SYSTEM_MODS.match(n)]
    kopernicus = [n for n in names if _KOPERNICUS.match(n)]
    if replacing:
        return f"LoaderInfo lists {', '.join(sorted(kopernicus + replacing))} (a solar system that is not stock)", None
    bodies = save_bodies(game)
    foreign = sorted(bodies - STOCK_NAMES - OPM_BODIES)
    if foreign:
        return f"the save has reached bodies that are not stock ({', '.join(foreign)})", None
    opm = sorted(bodies & OPM_BODIES)
    opm_loader = [n for n in names if _OPM.match(n)]
    if opm or opm_loader:
        seen = f"LoaderInfo lists {', '.join(opm_loader)}" if opm_loader else f"the save has reached {', '.join(opm)}"
        return None, f"Outer Planets Mod ({seen}; it keeps the stock bodies)"
    if kopernicus:
        return (
            f"LoaderInfo lists {', '.join(kopernicus)} and the save names no planet pack known to keep the stock "
            "bodies (Kopernicus loads a solar system the save does not describe)"
        ), None
    odd = sorted({v.ref for v in vessels if v.ref is not None and v.ref not in STOCK_BODIES})
    if odd:
        return f"orbit REF {', '.join(map(str, odd))} is no stock body (stock has 0-{max(STOCK_BODIES)})", None
    return None, None


def non_stock_reason(game: ConfigNode, vessels: Sequence[VesselState]) -> str | None:
    """Why the save is not from KSP's stock solar system, or None when nothing says so."""
    return solar_system(game, vessels)[0]


def orbit_mismatch(v: VesselState, ut_s: float) -> str | None:
    """Why this vessel's own altitude says the bodies are not stock, or None. Judged only where
    the stored `alt` is of the save's own time: a vessel loaded when the game saved (lastUT =
    UT), whose `alt` must be where its orbit puts it at UT (RSS's Earth read with Kerbin's
    radius puts a 200 km orbit near 5,971 km); without a lastUT, an ORBITING vessel's `alt` must
    lie between its periapsis and apoapsis. A stale `alt` (lastUT before UT) says nothing: the
    vessel may have left another body's SOI on rails since."""
    if v.situation not in ORBIT_SITUATIONS or not math.isfinite(v.alt_saved_m) or v.ref not in STOCK_BODIES:
        return None
    slack = 0.25 * STOCK_BODIES[v.ref][1] + 1000.0
    if v.last_ut_s is not None:
        if v.last_ut_s < ut_s - STALE_S or v.orbit_alt_m is None:
            return None
        if abs(v.alt_saved_m - v.orbit_alt_m) <= slack:
            return None
        where = f"its own orbit puts it at {v.orbit_alt_m / 1000:,.1f} km"
    else:
        if v.situation != "ORBITING" or v.pe_alt_m is None or v.ap_alt_m is None:
            return None
        if v.pe_alt_m - slack <= v.alt_saved_m <= v.ap_alt_m + slack:
            return None
        where = f"outside its own orbit ({v.pe_alt_m / 1000:,.1f} to {v.ap_alt_m / 1000:,.1f} km)"
    return (
        f"vessel {v.name!r} (line {v.line}) is {v.situation} at altitude {v.alt_saved_m / 1000:,.1f} km, {where} "
        f"with stock {v.body}'s radius: the bodies are not stock"
    )


def _without_altitudes(s: SaveState, why: str) -> SaveState:
    """The save marked not stock: no altitude computed from an orbit with stock radii is kept."""
    vessels = [
        replace(
            v,
            pe_alt_m=None,
            ap_alt_m=None,
            period_s=None,
            orbit_alt_m=None,
            alt_m=v.alt_saved_m,
            alt_source="save",
            body=f"body {v.ref}" if v.ref is not None else "",
        )
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
    scene_raw = (game.get("scene") or "").strip()
    scene = int(scene_raw) if scene_raw.isdigit() else None
    no_active = None
    if scene is not None and scene != FLIGHT_SCENE:
        no_active = (
            f"the save was written at {SCENES.get(scene, f'scene {scene}')} (scene {scene}), where activeVessel "
            f"({active_idx}) is not the vessel flown"
        )
        active_idx = -1
    vessels = [_vessel(v, i == active_idx, ut) for i, v in enumerate(fs.all("VESSEL"))]
    why, pack = solar_system(game, vessels)
    state = SaveState(
        str(path),
        ut,
        vessels,
        version=game.get("version"),
        scene=scene,
        no_active=no_active,
        pack=pack,
        notes=tuple(root.notes),
    )
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
        why = orbit_mismatch(named, s.ut_s) if named is not None and s.non_stock is None else None
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
            "ksp_system": system(s),
            "ksp_scene": s.scene,
            "ksp_notes": list(s.notes),
        }

    def system(s: SaveState) -> dict[str, Any]:
        """Stock as far as the named vessel's body is concerned."""
        v = s.vessel(vessel)
        why = s.body_unknown(v.ref if v is not None else None)
        return {"stock": why is None, "why": why, "pack": s.pack}

    non_stock = any(not system(s)["stock"] for s in saves)
    notes = [f"ksp_tolerated: {s.path}: {n}" for s in saves for n in s.notes]
    ep = EpisodeInfo(
        task_id=task_id, sim="ksp", adapter="ksp.save", flags=(["non_stock_system"] if non_stock else []) + notes
    )
    return write_bundle(
        prepare_out(out, force=force), ep, rows, snapshots={"start": snap(saves[0]), "end": snap(saves[-1])}
    )
