"""--host strings: an IPv6 server is reached as fio's client needs it (ip6:ADDRESS) and named as
the user wrote it ([ADDRESS]:PORT); names fio's --client= cannot carry are refused in one line.
QA: `--host [::1]:PORT` passed parse_host and the connect check, then every fio client run said
"bad server port 0" (fio read "::1,PORT" as a name), refused as "did not say its version"."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from fio_helpers import daemon_server, free_port
from ssdlab.engines.base import RunContext
from ssdlab.engines.fio_multi import MultiHostFioEngine, client_argv, host_address, parse_host
from ssdlab.errors import UsageError
from ssdlab.workload import Workload


def test_ipv6_hosts_are_given_to_fio_as_ip6_and_named_in_brackets() -> None:
    assert parse_host("[::1]:9000") == ("::1", 9000) and parse_host("[fe80::1]") == ("fe80::1", 8765)
    argv = client_argv("fio", Path("o.json"), [("::1", 9000), ("box", 1)], [Path("a.fio"), Path("b.fio")])
    assert argv[3:] == ["--client=ip6:::1,9000", "a.fio", "--client=box,1", "b.fio"]
    assert host_address("::1", 9000) == "[::1]:9000" and host_address("box", 1) == "box:1"
    assert MultiHostFioEngine(hosts=(("::1", 9000),)).addresses == ("[::1]:9000",)


@pytest.mark.parametrize("bad", ["[::1", "[::1]x", "a b", "box :9000", "box,1", "-x", "--box", "a\nb", "a\tb"])
def test_host_names_fio_cannot_take_are_refused_in_one_line(bad: str) -> None:
    with pytest.raises(UsageError, match=r"write HOST or HOST:PORT") as refused:
        parse_host(bad)
    assert "\n" not in str(refused.value).replace(repr(bad), "")


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.fixture
def ipv6_server(tmp_path: Path) -> Iterator[int]:
    """A fio server on [::1], stopped by its own pid afterwards."""
    if not _ipv6_loopback():
        pytest.skip("no IPv6 loopback here")
    port = free_port("::1")
    with daemon_server(f"ip6:::1,{port}", tmp_path / "server6.pid"):
        yield port


@pytest.mark.fio
def test_a_run_on_an_ipv6_host(ipv6_server: int, tmp_path: Path) -> None:
    engine = MultiHostFioEngine(hosts=(parse_host(f"[::1]:{ipv6_server}"),))
    target = engine.target_for(f"file:{tmp_path / 'scratch'}?size=16m")
    engine.check_reachable(target)
    assert engine.host_fio()[0].version.startswith("fio-")
    workload = Workload(name="v6", pattern="write", block_size_bytes=1 << 20, runtime_s=0.5, span_bytes=8 << 20)
    try:
        m = engine.measure(target, workload, RunContext(raw_dir=tmp_path / "raw", bundle_dir=tmp_path))
    finally:
        target.release()
    assert m.write.bytes > 0
    assert m.engine_facts["host0"] == f"[::1]:{ipv6_server}" and m.engine_facts["hosts"] == f"[::1]:{ipv6_server}"
    assert not list(tmp_path.glob("scratch.ssdlab-*"))
