"""The registered simulators (simbridge.registry, kind `simulator`, declared by adapters/):
every declared session, recorder and importer resolves; `run`, `record` and `import` read the
registry; building the CLI loads no adapter module."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from simbridge import read_bundle
from simbridge._adapter import SimSession
from simbridge._adapters_registry import adapter, adapters, importers
from simbridge.registry import load
from simbridge._cli import main
from simbridge._errors import SimbridgeError
from bc_nmea import emit, track
from ksp_saves import orbit_from, save, vessel
from openbve_logs import entries_of, logs_bin, trip

sys.path.insert(0, str(Path(__file__).parent / "adapters" / "carla"))
import carla_recsynth as rs  # noqa: E402

ADAPTERS = list(adapters().values())
HEAVY = ("pygame", "jsbsim", "carla", "scipy", "Xlib", "mss", "cv2", "mcp", "httpx", "websockets")


def test_every_session_is_a_simsession_subclass():
    sessions = [a for a in ADAPTERS if a.session]
    assert {a.name for a in sessions} >= {"jsbsim", "flightgear", "xplane", "carla"}
    for a in sessions:
        cls = load(a.session, a.name)
        assert isinstance(cls, type) and issubclass(cls, SimSession), a.session


def test_every_recorder_is_a_class_taking_host_and_port_with_record():
    recorders = [a for a in ADAPTERS if a.recorder]
    assert {a.name for a in recorders} >= {"flightgear", "xplane"}
    for a in recorders:
        cls = load(a.recorder, a.name)
        assert isinstance(cls, type), a.recorder
        list(inspect.signature(cls).bind("127.0.0.1", None).arguments)  # (host, port) binds
        params = inspect.signature(cls.record).parameters
        assert {"out", "seconds", "hz", "task_id"} <= set(params), a.recorder


def test_every_importer_accepts_the_keywords_the_cli_passes():
    assert set(importers()) == {"carla", "ksp", "openbve", "bridgecommand"}
    for name, (a, spec) in importers().items():
        func = load(spec.target, name)
        assert callable(func), spec.target
        params = inspect.signature(func).parameters
        needed = {"task_id", "force", *(o.dest for o in spec.options)}
        assert needed <= set(params), (spec.target, needed - set(params))
        assert spec.vehicle_option is None or spec.vehicle_option in {o.dest for o in spec.options}


def test_names_are_unique_and_the_commands_read_the_registry():
    from simbridge._cli.record import recorders
    from simbridge._sims import sessions

    names = [a.name for a in ADAPTERS]
    assert len(names) == len(set(names))
    choices = [n for name, (_, spec) in importers().items() for n in (name, *spec.aliases)]
    assert len(choices) == len(set(choices))
    assert sessions() == {a.name: a.session for a in ADAPTERS if a.session}
    assert set(recorders()) == {a.name for a in ADAPTERS if a.recorder}


def test_tasks_may_name_every_registered_simulator_and_no_other():
    from pydantic import TypeAdapter, ValidationError

    from simbridge._task import SimName

    names = TypeAdapter(SimName)
    for a in ADAPTERS:
        assert names.validate_python(a.name) == a.name
    with pytest.raises(ValidationError, match=r"unknown simulator 'flightgaer' \(did you mean 'flightgear'\?\)"):
        names.validate_python("flightgaer")


def test_importing_the_registry_and_building_the_cli_loads_no_adapter():
    code = (
        "import sys, json, simbridge._adapters_registry, simbridge._sims, simbridge._cli\n"
        "simbridge._cli.build_parser()\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in %r "
        "or m.startswith('simbridge.adapters.'))))" % (HEAVY,)
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == []


def test_a_sim_without_a_live_session_and_an_unknown_one_are_one_line_errors():
    from simbridge._sims import session_class

    with pytest.raises(SimbridgeError, match=r"simulator 'ksp' has no live session .*simbridge import"):
        session_class("ksp")
    with pytest.raises(SimbridgeError, match=r"unknown simulator 'nosuch' \(known: carla, drive, flightgear"):
        session_class("nosuch")
    with pytest.raises(SimbridgeError, match=r"unknown simulator 'nosuch'"):
        adapter("nosuch")
    assert adapter("openbve").importers and adapter("openbve").session is None


# ------------------------------------------------------------------ `simbridge import` per importer


def _carla(tmp: Path) -> list[Path]:
    add = rs.event_add([(10, 1, (0.0, 0.0, 0.0), 0.0, "vehicle.tesla.model3", {"role_name": "hero"})])
    frames = [([add] if i == 0 else []) + [rs.positions([(10, 100.0 * i, 50.0, 0.0, 0.0)])] for i in range(8)]
    p = tmp / "r.log"
    p.write_bytes(rs.recording(frames))
    return [p]


def _ksp(tmp: Path) -> list[Path]:
    sma, ecc = orbit_from(78, 82)
    p = tmp / "persistent.sfs"
    p.write_text(save(vessel(name="Other", sma=900e3, ecc=0.0), vessel(sma=sma, ecc=ecc), active=0))
    return [p]


def _openbve(tmp: Path) -> list[Path]:
    p = tmp / "logs.bin"
    p.write_bytes(logs_bin(entries_of(trip(28740.0, 123.0, [(28800, 1725.0, 150), (28980, 1870.0, 165)]))))
    return [p]


def _bridgecommand(tmp: Path) -> list[Path]:
    frames = [(0, -300, -30, 90), (200, 40, -30, 90), (400, 50, -7.0, 90), (460, 50, -6.4, 90), (500, 50, -6.4, 90)]
    p = tmp / "nmea.log"
    p.write_text(emit(track(frames, 50.36, -4.15)))
    return [p]


#: a tiny input per importer (the same generators the importer tests use); a new importer needs one
INPUTS = {"carla": _carla, "ksp": _ksp, "openbve": _openbve, "bridgecommand": _bridgecommand}


def test_every_importer_has_an_input_here():
    assert set(INPUTS) == set(importers())


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_simbridge_import_writes_a_bundle_of_that_sim(tmp_path, capsys, name):
    a, spec = importers()[name]
    out = tmp_path / "b"
    capsys.readouterr()
    assert main(["import", name, *map(str, INPUTS[name](tmp_path)), "--out", str(out)]) == 0
    said = capsys.readouterr()
    b = read_bundle(out)
    assert b.episode.sim == a.name and b.episode.task_id == spec.default_task
    assert said.err == ""
    assert said.out.startswith(f"wrote {out} (task {spec.default_task}): {len(b.signals.t)} samples over ")
    assert said.out.rstrip().endswith(f"score it with: simbridge verify {out}")


def test_unknown_sim_is_one_line_exit_2(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "simbridge._cli", "import", "nosuch", str(tmp_path / "x"), "--out", str(tmp_path / "b")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    err = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(err) == 1, p.stderr
    assert "no importer for simulator 'nosuch'" in err[0] and "bridgecommand, nmea" in err[0]
    assert not (tmp_path / "b").exists()


def test_the_old_import_log_spelling_is_gone(tmp_path):
    """No release was ever made with `import-log`: it is not a command (argparse's own error)."""
    src = _openbve(tmp_path)[0]
    p = subprocess.run(
        [sys.executable, "-m", "simbridge._cli", "import-log", "openbve", str(src), "--out", str(tmp_path / "b")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2 and "invalid choice: 'import-log'" in p.stderr
    assert not (tmp_path / "b").exists()
