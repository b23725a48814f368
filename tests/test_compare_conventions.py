"""compare and the results library notice runs measured under different conventions: fio random
writes with fio's random map (job files before norandommap=1) against independent draws, and a
simulated preset under another model of ssdsim's (ctrl.gc_page_us for the UBX family). Old-style
bundles are copies of new ones with their job files or recorded configuration edited back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from pty_helpers import SSDLAB
from ssdlab import _ssdsim
from ssdlab.bundle import RAW_DIR, SHORT_WINDOW_NOTE, Bundle
from ssdlab.compare import compare_bundles, compare_drives, make_drives
from ssdlab.effective import effective_method
from ssdlab.engines.fake import FakeEngine
from ssdlab.engines.fio import FioEngine
from ssdlab.errors import UsageError
from ssdlab.library import Library
from ssdlab.report.compare_page import comparison_tables
from ssdlab.report.library_rankings import rankings_section
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.workload import RANDOM_PATTERNS, Workload

QUICK = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 2})
SIM = "sim:sm951-nvme-256?capacity_gib=4"
# The jobs a quick run on fio writes, by the fio engine's own job text (norandommap=1 on random jobs).
JOBS = (Workload(name="rnd4k_q1t1-write-r1", pattern="randwrite", block_size_bytes=4096, runtime_s=1),
        Workload(name="rnd4k_q1t1-read-r1", pattern="randread", block_size_bytes=4096, runtime_s=1),
        Workload(name="seq1m_q8t1-read-r1", pattern="read", block_size_bytes=1 << 20, iodepth=8, runtime_s=1))


def make_bundle(path: Path, spec: str = "fake:?capacity=2g") -> Path:
    run_entries(path, parse_target(spec), FakeEngine(), [QUICK], suite="quick")
    return path


def keep_job_files(bundle: Path, random_map: bool, jobs: Sequence[Workload] = JOBS) -> None:
    """The job files a fio run keeps in raw/, as today's engine writes them or, with `random_map`,
    as it wrote them before norandommap=1 (1509096)."""
    target = parse_target(f"file:{bundle.parent / 'x.img'}?size=64m")
    for w in jobs:
        text = FioEngine().job_text_for(target, w, None, "io_uring", (3, 33))
        assert ("norandommap=1" in text) == (w.pattern in RANDOM_PATTERNS)
        if random_map:
            text = text.replace("norandommap=1\n", "")
        folder = bundle / RAW_DIR / "quick" / w.name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{w.name}.fio").write_text(text)


def edit_config(bundle: Path, change: Callable[[dict[str, Any]], None], created: str | None = None) -> Path:
    """A simulated run's recorded configuration edited, as an older ssdsim resolved its preset."""
    data = json.loads((bundle / "run.json").read_text())
    change(data["target"]["extra"]["config"])
    if created is not None:
        data["created_utc"] = created
    (bundle / "run.json").write_text(json.dumps(data))
    return bundle


def before_ubx_gc(config: dict[str, Any]) -> None:
    config["ctrl"]["gc_page_us"] = 0.0  # the UBX family before 2996c16


def copy_of(bundle: Path, path: Path, created: str | None = None) -> Path:
    """A copy of a bundle; with `created`, another run (another start time): compare refuses a
    copy of one run beside it as that run twice."""
    shutil.copytree(bundle, path)
    if created is not None:
        data = json.loads((path / "run.json").read_text())
        data["created_utc"] = created
        (path / "run.json").write_text(json.dumps(data))
    return path


@pytest.fixture(scope="module")
def fio_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("fio-conventions")
    new = make_bundle(root / "new")
    keep_job_files(new, random_map=False)
    old = copy_of(new, root / "old", "2025-01-01T00:00:00Z")
    keep_job_files(old, random_map=True)
    reads = copy_of(new, root / "old-reads", "2025-01-02T00:00:00Z")  # only the random reads kept fio's random map
    keep_job_files(reads, random_map=True, jobs=JOBS[1:])
    return {"new": new, "old": old, "old-reads": reads, "kept-none": make_bundle(root / "kept-none")}


@pytest.fixture(scope="module")
def sim_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    root = tmp_path_factory.mktemp("sim-models")
    new = make_bundle(root / "new", SIM)
    heatsink = make_bundle(root / "heatsink", f"{SIM}&heatsink=1")
    return {
        "new": new, "heatsink": heatsink,
        "old": edit_config(copy_of(new, root / "old"), before_ubx_gc, "2026-01-01T00:00:00Z"),
        "old-heatsink": edit_config(copy_of(heatsink, root / "old-heatsink"), before_ubx_gc),
        "other": make_bundle(root / "other", "sim:intel750-400?capacity_gib=4"),
    }


def caption(bundles: Sequence[Path], force: bool = True) -> str:
    console = Console(record=True, width=400)
    for table in comparison_tables(compare_bundles(list(bundles), force=force)):
        console.print(table)
    return console.export_text()


def refusal(bundles: Sequence[Path]) -> str:
    with pytest.raises(UsageError) as err:
        compare_bundles(list(bundles))
    assert "\n" not in str(err.value)
    return str(err.value)


# ---- fio: random writes with fio's random map, before norandommap=1 -------------------------------


def test_random_writes_with_fios_random_map_are_refused_as_another_method(fio_runs: dict[str, Path]) -> None:
    """QA: a random-write test on a drive from before 1509096 and one from after compared as alike,
    though the older hit each block once per pass and the newer draws offsets independently.
    Today's job files, a run that kept none (the simulator's, the fake's) and one whose random
    reads alone kept the map (a block read twice costs two reads) compare as before."""
    assert refusal([fio_runs["new"], fio_runs["old"]]) == (
        "test 'quick': methods differ (random write offsets: independent uniform draws (fio's norandommap=1, as "
        "the simulator draws) vs fio's random map: each block once per pass (job files before norandommap=1)); the "
        "runs were made by ssdlab versions that measure differently: re-run the older one with this ssdlab, or "
        "pass --force")
    forced = compare_bundles([fio_runs["new"], fio_runs["old"]], force=True)
    assert forced.tests[0].differing_params == ("random write offsets",)
    assert "FORCED: methods differ (random write offsets: independent uniform draws" in caption(
        [fio_runs["new"], fio_runs["old"]])
    for other in ("kept-none", "old-reads"):
        assert not compare_bundles([fio_runs["new"], fio_runs[other]]).tests[0].flagged


def test_the_library_keys_an_older_convention_apart_and_never_ranks_it_with_new_runs(fio_runs: dict[str, Path],
                                                                                     tmp_path: Path) -> None:
    """The old run's stored key is its own; runs under today's conventions keep the key they had
    (effective_method without the bundle, as a library stored it before); the report's rankings
    leave the old run out."""
    library = Library(tmp_path / "library.sqlite")
    other = make_bundle(tmp_path / "other", "fake:?capacity=4g")  # another drive, today's conventions
    keep_job_files(other, random_map=False)
    for name, spec in (("old", "fake:?capacity=2g&nvme=1"), ("old-reads", "fake:?capacity=2g&fua=0")):
        edit_json(copy_of(fio_runs[name], tmp_path / name), "2026-01-01T00:00:00Z", spec)  # other drives
    for bundle in (other, tmp_path / "old", tmp_path / "old-reads"):
        library.add(bundle)
    keys = {Path(r["bundle"]).name: r["method_key"] for r in library.export_rows()}
    run = Bundle(fio_runs["new"]).load_run()
    today = effective_method(run.test("quick"), run.target).key
    assert keys["other"] == keys["old-reads"] == today != keys["old"]
    assert ranked_drives(library, fio_runs["new"]) == ["new", "old-reads", "other"]


def edit_json(bundle: Path, created_utc: str, spec: str) -> None:
    data = json.loads((bundle / "run.json").read_text())
    data["created_utc"] = created_utc
    data["target"]["spec"] = spec  # another drive to the library (fake and file targets: by spec)
    (bundle / "run.json").write_text(json.dumps(data))


def ranked_drives(library: Library, reviewed: Path) -> list[str]:
    """The drives (by bundle name) the report of `reviewed` ranks it against the library with,
    itself first, the others in label order."""
    run = Bundle(reviewed).load_run()
    section = rankings_section(run, library, reviewed)
    if section is None:
        return [reviewed.name]
    table = next(t for t in section.tables if t.key == "rankings-quick-ranking-table")
    runs = library.runs()
    named = [next((r.bundle.name for r in runs if label in (r.label, f"{r.label} [{r.drive_id[:6]}]")), None)
             for label, *_ in table.rows]
    return [reviewed.name, *sorted(name for name in named[1:] if name is not None)]


# ---- simulated drives: one preset, another model -------------------------------------------------


def test_one_preset_under_another_model_is_refused_naming_the_keys(sim_runs: dict[str, Path]) -> None:
    """QA: an SM951 simulated before ctrl.gc_page_us settles ~2.5x higher; compare called the two
    runs "(sim:…) #1" and "#2" and put them side by side as alike."""
    assert refusal([sim_runs["new"], sim_runs["old"]]) == (
        "test 'quick': methods differ (simulated sm951-nvme-256, ctrl.gc_page_us: 12.4 vs 0); the runs were made "
        "by ssdlab versions that measure differently: re-run the older one with this ssdlab, or pass --force")
    forced = compare_bundles([sim_runs["new"], sim_runs["old"]], force=True)
    assert forced.tests[0].differing_params == ("ctrl.gc_page_us",)


def test_overrides_are_the_drive_not_the_model(sim_runs: dict[str, Path]) -> None:
    """A heatsink is hardware asked for: with and without it are two drives of one model. An old
    run with a heatsink against today's bare drive differs in the model only."""
    assert not compare_bundles([sim_runs["new"], sim_runs["heatsink"]]).tests[0].flagged
    assert "(simulated sm951-nvme-256, ctrl.gc_page_us: 12.4 vs 0);" in refusal(
        [sim_runs["new"], sim_runs["old-heatsink"]])
    assert not compare_bundles([sim_runs["new"], sim_runs["other"]]).tests[0].flagged  # two presets: two drives


def test_a_key_the_simulator_gained_later_is_alike_at_its_neutral_value(sim_runs: dict[str, Path],
                                                                        tmp_path: Path) -> None:
    def drop(*keys: str) -> Callable[[dict[str, Any]], None]:
        def change(config: dict[str, Any]) -> None:
            for key in keys:
                section, field = key.split(".")
                del config[section][field]
        return change

    zero = edit_config(copy_of(sim_runs["new"], tmp_path / "no-suspend"), drop("nand.suspend_us"))
    assert not compare_bundles([sim_runs["new"], zero]).tests[0].flagged  # 0 there: what an older one did
    older = edit_config(copy_of(sim_runs["new"], tmp_path / "no-gc-page"), drop("ctrl.gc_page_us"))
    assert "(simulated sm951-nvme-256, ctrl.gc_page_us: 12.4 vs (not recorded));" in refusal(
        [sim_runs["new"], older])


def test_drives_from_the_library_leave_out_an_older_model_of_a_preset_already_in(sim_runs: dict[str, Path]) -> None:
    """Drives from the library are each held against the baseline and the drives kept before them:
    with another preset as baseline, both SM951 runs were like it, and were ranked together."""
    groups = [[sim_runs["other"]], [sim_runs["new"]], [sim_runs["old"]]]
    test = compare_drives(make_drives(groups), "exclude").tests[0]
    assert test.present == (True, True, False)
    ((index, why),) = test.excluded
    assert index == 2 and [d.describe() for d in why] == ["simulated sm951-nvme-256, ctrl.gc_page_us: 12.4 vs 0"]


def test_library_rankings_hold_one_model_of_a_preset(sim_runs: dict[str, Path], tmp_path: Path) -> None:
    """The library named an older model's run another drive (its configuration differs) and
    ranked it beside today's: the reviewed drive's model ranks, else the newest."""
    library = Library(tmp_path / "library.sqlite")
    for name in ("old", "other", "heatsink"):
        library.add(sim_runs[name])
    assert ranked_drives(library, sim_runs["new"]) == ["new", "heatsink", "other"]
    library.add(sim_runs["new"])
    assert ranked_drives(library, sim_runs["old-heatsink"]) == ["old-heatsink", "old", "other"]  # the old model's
    run = Bundle(sim_runs["new"]).load_run()
    key = effective_method(run.test("quick"), run.target).key
    assert sorted(t.bundle.name for t in library.comparable("fake", "quick", key)) == ["heatsink", "new", "other"]


def flagged(bundle: Path) -> Path:
    """The run as if its quick test's windows had been too short to trust (SHORT_WINDOW_NOTE)."""
    data = json.loads((bundle / "run.json").read_text())
    note = SHORT_WINDOW_NOTE.format(windows="1 of 1 measured windows (w)", turns=30, period=1, shortest=0.05,
                                    ios=10, in_flight=1, advice="raise runtime_s to at least 1 s")
    next(t for t in data["tests"] if t["name"] == "quick")["notes"].append(note)
    (bundle / "run.json").write_text(json.dumps(data))
    return bundle


def test_a_run_left_out_of_rankings_is_said_only_where_it_would_rank(sim_runs: dict[str, Path],
                                                                      tmp_path: Path) -> None:
    """A flagged run of another model of the reviewed drive's preset would not rank, trusted or not:
    the rankings' note does not name it as left out (it named every flagged like test)."""
    library = Library(tmp_path / "library.sqlite")
    library.add(copy_of(sim_runs["other"], tmp_path / "other"))
    library.add(flagged(copy_of(sim_runs["old"], tmp_path / "old-flagged")))
    library.add(flagged(copy_of(sim_runs["heatsink"], tmp_path / "heatsink-flagged")))
    run = Bundle(sim_runs["new"]).load_run()
    key = effective_method(run.test("quick"), run.target).key
    ranking = library.ranking("fake", "quick", key, run.target)
    assert [t.bundle.name for t in ranking.ranked] == ["other"]
    assert [t.bundle.name for t in ranking.unreliable] == ["heatsink-flagged"]  # old-flagged: another model


def without_revision(bundle: Path) -> Path:
    """A simulated run as recorded before the simulator's model revision was (ssdsim::MODEL_REVISION)."""
    data = json.loads((bundle / "run.json").read_text())
    del data["target"]["extra"]["model_revision"]
    (bundle / "run.json").write_text(json.dumps(data))
    return bundle


def test_runs_under_two_model_revisions_are_refused_even_of_two_presets(sim_runs: dict[str, Path],
                                                                        tmp_path: Path) -> None:
    """A mechanism that changed (14c8f0d moved every preset's transfer-size sweep by 2-3 %) leaves
    every preset's configuration as it was: only the revision the run recorded tells the two
    simulators apart, for two presets as for one."""
    unrecorded = without_revision(copy_of(sim_runs["other"], tmp_path / "other-unrecorded"))
    revision = _ssdsim.model_revision()  # today's, whichever it is
    assert f"(simulator model revision: {revision} vs (not recorded));" in refusal([sim_runs["new"], unrecorded])
    forced = compare_bundles([sim_runs["new"], unrecorded], force=True)
    assert forced.tests[0].differing_params == ("model_revision",)
    assert not compare_bundles([sim_runs["new"], sim_runs["other"]]).tests[0].flagged


def test_two_runs_that_recorded_no_revision_are_not_taken_for_one_simulator(sim_runs: dict[str, Path],
                                                                          tmp_path: Path) -> None:
    """Two runs from before the revision was recorded may come from any two older models (QA: two
    such bundles days apart compared as one method, their 128 KiB QD1 reads 19.7 % apart)."""
    one = without_revision(copy_of(sim_runs["new"], tmp_path / "new-unrecorded"))
    two = without_revision(copy_of(sim_runs["other"], tmp_path / "other-unrecorded"))
    assert "(simulator model revision: (not recorded) vs (not recorded));" in refusal([one, two])
    library = Library(tmp_path / "library.sqlite")
    library.add(two)
    assert ranked_drives(library, one) == ["new-unrecorded"]


def test_library_rankings_leave_out_another_model_revision(sim_runs: dict[str, Path], tmp_path: Path) -> None:
    library = Library(tmp_path / "library.sqlite")
    library.add(without_revision(copy_of(sim_runs["other"], tmp_path / "other-unrecorded")))
    library.add(sim_runs["heatsink"])
    assert ranked_drives(library, sim_runs["new"]) == ["new", "heatsink"]


# ---- the CLI, in a pipe ----------------------------------------------------------------------


@pytest.mark.parametrize("which", ["fio", "sim"])
def test_the_cli_refuses_in_one_line(which: str, fio_runs: dict[str, Path], request: pytest.FixtureRequest,
                                     tmp_path: Path) -> None:
    runs = fio_runs if which == "fio" else request.getfixturevalue("sim_runs")
    env = {**os.environ, "SSDLAB_LIBRARY": str(tmp_path / "library.sqlite"), "COLUMNS": "200"}
    done = subprocess.run([str(SSDLAB), "compare", str(runs["new"]), str(runs["old"])], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "methods differ (" in done.stderr and "re-run the older one with this ssdlab, or pass --force" in done.stderr
    forced = subprocess.run([str(SSDLAB), "compare", str(runs["new"]), str(runs["old"]), "--force"],
                            capture_output=True, text=True, env=env, timeout=120)
    assert forced.returncode == 0 and "FORCED: methods differ" in forced.stdout, forced.stderr


# ---- words in the Difference column ------------------------------------------------------------


def test_a_word_unlike_the_baselines_says_differs(tmp_path: Path) -> None:
    """write-cache-ab records what O_DSYNC became (a device fact, kind count): two drives' words are
    told apart, never diffed, ranked or left blank as if alike."""
    entry = [SuiteEntry(name="write-cache-ab", test="write-cache-ab", params={"runtime_s": 2})]
    for name, spec in (("fua", "fake:?capacity=2g"), ("flush", "fake:?capacity=2g&fua=0"),
                       ("fua2", "fake:?capacity=4g")):
        run_entries(tmp_path / name, parse_target(spec), FakeEngine(), entry, suite=None)
    comparison = compare_bundles([tmp_path / "fua", tmp_path / "flush", tmp_path / "fua2"])
    (row,) = [r for r in comparison.tests[0].rows if r.name == "dsync_path"]
    assert row.values == ("FUA write + flush", "write + 2 flushes", "FUA write + flush")
    assert row.differences == (None, None)
    text = caption([tmp_path / "fua", tmp_path / "flush", tmp_path / "fua2"], force=False)
    line = next(x for x in text.splitlines() if "What O_DSYNC became" in x)
    assert [c.strip() for c in line.split("│")[1:-1]] == [
        "What O_DSYNC became on the device", "FUA write + flush", "write + 2 flushes", "FUA write + flush",
        "differs", ""]
