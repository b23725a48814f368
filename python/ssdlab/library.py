"""The results library: every finished run in one local SQLite file, so reports and
compare rank a drive against every comparable drive measured (docs/library.md).

The library is an index of bundles, never a second copy of their data: it keeps each
run's identity, where its bundle is, and each test's figures with their declared labels,
units and directions, so rankings need not open a dozen bundles; charts that need series
still read the bundles. It is rebuilt from bundles at will (`ssdlab library add`).

Keys:
- a run: its start time, target, host, engine and suite (a resumed run is the same run);
- a drive: model, serial, firmware and capacity; for simulated, fake and file targets also
  the target spec, whose options define the "hardware";
- likeness: engine, catalogue method and effective method (ssdlab.effective, with the fio job
  conventions the bundle's job files show). Tests rank together only when all three are equal,
  and runs of one simulated preset only under one model of it (comparable), so unlike runs are
  never ranked together.

Standard library sqlite3 only: no server, one file, safe to copy.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from ssdlab.bundle import (
    RUN_ID_SHOWN,
    Bundle,
    MissingBundle,
    RunRecord,
    TestRecord,
    TooShort,
    atomic_write_bytes,
    is_run_id_prefix,
    lock_holder,
    note_advice,
    says_unreliable,
    short_run_id_hint,
    short_windows,
)
from ssdlab.effective import (
    RULES_VERSION,
    SimulatedDrive,
    declared_specs,
    effective_method,
    model_differences,
    same_revision,
    simulated_drive,
    unreliable_figure,
)
from ssdlab.errors import BundleError, SsdlabError, UsageError
from ssdlab.methods.metrics import MetricSet, MetricSpec
from ssdlab.outputs import OutputKind, make_folder_for, read_head, what_is
from ssdlab.targets.base import TargetInfo, label_for, members_text, recorded_members
from ssdlab.units import in_unit, is_number
from ssdlab.userdirs import xdg_base

LIBRARY_ENV = "SSDLAB_LIBRARY"
SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file
# 2: a simulated drive's id comes from its configuration, not its spec; 3: a mixed RAID-0's firmware
# is every member's, not its first member's; 4: each test's notes, which say when its figures are not
# to be trusted (_migrate); 5: each test's windows too short to trust, every one by name (_migrate)
SCHEMA_VERSION = 5
VIRTUAL_KINDS = ("sim", "fake", "file")  # targets whose spec is part of the drive's identity
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, bundle TEXT NOT NULL UNIQUE, drive_id TEXT NOT NULL, label TEXT NOT NULL,
    model TEXT, serial TEXT, firmware TEXT, capacity_bytes INTEGER NOT NULL, spec TEXT NOT NULL, kind TEXT NOT NULL,
    engine TEXT NOT NULL, engine_version TEXT, suite TEXT, status TEXT NOT NULL, created_utc TEXT NOT NULL,
    added_utc TEXT NOT NULL, ssdlab_version TEXT, target_json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tests (
    run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, name TEXT NOT NULL, method TEXT NOT NULL,
    method_key TEXT NOT NULL, method_json TEXT NOT NULL, params_json TEXT NOT NULL, status TEXT NOT NULL,
    notes_json TEXT, too_short_json TEXT, PRIMARY KEY (run_id, name));
CREATE TABLE IF NOT EXISTS metrics (
    run_id TEXT NOT NULL, test TEXT NOT NULL, metric TEXT NOT NULL, value REAL, text TEXT, label TEXT NOT NULL,
    unit TEXT NOT NULL, kind TEXT NOT NULL, better TEXT, dims_json TEXT NOT NULL,
    PRIMARY KEY (run_id, test, metric), FOREIGN KEY (run_id, test) REFERENCES tests(run_id, name) ON DELETE CASCADE);
CREATE INDEX IF NOT EXISTS tests_by_method ON tests (method, method_key);
"""
# How long a command waits for another process (a run adding itself, `library list`) to finish its
# change of the library before it says the library is locked: changes take milliseconds, a first
# open after an upgrade reads every bundle again.
LOCK_WAIT_S = 60.0
BundleState = Literal["ok", "missing", "changed", "damaged"]
AddOutcome = Literal["added", "updated", "moved", "replaced"]


def default_library_path() -> Path:
    """$SSDLAB_LIBRARY, else $XDG_DATA_HOME/ssdlab/library.sqlite (~/.local/share by default)."""
    given = os.environ.get(LIBRARY_ENV)
    if given:
        return Path(given).expanduser()
    return xdg_base("XDG_DATA_HOME", ".local/share") / "ssdlab" / "library.sqlite"


def _digest(*parts: object) -> str:
    return hashlib.sha256("\x1f".join("" if p is None else str(p) for p in parts).encode()).hexdigest()[:12]


def run_id(run: RunRecord) -> str:
    """Stable id of a run: the same after a move or a resume, different for another run, even one
    started in the same second (its nonce)."""
    nonce = [run.nonce] if run.nonce else []  # an older bundle keeps the id it was listed under
    return _digest(run.created_utc, *nonce, run.target.spec, run.target.serial, run.host.get("hostname"),
                   run.engine, run.suite)


def drive_id(target: TargetInfo) -> str:
    """Model, serial, firmware, capacity, and for simulated, fake and file targets what makes
    the drive: a simulated drive's whole configuration (`sim:` and `sim:sm951-nvme-256` are one
    drive, `?heatsink=1` another), else the target's spec."""
    made = _simulated_drive(target) or (target.spec if target.kind in VIRTUAL_KINDS else "")
    return _digest(target.model, target.serial, firmware_text(target), target.capacity_bytes, made)


def firmware_text(target: TargetInfo) -> str | None:
    """The firmware as the library keeps it: the drive's, or a RAID-0's members' one firmware, or
    for a mixed array every member's as the report says it ('mixed: A (member 1), B (member 2)'),
    so an update of any member makes another drive."""
    members = recorded_members(target.extra)
    if target.firmware is not None or not members:
        return target.firmware
    return members_text([str(m.get("firmware") or "—") for m in members])  # "—": unknown, as the report says


def _simulated_drive(target: TargetInfo) -> str:
    """The resolved configuration a simulated drive was built from ("" when the bundle is
    older than the record of it): spellings of one drive give the same text."""
    config = target.extra.get("config") if target.kind == "sim" else None
    if not isinstance(config, dict) or not config:
        return ""
    array = {k: target.extra.get(k) for k in ("raid0_members", "chunk_kib") if k in target.extra}
    return json.dumps({"config": config, **array}, sort_keys=True)


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class LibraryRun:
    """One run in the library, as `ssdlab library list` shows it."""

    run_id: str
    bundle: Path
    drive_id: str
    label: str
    spec: str
    engine: str
    suite: str | None
    status: str
    created_utc: str
    tests: int
    preset: str | None = None  # a simulated drive's preset, also when the spec left it out (`sim:`)
    # (test, what it says to raise, "" where it says nothing) of each test whose figures are not to
    # be trusted (unreliable): never ranked.
    flagged: tuple[tuple[str, str], ...] = ()

    @property
    def unreliable(self) -> tuple[str, ...]:
        """The flagged tests' names, in their order."""
        return tuple(name for name, _ in self.flagged)

    def named_by(self, query: str) -> bool:
        """The query is this run's spec or preset exactly (`sim:` may be left out)."""
        return self.spec in (query, f"sim:{query}") or (
            self.preset is not None and query.removeprefix("sim:") == self.preset)

    def mentions(self, text: str) -> bool:
        """Case-insensitive substring of the label, the spec or the preset."""
        text = text.lower()
        return any(text in field.lower() for field in (self.label, self.spec, self.preset or ""))

    def state(self) -> BundleState:
        """Whether the bundle is still where the library says, holding this run."""
        return bundle_state(self.bundle, self.run_id)

    def check(self) -> BundleCheck:
        """The bundle's state, with why it cannot be read when it is damaged."""
        return bundle_check(self.bundle, self.run_id)


def bundle_state(path: Path, rid: str) -> BundleState:
    """Whether the bundle at `path` still holds run `rid`."""
    return bundle_check(path, rid).state


STOPPED = "stopped"  # a run that reads "running" while nobody holds its bundle's lock


def shown_status(status: str, bundle: Path) -> str:
    """A run's status as every command shows it (report, library list, compare): "running" only
    while a run holds its bundle's lock (bundle.lock_holder; the kernel drops it however the run
    ends); one that reads "running" with the lock free stopped without saving its status (killed,
    or the disk was full), as the report's banner says (QA: after kill -9 the terminal report and
    `library list` said "running")."""
    if status == "running" and lock_holder(bundle) is None:
        return STOPPED
    return status


@dataclass(frozen=True)
class BundleCheck:
    """What became of a run's bundle (bundle_check): its state, and why a damaged one cannot be read."""

    state: BundleState
    reason: str = ""  # a damaged bundle's: the error reading its run record gave

    def said(self) -> str:
        """What became of the bundle, as `library list` says it after "bundle PATH"."""
        if self.state == "damaged":
            return f"cannot be read: {self.reason}"
        return {"ok": "is there", "missing": "moved or deleted", "changed": "now holds another run"}[self.state]


def bundle_check(path: Path, rid: str) -> BundleCheck:
    """Whether the bundle at `path` still holds run `rid`: missing when nothing holds a run record
    there (moved or deleted), damaged when one is there but cannot be read (QA: a run.json cut
    short was called moved, and `library remove --missing` would have forgotten its run)."""
    bundle = Bundle(path)
    try:
        run = bundle.load_run()
    except BundleError as error:
        there = bundle.run_file.is_file()
        return BundleCheck("damaged", str(error)) if there else BundleCheck("missing")
    return BundleCheck("ok" if run_id(run) == rid else "changed")


@dataclass(frozen=True)
class Added:
    run: LibraryRun
    outcome: AddOutcome
    previous: Path | None = None  # where the run was before (moved), or which run it replaced


@dataclass(frozen=True)
class RankedTest:
    """One comparable test of one drive in the library: its figures by metric name."""

    run_id: str
    drive_id: str
    label: str
    bundle: Path
    created_utc: str
    values: dict[str, float | str | None]
    test: str  # the test's name in its run (like tests may be named differently)


@dataclass(frozen=True)
class Ranking:
    """The like tests a drive is ranked against (Library.ranking), and those left out of it."""

    ranked: list[RankedTest]
    # Drives' like tests newer than any they rank with, left out as their figures are not to be
    # trusted (unreliable): a drive ranks with its newest like test that is, if it has one.
    unreliable: list[RankedTest]


class Library:
    """A results library file. Adding creates it (and its folder) when missing; reading does not."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = (path or default_library_path()).expanduser().resolve()

    def check_file(self) -> None:
        """UsageError when the library path is something other than a library: not a file (a
        device, a FIFO, a folder, a socket; self.path is past any link: SQLite would write a
        database over a device), or a file that is not an SQLite database (a bundle's run.json:
        QA saw `report` rank against nothing in silence, `run` measure to the end and then advise
        adding the run to that same file). Every command that takes --library asks this before
        it starts; an empty file is a new library, as SQLite makes it one."""
        if self.path.exists() and not self.path.is_file():
            raise UsageError(f"results library {self.path} is {what_is(self.path)}, not a library file: ssdlab "
                             f"never opens it; give a file with --library or {LIBRARY_ENV}")
        head = read_head(self.path, len(SQLITE_HEADER)) if self.path.exists() else b""
        if head and head != SQLITE_HEADER:
            raise UsageError(f"results library {self.path} is not a library (not an SQLite database): ssdlab "
                             f"never opens it; give a library file with --library or {LIBRARY_ENV}")
        if head and not _ssdlab_tables(self.path):
            raise UsageError(f"results library {self.path} is another program's SQLite database, not an ssdlab "
                             f"library: ssdlab never writes into it; give a library file with --library or "
                             f"{LIBRARY_ENV}")

    def check_writable(self) -> None:
        """UsageError when the library is not a file, or exists but may not be changed here (a
        read-only share, another user's file): said once, before a command that changes it starts."""
        self.check_file()
        if self.path.exists() and not _writable(self.path):
            raise UsageError(f"results library {self.path} is read-only here: it can be listed and compared "
                             f"against, not changed; give a writable one with --library or {LIBRARY_ENV}")

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """The library to change (created when missing, brought up to this schema)."""
        self.check_writable()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with closing(sqlite3.connect(self.path, timeout=LOCK_WAIT_S)) as db, db:
                _prepare(db, self.path)
                yield db
        except sqlite3.DatabaseError as err:
            raise _unusable(self.path, err) from None

    @contextmanager
    def _reader(self) -> Iterator[sqlite3.Connection]:
        """The library to read. A missing one reads as empty and is not created; one this process
        may not write (a read-only share, another user's file) is read from a copy in memory, so
        an older schema still reads as this one."""
        self.check_file()
        if self.path.exists() and _writable(self.path):
            with self._db() as db:
                yield db
            return
        try:
            with closing(sqlite3.connect(":memory:")) as db:
                if self.path.exists():
                    with closing(sqlite3.connect(f"{self.path.as_uri()}?mode=ro", uri=True)) as source:
                        source.backup(db)
                _prepare(db, self.path)
                yield db
        except sqlite3.DatabaseError as err:
            raise _unusable(self.path, err) from None

    # ---- adding and removing ------------------------------------------------------------

    def add(self, bundle_dir: Path) -> Added:
        """Add (or refresh) a bundle's run; adding the same run again changes nothing but
        its figures, a moved bundle updates its path, a bundle reused for another run
        replaces the run that was there."""
        bundle = Bundle(bundle_dir)
        try:
            run = bundle.load_run()
        except MissingBundle as missing:
            raise with_bundle_named(missing, self.path) from None
        if run.status != "complete" and not any(record.metrics for record in run.tests):  # nothing to rank
            raise BundleError(f"{bundle.path}: no test of this run finished ({run.status}), so it has nothing to "
                              f"rank; finish it with `ssdlab run --resume {bundle.path}`, then add it")
        _refuse_tests_named_twice(bundle, run)
        rid = run_id(run)
        with self._db() as db:
            before = db.execute("SELECT bundle FROM runs WHERE run_id = ?", (rid,)).fetchone()
            if before is not None:
                _refuse_a_copy(Path(before[0]), bundle.path, rid)
            other = db.execute("SELECT run_id FROM runs WHERE bundle = ? AND run_id != ?",
                               (str(bundle.path), rid)).fetchone()
            if other:
                db.execute("DELETE FROM runs WHERE run_id = ?", other)
            db.execute("DELETE FROM runs WHERE run_id = ?", (rid,))
            _insert_run(db, rid, bundle.path, run)
        outcome, previous = _outcome(before, other, bundle.path)
        return Added(self.run(rid), outcome, previous)

    def remove(self, *which: str) -> list[LibraryRun]:
        """Remove runs, each named by its run id (with_id) or its bundle path. Every name is
        resolved first: one that names no run, or several, removes nothing (find_runs). A run
        named twice (or by its id and its path) is removed once."""
        runs = list({run.run_id: run for run in self.find_runs(which)}.values())
        with self._db() as db:
            db.executemany("DELETE FROM runs WHERE run_id = ?", [(run.run_id,) for run in runs])
        return runs

    def remove_missing(self) -> list[LibraryRun]:
        gone = [r for r in self.runs() if r.state() in ("missing", "changed")]  # a damaged bundle is still there
        with self._db() as db:
            db.executemany("DELETE FROM runs WHERE run_id = ?", [(r.run_id,) for r in gone])
        return gone

    # ---- reading ------------------------------------------------------------------------

    def runs(self) -> list[LibraryRun]:
        """Every run, newest first."""
        with self._reader() as db:
            rows = db.execute(RUNS_SELECT + " GROUP BY r.run_id ORDER BY r.created_utc DESC, r.run_id").fetchall()
            flagged = _flagged(db.execute("SELECT run_id, name, notes_json, too_short_json FROM tests ORDER BY rowid"))
        return [replace(_library_run(row), flagged=flagged.get(row[0], ())) for row in rows]

    def run(self, rid: str) -> LibraryRun:
        """The run of id `rid`, read by its key in one query (it read every run of the library to find
        one): as runs() has it. UsageError when it is not there (QA: another process removed a run
        between its add and this read, and `next` ended the add in a bare StopIteration)."""
        with self._reader() as db:
            rows = db.execute(RUN_SELECT, (rid,)).fetchall()
        if rows:
            tests = [(rid, *row[10:]) for row in rows if row[10] is not None]
            return replace(_library_run((*rows[0][:9], len(tests), rows[0][9])), flagged=_flagged(tests).get(rid, ()))
        raise UsageError(f"run {rid} is not in the results library {self.path} (another ssdlab may have removed it "
                         "just now); see what it holds with `ssdlab library list`")

    def find_run(self, which: str) -> LibraryRun:
        (run,) = self.find_runs([which])
        return run

    def find_runs(self, names: Sequence[str]) -> list[LibraryRun]:
        """The run each name gives (a run id as `with_id` takes it, a bundle path, else a bundle's
        folder name as `library list` shows it), in order; one UsageError naming every name that
        gives no run or several, each once however often it was given."""
        runs = self.runs()
        found, problems = [], []
        for which in dict.fromkeys(names):
            as_path = str(Path(which).expanduser().resolve())
            by_id = {r.run_id for r in with_id(runs, which)}
            matches = [r for r in runs if r.run_id in by_id or str(r.bundle) == as_path]
            if not matches and "/" not in which:  # the bundle's folder name, as `library list` shows it
                matches = [r for r in runs if r.bundle.name == which]
            if len(matches) == 1:
                found.append(matches[0])
            else:
                what = "no run in the library matches" if not matches else f"{len(matches)} runs in the library match"
                problems.append(f"{what} {which!r}{short_run_id_hint(which)}")
        if problems:
            raise UsageError(f"{'; '.join(problems)}; give a run id from `ssdlab library list` or a bundle path")
        return found

    def drives(self, query: str) -> list[list[LibraryRun]]:
        """The drives a query names, each as its runs (newest first) on one engine.

        Queries: `latest` (the drive of the newest run), `all`, a target spec or simulator
        preset (`sim:sm951-nvme-256` or `sm951-nvme-256`, exactly), a run id as `library list`
        shows it (that one run, as a drive of its own), else a substring of the model, label or
        target spec (case-insensitive)."""
        runs = self.runs()
        if query == "latest":
            picked = [r for r in runs if runs and (r.drive_id, r.engine) == (runs[0].drive_id, runs[0].engine)]
        elif query == "all":
            picked = runs
        else:
            if query == "sim:":  # the default preset, as `run -t sim:` takes it, not every simulated drive
                query = f"sim:{default_sim_preset()}"
            exact = [r for r in runs if r.named_by(query)]
            by_id = with_id(runs, query)
            if not exact and len(by_id) == 1:
                return [by_id]
            picked = exact or [r for r in runs if r.mentions(query)]
        groups: dict[tuple[str, str], list[LibraryRun]] = {}
        for run in picked:
            groups.setdefault((run.drive_id, run.engine), []).append(run)
        return list(groups.values())

    def comparable(self, engine: str, method: str, method_key: str, like: TargetInfo | None = None) -> list[RankedTest]:
        """The tests a drive ranks against (ranking)."""
        return self.ranking(engine, method, method_key, like).ranked

    def ranking(self, engine: str, method: str, method_key: str, like: TargetInfo | None = None) -> Ranking:
        """The newest like test of every drive: same engine, method and effective method, and figures
        to be trusted (a newer one whose are not is left out, and said). A simulated drive ranks only
        under the model of its preset that `like` (the drive ranked against them) has, else the
        newest one: runs of one preset under two versions of ssdsim's model of it measured two
        simulators, not two drives (effective.model_differences)."""
        with self._reader() as db:
            rows = db.execute(COMPARABLE_SELECT, (engine, method, method_key)).fetchall()
            newest: dict[str, tuple[RankedTest, str]] = {}
            left_out: list[tuple[RankedTest, str]] = []
            for rid, drive, label, bundle, created, name, target_json, notes in rows:
                if drive not in newest:
                    values = dict(db.execute("SELECT metric, COALESCE(value, text) FROM metrics WHERE run_id = ? "
                                             "AND test = ?", (rid, name)).fetchall())
                    test = RankedTest(rid, drive, label, Path(bundle), created, values, name)
                    if unreliable(notes):
                        left_out.append((test, target_json))
                    else:
                        newest[drive] = (test, target_json)
        model = simulated_drive(like) if like is not None else None
        # A run left out is said only where it would rank, trusted: not of another model of `like`'s preset.
        return Ranking(one_model_each(list(newest.values()), model),
                       [test for test, target_json in left_out if one_model_each([(test, target_json)], model)])

    def export_rows(self) -> list[dict[str, Any]]:
        """One row per figure of every test: the long table `export` writes, each saying whether
        its figure is not to be trusted (unreliable_figures) and whether it is only a lower bound,
        with the bound as the report says it (export_bounds)."""
        with self._reader() as db:
            flagged: dict[tuple[str, str], Callable[[str], bool]] = {}  # by (run, test): its figures not to trust
            declared: dict[tuple[str, str], MetricSet | None] = {}  # by (run, test): its method's declarations
            for rid, bundle, name, method, params, notes, too_short, target in db.execute(NOTES_SELECT):
                declared[(rid, name)] = stored_specs(method, params, target)
                if unreliable(notes):
                    record = TestRecord(name=name, test=method, params=json.loads(params), notes=json.loads(notes),
                                        too_short=stored_too_short(too_short))
                    flagged[(rid, name)] = unreliable_figures(rid, Path(bundle), record, target)
            db.row_factory = sqlite3.Row
            rows = [dict(row) for row in db.execute(EXPORT_SELECT)]
        for row in rows:
            marked = flagged.get((row["run_id"], row["test"]))
            row["unreliable"] = marked is not None and marked(row["metric"])
        export_declared(rows, declared)
        export_bounds(rows, declared)
        return rows

    def export(self, out: Path, fmt: Literal["csv", "parquet"]) -> int:
        """Write the export to `out`, whole or not at all. A link to a file is written through
        (as report, compare and trace do); anything else there — a link or device node put
        there after the command checked the path — is replaced, never written into."""
        rows = self.export_rows()
        columns = EXPORT_COLUMNS
        if fmt == "csv":
            text = io.StringIO(newline="")
            writer = csv.DictWriter(text, fieldnames=columns)
            writer.writeheader()
            # true/false, as the export's words for a yes/no figure (`text`) are
            writer.writerows({**row, "unreliable": str(row["unreliable"]).lower(),
                              "lower_bound": str(row["lower_bound"]).lower()} for row in rows)
            data = text.getvalue().encode("utf-8")
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.table({c: [r[c] for r in rows] for c in columns}, schema=export_schema(pa))
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink)
            data = sink.getvalue().to_pybytes()
        target = out.resolve() if out.is_symlink() and out.is_file() else out
        make_folder_for(target)  # only now, with the rows read: a refused export leaves no folder
        atomic_write_bytes(target, data)
        return len(rows)


# A run's label, made from its model, spec and capacity as it is read (label_for, which _prepare
# gives SQL as drive_label) by today's rule: the stored label column holds what the ssdlab that
# added the run made (QA: runs added under schema 3 before the IDEMA rule kept "950 PRO 512GB" for
# a drive cut to 499 GB). The column is still written, for an older ssdlab of this schema.
LABEL = "drive_label(r.model, r.spec, r.capacity_bytes)"
RUNS_SELECT = f"""SELECT r.run_id, r.bundle, r.drive_id, {LABEL}, r.spec, r.engine, r.suite, r.status, r.created_utc,
    COUNT(t.name), json_extract(r.target_json, '$.extra.preset')
    FROM runs r LEFT JOIN tests t ON t.run_id = r.run_id"""
# One run's row once per test (once, with NULLs, when it has none), its tests in the order added.
RUN_SELECT = f"""SELECT r.run_id, r.bundle, r.drive_id, {LABEL}, r.spec, r.engine, r.suite, r.status, r.created_utc,
    json_extract(r.target_json, '$.extra.preset'), t.name, t.notes_json, t.too_short_json
    FROM runs r LEFT JOIN tests t ON t.run_id = r.run_id WHERE r.run_id = ? ORDER BY t.rowid"""
COMPARABLE_SELECT = f"""SELECT r.run_id, r.drive_id, {LABEL}, r.bundle, r.created_utc, t.name, r.target_json,
    t.notes_json
    FROM tests t
    JOIN runs r ON r.run_id = t.run_id
    WHERE r.engine = ? AND t.method = ? AND t.method_key = ? AND t.status = 'complete'
    ORDER BY r.created_utc DESC, r.run_id"""
EXPORT_COLUMNS = ["run_id", "bundle", "drive_id", "drive", "model", "serial", "firmware", "capacity_bytes", "spec",
                  "engine", "suite", "created_utc", "test", "method", "method_key", "metric", "label", "unit", "kind",
                  "better", "value", "text", "unreliable", "lower_bound",
                  "bound_text"]  # new columns go last: scripts read them by place
EXPORT_SELECT = f"""SELECT r.run_id, r.bundle, r.drive_id, {LABEL} AS drive, r.model, r.serial, r.firmware,
    r.capacity_bytes, r.spec, r.engine, r.suite, r.created_utc, t.name AS test, t.method, t.method_key,
    m.metric, m.label, m.unit, m.kind, m.better, m.value, m.text
    FROM metrics m JOIN tests t ON t.run_id = m.run_id AND t.name = m.test JOIN runs r ON r.run_id = m.run_id
    ORDER BY r.created_utc, r.run_id, t.name, m.rowid"""
NOTES_SELECT = """SELECT t.run_id, r.bundle, t.name, t.method, t.params_json, t.notes_json, t.too_short_json,
    r.target_json FROM tests t JOIN runs r ON r.run_id = t.run_id"""


def stored_specs(method: str, params_json: str, target_json: str) -> MetricSet | None:
    """A stored test's declarations, by its method, parameters and target as the library keeps them;
    None for a method this ssdlab does not know or a row it cannot read (`library add` refreshes it)."""
    try:
        target = TargetInfo.model_validate_json(target_json)
        params = json.loads(params_json)
    except (ValidationError, ValueError):
        return None
    return declared_specs(TestRecord(name=method, test=method, params=params if isinstance(params, dict) else {}),
                          target)


def export_declared(rows: Sequence[dict[str, Any]], declared: Mapping[tuple[str, str], MetricSet | None]) -> None:
    """Each export row's `better`, `label` and `kind` as this ssdlab's catalogue declares its metric,
    as the report, compare and the rankings read them; the stored columns hold what the ssdlab that
    added the run declared (QA: a thermal phase's `peak_indicator_pct`, no longer ranked, still
    exported as 'lower' is better). The label and kind only where the unit is still the stored one:
    a figure stored in another unit keeps the words it was stored with. A metric this ssdlab does
    not declare keeps its stored columns."""
    for row in rows:
        specs = declared.get((row["run_id"], row["test"]))
        spec = specs.get(row["metric"]) if specs is not None else None
        if spec is None:
            continue
        row["better"] = spec.better
        if spec.unit == row["unit"]:
            row["label"], row["kind"] = spec.label, spec.kind


def export_bounds(rows: Sequence[dict[str, Any]], declared: Mapping[tuple[str, str], MetricSet | None]) -> None:
    """Each export row's `lower_bound`: whether its figure is only a lower bound (MetricSpec.is_bound,
    by its test's declarations and figures: the data a phase that never throttled wrote is all it
    wrote, not when it throttled), and `bound_text`: the bound as the report says it ('≥ 315.01 GB
    (never throttled)'; null elsewhere). QA: the export gave 315 GB, the test's length, as a plain figure."""
    tests: dict[tuple[str, str], dict[str, Any]] = {}  # by (run, test): its figures by metric
    for row in rows:
        tests.setdefault((row["run_id"], row["test"]), {})[row["metric"]] = \
            row["value"] if row["value"] is not None else row["text"]
    for row in rows:
        key = (row["run_id"], row["test"])
        specs = declared.get(key)
        spec = specs.get(row["metric"]) if specs is not None else None
        bound = spec is not None and row["value"] is not None and spec.is_bound(tests[key])
        row["lower_bound"] = bound
        row["bound_text"] = bound_words(spec, tests[key]) if spec is not None and bound else None


def bound_words(spec: MetricSpec, metrics: Mapping[str, Any]) -> str:
    """A lower bound with its unit in the tables' digits (units.in_unit), as the report prints it:
    '≥ 315.01 GB (never throttled)'."""
    value = metrics[spec.name]
    return spec.bound_text(in_unit(value, spec.unit) if spec.unit else f"{value:g}", spec.bound_why(metrics))


def stored_notes(notes_json: str | None) -> list[str]:
    """A test's notes as the library keeps them; none for a row added before the library kept
    notes (its bundle gone since) or a damaged one (`library add` refreshes it)."""
    try:
        notes = json.loads(notes_json) if notes_json else []
    except ValueError:
        return []
    return [note for note in notes if isinstance(note, str)] if isinstance(notes, list) else []


def unreliable(notes_json: str | None) -> bool:
    """Whether a test's notes as the library keeps them say its figures are not to be trusted."""
    return says_so(stored_notes(notes_json))


def says_so(notes: Sequence[str]) -> bool:
    """Whether any of the notes says the test's figures are not to be trusted (bundle.says_unreliable)."""
    return any(says_unreliable(note) for note in notes)


def stored_advice(notes: Sequence[str], too_short_json: str | None) -> str:
    """What a flagged test says to raise, as the library keeps it: its windows' advice (schema 5),
    else its note's (bundle.note_advice; `notes`: stored_notes), else "" (a damaged row)."""
    kept = stored_too_short(too_short_json)
    if kept is not None:
        return kept.advice
    return next((advice for advice in map(note_advice, notes) if advice), "")


def stored_too_short(too_short_json: str | None) -> TooShort | None:
    """A test's windows too short to trust as the library keeps them (TestRecord.too_short); None:
    it had none, or it was added before the library kept them (then its notes say: short_windows)."""
    try:
        return TooShort.model_validate_json(too_short_json) if too_short_json else None
    except ValidationError:  # a damaged row: its notes say what they can; `library add` refreshes it
        return None


def unreliable_figures(rid: str, bundle: Path, record: TestRecord, target_json: str) -> Callable[[str], bool]:
    """Which figures, by metric name, of a test whose notes say its measured windows were too short
    to trust come from one of them, as the report decides it (effective.unreliable_figure): the
    windows as the library keeps them (TestRecord.too_short, no bundle read), else as the notes
    name them, else (they name a few "and N more") by the measurements of its bundle while that
    holds the run (Bundle.windows_too_short), else every window of it; what each figure is made of
    by its method's declarations (a method this ssdlab does not know declares none: then every
    figure of the test)."""
    short = short_windows(record)
    if short is not None and short.names is None:  # "a, b, c and 2 more": the bundle's measurements say which
        with contextlib.suppress(BundleError):
            kept = Bundle(bundle)
            run = kept.load_run()
            if run_id(run) == rid:
                short = kept.windows_too_short(run.test(record.name)) or short
    try:
        target: TargetInfo | None = TargetInfo.model_validate_json(target_json)
    except ValidationError:  # a row this ssdlab cannot read: `library add` refreshes it
        target = None
    return unreliable_figure(record, target, short)


def _ssdlab_tables(path: Path) -> bool:
    """Whether an SQLite database is an ssdlab library, or one with no tables yet (a new one):
    its `meta` table names a schema version, or its tables are ssdlab's alone with no version
    row (the first write of an ssdlab older than one-transaction creation failed after making
    them: _prepare repairs it). Read-only, so a database of another program is never changed (it
    used to get ssdlab's tables added); one that cannot be read is left to the command to say so."""
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables:
                return True
            if "meta" in tables and db.execute(
                    "SELECT 1 FROM meta WHERE key = 'schema_version'").fetchone() is not None:
                return True
            return _made_by_ssdlab(db, tables)
    except sqlite3.Error:
        return True


def _made_by_ssdlab(db: sqlite3.Connection, tables: set[str]) -> bool:
    """Whether a database without a schema version holds ssdlab's tables and nothing else, each
    with no column this schema lacks (an older ssdlab's lack some of today's, never have others)."""
    ours = schema_columns()
    if tables != set(ours):
        return False
    return all({row[1] for row in db.execute(f"PRAGMA table_info({table})")} <= {name for name, _ in columns}
               for table, columns in ours.items())


def one_model_each(found: Sequence[tuple[RankedTest, str]], like: SimulatedDrive | None) -> list[RankedTest]:
    """The tests (newest first, each with its run's stored target) whose simulated drive is not of
    a preset `like` or a newer test's drive has under another model, nor made under another
    revision of the simulator's model than theirs (effective.revision_difference); other drives
    pass as they are."""
    kept: list[RankedTest] = []
    models: list[SimulatedDrive] = [like] if like is not None else []
    for test, target_json in found:
        try:
            model = simulated_drive(TargetInfo.model_validate_json(target_json))
        except ValidationError:
            model = None  # a row this ssdlab cannot read: `library add` refreshes it
        # Another model of its preset, or another revision of the simulator's model: two simulators.
        if model is not None and any(model_differences(other, model) or not same_revision(other, model)
                                     for other in models):
            continue
        kept.append(test)
        models += [model] if model is not None else []
    return kept


FIRST_EXPORT_COLUMNS = 22  # the export's columns before `unreliable`: an older export has these


def is_export_columns(names: Sequence[str]) -> bool:
    """Whether `names` are the columns of an export ssdlab wrote, this one's or an older one's
    (new columns go last)."""
    return len(names) >= FIRST_EXPORT_COLUMNS and list(names) == EXPORT_COLUMNS[:len(names)]


def is_csv_export(path: Path) -> bool:
    """Whether `path` is a CSV export ssdlab wrote: its first line is the export's header."""
    first = read_head(path).split(b"\n", 1)[0].strip()
    return is_export_columns(first.decode("utf-8", "replace").split(","))


def is_parquet_export(path: Path) -> bool:
    """Whether `path` is a Parquet export ssdlab wrote: its schema is the export's columns."""
    import pyarrow.parquet as pq

    try:
        return is_export_columns(pq.read_schema(str(path)).names)
    except Exception:  # pyarrow raises ArrowInvalid and friends for what is not Parquet
        return False


# Either format replaces an export ssdlab wrote in either (QA: a CSV export then `--format parquet`
# to the same name was refused as "not a Parquet export ssdlab wrote").
EXPORT_KIND = OutputKind("an export ssdlab wrote", lambda path: is_csv_export(path) or is_parquet_export(path))


def export_schema(pa: Any) -> Any:
    """Column types of the Parquet export (pyarrow is imported only when exporting)."""
    types = {"capacity_bytes": pa.int64(), "value": pa.float64(), "unreliable": pa.bool_(), "lower_bound": pa.bool_()}
    return pa.schema([(c, types.get(c, pa.string())) for c in EXPORT_COLUMNS])


def _writable(path: Path) -> bool:
    """SQLite writes the file and a journal beside it: both need write access (a read-only
    mount refuses both, also to root)."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _prepare(db: sqlite3.Connection, path: Path) -> None:
    """Make the library, or bring it up to this schema, in one transaction: a library is made
    whole (its tables and the schema version that says they are ssdlab's) or not at all. QA: the
    tables were committed on their own, so a first `library add` that failed (a full disk, a
    bundle refused by a constraint) rolled back only the version row, and every later command
    called the file another program's database."""
    db.execute("PRAGMA foreign_keys = ON")  # a no-op inside a transaction: set before it begins
    db.create_function("drive_label", 3, label_for, deterministic=True)  # LABEL, in every query that reads one
    # IMMEDIATE: the write lock is taken first, waiting (LOCK_WAIT_S) while another process holds it. A
    # deferred BEGIN read the schema, then asked for it at the first write, and SQLite answers a reader
    # that asks while another reader waits for it "database is locked" at once, without waiting (QA: two
    # `library list` or a `list` beside a finishing `run`, half of them refused, the run left unadded).
    db.execute("BEGIN IMMEDIATE")
    for statement in SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)
    _add_missing_columns(db)
    # No version row: a new library, or the tables of a first write that failed before this fix
    # (its rows were rolled back with the version, so it has none to migrate).
    db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    _check_version(db, path)
    _migrate(db, path)
    _follow_rules(db)
    db.commit()


@cache
def schema_columns() -> dict[str, tuple[tuple[str, str], ...]]:
    """Each table of this schema and its columns (name, declared type), as SCHEMA makes them."""
    with closing(sqlite3.connect(":memory:")) as model:
        model.executescript(SCHEMA)
        tables = [name for (name,) in model.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: tuple((row[1], row[2]) for row in model.execute(f"PRAGMA table_info({table})"))
                for table in tables}


def _add_missing_columns(db: sqlite3.Connection) -> None:
    """Every column of this schema that an older library's table lacks (schema 4: tests.notes_json,
    5: tests.too_short_json), all added before any migration step writes a row as this schema
    does. QA: the schema-4 step re-read each bundle and inserted rows with the schema-5 column
    before the schema-5 step added it, so a schema-3 library whose bundles were there could not
    be opened. New columns are nullable (ALTER TABLE adds no other kind)."""
    for table, columns in schema_columns().items():
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        for name, kind in columns:
            if name not in have:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")


def _follow_rules(db: sqlite3.Connection) -> None:
    """Runs added under other effective-method rules (effective.RULES_VERSION) are read again
    from their bundles, so like runs keep ranking together after an upgrade. A run whose bundle
    moved, vanished or holds another run keeps what it had; `library add` refreshes it later."""
    row = db.execute("SELECT value FROM meta WHERE key = 'effective_rules'").fetchone()
    if row is not None and str(row[0]) == str(RULES_VERSION):  # anything else (a damaged row): read again
        return
    # No row: a new library, or one written before rules 2 brought the row (its runs are re-read).
    for rid, bundle, added in db.execute("SELECT run_id, bundle, added_utc FROM runs").fetchall():
        _reread(db, rid, Path(bundle), added)
    db.execute("INSERT OR REPLACE INTO meta VALUES ('effective_rules', ?)", (str(RULES_VERSION),))


def _reread(db: sqlite3.Connection, rid: str, path: Path, added_utc: str) -> None:
    try:
        run = Bundle(path).load_run()
    except BundleError:
        return
    if run_id(run) != rid:
        return
    db.execute("DELETE FROM runs WHERE run_id = ?", (rid,))
    _insert_run(db, rid, path, run)
    db.execute("UPDATE runs SET added_utc = ? WHERE run_id = ?", (added_utc, rid))


def _unusable(path: Path, err: sqlite3.DatabaseError) -> UsageError:
    if isinstance(err, sqlite3.OperationalError) and "locked" in str(err):
        # Another ssdlab is writing it (sqlite gave up waiting for its lock): the library is fine,
        # so the advice is to wait, not to leave it (QA: "give another" read as "it is broken").
        return UsageError(f"results library {path} is in use by another ssdlab ({err}); retry when that one "
                          f"ends, or give another library with --library or {LIBRARY_ENV}")
    return UsageError(f"results library {path} cannot be used ({err}); give another with --library or {LIBRARY_ENV}")


def _check_version(db: sqlite3.Connection, path: Path) -> None:
    version = schema_version(db, path)
    if version > SCHEMA_VERSION:
        raise UsageError(f"results library {path} is schema {version}, newer than this ssdlab understands "
                         f"({SCHEMA_VERSION}); upgrade ssdlab")


def schema_version(db: sqlite3.Connection, path: Path) -> int:
    """The library's schema version; UsageError, in one line, when it is not a number (a damaged
    or hand-edited file: QA saw "internal error: ValueError")."""
    (version,) = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    try:
        return int(version)
    except (TypeError, ValueError):
        raise UsageError(f"results library {path} is damaged: its schema version is {version!r}, not a number; "
                         f"give another with --library or {LIBRARY_ENV}") from None


def _migrate(db: sqlite3.Connection, path: Path) -> None:
    """Bring a library an older ssdlab wrote up to this schema; every run keeps its figures. Its
    columns are already this schema's (_add_missing_columns), so each step may write rows as
    this schema does, whichever version the library was."""
    version = schema_version(db, path)
    if version >= SCHEMA_VERSION:
        return
    # Drive ids, firmware and labels from the stored target, as they are made now: 2, a simulated
    # drive's id from its configuration; 3, a mixed RAID-0's from every member's firmware (the
    # stored target reads its members' facts: TargetInfo), not its first member's, and a label
    # that no longer repeats a size its model states ("950 PRO 512GB 512 GB").
    for rid, target_json in db.execute("SELECT run_id, target_json FROM runs").fetchall():
        try:
            target = TargetInfo.model_validate_json(target_json)
        except ValidationError:
            continue  # a row this ssdlab cannot read keeps its id; `library add` refreshes it
        db.execute("UPDATE runs SET drive_id = ?, firmware = ?, label = ? WHERE run_id = ?",
                   (drive_id(target), firmware_text(target), target.label, rid))
    if version < 4:
        # 4: each test's notes, read again from its run's bundle (one that moved or vanished keeps
        # none until `library add` refreshes it, and ranks as before); with them, 5: its windows
        # too short to trust, every one by name (TestRecord.too_short). A row not read again keeps
        # none, and its export reads them as it did (unreliable_figures).
        for rid, bundle, added in db.execute("SELECT run_id, bundle, added_utc FROM runs").fetchall():
            _reread(db, rid, Path(bundle), added)
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))


def _library_run(row: Sequence[Any]) -> LibraryRun:
    rid, bundle, drive, label, spec, engine, suite, status, created, tests, preset = row
    return LibraryRun(rid, Path(bundle), drive, label, spec, engine, suite, status, created, tests,
                      preset if isinstance(preset, str) else None)


def _flagged(tests: Iterable[Sequence[Any]]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Per run, (test, what it says to raise) of each test whose notes say its figures are not to be
    trusted, in the order of `tests`: rows of (run id, name, notes_json, too_short_json)."""
    flagged: dict[str, list[tuple[str, str]]] = {}
    for rid, name, notes_json, too_short in tests:
        notes = stored_notes(notes_json)  # read once: whether flagged, and what it advises
        if says_so(notes):
            flagged.setdefault(rid, []).append((name, stored_advice(notes, too_short)))
    return {rid: tuple(found) for rid, found in flagged.items()}


def _refuse_a_copy(listed: Path, path: Path, rid: str) -> None:
    """A bundle whose run the library lists from another folder that still holds it is a copy,
    not a move (QA: `library add COPY` said "moved from ORIGINAL" and listed the copy, a stale
    interrupted one in place of the finished run; adding the original flipped it back). A run
    is listed once: which copy is the user's to say."""
    if listed != path and bundle_state(listed, rid) == "ok":
        raise BundleError(f"{path} holds run {rid[:RUN_ID_SHOWN]}, which the library lists from {listed} "
                          f"(still there): a copy is the same run, listed once; to list this copy instead, "
                          f"`ssdlab library remove {listed}` first")


def _refuse_tests_named_twice(bundle: Bundle, run: RunRecord) -> None:
    """A run record that names a test twice (a damaged or hand-edited run.json) is the bundle's
    fault, said as such: the library keeps a test by its name (QA: "results library … cannot be
    used (UNIQUE constraint failed …)")."""
    names = [record.name for record in run.tests if record.metrics]
    twice = list(dict.fromkeys(name for name in names if names.count(name) > 1))
    if twice:
        raise BundleError(f"{bundle.run_file} records test {', '.join(map(repr, twice))} more than once, so the "
                          "library cannot tell which to keep; a bundle `ssdlab run` made names each test once")


def _outcome(before: Any, other: Any, path: Path) -> tuple[AddOutcome, Path | None]:
    if before is not None and Path(before[0]) != path:
        return "moved", Path(before[0])
    if before is not None:
        return "updated", None
    return ("replaced", None) if other else ("added", None)


def _insert_run(db: sqlite3.Connection, rid: str, path: Path, run: RunRecord) -> None:
    t = run.target
    db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (
        rid, str(path), drive_id(t), t.label, t.model, t.serial, firmware_text(t), t.capacity_bytes, t.spec, t.kind,
        run.engine, run.engine_version, run.suite, run.status, run.created_utc, utc_now(), run.ssdlab_version,
        t.model_dump_json()))
    for record in run.tests:
        if record.metrics:
            _insert_test(db, rid, record, t, path)


def _insert_test(db: sqlite3.Connection, rid: str, record: TestRecord, target: TargetInfo, path: Path) -> None:
    method = effective_method(record, target, path)  # the bundle's job files show its conventions
    db.execute("INSERT INTO tests (run_id, name, method, method_key, method_json, params_json, status, notes_json, "
               "too_short_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (
        rid, record.name, record.test, method.key, method.as_json(), json.dumps(record.params, sort_keys=True,
                                                                                 default=str), record.status,
        json.dumps(list(record.notes)), record.too_short.model_dump_json() if record.too_short else None))
    specs = declared_specs(record, target)
    rows = []
    for name, value in record.metrics.items():
        spec = specs.get(name) if specs is not None else None
        number = float(value) if is_number(value) else None
        text = None if number is not None or value is None else str(value).lower() if isinstance(value, bool) \
            else str(value)
        rows.append((rid, record.name, name, number, text, spec.label if spec else name, spec.unit if spec else "",
                     spec.kind if spec else "figure", spec.better if spec else None,
                     json.dumps(dict(spec.dims) if spec else {}, default=str)))
    db.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)


# ---- compare's arguments: bundles and library queries --------------------------------


@dataclass(frozen=True)
class Selection:
    """What `ssdlab compare` was asked for: one group of bundles per drive, in order."""

    groups: tuple[tuple[Path, ...], ...]
    from_library: bool  # some drive came from a library query
    unreachable: tuple[LibraryRun, ...] = ()  # matched runs whose bundles moved or vanished
    repeats: tuple[tuple[str, str], ...] = ()  # (an argument, a later one that named the same drive: compared once)


def is_bundle_arg(arg: str) -> bool:
    """A path that exists (or looks like one) is a bundle; anything else is a library query."""
    return Path(arg).expanduser().exists() or "/" in arg or arg.startswith(".")


def default_sim_preset() -> str:
    """The preset `sim:` names; without the simulator built, the bare spec stands for it."""
    from ssdlab.errors import EngineError
    from ssdlab.targets.sim import simulator

    try:
        return simulator().default_preset()
    except EngineError:
        return ""




def with_id(runs: Sequence[LibraryRun], text: str) -> list[LibraryRun]:
    """The runs whose id `text` gives: every command that takes a run id (report, compare,
    library remove) takes it by this one rule, RUN_ID_SHOWN or more of its hex digits in any case.
    A shorter prefix names nothing: `remove 8e` must not forget a run `report 8e` would refuse."""
    return [r for r in runs if r.run_id.startswith(text.lower())] if is_run_id_prefix(text) else []


def run_with_id(text: str, library: Path | None = None) -> LibraryRun | None:
    """The one run of `library` (default: the user's) whose id `text` gives, or None: also for
    a library that does not exist or cannot be read, as this only adds a hint to another error."""
    lib = Library(library)
    try:
        found = with_id(lib.runs(), text) if lib.path.is_file() else []
    except (SsdlabError, OSError, sqlite3.Error):
        return None
    return found[0] if len(found) == 1 else None


def with_bundle_named(missing: MissingBundle, library: Path | None) -> BundleError:
    """A run id given where a bundle directory is taken (run --resume, library add): the error
    names the run's bundle when `library` (default: the user's) holds the run."""
    run = run_with_id(missing.given, library) if is_run_id_prefix(missing.given) else None
    if run is None:
        return missing
    return BundleError(f"{missing.path} does not exist; a bundle directory is taken here, not a run id: "
                       f"run {run.run_id}'s bundle is {run.bundle}")


def select_drives(args: Sequence[str], library: Library | None) -> Selection:
    """Bundles as given; each library query adds the drives it matches (in library order).
    A drive named twice is compared once."""
    groups: dict[tuple[Path, ...], str] = {}  # each drive's runs -> the first argument that named it
    held: dict[Path, str] = {}  # each chosen bundle -> the id of the run it holds
    unreachable: list[LibraryRun] = []
    repeats: list[tuple[str, str]] = []  # (the argument that named a drive, one that named it again)
    queried = False
    for arg in args:
        if not arg.strip():  # Path("") is the current directory: never what an empty argument meant
            raise UsageError("an empty argument names no drive; give a bundle path, a run id or a model, preset, "
                             "'latest' or 'all' (see `ssdlab library list`)")
        if is_bundle_arg(arg):
            run = Bundle(Path(arg)).load_run(takes_run_id=True)  # a clear error for a path that is not a bundle
            path = Path(arg).expanduser().resolve()
            _add_group(groups, held, {path: run_id(run)}, arg, repeats)
            continue
        found = library.drives(arg) if library is not None and library.path.exists() else []
        if not found:
            where = (f"the results library {library.path}" if library is not None and library.path.exists()
                     else "the results library (there is none yet: `ssdlab run` and `ssdlab library add` fill it)")
            raise UsageError(f"{arg!r} is not a bundle and matches no drive in {where}{short_run_id_hint(arg)}; give a "
                             "bundle path, a run id or a model, preset, 'latest' or 'all' (see `ssdlab library list`)")
        queried = True
        for runs in found:
            states = [(r, r.state()) for r in runs]  # each reads its bundle's run record: once
            unreachable += [r for r, state in states if state != "ok"]
            here = {r.bundle: r.run_id for r, state in states if state == "ok"}
            if here:
                _add_group(groups, held, here, arg, repeats)
    return Selection(tuple(groups), queried, tuple(unreachable), tuple(repeats))


def _add_group(groups: dict[tuple[Path, ...], str], held: dict[Path, str], runs: dict[Path, str], arg: str,
               repeats: list[tuple[str, str]]) -> None:
    """Adds the drive `arg` named (its runs: bundle -> run id); named again, it is compared once. A
    drive that shares a run with one already named (a drive's model and a run id or bundle of that
    drive, or a copy of a bundle named: the same run id in another folder) is refused: a run
    compared with itself shows ±0.0 % everywhere (QA: `compare b1 b1copy` put #1 and #2 side by side)."""
    paths = tuple(runs)
    if paths in groups:
        repeats.append((groups[paths], arg))
        return
    for other, named in groups.items():
        shared = next(((bundle, was) for bundle in paths for was in other if held[was] == runs[bundle]), None)
        if shared is None:
            continue
        bundle, was = shared
        where = f"({bundle})" if bundle == was else f"({was} and {bundle} both hold it: one is a copy of the other)"
        raise UsageError(f"{named!r} and {arg!r} both name run {runs[bundle]} {where}, so compare would put it beside "
                         "itself; give each drive once (a run id or bundle path names one run of a drive: see "
                         "`ssdlab library list`)")
    groups[paths] = arg
    held.update(runs)
