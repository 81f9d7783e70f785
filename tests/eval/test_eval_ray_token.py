"""Ray's token authentication, as docs/eval.md tells an operator to run it: a local cluster
started with RAY_AUTH_MODE=token accepts an eval driver that holds the token and refuses one
without it or with a wrong one (eval's one-line `cannot connect`). Each side is its own process:
Ray keeps its authentication mode per process."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import textwrap

import pytest

pytestmark = [pytest.mark.slow]

CLUSTER = textwrap.dedent(
    """
    import os, subprocess, sys
    from ray.cluster_utils import Cluster
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "resources": {"sim:toy": 1}})
    try:
        driver = sys.argv[1]
        token = os.environ["RAY_AUTH_TOKEN"]
        base = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
        for label, env in (
            ("with", {**base, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token}),
            ("without", base),
            ("wrong", {**base, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 64}),
        ):
            r = subprocess.run([sys.executable, "-c", driver, c.address], env=env, capture_output=True, text=True,
                               timeout=120)
            print(label, r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "(nothing)", flush=True)
    finally:
        c.shutdown()
    """
)

DRIVER = textwrap.dedent(
    """
    import sys
    from simbridge._errors import SimbridgeError
    from simbridge._eval._executors import RayExecutor
    try:
        ex = RayExecutor(sys.argv[1])
        ex.check_versions()
        print("connected", sorted(r for n in ex.nodes() for r in n["Resources"] if r.startswith("sim:")))
        ex.stop()
    except SimbridgeError as exc:
        print("refused", str(exc).replace(chr(10), " "))
    """
)


def test_a_token_cluster_takes_only_drivers_with_its_token(tmp_path):
    env = {
        **os.environ,
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(32),
        "HOME": str(tmp_path),  # no ~/.ray/auth_token of the machine's
    }
    r = subprocess.run(
        [sys.executable, "-c", CLUSTER, DRIVER], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines() if " " in line)
    assert lines.get("with") == "connected ['sim:toy']", (r.stdout, r.stderr[-2000:])
    for label in ("without", "wrong"):
        said = lines.get(label, "")
        assert said.startswith("refused --ray ") and "cannot connect to the Ray cluster" in said, (label, r.stdout)
