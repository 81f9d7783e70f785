"""An episode in the VM guest (provider `vm`), as the VM tests run it: the runner's public entry
point, the embedded JSBSim cockpit in the guest, lockstep (a software-emulated guest runs the
cockpit below real time), no screen frames."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any


def run_in_vm(task: str, agent: str, out: Path, **config: Any) -> tuple[Any, float]:
    """Run one trial of `task` with `agent` in the VM guest, bundles under `out`; `config` adds
    to or overrides the RunConfig fields. Returns the trial's result and the wall seconds it took."""
    from simbridge.episode import RunConfig, run

    fields: dict[str, Any] = dict(
        task=task, sim="jsbsim", agent=agent, provider="vm", lockstep=True, out=out, frame_hz=0, say=lambda s: None
    )
    w0 = time.monotonic()
    (res,) = run(RunConfig(**{**fields, **config}))
    return res, time.monotonic() - w0


def guest_audit(ep: Any) -> dict[str, Any]:
    """The episode ran in the guest, isolated, and the isolation audit inside passed: its report."""
    iso = ep.isolation
    assert ep.provider == "vm" and iso["provider"] == "vm" and ep.unisolated is False
    audit = iso["audit"]
    assert audit["ok"], audit["problems"]
    return dict(audit)
