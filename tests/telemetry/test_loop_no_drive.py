"""A loop device is a file's blocks, not a drive: it has no temperature or throttle counters, and the
sampler says so, rather than that it "tried smartctl -A (missing smartmontools, or no permission)",
which reads as a tool to install (QA: the thermal test on /dev/loop2)."""

from __future__ import annotations

from pathlib import Path

from ssdlab.telemetry.sampler import array_source, drive_source


def asked(argv: list[str]) -> str | None:
    raise AssertionError(f"a loop device has no drive to ask: {argv}")


def loop_tree(tmp_path: Path, *names: str) -> Path:
    for name in names:
        (tmp_path / "class" / "block" / name / "loop").mkdir(parents=True)
    return tmp_path


def test_loop_device_has_no_drive_temperature(tmp_path: Path) -> None:
    source, note = drive_source("/dev/loop2", asked, loop_tree(tmp_path, "loop2"))
    assert source is None
    assert note == ("drive temperature: none (loop2 is a loop device, a file's blocks, not a drive: it has no "
                    "temperature or throttle counters to read)")


def test_array_of_loops_names_the_member(tmp_path: Path) -> None:
    source, note = array_source(["/dev/loop2", "/dev/loop3"], asked, loop_tree(tmp_path, "loop2", "loop3"))
    assert source is None and note is not None and note.startswith("drive temperature: none (loop2 is a loop device")
