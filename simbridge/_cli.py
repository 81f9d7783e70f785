"""The `simbridge` command line. Each command lives in its own module with `add_parser(sub)`.

Bad input ends with exit code 2 and one line naming what is wrong and where; never a traceback.
"""

from __future__ import annotations

import argparse
import faulthandler
import importlib
import signal
import sys

#: modules providing `add_parser(subparsers)`; each sets `func(args) -> int` on its parser
COMMAND_MODULES = [
    "simbridge._cmd_tasks",
    "simbridge._cmd_verify",
    "simbridge._cmd_record",
    "simbridge._cmd_metrics",
    "simbridge._cmd_isolation",
    "simbridge._cmd_vm",
    "simbridge._cmd_import",
    "simbridge._cmd_import_misc",
    "simbridge._cmd_run",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="simbridge", description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from simbridge._errors import SimbridgeError

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
    except SimbridgeError as exc:
        print(f"simbridge: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("simbridge: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
