"""`ssdlab run` refuses a results library that is not a file (a device, a FIFO, a folder) in the one
line the library's own commands give, before it looks anything up there or measures anything.

QA: `run --resume RUN_ID --library /dev/loopN` used the bad library only to look up the run id's
bundle, and ignored it in silence ("a run id is not taken here", without the bundle it names);
`run --resume BUNDLE --library BAD` (and a new run) measured to the end and then said the run
was "not added", offering `ssdlab library add --library BAD …`, which is refused."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from loop_helpers import attached_loop
from run_helpers import ODD_LIBRARIES, ODD_LIBRARY_WORDS, odd_library
from ssdlab.bundle import Bundle
from ssdlab.library import Library

QUICK = ["--test", "quick", "-t", "fake:?capacity=2g", "-p", "runs=1", "-p", "runtime_s=1", "--no-report"]


def stopped_run(cli: Callable[..., Any], tmp_path: Path) -> tuple[Path, str]:
    """A run in the (good) results library, its bundle marked stopped half-way: (bundle, run id)."""
    bundle = tmp_path / "b"
    assert cli("run", *QUICK, "-o", str(bundle)).code == 0
    run = Bundle(bundle).load_run()
    test = run.tests[0]
    Bundle(bundle).write_run(run.model_copy(update={"status": "interrupted", "tests": (test.model_copy(update={
        "status": "interrupted", "action_outcomes": test.action_outcomes[:3]}),)}))
    return bundle, Library().runs()[0].run_id[:8]


def refusals(cli: Callable[..., Any], tmp_path: Path, library: Path, words: str) -> None:
    """Every way `run` is given the library refuses it in one line, and nothing is run or made (the
    working directory is tmp_path: a run id is no folder there)."""
    bundle, run_id = stopped_run(cli, tmp_path)
    before = (bundle / "run.json").read_bytes()
    for args in (["--resume", run_id], ["--resume", str(bundle)], ["--resume", run_id, "--no-library"],
                 [*QUICK, "-o", str(tmp_path / "new")]):
        result = cli("run", *args, "--library", str(library))
        assert result.code == 2, (args, result.stderr)
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), (args, result.stderr)
        assert f"{words}, not a library file: ssdlab never opens it" in result.stderr, (args, result.stderr)
    assert (bundle / "run.json").read_bytes() == before  # nothing resumed
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("kind", ODD_LIBRARIES)
def test_run_refuses_a_library_that_is_not_a_file(cli: Callable[..., Any], tmp_path: Path, kind: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = odd_library(tmp_path, kind)
    refusals(cli, tmp_path, path, ODD_LIBRARY_WORDS[kind])
    if kind == "directory":
        assert list(path.iterdir()) == []


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    backing = tmp_path / "loop-backing.img"
    backing.write_bytes(bytes(range(256)) * 4096)
    with attached_loop(backing, size_bytes=None) as device:
        yield Path(device), backing


@pytest.mark.root
def test_run_refuses_a_library_that_is_a_loop_device(cli: Callable[..., Any], tmp_path: Path,
                                                     loop: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    device, backing = loop
    before = hashlib.sha256(backing.read_bytes()).hexdigest()
    refusals(cli, tmp_path, device, f"results library {device} is a block device")
    assert hashlib.sha256(backing.read_bytes()).hexdigest() == before


def test_a_run_id_still_names_its_bundle_and_no_library_still_runs(cli: Callable[..., Any], tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """What the refusal must not take away: a good library names a run id's bundle, and a run
    that adds nothing (--no-library) is not refused for an unusable default library."""
    monkeypatch.chdir(tmp_path)
    bundle, run_id = stopped_run(cli, tmp_path)
    said = cli("run", "--resume", run_id)
    assert said.code == 2 and f"run {run_id}" in said.stderr and f"bundle is {bundle}" in said.stderr
    (tmp_path / "folder").mkdir()
    monkeypatch.setenv("SSDLAB_LIBRARY", str(tmp_path / "folder"))
    assert cli("run", "--resume", str(bundle), "--no-library", "--no-report").code == 0



def test_a_resumed_run_keeps_the_no_library_it_was_started_with(cli: Callable[..., Any], tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: --no-library was not kept with the run's options, so resuming a run started with it
    added the run to the library after all (and refused an unusable default library first). A
    run.json from before it was kept has no such option: that run is added, as it always was."""
    bundle = tmp_path / "b"
    assert cli("run", *QUICK, "-o", str(bundle), "--no-library").code == 0
    run = Bundle(bundle).load_run()
    assert run.options["no_library"] is True

    def stopped(options: dict[str, Any]) -> None:
        """The run as a stop half-way leaves it, with these options."""
        test = run.tests[0]
        test = test.model_copy(update={"status": "interrupted", "action_outcomes": test.action_outcomes[:3]})
        Bundle(bundle).write_run(run.model_copy(update={"status": "interrupted", "tests": (test,), "options": options}))

    stopped(run.options)
    assert cli("run", "--resume", str(bundle)).code == 0
    assert Bundle(bundle).load_run().status == "complete"
    assert Library().runs() == []

    # The run adds nothing, so an unusable default library does not refuse its resume either.
    good = os.environ["SSDLAB_LIBRARY"]
    (tmp_path / "folder").mkdir()
    monkeypatch.setenv("SSDLAB_LIBRARY", str(tmp_path / "folder"))
    stopped(run.options)
    resumed = cli("run", "--resume", str(bundle))
    assert resumed.code == 0, resumed.stderr

    monkeypatch.setenv("SSDLAB_LIBRARY", good)
    stopped({k: v for k, v in run.options.items() if k != "no_library"})  # as run.json was before
    assert cli("run", "--resume", str(bundle)).code == 0
    assert [r.bundle for r in Library().runs()] == [Bundle(bundle).path]


def test_a_resumed_run_keeps_its_library_and_no_report(cli: Callable[..., Any], tmp_path: Path) -> None:
    """The same class as --no-library (QA): a run started with --library PATH was added to the
    default library when resumed without it, and one started with --no-report wrote a report."""
    bundle, own = tmp_path / "b", tmp_path / "own.sqlite"
    assert cli("run", *QUICK, "-o", str(bundle), "--library", str(own)).code == 0  # QUICK has --no-report
    run = Bundle(bundle).load_run()
    assert run.options["library"] == str(own.absolute()) and run.options["no_report"] is True
    test = run.tests[0]
    test = test.model_copy(update={"status": "interrupted", "action_outcomes": test.action_outcomes[:3]})
    Bundle(bundle).write_run(run.model_copy(update={"status": "interrupted", "tests": (test,)}))
    Library(own).remove(str(bundle))
    (bundle / "report.html").unlink(missing_ok=True)
    assert cli("run", "--resume", str(bundle)).code == 0
    assert [r.bundle for r in Library(own).runs()] == [Bundle(bundle).path]
    assert Library().runs() == [] and not (bundle / "report.html").exists()
