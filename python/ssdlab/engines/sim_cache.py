"""A user-level cache of prepared simulated drives (docs/simulator.md, "Cache of prepared drives").

A test that prepares its own drive (purge, fill, torture) on a `sim:` target leaves a state
that depends only on the simulator build, the preset, its overrides, the seed, everything
the drive did before and the preparation's actions: the simulator is deterministic. The
cache keeps that state (a compressed snapshot) with the preparation's results under a key
of exactly those inputs, so a later run that would simulate the same preparation restores
it instead, with results identical to simulating it.

Entries live in $SSDLAB_SIM_CACHE, else $XDG_CACHE_HOME/ssdlab/sim (~/.cache by default),
one `<key>.snap` and one `<key>.json` (with the SHA-256 of the .snap) each; the cache is
bounded ($SSDLAB_SIM_CACHE_MAX_GB, 4 GB by default) and drops the least recently used entries first.

A writer holds an advisory lock (flock) on each part it writes, from before its first byte until the
entry is whole, so a part whose lock is free was left by a process that died (a crash, a kill) and
is removed, while one whose lock is held belongs to a running ssdlab and is left alone, whatever
its age (`sim cache --clear`, the clean-up after each store).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
import json
import math
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ssdlab.bundle import write_replacing_fd
from ssdlab.errors import UsageError
from ssdlab.outputs import what_is
from ssdlab.userdirs import xdg_base

DEFAULT_MAX_BYTES = 4 * 10**9
MAX_SETTING_GB = 1e6  # a petabyte: any larger figure is a typo
# The cache's own files: `<key>.snap`, `<key>.json`, and their half-written `.<name>.<random>.tmp`.
# Nothing else in the folder is touched: $SSDLAB_SIM_CACHE may point at a folder that holds more.
KEY_CHARS = 32
_KEY = re.compile(rf"[0-9a-f]{{{KEY_CHARS}}}")
_OWN_FILE = re.compile(rf"^\.?(?P<key>[0-9a-f]{{{KEY_CHARS}}})\.(snap|json)(\.[^/]+\.tmp)?$")
# Only where flock is refused (ENOLCK, EOPNOTSUPP: some network file systems), whose writers hold no
# lock, is a part told by its age: a pair is written within seconds, so one still alone after this
# was left by a crash or a kill.
ORPHAN_GRACE_S = 600.0
# Tries at a temporary file a clean-up did not remove in the instant between its making and its lock.
LOCK_TRIES = 20
SNAP_DIGEST = "snap_sha256"  # the sidecar's key for snap_digest of the snapshot written with it


def cache_dir() -> Path:
    explicit = os.environ.get("SSDLAB_SIM_CACHE")
    if explicit:
        return Path(explicit)
    return xdg_base("XDG_CACHE_HOME", ".cache") / "ssdlab" / "sim"


def max_bytes() -> int:
    """The cache's bound; a setting that is not a size (inf, -1, "abc") is refused, not guessed at."""
    raw = os.environ.get("SSDLAB_SIM_CACHE_MAX_GB", "").strip()
    if not raw:
        return DEFAULT_MAX_BYTES
    try:
        size_gb = float(raw)
    except ValueError:
        size_gb = math.nan
    if not (math.isfinite(size_gb) and 0 <= size_gb <= MAX_SETTING_GB):
        raise UsageError(f"SSDLAB_SIM_CACHE_MAX_GB must be a size in GB from 0 to {MAX_SETTING_GB:g}, not {raw!r}; "
                         "unset it for the default 4")
    return int(size_gb * 1e9)


@functools.cache
def build_digest(extension_file: str) -> str:
    """The simulator build: a rebuilt extension (another FTL, other timings) never hits an old entry."""
    return hashlib.sha256(Path(extension_file).read_bytes()).hexdigest()


def snap_digest(data: bytes) -> str:
    """What a sidecar keeps of its snapshot's bytes, to know it on reading (SimCache.get)."""
    return hashlib.sha256(data).hexdigest()


def fold(history: str, action_json: str) -> str:
    """The drive's history after one more action (a running digest of everything it did)."""
    return hashlib.sha256(f"{history}\n{action_json}".encode()).hexdigest()


@dataclass(frozen=True)
class Entry:
    key: str
    size_bytes: int
    used: float  # last use, seconds since the epoch
    meta: dict[str, Any]


PartState = Literal["writing", "leftover"]


@dataclass(frozen=True)
class Part:
    """One of the cache's files that is not (yet) a whole entry: a temporary file, a `.snap`
    without its `.json`, an unreadable `.json`."""
    path: Path
    size_bytes: int
    state: PartState  # "writing": a running ssdlab holds its lock; "leftover": a dead process's


@dataclass(frozen=True)
class Cleared:
    """What `SimCache.clear` did: whole entries and leftover parts removed, parts being written left."""
    entries: int
    leftovers: int
    writing: int


@dataclass(frozen=True)
class SimCache:
    path: Path
    limit_bytes: int

    @classmethod
    def default(cls) -> SimCache:
        """The cache the settings give; a folder that is something else (a device, a FIFO, a
        file) is refused in one line, before a run starts, rather than failing a store later."""
        path = cache_dir()
        if path.exists() and not path.is_dir():
            raise UsageError(f"the sim cache {path} is not a directory ({what_is(path)}); point SSDLAB_SIM_CACHE at "
                             "a directory (or unset it for ~/.cache/ssdlab/sim)")
        return cls(path, max_bytes())

    def get(self, key: str) -> tuple[bytes, dict[str, Any]] | None:
        """The entry's snapshot and sidecar, or None. A snapshot that is not the one its sidecar
        was written with is dropped: the sidecar's history vouches for the drive (the run-ahead
        adopts a drive by it), so another entry's snapshot copied over this one's was taken for
        this drive (QA: 57 metrics differed)."""
        snap, meta = self.path / f"{key}.snap", self.path / f"{key}.json"
        try:
            data, info = snap.read_bytes(), json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(info, dict) or info.get(SNAP_DIGEST) != snap_digest(data):
            # Also an entry written before its snapshot had a digest: nothing can vouch for its
            # snapshot, and dropping it costs one simulation of what made it, stored again. Not
            # while a store of this key holds its new .snap's lock: its .json is the one coming.
            with contextlib.suppress(OSError):  # a read-only cache: a miss all the same
                if _remove_unless_held(snap):
                    meta.unlink(missing_ok=True)
            return None
        now = time.time()
        for file in (snap, meta):
            # Least recently used goes first. Not kept on a read-only cache (a lab's shared copy), or
            # when another process removed the entry after it was read (`sim cache --clear`, its
            # eviction): the bytes read are checked and whole. QA: both failed the run's test.
            with contextlib.suppress(OSError):
                os.utime(file, (now, now))
        return data, info

    def contains(self, key: str) -> bool:
        return (self.path / f"{key}.snap").is_file() and (self.path / f"{key}.json").is_file()

    def put(self, key: str, data: bytes, meta: dict[str, Any]) -> None:
        """Store an entry: its `.snap`, then its `.json`, each through a locked temporary file; the
        `.snap`'s lock is held until the `.json` is in place, so no clean-up takes a `.snap` still
        waiting for its `.json` for a crash's leftover (QA: `sim cache --clear` removed a running
        review's half-written part and its drive was not stored)."""
        self.path.mkdir(parents=True, exist_ok=True)
        snap_fd = _write_locked(self.path / f"{key}.snap", data, sync=False)
        try:
            sidecar = json.dumps({**meta, SNAP_DIGEST: snap_digest(data)}) + "\n"
            os.close(_write_locked(self.path / f"{key}.json", sidecar.encode(), sync=True))
        finally:
            os.close(snap_fd)
        self.evict()

    def entries(self) -> list[Entry]:
        """Every entry, most recently used first."""
        found = []
        for meta_file in self.path.glob("*.json"):
            if _KEY.fullmatch(meta_file.stem) is None:
                continue  # not the cache's: a user's notes.json beside a notes.snap is theirs
            snap = meta_file.with_suffix(".snap")
            try:
                meta = json.loads(meta_file.read_text(encoding="utf-8"))
                size = snap.stat().st_size + meta_file.stat().st_size
                used = snap.stat().st_mtime
            except (OSError, ValueError):
                continue
            found.append(Entry(meta_file.stem, size, used, meta))
        return sorted(found, key=lambda e: e.used, reverse=True)

    def evict(self) -> None:
        """Drop least recently used entries until the cache is within its bound, and the parts a
        dead process left half written (their lock is free), which no lookup can use."""
        total, kept = 0, set()
        for entry in self.entries():
            total += entry.size_bytes
            if total > self.limit_bytes:
                self.remove(entry.key)
            else:
                kept.add(entry.key)
        for file in self._part_files(kept):
            _remove_unless_held(file)

    def parts(self) -> list[Part]:
        """The cache's own files that belong to no whole entry, each being written (its lock held
        by a running ssdlab) or left by a process that died; their bytes are on disk all the same."""
        found = []
        for file in self._part_files({e.key for e in self.entries()}):
            state = _part_state(file)
            with contextlib.suppress(OSError):  # gone meanwhile: renamed into place, or removed
                if state is not None:
                    found.append(Part(file, file.lstat().st_size, state))
        return found

    def _part_files(self, whole: set[str]) -> list[Path]:
        """The cache's own files outside the whole entries `whole`: every temporary file, a `.snap`
        without its `.json`, an unreadable `.json`. Nothing else in the folder is the cache's."""
        found = []
        for file in self.path.iterdir() if self.path.is_dir() else ():
            match = _OWN_FILE.match(file.name)
            if match is None or (match["key"] in whole and not file.name.endswith(".tmp")):
                continue
            with contextlib.suppress(OSError):  # gone meanwhile
                if stat.S_ISREG(file.lstat().st_mode):
                    found.append(file)
        return found

    def remove(self, key: str) -> None:
        for suffix in (".snap", ".json"):
            (self.path / f"{key}{suffix}").unlink(missing_ok=True)

    def clear(self) -> Cleared:
        """Remove every entry and every part a dead process left; parts a running ssdlab is
        writing are left (it stores its drive a moment later, as it would after a clear)."""
        entries = self.entries()
        for entry in entries:
            self.remove(entry.key)
        leftovers = writing = 0
        for file in self._part_files(set()):
            if _remove_unless_held(file):
                leftovers += 1
            else:
                writing += 1
        return Cleared(len(entries), leftovers, writing)


def _write_locked(path: Path, data: bytes, sync: bool) -> int:
    """Write `path` through a temporary file beside it, renamed over it, holding the file's lock
    from before its first byte; the descriptor is returned with the lock held (the caller closes
    it, which lets the lock go)."""
    return write_replacing_fd(path, data, sync=sync, make_temp=_locked_temp)


def _locked_temp(path: Path) -> tuple[int, str]:
    """A new temporary file beside `path` with its lock held. A clean-up may take the lock of a
    file made an instant ago, before its maker does, and remove it as a leftover: the maker then
    holds the lock of a file no longer at its name, and makes another."""
    for _ in range(LOCK_TRIES):
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with contextlib.suppress(OSError):  # no flock here (see ORPHAN_GRACE_S): written unlocked
                fcntl.flock(fd, fcntl.LOCK_EX)  # a clean-up holds it for an unlink at most
            if _same_file(fd, tmp):
                return fd, tmp
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    raise OSError(errno.EAGAIN, "its temporary files kept being removed as they were made", str(path))


def _same_file(fd: int, name: Path | str) -> bool:
    """Whether `name` still names the file open at `fd` (not removed, not replaced)."""
    try:
        here, there = os.fstat(fd), os.stat(name, follow_symlinks=False)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


@contextlib.contextmanager
def _lock_probe(file: Path, mode: int) -> Iterator[bool | None]:
    """Try the part's lock (`mode`: fcntl.LOCK_SH to look, LOCK_EX to remove it) without waiting:
    True when taken (held for the block: no running ssdlab writes the part), False when a running
    ssdlab holds it, None where the file system refuses flock. FileNotFoundError when it is gone
    (its writer renamed it into place, or another clean-up removed it)."""
    fd = os.open(file, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            taken: bool | None = False
        except OSError:
            taken = None
        else:
            taken = True
            if not _same_file(fd, file):
                raise FileNotFoundError(errno.ENOENT, "renamed or removed since it was opened", str(file))
        yield taken
    finally:
        os.close(fd)  # lets the lock go


def _part_state(file: Path) -> PartState | None:
    """Whether a running ssdlab is writing the part; None when it is gone."""
    try:
        with _lock_probe(file, fcntl.LOCK_SH) as taken:
            return "writing" if _held(taken, file) else "leftover"
    except OSError:
        return None


def _remove_unless_held(file: Path) -> bool:
    """Remove a part a dead process left (its lock free); False when a running ssdlab writes it."""
    try:
        with _lock_probe(file, fcntl.LOCK_EX) as taken:
            if _held(taken, file):
                return False
            file.unlink(missing_ok=True)  # with its lock held: no writer renames it meanwhile
    except OSError:
        pass  # gone meanwhile (renamed into place by its writer, removed by another clean-up)
    return True


def _held(taken: bool | None, file: Path) -> bool:
    """A lock not taken is a running writer's; where flock is refused, a young part is taken for one."""
    if taken is None:
        try:
            return time.time() - file.lstat().st_mtime < ORPHAN_GRACE_S
        except OSError:
            return False
    return not taken


def prep_key(build: str, preset: str, overrides: dict[str, str], seed: int, history: str,
             actions: Sequence[str]) -> str:
    text = json.dumps({"build": build, "preset": preset, "overrides": dict(sorted(overrides.items())),
                       "seed": seed, "history": history, "actions": list(actions)})
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_CHARS]
