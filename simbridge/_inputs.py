"""Files the command line reads as input (token files, suites, scripts, rubrics, task and
variant files, importer inputs, grade CSVs), checked once here before a byte is read:

- the path: no component over 255 bytes, the whole under 4096 bytes, no symbolic-link loop
  (each a one-line error instead of an OSError traceback);
- the kind: a regular file (a FIFO with no writer, `/dev/zero`, a directory or a socket is
  refused without blocking: the file is opened with O_NONBLOCK and fstat'ed);
- the size: bounded (a runaway file is refused, never read into memory);
- YAML: duplicate keys refused (the last would silently win), integers of more than 4,300
  digits and nesting beyond the parser's recursion refused, each naming the line.

Every problem is a SimbridgeError (or the subclass the caller names) of one line naming the file.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

from simbridge._errors import SimbridgeError

#: a path component (a file or folder name) longer than this is refused by Linux filesystems
NAME_MAX = 255
#: and a whole path longer than this
PATH_MAX = 4096
#: the default bound of a text input (suites, scripts, rubrics, tokens are far smaller)
MAX_INPUT_BYTES = 4 << 20


def path_problem(path: str | os.PathLike[str]) -> str | None:
    """Why `path` cannot be used as a path at all (too long, a link loop), or None."""
    raw = os.fsencode(path)
    if len(raw) >= PATH_MAX:
        return f"the path is {len(raw)} bytes long (at most {PATH_MAX - 1})"
    for part in raw.split(b"/"):
        if len(part) > NAME_MAX:
            shown = part[:40].decode("utf-8", "replace")
            return f"a path component ({shown}…) is {len(part)} bytes long (at most {NAME_MAX})"
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a loop of symbolic links"
        if exc.errno == errno.ENAMETOOLONG:
            return "the path is too long"
    return None


def short_path(path: str | os.PathLike[str], limit: int = 160) -> str:
    """`path` for an error line: a long one is cut in the middle."""
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return text if len(text) <= limit else f"{text[: limit // 2]}…{text[-limit // 2 :]}"


def check_path(path: str | os.PathLike[str], what: str, error: type[SimbridgeError] = SimbridgeError) -> Path:
    """`path` as a Path, or `error` of one line saying why it cannot be one."""
    why = path_problem(path)
    if why is not None:
        raise error(f"{short_path(path)}: cannot be {what}: {why}")
    return Path(path)


def check_output_file(path: str | os.PathLike[str], option: str, error: type[SimbridgeError] = SimbridgeError) -> Path:
    """`path` as a file a command may write (`--out`, `--html`, `--csv`): a path that can be one,
    and not a folder, a FIFO or a socket (opening a FIFO with no reader for writing blocks
    forever). A device that never blocks (`/dev/null`, `/dev/full`) is allowed."""
    import stat

    from simbridge._bundle import _file_kind

    p = check_path(path, f"{option}", error)
    try:
        mode = os.stat(p).st_mode
    except OSError:
        return p  # not there yet: the writer's own error names a missing folder
    if stat.S_ISDIR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise error(f"{option} {short_path(p)}: is {_file_kind(mode)}; {option} names a file to write")
    return p


def read_input_bytes(
    path: str | os.PathLike[str],
    what: str,
    *,
    limit: int = MAX_INPUT_BYTES,
    error: type[SimbridgeError] = SimbridgeError,
) -> bytes:
    """The bytes of the regular file `path` (at most `limit`), never blocking; `error` otherwise."""
    from simbridge._bundle import read_bounded
    from simbridge._errors import BundleError

    p = check_path(path, what, error)
    try:
        return read_bounded(p, what, limit)
    except BundleError as exc:
        if not p.exists() and not p.is_symlink():
            raise error(f"{short_path(p)}: cannot read {what}: no such file") from None
        raise error(str(exc)) from None


def open_input(
    path: str | os.PathLike[str],
    what: str,
    *,
    limit: int = MAX_INPUT_BYTES,
    error: type[SimbridgeError] = SimbridgeError,
) -> Any:
    """The regular file `path` opened for reading in binary (for a reader that streams it, such
    as csv): opened without blocking (a FIFO with no writer is refused, not waited on), its kind
    and size checked on the open descriptor; `error` of one line otherwise."""
    import stat

    from simbridge._bundle import _file_kind

    p = check_path(path, what, error)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise error(f"{short_path(p)}: cannot read: {exc.strerror or exc} ({what})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{short_path(p)}: cannot read: not a regular file ({_file_kind(st.st_mode)}), not {what}")
        if st.st_size > limit:
            raise error(f"{short_path(p)}: {st.st_size} bytes, more than the {limit} bytes {what} may have")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_input_text(
    path: str | os.PathLike[str],
    what: str,
    *,
    limit: int = MAX_INPUT_BYTES,
    error: type[SimbridgeError] = SimbridgeError,
) -> str:
    """`read_input_bytes` decoded as UTF-8 (a BOM dropped)."""
    raw = read_input_bytes(path, what, limit=limit, error=error)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{short_path(path)}: not UTF-8 text ({what}): {exc.reason} at byte {exc.start}") from None


# --------------------------------------------------------------------------- YAML


def _loader() -> type:
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class StrictLoader(base):  # type: ignore[misc, valid-type]
        """SafeLoader that refuses duplicate keys and integers too long to convert."""

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, int] = {}
                for key_node, _value in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=True)
                    try:
                        hash(key)
                    except TypeError:
                        continue  # the base class names an unhashable key
                    if key in seen:
                        raise yaml.constructor.ConstructorError(
                            "while constructing a mapping",
                            node.start_mark,
                            f"duplicate key {str(key)[:60]!r} (first on line {seen[key] + 1})",
                            key_node.start_mark,
                        )
                    seen[key] = key_node.start_mark.line
            return super().construct_mapping(node, deep=deep)

        def construct_yaml_int(self, node: Any) -> Any:
            try:
                return super().construct_yaml_int(node)
            except ValueError:
                digits = len(str(node.value))
                raise yaml.constructor.ConstructorError(
                    None, None, f"an integer of {digits} characters is too long", node.start_mark
                ) from None

    StrictLoader.add_constructor("tag:yaml.org,2002:int", StrictLoader.construct_yaml_int)
    return StrictLoader


_LOADER: type | None = None


def load_yaml(text: str, where: str, error: type[SimbridgeError] = SimbridgeError) -> Any:
    """The YAML document in `text` (`where` names it in errors): duplicate keys, integers of
    more than 4,300 digits and nesting too deep to parse are one-line `error`s with the line."""
    import yaml

    global _LOADER
    if _LOADER is None:
        _LOADER = _loader()
    try:
        return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}:" if mark is not None else ""
        problem = getattr(exc, "problem", None) or (str(exc).splitlines() or ["?"])[0]
        raise error(f"{where}:{line} not valid YAML: {problem}") from None
    except RecursionError:
        raise error(f"{where}: not valid YAML here: nested too deeply to parse") from None


def read_yaml_input(
    path: str | os.PathLike[str],
    what: str,
    *,
    limit: int = MAX_INPUT_BYTES,
    error: type[SimbridgeError] = SimbridgeError,
) -> Any:
    """The YAML document in the file `path`: `read_input_text`, then `load_yaml`."""
    return load_yaml(read_input_text(path, what, limit=limit, error=error), short_path(path), error)
