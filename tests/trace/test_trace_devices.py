"""Traces of several devices are never merged, in any format whose records name their device:
FIU (major minor), MSR (Hostname,DiskNumber), Alibaba (device_id), Tencent (VolumeID), SYSTOR'17
(LUN), fio iologs (filename), as blkparse and capture (MAJ,MIN) were fixed before. Without
--device the second device stops the import naming both; --device picks one, as the trace names it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ssdlab.errors import UsageError
from ssdlab.trace.importers import FORMATS, TraceFormatError, import_trace, parse_text
from ssdlab.trace.model import OP_READ, OP_WRITE, load_trace

# Per format: the source text (device A's write at offset 0, then device B's read at 4096 and write at 8192,
# then A's read at 12288), A and B as --device takes them, and a --device value that is no such name.
TWO_DEVICES: dict[str, tuple[str, str, str, str]] = {
    "fiu": ("1000 10 a 0 8 W 8 0 x\n2000 11 b 8 8 R 8 16 x\n3000 11 b 16 8 W 8 16 x\n4000 10 a 24 8 R 8 0 x\n",
            "8,0", "8,16", "8"),
    "msr": ("10000,hm,0,Write,0,4096,1\n20000,hm,1,Read,4096,4096,1\n30000,hm,1,Write,8192,4096,1\n"
            "40000,hm,0,Read,12288,4096,1\n", "hm,0", "hm,1", "hm"),
    "alibaba": ("0,W,0,4096,1\n3,R,4096,4096,2\n3,W,8192,4096,3\n0,R,12288,4096,4\n", "0", "3", "zero"),
    "tencent": ("1,0,8,1,1283\n2,8,8,0,7\n3,16,8,1,7\n4,24,8,0,1283\n", "1283", "7", "7,1"),
    "systor17": ("Timestamp,Response,IOType,LUN,Offset,Size\n1.0,0.001,W,0,0,4096\n2.0,0.001,R,1,4096,4096\n"
                 "3.0,0.001,W,1,8192,4096\n4.0,0.001,R,0,12288,4096\n", "0", "1", "a b"),
    "fio2": ("fio version 2 iolog\n/dev/sdb add\n/dev/sdc add\n/dev/sdb write 0 4096\n/dev/sdc read 4096 4096\n"
             "/dev/sdc write 8192 4096\n/dev/sdb read 12288 4096\n", "/dev/sdb", "/dev/sdc", " "),
    "fio3": ("fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdc add\n1 /dev/sdb write 0 4096\n2 /dev/sdc read 4096 4096\n"
             "3 /dev/sdc write 8192 4096\n4 /dev/sdb read 12288 4096\n", "/dev/sdb", "/dev/sdc", ""),
    "blkparse": ("  8,0  0 1 0.000001000 10 D W 0 + 8 [a]\n  8,16 0 2 0.000002000 11 D R 8 + 8 [b]\n"
                 "  8,16 0 3 0.000003000 11 D W 16 + 8 [b]\n  8,0  0 4 0.000004000 10 D R 24 + 8 [a]\n",
                 "8,0", "8,16", "sda"),
    "capture": ("".join(f"  {task}-{pid} [000] ..... 1.00000{t}: block_rq_issue: {dev} {rwbs} 4096 () {sector} + 8 "
                        f"be,0,4 [{task}]\n" for task, pid, t, dev, rwbs, sector in (
                            ("a", 10, 1, "8,0", "W", 0), ("b", 11, 2, "8,16", "R", 8), ("b", 11, 3, "8,16", "W", 16),
                            ("a", 10, 4, "8,0", "R", 24))),
                "8,0", "8,16", "8:0"),
}


def one_line_error(result: Any, *needles: str) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert result.code == 2 and len(lines) == 1 and lines[0].startswith("error:"), (result.code, result.stderr)
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_every_format_naming_its_devices_has_a_case() -> None:
    assert {name for name, fmt in FORMATS.items() if fmt.device is not None} == set(TWO_DEVICES) == set(FORMATS)


@pytest.mark.parametrize("fmt", sorted(TWO_DEVICES))
def test_a_trace_of_two_devices_is_refused_at_the_second_naming_both(cli: Callable, tmp_path: Path, fmt: str) -> None:
    text, first, second, _ = TWO_DEVICES[fmt]
    src = tmp_path / "two.txt"
    src.write_text(text)
    line = {"systor17": 3, "fio2": 5, "fio3": 5}.get(fmt, 2)  # B's first record, after headers and adds
    error = one_line_error(cli("trace", "import", str(src), "-f", fmt, "-o", str(tmp_path / "t.parquet")),
                           f"two.txt:{line}: {fmt}: records of ", f"{second} after those of {first}",
                           f"--device {first} (or --device {second})")
    assert "merged" in error
    assert not (tmp_path / "t.parquet").exists()


@pytest.mark.parametrize("fmt", sorted(TWO_DEVICES))
def test_device_imports_that_device_alone(cli: Callable, tmp_path: Path, fmt: str) -> None:
    text, first, second, _ = TWO_DEVICES[fmt]
    src = tmp_path / "two.txt"
    src.write_text(text)
    for device, ops, offsets in ((first, [OP_WRITE, OP_READ], [0, 12288]), (second, [OP_READ, OP_WRITE], [4096, 8192])):
        out = tmp_path / f"{len(device)}-{device.replace('/', '_')}.parquet"
        result = cli("trace", "import", str(src), "-f", fmt, "-o", str(out), "--device", device)
        assert result.code == 0, result.stderr
        trace = load_trace(out)
        assert trace.op.tolist() == ops and trace.offset_bytes.tolist() == offsets, (fmt, device)


@pytest.mark.parametrize("fmt", sorted(TWO_DEVICES))
def test_a_device_value_not_in_the_formats_form_is_refused_saying_what_to_give(cli: Callable, tmp_path: Path,
                                                                                fmt: str) -> None:
    text, _, _, bad = TWO_DEVICES[fmt]
    src = tmp_path / "two.txt"
    src.write_text(text)
    field = FORMATS[fmt].device
    assert field is not None
    one_line_error(cli("trace", "import", str(src), "-f", fmt, "-o", str(tmp_path / "t.parquet"), "--device", bad),
                   "--device ", f"give the {field.noun}'s {field.form} as the {fmt} trace names it, e.g.")
    assert not (tmp_path / "t.parquet").exists()


def test_a_device_is_matched_as_the_trace_names_it_not_as_typed(tmp_path: Path) -> None:
    src = tmp_path / "two.txt"
    src.write_text(TWO_DEVICES["fiu"][0])
    assert import_trace(src, "fiu", tmp_path / "t.parquet", device="08,016").records == 2


def test_a_file_of_many_volumes_names_a_few_of_them(tmp_path: Path) -> None:
    """The Alibaba and Tencent files hold thousands of volumes: a --device none of them is lists the
    first few, in numeric order, not all."""
    src = tmp_path / "many.csv"
    src.write_text("".join(f"{t},0,8,1,{1000 - t}\n" for t in range(1, 21)))
    with pytest.raises(UsageError, match=r"holds no records of volume 5, .* are of 980, 981, 982, 983, 984, 985, "
                                         r"986, 987 and 12 more: give one of those to --device$"):
        import_trace(src, "tencent", tmp_path / "t.parquet", device="5")


def test_fiu_keeps_pid_and_process_of_the_device_imported(tmp_path: Path) -> None:
    src = tmp_path / "two.txt"
    src.write_text(TWO_DEVICES["fiu"][0])
    prov = import_trace(src, "fiu", tmp_path / "t.parquet", device="8,16")
    assert prov.processes == {"11": "b"} and load_trace(tmp_path / "t.parquet").pid.tolist() == [11, 11]


# Per format: a record whose device column(s) name no device of the format's form.
BAD_DEVICE_RECORD = {
    "fiu": "1000 10 a 0 8 W x 0 m\n",
    "msr": "10000,hm,z,Write,0,4096,1\n",
    "alibaba": "q,W,0,4096,1\n",
    "tencent": "1,0,8,1,v\n",
    "systor17": "1.0,0.001,W,,0,4096\n",
}


@pytest.mark.parametrize("fmt", sorted(BAD_DEVICE_RECORD))
def test_a_records_device_is_read_as_device_reads_it_and_named_so(fmt: str) -> None:
    """A format's device column(s) are read in one place (its DeviceField), for its records and for
    --device alike: a record's bad device is named by the columns --device's refusal names (FIU's
    and MSR's records said "major minor" and "hostname,disk", their --device "MAJ,MIN" and
    "Hostname,DiskNumber")."""
    field = FORMATS[fmt].device
    assert field is not None
    with pytest.raises(TraceFormatError, match=rf"^<text>:1: {fmt}: {re.escape(field.form)} "):
        parse_text(BAD_DEVICE_RECORD[fmt], fmt)
