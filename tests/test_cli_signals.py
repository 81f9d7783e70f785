"""`simbridge signals`: the canonical vocabulary and each simulator's recorded signals and conventions."""

from __future__ import annotations

import json

from simbridge._canonical import SIGNALS
from simbridge._cli import main


def test_every_canonical_signal_is_listed_once(capsys) -> None:
    assert main(["signals"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert names == list(SIGNALS)


def test_a_simulator_shows_what_it_records_and_its_conventions(capsys) -> None:
    assert main(["signals", "--sim", "jsbsim", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    names = {r["name"] for r in doc["signals"]}
    assert {"heading_mag_deg", "ias_kt", "alt_agl_ft"} <= names and names <= set(SIGNALS)
    hdg = next(r for r in doc["signals"] if r["name"] == "heading_mag_deg")
    assert "magnetic variation" in hdg["convention"] and hdg["range"] is not None
    # a driving simulator records no aircraft heading indicator
    assert main(["signals", "--sim", "drive", "--json"]) == 0
    assert "heading_mag_deg" not in {r["name"] for r in json.loads(capsys.readouterr().out)["signals"]}


def test_an_unknown_simulator_is_one_line_naming_it(capsys) -> None:
    assert main(["signals", "--sim", "nosuch"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'nosuch'" in err[0] and "jsbsim" in err[0], err
