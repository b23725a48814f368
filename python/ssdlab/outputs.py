"""Checks on a file a command is about to write (a report, a comparison, a trace, an export),
made before any work so a path that cannot be a file is refused in one line instead of after
minutes of rendering, importing or capturing (then as an OS error about a temporary file)."""

from __future__ import annotations

from pathlib import Path

from ssdlab.errors import UsageError


def check_output_file(path: Path, example_name: str) -> None:
    """Refuse a directory, an existing non-regular file (a FIFO would block the writer, a device
    would be written) and a path below a file. Missing parent directories are fine: the writer
    makes them. `example_name` is the file name suggested inside a directory given by mistake."""
    if path.is_dir():
        raise UsageError(f"{path} is a directory: give the file to write, e.g. {path / example_name}")
    if path.exists() and not path.is_file():
        raise UsageError(f"{path} exists and is not a regular file; give another output name")
    for parent in path.parents:
        if parent.is_dir():
            return
        if parent.exists() or parent.is_symlink():  # a file, or a link to nothing, cannot hold a file
            raise UsageError(f"{path}: {parent} is a file, not a directory; give another path")
