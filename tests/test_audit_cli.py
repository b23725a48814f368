"""`ssdlab audit fua`: what the command line may be given and what it answers.

Most tests replace the tracefs capture with a fake (no root, no device): what is checked here is
the command line, not the capture (tests/trace/test_capture_loop.py captures for real)."""

from __future__ import annotations

import math
import os
import re
import subprocess
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from loop_helpers import attached_loop
from ssdlab.trace.capture import CaptureResult

EXAMPLES = int(os.environ.get("SSDLAB_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
REFUSED_COMMAND = (126, 127)  # as a shell, time(1) and env(1): cannot run it, not found


@dataclass
class FakeCapture:
    """Stands for trace.capture.capture: records its calls, captures nothing; runs the command
    only when asked to (`run`), with no stdin and a time limit."""

    run: bool = False
    calls: list[tuple[str, float | None, list[str]]] = field(default_factory=list)

    def __call__(self, device: str, out_path: Path, *, seconds: float | None = None, command: Sequence[str] = (),
                 root: Path = Path("/")) -> CaptureResult:
        self.calls.append((device, seconds, list(command)))
        out_path.write_text("")
        status = None
        if command:
            status = subprocess.run(list(command), stdin=subprocess.DEVNULL, timeout=10, check=False).returncode \
                if self.run else 0
        return CaptureResult(lines=0, seconds=0.0, command_status=status)


@pytest.fixture
def fake_capture(monkeypatch: pytest.MonkeyPatch) -> FakeCapture:
    fake = FakeCapture()
    monkeypatch.setattr("ssdlab.trace.capture.capture", fake)
    return fake


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ssdlab.trace.generate import generate
    from ssdlab.trace.model import write_trace

    path = tmp_path_factory.mktemp("trace") / "light.parquet"
    prov, chunks = generate("light", seed=1, scale=0.001, fua_pct=10)
    write_trace(path, chunks, prov)
    return path


def one_line_error(result, code: int | tuple[int, ...], *words: str) -> None:  # type: ignore[no-untyped-def]
    codes = code if isinstance(code, tuple) else (code,)
    lines = result.stderr.strip().splitlines()
    assert result.code in codes and len(lines) == 1 and lines[0].startswith("error:"), (result.code, result.stderr)
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0], lines[0]


# --- 1. --seconds ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "-1", "0", "-0", "-1e-300"])
def test_seconds_that_are_not_a_finite_positive_number_are_refused_before_capturing(
        cli: Callable, fake_capture: FakeCapture, value: str) -> None:
    """nan or inf captured until killed; 0 or less captured nothing and said "0 of 0 writes"."""
    one_line_error(cli("audit", "fua", "-d", "/dev/vda", f"--seconds={value}"), 2, "--seconds", "above 0")
    assert fake_capture.calls == []


@pytest.mark.parametrize("value", ["nan", "1e400", "-1", "abc", "", "0x10"])
def test_a_bad_duration_reads_as_trace_capture_words_it(cli: Callable, fake_capture: FakeCapture, tmp_path: Path,
                                                       value: str) -> None:
    """Both commands capture for --seconds; one value got two wordings ("nan" vs "'nan'", and
    click's "is not a valid float" for a word), so both now parse it with one parser."""
    audit = cli("audit", "fua", "-d", "/dev/vda", f"--seconds={value}")
    capture = cli("trace", "capture", "-d", "/dev/vda", f"--seconds={value}", "-o", str(tmp_path / "c.parquet"))
    assert audit.code == capture.code == 2
    assert audit.stderr.strip().splitlines() == capture.stderr.strip().splitlines()
    assert fake_capture.calls == []


def test_seconds_need_a_device_and_no_command(cli: Callable, fake_capture: FakeCapture, trace_file: Path) -> None:
    one_line_error(cli("audit", "fua", str(trace_file), "--seconds", "1"), 2, "--seconds goes with --device")
    one_line_error(cli("audit", "fua", "-d", "/dev/vda", "--seconds", "1", "--", "true"), 2, "not both")
    one_line_error(cli("audit", "fua", "-d", "/dev/vda"), 2, "--seconds N or -- COMMAND")
    assert fake_capture.calls == []
    assert cli("audit", "fua", "-d", "/dev/vda", "--seconds", "0.25").code == 0
    assert fake_capture.calls == [("/dev/vda", 0.25, [])]


# --- 2. a trace file or a device ---------------------------------------------------------------


@pytest.mark.parametrize("order", ["file first", "device first"])
def test_a_trace_file_and_a_device_are_refused(cli: Callable, fake_capture: FakeCapture, trace_file: Path,
                                               order: str) -> None:
    """The trace file was run as the command to audit ("Permission denied: …parquet")."""
    args = [str(trace_file), "-d", "/dev/vda"] if order == "file first" else ["-d", "/dev/vda", str(trace_file)]
    one_line_error(cli("audit", "fua", *args), 2, "give a trace file or --device, not both", "after `--`")
    assert fake_capture.calls == []


def test_what_comes_before_dashes_is_a_trace_and_after_them_a_command(
        cli: Callable, fake_capture: FakeCapture, trace_file: Path) -> None:
    # A command without `--` is not run: it is taken for a trace file.
    one_line_error(cli("audit", "fua", "-d", "/dev/vda", "true"), 2, "not both", "after `--`")
    one_line_error(cli("audit", "fua", str(trace_file), "more", "words"), 2, "unexpected more words", "after `--`")
    # A trace file after `--` is not read: it is taken for a command, which needs a device.
    one_line_error(cli("audit", "fua", "--", str(trace_file)), 2, "give --device DEV too")
    assert fake_capture.calls == []
    result = cli("audit", "fua", str(trace_file))
    assert result.code == 0 and "22 of 200 writes (11.0 %) carried FUA" in result.stdout
    # After `--` everything is the command's, options included.
    assert cli("audit", "fua", "-d", "/dev/vda", "--", "true", "--seconds", "-d").code == 0
    assert fake_capture.calls == [("/dev/vda", None, ["true", "--seconds", "-d"])]


# --- 3. the wrapped command's exit status ------------------------------------------------------


@pytest.mark.parametrize(("command", "status", "words"), [
    (["false"], 1, "false failed with exit status 1"),
    (["sh", "-c", "exit 3"], 3, "failed with exit status 3"),
    (["sh", "-c", "kill -KILL $$"], 128 + 9, "killed by signal 9 (SIGKILL), exit status 137"),
    (["true"], 0, None),
])
def test_the_audited_commands_exit_status_is_passed_on(cli: Callable, fake_capture: FakeCapture,
                                                       command: list[str], status: int, words: str | None) -> None:
    """Like time(1): the audit is printed, then ssdlab exits as the command did."""
    fake_capture.run = True
    result = cli("audit", "fua", "-d", "/dev/vda", "--", *command)
    assert "no writes, so none carried FUA" in result.stdout  # (the fake capture saw none)
    if words is None:
        assert result.code == 0 and result.stderr == ""
    else:
        one_line_error(result, status, words, "audited above")


@pytest.mark.parametrize(("mode", "code"), [(["--", "true"], 130), (["--seconds", "5"], 0)])
def test_a_stopped_audit_prints_what_it_captured(cli: Callable, monkeypatch: pytest.MonkeyPatch,
                                                 mode: list[str], code: int) -> None:
    """Ctrl-C (or SIGTERM) during the capture: the audit of what was captured is printed; a command
    that did not finish is no success (130, as a shell says of a command stopped by Ctrl-C), while
    --seconds N stopped early is the capture the user chose to end."""

    def stopped(device: str, out_path: Path, **_: object) -> CaptureResult:
        out_path.write_text("")
        raise KeyboardInterrupt

    monkeypatch.setattr("ssdlab.trace.capture.capture", stopped)
    result = cli("audit", "fua", "-d", "/dev/vda", *mode)
    assert "stopped: auditing what was captured" in result.stdout and "no writes, so none" in result.stdout
    assert result.code == code
    if code:
        assert result.stderr.strip() == "stopped: true did not finish; the audit above is of its I/O until then"


def test_a_command_that_cannot_start_is_a_one_line_error_naming_it(
        cli: Callable, fake_capture: FakeCapture, tmp_path: Path) -> None:
    script = tmp_path / "script.sh"
    script.write_text("#!/bin/sh\ntrue\n")
    one_line_error(cli("audit", "fua", "-d", "/dev/vda", "--", "no-such-command-x"), 127, "'no-such-command-x'",
                   "not found on PATH")
    one_line_error(cli("audit", "fua", "-d", "/dev/vda", "--", str(tmp_path / "nope")), 127, "not found")
    one_line_error(cli("audit", "fua", "-d", "/dev/vda", "--", str(script)), 126, str(script), "not executable")
    one_line_error(cli("audit", "fua", "-d", "/dev/vda", "--", str(tmp_path)), 126, "directory")
    assert fake_capture.calls == []


def test_a_program_exec_refuses_is_a_one_line_error(cli: Callable, fake_capture: FakeCapture,
                                                    tmp_path: Path) -> None:
    """Executable, yet not a program (no #! line, junk): the exec fails inside the capture."""
    junk = tmp_path / "junk"
    junk.write_bytes(b"\x7fELF junk")
    junk.chmod(0o755)
    fake_capture.run = True
    one_line_error(cli("audit", "fua", "-d", "/dev/vda", "--", str(junk)), 126, str(junk), "Exec format error")


# --- any command line --------------------------------------------------------------------------

# Text as argv can hold it (no NUL), brackets included: errors quote it as text, not rich markup.
WORDS = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=12)
NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr), st.integers(-(2**70), 2**70).map(str),
                    st.sampled_from(["nan", "inf", "-inf", "1e400", "0", "-0", "0.3", "1", "1e-9", "abc", "", " 2 "]),
                    WORDS)


@st.composite
def audit_argv(draw: st.DrawFn, trace: str) -> tuple[list[str], bool, bool]:
    """An `audit fua` command line: (argv, a trace file was given, a device was given). Most are
    of the three shapes the command takes, with any values; the rest mix their parts."""
    shape = draw(st.sampled_from(["trace", "seconds", "command", "any"]), label="shape")

    def part(shapes: tuple[str, ...], *values: st.SearchStrategy) -> st.SearchStrategy:  # type: ignore[type-arg]
        if shape == "any":  # every part, or none
            return st.one_of(st.none(), *values)
        return st.one_of(*values) if shape in shapes else st.none()

    path = draw(part(("trace",), st.just(trace), st.just("Makefile"), WORDS), label="path")
    device = draw(part(("seconds", "command"), st.just("/dev/vda"), WORDS), label="device")
    seconds = draw(part(("seconds",), st.sampled_from(["0.3", "2", "1e-9"]), NUMBERS), label="seconds")
    words = st.one_of(st.sampled_from(["true", "false", "--", "-d", "--seconds", "--help", trace]), WORDS)
    command = draw(part(("command",), st.lists(words, min_size=1, max_size=3)), label="command")
    options = []
    if device is not None:
        options += ["-d", device]
    if seconds is not None:
        options += draw(st.sampled_from([[f"--seconds={seconds}"], ["--seconds", seconds]]))
    positional = [] if path is None else [path]
    argv = positional + options if draw(st.booleans()) else options + positional
    if command is not None:
        argv += ["--", *command]
    event(f"shape {shape}")
    return argv, path is not None, device is not None


@FUZZ
@given(data=st.data())
def test_any_audit_command_line_is_a_result_or_a_one_line_error(
        cli: Callable, fake_capture: FakeCapture, trace_file: Path, data: st.DataObject) -> None:
    argv, with_path, with_device = data.draw(audit_argv(str(trace_file)))
    fake_capture.calls.clear()
    result = cli("audit", "fua", *argv)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    if result.code != 0:
        event("refused")
        one_line_error(result, (2, *REFUSED_COMMAND))
    elif "Usage:" in result.stdout:
        event("help")  # a word that was --help
    else:
        event("audited")
        assert with_path != with_device, argv  # one of the two, never both
    for _device, seconds, command in fake_capture.calls:  # what reached the capture was one of its two uses
        assert with_device and not with_path and (seconds is None) == bool(command), argv
        assert seconds is None or (math.isfinite(seconds) and seconds > 0), argv


# --- for real, on a loop device (root) ---------------------------------------------------------


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[str]:
    with attached_loop(tmp_path / "loop.img") as device:
        yield device


@pytest.mark.root
def test_a_failing_command_on_a_loop_device_is_audited_then_its_status_passed_on(
        cli: Callable, loop: str, tmp_path: Path) -> None:
    write_then_fail = f"dd if=/dev/zero of={loop} bs=4k count=8 oflag=direct status=none; exit 5"
    result = cli("audit", "fua", "-d", loop, "--", "sh", "-c", write_then_fail)
    assert "0 of 8 writes (0.0 %) carried FUA" in result.stdout
    one_line_error(result, 5, "failed with exit status 5")
    result = cli("audit", "fua", "-d", loop, "--", "sh", "-c", "kill -TERM $$")
    one_line_error(result, 128 + 15, "killed by signal 15 (SIGTERM)")
    one_line_error(cli("audit", "fua", "-d", loop, "--seconds", "nan"), 2, "--seconds")


@pytest.mark.root
def test_the_kernels_flushes_are_flushes_not_preflushes(cli: Callable, loop: str) -> None:
    """QA: `dd oflag=direct,sync` gave "writes 100, FUA 0, preflushes 200, flushes 200": each flush
    request is marked PREFLUSH (RWBS `FF`), and was counted as a write's preflush too."""
    result = cli("audit", "fua", "-d", loop, "--", "dd", "if=/dev/zero", f"of={loop}", "bs=4k", "count=100",
                 "oflag=direct,sync", "status=none")
    assert result.code == 0, result.stderr
    every = re.search(r"│ all +│ +(\d+) │ +(\d+) │ +[\d.]+ │ +(\d+) │ +(\d+) │", result.stdout)
    assert every is not None, result.stdout
    writes, fua, preflushes, flushes = map(int, every.groups())
    assert (writes, fua, preflushes) == (100, 0, 0) and flushes >= 100, result.stdout


def test_a_source_file_is_refused_with_how_to_import_it(cli: Callable, tmp_path: Path) -> None:
    """QA: the run path says to convert a file that is not a trace; `audit fua` did not."""
    src = tmp_path / "t.csv"
    src.write_text("1000000,hm,1,Read,0,4096,100\n")
    one_line_error(cli("audit", "fua", str(src)), 2, "is not an ssdlab trace (Parquet)",
                   "convert it with `ssdlab trace import`")


@pytest.mark.parametrize(("write_cache", "fua", "words"), [
    ("write back", "0", "as a write and a flush each (the FUA emulated), and a second flush after each O_DSYNC "
                        "write to a block device itself (concurrent writes share flushes): the device has a volatile "
                        "cache and no FUA "
                        "(queue/write_cache 'write back', queue/fua 0)"),
    ("write back", "1", "as FUA writes, and a flush after each O_DSYNC write to a block device itself"),
    ("write through", "0", "as plain writes, with no flush reaching the device: the device has no volatile "
                           "write cache"),
])
def test_a_device_audit_says_what_the_kernel_makes_of_a_fua_write(tmp_path: Path, write_cache: str, fua: str,
                                                                  words: str) -> None:
    """QA: `dd oflag=direct,dsync` on a device with queue/fua 0 gave "0 of 20 writes (0.0 %) carried
    FUA" beside 40 flushes, with no word of why; the `trace` test words it (DSYNC_BECOMES)."""
    from ssdlab.cli.audit import device_path_sentence
    from ssdlab.targets.sysinfo import SysRoot

    queue = tmp_path / "class" / "block" / "sdz" / "queue"
    queue.mkdir(parents=True)
    (queue / "write_cache").write_text(write_cache + "\n")
    (queue / "fua").write_text(fua + "\n")
    sentence = device_path_sentence("/dev/sdz", SysRoot(sys=tmp_path))
    assert sentence is not None and sentence.startswith("On /dev/sdz the kernel sends a FUA or O_DSYNC write")
    assert words in sentence
    assert device_path_sentence("/dev/sdy", SysRoot(sys=tmp_path)) is None  # sysfs does not say


@pytest.mark.root
def test_dsync_writes_on_a_device_without_fua_are_explained(cli: Callable, loop: str) -> None:
    result = cli("audit", "fua", "-d", loop, "--", "dd", "if=/dev/zero", f"of={loop}", "bs=4k", "count=20",
                 "oflag=direct,dsync", "status=none")
    assert result.code == 0, result.stderr
    assert "0 of 20 writes (0.0 %) carried FUA" in result.stdout
    # QA (2026-11-28): 20 O_DSYNC writes at QD1 reach a loop device with 40 flushes (the FUA emulated
    # by a flush after each write, then the sync's own); the sentence said "a write and a flush each"
    assert re.search(r"│ all\s+│\s+20 │\s+0 │\s+0\.0 │\s+0 │\s+40 │", result.stdout), result.stdout
    assert re.search(r"the kernel sends a FUA or O_DSYNC write as a write and a flush each \(the FUA emulated\),\s+"
                     r"and a second flush after each O_DSYNC write to a block device itself", result.stdout), \
        result.stdout
