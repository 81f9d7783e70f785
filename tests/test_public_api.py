"""The public extension contracts: simbridge.sim, simbridge.agent, the cockpit's layout, the
declared episode.json fields and the typed event payloads."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

import simbridge.agent as agent_api
import simbridge.sim as sim
from simbridge import BundleError, BundleWriter, EpisodeInfo, read_bundle, write_bundle

ROOT = Path(__file__).resolve().parents[1]

#: an adapter and a provider written only against simbridge.sim (checked below: no other import)
TOY_SOURCE = """
from __future__ import annotations

import sys

from simbridge.sim import HarnessError, ProcessHandle, Provider, Sandbox, SimEvent, SimSession, StateSample


class ToyProvider(Provider):
    name = "toy"

    def __init__(self) -> None:
        self.procs: list[tuple[str, ProcessHandle]] = []

    def start(self, workdir):
        import subprocess

        def spawn(argv, env=None, *, name=None, **popen):
            p = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, **popen)
            self.procs.append((name or argv[0], p))
            return p

        return Sandbox(display=":0", env={}, workdir=str(workdir), spawn=spawn, telemetry="pull")

    def processes(self):
        return list(self.procs)

    def stop(self) -> None:
        for _, p in self.procs:
            p.kill()
            p.wait()
        self.procs.clear()


class ToySession(SimSession):
    sim_name = "toy"
    signals = ("alt_msl_ft",)

    def start(self, task, sandbox: Sandbox, *, seed=None) -> None:
        if sandbox.spawn is None:
            raise HarnessError("toy: the sandbox cannot start processes")
        self.proc = sandbox.spawn([sys.executable, "-c", "import time; time.sleep(60)"], name="toy_sim")
        self.t = 0.0

    def poll(self):
        self.t += 1.0
        return [StateSample(self.t, {"alt_msl_ft": 1000.0 + self.t})]

    def events(self):
        return [SimEvent(self.t, "crash", {"reason": "toy"})] if self.t >= 3 else []

    def sim_time(self) -> float:
        return self.t

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()
"""


def _imported_modules(source: str) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            out.add(node.module or "")
    return out


# --------------------------------------------------------------------------- public modules


@pytest.mark.parametrize("module", [sim, agent_api])
def test_public_modules_export_what_they_list(module):
    assert len(module.__all__) == len(set(module.__all__))
    for name in module.__all__:
        obj = getattr(module, name)
        assert obj is not None, name
    # nothing public left out of __all__ (the curated list is the whole surface)
    public = {n for n, v in vars(module).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    assert public - {"annotations"} <= set(module.__all__)


def test_sim_exports_the_contracts_by_their_names():
    assert {"SimSession", "StateSample", "SimEvent", "Sandbox", "Provider", "ProcessHandle", "Spawn", "Forward"} <= set(
        sim.__all__
    )
    assert sim.SimSession.__module__ == "simbridge._adapter" and sim.Provider.__module__ == "simbridge._providers._base"


def test_agent_exports_the_port_client():
    assert {
        "AgentPortClient",
        "DirectClient",
        "McpClient",
        "connect",
        "Screenshot",
        "TaskBrief",
        "EpisodeOver",
        "NotReady",
        "ActionError",
        "run_anthropic_action",
        "run_openai_action",
        "ACTIONS",
    } <= set(agent_api.__all__)
    assert issubclass(agent_api.DirectClient, agent_api.AgentPortClient)


def test_public_layout_reexports_every_public_name_of_the_cockpit_layout():
    from simbridge.adapters.jsbsim import _layout
    from simbridge.adapters.jsbsim import layout

    names = {
        n
        for n, v in vars(_layout).items()
        if not n.startswith("_") and not isinstance(v, types.ModuleType) and n not in ("annotations", "dataclass")
    }
    assert set(layout.__all__) == names
    assert all(getattr(layout, n) is getattr(_layout, n) for n in names)
    assert layout.centre("primer") == _layout.centre("primer")


def test_sandbox_spawn_and_forward_are_typed_not_any():
    import typing

    hints = typing.get_type_hints(sim.Sandbox)
    assert hints["spawn"] == typing.Optional[sim.Spawn] and hints["forward"] == typing.Optional[sim.Forward]
    assert hints["telemetry"] == sim.Telemetry


# --------------------------------------------------------------------------- a toy adapter


def test_a_toy_adapter_written_against_simbridge_sim_runs(tmp_path):
    imports = _imported_modules(TOY_SOURCE)
    assert imports <= {"__future__", "sys", "subprocess", "simbridge.sim"}, imports
    mod = types.ModuleType("toy_public_adapter")
    exec(compile(TOY_SOURCE, "toy_public_adapter.py", "exec"), mod.__dict__)
    provider, session = mod.ToyProvider(), mod.ToySession()
    assert isinstance(provider, sim.Provider) and isinstance(session, sim.SimSession)
    with provider:
        sandbox = provider.start(tmp_path)
        session.start(None, sandbox)
        [(name, handle)] = provider.processes()
        assert name == "toy_sim" and isinstance(handle, sim.ProcessHandle) and handle.poll() is None
        assert not isinstance(handle, sim.LogTail)  # a host process: its log is the host's
        samples = session.poll() + session.poll() + session.poll()
        assert [s.t_sim for s in samples] == [1.0, 2.0, 3.0]
        [ev] = session.events()
        assert sim.validate_event(ev.kind, ev.data).reason == "toy"
        session.stop()
        assert not session.alive()
    assert provider.processes() == []


def test_guest_process_handle_satisfies_the_protocol_but_is_no_host_process():
    from simbridge._episode_parts import _cpu_s
    from simbridge._vm._provider import GuestProcess

    guest = GuestProcess(types.SimpleNamespace(_ctl=None), 123, "/tmp/x.log")
    assert isinstance(guest, sim.ProcessHandle) and isinstance(guest, sim.LogTail)
    assert _cpu_s(guest) is None  # the host cannot read a guest's CPU time
    p = subprocess.Popen([sys.executable, "-c", "sum(range(3_000_000)); import time; time.sleep(30)"])
    try:
        import time

        time.sleep(0.5)
        cpu = _cpu_s(p)
        assert cpu is not None and 0.0 < cpu < 30.0
    finally:
        p.kill()
        p.wait()


def test_provider_processes_defaults_to_none():
    class Bare(sim.Provider):
        def start(self, workdir):
            return sim.Sandbox(display=":0", env={}, workdir=str(workdir))

        def stop(self) -> None:
            pass

    assert Bare().processes() == []


@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed")
def test_local_provider_processes_start_with_its_xvfb(tmp_path):
    from simbridge._providers import LocalProvider

    provider = LocalProvider()
    assert provider.processes() == []
    with provider:
        sandbox = provider.start(tmp_path)
        assert sandbox.telemetry == "push" and sandbox.harness_addr is not None
        p = sandbox.spawn(["sleep", "30"], name="sleeper")
        procs = provider.processes()
        assert [n for n, _ in procs] == ["Xvfb", "sleeper"]
        assert procs[0][1].pid == sandbox.info["xvfb_pid"] and procs[1][1] is p
        assert all(isinstance(h, subprocess.Popen) and h.poll() is None for _, h in procs)
    assert provider.processes() == [] and p.poll() is not None


def test_no_adapter_decides_by_provider_name():
    """Adapters read the sandbox's capabilities; only `preflight(provider)` may name one."""
    offenders = []
    for f in sorted((ROOT / "adapters").rglob("*.py")):
        tree = ast.parse(f.read_text())
        in_preflight: set[int] = set()
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == "preflight":
                in_preflight |= {id(n) for n in ast.walk(fn)}
        for node in ast.walk(tree):
            if id(node) in in_preflight:
                continue
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "provider"
                and getattr(node.value, "id", "") == "sandbox"
            ):
                offenders.append(f"{f.name}:{node.lineno} sandbox.provider")
            if isinstance(node, ast.Compare) and any(
                isinstance(c, ast.Constant) and c.value in ("vm", "netns", "local")
                for c in [node.left, *node.comparators]
            ):
                offenders.append(f"{f.name}:{node.lineno} compares with a provider name")
    assert offenders == []


# --------------------------------------------------------------------------- episode.json


def _cols():
    return {"t": [0.0, 1.0], "alt_msl_ft": [1000.0, 1001.0]}


def test_episode_info_keeps_unknown_keys_of_an_old_bundle(tmp_path):
    """A bundle written before the fields were declared (extra keys at the top level) reads,
    keeps them in `extra`, and writes them back where they were."""
    write_bundle(tmp_path / "b", {"task_id": "T09"}, _cols())
    ep_path = tmp_path / "b" / "episode.json"
    raw = json.loads(ep_path.read_text())
    raw.update(
        sandbox={"display": ":3", "pids": {"Xvfb": 11}},
        cpu_s={"Xvfb": 0.5, "runner": 1.25},
        legacy_counter=7,
        vendor={"x": [1, 2]},
    )
    ep_path.write_text(json.dumps(raw))
    ep = read_bundle(tmp_path / "b").episode
    assert ep.extra == {"legacy_counter": 7, "vendor": {"x": [1, 2]}}
    assert ep.sandbox is not None and ep.sandbox.pids == {"Xvfb": 11} and ep.sandbox.guest == []
    assert ep.cpu_s == {"Xvfb": 0.5, "runner": 1.25}
    again = json.loads(ep.model_dump_json(exclude_none=True))
    assert again["legacy_counter"] == 7 and again["vendor"] == {"x": [1, 2]} and "extra" not in again
    assert EpisodeInfo.model_validate(again).extra == ep.extra


def test_episode_info_rejects_undeclared_attributes_and_bad_types(tmp_path):
    ep = EpisodeInfo(task_id="T09")
    with pytest.raises(ValueError, match="no field"):
        ep.achieved_rft = 1.0  # a typo of achieved_rtf
    ep.achieved_rtf = 0.98
    ep.cpu_s = {"cockpit": None, "runner": 0.3}  # None: a guest process
    write_bundle(tmp_path / "ok", ep, _cols())
    assert read_bundle(tmp_path / "ok").episode.achieved_rtf == 0.98
    write_bundle(tmp_path / "bad", {"task_id": "T09"}, _cols())
    p = tmp_path / "bad" / "episode.json"
    p.write_text(json.dumps({**json.loads(p.read_text()), "sim_seconds": "long"}))
    with pytest.raises(BundleError, match=r"episode\.json: field 'sim_seconds'"):
        read_bundle(tmp_path / "bad")


def test_runner_fields_are_declared():
    declared = set(EpisodeInfo.model_fields)
    src = "\n".join(
        (ROOT / "simbridge" / f).read_text()
        for f in ("_runner.py", "_episode.py", "_episode_parts.py", "_end_watch.py")
    )

    def is_episode_info(node: ast.expr) -> bool:  # `episode.x`, `info.x` or `self.info.x` (Episode.info)
        return getattr(node, "id", "") in ("episode", "info") or (
            isinstance(node, ast.Attribute) and node.attr == "info" and getattr(node.value, "id", "") == "self"
        )

    assigned = {
        n.attr
        for n in ast.walk(ast.parse(src))
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and is_episode_info(n.value)
    }
    assert {
        "agent_port_url",
        "agent_brief",
        "ready_wall",
        "sandbox",
        "sim_info",
        "recorder",
        "cpu_s",
        "sim_seconds",
        "wall_run_s",
        "achieved_rtf",
        "agent_actions",
    } <= assigned
    assert assigned <= declared, assigned - declared
    assert "attr-defined" not in src


# --------------------------------------------------------------------------- events


def test_event_payloads_are_checked_per_kind_on_write(tmp_path):
    w = BundleWriter(tmp_path / "b", EpisodeInfo(task_id="T09"), ["alt_msl_ft"])
    w.event(1.0, "failure_injected", {"system": "engine", "agl_ft": 412.3, "actual_agl_ft": 415.0})
    w.event(
        2.0, "collision", {"other_kind": "vehicle", "other_id": 7, "other_type_id": "vehicle.audi", "impulse": 120.5}
    )
    w.event(2.5, "lane_invasion", {"markings": ["Solid"]})
    w.event(3.0, "toolkit_custom", {"anything": [1, {"goes": True}]})  # a third-party kind
    w.event(4.0, "crash", {"reason": "gear collapse", "g_load": 9.1})  # more than the model names: kept
    with pytest.raises(BundleError, match=r"event 'failure_injected': field 'data\.agl_ft'"):
        w.event(5.0, "failure_injected", {"system": "engine", "agl_ft": "low"})
    with pytest.raises(BundleError, match=r"event 'openbve_score': field 'data\.token'"):
        w.event(5.0, "openbve_score", {"token_id": 1, "value": -10})
    w.finish("completed")
    events = read_bundle(tmp_path / "b").events
    assert [e.kind for e in events] == ["failure_injected", "collision", "lane_invasion", "toolkit_custom", "crash"]
    assert events[3].data == {"anything": [1, {"goes": True}]} and events[4].data["g_load"] == 9.1


def test_every_known_kind_has_a_model_and_generic_kinds_fall_back():
    for kind in ("crash", "failure_injected", "autopilot_change", "touchdown", "lane_invasion", "collision"):
        assert sim.event_model(kind) is sim.EVENT_MODELS[kind] and issubclass(sim.EVENT_MODELS[kind], sim.EventData)
    assert sim.event_model("something_new") is sim.EventData
    ap = sim.validate_event("autopilot_change", {"autopilot_on": 1, "ap_alt": 0.0})
    assert isinstance(ap, sim.AutopilotChangeData) and ap.autopilot_on == 1.0
    with pytest.raises(BundleError, match="kind must be a non-empty string"):
        sim.validate_event("", {})


def test_the_packages_public_names_load_when_first_used_and_are_the_defining_modules_own():
    import importlib

    import simbridge
    import simbridge._vm as vm

    for pkg in (simbridge, vm):
        for name in pkg.__all__:
            value = getattr(pkg, name)
            if name == "verify":
                continue
            assert value is getattr(importlib.import_module(pkg._WHERE[name]), name), (pkg.__name__, name)
        assert set(pkg.__all__) <= set(dir(pkg))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        simbridge.nope  # noqa: B018
    # the VM guest's supervisor, started at every boot, loads none of the host's heavy modules
    code = "import sys, simbridge._vm._guest; print(sorted(m for m in ('numpy', 'pyarrow', 'pydantic', 'pandas') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
