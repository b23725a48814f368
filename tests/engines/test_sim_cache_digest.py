"""A cache entry's snapshot is the one its sidecar was written with (QA: another entry's
snapshot copied over a key was adopted by the run-ahead: 57 metrics differed), and `sim cache`
says when the cache is over its bound."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from ssdlab.engines.sim_cache import SimCache

A, B = "a" * 32, "b" * 32


def test_a_snapshot_not_the_one_its_sidecar_was_written_with_is_dropped(tmp_path: Path) -> None:
    cache = SimCache(tmp_path, limit_bytes=10**9)
    cache.put(A, b"drive a", {"history_after": "ha"})
    cache.put(B, b"drive b", {"history_after": "hb"})
    hit = cache.get(A)
    assert hit is not None and hit[0] == b"drive a" and hit[1]["history_after"] == "ha"
    (tmp_path / f"{A}.snap").write_bytes((tmp_path / f"{B}.snap").read_bytes())
    assert cache.get(A) is None
    assert not (tmp_path / f"{A}.snap").exists() and not (tmp_path / f"{A}.json").exists()
    assert cache.get(B) is not None


def test_an_entry_written_without_a_digest_is_dropped(tmp_path: Path) -> None:
    """Nothing vouches for its snapshot; dropping it costs one simulation, stored again."""
    (tmp_path / f"{A}.snap").write_bytes(b"drive a")
    (tmp_path / f"{A}.json").write_text(json.dumps({"history_after": "ha"}))
    assert SimCache(tmp_path, limit_bytes=10**9).get(A) is None
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("error", [errno.EROFS, errno.ENOENT])
def test_an_entry_read_whole_is_a_hit_when_its_use_cannot_be_noted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   error: int) -> None:
    """QA: a cache on a read-only file system (a lab's shared copy), or an entry another process
    cleared right after it was read, failed the run's test ("Read-only file system")."""
    cache = SimCache(tmp_path, limit_bytes=10**9)
    cache.put(A, b"drive a", {"history_after": "ha"})

    def refused(*_: object) -> None:
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr(os, "utime", refused)
    hit = cache.get(A)
    assert hit is not None and hit[0] == b"drive a" and hit[1]["history_after"] == "ha"


@pytest.mark.parametrize(("bound", "then"), [("0", "drops every entry"), ("0.000001", "until it fits")])
def test_the_cache_command_says_when_the_cache_is_over_its_bound(cli, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
                                                                 tmp_path: Path, bound: str, then: str) -> None:
    monkeypatch.setenv("SSDLAB_SIM_CACHE", str(tmp_path))
    SimCache(tmp_path, limit_bytes=10**9).put(A, b"x" * 9000, {"preset": "p", "seed": 1, "actions": ["purge"]})
    monkeypatch.setenv("SSDLAB_SIM_CACHE_MAX_GB", bound)
    listed = cli("sim", "cache")
    assert listed.code == 0 and "over its bound by" in listed.stdout and then in listed.stdout, listed.stdout
    monkeypatch.delenv("SSDLAB_SIM_CACHE_MAX_GB")
    assert "over its bound" not in cli("sim", "cache").stdout
