"""Time-series figures of the signals a verifier used, with what it judged drawn on them.

Each figure carries the evidence windows of the score's components (shaded), the tolerance
bands from `_bands` (green), telemetry gaps and per-signal unknown stretches (red), events
and the first safety violation (vertical lines). Samples are min/max-decimated so a long
episode stays small without hiding an excursion out of a band.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from simbridge._canonical import discrete_values, is_angle
from simbridge._report._bands import Band
from simbridge._report._view import EpisodeView

#: at most this many points per trace (a min and a max per bucket)
MAX_POINTS = 2000
#: signals drawn on the track map rather than against time
TRACK_SIGNALS = frozenset({"lat_deg", "lon_deg", "x_m", "y_m"})
_WINDOW_COLOURS = (
    "rgba(31,119,180,0.13)",
    "rgba(255,127,14,0.13)",
    "rgba(148,103,189,0.13)",
    "rgba(140,86,75,0.13)",
    "rgba(23,190,207,0.13)",
)
_GAP_COLOUR = "rgba(214,39,40,0.25)"
_BAND_COLOUR = "rgba(44,160,44,0.18)"


def decimate(
    t: np.ndarray, v: np.ndarray, max_points: int = MAX_POINTS, max_gap_s: float = np.inf
) -> tuple[np.ndarray, np.ndarray]:
    """Min/max decimation to about `max_points` samples, keeping every bucket's extremes, its
    first missing sample (so a dropout still breaks the line) and both sides of every time gap
    longer than `max_gap_s`; a NaN is inserted inside each such gap so the line breaks there."""
    t = np.asarray(t, dtype=float)
    v = np.asarray(v, dtype=float)
    n = t.size
    gap_after = np.flatnonzero(np.diff(t) > max_gap_s) if n > 1 else np.array([], dtype=int)
    if n <= max_points:
        keep = np.arange(n)
    else:
        keep_l = [0, n - 1, *gap_after, *(gap_after + 1)]
        edges = np.linspace(0, n, max(1, max_points // 2) + 1).astype(int)
        for a, b in zip(edges[:-1], edges[1:]):  # one iteration per bucket, not per sample
            if b <= a:
                continue
            seg = v[a:b]
            ok = np.isfinite(seg)
            if not ok.any():
                keep_l.append(a)
                continue
            if not ok.all():
                keep_l.append(a + int(np.flatnonzero(~ok)[0]))
            keep_l += [a + int(np.nanargmin(seg)), a + int(np.nanargmax(seg))]
        keep = np.unique(np.asarray(keep_l, dtype=int))
    tk, vk = t[keep], v[keep]
    # a NaN between the two sides of each gap: Plotly breaks the line there
    cut = np.flatnonzero(np.diff(tk) > max_gap_s) if tk.size > 1 else np.array([], dtype=int)
    cut = cut[np.isin(keep[cut], gap_after)]
    if cut.size:
        tk = np.insert(tk, cut + 1, (tk[cut] + tk[cut + 1]) / 2)
        vk = np.insert(vk, cut + 1, np.nan)
    return tk, vk


def evidence_windows(view: EpisodeView) -> list[tuple[float, float, str]]:
    """Distinct component windows (t0, t1, component names sharing it), in time order."""
    wins: dict[tuple[float, float], list[str]] = {}
    for c in view.score.components:
        if c.window is not None:
            wins.setdefault((float(c.window[0]), float(c.window[1])), []).append(c.name)
    return [(a, b, ", ".join(names)) for (a, b), names in sorted(wins.items())]


def plotted_signals(view: EpisodeView) -> tuple[list[str], list[str]]:
    """(signals drawn against time: the verifier's, then the task's `plot_signals` the bundle
    has; the verifier's signals the bundle did not record). A plot-only signal that is absent is
    simply not drawn."""
    sig = view.bundle.signals
    names = list(dict.fromkeys([*view.task.signals, *view.task.plot_signals]))
    used = [s for s in names if s not in TRACK_SIGNALS]
    return [s for s in used if s in sig], [s for s in view.task.signals if s not in sig]


#: at most this many events drawn on each signal's plot (100k events were 154 MB and 135 s)
MAX_EVENTS_DRAWN = 300


def drawn_events(events: Sequence[Any]) -> tuple[list[Any], int]:
    """The events a plot draws, at most MAX_EVENTS_DRAWN evenly spaced over the list (its first
    and last among them), and how many there are."""
    n = len(events)
    if n <= MAX_EVENTS_DRAWN:
        return list(events), n
    idx = np.unique(np.linspace(0, n - 1, MAX_EVENTS_DRAWN).round().astype(int))
    return [events[i] for i in idx], n


def signal_figure(view: EpisodeView, name: str, bands: Sequence[Band], t_range: tuple[float, float]) -> go.Figure:
    """One signal against sim time, with windows, bands, gaps, events and violations."""
    sig = view.bundle.signals
    order = np.argsort(sig.t, kind="stable")
    t, v = sig.t[order], sig[name][order]
    gap_s = view.task.max_sample_gap_s
    td, vd = decimate(t, v, MAX_POINTS, gap_s)
    if is_angle(name) and vd.size > 1:
        # a heading passing north jumps 360°: break the line there instead of drawing the jump
        with np.errstate(invalid="ignore"):
            wrap = np.flatnonzero(np.abs(np.diff(vd)) > 180.0)
        td = np.insert(td, wrap + 1, (td[wrap] + td[wrap + 1]) / 2)
        vd = np.insert(vd, wrap + 1, np.nan)
    step = discrete_values(name) is not None
    fig = go.Figure(
        go.Scatter(
            x=np.round(td, 3),
            y=vd,
            mode="lines",
            name=name,
            line={"width": 1.6, "shape": "hv" if step else "linear"},
            hovertemplate="t=%{x:.2f} s<br>" + name + "=%{y:.6g}<extra></extra>",
        )
    )
    # Shapes and annotations are collected and set once: plotly's add_vline/add_annotation copy
    # the layout's whole tuple on each call, which made a page quadratic in events.
    shapes: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []

    def vrect(x0: float, x1: float, colour: str) -> None:
        shapes.append(
            {"type": "rect", "xref": "x", "yref": "y domain", "x0": x0, "x1": x1, "y0": 0, "y1": 1,
             "fillcolor": colour, "line": {"width": 0}, "layer": "below"}
        )  # fmt: skip

    def vline(x: float, line: dict[str, Any]) -> None:
        shapes.append(
            {"type": "line", "xref": "x", "yref": "y domain", "x0": x, "x1": x, "y0": 0, "y1": 1, "line": line}
        )

    for i, (a, b, label) in enumerate(evidence_windows(view)):
        colour = _WINDOW_COLOURS[i % len(_WINDOW_COLOURS)]
        if b > a:
            vrect(a, b, colour)
        else:
            # an instant (e.g. the liftoff): dotted, so it does not read as a violation
            vline(a, {"color": "rgba(31,119,180,0.8)", "width": 1.5, "dash": "dot"})
        # staggered down from the top so windows that start close together stay readable
        notes.append(
            {"x": a, "y": 1.0 - 0.11 * (i % 4), "yref": "paper", "text": label, "showarrow": False,
             "xanchor": "left", "yanchor": "top", "font": {"size": 10, "color": "#333"},
             "bgcolor": "rgba(255,255,255,0.6)"}
        )  # fmt: skip
    for band in bands:
        if band.signal != name:
            continue
        x0 = t_range[0] if band.t0 is None else band.t0
        x1 = t_range[1] if band.t1 is None else band.t1
        if x1 - x0 < 0.005 * (t_range[1] - t_range[0]):  # judged at an instant: a visible bar there
            half = 0.004 * (t_range[1] - t_range[0])
            x0, x1 = x0 - half, x1 + half
        shapes.append(
            {"type": "rect", "xref": "x", "yref": "y", "x0": x0, "x1": x1, "y0": band.lo, "y1": band.hi,
             "fillcolor": _BAND_COLOUR, "line": {"color": "rgba(44,160,44,0.7)", "width": 1, "dash": "dot"},
             "layer": "below"}
        )  # fmt: skip
        notes.append(
            {"x": x1, "y": band.hi, "text": band.label, "showarrow": False, "xanchor": "right",
             "yanchor": "bottom", "font": {"size": 10, "color": "#2c7a2c"}}
        )  # fmt: skip
    gaps = list(sig.gaps(gap_s))
    dq = view.score.data_quality
    if dq is not None and name in dq.signals:
        gaps += [(float(g[0]), float(g[1])) for g in dq.signals[name].gaps]
    for a, b in gaps:
        vrect(a, b, _GAP_COLOUR)
    events, n_events = drawn_events(view.bundle.events)
    if len(events) < n_events:
        notes.append(
            {"x": 1.0, "xref": "paper", "y": 1.0, "yref": "paper", "showarrow": False, "xanchor": "right",
             "yanchor": "bottom", "text": f"{len(events)} of {n_events} events drawn, evenly spaced",
             "font": {"size": 9, "color": "#a00"}}
        )  # fmt: skip
    for e in events:
        vline(e.t, {"color": "rgba(60,60,60,0.6)", "width": 1, "dash": "dash"})
        notes.append(
            {"x": e.t, "y": 0.0, "yref": "paper", "text": e.kind, "showarrow": False, "textangle": -90,
             "xanchor": "right", "yanchor": "bottom", "font": {"size": 9, "color": "#555"}}
        )  # fmt: skip
    for s in view.score.safety:
        if not s.ok and s.first_violation_t is not None:
            vline(s.first_violation_t, {"color": "#d62728", "width": 2})
    fig.update_layout(shapes=shapes, annotations=notes)
    fig.update_layout(
        height=230,
        margin={"l": 70, "r": 20, "t": 24, "b": 36},
        template="plotly_white",
        showlegend=False,
        hovermode="x",  # a click anywhere over the plot picks the sample at that time (seeks the video)
        xaxis={"title": {"text": "sim time (s)", "standoff": 4}, "range": list(t_range)},
        yaxis={"title": {"text": name}},
        meta={"signal": name},
    )
    return fig


def signal_figures(view: EpisodeView, bands: Sequence[Band]) -> list[go.Figure]:
    """One figure per recorded signal the task's verifier reads, on a common time axis."""
    names, _ = plotted_signals(view)
    t = view.bundle.signals.t
    t_range = (float(np.min(t)), float(np.max(t))) if t.size else (0.0, 1.0)
    return [signal_figure(view, n, bands, t_range) for n in names]


#: at most this many actions drawn (a runaway agent's log must not blow up the page)
MAX_ACTIONS = 5000


def actions_figure(view: EpisodeView, t_range: tuple[float, float]) -> go.Figure | None:
    """The agent's actions (actions.jsonl) against sim time, one row per action kind; failed
    actions in red with their error. None when the bundle has no timed actions."""
    acts = [a for a in view.bundle.actions if isinstance(a.get("t"), (int, float)) and isinstance(a.get("kind"), str)]
    if not acts:
        return None
    shown = acts[:MAX_ACTIONS]
    ok = [a for a in shown if not a.get("error")]
    bad = [a for a in shown if a.get("error")]

    def _hover(a: dict) -> str:
        args = json.dumps(a.get("args", {}), default=str)
        text = f"{a['kind']} {args[:120]}"
        return text + (f"<br>error: {str(a['error'])[:160]}" if a.get("error") else "")

    fig = go.Figure()
    for group, colour, label in ((ok, "#1f77b4", "action"), (bad, "#d62728", "failed action")):
        if group:
            fig.add_trace(
                go.Scatter(
                    x=[round(float(a["t"]), 3) for a in group],
                    y=[a["kind"] for a in group],
                    mode="markers",
                    name=label,
                    marker={
                        "color": colour,
                        "size": 7,
                        "symbol": "line-ns-open",
                        "line": {"width": 2, "color": colour},
                    },
                    text=[_hover(a) for a in group],
                    hovertemplate="t=%{x:.2f} s<br>%{text}<extra></extra>",
                )
            )
    kinds = sorted({a["kind"] for a in shown})
    title = f"agent actions ({len(acts)}" + (f", first {MAX_ACTIONS} shown" if len(acts) > MAX_ACTIONS else "") + ")"
    fig.update_layout(
        height=max(140, 60 + 22 * len(kinds)),
        margin={"l": 70, "r": 20, "t": 28, "b": 36},
        template="plotly_white",
        # legend above, not beside: the time axis must line up with the signal plots'
        showlegend=bool(bad),
        legend={"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
        hovermode="closest",
        title={"text": title, "font": {"size": 12}, "x": 0.01},
        xaxis={"title": {"text": "sim time (s)", "standoff": 4}, "range": list(t_range)},
        yaxis={"type": "category", "categoryarray": kinds},
        meta={"signal": "actions"},
    )
    return fig
