"""`simbridge signals`: the canonical signal vocabulary a verifier is written against, with each
name's physical range, and per simulator the signals its adapter records and its conventions."""

from __future__ import annotations

import argparse
import json

from simbridge._errors import SimbridgeError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("signals", help="the canonical signals (units in the names) and each simulator's conventions")
    p.add_argument("--sim", help="only the signals this simulator records, with its conventions")
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.set_defaults(func=_signals)


def _recorded(sim: str) -> tuple[tuple[str, ...], dict[str, str]]:
    """The canonical signals `sim`'s session declares, and its AdapterSpec's conventions."""
    from simbridge._adapters_registry import adapter
    from simbridge.registry import load

    spec = adapter(sim)
    names: tuple[str, ...] = ()
    if spec.session:
        names = tuple(getattr(load(spec.session, f"simulator {sim!r}"), "signals", ()) or ())
    return names, dict(spec.conventions)


def _signals(args: argparse.Namespace) -> int:
    from simbridge._canonical import DISCRETE, RANGES, SIGNALS, physical_range

    names: list[str] = list(SIGNALS)
    conventions: dict[str, str] = {}
    if args.sim:
        recorded, conventions = _recorded(args.sim)
        if not recorded:
            raise SimbridgeError(f"simulator {args.sim!r} declares no signals (its session has no `signals`)")
        names = [n for n in recorded if n in SIGNALS]
    rows = []
    for n in names:
        rng = physical_range(n) or RANGES.get(n)
        values = DISCRETE.get(n)
        rows.append(
            {
                "name": n,
                "meaning": SIGNALS[n],
                "range": None if rng is None else list(rng),
                "values": None if values is None else sorted(values),
                **({"convention": conventions[n]} if n in conventions else {}),
            }
        )
    if args.json:
        print(json.dumps({"sim": args.sim, "signals": rows, "conventions": conventions}, indent=1))
        return 0
    width = max((len(n) for n in names), default=10)
    for r in rows:
        extra = ""
        if r["values"] is not None:
            extra = "  values " + "/".join(f"{v:g}" for v in r["values"])
        elif r["range"] is not None:
            extra = f"  range {r['range'][0]:g}..{r['range'][1]:g}"
        print(f"{r['name']:<{width}}  {r['meaning']}{extra}")
    if conventions:
        print(f"\n{args.sim}'s conventions:")
        for k, v in conventions.items():
            print(f"  {k}: {v}")
    return 0
