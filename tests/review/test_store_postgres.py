"""The store against a real PostgreSQL server (Debian's `postgresql` package): the test makes its own
cluster with initdb in a temporary directory and starts it with pg_ctl on a Unix socket only (as
`nobody` when the tests run as root: PostgreSQL refuses to run as root), then checks the native
upsert, two raters writing at once, and a campaign's import/export through psycopg."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from simbridge._review.campaign import create_campaign, grades_frame, import_grades
from simbridge._review.store import Grade, Store

from .conftest import make_bundle

import psycopg  # noqa: F401

PG_BIN = (
    next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)), None)
    if Path("/usr/lib/postgresql").is_dir()
    else None
)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(PG_BIN is None, reason="needs Debian's postgresql (scripts/setup.sh)"),
]


def _as_pg_user(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "nobody", "--", *cmd] if os.geteuid() == 0 else cmd


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    assert PG_BIN is not None
    root = Path(tempfile.mkdtemp(prefix="simbridge-pg-", dir="/tmp"))  # /tmp: traversable by nobody
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "nobody")
        shutil.chown(sock, "nobody")
    run = dict(check=True, capture_output=True, timeout=120)
    subprocess.run(
        _as_pg_user(
            [str(PG_BIN / "initdb"), "-D", str(data), "-U", "review", "--auth=trust", "-E", "UTF8", "--no-sync"]
        ),
        **run,
    )  # type: ignore[call-overload]
    subprocess.run(
        _as_pg_user(
            [
                str(PG_BIN / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(root / "log"),
                "-w",
                "-o",
                f"-k {sock} -c listen_addresses='' -c fsync=off",
                "start",
            ]
        ),
        **run,
    )  # type: ignore[call-overload]
    try:
        yield f"postgresql+psycopg://review@/postgres?host={sock}"
    finally:
        subprocess.run(
            _as_pg_user([str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]),
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(root, ignore_errors=True)


def test_campaign_grades_upsert_and_export_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    root = tmp_path / "runs"
    for i in range(4):
        make_bundle(root, f"ep{i}", agent="human" if i == 3 else "mcp", trial=i, score=i / 3)
    store = Store(pg_url)
    assert store.engine.dialect.name == "postgresql"
    plan = create_campaign(store, "pg1", root, ["ann", "bob"], 2, 3)
    blind = sorted(plan)
    rows = ["campaign,run,rater,competency,level,evidence"]
    rows += [f"pg1,{b},{r},FPM,{1 + (i % 4)},first" for i, b in enumerate(blind) for r in ("ann", "bob")]
    (tmp_path / "g.csv").write_text("\n".join(rows) + "\n")
    assert import_grades(store, tmp_path / "g.csv") == 8
    # the same key again replaces the row (ON CONFLICT DO UPDATE), other raters' rows untouched
    rows = ["campaign,run,rater,competency,level,evidence", f"pg1,{blind[0]},ann,FPM,Not Achieved,second"]
    (tmp_path / "g2.csv").write_text("\n".join(rows) + "\n")
    assert import_grades(store, tmp_path / "g2.csv") == 1
    df = grades_frame(store, "pg1")
    assert len(df) == 8
    mine = df[(df.run == blind[0]) & (df.rater == "ann")].iloc[0]
    assert (mine.level, mine.level_value, mine.evidence) == ("not_achieved", 1, "second")
    theirs = df[(df.run == blind[0]) & (df.rater == "bob")].iloc[0]
    assert (theirs.level_value, theirs.evidence) == (1, "first")
    assert sorted(df[df.human].run.unique()) == [b for b in blind if df[df.run == b].human.all()]


def test_two_raters_at_once_never_overwrite_each_other_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    root = tmp_path / "runs"
    for i in range(3):
        make_bundle(root, f"ep{i}", trial=i)
    store = Store(pg_url)
    create_campaign(store, "pg2", root, ["ann", "bob"], 2, 0)
    with store.session() as s:
        camp = store.campaign(s, "pg2")
        crs = [cr.id for cr in camp.runs]
        raters = {r: store.rater(s, r).id for r in ("ann", "bob")}
    errors: list[BaseException] = []

    def grade(rater: str, value: int) -> None:
        try:
            for _ in range(15):
                for cr in crs:
                    with store.session() as s:
                        store.save_grade(s, cr, raters[rater], "FPM", f"v{value}", value, rater)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=grade, args=(r, v)) for r, v in (("ann", 4), ("bob", 2))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    with store.session() as s:
        got = sorted(
            (g.campaign_run_id, g.rater_id, g.level_value, g.evidence)
            for g in s.scalars(select(Grade).where(Grade.campaign_run_id.in_(crs)))
        )
    assert got == sorted([(cr, raters["ann"], 4, "ann") for cr in crs] + [(cr, raters["bob"], 2, "bob") for cr in crs])
    store.engine.dispose()
