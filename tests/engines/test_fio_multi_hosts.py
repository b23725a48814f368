"""--host refusals that name every host they are about, a read-only directory that `plan` finds
without writing (in `run`'s words), a symlink at the run's file name, and the live ETA of a
--host run (its hosts' files made and deleted)."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_fio_multi import WRITE_PASS, _hosts, servers  # noqa: F401  (servers: a fixture)

from fio_helpers import free_port, namespace_servers
from ssdlab.bundle import Bundle
from ssdlab.engines.fake import FakeEngine
from ssdlab.engines.fio_multi import MultiHostFioEngine
from ssdlab.errors import SafetyError, UsageError
from ssdlab.methods.base import TestPlan
from ssdlab.planning import estimate_action_s, plan_run, select_entries
from ssdlab.progress import RunClock
from ssdlab.resume import ResumePoint
from ssdlab.run_events import PendingTest
from ssdlab.runner import Runner, new_record
from ssdlab.targets import parse_target


def test_hosts_that_say_the_same_are_named_together() -> None:
    """A check that stopped at the first host named only it: two hosts sharing one directory,
    refused for the same reason, looked like one host's fault."""
    from ssdlab.engines.fio_multi import hosts_error

    same = hosts_error([UsageError("--host a:1: cannot make a new file in /d there (Read-only file system); do X"),
                        UsageError("--host b:2: cannot make a new file in /d there (Read-only file system); do X")])
    assert isinstance(same, UsageError) and str(same) == (
        "--host a:1, b:2: cannot make a new file in /d there (Read-only file system); do X")
    apart = hosts_error([SafetyError("--host a:1: /d/x-h0 is taken there"), SafetyError("--host b:2: /d/x-h1 is "
                                                                                         "taken there")])
    assert isinstance(apart, SafetyError) and str(apart) == "--host a:1: /d/x-h0 is taken there; --host b:2: " \
        "/d/x-h1 is taken there"


def test_every_unreachable_host_is_named(tmp_path: Path, cli: Any) -> None:
    closed = [f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"]
    done = cli("run", f"file:{tmp_path / 't'}?size=8m", *WRITE_PASS, "--host", closed[0], "--host", closed[1],
               "-o", str(tmp_path / "b"))
    line = done.stderr.strip()
    assert done.code == 2 and "\n" not in line, line
    assert line.startswith(f"error: --host {closed[0]}, {closed[1]}: cannot reach fio's server ("), line
    assert not (tmp_path / "b").exists()


@pytest.fixture
def ns_servers(tmp_path: Path) -> Iterator[tuple[list[tuple[str, int]], Path]]:
    """Two fio servers in one mount namespace of their own, where DIR/ro is mounted read-only and
    DIR/small is a 24 MiB tmpfs: two hosts whose paths are one directory (as two servers on one
    machine, or a shared file system), on file systems only they see."""
    base = tmp_path / "ns"
    for name in ("ro", "small"):
        (base / name).mkdir(parents=True)
    ports, pidfile = [free_port(), free_port()], base / "a.pid"
    script = ('mount --bind "$1/ro" "$1/ro" && mount -o remount,bind,ro "$1/ro" && '
              'mount -t tmpfs -o size=24m tmpfs "$1/small" && '
              f'fio --server=ip:127.0.0.1,{ports[0]} --daemonize="$1/a.pid" && '
              f'exec fio --server=ip:127.0.0.1,{ports[1]}')
    try:
        with namespace_servers(script, base, ports):
            yield [("127.0.0.1", port) for port in ports], base
    finally:  # the server the script daemonized
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pidfile.read_text()), signal.SIGTERM)


@pytest.mark.fio
def test_plan_says_run_refuses_a_read_only_directory_in_its_words(
        ns_servers: tuple[list[tuple[str, int]], Path], tmp_path: Path, cli: Any) -> None:
    """`plan --host` said nothing of a directory on a read-only file system, which `run` then
    refused, naming only the first host. plan writes nothing: it asks for what fio does before it
    lays out a file (an unlink, refused on a read-only mount, on a name found free), and says
    what run refuses, the same words; both name both hosts, whose paths are one directory."""
    hosts, base = ns_servers
    target = f"file:{base / 'ro' / 'x.img'}?size=8m"
    plan = cli("plan", target, *WRITE_PASS[:4], *_hosts(hosts))
    assert plan.code == 0, plan.stderr
    said = [line.removeprefix("run would refuse this: ") for line in plan.stdout.splitlines()
            if line.startswith("run would refuse this: ")]
    run = cli("run", target, *WRITE_PASS, *_hosts(hosts), "-o", str(tmp_path / "b"))
    assert run.code == 2 and not (tmp_path / "b").exists(), run.stderr
    assert said == [run.stderr.strip().removeprefix("error: ")], (plan.stdout, run.stderr)
    addresses = ", ".join(f"{h}:{p}" for h, p in hosts)
    assert said[0] == f"--host {addresses}: cannot make a new file in {base / 'ro'} there (Read-only file system); " \
        "give a directory there that its fio server can create files in (on a read-write file system)"
    # a directory that takes new files: nothing said, and plan left nothing there
    fine = cli("plan", f"file:{base / 'x.img'}?size=8m", *WRITE_PASS[:4], *_hosts(hosts))
    assert fine.code == 0 and "run would refuse" not in fine.stdout, fine.stdout
    assert sorted(p.name for p in base.iterdir()) == ["a.pid", "ro", "small"]


@pytest.mark.fio
def test_hosts_sharing_a_file_system_without_room_for_both_files_are_named_together(
        ns_servers: tuple[list[tuple[str, int]], Path], tmp_path: Path, cli: Any) -> None:
    """Two hosts whose paths are one directory hold both their files there: 16 MiB each on a
    24 MiB file system. One host's posix_fallocate failed and the run named that host alone,
    "free space there", as if the other were not involved; the refusal now names both, why, and
    the space they need together, in one line; the run's end deletes both files (it says none it
    could not delete)."""
    hosts, base = ns_servers
    done = cli("run", f"file:{base / 'small' / 'x.img'}?size=16m", *WRITE_PASS, *_hosts(hosts),
               "-o", str(tmp_path / "b"))
    line = done.stderr.strip().splitlines()[-1]  # after the run's notes and progress
    assert done.code == 4 and line.startswith("error: linear: --host "), done.stderr
    addresses = ", ".join(f"{h}:{p}" for h, p in hosts)
    assert f"--host {addresses}: cannot allocate 16777216 bytes for each of their files in {base / 'small'} there " \
           "(No space left on device): those hosts share that directory (each sees the others' files), so the run " \
           "needs 2 x 16777216 bytes there; free space there, give a smaller size=, or give --host for one of " \
           "them only" in line, line
    assert "could not delete" not in line
    fits = cli("run", f"file:{base / 'small' / 'x.img'}?size=8m", *WRITE_PASS, *_hosts(hosts),
               "-o", str(tmp_path / "c"))
    assert fits.code == 0, fits.stderr


@pytest.mark.fio
def test_a_dangling_symlink_at_the_runs_file_name_is_refused(
        servers: list[tuple[str, int]], tmp_path: Path, cli: Any,  # noqa: F811  (the fixture, imported)
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The name check read the file, and a symlink to nowhere read as no file: the run's first
    workload then deleted the link (fio unlinks a name to lay a file out there) and made its own
    file in its place. Anything at the name, a symlink too, is refused now, and left as it was."""
    import uuid

    work = tmp_path / "work"
    work.mkdir()
    link, elsewhere = work / "x.img.ssdlab-7a4e1000-h1", tmp_path / "elsewhere.img"
    link.symlink_to(elsewhere)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(hex="7a4e1000" + "0" * 24))  # the run's id
    done = cli("run", f"file:{work / 'x.img'}?size=8m", *WRITE_PASS, *_hosts(servers), "-o", str(tmp_path / "b"))
    assert done.code == 3 and done.stderr.strip() == (
        f"error: --host 127.0.0.1:{servers[1][1]}: {link}, this run's file name, is taken there: a run writes no "
        "file it did not create; nothing was written (a new run draws a new name)"), done.stderr
    assert not elsewhere.exists() and link.is_symlink() and os.readlink(link) == str(elsewhere)
    assert list(work.iterdir()) == [link] and not (tmp_path / "b").exists()


# ---- the live ETA: the hosts' files are made in the first workload and deleted after the last ----


def _pending(tmp_path: Path, target: Any, engine: Any, tests: list[str]) -> tuple[list[PendingTest], float]:
    """What the live clock gets (Runner.pending), and what `plan` says the run takes."""
    _, entries = select_entries(None, tests)
    overrides = {"runtime_s": "1", "passes": "write"}
    planned = sum(p.estimate_s for p in plan_run(entries, overrides, target.info()))
    record = new_record(target, engine, None, entries, overrides, {})
    return Runner(Bundle(tmp_path / "b"), target, engine).pending(record), planned


def test_the_live_eta_counts_the_hosts_files_as_plan_does(tmp_path: Path) -> None:
    """`plan` counted making and deleting the hosts' files and the live clock did not: its total
    fell short, and the making, in the first workload, made the run look slower than it is
    (quick, runs=1 runtime_s=1, two loopback hosts: 36 s shown after the first workload, 21 s to
    go). The first workload's estimate now holds the making, and the deleting stays in the total
    until the run ends (there, 21 s shown); a run without --host has neither."""
    engine = MultiHostFioEngine(hosts=(("127.0.0.1", 1), ("127.0.0.1", 2)))
    target = engine.target_for(f"file:{tmp_path / 'x.img'}")
    pending, planned = _pending(tmp_path, target, engine, ["linear", "quick"])
    assert sum(sum(p.estimates_s) + getattr(p, "closing_s", 0.0) for p in pending) == pytest.approx(planned)  # as plan
    from ssdlab.planning import HOST_FILE_DELETE_S, HOST_FILE_MAKE_S

    first = pending[0].plan.measures()[0]
    at = pending[0].plan.actions.index(first)
    assert pending[0].estimates_s[at] == pytest.approx(estimate_action_s(first, target.info()) + HOST_FILE_MAKE_S)
    assert [p.closing_s for p in pending] == [0.0, HOST_FILE_DELETE_S]
    local, engine = parse_target("fake:"), FakeEngine()
    pending, planned = _pending(tmp_path, local, engine, ["linear", "quick"])
    assert [p.closing_s for p in pending] == [0.0, 0.0]
    assert sum(sum(p.estimates_s) for p in pending) == pytest.approx(planned)


class FakeTime:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_the_clock_waits_for_the_runs_closing_work() -> None:
    """Deleting the hosts' files comes after the last test, whatever its steps did: a skipped
    step or a test that stopped early does not take it out; the ETA is that much at the end."""
    now = FakeTime()
    plan = TestPlan(test="a", params={})
    clock = RunClock([PendingTest("a", plan, (10.0, 20.0), ResumePoint(0)),
                      PendingTest("b", plan, (10.0,), ResumePoint(0), closing_s=2.0)], now=now)
    assert clock.total_s == 42.0
    clock.action_started("a", 0)
    now.t += 20.0  # half the pace assumed
    clock.action_finished("a", 0, skipped=False)
    clock.test_finished("a")  # its second step skipped
    clock.action_started("b", 0)
    now.t += 20.0
    clock.action_finished("b", 0, skipped=False)
    clock.test_finished("b")
    assert clock.fraction == pytest.approx(20.0 / 22.0)
    assert clock.eta_s() == pytest.approx(2.0 * 2.0)  # at the run's pace
