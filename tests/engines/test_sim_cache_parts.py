"""Parts of cache entries not yet whole (engines/sim_cache.py): a running ssdlab's, which it holds
locked while it writes them, are left by `sim cache --clear` and the clean-up after a store, and
counted by the listing; a dead process's (lock free) are removed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab.engines.sim_cache import SimCache

KEY = "a" * 32
SNAP_BYTES = 300_000
# A store paused with its .snap written in full to its temporary file, before the rename: where a
# clean-up in another process finds a running review's part.
WRITER = """
import os, sys, time
from pathlib import Path
from ssdlab.engines.sim_cache import SimCache

cache, go = Path(sys.argv[1]), Path(sys.argv[2])
rename = os.replace

def paused(src, dst):
    if str(dst).endswith(".snap"):
        print("writing", flush=True)
        while not go.exists():
            time.sleep(0.01)
    rename(src, dst)

os.replace = paused
SimCache(cache, 10**9).put(sys.argv[3], b"x" * int(sys.argv[4]), {"preset": "p"})
print("stored", flush=True)
"""


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str], Path]]:
    """The cache folder, a process storing an entry in it, paused mid-write, and its go file."""
    cache, go = Path(os.environ["SSDLAB_SIM_CACHE"]), tmp_path / "go"
    cache.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(cache), str(go), KEY, str(SNAP_BYTES)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "writing", proc.stderr
        yield cache, proc, go
    finally:
        go.touch()
        proc.wait(timeout=10)


def _finish(proc: subprocess.Popen[str], go: Path) -> tuple[int, str]:
    go.touch()
    out, err = proc.communicate(timeout=10)
    return proc.returncode, out + err


def _leftover(cache: Path, age_s: float = 0.0) -> Path:
    """A temporary part a killed process left (nobody holds its lock)."""
    part = cache / f".{'b' * 32}.snap.q1w2e3.tmp"
    part.write_bytes(b"y" * 200_000)
    then = time.time() - age_s
    os.utime(part, (then, then))
    return part


def test_clear_leaves_a_running_stores_part_and_removes_a_dead_ones(  # type: ignore[no-untyped-def]
        cli, writer: tuple[Path, subprocess.Popen[str], Path]) -> None:
    """QA: `sim cache --clear` removed a running review's half-written part; its store then failed
    ("the prepared simulated drive could not be kept in the cache")."""
    cache, proc, go = writer
    dead = _leftover(cache)  # a young one: by its lock, not its age
    cleared = cli("sim", "cache", "--clear")
    assert cleared.code == 0, cleared.stderr
    assert "1 part being written by a running ssdlab was left" in cleared.stdout, cleared.stdout
    assert "and 1 part a stopped ssdlab left" in cleared.stdout and not dead.exists()
    code, said = _finish(proc, go)
    assert code == 0 and "stored" in said, said
    hit = SimCache(cache, 10**9).get(KEY)
    assert hit is not None and hit[0] == b"x" * SNAP_BYTES


def test_the_clean_up_after_a_store_goes_by_the_lock_not_the_age(
        writer: tuple[Path, subprocess.Popen[str], Path]) -> None:
    """An hour-old part a running store holds stays (a slow disk, a large drive); a dead process's
    part goes at once, not ten minutes later."""
    cache, proc, go = writer
    (held,) = cache.glob(f".{KEY}.snap.*.tmp")
    old = time.time() - 3600
    os.utime(held, (old, old))
    dead = _leftover(cache)
    SimCache(cache, 10**9).evict()
    assert held.exists() and not dead.exists()
    code, said = _finish(proc, go)
    assert code == 0 and SimCache(cache, 10**9).get(KEY) is not None, said


def test_the_listing_counts_parts_on_disk(cli, writer: tuple[Path, subprocess.Popen[str], Path],  # type: ignore[no-untyped-def]
                                          ) -> None:
    """QA: the listing left out half-written parts until the clean-up, so its size was not what
    the folder held."""
    cache, _, _ = writer
    _leftover(cache)
    listed = cli("sim", "cache")
    assert listed.code == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].startswith("0 cached prepared drives in") and ": 0.5 MB of at most" in lines[0], listed.stdout
    assert any(line.startswith("1 part being written by a running ssdlab: 0.3 MB") for line in lines), lines
    assert any(line.startswith("1 part left by a stopped ssdlab") and "0.2 MB" in line for line in lines), lines


def test_a_lookup_between_a_stores_two_files_leaves_them(tmp_path: Path) -> None:
    """A store replacing an entry renames its new .snap over the old, then its .json: a lookup
    in between finds the old .json's digest not the new .snap's, a miss, and used to drop both,
    so the store's .json then stood alone and its drive was lost."""
    cache, go = Path(os.environ["SSDLAB_SIM_CACHE"]), tmp_path / "go"
    SimCache(cache, 10**9).put(KEY, b"old", {"preset": "p"})
    script = WRITER.replace('endswith(".snap")', 'endswith(".json")')  # paused with the .snap in place
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-c", script, str(cache), str(go), KEY, str(SNAP_BYTES)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "writing", proc.stderr
    assert SimCache(cache, 10**9).get(KEY) is None  # the new .snap with the old .json: no drive to vouch for
    code, said = _finish(proc, go)
    hit = SimCache(cache, 10**9).get(KEY)
    assert code == 0 and hit is not None and hit[0] == b"x" * SNAP_BYTES, said
