"""The capture format's one match for its common lines reads every line as the header-then-body
reading does (importers._TRACEFS_RQ against _TRACEFS with _RQ_ISSUE / _RQ_DONE): the same fields, or
the same refusal, for well-formed lines and for lines built to tell the two apart (a task name that
holds a whole event, an issue without its bytes, a completion with them, other events)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.trace.importers import _tracefs_fields, _tracefs_fields_by_parts

EVENTS = ("block_rq_issue", "block_rq_complete", "block_rq_requeue", "block_rq_insert", "block_rq_issuex")


def _body(with_bytes: bool, cmd: str, tail: str) -> str:
    return f"7,0 WFS {'4096 ' if with_bytes else ''}({cmd}) 2048 + 8{tail}"


bodies = st.builds(_body, st.booleans(), st.sampled_from(["", "x", ") (", "a) 1 + 2 ("]),
                   st.sampled_from(["", " none,0,0 [fio]", " [0]", "x"]))
headers = st.builds(
    lambda lead, pid, flags, secs, frac, event: f"{lead}-{pid} [001] {flags}{secs}.{frac}: {event}: ",
    st.sampled_from(["", "   fio", "kworker/1:1H", "a b", "x-1 [0] 1.2: block_rq_issue: zz y"]),
    st.sampled_from(["4242", "0", "x"]), st.sampled_from(["", "..... ", "d.h1. "]),
    st.sampled_from(["12345", "0"]), st.sampled_from(["000100", "1", "1234567890"]), st.sampled_from(EVENTS))


def _read(read: object, line: str) -> object:
    try:
        return read(line)  # type: ignore[operator]
    except ValueError as error:
        return f"refused: {error}"


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(headers, bodies), min_size=1, max_size=3))
def test_one_match_reads_every_line_as_header_then_body_does(parts: list[tuple[str, str]]) -> None:
    # Several events in one line: the task names of the later ones hold the earlier ones.
    line = " ".join(header + body for header, body in parts)
    assert _read(_tracefs_fields, line) == _read(_tracefs_fields_by_parts, line)


def test_the_lines_a_capture_is_made_of_take_the_one_match() -> None:
    issue = "fio-4242 [000] ..... 12345.000100: block_rq_issue: 7,0 R 4096 () 2048 + 8 none,0,0 [fio]"
    done = "<idle>-0 [001] d.h1. 12345.000400: block_rq_complete: 7,0 R () 2048 + 8 none,0,0 [0]"
    assert _tracefs_fields(issue) == ("fio", "4242", 12345_000_100_000, "block_rq_issue", "7", "0", "R", "2048", "8")
    assert _tracefs_fields(done) == ("<idle>", "0", 12345_000_400_000, "block_rq_complete", "7", "0", "R", "2048",
                                     "8")
