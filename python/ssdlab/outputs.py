"""Checks on a file a command is about to write (a report, a comparison, a trace, an export),
made before any work so a path that cannot be a file is refused in one line instead of after
minutes of rendering, importing or capturing (then as an OS error about a temporary file)."""

from __future__ import annotations

import errno
import os
import stat
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
        raise UsageError(f"{path} is {what_is(path)}, not a file to write; give another output name")
    for parent in path.parents:
        if parent.is_dir():
            _check_writable(path, parent)
            return
        if parent.is_symlink() and not parent.exists():
            raise UsageError(f"{path}: {parent} is a link to nothing, not a directory; give another path")
        if parent.exists():
            raise UsageError(f"{path}: {parent} is {what_is(parent)}, not a directory; give another path")


def make_folder_for(path: Path, option: str = "") -> None:
    """Make the missing folders of a file a command writes (report, compare, export), in one
    line when that fails; `option` is how the user gave the path ('-o'), for the message."""
    given = f"{option} {path}" if option else str(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a folder on the way is something else: say what (a file, a device, a link)
        blocking = next(p for p in (path.parent, *path.parent.parents) if p.exists() or p.is_symlink())
        raise UsageError(f"{given}: {blocking} is {what_is(blocking)}, not a directory; give another path") from None
    except OSError as e:
        raise UsageError(f"{given}: cannot make its folder ({e.strerror}); give another path") from None


KINDS = {stat.S_IFREG: "a file", stat.S_IFDIR: "a directory", stat.S_IFBLK: "a block device",
         stat.S_IFCHR: "a character device", stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFSOCK: "a socket"}


def what_is(path: Path) -> str:
    """What a path is, for a message: 'a block device', 'a FIFO (named pipe)', 'a link to
    /dev/loop1, a block device', 'a link to X, which does not exist', 'nothing' (missing)."""
    try:
        st = path.lstat()
    except OSError:
        return "nothing"
    if not stat.S_ISLNK(st.st_mode):
        return KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
    target = os.readlink(path)
    try:
        return f"a link to {target}, {KINDS.get(stat.S_IFMT(path.stat().st_mode), 'not a regular file')}"
    except OSError:
        return f"a link to {target}, which does not exist"


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


def write_attribute(path: Path, text: str) -> None:
    """Write a kernel attribute file (sysfs, tracefs), which exists and is regular: never
    through a link, never creating a file, never into a device node or a FIFO."""
    fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.write(fd, text.encode())
    finally:
        os.close(fd)
