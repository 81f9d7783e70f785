"""What an eval admits at once: a VM episode is costed from the VM's configuration (its vCPUs and
guest memory, as QEMU is given them), not like a plain episode of its simulator, so the local
executor never packs VM episodes beyond the cores; plain episodes keep their measured cost."""

from __future__ import annotations

import pytest

from simbridge._eval._cost import Budget, cost_for, cost_of
from simbridge._eval._executors import spec_cost
from simbridge._eval._plan import EpisodeSpec, resources_for
from simbridge._vm._qemu import VM_CPUS, VM_MEM_MB, VmInstance


def _spec(provider: str, sim: str = "jsbsim") -> EpisodeSpec:
    return EpisodeSpec(
        episode_id=f"T09/{sim}/noop/trial-1",
        task_id="T09",
        sim=sim,
        agent="noop",
        agent_slug="noop",
        trial=1,
        provider=provider,
        resources=resources_for(sim, provider),
    )


def test_a_vm_episode_costs_the_vms_size(tmp_path):
    vm = VmInstance(tmp_path, tmp_path / "w", accel="tcg")  # what QEMU would be given
    c = spec_cost(_spec("vm"))
    assert c.cpu_cores == vm.cpus == VM_CPUS and c.mem_mb >= vm.mem_mb == VM_MEM_MB and c.displays == 0
    assert spec_cost(_spec("local")) == cost_of("jsbsim")


def test_a_sandboxed_episode_is_admitted_by_its_memory_limit(monkeypatch):
    netns = spec_cost(_spec("netns"))
    assert netns.cpu_cores == cost_of("jsbsim").cpu_cores and netns.mem_mb == 200 + 1024  # the default limit
    monkeypatch.setenv("SIMBRIDGE_SANDBOX_MEM_MB", "3000")
    b = Budget(cpu_cores=16, displays=16, mem_mb=16_000)
    assert b.capacity(spec_cost(_spec("netns"))) == 5  # 16 GB / 3.2 GB: memory decides, not CPU
    monkeypatch.setenv("SIMBRIDGE_SANDBOX_MEM_MB", "0")  # no limit: the measured cost
    assert spec_cost(_spec("netns")) == cost_of("jsbsim")


@pytest.mark.parametrize(
    "cores,mem_gb,kind,fit",
    [
        (2, 19.2, "vm", 1),  # the 2-core development machine (24 GB, 80 % for episodes)
        (2, 19.2, "jsbsim", 6),  # sandboxed: 0.33 core and 1.2 GB (its limit) each
        (16, 51.2, "vm", 8),  # a 16-core, 64 GB node
        (16, 51.2, "jsbsim", 16),  # 48 by CPU, 42 by memory, 16 by displays (MAX_DISPLAYS)
    ],
)
def test_how_many_fit_at_once(cores, mem_gb, kind, fit):
    b = Budget(cpu_cores=cores, displays=16, mem_mb=mem_gb * 1024)
    cost = cost_for("jsbsim", "vm" if kind == "vm" else "netns")
    assert b.capacity(cost) == fit
    n = 0
    while b.fits(cost) and n < 100:  # admission, one episode after another
        b.take(cost)
        n += 1
    assert n == fit


def test_a_running_vm_keeps_plain_episodes_out_of_its_cores():
    b = Budget(cpu_cores=2, displays=16, mem_mb=19_000)
    b.take(cost_for("jsbsim", "vm"))
    assert not b.fits(cost_for("jsbsim", "vm")) and not b.fits(cost_for("jsbsim", "netns"))


def test_a_simulators_cost_is_what_its_adapter_declares():
    """The core names no simulator: jsbsim's measured cost comes from its AdapterSpec, a
    `module:Class` double declares its own, anything else gets the default estimate."""
    from simbridge._adapters_registry import DEFAULT_EPISODE_COST, adapter

    assert cost_of("jsbsim") == adapter("jsbsim").cost and cost_of("jsbsim").measured
    assert cost_of("sim:jsbsim") == cost_of("jsbsim")
    assert cost_of("doubles.toy_sim:ToySimSession").cpu_cores == 0.25
    assert cost_of("drive") == DEFAULT_EPISODE_COST  # declares none
    assert cost_of("nosuch") == DEFAULT_EPISODE_COST
