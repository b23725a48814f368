"""Whatever a bundle's JSON files hold — binary junk, a cut-short file, JSON of the wrong shape,
an unknown schema_version — loading it gives the bundle or a one-line BundleError that names
the file and says what to do, never another exception (which the CLI reports as a bug)."""

from __future__ import annotations

import fcntl
import json
import os
import random
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ssdlab.bundle import DRIVE_STATE, LOCK_FILE, SCHEMA_VERSION, Bundle, MeasurementRef, lock_holder, read_json
from ssdlab.engines.fake import FakeEngine
from ssdlab.errors import BundleError
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

# SSDLAB_FUZZ_EXAMPLES raises the count for a deeper campaign on a developer's machine.
EXAMPLES = int(os.environ.get("SSDLAB_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
# Objects that look like a run record at a glance: a schema_version of any JSON type or value.
VERSIONED = st.builds(lambda extra, version: {**extra, "schema_version": version},
                      st.dictionaries(st.text(max_size=10), JSON, max_size=3),
                      st.integers(min_value=-3, max_value=SCHEMA_VERSION + 2) | JSON)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real bundle (the quick test on the fake drive), copied before each change."""
    path = tmp_path_factory.mktemp("made") / "b"
    target = parse_target("fake:?capacity=2g")
    run_entries(path, target, FakeEngine(), [SuiteEntry(name="quick", test="quick",
                                                       params={"runs": 1, "runtime_s": 1})])
    Bundle(path).write_drive_state(b"snapshot", "quick", 1)
    return path


@pytest.fixture
def fresh(made: Path, tmp_path: Path) -> Callable[[], Bundle]:
    """A new copy of the real bundle at each call, in place of the last one: hypothesis calls
    a test thousands of times with one fixture, and the copies would pile up on disk."""
    path = tmp_path / "copy"

    def copy() -> Bundle:
        shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(made, path)
        return Bundle(path)

    return copy


def one_line_bundle_error(err: BundleError, file: Path | None = None) -> str:
    message = str(err)
    assert message and len(message.splitlines()) == 1 and "\r" not in message, message
    assert file is None or str(file) in message, message
    return message


def loads_or_one_line_error(load: Callable[[], object], file: Path | None = None) -> str | None:
    """None when `load` succeeds, its message when it raises BundleError; any other exception fails."""
    try:
        load()
    except BundleError as err:
        event("refused")
        return one_line_bundle_error(err, file)
    event("loaded")
    return None


def measurement_ref(bundle: Bundle) -> MeasurementRef:
    return bundle.load_run().test("quick").measurements[0]


def deeper(data: st.DataObject) -> bool:
    """Mostly yes: a hand edit or a bad write spoils a field far more often than the whole file."""
    return data.draw(st.integers(0, 4), label="deeper") > 0


def replaced_somewhere(value: Any, data: st.DataObject, new: Any) -> Any:
    """`value` with one part of it, drawn at any depth, replaced by `new`."""
    if isinstance(value, dict) and value and deeper(data):
        key = data.draw(st.sampled_from(sorted(value)), label="key")
        return {**value, key: replaced_somewhere(value[key], data, new)}
    if isinstance(value, list) and value and deeper(data):
        at = data.draw(st.integers(0, len(value) - 1), label="index")
        return [*value[:at], replaced_somewhere(value[at], data, new), *value[at + 1:]]
    return new


def contents(original: bytes, data: st.DataObject) -> bytes:
    """What a damaged or hand-edited JSON file may hold, drawn from several kinds of damage."""
    kind = data.draw(st.sampled_from(["bytes", "json", "versioned", "edited", "cut"]), label="kind")
    event(kind)
    if kind == "bytes":
        return data.draw(st.binary(max_size=2000), label="bytes")
    if kind == "cut":
        return original[:data.draw(st.integers(0, max(len(original) - 1, 0)), label="cut at")]
    if kind == "json":
        value = data.draw(JSON, label="value")
    elif kind == "versioned":
        value = data.draw(VERSIONED, label="value")
    else:
        value = replaced_somewhere(json.loads(original), data, data.draw(JSON, label="new"))
    return json.dumps(value).encode()


@FUZZ
@given(data=st.data())
def test_any_run_json(fresh: Callable[[], Bundle], data: st.DataObject) -> None:
    bundle = fresh()
    original = json.loads(bundle.run_file.read_bytes())
    # Older schemas go through the migrations, and a v1 pts-iops test through their renaming.
    original["schema_version"] = data.draw(st.sampled_from([1, 2, SCHEMA_VERSION]), label="version")
    original["tests"][0]["test"] = data.draw(st.sampled_from(["quick", "consistency", "pts-iops"]), label="test")
    bundle.run_file.write_bytes(contents(json.dumps(original).encode(), data))
    loads_or_one_line_error(bundle.load_run, bundle.run_file)


@FUZZ
@given(data=st.data())
def test_any_measurement_file(fresh: Callable[[], Bundle], data: st.DataObject) -> None:
    bundle = fresh()
    ref = measurement_ref(bundle)
    path = bundle.path / ref.file
    path.write_bytes(contents(path.read_bytes(), data))
    problem = bundle.measurement_problem(ref)
    assert problem is None or (problem and len(problem.splitlines()) == 1), problem
    assert (loads_or_one_line_error(lambda: bundle.load_measurement(ref)) is None) == (problem is None)


@FUZZ
@given(data=st.data())
def test_any_drive_state_file(fresh: Callable[[], Bundle], data: st.DataObject) -> None:
    bundle = fresh()
    path = bundle.path / DRIVE_STATE
    path.write_bytes(contents(path.read_bytes(), data))
    saved = bundle.saved_drive()  # what a resume reads (Runner.restore_drive): the drive, or why not
    if not isinstance(saved, str):  # a position a resume can use
        _, test, done = saved
        assert isinstance(test, str) and isinstance(done, int) and not isinstance(done, bool) and done >= 0
    problem = loads_or_one_line_error(bundle.drive_state_position, path)
    assert (problem is None) == (not isinstance(saved, str))


@contextmanager
def held(bundle: Bundle) -> Iterator[None]:
    """The bundle's lock taken by someone else (another open file: flock locks are per open)."""
    fd = os.open(bundle.path / LOCK_FILE, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@FUZZ
@given(data=st.data())
def test_any_lock_file(fresh: Callable[[], Bundle], data: st.DataObject) -> None:
    bundle = fresh()
    original = json.dumps({"pid": 1, "host": "h", "since_utc": "t", "command": "ssdlab run"}).encode()
    (bundle.path / LOCK_FILE).write_bytes(contents(original, data))
    with held(bundle):
        holder = lock_holder(bundle.path)
        assert holder is not None and len(holder.splitlines()) == 1, holder
        with pytest.raises(BundleError) as refused:
            bundle.lock().__enter__()
        assert "in use by another ssdlab run" in one_line_bundle_error(refused.value)


RANDOM_BYTES = random.Random(1).randbytes(2000)  # QA's example: 2000 random bytes (seeded, so each run alike)


def shown(raw: bytes) -> str:
    """A short test id for a file's contents."""
    return "random bytes" if raw == RANDOM_BYTES else raw.decode("utf-8", "replace")[:40]


# The examples QA found, and their kin, each with what the message must say.
RUN_JSON_EXAMPLES = [
    (b"[1,2]", "expected a JSON object, found a list"),
    (b"null", "expected a JSON object, found null"),
    (b"{\"schema_version\":-1}", "schema_version -1 is not one ssdlab wrote"),
    (b"{\"schema_version\":0}", "schema_version 0 is not one ssdlab wrote"),
    (b"{\"schema_version\":\"x\"}", "its schema_version is a string, not an integer"),
    (b"{\"schema_version\":true}", "its schema_version is a boolean"),
    (b"{\"schema_version\":2.0}", "its schema_version is 2.0, not an integer"),
    (b"{\"tests\":[]}", "it has no schema_version"),
    (b"{\"schema_version\":99}", "is bundle schema 99, newer than this ssdlab understands"),
    (b"{\"schema_version\":1,\"tests\":5}", "is malformed"),
    (b"{\"schema_version\":1,\"tests\":[5,{\"test\":\"pts-iops\",\"metrics\":[],\"measurements\":[7]}]}",
     "is malformed"),
    (b"{\"schema_version\":2,\"tests\":\"abc\"}", "is malformed"),
    (RANDOM_BYTES, "not UTF-8 text"),
    (b"\xff\xfe{\x00}\x00", "not UTF-8 text"),
    (b"{\"schema_version\":", "not JSON: Expecting value at line 1 column 19"),
    (b"", "not JSON"),
    (b"[" * 100_000, "nested too deeply"),
    (b"1" * 5000, "a number is too long"),
]


@pytest.mark.parametrize(("raw", "says"), RUN_JSON_EXAMPLES, ids=[shown(raw) for raw, _ in RUN_JSON_EXAMPLES])
def test_a_run_json_of_the_wrong_shape_is_a_one_line_error(fresh: Callable[[], Bundle], raw: bytes,
                                                            says: str) -> None:
    bundle = fresh()
    bundle.run_file.write_bytes(raw)
    with pytest.raises(BundleError) as refused:
        bundle.load_run()
    message = one_line_bundle_error(refused.value, bundle.run_file)
    assert says in message
    assert message.endswith("upgrade ssdlab") if "newer" in says else message.endswith(
        "re-run the test or restore the file")


def test_a_run_json_cut_short_anywhere_is_a_one_line_error(fresh: Callable[[], Bundle]) -> None:
    bundle = fresh()
    whole = bundle.run_file.read_bytes()
    for end in range(0, len(whole.rstrip()), 97):
        bundle.run_file.write_bytes(whole[:end])
        with pytest.raises(BundleError) as refused:
            bundle.load_run()
        assert "not JSON" in one_line_bundle_error(refused.value, bundle.run_file)


@pytest.mark.parametrize(("raw", "says"), [
    (RANDOM_BYTES, "Invalid JSON"),
    (b"[1,2]", "Input should be an object"),
    (b"{\"workload\":", "EOF while parsing"),
    (b"\xff\xfe{\x00}\x00", "Invalid JSON"),
], ids=["random bytes", "a list", "cut short", "UTF-16"])
def test_a_damaged_measurement_file_is_a_one_line_error(fresh: Callable[[], Bundle], raw: bytes, says: str) -> None:
    bundle = fresh()
    ref = measurement_ref(bundle)
    (bundle.path / ref.file).write_bytes(raw)
    with pytest.raises(BundleError) as refused:
        bundle.load_measurement(ref)
    assert says in one_line_bundle_error(refused.value, bundle.path / ref.file)
    assert says in (bundle.measurement_problem(ref) or "")


def test_a_run_json_with_a_byte_order_mark_is_read(fresh: Callable[[], Bundle]) -> None:
    """QA: a run.json an editor saved with a UTF-8 byte-order mark was refused as not JSON."""
    bundle = fresh()
    before = bundle.load_run()
    bundle.run_file.write_bytes(b"\xef\xbb\xbf" + bundle.run_file.read_bytes())
    assert bundle.load_run() == before


def test_a_bundle_file_that_is_a_fifo_is_refused_not_waited_on(fresh: Callable[[], Bundle]) -> None:
    """QA: a measurement (or the drive state) that is a named pipe blocked `report` for ever."""
    bundle = fresh()
    ref = measurement_ref(bundle)
    (bundle.path / ref.file).unlink()
    os.mkfifo(bundle.path / ref.file)
    assert bundle.measurement_problem(ref) == "it is not a regular file"
    state = bundle.path / DRIVE_STATE
    state.parent.mkdir(exist_ok=True)
    state.unlink(missing_ok=True)
    os.mkfifo(state)
    with pytest.raises(BundleError) as refused:
        read_json(state, "is not a drive state", "delete it")
    assert "it is not a regular file" in one_line_bundle_error(refused.value, state)


@pytest.mark.parametrize("file", ["/etc/hostname", "../../b0/run.json", "measurements/../../x.json", "a\x00b"])
def test_a_measurement_named_outside_the_bundle_is_not_read(fresh: Callable[[], Bundle], file: str) -> None:
    bundle = fresh()
    ref = measurement_ref(bundle).model_copy(update={"file": file})
    problem = bundle.measurement_problem(ref)
    assert problem is not None and len(problem.splitlines()) == 1
    with pytest.raises(BundleError):
        bundle.load_measurement(ref)


@pytest.mark.parametrize(("raw", "says"), [
    (b"[1,2]", "expected a JSON object, found a list"),
    (b"{\"test\":\"quick\",\"done\":-1}", "below zero"),
    (b"{\"test\":\"quick\",\"done\":1e999}", "its done is a number, not a count"),
    (b"{\"test\":\"quick\",\"done\":true}", "its done is a boolean"),
    (b"{\"test\":[],\"done\":1}", "its test is a list"),
    (b"{\"test\":\"quick\"}", "its done is null"),
    (b"\x80", "not UTF-8 text"),
])
def test_a_damaged_drive_position_is_refused_and_the_test_starts_over(fresh: Callable[[], Bundle], raw: bytes,
                                                                      says: str) -> None:
    bundle = fresh()
    assert bundle.saved_drive() == (b"snapshot", "quick", 1)
    (bundle.path / DRIVE_STATE).write_bytes(raw)
    with pytest.raises(BundleError) as refused:
        bundle.drive_state_position()
    assert says in one_line_bundle_error(refused.value, bundle.path / DRIVE_STATE)
    assert isinstance(bundle.saved_drive(), str)  # a resume then runs the test from its start


@pytest.mark.parametrize("raw", [b"[1,2]", b"null", b"{\"schema_version\":-1}", RANDOM_BYTES], ids=shown)
@pytest.mark.parametrize("command", ["report", "compare", "library add"])
def test_the_cli_says_what_is_wrong_with_a_damaged_run_json_in_one_line(
        cli: Callable, made: Path, fresh: Callable[[], Bundle], tmp_path: Path, raw: bytes, command: str) -> None:
    good, bad = shutil.copytree(made, tmp_path / "good"), fresh()
    bad.run_file.write_bytes(raw)
    args = {"report": [str(bad.path)], "compare": [str(good), str(bad.path), "-o", str(tmp_path / "c.html")],
            "library add": [str(bad.path)]}[command]
    result = cli(*command.split(), *args)
    lines = result.stderr.strip().splitlines()
    assert result.code == 2 and len(lines) == 1, result.stderr
    assert lines[0].startswith("error:") and str(bad.run_file) in lines[0]
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_a_link_planted_at_a_measurement_is_not_read_as_the_runs_data(fresh: Callable[[], Bundle],
                                                                      tmp_path_factory: pytest.TempPathFactory) -> None:
    """QA: a measurement file replaced by a link to another run's round was read and analysed with
    no note; a link at the folder above it was refused, one at the file was not."""
    bundle = fresh()
    ref = measurement_ref(bundle)
    path = bundle.path / ref.file
    other = tmp_path_factory.mktemp("other") / "round.json"
    other.write_bytes(path.read_bytes())  # a measurement that reads well: only the link is wrong
    path.unlink()
    path.symlink_to(other)
    assert bundle.measurement_problem(ref) == "it is a link, not the file ssdlab wrote"
    with pytest.raises(BundleError, match="it is a link"):
        bundle.load_measurement(ref)
    path.unlink()
    other.rename(path)  # the file back, and its folder moved out and linked to
    moved = tmp_path_factory.mktemp("folder") / path.parent.name
    path.parent.rename(moved)
    path.parent.symlink_to(moved)
    assert (path.parent / path.name).is_file()
    assert bundle.measurement_problem(ref) == "it is a link, not the file ssdlab wrote"
