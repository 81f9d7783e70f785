"""`simbridge verify BUNDLE_DIR [--json]`: score a recorded episode, offline."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from simbridge._bundle import read_bundle
from simbridge._errors import BundleError, TaskSpecError
from simbridge._task import load_task, task_files


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="score an episode bundle with its task's verifier")
    p.add_argument("bundle", type=Path, help="bundle directory (episode.json + signals.csv/parquet)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--task", help="score as this task instead of episode.json's task_id")
    p.add_argument("--write", action="store_true", help="also write score.json into the bundle")
    p.set_defaults(func=_verify)


def verify_path(path: Path, task_id: str | None = None):
    """Read the bundle and score it. Raises BundleError/TaskSpecError on bad input."""
    from simbridge.verifiers import score_bundle

    known = [p.stem for p in task_files()]
    bundle = read_bundle(path, known_task_ids=None if task_id else known)
    tid = task_id or bundle.episode.task_id
    try:
        task = load_task(tid)
    except TaskSpecError as exc:
        raise BundleError(f"{path / 'episode.json'}: {exc}") from None
    if task_id:
        bundle.episode.task_id = task_id
    return score_bundle(bundle, task)


def _verify(args: argparse.Namespace) -> int:
    score = verify_path(args.bundle, args.task)
    if args.write:
        (args.bundle / "score.json").write_text(score.model_dump_json(indent=2))
    if args.json:
        print(json.dumps(score.model_dump(mode="json")))
    else:
        print(score.table())
    return 0
