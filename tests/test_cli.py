"""The CLI end to end on the fake drive: exact output, one-line errors, exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ssdlab.bundle import Bundle

FAST = ["-t", "fake:?capacity=2g", "-p", "runs=1", "-p", "runtime_s=1"]


def _one_line_error(result, code: int, *needles: str) -> None:
    assert result.code == code
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error:")
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in lines[0]


def test_list_shows_suites_and_tests(cli: Callable) -> None:
    result = cli("list", "--params")
    assert result.code == 0
    assert "quick" in result.stdout and "runtime_s=5.0" in result.stdout


def test_list_at_80_columns_folds_instead_of_cutting(cli: Callable, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: at 80 columns `list --params` cut parameters and titles to '…'."""
    # The terminal's width as the console reads it. Patching `out.width` left it fixed at 80 for
    # every later test in the process (monkeypatch restores the getter's value through the setter).
    monkeypatch.setenv("COLUMNS", "80")
    result = cli("list", "--params")
    assert result.code == 0 and "…" not in result.stdout


def test_plan_shows_actions_without_running(cli: Callable, tmp_path: Path) -> None:
    result = cli("plan", *FAST)
    assert result.code == 0
    assert "prepare-fill: 1MiB write QD8 T1 1GiB (precondition)" in result.stdout
    assert "rnd4k_q32t16-write-r1: 4KiB randwrite QD32 T16 1s" in result.stdout
    assert "Total estimated duration" in result.stdout


@pytest.mark.parametrize("how", ["fail", "stop"])
def test_run_json_of_a_run_that_did_not_complete(cli: Callable, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 how: str) -> None:
    """QA: `run --json` printed nothing on stdout when the run failed or was stopped: a script got no
    bundle path, status or figures, though the bundle held the finished steps. It prints the same
    object, with the status the bundle records and why the run ended."""
    from ssdlab.engines.fake import FakeEngine
    from ssdlab.errors import EngineError, Interrupted

    measure, calls = FakeEngine.measure, []

    def third_fails(self: FakeEngine, *args: object) -> object:
        calls.append(1)
        if len(calls) == 3:
            raise EngineError("fio exited 1: boom") if how == "fail" else Interrupted("interrupted by the user")
        return measure(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(FakeEngine, "measure", third_fails)
    out = tmp_path / "b"
    result = cli("run", *FAST, "--out", str(out), "--json", "--no-report")
    assert result.code != 0 and result.stderr.strip(), result
    data = json.loads(result.stdout)
    assert data["bundle"] == str(out.resolve()) and data["status"] == Bundle(out).load_run().status != "complete"
    assert ("boom" if how == "fail" else "interrupted") in data["error"], data["error"]
    assert data["tests"][0]["name"] == "quick" and data["tests"][0]["status"] != "complete"


def test_plan_of_a_drive_with_no_model_says_so(cli: Callable, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: `plan -t /dev/vda` headed its plan "(None, 275 GB)": a virtio disk reports no model."""
    from ssdlab.targets.fake import FakeTarget

    facts = FakeTarget.info
    monkeypatch.setattr(FakeTarget, "info", lambda self: facts(self).model_copy(update={"model": None}))
    result = cli("plan", "--test", "quick", "-t", "fake:?capacity=2g")
    assert result.code == 0, result.stderr
    assert "(model unknown, 2.15 GB)" in result.stdout and "None" not in result.stdout, result.stdout


def test_run_json_reports_bundle_and_metrics(cli: Callable, tmp_path: Path) -> None:
    out = tmp_path / "b"
    result = cli("run", *FAST, "--out", str(out), "--json", "--no-report")
    assert result.code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["bundle"] == str(out.resolve())
    assert data["status"] == "complete"
    assert data["tests"][0]["metrics"]["rnd4k_q32t16_read_iops"] == 300_000.0
    # windows long enough: no note, no figure not to be trusted (tests/report/test_summary_trusted_first.py)
    assert data["tests"][0]["notes"] == [] and data["tests"][0]["unreliable_metrics"] == []
    assert Bundle(out).load_run().status == "complete"
    again = cli("run", *FAST, "--out", str(out), "--no-report")
    _one_line_error(again, 2, "already holds a run")


def test_a_suite_or_test_named_where_the_target_goes_says_how_to_run_it(cli: Callable) -> None:
    # `ssdlab run quick` read "bad target 'quick'" and named target forms only (lead's QA)
    _one_line_error(cli("run", "quick"), 2, "'quick' is a suite, not a target", "--suite quick")
    _one_line_error(cli("plan", "quick", "-t", "fake:"), 2, "'quick' is a suite, not a target")
    _one_line_error(cli("plan", "consistency-op25"), 2, "is a test, not a target", "--test consistency-op25")
    _one_line_error(cli("run", "trim-validation", "-t", "fake:"), 2, "--test trim-validation")


def test_bad_inputs_are_one_line_errors(cli: Callable, tmp_path: Path) -> None:
    # every target form is named, the arrays too (QA: `info bogus:` left out raid0: and sim:raid0(...))
    _one_line_error(cli("run", "-t", "nonsense"), 2, "bad target 'nonsense'", "file:PATH", "raid0:/dev/A", "sim:raid0(")
    _one_line_error(cli("info", "fake:?colour=red"), 2, "unknown option 'colour'")
    _one_line_error(cli("run", *FAST, "-p", "runs"), 2, "--param")
    _one_line_error(cli("run", *FAST, "-p", "runs=zero"), 2, "runs")
    _one_line_error(cli("run", *FAST, "-p", "nosuch=1"), 2, "nosuch")
    _one_line_error(cli("run", "-t", "fake:", "--test", "nosuch"), 2, "unknown test")
    _one_line_error(cli("run", "-t", "fake:", "--suite", "nosuch"), 2, "unknown suite")
    _one_line_error(cli("report", str(tmp_path)), 2, "not a result bundle")
    _one_line_error(cli("run", *FAST, "--until-steady"), 2, "--until-steady")
    _one_line_error(cli("run", "--resume", str(tmp_path)), 2, "not a result bundle")


def stopped_run(cli: Callable, out: Path, *extra: str) -> Path:
    """A fake-engine run of quick and mixed whose second test was stopped, as Ctrl-C leaves it."""
    done = cli("run", "-t", "fake:?capacity=2g", "--test", "quick", "--test", "iometer-mixed", "-p", "runs=1",
               "-p", "runtime_s=1", "--engine", "fake", "--out", str(out), "--no-report", "--no-library", *extra)
    assert done.code == 0, done.stderr
    bundle = Bundle(out)
    record = bundle.load_run()
    stopped = record.test("iometer-mixed").model_copy(update={"status": "interrupted", "metrics": {}})
    bundle.write_run(record.with_test(stopped).model_copy(update={"status": "interrupted"}))
    return out


@pytest.mark.parametrize(("args", "needles"), [
    (["-o", "{other}"], ["continues in its own bundle", "drop -o"]),
    (["--engine", "sim"], ["was run with the fake engine, not sim", "drop --engine"]),
    (["--host", "node1"], ["ran on this machine, not on node1", "drop --host"]),
    (["--until-steady"], ["did not run until steady", "drop --until-steady"]),
    (["-p", "runtime_s=2"], ["keeps its parameters", "drop --param"]),
    (["-t", "fake:?capacity=4g"], ["was run on 'fake:?capacity=2g'", "drop -t"]),
    (["--suite", "quick"], ["ran --test quick, iometer-mixed, not suite 'quick'", "drop --suite"]),
    (["--test", "quick"], ["ran other tests", "drop --test"]),
])
def test_resume_refuses_options_that_would_change_the_run(cli: Callable, tmp_path: Path, args: list[str],
                                                          needles: list[str]) -> None:
    """QA: `run --resume B -o elsewhere` resumed into B, and `--resume B --engine fake` kept B's engine, both
    without a word; -t, --suite, --test and --param were already refused. Nothing is run or written."""
    out = stopped_run(cli, tmp_path / "b")
    before = (out / "run.json").read_bytes()
    other = tmp_path / "elsewhere"
    _one_line_error(cli("run", "--resume", str(out), *[a.format(other=other) for a in args], "--no-report"), 2,
                    *needles)
    assert (out / "run.json").read_bytes() == before and not other.exists()


@pytest.mark.parametrize("args", [["-o", "{out}/"], ["--engine", "fake"], ["--engine", "auto"],
                                  ["-t", "fake:?capacity=2g", "--test", "quick", "--test", "iometer-mixed"]])
def test_resume_takes_options_that_repeat_the_run(cli: Callable, tmp_path: Path, args: list[str]) -> None:
    out = stopped_run(cli, tmp_path / "b")
    again = cli("run", "--resume", str(out), *[a.format(out=out) for a in args], "--no-report", "--no-library")
    assert again.code == 0, again.stderr
    assert Bundle(out).load_run().status == "complete"


def test_a_path_that_is_not_there_is_not_called_a_bundle_without_run_json(cli: Callable, tmp_path: Path) -> None:
    """QA: `ssdlab report 3ef2` (a run id too short to be one) said '…/3ef2 is not a result bundle
    (no run.json in it)' of a path that does not exist."""
    _one_line_error(cli("report", str(tmp_path / "3ef2")), 2, "does not exist", "run id from `ssdlab library list`")
    # --resume takes no run id, so its message offers none (tests/test_library.py: one given to it)
    resumed = cli("run", "--resume", str(tmp_path / "gone"))
    _one_line_error(resumed, 2, "gone does not exist; give a directory made by `ssdlab run`")
    assert "run id" not in resumed.stderr


@pytest.mark.parametrize("typed", ["[/x]", "[red]x", "[bold]", "a[/]b"])
def test_errors_quote_what_was_typed_even_when_it_looks_like_markup(cli: Callable, typed: str) -> None:
    """The error printer uses rich markup for its label; what the user typed is text. A '[/x]'
    in a target ended in a rich MarkupError traceback (the audit helper's fuzz found it)."""
    _one_line_error(cli("info", f"sim:{typed}"), 2, f"'{typed}'")
    _one_line_error(cli("run", "-t", "fake:", "--test", typed), 2, typed)


def test_paths_and_names_that_look_like_markup_print_as_typed(cli: Callable, tmp_path: Path) -> None:
    """Rich reads '[x]' in printed text as a style tag: a bundle folder named 'run[/x][bold]'
    must print as it is, in the run's last lines, the report's tables and the plan."""
    out = tmp_path / "run[/x][bold]"
    result = cli("run", *FAST, "--out", str(out))
    assert result.code == 0, result.stderr
    assert f"Bundle: {out.resolve()}" in result.stdout and "Report: " in result.stdout
    report = cli("report", str(out), "-o", str(tmp_path / "r[/y].html"))
    assert report.code == 0, report.stderr
    assert f"Report: {(tmp_path / 'r[/y].html').resolve()}" in report.stdout
    (tmp_path / "a[" / "b]").mkdir(parents=True)
    img = tmp_path / "a[" / "b]" / "img[bold]"  # the path reads '.../a[/b]/img[bold]'
    plan = cli("plan", "-t", f"file:{img}?size=1g", "--test", "quick")
    assert plan.code == 0, plan.stderr
    assert f"file:{img}?size=1g" in plan.stdout


@pytest.mark.parametrize("group", [[], ["library"], ["sim"], ["trace"], ["audit"]])
def test_a_group_without_a_command_shows_its_help_and_says_what_to_give(cli: Callable, group: list[str]) -> None:
    result = cli(*group)
    assert "Commands" in result.stdout
    _one_line_error(result, 2, "give one of the commands above")


def test_info_json(cli: Callable) -> None:
    result = cli("info", "fake:?capacity=1g&nvme=0", "--json")
    assert result.code == 0
    info = json.loads(result.stdout)
    assert info["capacity_bytes"] == 1 << 30 and info["transport"] == "fake-sata"


def test_info_names_a_simulated_link_once(cli: Callable) -> None:
    """A preset's link text already carries its width ("PCIe 3.0 x4"): info adds nothing to it."""
    result = cli("info", "sim:")
    assert result.code == 0
    assert "PCIe 3.0 x4 " in result.stdout and "x4 x4" not in result.stdout
    assert "(256 GB)" in result.stdout


def test_info_says_flags_as_words(cli: Callable) -> None:
    """FUA, discard and power-loss protection read yes / no (they read True / False); JSON keeps booleans."""
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip()
            for line in cli("info", "sim:").stdout.splitlines() if line.count("│") == 3}
    assert (rows["FUA"], rows["discard"], rows["power-loss protection"]) == ("yes", "yes", "no")
    assert json.loads(cli("info", "sim:", "--json").stdout)["fua"] is True


def test_info_of_a_mixed_array_names_each_members_transport(cli: Callable) -> None:
    """It printed the first member's firmware, transport and link as the array's."""
    text = " ".join(cli("info", "sim:raid0(840evo-250,sm951-nvme-256)?capacity_gib=8").stdout.split())
    assert "mixed: sim-sata (member 1), sim-nvme (member 2)" in text
    assert "mixed: EXT42B6Q (member 1), BXW7300Q (member 2)" in text


def test_live_progress_renders(tmp_path: Path) -> None:
    """The rich display shows the test, the workload and live IOPS / MB/s."""
    import io

    from rich.console import Console

    from ssdlab.engines.fake import FakeEngine
    from ssdlab.progress import LiveObserver
    from ssdlab.runner import Runner, new_record
    from ssdlab.suites import SuiteEntry
    from ssdlab.targets import parse_target

    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=200, color_system=None)
    target, engine = parse_target("fake:"), FakeEngine()
    entry = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 2})
    record = new_record(target, engine, None, [entry], {}, {})
    with LiveObserver(console) as observer:
        Runner(Bundle(tmp_path / "b"), target, engine, observer).run(record)
    text = screen.getvalue()
    assert "quick" in text and "IOPS" in text and "MB/s" in text
    assert "rnd4k_q1t1-write-r1" in text
    assert "✓ quick" in text


@pytest.mark.parametrize("signum", [15, 1])
def test_sigterm_and_sighup_stop_a_run_like_ctrl_c_and_are_named(tmp_path: Path, signum: int) -> None:
    """QA: SIGHUP (a closed terminal, a dropped ssh) left run.json 'running' with no process;
    it now stops like SIGTERM and Ctrl-C: the bundle is marked and keeps what was measured."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "b"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent / "python")}
    proc = subprocess.Popen([sys.executable, "-m", "ssdlab", "run", "-t", "sim:?capacity_gib=4", "--suite", "review",
                             "-o", str(out), "--no-report", "--no-library"], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(200):  # until the run has started its first test
        if (out / "run.json").exists() and any((out / "measurements").glob("*/*.json")):
            break
        time.sleep(0.1)
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=120)
    name = signal.Signals(signum).name
    # As a shell reports a process the signal ended (QA: it was 130, Ctrl-C's), and named.
    assert proc.returncode == 128 + signum, stderr
    last = stderr.splitlines()[-1]
    assert last.startswith(f"stopped: {signal.strsignal(signum).lower()} ({name}); measurements"), stderr
    record = Bundle(out).load_run()
    assert record.status == "interrupted"
    assert any(t.error and f"({name})" in t.error for t in record.tests), "the bundle says which signal stopped it"


def test_a_run_under_nohup_outlives_its_terminal(tmp_path: Path) -> None:
    """`nohup ssdlab run …` starts with SIGHUP ignored so the run outlives a closed terminal; the
    stop handling took SIGHUP over and stopped the run anyway."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "b"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent / "python")}
    argv = [sys.executable, "-m", "ssdlab", "run", "-t", "sim:?capacity_gib=4", "--test", "quick", "-p", "runs=2",
            "-p", "runtime_s=1", "-o", str(out), "--no-report", "--no-library"]
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    for _ in range(200):  # until the run has started measuring
        if any((out / "measurements").glob("*/*.json")):
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGHUP)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert Bundle(out).load_run().status == "complete"


@pytest.mark.parametrize("command", [["plan", "--suite", "review", "-t", "sim:"], ["library", "list"],
                                     ["report", "{bundle}"], ["version"]])
def test_a_command_whose_reader_goes_away_ends_quietly(cli: Callable, tmp_path: Path, command: list[str]) -> None:
    """`ssdlab plan … | head -1`, `library list | head -1`, `report DIR | head -1`: the reader
    had what it wanted. They exited 1 (typer's and rich's answer to a broken pipe); now as a shell
    reports a program a closed pipe ended (128 + SIGPIPE), saying nothing: no traceback, no
    "Exception ignored … BrokenPipeError" as Python flushes stdout at exit (`version`: all of its
    output is still in the buffer then)."""
    import os
    import signal
    import subprocess
    import sys

    bundle = tmp_path / "b"
    assert cli("run", "--test", "quick", *FAST, "-o", str(bundle), "--no-report").code == 0  # and in the library
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent / "python")}
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written, so every write fails
    try:
        done = subprocess.run([sys.executable, "-m", "ssdlab", *[a.format(bundle=bundle) for a in command]],
                              env=env, stdin=subprocess.DEVNULL, stdout=write, stderr=subprocess.PIPE, text=True,
                              timeout=240)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (128 + signal.SIGPIPE, "")
