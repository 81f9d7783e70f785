"""The readable form of an isolation audit report, shared by `simbridge isolation audit` and
`simbridge vm check` (the JSON form is what episode.json stores)."""

from __future__ import annotations


def print_report(report: dict, title: str) -> None:
    """The readable form of an audit report (the JSON form is what episode.json stores)."""
    blocked = sum(p["result"] == "blocked" for p in report["probes"])
    print(f"{title} (as user {report['user']} uid {report['uid']})")
    print(f"  network probes: {blocked}/{len(report['probes'])} blocked")
    for p in report["probes"]:
        if p["result"] != "blocked":
            print(f"    {p['proto']}/{p['port']} on {p['addr']}: {p['result']} ({p['detail']})")
    if "host_side" in report:
        print(f"  host side -> state ports: {report['host_side'] or 'none in the lockdown list'}")
    print(f"  X clients: {len(report['x_clients'])}, unexpected: {sum(not c['allowed'] for c in report['x_clients'])}")
    for name, c in (report.get("consoles") or {}).items():
        print(f"  console {name!r}: {c['state']} ({c.get('evidence', '')})")
    for c in report["problems"]:
        print(f"  PROBLEM: {c}")
    print("  result:", "PASS" if report["ok"] else "FAIL")
