"""simbridge tasks as Gymnasium environments: `gymnasium.make("simbridge/T09-jsbsim-v0")`.

Gymnasium 1.x has no plugin entry points (the `gymnasium.envs` group of gym 0.2x is gone), so
importing this module registers one id per (task, simulator) that can run here, from the
registry's task folders and simulators (an installed plug-in's included, docs/plugins.md):
`simbridge/TASK-SIM-v0` (a variant `T01@PHJR` is `T01.PHJR`, ids allow no `@`). Without an
import, Gymnasium's module prefix does it: `gymnasium.make("simbridge.integrations.gymnasium:simbridge/T09-jsbsim-v0")`.
"""

from __future__ import annotations

import gymnasium as gym

from simbridge.integrations.gymnasium._env import KEYS, KINDS, SimbridgeEnv

__all__ = ["KEYS", "KINDS", "SimbridgeEnv", "env_id", "register_all"]

ENTRY_POINT = "simbridge.integrations.gymnasium._env:SimbridgeEnv"


def env_id(task: str, sim: str) -> str:
    """The Gymnasium id of (task, sim), e.g. simbridge/T09-jsbsim-v0."""
    return f"simbridge/{task.replace('@', '.')}-{sim}-v0"


def register_all() -> list[str]:
    """Register every runnable (task, sim); returns the ids. Screen rendering is not bit-exact
    between runs, hence `nondeterministic=True`."""
    from simbridge.integrations._framework import runnable_pairs

    ids = []
    for task, sim in runnable_pairs():
        eid = env_id(task, sim)
        if eid not in gym.registry:
            gym.register(
                id=eid,
                entry_point=ENTRY_POINT,
                kwargs={"task": task, "sim": sim},
                nondeterministic=True,
                disable_env_checker=False,
            )
        ids.append(eid)
    return ids


IDS = register_all()
