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
        print(f"simbridge: harness fault: {exc}", file=sys.stderr)
        return Exit.HARNESS
    except SimbridgeError as exc:
        print(f"simbridge: error: {exc}", file=sys.stderr)
        return Exit.USAGE
    except KeyboardInterrupt:
        print("simbridge: interrupted", file=sys.stderr)
        return Exit.INTERRUPTED
    except BrokenPipeError:
        return Exit.OK
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        # the disk filled up: a harness fault; what was being written is left unsealed (unscored)
        where = f" writing {exc.filename}" if exc.filename else ""
        print(f"simbridge: harness fault: disk full{where}: {exc.strerror or exc} (unscored)", file=sys.stderr)
        return Exit.UNSCORED
