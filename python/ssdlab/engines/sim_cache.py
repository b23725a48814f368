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
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab.bundle import atomic_write_bytes, atomic_write_text
from ssdlab.errors import UsageError
from ssdlab.outputs import what_is
from ssdlab.userdirs import xdg_base

DEFAULT_MAX_BYTES = 4 * 10**9
MAX_SETTING_GB = 1e6  # a petabyte: any larger figure is a typo
# The cache's own files: `<key>.snap`, `<key>.json`, and their half-written `.<name>.<random>.tmp`.
# Nothing else in the folder is touched: $SSDLAB_SIM_CACHE may point at a folder that holds more.
KEY_CHARS = 32
_OWN_FILE = re.compile(rf"^\.?(?P<key>[0-9a-f]{{{KEY_CHARS}}})\.(snap|json)(\.[^/]+\.tmp)?$")
# A pair is written within seconds; a part still alone after this was left by a crash or a kill.
ORPHAN_GRACE_S = 600.0
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
            # snapshot, and dropping it costs one simulation of what made it, stored again.
            with contextlib.suppress(OSError):  # a read-only cache: a miss all the same
                self.remove(key)
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
        atomic_write_bytes(self.path / f"{key}.snap", data)
        atomic_write_text(self.path / f"{key}.json", json.dumps({**meta, SNAP_DIGEST: snap_digest(data)}) + "\n")
        self.evict()

    def entries(self) -> list[Entry]:
        """Every entry, most recently used first."""
        found = []
        for meta_file in self.path.glob("*.json"):
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
        """Drop least recently used entries until the cache is within its bound, and the parts of
        entries a crash left half written, which no lookup can use."""
        total, kept = 0, set()
        for entry in self.entries():
            total += entry.size_bytes
            if total > self.limit_bytes:
                self.remove(entry.key)
            else:
                kept.add(entry.key)
        for orphan in self._orphans(ORPHAN_GRACE_S, kept):
            orphan.unlink(missing_ok=True)

    def orphans(self, older_than_s: float = 0.0) -> list[Path]:
        """The cache's own files that belong to no whole entry (a .snap without its .json, an
        unreadable .json, a temporary file), untouched for `older_than_s`."""
        return self._orphans(older_than_s, {e.key for e in self.entries()})

    def _orphans(self, older_than_s: float, whole: set[str]) -> list[Path]:
        now = time.time()
        found = []
        for file in self.path.iterdir() if self.path.is_dir() else ():
            match = _OWN_FILE.match(file.name)
            if match is None or (match["key"] in whole and not file.name.endswith(".tmp")) or file.is_dir():
                continue
            try:
                if now - file.lstat().st_mtime >= older_than_s:
                    found.append(file)
            except OSError:
                continue  # gone meanwhile
        return found

    def remove(self, key: str) -> None:
        for suffix in (".snap", ".json"):
            (self.path / f"{key}{suffix}").unlink(missing_ok=True)

    def clear(self) -> int:
        """Remove every entry and every half-written part; the count is of whole entries."""
        entries = self.entries()
        for entry in entries:
            self.remove(entry.key)
        for orphan in self.orphans():
            orphan.unlink(missing_ok=True)
        return len(entries)


def prep_key(build: str, preset: str, overrides: dict[str, str], seed: int, history: str,
             actions: Sequence[str]) -> str:
    text = json.dumps({"build": build, "preset": preset, "overrides": dict(sorted(overrides.items())),
                       "seed": seed, "history": history, "actions": list(actions)})
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_CHARS]
