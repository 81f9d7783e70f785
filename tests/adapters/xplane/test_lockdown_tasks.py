import datetime as dt

import pytest

from simbridge._task import load_task
from simbridge.adapters.xplane import LockdownError, flight_init, host_only_rules, inspect_install, plan_task, require_locked_down
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
    assert {(r["proto"], r["port"]) for r in rules} == {("udp", 49000), ("udp", 49009), ("tcp", 8086)}
    assert all(r["allow_from"] == "10.0.0.1" for r in rules)


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
    heights = [plan_task(t11, seed=s).injections[0].agl_ft for s in range(200)]
    assert all(400 <= h <= 1200 for h in heights)
    assert max(heights) - min(heights) > 600            # spread over the range
    assert plan_task(t11, seed=7).injections[0].agl_ft == plan_task(t11, seed=7).injections[0].agl_ft
    assert draw_height("T11", 1, 400, 1200) != draw_height("T11", 2, 400, 1200)
    inj = plan_task(t11, seed=3).injections[0]
    assert (inj.system, inj.dataref, inj.drawn_from) == ("engine", "sim/operation/failures/rel_engfai0", (400, 1200))


def test_t08_time_and_snapshot_groups():
    from simbridge._task import TimeSpec

    t08 = _variant("T02", id="T08", initial_state__time=TimeSpec(date="2026-12-21", local_time="16:30"))
    f = flight_init(t08)
    assert f["local_time"] == {"day_of_year": dt.date(2026, 12, 21).timetuple().tm_yday, "time_in_24_hours": 16.5}
    assert {"time", "weather", "failures"} <= set(plan_task(t08).snapshot_groups)


def test_helipad_start_uses_the_pad_position():
    t12 = _variant("T02", id="T12", initial_state__runway=None, initial_state__airport=None, initial_state__helipad="pad")
    t12.vehicle.ids["xplane"] = "R22"
    f = flight_init(t12)
    assert f["aircraft"]["path"] == AIRCRAFT_PATHS["r22"]
    assert f["lle_ground_start"]["latitude"] == pytest.approx(47.43117533)
