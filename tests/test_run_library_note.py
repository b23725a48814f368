"""A run the library cannot take says why in the system's words, not Python's. QA: with a
read-only HOME, `run` ended "not added to the results library ([Errno 13] Permission denied:
'/home/u/.local'); add it later with …"."""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import pytest

from ssdlab.library import Library

QUICK = ["--test", "quick", "-t", "fake:?capacity=2g", "-p", "runs=1", "-p", "runtime_s=1", "--no-report"]


def test_a_library_folder_that_cannot_be_made_is_said_plainly(cli: Callable[..., Any], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(self: Library, bundle: Path) -> NoReturn:
        raise PermissionError(errno.EACCES, "Permission denied", "/home/u/.local")

    monkeypatch.setattr(Library, "add", refused)
    result = cli("run", *QUICK, "-o", str(tmp_path / "b"))
    assert result.code == 0
    assert "not added to the results library (Permission denied: /home/u/.local); add it later with" in result.stderr
    assert "Errno" not in result.stderr
