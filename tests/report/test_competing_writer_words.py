"""A program seen writing the target where a writer refuses nothing (a read, a scratch file) is
kept as a ReadingProcess with writes=True; the report says it wrote, not read. Bundles recorded
before the field (no "writes") keep saying read, and a reader's record serializes as before."""

from __future__ import annotations

from ssdlab.measurement import Measurement
from ssdlab.report.cpu import competing_notes
from ssdlab.report.section_trace import reader_notes
from ssdlab.targets.base import ReadingProcess
from ssdlab.workload import Workload


def measured(*others: ReadingProcess) -> Measurement:
    workload = Workload(name="seq-read", pattern="read", block_size_bytes=131072, runtime_s=10)
    return Measurement(workload=workload, engine="fake", runtime_s=10.0, competing_readers=others)


def test_a_writer_during_a_read_is_said_to_have_written() -> None:
    writer = ReadingProcess(pid=42, command="dd", path="/dev/loop0", writes=True)
    reader = ReadingProcess(pid=43, command="cat", path="/dev/loop0")
    notes = competing_notes({"seq-read": measured(writer, reader)}, {"seq-read": "Seq read"})
    assert notes == (
        "Measured beside another program: pid 42 (dd) wrote /dev/loop0 during Seq read; "
        "those figures are not the drive's alone.",
        "Measured beside another program: pid 43 (cat) read /dev/loop0 during Seq read; "
        "those figures are not the drive's alone.",
    )


def test_a_replay_keeps_the_writer_s_word() -> None:
    detail = {"competing_readers": [{"pid": 7, "command": "dd", "path": "/tmp/x.img", "writes": True},
                                    {"pid": 8, "command": "cat", "path": "/tmp/x.img"}]}
    assert [note.split(") ")[1].split(" ")[0] for note in reader_notes(detail)] == ["wrote", "read"]


def test_a_reader_s_record_is_as_before_the_field() -> None:
    reader = ReadingProcess(pid=43, command="cat", path="/dev/loop0")
    assert reader.model_dump() == {"pid": 43, "command": "cat", "path": "/dev/loop0"}
    assert ReadingProcess.model_validate({"pid": 43, "command": "cat", "path": "/dev/loop0"}) == reader
    writer = ReadingProcess(pid=42, command="dd", path="/dev/loop0", writes=True)
    assert ReadingProcess.model_validate_json(writer.model_dump_json()) == writer
