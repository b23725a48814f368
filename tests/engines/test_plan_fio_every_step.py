"""`ssdlab plan --fio` is the whole run as a user replays it: every action of the plan in its place, each
job file fio's, each step between them a shell line that runs as printed (QA, job files as data: quick's
idles between its entries were left out, and a file's purge line ended in a remark the shell took as arguments)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ssdlab.engines import fio_steps
from ssdlab.steps import Idle, SetWriteCache
from ssdlab.targets.file import FileTarget

BLOCK_HEAD = re.compile(r"^# --- (?P<test>[^/]+) / (?P<name>[^:]+?)(?P<step>: not a fio job; ssdlab runs)? ---$",
                        re.MULTILINE)


def heads(text: str) -> list[tuple[str, bool]]:
    """(name, is a step) of each block of the output, in order."""
    return [(m["name"], bool(m["step"])) for m in BLOCK_HEAD.finditer(text)]


def listed_steps(text: str) -> list[str]:
    """The plan's numbered list: '#     8. idle 5s' -> 'idle 5s'."""
    return [m[1] for m in re.finditer(r"^#\s+\d+\. (.+)$", text, re.MULTILINE)]


def test_every_action_of_quick_is_a_block_in_its_place(cli: Callable[..., Any], tmp_path: Path) -> None:
    result = cli("plan", f"file:{tmp_path}/q.dat?size=64m", "--test", "quick", "--fio",
                 "-p", "runs=1", "-p", "interval_s=2", "-p", "size_bytes=16m")
    assert result.code == 0, result.stderr
    listed, blocks = listed_steps(result.stdout), heads(result.stdout)
    assert len(blocks) == len(listed)
    for line, (name, is_step) in zip(listed, blocks, strict=True):
        assert line.startswith("idle" if is_step else f"{name}:"), (line, name)
    assert sum(is_step for _, is_step in blocks) == 7  # between 8 entries
    assert result.stdout.count("\n# sleep 2\n") == 7


def test_a_file_purge_line_runs_in_a_shell_as_printed(cli: Callable[..., Any], tmp_path: Path) -> None:
    data = tmp_path / "p.dat"
    result = cli("plan", f"file:{data}?size=4m", "--test", "qd-sweep", "--fio", "-p", "span_bytes=1m",
                 "-p", "queue_depths=1", "-p", "runtime_s=1")
    assert result.code == 0, result.stderr
    text = result.stdout
    line = text[text.index("/ purge: not a fio job"):].splitlines()[1]
    assert line.startswith("# fallocate ")
    data.write_bytes(b"\xff" * (4 << 20))
    done = subprocess.run(["bash", "-c", line[2:]], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert data.stat().st_size == 4 << 20
    assert data.read_bytes() == bytes(4 << 20)  # punched: reads as zeros


def test_steps_say_what_a_user_runs() -> None:
    target = FileTarget(spec="file:/x/y.dat", path=Path("/x/y.dat"), size_bytes=1 << 20)
    assert fio_steps.step_command(target, Idle(seconds=1.5)) == "sleep 1.5"
    assert fio_steps.step_command(target, SetWriteCache(enabled=False)).startswith("none: ")


@pytest.mark.parametrize("enabled, word", [(True, "'write back'"), (False, "'write through'")])
def test_kernel_write_cache_switch_is_the_attribute_write(machine_block: Any, enabled: bool, word: str) -> None:
    line = fio_steps.step_command(machine_block, SetWriteCache(enabled=enabled))
    assert line.startswith(f"echo {word} > ") and line.endswith("/queue/write_cache")


@pytest.fixture
def machine_block() -> Any:
    """The NVMe drive of the recorded machine (tests/fixtures/sysfs), which step_command only reads about."""
    from ssdlab.targets.block import BlockTarget
    from ssdlab.targets.sysinfo import SysRoot

    dev = Path(__file__).resolve().parents[1] / "fixtures" / "sysfs" / "machine" / "dev"
    root = SysRoot(sys=dev.parent / "sys", mountinfo=dev.parent / "proc" / "mountinfo",
                   swaps=dev.parent / "proc" / "swaps", dev=dev)
    return BlockTarget(spec="/dev/nvme0n1", name="nvme0n1", sysroot=root, run=lambda argv: None)


def run_as_printed(text: str, where: Path) -> list[tuple[str, int, str]]:
    """Each block of `plan --fio` as a user runs it, in order: a step's shell line with bash, a job
    file with fio; (block head, exit status, stderr) of each."""
    done = []
    parts = re.split(r"^(# --- .* ---)$", text, flags=re.MULTILINE)
    for number, (head, body) in enumerate(zip(parts[1::2], parts[2::2], strict=True)):
        if "not a fio job" in head:
            argv = ["bash", "-c", body.strip().splitlines()[0].removeprefix("# ")]
        else:
            job = where / f"{number:02d}.fio"
            job.write_text(body)
            argv = ["fio", "--output=/dev/null", job.name]
        ran = subprocess.run(argv, cwd=where, capture_output=True, text=True, check=False)
        done.append((head, ran.returncode, ran.stderr.strip()))
    return done


@pytest.mark.fio
def test_the_printed_run_goes_through_on_a_new_file(cli: Callable[..., Any], tmp_path: Path) -> None:
    """QA: on a path that did not exist yet, the first printed line (qd-sweep's purge) failed: the
    file ssdlab makes before its first job was not said."""
    data = tmp_path / "new.dat"
    result = cli("plan", f"file:{data}?size=4m", "--test", "qd-sweep", "--fio", "-p", "span_bytes=1m",
                 "-p", "queue_depths=1", "-p", "runtime_s=0.2")
    assert result.code == 0, result.stderr
    assert not data.exists()
    outcomes = run_as_printed(result.stdout, tmp_path)
    assert len(outcomes) == 2 + 1 + 4  # the file, the purge, the fill and four points
    assert [(head, code, err) for head, code, err in outcomes if code != 0] == []
    assert data.stat().st_size == 4 << 20
