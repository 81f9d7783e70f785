"""KSP's ConfigNode text format (`.sfs`, `.cfg`): nested `NAME { key = value ... }` blocks.

Layout as the game writes it: a node name on its own line, `{` on the next, `key = value`
lines (the value is everything after the first ` = `, spaces kept), `}` closing; `//` starts a
comment. `NAME {` on one line and `}` after a value are accepted too (hand-edited saves).

Two things real files hold that KSP's own reader accepts are tolerated, each with a note on the
root node (`notes`): a node without a name (a `{` with no name line before it, written for an
unnamed node, e.g. in a KSP 1.1 ROSTER), kept with the name ''; and extra `}` after the last
node closed (a Squad training save ends with one), ignored. A `}` without an open node that is
followed by anything else is still an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from simbridge import SimbridgeError


class ConfigNodeError(SimbridgeError):
    """A save that is not well-formed ConfigNode text: names the file and line."""


@dataclass
class ConfigNode:
    name: str
    values: list[tuple[str, str]] = field(default_factory=list)
    nodes: list["ConfigNode"] = field(default_factory=list)
    line: int = 0
    #: what the parser tolerated (only on the root node): 'line N: ...'
    notes: list[str] = field(default_factory=list)

    def get(self, key: str, default: str | None = None) -> str | None:
        """First value of `key`."""
        for k, v in self.values:
            if k == key:
                return v
        return default

    def node(self, name: str) -> "ConfigNode | None":
        for n in self.nodes:
            if n.name == name:
                return n
        return None

    def all(self, name: str) -> list["ConfigNode"]:
        return [n for n in self.nodes if n.name == name]


def parse_confignode(text: str, source: str = "<text>") -> ConfigNode:
    """Parse ConfigNode text into a root node (name '') holding the top-level nodes and values."""
    root = ConfigNode("", line=0)
    stack = [root]
    pending: tuple[str, int] | None = None  # a node name waiting for its '{'
    stray: int | None = None  # the line of a '}' that closed nothing (fine only at the very end)
    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("//", 1)[0].strip()
        while line:
            if stray is not None and not line.startswith("}"):
                raise ConfigNodeError(
                    f"{source}: line {stray}: '}}' without an open node (line {no} follows it with {line[:40]!r})"
                )
            if pending is None and line.startswith("{"):  # an unnamed node: KSP writes an empty name line
                node = ConfigNode("", line=no)
                stack[-1].nodes.append(node)
                stack.append(node)
                root.notes.append(f"line {no}: a node without a name (kept, not read)")
                line = line[1:].strip()
                continue
            if pending is not None:
                if not line.startswith("{"):
                    raise ConfigNodeError(
                        f"{source}: line {pending[1]}: node {pending[0]!r} is not followed by '{{' "
                        f"(line {no} has {line[:40]!r})"
                    )
                node = ConfigNode(pending[0], line=pending[1])
                stack[-1].nodes.append(node)
                stack.append(node)
                pending = None
                line = line[1:].strip()
                continue
            if line.startswith("}"):
                if len(stack) == 1:
                    if stray is None:
                        stray = no
                        root.notes.append(f"line {no}: an extra '}}' after the last node (ignored)")
                    line = line[1:].strip()
                    continue
                stack.pop()
                line = line[1:].strip()
                continue
            brace_at, eq_at = line.find("{"), line.find("=")
            if eq_at >= 0 and not (0 <= brace_at < eq_at):
                key, _, value = line.partition("=")
                value = value.strip()
                close = value.endswith("}") and value.count("{") < value.count("}")
                if close:
                    value = value[:-1].rstrip()
                stack[-1].values.append((key.strip(), value))
                line = "}" if close else ""
                continue
            name, brace, rest = line.partition("{")
            name = name.strip()
            if not name or any(c.isspace() for c in name):
                raise ConfigNodeError(
                    f"{source}: line {no}: expected 'key = value', a node name or a brace, got {line[:40]!r}"
                )
            pending = (name, no)
            line = ("{" + rest) if brace else ""
    if pending is not None:
        raise ConfigNodeError(
            f"{source}: line {pending[1]}: node {pending[0]!r} has no '{{' before the end of the file"
        )
    if len(stack) > 1:
        raise ConfigNodeError(
            f"{source}: end of file inside node {stack[-1].name!r} opened at line {stack[-1].line} "
            "(missing '}'; truncated save?)"
        )
    return root


def read_confignode(path: str | Path) -> ConfigNode:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigNodeError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if b"\x00" in raw[:65536]:
        off = raw.index(b"\x00")
        raise ConfigNodeError(f"{path}: byte offset {off}: binary data, not a KSP ConfigNode text file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigNodeError(f"{path}: byte offset {exc.start}: not UTF-8 text") from None
    return parse_confignode(text, str(path))
