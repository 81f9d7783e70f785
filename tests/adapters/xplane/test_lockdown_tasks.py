import datetime as dt

import pytest

from simbridge._task import load_task, task_files
from simbridge.adapters.xplane import (
    LockdownError,
    flight_init,
    host_only_rules,
    inspect_install,
    plan_task,
    require_locked_down,
)
from simbridge.adapters.xplane._tasks import AIRCRAFT_PATHS, draw_height


def _install(tmp_path, *plugins):
    root = tmp_path / "X-Plane 12"
    (root / "Resources" / "plugins").mkdir(parents=True)
    for p in plugins:
        (root / "Resources" / "plugins" / p).mkdir(parents=True)
    return root


def test_clean_install_passes(tmp_path):
    root = _install(tmp_path, "XPlaneConnect", "PluginAdmin")
    report = require_locked_down(root)
    assert report.ok and report.plugins == ["PluginAdmin", "XPlaneConnect"]


@pytest.mark.parametrize("plugin", ["FlyWithLua", "XPPython3", "PythonPlugins"])
def test_scripting_plugin_fails_the_check(tmp_path, plugin):
    root = _install(tmp_path, "XPlaneConnect", plugin)
    with pytest.raises(LockdownError, match=plugin):
        require_locked_down(root)


def test_plugin_bundled_with_an_aircraft_is_found(tmp_path):
    root = _install(tmp_path)
    (root / "Aircraft" / "Extra" / "Foo" / "plugins" / "flywithlua_core").mkdir(parents=True)
    report = inspect_install(root)
    assert not report.ok and "flywithlua_core" in report.findings[0]


def test_not_an_install(tmp_path):
    assert not inspect_install(tmp_path).ok


def test_host_only_rules():
    rules = host_only_rules("10.0.0.1")
    assert {(r["proto"], r["port"]) for r in rules} == {("udp", 49000), ("udp", 49009), ("tcp", 8086), ("udp", 49010)}
    assert all(r["allow_from"] == "10.0.0.1" for r in rules)


XPLANE_TASKS = sorted(p.stem for p in task_files() if load_task(p.stem).simulator.name == "xplane")


def test_there_are_xplane_tasks():
    assert {"T04", "T08", "T12", "T20"} <= set(XPLANE_TASKS)


@pytest.mark.parametrize("task_id", XPLANE_TASKS)
def test_host_only_rules_are_the_ports_the_netns_firewall_keeps_host_only(task_id):
    """What the module docstring claims: the rules equal the task's lockdown list, and the
    netns provider's firewall for an xplane episode accepts each of those ports from the host
    side's address only and drops it on loopback."""
    from simbridge._isolation._firewall import FirewallPlan, render
    from simbridge._providers import state_ports
    from simbridge.adapters.xplane import XPlaneSession

    task = load_task(task_id)
    host = "10.199.0.1"
    rules = {(r["proto"], r["port"]) for r in host_only_rules(host)}
    assert rules == {(b.proto, b.port) for b in task.lockdown.blocked_ports}
    tcp, udp = state_ports(task, XPlaneSession)
    nft = render(
        FirewallPlan(sandbox_if="sbx-test", host_addr=host, agent_uid=2001, sim_uid=2002, state_tcp=tcp, state_udp=udp)
    ).splitlines()
    for proto, port in rules:
        accept = [
            ln
            for ln in nft
            if f"{proto} dport" in ln and ln.rstrip().endswith("accept") and str(port) in ln.split("dport", 1)[1]
        ]
        assert accept and all(f"ip saddr {host}" in ln for ln in accept), (proto, port, accept)
        assert any(
            ln.strip().startswith(f"iif lo {proto} dport") and str(port) in ln and ln.rstrip().endswith("drop")
            for ln in nft
        ), (proto, port)


@pytest.mark.parametrize("task_id", XPLANE_TASKS)
def test_the_fms_probe_port_is_a_host_only_state_port(task_id):
    """The FMS plugin answers on UDP 49010: a netns sandbox must let the host (only) reach it,
    or T04/T20's FMS snapshots are silently dropped."""
    from simbridge._isolation._firewall import FirewallPlan, render
    from simbridge._providers import state_ports
    from simbridge.adapters.xplane import XPlaneSession
    from simbridge.adapters.xplane._fms import FMS_PORT

    task = load_task(task_id)
    assert ("udp", FMS_PORT) in XPlaneSession.state_ports
    assert ("udp", FMS_PORT) in {(b.proto, b.port) for b in task.lockdown.blocked_ports}
    tcp, udp = state_ports(task, XPlaneSession)
    assert FMS_PORT in udp and FMS_PORT not in tcp
    nft = render(
        FirewallPlan(
            sandbox_if="sbx-test", host_addr="10.199.0.1", agent_uid=2001, sim_uid=2002, state_tcp=tcp, state_udp=udp
        )
    )
    assert any("udp dport" in ln and str(FMS_PORT) in ln and "ip saddr 10.199.0.1" in ln for ln in nft.splitlines())


def test_t02_flight_starts_on_ksea_34r():
    f = flight_init(load_task("T02"))
    assert f["aircraft"] == {"path": AIRCRAFT_PATHS["c172"]}
    assert f["runway_start"] == {"airport_id": "KSEA", "runway": "34R"}
    assert not {"ramp_start", "lle_ground_start", "lle_air_start"} & set(f)
    assert f["local_time"] == {"time_in_24_hours": 12.0}


def test_t04_g1000_at_kpao_engine_running():
    f = flight_init(load_task("T04"))
    assert f["aircraft"]["path"].endswith("Cessna_172SP_G1000.acf")
    assert f["runway_start"]["airport_id"] == "KPAO"
    assert f["engine_status"] == {"all_engines": {"running": True}}
    assert "fms" in plan_task(load_task("T04")).snapshot_groups


def _variant(base: str, **changes):
    spec = load_task(base).model_copy(deep=True)
    for k, v in changes.items():
        obj = spec
        *path, last = k.split("__")
        for p in path:
            obj = getattr(obj, p)
        setattr(obj, last, v)
    return spec


def test_t11_height_is_drawn_per_trial_from_the_seed():
    t11 = _variant("T02", id="T11")
    heights = [plan_task(t11, seed=s).injections[0].trigger_agl_ft for s in range(200)]
    assert all(400 <= h <= 1200 for h in heights)
    assert max(heights) - min(heights) > 600  # spread over the range
    assert plan_task(t11, seed=7).injections[0].trigger_agl_ft == plan_task(t11, seed=7).injections[0].trigger_agl_ft
    assert draw_height("T11", 1, 400, 1200) != draw_height("T11", 2, 400, 1200)
    inj = plan_task(t11, seed=3).injections[0]
    assert (inj.system, inj.target, inj.drawn_from_agl_ft) == (
        "engine",
        "sim/operation/failures/rel_engfai0",
        (400, 1200),
    )


def test_t08_time_and_snapshot_groups():
    from simbridge._task import TimeSpec

    t08 = _variant("T02", id="T08", initial_state__time=TimeSpec(date="2026-12-21", local_time="16:30"))
    f = flight_init(t08)
    assert f["local_time"] == {"day_of_year": dt.date(2026, 12, 21).timetuple().tm_yday, "time_in_24_hours": 16.5}
    assert {"time", "weather", "failures"} <= set(plan_task(t08).snapshot_groups)


def test_helipad_start_uses_the_pad_position():
    t12 = _variant(
        "T02", id="T12", initial_state__runway=None, initial_state__airport=None, initial_state__helipad="pad"
    )
    t12.vehicle.ids["xplane"] = "R22"
    f = flight_init(t12)
    assert f["aircraft"]["path"] == AIRCRAFT_PATHS["r22"]
    assert f["lle_ground_start"]["latitude"] == pytest.approx(47.43117533)


# --------------------------------------------------------------------------- the catalog's own X-Plane tasks


def test_catalog_t08_starts_no_flight():
    plan = plan_task(load_task("T08"))
    assert plan.flight is None and "agent starts the flight" in plan.notes[0]
    assert {"time", "weather", "failures", "aircraft"} <= set(plan.snapshot_groups)


def test_catalog_t11_engine_failure_from_the_yaml():
    plan = plan_task(load_task("T11"), seed=0)
    assert len(plan.injections) == 1 and plan.injections[0].drawn_from_agl_ft == (400, 1200)
    assert plan.flight["runway_start"] == {"airport_id": "KHAF", "runway": "30"}


def test_catalog_t12_r22_on_the_helipad():
    f = flight_init(load_task("T12"))
    assert f["aircraft"]["path"] == AIRCRAFT_PATHS["r22"]
    assert f["lle_ground_start"] == {"latitude": 37.6955795, "longitude": -121.82042912, "heading_true": 90.6}


def test_catalog_t20_737_at_a_ksea_gate():
    plan = plan_task(load_task("T20"))
    assert plan.flight["aircraft"]["path"] == AIRCRAFT_PATHS["b738"]
    assert plan.flight["ramp_start"] == {"airport_id": "KSEA"}
    assert plan.flight["engine_status"] == {"all_engines": {"running": False}}
    assert "fms" in plan.snapshot_groups and "autopilot" in plan.snapshot_groups


def test_nearest_airport_from_apt_dat(tmp_path):
    from simbridge.adapters.xplane._airports import nearest_airport

    apt = tmp_path / "apt.dat"
    apt.write_text(
        "I\n1100 Version\n\n1 20 1 0 KBOS Logan\n"
        "100 45.72 1 0 0.15 0 2 1 04L 42.35455 -71.01275 0 0 2 0 0 0 22R 42.37404 -70.99850 0 0 2 0 0 0\n"
        "17 10 0 0 H1X Pad\n102 H1 42.40000 -71.00000 0 10 10 1 0 0 0 0\n99\n"
    )
    assert nearest_airport(apt, 42.3741, -70.9986) == "KBOS"
    assert nearest_airport(apt, 42.4001, -71.0001) == "H1X"
    assert nearest_airport(apt, 10.0, 10.0) is None
