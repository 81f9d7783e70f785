"""`simbridge review`: blind grading campaigns over recorded runs, and how far the raters agree —
with each other and with the verifiers; `serve` is the raters' web app."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from typing import TYPE_CHECKING

from simbridge._cli._args import number
from simbridge._errors import SimbridgeError
from simbridge._exit import Exit

if TYPE_CHECKING:
    from simbridge._review.store import Store

_EPILOG = """examples:
  simbridge review campaign create c1 runs/ --raters ann,bob,cy --per-run 2 --seed 7
                                                       prints each new rater's secret sign-in link
  simbridge review link bob --base-url http://lab:8765  a new link for bob (the old one stops working)
  simbridge review campaign assign c1 --rater ann      ann's worklist (blind ids only)
  simbridge review import-grades grades.csv            columns: campaign, run, rater, competency, level[, evidence]
  simbridge review agreement c1 --json                 ICC, Spearman, Kendall's W, Krippendorff's alpha, p-values
  simbridge review campaign export c1 --csv grades.csv
  simbridge review serve runs/ --port 8765              raters sign in with their link and grade beside the replay

The store is ./review.sqlite unless --db names a file or a SQLAlchemy URL (postgresql://...)."""


#: argparse types: a count is a whole number ≥ 0, a TCP port 1-65535 (the one wording of `number`)
_count = number(int, lo=0)
_port = number(int, lo=1, hi=65535)
#: the permutation test's size and seed (numpy's seeds are 32-bit); bounds keep one command's work finite
MAX_CLI_PERMUTATIONS = 1_000_000
_permutations = number(int, lo=0, hi=MAX_CLI_PERMUTATIONS)
_seed = number(int, lo=0, hi=2**32 - 1)
DEFAULT_BASE_URL = "http://127.0.0.1:8765"


def _store(args: argparse.Namespace) -> Store:
    from simbridge._review.store import Store

    return Store(args.db)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "review",
        help="blind grading campaigns and inter-rater agreement",
        description=(__doc__ or "").strip(),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rsub = p.add_subparsers(dest="review_command", metavar="SUBCOMMAND", required=True)

    def with_db(q: argparse.ArgumentParser) -> argparse.ArgumentParser:
        q.add_argument("--db", metavar="URL", help="SQLite file or SQLAlchemy URL (default ./review.sqlite)")
        return q

    camp = rsub.add_parser("campaign", help="create, assign, list and export campaigns")
    csub = camp.add_subparsers(dest="campaign_command", metavar="ACTION", required=True)
    c = with_db(csub.add_parser("create", help="a blind campaign over the bundles in DIR"))
    c.add_argument("name")
    c.add_argument("directory", type=Path, metavar="DIR")
    c.add_argument("--raters", required=True, help="comma-separated rater names")
    c.add_argument("--per-run", type=_count, required=True, metavar="K", help="distinct raters per run")
    c.add_argument("--seed", type=_seed, default=0, metavar="S", help="seed of the assignment and blind ids (< 2^32)")
    c.add_argument("--rubric", help="flight, driving or a rubric YAML (default: by the first run's task tags)")
    c.add_argument(
        "--base-url", default=DEFAULT_BASE_URL, help=f"the app's address in the links (default {DEFAULT_BASE_URL})"
    )
    c.set_defaults(func=_create)
    a = with_db(csub.add_parser("assign", help="assign bundles added to DIR since; print the assignments"))
    a.add_argument("name")
    a.add_argument("--rater", help="only this rater's worklist")
    a.set_defaults(func=_assign)
    ls = with_db(csub.add_parser("list", help="campaigns with their runs, raters and grades"))
    ls.set_defaults(func=_list)
    e = with_db(csub.add_parser("export", help="every grade with the run identities, as CSV or Parquet"))
    e.add_argument("name")
    g = e.add_mutually_exclusive_group(required=True)
    g.add_argument("--csv", type=Path, metavar="F")
    g.add_argument("--parquet", type=Path, metavar="F")
    e.set_defaults(func=_export)

    i = with_db(rsub.add_parser("import-grades", help="load grades from a CSV (all rows or none)"))
    i.add_argument("csv", type=Path, metavar="CSV")
    i.set_defaults(func=_import)

    lk = with_db(rsub.add_parser("link", help="issue a rater a new secret sign-in link (voids the old link)"))
    lk.add_argument("rater", metavar="RATER")
    lk.add_argument("--base-url", default=DEFAULT_BASE_URL, help=f"the app's address (default {DEFAULT_BASE_URL})")
    lk.set_defaults(func=_link)

    sv = with_db(rsub.add_parser("serve", help="the raters' web app over the campaigns of DIR (sign-in links)"))
    sv.add_argument("directory", type=Path, metavar="DIR")
    sv.add_argument("--port", type=_port, default=8765, metavar="P")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sv.set_defaults(func=_serve)

    ag = with_db(rsub.add_parser("agreement", help="inter-rater agreement and verifiers vs raters"))
    ag.add_argument("name", metavar="CAMPAIGN")
    ag.add_argument(
        "--permutations",
        type=_permutations,
        default=1000,
        metavar="N",
        help=f"permutation test size (0: none; at most {MAX_CLI_PERMUTATIONS})",
    )
    ag.add_argument("--seed", type=_seed, default=0)
    ag.add_argument("--json", action="store_true")
    ag.set_defaults(func=_agreement)


def _link_line(base_url: str, rater: str, key: str) -> str:
    from urllib.parse import quote

    return f"  {rater}  {base_url.rstrip('/')}/signin?key={quote(key, safe='')}"


def _create(args: argparse.Namespace) -> int:
    from simbridge._review.campaign import create_campaign, issue_keys

    store = _store(args)
    plan = create_campaign(
        store, args.name, args.directory, args.raters.split(","), args.per_run, args.seed, args.rubric
    )
    loads: dict[str, int] = {}
    for raters in plan.values():
        for r in raters:
            loads[r] = loads.get(r, 0) + 1
    print(
        f"campaign {args.name}: {len(plan)} runs, {args.per_run} raters each; loads: "
        + ", ".join(f"{r} {n}" for r, n in sorted(loads.items()))
    )
    keys = issue_keys(store, sorted(loads))
    print("sign-in links (secret: give each rater their own only; `simbridge review link RATER` issues a new one):")
    for rater, key in keys.items():
        print(_link_line(args.base_url, rater, key) if key else f"  {rater}  (has a link already)")
    return Exit.OK


def _link(args: argparse.Namespace) -> int:
    from simbridge._review.campaign import issue_keys

    key = issue_keys(_store(args), [args.rater], reissue=True)[args.rater]
    assert key is not None
    print(f"new sign-in link for {args.rater} (the old link and its sessions no longer work):")
    print(_link_line(args.base_url, args.rater, key))
    return Exit.OK


def _assign(args: argparse.Namespace) -> int:
    from simbridge._review.campaign import assign_new_runs, assignments

    store = _store(args)
    new = assign_new_runs(store, args.name)
    if new:
        print(f"{len(new)} new run(s) assigned", file=sys.stderr)
    for blind, rater, task, comps in assignments(store, args.name, args.rater):
        print(f"{blind}\t{rater}\t{task}\t{','.join(comps)}")
    return Exit.OK


def _list(args: argparse.Namespace) -> int:
    from simbridge._review.campaign import campaigns_table

    rows = campaigns_table(_store(args))
    print(f"{'campaign':20} {'runs':>5} {'raters':>6} {'grades':>6}  rubric")
    for name, runs, raters, grades, rubric in rows:
        print(f"{name:20} {runs:5d} {raters:6d} {grades:6d}  {rubric}")
    return Exit.OK


def _export(args: argparse.Namespace) -> int:
    from simbridge._inputs import check_output_file
    from simbridge._review.campaign import grades_frame, write_grades_csv

    check_output_file(args.csv or args.parquet, "--csv" if args.csv else "--parquet")  # never a FIFO
    try:
        if args.csv:
            n = write_grades_csv(_store(args), args.name, args.csv)
        else:
            df = grades_frame(_store(args), args.name)
            df.to_parquet(args.parquet, index=False)
            n = len(df)
    except OSError as exc:
        raise SimbridgeError(f"{args.csv or args.parquet}: cannot write: {exc.strerror or exc}") from None
    print(f"{n} grade(s) written to {args.csv or args.parquet}")
    return Exit.OK


def _import(args: argparse.Namespace) -> int:
    from simbridge._review.campaign import import_grades

    n = import_grades(_store(args), args.csv)
    print(f"{n} grade(s) imported from {args.csv}")
    return Exit.OK


def _serve(args: argparse.Namespace) -> int:
    from simbridge._review.app import serve

    _check_port_free(args.host, args.port)
    try:
        serve(args.directory, args.db, args.host, args.port)
    except KeyboardInterrupt:
        pass
    except SystemExit as exc:  # uvicorn exits when it cannot start (the port taken meanwhile)
        raise SimbridgeError(
            f"--port {args.port}: the web app could not start on {args.host} (exit {exc.code})"
        ) from None
    return Exit.OK


def _check_port_free(host: str, port: int) -> None:
    """A one-line error, before anything is printed, when HOST:PORT cannot be listened on (in
    use, or an address of no interface here); binds the way uvicorn does (SO_REUSEADDR)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise SimbridgeError(f"--host {host}: not an address to listen on ({exc})") from None
    family, kind, proto, _name, addr = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
        except OSError as exc:
            raise SimbridgeError(f"--port {port}: cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def _agreement(args: argparse.Namespace) -> int:
    from simbridge._review.report import agreement_report

    rep = agreement_report(_store(args), args.name, args.permutations, args.seed)
    if args.json:
        print(json.dumps(rep, indent=2))
        return Exit.OK
    print(
        f"campaign {rep['campaign']} (rubric {rep['rubric']}, raters {', '.join(rep['raters'])}, "
        f"{rep['permutations']} permutations, seed {rep['seed']})"
    )
    for group, g in rep["groups"].items():
        print(f"\n== {group} runs ({g['n_runs']})")
        for comp, stats in [*g["competencies"].items(), ("overall", g["overall"])]:
            print(f"  {comp}")
            for name, st in stats.items():
                val = (
                    (f"{st['value']:.3f}  p={st['p_value']:.4f}" if st["p_value"] is not None else f"{st['value']:.3f}")
                    if st["value"] is not None
                    else f"undefined ({st['undefined']})"
                )
                print(f"    {name:20} {val}")
        print("  deviation from the modal grade (rater: d=count)")
        for rater, counts in g["deviation"].items():
            print(f"    {rater:20} " + " ".join(f"{d}={n}" for d, n in counts.items()))
    if rep["verdicts"]:
        print("\n== verdicts by the rubric's rule (modal grade of each run)")
        for agent, v in rep["verdicts"].items():
            print(
                f"  {agent:20} overall {v['overall']}: "
                + ", ".join(f"{c} {'S' if s == 'Satisfactory' else 'U'}" for c, s in v.items() if c != "overall")
            )
    if rep["verifiers"]:
        print("\n== verifiers vs raters' consensus")
        for task, v in rep["verifiers"].items():
            st = v["spearman"]
            rho = f"rho={st['value']:.3f}" if st["value"] is not None else f"undefined ({st['undefined']})"
            print(f"  {task}: {v['n_runs']} runs, {rho}")
            for d in v["disagreements"][:3]:
                print(
                    f"    {d['run']}  verifier {d['verifier_score']:.2f}  raters {d['consensus_01']:.2f}  "
                    f"{d['bundle_path']}"
                )
    return Exit.OK
