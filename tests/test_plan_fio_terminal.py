"""`ssdlab plan --fio` in a narrow terminal: the job files and the shell lines between them come out
as they are, never wrapped at the terminal's width (QA: in 60 columns a job file's long filename=
and the fallocate line under '--- not a fio job' broke over two lines, the second without '#', so
fio and a shell read what a user copied wrong). The plan's own words around them wrap as comments."""

from __future__ import annotations

from pathlib import Path

from pty_helpers import run_in_terminal


def test_job_files_and_step_lines_are_never_wrapped_in_a_terminal(tmp_path: Path) -> None:
    folder = tmp_path / "a_rather_long_directory_name_for_scratch_files" / "and_another_one_below_it"
    folder.mkdir(parents=True)
    image = folder / "new.img"
    shown = run_in_terminal("plan", "--test", "quick", "-t", f"file:{image}?size=64m", "-p", "runs=1", "--fio",
                            columns=60)
    assert shown.code == 0, shown.screen
    lines = shown.screen.replace("\r", "").split("\n")
    assert f"filename={image}" in lines
    assert f"# fallocate --length 67108864 {image}" in lines
    # every line is one fio reads: a comment, a section, an option, or nothing
    unread = [line for line in lines if line.strip() and not line.startswith(("#", ";", "[")) and "=" not in line]
    assert not unread, unread
