"""Checks on a file a command is about to write (a report, a comparison, a trace, an export),
made before any work so a path that cannot be a file is refused in one line instead of after
minutes of rendering, importing or capturing (then as an OS error about a temporary file).

A path the user names may hold a file already: ssdlab replaces it only when it is a file of the
same kind that ssdlab wrote, told by its content (OutputKind), never a bundle's file or the
results library in use (docs/safety.md, "Paths the user names"). QA: `report A -o B/run.json`
wrote a page over another bundle's run record, `library export LIB --library LIB` a CSV over
the library."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import UsageError

BUNDLE_RECORD = "run.json"  # bundle.RUN_FILE (not imported: bundle imports this module)
HEAD_BYTES = 4096  # how much of a file its kind is read from


@dataclass(frozen=True)
class OutputKind:
    """A kind of file a command writes, and how to tell one that ssdlab wrote by its content
    (never by its name: a user's file may be called anything). `noun` completes "… exists and is
    not …" ("a report ssdlab wrote")."""

    noun: str
    written_by_ssdlab: Callable[[Path], bool]


def check_output_file(path: Path, example_name: str, kind: OutputKind | None = None,
                      in_use: Sequence[tuple[Path, str]] = ()) -> None:
    """Refuse a directory, an existing non-regular file (a FIFO would block the writer, a device
    would be written), a link to nothing (writers differ on one: some write through it and make
    its target's folders, some replace it), an existing file ssdlab may not replace
    (check_replaceable: `kind`, `in_use`), a path below a file or a link to nothing, and a path
    whose folder cannot be written (a read-only file system, /proc, no permission). Missing
    parent directories are fine: the writer makes them once it has something to write.
    `example_name` is the file name suggested inside a directory given by mistake."""
    if path.is_dir():
        raise UsageError(f"{path} is a directory: give the file to write, e.g. {path / example_name}")
    if path.is_symlink() and not path.exists():
        raise UsageError(f"{path} is a link to {os.readlink(path)}, which does not exist; give another output name")
    if path.exists() and not path.is_file():
        raise UsageError(f"{path} is {what_is(path)}, not a file to write; give another output name")
    if path.exists():
        check_replaceable(path, kind, in_use)
    for parent in path.parents:
        if parent.is_dir():
            _check_writable(path, parent)
            return
        if parent.is_symlink() and not parent.exists():
            raise UsageError(f"{path}: {parent} is a link to nothing, not a directory; give another path")
        if parent.exists():
            raise UsageError(f"{path}: {parent} is {what_is(parent)}, not a directory; give another path")


def where_written(text: str) -> Path:
    """The file an output path the user typed names, as the writers will reach it: its folder
    resolved as far as it exists (links followed, each '..' taken after the folder before it), its
    own name kept, so a link there is judged as one (QA: `-o nodir/../victim.html` named a folder
    that did not exist, so no check saw the file it reached, which the write then replaced; and
    the folder was made). Refuses, in one line, a name that is empty or ends with a '/' (a folder,
    which a path would silently drop)."""
    if not text.strip():
        raise UsageError("the output name is empty: give the file to write")
    if text.endswith(("/", os.sep)) or Path(text).name in ("", ".", ".."):
        raise UsageError(f"{text} names a folder: give the file to write in it")
    path = Path(text).expanduser()
    if ".." not in path.parent.parts:
        return path  # as typed: the checks name it so, and judge a link on the way as one
    return Path(os.path.realpath(path.parent)) / path.name


def check_replaceable(path: Path, kind: OutputKind | None, in_use: Sequence[tuple[Path, str]] = ()) -> None:
    """Refuse, before anything is written, to replace the existing file at `path` (a link: the
    file it points to, which the writers write through) unless it is a file of `kind` that
    ssdlab wrote: never a file of a bundle (the run's record and results: ssdlab never writes
    over them from outside, whatever they look like), never one of `in_use` (path, what it is:
    the results library the command reads), never a file of another kind. `kind` None: only the
    first two (the caller refuses the output for another reason next)."""
    real = path.resolve()
    for used, what in in_use:
        if real == used.resolve():
            raise UsageError(f"{path} is {what}: give another path")
    bundle = bundle_holding(real)
    if bundle is not None:
        raise UsageError(f"{path} is a file of the bundle {bundle} (it holds a {BUNDLE_RECORD}): ssdlab never "
                         "writes over a bundle's files; give a path outside it")
    if kind is not None and not kind.written_by_ssdlab(real):
        raise UsageError(f"{path} exists and is not {kind.noun}: give another path, or remove it first")


def bundle_holding(path: Path) -> Path | None:
    """The bundle a file is in: the nearest folder above it holding a run.json (a bundle's files
    sit at most a few folders below it), or None."""
    for folder in path.parents:
        if (folder / BUNDLE_RECORD).is_file():
            return folder
    return None


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The first `size` bytes of a file (b"" when it cannot be read): what its kind is told by."""
    try:
        with path.open("rb") as handle:
            return handle.read(size)
    except OSError:
        return b""


def make_folder_for(path: Path, option: str = "") -> list[Path]:
    """Make the missing folders of a file a command writes (report, compare, export, trace), in
    one line when that fails; `option` is how the user gave the path ('-o'), for the message.
    Called only once there is something to write (QA: a refused import left an empty folder);
    returns the folders made, top first, for remove_made_folders when the writing fails."""
    given = f"{option} {path}" if option else str(path)
    missing = [p for p in (path.parent, *path.parent.parents) if not p.exists() and not p.is_symlink()][::-1]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a folder on the way is something else: say what (a file, a device, a link)
        blocking = next(p for p in (path.parent, *path.parent.parents) if p.exists() or p.is_symlink())
        raise UsageError(f"{given}: {blocking} is {what_is(blocking)}, not a directory; give another path") from None
    except OSError as e:
        raise UsageError(f"{given}: cannot make its folder ({e.strerror}); give another path") from None
    return missing


def remove_made_folders(made: Sequence[Path]) -> None:
    """Remove the folders make_folder_for made, deepest first, where they are still empty: a
    write that failed or was stopped leaves no folder behind it."""
    for folder in reversed(made):
        try:
            folder.rmdir()
        except OSError:  # not empty (something else wrote there meanwhile), or gone: leave it
            return


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
    existing one: refuse now what they would be refused then. Permission bits do not tell it
    all (root may "write" /proc, which takes no new file: QA saw the error name a temporary
    folder there, after compare had printed its tables), so a hidden entry is made and removed."""
    if not os.access(folder, os.W_OK | os.X_OK):
        why = "a read-only file system" if _read_only_fs(folder) else "no permission to write there"
        raise UsageError(f"{path}: cannot write in {folder} ({why}); give another path")
    try:
        if folder == path.parent:  # the writer's temporary file
            fd, probe = tempfile.mkstemp(dir=folder, prefix=".ssdlab-probe-")
            os.close(fd)
            os.unlink(probe)
        else:  # the folders it makes
            os.rmdir(tempfile.mkdtemp(dir=folder, prefix=".ssdlab-probe-"))
    except OSError as e:
        why = ("a read-only file system" if _read_only_fs(folder) else
               "it takes no new files" if e.errno == errno.ENOENT else e.strerror or "refused")
        raise UsageError(f"{path}: cannot write in {folder} ({why}); give another path") from None


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
