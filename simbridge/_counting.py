"""What counts as a trial: the one rule `simbridge metrics`, `compare`, `eval`'s closing table
and `report`'s suite page share (all of them read trials through `_metrics.load_trials`, which
finds them here).

- An episode is a bundle directory with a regular `episode.json`. It is counted once, by its
  identity: the `episode_id` episode.json gives, else the sha256 of its sealed `manifest.json`
  (copies of one imported or library-written bundle are one episode), and the same real path
  is never read twice.
- A directory that holds a bundle's files (manifest.json or score.json) but whose episode.json
  is missing or is not a regular file (a directory, a FIFO, a link) cannot be verified: it is
  not counted, and its score.json is never used "as stored"; a note says so.
- A lone score.json with no bundle around it is used as stored only under --trust-scores (it
  cannot be re-derived); otherwise it is not counted, with a note.
- In an eval layout (`.../attempt-N/` bundles): only the last attempt directory of an episode
  counts; an earlier attempt is superseded as soon as a retry's directory exists, whatever is
  in it. Under a directory holding `plan.json` (an eval's output), a bundle whose trial is not
  in the plan is not counted, nor one whose episode.json names another task or trial than the
  plan gives for it (a bundle relabelled and resealed).
- A bundle inside another bundle (an agent's folder holding a bundle-shaped tree) is part of
  that bundle, never a trial of its own.

Every exclusion is a note the commands print; nothing is silently dropped or added.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simbridge._bundle import MAX_TREE_DEPTH, EpisodeInfo, _file_kind, read_bounded, read_json_file
from simbridge._errors import BundleError

PLAN_FILE = "plan.json"
#: how many parent folders up a plan.json is looked for when a subfolder of an eval is given
_PLAN_LOOKUP = 6
#: a directory with any of these is a bundle (or what is left of one); the walk stops there
_BUNDLE_MARKS = ("episode.json", "manifest.json", "score.json")


def attempt_no(d: Path) -> int | None:
    """N of an eval attempt directory `attempt-N`, else None."""
    name = d.name
    return int(name[8:]) if name.startswith("attempt-") and name[8:].isdigit() and name[8:].isascii() else None


def last_attempt(trial_dir: Path) -> int:
    """The highest N of the `attempt-N` directories in `trial_dir` (0 when none)."""
    best = 0
    try:
        with os.scandir(trial_dir) as it:
            for e in it:
                n = attempt_no(Path(e.name))
                if n is not None and e.is_dir(follow_symlinks=False):
                    best = max(best, n)
    except OSError:
        pass
    return best


def plan_mismatch(ep: EpisodeInfo, spec: dict[str, Any]) -> str | None:
    """Why a bundle's episode.json is not the planned episode `spec` (plan.json's entry), or None."""
    if ep.task_id != spec.get("task_id"):
        return f"episode.json names task {ep.task_id!r}, plan.json plans {spec.get('task_id')!r} there"
    if ep.trial is not None and spec.get("trial") is not None and ep.trial != spec.get("trial"):
        return f"episode.json names trial {ep.trial}, plan.json plans trial {spec.get('trial')} there"
    sim = spec.get("sim")
    if ep.sim and isinstance(sim, str) and ":" not in sim and ep.sim != sim:  # module:Class sims name themselves
        return f"episode.json names simulator {ep.sim!r}, plan.json plans {sim!r} there"
    return None


def identity_keys(d: Path, ep: EpisodeInfo) -> list[tuple[Any, ...]]:
    """What makes two copies of an episode the same episode: its episode_id, else its sealed
    manifest's hash (episode.json and the signals are in it; an unsealed bundle: the same hash
    over its files); also the runner's own fields (task, sim, agent, trial, start time) when it
    recorded a start time."""
    keys: list[tuple[Any, ...]] = []
    if ep.episode_id is not None and str(ep.episode_id):
        keys.append(("id", str(ep.episode_id)))
    else:
        try:
            raw = read_bounded(d / "manifest.json", "manifest.json", 64 << 20)
        except BundleError:
            raw = None
        if raw is not None:
            keys.append(("sealed", hashlib.sha256(raw).hexdigest()))
        elif (content := _content_hash(d)) is not None:
            keys.append(("content", content))  # an unsealed bundle: its files' bytes
    if ep.wall_start is not None:
        keys.append((ep.task_id, ep.sim, ep.agent, ep.trial, ep.wall_start))
    return keys


#: an unsealed bundle larger than this is not hashed for its identity (its path still counts once)
_MAX_CONTENT_HASH_BYTES = 256 << 20


def _content_hash(d: Path) -> str | None:
    """sha256 over an unsealed bundle's files (names and bytes, score.json left out: it is
    derived), as its manifest would be; None when it is too big or cannot be read."""
    from simbridge._bundle import _file_sha256, manifest_files

    try:
        files = [(rel, p) for rel, p in manifest_files(d) if rel != "score.json"]
        if sum(p.stat().st_size for _rel, p in files) > _MAX_CONTENT_HASH_BYTES:
            return None
        h = hashlib.sha256()
        for rel, p in files:
            h.update(f"{rel}\0{_file_sha256(p)}\n".encode())
        return h.hexdigest()
    except (OSError, BundleError):
        return None


@dataclass
class Found:
    """What a walk of one path found."""

    #: bundle directories with a regular episode.json, in order
    episodes: list[Path] = field(default_factory=list)
    #: lone score.json files (no bundle around them)
    bare: list[Path] = field(default_factory=list)
    #: not counted, and why (one line each)
    notes: list[str] = field(default_factory=list)
    #: an episode directory under an eval's plan -> its plan.json entry
    planned: dict[Path, dict[str, Any]] = field(default_factory=dict)


def _plan_ids(plan: Path) -> dict[str, dict[str, Any]] | None:
    """plan.json's episodes by id; None for a plan.json that is not an eval's (no 'episodes')."""
    data = read_json_file(plan, "an eval plan")
    if not isinstance(data, dict) or "episodes" not in data:
        return None
    eps = data.get("episodes")
    if not isinstance(eps, list) or not all(isinstance(e, dict) and isinstance(e.get("episode_id"), str) for e in eps):
        raise BundleError(f"{plan}: not an eval plan (no list of episodes with an 'episode_id')")
    return {e["episode_id"]: e for e in eps}


def _plan_above(root: Path) -> Path | None:
    for parent in list(root.absolute().parents)[:_PLAN_LOOKUP]:
        try:
            if stat.S_ISREG(os.stat(parent / PLAN_FILE).st_mode):
                return parent
        except OSError:
            continue
    return None


def find(root: Path) -> Found:
    """Bundles and lone score files under `root` (a bundle, a run or eval directory, or a
    score.json), with every directory that is not counted named in `notes`. The walk follows
    no symbolic link, does not recurse (a tree deeper than MAX_TREE_DEPTH is one BundleError)
    and does not look inside a bundle."""
    found = Found()
    root = Path(root)
    if root.name == "score.json" or (root.exists() and not root.is_dir()):
        parent = root.parent
        if (parent / "episode.json").is_file():
            root = parent
        elif (parent / "episode.json").exists() or (parent / "manifest.json").exists():
            _refuse(found, parent)
            return found
        else:
            found.bare.append(root)
            return found
    plans: dict[Path, dict[str, dict[str, Any]]] = {}
    above = _plan_above(root)
    if above is not None and (ids := _plan_ids(above / PLAN_FILE)) is not None:
        plans[above] = ids
    else:
        above = None
    level: list[tuple[Path, Path | None]] = [(root, above)]  # (directory, eval root above it)
    depth = 0
    while level:
        depth += 1
        nxt: list[tuple[Path, Path | None]] = []
        for d, eval_root in level:
            try:
                with os.scandir(d) as it:
                    entries = {e.name: e for e in it}
            except NotADirectoryError:
                continue
            except OSError as exc:
                raise BundleError(f"{d}: cannot list the folder: {exc.strerror or exc}") from None
            if PLAN_FILE in entries and not any(m in entries for m in _BUNDLE_MARKS):
                try:
                    is_plan = entries[PLAN_FILE].is_file(follow_symlinks=False)
                except OSError:
                    is_plan = False
                if is_plan and (ids := _plan_ids(d / PLAN_FILE)) is not None:
                    plans[d] = ids
                    eval_root = d
            if any(m in entries for m in _BUNDLE_MARKS):
                _classify(found, d, entries, eval_root, plans)
                continue  # a bundle's own folders are the bundle's, never trials
            for name in sorted(entries):
                e = entries[name]
                try:
                    if e.is_dir(follow_symlinks=False):
                        if depth >= MAX_TREE_DEPTH:
                            raise BundleError(
                                f"{e.path}: nested more than {MAX_TREE_DEPTH} folders below {root}; refused"
                            )
                        nxt.append((Path(e.path), eval_root))
                except OSError:
                    continue
        level = nxt
    return found


def _refuse(found: Found, d: Path, why: str | None = None) -> None:
    if why is None:
        ep = d / "episode.json"
        try:
            mode = os.lstat(ep).st_mode
            why = f"its episode.json is {_file_kind(mode)}"
        except OSError:
            why = "it has no episode.json"
    found.notes.append(f"not counted: {d}: {why}, so the bundle cannot be verified (its score.json is not used)")


def _classify(
    found: Found,
    d: Path,
    entries: dict[str, os.DirEntry[str]],
    eval_root: Path | None,
    plans: dict[Path, dict[str, dict[str, Any]]],
) -> None:
    ep = entries.get("episode.json")
    try:
        ep_regular = ep is not None and ep.is_file(follow_symlinks=False)
    except OSError:
        ep_regular = False
    if not ep_regular:
        if ep is not None or "manifest.json" in entries or eval_root is not None:
            _refuse(found, d)
        else:
            found.bare.append(d / "score.json")
        return
    n = attempt_no(d)
    if n is not None:
        last = last_attempt(d.parent)
        if n < last:
            found.notes.append(f"not counted: {d}: superseded by attempt-{last} of the same episode")
            return
    if eval_root is not None:
        rel = os.path.relpath(d.parent if n is not None else d, eval_root)
        spec = plans[eval_root].get(Path(rel).as_posix())
        if spec is None:
            found.notes.append(f"not counted: {d}: not an episode of {eval_root / PLAN_FILE}")
            return
        found.planned[d] = spec
    found.episodes.append(d)
