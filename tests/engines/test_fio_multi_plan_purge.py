"""`plan --host` prints what a --host run does: the run skips a purge (MultiHostFioEngine.step:
the run's file on each host is its own, new to it), and the plan listed "1. purge (TRIM, whole
target)" and "starts from: clean (purged)" (QA)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fio_helpers import daemon_server, free_port
from ssdlab.engines.fio_multi import MultiHostFioEngine
from ssdlab.steps import Idle, Purge


def test_a_purge_is_planned_as_the_run_does_it() -> None:
    assert "not done on the --host hosts" in (MultiHostFioEngine.planned_step(Purge()) or "")
    assert "cannot run on the --host hosts" in (MultiHostFioEngine.planned_step(Purge(secure_erase=True)) or "")
    assert MultiHostFioEngine.planned_step(Idle(seconds=5)) is None


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """One fio server on a loopback port, stopped by its own pid afterwards."""
    port = free_port()
    with daemon_server(f"ip:127.0.0.1,{port}", tmp_path / "server.pid"):
        yield ("127.0.0.1", port)


@pytest.mark.fio
def test_plan_host_lists_no_purge_the_run_skips(server: tuple[str, int], tmp_path: Path, cli: Any) -> None:
    work = tmp_path / "plan"
    work.mkdir()
    done = cli("plan", f"file:{work / 'x.img'}?size=16m", "--test", "wsat", "-p", "runtime_s=60",
               "--host", f"{server[0]}:{server[1]}")
    assert done.code == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "1. purge (TRIM, whole target): not done on the --host hosts" in text
    assert "1. purge (TRIM, whole target) 2." not in text
    assert "starts from: the run's file on each host" in text and "why: a --host run purges nothing" in text
    assert list(work.iterdir()) == []  # plan wrote nothing
