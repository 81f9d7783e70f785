"""The review store: runs, raters, campaigns, assignments and grades, through SQLAlchemy 2.

SQLite file by default, any SQLAlchemy URL otherwise. A grade is one row per campaign × run ×
rater × competency (unique constraint); saving it again replaces it (upsert), and two raters
write different rows, so they never overwrite each other."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import secrets
import stat
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import (
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    select,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, IntegrityError, SQLAlchemyError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship, sessionmaker

from simbridge._errors import SimbridgeError

DEFAULT_DB = "review.sqlite"
#: the longest evidence text a grade may carry (the web app and import-grades both hold to it)
MAX_EVIDENCE_CHARS = 20_000
_SQLITE_MAGIC = b"SQLite format 3\x00"


class StoreError(SimbridgeError):
    """The store cannot be opened, or a name given to it does not exist."""


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class Base(DeclarativeBase):
    pass


class Run(Base):
    """A recorded episode (a bundle directory) and what the raters must not see."""

    __tablename__ = "runs"
    id: Mapped[int] = mapped_column(primary_key=True)
    bundle_path: Mapped[str] = mapped_column(String(1024), unique=True)
    task_id: Mapped[str] = mapped_column(String(64))
    sim: Mapped[str | None] = mapped_column(String(64))
    agent: Mapped[str | None] = mapped_column(String(128))
    trial: Mapped[int | None] = mapped_column(Integer)
    #: the verifier's score.json score in [0, 1]; None when unscored or absent
    verifier_score: Mapped[float | None] = mapped_column(Float)

    @property
    def is_human(self) -> bool:
        return (self.agent or "").lower() == "human"


class Rater(Base):
    __tablename__ = "raters"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(128), unique=True)


class RaterKey(Base):
    """A rater's secret sign-in key, kept as its SHA-256 only; issuing a new one voids the old key
    and every session signed in with it (a session carries the key's `kid`)."""

    __tablename__ = "rater_keys"
    id: Mapped[int] = mapped_column(primary_key=True)
    rater_id: Mapped[int] = mapped_column(ForeignKey("raters.id"), unique=True)
    key_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    issued_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_now)
    rater: Mapped[Rater] = relationship()

    @property
    def kid(self) -> str:
        return self.key_sha256[:16]


class WebSession(Base):
    """A signed-in browser session, kept here: the cookie carries only its random id (256 bits,
    stored as its SHA-256), so signing out deletes the row and a copy of the cookie taken before
    grants nothing after; a session older than its lifetime is refused and pruned."""

    __tablename__ = "web_sessions"
    id: Mapped[int] = mapped_column(primary_key=True)
    sid_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    rater_id: Mapped[int] = mapped_column(ForeignKey("raters.id"))
    #: the sign-in key's id when the session began (a key issued since voids the session)
    kid: Mapped[str] = mapped_column(String(16))
    #: when it began, seconds since the epoch (UTC)
    created_s: Mapped[float] = mapped_column(Float)
    rater: Mapped[Rater] = relationship()


class Setting(Base):
    """Deployment-wide values; `session_secret` signs the web app's session cookies."""

    __tablename__ = "settings"
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Campaign(Base):
    __tablename__ = "campaigns"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    directory: Mapped[str] = mapped_column(String(1024))
    rubric: Mapped[str] = mapped_column(String(1024))
    per_run: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_now)
    runs: Mapped[list[CampaignRun]] = relationship(back_populates="campaign", order_by="CampaignRun.blind_id")


class CampaignRun(Base):
    """A run in a campaign under its blind id: raters see only this id (no agent, trial or score)."""

    __tablename__ = "campaign_runs"
    __table_args__ = (UniqueConstraint("campaign_id", "run_id"), UniqueConstraint("campaign_id", "blind_id"))
    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"))
    blind_id: Mapped[str] = mapped_column(String(32))
    campaign: Mapped[Campaign] = relationship(back_populates="runs")
    run: Mapped[Run] = relationship()


class Assignment(Base):
    __tablename__ = "assignments"
    __table_args__ = (UniqueConstraint("campaign_run_id", "rater_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_run_id: Mapped[int] = mapped_column(ForeignKey("campaign_runs.id"))
    rater_id: Mapped[int] = mapped_column(ForeignKey("raters.id"))
    campaign_run: Mapped[CampaignRun] = relationship()
    rater: Mapped[Rater] = relationship()


class Grade(Base):
    """One rater's level for one competency of one run, with the evidence written for it."""

    __tablename__ = "grades"
    __table_args__ = (UniqueConstraint("campaign_run_id", "rater_id", "competency", name="uq_grade"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_run_id: Mapped[int] = mapped_column(ForeignKey("campaign_runs.id"))
    rater_id: Mapped[int] = mapped_column(ForeignKey("raters.id"))
    competency: Mapped[str] = mapped_column(String(32))
    level: Mapped[str] = mapped_column(String(64), doc="the rubric level id")
    level_value: Mapped[int] = mapped_column(Integer)
    evidence: Mapped[str] = mapped_column(Text, default="")
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_now)
    campaign_run: Mapped[CampaignRun] = relationship()
    rater: Mapped[Rater] = relationship()


def db_url(db: str | None) -> str:
    """A SQLAlchemy URL; a plain path (or None: ./review.sqlite) means a SQLite file."""
    if db and "://" in db:
        return db
    return f"sqlite:///{Path(db or DEFAULT_DB).resolve()}"


class Store:
    """The database of one review deployment; `session()` is a transaction (commit or roll back)."""

    def __init__(self, db: str | None = None) -> None:
        url = db_url(db)
        if url.startswith("sqlite"):
            _check_sqlite_file(db or DEFAULT_DB, url)
        try:
            kwargs: dict[str, Any] = {}
            if url.startswith("sqlite"):
                kwargs["connect_args"] = {"timeout": 30, "check_same_thread": False}
            self.engine: Engine = create_engine(url, **kwargs)
        except (ArgumentError, ImportError) as exc:
            raise StoreError(f"--db {db}: not a usable database URL: {exc}") from None
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            Base.metadata.create_all(self.engine)
        except SQLAlchemyError as exc:
            why = str(getattr(exc, "orig", None) or exc).splitlines()[0]
            raise StoreError(f"--db {db or DEFAULT_DB}: cannot open the database: {why}") from None
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._sessions.begin() as s:
            yield s

    # ----------------------------------------------------------------- lookups
    @staticmethod
    def campaign(s: Session, name: str) -> Campaign:
        c = s.scalar(select(Campaign).where(Campaign.name == name))
        if c is None:
            known = ", ".join(s.scalars(select(Campaign.name).order_by(Campaign.name))) or "none"
            raise StoreError(f"campaign {name!r} does not exist (campaigns: {known})")
        return c

    @staticmethod
    def rater(s: Session, name: str, *, create: bool = False) -> Rater:
        r = s.scalar(select(Rater).where(Rater.name == name))
        if r is None:
            if not create:
                raise StoreError(f"rater {name!r} does not exist")
            r = Rater(name=name)
            s.add(r)
            s.flush()
        return r

    @staticmethod
    def campaign_raters(s: Session, campaign: Campaign) -> list[Rater]:
        q = (
            select(Rater)
            .join(Assignment, Assignment.rater_id == Rater.id)
            .join(CampaignRun, CampaignRun.id == Assignment.campaign_run_id)
            .where(CampaignRun.campaign_id == campaign.id)
            .distinct()
            .order_by(Rater.name)
        )
        return list(s.scalars(q))

    # ----------------------------------------------------------------- sign-in keys
    @staticmethod
    def issue_key(s: Session, rater: Rater) -> str:
        """A new secret sign-in key for `rater` (256 random bits), replacing any earlier one."""
        key = secrets.token_urlsafe(32)
        digest = hashlib.sha256(key.encode()).hexdigest()
        row = s.scalar(select(RaterKey).where(RaterKey.rater_id == rater.id))
        if row is None:
            s.add(RaterKey(rater_id=rater.id, key_sha256=digest))
        else:
            row.key_sha256, row.issued_at = digest, _now()
        s.flush()
        return key

    @staticmethod
    def key_of(s: Session, rater: Rater) -> RaterKey | None:
        return s.scalar(select(RaterKey).where(RaterKey.rater_id == rater.id))

    @staticmethod
    def rater_for_key(s: Session, key: str) -> RaterKey | None:
        """The key row whose secret is `key`, None for an unknown or voided key."""
        if not key or len(key) > 128:
            return None
        digest = hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()
        return s.scalar(select(RaterKey).where(RaterKey.key_sha256 == digest))

    # ----------------------------------------------------------------- web sessions
    @staticmethod
    def _sid_digest(sid: str) -> str:
        return hashlib.sha256(sid.encode("utf-8", "replace")).hexdigest()

    @staticmethod
    def open_web_session(s: Session, key: RaterKey, max_age_s: float) -> str:
        """A new server-side session for the key's rater: its secret id (for the signed cookie).
        Sessions past `max_age_s` are pruned here, so the table stays bounded."""
        now = time.time()
        s.execute(delete(WebSession).where(WebSession.created_s < now - max_age_s))
        sid = secrets.token_urlsafe(32)
        s.add(WebSession(sid_sha256=Store._sid_digest(sid), rater_id=key.rater_id, kid=key.kid, created_s=now))
        s.flush()
        return sid

    @staticmethod
    def web_session(s: Session, sid: str, max_age_s: float) -> WebSession | None:
        """The live session whose id is `sid`: None when unknown, signed out or older than `max_age_s`."""
        if not sid or len(sid) > 128:
            return None
        row = s.scalar(select(WebSession).where(WebSession.sid_sha256 == Store._sid_digest(sid)))
        if row is None or not (time.time() - max_age_s <= row.created_s <= time.time() + 60):
            return None
        return row

    @staticmethod
    def end_web_session(s: Session, sid: str) -> bool:
        """Sign out: delete the session server-side (every copy of its cookie stops working)."""
        if not sid or len(sid) > 128:
            return False
        res: Any = s.execute(delete(WebSession).where(WebSession.sid_sha256 == Store._sid_digest(sid)))
        return bool(res.rowcount)

    def session_secret(self) -> str:
        """The secret that signs the web app's session cookies: made once, kept in the store."""
        with self.session() as s:
            row = s.get(Setting, "session_secret")
            if row is not None:
                return row.value
        try:
            with self.session() as s:
                s.add(Setting(name="session_secret", value=secrets.token_hex(32)))
        except IntegrityError:  # another process made it first
            pass
        with self.session() as s:
            row = s.get(Setting, "session_secret")
            assert row is not None
            return row.value

    # ----------------------------------------------------------------- grades
    def save_grade(
        self,
        s: Session,
        campaign_run_id: int,
        rater_id: int,
        competency: str,
        level: str,
        level_value: int,
        evidence: str = "",
    ) -> None:
        """Insert or replace one grade (upsert on the unique key); other raters' rows are untouched."""
        values = dict(
            campaign_run_id=campaign_run_id,
            rater_id=rater_id,
            competency=competency,
            level=level,
            level_value=level_value,
            evidence=evidence,
            updated_at=_now(),
        )
        dialect = self.engine.dialect.name
        if dialect == "sqlite":
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            stmt: Any = sqlite_insert(Grade).values(**values)
        elif dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            stmt = pg_insert(Grade).values(**values)
        else:  # portable fallback: read, then update or insert, in this transaction
            g = s.scalar(
                select(Grade).where(
                    Grade.campaign_run_id == campaign_run_id, Grade.rater_id == rater_id, Grade.competency == competency
                )
            )
            if g is None:
                s.add(Grade(**values))
            else:
                for k, v in values.items():
                    setattr(g, k, v)
            return
        stmt = stmt.on_conflict_do_update(
            index_elements=["campaign_run_id", "rater_id", "competency"],
            set_={k: stmt.excluded[k] for k in ("level", "level_value", "evidence", "updated_at")},
        )
        s.execute(stmt)

    @staticmethod
    def grades(s: Session, campaign: Campaign) -> Sequence[Grade]:
        q = (
            select(Grade)
            .join(CampaignRun, CampaignRun.id == Grade.campaign_run_id)
            .where(CampaignRun.campaign_id == campaign.id)
            .order_by(Grade.id)
        )
        return s.scalars(q).all()


def _check_sqlite_file(db: str, url: str) -> None:
    """Refuse, before SQLite touches it, a --db that is not a SQLite database file (a directory, a
    device, /etc/passwd); a new file is made 0600, as the store keeps the session secret."""
    name = make_url(url).database
    if not name or name == ":memory:":
        return
    path = Path(name)
    try:
        st = path.stat()
    except FileNotFoundError:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            return
        except OSError as exc:
            raise StoreError(f"--db {db}: cannot create the database: {exc.strerror}") from None
        return
    except OSError as exc:
        raise StoreError(f"--db {db}: cannot open the database: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise StoreError(f"--db {db}: not a SQLite database file (it is not a regular file)")
    if st.st_size == 0:
        return
    try:
        with path.open("rb") as f:
            head = f.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise StoreError(f"--db {db}: cannot open the database: {exc.strerror}") from None
    if head != _SQLITE_MAGIC:
        raise StoreError(f"--db {db}: not a SQLite database (it does not start with 'SQLite format 3')")


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    """WAL lets raters read while another writes; foreign keys are off in SQLite unless asked."""
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA journal_mode=WAL")
    cur.close()
