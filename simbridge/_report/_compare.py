"""The comparison page: `simbridge compare ... --html OUT`, one self-contained HTML file (no
script, no fetched asset), rendering the data `simbridge._compare.compare` returns."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from simbridge._compare import interval_text

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left}
th{background:#f2f2f2}
td.better{background:#e3f4e3}td.worse{background:#f8e1e1}
"""


def _f(v: float | None, fmt: str = ".3f") -> str:
    return "—" if v is None else format(v, fmt)


def _diff_cell(s: dict[str, Any]) -> str:
    cls = ""
    if s["lo"] is not None and s["hi"] is not None:
        cls = "better" if s["lo"] > 0 else "worse" if s["hi"] < 0 else ""
    return f'<td class="diff {cls}">{escape(interval_text(s))}</td>'


def compare_html(data: dict[str, Any]) -> str:
    arms = data["arms"]
    h = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        f"<title>simbridge compare: {escape(' vs '.join(arms))}</title><style>{_CSS}</style></head><body>",
        f"<h1>{escape(' vs '.join(arms))}</h1>",
        f"<p>Arms are {escape(data['by'])}s; reference {escape(str(data['reference']))}. Every score re-derived "
        f"from its verified bundle ({data['n_reverified']} re-verified). Differences: arm − reference, "
        "95 % bootstrap interval, Wilcoxon signed-rank p, pairs by task and trial index (else seed).</p>",
        '<h2>Per task</h2><table id="per-task"><tr><th>task</th><th>difficulty measured / catalog</th>',
    ]
    h += [f"<th>{escape(a)}: success / mean score</th>" for a in arms]
    h += [f"<th>{escape(p['arm'])} − {escape(p['reference'])}</th>" for p in data["paired"]]
    h.append("</tr>")
    for task in data["tasks"]:
        d = data["difficulty"][task]
        row = [f"<tr data-task='{escape(task)}'><td>{escape(task)}</td>"]
        row.append(f"<td>{_f(d['measured'], '.2f')} / {d['catalog'] if d['catalog'] is not None else '—'}</td>")
        for a in arms:
            x = data["per_arm"][a]["tasks"][task]
            row.append(f"<td>{_f(x['success_rate'], '.2f')} / {_f(x['mean_score'])} (n={x['n_scored']})</td>")
        row += [_diff_cell(p["tasks"][task]["score"]) for p in data["paired"]]
        h.append("".join(row) + "</tr>")
    h.append("</table>")
    for p in data["paired"]:
        h.append(
            f"<p class=overall>Overall {escape(p['arm'])} − {escape(p['reference'])}: "
            f"{escape(interval_text(p['overall']))}</p>"
        )
        h.append(f"<h2>Per item: {escape(p['arm'])} − {escape(p['reference'])}</h2>")
        h.append('<table class="per-item"><tr><th>task</th><th>item</th><th>difference (earned)</th></tr>')
        for task, v in p["tasks"].items():
            for name, s in v["items"].items():
                h.append(f"<tr><td>{escape(task)}</td><td>{escape(name)}</td>{_diff_cell(s)}</tr>")
        h.append("</table>")
    h.append('<h2>Items each fails most</h2><table id="fails"><tr><th>arm</th><th>items (fail rate)</th></tr>')
    for a in arms:
        fails = data["per_arm"][a]["fails_most"]
        txt = ", ".join(f"{f['task_id']}/{f['item']} {f['fail_rate']:.0%}" for f in fails) or "none"
        h.append(f"<tr><td>{escape(a)}</td><td>{escape(txt)}</td></tr>")
    h.append("</table>")
    h.append(
        '<h2>Cost per episode (mean)</h2><table id="cost"><tr><th>arm</th><th>task</th><th>wall s</th>'
        "<th>CPU s</th><th>actions</th><th>tokens</th><th>cost $</th></tr>"
    )
    for a in arms:
        for task in data["tasks"]:
            c = data["per_arm"][a]["tasks"][task]["cost"]
            h.append(
                f"<tr><td>{escape(a)}</td><td>{escape(task)}</td><td>{_f(c['wall_s'], '.1f')}</td>"
                f"<td>{_f(c['cpu_s'], '.1f')}</td><td>{_f(c['actions'], '.0f')}</td>"
                f"<td>{_f(c['tokens'], '.0f')}</td><td>{_f(c['cost_usd'], '.4f')}</td></tr>"
            )
    h.append("</table>")
    if data["notes"]:
        h.append("<h2>Notes</h2><ul>" + "".join(f"<li>{escape(n)}</li>" for n in data["notes"]) + "</ul>")
    h.append("</body></html>")
    return "\n".join(h)


def write_compare_page(data: dict[str, Any], out: Path) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(compare_html(data), encoding="utf-8")
    return out
