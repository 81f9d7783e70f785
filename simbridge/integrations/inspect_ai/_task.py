"""`inspect eval simbridge/gui_task -T task=T16 -T sim=jsbsim --model PROVIDER/MODEL`.

One sample per (task, simulator). The prompt is the task's brief (the instruction for that
simulator, its controls, its time limit) with its text input documents inlined. The model gets
one tool named `computer` whose name and parameters are exactly those of Inspect's own
`inspect_ai.tool.computer()` (providers with native computer use, Anthropic and OpenAI, check
exactly that and take their native path), served by simbridge's agent port through
`_actions.computer_call`; `done` / `give_up`; and the port's file tools where the task has
input documents or asks for an answer file.

Why a solver and not a sandbox environment: an Inspect sandbox is an exec/read/write box that
lives as long as a sample's tools, whereas a simbridge episode is a simulator with a clock, a
recording and an end of its own (time limit, crash, done) that the `Episode` already owns and
tears down. The solver drives the `Episode` itself (`open_episode`: start, the tools act
through its agent port, close) and closes it in a `finally` under a shielded cancel scope, so a
model error, a limit or a cancelled eval still closes, tears down and scores the bundle.
"""

from __future__ import annotations

import base64
import logging
from pathlib import Path
from typing import Any

import anyio
from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ContentImage, ContentText
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, ToolError, ToolResult, tool
from inspect_ai.util import LimitExceededError, sample_limits, store

from simbridge._run_config import DEFAULT_LOCKSTEP_SLICE_S
from simbridge._errors import SimbridgeError
from simbridge.episode import open_episode
from simbridge.integrations._framework import EpisodeConfig
from simbridge.integrations.inspect_ai._exit import note_unscored

log = logging.getLogger(__name__)

#: store keys (the store is in the eval log: `simbridge verify` / `report` work on its bundle path)
BUNDLE_KEY = "simbridge_bundle"
RESULT_KEY = "simbridge_result"
#: largest text input inlined in the prompt (bigger ones are read with read_file)
INLINE_MAX_BYTES = 64_000


# ------------------------------------------------------------------------------------------ dataset
def parse_tasks(spec: str) -> list[tuple[str, str | None]]:
    """`T16`, `T16,T09`, or a suite — a file in `simbridge eval`'s format (suites/*.yaml) or a
    registered suite's name — as [(task id, sim or None)]: the suite's (task, simulator) cells in
    its order, once each (its agents are left out: the model under evaluation is the agent).
    Raises SimbridgeError naming the file and the entry that is wrong."""
    from simbridge._eval import expand, load_suite
    from simbridge._eval._suite import suite_file
    from simbridge.registry import registry

    spec = str(spec).strip()
    if spec.endswith((".yaml", ".yml")) or registry().find("suite", spec) is not None:
        path = suite_file(spec)
        if not path.is_file():
            raise SimbridgeError(f"suite file {spec}: not found")
        episodes, _ = expand(load_suite(path), path)
        cells = list(dict.fromkeys((e.task_id, e.sim) for e in episodes))
        if not cells:
            raise SimbridgeError(f"suite file {spec}: no (task, simulator) cell can run here")
        return [(t, s) for t, s in cells]
    ids = [t.strip() for t in spec.split(",") if t.strip()]
    if not ids:
        raise SimbridgeError("task: give a task id (T16), a comma list (T16,T09) or a suite (.yaml file or name)")
    return [(t, None) for t in ids]


def _default_sim(task_id: str) -> str:
    from simbridge.integrations._framework import runnable_pairs

    for tid, sim in runnable_pairs():
        if tid == task_id:
            return sim
    raise SimbridgeError(f"task {task_id}: none of its simulators can run here (name one with -T sim=...)")


def assist_arg(value: Any) -> tuple[str, ...]:
    """`-T assist=readout`, `-T assist=a,b` or a YAML list: the assist names asked for."""
    if value is None or value == "":
        return ()
    items = value.split(",") if isinstance(value, str) else list(value)
    return tuple(str(x).strip() for x in items if str(x).strip())


def _prompt(task_id: str, sim: str, lockstep: bool, time_limit_s: float | None, assists: tuple[str, ...] = ()) -> str:
    from simbridge._agent_port import make_brief
    from simbridge._run_config import check_assists, check_sim, offered_assists, resolve_session
    from simbridge._task import input_source, load_task

    spec = load_task(task_id)
    check_sim(spec, sim)
    cls = resolve_session(sim)
    offered = offered_assists(sim)
    on = check_assists(sim, assists)
    limit = min(spec.time_limit_s, time_limit_s) if time_limit_s else spec.time_limit_s
    text = make_brief(
        spec,
        sim,
        time_limit_s=limit,
        lockstep=lockstep,
        controls=tuple(cls.controls),
        assists={a: offered[a] for a in on},
        assists_offered=tuple(offered),
    ).text()
    parts = [text]
    for f in spec.inputs:
        if not f.source:
            continue
        data = input_source(spec, f.source).read_bytes()
        try:
            body = data.decode("utf-8") if len(data) <= INLINE_MAX_BYTES else None
        except UnicodeDecodeError:
            body = None
        if body is not None:
            parts.append(f"\n--- {f.path} ({f.description}) ---\n{body}")
        else:
            parts.append(
                f"\n--- {f.path} ({f.description}): {len(data)} bytes, read it with read_file (encoding base64) ---"
            )
    return "\n".join(parts)


def _has_files(task_id: str) -> bool:
    from simbridge._task import load_task

    spec = load_task(task_id)
    return bool(spec.inputs) or any(k.startswith("end.answer") for k in spec.snapshots)


def make_samples(
    task: str, sim: str | None, lockstep: bool, time_limit_s: float | None, assists: tuple[str, ...] = ()
) -> list[Sample]:
    pairs: list[tuple[str, str]] = []
    for tid, s in parse_tasks(task):
        sims = [x.strip() for x in sim.split(",")] if (s is None and sim) else [s or _default_sim(tid)]
        pairs += [(tid, x) for x in sims]
    samples = []
    for tid, s in dict.fromkeys(pairs):
        samples.append(
            Sample(
                id=f"{tid}-{s}",
                input=_prompt(tid, s, lockstep, time_limit_s, assists),
                metadata={"task": tid, "sim": s, "files": _has_files(tid)},
            )
        )
    return samples


# ------------------------------------------------------------------------------------------ tools
def _limit_reached() -> bool:
    """The sample's time or working limit is used up (Inspect cancels the sample for it)."""
    try:
        lim = sample_limits()
    except RuntimeError:  # no sample running
        return False
    return any(x.limit is not None and x.usage >= x.limit for x in (lim.time, lim.working))


def _interrupt_action() -> str | None:
    """How an operator's interrupt of this sample resolves ("score", "error", "cancel"), if any."""
    try:
        from inspect_ai.log._samples import sample_active

        active = sample_active()
        return None if active is None else active.interrupt_action
    except (ImportError, AttributeError):  # another Inspect version: no interrupt known
        return None


def _image(shot: Any) -> ContentImage:
    return ContentImage(image=f"data:{shot.mime_type};base64,{base64.b64encode(shot.data).decode('ascii')}")


class _Turn:
    """The tools' shared state for one sample: the port client and whether the agent ended it."""

    def __init__(self, client: Any, screenshot_after: bool) -> None:
        self.client = client
        self.screenshot_after = screenshot_after
        self.ended: str | None = None

    async def call(self, fn: Any, *args: Any, **kw: Any) -> Any:
        from simbridge._agent_port import EpisodeOver

        try:
            # abandoned on cancel: a long `wait` must not hold a cancelled sample; the runner's end of
            # the episode (finish) stops the port's pacer, which lets the worker thread return
            return await anyio.to_thread.run_sync(lambda: fn(*args, **kw), abandon_on_cancel=True)
        except EpisodeOver as exc:
            self.ended = self.ended or "over"
            raise ToolError(str(exc)) from None
        except SimbridgeError as exc:  # the model's mistake (bad argument) or a harness fault: said to the model
            raise ToolError(str(exc)) from None


#: what the Inspect `computer` tool says of itself (its arguments are described by the action table)
COMPUTER_DOC = "Use a mouse and keyboard on the simulator's screen (screen pixel coordinates)."


def computer_tool(turn: _Turn) -> Tool:
    """The `computer` tool, parameter for parameter Inspect's own: its signature and argument
    descriptions are generated from the one computer-use table (`_actions.computer_args`)."""
    from simbridge._agent_port._actions import computer_args
    from simbridge._agent_port._generate import tool_function

    async def run(**given: Any) -> ToolResult:
        args = {k: v for k, v in given.items() if v is not None}
        from simbridge._agent_port import Screenshot

        def act() -> tuple[Any, Any]:
            """The action and the screenshot after it, in one worker-thread hop."""
            out = turn.client.computer(**args)
            after = not isinstance(out, (Screenshot, tuple)) and turn.screenshot_after
            return out, (turn.client.screenshot() if after else None)

        out, shot = await turn.call(act)
        if isinstance(out, Screenshot):
            return [_image(out)]
        said = f"cursor at {out[0]}, {out[1]}" if isinstance(out, tuple) else "ok"
        return [ContentText(text=said), _image(shot)] if shot is not None else said

    @tool(name="computer")
    def computer() -> Tool:
        return tool_function(  # type: ignore[return-value]
            "execute", computer_args("inspect"), run, doc=COMPUTER_DOC, returns=ToolResult, describe="docstring"
        )

    return computer()


def port_tool(kind: str, impl: Any) -> Tool:
    """The Inspect tool of one port action: its parameters and description from the action table
    (`_actions.VOCABULARY`), each call running `impl` with every argument."""
    from simbridge._agent_port._actions import VOCABULARY
    from simbridge._agent_port._generate import tool_function

    spec = VOCABULARY[kind]

    @tool(name=kind)
    def make() -> Tool:
        return tool_function(  # type: ignore[return-value]
            "execute", spec.params, impl, doc=spec.doc, returns=str, describe="docstring"
        )

    return make()


def end_tools(turn: _Turn) -> list[Tool]:
    async def done(reason: str) -> str:
        await turn.call(turn.client.done, reason)
        turn.ended = "done"
        return "episode ended: done"

    async def give_up(reason: str) -> str:
        await turn.call(turn.client.give_up, reason)
        turn.ended = "give_up"
        return "episode ended: gave up"

    return [port_tool("done", done), port_tool("give_up", give_up)]


def file_tools(turn: _Turn) -> list[Tool]:
    import json

    async def list_files() -> str:
        return json.dumps(await turn.call(turn.client.list_files))

    async def read_file(path: str, encoding: str) -> str:
        return str(await turn.call(turn.client.read_file, path, encoding))

    async def write_file(path: str, text: str) -> str:
        n = await turn.call(turn.client.write_file, path, text)
        return f"wrote {n} bytes to {path}"

    return [port_tool("list_files", list_files), port_tool("read_file", read_file), port_tool("write_file", write_file)]


# ------------------------------------------------------------------------------------------ solver, scorer
@solver
def simbridge_episode(
    provider: str = "local",
    lockstep: bool = False,
    lockstep_slice_s: float = DEFAULT_LOCKSTEP_SLICE_S,
    time_limit_s: float | None = None,
    frame_hz: float = 1.0,
    out: str | None = None,
    max_steps: int = 500,
    screenshot_after: bool = True,
    assist: Any = None,
) -> Solver:
    """Run the sample's episode: up before the model's first turn, torn down and scored after
    its last (also on error and cancellation); the model acts through the tools until it calls
    done/give_up, answers without a tool call, or the episode ends (time limit, crash)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        md = state.metadata
        cfg = EpisodeConfig(
            task=md["task"],
            sim=md["sim"],
            provider=provider,
            lockstep=bool(lockstep),
            lockstep_slice_s=float(lockstep_slice_s),
            time_limit_s=None if time_limit_s is None else float(time_limit_s),
            frame_hz=float(frame_hz),
            out=Path(out) if out else None,
            agent=f"inspect:{state.model}",
            assists=assist_arg(assist),
        )
        ep = open_episode(cfg, trial=state.epoch)
        store().set(BUNDLE_KEY, str(ep.path))
        fault: str | None = None
        try:
            await anyio.to_thread.run_sync(ep.start)
            assert ep.client is not None
            turn = _Turn(ep.client, bool(screenshot_after))
            state.tools = [computer_tool(turn), *end_tools(turn), *(file_tools(turn) if md.get("files") else [])]
            for _ in range(int(max_steps)):
                state = await generate(state, tool_calls="single")
                if turn.ended or ep.over or state.completed:
                    break
                if not state.output.message.tool_calls:
                    break  # the model answered without acting: its turn is over
        except LimitExceededError:
            raise  # a token/message/cost limit: the agent's budget ran out, its own outcome (scored)
        except anyio.get_cancelled_exc_class():
            # Inspect's time/working limit cancels the sample: the agent's budget (scored), as is
            # an operator's "interrupt and score" (`inspect ctl`, the sample's score button); any
            # other cancellation (Ctrl-C, a cancelled eval, an interrupt as error or cancel) is
            # not the agent's doing
            if not _limit_reached() and _interrupt_action() != "score":
                fault = "the sample was interrupted or cancelled"
            raise
        except BaseException as exc:  # the model's API, the solver: outside the agent's control
            fault = f"{type(exc).__name__}: {exc}".strip()[:500]
            raise
        finally:
            # also when cancelled (a limit, Ctrl-C, a cancelled eval): the episode tears down and scores
            with anyio.CancelScope(shield=True):
                result = await anyio.to_thread.run_sync(lambda: ep.close(fault=fault))
                score = result.score
                store().set(
                    RESULT_KEY,
                    {
                        "status": result.status,
                        "detail": result.detail,
                        "bundle": str(result.path),
                        "score": None if score is None else score.model_dump(mode="json"),
                    },
                )
                if score is None or score.status == "unscored":
                    note_unscored(f"{md['task']} on {md['sim']}: {result.status}: {result.detail}")
        if score is None or score.status == "unscored":
            reason = score.reason if score is not None else "no score"
            raise SimbridgeError(f"unscored episode ({result.status}: {reason}); bundle {result.path}")
        return state

    return solve


@scorer(metrics=[mean()])
def simbridge_verifier() -> Scorer:
    """The task's verifier on the recorded bundle (the runner's own score.json, re-checked by
    `simbridge verify BUNDLE`)."""

    async def score(state: TaskState, target: Target) -> Score:
        res = store().get(RESULT_KEY)
        if not res or res.get("score") is None:
            raise SimbridgeError(f"no simbridge result for sample {state.sample_id} (bundle {store().get(BUNDLE_KEY)})")
        if res["score"].get("status") != "scored":  # never a 0 for an unscored episode
            why = res["score"].get("reason") or res["detail"]
            raise SimbridgeError(f"unscored episode ({res['status']}: {why}); bundle {res['bundle']}")
        from simbridge._score import Score as SimScore

        s = SimScore.model_validate(res["score"])
        return Score(
            value=float(s.score or 0.0),
            answer=res["status"],
            explanation=s.table(),
            metadata={
                "components": [c.model_dump(mode="json") for c in s.components],
                "safety": [x.model_dump(mode="json") for x in s.safety],
                "success": s.success,
                "bundle": res["bundle"],
                "status": res["status"],
                "detail": res["detail"],
                "flags": list(s.flags),
            },
        )

    return score


@task
def gui_task(
    task: str = "T16",
    sim: str | None = None,
    provider: str = "local",
    lockstep: bool = False,
    lockstep_slice_s: float = DEFAULT_LOCKSTEP_SLICE_S,
    time_limit_s: float | None = None,
    frame_hz: float = 1.0,
    out: str | None = None,
    epochs: int = 1,
    max_steps: int = 500,
    screenshot_after: bool = True,
    assist: Any = None,
) -> Task:
    """simbridge GUI tasks: `-T task=T16|T16,T09|suites/smoke.yaml|smoke -T sim=jsbsim [-T provider=netns]
    [-T lockstep=true] [-T time_limit_s=60] [-T epochs=K] [-T assist=readout]` (pass@K and pass^K
    reducers; a pass is a full score, which is simbridge's `success`). `assist`: assists the
    simulator offers (`simbridge run --assist`; several comma-separated), flagged on every score."""
    k = max(1, int(epochs))
    assists = assist_arg(assist)
    return Task(
        dataset=make_samples(task, sim, bool(lockstep), None if time_limit_s is None else float(time_limit_s), assists),
        solver=simbridge_episode(
            provider=provider,
            lockstep=bool(lockstep),
            lockstep_slice_s=lockstep_slice_s,
            time_limit_s=time_limit_s,
            frame_hz=frame_hz,
            out=out,
            max_steps=max_steps,
            screenshot_after=screenshot_after,
            assist=list(assists),
        ),
        scorer=simbridge_verifier(),
        epochs=Epochs(k, ["mean", f"pass_at_{k}", f"pass_k_{k}"]),
    )
