"""`simbridge verify BUNDLE_DIR [--json] [--write] [--ignore-manifest]`: score a recorded episode, offline.

Integrity first: a finished bundle carries manifest.json (sha256 of every file, written last),
and a bundle whose files no longer match it is refused, naming the file: a bit-flipped
signals.parquet must not be scored as if it were the recording. `--ignore-manifest` scores it
anyway and the score says so (flag `manifest_ignored`). A bundle still `running` has no
manifest yet (the runner writes it at finish); it gets the usual unscored result.

The episode's own flags (e.g. `truncated_import`, `lenient_parse: 3 lines skipped`) are
carried into the score's flags so a reader of score.json sees them.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from simbridge._errors import BundleError
from simbridge._exit import Exit
from simbridge._verify import version_line, verify_path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="score an episode bundle with its task's verifier")
    p.add_argument("bundle", type=Path, help="bundle directory (episode.json + signals.csv/parquet)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--task", help="score as this task instead of episode.json's task_id")
    p.add_argument("--write", action="store_true", help="also write score.json into the bundle")
    p.add_argument(
        "--ignore-manifest",
        action="store_true",
        help="score a bundle whose files do not match manifest.json (or that has none); "
        "the score is flagged 'manifest_ignored'",
    )
    p.set_defaults(func=_verify)


def _verify(args: argparse.Namespace) -> int:
    out = args.bundle / "score.json"
    if args.write and out.exists() and not out.is_file():
        raise BundleError(f"{out}: is a directory (or not a regular file); cannot write the score there")
    score = verify_path(args.bundle, args.task, ignore_manifest=args.ignore_manifest)
    if args.write:
        # written beside and renamed over: a full disk leaves the old score.json (or none), never half a file
        tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(score.model_dump_json(indent=2))
            os.replace(tmp, out)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise BundleError(f"{out}: cannot write the score: {exc.strerror or exc}") from None
    if args.json:
        print(json.dumps(score.model_dump(mode="json")))
    else:
        print(score.table())
        if score.flags:
            print("FLAGS: " + "; ".join(score.flags))
        print(version_line(args.bundle))
    return Exit.OK
