"""Writes docs/verified.md from the registry and tasks/verified.json (the same code `simbridge
tasks list` uses): `.venv/bin/python scripts/verified_page.py` after `benchmarks/reference_pilots.py
--record`."""

from pathlib import Path
from simbridge._task import load_all_tasks
from simbridge._verified import pair_status, read_records, pilot_for

RUNS_HERE = ("jsbsim", "drive", "flightgear")
WHY_NOT = {
    "msfs": "Microsoft Flight Simulator does not run on this Linux machine (Windows only): protocol and recorded data only",
    "xplane": "X-Plane is not available here: protocol double and recorded data only",
    "carla": "no CARLA server here: the recorder importer is proven on a real recording; the tasks run on `drive`",
    "openbve": "OpenBVE runs are imported from its own black-box files (no live session)",
    "bridgecommand": "Bridge Command runs are imported from its NMEA output (no live session)",
    "ksp": "KSP runs are imported from save files (no live session)",
}
tasks = load_all_tasks()
records = read_records(Path("tasks"))
rows, other = [], {}
for t in sorted(tasks.values(), key=lambda t: (t.id[0] != "T", t.id)):
    for sim in [t.simulator.name, *t.simulator.alternatives]:
        if sim in RUNS_HERE:
            st = pair_status(t.id, sim, records)
            rec = records.get(f"{t.id}/{sim}")
            seeds = ", ".join(map(str, rec.seeds)) if rec else ""
            mins = f"{rec.min_score:.3f}" if rec and rec.min_score is not None else ""
            base = f"{rec.baseline_max:.3f}" if rec and rec.baseline_max is not None else ""
            day = rec.recorded if rec else ""
            pilot = (pilot_for(t.id, sim) or "").replace("*", "\\*")
            rows.append(f"| {t.id} | {sim} | {st} | {seeds} | {mins} | {base} | {day} | {pilot} |")
        else:
            other.setdefault(sim, []).append(t.id)
n_here = len(rows)
n_pilot = sum(1 for r in rows if not r.split("|")[3].strip() == "—")
n_solved = sum(1 for r in rows if r.split("|")[3].strip().startswith("solved"))
out = [
    "# Verified tasks: which pairs a reference solved through the GUI",
    "",
    "A task is only worth its proof that the score can be earned. A *reference* is a pilot or",
    "driver that acts exactly as an agent does — screenshots in, keys and clicks out through the",
    "agent port, nothing read from the simulator — registered as `TASK/SIM` (simbridge.registry,",
    "kind `pilot`). A pair is **solved** when its reference scored at least 0.9 with success on",
    "every seed tried (5–7 seeds in exact lockstep on jsbsim and drive; 3 seeds in real time on",
    "FlightGear, where a do-nothing run spends its whole 300–1,200 s time limit in wall time: where",
    "it was not flown its column is empty) and the do-nothing agent scored 0 on the same seeds.",
    "`benchmarks/reference_pilots.py --record` measures it and writes `tasks/verified.json`",
    "(`--baseline-only` adds the do-nothing agent's best to a record; a reference flown again with",
    "`--no-baseline` keeps the record's do-nothing best when the seeds are the same: it does not",
    "depend on the pilot). `simbridge tasks list` shows each pair's status (`solved n/n`, `NOT",
    "solved`, `unmeasured`: a reference exists but has no record yet, `—`: no reference);",
    "`simbridge eval suites/verified.yaml` reproduces the table as a suite. CI flies each jsbsim",
    "and drive reference once on a seed of its own, and on FlightGear those of T01@PHJR, T08@PHJR,",
    "T09@PHJR, T10@PHNL, T15 and T16@PHJR (the others' real-time episodes would take CI past its",
    "time); the seed sweeps are the benchmark's.",
    "",
    f"Of the {n_here} task × simulator pairs that run on this machine (jsbsim, drive, FlightGear),",
    f"{n_pilot} have a reference and {n_solved} are recorded as solved. A harness fault (unscored) in a",
    "trial leaves its pair unsolved until it is measured again: the benchmark now flies such a trial once more.",
    "",
    "| task | simulator | status | seeds | min score | do-nothing best | measured | reference |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    *rows,
    "",
    "## Pairs that cannot be verified here",
    "",
    "| simulator | tasks | why |",
    "| --- | --- | --- |",
    *[f"| {sim} | {', '.join(ids)} | {WHY_NOT.get(sim, '')} |" for sim, ids in sorted(other.items())],
    "",
    "This page is written from the registry and `tasks/verified.json` by the same code as `simbridge",
    "tasks list`; a pair's figures change only when the benchmark is run again with `--record`.",
    "",
]
Path("docs/verified.md").write_text("\n".join(out))
print(n_here, n_pilot, n_solved)

# suites/verified.yaml: the solved pairs as a suite, one matrix entry per simulator, so that
# `simbridge eval suites/verified.yaml` reproduces exactly the table's solved rows
solved: dict[str, list[str]] = {}
mode: dict[str, bool] = {}
for pair, rec in sorted(records.items(), key=lambda kv: (kv[0].split("/")[0][0] != "T", kv[0])):
    if rec.solved:
        task_id, sim = pair.split("/")
        solved.setdefault(sim, []).append(task_id)
        mode[sim] = mode.get(sim, True) and rec.lockstep
suite = [
    "# The verified pairs: every task × simulator pair on this machine that a reference pilot solves",
    "# through the GUI (pixels in, keys and clicks out), with the do-nothing baseline on the same",
    "# seeds — the solved rows of docs/verified.md (tasks/verified.json, written by",
    "# `benchmarks/reference_pilots.py --record`; this file by scripts/verified_page.py). FlightGear's",
    "# pairs run in real time and need FlightGear installed (scripts/setup.sh).",
    "#   simbridge eval suites/verified.yaml --out runs/verified",
    "name: verified",
    "trials: 5",
    "seed: 1",
    "retries: 1",
    "frame_hz: 1",
    "lockstep: true",
    "matrix:",
]
for sim in ("jsbsim", "drive", "flightgear"):
    if sim in solved:
        suite += [
            f"  - tasks: [{', '.join(solved[sim])}]",
            f"    sims: [{sim}]",
            "    agents: [reference, noop]",
            *([] if mode[sim] else ["    lockstep: false  # measured in real time"]),
            "    expect: {noop: [timeout, completed]}",
        ]
Path("suites/verified.yaml").write_text("\n".join(suite) + "\n")
