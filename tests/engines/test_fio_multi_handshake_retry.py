"""fio's client gives a server FIO_HANDSHAKE_S to answer its probe, a constant no option sets
(client.c, FIO_NET_CLIENT_TIMEOUT): a real server that stalled 7 s once was refused as "not a fio
server". The handshake tries once more before it says so."""

from __future__ import annotations

import stat
from pathlib import Path

from ssdlab.engines.fio_multi import FIO_HANDSHAKE_S, HANDSHAKE_TRIES, MultiHostFioEngine

REPLY = "hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1"
TIMEOUT = "fio: client 127.0.0.1, timeout on cmd PROBE\nfio: client 127.0.0.1 timed out"


def fake_fio(tmp_path: Path, answers: list[str]) -> Path:
    """A fio that says answers[n] on its n-th run (the last one from then on), counting runs in a file."""
    script = tmp_path / "fio"
    count = tmp_path / "runs"
    count.write_text("0")
    script.write_text("#!/bin/sh\n"
                      f"n=$(cat {count}); echo $((n + 1)) > {count}\n"
                      + "".join(f"[ \"$n\" = {i} ] && {{ printf '%s\\n' '{a}'; exit 0; }}\n"
                                for i, a in enumerate(answers[:-1]))
                      + f"printf '%s\\n' '{answers[-1]}'\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def handshake(tmp_path: Path, answers: list[str]) -> tuple[object, int]:
    engine = MultiHostFioEngine(hosts=(("127.0.0.1", 8765),), binary=str(fake_fio(tmp_path, answers)))
    job = tmp_path / "handshake.fio"
    job.write_text("")
    error = engine._handshake_error("127.0.0.1", 8765, job)
    return error, int((tmp_path / "runs").read_text())


def test_a_server_that_stalled_past_fios_timeout_once_is_taken(tmp_path: Path) -> None:
    assert handshake(tmp_path, [TIMEOUT, REPLY]) == (None, 2)


def test_a_server_that_never_answers_is_refused_after_the_second_try(tmp_path: Path) -> None:
    error, runs = handshake(tmp_path, [TIMEOUT])
    assert runs == HANDSHAKE_TRIES == 2
    assert f"did not answer fio's handshake in {FIO_HANDSHAKE_S * 2:.0f} s" in str(error)


def test_an_answer_is_asked_once(tmp_path: Path) -> None:
    assert handshake(tmp_path, [REPLY]) == (None, 1)
    closed = tmp_path / "closed"
    closed.mkdir()
    error, runs = handshake(closed, ["client: host=127.0.0.1 disconnected"])
    assert runs == 1 and "not a fio server" in str(error)
