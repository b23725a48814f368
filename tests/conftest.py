"""Shared fixtures: a fake drive and engine, and an in-process CLI runner."""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from loop_helpers import attached_loop
from ssdlab.engines import sim as sim_engine
from ssdlab.engines.fake import FakeEngine
from ssdlab.targets import parse_target
from ssdlab.targets.base import Target


def pytest_configure(config: pytest.Config) -> None:
    """`ssdlab run` adds finished runs to the results library: never the user's own during tests
    (the folder goes when the session ends; one per session piled up in /tmp)."""
    folder = tempfile.mkdtemp(prefix="ssdlab-test-library-")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    os.environ["SSDLAB_LIBRARY"] = str(Path(folder) / "library.sqlite")
    # Nor the user's cache folder: the report keeps Vega's script there (report/script cache), and
    # tests wrote it into the real ~/.cache/ssdlab (flakes QA). One per session, shared by its workers.
    os.environ["XDG_CACHE_HOME"] = str(Path(folder) / "cache")
    # The CLI's consoles take a terminal size from the environment when they are made (at import),
    # and keep it: an exported COLUMNS (pytest-xdist's workers set 80x24) would fix every test's
    # width, whatever a test sets. Tests that need a size set it themselves.
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)


def fresh_dir(factory: pytest.TempPathFactory, prefix: str) -> Path:
    """A new empty folder under the session's base folder. pytest's numbered `mktemp` lists the
    whole base folder to find the next number, and with three folders a test (its own, its results
    library, its simulated-drive cache) a worker's later tests each listed thousands: 1.7 % of the
    suite's Python time (py-spy, 2026-11-29). mkdtemp's random name takes no listing."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=factory.getbasetemp()))


@pytest.fixture
def tmp_path(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """pytest's own fixture without the numbered listing (fresh_dir): named after the test, as long
    as pytest's name (its 30 characters and a number; here 22, a dash and mkdtemp's 8), and kept
    with the session's base folder as pytest's is."""
    return fresh_dir(tmp_path_factory, re.sub(r"\W", "_", request.node.name)[:22] + "-")


@pytest.fixture(autouse=True)
def _own_results_library(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test its own (empty) results library, so no report ranks against another test's runs."""
    monkeypatch.setenv("SSDLAB_LIBRARY", str(fresh_dir(tmp_path_factory, "library-") / "library.sqlite"))


@pytest.fixture(autouse=True)
def _own_sim_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets an empty cache of prepared simulated drives, never the user's."""
    monkeypatch.setenv("SSDLAB_SIM_CACHE", str(fresh_dir(tmp_path_factory, "sim-cache-")))
    # Whether a drive is stored depends on how long simulating it took (engines.sim._worth_storing):
    # on a loaded machine a test drive's fill took over MIN_PREP_WALL_S, was stored, and a resume
    # restored it where the test expected it simulated again (CI flake, 2026-11-28). In this process
    # nothing is stored by wall time; a test of the cache sets MIN_PREP_WALL_S and RESTORE_FACTOR to 0.
    monkeypatch.setattr(sim_engine, "MIN_PREP_WALL_S", math.inf)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip what this machine cannot run: root-only and fio-needing tests."""
    not_root = os.geteuid() != 0
    no_fio = shutil.which("fio") is None
    for item in items:
        if not_root and "root" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="needs root"))
        if no_fio and "fio" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="needs fio"))


@pytest.fixture
def fake_target() -> Target:
    return parse_target("fake:?capacity=2g")


@pytest.fixture
def fake_engine() -> FakeEngine:
    return FakeEngine()


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., CliResult]:
    """Run `ssdlab ARGS` in-process and capture its exit code and output."""
    from ssdlab.cli import main

    def invoke(*args: str) -> CliResult:
        monkeypatch.setattr(sys, "argv", ["ssdlab", *args])
        code = 0
        try:
            main()
        except SystemExit as exit_:
            code = int(exit_.code or 0)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return invoke


@pytest.fixture
def bundle_dir(tmp_path: Path) -> Path:
    return tmp_path / "bundle"


def _run(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def loop_device(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A fresh 64 MiB loop device (kernel name, backing file); always detached afterwards."""
    backing = tmp_path / "loop.img"
    with attached_loop(backing) as device:
        yield Path(device).name, backing


@pytest.fixture
def mounted_loop(loop_device: tuple[str, Path], tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The loop device with an ext4 file system mounted on a temporary directory."""
    name, _ = loop_device
    mount_point = tmp_path / "mnt"
    mount_point.mkdir()
    _run("mkfs.ext4", "-q", "-F", f"/dev/{name}")
    _run("mount", f"/dev/{name}", str(mount_point))
    try:
        yield name, mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=False)
