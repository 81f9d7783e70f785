"""The agent's home folder: task inputs in, work products (answer.json) out.

Some tasks hand the agent documents (`input/load.json`, a checklist PDF) and ask for a written
answer (`answer.json`). The sandbox is a kiosk with nothing but the simulator window, so there is
no file manager or editor to do that through; the agent port offers three file actions instead
(`list_files`, `read_file`, `write_file`), confined to one folder per episode that the harness
owns. The folder lives in the bundle (`home/`), so what the agent wrote is kept with the
recording and a re-score sees the same answer.

Rules: paths are relative, `/`-separated, inside the folder (no `..`, no absolute paths, no
symlinks out); `input/` is read-only; text only (UTF-8), at most `MAX_WRITE_BYTES` per file
and `MAX_FILES` written files; inputs that are not text (PDF charts) are read as base64.
"""

from __future__ import annotations

import base64
import errno
import json
import shutil
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from simbridge._errors import SimbridgeError

MAX_WRITE_BYTES = 1_000_000
MAX_READ_BYTES = 5_000_000
MAX_FILES = 64
#: longest path the agent may name, and longest name of one folder or file in it
MAX_PATH_CHARS = 1024
MAX_NAME_BYTES = 255
#: OS errors that are the machine's, not the agent's (a harness fault: unscored)
_HOST_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS, errno.ENOMEM})
#: the folder task inputs are placed in (read-only for the agent)
INPUT_DIR = "input"


class AgentFiles:
    """One episode's agent home folder at `root` (created if missing)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.written: set[str] = set()

    # ------------------------------------------------------------------ harness side
    def place_inputs(self, files: Iterable[tuple[str, Path]]) -> list[str]:
        """Copy task inputs (agent-visible relative path, source file) into the folder."""
        placed = []
        for rel, src in files:
            dest = self._resolve(rel, purpose="input path")
            if not src.is_file():
                raise SimbridgeError(f"task input {rel!r}: source file {src} does not exist")
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
            placed.append(rel)
        return placed

    def collect_json(self, rel: str) -> Any:
        """The parsed content of `rel`: None when the agent wrote no such file; the raw text
        (a string, never an exception) when it is not valid JSON, so the verifier can say so."""
        p = self._resolve(rel, purpose="answer path")
        if not p.is_file():
            return None
        text = p.read_text(encoding="utf-8", errors="replace")
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text

    # ------------------------------------------------------------------ agent side
    def list(self) -> list[dict[str, Any]]:
        out = []
        for p in sorted(self.root.rglob("*")):
            if p.is_file() and not p.is_symlink():
                rel = p.relative_to(self.root).as_posix()
                out.append({"path": rel, "bytes": p.stat().st_size, "writable": not _is_input(rel)})
        return out

    def read(self, path: str, encoding: str = "text") -> str:
        """The file as text (`encoding="text"`, UTF-8) or base64 (`"base64"`, for PDFs and images)."""
        if encoding not in ("text", "base64"):
            raise SimbridgeError(f"read_file: encoding must be 'text' or 'base64', not {encoding!r}")
        p = self._resolve(path)
        if not p.is_file():
            raise SimbridgeError(f"read_file: no file {path!r} in the agent's folder (list_files shows what exists)")
        if p.stat().st_size > MAX_READ_BYTES:
            raise SimbridgeError(f"read_file: {path!r} is larger than {MAX_READ_BYTES} bytes")
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise _file_error("read_file", path, exc) from None
        if encoding == "base64":
            return base64.b64encode(data).decode("ascii")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise SimbridgeError(
                f"read_file: {path!r} is not UTF-8 text ({len(data)} bytes); read it with encoding='base64'"
            ) from None

    def write(self, path: str, text: str) -> int:
        if not isinstance(text, str):
            raise SimbridgeError("write_file: text must be a string")
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise SimbridgeError(
                f"write_file: text is not valid Unicode ({exc.reason} at character {exc.start})"
            ) from None
        if len(data) > MAX_WRITE_BYTES:
            raise SimbridgeError(f"write_file: {len(data)} bytes is more than the {MAX_WRITE_BYTES} allowed")
        rel = self._normalise(path)
        if _is_input(rel):
            raise SimbridgeError(f"write_file: {path!r} is under {INPUT_DIR}/, which is read-only")
        if rel not in self.written and len(self.written) >= MAX_FILES:
            raise SimbridgeError(f"write_file: at most {MAX_FILES} files may be written")
        p = self._resolve(rel)
        if p.is_dir():
            raise SimbridgeError(f"write_file: {path!r} is a folder, not a file")
        tmp = p.with_name(p.name + ".partial")
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(data)
            tmp.replace(p)  # a reader never sees half a file
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise _file_error("write_file", path, exc) from None
        self.written.add(rel)
        return len(data)

    # ------------------------------------------------------------------ paths
    @staticmethod
    def _normalise(path: str) -> str:
        if not isinstance(path, str) or not path.strip():
            raise SimbridgeError("file path must be a non-empty string")
        if len(path) > MAX_PATH_CHARS:
            raise SimbridgeError(f"file path of {len(path)} characters is longer than {MAX_PATH_CHARS}")
        pp = PurePosixPath(path.strip())
        if pp.is_absolute() or "\\" in path or any(part in ("..", "") for part in pp.parts) or "\x00" in path:
            raise SimbridgeError(f"file path {path[:80]!r} must be relative to the agent's folder, without '..'")
        if not pp.parts or pp.as_posix() == ".":
            raise SimbridgeError(f"file path {path!r} names the folder itself, not a file in it")
        if any(len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES for part in pp.parts):
            raise SimbridgeError(f"file path {path[:80]!r}…: a name in it is longer than {MAX_NAME_BYTES} bytes")
        if any(0xD800 <= ord(c) < 0xE000 or ord(c) < 32 for c in path):
            raise SimbridgeError(f"file path {path[:80]!r} holds a control character or a lone surrogate")
        return pp.as_posix()

    def _resolve(self, path: str, purpose: str = "file path") -> Path:
        rel = self._normalise(path)
        p = (self.root / rel).resolve()
        if not p.is_relative_to(self.root.resolve()):
            raise SimbridgeError(f"{purpose} {path!r} leads outside the agent's folder")
        return p


def _file_error(action: str, path: str, exc: OSError) -> Exception:
    """An OS error on the agent's file: the agent's mistake (a path that cannot be a file) as
    a one-line SimbridgeError, the machine's (disk full, I/O error) re-raised as it is."""
    if exc.errno in _HOST_ERRNOS:
        return exc
    return SimbridgeError(f"{action}: {path[:80]!r}: {exc.strerror or exc}")


def _is_input(rel: str) -> bool:
    return rel == INPUT_DIR or rel.startswith(INPUT_DIR + "/")
