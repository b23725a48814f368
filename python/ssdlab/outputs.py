"""Checks on a file a command is about to write (a report, a comparison, a trace, an export),
made before any work so a path that cannot be a file is refused in one line instead of after
minutes of rendering, importing or capturing (then as an OS error about a temporary file)."""

from __future__ import annotations

import os
from pathlib import Path

from ssdlab.errors import UsageError


def check_output_file(path: Path, example_name: str) -> None:
    """Refuse a directory, an existing non-regular file (a FIFO would block the writer, a device
    would be written), a link to nothing (writers differ on one: some write through it and make
    its target's folders, some replace it), a path below a file or a link to nothing, and a path
    whose folder cannot be written (a read-only file system, no permission). Missing parent
    directories are fine: the writer makes them. `example_name` is the file name suggested
    inside a directory given by mistake."""
    if path.is_dir():
        raise UsageError(f"{path} is a directory: give the file to write, e.g. {path / example_name}")
    if path.is_symlink() and not path.exists():
        raise UsageError(f"{path} is a link to {os.readlink(path)}, which does not exist; give another output name")
    if path.exists() and not path.is_file():
        raise UsageError(f"{path} exists and is not a regular file; give another output name")
    for parent in path.parents:
        if parent.is_dir():
            _check_writable(path, parent)
            return
        if parent.is_symlink() and not parent.exists():
            raise UsageError(f"{path}: {parent} is a link to nothing, not a directory; give another path")
        if parent.exists():
            raise UsageError(f"{path}: {parent} is a file, not a directory; give another path")


def make_folder_for(path: Path, option: str = "") -> None:
    """Make the missing folders of a file a command writes (report, compare, export), in one
    line when that fails; `option` is how the user gave the path ('-o'), for the message."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        given = f"{option} {path}" if option else str(path)
        raise UsageError(f"{given}: cannot make its folder ({e.strerror}); give another path") from None


def _check_writable(path: Path, folder: Path) -> None:
    """The writers make a temporary file (and any missing folders) in `folder`, the nearest
    existing one: refuse now what they would be refused then."""
    if not os.access(folder, os.W_OK | os.X_OK):
        why = "a read-only file system" if _read_only_fs(folder) else "no permission to write there"
        raise UsageError(f"{path}: cannot write in {folder} ({why}); give another path")


def _read_only_fs(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False
