"""Run GUI-only agent tasks on real flight, driving, rail, ship and space simulators, and score
each episode from the simulator's true state."""

from __future__ import annotations

import argparse
import errno
import faulthandler
import importlib
import signal
import sys

from simbridge._exit import Exit, help_text

#: modules providing `add_parser(subparsers)`; each sets `func(args) -> int` on its parser
COMMAND_MODULES = [
    "simbridge._cli.tasks",
    "simbridge._cli.signals",
    "simbridge._cli.verify",
    "simbridge._cli.record",
    "simbridge._cli.metrics",
    "simbridge._cli.compare",
    "simbridge._cli.isolation",
    "simbridge._cli.vm",
    "simbridge._cli.guest",
    "simbridge._cli.import_",
    "simbridge._cli.run",
    "simbridge._cli.report",
    "simbridge._cli.eval",
    "simbridge._cli.review",
]

EPILOG = """typical use:
  simbridge tasks list                                  the tasks and their simulators
  simbridge run T09 --sim jsbsim --agent mcp            serve a task to an agent, score each trial
  simbridge import carla rec.log --out b/ && simbridge verify b/
                                                        score a simulator's own recording
  simbridge metrics runs/                               success rates over many trials

{exit_codes}

`simbridge COMMAND --help` describes each command.""".format(exit_codes=help_text())


def build_parser() -> argparse.ArgumentParser:
    from simbridge._version import installed_version

    parser = argparse.ArgumentParser(
        prog="simbridge",
        description=(__doc__ or "").strip(),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {installed_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse, run the command, and turn its errors into one line and an exit code: a HarnessError
    (the harness failed) is 5, any other SimbridgeError (bad usage or input) is 2."""
    from simbridge._errors import HarnessError, SimbridgeError

    parser = build_parser()
    args = parser.parse_args(argv)
    if hasattr(faulthandler, "register"):
        # `kill -USR1 PID` prints every thread's stack to stderr: how to see where a stuck runner is
        try:
            faulthandler.register(signal.SIGUSR1, all_threads=True)
        except (ValueError, OSError):  # stderr without a file descriptor (called in-process, captured)
            pass
    try:
        return int(args.func(args) or 0)
    except HarnessError as exc:
        if (full := _disk_full(exc)) is not None:
            return _report_disk_full(full)
        _say(f"simbridge: harness fault: {exc}")
        return Exit.HARNESS
    except SimbridgeError as exc:
        if (full := _disk_full(exc)) is not None:  # e.g. "cannot write the score: No space left"
            return _report_disk_full(full)
        _say(f"simbridge: error: {exc}")
        return Exit.USAGE
    except KeyboardInterrupt:
        print("simbridge: interrupted", file=sys.stderr)
        return Exit.INTERRUPTED
    except BrokenPipeError:
        return Exit.OK
    except OSError as exc:
        if (full := _disk_full(exc)) is not None:
            return _report_disk_full(full)
        if exc.errno in (errno.ENAMETOOLONG, errno.ELOOP):  # a path no check caught first
            where = f"{_clip(str(exc.filename), 160)}: " if exc.filename else ""
            _say(f"simbridge: error: {where}{exc.strerror or exc}")
            return Exit.USAGE
        raise
    except RecursionError:
        _say("simbridge: error: an input is nested too deeply to process")
        return Exit.USAGE
    except RuntimeError as exc:  # after RecursionError, its subclass
        if not str(exc).startswith("Symlink loop"):  # pathlib's resolve() of a loop of links
            raise
        _say(f"simbridge: error: {exc}: a loop of symbolic links")
        return Exit.USAGE
    except MemoryError:
        _say("simbridge: error: an input is too large to process in memory")
        return Exit.USAGE
    except Exception as exc:
        if (full := _disk_full(exc)) is not None:  # a database's "disk is full" (SQLite)
            return _report_disk_full(full)
        raise


#: the longest error line printed (a 5 MB message is cut, never printed whole)
MAX_ERROR_CHARS = 2000


def _clip(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """`text` on one line (newlines and other controls as spaces), at most `limit` characters."""
    one = "".join(c if c.isprintable() else " " for c in text[:limit])
    if len(text) > limit:
        one = f"{one[: limit - 60]}… ({len(text) - limit + 60} more characters)"
    return one


def _say(line: str) -> None:
    print(_clip(line), file=sys.stderr)


def _disk_full(exc: BaseException) -> OSError | None:
    """The ENOSPC/EDQUOT OSError behind `exc` (itself, or what it was raised while handling)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, OSError) and cur.errno in (errno.ENOSPC, errno.EDQUOT):
            return cur
        if type(cur).__name__ == "OperationalError" and "disk is full" in str(cur):  # sqlite3, SQLAlchemy
            return OSError(errno.ENOSPC, "No space left on device (the database is full)")
        cur = cur.__cause__ or cur.__context__
    return None


def _report_disk_full(exc: OSError) -> int:
    # the disk filled up: a harness fault; what was being written is left unsealed (unscored)
    where = f" writing {_clip(str(exc.filename), 300)}" if exc.filename else ""
    _say(f"simbridge: harness fault: disk full{where}: {exc.strerror or exc} (unscored)")
    return Exit.UNSCORED
