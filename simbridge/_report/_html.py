"""The episode page: one self-contained HTML file (no network: Plotly's JS, the figures and
the video are inlined).

Plotly's bundle is 4.8 MB; it is inlined gzip-compressed and base64-encoded (about 1.9 MB)
and unpacked in the browser with DecompressionStream, so a 10-minute episode page stays near
the 5 MB budget. The figures are Plotly JSON rendered by one small script that also moves a
time cursor over every plot as the video plays and seeks the video when a plot is clicked.
"""

from __future__ import annotations

import base64
import errno
import functools
import gzip
import html
import math
import tempfile
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

from simbridge._errors import BundleError
from simbridge._report._bands import bands_for
from simbridge._report._view import EpisodeView, load_episode
from simbridge._report._plots import actions_figure, evidence_windows, plotted_signals, signal_figures
from simbridge._report._track import track_figure
from simbridge._user_cache import cached_text, user_cache_dir

#: the video is re-encoded at lower quality until it fits this (base64 adds a third): with
#: Plotly (1.9 MB) and the figures, a 10-minute episode's page stays near 5 MB
VIDEO_BUDGET_BYTES = 2_200_000
#: a video still larger than this at the lowest quality is not embedded (the page says so)
MAX_VIDEO_BYTES = 25_000_000


@functools.lru_cache(maxsize=1)
def plotly_js_gz_b64() -> str:
    """Plotly's own bundled JS (plotly.offline.get_plotlyjs), gzip-compressed, base64: made once
    per Plotly version in the user cache (0.3 s of compression otherwise, in every process)."""
    import plotly

    def make() -> str:
        from plotly.offline import get_plotlyjs

        return base64.b64encode(gzip.compress(get_plotlyjs().encode("utf-8"), 9, mtime=0)).decode("ascii")

    return cached_text(user_cache_dir("report", f"plotly-{plotly.__version__}.min.js.gz.b64"), make)


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def fmt_measured(v: float | str | bool | None) -> str:
    """Measured values with enough digits to compare with the tolerance (6 significant)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.6g}" if math.isfinite(v) else str(v)
    return str(v)


def isolation_verdict(view: EpisodeView) -> str:
    """One line: what the provider guaranteed and what the audit found."""
    ep = view.bundle.episode
    iso = ep.isolation or {}
    parts = []
    if not iso:
        parts.append("not recorded")
    else:
        if "isolated" in iso:
            parts.append(f"provider {iso.get('provider', '?')}: " + ("isolated" if iso["isolated"] else "not isolated"))
        audit = iso.get("audit")
        if isinstance(audit, dict):
            probs = audit.get("problems") or []
            parts.append(
                "audit passed"
                if audit.get("ok")
                else "audit FAILED" + (f": {'; '.join(map(str, probs[:3]))}" if probs else "")
            )
    if ep.unisolated or view.score.unisolated:
        parts.append("UNISOLATED")
    return ", ".join(parts)


def _score_text(view: EpisodeView) -> str:
    s = view.score
    if s.status != "scored" or s.score is None:
        return "unscored"
    return f"{s.score:.3f}"


def _header(view: EpisodeView) -> str:
    ep, s, task = view.bundle.episode, view.score, view.task
    rows = [
        ("simulator", f"{view.sim} {ep.sim_version or ''}".strip()),
        ("agent", ep.agent or "not recorded"),
        ("provider", ep.provider or "not recorded"),
        (
            "assists",
            ", ".join(ep.assists) + " (flagged; never pooled with unassisted episodes)" if ep.assists else "none",
        ),
        ("isolation", isolation_verdict(view)),
        ("episode status", ep.status + (f" ({ep.status_detail})" if ep.status_detail else "")),
        ("score status", s.status + (f": {s.reason}" if s.reason else "")),
        ("success", "n/a" if s.success is None else ("yes" if s.success else "no")),
        ("verifier", f"{s.verifier} {s.verifier_version}".strip()),
        ("score from", view.score_source),
    ]
    gate = ""
    if s.status == "scored" and s.raw_score is not None and s.raw_score != s.score:
        gate = f' <span class="gate">(before safety gate {s.raw_score:.3f})</span>'
    mark = ' <span class="unisolated">unisolated</span>' if (ep.unisolated or s.unisolated) else ""
    mark += "".join(f' <span class="assisted">assist: {_e(a)}</span>' for a in ep.assists)
    table = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    return (
        f"<header><h1>{_e(task.id)} — {_e(task.title)}{mark}</h1>"
        f'<div class="score">score <span id="score-value">{_e(_score_text(view))}</span>{gate}</div>'
        f'<h2>Instruction as the agent saw it</h2><blockquote id="instruction">{_e(view.instruction)}</blockquote>'
        f'<table class="meta">{table}</table></header>'
    )


def _score_table(view: EpisodeView) -> str:
    s = view.score
    head = "<tr><th>component</th><th>weight</th><th>earned</th><th>points</th><th>measured</th><th>tolerance</th><th>evidence window (s)</th><th>explanation</th></tr>"
    rows = []
    for c in s.components:
        win = f"{c.window[0]:.2f} – {c.window[1]:.2f}" if c.window else ""
        cls = "ok" if c.earned >= 1 else ("part" if c.earned > 0 else "no")
        rows.append(
            f'<tr class="{cls}"><td>{_e(c.name)}</td><td>{c.weight:.2f}</td><td>{c.earned:.3f}</td>'
            f"<td>{c.points:.3f}</td><td>{_e(fmt_measured(c.measured))}</td><td>{_e(c.tolerance)}</td>"
            f"<td>{_e(win)}</td><td>{_e(c.explanation)}</td></tr>"
        )
    out = f'<h2>Score</h2><table class="grid" id="components">{head}{"".join(rows)}</table>'
    if s.safety:
        srows = []
        for sc in s.safety:
            when = "" if sc.first_violation_t is None else f"{sc.first_violation_t:.2f}"
            srows.append(
                f'<tr class="{"ok" if sc.ok else "no"}"><td>{_e(sc.name)}</td><td>{"ok" if sc.ok else "VIOLATED"}</td>'
                f"<td>{_e(when)}</td><td>{_e(sc.explanation)}</td></tr>"
            )
        out += (
            '<h3>Safety constraints</h3><table class="grid" id="safety"><tr><th>constraint</th><th>result</th>'
            f"<th>first violation (s)</th><th>explanation</th></tr>{''.join(srows)}</table>"
        )
    notes = [f"integrity: {p}" for p in view.integrity] + list(s.flags)
    dq = s.data_quality
    if dq is not None and not dq.clean:
        notes += [f for f in dq.flags() if f not in notes]
    if notes:
        out += '<h3>Flags and data quality</h3><ul id="flags">' + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul>"
    if s.explanation:
        out += f'<p class="explanation">{_e(s.explanation)}</p>'
    return out


def _video_section(view: EpisodeView) -> tuple[str, float | None]:
    """The <video> as a data URI, and the sim time of its time 0 (None: no video). The bundle's
    screen.mp4 is embedded as it is when it fits the page budget; otherwise frames/ is
    re-encoded to fit (or, without frames, a screen.mp4 under MAX_VIDEO_BYTES is embedded)."""
    from simbridge._report._video import SCREEN_MP4, encode_within, frame_times, video_t0_s

    frames = view.path / "frames"
    timed = frame_times(frames) if frames.is_dir() else []
    screen = view.path / SCREEN_MP4
    source = ""
    if screen.is_file() and (screen.stat().st_size <= VIDEO_BUDGET_BYTES or not timed):
        data = screen.read_bytes()
        t0 = video_t0_s(screen)
        t0 = t0 if t0 is not None else (timed[0][0] if timed else 0.0)
        t1 = timed[-1][0] if timed else None
        source = f"the bundle's {SCREEN_MP4}, {len(timed)} frames" if timed else f"the bundle's {SCREEN_MP4}"
        what = f"{source}, sim time from {t0:.1f}" + (f" to {t1:.1f} s" if t1 is not None else " s")
    elif timed:
        with tempfile.TemporaryDirectory() as tmp:
            video = encode_within(frames, Path(tmp) / "screen.mp4", VIDEO_BUDGET_BYTES)
            assert video is not None
            data = video.path.read_bytes()
        t0 = video.t0_s
        what = (
            f"{video.n_frames} frames, sim time {video.t0_s:.1f}–{video.t1_s:.1f} s (H.264, CRF {video.crf}"
            f"{f' capped at {video.max_kbps} kbit/s' if video.max_kbps else ''})"
        )
    else:
        return '<p class="none">No screen frames in this bundle.</p>', None
    if len(data) > MAX_VIDEO_BYTES:
        return (
            f'<p class="none">The screen video is {len(data) / 1e6:.1f} MB, over the page budget '
            f"({MAX_VIDEO_BYTES / 1e6:.0f} MB); not embedded.</p>"
        ), None
    uri = "data:video/mp4;base64," + base64.b64encode(data).decode("ascii")
    return (
        f'<p id="video-source">{_e(what)}, {len(data) / 1e6:.1f} MB. Click a plot to seek the video; the cursor '
        f"follows it.</p>"
        f'<video id="screen" controls muted preload="auto" data-t0="{t0:.3f}" src="{uri}"></video>'
    ), t0


def _csv_section(view: EpisodeView) -> str:
    """The download link of the signals as CSV (unpacked into a Blob by _CSV_JS) and its data."""
    from simbridge._report._csv import csv_payload

    sig = view.bundle.signals
    if not len(sig):
        return '<p class="none">No signal samples in this bundle.</p>'
    p = csv_payload(sig)
    name = f"{view.task.id}-{view.path.name}-signals.csv"
    rate = (
        "all columns, full rate"
        if p.step == 1
        else f"all columns, every {p.step}th sample: the full-rate CSV would exceed the page budget; "
        "the bundle's signals file has every sample"
    )
    return (
        f'<p><a id="csv-download" href="#" download="{_e(name)}" data-rows="{p.n_rows}" data-columns="{p.n_columns}" '
        f'data-step="{p.step}">Download the signals as CSV</a> ({p.n_rows} rows × {p.n_columns} columns, {rate}; '
        f"{p.csv_bytes / 1e6:.1f} MB)</p>"
        f'<script type="application/octet-stream" id="signals-csv-gz">{p.gz_b64}</script>'
    )


def _script_json(obj_json: str) -> str:
    """JSON safe inside <script>: no '</' can close the element early."""
    return obj_json.replace("</", "<\\/")


_CSS = """
body{font-family:system-ui,sans-serif;margin:1.2em auto;max-width:1200px;padding:0 1em;color:#222}
h1{font-size:1.45em;margin:.2em 0}h2{font-size:1.15em;margin:1.2em 0 .4em}h3{font-size:1em}
.score{font-size:1.3em;font-weight:600}.gate{font-weight:400;color:#a33}
.unisolated{background:#d62728;color:#fff;border-radius:4px;padding:0 .4em;font-size:.7em;vertical-align:middle}
.assisted{background:#ff7f0e;color:#fff;border-radius:4px;padding:0 .4em;font-size:.7em;vertical-align:middle}
blockquote{background:#f5f5f0;border-left:4px solid #bbb;margin:.3em 0;padding:.5em .8em}
table.meta th{text-align:left;padding-right:1em;font-weight:500;color:#555}
table.grid{border-collapse:collapse;width:100%;font-size:.9em}
table.grid td,table.grid th{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
tr.ok td:first-child{border-left:4px solid #2ca02c}tr.part td:first-child{border-left:4px solid #ff7f0e}
tr.no td:first-child{border-left:4px solid #d62728}
.plot{width:100%}.none{color:#777}video{width:640px;max-width:100%;border:1px solid #ccc;background:#000}
.legend span{display:inline-block;padding:0 .5em;margin-right:.6em;border-radius:3px}
"""

#: the CSV link: the gzipped CSV becomes a Blob URL at load, independent of the plots
_CSV_JS = r"""
(async () => {
  const a = document.getElementById('csv-download'), src = document.getElementById('signals-csv-gz');
  if (!a || !src) return;
  try {
    const bin = atob(src.textContent.trim()), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).blob();
    a.href = URL.createObjectURL(new Blob([text], {type: 'text/csv'}));
    document.body.dataset.csvReady = '1';
  } catch (e) { a.textContent = 'The CSV could not be unpacked: ' + e; }
})();
"""

_JS = r"""
(async () => {
  const status = document.getElementById('plots-status');
  try {
    const bin = atob(document.getElementById('plotly-gz').textContent.trim());
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    const code = await new Response(stream).text();
    const s = document.createElement('script'); s.textContent = code; document.head.appendChild(s);
  } catch (e) { status.textContent = 'The plotting library could not be unpacked: ' + e; throw e; }
  const figs = JSON.parse(document.getElementById('figures').textContent);
  const divs = [];
  for (const f of figs) {
    const d = document.getElementById(f.div);
    await Plotly.newPlot(d, f.fig.data, f.fig.layout, {responsive: true, displaylogo: false});
    divs.push(d);
  }
  status.textContent = '';
  const video = document.getElementById('screen');
  const t0 = video ? parseFloat(video.dataset.t0) : 0;
  function setCursor(t) {
    for (const d of divs) {
      if (d.dataset.kind !== 'time') continue;
      const shapes = (d.layout.shapes || []).filter(s => s.name !== 'cursor');
      shapes.push({type: 'line', name: 'cursor', x0: t, x1: t, y0: 0, y1: 1, xref: 'x', yref: 'paper',
                   line: {color: '#111', width: 1.5}});
      Plotly.relayout(d, {shapes: shapes});
    }
    const track = divs.find(d => d.dataset.kind === 'track');
    if (track) {
      const i = track._fullData.findIndex(tr => tr.name === 'path');
      const now = track._fullData.findIndex(tr => tr.name === 'now');
      if (i >= 0 && now >= 0) {
        const p = track._fullData[i], ts = p.customdata;
        let lo = 0, hi = ts.length - 1;  // the last path point at or before t
        while (lo < hi) { const m = (lo + hi + 1) >> 1; if (ts[m] <= t) lo = m; else hi = m - 1; }
        Plotly.restyle(track, {x: [[p.x[lo]]], y: [[p.y[lo]]]}, [now]);
      }
    }
    document.body.dataset.cursorT = t.toFixed(3);
  }
  if (video) {
    const follow = () => setCursor(t0 + video.currentTime);
    video.addEventListener('timeupdate', follow);
    video.addEventListener('seeked', follow);
  }
  for (const d of divs) {
    d.on('plotly_click', ev => {
      const p = ev.points && ev.points[0];
      if (!p) return;
      const t = d.dataset.kind === 'track' ? Number(p.customdata) : Number(p.x);
      if (!Number.isFinite(t)) return;
      if (video) video.currentTime = Math.max(0, t - t0);
      setCursor(t);
    });
  }
  document.body.dataset.plotsReady = String(divs.length);
})();
"""


def render_episode(view: EpisodeView) -> str:
    """The whole page as one string."""
    bands = bands_for(view.score)
    figs: list[tuple[str, str, go.Figure]] = [
        (f"plot-{i}", "time", f) for i, f in enumerate(signal_figures(view, bands))
    ]
    t = view.bundle.signals.t
    acts = actions_figure(view, (float(t.min()), float(t.max())) if t.size else (0.0, 1.0))
    if acts is not None:
        figs.append(("plot-actions", "time", acts))
    track = track_figure(view)
    if track is not None:
        figs.append(("plot-track", "track", track))
    _, missing = plotted_signals(view)
    fig_json = (
        "[" + ",".join(f'{{"div":"{div}","fig":{pio.to_json(fig, validate=False)}}}' for div, _, fig in figs) + "]"
    )
    video_html, _ = _video_section(view)
    windows = evidence_windows(view)
    legend = (
        '<p class="legend"><span style="background:rgba(31,119,180,0.2)">evidence window</span>'
        '<span style="background:rgba(44,160,44,0.25)">tolerance band</span>'
        '<span style="background:rgba(214,39,40,0.3)">telemetry gap / unknown</span>'
        '<span style="border-left:2px dashed #555">event</span>'
        '<span style="border-left:2px solid #d62728">safety violation</span></p>'
    )
    plots = "".join(
        f'<div class="plot" id="{div}" data-kind="{kind}"></div>' for div, kind, _ in figs if kind == "time"
    )
    miss = f'<p class="none">Not recorded: {_e(", ".join(missing))}</p>' if missing else ""
    track_html = (
        '<h2>Track</h2><div class="plot" id="plot-track" data-kind="track"></div>'
        if track is not None
        else '<h2>Track</h2><p class="none">No positions (lat_deg/lon_deg or x_m/y_m) in this bundle.</p>'
    )
    win_txt = "; ".join(f"{label}: {a:.1f}–{b:.1f} s" for a, b, label in windows)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(view.task.id)} {_e(view.score.status)} {_e(_score_text(view))} — simbridge report</title>"
        f"<style>{_CSS}</style></head><body>"
        f"{_header(view)}{_score_table(view)}"
        f'<h2>Signals the verifier used</h2>{legend}<p class="none">{_e(win_txt)}</p>'
        f'<p id="plots-status">Loading plots…</p>{plots}{miss}{track_html}'
        f"<h2>What the agent saw</h2>{video_html}"
        f"<h2>Data</h2>{_csv_section(view)}"
        f'<script type="application/octet-stream" id="plotly-gz">{plotly_js_gz_b64()}</script>'
        f'<script type="application/json" id="figures">{_script_json(fig_json)}</script>'
        f"<script>{_CSV_JS}</script><script>{_JS}</script></body></html>"
    )


def default_out(bundle: Path) -> Path:
    """BUNDLE.report.html next to the bundle directory."""
    bundle = Path(bundle).resolve()
    return bundle.parent / f"{bundle.name}.report.html"


def write_episode_report(bundle: str | Path, out: str | Path | None = None) -> Path:
    """Write the episode page; returns its path. The default is BUNDLE.report.html beside the
    bundle, not inside it: a file added to a finished bundle fails its manifest check."""
    view = load_episode(bundle)
    out = Path(out) if out is not None else default_out(view.path)
    page = render_episode(view)
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise  # a full disk is a harness fault (the command line says so, exit 4)
        raise BundleError(f"{out}: cannot write the report: {exc.strerror or exc}") from None
    return out
