"""The results library as QA broke it: older schemas opened while their bundles are there, a
first write that fails, a damaged schema version or bundle, a copy of a run given to compare, and
a run nobody runs any more called "running"."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from ssdlab.bundle import Bundle
from ssdlab.compare import make_drives
from ssdlab.engines.fake import FakeEngine
from ssdlab.errors import UsageError
from ssdlab.library import SCHEMA, SCHEMA_VERSION, Library, run_id, select_drives
from ssdlab.report import terminal_tables
from ssdlab.report.terminal import FactsTable
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

CliRun = Callable[..., Any]
OLD_LIBRARIES = Path(__file__).parent / "fixtures" / "library"  # as each older ssdlab wrote them


def quick(name: str = "quick") -> SuiteEntry:
    return SuiteEntry(name=name, test="quick", params={"runs": 1, "runtime_s": 2})


def make_bundle(path: Path, spec: str = "fake:?capacity=2g", entries: Sequence[SuiteEntry] = (),
                created: str | None = None) -> Path:
    run_entries(path, parse_target(spec), FakeEngine(), list(entries) or [quick()], suite="quick")
    if created is not None:  # another start time: another run of the same drive
        edit_run(path, lambda data: data.update(created_utc=created))
    return path


def edit_run(path: Path, change: Callable[[dict[str, Any]], object]) -> None:
    """Change a bundle's run.json as a hand, a crash or a damaged disk might."""
    run_file = path / "run.json"
    data = json.loads(run_file.read_text(encoding="utf-8"))
    change(data)
    run_file.write_text(json.dumps(data), encoding="utf-8")


def version_of(path: Path) -> str:
    with closing(sqlite3.connect(path)) as db:
        return str(db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])


# ---- every older schema opens while its bundles are there ------------------------------------


def old_layout(schema: int) -> list[str]:
    """The tables, index and meta rows of a library as the ssdlab of `schema` wrote it (its dump in
    tests/fixtures/library, made by that ssdlab: make_old_library.py), without its runs."""
    dump = (OLD_LIBRARIES / f"schema{schema}.sql").read_text(encoding="utf-8")
    return re.findall(r"^(CREATE .*?;|INSERT INTO \"meta\" .*?;)$", dump, re.S | re.M)


def as_older_library(current: Path, older: Path, schema: int) -> None:
    """`current`'s runs in a library laid out as schema `schema` was: its tables' columns only."""
    with closing(sqlite3.connect(older)) as db, closing(sqlite3.connect(current)) as source:
        for statement in old_layout(schema):
            db.execute(statement)
        for table in ("runs", "tests", "metrics"):
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            rows = source.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
            db.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(columns))})", rows)
        db.commit()


@pytest.mark.parametrize("schema", range(1, SCHEMA_VERSION))
def test_a_library_of_every_older_schema_opens_while_its_bundles_are_there(tmp_path: Path, schema: int) -> None:
    """QA: a schema-3 library whose bundles were there could not be opened ("table tests has no
    column named too_short_json"): the schema-4 step re-read each bundle into rows with the
    schema-5 column before the schema-5 step added it. The fixtures of older schemas lost their
    bundles, so they never re-read one. Each older layout, with its bundles, opens and migrates."""
    current = Library(tmp_path / "now.sqlite")
    bundles = [make_bundle(tmp_path / "a"), make_bundle(tmp_path / "b", "fake:?capacity=4g")]
    for bundle in bundles:
        current.add(bundle)
    older = tmp_path / f"schema{schema}.sqlite"
    as_older_library(current.path, older, schema)
    assert version_of(older) == str(schema)
    library = Library(older)
    runs = library.runs()
    assert {run.bundle for run in runs} == {bundle.resolve() for bundle in bundles}
    assert {run.state() for run in runs} == {"ok"}
    assert len(library.export_rows()) == len(current.export_rows())
    assert version_of(older) == str(SCHEMA_VERSION)
    with closing(sqlite3.connect(older)) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(tests)")}
        assert {"notes_json", "too_short_json"} <= columns
        if schema < 4:  # the notes were read again from the bundles
            assert db.execute("SELECT COUNT(*) FROM tests WHERE notes_json IS NULL").fetchone() == (0,)


# ---- a failed first write leaves a whole library --------------------------------------------


def test_a_first_add_refused_by_the_bundle_leaves_a_library_that_works(cli: CliRun, tmp_path: Path) -> None:
    """QA: a bundle whose run.json names a test twice made `library add` fail with "cannot be used
    (UNIQUE constraint failed …)" and left the tables without their schema version, so every
    later command called the library another program's database. The bundle is refused as the
    bundle's fault, and the library is whole."""
    lib = tmp_path / "lib.sqlite"
    doubled = make_bundle(tmp_path / "doubled")
    edit_run(doubled, lambda data: data["tests"].append(data["tests"][0]))
    good = make_bundle(tmp_path / "good", "fake:?capacity=4g")
    added = cli("library", "add", str(doubled), str(good), "--library", str(lib))
    assert added.code == 2
    assert added.stderr.strip() == (f"error: {(doubled / 'run.json').resolve()} records test 'quick' more than once, "
                                    "so the library cannot tell which to keep; a bundle `ssdlab run` made names each "
                                    "test once")
    assert ": added (run " in added.stdout
    listed = cli("library", "list", "--library", str(lib))
    assert listed.code == 0 and "1 run in" in listed.stdout, listed.stderr
    assert version_of(lib) == str(SCHEMA_VERSION)


def test_a_first_add_that_fails_leaves_a_library_made_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: on a full disk the first `library add` said "cannot be used (database or disk is full)",
    and once space was freed every command said "another program's SQLite database": the tables
    were committed, their schema version rolled back with the failed add. The library is made
    whole (tables and version, one transaction) before anything is added to it."""
    library = Library(tmp_path / "lib.sqlite")
    bundle = make_bundle(tmp_path / "a")

    def full(*args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    with monkeypatch.context() as patched:
        patched.setattr("ssdlab.library._insert_run", full)
        with pytest.raises(UsageError, match=r"cannot be used \(database or disk is full\)"):
            library.add(bundle)
    library.check_file()  # not "another program's"
    assert version_of(library.path) == str(SCHEMA_VERSION) and library.runs() == []
    assert library.add(bundle).outcome == "added"


def test_a_first_add_the_file_size_limit_stops_leaves_a_library_made_whole(cli: CliRun, tmp_path: Path) -> None:
    """As above, with a real write refused: a file-size limit (RLIMIT_FSIZE, as a nearly full disk
    refuses a write) that lets the empty library be made but not the run be added."""
    probe = tmp_path / "probe.sqlite"
    probe.touch()  # an empty file is a new library: listing it makes the tables
    assert cli("library", "list", "--library", str(probe)).code == 0
    limit_bytes = probe.stat().st_size + 1024
    lib = tmp_path / "lib.sqlite"
    bundle = make_bundle(tmp_path / "a")

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "python")}
    failed = subprocess.run([sys.executable, "-m", "ssdlab", "library", "add", str(bundle), "--library", str(lib)],
                            capture_output=True, text=True, env=env, preexec_fn=small_files, check=False)
    assert failed.returncode == 2 and "cannot be used" in failed.stderr, failed.stderr
    listed = cli("library", "list", "--library", str(lib))
    assert listed.code == 0 and "is empty" in listed.stdout, listed.stderr
    assert cli("library", "add", str(bundle), "--library", str(lib)).code == 0


@pytest.mark.parametrize("layout", ["schema3", "today"])
def test_a_library_an_older_failed_write_left_without_its_version_is_repaired(cli: CliRun, tmp_path: Path,
                                                                           layout: str) -> None:
    """A library an ssdlab older than this fix left with its tables and no version row (its first
    write failed) is recognised as ssdlab's and repaired, whichever ssdlab made its tables; a
    database with ssdlab's tables and one of its own is still another program's."""
    lib = tmp_path / "lib.sqlite"
    statements = [s for s in old_layout(3) if s.startswith("CREATE")] if layout == "schema3" else [SCHEMA]
    with closing(sqlite3.connect(lib)) as db:
        db.executescript("\n".join(statements))
    listed = cli("library", "list", "--library", str(lib))
    assert listed.code == 0 and "is empty" in listed.stdout, listed.stderr
    added = cli("library", "add", str(make_bundle(tmp_path / "a")), "--library", str(lib))
    assert added.code == 0, added.stderr
    assert version_of(lib) == str(SCHEMA_VERSION) and len(Library(lib).export_rows()) == 35
    other = tmp_path / "other.sqlite"
    with closing(sqlite3.connect(other)) as db:
        db.executescript(SCHEMA + "CREATE TABLE photos (name TEXT);")
    refused = cli("library", "list", "--library", str(other))
    assert refused.code == 2 and "another program's SQLite database" in refused.stderr


# ---- a damaged schema version ----------------------------------------------------------------


def test_a_schema_version_that_is_no_number_is_said_in_one_line(cli: CliRun, tmp_path: Path) -> None:
    """QA: schema_version 'abc' gave "internal error: ValueError …"."""
    lib = tmp_path / "lib.sqlite"
    Library(lib).add(make_bundle(tmp_path / "a"))
    with closing(sqlite3.connect(lib)) as db, db:
        db.execute("UPDATE meta SET value = 'abc' WHERE key = 'schema_version'")
    for args in (["library", "list"], ["library", "add", str(tmp_path / "a")]):
        result = cli(*args, "--library", str(lib))
        assert result.code == 2 and result.stderr.strip() == (
            f"error: results library {lib} is damaged: its schema version is 'abc', not a number; give another "
            "with --library or SSDLAB_LIBRARY"), result.stderr
    with closing(sqlite3.connect(lib)) as db, db:  # damaged rules are read again, not refused
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
        db.execute("UPDATE meta SET value = 'x' WHERE key = 'effective_rules'")
    assert len(Library(lib).runs()) == 1


# ---- a damaged bundle is not a moved one -----------------------------------------------------


def test_a_bundle_that_is_there_but_cannot_be_read_is_damaged_not_moved(cli: CliRun, tmp_path: Path) -> None:
    """QA: a listed bundle whose run.json was cut short was "moved or deleted" to `report <id>`,
    MISSING in `library list`, and `library remove --missing` would have forgotten it."""
    lib = tmp_path / "lib.sqlite"
    bundle = make_bundle(tmp_path / "a")
    other = make_bundle(tmp_path / "b", "fake:?capacity=4g")
    for path in (bundle, other):
        Library(lib).add(path)
    rid = run_id(Bundle(bundle).load_run())
    run_file = bundle / "run.json"
    run_file.write_bytes(run_file.read_bytes()[:300])
    listed = cli("library", "list", "--library", str(lib))
    assert listed.code == 0 and "DAMAGED" in listed.stdout and "MISSING" not in listed.stdout
    line = next(line for line in listed.stdout.splitlines() if line.startswith(f"run {rid}"))
    assert line.startswith(f"run {rid}: bundle {bundle.resolve()} cannot be read: {run_file.resolve()} is not a ")
    assert "library remove --missing" not in listed.stdout and "A damaged bundle is kept" in listed.stdout
    report = cli("report", rid[:8], "--library", str(lib))
    assert report.code == 2 and "moved or deleted" not in report.stderr
    assert report.stderr.startswith(f"error: run {rid}'s bundle {bundle.resolve()} cannot be read: ")
    removed = cli("library", "remove", "--missing", "--library", str(lib))
    assert removed.code == 0 and "nothing to remove" in removed.stdout
    assert rid in {run.run_id for run in Library(lib).runs()}
    compared = cli("compare", "all", str(make_bundle(tmp_path / "c", "fake:?capacity=8g")), "--library", str(lib))
    assert f"its bundle {bundle.resolve()} cannot be read: " in compared.stderr


# ---- compare: a copy of a run is that run ----------------------------------------------------


def test_compare_refuses_a_copy_of_a_run_as_it_refuses_the_run_twice(cli: CliRun, tmp_path: Path) -> None:
    """QA: `compare b1 b1copy` put a bundle beside its copy (#1 and #2 at ±0.0 %), where `compare b1
    b1` and `compare b1 RUN_ID` refuse. A copy holds the same run (its run id): refused, naming both
    folders, also with a third drive and where a library query names the original."""
    lib = tmp_path / "lib.sqlite"
    original = make_bundle(tmp_path / "b1")
    copy = tmp_path / "b1copy"
    shutil.copytree(original, copy)
    third = make_bundle(tmp_path / "b2", "fake:?capacity=4g")
    Library(lib).add(original)
    rid = run_id(Bundle(original).load_run())
    for args in ([str(original), str(copy)], [str(original), str(third), str(copy)], [str(copy), rid[:8]]):
        result = cli("compare", *args, "--library", str(lib))
        assert result.code == 2 and not result.stdout, (args, result.stdout)
        assert f"both name run {rid} (" in result.stderr and "one is a copy of the other" in result.stderr, args
        assert str(original.resolve()) in result.stderr and str(copy.resolve()) in result.stderr, args
    with pytest.raises(UsageError, match="one is a copy of the other"):
        select_drives([str(original), str(copy)], None)
    assert len(select_drives([str(original), str(third)], None).groups) == 2


# ---- a run nobody runs is stopped, not running -----------------------------------------------


def killed_run(path: Path) -> Path:
    """A bundle as `ssdlab run` leaves it when killed (kill -9) in its second test: its record says
    "running", the second test pending, and nobody holds its lock."""
    make_bundle(path, entries=[quick("first"), quick("second")])

    def stop(data: dict[str, Any]) -> None:
        data["status"] = "running"
        data["tests"][1].update(status="pending", metrics={})

    edit_run(path, stop)
    return path


def terminal_status(bundle: Path) -> str:
    facts = terminal_tables(bundle)[0]
    assert isinstance(facts, FactsTable)
    return dict(facts.facts)["Run status"]


def test_a_run_nobody_runs_any_more_is_stopped_wherever_its_status_is_shown(cli: CliRun, tmp_path: Path) -> None:
    """QA: after kill -9 of `ssdlab run`, the terminal report said "Run status: running (1 of 2
    tests complete)" and `library list` "running"; only the HTML's banner said it stopped. A run
    is running only while its bundle's lock is held: the terminal report, the HTML's setup table,
    `library list` and compare say "stopped" otherwise, and "running" while it is held."""
    lib = tmp_path / "lib.sqlite"
    bundle = killed_run(tmp_path / "killed")
    other = make_bundle(tmp_path / "other", "fake:?capacity=4g")
    Library(lib).add(bundle)
    assert terminal_status(bundle) == "stopped (1 of 2 tests complete)"
    listed = cli("library", "list", "--library", str(lib))
    assert listed.code == 0 and " stopped" in listed.stdout and "running" not in listed.stdout
    assert make_drives([(bundle,), (other,)])[0].run_status == "stopped"
    reported = cli("report", str(bundle), "--library", str(lib))
    assert reported.code == 0 and "running" not in reported.stdout
    assert "<td>stopped (1 of 2 tests complete)</td>" in (bundle / "report.html").read_text(encoding="utf-8")
    from ssdlab.library import shown_status  # the rule every place above shares

    with Bundle(bundle).lock():  # a run going on in it
        assert shown_status("running", bundle) == "running"
        assert terminal_status(bundle) == "running (1 of 2 tests complete)"
        assert make_drives([(bundle,), (other,)])[0].run_status == "running"
        assert " running" in cli("library", "list", "--library", str(lib)).stdout
    assert shown_status("complete", bundle) == "complete" and shown_status("interrupted", bundle) == "interrupted"
