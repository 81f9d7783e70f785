"""`simbridge run TASK --sim SIM --agent AGENT`: fly trials, write a bundle per trial, score them.

    simbridge run T09 --sim jsbsim --agent reference --out runs/demo
    simbridge run T09 --sim jsbsim --agent scripted:my_turn.yaml --trials 5 --lockstep   # your own timed-actions YAML
    simbridge run T09 --sim jsbsim --agent mcp        # prints the agent port URL, waits for a client
    simbridge run T09 --sim jsbsim --agent mcp --assist readout   # with the cockpit's readout strip (flagged)
    simbridge run T09 --sim jsbsim --agent human      # prints a VNC address (needs x11vnc)

Exit codes: 0 every trial scored and ended by the agent's `done` (or a crash the verifier
judged); 3 every trial scored, but at least one ended by the agent's own failure (gave up,
timed out, disconnected, raised); 4 at least one trial unscored (a harness fault: simulator
crash, launch failure, failed audit, Ctrl-C is 130); 2 bad usage (unknown task, simulator,
agent or assist, invalid numbers, a preflight check failed: nothing was run).
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from simbridge._run_config import DEFAULT_LOCKSTEP_SLICE_S
from simbridge._cli._args import MAX_TIME_LIMIT_S, number, writable_dir
from simbridge._exit import RUN_ENDING, Exit
from simbridge._providers import providers
from simbridge.registry import registry


EPILOG = """exit codes: 0 all trials scored, agent said done; 3 all scored, some agent failure (gave up,
timed out, disconnected); 4 some trial unscored (harness fault); 2 bad usage or a failed preflight
check; 130 interrupted. The agent port's URL and ready flag are in RUN_DIR/agent_port.json."""


def _choices(kind: str) -> str:
    """The registered names of `kind` (simbridge.registry), built-ins first, for `--help`: a name,
    or the usage its one-line description starts with ("scripted:FILE: ..." shows scripted:FILE)."""
    reg = registry()
    out = []
    for name, entry in reg.entries(kind).items():
        if kind == "simulator" and not reg.get(kind, name).session:
            continue  # a simulator whose runs can only be imported
        usage = entry.doc.split(": ", 1)[0]
        out.append(usage if usage.startswith(name) and " " not in usage else name)
    return " | ".join(out)


def _assists() -> str:
    """The assists each registered simulator offers (its AdapterSpec), for `--help`."""
    from simbridge._adapters_registry import adapters

    return "; ".join(f"{name}: {', '.join(sorted(a.assists))}" for name, a in adapters().items() if a.assists)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run an agent on a task in a simulator and score each trial", epilog=EPILOG)
    p.add_argument("task", help="task id, e.g. T09")
    p.add_argument("--sim", required=True, help=f"simulator: {_choices('simulator')}, or module:SessionClass")
    p.add_argument("--agent", required=True, help=f"agent: {_choices('agent')}")
    p.add_argument("--trials", type=number(int, lo=1), default=1, help="number of trials (default 1)")
    p.add_argument("--out", type=Path, default=None, help="parent directory of the run (default runs/)")
    p.add_argument(
        "--lockstep",
        action="store_true",
        help="pause the simulator while the agent decides; run a fixed slice after each input",
    )
    p.add_argument(
        "--slice",
        type=number(float, lo=0, lo_open=True, hi=60),
        default=DEFAULT_LOCKSTEP_SLICE_S,
        dest="slice_s",
        help=f"lockstep slice in simulator seconds (default {DEFAULT_LOCKSTEP_SLICE_S:g})",
    )
    p.add_argument(
        "--seed", type=number(int, lo=0, hi=2**63 - 1), default=None, help="seed of trial 1 (trial i uses seed+i-1)"
    )
    p.add_argument(
        "--provider",
        default="local",
        choices=providers(),
        help=f"sandbox provider: {_choices('provider')} (default local)",
    )
    p.add_argument(
        "--unisolated",
        action="store_true",
        help="run even if the isolation audit fails; every score is marked unisolated",
    )
    p.add_argument(
        "--snapshot-at",
        type=number(float, lo=0),
        action="append",
        default=[],
        metavar="T",
        help="save a PNG of the screen at simulator time T (repeatable)",
    )
    p.add_argument(
        "--frame-hz",
        type=number(float, lo=0, hi=30),
        default=1.0,
        help="screen frames per simulator second (0 = none)",
    )
    p.add_argument(
        "--time-limit",
        type=number(float, lo=0, lo_open=True, hi=MAX_TIME_LIMIT_S),
        default=None,
        help=f"end earlier than the task's limit (simulator seconds, at most {MAX_TIME_LIMIT_S:g}; "
        "flagged in episode.json)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        dest="mcp_host",
        help="address the agent port's MCP server listens on (default 127.0.0.1; 0.0.0.0 for remote "
        "agents, with --token)",
    )
    p.add_argument(
        "--port",
        type=number(int, lo=0, hi=65535),
        default=0,
        dest="mcp_port",
        help="TCP port of the agent port's MCP server (default: a free one, printed and in agent_port.json)",
    )
    p.add_argument(
        "--token",
        default=None,
        help="bearer token the MCP client must send (Authorization: Bearer TOKEN); default "
        "$SIMBRIDGE_AGENT_TOKEN if set, else a fresh random one per episode (printed, and in agent_port.json)",
    )
    p.add_argument(
        "--no-token",
        action="store_false",
        dest="auth",
        help="let any client on the network use the agent port without a token (the episode is marked "
        "agent_port_auth: none and its score flagged)",
    )
    p.add_argument(
        "--assist",
        action="append",
        default=[],
        dest="assists",
        metavar="NAME",
        help=f"show an assist the simulator offers beyond the real vehicle's displays (repeatable; "
        f"{_assists() or 'none offered'}). Recorded in episode.json `assists`, the score flagged assist:NAME "
        "and never pooled with unassisted runs (default: the vehicle's own displays only)",
    )
    p.add_argument(
        "--no-computer-screenshot",
        action="store_false",
        dest="computer_screenshot",
        help="the MCP `computer` tool returns {ok: true} after an action instead of the screen",
    )
    p.add_argument(
        "--connect-timeout",
        type=number(float, lo=0, lo_open=True),
        default=None,
        dest="connect_timeout_s",
        help="seconds an mcp agent has for its first request (default 600); after that the trial ends "
        "as agent_disconnected, scored",
    )
    p.add_argument(
        "--disconnect-grace",
        type=number(float, lo=0),
        default=10.0,
        dest="disconnect_grace_s",
        help="seconds an mcp agent's client may be gone before the trial ends as agent_disconnected (default 10)",
    )
    p.add_argument(
        "--idle-timeout",
        type=number(float, lo=0, lo_open=True),
        default=300.0,
        dest="idle_timeout_s",
        help="wall seconds an mcp agent may go without any request in flight before the trial ends as "
        "agent_disconnected (default 300; the stateless MCP protocol shows a vanished client "
        "only as silence)",
    )
    p.add_argument(
        "--status-file",
        type=Path,
        default=None,
        help="also write the agent port's status (URL, ready flag) to this file",
    )
    p.add_argument("--json", action="store_true", help="print one JSON line per trial instead of tables")
    p.add_argument(
        "--no-report",
        action="store_true",
        help="do not write the episode page (TRIAL.report.html beside each bundle); screen.mp4 is still "
        "encoded into the bundle",
    )
    p.set_defaults(func=_run)


def _sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _run(args: argparse.Namespace) -> int:
    import json

    from simbridge._errors import SimbridgeError
    from simbridge.episode import RunConfig, run, summary_table

    import os

    token = args.token if args.token is not None else (os.environ.get("SIMBRIDGE_AGENT_TOKEN") or None)
    if not args.auth and token is not None:
        raise SimbridgeError("--no-token and --token (or $SIMBRIDGE_AGENT_TOKEN) contradict each other")
    if args.mcp_host not in ("127.0.0.1", "localhost", "::1") and not args.auth:
        raise SimbridgeError(f"--host {args.mcp_host}: an agent port reachable from other machines needs a token")
    if args.out is not None:
        writable_dir(args.out, "--out")
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _sigterm)  # tear down like Ctrl-C
    say = lambda s: print(s, file=sys.stderr, flush=True)
    cfg = RunConfig(
        task=args.task,
        sim=args.sim,
        agent=args.agent,
        trials=args.trials,
        out=args.out,
        lockstep=args.lockstep,
        lockstep_slice_s=args.slice_s,
        seed=args.seed,
        provider=args.provider,
        snapshot_at=args.snapshot_at,
        frame_hz=args.frame_hz,
        time_limit_s=args.time_limit,
        unisolated=args.unisolated,
        say=say,
        mcp_host=args.mcp_host,
        mcp_port=args.mcp_port,
        token=token,
        auth=args.auth,
        assists=tuple(args.assists),
        computer_screenshot=args.computer_screenshot,
        connect_timeout_s=args.connect_timeout_s,
        disconnect_grace_s=args.disconnect_grace_s,
        idle_timeout_s=args.idle_timeout_s,
        status_file=args.status_file,
    )
    results = run(cfg)
    code = exit_code(results)
    from simbridge._report import finish_episode_outputs

    outputs = []
    for r in results:  # screen.mp4 and the page are not part of the score: a problem is said, the code stands
        outputs.append(finish_episode_outputs(r.path, report=not args.no_report))
        for problem in outputs[-1].problems:
            say(f"trial {r.trial}: {problem}")
    if args.json:
        for r, o in zip(results, outputs):
            print(
                json.dumps(
                    {
                        "trial": r.trial,
                        "bundle": str(r.path),
                        "status": r.status,
                        "detail": r.detail,
                        "score": r.score.model_dump(mode="json") if r.score else None,
                        "snapshots": [str(p) for p in r.snapshots],
                        "screen_mp4": str(o.screen_mp4) if o.screen_mp4 else None,
                        "report": str(o.report) if o.report else None,
                    }
                )
            )
        return code
    for r in results:
        print(f"\n== trial {r.trial}: {r.status} ({r.detail})")
        if r.score is not None:
            print(r.score.table())
        for p in r.snapshots:
            print(f"screen snapshot: {p}")
    print()
    print(summary_table(results))
    try:
        from simbridge import _metrics
    except ImportError:
        _metrics = None  # type: ignore[assignment]
    if _metrics is not None and len(results) > 1:
        print()
        print(_metrics.compute([r.score for r in results if r.score is not None]).table())
    for r, o in zip(results, outputs):
        if o.report is not None:
            print(f"report (trial {r.trial}): {o.report}")
    if code != Exit.OK:
        print(f"\nexit code {int(code)}: {RUN_ENDING[code]}", file=sys.stderr)
    return code


def exit_code(results: list) -> Exit:
    """The run's exit code from its trials (see the module docstring)."""
    if any(r.score is None or r.score.status != "scored" for r in results):
        return Exit.UNSCORED
    if any(r.status != "completed" for r in results):
        return Exit.AGENT_FAILED
    return Exit.OK
