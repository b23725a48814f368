"""Stopping `ssdlab run` in a terminal: Ctrl-C at any moment, and a second one while the first is
being dealt with, gives one line, exit status 130, and a bundle that says where the run stopped.

QA (in a pseudo-terminal, on sim:): a second Ctrl-C 0.3 s after the first exited 130 with no
line, a Ctrl-C while the result tables printed cut them with no line, and once a Ctrl-C was
ignored. The terminal runs here are the program as people run it; a hook run in the process
before `main()` delivers a SIGINT at an exact point where typing could only hope to land.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shlex
import signal
import struct
import subprocess
import sys
import termios
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import pytest

from pty_helpers import ANSI, TerminalRun, read_until_exit
from ssdlab.bundle import Bundle
from ssdlab.library import Library

pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")

# `ssdlab ARGS`, after running the hook in SSDLAB_TEST_HOOK with these helpers at hand.
BOOT = '''
import os, signal, sys

def ctrl_c():
    """Ctrl-C as the terminal sends it: SIGINT to this process."""
    os.kill(os.getpid(), signal.SIGINT)

def nth(n):
    """A condition true on its n-th call only."""
    calls = [0]
    def when(*args, **kwargs):
        calls[0] += 1
        return calls[0] == n
    return when

def wrap(owner, name, before, when=lambda *args, **kwargs: True):
    """Call before() the first time owner.name is called with arguments `when` accepts."""
    original = getattr(owner, name)
    fired = []
    def wrapper(*args, **kwargs):
        if not fired and when(*args, **kwargs):
            fired.append(True)
            before()
        return original(*args, **kwargs)
    setattr(owner, name, wrapper)

exec(os.environ.get("SSDLAB_TEST_HOOK", ""))
from ssdlab.cli import main
sys.argv[0] = "ssdlab"
sys.exit(main())
'''

QUICK = ("run", "--suite", "quick", "-t", "sim:?capacity_gib=16")
# The first Ctrl-C: as the simulator reports its progress, which is where a typed one lands.
FIRST = """
from ssdlab.progress import LiveObserver
wrap(LiveObserver, "progress", ctrl_c, nth(40))
"""


def terminal(args: Sequence[str], hook: str = "", ctrl_c_after: Sequence[tuple[str, float]] = (),
             timeout_s: float = 240.0, piped_to: str | None = None) -> TerminalRun:
    """`ssdlab ARGS` in a pseudo-terminal that is its controlling terminal, so ^C typed there is
    Ctrl-C (SIGINT from the terminal); `ctrl_c_after` types one when a text has appeared and a
    delay has passed, in turn (an empty text: right after the one before). `piped_to`: a shell
    command its stdout and stderr are piped to (`| tee log`), in the same foreground job; the
    screen then ends with "rc=" and ssdlab's exit status."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 200, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "CI")}
    env.update(TERM="xterm-256color", SSDLAB_TEST_HOOK=textwrap.dedent(hook))

    def foreground_job() -> None:  # what a shell does for a command it runs in a terminal
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # pytest may have been started with it ignored

    command = [sys.executable, "-c", BOOT, *args]
    if piped_to is not None:
        command = ["bash", "-c", f"{shlex.join(command)} 2>&1 | {piped_to}; echo rc=${{PIPESTATUS[0]}}"]
    proc = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env, preexec_fn=foreground_job)
    os.close(slave)
    keys = list(ctrl_c_after)
    since, seen = 0, None

    def type_ctrl_c(output: bytearray) -> None:
        nonlocal since, seen
        if keys and seen is None and keys[0][0].encode() in output[since:]:
            seen = time.monotonic()
        if keys and seen is not None and time.monotonic() - seen >= keys[0][1]:
            os.write(master, b"\x03")
            keys.pop(0)
            since, seen = len(output), None

    try:
        output = read_until_exit(master, proc, timeout_s, poll_s=0.01, watch=type_ctrl_c)
    finally:
        os.close(master)
    return TerminalRun(proc.wait(), ANSI.sub("", output.decode("utf-8", errors="replace")))


def resume_line(bundle: Path) -> str:
    path = Bundle(bundle).path
    return (f"stopped: interrupted by the user; measurements so far are kept in {path}; "
            f"resume with `ssdlab run --resume {path}`")


def last_message(run: TerminalRun) -> str:
    """The stop line at the screen's end, as one line: a terminal has it wrapped at its words
    (cli/app.print_message), so its lines are joined at the spaces they broke at."""
    start = max(n for n, line in enumerate(run.lines) if line.startswith("stopped"))
    return " ".join(run.lines[start:])


def assert_stopped(run: TerminalRun, bundle: Path) -> None:
    """Exit 130, the one line that says where the measurements are, and a bundle marked so."""
    assert run.code == 130, run.screen[-3000:]
    assert "Traceback" not in run.screen and "internal error" not in run.screen, run.screen[-3000:]
    assert last_message(run) == resume_line(bundle), run.screen[-3000:]
    record = Bundle(bundle).load_run()
    assert record.status == "interrupted"
    assert not [t.name for t in record.tests if t.status == "running"]
    assert any(t.status == "interrupted" and t.error == "interrupted by the user" for t in record.tests)


def stopped_closed_after_complete(proc: subprocess.Popen[str], out: Path) -> tuple[str, Path]:
    """A run whose stdout closed once it was complete: exit 141 and the one line that says so.
    Its stderr and bundle path."""
    assert proc.stderr is not None
    stderr = proc.stderr.read()
    assert proc.wait(timeout=240) == 128 + signal.SIGPIPE, stderr
    path = Bundle(out).path
    assert stderr.splitlines()[-1] == (
        f"stopped: the output was closed (stdout: broken pipe) after the run completed; its bundle {path} is "
        f"complete: `ssdlab report {path}` shows it"), stderr
    return stderr, path


@pytest.mark.parametrize("gap_s", [0.1, 0.3, 0.8])
def test_a_second_ctrl_c_typed_while_the_run_stops_keeps_its_line_and_bundle(tmp_path: Path, gap_s: float) -> None:
    """QA's case as typed: the second Ctrl-C comes while the drive is saved, run.json written or
    the report of what was measured written (the default 256 GB drive takes a while to save)."""
    out = tmp_path / "b"
    run = terminal(("run", "--suite", "quick", "-t", "sim:", "-o", str(out)),
                   ctrl_c_after=[("elapsed", 1.0), ("", gap_s)])
    assert_stopped(run, out)


SECOND = {
    "saving the simulated drive": "from ssdlab.runner import Runner; wrap(Runner, '_save_drive', ctrl_c)",
    "writing run.json": "from ssdlab.bundle import Bundle\n"
                        "wrap(Bundle, 'write_run', ctrl_c, lambda self, record: record.status == 'interrupted')",
    "writing the report": "import ssdlab.cli.run as run; wrap(run, 'write_report_or_say', ctrl_c)",
    "closing the display": "from rich.live import Live; wrap(Live, 'stop', ctrl_c)",
    "printing the line": "import ssdlab.cli as cli; wrap(cli, '_fail', ctrl_c)",
}


@pytest.mark.parametrize("moment", sorted(SECOND))
def test_a_second_ctrl_c_at_each_step_of_stopping(tmp_path: Path, moment: str) -> None:
    out = tmp_path / "b"
    run = terminal((*QUICK, "-o", str(out)), hook=FIRST + SECOND[moment])
    assert_stopped(run, out)


def completed_line(bundle: Path) -> str:
    path = Bundle(bundle).path
    return (f"stopped: interrupted by the user after the run completed; its bundle {path} is complete: "
            f"`ssdlab report {path}` shows it")


# A Ctrl-C at a moment after the run's last measurement: the hook that sends it (BOOT's wrap).
AFTER_MEASURED = {
    "printing the tables": "import ssdlab.cli.run as run; wrap(run, 'print_tables', ctrl_c)",
    "closing the display": "from rich.live import Live; wrap(Live, 'stop', ctrl_c)",
    "adding it to the library": "import ssdlab.cli.run as run; wrap(run, 'add_finished_run', ctrl_c)",
    "writing the report": "import ssdlab.cli.run as run; wrap(run, 'write_report_or_say', ctrl_c)",
    "printing the object": "import ssdlab.cli.run as run; wrap(run, 'run_json', ctrl_c)",
}


@pytest.mark.parametrize("moment", ["printing the tables", "closing the display", "adding it to the library"])
def test_ctrl_c_after_the_last_measurement_says_the_run_is_complete(tmp_path: Path, moment: str) -> None:
    """QA: a Ctrl-C while the result tables printed cut them with no line."""
    hook = AFTER_MEASURED[moment]
    out = tmp_path / "b"
    run = terminal((*QUICK, "-o", str(out)), hook=hook)
    assert run.code == 130, run.screen[-3000:]
    assert "Traceback" not in run.screen
    # What the stop left undone is said: adding the run to the library comes before the tables.
    library = f"; add it to the results library with `ssdlab library add {Bundle(out).path}`"
    assert last_message(run) == completed_line(out) + ("" if moment == "printing the tables" else library)
    assert Bundle(out).load_run().status == "complete"


def test_a_ctrl_c_a_display_swallows_still_stops_the_run(tmp_path: Path) -> None:
    """A KeyboardInterrupt caught by a broad `except BaseException` on its way (here a display's)
    was lost, and the run went on to finish "complete"; the run now stops before its next step."""
    hook = """
    from ssdlab.progress import LiveObserver
    def swallow():
        try:
            ctrl_c()
            sum(range(1000))  # the KeyboardInterrupt is raised here
        except BaseException:
            pass
    wrap(LiveObserver, "action_started", swallow, nth(10))
    """
    out = tmp_path / "b"
    run = terminal((*QUICK, "-o", str(out)), hook=hook)
    assert_stopped(run, out)


def test_ctrl_c_while_a_resumed_test_simulates_its_finished_steps_again(tmp_path: Path) -> None:
    """--resume simulates the stopped test's finished actions again on its saved drive; the
    simulator takes a Ctrl-C there as anywhere and returns early, and that was not looked at:
    the Ctrl-C was ignored and the run finished "complete"."""
    out = tmp_path / "b"
    first = terminal((*QUICK, "-o", str(out)), hook=FIRST)
    assert_stopped(first, out)
    assert (out / "state").is_dir()  # the drive it stopped on, to continue from
    # Ctrl-C while the simulator replays: from its progress call, where it takes one as it runs.
    again = """
    import dataclasses
    from ssdlab.engines.sim import SimEngine
    from ssdlab.runner import Runner
    replaying, fired, measure = [], [], SimEngine.measure
    def once(update):
        if not fired:
            fired.append(True)
            ctrl_c()
    def replayed(self, target, workload, ctx):
        if replaying:
            ctx = dataclasses.replace(ctx, progress=once)
        return measure(self, target, workload, ctx)
    SimEngine.measure = replayed
    wrap(Runner, "_replay", lambda: replaying.append(True))
    """
    run = terminal(("run", "--resume", str(out)), hook=again)
    assert_stopped(run, out)


def cli_process(args: Sequence[str], hook: str = "", **streams: Any) -> subprocess.Popen[str]:
    """`ssdlab ARGS` as its own process, this tree's package, with no terminal; `hook`: as terminal()'s.
    Its Ctrl-C is a terminal job's (SIG_DFL), as terminal() gives it: pytest run in the background of
    a non-interactive shell (CI, a fresh clone's check) has SIGINT ignored, a child keeps that, and
    the CLI rightly keeps a stop it was started ignoring, so a hook's Ctrl-C never came (fresh64)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent / "python"),
           "SSDLAB_TEST_HOOK": textwrap.dedent(hook)}
    program = ["-c", BOOT] if hook else ["-m", "ssdlab"]
    return subprocess.Popen([sys.executable, *program, *args], env=env, stdin=subprocess.DEVNULL, text=True,
                            preexec_fn=_ctrl_c_as_a_terminal_job, **streams)


def _ctrl_c_as_a_terminal_job() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# One test of several seconds that writes nothing while it runs: its line comes as it ends.
LONG = ("run", "--test", "consistency", "-t", "sim:?capacity_gib=8", "-p", "runtime_s=900", "--no-report",
        "--no-library")


def test_a_run_whose_output_pipe_closes_stops_at_once_as_on_a_signal_and_resumes(tmp_path: Path) -> None:
    """QA: `ssdlab run … 2>&1 | head -3` exited 1 with no word once head had its lines (rich ends
    the program, SystemExit(1), at a write to a closed pipe, and no stop handling saw it), and
    left run.json "running": `report` and `library list` said so of a run nothing ran. A closed
    output now stops the run as SIGTERM does: what was measured is kept, the bundle is marked
    interrupted and says why, the exit status is a shell's for a closed pipe (128 + SIGPIPE), and
    --resume completes the run. QA again: `run --suite consistency … 2>&1 | head -2` then ran the test
    to its end for no one, the reader's going found only at the next write, the test's line as it
    ended: it is found as it goes, and the running test stops then."""
    out = tmp_path / "b"
    proc = cli_process((*LONG, "-o", str(out)), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path)
    close_after(proc.stdout, 2)  # a capacity note, then the test's start
    closed_at = time.monotonic()
    assert proc.wait(timeout=240) == 128 + signal.SIGPIPE
    stopped_s = time.monotonic() - closed_at
    record = Bundle(out).load_run()
    closed = "the output was closed (stdout: broken pipe)"  # stdout and stderr share the pipe: the first named
    assert (record.status, record.error) == ("interrupted", closed)
    assert [(t.name, t.status, t.error) for t in record.tests] == [("consistency", "interrupted", closed)]
    assert not list(tmp_path.glob("ssdlab-crash-*"))

    began = time.monotonic()
    again = cli_process(("run", "--resume", str(out)), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, stderr = again.communicate(timeout=240)
    whole_s = time.monotonic() - began  # the whole test: it stopped in its first steps, and starts over
    assert again.returncode == 0, stderr
    assert Bundle(out).load_run().status == "complete"
    # It stopped long before the test's end (before, it ran all of it after head had gone).
    assert stopped_s < whole_s / 2, (stopped_s, whole_s)


def test_ctrl_c_on_a_run_piped_to_tee_is_the_users_stop_not_a_closed_output(tmp_path: Path) -> None:
    """QA: Ctrl-C on `ssdlab run … | tee log` reaches ssdlab and tee. tee's end was found closed
    while the simulator held ssdlab's main thread, and the run was recorded as stopped by "the
    output was closed (stdout: broken pipe)", exit status 141: the user's Ctrl-C was not named."""
    out = tmp_path / "b"
    # Four times LONG's workload: with the preconditioned drive cached, LONG's once ended within the 2 s
    # before the Ctrl-C (a fresh clone's full run: "complete"); the stop still comes 2 s in.
    longer = tuple("runtime_s=3600" if arg == "runtime_s=900" else arg for arg in LONG)
    run = terminal((*longer, "-o", str(out)), ctrl_c_after=[("consistency: ", 2.0)],
                   piped_to=f"tee {tmp_path / 'log'}")
    assert run.lines[-1].endswith("rc=130"), run.screen[-2000:]  # after the ^C the terminal echoes
    record = Bundle(out).load_run()
    assert (record.status, record.error) == ("interrupted", "interrupted by the user")


def test_a_run_whose_stdout_closes_says_why_on_stderr(tmp_path: Path) -> None:
    """A reader of the tables that goes away (`ssdlab run … | head -1`) stops the run's last steps
    as a stop signal would; the run is complete and stderr, still open, says so in one line:
    no traceback, no "Exception ignored … BrokenPipeError" as Python flushes stdout at exit."""
    out = tmp_path / "b"
    proc = cli_process(("run", "--test", "quick", "-t", "sim:?capacity_gib=16", "-p", "runs=1", "-p",
                        "runtime_s=1", "-o", str(out), "--no-report"), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    close_after(proc.stdout, 1)  # "Results library: added": the tables come next
    stderr, path = stopped_closed_after_complete(proc, out)  # and it is in the library: not offered again
    assert "Traceback" not in stderr and "Exception ignored" not in stderr
    assert Bundle(out).load_run().status == "complete"
    assert [run.bundle for run in Library().runs()] == [path]


def test_a_run_to_a_file_or_a_terminal_is_never_stopped_as_a_closed_output(tmp_path: Path) -> None:
    """Only a pipe or a socket can lose its reader: a run with stdout to a file and stderr on a
    terminal (and the other way round) is never taken as closed, and completes."""
    for number, terminal_is in enumerate(("stderr", "stdout")):
        out = tmp_path / f"b{number}"
        master, slave = pty.openpty()
        with (tmp_path / f"out{number}.txt").open("w") as file:
            other = "stderr" if terminal_is == "stdout" else "stdout"
            proc = cli_process((*QUICK_SIM, "-o", str(out), "--no-report"), **{terminal_is: slave, other: file})
            os.close(slave)
            try:
                screen = read_until_exit(master, proc, 240.0)
            finally:
                os.close(master)
        assert proc.wait() == 0, screen.decode(errors="replace")[-2000:]
        assert Bundle(out).load_run().status == "complete"


# Windows of a whole period, as short a run: windows under one are warned of in a line of their own
# (planning.short_window_warnings), which would move the lines these tests close their pipes after.
QUICK_SIM = ("run", "--test", "quick", "-t", "sim:?capacity_gib=8", "-p", "runtime_s=1", "-p", "runs=1")


def close_after(pipe: IO[str] | None, lines: int) -> None:
    """`| head -LINES`: read that many lines of a process's output pipe, then close it."""
    assert pipe is not None
    for _ in range(lines):
        pipe.readline()
    pipe.close()


def assert_complete_and_kept(out: Path) -> None:
    """The run is complete, in the library and reported: nothing it measured is left undone."""
    path = Bundle(out).path
    assert Bundle(out).load_run().status == "complete"
    assert [run.bundle for run in Library().runs()] == [path]
    assert (path / "report.html").is_file()


# 3: the pipe closes once the last test's "done:" line is read (a capacity note, then the test's
# start, come first): the run is measured; 4: after "Results library: added", the run was added.
@pytest.mark.parametrize("lines", [3, 4])
def test_a_run_whose_output_pipe_closes_once_measured_is_still_added_and_reported(tmp_path: Path,
                                                                                   lines: int) -> None:
    """QA: `ssdlab run … 2>&1 | head -2` left the complete run out of the library, `| head -3`
    left it without report.html, both exiting 141 with no word (stderr was closed too) and
    `run --resume` refusing a complete run: nothing said so or put it right. The library entry
    and the report are files a reader that went away has no say in: they are done, then the
    program exits as a closed pipe ends it."""
    out = tmp_path / "b"
    proc = cli_process((*QUICK_SIM, "-o", str(out)), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       cwd=tmp_path)
    close_after(proc.stdout, lines)
    assert proc.wait(timeout=240) == 128 + signal.SIGPIPE
    assert_complete_and_kept(out)
    assert not list(tmp_path.glob("ssdlab-crash-*"))


def test_a_stop_signal_after_the_output_pipe_closed_is_obeyed_at_once(tmp_path: Path) -> None:
    """The bookkeeping goes on past a closed output, not past a stop signal: SIGTERM as the report
    begins stops it there, as it does with the output open (the run is in the library, which came
    first). The first stop, the closed pipe, still names the exit status (and the words: the next
    test, where stderr is open to say them)."""
    out = tmp_path / "b"
    hook = """
    import ssdlab.cli.run as run
    wrap(run, "write_report_or_say", lambda: os.kill(os.getpid(), signal.SIGTERM))
    """
    proc = cli_process((*QUICK_SIM, "-o", str(out)), hook=hook, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    close_after(proc.stdout, 3)
    assert proc.wait(timeout=240) == 128 + signal.SIGPIPE
    assert Bundle(out).load_run().status == "complete"
    assert [run.bundle for run in Library().runs()] == [Bundle(out).path]
    assert not (out / "report.html").exists()


def test_a_stop_signal_after_stdout_closed_is_told_as_the_closed_output(tmp_path: Path) -> None:
    """QA: `ssdlab run … | head -1`, stderr on the terminal, then a SIGTERM as the report was
    written: the line said "stopped: terminated (SIGTERM) after the run completed …" and the exit
    status was 141, the closed pipe's. The first stop decides both: the line names the closed
    output too (and so would the bundle, had the run not been complete)."""
    out = tmp_path / "b"
    hook = """
    import time
    import ssdlab.cli.run as run
    from ssdlab.errors import stop_received

    def closed_then_sigterm():
        deadline = time.monotonic() + 60
        while stop_received() is None and time.monotonic() < deadline:  # a write finds it, if nothing first
            print("more", flush=True)
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)

    wrap(run, "write_report_or_say", closed_then_sigterm)
    """
    proc = cli_process((*QUICK_SIM, "-o", str(out)), hook=hook, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    close_after(proc.stdout, 1)  # "Results library: added"
    stopped_closed_after_complete(proc, out)
    assert not (out / "report.html").exists()


def test_a_json_run_whose_progress_pipe_closes_once_measured_still_prints_its_object(tmp_path: Path) -> None:
    """`run --json … 2> >(head -3)`: stderr (the progress lines) closes as the last test's line is
    written; the run is added and reported, and stdout, still open, gets the complete run's
    object, as it gets a stopped run's. Before, it got the object of a run stopped after it
    completed, and the run was not added."""
    out = tmp_path / "b"
    with (tmp_path / "out.json").open("w") as stdout:
        proc = cli_process((*QUICK_SIM, "-o", str(out), "--json"), stdout=stdout, stderr=subprocess.PIPE)
        close_after(proc.stderr, 3)  # the last test's "done:" line: the run is measured
        assert proc.wait(timeout=240) == 128 + signal.SIGPIPE
    assert_complete_and_kept(out)
    printed = json.loads((tmp_path / "out.json").read_text())
    assert (printed["status"], printed["report"], "error" in printed) == (
        "complete", str(Bundle(out).path / "report.html"), False)


@pytest.mark.parametrize("moment", ["adding it to the library", "writing the report", "printing the object"])
def test_a_json_run_stopped_after_it_completed_still_prints_its_object(tmp_path: Path, moment: str) -> None:
    """QA: `timeout -s INT 2.5 ssdlab run … --json` stopped as the run completed printed nothing on
    stdout (exit 130), though the run was measured: a script lost a finished run's figures. stdout
    gets the complete run's object once, with the stop as its error and the report where one was
    written."""
    hook = AFTER_MEASURED[moment]
    out = tmp_path / "b"
    proc = cli_process((*QUICK_SIM, "-o", str(out), "--json"), hook=hook, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    stdout, stderr = proc.communicate(timeout=240)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    printed = json.loads(stdout)  # one object, whole
    assert printed["status"] == "complete" and printed["tests"][0]["metrics"]
    assert Bundle(out).load_run().status == "complete"
    if moment == "printing the object":  # held while it was said: the object as a finished run's, then the stop
        assert "error" not in printed or printed["error"] is None
    else:
        assert printed["error"].startswith("interrupted by the user after the run completed")
        assert printed["report"] is None
