"""Result bundles: one directory per run, the only meeting point of measuring and reporting.

Layout:
    run.json                         RunRecord (schema_version, target, host, tests, metrics)
    measurements/<test>/<name>.json  full Measurement (histograms, per-second series)
    series/<test>/<name>.csv         the per-second series as CSV for spreadsheets
    raw/<test>/<name>/...            engine job files and outputs, kept for audit
    state/drive.snap, drive.json     a stopped simulated run's drive (compressed snapshot) and
                                     where it stands (test, actions done), for --resume
Every write is atomic (temp file + rename), so an interrupted run keeps what it measured.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import fcntl
import io
import json
import os
import re
import socket
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ssdlab.errors import BundleError, json_error_text
from ssdlab.measurement import Measurement, measurement_from_json, period_values
from ssdlab.outputs import what_is
from ssdlab.steps import StepResult
from ssdlab.targets.base import TargetInfo
from ssdlab.verdicts import Verdict

SCHEMA_VERSION = 3
RUN_FILE = "run.json"

TestStatus = Literal["pending", "running", "complete", "interrupted", "failed"]
ActionOutcome = Literal["done", "skipped"]
RunStatus = Literal["running", "complete", "interrupted", "failed"]


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class MeasurementRef(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    role: Literal["measure", "precondition"] = "measure"
    file: str  # relative to the bundle
    series_csv: str | None = None
    interrupted: bool = False


class StartState(BaseModel):
    """The drive state a test starts from, and why (docs/architecture.md, "Shared preparation")."""

    model_config = ConfigDict(frozen=True)

    state: str  # what the drive is in, e.g. "tortured, span 512 GiB: purge, 1 x 128k …"
    shared_from: str | None = None  # the test that left this state; None: the test prepared it itself
    prep_left_out: int = 0  # preparation actions not run because the state was shared
    reason: str = ""


# Notes a run adds to a test about how it ran, not what it ran: the same method gives the same
# figures either way, so comparisons of methods leave them out (effective.method_notes).
RESUMED_NOTE = "resumed: {reason}"
RAN_AHEAD_NOTE = ("ran ahead on a second core from the cached drive this test starts with (the drive this run "
                  "reached, checked by its history digest): the same drive and results running it in turn gives")
CACHED_PREP_NOTE = ("preparation ({steps}) restored from the cache of prepared simulated drives: the same "
                    "drive and results simulating it gives")
# An until-steady phase ended when the drive was steady: an outcome of the drive, as its figures are.
EARLY_STOP_NOTE = "{what} stopped early at SNIA steady state after {done} of {rounds} rounds"
# Measured windows too short to trust (measurement.MIN_QUEUE_TURNS): an outcome of the drive too,
# its pace deciding how many I/Os a window holds.
SHORT_WINDOW_NOTE = ("figures unreliable: {windows} were too short for the drive's sustained rate: under {turns} "
                     "turns of their queue or one {period} s period of the series (the shortest: {shortest} s, {ios} "
                     "I/Os completed with {in_flight} in flight), so the queue filling and draining, or a stall or "
                     "burst no period shows, weigh in their figures; {advice}")
# Figures and verdicts derived again from the test's measurements by a later ssdlab (reanalysis.py):
# the same measurements, so the same method.
REANALYSED_NOTE = "figures and verdicts derived again from its measurements by ssdlab {version} on {when}: {what}"


def _pattern(template: str) -> str:
    """A note template as a regular expression: each {field} stands for any text."""
    return ".+?".join(re.escape(part) for part in re.split(r"\{\w+\}", template))


_HOW_IT_RAN = re.compile("|".join(f"(?:{_pattern(t)})" for t in (RESUMED_NOTE, RAN_AHEAD_NOTE, CACHED_PREP_NOTE,
                                                                     EARLY_STOP_NOTE, SHORT_WINDOW_NOTE,
                                                                     REANALYSED_NOTE)), re.DOTALL)
_SHORT_WINDOW = re.compile(_pattern(SHORT_WINDOW_NOTE), re.DOTALL)
_REANALYSED = re.compile(_pattern(REANALYSED_NOTE), re.DOTALL)


def how_it_ran(note: str) -> bool:
    """Whether a test's note tells how the run went (the notes above), not what it ran."""
    return _HOW_IT_RAN.fullmatch(note) is not None


def is_reanalysed_note(note: str) -> bool:
    """Whether a test's note is the one re-analysis leaves (REANALYSED_NOTE): a second replaces it."""
    return _REANALYSED.fullmatch(note) is not None


def says_unreliable(note: str) -> bool:
    """Whether a test's note says its figures are not to be trusted (SHORT_WINDOW_NOTE): the run's
    done line repeats it."""
    return _SHORT_WINDOW.fullmatch(note) is not None


def note_advice(note: str) -> str | None:
    """What a SHORT_WINDOW_NOTE advises ('raise runtime_s to at least 1 s'), None for any other note."""
    parts = _SHORT_WINDOW_PARTS.fullmatch(note)
    return parts["advice"] if parts is not None else None


# What marks a figure of a window too short to trust, wherever one is shown (the report's summary,
# compare's tables, `library list`), a footnote beside it saying why and what to do.
UNRELIABLE_MARK = "\N{DAGGER}"


def _fields_pattern(template: str) -> str:
    """A note template as a regular expression whose groups are its {fields}, by name."""
    parts = re.split(r"\{(\w+)\}", template)  # text, field, text, field, ..., text
    return "".join(f"(?P<{part}>.+?)" if n % 2 else re.escape(part) for n, part in enumerate(parts))


# SHORT_WINDOW_NOTE's fields by name, for what reads one: the windows it names, what it advises.
_SHORT_WINDOW_PARTS = re.compile(_fields_pattern(SHORT_WINDOW_NOTE), re.DOTALL)
# Its {windows}: "3 of 40 measured windows (a, b, c and 37 more)" (runner.short_window_notes).
_NAMED_WINDOWS = re.compile(r"\d+ of \d+ measured windows \((?P<names>.+)\)", re.DOTALL)
_MORE_WINDOWS = re.compile(r".* and \d+ more", re.DOTALL)


class TooShort(BaseModel):
    """A test's measured windows too short to trust, as the run found them (planning.too_short_windows):
    every one by name, where SHORT_WINDOW_NOTE names three and counts the rest, and what to raise."""

    model_config = ConfigDict(frozen=True)

    windows: tuple[str, ...] = Field(min_length=1)  # the windows' names (Measurement.workload.name), in plan order
    advice: str  # the note's {advice}: 'raise runtime_s to at least 1 s'


@dataclass(frozen=True)
class ShortWindows:
    """A test's measured windows that its note says were too short to trust (SHORT_WINDOW_NOTE)."""

    names: frozenset[str] | None  # None: some were, which ones neither the note nor the bundle shows
    advice: str  # what the note says to do: 'raise runtime_s to at least 1 s'

    @classmethod
    def of(cls, kept: TooShort) -> ShortWindows:
        """The windows a record keeps (TestRecord.too_short), every one by name."""
        return cls(frozenset(kept.windows), kept.advice)

    def covers(self, windows: Iterable[str]) -> bool:
        """Whether a figure made of `windows` holds one of them; a figure that names none
        (MetricSpec.windows) may hold any of the test's."""
        named = frozenset(windows)
        return self.names is None or not named or not self.names.isdisjoint(named)


def short_windows(record: TestRecord, measured: Mapping[str, Measurement] | None = None) -> ShortWindows | None:
    """The test's windows too short to trust, or None when it had none. A record that keeps them
    (TestRecord.too_short) names them all. One older than that has only its note, which says whether
    there were some and what to do; which windows: those of `measured` (the test's measured windows,
    not its preparation, read from its bundle) that were (Measurement.window_too_short), else those
    the note names when it names them all (a note names planning.NAMED_WINDOWS at most), else not
    known."""
    if record.too_short is not None:
        return ShortWindows.of(record.too_short)
    parts = next((match for note in record.notes if (match := _SHORT_WINDOW_PARTS.fullmatch(note))), None)
    if parts is None:
        return None
    found = frozenset(name for name, m in (measured or {}).items() if m.window_too_short())
    listed = _NAMED_WINDOWS.fullmatch(parts["windows"])
    if not found and listed is not None and not _MORE_WINDOWS.fullmatch(listed["names"]):
        found = frozenset(listed["names"].split(", "))
    return ShortWindows(found or None, parts["advice"])


class TestRecord(BaseModel):
    """One test of the run; `name` is unique in the run, `test` is the catalogue method."""

    __test__ = False  # not a pytest test class

    model_config = ConfigDict(frozen=True)

    name: str
    test: str
    params: dict[str, Any] = Field(default_factory=dict)
    status: TestStatus = "pending"
    started_utc: str | None = None
    finished_utc: str | None = None
    metrics: dict[str, float | int | bool | str | None] = Field(default_factory=dict)
    measurements: tuple[MeasurementRef, ...] = ()
    steps: tuple[StepResult, ...] = ()
    notes: tuple[str, ...] = ()
    error: str | None = None
    # One entry per plan action finished, in plan order: where a resume may pick up.
    action_outcomes: tuple[ActionOutcome, ...] = ()
    # Whether the action after those finished had begun when this was saved (saved True right before
    # it runs, False once it is recorded): a resume continues at an action that never began. None: a
    # bundle from before this was kept, whose resume assumes it had begun.
    action_began: bool | None = None
    verdicts: tuple[Verdict, ...] = ()
    start: StartState | None = None  # None only before the run planned it
    # The measured windows too short to trust, all by name (SHORT_WINDOW_NOTE, beside it, says so in
    # words). None: none were, or the record is older than this field (short_windows: its note says).
    too_short: TooShort | None = None


class RunRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    schema_version: int = SCHEMA_VERSION
    ssdlab_version: str
    created_utc: str
    updated_utc: str
    # Drawn once when the run is made, so that two runs started in the same second on one target
    # are two runs in the library (created_utc is to the second); a copy or a resume keeps it.
    # "": a bundle from before it was kept, whose id is made from the rest (library.run_id).
    nonce: str = ""
    status: RunStatus = "running"
    error: str | None = None
    target: TargetInfo
    host: dict[str, Any] = Field(default_factory=dict)
    engine: str
    engine_version: str = ""
    suite: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    tests: tuple[TestRecord, ...] = ()

    def test(self, name: str) -> TestRecord:
        for record in self.tests:
            if record.name == name:
                return record
        raise BundleError(f"the bundle has no test named {name!r}")

    def with_test(self, record: TestRecord) -> RunRecord:
        tests = tuple(record if t.name == record.name else t for t in self.tests)
        return self.model_copy(update={"tests": tests, "updated_utc": utc_now()})


# v2 calls the consistency figures "window", not "steady": a window is steady state only
# when the steady-state verdict says so.
_V2_RENAMED = {"steady_window_s": "window_s", "steady_mean_stddev_ratio": "window_mean_stddev_ratio",
               "steady_cv_pct": "window_cv_pct", "steady_mb_s": "window_mb_s", "steady_fresh_pct": "window_fresh_pct",
               "steady_wa": "window_wa"}


def _v2_metric_name(name: str) -> str:
    if name.startswith("steady_iops_"):
        return "window_iops_" + name.removeprefix("steady_iops_")
    return _V2_RENAMED.get(name, name)


def _v2_size_label(name: str) -> str:
    """v2 labels block sizes one way everywhere: 1 MiB is `1m`, not the PTS test's `1024k`."""
    return re.sub(r"bs(\d+)k", lambda m: f"bs{int(m[1]) // 1024}m" if int(m[1]) % 1024 == 0 else m[0], name)


# A migration reshapes only what has the shape its version wrote and passes anything else on
# as it is: validating the upgraded record then names what is wrong, where a migration that
# assumed the shape would crash on a damaged or hand-edited run.json.
def _each_test(data: dict[str, Any], change: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    tests = data.get("tests", [])
    if not isinstance(tests, list):
        return data
    return {**data, "tests": [change(test) if isinstance(test, dict) else test for test in tests]}


def _v1_test_to_v2(test: dict[str, Any]) -> dict[str, Any]:
    metrics = test.get("metrics", {})
    if isinstance(metrics, dict) and test.get("test") in ("consistency", "wsat"):
        metrics = {_v2_metric_name(k): v for k, v in metrics.items()}
    if test.get("test") == "pts-iops":
        if isinstance(metrics, dict):
            metrics = {_v2_size_label(k): v for k, v in metrics.items()}
        refs = test.get("measurements", [])
        if isinstance(refs, list):
            test = {**test, "measurements": [
                {**ref, "name": _v2_size_label(ref["name"])} if isinstance(ref, dict) and isinstance(
                    ref.get("name"), str) else ref for ref in refs]}
    return {**test, "metrics": metrics, "action_outcomes": []}


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v2 adds per-test action outcomes (a v1 test has none recorded, so it resumes from its
    start) and verdicts (a v1 test has none: its report shows the metrics only), and renames
    the consistency window figures."""
    return {**_each_test(data, _v1_test_to_v2), "schema_version": 2}


OWN_PREPARATION_V2 = {"state": "as the test's own preparation left it", "shared_from": None, "prep_left_out": 0,
                      "reason": "recorded before ssdlab shared preparation between tests: every test prepared "
                                "the drive itself"}


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """v3 records each test's start state; before v3 every test ran its own preparation."""
    return {**_each_test(data, lambda test: {**test, "start": OWN_PREPARATION_V2}), "schema_version": 3}


# Each migration upgrades a raw run.json dict from version N to N+1, so old bundles load.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2, 2: _v2_to_v3}


OLDEST_SCHEMA = min(MIGRATIONS)
FIX_RUN = "re-run the test or restore the file"
NOT_A_RUN = "is not a result bundle's run record"


PROBLEM_CHARS = 200  # a problem quoted in an error: enough to find it, short enough for one line


def one_line(text: str, limit: int = PROBLEM_CHARS) -> str:
    """`text` as one short line: a key or value quoted from a damaged file may hold line
    breaks or be long, and errors are one line."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def json_kind(value: object) -> str:
    """What a JSON value is, in JSON's words, for saying a file holds the wrong thing."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    kinds: tuple[tuple[type, str], ...] = ((int, "a number"), (float, "a number"), (str, "a string"),
                                           (list, "a list"), (dict, "an object"))
    return next((name for kind, name in kinds if isinstance(value, kind)), type(value).__name__)


def upgrade(data: object, source: str = RUN_FILE) -> dict[str, Any]:
    """A raw run record (run.json as parsed) of any schema ssdlab wrote, upgraded to this one;
    BundleError, naming `source`, for anything else."""
    if not isinstance(data, dict):
        raise BundleError(f"{source} {NOT_A_RUN} (expected a JSON object, found {json_kind(data)}); {FIX_RUN}")
    if "schema_version" not in data:
        raise BundleError(f"{source} {NOT_A_RUN} (it has no schema_version); {FIX_RUN}")
    version = data["schema_version"]
    if not isinstance(version, int) or isinstance(version, bool):  # true is an int to Python, not to JSON
        # 2.0 shows as itself: "a number, not an integer" would puzzle whoever reads it.
        found = one_line(json.dumps(version), 20) if isinstance(version, float) else json_kind(version)
        raise BundleError(f"{source} {NOT_A_RUN} (its schema_version is {found}, not an integer like "
                          f"{SCHEMA_VERSION}); {FIX_RUN}")
    shown = one_line(str(version), 20)  # JSON numbers may run to thousands of digits
    if version > SCHEMA_VERSION:
        raise BundleError(f"{source} is bundle schema {shown}, newer than this ssdlab understands "
                          f"({SCHEMA_VERSION}); upgrade ssdlab")
    if version < OLDEST_SCHEMA:
        raise BundleError(f"{source} {NOT_A_RUN} (schema_version {shown} is not one ssdlab wrote: "
                          f"they run {OLDEST_SCHEMA} to {SCHEMA_VERSION}); {FIX_RUN}")
    while version < SCHEMA_VERSION:
        data = MIGRATIONS[version](data)
        version = data["schema_version"]
    return data


# A run id is 12 hex digits; `library list` shows the first 8, and a query that long is taken as one.
RUN_ID_SHOWN = 8
HEX_DIGITS = frozenset("0123456789abcdef")
RUN_ID_DIGITS = f"{RUN_ID_SHOWN} or more of its hex digits"  # what a run id is, as every message says it


def is_run_id_prefix(text: str) -> bool:
    return len(text) >= RUN_ID_SHOWN and all(c in HEX_DIGITS for c in text.lower())


def is_short_run_id(text: str) -> bool:
    """Hex digits too few to be taken as a run id (`8e`): worth saying why they name no run."""
    return 0 < len(text) < RUN_ID_SHOWN and all(c in HEX_DIGITS for c in text.lower())


def short_run_id_hint(text: str) -> str:
    """What to add where `text` named no run: why, when it is too few hex digits to be a run id
    (every command that takes run ids says it so: report, compare, library remove), else ""."""
    return f" (a run id is {RUN_ID_DIGITS})" if is_short_run_id(text) else ""


class MissingBundle(BundleError):
    """A bundle path that does not exist; `given` is it as typed (perhaps a run id)."""

    def __init__(self, message: str, path: Path, given: str) -> None:
        super().__init__(message)
        self.path, self.given = path, given


def make_dirs_inside(root: Path, directory: Path) -> Path:
    """Make `directory` and its missing folders below `root` (a bundle, the cache), none of them
    a link: a bundle someone else made (shared, downloaded) may hold a link where ssdlab makes a
    folder, and writing through it would write outside the bundle. `root` itself is the user's
    and may be reached through links. Returns `directory`."""
    root.mkdir(parents=True, exist_ok=True)
    current = root
    for part in directory.relative_to(root).parts:
        current = current / part
        with contextlib.suppress(FileExistsError):
            current.mkdir()
        if not stat.S_ISDIR(current.lstat().st_mode):
            raise not_a_folder(current)
    return directory


def not_a_folder(path: Path) -> BundleError:
    """The refusal of what is at `path` in a bundle where ssdlab makes or replaces a folder."""
    return BundleError(f"{path} is {what_is(path)}, not a folder ssdlab made: ssdlab writes nothing "
                       f"through it; remove it (or use another bundle)")


def _write_replacing(path: Path, data: bytes, inside: Path | None, sync: bool) -> None:
    """Write a temporary file beside `path` and rename it over `path`: a link or a device node
    at `path` is replaced, never written through. `inside`: the folders up to `path` are made
    below that root, none of them a link (make_dirs_inside). The file gets the permissions open()
    would have given (new_file_mode), set before the rename: a temporary file is private, and
    bundle files came out 0600 beside others at 0644 (QA)."""
    if inside is not None:
        make_dirs_inside(inside, path.parent)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    os.close(write_replacing_fd(path, data, sync=sync))


def _private_temp(path: Path) -> tuple[int, str]:
    return tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")


def write_replacing_fd(path: Path, data: bytes, *, sync: bool,
                       make_temp: Callable[[Path], tuple[int, str]] = _private_temp) -> int:
    """_write_replacing's write in a folder that exists, through the temporary file `make_temp`
    makes beside `path` (the simulated-drive cache's holds its lock: engines/sim_cache.py); the
    descriptor of the file now at `path` is returned open (the caller closes it, with any lock)."""
    with named_for(path):
        fd, tmp = make_temp(path)
        try:
            with open(fd, "wb", closefd=False) as handle:
                handle.write(data)
            os.fchmod(fd, new_file_mode())
            if sync:
                os.fsync(fd)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            os.close(fd)
            raise
    return fd


@contextlib.contextmanager
def named_for(path: Path) -> Iterator[None]:
    """An OSError while writing `path` through a hidden temporary file beside it names `path`,
    the file asked for: QA saw "/proc/.x.parquet.26604.partial" for `-o /proc/x.parquet`, and a
    full disk (a write's error has no file name) named no file at all."""
    try:
        yield
    except OSError as err:
        if err.filename is not None and Path(err.filename) == path:
            raise
        raise OSError(err.errno, err.strerror or str(err), str(path)) from err


def atomic_write_bytes(path: Path, data: bytes, *, inside: Path | None = None) -> None:
    _write_replacing(path, data, inside, sync=False)


def atomic_write_text(path: Path, text: str, *, inside: Path | None = None) -> None:
    _write_replacing(path, text.encode("utf-8"), inside, sync=True)


@contextlib.contextmanager
def replacing_text_file(path: Path) -> Iterator[IO[str]]:
    """A text file written over a while (a capture's events): a temporary file beside `path`,
    renamed to `path` when the block ends however it ends (what was written is kept, as a
    file opened for writing would keep it), so a link or device node at `path` is replaced,
    never written through."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with named_for(path):
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.fchmod(fd, new_file_mode())
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            yield handle
    finally:
        os.replace(tmp, path)


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The permissions open() gives a new file: 0666 less the umask."""
    return 0o666 & ~current_umask()


def new_folder_mode() -> int:
    """The permissions mkdir() gives a new folder: 0777 less the umask."""
    return 0o777 & ~current_umask()


# Open flags of a file that must be new: O_EXCL refuses anything already there, a link to
# nothing included, so nothing is written through a link or into a device node.
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def clear_for_writer(*paths: Path) -> None:
    """Remove what is at each path before a program that follows links writes there (fio's
    --output and logs): an earlier attempt's file, or a link or device node planted in a bundle
    someone else made, which fio would write through. A folder there is refused, not emptied."""
    for path in paths:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except IsADirectoryError:
            raise BundleError(f"{path} is a directory where ssdlab writes a file; remove it "
                              "(or use another bundle)") from None


def series_csv_text(measurement: Measurement) -> str:
    """Per-period series (and telemetry, when the engine has it) as one CSV table. Each telemetry
    channel is put on the periods by time, as the analyses do (measurement.period_values): a
    period's value is that of the samples standing for its time, weighed by how much of it each
    stands for (a flag: the share of the period it was on). The simulator's samples are its
    periods, so its values are written as sampled; the real-drive sampler's rows (once a second
    on their own cadence, fewer or more than the periods) were paired by row number, or left out."""
    series = measurement.series
    columns: dict[str, list[float]] = {
        "t_s": list(series.t_s),
        "read_iops": series.iops("read"),
        "write_iops": series.iops("write"),
        "read_mb_s": series.mb_s("read"),
        "write_mb_s": series.mb_s("write"),
        "mean_lat_us": series.mean_lat_us(),
    }
    for key in measurement.telemetry:
        values = period_values(measurement, key) if key != "t_s" else None
        if values is not None:
            columns[key] = values
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(columns)
    writer.writerows(zip(*columns.values(), strict=True))
    return buffer.getvalue()


LOCK_FILE = ".lock"
MEASUREMENTS_DIR, SERIES_DIR, RAW_DIR = Path("measurements"), Path("series"), Path("raw")
DRIVE_SNAPSHOT = Path("state") / "drive.snap"
DRIVE_STATE = Path("state") / "drive.json"


def _lstat_mode(path: Path) -> int:
    """The mode of `path` itself (a link is not followed); 0 when there is nothing there."""
    try:
        return path.lstat().st_mode
    except OSError:
        return 0


def first_problem(err: Exception) -> str:
    """The first thing wrong with a file, in one line: pydantic's own first line only counts
    the errors ("1 validation error for Measurement"), so say the first one and where."""
    if isinstance(err, ValidationError) and err.errors():
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return one_line(f"{where}: {first['msg']}" if where else str(first["msg"]))
    if isinstance(err, OSError):
        return err.strerror or type(err).__name__
    return one_line(str(err)) or type(err).__name__


def read_json(path: Path, what: str, fix: str) -> object:
    """A JSON file's value, or BundleError saying in one line why `path` is not `what` (it
    cannot be read, is not UTF-8 text, is not JSON) and to `fix` it."""
    if path.exists() and not path.is_file():  # a FIFO would block the read for ever, a folder fails it
        raise BundleError(f"{path} {what} (it is not a regular file); {fix}")
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise BundleError(f"cannot read {path} ({first_problem(err)}); {fix}") from None
    try:
        text = raw.decode("utf-8-sig")  # an editor may have saved it with a byte-order mark
    except UnicodeDecodeError as err:
        raise BundleError(f"{path} {what} (not UTF-8 text: byte {raw[err.start]:#04x} at offset {err.start}); "
                          f"{fix}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:  # a file cut short says so here: "Expecting value …"
        raise BundleError(f"{path} {what} (not JSON: {json_error_text(err)}); {fix}") from None
    except RecursionError:
        raise BundleError(f"{path} {what} (not JSON ssdlab can read: nested too deeply); {fix}") from None
    except ValueError:  # json's only other refusal: an integer too long to convert (4300 digits)
        raise BundleError(f"{path} {what} (not JSON ssdlab can read: a number is too long); {fix}") from None


class BundleLock:
    """One run per bundle: an exclusive lock held while a run or a resume writes the bundle.

    The kernel drops the lock when the process ends however it ends, so a bundle that
    reads "running" while nobody holds its lock was stopped without saving its status.
    """

    def __init__(self, path: Path, bundle: Bundle | None = None, doing: str = "resume") -> None:
        self.path = path / LOCK_FILE
        self.doing = doing  # what the user does with the bundle once it can be written: its refusals say it
        self.fd: int | None = None
        self.made = False
        self.bundle = bundle  # told the folder it locked (Bundle.folder_key), for as long as it holds it

    def __enter__(self) -> BundleLock:
        self.made = not self.path.parent.exists()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = _open_lock_file(self.path, self.doing)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder_text(fd)
            os.close(fd)
            raise BundleError(f"{self.path.parent} is in use by another ssdlab run ({holder}); wait for it to "
                              f"finish or stop it, then {self.doing}") from None
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since_utc": utc_now(),
                                 "command": " ".join(sys.argv)}).encode())
        self.fd = fd
        if self.bundle is not None:
            self.bundle.folder_key = folder_key(self.path.parent)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bundle is not None:
            self.bundle.folder_key = None
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None
        if self.made and not (self.path.parent / RUN_FILE).exists():
            # A run refused before it wrote anything (a target in use, a bad option) leaves no
            # empty folder behind, which the next run's -o would then call an existing bundle.
            with contextlib.suppress(OSError):
                self.path.unlink()
                self.path.parent.rmdir()  # only if nothing else is in it


def folder_key(path: Path) -> tuple[int, int] | None:
    """(st_dev, st_ino) of the folder at `path`, or None when there is none: which folder it is."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def _open_lock_file(path: Path, doing: str) -> int:
    """The lock file, opened to write who holds it: never through a link or into a device node
    or FIFO planted in a bundle someone else made (O_NOFOLLOW, and a regular file or nothing)."""
    if (path.is_symlink() or path.exists()) and not stat.S_ISREG(path.lstat().st_mode):
        raise BundleError(f"{path} is {what_is(path)}, not the lock file ssdlab makes: ssdlab writes nothing "
                          "through it; remove it (or use another bundle)")
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as err:
        if err.errno == errno.EROFS:  # nothing there to remove: the bundle cannot be written at all (QA)
            raise BundleError(f"{path.parent} is on a read-only file system, and a run writes its bundle (a resume "
                              f"and a re-analysis too); copy the bundle somewhere writable and {doing} the copy"
                              ) from None
        raise BundleError(f"{path}: cannot open the bundle's lock file ({err.strerror}); remove it "
                          "(or use another bundle)") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced since it was looked at
        os.close(fd)
        raise BundleError(f"{path} is not a regular file, not the lock file ssdlab makes; remove it "
                          "(or use another bundle)")
    return fd


def _holder_text(fd: int) -> str:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError, RecursionError):  # a lock file is ours, but anyone may have written it
        data = {}
    if not isinstance(data, dict) or "pid" not in data:
        return "holder unknown"
    return one_line(f"pid {data['pid']} on {data.get('host', '?')} since {data.get('since_utc', '?')}: "
                    f"{data.get('command', '')}", limit=400)


def lock_holder(path: Path) -> str | None:
    """Who holds a bundle's lock now, or None when no run is using it."""
    try:
        # Not through a link, and a FIFO planted there must not block the reader.
        fd = os.open(path / LOCK_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _holder_text(fd)
    finally:
        os.close(fd)
    return None


def check_text_path(path: Path, held_by: str = "a bundle's report and the results library") -> None:
    """A bundle's path is written as text into its report and the results library (UTF-8): a
    name with bytes that are no UTF-8 (os.fsencode's surrogates) is refused up front, in one line.
    QA: `run -o $'bad\\xff'` measured to the end, then failed with "internal error:
    UnicodeEncodeError" writing the report and adding to the library; `report` of it too."""
    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(path).decode("utf-8", "backslashreplace")  # its bytes as \xff, as ls -b shows them
        raise BundleError(f"{shown} is not UTF-8 text, which {held_by} must hold its path in; give (or rename "
                          "it to) a path in UTF-8") from None


class Bundle:
    """A result bundle directory."""

    def __init__(self, path: Path) -> None:
        self.given = path  # as typed: a run id given where a path is taken is named back (load_run)
        self.path = path.resolve()
        self.folder_key: tuple[int, int] | None = None  # the folder locked (BundleLock), while it is

    def check_folder(self) -> None:
        """While the bundle is locked, its folder is the one locked: one removed (or another put in
        its place) during the run is refused, never made again. QA: `rm -rf` of a bundle mid-run,
        and the run made it again for its next file, ended "complete" (exit 0, added to the
        library) with the measurements from before the removal gone."""
        if self.folder_key is not None and folder_key(self.path) != self.folder_key:
            raise BundleError(f"{self.path} was removed or replaced during the run, and what it held is gone with "
                              "it: ssdlab writes nothing more there; run again into a new --out")

    @property
    def run_file(self) -> Path:
        return self.path / RUN_FILE

    def lock(self, doing: str = "resume") -> BundleLock:
        return BundleLock(self.path, self, doing)

    def raw_dir(self, test: str, action: str) -> Path:
        return self.path / RAW_DIR / test / action

    @staticmethod
    def test_dirs(test: str) -> tuple[Path, ...]:
        """The folders, relative to a bundle, that hold one test's files."""
        return MEASUREMENTS_DIR / test, SERIES_DIR / test, RAW_DIR / test

    def write_run(self, record: RunRecord) -> None:
        self.check_folder()
        atomic_write_text(self.run_file, record.model_dump_json(indent=2) + "\n", inside=self.path)

    def load_run(self, *, takes_run_id: bool = False) -> RunRecord:
        """The run record. A missing path's error (MissingBundle) offers only what the command
        takes: `takes_run_id` for one that also takes a run id (report, compare); otherwise (run
        --resume, library add) a run id given for the path is said not to be taken there (the
        library names its bundle: library.with_bundle_named)."""
        check_text_path(self.path)
        if not self.run_file.is_file():
            if not self.path.exists():
                raise MissingBundle(self._missing_text(takes_run_id), self.path, str(self.given))
            if self.path.name == RUN_FILE and self.path.is_file():  # a bundle's own run.json given for it
                raise BundleError(f"{self.path} is a bundle's {RUN_FILE}, not the bundle; give its directory, "
                                  f"{self.path.parent}")
            raise BundleError(f"{self.path} is not a result bundle (no {RUN_FILE} in it); give a directory made "
                              "by `ssdlab run`")
        data = upgrade(read_json(self.run_file, NOT_A_RUN, FIX_RUN), str(self.run_file))
        try:
            return RunRecord.model_validate(data)
        except ValidationError as err:
            raise BundleError(f"{self.run_file} is malformed ({first_problem(err)}); {FIX_RUN}") from None

    def _missing_text(self, takes_run_id: bool) -> str:
        """Why a path that does not exist is no bundle: a mistyped path, or a run id given to a
        command that takes none."""
        missing = f"{self.path} does not exist"
        if takes_run_id:
            return (f"{missing}; give a directory made by `ssdlab run`, or a run id from `ssdlab library list` "
                    f"({RUN_ID_DIGITS})")
        if not is_run_id_prefix(str(self.given)):
            return f"{missing}; give a directory made by `ssdlab run`"
        return f"{missing}; give a directory made by `ssdlab run` (a run id is not taken here)"

    def write_drive_state(self, data: bytes, test: str, done: int) -> None:
        """Keep a simulated drive as it was after `done` actions of `test` (for --resume)."""
        self.check_folder()
        atomic_write_bytes(self.path / DRIVE_SNAPSHOT, data, inside=self.path)
        atomic_write_text(self.path / DRIVE_STATE, json.dumps({"test": test, "done": done}) + "\n",
                          inside=self.path)

    def drop_drive_state(self) -> None:
        """A finished run needs no saved drive (it can be large): remove it, and its folder, which
        holds nothing else (an empty `state/` in a finished bundle only raises the question why).
        A `state/` that is not a folder of the bundle's own (a link planted there) is left alone:
        removing through it removed files outside the bundle (QA)."""
        if not self._own_folder(DRIVE_STATE.parent):
            return
        for rel in (DRIVE_SNAPSHOT, DRIVE_STATE):
            (self.path / rel).unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # absent, or something else was put there: kept
            (self.path / DRIVE_STATE.parent).rmdir()

    def _own_folder(self, rel: Path) -> bool:
        """Whether `rel` and every folder above it up to the bundle are real folders, none a link
        (make_dirs_inside makes them so): only then is a path in it the bundle's own file."""
        current = self.path
        for part in rel.parts:
            current = current / part
            if not stat.S_ISDIR(_lstat_mode(current)):  # 0 (nothing there) is no folder either
                return False
        return True

    def _missing_folder(self, rel: Path) -> Path | None:
        """The first folder of `rel` (from the bundle down) that does not exist, as a path in the
        bundle, or None: what _own_folder finds missing is no link, and is said as it is."""
        current = Path()
        for part in rel.parts:
            current = current / part
            try:
                (self.path / current).lstat()
            except FileNotFoundError:
                return current
            except OSError:  # there, but not to be looked into (no permission): not said missing
                return None
        return None

    def drive_state_position(self, fix: str = "delete it, and the resumed test starts over") -> tuple[str, int]:
        """Where the saved drive stands (test name, actions done), from state/drive.json;
        BundleError when that file is missing or is not what write_drive_state writes."""
        path = self.path / DRIVE_STATE
        what = "is not a saved drive's position"
        where = read_json(path, what, fix)
        if not isinstance(where, dict):
            raise BundleError(f"{path} {what} (expected a JSON object, found {json_kind(where)}); {fix}")
        test, done = where.get("test"), where.get("done")
        if not isinstance(test, str):
            raise BundleError(f"{path} {what} (its test is {json_kind(test)}, not a test name); {fix}")
        if not isinstance(done, int) or isinstance(done, bool):
            raise BundleError(f"{path} {what} (its done is {json_kind(done)}, not a count of actions); {fix}")
        if done < 0:
            raise BundleError(f"{path} {what} (its done, {one_line(str(done), 20)}, is below zero); {fix}")
        return test, done

    def saved_drive(self) -> tuple[bytes, str, int] | str:
        """The saved drive and where it stands, or why a resume cannot continue on it, named as
        it is (a clause the resume note goes on from): none was saved, a link or another kind
        of file stands where ssdlab wrote its own (never read: QA planted one at state/ and it
        was taken for this run's drive), or a file is damaged."""
        folder = self.path / DRIVE_STATE.parent
        if not self._own_folder(DRIVE_STATE.parent):
            return self._not_own(folder, "folder")
        for rel in (DRIVE_STATE, DRIVE_SNAPSHOT):
            if not stat.S_ISREG(_lstat_mode(self.path / rel)):
                return self._not_own(self.path / rel, "file")
        fix = "a resume cannot continue on the drive saved beside it"
        try:
            test, done = self.drive_state_position(fix)
            return (self.path / DRIVE_SNAPSHOT).read_bytes(), test, done
        except BundleError as err:
            return str(err)
        except OSError as err:  # e.g. no permission to read it
            return f"cannot read {self.path / DRIVE_SNAPSHOT} ({first_problem(err)}); a resume cannot continue on it"

    @staticmethod
    def _not_own(path: Path, kind: Literal["folder", "file"]) -> str:
        """Why `path` (state/ or a file in it) holds no drive a resume can use, and what to do."""
        if _lstat_mode(path) == 0:
            if kind == "folder":
                return (f"no simulated drive was saved in the bundle ({path} does not exist: the run ended "
                        f"without saving it, or it was removed)")
            return f"{path} does not exist, so the bundle holds no whole saved simulated drive"
        mine = f"{path} is {what_is(path)}, not the {kind} ssdlab wrote"
        if path.is_symlink():
            return (f"{mine}: a saved drive is never read through a link (to continue on the drive it leads to, "
                    f"stop, put that {kind} itself in its place and resume)")
        return f"{mine} (remove it: a stopped run saves its drive there)"

    def write_measurement(self, test: str, role: Literal["measure", "precondition"], m: Measurement) -> MeasurementRef:
        name = m.workload.name
        rel_json = MEASUREMENTS_DIR / test / f"{name}.json"
        rel_csv = SERIES_DIR / test / f"{name}.csv"
        self.check_folder()
        atomic_write_text(self.path / rel_json, m.model_dump_json() + "\n", inside=self.path)
        atomic_write_text(self.path / rel_csv, series_csv_text(m), inside=self.path)
        return MeasurementRef(
            name=name, role=role, file=str(rel_json), series_csv=str(rel_csv),
            interrupted=m.interrupted,
        )

    def _read_measurement(self, ref: MeasurementRef) -> Measurement | str:
        """A measurement, or what is wrong with its file (gone, cut short, edited, not text)."""
        rel = Path(ref.file)
        # A hand-edited run.json must not send ssdlab reading /dev/zero or another bundle's files.
        if rel.is_absolute() or ".." in rel.parts:
            return "its path leads outside the bundle"
        try:
            # A link (at the file or a folder above it) is not the file ssdlab wrote: one planted in a
            # bundle was read as the run's data (QA: another run's round, analysed with no note).
            missing = self._missing_folder(rel.parent)
            if missing is not None:  # renamed or removed: not a link (QA: `mv measurements/TEST x`)
                return f"its folder {missing} does not exist"
            if (self.path / rel).is_symlink() or not self._own_folder(rel.parent):
                return "it is a link, not the file ssdlab wrote"
            if (self.path / rel).exists() and not (self.path / rel).is_file():  # a FIFO would block for ever
                return "it is not a regular file"
            # Bytes, not text: pydantic's own parser says where the UTF-8 or the JSON goes wrong.
            return measurement_from_json((self.path / rel).read_bytes())
        except (OSError, ValueError) as err:  # ValueError: a ValidationError, or a NUL in the file name
            return first_problem(err)

    def load_measurement(self, ref: MeasurementRef) -> Measurement:
        found = self._read_measurement(ref)
        if isinstance(found, str):
            shown = one_line(str(self.path / ref.file), 400)  # the name comes from run.json: any text at all
            raise BundleError(f"cannot read measurement {shown} ({found}); restore it, or run the test again")
        return found

    def measurement_problem(self, ref: MeasurementRef) -> str | None:
        """What is wrong with a measurement's file (gone, cut short, edited), or None."""
        found = self._read_measurement(ref)
        return found if isinstance(found, str) else None

    def measurements(self, record: TestRecord) -> dict[str, Measurement]:
        return {ref.name: self.load_measurement(ref) for ref in record.measurements}

    def windows_too_short(self, record: TestRecord) -> ShortWindows | None:
        """short_windows of a test of this bundle: as its record keeps them (TestRecord.too_short),
        no file read; for a record older than that, which of its measured windows by their files
        (only when its note says some were too short), from the note alone where one does not read."""
        found = short_windows(record)
        if found is None or record.too_short is not None:
            return found
        try:
            measured = {ref.name: self.load_measurement(ref) for ref in record.measurements if ref.role == "measure"}
        except BundleError:  # a damaged file: the note says what it can
            measured = {}
        return short_windows(record, measured)
