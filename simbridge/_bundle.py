"""The episode bundle: the directory contract between adapters (which write it) and verifiers.

Layout: episode.json, signals.parquet (or signals.csv), events.jsonl,
snapshots.json, actions.jsonl, screen frames, score.json, manifest.json (written last).

Writing is append-only and crash-safe: while an episode runs, signals go to `signals.csv` and
events/actions to JSON lines, flushed at least every second, so a `kill -9` of the runner
leaves a bundle readable up to the last flush. `finish()` converts the CSV to Parquet, records
the final status and writes the manifest.
"""

from __future__ import annotations

import csv
import errno
import hashlib
import io
import json
import math
import os
import stat
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Literal, TypeVar

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

from simbridge._errors import BundleError, first_error
from simbridge._canonical import ALIASES
from simbridge._signals import LazyColumns, Signals
from simbridge._status import HARNESS_FAULTS as HARNESS_FAULTS  # re-exported: the groups live in _status
from simbridge._status import EpisodeStatus

SIGNALS_PARQUET = "signals.parquet"
SIGNALS_CSV = "signals.csv"


class SandboxRecord(BaseModel):
    """episode.json `sandbox`: where the episode ran and the processes the provider started."""

    model_config = ConfigDict(extra="forbid")

    display: str = Field(default="", description="X display of the sandbox (as the host reaches it)")
    pids: dict[str, int] = Field(
        default_factory=dict,
        description="process name -> pid, of every process the provider started for the episode (Provider.processes())",
    )
    guest: list[str] = Field(
        default_factory=list,
        description="names in `pids` whose pid is a VM guest's, not the host's (their CPU time is not recorded)",
    )


#: the format of the bundles this version writes (episode.json `bundle_format`): 1, episode.json +
#: signals + events.jsonl + actions.jsonl + manifest.json version 2. Readers read every format up
#: to their own; a bundle of a newer format is read as far as its files are known (docs/eval.md,
#: "Versions and upgrades")
BUNDLE_FORMAT = 1


def stamp_version(ep: "EpisodeInfo") -> None:
    """Record the writing simbridge's version and the bundle format in a new bundle's episode
    (a value already there, a bundle written again, is kept)."""
    from simbridge._version import installed_version

    if ep.simbridge_version is None:
        ep.simbridge_version = installed_version()
    if ep.bundle_format is None:
        ep.bundle_format = BUNDLE_FORMAT


class EpisodeInfo(BaseModel):
    """episode.json. Only `task_id` is required so hand-written fixtures stay small.

    Every field a writer sets is declared here (setting an undeclared attribute raises).
    Reading is tolerant: keys this version does not know (a bundle from a newer or older
    simbridge, a third-party writer) are kept in `extra` and written back at the top level,
    so a bundle survives a read-modify-write unchanged.
    """

    model_config = ConfigDict(extra="forbid")

    task_id: str
    simbridge_version: str | None = Field(
        default=None,
        description="the simbridge version that wrote the bundle (absent: written before versions were recorded)",
    )
    bundle_format: int | None = Field(
        default=None,
        description="the bundle format the writer followed (`BUNDLE_FORMAT`); absent: format 1, the same files "
        "written before formats were numbered",
    )
    spec_hash: str | None = Field(default=None, description="hash of the task spec the episode ran")
    sim: str | None = Field(default=None, description="simulator name (registry name)")
    sim_version: str | None = None
    adapter: str | None = Field(default=None, description="the SimSession class, recorder or importer that wrote it")
    provider: str | None = Field(
        default=None, description="sandbox provider (local, netns, vm; external/none for record-only and imports)"
    )
    agent: str | None = None
    trial: int | None = None
    seed: int | None = None
    variant: dict[str, Any] | None = Field(
        default=None, description="the seeded task variant the episode ran: {'seed': int, 'values': {name: value}}"
    )
    episode_id: str | int | None = Field(
        default=None,
        description="a stable id the writer gives: copies of one episode share it (metrics de-duplicate by it)",
    )
    wall_start: float | None = Field(default=None, description="wall clock (unix s) the bundle was opened")
    wall_end: float | None = Field(default=None, description="wall clock (unix s) the bundle was closed")
    status: EpisodeStatus = "completed"
    status_detail: str = ""
    unisolated: bool = False
    isolation: dict[str, Any] | None = Field(
        default=None, description="the provider's isolation report, console checks and audit"
    )
    sample_rate_hz: float | None = None
    real_time_factor: float | None = None
    frame_rate_hz: float | None = None
    sim_end_s: float | None = Field(
        default=None,
        description="Sim time (s, the signals' t) the episode ended at; "
        "a recording ending more than max_sample_gap_s earlier lost its tail",
    )
    flags: list[str] = Field(default_factory=list)
    # -- written by the runner
    agent_port_url: str | None = Field(default=None, description="the agent port's MCP URL for the episode")
    agent_brief: dict[str, Any] | None = Field(
        default=None, description="the task brief as served to the agent (simbridge.agent.TaskBrief, JSON)"
    )
    sandbox: SandboxRecord | None = Field(default=None, description="the sandbox's display and processes")
    sim_info: dict[str, Any] | None = Field(
        default=None,
        description="what is particular to the simulator: the adapter's SimSession.info() (version, frame rate, "
        "flags, last read at the end), or what a record-only recorder or importer counted (X-Plane "
        "`rref_packets`, `dropped_late`; the CARLA `map`)",
    )
    ready_wall: float | None = Field(
        default=None, description="wall clock (unix s) the agent port began serving actions"
    )
    wall_run_s: float | None = Field(default=None, description="wall seconds from the simulator being up to the end")
    achieved_rtf: float | None = Field(
        default=None, description="simulator seconds per wall second over the episode (< 1: it fell behind real time)"
    )
    agent_actions: dict[str, int] | None = Field(default=None, description="agent port actions: served, failed")
    agent_port_auth: str | None = Field(
        default=None,
        description="how the agent port admitted clients: 'token' (per-episode bearer token, bound to the first "
        "authenticated session) or 'none' (opted out with --no-token; flagged)",
    )
    assists: list[str] = Field(
        default_factory=list,
        description="assists the simulator showed beyond the real vehicle's own displays (`--assist NAME`, "
        "e.g. the JSBSim cockpit's `readout` strip); each flagged `assist:NAME`, never pooled with unassisted "
        "episodes by metrics and compare; [] (or absent): none",
    )
    agent_transport: str | None = Field(
        default=None,
        description="what served the agent's screen and input: 'x11' (the sandbox's X display, XTEST) or 'guest' "
        "(the guest service, `simbridge guest`, inside the sandbox or guest OS)",
    )
    agent_port_refusals: list[dict[str, Any]] | None = Field(
        default=None, description="requests the agent port refused (t_wall, peer, reason), the first 200"
    )
    screen_recording: dict[str, Any] | None = Field(
        default=None, description="screen frames and snapshots saved, captures that failed and the last error"
    )
    recorder: dict[str, Any] | None = Field(
        default=None,
        description="the recorder's statistics (samples, rate_hz, dt_p50_ms, dt_p95_ms, dt_max_ms, dropped)",
    )
    cpu_s: dict[str, float | None] | None = Field(
        default=None,
        description="CPU seconds per process name and 'runner'; None for a process the host cannot see (VM guest)",
    )
    sim_seconds: float | None = Field(default=None, description="simulator seconds the episode ran (task clock)")
    # -- written by record-only recorders and importers
    host: str | None = Field(default=None, description="host:port a record-only recorder read the simulator at")
    clock: str | None = Field(default=None, description="the simulator variable used as the task clock")
    extra: dict[str, Any] = Field(
        default_factory=dict,
        description="keys of episode.json this version does not declare, kept as read (written back at the top level)",
    )

    @model_validator(mode="before")
    @classmethod
    def _collect_unknown(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = _legacy_sim_info(data)
        unknown = {k: v for k, v in data.items() if k not in cls.model_fields}
        if not unknown:
            return data
        known = {k: v for k, v in data.items() if k in cls.model_fields}
        extra = known.get("extra")
        known["extra"] = {**(extra if isinstance(extra, dict) else {}), **unknown}
        return known

    @model_serializer(mode="wrap")
    def _flatten_extra(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out = handler(self)
        if isinstance(out, dict):
            for k, v in (out.pop("extra", None) or {}).items():
                out.setdefault(k, v)
        return out


#: simulator-specific keys older bundles wrote at the top level of episode.json; read into `sim_info`
LEGACY_SIM_INFO_KEYS: tuple[str, ...] = ("rref_packets", "dropped_late", "map")


def _legacy_sim_info(data: dict[str, Any]) -> dict[str, Any]:
    """episode.json of an older bundle: its top-level simulator keys (`LEGACY_SIM_INFO_KEYS`)
    moved into `sim_info`, where this version keeps them (a value already there wins)."""
    legacy = {k: data[k] for k in LEGACY_SIM_INFO_KEYS if k in data}
    if not legacy or not isinstance(data.get("sim_info", {}) or {}, dict):
        return data
    out = {k: v for k, v in data.items() if k not in legacy}
    out["sim_info"] = {**legacy, **(data.get("sim_info") or {})}
    return out


class Event(BaseModel):
    model_config = ConfigDict(extra="forbid")

    t: float
    kind: str
    data: dict[str, Any] = Field(default_factory=dict)


class Bundle:
    """A read, validated episode bundle. Verifiers get this; they never talk to a simulator."""

    def __init__(
        self,
        path: Path | None,
        episode: EpisodeInfo,
        signals: Signals,
        events: list[Event] | None = None,
        snapshots: dict[str, Any] | None = None,
        actions: list[dict[str, Any]] | None = None,
        files: dict[str, Path] | None = None,
    ) -> None:
        self.path = path
        self.episode = episode
        self.signals = signals
        self.events = events or []
        self.snapshots = snapshots or {}
        self.actions = actions or []
        self.files = files or {}

    @property
    def task_id(self) -> str:
        return self.episode.task_id

    def events_of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def snapshot(self, which: Literal["start", "end"], key: str, default: Any = None) -> Any:
        """A value from snapshots.json: `{"start": {...}, "end": {...}}`."""
        return (self.snapshots.get(which) or {}).get(key, default)


# --------------------------------------------------------------------------- reading


def _read_signals_csv(path: Path) -> Signals:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    raw = read_bounded(path, "a signals CSV", MAX_STREAM_BYTES)
    if b"\x00" in raw[:65536]:
        raise BundleError(f"{path}: not a CSV text file (binary data)")
    # A recorder killed mid-write may leave a partial last line: drop it.
    if raw and not raw.endswith(b"\n"):
        raw = raw[: raw.rfind(b"\n") + 1]
    if not raw.strip():
        raise BundleError(f"{path}: empty file, no header with a 't' column")
    try:
        header = next(csv.reader(io.StringIO(raw.split(b"\n", 1)[0].decode("utf-8"))))
    except UnicodeDecodeError:
        raise BundleError(f"{path}: not UTF-8 text") from None
    except csv.Error as exc:  # e.g. a header field over the csv module's 128 KB field limit
        raise BundleError(f"{path}: line 1: not a CSV header: {exc}") from None
    except StopIteration:
        raise BundleError(f"{path}: empty file, no header with a 't' column") from None
    header = [h.strip() for h in header]
    if "t" not in header:
        raise BundleError(f"{path}: no 't' column (columns: {', '.join(header)})")
    if len(set(header)) != len(header):
        dup = sorted({h for h in header if header.count(h) > 1})
        raise BundleError(f"{path}: duplicate column names {dup}")
    convert = pacsv.ConvertOptions(
        column_types={h: pa.float64() for h in header},
        null_values=["", "nan", "NaN", "null", "NA"],
        true_values=["true", "True"],
        false_values=["false", "False"],
        strings_can_be_null=True,
    )
    try:
        table = pacsv.read_csv(
            io.BytesIO(raw), convert_options=convert, read_options=pacsv.ReadOptions(column_names=header, skip_rows=1)
        )
    except pa.ArrowInvalid as exc:
        raise BundleError(f"{path}: {_explain_csv_error(str(exc), raw, header)}") from None
    return _signals_from_table(table, str(path))


def _explain_csv_error(msg: str, raw: bytes, header: list[str]) -> str:
    """Turn an Arrow conversion error into 'column X, row N: value V is not a number'."""
    reader = csv.reader(io.StringIO(raw.decode("utf-8", "replace")))
    try:
        next(reader, None)
        rows = list(enumerate(reader, start=2))
    except csv.Error as exc:  # a field over the csv module's 128 KB limit, a stray NUL
        return f"line {reader.line_num}: {exc}"
    for row_no, row in rows:
        if len(row) != len(header):
            return f"line {row_no}: {len(row)} fields, header has {len(header)}"
        for name, value in zip(header, row):
            v = value.strip()
            if v in ("", "nan", "NaN", "null", "NA", "true", "false", "True", "False"):
                continue
            try:
                float(v)
            except ValueError:
                return f"column {name!r}, line {row_no}: value {v!r} is not a number"
    return msg.splitlines()[0]


def _signals_from_table(table: Any, source: str) -> Signals:
    import pyarrow as pa

    names = table.column_names
    if "t" not in names:
        raise BundleError(f"{source}: no 't' column (columns: {', '.join(names)})")
    cols: dict[str, np.ndarray] = {}
    for name in names:
        col = table.column(name)
        typ = col.type
        if pa.types.is_boolean(typ) or pa.types.is_integer(typ) or pa.types.is_floating(typ):
            cols[name] = col.cast(pa.float64()).to_numpy(zero_copy_only=False)
        elif pa.types.is_null(typ):
            cols[name] = np.full(len(col), np.nan)
        else:
            raise BundleError(f"{source}: column {name!r} is not numeric (type {typ})")
    t = cols.pop("t")
    if np.isnan(t).any():
        bad = int(np.flatnonzero(np.isnan(t))[0])
        raise BundleError(f"{source}: column 't' is empty at row {bad + 1}")
    return Signals(t, cols, source=source)


def _read_signals_parquet(path: Path) -> Signals:
    """The signals of a Parquet file, read lazily: the schema (every column numeric) and `t` now,
    every other column from the open file when first asked for (`LazyColumns`), so re-scoring
    decodes only the columns the task and its verifier read. The file is opened here and stays
    open with the Signals: a rename or replacement after reading does not change what is scored."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = str(path)

    def unreadable(exc: BaseException) -> BundleError:
        return BundleError(f"{path}: not a readable Parquet file: {str(exc).splitlines()[0]}")

    try:
        pf = pq.ParquetFile(path)
        schema = pf.schema_arrow
        meta = pf.metadata
    except (pa.ArrowException, OSError) as exc:
        raise unreadable(exc) from None
    names = schema.names
    if "t" not in names:
        raise BundleError(f"{source}: no 't' column (columns: {', '.join(names)})")
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise BundleError(f"{source}: duplicate column names {dup}")
    for field in schema:
        typ = field.type
        if not (
            pa.types.is_boolean(typ) or pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_null(typ)
        ):
            raise BundleError(f"{source}: column {field.name!r} is not numeric (type {typ})")
    rows = meta.num_rows

    def load(name: str) -> np.ndarray:
        try:
            col = pf.read(columns=[name], use_threads=False).column(0)
        except (pa.ArrowException, OSError) as exc:
            raise unreadable(exc) from None
        if pa.types.is_null(col.type):
            return np.full(len(col), np.nan)
        return col.cast(pa.float64()).to_numpy(zero_copy_only=False)

    # columns whose row-group statistics show a finite value somewhere: known to have a valid sample
    finite: set[str] = set()
    try:
        for rg in range(meta.num_row_groups):
            group = meta.row_group(rg)
            for i in range(group.num_columns):
                chunk = group.column(i)
                st = chunk.statistics
                if st is not None and st.has_min_max and len(chunk.path_in_schema.split(".")) == 1:
                    lo, hi = st.min, st.max
                    if any(isinstance(v, (int, float)) and math.isfinite(v) for v in (lo, hi)):
                        finite.add(chunk.path_in_schema)
    except (pa.ArrowException, OSError, ValueError):
        finite = set()  # statistics are only a shortcut: without them each column is decoded to know
    t = load("t")
    if np.isnan(t).any():
        bad = int(np.flatnonzero(np.isnan(t))[0])
        raise BundleError(f"{source}: column 't' is empty at row {bad + 1}")
    stored = [n for n in names if n != "t"]
    # a bundle written before a rename: its column is read under the new name
    public = {(ALIASES[n] if n in ALIASES and ALIASES[n] not in names else n): n for n in stored}
    return Signals(t, LazyColumns(public, load, rows, finite_known=finite, source=source), source=source)


def _read_jsonl(path: Path, what: str) -> list[dict[str, Any]]:
    out = []
    try:
        text = read_bounded(path, what, MAX_STREAM_BYTES).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BundleError(f"{path}: cannot read {what}: {exc}") from None
    lines = text.split("\n")
    for no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except RecursionError:
            raise BundleError(
                f"{path}: line {no}: {what} nested too deeply to read "
                f"(more than about {sys.getrecursionlimit()} levels)"
            ) from None
        except json.JSONDecodeError as exc:
            if no == len(lines):  # partial last line from a killed writer
                break
            raise BundleError(f"{path}: line {no}: not JSON: {exc.msg}") from None
        if not isinstance(obj, dict):
            raise BundleError(f"{path}: line {no}: expected a JSON object")
        out.append(obj)
    return out


#: the largest JSON document of a bundle read (episode.json, snapshots.json, score.json,
#: manifest.json): a bigger one is refused, not read until memory runs out
MAX_JSON_BYTES = 64 << 20
#: the largest signals/events/actions stream read (a /dev/zero or a runaway file is refused)
MAX_STREAM_BYTES = 4 << 30


def read_bounded(path: Path, what: str, limit: int, *, follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them: a directory, a device
    (`/dev/zero`), a FIFO, a socket, a bigger file (or, with follow_symlinks=False, a symbolic
    link) is one BundleError line naming the file; the read never blocks on a FIFO nor runs
    past `limit` whatever the file claims its size is."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if not follow_symlinks and os.path.islink(path):
            raise BundleError(f"{path}: is a symbolic link, not {what}") from None
        if os.path.isdir(path):
            raise BundleError(f"{path}: is a directory, not {what}") from None
        raise BundleError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise BundleError(f"{path}: is a directory, not {what}")
        if not stat.S_ISREG(st.st_mode):
            raise BundleError(f"{path}: is not a regular file ({_file_kind(st.st_mode)}), not {what}")
        if st.st_size > limit:
            raise BundleError(f"{path}: {st.st_size} bytes, more than the {limit} bytes {what} may have")
        chunks, n = [], 0
        while True:
            try:
                chunk = os.read(fd, min(1 << 20, limit + 1 - n))
            except OSError as exc:
                raise BundleError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
            if not chunk:
                break
            chunks.append(chunk)
            n += len(chunk)
            if n > limit:
                raise BundleError(f"{path}: more than the {limit} bytes {what} may have")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _file_kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def bundle_entry_problems(path: Path) -> list[str]:
    """Everything in the bundle directory `path` (subfolders too) that is not a regular file or
    a folder: symbolic links (their target is outside the bundle's hashed bytes: a link to
    another run's signals would be read as this one's) and special files (FIFOs, devices,
    sockets). One line each naming the entry; an empty list for a clean bundle. Links are never
    followed while looking."""
    return [why for _p, why in _foreign_entries(path)]


#: folders deeper than this below a bundle (or a run directory being searched for bundles) are
#: refused: a bundle's own folders (frames/, home/) are a few levels deep, and a walk of a
#: 1,500-deep tree must end in one line, not a RecursionError
MAX_TREE_DEPTH = 64


def walk_tree(root: Path, *, max_depth: int = MAX_TREE_DEPTH, what: str = "the bundle") -> list[tuple[Path, int]]:
    """Every entry below `root` with its lstat mode, breadth first and sorted per folder, without
    following symbolic links and without recursion. A folder more than `max_depth` levels below
    `root` is one BundleError line naming it; a folder that cannot be listed is skipped."""
    out: list[tuple[Path, int]] = []
    level = [root]
    depth = 0
    while level:
        depth += 1
        nxt: list[Path] = []
        for d in level:
            try:
                with os.scandir(d) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            for e in entries:
                try:
                    mode = e.stat(follow_symlinks=False).st_mode
                except OSError:
                    continue  # removed while walking
                p = Path(e.path)
                out.append((p, mode))
                if stat.S_ISDIR(mode):
                    if depth >= max_depth:
                        raise BundleError(f"{p}: {what} is nested more than {max_depth} folders deep; refused")
                    nxt.append(p)
        level = nxt
    return out


def _foreign_entries(path: Path) -> list[tuple[Path, str]]:
    out: list[tuple[Path, str]] = []
    for p, mode in walk_tree(path):
        if stat.S_ISLNK(mode):
            try:
                target = os.readlink(p)
            except OSError:
                target = "?"
            out.append((p, f"{p}: is a symbolic link (to {target}); a bundle holds only its own regular files"))
        elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            out.append((p, f"{p}: is {_file_kind(mode)}; a bundle holds only regular files"))
    return out


def remove_foreign_entries(path: Path) -> list[str]:
    """Before sealing: delete every symbolic link and special file in the bundle (e.g. one the
    agent made in its folder), so the sealed bundle holds only its own bytes and is not refused
    for them. Returns one flag per entry removed ('link_removed: home/x -> /target')."""
    flags = []
    for p, _why in _foreign_entries(path):
        try:
            target = os.readlink(p) if p.is_symlink() else "special file"
            p.unlink()
        except OSError:
            continue
        flags.append(f"link_removed: {p.relative_to(path).as_posix()} -> {target}")
    return flags


def check_bundle_entries(path: Path) -> None:
    """BundleError (one line, the first problem and how many more) when `bundle_entry_problems`
    finds anything: such a bundle is refused before any of it is read."""
    problems = bundle_entry_problems(path)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise BundleError(f"{problems[0]}{more}; the bundle is refused")


def check_bundle_dir(path: str | Path) -> Path:
    """The bundle directory, refused (one-line BundleError) when it is reached through a symbolic
    link or holds a link or special file anywhere (`check_bundle_entries`): the one rule for code
    that reads or serves a bundle as a whole (the review app's replay, the report)."""
    bundle = Path(path)
    try:
        if bundle.is_symlink() or bundle.resolve(strict=True) != bundle.absolute():
            raise BundleError(f"{bundle}: the bundle path goes through a symlink")
        check_bundle_entries(bundle)
    except OSError as exc:
        raise BundleError(f"{bundle}: cannot read: {exc.strerror or exc}") from None
    return bundle


def bundle_file(bundle: str | Path, name: str) -> Path:
    """The path of the regular file `name` (a relative POSIX path) inside the bundle directory
    `bundle`, for code that serves or embeds a bundle's files (the review app, report pages).

    Refused with a one-line BundleError: an absolute name, '..', a backslash or NUL, any
    component that is a symbolic link (the bundle folder itself may be reached through one),
    and anything that is not a regular file. Nothing outside the bundle is ever returned."""
    root = Path(bundle)
    pure = PurePosixPath(name)
    if not name or "\\" in name or "\x00" in name or pure.is_absolute() or ".." in pure.parts:
        raise BundleError(f"{root}: {name!r} is not a file name inside the bundle")
    try:
        root_st = os.stat(root)
    except OSError as exc:
        raise BundleError(f"{root}: not a bundle directory ({exc.strerror or exc})") from None
    if not stat.S_ISDIR(root_st.st_mode):
        raise BundleError(f"{root}: not a bundle directory")
    p = root
    for i, part in enumerate(pure.parts):
        p = p / part
        try:
            mode = os.lstat(p).st_mode
        except OSError:
            raise BundleError(f"{p}: no such file in the bundle") from None
        last = i == len(pure.parts) - 1
        if stat.S_ISLNK(mode):
            raise BundleError(f"{p}: is a symbolic link; a bundle's files are served only as its own regular files")
        if last and not stat.S_ISREG(mode):
            raise BundleError(f"{p}: is {_file_kind(mode)}, not a file of the bundle")
        if not last and not stat.S_ISDIR(mode):
            raise BundleError(f"{p}: is not a folder")
    return p


def read_json_file(path: Path, what: str, *, limit: int = MAX_JSON_BYTES) -> Any:
    """The JSON document in `path` (`what` names it in errors: "episode.json", "a score"); every
    way it can fail is one BundleError line naming the file (and the line of a syntax error).
    Reads at most `limit` bytes of a regular file (`read_bounded`); nesting deeper than the
    interpreter's recursion limit (about 1000 levels) is refused too."""
    raw = read_bounded(path, what, limit)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BundleError(f"{path}: cannot read {what}: {exc}") from None
    if not text.strip():
        raise BundleError(f"{path}: empty file, not {what}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BundleError(f"{path}: line {exc.lineno}: not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise BundleError(
            f"{path}: {what} nested too deeply to read (more than about {sys.getrecursionlimit()} levels)"
        ) from None


_M = TypeVar("_M", bound=BaseModel)


def read_json_model(path: Path, model: type[_M], what: str, *, kind: str = "", top: str = "") -> _M:
    """The JSON object in `path` validated as `model` (`read_json_file`'s bounds): anything else is
    one BundleError line naming the file, and the field (`top` for the object as a whole)."""
    raw = read_json_file(path, what)
    if not isinstance(raw, dict):
        raise BundleError(f"{path}: expected a JSON object{f' ({kind})' if kind else ''}, got {type(raw).__name__}")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise BundleError(first_error(exc, str(path), top=top)) from None


def read_bundle(path: str | Path, *, known_task_ids: Iterable[str] | None = None) -> Bundle:
    """Read and validate a bundle directory. Raises BundleError naming the file and problem."""
    path = Path(path)
    if not path.is_dir():
        raise BundleError(f"{path}: not a bundle directory")
    check_bundle_entries(path)
    ep_path = path / "episode.json"
    if not ep_path.exists():
        raise BundleError(f"{path}: no episode.json")
    episode = read_json_model(ep_path, EpisodeInfo, "episode.json")
    if known_task_ids is not None:
        known = set(known_task_ids)
        if episode.task_id not in known:
            raise BundleError(f"{ep_path}: unknown task id {episode.task_id!r}")

    pq_path, csv_path = path / SIGNALS_PARQUET, path / SIGNALS_CSV
    if pq_path.exists():
        signals = _read_signals_parquet(pq_path)
    elif csv_path.exists():
        signals = _read_signals_csv(csv_path)
    else:
        raise BundleError(f"{path}: no {SIGNALS_PARQUET} or {SIGNALS_CSV}")

    events: list[Event] = []
    ev_path = path / "events.jsonl"
    if ev_path.exists():
        for no, raw in enumerate(_read_jsonl(ev_path, "events"), start=1):
            try:
                events.append(Event.model_validate(raw))
            except ValidationError as exc:
                raise BundleError(first_error(exc, f"{ev_path}: event {no}")) from None
    snapshots: dict[str, Any] = {}
    snap_path = path / "snapshots.json"
    if snap_path.exists():
        snapshots = read_json_file(snap_path, "snapshots.json")
        if not isinstance(snapshots, dict):
            raise BundleError(f"{snap_path}: expected a JSON object with 'start'/'end'")
    actions: list[dict[str, Any]] = []
    act_path = path / "actions.jsonl"
    if act_path.exists():
        actions = _read_jsonl(act_path, "actions")
    files = {p.name: p for p in path.iterdir() if p.is_file()}
    return Bundle(path, episode, signals, events, snapshots, actions, files)


# --------------------------------------------------------------------------- writing


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    f = float(v)
    if math.isnan(f) or math.isinf(f):
        return ""
    return repr(f)


class BundleWriter:
    """Append-only, crash-safe writer of one episode bundle.

    `columns` fixes the signal columns at open; rows are buffered and flushed to disk at least
    every `flush_interval_s` (and on `flush()`), with fsync, so a killed runner loses at most
    that much. Thread-safe for one writer thread per stream.
    """

    def __init__(
        self, path: str | Path, episode: EpisodeInfo, columns: Sequence[str], *, flush_interval_s: float = 1.0
    ) -> None:
        import threading

        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        if (self.path / "manifest.json").exists() or (self.path / SIGNALS_CSV).exists():
            raise BundleError(f"{self.path}: already holds a bundle; refusing to overwrite")
        self.columns = [c for c in columns if c != "t"]
        self.episode = episode
        stamp_version(self.episode)
        if self.episode.status == "completed":
            self.episode.status = "running"
        if self.episode.wall_start is None:
            self.episode.wall_start = time.time()
        self._lock = threading.Lock()
        self._flush_interval_s = flush_interval_s
        self._last_flush = time.monotonic()
        self._rows: list[str] = []
        self._events: list[str] = []
        self._actions: list[str] = []
        self._closed = False
        self._csv = open(self.path / SIGNALS_CSV, "w", encoding="utf-8", newline="")
        self._csv.write(",".join(["t", *self.columns]) + "\n")
        self._ev = open(self.path / "events.jsonl", "a", encoding="utf-8")
        self._act = open(self.path / "actions.jsonl", "a", encoding="utf-8")
        self.write_episode()
        self.n_samples = 0

    # -- episode metadata
    def write_episode(self) -> None:
        tmp = self.path / "episode.json.tmp"
        tmp.write_text(self.episode.model_dump_json(indent=2, exclude_none=True))
        os.replace(tmp, self.path / "episode.json")

    # -- streams
    def sample(self, t: float, values: Mapping[str, Any]) -> None:
        """One row of signals at sim time t; absent columns are recorded as missing."""
        row = ",".join([_fmt(t), *(_fmt(values.get(c)) for c in self.columns)])
        with self._lock:
            self._rows.append(row)
            self.n_samples += 1
        self._maybe_flush()

    def event(self, t: float, kind: str, data: Mapping[str, Any] | None = None) -> None:
        """One event at sim time t; `data` is checked against `kind`'s payload model
        (simbridge._events; BundleError naming the field) and stored as the plain dict given."""
        from simbridge._events import validate_event

        validate_event(kind, data)
        line = json.dumps({"t": float(t), "kind": kind, "data": dict(data or {})})
        with self._lock:
            self._events.append(line)
        self._maybe_flush()

    def action(self, record: Mapping[str, Any]) -> None:
        with self._lock:
            self._actions.append(json.dumps(dict(record)))
        self._maybe_flush()

    def snapshots(self, snapshots: Mapping[str, Any]) -> None:
        tmp = self.path / "snapshots.json.tmp"
        tmp.write_text(json.dumps(snapshots, indent=2, default=str))
        os.replace(tmp, self.path / "snapshots.json")

    def _maybe_flush(self) -> None:
        if time.monotonic() - self._last_flush >= self._flush_interval_s:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            if self._closed:
                return
            rows, self._rows = self._rows, []
            evs, self._events = self._events, []
            acts, self._actions = self._actions, []
            self._last_flush = time.monotonic()
        for fh, lines in ((self._csv, rows), (self._ev, evs), (self._act, acts)):
            if lines:
                fh.write("\n".join(lines) + "\n")
                fh.flush()
                os.fsync(fh.fileno())

    def finish(self, status: EpisodeStatus, detail: str = "", *, parquet: bool = True) -> Path:
        """Close the streams, store the final status, convert signals to Parquet, write the manifest.

        A full disk (ENOSPC, EDQUOT) on the way is a harness fault: the bundle is marked
        `harness_error` ("disk full: ...", flag `disk_full`) as far as the disk still allows
        and is not sealed: unscored, never the agent's failure."""
        try:
            try:
                self.flush()
            finally:
                with self._lock:
                    self._closed = True
                for fh in (self._csv, self._ev, self._act):
                    try:
                        fh.close()
                    except OSError:
                        if fh is not self._csv:
                            raise
            self.episode.status = status
            self.episode.status_detail = detail
            self.episode.wall_end = time.time()
            self.episode.flags += remove_foreign_entries(self.path)
            self.write_episode()
            if parquet:
                self._to_parquet()
            write_manifest(self.path)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            self._mark_disk_full(exc)
        return self.path

    def _mark_disk_full(self, exc: OSError) -> None:
        for tmp in (self.path / (SIGNALS_PARQUET + ".tmp"), self.path / "episode.json.tmp"):
            tmp.unlink(missing_ok=True)  # frees what a half-written file took
        (self.path / "manifest.json").unlink(missing_ok=True)
        self.episode.status = "harness_error"
        self.episode.status_detail = f"disk full: {exc.strerror or exc} (the bundle may have lost its tail)"
        if "disk_full" not in self.episode.flags:
            self.episode.flags.append("disk_full")
        try:
            self.write_episode()
        except OSError:
            pass  # not even episode.json fits: the missing manifest still marks it unfinished

    def _to_parquet(self) -> None:
        import pyarrow.parquet as pq
        import pyarrow as pa

        signals = _read_signals_csv(self.path / SIGNALS_CSV)
        table = pa.table({k: pa.array(v) for k, v in signals.to_columns().items()})
        tmp = self.path / (SIGNALS_PARQUET + ".tmp")
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, self.path / SIGNALS_PARQUET)
        (self.path / SIGNALS_CSV).unlink()


def write_signals(
    path: str | Path,
    signals: Signals | Mapping[str, Sequence[float] | np.ndarray],
    *,
    fmt: Literal["csv", "parquet"] = "parquet",
) -> Path:
    """Write a whole signals table (for importers and test fixtures)."""
    import pyarrow as pa

    cols = (
        signals.to_columns()
        if isinstance(signals, Signals)
        else {k: np.asarray(v, dtype=float) for k, v in signals.items()}
    )
    path = Path(path)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        out = path / SIGNALS_PARQUET
        pq.write_table(
            pa.table({k: pa.array(np.asarray(v, dtype=float)) for k, v in cols.items()}), out, compression="zstd"
        )
    else:
        out = path / SIGNALS_CSV
        names = list(cols)
        arr = [np.asarray(cols[n], dtype=float) for n in names]
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(",".join(names) + "\n")
            for i in range(len(arr[0]) if arr else 0):
                fh.write(",".join(_fmt(a[i]) for a in arr) + "\n")
    return out


def write_bundle(
    path: str | Path,
    episode: EpisodeInfo | Mapping[str, Any],
    signals: Signals | Mapping[str, Sequence[float] | np.ndarray],
    *,
    events: Iterable[Event | Mapping[str, Any]] = (),
    snapshots: Mapping[str, Any] | None = None,
    fmt: Literal["csv", "parquet"] = "parquet",
) -> Path:
    """Write a complete bundle in one go (importers, fixtures). Writes the manifest last."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    ep = episode if isinstance(episode, EpisodeInfo) else EpisodeInfo.model_validate(dict(episode))
    stamp_version(ep)
    (path / "episode.json").write_text(ep.model_dump_json(indent=2, exclude_none=True))
    write_signals(path, signals, fmt=fmt)
    with open(path / "events.jsonl", "w", encoding="utf-8") as fh:
        for e in events:
            ev = e if isinstance(e, Event) else Event.model_validate(dict(e))
            fh.write(ev.model_dump_json() + "\n")
    if snapshots is not None:
        (path / "snapshots.json").write_text(json.dumps(snapshots, indent=2, default=str))
    write_manifest(path)
    return path


def manifest_files(path: Path) -> list[tuple[str, Path]]:
    """The files a manifest covers: every regular file in the bundle, subfolders (frames/,
    home/) included, keyed by its relative POSIX path; not the top-level manifest.json, not
    `*.tmp` (a write in progress), not symlinks (their target is outside the bundle's bytes)."""
    out = []
    for p, mode in walk_tree(path):
        rel = p.relative_to(path).as_posix()
        if not stat.S_ISREG(mode) or rel == "manifest.json" or p.name.endswith(".tmp"):
            continue
        out.append((rel, p))
    return sorted(out)


def _file_sha256(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


#: 2: subfolders are hashed too; a manifest without "version" (1) covered top-level files only
MANIFEST_VERSION = 2


def write_manifest(path: Path) -> Path:
    """sha256 of every file in the bundle (`manifest_files`: subfolders too, relative POSIX
    paths as keys), written last: its presence marks a complete bundle."""
    entries = {rel: {"sha256": _file_sha256(p), "bytes": p.stat().st_size} for rel, p in manifest_files(path)}
    out = path / "manifest.json"
    out.write_text(json.dumps({"version": MANIFEST_VERSION, "files": entries}, indent=2))
    return out


def add_to_manifest(path: Path, *names: str) -> Path:
    """Seal files added to a sealed bundle (score.json after scoring, screen.mp4 after encoding):
    hash only those and keep every other entry, so a trial's frames are hashed once. Without a
    manifest (an unfinished bundle) nothing is sealed; the whole manifest is written then."""
    out = path / "manifest.json"
    if not out.is_file():
        return write_manifest(path)
    data = read_json_file(out, "manifest.json")
    if data.get("version") != MANIFEST_VERSION or not isinstance(data.get("files"), dict):
        return write_manifest(path)
    files = dict(data["files"])
    for name in names:
        p = path / name
        if p.is_file() and not p.is_symlink():
            files[name] = {"sha256": _file_sha256(p), "bytes": p.stat().st_size}
    out.write_text(json.dumps({"version": MANIFEST_VERSION, "files": files}, indent=2))
    return out
