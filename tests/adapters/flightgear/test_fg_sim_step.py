"""FlightGear's per-frame simulator step is capped by the harness at half the task's sample-gap
limit (`/sim/max-simtime-per-frame`, FlightGear's own default 1 s), so a long frame slows the
simulator instead of leaving a telemetry gap that makes the episode unscored. No FlightGear
needed: the launch spec and the command line only."""

from __future__ import annotations

import pytest

from simbridge._task import load_task
from simbridge.adapters.fgproto import GenericProtocol
from simbridge.adapters.flightgear import RAW_CHUNKS, launch_spec
from simbridge.adapters.flightgear._launch import FlightGearProcess, LaunchSpec


def _argv(spec: LaunchSpec, tmp_path) -> list[str]:
    p = FlightGearProcess(spec, GenericProtocol(RAW_CHUNKS), workdir=tmp_path, display=":99", cache_dir=None)

    class _Rx:
        port = 5599

    p.udp = _Rx()  # type: ignore[assignment]
    p.telnet_port = 5401
    return p.command()


@pytest.mark.parametrize(("task_id", "step_s"), [("T09@PHJR", 0.25), ("T16@PHJR", 0.5), ("T03@PHJR", 0.25)])
def test_the_step_cap_is_half_the_tasks_sample_gap_limit_and_on_the_command_line(task_id, step_s, tmp_path):
    task = load_task(task_id)
    spec = launch_spec(task)
    assert spec.max_sim_step_s == pytest.approx(step_s)
    assert spec.max_sim_step_s <= task.max_sample_gap_s / 2
    caps = [a for a in _argv(spec, tmp_path) if a.startswith("--prop:/sim/max-simtime-per-frame=")]
    assert caps == [f"--prop:/sim/max-simtime-per-frame={step_s:g}"]


def test_no_cap_leaves_flightgear_its_default(tmp_path):
    spec = launch_spec(load_task("T09@PHJR"))
    spec.max_sim_step_s = None
    assert not any("max-simtime-per-frame" in a for a in _argv(spec, tmp_path))


def test_the_frame_rate_cap_is_on_the_command_line_only_when_asked(tmp_path, monkeypatch):
    """SIMBRIDGE_FG_MAX_FPS (scripts/test.sh: 5, above the 4 fps a 0.25 s step needs for real
    time) becomes FlightGear's `/sim/frame-rate-throttle-hz`; unset, FlightGear draws as fast as it can."""
    from simbridge.adapters.flightgear import _launch

    spec = launch_spec(load_task("T09@PHJR"))
    monkeypatch.setattr(_launch, "MAX_FPS", 0.0)
    assert not any("frame-rate-throttle-hz" in a for a in _argv(spec, tmp_path))
    monkeypatch.setattr(_launch, "MAX_FPS", 5.0)
    assert [a for a in _argv(spec, tmp_path) if "frame-rate-throttle-hz" in a] == [
        "--prop:/sim/frame-rate-throttle-hz=5"
    ]
