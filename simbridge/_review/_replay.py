"""The blind replay of a run for raters: the episode report's video, signal plots and track,
synced, with everything that identifies the agent or reveals the verifier's result left out.

Built from the report's pieces (simbridge/_report) rather than by editing the report page: the
header (agent, provider, score), the score table, the flags, the evidence windows, the actions log
(an agent's tool calls look nothing like a human's keys) and the CSV link (its file name carries
the trial directory) are not drawn. The verifier's score is replaced by a neutral unscored one
before the plots are made, so no band, window or safety marker derived from it can leak."""

from __future__ import annotations

import dataclasses
import functools
import html
from pathlib import Path

import plotly.io as pio

from simbridge._report._bands import bands_for
from simbridge._report._view import load_episode
from simbridge._report._html import _CSS, _JS, _script_json, _video_section, plotly_js_gz_b64
from simbridge._report._plots import plotted_signals, signal_figures
from simbridge._report._track import track_figure
from simbridge._bundle import check_bundle_dir
from simbridge._score import Score


def _e(x: object) -> str:
    return html.escape("" if x is None else str(x))


def replay_page(bundle_path: str, blind_id: str) -> str:
    """The rater's replay of one bundle as a self-contained HTML page titled by its blind id only;
    a bundle holding a symlink or a special file is refused (SimbridgeError)."""
    check_bundle_dir(bundle_path)  # a BundleError is a SimbridgeError: the app answers 409
    return _replay_page(bundle_path, blind_id)


@functools.lru_cache(maxsize=16)
def _replay_page(bundle_path: str, blind_id: str) -> str:
    """Cached: a bundle is immutable once recorded, and the plots take a second to build."""
    view = load_episode(Path(bundle_path))
    neutral = Score.unscored(view.task.id, view.task.verifier.name, "hidden from raters")
    view = dataclasses.replace(view, score=neutral, score_source="hidden", integrity=[])
    # the neutral score carries no bands: the verifier's tolerance bands, like its windows, stay hidden
    figs = [(f"plot-{i}", "time", f) for i, f in enumerate(signal_figures(view, bands_for(view.score)))]
    track = track_figure(view)
    if track is not None:
        figs.append(("plot-track", "track", track))
    _, missing = plotted_signals(view)
    fig_json = "[" + ",".join(f'{{"div":"{d}","fig":{pio.to_json(f, validate=False)}}}' for d, _, f in figs) + "]"
    video_html, _ = _video_section(view)
    plots = "".join(f'<div class="plot" id="{d}" data-kind="{k}"></div>' for d, k, _ in figs if k == "time")
    miss = f'<p class="none">Not recorded: {_e(", ".join(missing))}</p>' if missing else ""
    track_html = (
        '<h2>Track</h2><div class="plot" id="plot-track" data-kind="track"></div>'
        if track is not None
        else '<h2>Track</h2><p class="none">No positions in this recording.</p>'
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>replay {_e(blind_id)}</title><style>{_CSS}</style></head><body>"
        f"<h1>Run {_e(blind_id)} — {_e(view.task.id)} {_e(view.task.title)}</h1>"
        f'<h2>Instruction given</h2><blockquote id="instruction">{_e(view.instruction)}</blockquote>'
        f"<h2>Screen</h2>{video_html}"
        f'<h2>Signals</h2><p id="plots-status">Loading plots…</p>{plots}{miss}{track_html}'
        f'<script type="application/octet-stream" id="plotly-gz">{plotly_js_gz_b64()}</script>'
        f'<script type="application/json" id="figures">{_script_json(fig_json)}</script>'
        f"<script>{_JS}</script></body></html>"
    )
