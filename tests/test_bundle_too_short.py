"""A test's windows too short to trust, kept in its record (TestRecord.too_short): every one by
name, where the note names three and counts the rest, so readers need not open the measurements
to learn which. A bundle recorded before the field (its note alone) loads as it did and gives
the same answers by its measurements."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ssdlab.bundle import SCHEMA_VERSION, Bundle, ShortWindows, TooShort, short_windows
from ssdlab.cli.run import run_json
from ssdlab.engines.fake import FakeEngine, FakeProfile
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

# 50 IOPS of 1 MiB sequential reads: of quick's nvme profile, two runs each of SEQ1M Q8T1 and
# SEQ128K Q32T1 read are too short, four windows of sixteen ("a, b, c and 1 more").
SLOW_SEQ_READ = FakeProfile(seq_read_mb_s=50 * 2**20 / 1e6)
NVME_QUICK = SuiteEntry(name="quick", test="quick", params={"runs": 2, "runtime_s": 2, "profile": "nvme"})
FOUR = frozenset({"seq1m_q8t1-read-r1", "seq1m_q8t1-read-r2", "seq128k_q32t1-read-r1", "seq128k_q32t1-read-r2"})
ADVICE = "raise runtime_s to at least 5 s"


@pytest.fixture
def bundle(tmp_path: Path) -> Bundle:
    run_entries(tmp_path / "new", parse_target("fake:?capacity=16g"), FakeEngine(profile=SLOW_SEQ_READ), [NVME_QUICK])
    return Bundle(tmp_path / "new")


def as_written_before(bundle: Bundle, to: Path) -> Bundle:
    """A copy of the bundle as an ssdlab before TestRecord.too_short wrote it: no such key."""
    shutil.copytree(bundle.path, to)
    data = json.loads((to / "run.json").read_text(encoding="utf-8"))
    for test in data["tests"]:
        del test["too_short"]
    (to / "run.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return Bundle(to)


def test_the_record_keeps_every_window_too_short_by_name(bundle: Bundle) -> None:
    """The note names three and counts the fourth; the record names all four, in plan order, with
    the note's advice; the note reads as ever, and the bundle's schema is the one it was."""
    run = bundle.load_run()
    record = run.test("quick")
    (note,) = record.notes
    assert "4 of 16 measured windows (seq1m_q8t1-read-r1, seq1m_q8t1-read-r2, seq128k_q32t1-read-r1 and 1 more)" in note
    assert note.endswith(f"; {ADVICE}")
    assert record.too_short == TooShort(windows=("seq1m_q8t1-read-r1", "seq1m_q8t1-read-r2", "seq128k_q32t1-read-r1",
                                                 "seq128k_q32t1-read-r2"), advice=ADVICE)
    assert short_windows(record) == ShortWindows(FOUR, ADVICE)  # the record alone says which
    assert run.schema_version == SCHEMA_VERSION == 3


def test_a_window_long_enough_keeps_nothing(tmp_path: Path) -> None:
    entry = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 2, "profile": "standard"})
    run = run_entries(tmp_path / "b", parse_target("fake:?capacity=2g"), FakeEngine(), [entry])
    assert run.test("quick").too_short is None and run.test("quick").notes == ()
    assert short_windows(run.test("quick")) is None


def test_which_windows_are_known_without_the_measurement_files(bundle: Bundle) -> None:
    """With every measurement file gone, the bundle still says which windows, and `run --json`
    which figures, exactly as with them."""
    run = bundle.load_run()
    before = bundle.windows_too_short(run.test("quick")), run_json(bundle, run, None)
    shutil.rmtree(bundle.path / "measurements")
    assert bundle.windows_too_short(run.test("quick")) == ShortWindows(FOUR, ADVICE)
    assert (bundle.windows_too_short(run.test("quick")), run_json(bundle, run, None)) == before
    unreliable = json.loads(before[1])["tests"][0]["unreliable_metrics"]
    assert unreliable == [f"{entry}_read_{rate}" for entry in ("seq1m_q8t1", "seq128k_q32t1")
                          for rate in ("mb_s", "iops", "lat_us")]


def test_a_bundle_recorded_before_the_field_gives_the_same_answers(bundle: Bundle, tmp_path: Path) -> None:
    """Without the field a run.json loads as it did; its measurements say which windows (the same
    four), `run --json` the same figures; with them gone, the note says only that some were."""
    old = as_written_before(bundle, tmp_path / "old")
    run = old.load_run()
    assert run.test("quick").too_short is None
    assert short_windows(run.test("quick")) == ShortWindows(None, ADVICE)  # "… and 1 more": not known
    assert old.windows_too_short(run.test("quick")) == ShortWindows(FOUR, ADVICE)
    new = json.loads(run_json(bundle, bundle.load_run(), None))
    assert json.loads(run_json(old, run, None)) == {**new, "bundle": str(old.path)}
    shutil.rmtree(old.path / "measurements")
    assert old.windows_too_short(run.test("quick")) == ShortWindows(None, ADVICE)


def test_a_record_names_at_least_one_window(bundle: Bundle) -> None:
    """An empty list would read as "every window" (ShortWindows.names None): a hand-edited record
    holding one is refused as malformed."""
    from ssdlab.errors import BundleError

    data = json.loads(bundle.run_file.read_text(encoding="utf-8"))
    data["tests"][0]["too_short"]["windows"] = []
    bundle.run_file.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(BundleError, match="malformed"):
        bundle.load_run()
