"""CPU and memory limits of a sandbox's processes (cgroups): a busy loop inside gets no more than
its CPU limit, a process past the memory limit is killed by the kernel and counted, the runner
outside is not limited; the v2 layout is written as the kernel wants it (checked on a stand-in
tree: this machine keeps cpu and memory on cgroup v1, which the real-kernel tests use)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from simbridge._errors import SimbridgeError
from simbridge._isolation._cgroup import Limits, SandboxCgroup, detect, remove_stale


def _fake_v2(root: Path) -> Path:
    root.mkdir()
    (root / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (root / "cgroup.subtree_control").write_text("")
    return root


class _KernelLike(SandboxCgroup):
    """Stand-in tree: what the kernel would create in a new cgroup directory."""

    def _create_v2(self) -> None:
        parent = self.root / "simbridge"
        parent.mkdir(exist_ok=True)
        (parent / "cgroup.subtree_control").touch()
        super()._create_v2()


def test_the_v2_layout(tmp_path, monkeypatch):
    root = _fake_v2(tmp_path / "cg")
    assert detect(root) == "v2"
    cg = _KernelLike("sb-1234", Limits(cpus=0.5, mem_mb=300), root=root)
    assert cg.create(), cg.why
    d = root / "simbridge" / "sb-1234"
    assert (root / "cgroup.subtree_control").read_text() == "+cpu +memory"
    assert (root / "simbridge" / "cgroup.subtree_control").read_text() == "+cpu +memory"
    assert (d / "cpu.max").read_text() == "50000 100000" and (d / "memory.max").read_text() == str(300 * 2**20)
    cg.join()
    assert (d / "cgroup.procs").read_text() == "0"  # the process moves itself, before exec
    rep = cg.report()
    assert rep["applied"] and rep["cgroup"] == "v2" and rep["cpus"] == 0.5 and rep["mem_mb"] == 300


def test_no_usable_hierarchy_runs_unlimited_and_says_why(tmp_path):
    cg = SandboxCgroup("sb-1", Limits(), root=tmp_path)
    assert not cg.create() and cg.dirs == []
    assert cg.report() == {
        "applied": False,
        "why": f"no cgroup hierarchy with the cpu and memory controllers under {tmp_path}",
    }


@pytest.mark.parametrize(
    "env,value,match",
    [
        ("SIMBRIDGE_SANDBOX_CPUS", "lots", r"SIMBRIDGE_SANDBOX_CPUS='lots': not a number of cores"),
        ("SIMBRIDGE_SANDBOX_CPUS", "-1", r"not a number of cores >= 0"),
        ("SIMBRIDGE_SANDBOX_MEM_MB", "1.5G", r"SIMBRIDGE_SANDBOX_MEM_MB='1.5G': not a whole number of MB"),
    ],
)
def test_bad_limits_are_one_line(monkeypatch, env, value, match):
    monkeypatch.setenv(env, value)
    with pytest.raises(SimbridgeError, match=match):
        Limits.from_env()


def test_zero_turns_a_limit_off(monkeypatch):
    monkeypatch.setenv("SIMBRIDGE_SANDBOX_CPUS", "0")
    monkeypatch.setenv("SIMBRIDGE_SANDBOX_MEM_MB", "0")
    assert Limits.from_env() == Limits(cpus=None, mem_mb=None)


# --------------------------------------------------------------------------- the real kernel (root)

real = pytest.mark.skipif(
    os.geteuid() != 0 or detect() is None, reason="needs root and a cgroup hierarchy with cpu and memory"
)

BUSY = "import time\nt = time.monotonic()\nwhile time.monotonic() - t < 3.0:\n    pass\n"
HOG = "b = bytearray(400 * 2**20)\nfor i in range(0, len(b), 4096):\n    b[i] = 1\nprint('survived')\n"


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@real
@pytest.mark.root
@pytest.mark.slow
def test_a_busy_process_inside_gets_no_more_than_its_cpu_limit():
    from simbridge._isolation import NetnsSandbox, sandbox_python

    with NetnsSandbox(limits=Limits(cpus=0.25, mem_mb=512)) as sb:
        assert sb.cgroup is not None and sb.cgroup.dirs, sb.cgroup.why if sb.cgroup else None
        xvfb = next(p for name, p in sb.processes() if name == "Xvfb")
        assert xvfb.pid in sb.cgroup.pids()  # everything spawned inside is in the cgroup
        assert os.getpid() not in sb.cgroup.pids()  # the runner is not
        busy = sb.spawn([sandbox_python(), "-c", BUSY])
        t0 = time.monotonic()
        time.sleep(2.5)
        used = _cpu_s(busy.pid)
        wall = time.monotonic() - t0
        busy.wait(10)
        rep = sb.cgroup.report()
    # a quarter of a core over the wall time, with some slack for the interpreter's start
    assert used <= 0.25 * wall * 1.3 + 0.1, (used, wall)
    assert rep["applied"] and rep["cpus"] == 0.25 and rep["mem_mb"] == 512 and rep["cgroup"] in ("v1", "v2")


@real
@pytest.mark.root
@pytest.mark.slow
def test_a_process_past_the_memory_limit_is_killed_and_counted():
    from simbridge._isolation import NetnsSandbox, sandbox_python

    with NetnsSandbox(limits=Limits(cpus=None, mem_mb=150)) as sb:
        import subprocess

        hog = sb.spawn([sandbox_python(), "-c", HOG], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        out, _ = hog.communicate(timeout=60)
        rep = sb.cgroup.report() if sb.cgroup else {}
        path = Path(rep.get("path", "/nonexistent"))
    assert hog.returncode == -9 and b"survived" not in out, (hog.returncode, out)
    assert rep["oom_kills"] >= 1 and rep["mem_peak_mb"] <= 151, rep
    assert not path.exists()  # removed with the sandbox


def test_cleanup_removes_empty_cgroups_of_gone_sandboxes_only(tmp_path):
    root = _fake_v2(tmp_path / "cg")
    for name in ("sb-dead", "sb-live"):
        assert _KernelLike(name, Limits(), root=root).create()
    for f in (root / "simbridge").glob("sb-*/*"):  # a stand-in's files; the kernel's vanish with rmdir
        f.unlink()
    assert remove_stale(root, live={"sb-live"}) == [str(root / "simbridge" / "sb-dead")]
    assert (root / "simbridge" / "sb-live").is_dir()


def test_a_sandbox_has_room_for_its_simulator(monkeypatch):
    """The limits follow the simulator's declared cost (AdapterSpec.cost): FlightGear's ~1.5 GB
    and 1.5 cores get 3,000 MB and 2 cores (the 1 GB default killed fgfs in a netns episode);
    a light simulator keeps the defaults; the environment still decides when it says."""
    from simbridge._isolation._cgroup import DEFAULT_CPUS, DEFAULT_MEM_MB, limits_for

    monkeypatch.delenv("SIMBRIDGE_SANDBOX_CPUS", raising=False)
    monkeypatch.delenv("SIMBRIDGE_SANDBOX_MEM_MB", raising=False)
    fg = limits_for(1.5, 1500)
    assert (fg.cpus, fg.mem_mb) == (2.0, 3000)
    light = limits_for(0.33, 400)
    assert (light.cpus, light.mem_mb) == (DEFAULT_CPUS, DEFAULT_MEM_MB)
    monkeypatch.setenv("SIMBRIDGE_SANDBOX_MEM_MB", "512")
    monkeypatch.setenv("SIMBRIDGE_SANDBOX_CPUS", "0")
    set_ = limits_for(1.5, 1500)
    assert (set_.cpus, set_.mem_mb) == (None, 512)
