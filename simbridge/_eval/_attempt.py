"""One attempt of one episode, run in this process (a local child process or a Ray worker):
`run_trial` into a bundle directory, and what the driver needs to know about it.

    python -m simbridge._eval._attempt SPEC.json BUNDLE_DIR   # the local executor's child

The child prints its outcome as one JSON line on stdout (the last line) and its progress lines
on stderr. SIGTERM closes the bundle as `harness_error` (interrupted), like Ctrl-C.
"""

from __future__ import annotations

import io
import json
import signal
import socket
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from simbridge._eval._plan import EpisodeSpec

#: the last stdout line of the child starts with this
OUTCOME_PREFIX = "simbridge-eval-outcome "


def run_attempt(spec: EpisodeSpec, bundle: Path, *, say: Any = None) -> dict[str, Any]:
    """Run the episode into `bundle` (which must not hold a bundle yet). Never raises for a
    failure of the episode: a failure before the bundle exists is a harness fault outcome."""
    from simbridge._errors import SimbridgeError
    from simbridge.episode import RunConfig, run_trial
    from simbridge._task import load_task

    t0_wall, t0 = time.time(), time.monotonic()
    out: dict[str, Any] = {"host": socket.gethostname(), "start_wall": round(t0_wall, 3)}
    tmp = None
    try:
        agent = spec.agent
        if spec.script_text is not None:
            tmp = tempfile.TemporaryDirectory(prefix="simbridge-script-")
            f = Path(tmp.name) / (spec.script_name or "script.yaml")
            f.write_text(spec.script_text, encoding="utf-8")
            agent = f"scripted:{f}"
        task = load_task(spec.task_id)
        # the spec's run settings (sim, provider, lockstep, seed, ...) are RunConfig's own fields
        cfg = RunConfig.of(
            spec, task=spec.task_id, agent=agent, say=say or (lambda s: print(s, file=sys.stderr, flush=True))
        )
        r = run_trial(cfg, task, spec.trial, bundle)
        out.update(
            status=r.status,
            detail=r.detail,
            sim_s=round(r.sim_s, 3),
            score=r.score.model_dump(mode="json") if r.score is not None else None,
        )
        finish_attempt_outputs(r.path, r.status, cfg.say)
    except SimbridgeError as exc:  # a launch failure before or while opening the bundle
        out.update(status="harness_error", detail=str(exc), sim_s=0.0, score=None)
    finally:
        if tmp is not None:
            tmp.cleanup()
        out["wall_s"] = round(time.monotonic() - t0, 3)
    return out


def finish_attempt_outputs(bundle: Path, status: str, say: Any) -> Path | None:
    """screen.mp4 for an attempt that ended in an agent outcome, as `simbridge run` leaves it
    (the episode page is written later by `simbridge report DIR`). A harness fault's bundle is
    retried or discarded, so it is not encoded. Not part of the score: any problem is one line
    through `say` and the attempt's outcome stands."""
    from simbridge._status import AGENT_OUTCOMES

    if status not in AGENT_OUTCOMES:
        return None
    try:
        from simbridge._report import finish_episode_outputs

        outputs = finish_episode_outputs(bundle, report=False)
    except Exception as exc:  # noqa: BLE001 - the video must never fail an episode
        say(f"{bundle.name}: no screen.mp4: {type(exc).__name__}: {exc}".splitlines()[0])
        return None
    for problem in outputs.problems:
        say(f"{bundle.name}: {problem}".splitlines()[0])
    return outputs.screen_mp4


def tar_bytes(bundle: Path) -> bytes:
    """The bundle directory as an uncompressed tar (frames are JPEG, signals Parquet: already compact)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        tf.add(bundle, arcname=".")
    return buf.getvalue()


def untar_into(data: bytes, dest: Path) -> None:
    """Unpack a bundle sent by a node into `dest`; refuses links and paths leaving `dest`."""
    from simbridge._errors import HarnessError

    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r") as tf:
        members = tf.getmembers()
        for m in members:  # what tarfile's "data" filter refuses (not in every 3.11)
            parts = Path(m.name).parts
            if not (m.isfile() or m.isdir()) or Path(m.name).is_absolute() or ".." in parts:
                raise HarnessError(f"bundle from the node holds {m.name!r}: not a plain file inside the bundle")
        tf.extractall(dest, members=members)


def _sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str]) -> int:
    spec = EpisodeSpec.from_json(json.loads(Path(argv[0]).read_text(encoding="utf-8")))
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _sigterm)
    try:
        outcome = run_attempt(spec, Path(argv[1]))
    except KeyboardInterrupt:
        return 130
    print(OUTCOME_PREFIX + json.dumps(outcome), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
