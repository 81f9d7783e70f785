"""`simbridge report PATH [--out FILE] [--open]`: an episode bundle → one self-contained HTML page.

The page works offline (Plotly's JS, the figures and the screen video are inlined) and is
written beside the bundle by default (BUNDLE.report.html), never inside it: a finished
bundle's files are fixed by its manifest.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from simbridge._errors import BundleError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write an HTML page of an episode bundle (plots, track, video)")
    p.add_argument("path", type=Path, help="episode bundle directory (episode.json + signals)")
    p.add_argument("--out", type=Path, help="HTML file to write (default: PATH.report.html beside the bundle)")
    p.add_argument("--open", action="store_true", help="open the page in the default browser")
    p.set_defaults(func=_report)


def _report(args: argparse.Namespace) -> int:
    try:
        from simbridge._report import write_episode_report
    except ImportError as exc:
        raise BundleError(f"simbridge report needs the 'report' extra (pip install 'simbridge[report]'): {exc}") from None
    path: Path = args.path
    if not path.is_dir():
        raise BundleError(f"{path}: not a bundle directory")
    if not (path / "episode.json").is_file():
        raise BundleError(f"{path}: no episode.json (simbridge report takes one episode bundle)")
    if args.out is not None and args.out.is_dir():
        raise BundleError(f"{args.out}: is a directory; --out names the HTML file to write")
    out = write_episode_report(path, args.out)
    print(out)
    if args.open:
        import webbrowser

        webbrowser.open(out.resolve().as_uri())
    return 0
