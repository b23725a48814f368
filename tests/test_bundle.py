from __future__ import annotations

import json
from pathlib import Path

import pytest

from run_helpers import small_record
from ssdlab.bundle import SCHEMA_VERSION, Bundle, TestRecord, upgrade
from ssdlab.errors import BundleError


def test_roundtrip_and_atomic_files(tmp_path: Path) -> None:
    bundle = Bundle(tmp_path / "b")
    record = small_record()
    bundle.write_run(record)
    assert bundle.load_run() == record
    assert [p.name for p in bundle.path.iterdir()] == ["run.json"]  # no temp files left
    assert json.loads(bundle.run_file.read_text())["schema_version"] == SCHEMA_VERSION


def test_refuses_non_bundles_and_newer_schemas(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="not a result bundle"):
        Bundle(tmp_path).load_run()
    (tmp_path / "run.json").write_text("{not json")
    with pytest.raises(BundleError, match="not JSON"):
        Bundle(tmp_path).load_run()
    with pytest.raises(BundleError, match="newer"):
        upgrade({"schema_version": SCHEMA_VERSION + 1})
    with pytest.raises(BundleError, match="no schema_version"):
        upgrade({})


def test_with_test_replaces_by_name() -> None:
    record = small_record()
    updated = record.with_test(TestRecord(name="quick", test="quick", status="complete"))
    assert updated.test("quick").status == "complete"
    with pytest.raises(BundleError):
        updated.test("nope")


def test_a_version_1_bundle_loads_renamed_and_reports(tmp_path: Path) -> None:
    """Bundles written before schema 2 keep loading: consistency figures are renamed to the
    window names the report reads, and the test resumes from its start (no outcomes kept)."""
    v1 = json.loads(small_record().model_dump_json())
    v1["schema_version"] = 1
    v1["tests"] = [{"name": "consistency", "test": "consistency", "status": "complete",
                    "params": {"runtime_s": 600.0}, "metrics": {"steady_iops_mean": 15000.0,
                                                                "steady_window_s": 400.0, "fresh_iops": 1e5}}]
    for test in v1["tests"]:
        test.pop("action_outcomes", None)
    bundle = Bundle(tmp_path / "b")
    bundle.path.mkdir()
    bundle.run_file.write_text(json.dumps(v1))
    record = bundle.load_run()
    test = record.test("consistency")
    assert test.metrics == {"window_iops_mean": 15000.0, "window_s": 400.0, "fresh_iops": 1e5}
    assert test.action_outcomes == () and test.verdicts == ()
    from ssdlab.report import render_report

    html = render_report(bundle.path).html.read_text()
    assert "Mean IOPS, analysed window" in html and "15,000" in html


def test_a_version_2_bundle_records_every_test_as_self_prepared(tmp_path: Path) -> None:
    v2 = json.loads(small_record().model_dump_json())
    v2["schema_version"] = 2
    v2["tests"] = [{"name": "quick", "test": "quick", "status": "complete"}]
    bundle = Bundle(tmp_path / "b")
    bundle.path.mkdir()
    bundle.run_file.write_text(json.dumps(v2))
    start = bundle.load_run().test("quick").start
    assert start is not None and start.shared_from is None and "before ssdlab shared" in start.reason


def test_a_bundles_run_json_given_for_the_bundle_names_its_directory(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "run.json").write_text("{}")
    with pytest.raises(BundleError) as refused:
        Bundle(tmp_path / "b" / "run.json").load_run()
    # QA: it said "… is not a result bundle (no run.json in it)" of the run.json itself
    assert str(refused.value) == f"{tmp_path}/b/run.json is a bundle's run.json, not the bundle; give its " \
                                 f"directory, {tmp_path}/b"


def test_dropping_the_drive_state_leaves_no_empty_state_folder(tmp_path: Path) -> None:
    """Audit: a finished resumed run left an empty `state/` in its bundle."""
    bundle = Bundle(tmp_path / "b")
    bundle.write_run(small_record())
    bundle.write_drive_state(b"snapshot", "quick", 3)
    bundle.drop_drive_state()
    assert sorted(p.name for p in bundle.path.iterdir()) == ["run.json"]
    bundle.drop_drive_state()  # nothing saved: nothing to do
    bundle.write_drive_state(b"snapshot", "quick", 3)
    (bundle.path / "state" / "notes.txt").write_text("kept")  # not ssdlab's: never removed
    bundle.drop_drive_state()
    assert [p.name for p in (bundle.path / "state").iterdir()] == ["notes.txt"]


def test_files_ssdlab_writes_get_the_mode_open_would_give(tmp_path: Path) -> None:
    """QA: files written through a temporary file (run.json, measurements, job files, iologs,
    cache entries) came out 0600, beside others at 0644: they get 0666 less the umask now."""
    import os
    import stat

    from ssdlab.bundle import atomic_write_bytes, atomic_write_text

    before = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "a.json", "{}\n")
        atomic_write_bytes(tmp_path / "b.bin", b"x", inside=tmp_path)
    finally:
        os.umask(before)
    for name in ("a.json", "b.bin"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o640, name
