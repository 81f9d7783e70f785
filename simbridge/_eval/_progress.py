"""The live progress of an eval: a rich table on a terminal (done / running / failed, per-cell
scores so far, ETA), one plain line per event otherwise (logs, CI, pipes)."""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from typing import Any, TextIO

from simbridge._eval._plan import EpisodeSpec


def _cell(spec: EpisodeSpec) -> tuple[str, str, str]:
    """Task, simulator (with its assists: `jsbsim+readout`, never pooled with `jsbsim`), agent."""
    return (spec.task_id, spec.sim + "".join(f"+{a}" for a in spec.assists), spec.agent_slug)


class Progress:
    """Counts and per-cell scores; drawn live with rich when `stream` is a terminal."""

    def __init__(
        self,
        episodes: list[EpisodeSpec],
        *,
        parallel_hint: int = 1,
        stream: TextIO | None = None,
        live: bool | None = None,
    ) -> None:
        self.stream = stream or sys.stdout
        self.total = len(episodes)
        self.cells: dict[tuple[str, str, str], dict[str, Any]] = defaultdict(
            lambda: {"n": 0, "done": 0, "scores": [], "success": 0, "unscored": 0}
        )
        for e in episodes:
            self.cells[_cell(e)]["n"] += 1
        self.done = self.failed = self.retried = self.running = 0
        self.walls: list[float] = []
        self.parallel_hint = max(1, parallel_hint)
        self.t0 = time.monotonic()
        from simbridge._eval._exporter import attach

        attach(self)  # `--metrics-port`: served as Prometheus metrics while the eval runs
        self.live = None
        if live if live is not None else self.stream.isatty():
            from rich.console import Console
            from rich.live import Live

            self.live = Live(get_renderable=self._render, console=Console(file=self.stream), refresh_per_second=2)
            self.live.start()

    # -- events
    def skipped(self, spec: EpisodeSpec, row: dict[str, Any]) -> None:
        """An episode finished by an earlier run (--resume)."""
        self._count(spec, row)
        self._say(f"[{self.done}/{self.total}] {spec.episode_id}: finished earlier ({row['status']}), skipped")

    def started(self, spec: EpisodeSpec, attempt: int) -> None:
        self.running += 1
        self._say(f"start {spec.episode_id} attempt {attempt}")

    def retrying(self, spec: EpisodeSpec, attempt: int, detail: str) -> None:
        self.running -= 1
        self.retried += 1
        self._say(f"harness fault in {spec.episode_id} attempt {attempt}: {detail[:160]}; retrying")

    def finished(self, spec: EpisodeSpec, row: dict[str, Any]) -> None:
        self.running -= 1
        self._count(spec, row)
        if row.get("wall_s"):
            self.walls.append(float(row["wall_s"]))
        sc = f"score {row['score']:.3f}" if row.get("score") is not None else f"unscored ({row.get('detail', '')[:80]})"
        self._say(
            f"[{self.done}/{self.total}] {spec.episode_id} attempt {row['attempt']}: {row['status']}, {sc}, "
            f"wall time {row.get('wall_s') or 0:.1f} s, host {row.get('host') or '?'}; ETA {self.eta()}"
        )

    def _count(self, spec: EpisodeSpec, row: dict[str, Any]) -> None:
        self.done += 1
        c = self.cells[_cell(spec)]
        c["done"] += 1
        if row.get("score_status") == "scored":
            c["scores"].append(row["score"])
            c["success"] += bool(row.get("success"))
        else:
            c["unscored"] += 1
            self.failed += 1

    def eta(self) -> str:
        left = self.total - self.done
        if left == 0:
            return "0 s"
        if not self.walls:
            return "?"
        s = left * (sum(self.walls) / len(self.walls)) / max(self.running, self.parallel_hint, 1)
        return f"{s / 60:.1f} min" if s >= 90 else f"{s:.0f} s"

    def _say(self, line: str) -> None:
        if self.live is None:
            print(line, file=self.stream, flush=True)

    def _render(self) -> Any:
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        head = Text(
            f"done {self.done}/{self.total}   running {self.running}   unscored {self.failed}   "
            f"retried {self.retried}   elapsed {time.monotonic() - self.t0:.0f} s   ETA {self.eta()}"
        )
        t = Table(box=None, pad_edge=False)
        for col in ("task", "sim", "agent", "done", "mean score", "success", "unscored"):
            t.add_column(col, justify="right" if col in ("done", "mean score", "success", "unscored") else "left")
        for (task, sim, agent), c in sorted(self.cells.items()):
            mean = f"{sum(c['scores']) / len(c['scores']):.3f}" if c["scores"] else "—"
            t.add_row(task, sim, agent, f"{c['done']}/{c['n']}", mean, str(c["success"]), str(c["unscored"]))
        return Group(head, t)

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None
