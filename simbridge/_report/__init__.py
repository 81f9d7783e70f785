"""`simbridge report`: self-contained HTML pages of episodes (plots, track, video) and suites
(leaderboard), offline; `finish_episode_outputs` (screen.mp4 + page) for `simbridge run`.

Pages inline everything they need (Plotly's JS, gzip-compressed; figure data downsampled; the
video as a data URI) so a report can be mailed or archived and opened without a network.

Names are imported on first use (PEP 562): `simbridge run` imports finish_episode_outputs
without the 'report' extra installed and is told what is missing instead of failing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real names, for type checkers and editors
    from simbridge._report._view import EpisodeView, load_episode
    from simbridge._report._finish import EpisodeOutputs, finish_episode_outputs
    from simbridge._report._html import write_episode_report
    from simbridge._report._suite import load_suite, write_suite_report
    from simbridge._report._video import encode_screen_video

_WHERE = {
    "EpisodeView": "_view",
    "load_episode": "_view",
    "write_episode_report": "_html",
    "load_suite": "_suite",
    "write_suite_report": "_suite",
    "encode_screen_video": "_video",
    "EpisodeOutputs": "_finish",
    "finish_episode_outputs": "_finish",
}

__all__ = [
    "EpisodeOutputs",
    "EpisodeView",
    "encode_screen_video",
    "finish_episode_outputs",
    "load_episode",
    "load_suite",
    "write_episode_report",
    "write_suite_report",
]
assert sorted(__all__) == sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
