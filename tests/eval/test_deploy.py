"""The deployment files an operator starts from are sane as far as this machine can tell: the
KubeRay manifest parses as a RayCluster with the fields KubeRay requires, its workers are
privileged and advertise what a sandboxed suite asks for, token authentication is on in every
pod, and the image tag is this simbridge's version; the Slurm script passes `bash -n` and
starts Ray with the resources and token mode the docs describe."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

from simbridge._eval._plan import resources_for

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "deploy" / "kuberay" / "raycluster-netns.yaml"
SBATCH = ROOT / "deploy" / "slurm" / "simbridge-ray.sbatch"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def _containers(template: dict) -> list[dict]:
    spec = template["spec"]
    assert isinstance(spec["containers"], list) and spec["containers"]
    return spec["containers"]


def test_the_kuberay_manifest_is_a_raycluster_for_sandboxed_episodes():
    doc = yaml.safe_load(MANIFEST.read_text())
    assert doc["apiVersion"] == "ray.io/v1" and doc["kind"] == "RayCluster" and doc["metadata"]["name"]
    spec = doc["spec"]
    head, workers = spec["headGroupSpec"], spec["workerGroupSpecs"]
    import ray

    assert spec["rayVersion"] == ray.__version__  # the Ray the image carries is the one tested here
    # KubeRay takes rayStartParams as strings only
    for params in [head["rayStartParams"], *(w["rayStartParams"] for w in workers)]:
        assert all(isinstance(v, str) for v in params.values()), params
    assert head["rayStartParams"]["num-cpus"] == "0" and head["rayStartParams"]["dashboard-host"] == "127.0.0.1"
    wanted = resources_for("jsbsim", "netns")  # what a sandboxed jsbsim episode asks Ray for
    for w in workers:
        assert w["groupName"] and w["minReplicas"] <= w["replicas"] <= w["maxReplicas"]
        advertised = json.loads(json.loads(w["rayStartParams"]["resources"]))  # KubeRay's quoted JSON
        assert all(advertised.get(r, 0) >= q for r, q in wanted.items()), advertised
        for c in _containers(w["template"]):
            sc = c["securityContext"]
            assert sc["privileged"] is True and {"NET_ADMIN", "SYS_ADMIN"} <= set(sc["capabilities"]["add"])
            cpus = float(c["resources"]["limits"]["cpu"])
            assert cpus == float(w["rayStartParams"]["num-cpus"])
            assert advertised["provider:netns"] * 0.33 <= cpus  # the episodes' measured CPU fits the pod
            mounts = {m["mountPath"] for m in c["volumeMounts"]}
            assert {"/run/simbridge", "/tmp"} <= mounts  # leases, namespace records, X files: per pod
    for c in _containers(head["template"]) + [c for w in workers for c in _containers(w["template"])]:
        assert c["image"].rsplit(":", 1)[1] == VERSION  # every pod runs this version (eval refuses others)
        env = {e["name"]: e for e in c["env"]}
        assert env["RAY_AUTH_MODE"]["value"] == "token"
        assert env["RAY_AUTH_TOKEN"]["valueFrom"]["secretKeyRef"]["key"] == "token"


def test_the_dockerfile_installs_what_the_netns_provider_runs():
    text = (ROOT / "deploy" / "kuberay" / "Dockerfile").read_text()
    for tool in ("xvfb", "nftables", "iproute2", "util-linux"):
        assert tool in text
    assert "[sim,eval]" in text and "python3 -m venv" in text


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash")
def test_the_slurm_script_parses_and_starts_ray_as_the_docs_say():
    subprocess.run(["bash", "-n", str(SBATCH)], check=True)
    text = SBATCH.read_text()
    assert re.search(r"^#SBATCH --nodes=\d+", text, re.M) and "set -euo pipefail" in text
    assert "export RAY_AUTH_MODE=token" in text and "RAY_AUTH_TOKEN_PATH" in text
    [line] = [ln for ln in text.splitlines() if ln.startswith("RESOURCES=")]
    shown = subprocess.run(  # the JSON Ray is given, as bash expands it
        ["bash", "-c", f'SLOTS=24; {line}; printf %s "$RESOURCES"'], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(shown) == {r: 24 for r in resources_for("jsbsim", "netns")}
    assert 'ray" start --head' in text and 'ray" start --address' in text
    assert 'simbridge" eval "$SUITE" --out "$OUT" --ray' in text
    assert "trap cleanup EXIT" in text and 'ray" stop' in text
