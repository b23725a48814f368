"""The results library: adding is idempotent, moved and deleted bundles are reported, unlike
runs are never ranked together, queries, export, and the CLI (piped and in a terminal)."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import pytest

from pty_helpers import SSDLAB, run_in_terminal
from ssdlab import library as library_module
from ssdlab.bundle import Bundle
from ssdlab.effective import effective_method
from ssdlab.engines.fake import FakeEngine, FakeProfile
from ssdlab.errors import UsageError
from ssdlab.library import SCHEMA_VERSION, Library, drive_id, run_id, select_drives
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target


def quick(runtime_s: float = 2) -> SuiteEntry:
    return SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": runtime_s})


def make_bundle(path: Path, spec: str, entries: Sequence[SuiteEntry] = (), created: str | None = None) -> Path:
    run_entries(path, parse_target(spec), FakeEngine(), list(entries) or [quick()], suite="quick")
    if created is not None:  # another start time: another run of the same drive
        bundle = Bundle(path)
        bundle.write_run(bundle.load_run().model_copy(update={"created_utc": created}))
    return path


@pytest.fixture
def library(tmp_path: Path) -> Library:
    return Library(tmp_path / "lib" / "library.sqlite")


def counts(library: Library) -> tuple[int, int]:
    rows = library.export_rows()
    return len(library.runs()), len(rows)


def test_adding_twice_changes_nothing(library: Library, tmp_path: Path) -> None:
    bundle = make_bundle(tmp_path / "a", "fake:?capacity=2g")
    first = library.add(bundle)
    assert first.outcome == "added" and first.run.tests == 1 and first.run.state() == "ok"
    before = counts(library)
    again = library.add(bundle)
    assert again.outcome == "updated" and again.run.run_id == first.run.run_id
    # profile, interval_s, warmup + 4 entries x 2 directions x (mb_s, iops, lat, runs)
    assert counts(library) == before == (1, 3 + 4 * 2 * 4)


def test_two_runs_started_in_the_same_second_are_two_runs(library: Library, tmp_path: Path) -> None:
    # QA (stop 45): two runs on one target started in one second (a script's parallel runs) had one
    # id, so the second was refused as "a copy" of the first and never listed.
    first = make_bundle(tmp_path / "a", "fake:?capacity=2g", created="2026-11-27T20:08:45Z")
    second = make_bundle(tmp_path / "b", "fake:?capacity=2g", created="2026-11-27T20:08:45Z")
    assert library.add(first).outcome == "added" and library.add(second).outcome == "added"
    assert len(library.runs()) == 2


def test_a_bundle_from_before_runs_had_a_nonce_keeps_its_id(tmp_path: Path) -> None:
    """The id a library listed an older bundle under (made from these fields, as before) still
    finds it: the library would otherwise call it changed."""
    bundle = Bundle(make_bundle(tmp_path / "a", "fake:?capacity=2g"))
    raw = json.loads((bundle.path / "run.json").read_text())
    assert raw.pop("nonce")
    (bundle.path / "run.json").write_text(json.dumps(raw))  # as an older ssdlab wrote it
    run = bundle.load_run()
    fields = (run.created_utc, run.target.spec, run.target.serial, run.host.get("hostname"), run.engine, run.suite)
    legacy = hashlib.sha256("\x1f".join("" if f is None else str(f) for f in fields).encode()).hexdigest()[:12]
    assert run.nonce == "" and run_id(run) == legacy


def test_a_moved_bundle_is_reported_then_found_again(library: Library, tmp_path: Path) -> None:
    bundle = make_bundle(tmp_path / "a", "fake:?capacity=2g")
    library.add(bundle)
    moved = tmp_path / "elsewhere" / "a"
    moved.parent.mkdir()
    shutil.move(bundle, moved)
    (run,) = library.runs()
    assert run.state() == "missing"
    again = library.add(moved)
    assert again.outcome == "moved" and again.previous == bundle.resolve() and again.run.bundle == moved.resolve()
    assert counts(library)[0] == 1 and library.runs()[0].state() == "ok"


def test_a_copy_of_a_listed_bundle_is_not_a_move(library: Library, tmp_path: Path) -> None:
    """QA: `library add COPY` said "moved from ORIGINAL" (still there) and listed the copy in its
    place, a stale interrupted copy over the finished run; adding the original flipped it back. A
    copy is refused, saying how to list it instead; once the original's entry is gone, it is added."""
    from ssdlab.errors import BundleError

    original = make_bundle(tmp_path / "a", "fake:?capacity=2g")
    library.add(original)
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    with pytest.raises(BundleError, match=rf"lists from {original.resolve()} \(still there\).*library remove"):
        library.add(copy)
    assert [r.bundle for r in library.runs()] == [original.resolve()]
    assert library.add(original).outcome == "updated"
    library.remove(str(original))
    assert library.add(copy).outcome == "added" and library.runs()[0].bundle == copy.resolve()


def test_a_deleted_bundle_is_reported_and_can_be_forgotten(library: Library, tmp_path: Path) -> None:
    keep = make_bundle(tmp_path / "keep", "fake:?capacity=2g")
    gone = make_bundle(tmp_path / "gone", "fake:?capacity=4g")
    library.add(keep)
    library.add(gone)
    shutil.rmtree(gone)
    assert {r.bundle.name: r.state() for r in library.runs()} == {"keep": "ok", "gone": "missing"}
    (removed,) = library.remove_missing()
    assert removed.bundle.name == "gone" and [r.bundle.name for r in library.runs()] == ["keep"]


def test_a_bundle_reused_for_another_run_replaces_it(library: Library, tmp_path: Path) -> None:
    bundle = make_bundle(tmp_path / "a", "fake:?capacity=2g")
    old = library.add(bundle).run.run_id
    shutil.rmtree(bundle)
    make_bundle(bundle, "fake:?capacity=4g")
    assert library.runs()[0].state() == "changed"
    added = library.add(bundle)
    assert added.outcome == "replaced" and added.run.run_id != old and len(library.runs()) == 1


def key_of(bundle: Path, test: str = "quick") -> str:
    run = Bundle(bundle).load_run()
    return effective_method(run.test(test), run.target).key


def test_unlike_runs_are_never_ranked_together(library: Library, tmp_path: Path) -> None:
    like_a = make_bundle(tmp_path / "a", "fake:?capacity=2g")
    like_b = make_bundle(tmp_path / "b", "fake:?capacity=4g")
    longer = make_bundle(tmp_path / "c", "fake:?capacity=8g", [quick(runtime_s=3)])  # other parameters
    sata = make_bundle(tmp_path / "d", "fake:?capacity=16g&nvme=0")  # profile=auto ran the standard profile
    for bundle in (like_a, like_b, longer, sata):
        library.add(bundle)
    ranked = library.comparable("fake", "quick", key_of(like_a))
    assert sorted(t.bundle.name for t in ranked) == ["a", "b"]
    assert [t.values["seq1m_q8t1_read_mb_s"] for t in ranked] == [pytest.approx(1907 * 2**20 / 1e6)] * 2
    assert [t.bundle.name for t in library.comparable("fake", "quick", key_of(longer))] == ["c"]
    assert [t.bundle.name for t in library.comparable("fake", "quick", key_of(sata))] == ["d"]
    assert library.comparable("sim", "quick", key_of(like_a)) == []  # another engine never ranks with these


def test_one_drive_ranks_once_with_its_newest_run(library: Library, tmp_path: Path) -> None:
    old = make_bundle(tmp_path / "old", "fake:?capacity=2g", created="2020-01-01T00:00:00Z")
    new = make_bundle(tmp_path / "new", "fake:?capacity=2g", created="2030-01-01T00:00:00Z")
    library.add(old)
    library.add(new)
    run = Bundle(old).load_run()
    assert run_id(run) != run_id(Bundle(new).load_run()) and len(library.runs()) == 2
    (ranked,) = library.comparable("fake", "quick", key_of(old))
    assert ranked.bundle.name == "new" and ranked.drive_id == drive_id(run.target)


def test_queries(library: Library, tmp_path: Path) -> None:
    a = make_bundle(tmp_path / "a", "fake:?capacity=2g", created="2020-01-01T00:00:00Z")
    b = make_bundle(tmp_path / "b", "fake:?capacity=4g", created="2021-01-01T00:00:00Z")
    b2 = make_bundle(tmp_path / "b2", "fake:?capacity=4g", [SuiteEntry(name="mixed", test="iometer-mixed",
                                                                       params={"runtime_s": 2})],
                     created="2022-01-01T00:00:00Z")
    for bundle in (a, b, b2):
        library.add(bundle)

    def names(query: str) -> list[list[str]]:
        return [[r.bundle.name for r in runs] for runs in library.drives(query)]

    assert names("latest") == [["b2", "b"]]  # the newest run's drive, all its runs, newest first
    assert names("all") == [["b2", "b"], ["a"]]
    assert names("fake:?capacity=2g") == [["a"]]  # a target spec matches exactly
    assert names("FAKE DRIVE 4.29") == [["b2", "b"]]  # else a substring of the label, any case
    assert names("no such drive") == []
    picked = select_drives(["latest", str(a)], library)
    assert picked.from_library and [[p.name for p in g] for g in picked.groups] == [["b2", "b"], ["a"]]
    with pytest.raises(UsageError, match="'nothing' is not a bundle and matches no drive"):
        select_drives(["nothing"], library)
    # QA: `library list` shows run ids and `compare` refused them. Its 8 characters pick that one
    # run, a drive of its own, so two runs of one drive compare side by side.
    ids = {r.bundle.name: r.run_id for r in library.runs()}
    assert names(ids["b"][:8]) == [["b"]] and names(ids["b2"].upper()) == [["b2"]]
    picked = select_drives([ids["b"][:8], ids["b2"][:8]], library)
    assert [[p.name for p in g] for g in picked.groups] == [["b"], ["b2"]]
    assert names(ids["b"][:7]) == []  # shorter text is a model substring, as before


def test_the_default_simulated_drive_is_found_by_its_preset(library: Library, tmp_path: Path) -> None:
    """`sim:` is the default preset: its runs are named by the preset and match a part of it,
    as README's `compare SM951 "950 PRO" latest` expects (its model is an OEM part number)."""
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    library.add(make_bundle(tmp_path / "default", "sim:?capacity_gib=16"))
    library.add(make_bundle(tmp_path / "other", "fake:?capacity=2g"))
    # QA: `sim:` matched every simulated drive once no run's spec was exactly `sim:`.
    library.add(make_bundle(tmp_path / "evo", "sim:840evo-250?capacity_gib=16"))

    def names(query: str) -> list[list[str]]:
        return [[r.bundle.name for r in runs] for runs in library.drives(query)]

    for query in ("sm951-nvme-256", "sim:sm951-nvme-256", "SM951", "sim:"):
        assert names(query) == [["default"]], query
    assert names("sm951-nvme-512") == []


def test_export_csv_and_parquet(library: Library, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    library.add(make_bundle(tmp_path / "a", "fake:?capacity=2g"))
    rows = library.export(tmp_path / "out.csv", "csv")
    with (tmp_path / "out.csv").open(encoding="utf-8") as handle:
        read = list(csv.DictReader(handle))
    assert len(read) == rows == 35
    iops = next(r for r in read if r["metric"] == "rnd4k_q1t1_read_iops")
    assert iops["label"] == "RND4K Q1T1 read: IOPS" and iops["unit"] == "IOPS" and float(iops["value"]) == 12500
    assert next(r for r in read if r["metric"] == "profile")["text"] == "nvme"
    assert library.export(tmp_path / "out.parquet", "parquet") == 35
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.num_rows == 35 and table.schema.field("value").type == "double"


THERMAL = SuiteEntry(name="thermal", test="thermal", params={"seq_runtime_s": 3, "rnd_runtime_s": 3,
                                                             "cooldown_s": None})
# The export's columns before lower bounds were marked: a script that reads them by place keeps working.
COLUMNS_BEFORE_BOUNDS = ["run_id", "bundle", "drive_id", "drive", "model", "serial", "firmware", "capacity_bytes",
                         "spec", "engine", "suite", "created_utc", "test", "method", "method_key", "metric", "label",
                         "unit", "kind", "better", "value", "text", "unreliable"]


def test_the_export_marks_a_lower_bound_as_one_in_csv_and_parquet(library: Library, tmp_path: Path) -> None:
    """QA: the export gave a never-throttled phase's data written (315 GB, only the test's length) and
    its rise to its hottest second as plain figures, where the report prints '≥ 315.01 (never
    throttled)'. The fake drive never throttles; the random phase here is made one that did."""
    import pyarrow.parquet as pq

    path = make_bundle(tmp_path / "t", "fake:?capacity=2g", [THERMAL])
    bundle = Bundle(path)
    run = bundle.load_run()
    record = run.test("thermal")
    metrics = {**record.metrics, "seq_temp_rise_c": 9.0978, "rnd_time_to_throttle_s": 2.0, "rnd_gb_at_peak": 0.8}
    bundle.write_run(run.model_copy(update={"tests": (record.model_copy(update={"metrics": metrics}),)}))
    library.add(path)
    library.export(tmp_path / "out.csv", "csv")
    with (tmp_path / "out.csv").open(encoding="utf-8") as handle:
        read = {row["metric"]: row for row in csv.DictReader(handle)}
    header = (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header[:len(COLUMNS_BEFORE_BOUNDS)] == COLUMNS_BEFORE_BOUNDS and header[-2:] == ["lower_bound", "bound_text"]
    gb, rise, exact = read["seq_gb_at_peak"], read["seq_temp_rise_c"], read["rnd_gb_at_peak"]
    assert float(gb["value"]) == pytest.approx(3.6, rel=0.01) and gb["text"] == ""  # the figure stays where it was
    assert gb["lower_bound"] == "true" and gb["bound_text"] == f"≥ {float(gb['value']):.2f} GB (never throttled)"
    assert (rise["lower_bound"], rise["bound_text"]) == ("true", "≥ 9.1 °C (never throttled)")
    assert (exact["lower_bound"], exact["bound_text"]) == ("false", "")
    assert read["seq_peak_mb_s"]["lower_bound"] == "false" and read["seq_cause"]["lower_bound"] == "false"
    library.export(tmp_path / "out.parquet", "parquet")
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.schema.field("lower_bound").type == "bool"
    rows = {row["metric"]: row for row in table.to_pylist()}
    assert rows["seq_gb_at_peak"]["lower_bound"] is True and rows["seq_gb_at_peak"]["bound_text"] == gb["bound_text"]
    assert rows["rnd_gb_at_peak"]["lower_bound"] is False and rows["rnd_gb_at_peak"]["bound_text"] is None


CliRun = Callable[..., Any]


def test_cli_add_list_remove_export(cli: CliRun, tmp_path: Path) -> None:
    lib = str(tmp_path / "library.sqlite")
    a = make_bundle(tmp_path / "a", "fake:?capacity=2g")
    b = make_bundle(tmp_path / "b", "fake:?capacity=4g")
    added = cli("library", "add", str(a), str(b), "--library", lib)
    assert added.code == 0 and added.stdout.count(": added (run ") == 2
    assert ": already in the library; refreshed" in cli("library", "add", str(a), "--library", lib).stdout
    shutil.rmtree(b)
    listed = cli("library", "list", "--library", lib)
    assert listed.code == 0 and "2 runs in" in listed.stdout
    assert f"bundle {b.resolve()} moved or deleted" in listed.stdout
    assert "ssdlab library remove --missing" in listed.stdout
    removed = cli("library", "remove", "--missing", "--library", lib)
    assert removed.code == 0 and "removed run" in removed.stdout and "(ssdlab fake drive 4.29 GB" in removed.stdout
    exported = cli("library", "export", str(tmp_path / "x.csv"), "--library", lib)
    assert exported.code == 0 and "35 rows written" in exported.stdout
    bad = cli("library", "export", str(tmp_path / "x.xlsx"), "--library", lib)
    assert bad.code != 0 and bad.stderr.count("\n") == 1 and "csv or parquet, not 'xlsx'" in bad.stderr
    for name in ("-", "runs"):  # QA: `export -` said "not ''"
        bare = cli("library", "export", name, "--library", lib)
        assert bare.code == 2 and f"csv or parquet, and '{name}' names neither: name the file" in bare.stderr
    nothing = cli("library", "remove", "zzz", "--library", lib)
    assert nothing.code != 0 and "no run in the library matches 'zzz'" in nothing.stderr


def test_cli_add_tries_every_bundle_and_says_what_became_of_each(cli: CliRun, tmp_path: Path) -> None:
    """QA: `library add GOOD1 GOOD2 broken/ nonexist GOOD3` stopped at broken/: GOOD3 was never
    added nor mentioned, so `ssdlab library add results/*` could not rebuild a library."""
    lib = str(tmp_path / "library.sqlite")
    good = [make_bundle(tmp_path / name, f"fake:?capacity={size}") for name, size in (("a", "2g"), ("b", "4g"),
                                                                                       ("c", "8g"))]
    (tmp_path / "broken").mkdir()
    args = [str(good[0]), str(good[1]), str(tmp_path / "broken"), str(tmp_path / "nonexist"), str(good[2])]
    added = cli("library", "add", *args, "--library", lib)
    assert added.code == 2
    assert [line.split(":")[0] for line in added.stdout.splitlines()[:3]] == [str(p.resolve()) for p in good]
    assert all(": added (run " in line for line in added.stdout.splitlines()[:3])
    errors = added.stderr.strip().splitlines()
    assert len(errors) == 2 and all(line.startswith("error: ") for line in errors), added.stderr
    assert "broken is not a result bundle" in errors[0] and "nonexist does not exist" in errors[1]
    assert sorted(r.bundle for r in Library(Path(lib)).runs()) == sorted(p.resolve() for p in good)
    again = cli("library", "add", str(good[0]), "--library", lib)
    assert again.code == 0 and again.stderr == ""


def test_a_run_that_finished_no_test_is_not_added(cli: CliRun, tmp_path: Path) -> None:
    """QA: `library add` took an interrupted run that had finished no test ("added (… 0 tests)"):
    `run` adds finished runs only, and the empty run became `latest`. A run stopped after some of its
    tests still adds those (compare draws each test from the newest run that finished it)."""
    lib = str(tmp_path / "library.sqlite")
    two = [quick(), quick().model_copy(update={"name": "q2"})]
    stopped = make_bundle(tmp_path / "stopped", "fake:?capacity=2g", two)
    bundle = Bundle(stopped)
    run = bundle.load_run()
    tests = (run.tests[0], run.tests[1].model_copy(update={"metrics": {}, "status": "interrupted"}))
    bundle.write_run(run.model_copy(update={"status": "interrupted", "tests": tests}))
    one = cli("library", "add", str(stopped), "--library", lib)
    assert one.code == 0 and "(run " in one.stdout and ", 1 test)" in one.stdout
    cut = tuple(t.model_copy(update={"metrics": {}, "status": "interrupted"}) for t in run.tests)
    bundle.write_run(run.model_copy(update={"status": "interrupted", "tests": cut}))
    none = cli("library", "add", str(stopped), "--library", lib)
    assert none.code == 2 and none.stderr.count("\n") == 1, none.stderr
    assert f"no test of this run finished (interrupted), so it has nothing to rank; finish it with " \
           f"`ssdlab run --resume {stopped.resolve()}`" in none.stderr


def test_cli_remove_finds_every_run_before_removing_any(cli: CliRun, tmp_path: Path) -> None:
    """QA: `library remove ID1 BADID` removed ID1, then printed only the error for BADID (no
    'removed' line), exit 2; `remove ID1 ID1` did the same."""
    lib = str(tmp_path / "library.sqlite")
    for name, size in (("a", "2g"), ("b", "4g")):
        cli("library", "add", str(make_bundle(tmp_path / name, f"fake:?capacity={size}")), "--library", lib)
    ids = {r.bundle.name: r.run_id[:8] for r in Library(Path(lib)).runs()}
    refused = cli("library", "remove", ids["a"], "deadbeefdead", "ffffffff", "--library", lib)
    assert refused.code == 2 and refused.stdout == "" and refused.stderr.count("\n") == 1
    assert ("no run in the library matches 'deadbeefdead'; no run in the library matches 'ffffffff'"
            in refused.stderr) and "nothing was removed" in refused.stderr
    assert len(Library(Path(lib)).runs()) == 2
    twice = cli("library", "remove", ids["a"], ids["a"], str(tmp_path / "a"), "--library", lib)
    assert twice.code == 0 and twice.stderr == ""
    assert twice.stdout.count("removed run") == 1 and f"{(tmp_path / 'a').resolve()})" in twice.stdout
    assert [r.bundle.name for r in Library(Path(lib)).runs()] == ["b"]


def test_a_name_given_twice_is_said_once(cli: CliRun, tmp_path: Path) -> None:
    """QA: `library remove q1 q1` said "no run in the library matches 'q1'" twice; `library add`
    of a bundle given twice added (or refused) it twice."""
    lib = str(tmp_path / "library.sqlite")
    bundle = str(make_bundle(tmp_path / "a", "fake:?capacity=2g"))
    missing = str(tmp_path / "nonexist")
    added = cli("library", "add", bundle, bundle, missing, missing, "--library", lib)
    assert added.code == 2 and added.stdout.count(": added (run ") == 1, added.stdout
    assert added.stderr.count("nonexist does not exist") == 1, added.stderr
    refused = cli("library", "remove", "q1", "q1", "q2", "q1", "--library", lib)
    assert refused.code == 2 and refused.stderr.count("matches 'q1'") == 1 and "matches 'q2'" in refused.stderr, \
        refused.stderr


def test_cli_remove_takes_a_bundle_folder_name_as_library_list_shows_it(cli: CliRun, tmp_path: Path) -> None:
    """QA: `library remove q1`, the bundle as `library list` names it, found no run (from another
    folder than the bundle's). A folder name two runs share removes nothing."""
    lib = str(tmp_path / "library.sqlite")
    for name, size in (("q1", "2g"), ("x/q2", "3g"), ("y/q2", "4g")):  # three runs (their ids differ)
        cli("library", "add", str(make_bundle(tmp_path / name, f"fake:?capacity={size}")), "--library", lib)
    gone = cli("library", "remove", "q1", "--library", lib)
    assert gone.code == 0 and f"{(tmp_path / 'q1').resolve()})" in gone.stdout, gone.stderr
    shared = cli("library", "remove", "q2", "--library", lib)
    assert shared.code == 2 and "2 runs in the library match 'q2'" in shared.stderr
    assert sorted(str(r.bundle.relative_to(tmp_path.resolve())) for r in Library(Path(lib)).runs()) == ["x/q2", "y/q2"]


def test_run_adds_to_the_library_unless_told(cli: CliRun, tmp_path: Path) -> None:
    lib = Library()  # the test's own, from $SSDLAB_LIBRARY (tests/conftest.py)
    done = cli("run", "-t", "fake:?capacity=2g", "--test", "quick", "-p", "runs=1", "-p", "runtime_s=1",
               "--out", str(tmp_path / "one"), "--no-report")
    assert done.code == 0 and "Results library: added" in done.stdout
    assert [r.bundle for r in lib.runs()] == [(tmp_path / "one").resolve()]
    skipped = cli("run", "-t", "fake:?capacity=2g", "--test", "quick", "-p", "runs=1", "-p", "runtime_s=1",
                  "--out", str(tmp_path / "two"), "--no-report", "--no-library")
    assert skipped.code == 0 and len(lib.runs()) == 1


def test_report_and_compare_take_the_run_ids_library_list_shows(cli: CliRun, tmp_path: Path) -> None:
    lib = str(tmp_path / "library.sqlite")
    for name, created in (("a", "2021-01-01T00:00:00Z"), ("b", "2022-01-01T00:00:00Z")):
        cli("library", "add", str(make_bundle(tmp_path / name, "fake:?capacity=2g", created=created)), "--library", lib)
    ids = {r.bundle.name: r.run_id[:8] for r in Library(Path(lib)).runs()}
    assert all(ids[name] in cli("library", "list", "--library", lib).stdout for name in ids)
    shown = cli("report", ids["a"], "-o", str(tmp_path / "a.html"), "--library", lib)
    assert shown.code == 0 and "Report:" in shown.stdout and (tmp_path / "a.html").is_file()
    compared = cli("compare", ids["a"], ids["b"], "--library", lib)  # two runs of one drive, side by side
    assert compared.code == 0 and "#1" in compared.stdout and "#2" in compared.stdout, compared.stderr
    (tmp_path / "b").rename(tmp_path / "b-moved")
    moved = cli("report", ids["b"], "--library", lib)
    assert moved.code == 2 and f"'s bundle {(tmp_path / 'b').resolve()} was moved or deleted" in moved.stderr
    unknown = cli("report", "deadbeef", "--library", lib)
    assert unknown.code == 2 and unknown.stderr.count("\n") == 1
    assert "no run in the library matches 'deadbeef'" in unknown.stderr


def test_compare_by_library_query(cli: CliRun, tmp_path: Path) -> None:
    lib = str(tmp_path / "library.sqlite")
    for name, spec in (("a", "fake:?capacity=2g"), ("b", "fake:?capacity=4g"), ("c", "fake:?capacity=8g")):
        cli("library", "add", str(make_bundle(tmp_path / name, spec)), "--library", lib)
    shown = cli("compare", "4.29", "all", "--library", lib, "-o", str(tmp_path / "cmp.html"))
    assert shown.code == 0, shown.stderr
    html = (tmp_path / "cmp.html").read_text(encoding="utf-8")  # the first query names the baseline
    title = html[html.index("<h1>") + 4:html.index("</h1>")]
    assert title.startswith("ssdlab fake drive 4.29 GB against ") and title.count("ssdlab fake drive") == 3
    assert "Ranking" in html
    rebased = cli("compare", "all", "--baseline", "2.15", "--library", lib, "-o", str(tmp_path / "re.html"))
    assert rebased.code == 0
    assert "baseline: ssdlab fake drive 2.15 GB" in (tmp_path / "re.html").read_text(encoding="utf-8")
    unknown = cli("compare", "all", "--baseline", "GB", "--library", lib)
    assert unknown.code != 0 and "matches 3 of the compared drives" in unknown.stderr


def test_library_list_in_a_terminal(tmp_path: Path) -> None:
    lib = tmp_path / "library.sqlite"
    Library(lib).add(make_bundle(tmp_path / "a", "fake:?capacity=2g"))
    shown = run_in_terminal("library", "list", "--library", str(lib), columns=200)
    assert shown.code == 0
    assert any("ssdlab fake drive 2.15 GB (fake)" in line and "quick" in line for line in shown.lines)
    assert "1 run in" in shown.screen
    narrow = run_in_terminal("library", "list", "--library", str(lib), columns=80)
    # At 80 columns the drive's name may wrap, the time go below the date; the id, the date and the
    # state stay whole on the run's first line.
    started = Library(lib).runs()[0].created_utc[:10]
    row = next(line for line in narrow.lines if started in line)
    assert "complete" in row and Library(lib).runs()[0].run_id[:8] in row, narrow.screen


def test_spellings_of_one_simulated_drive_are_one_drive() -> None:
    """The default drive is the SM951 preset; an override or another seed makes another drive."""
    ids = {spec: drive_id(parse_target(spec).info()) for spec in (
        "sim:", "sim:sm951-nvme-256", "sim:sm951-nvme-256?seed=1", "sim:?heatsink=1", "sim:?seed=2")}
    assert ids["sim:"] == ids["sim:sm951-nvme-256"] == ids["sim:sm951-nvme-256?seed=1"]
    assert len({ids["sim:"], ids["sim:?heatsink=1"], ids["sim:?seed=2"]}) == 3


def test_a_library_an_older_ssdlab_wrote_groups_simulated_drives_anew(library: Library, tmp_path: Path) -> None:
    """Schema 1 named a simulated drive by its spec: opening the library gives its runs the ids
    drive_id gives now, so two spellings of the default drive are one drive's runs."""
    library.add(make_bundle(tmp_path / "a", "sim:"))
    library.add(make_bundle(tmp_path / "b", "sim:sm951-nvme-256"))
    with sqlite3.connect(library.path) as db:  # as schema 1 stored them
        for rid, spec in db.execute("SELECT run_id, spec FROM runs").fetchall():
            db.execute("UPDATE runs SET drive_id = ? WHERE run_id = ?", (f"old-{spec}", rid))
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    db.close()
    assert len({run.drive_id for run in library.runs()}) == 1
    assert len(library.drives("sim:")) == 1
    with sqlite3.connect(library.path) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
    db.close()


MIXED_FIRMWARE = "mixed: 8EV10135 (member 1), EXT42B6Q (member 2)"


def test_a_mixed_arrays_firmware_is_every_members(library: Library, tmp_path: Path) -> None:
    """The library kept a mixed RAID-0's first member's firmware as the array's (the export's
    firmware column). It keeps every member's, as the report says it; a library an older ssdlab
    wrote (schema 2, the first member's in the row and in the stored target) gets it when opened,
    and the drive id a new run of the array gets, so old and new runs stay one drive's."""
    bundle = make_bundle(tmp_path / "a", "sim:raid0(intel750-400,840evo-250)?capacity_gib=8")
    library.add(bundle)
    assert {row["firmware"] for row in library.export_rows()} == {MIXED_FIRMWARE}
    with sqlite3.connect(library.path) as db:  # as schema 2 stored it
        (stored,) = db.execute("SELECT target_json FROM runs").fetchone()
        old = json.loads(stored) | {"firmware": "8EV10135", "transport": "sim-sata"}
        db.execute("UPDATE runs SET firmware = '8EV10135', drive_id = 'old', target_json = ?", (json.dumps(old),))
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    db.close()
    assert [run.drive_id for run in library.runs()] == [drive_id(Bundle(bundle).load_run().target)]
    assert {row["firmware"] for row in library.export_rows()} == {MIXED_FIRMWARE}


def test_a_library_written_before_labels_stopped_repeating_a_size_gets_the_new_label(
        library: Library, tmp_path: Path) -> None:
    """A label repeated a size its model states ('Samsung SSD 950 PRO 512GB 512 GB'); rows an older
    ssdlab wrote (schema 2) keep no such label once the library is opened."""
    bundle = make_bundle(tmp_path / "a", "sim:950pro-512")
    library.add(bundle)
    with sqlite3.connect(library.path) as db:
        db.execute("UPDATE runs SET label = 'Samsung SSD 950 PRO 512GB 512 GB'")
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    db.close()
    assert [run.label for run in library.runs()] == ["Samsung SSD 950 PRO 512GB"]


OLD_LIBRARIES = Path(__file__).parent / "fixtures" / "library"  # as ssdlab wrote them (make_old_library.py)
WHOLE, CUT = "Samsung SSD 950 PRO 512GB", "Samsung SSD 950 PRO 512GB 499 GB"  # 950pro-512, cut to 465 GiB


@pytest.mark.parametrize("schema", [1, 2, 3, 4])
def test_a_library_an_older_ssdlab_wrote_labels_its_runs_by_todays_rule(tmp_path: Path, schema: int,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: runs added under schema 3 before the IDEMA label rule kept the label they were added
    with ('Samsung SSD 950 PRO 512GB' for the drive cut to 499 GB): only a schema change made the
    library recompute it. A run's label is made from its model and capacity when it is read, so
    libraries of every schema (files as the ssdlab of each wrote them) list, rank and export
    today's labels, and a later change of the rule reaches them with no migration."""
    path = tmp_path / "library.sqlite"
    with closing(sqlite3.connect(path)) as db:
        db.executescript((OLD_LIBRARIES / f"schema{schema}.sql").read_text(encoding="utf-8"))
    library = Library(path)
    runs = library.runs()
    assert {run.spec: run.label for run in runs} == {"sim:950pro-512": WHOLE, "sim:950pro-512?capacity_gib=465": CUT}
    assert {run.state() for run in runs} == {"missing"}  # its bundles are gone: the rows are as written
    rows = library.export_rows()
    assert {row["drive"] for row in rows} == {WHOLE, CUT}
    ranked = library.comparable("fake", rows[0]["method"], rows[0]["method_key"])
    # Schema 1's runs predate the simulator's recorded model revision: two of them may come from two
    # models, so only the newest ranks (effective.same_revision); the others rank together.
    assert sorted(test.label for test in ranked) == ([CUT] if schema == 1 else [WHOLE, CUT])
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
    monkeypatch.setattr("ssdlab.library.label_for", lambda model, spec, capacity_bytes: f"{spec} by a new rule")
    assert {run.label for run in library.runs()} == {f"{run.spec} by a new rule" for run in runs}


def test_an_update_of_any_members_firmware_makes_another_drive() -> None:
    """An md array's drive id took its first member's firmware only: updating the second
    member's left the runs before and after one drive's."""
    from ssdlab.targets.base import MEMBER_FACTS, TargetInfo

    def md_array(second_firmware: str) -> TargetInfo:
        members = [{"firmware": "2B0QBXX7", "transport": "nvme"}, {"firmware": second_firmware, "transport": "sata"}]
        return TargetInfo(spec="raid0:/dev/nvme0n1,/dev/sda", kind="block", model="md RAID-0 1x A + 1x B",
                          serial="S1,S2", firmware="2B0QBXX7", capacity_bytes=10**12, extra={MEMBER_FACTS: members})

    assert drive_id(md_array("EMT02B6Q")) != drive_id(md_array("EMT03B6Q"))
    assert drive_id(md_array("EMT02B6Q")) == drive_id(md_array("EMT02B6Q"))


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """Make a folder and its files unwritable for this process: a read-only bind mount for
    root (file modes do not stop root), file modes for anyone else."""
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in (folder, *folder.iterdir())}
        for p in modes:
            p.chmod(0o555 if p.is_dir() else 0o444)
        try:
            yield
        finally:
            for p, mode in modes.items():
                p.chmod(mode)
        return
    mounted = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {mounted.stderr.decode().strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=True, capture_output=True)
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_a_read_only_library_is_read_but_not_changed(library: Library, cli: CliRun, tmp_path: Path) -> None:
    """A library on a read-only share, or another user's file, lists, queries and ranks; an
    older schema reads as this one without being rewritten; a change is refused in one line;
    reading a library that does not exist creates nothing."""
    library.add(make_bundle(tmp_path / "a", "sim:"))
    library.add(make_bundle(tmp_path / "b", "sim:sm951-nvme-256"))
    with sqlite3.connect(library.path) as db:  # schema 1, as an older ssdlab left it
        db.execute("UPDATE runs SET drive_id = 'old-' || spec")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    db.close()
    before = library.path.read_bytes()
    lib = str(library.path)
    with read_only(library.path.parent):
        assert len(library.runs()) == 2 and len(library.drives("sim:")) == 1
        assert library.export_rows()
        listed = cli("library", "list", "--library", lib)
        assert listed.code == 0 and "2 runs in" in listed.stdout
        refused = cli("library", "add", str(tmp_path / "a"), "--library", lib)
        assert refused.code != 0 and refused.stderr.count("\n") == 1
        assert "is read-only here" in refused.stderr and "--library" in refused.stderr
        with pytest.raises(UsageError, match="read-only"):
            library.remove_missing()
        missing = Library(library.path.parent / "none" / "library.sqlite")  # read: empty, not created
        assert missing.runs() == [] and not missing.path.parent.exists()
    assert library.path.read_bytes() == before


def test_a_library_another_process_is_changing_is_waited_for(library: Library, tmp_path: Path) -> None:
    """QA: a `library list` beside a run adding itself (or two runs ending together): one of them
    was refused at once, "database is locked", and a finished run was left out of the library."""
    library.add(make_bundle(tmp_path / "a", "sim:"))
    other = sqlite3.connect(library.path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process in the middle of its change
    done = threading.Timer(0.5, other.execute, ("COMMIT",))
    done.start()
    try:
        assert len(library.runs()) == 1
        assert library.add(make_bundle(tmp_path / "b", "sim:sm951-nvme-256")).outcome == "added"
    finally:
        done.join()
        other.close()
    assert len(library.runs()) == 2


def test_a_run_removed_by_another_process_as_it_was_added_is_a_one_line_error(
        library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: another process removed the run between the add's change and its reading the run
    back: the add ended in a bare StopIteration ("internal error")."""
    bundle = make_bundle(tmp_path / "a", "sim:")
    outcome = library_module._outcome

    def removed_then(*args: Any) -> Any:  # the other process, between the add's change and its read
        with closing(sqlite3.connect(library.path)) as other, other:
            other.execute("PRAGMA foreign_keys = ON")  # its tests go with it, as `library remove` takes them
            other.execute("DELETE FROM runs")
        return outcome(*args)

    monkeypatch.setattr(library_module, "_outcome", removed_then)
    with pytest.raises(UsageError, match=r"not in the results library .*`ssdlab library list`"):
        library.add(bundle)
    monkeypatch.setattr(library_module, "_outcome", outcome)
    assert library.add(bundle).outcome == "added" and len(library.runs()) == 1


def test_a_run_is_read_by_its_id_alone(library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Library.run (each add reads its run back) read every run of the library to find one; it
    reads the one, as runs() shows it: its tests counted, a flagged test with its advice."""
    plain = library.add(make_bundle(tmp_path / "a", "fake:?capacity=2g")).run
    short = library.add(flagged_bundle(tmp_path / "b", "fake:?capacity=4g", STANDARD_QUICK, SLOW_SEQ_READ,
                                       "2024-02-01T00:00:00Z")).run
    listed = {run.run_id: run for run in library.runs()}
    assert listed == {plain.run_id: plain, short.run_id: short}
    assert (plain.tests, plain.flagged, short.tests, short.unreliable) == (1, (), 1, (STANDARD_QUICK.name,))
    monkeypatch.setattr(Library, "runs", lambda self: pytest.fail("read every run to find one"))
    assert library.run(short.run_id) == short and library.run(plain.run_id) == plain
    with pytest.raises(UsageError, match=r"run 0123 is not in the results library"):
        library.run("0123")


def test_runs_added_under_other_effective_rules_are_read_again(library: Library, tmp_path: Path) -> None:
    """A library written before effective.RULES_VERSION (no rules row) or under another version
    re-reads its runs from their bundles once, so their keys are today's and they rank beside new
    runs; a run whose bundle is gone keeps its row; a new library starts at this version."""
    from ssdlab.effective import RULES_VERSION

    Library(tmp_path / "new.sqlite").remove_missing()  # a change creates the library
    with sqlite3.connect(tmp_path / "new.sqlite") as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'effective_rules'").fetchone() == (str(RULES_VERSION),)
    db.close()
    kept = make_bundle(tmp_path / "kept", "fake:?capacity=2g")
    gone = make_bundle(tmp_path / "gone", "fake:?capacity=4g")
    library.add(kept)
    library.add(gone)
    shutil.rmtree(gone)
    with sqlite3.connect(library.path) as db:  # as an ssdlab of the first rules left it
        db.execute("UPDATE tests SET method_key = 'old-' || method_key")
        db.execute("UPDATE runs SET added_utc = '2026-01-01T00:00:00Z'")
        db.execute("DELETE FROM meta WHERE key = 'effective_rules'")
    db.close()
    assert len(library.runs()) == 2
    with sqlite3.connect(library.path) as db:
        keys = dict(db.execute("SELECT r.bundle, t.method_key FROM tests t JOIN runs r USING (run_id)").fetchall())
        added = {a for (a,) in db.execute("SELECT added_utc FROM runs")}
        rules = db.execute("SELECT value FROM meta WHERE key = 'effective_rules'").fetchone()
    db.close()
    assert not keys[str(kept.resolve())].startswith("old-") and keys[str(gone.resolve())].startswith("old-")
    assert added == {"2026-01-01T00:00:00Z"} and rules == (str(RULES_VERSION),)


@pytest.mark.parametrize("where", ["a-dir", "a-file/x.csv", "a-fifo"])
def test_export_to_a_path_that_cannot_be_a_file_is_one_line_before_reading(cli: CliRun, tmp_path: Path,
                                                                           where: str) -> None:
    """An export into a directory or below a file said "Is a directory: …; check the path, its
    permissions and free space"; one into a FIFO blocked for ever. Now the words of every writer."""
    (tmp_path / "a-dir").mkdir()
    (tmp_path / "a-file").write_text("x")
    os.mkfifo(tmp_path / "a-fifo")
    for fmt in (["--format", "csv"], []):  # without --format: the path's fault, not its missing suffix (QA)
        result = cli("library", "export", *fmt, str(tmp_path / where), "--library", str(tmp_path / "l.db"))
        assert result.code == 2 and result.stderr.count("\n") == 1, result.stderr
        assert any(words in result.stderr for words in ("is a directory", "is a file, not", "is a FIFO (named pipe)"))


def test_export_makes_missing_folders(cli: CliRun, tmp_path: Path) -> None:
    """QA: report, compare and trace make the folders of their output; export said "No such file"."""
    for name in ("new1/e.csv", "new2/deeper/e.parquet"):
        done = cli("library", "export", str(tmp_path / name), "--library", str(tmp_path / "l.db"))
        assert done.code == 0 and (tmp_path / name).is_file(), done.stderr


def test_run_and_plan_take_the_library_option_as_the_others_do(cli: Callable[..., Any], tmp_path: Path) -> None:
    """QA: docs/library.md says every command takes --library PATH; run and plan refused it
    ("No such option"), so a run could only go to another library through $SSDLAB_LIBRARY."""
    chosen, default = tmp_path / "lab.sqlite", Library()
    before = len(default.runs()) if default.path.exists() else 0
    quick = ("--test", "quick", "-p", "runs=1", "-p", "runtime_s=0.5", "-p", "size_bytes=16m")
    ran = cli("run", *quick, "-t", "fake:", "-o", str(tmp_path / "b"), "--library", str(chosen))
    assert ran.code == 0, ran.stderr
    assert f"({chosen.resolve()})" in ran.stdout
    assert [r.bundle for r in Library(chosen).runs()] == [(tmp_path / "b").resolve()]
    assert (len(default.runs()) if default.path.exists() else 0) == before
    assert cli("plan", *quick, "-t", "fake:", "--library", str(chosen)).code == 0


def test_every_command_that_takes_a_run_id_takes_it_by_one_rule(cli: CliRun, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Audit: `library remove 8e` removed run 8ea972f487c2 while `report 5367` was refused: a run id
    is 8 or more of its hex digits (docs/library.md), for the command that forgets runs too."""
    monkeypatch.chdir(tmp_path)
    lib = str(tmp_path / "library.sqlite")
    cli("library", "add", str(make_bundle(tmp_path / "a", "fake:?capacity=2g")), "--library", lib)
    (rid,) = [r.run_id for r in Library(Path(lib)).runs()]
    for short in (rid[:2], rid[:7], rid[:2].upper()):
        removed = cli("library", "remove", short, "--library", lib)
        assert removed.code == 2 and removed.stdout == "" and "nothing was removed" in removed.stderr
        assert f"no run in the library matches {short!r} (a run id is 8 or more of its hex digits)" in removed.stderr
        assert cli("report", short, "--library", lib).code == 2
        assert cli("compare", short, "--library", lib).code == 2
    assert len(Library(Path(lib)).runs()) == 1
    shown = rid[:8].upper()  # any case, as the compare query always took it
    assert cli("report", shown, "-o", str(tmp_path / "a.html"), "--library", lib).code == 0
    other = make_bundle(tmp_path / "b", "fake:?capacity=4g")
    assert cli("compare", shown, str(other), "--library", lib).code == 0
    assert cli("library", "remove", shown, "--library", lib).code == 0 and not Library(Path(lib)).runs()


def test_every_command_that_takes_a_run_id_says_what_one_is_when_given_too_few_digits(
        cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: `compare 0b02 …` said only that it matched no drive, while `library remove 0b` said a run
    id is 8 or more of its hex digits: every command that takes a run id says it, in the same words."""
    monkeypatch.chdir(tmp_path)
    lib = str(tmp_path / "library.sqlite")
    cli("library", "add", str(make_bundle(tmp_path / "a", "fake:?capacity=2g")), "--library", lib)
    other = str(make_bundle(tmp_path / "b", "fake:?capacity=4g"))
    hint = "(a run id is 8 or more of its hex digits)"
    for args in (("compare", "0b02", other), ("compare", other, "0b02"), ("library", "remove", "0b02")):
        refused = cli(*args, "--library", lib)
        assert refused.code == 2 and refused.stderr.count("\n") == 1, args
        assert f"'0b02' {hint}" in refused.stderr or f"{Path(lib).resolve()} {hint}; " in refused.stderr, args
    report = cli("report", "0b02", "--library", lib)  # the path it might be is named, with what a run id is
    assert report.code == 2 and "a run id from `ssdlab library list` (8 or more of its hex digits)" in report.stderr
    nowhere = cli("compare", "0b02", other, "--library", str(tmp_path / "none.sqlite"))  # no library yet
    assert nowhere.code == 2 and f"fill it) {hint}; " in nowhere.stderr
    plain = cli("compare", "nosuchmodel", other, "--library", lib)  # no hint for what is no run id
    assert plain.code == 2 and "hex digits" not in plain.stderr


def test_a_run_id_given_where_a_bundle_is_taken_names_the_bundle(cli: CliRun, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Audit: `run --resume 02ea55e3` and `library add 02ea55e3` said "give a directory made by `ssdlab
    run`, or a run id from `ssdlab library list`": neither takes a run id. Each says so, and names
    the bundle of the run whose id it was given, to paste."""
    monkeypatch.chdir(tmp_path)
    lib = Library()  # the test's own, which `run` reads (tests/conftest.py)
    lib.add(make_bundle(tmp_path / "a", "fake:?capacity=2g"))
    rid = lib.runs()[0].run_id[:8]
    for args in (("library", "add", rid), ("library", "add", rid, "--library", str(lib.path)),
                 ("run", "--resume", rid)):
        given = cli(*args)
        assert given.code == 2 and given.stderr.count("\n") == 1, args
        assert "run id from" not in given.stderr, args
        assert given.stderr.rstrip().endswith(f"not a run id: run {lib.runs()[0].run_id}'s bundle is "
                                              f"{(tmp_path / 'a').resolve()}"), given.stderr
    # A run id is looked up in the library the command names (--library), not only the user's.
    elsewhere = Library(tmp_path / "other.sqlite")
    elsewhere.add(make_bundle(tmp_path / "b", "fake:?capacity=4g"))
    other = next(r for r in elsewhere.runs() if r.run_id[:8] != rid)
    named = cli("run", "--resume", other.run_id[:8], "--library", str(elsewhere.path))
    assert named.stderr.rstrip().endswith(f"bundle is {(tmp_path / 'b').resolve()}"), named.stderr
    unknown = cli("run", "--resume", "deadbeef")
    assert unknown.code == 2 and unknown.stderr.rstrip().endswith(
        "give a directory made by `ssdlab run` (a run id is not taken here)"), unknown.stderr
    typo = cli("library", "add", "resultz")
    assert typo.code == 2 and typo.stderr.rstrip().endswith("resultz does not exist; give a directory made by "
                                                           "`ssdlab run`"), typo.stderr
    report = cli("report", "5367")  # report takes run ids: its message offers one
    assert report.code == 2 and "or a run id from `ssdlab library list` (8 or more of its hex digits)" in report.stderr


# A drive name and a bundle folder as long as real ones (an md array of two SM951s, a suite's
# descriptive folder), and the words that must stay whole on a line whatever the width.
LONG_RUNS = (("a-long-bundle-folder-name-for-the-raid-run", "md RAID-0 2x SAMSUNG MZVPV512HDGL-00000",
              "raid-scaling"), ("q", "SAMSUNG MZVPV256HDGL-00000", "quick"))


def long_library(tmp_path: Path) -> tuple[Path, list[str]]:
    """A library of runs with long names, and their run ids as `library list` shows them."""
    lib, ids = tmp_path / "library.sqlite", []
    for folder, model, suite in LONG_RUNS:
        bundle = Bundle(make_bundle(tmp_path / folder, "fake:?capacity=2g"))
        record = bundle.load_run()
        bundle.write_run(record.model_copy(update={
            "suite": suite, "target": record.target.model_copy(update={"model": model})}))
        ids.append(Library(lib).add(bundle.path).run.run_id[:8])
    return lib, ids


def table_of(lines: list[str]) -> list[str]:
    """The table's lines of `library list` (its title to its last row; the count and paths follow)."""
    return lines[:next(n for n, line in enumerate(lines) if " in " in line and "runs" in line)]


def listed_rows(lines: list[str], ids: list[str]) -> dict[str, list[str]]:
    """Each run's lines of the table: its first (which starts with its id) and those below it."""
    rows: dict[str, list[str]] = {}
    current = None
    for line in table_of(lines):
        current = next((i for i in ids if line.startswith(i)), current)
        if current is not None:
            rows.setdefault(current, []).append(line)
    return rows


def piped_list(lib: Path) -> list[str]:
    """`ssdlab library list` piped (no terminal, no COLUMNS): as `| less` or a file gets it."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    done = subprocess.run([str(SSDLAB), "library", "list", "--library", str(lib)], capture_output=True, text=True,
                          env=env, check=True)
    return done.stdout.splitlines()


@pytest.mark.parametrize("how", ["terminal", "piped"])
def test_library_list_is_readable_at_80_columns(tmp_path: Path, how: str) -> None:
    """QA: at 80 columns the table folded the drive's name a few letters a line ("MZVPV51" / "2HDGL-0")
    and the bundle's folder the same. Ids, suites, dates and states stay whole on the run's first line;
    the drive's name wraps at its spaces; a long folder name folds, whole (`library remove` takes it;
    it was cut with an ellipsis)."""
    lib, ids = long_library(tmp_path)
    lines = run_in_terminal("library", "list", "--library", str(lib), columns=80).lines if how == "terminal" \
        else piped_list(lib)
    assert all(len(line.rstrip()) <= 80 for line in table_of(lines)), "\n".join(lines)
    rows = listed_rows(lines, ids)
    assert sorted(rows) == sorted(ids), "\n".join(lines)
    raid, quick_run = rows[ids[0]], rows[ids[1]]
    for row, suite in ((raid, "raid-scaling"), (quick_run, "quick")):
        assert f" {suite} " in row[0] and "complete" in row[0] and " 1 " in row[0], "\n".join(lines)
    assert any("MZVPV512HDGL-00000" in line for line in raid) and any("md RAID-0" in line for line in raid)
    assert " a- " in raid[0] and "\N{HORIZONTAL ELLIPSIS}" not in "".join(lines), "\n".join(lines)
    bundle_at = next(line for line in lines if " bundle " in line).index("bundle")  # the column's cells start here
    folder = "".join(line[bundle_at:].split()[0] for line in raid if len(line) > bundle_at and line[bundle_at] != " ")
    assert folder == LONG_RUNS[0][0], "\n".join(lines)


@pytest.mark.parametrize("how", ["terminal", "piped"])
def test_library_list_at_80_columns_breaks_a_folder_name_only_after_a_hyphen(tmp_path: Path, how: str) -> None:
    """QA: piped at 80 columns a default bundle name broke mid-word ("r-sim-defau" / "lt"): a folder
    name breaks after its hyphens, as a model number does, each part whole (none here is wider than
    the column)."""
    folder = "20261127-210441-thermal-sim-sm951-ahci-512-heatsink-1-capacity-g"
    lib = tmp_path / "library.sqlite"
    bundle = Bundle(make_bundle(tmp_path / folder, "fake:?capacity=2g"))
    bundle.write_run(bundle.load_run().model_copy(update={"target": bundle.load_run().target.model_copy(
        update={"model": "SAMSUNG MZHPV512HDGL-00000"})}))
    Library(lib).add(bundle.path)
    lines = run_in_terminal("library", "list", "--library", str(lib), columns=80).lines if how == "terminal" \
        else piped_list(lib)
    table = lines[:next(n for n, line in enumerate(lines) if line.startswith("1 run in"))]
    bundle_at = next(line for line in table if " bundle " in line).index("bundle")
    pieces = [line[bundle_at:].split()[0] for line in table[table.index(next(line for line in table
                                                                           if "complete" in line)):]
              if len(line) > bundle_at and line[bundle_at] != " "]
    assert "".join(pieces) == folder and len(pieces) > 1, "\n".join(lines)
    assert all(piece.endswith("-") for piece in pieces[:-1]), "\n".join(lines)


def test_library_list_uses_a_wide_terminal(tmp_path: Path) -> None:
    """At 160 columns each run is one line, every name in full."""
    lib, ids = long_library(tmp_path)
    lines = run_in_terminal("library", "list", "--library", str(lib), columns=160).lines
    rows = listed_rows(lines, ids)
    assert all(len(row) == 1 for row in rows.values()), "\n".join(lines)
    assert "md RAID-0 2x SAMSUNG MZVPV512HDGL-00000 2.15 GB (fake)" in rows[ids[0]][0]
    assert "a-long-bundle-folder-name-for-the-raid-run" in rows[ids[0]][0]
    assert all(len(line.rstrip()) <= 160 for line in table_of(lines))


def test_library_list_on_a_screen_too_narrow_for_it_never_cuts_a_run_id(tmp_path: Path) -> None:
    """QA: at 40 columns the table was 66 wide (the terminal wrapped each line in two). Each run is
    a block of lines now, every id, suite, state and folder name whole, within the screen."""
    lib, ids = long_library(tmp_path)
    shown = run_in_terminal("library", "list", "--library", str(lib), columns=40)
    assert shown.code == 0 and all(i in shown.screen for i in ids), shown.screen
    lines = table_of(shown.lines)
    assert all(len(line.rstrip()) <= 40 for line in lines), shown.screen
    cells = [cell.strip() for line in lines for cell in line.split("│")]
    for shown_id, (folder, _, suite) in zip(ids, LONG_RUNS, strict=True):
        assert shown_id in cells and suite in cells, shown.screen
        assert folder in "".join(cells), shown.screen  # a long folder name folds, whole
    assert cells.count("complete") == 2 and "…" not in shown.screen


# 50 IOPS of 1 MiB sequential reads: quick's SEQ1M Q8T1 read window (2 s at QD8) holds 12.5 turns
# of its queue, too few to trust (runner.short_window_notes notes it in the bundle).
SLOW_SEQ_READ = FakeProfile(seq_read_mb_s=50 * 2**20 / 1e6)
UNRELIABLE_MARK = "\N{DAGGER}"  # bundle.UNRELIABLE_MARK, spelt out: what a reader sees
STANDARD_QUICK = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 2, "profile": "standard"})
# 20 I/Os per queue slot in each window of a 2 s QD sweep: every one too short.
SLOW_SWEEP = FakeProfile(read_lat_us=100_000.0, write_lat_us=100_000.0)
SWEEP = SuiteEntry(name="qd-sweep", test="qd-sweep", params={"runtime_s": 2, "queue_depths": [1, 4],
                                                              "span_bytes": "64m"})


def flagged_bundle(path: Path, spec: str, entry: SuiteEntry, profile: FakeProfile | None, created: str) -> Path:
    """A run of `entry`, its windows too short to trust with `profile`, started at `created`."""
    run_entries(path, parse_target(spec), FakeEngine(profile=profile or FakeProfile()), [entry], suite="quick")
    bundle = Bundle(path)
    bundle.write_run(bundle.load_run().model_copy(update={"created_utc": created}))
    return path


def short_library(library: Library, tmp_path: Path, entry: SuiteEntry, slow: FakeProfile) -> dict[str, Path]:
    """Drive a: an older run fine, a newer one flagged; drive b: one flagged run; drive c: one fine."""
    paths = {
        "a-old": flagged_bundle(tmp_path / "a-old", "fake:?capacity=2g", entry, None, "2024-01-01T00:00:00Z"),
        "a-new": flagged_bundle(tmp_path / "a-new", "fake:?capacity=2g", entry, slow, "2024-02-01T00:00:00Z"),
        "b": flagged_bundle(tmp_path / "b", "fake:?capacity=4g", entry, slow, "2024-03-01T00:00:00Z"),
        "c": flagged_bundle(tmp_path / "c", "fake:?capacity=8g", entry, None, "2024-04-01T00:00:00Z"),
    }
    for path in paths.values():
        library.add(path)
    return paths


@pytest.mark.parametrize(("entry", "slow"), [(STANDARD_QUICK, SLOW_SEQ_READ), (SWEEP, SLOW_SWEEP)],
                         ids=["quick", "qd-sweep"])
def test_a_run_with_windows_too_short_is_kept_and_marked_but_not_ranked(
        library: Library, tmp_path: Path, cli: CliRun, entry: SuiteEntry, slow: FakeProfile) -> None:
    """Nothing measured is lost (the run and its figures stay in the library and its export);
    `library list` marks it and says why; rankings leave it out, a drive ranking with its newest
    run whose figures are to be trusted, and say how many were left out and why."""
    from ssdlab.report.library_rankings import rankings_section

    paths = short_library(library, tmp_path, entry, slow)
    flagged = {run.bundle.name: run.unreliable for run in library.runs()}
    assert flagged == {"a-old": (), "a-new": (entry.name,), "b": (entry.name,), "c": ()}
    exported = {row["bundle"] for row in library.export_rows()}
    assert exported == {str(p.resolve()) for p in paths.values()}  # every figure of every run kept
    key = key_of(paths["c"], entry.name)
    ranking = library.ranking("fake", entry.test, key)
    assert sorted(t.bundle.name for t in ranking.ranked) == ["a-old", "c"]
    assert sorted(t.bundle.name for t in ranking.unreliable) == ["a-new", "b"]
    assert [t.bundle.name for t in library.comparable("fake", entry.test, key)] == [
        t.bundle.name for t in ranking.ranked]

    run_c = Bundle(paths["c"]).load_run()
    section = rankings_section(run_c, library, paths["c"])
    assert section is not None and section.figures
    assert "1 other drive in the library ran this test alike" in section.figures[0].caption
    (note,) = section.notes
    assert note.endswith(": 2 runs of ssdlab fake drive 4.29 GB, ssdlab fake drive 2.15 GB left out of the "
                         "ranking: their measured windows were too short to trust (`ssdlab library list` marks them "
                         f"{UNRELIABLE_MARK}); a drive ranks with an older run of the test where it has one"), note
    own = rankings_section(Bundle(paths["b"]).load_run(), library, paths["b"])  # the flagged run's own report
    assert own is not None and not own.figures and not own.tables
    (why,) = own.notes
    assert ": not ranked: this run's measured windows were too short to trust (the test's notes say which); " \
           "raise runtime_s to at least " in why and why.endswith(" s to rank it"), why

    listed = cli("library", "list", "--library", str(library.path))
    rows = {line.split()[0]: line for line in listed.stdout.splitlines() if "fake drive" in line}
    ids = {run.bundle.name: run.run_id for run in library.runs()}
    assert rows[ids["b"][:8]].rstrip().endswith(f"complete{UNRELIABLE_MARK}")
    assert rows[ids["c"][:8]].rstrip().endswith("complete")
    # Each flagged test with what its windows' advice says to raise (QA: the line gave none).
    advice = Bundle(paths["b"]).load_run().test(entry.name).too_short
    assert advice is not None and advice.advice.startswith("raise runtime_s to at least ")
    assert (f"{UNRELIABLE_MARK} run {ids['b']}: figures unreliable in {entry.name} ({advice.advice}): measured "
            "windows too short to trust; kept, but left out of rankings") in listed.stdout
    assert listed.stdout.count(f"{UNRELIABLE_MARK} run ") == 2


def test_the_rankings_name_a_run_left_out_as_they_name_its_drive(library: Library, tmp_path: Path) -> None:
    """QA: the note read "1 run of ssdlab fake drive 2.15 GB … their measured windows": the run
    left out was of another drive with this drive's label (another spec), and one run is "its".
    Drives that share a label are told apart by a short id, in the note and in the table alike."""
    from ssdlab.report.library_rankings import rankings_section

    mine = flagged_bundle(tmp_path / "mine", "fake:?capacity=2g", STANDARD_QUICK, None, "2024-01-01T00:00:00Z")
    twin = flagged_bundle(tmp_path / "twin", "fake:?capacity=2g&nvme=0", STANDARD_QUICK, SLOW_SEQ_READ,
                          "2024-02-01T00:00:00Z")
    other = flagged_bundle(tmp_path / "other", "fake:?capacity=8g", STANDARD_QUICK, None, "2024-03-01T00:00:00Z")
    for path in (mine, twin, other):
        library.add(path)
    run = Bundle(mine).load_run()
    twin_target = Bundle(twin).load_run().target
    assert twin_target.label == run.target.label and drive_id(twin_target) != drive_id(run.target)
    section = rankings_section(run, library, mine)
    assert section is not None
    key, note = section.notes  # the key to the two drives' short ids (report/drive_settings.py)
    label = run.target.label
    assert f"{label} [{drive_id(twin_target)[:6]}] is fake:?capacity=2g&nvme=0 (nvme=0)" in key, key
    assert note.endswith(f": 1 run of {label} [{drive_id(twin_target)[:6]}] left out of the ranking: its measured "
                         "windows were too short to trust (`ssdlab library list` marks it "
                         f"{UNRELIABLE_MARK}); a drive ranks with an older run of the test where it has one"), note
    (table,) = section.tables
    assert [row[0] for row in table.rows] == [f"{label} [{drive_id(run.target)[:6]}]", "ssdlab fake drive 8.59 GB"]


def test_a_library_written_before_it_kept_notes_reads_them_from_the_bundles(library: Library,
                                                                             tmp_path: Path) -> None:
    """Schema 3 kept no test notes: opening it reads them from each run's bundle, so a run whose
    windows were too short is marked and left out of rankings; one whose bundle is gone keeps its
    row and figures, and ranks as before (nothing says otherwise). A read-only copy reads alike."""
    paths = short_library(library, tmp_path, STANDARD_QUICK, SLOW_SEQ_READ)
    shutil.rmtree(paths["b"])
    with sqlite3.connect(library.path) as db:  # as schema 3 stored it: no notes column
        db.execute("ALTER TABLE tests DROP COLUMN notes_json")
        db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    db.close()
    old = library.path.read_bytes()
    copy = tmp_path / "ro" / "library.sqlite"
    copy.parent.mkdir()
    copy.write_bytes(old)
    with read_only(copy.parent):
        assert {run.bundle.name: run.unreliable for run in Library(copy).runs()}["a-new"] == ("quick",)
    assert copy.read_bytes() == old
    assert {run.bundle.name: run.unreliable for run in library.runs()} == {
        "a-old": (), "a-new": ("quick",), "b": (), "c": ()}
    ranking = library.ranking("fake", "quick", key_of(paths["c"]))
    assert sorted(t.bundle.name for t in ranking.ranked) == ["a-old", "b", "c"]
    assert [t.bundle.name for t in ranking.unreliable] == ["a-new"]
    assert len(library.export_rows()) == 4 * 35
    with sqlite3.connect(library.path) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
    db.close()


def test_run_says_a_run_with_windows_too_short_is_left_out_of_rankings(cli: CliRun, tmp_path: Path) -> None:
    """The task's case: quick on sim: with windows far shorter than a period; a run whose windows
    were long enough says nothing of the kind."""
    lib = Library()  # the test's own, from $SSDLAB_LIBRARY (tests/conftest.py)
    short = cli("run", "-t", "sim:sm951-nvme-256?capacity_gib=16", "--test", "quick", "-p", "runs=1",
                "-p", "runtime_s=0.005", "-p", "size_bytes=64m", "--out", str(tmp_path / "short"), "--no-report")
    assert short.code == 0
    assert (f"Results library: added ({lib.path}); quick left out of rankings: measured windows too short to trust"
            ) in short.stdout
    fine = cli("run", "-t", "fake:?capacity=2g", "--test", "quick", "-p", "runs=1", "-p", "runtime_s=1",
               "--out", str(tmp_path / "fine"), "--no-report")
    assert fine.code == 0 and f"Results library: added ({lib.path})\n" in fine.stdout
    assert {r.bundle.name: r.unreliable for r in lib.runs()} == {"short": ("quick",), "fine": ()}


def test_compare_draws_a_drive_from_its_newest_run_to_be_trusted(library: Library, tmp_path: Path,
                                                                   cli: CliRun) -> None:
    """As rankings do: drive a's quick comes from its older run, not the newer one whose windows were
    too short (passed over, and said in one line, on the terminal and the page); drive b has only a
    flagged run, which is compared, its figures of the short window marked."""
    from ssdlab.compare import compare_drives, make_drives
    from ssdlab.report.compare_page import comparison_tables

    paths = short_library(library, tmp_path, STANDARD_QUICK, SLOW_SEQ_READ)
    ids = {run.bundle.name: run.run_id for run in library.runs()}
    c = compare_drives(make_drives(select_drives(["all"], library).groups), "exclude")
    (t,) = c.tests
    assert {Path(str(path)).name for path in t.sources} == {"a-old", "b", "c"}
    from ssdlab.report.compare_page import passed_over_lines
    assert passed_over_lines(c) == [
        f"passed over run {ids['a-new']} of ssdlab fake drive 2.15 GB for quick: its measured windows were too short "
        f"to trust (`ssdlab library list` marks it {UNRELIABLE_MARK}); drawn from its older run {ids['a-old']} "
        "instead"]
    (table,) = comparison_tables(c)
    row = next(r for r in table.rows if r[0] == "SEQ1M Q8T1 read: throughput (MB/s)")
    labels = table.header[1:1 + len(c.drives)]
    values = dict(zip(labels, row[1:], strict=False))
    assert values["ssdlab fake drive 2.15 GB"] == "1,999.6"  # a-old's, not a-new's 52.4
    assert values["ssdlab fake drive 4.29 GB"] == f"52.4{UNRELIABLE_MARK}"  # b's only run, marked

    shown = cli("compare", "all", "--library", str(library.path), "-o", str(tmp_path / "cmp.html"))
    assert shown.code == 0, shown.stderr
    notes = [line for line in shown.stderr.splitlines() if "passed over" in line]
    assert notes == [f"note: {passed_over_lines(c)[0]}"]
    page = (tmp_path / "cmp.html").read_text(encoding="utf-8")
    assert f"Passed over run {ids['a-new']} of ssdlab fake drive 2.15 GB for quick" in page

    # A drive whose runs were all long enough passes nothing over, and says nothing.
    fine = compare_drives(make_drives([[paths["a-old"]], [paths["c"]]]), "refuse")
    assert passed_over_lines(fine) == []


# Drive a's quick, run another way (3 s windows) and to be trusted, then as the others ran it (2 s)
# with windows too short to trust.
LONGER_QUICK = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 3, "profile": "standard"})
A_LABEL, B_LABEL, C_LABEL = "ssdlab fake drive 2.15 GB", "ssdlab fake drive 4.29 GB", "ssdlab fake drive 8.59 GB"


def unlike_then_flagged(library: Library, tmp_path: Path, b_entry: SuiteEntry = STANDARD_QUICK) -> dict[str, str]:
    """Drive a: an older run to be trusted made another way (LONGER_QUICK), a newer one made as the
    others' (STANDARD_QUICK) but flagged; drive b ran `b_entry`, drive c STANDARD_QUICK, both trusted.
    Run ids by bundle name."""
    flagged_bundle(tmp_path / "a-old", "fake:?capacity=2g", LONGER_QUICK, None, "2024-01-01T00:00:00Z")
    flagged_bundle(tmp_path / "a-new", "fake:?capacity=2g", STANDARD_QUICK, SLOW_SEQ_READ, "2024-02-01T00:00:00Z")
    flagged_bundle(tmp_path / "b", "fake:?capacity=4g", b_entry, None, "2024-03-01T00:00:00Z")
    flagged_bundle(tmp_path / "c", "fake:?capacity=8g", STANDARD_QUICK, None, "2024-04-01T00:00:00Z")
    for name in ("a-old", "a-new", "b", "c"):
        library.add(tmp_path / name)
    return {run.bundle.name: run.run_id for run in library.runs()}


def drawn_from(library: Library, *queries: str) -> tuple[Any, dict[str, str]]:
    """compare of `queries` from the library: the comparison, and each drive's quick's bundle name by label."""
    from ssdlab.compare import compare_drives, make_drives

    c = compare_drives(make_drives(select_drives(list(queries), library).groups), "exclude")
    (t,) = c.tests
    return c, {d.label: Path(str(p)).name for d, p in zip(c.drives, t.sources, strict=True) if p is not None}


def test_compare_draws_a_like_flagged_run_over_an_unlike_trusted_one(library: Library, tmp_path: Path,
                                                                     cli: CliRun) -> None:
    """QA: drive a's newer run of quick was run as the others' but its windows were too short; its
    older one, to be trusted, was run another way. Drawing on the older one left a out of quick as
    unlike (with the others) or refused the pair, where the newer one compared, marked: a like figure
    marked says more than none. The line says which run was passed over, why, and what was drawn."""
    from ssdlab.report.compare_page import comparison_tables, passed_over_lines

    ids = unlike_then_flagged(library, tmp_path)
    note = (f"passed over run {ids['a-old']} of {A_LABEL} for quick: it ran the test unlike {B_LABEL}'s run {ids['b']} "
            f"({A_LABEL} vs "
            f"{B_LABEL}: runtime (s): 3 vs 2); drawn from its newer run {ids['a-new']} instead, though its measured "
            f"windows were too short to trust (its figures marked {UNRELIABLE_MARK})")
    c, drawn = drawn_from(library, B_LABEL, A_LABEL, C_LABEL)
    assert drawn == {B_LABEL: "b", A_LABEL: "a-new", C_LABEL: "c"} and not c.tests[0].excluded
    assert passed_over_lines(c) == [note]
    (table,) = comparison_tables(c)
    row = next(r for r in table.rows if r[0] == "SEQ1M Q8T1 read: throughput (MB/s)")
    assert row[1:4] == ("1,999.6", f"52.4{UNRELIABLE_MARK}", "1,999.6")  # a-new's, marked

    # Two drives: the baseline's newer like run too, whichever is the baseline; compared, not refused.
    for queries in ((A_LABEL, B_LABEL), (B_LABEL, A_LABEL)):
        c, drawn = drawn_from(library, *queries)
        assert drawn == {A_LABEL: "a-new", B_LABEL: "b"} and passed_over_lines(c) == [note]

    shown = cli("compare", "2.15 GB", "4.29 GB", "--library", str(library.path))
    assert shown.code == 0, shown.stderr
    assert [line for line in shown.stderr.splitlines() if "passed over" in line] == [f"note: {note}"]


def test_compare_draws_a_like_flagged_run_whichever_run_was_made_first(library: Library, tmp_path: Path) -> None:
    """QA: an alike flagged run was drawn only when newer than the unlike trusted one; made before it,
    the drive was left out (or the pair refused). The rule hangs on how runs ran the test, not on when."""
    flagged_bundle(tmp_path / "a-new", "fake:?capacity=2g", LONGER_QUICK, None, "2024-02-01T00:00:00Z")
    flagged_bundle(tmp_path / "a-old", "fake:?capacity=2g", STANDARD_QUICK, SLOW_SEQ_READ, "2024-01-01T00:00:00Z")
    flagged_bundle(tmp_path / "b", "fake:?capacity=4g", STANDARD_QUICK, None, "2024-03-01T00:00:00Z")
    for name in ("a-old", "a-new", "b"):
        library.add(tmp_path / name)
    for queries in ((A_LABEL, B_LABEL), (B_LABEL, A_LABEL)):
        c, drawn = drawn_from(library, *queries)
        assert drawn == {A_LABEL: "a-old", B_LABEL: "b"} and not c.tests[0].excluded


def test_two_drives_whose_trusted_runs_ran_unlike_are_told_what_to_run_again(library: Library, tmp_path: Path,
                                                                              cli: CliRun) -> None:
    """QA: each drive had a run to be trusted (1 s windows on one, 2 s on the other) and a newer flagged
    run at 0.05 s; both were drawn from the flagged runs, and each note blamed the other's flagged run
    ("1 vs 0.05", "2 vs 0.05") and advised raising runtime_s, which both had done. The notes say how the
    trusted runs differ, and the advice is to run the test on one drive as the other's was run."""
    from ssdlab.report.compare_page import comparison_tables, passed_over_lines

    short = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 0.05, "profile": "standard"})
    for name, spec, runtime_s, created in (("a-1s", "fake:?capacity=2g", 1, "2024-01-01"),
                                           ("b-2s", "fake:?capacity=4g", 2, "2024-02-01")):
        trusted = SuiteEntry(name="quick", test="quick", params={**short.params, "runtime_s": runtime_s})
        flagged_bundle(tmp_path / name, spec, trusted, None, f"{created}T00:00:00Z")
        flagged_bundle(tmp_path / f"{name[0]}-flagged", spec, short, SLOW_SEQ_READ, f"{created}T12:00:00Z")
    for name in ("a-1s", "a-flagged", "b-2s", "b-flagged"):
        library.add(tmp_path / name)
    ids = {run.bundle.name: run.run_id for run in library.runs()}
    again = "; to compare figures to be trusted, run quick again on one of the two drives as the other's run was made"

    def note(drive: str, other: str, mine: str, theirs: str, figures: str) -> str:
        return (f"passed over run {ids[mine]} of {drive} for quick: it ran the test unlike {other}'s run {ids[theirs]} "
                f"({drive} vs {other}: runtime (s): {figures}); drawn from its newer run {ids[mine[0] + '-flagged']} "
                f"instead, though its measured windows were too short to trust (its figures marked {UNRELIABLE_MARK})"
                f"{again}")

    c, drawn = drawn_from(library, A_LABEL, B_LABEL)
    assert drawn == {A_LABEL: "a-flagged", B_LABEL: "b-flagged"} and not c.tests[0].excluded
    assert passed_over_lines(c) == [note(A_LABEL, B_LABEL, "a-1s", "b-2s", "1 vs 2"),
                                    note(B_LABEL, A_LABEL, "b-2s", "a-1s", "2 vs 1")]
    (table,) = comparison_tables(c)
    assert table.caption.endswith(
        f"weigh in it; {A_LABEL}'s run {ids['a-1s']} and {B_LABEL}'s run {ids['b-2s']}, both to be trusted, ran the "
        "test unlike each other: run it again on one of the two drives as the other's run was made"), table.caption
    shown = cli("compare", "2.15 GB", "4.29 GB", "--library", str(library.path))
    assert shown.code == 0 and "1 vs 2" in shown.stderr and "0.05" not in shown.stderr, shown.stderr


def test_the_baseline_keeps_its_run_to_be_trusted_wherever_another_drive_compares(library: Library,
                                                                                  tmp_path: Path) -> None:
    """Every difference is taken from the baseline's figures: it keeps its run to be trusted (2 s) beside
    the one drive that ran the test so, rather than draw its flagged 0.05 s run to keep the two drives
    that only ran it that way (each of whose figures, and every difference, would then be marked)."""
    short = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 0.05, "profile": "standard"})
    made = (("a-2s", "2g", STANDARD_QUICK, None), ("a-flagged", "2g", short, SLOW_SEQ_READ),
            ("b-2s", "4g", STANDARD_QUICK, None), ("c-flagged", "8g", short, SLOW_SEQ_READ),
            ("d-flagged", "16g", short, SLOW_SEQ_READ))
    for day, (name, capacity, entry, profile) in enumerate(made, start=1):
        flagged_bundle(tmp_path / name, f"fake:?capacity={capacity}", entry, profile, f"2024-01-0{day}T00:00:00Z")
        library.add(tmp_path / name)
    c, drawn = drawn_from(library, A_LABEL, B_LABEL, C_LABEL, "17.2 GB")
    assert drawn == {A_LABEL: "a-2s", B_LABEL: "b-2s"}
    assert [c.drives[i].label for i, _ in c.tests[0].excluded] == [C_LABEL, "ssdlab fake drive 17.2 GB"]


def test_baseline_names_a_drive_as_a_drive_argument_does(library: Library, tmp_path: Path, cli: CliRun) -> None:
    """QA: `compare SM951 "950 PRO" 750 --baseline 750` refused ("matches 0 of the compared drives")
    though "750" had picked the Intel drive: --baseline takes what a drive argument takes (a run id
    here, which no label holds), the label's words as before."""
    ids = unlike_then_flagged(library, tmp_path)
    for baseline in (ids["c"], "8.59 GB"):
        shown = cli("compare", "2.15 GB", "4.29 GB", "8.59 GB", "--baseline", baseline, "--library",
                    str(library.path), "-o", str(tmp_path / "cmp.html"))
        assert shown.code == 0, shown.stderr
        page = (tmp_path / "cmp.html").read_text(encoding="utf-8")
        assert page.index(C_LABEL) < page.index(A_LABEL) < page.index(B_LABEL), baseline


def test_compare_refuses_a_run_named_twice_and_an_empty_argument(library: Library, tmp_path: Path) -> None:
    """QA: a drive's model and one of its runs' bundle compared that run with itself (±0.0 %
    everywhere); an empty argument was taken as the current directory."""
    unlike_then_flagged(library, tmp_path)
    with pytest.raises(UsageError, match="both name run"):
        select_drives([A_LABEL, str(tmp_path / "a-new")], library)
    with pytest.raises(UsageError, match="an empty argument names no drive"):
        select_drives(["", B_LABEL], library)


def test_a_refusal_says_which_run_compare_passed_over_and_why(library: Library, tmp_path: Path,
                                                               cli: CliRun) -> None:
    """QA: `compare A B` by drive name passed over A's newer run (windows too short) for an older one
    run another way than B's, then refused the pair as unlike without a word of the run passed over
    (said only when the comparison went ahead): the refusal says it, so the user knows why A's
    figures come from the older run and what to run again."""
    longest = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 4, "profile": "standard"})
    ids = unlike_then_flagged(library, tmp_path, longest)  # b ran it unlike either run of a
    passed = (f"Passed over run {ids['a-new']} of {A_LABEL} for quick: its measured windows were too short to trust "
              f"(`ssdlab library list` marks it {UNRELIABLE_MARK}); drawn from its older run {ids['a-old']} instead")
    with pytest.raises(UsageError) as refused:
        drawn_from(library, A_LABEL, B_LABEL)
    assert str(refused.value).startswith("no test these drives share was run on two of them")
    assert str(refused.value).endswith(f"with the differences flagged. {passed}. The run passed over would compare "
                                       "no better: it too was run unlike the others"), str(refused.value)

    shown = cli("compare", "2.15 GB", "4.29 GB", "--library", str(library.path))
    assert shown.code != 0 and passed in shown.stderr.replace("\n", " "), shown.stderr
    forced = cli("compare", "2.15 GB", "4.29 GB", "--force", "--library", str(library.path))
    assert forced.code == 0 and f"note: {passed[0].lower()}{passed[1:]}" in forced.stderr, forced.stderr


def test_the_export_says_which_figures_are_not_to_be_trusted(library: Library, tmp_path: Path) -> None:
    """A last column, `unreliable`: true for each figure made of a window too short to trust, as the
    report marks it (quick's SEQ1M Q8T1 read alone, not its run count nor the profile), false for
    every other row; the columns before it stay where they were. With the bundle gone, what the
    test's notes name decides; where they name the windows of none of a test's figures, every figure
    of it is marked."""
    import pyarrow.parquet as pq

    from ssdlab.library import EXPORT_COLUMNS

    assert EXPORT_COLUMNS[:22] == ["run_id", "bundle", "drive_id", "drive", "model", "serial", "firmware",
                                   "capacity_bytes", "spec", "engine", "suite", "created_utc", "test", "method",
                                   "method_key", "metric", "label", "unit", "kind", "better", "value", "text"]
    assert EXPORT_COLUMNS[22:] == ["unreliable", "lower_bound", "bound_text"]  # columns added since go after it
    paths = short_library(library, tmp_path, STANDARD_QUICK, SLOW_SEQ_READ)
    shown = {"seq1m_q8t1_read_mb_s", "seq1m_q8t1_read_iops", "seq1m_q8t1_read_lat_us"}

    def marked(rows: Sequence[dict[str, Any]]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for row in rows:
            if row["unreliable"] in (True, "true"):
                out.setdefault(Path(row["bundle"]).name, set()).add(row["metric"])
            else:
                assert row["unreliable"] in (False, "false"), row
        return out

    assert marked(library.export_rows()) == {"a-new": shown, "b": shown}
    assert library.export(tmp_path / "out.csv", "csv") == 4 * 35
    with (tmp_path / "out.csv").open(encoding="utf-8") as handle:
        reader = csv.reader(handle)
        assert next(reader) == EXPORT_COLUMNS
        read = [dict(zip(EXPORT_COLUMNS, line, strict=True)) for line in reader]
    assert marked(read) == {"a-new": shown, "b": shown}
    library.export(tmp_path / "out.parquet", "parquet")
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.schema.field("unreliable").type == "bool" and table.column_names == EXPORT_COLUMNS
    assert marked(table.to_pylist()) == {"a-new": shown, "b": shown}

    shutil.rmtree(paths["b"])  # the note names the one window: the same figures
    assert marked(library.export_rows()) == {"a-new": shown, "b": shown}

    # Four windows too short of sixteen: the note names three "and 1 more"; the library keeps all
    # four (TestRecord.too_short), so the figures of those four are marked, with the bundle gone too.
    library.add(flagged_bundle(tmp_path / "nvme", "fake:?capacity=16g", NVME_QUICK, SLOW_SEQ_READ,
                               "2024-05-01T00:00:00Z"))
    (note,) = Bundle(tmp_path / "nvme").load_run().test("quick").notes
    assert "4 of 16 measured windows" in note and " and 1 more)" in note
    for _ in ("bundle", "gone"):
        rows = [row for row in library.export_rows() if Path(row["bundle"]).name == "nvme"]
        assert marked(rows)["nvme"] == FOUR_SHORT
        shutil.rmtree(tmp_path / "nvme", ignore_errors=True)


NVME_QUICK = SuiteEntry(name="quick", test="quick", params={"runs": 2, "runtime_s": 2, "profile": "nvme"})
# NVME_QUICK's figures of its four windows too short with SLOW_SEQ_READ: two runs each of two reads.
FOUR_SHORT = {f"{entry}_read_{rate}" for entry in ("seq1m_q8t1", "seq128k_q32t1")
              for rate in ("mb_s", "iops", "lat_us")}


def recorded_before_too_short(path: Path) -> Path:
    """The bundle as an ssdlab before TestRecord.too_short wrote it: the note alone says which."""
    bundle = Bundle(path)
    run = bundle.load_run()
    bundle.write_run(run.model_copy(update={"tests": tuple(t.model_copy(update={"too_short": None})
                                                           for t in run.tests)}))
    return path


def test_the_export_of_a_run_recorded_before_its_windows_were_kept_reads_them_from_its_bundle(
        library: Library, tmp_path: Path) -> None:
    """A run whose record names only three of its four windows too short "and 1 more" (as ssdlab
    wrote them before TestRecord.too_short): from its bundle's measurements, the figures of those
    four; with the bundle gone, every figure of the test (settings and counts never)."""
    path = recorded_before_too_short(flagged_bundle(tmp_path / "nvme", "fake:?capacity=16g", NVME_QUICK,
                                                    SLOW_SEQ_READ, "2024-05-01T00:00:00Z"))
    library.add(path)
    with sqlite3.connect(library.path) as db:
        assert db.execute("SELECT too_short_json FROM tests").fetchall() == [(None,)]
    db.close()

    def marked() -> set[str]:
        return {row["metric"] for row in library.export_rows() if row["unreliable"]}

    assert marked() == FOUR_SHORT
    shutil.rmtree(path)
    assert marked() == {row["metric"] for row in library.export_rows() if row["kind"] == "figure"}


def test_the_export_reads_the_windows_the_library_keeps_not_the_bundle(
        library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run recorded with every window too short by name (TestRecord.too_short): the library keeps
    them (schema 5), and its export opens no file of the bundle to learn which; a library an older
    ssdlab wrote (schema 4, no such column) gets the column, and its rows read as before."""
    path = flagged_bundle(tmp_path / "nvme", "fake:?capacity=16g", NVME_QUICK, SLOW_SEQ_READ, "2024-05-01T00:00:00Z")
    library.add(path)
    with sqlite3.connect(library.path) as db:
        (stored,) = db.execute("SELECT too_short_json FROM tests").fetchone()
    db.close()
    assert json.loads(stored) == Bundle(path).load_run().test("quick").model_dump(mode="json")["too_short"]

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the export opened a bundle")

    with monkeypatch.context() as patched:
        patched.setattr(Bundle, "load_run", refuse)
        patched.setattr(Bundle, "load_measurement", refuse)
        assert {row["metric"] for row in library.export_rows() if row["unreliable"]} == FOUR_SHORT

    with sqlite3.connect(library.path) as db:  # as schema 4 kept it: no column
        db.execute("ALTER TABLE tests DROP COLUMN too_short_json")
        db.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    db.close()
    assert {row["metric"] for row in library.export_rows() if row["unreliable"]} == FOUR_SHORT  # from the bundle
    with sqlite3.connect(library.path) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
        assert db.execute("SELECT too_short_json FROM tests").fetchall() == [(None,)]
    db.close()


def test_the_export_of_a_method_this_ssdlab_does_not_know_marks_no_setting(library: Library, tmp_path: Path) -> None:
    """A flagged test of a method a later ssdlab wrote: its figures are marked, as no declaration says
    which windows make them, but not what its own parameters name (runtime_s, runs: how it ran), as
    `run --json` and the report decide it (effective.unreliable_figure)."""
    path = flagged_bundle(tmp_path / "later", "fake:?capacity=16g", NVME_QUICK, SLOW_SEQ_READ, "2024-05-01T00:00:00Z")
    bundle = Bundle(path)
    run = bundle.load_run()
    bundle.write_run(run.model_copy(update={"tests": tuple(
        t.model_copy(update={"test": "from-a-later-ssdlab"}) for t in run.tests)}))
    library.add(path)
    rows = [row for row in library.export_rows() if row["test"] == "quick"]
    marked = {row["metric"] for row in rows if row["unreliable"]}
    assert marked >= FOUR_SHORT
    settings = set(NVME_QUICK.params) & {row["metric"] for row in rows}
    assert settings, "a setting is exported"
    assert not settings & marked


def test_a_library_that_is_not_one_is_refused_alike_by_every_command(cli: CliRun, tmp_path: Path) -> None:
    """QA: `--library runA/run.json` (a bundle's run record): `report` exited 0 in silence (its page
    alone said "No rankings"), `library list` exited 2, and `run` measured to the end, then advised
    adding the run with that same file. Every command now refuses it up front, in one line."""
    bundle = make_bundle(tmp_path / "a", "fake:?capacity=2g")
    record = bundle / "run.json"
    before = record.read_bytes()
    run = ["run", "-t", "fake:?capacity=2g", "--test", "quick", "-p", "runs=1", "-p", "runtime_s=1", "-o",
           str(tmp_path / "new-run")]
    commands = [["report", str(bundle)], ["compare", str(bundle), str(bundle)], ["library", "list"],
                ["library", "add", str(bundle)], ["library", "remove", "abc"],
                ["library", "export", str(tmp_path / "e.csv")], ["plan", "-t", "fake:?capacity=2g", "--test", "quick"],
                run]
    for args in commands:
        result = cli(*args, "--library", str(record))
        lines = result.stderr.strip().splitlines()
        assert result.code == 2 and len(lines) == 1, (args, result.stderr)
        assert lines[0] == (f"error: results library {record} is not a library (not an SQLite database): ssdlab "
                            "never opens it; give a library file with --library or SSDLAB_LIBRARY"), (args, lines)
        assert not result.stdout, (args, result.stdout)
    assert record.read_bytes() == before
    assert not (bundle / "report.html").exists() and not (tmp_path / "new-run").exists()
    assert not (tmp_path / "e.csv").exists()


def test_an_empty_library_file_is_a_new_library(cli: CliRun, tmp_path: Path) -> None:
    """SQLite makes a database of an empty file: that is no refusal."""
    library = tmp_path / "lib.sqlite"
    library.touch()
    assert cli("library", "add", str(make_bundle(tmp_path / "a", "fake:?capacity=2g")), "--library",
               str(library)).code == 0
    assert library.read_bytes().startswith(b"SQLite format 3\0")


def test_another_programs_sqlite_database_is_refused_and_left_as_it_was(cli: CliRun, tmp_path: Path) -> None:
    """An SQLite database that is not an ssdlab library (no meta table naming a schema) was opened
    as one, and `library add` added ssdlab's tables into it."""
    import sqlite3
    from contextlib import closing

    other = tmp_path / "photos.db"
    with closing(sqlite3.connect(other)) as db, db:
        db.execute("CREATE TABLE photos (name TEXT)")
    before = other.read_bytes()
    for args in (["library", "list"], ["library", "add", str(make_bundle(tmp_path / "a", "fake:?capacity=2g"))]):
        result = cli(*args, "--library", str(other))
        assert result.code == 2 and result.stderr.strip() == (
            f"error: results library {other} is another program's SQLite database, not an ssdlab library: ssdlab "
            "never writes into it; give a library file with --library or SSDLAB_LIBRARY"), result.stderr
    assert other.read_bytes() == before


def test_a_library_another_ssdlab_holds_says_to_retry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: while another ssdlab held the library's lock, the refusal said "cannot be used (database
    is locked); give another", as if the library were broken: it is fine, and the way out is to wait."""
    path = tmp_path / "lib.db"
    Library(path).runs()
    with closing(sqlite3.connect(path, isolation_level=None)) as holder:
        holder.execute("BEGIN EXCLUSIVE")
        waiting = sqlite3.connect
        monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: waiting(*a, **{**k, "timeout": 0.01}))
        with pytest.raises(UsageError) as refused:
            Library(path).runs()
    text = str(refused.value)
    assert "in use by another ssdlab" in text and "retry when that one ends" in text and "\n" not in text, text
