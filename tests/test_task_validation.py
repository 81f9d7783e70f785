"""Task specs validate with meaning: nonsense values, misspelt signals, nested variants and deep
YAML each give one line naming the file and the field; per-simulator instruction text; a seeded
mutation fuzz over the shipped task YAMLs."""

from __future__ import annotations

import copy
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simbridge._errors import TaskSpecError
from simbridge._task import VARIANT_SETS_DIR, TaskSpec, load_all_tasks, load_task, load_task_file, task_files, tasks_dir
from simbridge import verifier as registry
from simbridge.params import FiniteParams

NAN, INF = float("nan"), float("inf")


def _data(task_id: str) -> dict[str, Any]:
    return yaml.safe_load((tasks_dir() / f"{task_id}.yaml").read_text(encoding="utf-8"))


def _set(data: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    """A copy of `data` with the value at `a.b[2].c` replaced."""
    out = copy.deepcopy(data)
    parts = [int(p) if p.isdigit() else p for p in re.split(r"\.|\[|\]\.?", dotted) if p != ""]
    node = out
    for p in parts[:-1]:
        node = node[p]
    node[parts[-1]] = value
    return out


def _write(folder: Path, data: dict[str, Any], name: str | None = None) -> Path:
    path = folder / f"{name or data['id']}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _error(path: Path) -> str:
    """The one-line TaskSpecError loading `path` raises; it names the file."""
    with pytest.raises(TaskSpecError) as info:
        load_task_file(path)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(str(path)), msg
    return msg


# --------------------------------------------------------------------------- nonsense values


@pytest.mark.parametrize(
    "task_id,where,value,expect",
    [
        (
            "T09",
            "verifier.params.alt_tol_ft",
            -100,
            "field 'verifier': params.alt_tol_ft: Input should be greater than 0",
        ),
        (
            "T09",
            "verifier.params.alt_tol_ft",
            NAN,
            "field 'verifier': params.alt_tol_ft: Input should be a finite number",
        ),
        (
            "T09",
            "verifier.params.ias_tol_kt",
            INF,
            "field 'verifier': params.ias_tol_kt: Input should be a finite number",
        ),
        (
            "T09",
            "verifier.params.bank_fraction_min",
            1.5,
            "field 'verifier': params.bank_fraction_min: Input should be less than or equal to 1",
        ),
        (
            "T09",
            "verifier.params.direction",
            "up",
            "field 'verifier': params.direction: Input should be 'left' or 'right'",
        ),
        ("T09", "time_limit_s", INF, "field 'time_limit_s': Input should be a finite number"),
        ("T09", "max_sample_gap_s", INF, "field 'max_sample_gap_s': Input should be a finite number"),
        ("T09", "max_sample_gap_s", -0.5, "field 'max_sample_gap_s': Input should be greater than 0"),
        ("T09", "initial_state.alt_msl_ft", NAN, "field 'initial_state.alt_msl_ft': Input should be a finite number"),
        (
            "T09",
            "signals[2]",
            "bank_dge",
            "field 'signals[2]': unknown canonical signal 'bank_dge' (did you mean 'bank_deg'?)",
        ),
        ("T05", "verifier.params.side", "center", "field 'verifier': params.side: Input should be 'left' or 'right'"),
        (
            "T05",
            "verifier.params.downwind_offset_nm",
            [1.5, 0.25],
            "params.downwind_offset_nm: Value error, range [1.5, 0.25] must have low < high",
        ),
        (
            "T12",
            "verifier.params.hover_min_ft",
            12,
            "params: Value error, hover_min_ft (12) must be below hover_max_ft (10)",
        ),
        (
            "T16",
            "verifier.params.xpdr_code",
            4581,
            "params.xpdr_code: Value error, transponder code 4581 is not 4 octal digits",
        ),
        ("T16", "verifier.params.com1_mhz", 12.5, "params.com1_mhz: Input should be greater than or equal to 118"),
        ("T10", "verifier.params.course_deg", 360, "params.course_deg: Input should be less than 360"),
        ("T08", "verifier.params.date", "2026-13-45", "params.date: Value error, date '2026-13-45' is not YYYY-MM-DD"),
        (
            "T08",
            "verifier.params.aircraft_pattern",
            "(cessna",
            "params.aircraft_pattern: Value error, not a valid regular expression",
        ),
        ("T08", "verifier.params.cloud_coverage", "cloudy", "params.cloud_coverage: Input should be 'clear', 'few'"),
        ("T06", "verifier.params.route_xy_m[1][0]", NAN, "params.route_xy_m[1][0]: Input should be a finite number"),
        ("T18", "verifier.params.lane_id", 0, "params.lane_id: Value error, lane 0 is OpenDRIVE's reference line"),
        (
            "T15",
            "verifier.params.payload_lb.rear_left",
            -190,
            "params.payload_lb.rear_left: Input should be greater than or equal to 0",
        ),
        (
            "T20",
            "verifier.params.sid_end_fix",
            "NOWHERE",
            "params: Value error, sid_end_fix 'NOWHERE' is not one of route_fixes",
        ),
        (
            "T06",
            "initial_state.scenario",
            {"spawn": {"x_m": NAN}},
            "field 'initial_state.scenario': spawn.x_m is nan, not a finite number",
        ),
    ],
)
def test_nonsense_value_is_one_line_naming_file_and_field(tmp_path, task_id, where, value, expect):
    path = _write(tmp_path, _set(_data(task_id), where, value))
    msg = _error(path)
    assert expect in msg, msg


def test_unknown_signal_without_a_close_name_gets_no_guess(tmp_path):
    msg = _error(_write(tmp_path, _set(_data("T09"), "signals[0]", "zzzz")))
    assert "field 'signals[0]': unknown canonical signal 'zzzz'" in msg and "did you mean" not in msg


def test_second_engine_signal_name_is_canonical(tmp_path):
    data = _data("T01")
    data["signals"].append("engine2_rpm")
    assert "engine2_rpm" in load_task_file(_write(tmp_path, data)).signals


def test_negative_tolerance_no_longer_validates_from_the_cli(tmp_path):
    """The catalog demo: `alt_tol_ft: -100` used to say 'valid' (and turned a 1.0 into a 0.7)."""
    path = _write(tmp_path, _set(_data("T09"), "verifier.params.alt_tol_ft", -100))
    p = subprocess.run(
        [sys.executable, "-m", "simbridge._cli", "tasks", "validate", str(path)], capture_output=True, text=True
    )
    assert p.returncode == 1 and "Traceback" not in p.stderr
    bad = [line for line in p.stdout.splitlines() if line.startswith("INVALID")]
    assert bad == [f"INVALID {path}: field 'verifier': params.alt_tol_ft: Input should be greater than 0"], p.stdout


def test_every_verifier_refuses_non_finite_params():
    """Every registered verifier's parameter model is a FiniteParams: NaN/inf anywhere inside is an error."""
    for name in registry.names():
        assert issubclass(registry.get(name).params, FiniteParams), name


# --------------------------------------------------------------------------- variants


def _copy_catalog(dest: Path) -> Path:
    """The shipped task files and their variant sets, copied into `dest`."""
    for f in task_files():
        shutil.copy(f, dest / f.name)
    shutil.copytree(tasks_dir() / VARIANT_SETS_DIR, dest / VARIANT_SETS_DIR)
    return dest


@pytest.fixture()
def catalog(tmp_path: Path) -> Path:
    """A copy of the shipped tasks to break."""
    return _copy_catalog(tmp_path)


def test_a_variant_set_is_spliced_in_where_it_is_used(catalog):
    """P01 draws the shared steady wind; written inline instead, the task and its draws are the same."""
    used = load_task_file(catalog / "P01.yaml", search_dir=catalog)
    data = _data("P01")
    at = data["variants"].index({"use": "steady_wind"})
    data["variants"][at : at + 1] = yaml.safe_load((catalog / VARIANT_SETS_DIR / "steady_wind.yaml").read_text())
    inline = load_task_file(_write(catalog, data), search_dir=catalog)
    assert [v.name for v in used.variants][-2:] == ["wind_dir_deg", "wind_kt"]
    assert used == inline
    for seed in (1, 2, 7):
        assert used.drawn(seed).variant == inline.drawn(seed).variant
        assert used.drawn(seed).initial_state.weather == inline.drawn(seed).initial_state.weather


def test_a_site_variant_inherits_the_variant_set_of_its_base(catalog):
    fg = load_task_file(catalog / "P13@PHJR.yaml", search_dir=catalog)
    assert {"wind_dir_deg", "wind_kt"} <= {v.name for v in fg.variants}


@pytest.mark.parametrize(
    "entry,set_text,expect",
    [
        (
            {"use": "no_such_set"},
            None,
            "field 'variants[3].use': no variant set 'no_such_set' (variants/no_such_set.yaml",
        ),
        ({"use": "../T01"}, None, "field 'variants[3].use': '../T01' is not a variant set name"),
        (
            {"use": "steady_wind", "step": 5},
            None,
            "an entry naming a variant set has no other keys (got ['step', 'use'])",
        ),
        ({"use": "broken"}, "- name: x\n  uniform: [0, 1\n", "field 'variants[3].use': "),
        ({"use": "broken"}, "name: x\n", "a variant set is a list of variants"),
        ({"use": "broken"}, "- use: steady_wind\n", "a variant set is a list of variants"),
    ],
)
def test_a_bad_variant_set_is_one_line_naming_the_task_and_entry(catalog, entry, set_text, expect):
    if set_text is not None:
        (catalog / VARIANT_SETS_DIR / "broken.yaml").write_text(set_text)
    data = _data("P01")
    at = data["variants"].index({"use": "steady_wind"})
    assert at == 3
    data["variants"][at] = entry
    msg = _error(_write(catalog, data))
    assert expect in msg, msg


def test_a_variant_inside_a_set_is_validated_like_one_in_the_task(catalog):
    (catalog / VARIANT_SETS_DIR / "steady_wind.yaml").write_text("- name: wind_kt\n  uniform: [15, 0]\n")
    msg = _error(catalog / "P01.yaml")
    assert "field 'variants[3].use (variants/steady_wind.yaml item 0)': " in msg, msg
    assert "variant 'wind_kt': uniform [lo, hi] needs lo <= hi" in msg, msg


def test_variant_of_a_variant_is_refused_by_name(catalog):
    path = _write(catalog, {"id": "T01@X", "base": "T01@PHJR"})
    assert _error(path) == (
        f"{path}: field 'base': T01@PHJR is itself a variant of T01; a variant's base must be a base task"
    )


@pytest.mark.parametrize(
    "base,expect",
    [
        ("../../etc/passwd", "field 'base': '../../etc/passwd' is not a task id such as 'T01'"),
        (["T01"], "field 'base': ['T01'] is not a task id"),
        ("T01@X", "field 'base': a task cannot be its own base"),
        ("T05", "field 'base': variant T01@X must extend T01, not T05"),
        ("T77", "field 'base': no task file T77.yaml next to it"),
    ],
)
def test_bad_base_is_one_line(catalog, base, expect):
    msg = _error(_write(catalog, {"id": "T01@X", "base": base}))
    assert expect in msg, msg


def test_variant_error_in_an_inherited_field_says_so(catalog):
    _write(catalog, _set(_data("T01"), "difficulty", 9))
    msg = _error(catalog / "T01@PHJR.yaml")
    assert "field 'difficulty': Input should be less than or equal to 5 (inherited from T01.yaml)" in msg, msg


def test_variant_that_rewrites_instruction_must_rewrite_per_sim_text(catalog):
    data = _data("T01@PHJR")
    del data["instructions_by_sim"]
    msg = _error(_write(catalog, data))
    assert (
        "field 'instructions_by_sim': the variant rewrites `instruction` but would inherit T01's text for jsbsim" in msg
    )


def test_variant_gets_its_own_site_in_per_sim_text():
    spec = load_all_tasks()["T01@PHJR"]
    assert (
        spec.base == "T01" and "PHJR" in spec.instruction_for("jsbsim") and "KPAO" not in spec.instruction_for("jsbsim")
    )


# --------------------------------------------------------------------------- deep and recursive YAML


def test_yaml_too_deep_to_parse_is_one_line(tmp_path):
    path = tmp_path / "T09.yaml"
    path.write_text("id: T09\nscenario: " + "[" * 5000 + "]" * 5000 + "\n")
    assert _error(path) == f"{path}: line 2: not valid YAML: exceeded maximum nesting depth"


def test_yaml_deeper_than_a_task_is_refused_naming_where(tmp_path):
    data = _data("T09")
    deep: Any = 1
    for _ in range(40):
        deep = [deep]
    data["initial_state"]["scenario"] = {"route": deep}
    msg = _error(_write(tmp_path, data))
    assert "field 'initial_state.scenario.route[0]...': nested more than 32 levels deep" in msg, msg


def test_self_referencing_anchor_is_refused(tmp_path):
    path = tmp_path / "T09.yaml"
    path.write_text((tasks_dir() / "T09.yaml").read_text() + "loop: &a [1, *a]\n")
    assert "nested more than 32 levels deep" in _error(path)


def test_alias_bomb_is_refused(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 8)]
    path = tmp_path / "T09.yaml"
    path.write_text("\n".join(lines) + "\n")
    assert "more than 200000 values (YAML aliases expanded)" in _error(path)


# --------------------------------------------------------------------------- per-simulator instructions

#: how an instruction names each simulator (and panels that exist only on some)
SIM_WORDS = {
    "msfs": r"\bMSFS\b|Microsoft Flight Simulator",
    "xplane": r"X-Plane",
    "flightgear": r"FlightGear",
    "carla": r"\bCARLA\b",
    "openbve": r"OpenBVE",
    "bridgecommand": r"Bridge Command",
    "ksp": r"Kerbal|\bKSP\b",
    "jsbsim": r"JSBSim",
}
#: panels and avionics a simulator's cockpit does not have
MISSING_ON = {"jsbsim": r"G1000|KAP140|\bCDU\b|\bFMS\b"}


def _names_other_sim(text: str, sim: str) -> list[str]:
    hits = [other for other, rx in SIM_WORDS.items() if other != sim and re.search(rx, text)]
    if sim in MISSING_ON and re.search(MISSING_ON[sim], text):
        hits.append(re.search(MISSING_ON[sim], text).group(0))
    return hits


def _numbers(text: str) -> list[str]:
    """The task's numbers, without simulator version numbers."""
    text = re.sub(r"X-Plane \d+|MSFS \d{4}(/\d{4})?|\(\d\.\d+\)", "", text)
    # thousands separators belong to the number ("1,200"); a comma after it is punctuation ("runway 30, ...")
    return sorted(re.findall(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?", text))


def test_every_alternative_sim_gets_instruction_text_naming_it():
    """A task that can run on another simulator, and whose catalog text names a different one (or a
    panel that sim lacks), has its own text for that simulator, and that text names no other."""
    checked = 0
    for spec in load_all_tasks().values():
        for sim in spec.simulator.alternatives:
            if _names_other_sim(spec.instruction, sim):
                assert sim in spec.instructions_by_sim, f"{spec.id}: no instructions_by_sim.{sim}"
                checked += 1
            assert not _names_other_sim(spec.instruction_for(sim), sim), (spec.id, sim, spec.instruction_for(sim))
    assert checked >= 7


def test_per_sim_text_keeps_the_task_numbers():
    for spec in load_all_tasks().values():
        for sim, text in spec.instructions_by_sim.items():
            assert _numbers(text) == _numbers(spec.instruction), (spec.id, sim)


def test_instruction_for_falls_back_to_the_catalog_text():
    tasks = load_all_tasks()
    t16 = tasks["T16"]
    assert t16.instruction_for("msfs") == t16.instruction.strip() and t16.instruction.startswith("MSFS")
    assert "JSBSim" in t16.instruction_for("jsbsim") and "G1000" not in t16.instruction_for("jsbsim")
    assert tasks["T06"].instruction_for("carla") == tasks["T06"].instruction


@pytest.mark.parametrize(
    "sim,expect",
    [
        ("carla", "field 'instructions_by_sim': 'carla' is not one of simulator.alternatives ['jsbsim', 'flightgear']"),
        ("msfs", "field 'instructions_by_sim': 'msfs' is the task's own simulator: its text is `instruction`"),
    ],
)
def test_per_sim_text_only_for_alternatives(tmp_path, sim, expect):
    data = _data("T09")
    data["instructions_by_sim"][sim] = "Some simulator, fly a steep turn."
    assert expect in _error(_write(tmp_path, data))


# --------------------------------------------------------------------------- mutation fuzz

SPECIAL: list[Any] = [
    -1,
    -1e9,
    0,
    0.0,
    NAN,
    INF,
    -INF,
    1e308,
    "text",
    "",
    True,
    None,
    [],
    {},
    {"x": 1},
    [[[[[[[[1]]]]]]]],
    "bank_dge",
    "T01@PHJR",
]


def _paths(node: Any, loc: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [loc] if loc else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*loc, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*loc, i))
    return out


def _mutate(data: dict[str, Any], loc: tuple[Any, ...], op: str, value: Any) -> None:
    parent = data
    for k in loc[:-1]:
        parent = parent[k]
    key = loc[-1]
    value = copy.deepcopy(value)  # a SPECIAL list set inside itself would make a cycle
    if op == "set":
        parent[key] = value
    elif op == "delete":
        del parent[key]
    elif op == "unknown_key" and isinstance(parent, dict):
        parent[f"{key}_extra"] = value
    elif op == "nest":
        deep = parent[key]
        for _ in range(40):
            deep = [deep]
        parent[key] = deep
    elif op == "negate" and isinstance(parent[key], (int, float)) and not isinstance(parent[key], bool):
        parent[key] = -parent[key] - 1


def _numbers_in(node: Any) -> list[tuple[str, float]]:
    if isinstance(node, dict):
        return [(f"{k}.{n}" if n else str(k), v) for k, x in node.items() for n, v in _numbers_in(x)]
    if isinstance(node, (list, tuple)):
        return [(n, v) for x in node for n, v in _numbers_in(x)]
    if isinstance(node, float) or (isinstance(node, int) and not isinstance(node, bool)):
        return [("", float(node))]
    return []


def _assert_meaningful(spec: TaskSpec) -> None:
    """An accepted spec has only finite numbers and only positive tolerances."""
    assert all(math.isfinite(v) for _, v in _numbers_in(spec.model_dump()))
    params = registry.get(spec.verifier.name).params.model_validate(spec.verifier.params)
    for name, value in _numbers_in(params.model_dump()):
        assert math.isfinite(value), name
        if "tol" in name.split(".")[0]:
            assert value > 0, name


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory) -> Path:
    return _copy_catalog(tmp_path_factory.mktemp("fuzz"))


TASK_IDS = [f.stem for f in task_files()]


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzz_load_returns_a_meaningful_spec_or_one_line_error(fuzz_dir, data):
    task_id = data.draw(st.sampled_from(TASK_IDS), label="task")
    spec_data = _data(task_id)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        paths = _paths(spec_data)
        if not paths:
            break
        loc = data.draw(st.sampled_from(paths), label="where")
        op = data.draw(st.sampled_from(["set", "set", "negate", "delete", "unknown_key", "nest"]), label="op")
        _mutate(spec_data, loc, op, data.draw(st.sampled_from(SPECIAL), label="value"))
    path = fuzz_dir / f"{task_id}.yaml"
    path.write_text(yaml.safe_dump(spec_data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    try:
        try:
            spec = load_task_file(path, search_dir=fuzz_dir)
        except TaskSpecError as exc:
            msg = str(exc)
            assert "\n" not in msg and str(path) in msg, msg
        else:
            _assert_meaningful(spec)
    finally:
        shutil.copy(tasks_dir() / f"{task_id}.yaml", path)


# --------------------------------------------------------------------------- command line


def test_cli_validate_nested_variant_exits_non_zero_with_one_line(catalog, capsys):
    from simbridge._cli import main

    path = _write(catalog, {"id": "T01@X", "base": "T01@PHJR"})
    assert main(["tasks", "validate", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"INVALID {path}: field 'base': T01@PHJR is itself a variant of T01; a variant's base must be a base task",
        "0 valid, 1 invalid",
    ]


def test_cli_instruction_per_sim(capsys):
    from simbridge._cli import main

    assert main(["tasks", "instruction", "T16", "--sim", "jsbsim"]) == 0
    assert capsys.readouterr().out.startswith("JSBSim cockpit, Cessna 172 (c172x")
    assert main(["tasks", "instruction", "T16"]) == 0
    assert capsys.readouterr().out.startswith("MSFS, Cessna 172 (G1000)")
    assert main(["tasks", "instruction", "T16", "--sim", "carla"]) == 2
    assert "T16 does not run on 'carla' (its simulators: msfs, jsbsim, flightgear)" in capsys.readouterr().err


def test_lockdown_ports_by_protocol_sorted_once() -> None:
    """LockdownSpec.ports(proto) is what providers open to the host and the audit probes."""
    from simbridge._task import LockdownSpec

    spec = LockdownSpec.model_validate(
        {
            "blocked_ports": [
                {"port": 5401, "proto": "udp", "service": "fdm out"},
                {"port": 5400, "proto": "tcp", "service": "telnet"},
                {"port": 80, "proto": "tcp", "service": "http"},
                {"port": 5400, "proto": "tcp", "service": "telnet again"},
            ]
        }
    )
    assert spec.ports("tcp") == [80, 5400]
    assert spec.ports("udp") == [5401]
    assert spec.probes()[0] == (5401, "udp", "fdm out") and len(spec.probes()) == 4
    assert LockdownSpec().ports("tcp") == []


def test_provider_state_ports_join_the_lockdown_and_the_adapters() -> None:
    """make_provider's (tcp, udp) lists: the task's blocked ports plus the adapter's own, once each."""
    from simbridge._providers import state_ports

    task = load_all_tasks()["T01"]
    lock_tcp = task.lockdown.ports("tcp")
    assert lock_tcp, "T01 blocks a TCP state port"

    class Session:
        state_ports = (("tcp", 1), ("udp", 2), ("tcp", lock_tcp[0]))

    tcp, udp = state_ports(task, Session)
    assert tcp == sorted({1, *lock_tcp}) and udp == sorted({2, *task.lockdown.ports("udp")})


# --------------------------------------------------------------------------- a plug-in's own tasks


def test_a_task_id_need_not_follow_the_catalogs_numbering(tmp_path):
    """A plug-in names its tasks as it likes (a letter, then letters, digits, '_'); what is not
    an id is still one line naming the field."""
    spec = load_task_file(_write(tmp_path, _set(_data("T09"), "id", "steep_turn_2")))
    assert spec.id == "steep_turn_2" and spec.verifier.name == "steep_turn"
    for bad in ("9lives", "steep-turn", "a" * 40):
        msg = _error(_write(tmp_path, _set(_data("T09"), "id", bad), name=bad))
        assert "field 'id'" in msg, msg


def test_input_files_are_found_in_the_folder_the_task_came_from(tmp_path):
    """A task's input `source` is relative to its own folder, so a plug-in's task ships its
    documents; the trial's drawn copy keeps the folder."""
    from simbridge._task import input_source

    folder = tmp_path / "plugin_tasks"
    (folder / "inputs" / "climb").mkdir(parents=True)
    (folder / "inputs" / "climb" / "card.txt").write_text("target 60 ft")
    data = _set(_data("T09"), "id", "climb")
    data["inputs"] = [{"path": "input/card.txt", "description": "the card", "source": "inputs/climb/card.txt"}]
    spec = load_task_file(_write(folder, data))
    assert input_source(spec, "inputs/climb/card.txt").read_text() == "target 60 ft"
    assert spec.drawn(7).folder == folder.resolve()
    # simbridge's own tasks still find theirs under its task folder
    t15 = load_task("T15")
    [load] = [f for f in t15.inputs if f.source]
    assert input_source(t15, load.source) == tasks_dir() / load.source and input_source(t15, load.source).is_file()
