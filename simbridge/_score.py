"""The result of verifying one episode: partial credit, safety gate and status, with evidence."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Component(BaseModel):
    """One partial-credit item as the verifier measured it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    weight: float
    earned: float = Field(ge=0, le=1, description="Fraction of the weight earned, 0..1")
    kind: Literal["binary", "linear"] = "binary"
    measured: float | str | bool | None = None
    tolerance: str = ""
    window: tuple[float, float] | None = Field(default=None, description="Evidence time window [t0, t1] in sim s")
    explanation: str = ""

    @property
    def points(self) -> float:
        return self.weight * self.earned


class Band(BaseModel):
    """A tolerance band the verifier judged a signal against: `signal` should lie within
    [lo, hi] from t0 to t1 (sim s; None: from the start / to the end of the episode). The
    report draws it on that signal's plot, so the page shows what the verifier judged."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    signal: str
    lo: float
    hi: float
    t0: float | None = None
    t1: float | None = None
    label: str = ""


class SafetyResult(BaseModel):
    """One hard constraint, judged on the whole trajectory. A violation cannot be undone later."""

    model_config = ConfigDict(extra="forbid")

    name: str
    ok: bool
    first_violation_t: float | None = None
    explanation: str = ""


class SignalQuality(BaseModel):
    """Bad samples of one signal, as the data-quality check found them (see simbridge._signals)."""

    model_config = ConfigDict(extra="forbid")

    missing: int = Field(default=0, description="NaN/empty samples as recorded")
    out_of_range: int = Field(default=0, description="Samples outside the physical range, treated as missing")
    bridged: int = Field(
        default=0,
        description="Missing samples in runs no longer than max_sample_gap_s, "
        "bridged from their neighbours like a short telemetry gap",
    )
    gaps: list[tuple[float, float]] = Field(
        default_factory=list,
        description="Stretches [t0, t1] s longer than max_sample_gap_s without a "
        "valid sample: the signal is unknown there",
    )

    @property
    def bad(self) -> int:
        return self.missing + self.out_of_range


class DataQuality(BaseModel):
    """How many samples the score rests on and how many were bad or missing."""

    model_config = ConfigDict(extra="forbid")

    samples_total: int = 0
    duplicates_dropped: int = Field(default=0, description="Rows identical to the row before them, dropped")
    time_gaps: list[tuple[float, float]] = Field(
        default_factory=list, description="Stretches of t without any row, longer than max_sample_gap_s"
    )
    signals: dict[str, SignalQuality] = Field(
        default_factory=dict,
        description="Only signals with bad samples, of those the task lists or its verifier read",
    )
    absent: list[str] = Field(
        default_factory=list,
        description="Columns without a single valid sample that neither the task nor its "
        "verifier asked for: not recorded by this simulator, not bad data",
    )

    def unread_absent(self, asked: Iterable[str]) -> "DataQuality":
        """A copy where columns with no valid sample at all that are not in `asked` (the task's
        signals and every one its verifier asked for) move from `signals` to `absent`: an empty
        column nobody reads is a signal this simulator does not record, not a data problem. A
        column with some valid samples, or with out-of-range ones, stays whatever reads it."""
        keep = set(asked)
        gone = sorted(
            name
            for name, q in self.signals.items()
            if name not in keep and q.out_of_range == 0 and q.missing >= self.samples_total
        )
        if not gone:
            return self
        return self.model_copy(
            update={
                "signals": {k: v for k, v in self.signals.items() if k not in gone},
                "absent": sorted({*self.absent, *gone}),
            }
        )

    @property
    def bad_samples(self) -> int:
        return sum(q.bad for q in self.signals.values())

    @property
    def clean(self) -> bool:
        return not (self.bad_samples or self.duplicates_dropped or self.time_gaps)

    def flags(self) -> list[str]:
        """One readable line per problem, for `Score.flags`."""
        out = []
        if self.duplicates_dropped:
            out.append(f"data: {self.duplicates_dropped} duplicate row(s) dropped")
        for a, b in self.time_gaps[:3]:
            out.append(f"data: no samples {a:.2f}-{b:.2f} s (telemetry gap)")
        if len(self.time_gaps) > 3:
            out.append(f"data: {len(self.time_gaps) - 3} more telemetry gap(s)")
        for name, q in self.signals.items():
            parts = []
            if q.missing:
                parts.append(f"{q.missing} missing")
            if q.out_of_range:
                parts.append(f"{q.out_of_range} out of range (treated as missing)")
            line = f"data: {name}: {' and '.join(parts)} of {self.samples_total} samples"
            if q.bridged:
                line += f"; {q.bridged} in short runs bridged from neighbours"
            if q.gaps:
                a, b = q.gaps[0]
                line += f"; unknown {a:.2f}-{b:.2f} s" + (
                    f" and {len(q.gaps) - 1} more stretch(es)" if len(q.gaps) > 1 else ""
                )
            out.append(line)
        return out


class Score(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task_id: str
    verifier: str
    status: Literal["scored", "unscored"]
    reason: str = Field(default="", description="Why unscored; empty when scored")
    score: float | None = Field(default=None, description="0..1 partial credit after the safety gate; null if unscored")
    raw_score: float | None = Field(default=None, description="Partial credit before the safety gate")
    success: bool | None = None
    components: list[Component] = Field(default_factory=list)
    safety: list[SafetyResult] = Field(default_factory=list)
    bands: list[Band] = Field(
        default_factory=list,
        description="Tolerance bands the verifier judged signals against (evidence the report draws)",
    )
    explanation: str = ""
    unisolated: bool = Field(default=False, description="The episode ran without an isolation guarantee")
    verifier_version: str = ""
    flags: list[str] = Field(
        default_factory=list,
        description="Conditions a reader of the score must know about, e.g. 'manifest_ignored', 'truncated_import'",
    )
    data_quality: DataQuality | None = Field(
        default=None,
        description="Bad, missing and duplicate samples the score was computed despite (null: not checked)",
    )

    @property
    def safe(self) -> bool:
        return all(s.ok for s in self.safety)

    @classmethod
    def unscored(cls, task_id: str, verifier: str, reason: str, **kw: Any) -> "Score":
        return cls(task_id=task_id, verifier=verifier, status="unscored", reason=reason, **kw)

    def table(self) -> str:
        """A readable table of the score for the terminal."""
        lines = [f"task {self.task_id}  verifier {self.verifier}  status {self.status}"]
        if self.status == "unscored":
            lines.append(f"UNSCORED: {self.reason}")
        rows = []
        for c in self.components:
            meas = c.measured if not isinstance(c.measured, float) else f"{c.measured:.4g}"
            win = f"{c.window[0]:.1f}-{c.window[1]:.1f}s" if c.window else ""
            rows.append((c, "" if meas is None else str(meas), win))
        # columns as wide as their widest cell: a long name, value or tolerance never runs into the next
        w_name = max([len("component"), *(len(c.name) for c, _, _ in rows)])
        w_meas = max([len("measured"), *(len(m) for _, m, _ in rows)])
        w_tol = max([len("tolerance"), *(len(c.tolerance) for c, _, _ in rows)])
        head = f"{'component':<{w_name}}{'weight':>8}{'earned':>8}{'points':>8}  {'measured':<{w_meas}}  {'tolerance':<{w_tol}}  window"
        lines += ["", head, "-" * len(head)]
        for c, meas, win in rows:
            lines.append(
                f"{c.name:<{w_name}}{c.weight:>8.2f}{c.earned:>8.2f}{c.points:>8.3f}  {meas:<{w_meas}}  {c.tolerance:<{w_tol}}  {win}".rstrip()
            )
            if c.explanation:
                lines.append(f"    {c.explanation}")
        if self.safety:
            lines += ["", "safety constraints:"]
            for s in self.safety:
                mark = (
                    "ok"
                    if s.ok
                    else f"VIOLATED at t={s.first_violation_t:.1f}s"
                    if s.first_violation_t is not None
                    else "VIOLATED"
                )
                lines.append(f"  {s.name:<28}{mark}  {s.explanation}")
        lines.append("")
        if self.status == "scored":
            gate = (
                ""
                if self.raw_score == self.score
                else " (before safety gate: not judged)"
                if self.raw_score is None
                else f" (before safety gate {self.raw_score:.3f})"
            )
            lines.append(f"score {self.score:.3f}{gate}   success {self.success}")
        if self.unisolated:
            lines.append("NOTE: unisolated run (no isolation guarantee)")
        dq = self.data_quality
        if dq is not None and not dq.clean:
            lines.append(
                f"DATA: {dq.bad_samples} bad or missing sample(s) in {len(dq.signals)} signal(s) "
                f"of {dq.samples_total} rows, {dq.duplicates_dropped} duplicate row(s) dropped, "
                f"{len(dq.time_gaps)} telemetry gap(s)"
            )
            lines += [f"  {f.removeprefix('data: ')}" for f in dq.flags()]
        if self.explanation:
            lines.append(self.explanation)
        return "\n".join(lines)
