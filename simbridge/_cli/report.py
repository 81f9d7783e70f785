"""`simbridge report PATH [--out FILE] [--open]`: an episode bundle → one self-contained HTML
page; a directory of bundles (or a `simbridge eval` output) → a suite page (leaderboard) with an
episode page per trial in episodes/ beside it.

The pages work offline (Plotly's JS, the figures and the screen video are inlined). An episode
page is written beside the bundle by default (BUNDLE.report.html), never inside it: a finished
bundle's files are fixed by its manifest. A suite page defaults to DIR/report.html.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from simbridge._errors import BundleError
from simbridge._exit import Exit


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="write an HTML page of an episode bundle (plots, track, video), or a "
        "suite page (leaderboard) of a directory of bundles",
    )
    p.add_argument(
        "path",
        type=Path,
        help="episode bundle directory (episode.json + signals), or a directory of bundles / a `simbridge eval` output",
    )
    p.add_argument(
        "--out",
        type=Path,
        help="HTML file to write (default: PATH.report.html beside a bundle; "
        "DIR/report.html for a suite, episode pages in episodes/ beside it)",
    )
    p.add_argument(
        "--trust-scores",
        action="store_true",
        help="suite: use stored score.json as is instead of re-running each bundle's verifier (faster)",
    )
    p.add_argument("--open", action="store_true", help="open the page in the default browser")
    p.set_defaults(func=_report)


def _report(args: argparse.Namespace) -> int:
    try:
        from simbridge._report import write_episode_report
    except ImportError as exc:
        raise BundleError(
            f"simbridge report needs the 'report' extra (pip install 'simbridge[report]'): {exc}"
        ) from None
    path: Path = args.path
    if not path.is_dir():
        raise BundleError(f"{path}: not a bundle directory")
    if args.out is not None and args.out.is_dir():
        raise BundleError(f"{args.out}: is a directory; --out names the HTML file to write")
    if args.out is not None:
        from simbridge._inputs import check_output_file

        check_output_file(args.out, "--out", BundleError)  # a FIFO would block the write forever
    if (path / "episode.json").is_file():
        out = write_episode_report(path, args.out)
    elif _has_trials(path):
        from simbridge._report import write_suite_report

        out = write_suite_report(path, args.out, trust_scores=args.trust_scores)
    else:
        raise BundleError(
            f"{path}: no episode.json in it or under it (simbridge report takes an episode bundle "
            "or a directory of bundles)"
        )
    print(out)
    if args.open:
        import webbrowser

        webbrowser.open(out.resolve().as_uri())
    return Exit.OK


def _has_trials(path: Path) -> bool:
    """Whether `simbridge._counting` finds anything to count under `path` (bundles, score files)."""
    from simbridge._counting import find

    found = find(path)
    return bool(found.episodes or found.bare)
