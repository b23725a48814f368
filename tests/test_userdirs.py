"""Default paths of the library and the sim cache: the XDG base directories and the home they
default to (QA: an empty HOME put them at the file system's root, a relative XDG_* under the
current folder)."""

from __future__ import annotations

import pwd
from pathlib import Path

import pytest

from ssdlab.engines.sim_cache import cache_dir
from ssdlab.library import default_library_path


@pytest.fixture(autouse=True)
def _defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SSDLAB_LIBRARY", "SSDLAB_SIM_CACHE", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("home", ["", "relative/home"])
def test_a_home_that_is_no_absolute_path_falls_back_to_the_user_record(monkeypatch: pytest.MonkeyPatch,
                                                                        home: str) -> None:
    monkeypatch.setenv("HOME", home)
    recorded = Path(pwd.getpwuid(__import__("os").getuid()).pw_dir)
    assert default_library_path() == recorded / ".local/share/ssdlab/library.sqlite"
    assert cache_dir() == recorded / ".cache/ssdlab/sim"


def test_relative_xdg_dirs_are_ignored_absolute_ones_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", "rel-data")
    monkeypatch.setenv("XDG_CACHE_HOME", "rel-cache")
    assert default_library_path() == tmp_path / ".local/share/ssdlab/library.sqlite"
    assert cache_dir() == tmp_path / ".cache/ssdlab/sim"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "d"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    assert default_library_path() == tmp_path / "d/ssdlab/library.sqlite"
    assert cache_dir() == tmp_path / "c/ssdlab/sim"
