"""`file:PATH[?size=4g]` targets: a scratch file on an existing file system.

A file target never touches anything but its own file (docs/safety.md): it refuses paths that
exist and are not regular files (directories, devices, symlinks), never creates
directories, and only ever grows the file it owns. An existing file it did not create keeps
its size unless size= asks for more, and never becomes its own (no ownership mark).

With `--host`, the path names a file on each remote host, not on this machine: RemoteFileTarget
looks at, creates and marks nothing here (engines/fio_multi.py checks what it can on the hosts).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import os
import posixpath
import stat
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from ssdlab.errors import SafetyError, TargetError, UsageError
from ssdlab.targets.base import (
    ReadingProcess,
    SafetyState,
    Target,
    TargetInfo,
    confirm_by_name,
    held_by_another_run,
    permission_refusal,
)
from ssdlab.targets.iopath import file_warning
from ssdlab.targets.safety import Openers, file_in_use, file_openers_while_measuring, file_state, in_use_refusal
from ssdlab.targets.spec import split_query
from ssdlab.targets.sysinfo import SysRoot, block_facts, device_of_path, mount_of
from ssdlab.units import GIB, MIB, decimal_capacity, format_size, parse_size

DEFAULT_SIZE = GIB
FALLOC_FL_KEEP_SIZE = 0x01
FALLOC_FL_PUNCH_HOLE = 0x02
# File systems known to punch holes, for when the file does not exist yet to be probed.
PUNCH_HOLE_FS = frozenset({"ext4", "xfs", "btrfs", "tmpfs", "f2fs", "ocfs2", "gfs2", "zfs", "bcachefs"})


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def punch_hole(fd: int, offset: int, length: int) -> None:
    """fallocate(PUNCH_HOLE | KEEP_SIZE): give the range's blocks back, keep the file size."""
    libc = _libc()
    libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    if libc.fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


def allocated_bytes(path: Path) -> int:
    """Bytes the file really occupies (st_blocks is in 512-byte units whatever the fs)."""
    return os.stat(path).st_blocks * 512


# The mark ssdlab leaves on the scratch files it creates, so it never mistakes someone's file for one.
OWNED_XATTR = "user.ssdlab.scratch"
# What older ssdlab versions wrote as the mark: the same on every file, so a copy (cp -a, rsync -X,
# tar --xattrs) carried it, and a copy filled with someone's data was written unasked (QA).
LEGACY_MARK = b"1"


def file_mark(path: Path) -> bytes:
    """The mark of the file at `path`: its device and inode, which a copy does not share, while a
    rename on its file system keeps them."""
    found = os.stat(path, follow_symlinks=False)
    return f"{found.st_dev}:{found.st_ino}".encode()


def mark_owned(path: Path) -> None:
    """Mark a file as ssdlab's scratch file; on file systems without user xattrs, the next run
    simply asks for confirmation again."""
    with contextlib.suppress(OSError):
        os.setxattr(path, OWNED_XATTR, file_mark(path), follow_symlinks=False)


def file_safety(refusal: str | None, readers: tuple[ReadingProcess, ...] = ()) -> SafetyState:
    """`readers`: other programs reading the file, which refuse nothing but compete (safety.file_readers)."""
    if refusal is None:
        return SafetyState(readers=readers)
    return SafetyState(writable=False, reasons=(refusal,), readers=readers)


def check_job_safe(raw_path: str) -> None:
    """Refuse a path fio's job file would read as something else: a line break ends the
    filename= line (the next line may name a device), and fio expands $VAR, ${VAR} and its own
    $pagesize-style keywords in job files, so `${X}` could point it anywhere (fio's HOWTO,
    "Environment variables"). Other unprintable characters cannot be shown in a message either."""
    bad = next((c for c in raw_path if c == "$" or not c.isprintable()), None)
    if bad is not None:
        shown = "'$'" if bad == "$" else repr(bad)
        raise UsageError(f"file target: the path holds {shown}, which fio's job files would read as something "
                         "else (a new line, a variable); give a path without it")



# FS_IOC_GETFLAGS (linux/fs.h) and the inode flags that refuse every write, whoever asks (chattr +i / +a).
FS_IOC_GETFLAGS = 0x80086601
INODE_NO_WRITE_FLAGS = {0x10: "immutable (chattr +i)", 0x20: "append-only (chattr +a)"}


def inode_flags(path: Path) -> int:
    """The file's (or folder's) inode flags; 0 where the file system keeps none."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        buf = bytearray(8)
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, buf)
        return int.from_bytes(buf[:4], sys.byteorder)
    except OSError:  # ENOTTY: no inode flags here (tmpfs, some network file systems)
        return 0
    finally:
        os.close(fd)

@dataclass
class FileTarget(Target):
    spec: str
    path: Path
    size_bytes: int = DEFAULT_SIZE
    sysroot: SysRoot = field(default_factory=SysRoot)
    # Whether the spec named size=: the default alone never grows a file ssdlab did not create.
    size_given: bool = False
    kind = "file"
    _authorized: bool = field(default=False, repr=False)
    # (st_dev, st_ino) of the file prepare() checked and opened: what fio must write (fio_open).
    _identity: tuple[int, int] | None = field(default=None, repr=False)
    # (st_dev, st_ino) of the file this process made for its run's lock (create_locked): its own.
    _made: tuple[int, int] | None = field(default=None, repr=False, compare=False)
    # The hole-punching probe's finding for the file of that (st_dev, st_ino) (supports_punch_hole).
    _punch_probed: tuple[tuple[int, int], bool | None] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_spec(cls, spec: str, sysroot: SysRoot | None = None) -> FileTarget:
        raw_path, options = split_query(spec.removeprefix("file:"))
        unknown = set(options) - {"size"}
        if unknown:
            raise UsageError(f"file target: unknown option {sorted(unknown)[0]!r}; the only option is size=")
        if not raw_path:
            raise UsageError("file target: give a path, e.g. file:/mnt/scratch/ssdlab.dat?size=4g")
        check_job_safe(raw_path)
        size = parse_size(options["size"]) if "size" in options else DEFAULT_SIZE
        if size < MIB:
            raise UsageError("file target: size must be at least 1m (one MiB)")
        path = Path(os.path.abspath(os.path.expanduser(raw_path)))
        return cls(spec=spec, path=path, size_bytes=size, sysroot=sysroot or SysRoot(), size_given="size" in options)

    @property
    def fio_filename(self) -> str:
        return str(self.path)

    @contextmanager
    def fio_open(self) -> Iterator[str]:
        """The file prepare() checked, held open (O_NOFOLLOW) while fio runs, named as its magic
        link /proc/<ssdlab's pid>/fd/N: fio opens the path it is given and follows symlinks, so a
        symlink swapped in at the path after the checks was written through (QA: the victim it
        pointed at was overwritten). The magic link reopens the inode held here, whatever the path
        names by then (a rename, a symlink, another file). SafetyError when the path is already not
        that file. fio's jobs run as children of this process, which may open its descriptors."""
        fd = self._open_checked()
        try:
            yield f"/proc/{os.getpid()}/fd/{fd}"
        finally:
            os.close(fd)

    def _open_checked(self) -> int:
        """A read-only descriptor of the file at the path, refused when it is a symlink, not a
        regular file, or not the file prepare() checked (another file renamed there since)."""
        changed = f"{self.spec}: {self.path} changed since ssdlab checked it"
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as err:
            why = "it is a symlink now" if err.errno == errno.ELOOP else err.strerror
            raise SafetyError(f"{changed} ({why}); nothing was written to it; give the real path of a regular "
                              "file, and keep others from changing its folder during a run") from None
        found = os.fstat(fd)
        if stat.S_ISREG(found.st_mode) and self._identity in (None, (found.st_dev, found.st_ino)):
            return fd
        os.close(fd)
        why = "not a regular file now" if not stat.S_ISREG(found.st_mode) else "another file is at its path now"
        raise SafetyError(f"{changed} ({why}); nothing was written to it; keep others from changing its folder "
                          "during a run")

    def exclusive_paths(self) -> tuple[Path, ...]:
        return (self.path,)

    def create_locked(self, path: Path) -> int | None:
        """The scratch file made empty (O_EXCL: never someone's) and marked as ssdlab's, for the
        run's lock to hold before prepare() opens it for writing to grow it; None when another
        process made it first (its run's lock decides) or `path` is not this file."""
        if path != self.path:
            return None
        self.check()
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            return None
        except OSError as err:
            raise TargetError(f"{self.spec}: cannot create {self.path} ({err.strerror})") from None
        self._made = self._identity_of(fd)
        mark_owned(path)
        return fd

    def _made_here(self) -> bool:
        """Whether the file at the path is the one create_locked made (also where no mark is kept)."""
        try:
            found = os.stat(self.path, follow_symlinks=False)
        except OSError:
            return False
        return self._made == (found.st_dev, found.st_ino)

    def confirmation_token(self) -> str | None:
        return str(self.path) if self.foreign() else None

    def check(self) -> None:
        """Refuse anything that is not (or could not become) our own regular file."""
        if not self.path.parent.is_dir():
            raise TargetError(f"{self.spec}: directory {self.path.parent} does not exist; create it first")
        try:
            mode = os.lstat(self.path).st_mode
        except FileNotFoundError:
            return
        if stat.S_ISLNK(mode):
            raise TargetError(
                f"{self.spec}: {self.path} is a symlink (to {os.path.realpath(self.path)}); "
                "give the real path of a regular file"
            )
        if not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "a device or special file"
            raise TargetError(f"{self.spec}: {self.path} is {kind}, not a regular file; ssdlab will not touch it")

    def _mark(self) -> bytes | None:
        """The scratch mark the file carries (None: none, or no file)."""
        try:
            return os.getxattr(self.path, OWNED_XATTR, follow_symlinks=False)
        except OSError:
            return None

    def owned(self) -> bool:
        """Whether the file is ssdlab's own scratch file (ssdlab marks the files it creates)."""
        mark = self._mark()
        try:
            return mark is not None and mark == file_mark(self.path)
        except OSError:
            return False

    def legacy_marked(self) -> bool:
        """Whether the file carries an older ssdlab's mark, which its copies carry too."""
        return self._mark() == LEGACY_MARK

    def foreign(self) -> bool:
        """An existing file ssdlab did not create: writing it needs the user's confirmation."""
        return self.path.exists() and not self.owned() and not self._made_here()

    def write_refusal(self) -> str | None:
        return self._refusal(file_in_use(self.sysroot, self.path))

    def _refusal(self, reasons: Sequence[str]) -> str | None:
        return in_use_refusal(self.spec, "a file", reasons) if reasons else None

    def openers_while_measuring(self) -> Openers:
        """Other processes writing or reading the file now (one scan of every process's open
        files: the engine's watch reads it during every workload, by its cost)."""
        return file_openers_while_measuring(self.sysroot, self.path)

    def authorize_writes(self, destroy: bool, confirmed_serial: str | None) -> None:
        """Files in use are refused; a file ssdlab did not create needs --destroy and its path."""
        self._authorized = False
        held = held_by_another_run(self.path)
        if held:
            raise TargetError(f"{self.spec}: {held}")
        refusal = self.write_refusal()
        if refusal:
            raise SafetyError(refusal)
        if self.foreign():
            too_small = self._size_refusal(writing=True)
            if too_small:
                raise TargetError(too_small)
            confirm_by_name(self.spec, f"{self.path} exists and {self._whose()}: writing destroys its "
                            f"contents{self._growth_words()}", str(self.path), destroy, confirmed_serial,
                            also=(self.path.name,))
        shortfall = self._space_shortfall()
        if shortfall:  # refused before the run writes its bundle, not at the first test
            raise TargetError(f"{self.spec}: {shortfall}; free space or give a smaller size=")
        self._authorized = True

    def _whose(self) -> str:
        if self.legacy_marked():
            return ("carries an older ssdlab's scratch mark, which copies of its files carry too (delete the file "
                    "to let ssdlab make a new one)")
        return "was not created by ssdlab"

    def writes_authorized(self) -> bool:
        return self._authorized or not self.foreign()

    def prepare(self) -> None:
        self.check()
        self._identity = None
        if self.foreign():
            # Someone's file: a read-only test changes nothing; a confirmed write keeps its size
            # unless size= asked for more, and it stays theirs (the next write asks again).
            too_small = self._size_refusal(writing=self._authorized)
            if too_small:
                raise TargetError(too_small)
            if not self._authorized:
                fd = self._open_checked()
                self._identity = self._identity_of(fd)
                os.close(fd)
                return
        created, self._identity = self._create_or_grow()
        if created:
            mark_owned(self.path)  # only a file ssdlab made is its own

    @staticmethod
    def _identity_of(fd: int) -> tuple[int, int]:
        found = os.fstat(fd)
        return found.st_dev, found.st_ino

    def _size_refusal(self, writing: bool) -> str | None:
        """Why someone's file cannot be used at this size: it is smaller, and only a size= the user
        named, in a run that writes (confirmed), grows it. None for ssdlab's own file (grown)."""
        try:
            have_bytes = os.stat(self.path).st_size
        except OSError:
            return None
        if have_bytes >= self.size_bytes or not self.foreign() or (writing and self.size_given):
            return None
        fits = f"give a size= that fits in it (at most {format_size(have_bytes)})"
        if self.size_given:
            return f"{self.spec}: {self.path} is smaller than size={format_size(self.size_bytes)}; {fits}"
        return (f"{self.spec}: {self.path} ({format_size(have_bytes)}) is smaller than the default size, "
                f"{format_size(DEFAULT_SIZE)} (no size= was given); {fits}, or a larger size= to grow it in a run "
                "that writes (ssdlab grows a file it did not create only when asked)")

    def _growth_words(self) -> str:
        """What a confirmed write does to the size of someone's file, for the confirmation."""
        try:
            have_bytes = os.stat(self.path).st_size
        except OSError:
            return ""
        if have_bytes >= self.size_bytes:
            return ""
        return f" and grows it from {format_size(have_bytes)} to size={format_size(self.size_bytes)}"

    def _create_or_grow(self) -> tuple[bool, tuple[int, int]]:
        """Create the file or grow it to its size; whether it was created here, and the identity
        of the file it opened (O_NOFOLLOW: never through a symlink), which fio_open holds to."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        created = not self.path.exists()
        try:
            fd = os.open(self.path, flags, 0o644)
        except OSError as err:
            doing = "create" if created else "open"
            raise TargetError(f"{self.spec}: cannot {doing} {self.path} for writing ({err.strerror})") from None
        try:
            identity = self._identity_of(fd)
            created = created or identity == self._made  # made empty for the run's lock (create_locked)
            # Only grow: a larger file may hold a previous run's preconditioned data.
            had_bytes = os.fstat(fd).st_size
            if had_bytes < self.size_bytes:
                self._allocate(fd, had_bytes, created)
        finally:
            os.close(fd)
        return created, identity

    def _allocate(self, fd: int, had_bytes: int, created: bool) -> None:
        """Real blocks for the whole file, not a sparse one. A file system that cannot hold it
        is refused before any block is taken; an allocation that fails anyway is undone, since
        ext4 keeps the blocks it managed to allocate and would be left full."""
        shortfall = self._space_shortfall()
        try:
            if shortfall:
                raise OSError(errno.ENOSPC, shortfall)
            os.posix_fallocate(fd, 0, self.size_bytes)
        except OSError as err:
            os.ftruncate(fd, had_bytes)
            if created:
                self.path.unlink(missing_ok=True)
            raise TargetError(f"{self.spec}: cannot allocate {self.size_bytes} bytes ({err.strerror}); free space "
                              "or give a smaller size=") from None

    def setup_refusal(self, writes: bool) -> str | None:
        """Too little free space to grow the file, a read-only file system, an immutable file or
        folder: what `run` refuses (rc 2) before writing anything, when it writes, or prepares a
        file of its own (prepare() opens that for writing, whatever the tests do). Read only."""
        if not writes and self.foreign():
            return None
        shortfall = self._space_shortfall()  # what authorize_writes refuses with, in its words
        if shortfall:
            return f"{self.spec}: {shortfall}; free space or give a smaller size="
        where = self.path if self.path.exists() else self.path.parent
        try:
            read_only = bool(os.statvfs(where).f_flag & os.ST_RDONLY)
            flags = inode_flags(where)
        except OSError:
            return None  # run says what it finds
        if read_only:
            return f"{self.spec}: {where} is on a read-only file system; give a file on a writable one"
        said = [text for bit, text in INODE_NO_WRITE_FLAGS.items() if flags & bit]
        if said:
            return (f"{self.spec}: {where} is {said[0]}, so not even root can write it; clear that flag (as root: "
                    "chattr -i, or -a) or give another file")
        # after the flags, which deny root too and are said in their words: a new file is made in its
        # folder (written and searched), an existing one is opened
        return permission_refusal(self.spec, where, writes=True, folder=where != self.path)

    def _space_shortfall(self) -> str | None:
        """Why the file system cannot grow the file to its size, or None when it can."""
        have = self.path.stat().st_size if self.path.exists() else 0
        disk = os.statvfs(self.path.parent)
        free_bytes = disk.f_bavail * disk.f_frsize
        if self.size_bytes - have <= free_bytes:
            return None
        return (f"the file system has {decimal_capacity(free_bytes)} free, too little to grow {self.path} to "
                f"{decimal_capacity(self.size_bytes)}")

    def _space_notes(self) -> tuple[str, ...]:
        """What `run` would stop at (it allocates the whole file before measuring), said by `plan` too."""
        too_small = self._size_refusal(writing=True)
        if too_small:  # someone's file refused at its size: it is not grown, whatever the space
            return (f"run would refuse it: {too_small.removeprefix(f'{self.spec}: ')}",)
        shortfall = self._space_shortfall()
        notes = () if shortfall is None else (f"{shortfall}: a run that writes would stop at once; free space or "
                                              "give a smaller size=",)
        return self._growth_notes() + notes

    def _growth_notes(self) -> tuple[str, ...]:
        """That a run that writes grows someone's file to the size= asked, said by `plan` and `info`."""
        growth = self._growth_words() if self.foreign() else ""
        if growth:
            return (f"{self.path} {self._whose()}: a run that writes destroys its contents{growth} "
                    f"(confirmed with --destroy --yes={self.path}); a run that only reads is refused at that size",)
        return ()

    def supports_punch_hole(self, fstype: str | None) -> bool | None:
        """Probe on our own file past its end (touches no data, but does update its times),
        else go by the fs type: someone else's file is not touched at all. Not while a run holds
        the file's lock (this process's own run too): the probe opens the file for writing, and a
        run reads whether another process has it open for writing before each write, so a second
        run's start stopped the first (QA). The finding is kept for the file it was made on."""
        by_type = None if fstype is None else fstype in PUNCH_HOLE_FS
        if not self.owned():
            return by_type
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return by_type
        try:
            identity = self._identity_of(fd)
            if self._punch_probed is not None and self._punch_probed[0] == identity:
                return self._punch_probed[1]
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # a run that starts now is refused meanwhile
            except BlockingIOError:
                return by_type
            found = self._probe_punch_hole(by_type)
            self._punch_probed = (identity, found)
            return found
        finally:
            os.close(fd)

    def _probe_punch_hole(self, by_type: bool | None) -> bool | None:
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_NOFOLLOW)
        except OSError:
            return by_type
        try:
            punch_hole(fd, os.fstat(fd).st_size + 4096, 4096)
            return True
        except OSError as err:
            return False if err.errno in (errno.EOPNOTSUPP, errno.ENOSYS) else None
        finally:
            os.close(fd)

    def info(self) -> TargetInfo:
        self.check()
        mount = mount_of(self.sysroot, Path(os.path.realpath(self.path.parent)))
        fstype = mount.fstype if mount else None
        source = mount.source if mount else None
        device = device_of_path(self.sysroot, self.path.parent)
        facts = block_facts(self.sysroot, device) if device else None
        fs_block = os.statvfs(self.path.parent).f_bsize
        state = file_state(self.sysroot, self.path)  # writers and readers from one scan of every process
        return TargetInfo(
            spec=self.spec, kind="file", path=str(self.path),
            model=f"scratch file on {fstype or 'unknown fs'} ({source or 'unknown device'})",
            capacity_bytes=self.size_bytes,
            # Direct I/O must align to the device's logical block; the fs block is the
            # unit the file system allocates in, the file's "physical" block.
            logical_block_size=facts.logical_block_size if facts else 512,
            physical_block_size=fs_block, transport="file",
            write_cache=facts.write_cache if facts else None, fua=facts.fua if facts else None,
            discard=self.supports_punch_hole(fstype), rotational=facts.rotational if facts else None,
            io_warning=file_warning(self.sysroot, fstype, device),
            safety=file_safety(self._refusal(state.reasons), state.readers),
            notes=self._space_notes(),
            extra={"fstype": fstype, "fs_source": source, "backing_device": device,
                   "backing_transport": facts.transport if facts else None,
                   "backing_disk_bytes": facts.disk_bytes if facts else None,
                   "backing_model": facts.model if facts else None,
                   "exists": self.path.exists(), "owned": self.owned()},
        )



class HostFiles(Protocol):
    """What deletes a --host run's files on the hosts when the run ends (engines/fio_multi.py):
    this machine cannot, only fio's connection to each host's server reaches them."""

    def remove_files(self, target: RemoteFileTarget) -> None:
        """Delete the run's file on every host, or raise TargetError naming each one left there."""
        ...


@dataclass(frozen=True)
class RemoteFileTarget(Target):
    """`file:PATH` run with `--host`: the path is on each host, where the run has one file,
    `PATH.ssdlab-<run id>-hN` on host N, for all its workloads: made (its whole size allocated)
    at the run's first workload and deleted when the run ends (engines/fio_multi.py).

    Nothing here is looked at or touched: no local parent directory, ownership mark, free space,
    in-use check or lock applies to a file this machine never opens. fio_filename is only set on
    the copy for one host's job file (for_host), so no local engine or step can reach PATH here."""

    spec: str
    path: str  # absolute, as the hosts see it
    size_bytes: int
    hosts: tuple[str, ...]  # HOST:PORT of each fio server
    run_id: str = "RUNID"  # names the run's files on the hosts; kept in run.json for a resume
    host_file: str | None = None  # one host's file, on the copy made for its job file
    files: HostFiles | None = field(default=None, compare=False, repr=False)  # deletes them at the run's end
    kind = "file"

    @classmethod
    def from_spec(cls, spec: str, hosts: tuple[str, ...], run_id: str = "RUNID", files: HostFiles | None = None,
                  ) -> RemoteFileTarget:
        raw_path, options = split_query(spec.removeprefix("file:"))
        unknown = set(options) - {"size"}
        if unknown:
            raise UsageError(f"file target: unknown option {sorted(unknown)[0]!r}; the only option is size=")
        check_job_safe(raw_path)
        # This machine's working directory and home mean nothing on a host: fio --server there
        # would resolve a relative path from its own working directory.
        if not raw_path.startswith("/") or raw_path.endswith("/"):
            raise UsageError(f"{spec}: with --host, give the absolute path of the file on the hosts, "
                             "e.g. file:/srv/scratch/ssdlab.dat")
        size = parse_size(options.get("size", "1g"))
        if size < MIB:
            raise UsageError("file target: size must be at least 1m (one MiB)")
        return cls(spec=spec, path=raw_path, size_bytes=size, hosts=hosts, run_id=run_id, files=files)

    @property
    def directory(self) -> str:
        return posixpath.dirname(self.path)

    def host_file_name(self, index: int, run_id: str | None = None) -> str:
        """The run's file on host `index`: its name carries the run's id, so it is the run's own
        (`run_id`: another of the run's names, its start-up probe's)."""
        return f"{self.path}.ssdlab-{run_id or self.run_id}-h{index}"

    def host_file_names(self) -> list[str]:
        """The run's file on each host, in the hosts' order."""
        return [self.host_file_name(index) for index in range(len(self.hosts))]

    def for_host(self, index: int) -> RemoteFileTarget:
        """This target as host `index`'s job file names it."""
        return replace(self, host_file=self.host_file_name(index))

    @property
    def fio_filename(self) -> str:
        if self.host_file is None:
            raise TargetError(f"{self.spec}: the file is on the --host hosts ({', '.join(self.hosts)}), not on "
                              "this machine; only fio's client reaches it")
        return self.host_file

    def prepare(self) -> None:
        """Nothing to make here: the hosts' files are made at the run's first workload, by fio there."""
        return None

    def release(self) -> None:
        """Delete the run's file on every host (the runner calls this when the run ends, also on
        Ctrl-C or failure); raises TargetError naming the files it could not delete."""
        if self.files is not None:
            self.files.remove_files(self)

    def keeps_state(self) -> bool:
        return False  # the hosts' files are deleted when the run stops: nothing carries to a resumed run

    def info(self) -> TargetInfo:
        where = ", ".join(self.hosts)
        files = self.host_file_names()
        return TargetInfo(
            spec=self.spec, kind="file", path=self.path,
            model=f"scratch file on {where} (fio --server)",
            capacity_bytes=self.size_bytes, transport="file",
            notes=(f"the file is on the hosts, not on this machine: the run writes one new file "
                   f"{self.path}.ssdlab-{self.run_id}-h<N> on host N ({where}) for all its workloads, and "
                   f"deletes it when it ends; {self.path} on this machine is not used",),
            extra={"remote_hosts": list(self.hosts), "remote_run_id": self.run_id, "remote_files": files},
        )
