"""Bundles that cannot be read or written as ssdlab left them: a renamed measurements folder is
said missing, not a link (QA), and a read-only bundle is said read-only by `report` and by
`run --resume`, with what works instead (QA: "remove it", and a bare EROFS error)."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ssdlab.bundle import Bundle


@pytest.fixture
def bundle(cli: Callable[..., Any], tmp_path: Path) -> Path:
    out = tmp_path / "B"
    done = cli("run", "--test", "quick", "-t", "fake:?capacity=2g", "--engine", "fake", "--no-report",
               "--no-library", "-p", "runs=1", "-o", str(out))
    assert done.code == 0, done.stderr
    return out


def test_a_renamed_test_folder_is_said_missing_not_a_link(bundle: Path) -> None:
    folder = next((bundle / "measurements").iterdir())
    folder.rename(folder.with_name("x"))
    b = Bundle(bundle)
    problem = b.measurement_problem(b.load_run().tests[0].measurements[0])
    assert problem == f"its folder measurements/{folder.name} does not exist"


def _read_only(monkeypatch: pytest.MonkeyPatch, under: Path) -> None:
    """A read-only mount over `under`: what creating anything there gives (needs no root)."""
    real_open, real_mkdtemp = os.open, __import__("tempfile").mkdtemp

    def refuse(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).startswith(str(under)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args, **kwargs)

    def refuse_dir(*args: Any, dir: Any = None, **kwargs: Any) -> str:
        if dir is not None and str(dir).startswith(str(under)):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(dir))
        return str(real_mkdtemp(*args, dir=dir, **kwargs))

    monkeypatch.setattr(os, "open", refuse)
    monkeypatch.setattr("tempfile.mkdtemp", refuse_dir)


def test_a_read_only_bundle_s_report_says_so_and_how_to_write_it_elsewhere(
        cli: Callable[..., Any], bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _read_only(monkeypatch, bundle)
    done = cli("report", str(bundle))
    assert done.code == 2 and "cannot be written (Read-only file system)" in done.stderr, done.stderr
    assert "-o ELSEWHERE.html" in done.stderr
    assert cli("report", str(bundle), "-o", str(tmp_path / "elsewhere.html")).code == 0


def test_a_read_only_bundle_s_resume_says_so_not_remove_it(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ssdlab.errors import BundleError

    _read_only(monkeypatch, bundle)
    with pytest.raises(BundleError) as err, Bundle(bundle).lock():
        pass
    assert "read-only file system" in str(err.value) and "copy the bundle somewhere writable" in str(err.value)
    assert "remove it" not in str(err.value)
