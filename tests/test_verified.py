"""The verified-pairs record (simbridge._verified) and what `simbridge tasks list` shows of it."""

from __future__ import annotations

import json

import pytest

from simbridge._cli import main
from simbridge._verified import RECORD_FILE, PairRecord, pair_status, read_records, write_records


def rec(pair: str, successes: int = 5, trials: int = 5, min_score: float | None = 1.0, base: float | None = 0.0):
    return PairRecord(pair, trials, successes, min_score, tuple(range(1, trials + 1)), True, "2026-12-04", base)


def test_a_record_round_trips_and_a_new_run_merges_into_it(tmp_path):
    write_records(tmp_path, {"T09/jsbsim": rec("T09/jsbsim"), "T02/jsbsim": rec("T02/jsbsim", 4)})
    write_records(tmp_path, {"T02/jsbsim": rec("T02/jsbsim")})  # re-measured; T09's record stays
    got = read_records(tmp_path)
    assert set(got) == {"T09/jsbsim", "T02/jsbsim"}
    assert got["T02/jsbsim"].successes == 5 and got["T09/jsbsim"] == rec("T09/jsbsim")
    assert json.loads((tmp_path / RECORD_FILE).read_text())["pairs"]["T09/jsbsim"]["seeds"] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    "r, solved",
    [
        (rec("T09/jsbsim"), True),
        (rec("T09/jsbsim", successes=4), False),  # one seed failed
        (rec("T09/jsbsim", min_score=0.85), False),  # success below 0.9 on one seed
        (rec("T09/jsbsim", min_score=None), False),  # one seed unscored
        (rec("T09/jsbsim", base=0.2), False),  # the do-nothing agent earned something: the task pays for nothing
        (rec("T09/jsbsim", trials=0, successes=0), False),
    ],
)
def test_solved_means_every_seed_at_least_0_9_with_success_and_do_nothing_0(r, solved):
    assert r.solved is solved
    assert r.short().startswith("solved" if solved else "NOT solved")


def test_status_of_a_pair_without_record_or_pilot():
    assert pair_status("T09", "jsbsim", {}) == "unmeasured"  # a pilot is registered (T09/*), no record
    assert pair_status("T04", "xplane", {}) == "—"  # no pilot (X-Plane does not run here)
    assert pair_status("T09", "jsbsim", {"T09/jsbsim": rec("T09/jsbsim")}) == "solved 5/5"


def test_a_malformed_record_is_an_error_naming_the_file(tmp_path):
    (tmp_path / RECORD_FILE).write_text('{"pairs": {"T09/jsbsim": {"trials": "many"}}}')
    with pytest.raises(ValueError, match=r"verified\.json: not a verified-pairs record"):
        read_records(tmp_path)


def test_tasks_list_shows_each_pairs_reference_status(capsys):
    assert main(["tasks", "list", "--json"]) == 0
    tasks = {t["id"]: t for t in json.loads(capsys.readouterr().out)}
    assert tasks["T04"]["verified"] == {"xplane": "—"}
    assert set(tasks["T09"]["verified"]) == {"msfs", "jsbsim", "flightgear"}
    assert tasks["T09"]["verified"]["jsbsim"] != "—"  # a registered pilot: measured or unmeasured
    assert main(["tasks", "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    i = next(k for k, line in enumerate(out) if line.startswith("T09 "))
    assert out[i + 1].split()[0] == "reference:" and "jsbsim" in out[i + 1]
    # an id longer than 10 characters keeps the columns aligned (the header sets the width)
    assert out[0].startswith("task ")
