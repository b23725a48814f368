"""`plan` says "run would refuse this" for every refusal `run` makes before writing anything on
a scratch file (too little free space, a read-only file system, an immutable file) and when
fio is missing (QA: plan said "a run that writes would stop at once", or nothing)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ssdlab.targets.file import FileTarget


def _plan(cli: Callable[..., Any], spec: str) -> str:
    done = cli("plan", "--test", "quick", "-t", spec)
    assert done.code == 0, done.stderr
    return str(done.stdout)


def test_too_little_free_space_is_a_refusal_said_once(cli: Callable[..., Any], tmp_path: Path) -> None:
    shown = _plan(cli, f"file:{tmp_path}/big.img?size=1000000g")
    assert "run would refuse this:" in shown and "too little to grow" in shown
    assert "would stop at once" not in shown and shown.count("too little to grow") == 1


def test_a_read_only_file_system_is_a_refusal(cli: Callable[..., Any], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.statvfs

    class ReadOnly:
        def __init__(self, path: Any) -> None:
            self._real = real(path)

        def __getattr__(self, name: str) -> Any:
            return self._real.f_flag | os.ST_RDONLY if name == "f_flag" else getattr(self._real, name)

    monkeypatch.setattr(os, "statvfs", ReadOnly)
    shown = _plan(cli, f"file:{tmp_path}/x.img?size=8m")
    assert "run would refuse this:" in shown and "is on a read-only file system" in shown


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("chattr") is None, reason="chattr +i needs root")
def test_an_immutable_file_is_a_refusal(cli: Callable[..., Any], tmp_path: Path) -> None:
    target = FileTarget.from_spec(f"file:{tmp_path}/imm.img?size=8m")
    target.prepare()
    if subprocess.run(["chattr", "+i", str(target.path)], check=False).returncode != 0:
        pytest.skip("the file system keeps no immutable flag")
    try:
        shown = _plan(cli, f"file:{target.path}?size=8m")
    finally:
        subprocess.run(["chattr", "-i", str(target.path)], check=True)
    assert "run would refuse this:" in shown and "is immutable (chattr +i)" in shown


def test_fio_missing_is_a_refusal(cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    shown = _plan(cli, f"file:{tmp_path}/x.img?size=8m")
    assert "run would refuse this: fio not found" in shown


def test_a_writable_file_with_fio_is_no_refusal(cli: Callable[..., Any], tmp_path: Path) -> None:
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    assert "run would refuse this" not in _plan(cli, f"file:{tmp_path}/x.img?size=8m")
