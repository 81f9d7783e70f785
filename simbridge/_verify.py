"""Verification of a recorded episode, the one rule every place that shows a score uses: the
bundle's integrity first (manifest.json: sha256 of every file, written last; a bundle whose files
no longer match it is refused, naming the file), then its score re-derived by the task's
verifier. `simbridge verify`, `metrics`, `compare`, `eval`, the report and the review app call
it; the CLI only prints what it returns.

The episode's own flags (e.g. `truncated_import`, `lenient_parse: 3 lines skipped`) are
carried into the score's flags so a reader of score.json sees them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from simbridge._bundle import (
    _file_sha256,
    bundle_entry_problems,
    check_bundle_entries,
    manifest_files,
    read_bundle,
    read_json_file,
    read_json_model,
)
from simbridge._errors import BundleError, SimbridgeError, TaskSpecError
from simbridge._status import HARNESS_FAULTS, RUNNING
from simbridge._score import Score
from simbridge._task import load_task, task_dirs, task_files

MANIFEST = "manifest.json"
#: files that may change after the manifest was written: the score is re-derived from the rest
_NOT_HASHED = frozenset({MANIFEST, "score.json"})
MANIFEST_IGNORED = "manifest_ignored"


def manifest_problems(path: Path) -> list[str]:
    """What does not match manifest.json, one line each naming the file ('' list: intact).

    Every file write_manifest hashes, subfolders (frames/, home/) included, by relative POSIX
    path; score.json is exempt (re-derived). A manifest without "version" predates nested
    hashing: files in subfolders it does not list are not reported as added. A missing manifest
    is one problem; a manifest that is not JSON of the expected shape is a BundleError."""
    man = path / MANIFEST
    entries = bundle_entry_problems(path)
    if not man.is_file() or man.is_symlink():
        return [*entries, f"{path}: no {MANIFEST} (the bundle was not finished, or was assembled by hand)"]
    try:
        data = read_json_file(man, "a manifest")
    except BundleError as exc:
        raise BundleError(f"not a readable manifest: {exc}") from None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict) or not all(isinstance(v, dict) for v in files.values()):
        raise BundleError(f'{man}: expected {{"files": {{NAME: {{"sha256": ...}}}}}}')
    problems = entries
    for name, entry in sorted(files.items()):
        if name in _NOT_HASHED:
            continue
        parts = PurePosixPath(name).parts
        if not parts or PurePosixPath(name).is_absolute() or ".." in parts or "\\" in name:
            problems.append(f"{man}: entry {name!r} is not a path inside the bundle")
            continue
        p = path / name
        if p.is_symlink() or not p.is_file():
            problems.append(f"{p}: listed in {MANIFEST} but missing")
        elif _file_sha256(p) != entry.get("sha256"):
            problems.append(f"{p}: sha256 does not match {MANIFEST}")
    top_level_only = data.get("version") is None
    for name, p in manifest_files(path):
        if top_level_only and "/" in name:
            continue
        if name not in files and name not in _NOT_HASHED:
            problems.append(f"{p}: not listed in {MANIFEST} (added after the bundle was finished)")
    return problems


def _merge_flags(*lists: list[str]) -> list[str]:
    out: list[str] = []
    for lst in lists:
        out += [f for f in lst if f not in out]
    return out


def verify_path(path: Path, task_id: str | None = None, *, ignore_manifest: bool = False):
    """Check the manifest, read the bundle and score it. Raises BundleError/TaskSpecError on bad
    input, including a bundle that does not match its manifest (unless `ignore_manifest`)."""
    from simbridge import score_bundle

    path = Path(path)
    if not path.is_dir():
        raise BundleError(f"{path}: not a bundle directory")
    # A symbolic link or special file anywhere in it: refused whatever the flags (its bytes are
    # not the bundle's; a link to another run's signals would be scored as this one).
    check_bundle_entries(path)
    # Files that were hashed and changed are refused before anything is parsed, so the error
    # names the tampering rather than whatever the damaged file fails to parse as.
    has_manifest = (path / MANIFEST).is_file()
    problems = manifest_problems(path) if has_manifest else []
    if problems and not ignore_manifest:
        raise BundleError(problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
    known = [p.stem for d in task_dirs().values() for p in task_files(d)]  # every registered folder's
    bundle = read_bundle(path, known_task_ids=None if task_id else known)
    ep = bundle.episode
    if not has_manifest:
        # running: the runner writes the manifest at finish; a harness fault is unscored anyway
        unfinished = ep.status == RUNNING or ep.status in HARNESS_FAULTS
        problems = [] if unfinished else manifest_problems(path)
        if problems and not ignore_manifest:
            raise BundleError(f"{problems[0]}; refusing to score it (--ignore-manifest scores it anyway, flagged)")
    tid = task_id or ep.task_id
    try:
        task = load_task(tid)
    except TaskSpecError as exc:
        raise BundleError(f"{path / 'episode.json'}: {exc}") from None
    if task_id:
        ep.task_id = task_id
    score = score_bundle(bundle, task)
    flags = list(ep.flags)
    if problems:  # only left when ignore_manifest
        flags.append(MANIFEST_IGNORED)
        why = f"manifest ignored: {problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
        score.explanation = "; ".join(x for x in (why, score.explanation) if x)
    stored = _stored_score_disagreement(path, score)
    if stored:
        flags.append(SCORE_JSON_DISAGREES)
        score.explanation = "; ".join(x for x in (stored, score.explanation) if x)
    score.flags = _merge_flags(flags, score.flags)
    return score


#: flag of a score whose bundle's score.json says something else (edited, stale or forged):
#: the re-derived score is the one shown, the stored one is named in the explanation
SCORE_JSON_DISAGREES = "score_json_disagrees"


def _stored_score_disagreement(path: Path, fresh: Score) -> str:
    """'' when the bundle has no score.json or its score.json agrees with `fresh` (status,
    success, score within 1e-6, task id); else one line saying what score.json claims."""
    f = path / "score.json"
    if not f.exists() and not f.is_symlink():
        return ""
    try:
        stored = read_json_model(f, Score, "a score file", kind="a score")
    except SimbridgeError as exc:
        return f"score.json ignored (not a score: {str(exc)[:120]})"
    same = (
        stored.status == fresh.status
        and stored.success == fresh.success
        and stored.task_id == fresh.task_id
        and (fresh.status != "scored" or abs((stored.score or 0.0) - (fresh.score or 0.0)) <= 1e-6)
    )
    if same:
        return ""
    claim = f"{stored.score:.3f}" if stored.status == "scored" and stored.score is not None else stored.status
    return (
        f"score.json disagrees with the bundle (it claims {claim}, success {stored.success}, task "
        f"{stored.task_id!r}): the score is re-derived from the verified bundle"
    )


@dataclass
class Checked:
    """A bundle's score under the one integrity rule (see `checked_score`)."""

    score: Score
    #: True: the manifest verifies and the score was re-derived from the bundle now
    verified: bool
    #: why the score is not verified (manifest missing or broken), '' when verified
    why_unverified: str = ""
    #: no manifest because the episode did not finish (running, harness fault): unscored anyway
    unfinished: bool = False


def checked_score(path: Path) -> Checked:
    """The score to show for the bundle at `path`, everywhere one is shown (report pages, eval
    tables): re-derived by the verifier from a bundle whose manifest verifies (every file listed
    and hashed, episode.json and so the task id included); score.json is never trusted (a
    disagreeing one is flagged `score_json_disagrees`). A bundle that fails its manifest (or has
    none and is not running/a harness fault) gets an *unscored* score whose reason starts with
    'unverified:', never the number in score.json. A symbolic link or special file in the
    bundle, an unreadable bundle or unknown task: BundleError (refused)."""
    path = Path(path)
    try:
        score = verify_path(path)
    except BundleError as exc:
        check_bundle_entries(path)  # refused outright: re-raises for a link or special file
        problems = manifest_problems(path)
        if not problems:
            raise  # not a manifest matter: an unreadable bundle
        bundle = read_bundle(path)
        why = problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
        del exc
        return Checked(Score.unscored(bundle.episode.task_id, "", f"unverified: {why}"), False, why)
    if (path / MANIFEST).is_file():
        return Checked(score, True)
    # no manifest, still running or a harness fault: verify_path's own unscored result
    return Checked(score, False, "", unfinished=True)


def version_line(path: Path) -> str:
    """Who wrote the bundle and in which format, beside who scored it now: 'written by
    simbridge 0.3.0 (bundle format 1); scored by simbridge 0.3.0 (reads formats up to 1)'."""
    from simbridge._bundle import BUNDLE_FORMAT
    from simbridge._version import installed_version

    try:
        ep = read_json_file(path / "episode.json", "an episode file")
    except SimbridgeError:
        ep = {}
    ep = ep if isinstance(ep, dict) else {}
    wrote = ep.get("simbridge_version") or "(not recorded: written before versions were)"
    fmt = ep.get("bundle_format")
    line = (
        f"written by simbridge {wrote} (bundle format {fmt if fmt is not None else '1, implied'}); "
        f"scored by simbridge {installed_version()} (reads formats up to {BUNDLE_FORMAT})"
    )
    if isinstance(fmt, int) and fmt > BUNDLE_FORMAT:
        line += f"; note: format {fmt} is newer than this simbridge knows: upgrade to read all of it"
    return line
