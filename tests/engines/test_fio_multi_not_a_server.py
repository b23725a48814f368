"""A --host port that is not a fio server's: refused in seconds, saying what it is, before anything
is written there. QA: a port that closed the connection (a web server) was told "its fio server did
not say its version ... the start-up probe could not delete its file ... delete it there by hand" of a
file never made; a port that took the connection and said nothing held the probes for 60 s."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab.engines.fio_multi import FIO_HANDSHAKE_S, MultiHostFioEngine, probe_left_words
from ssdlab.errors import UsageError


def _peer(closes: bool) -> Iterator[int]:
    """A loopback port that takes connections and then closes each at once, or says nothing."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            if closes:
                conn.close()
            else:
                held.append(conn)

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1]
    server.close()
    for conn in held:
        conn.close()


@pytest.fixture
def silent_port() -> Iterator[int]:
    yield from _peer(closes=False)


@pytest.fixture
def closing_port() -> Iterator[int]:
    yield from _peer(closes=True)


@pytest.mark.fio
def test_a_silent_port_is_refused_in_seconds(silent_port: int, tmp_path: Path) -> None:
    engine = MultiHostFioEngine(hosts=(("127.0.0.1", silent_port),))
    target = engine.target_for(f"file:{tmp_path / 'x'}?size=8m")
    start = time.monotonic()
    with pytest.raises(UsageError, match=r"^--host 127\.0\.0\.1:\d+: not a fio server: it took the connection but "
                                         r"did not answer fio's handshake in \d+ s") as refused:
        engine.check_reachable(target)
    assert time.monotonic() - start < 20  # was the probes' 60 s
    assert "by hand" not in str(refused.value)
    assert not list(tmp_path.iterdir())


@pytest.mark.fio
def test_a_port_that_closes_is_refused_without_a_file_it_never_made(closing_port: int, tmp_path: Path) -> None:
    engine = MultiHostFioEngine(hosts=(("127.0.0.1", closing_port),))
    target = engine.target_for(f"file:{tmp_path / 'x'}?size=8m")
    start = time.monotonic()
    with pytest.raises(UsageError, match=r"not a fio server: it closed the connection without answering fio's "
                                         "handshake") as refused:
        engine.check_reachable(target)
    assert time.monotonic() - start < 10
    assert "could not delete" not in str(refused.value) and "by hand" not in str(refused.value)


def test_a_probe_file_whose_server_did_not_say_is_not_said_to_be_left() -> None:
    """A file fio said is still there is to be deleted by hand; one whose server did not say may be."""
    there = "/d/p on a:1 (still there after fio deleted it)"
    unsure = "/d/q on b:2 (its fio server did not say whether it is gone: no message)"
    assert probe_left_words([there]).endswith("could not delete its file /d/p on a:1 (still there after fio "
                                              "deleted it): delete it there by hand")
    words = probe_left_words([unsure])
    assert "could not delete" not in words and "may be left" in words and words.endswith("if it is there")
    assert FIO_HANDSHAKE_S < 10
