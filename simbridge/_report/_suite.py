"""The suite page: a leaderboard over a directory of episode bundles (or a `simbridge eval` output).

Bundles are found by walking the directory for episode.json (results.parquet is not needed);
the numbers are `simbridge._metrics` (load_trials, compute_groups), the same as `simbridge
metrics` prints, so the page never disagrees with the command line. Rows are (agent, simulator):
one agent on two simulators is two rows, never pooled; nor are its episodes with an assist
(`reference [assist:readout]`) and without. Each episode gets its own page under
`episodes/` beside the suite page, and every cell links to its trials' pages.
"""

from __future__ import annotations

import html
import math
import urllib.parse
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from simbridge._errors import BundleError, SimbridgeError
from simbridge._metrics import Interval, Metrics, Trial, compute_groups, load_trials, with_assists

#: pass@k / pass^k columns (a k above some task's trial count is n/a with the reason)
KS = (1, 3, 5)
NO_SIM = "unknown simulator"


def _e(x: object) -> str:
    return html.escape("" if x is None else str(x))


@dataclass
class SuiteEpisode:
    """One trial of the suite: its score (from _metrics), where it is and its page."""

    trial: Trial
    sim: str
    task_id: str
    trial_no: int | None
    #: episode.json status and detail, e.g. 'sim_crashed (fdm died)' (why an episode is unscored)
    status: str = ""
    #: the episode page, relative to the suite page (None: not written, see `page_error`)
    page: str | None = None
    page_error: str | None = None


@dataclass
class Suite:
    root: Path
    episodes: list[SuiteEpisode]
    groups: dict[tuple[str | None, str], Metrics]
    notes: list[str] = field(default_factory=list)

    @property
    def tasks(self) -> list[str]:
        return sorted({e.task_id for e in self.episodes})


def _episode_meta(trial: Trial) -> tuple[str, int | None, str]:
    """(simulator, trial number, status) from the trial's episode.json (load_trials has read and
    validated it already)."""
    ep = trial.episode
    if ep is None:
        return NO_SIM, None, "no episode.json"
    status = str(ep.status or "completed") + (f" ({ep.status_detail})" if ep.status_detail else "")
    return str(ep.sim or NO_SIM), ep.trial, status


def load_suite(root: str | Path, *, trust_scores: bool = False, ks: Sequence[int] = KS) -> Suite:
    """Every episode under `root`, scored as `simbridge metrics` scores it (re-verified unless
    `trust_scores`), grouped by (agent, simulator)."""
    root = Path(root)
    if not root.is_dir():
        raise BundleError(f"{root}: not a directory")
    loaded = load_trials([(root.resolve().name, root)], trust_scores=trust_scores)
    if not loaded.trials:
        raise BundleError(f"{root}: no episode bundle (episode.json) or score.json under it")
    episodes = []
    for t in loaded.trials:
        sim, no, status = _episode_meta(t)
        t.label = sim  # rows are (agent, simulator): compute_groups never pools across labels
        episodes.append(SuiteEpisode(t, sim, t.score.task_id, no, status))
    groups = compute_groups([e.trial for e in episodes], ks)
    return Suite(root, episodes, groups, list(loaded.notes))


def _rel_page(root: Path, source: Path) -> str:
    """episodes/<path of the bundle under root>.html (POSIX, relative to the suite page)."""
    try:
        rel = source.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        rel = source.name
    return f"episodes/{rel or source.name}.html"


def write_episode_pages(suite: Suite, out_dir: Path, say: Callable[[str], None] | None = None) -> None:
    """Write each episode's page under out_dir/episodes/; an episode whose page cannot be made
    keeps its row and says why (one bad bundle must not hide the rest of the suite)."""
    from simbridge._report._html import write_episode_report

    for e in suite.episodes:
        if not (e.trial.source / "episode.json").is_file():
            e.page_error = "a bare score.json: no bundle to show"
            continue
        rel = _rel_page(suite.root, e.trial.source)
        target = out_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            write_episode_report(e.trial.source, target)
        except SimbridgeError as exc:
            e.page_error = str(exc)
            suite.notes.append(f"no episode page for {e.trial.source}: {exc}")
            continue
        e.page = rel
        if say is not None:
            say(f"episode page {target}")


def _iv(iv: Interval | None, na: str | None = None) -> tuple[str, str]:
    """(cell text, sort key) of an interval; n/a sorts last."""
    if iv is None or math.isnan(iv.value):
        return f'<span class="na" title="{_e(na or "")}">n/a</span>', ""
    return f'{iv.value:.3f} <span class="ci">[{iv.lo:.3f}, {iv.hi:.3f}]</span>', f"{iv.value:.6f}"


def _link(e: SuiteEpisode, text: str) -> str:
    s = e.trial.score
    what = (
        f"{s.score:.3f}, {'success' if s.success else 'no success'}"
        if s.status == "scored" and s.score is not None
        else f"unscored: {s.reason}"
    )
    title = f"{e.trial.source.name}: {what}"
    if e.page is None:
        return f'<span class="nolink" title="{_e(title + (" (" + e.page_error + ")" if e.page_error else ""))}">{_e(text)}</span>'
    return f'<a href="{_e(urllib.parse.quote(e.page))}" title="{_e(title)}">{_e(text)}</a>'


def _cell(m: Metrics, task: str, eps: list[SuiteEpisode]) -> tuple[str, str]:
    """A leaderboard cell: mean gated score, success rate, n (scored), unscored count, links."""
    if not eps:
        return '<td class="empty" data-sort="">—</td>', ""
    row = m.per_task.get(task)
    eps = sorted(eps, key=lambda e: (e.trial_no is None, e.trial_no or 0, str(e.trial.source)))
    links = " ".join(_link(e, f"t{e.trial_no}" if e.trial_no is not None else e.trial.source.name) for e in eps)
    n_uns = sum(1 for e in eps if e.trial.score.status != "scored")
    uns = f'<div class="uns">{n_uns} unscored</div>' if n_uns else ""
    if row is None:
        return f'<td data-sort="">{uns}<div class="trials">{links}</div></td>', ""
    key = f"{row['sgo']:.6f}"
    return (
        f'<td data-sort="{key}"><span class="cell-score">{row["sgo"]:.3f}</span> '
        f'<span class="cell-sr">{row["sr"]:.0%} success</span> <span class="n">n={int(row["n"])}</span>'
        f'{uns}<div class="trials">{links}</div></td>'
    ), key


def _leaderboard(suite: Suite) -> str:
    tasks = suite.tasks
    by_cell: dict[tuple[str | None, str, str], list[SuiteEpisode]] = defaultdict(list)
    for e in suite.episodes:
        by_cell[(with_assists(e.trial.agent, e.trial), e.sim, e.task_id)].append(e)  # the rows' own arms
    ks = sorted({k for m in suite.groups.values() for k in (*m.pass_at_k, *m.pass_na)})
    head = [
        '<th data-type="text">agent</th>',
        '<th data-type="text">simulator</th>',
        "<th>SR</th>",
        "<th>SGO</th>",
        "<th>SCR</th>",
    ]
    head += [f"<th>pass@{k}</th><th>pass^{k}</th>" for k in ks]
    head += ["<th>scored</th>", "<th>unscored</th>"]
    head += [f'<th class="task">{_e(t)}</th>' for t in tasks]
    rows = []
    for (agent, sim), m in suite.groups.items():
        cells = [
            f'<td data-sort="{_e(agent or "")}">{_e(agent or "not recorded")}</td>',
            f'<td data-sort="{_e(sim)}">{_e(sim)}</td>',
        ]
        for iv in (m.sr, m.sgo, m.scr):
            text, key = _iv(iv)
            cells.append(f'<td data-sort="{key}">{text}</td>')
        for k in ks:
            for ci in (m.pass_at_k_ci, m.pass_hat_k_ci):
                text, key = _iv(ci.get(k), m.pass_na.get(k))
                cells.append(f'<td data-sort="{key}">{text}</td>')
        cells += [
            f'<td data-sort="{m.n_scored}">{m.n_scored}</td>',
            f'<td data-sort="{m.n_unscored}">{m.n_unscored}</td>',
        ]
        for t in tasks:
            cells.append(_cell(m, t, by_cell.get((agent, sim, t), []))[0])
        rows.append(f'<tr data-agent="{_e(agent or "")}" data-sim="{_e(sim)}">{"".join(cells)}</tr>')
    return (
        f'<table class="grid sortable" id="leaderboard"><thead><tr>{"".join(head)}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _unscored(suite: Suite) -> str:
    bad = [e for e in suite.episodes if e.trial.score.status != "scored"]
    if not bad:
        return '<p class="none" id="unscored-none">Every episode was scored.</p>'
    reasons: dict[str, int] = defaultdict(int)
    for e in bad:
        reasons[f"{e.trial.score.reason or 'no reason recorded'} [episode {e.status}]"] += 1
    summary = "".join(f"<li>{n} × {_e(r)}</li>" for r, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
    rows = "".join(
        f"<tr><td>{_e(with_assists(e.trial.agent, e.trial) or 'not recorded')}</td><td>{_e(e.sim)}</td><td>{_e(e.task_id)}</td>"
        f"<td>{_link(e, e.trial.source.name)}</td><td>{_e(e.status)}</td><td>{_e(e.trial.score.reason)}</td></tr>"
        for e in sorted(bad, key=lambda e: (e.trial.agent or "", e.sim, e.task_id, str(e.trial.source)))
    )
    return (
        f"<p>{len(bad)} unscored episode{'s' if len(bad) != 1 else ''} (harness faults, undecidable "
        f'recordings): excluded from the metrics, not counted as failures.</p><ul id="unscored-reasons">{summary}</ul>'
        f'<table class="grid sortable" id="unscored"><thead><tr><th data-type="text">agent</th>'
        f'<th data-type="text">simulator</th><th data-type="text">task</th><th data-type="text">episode</th>'
        f'<th data-type="text">episode status</th><th data-type="text">reason</th></tr></thead><tbody>{rows}</tbody></table>'
    )


_CSS = """
body{font-family:system-ui,sans-serif;margin:1.2em auto;max-width:1400px;padding:0 1em;color:#222}
h1{font-size:1.45em}h2{font-size:1.15em;margin:1.2em 0 .4em}
table.grid{border-collapse:collapse;font-size:.88em}
table.grid td,table.grid th{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
table.sortable th{cursor:pointer;background:#f3f3f3;user-select:none}
th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
.ci{color:#777;font-size:.85em}.na{color:#999}.n{color:#777}.uns{color:#a33;font-size:.85em}
.cell-score{font-weight:600}.cell-sr{color:#555}.trials a{margin-right:.3em}.none{color:#777}
.empty{color:#bbb}.nolink{color:#777;border-bottom:1px dotted #999}
"""

#: click a header to sort by it (numbers by data-sort, n/a last; text columns alphabetically)
_SORT_JS = r"""
document.querySelectorAll('table.sortable').forEach(table => {
  const ths = [...table.tHead.rows[0].cells];
  ths.forEach((th, col) => th.addEventListener('click', () => {
    const cur = th.getAttribute('aria-sort');  // first click: numbers high→low, text A→Z; then toggle
    const desc = cur ? cur === 'ascending' : th.dataset.type !== 'text';
    ths.forEach(h => h.removeAttribute('aria-sort'));
    th.setAttribute('aria-sort', desc ? 'descending' : 'ascending');
    const key = tr => { const c = tr.cells[col]; return c.dataset.sort !== undefined ? c.dataset.sort : c.textContent.trim(); };
    const rows = [...table.tBodies[0].rows];
    const text = th.dataset.type === 'text';
    rows.sort((a, b) => {
      const x = key(a), y = key(b);
      if (x === '' || y === '') return (x === '') - (y === '');  // n/a last either way
      const r = text ? x.localeCompare(y) : Number(x) - Number(y);
      return desc ? -r : r;
    });
    rows.forEach(r => table.tBodies[0].appendChild(r));
  }));
});
document.body.dataset.sortReady = '1';
"""


def render_suite(suite: Suite) -> str:
    """The suite page as one string (no script or style fetched from anywhere)."""
    n = len(suite.episodes)
    n_uns = sum(1 for e in suite.episodes if e.trial.score.status != "scored")
    notes = (
        '<h2>Notes</h2><ul id="notes">' + "".join(f"<li>{_e(x)}</li>" for x in suite.notes) + "</ul>"
        if suite.notes
        else ""
    )
    unverified = sum(1 for e in suite.episodes if not e.trial.reverified and e.trial.score.status == "scored")
    banner = (
        f'<p class="uns" id="unverified"><b>UNVERIFIED</b>: {unverified} of {n} scores are score.json as '
        "stored (--trust-scores, or a score.json without its bundle), not re-derived from a verified bundle.</p>"
        if unverified
        else ""
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(suite.root.resolve().name)} — simbridge suite report</title><style>{_CSS}</style></head><body>"
        f"<h1>Suite {_e(suite.root.resolve().name)}</h1>{banner}"
        f"<p>{n} episode{'s' if n != 1 else ''} ({n - n_uns} scored, {n_uns} unscored) over "
        f"{len(suite.tasks)} task{'s' if len(suite.tasks) != 1 else ''}, from {_e(suite.root)}.</p>"
        '<h2>Leaderboard</h2><p class="none">Rows are agent × simulator. SR: task-balanced success rate; SGO: '
        "safety-gated outcome (mean gated score); SCR: safety compliance; pass@k / pass^k over each task's "
        "trials; 95% bootstrap intervals in brackets. A task cell: mean gated score, success rate and scored "
        "trials n; its trial links open the episode pages. Click a column header to sort.</p>"
        f"{_leaderboard(suite)}<h2>Unscored episodes</h2>{_unscored(suite)}{notes}"
        f"<script>{_SORT_JS}</script></body></html>"
    )


def default_suite_out(root: Path) -> Path:
    """DIR/report.html (episode pages in DIR/episodes/)."""
    return Path(root) / "report.html"


def write_suite_report(
    root: str | Path,
    out: str | Path | None = None,
    *,
    trust_scores: bool = False,
    episodes: bool = True,
    say: Callable[[str], None] | None = None,
) -> Path:
    """Write the suite page (and, unless `episodes` is False, an episode page per trial in
    episodes/ beside it); returns the suite page's path."""
    root = Path(root)
    suite = load_suite(root, trust_scores=trust_scores)
    out = Path(out) if out is not None else default_suite_out(root)
    if episodes:
        write_episode_pages(suite, out.parent, say)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render_suite(suite), encoding="utf-8")
    except OSError as exc:
        raise BundleError(f"{out}: cannot write the report: {exc.strerror or exc}") from None
    return out
