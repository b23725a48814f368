"""fio's figures printed as nan / inf (its %f): no figure, the rest of the document kept.

seqwrite-ss1s is fio 3.33 on this lab's machine running the job ssdlab writes for a fio_ss workload
of 3 s (ss_dur=1s: one check interval, whose slope is 0/0): `"slope" : -nan`, `"criterion" : "-nan%"`,
and fio called it "attained" and stopped the 3 s job after 0.886 s.
"""

from __future__ import annotations

import json

import pytest

from fio_helpers import FIO_FIXTURES
from ssdlab.engines.fio_parse import load_json_plus, steady_state_facts, summarize

SS1S = FIO_FIXTURES / "seqwrite-ss1s" / "seqwrite-ss1s.json"


def test_fio_wrote_nan_and_the_document_is_read() -> None:
    text = SS1S.read_text()
    assert '"slope" : -nan' in text
    with pytest.raises(ValueError):
        json.loads(text)  # what fio wrote is no JSON
    data = load_json_plus(text)
    job = data["jobs"][0]
    assert job["steadystate"]["slope"] is None  # no figure
    assert job["steadystate"]["max_deviation"] == 0.0 and job["steadystate"]["criterion"] == "-nan%"
    summary = summarize(data)
    assert summary.write.ios == job["write"]["total_ios"] > 0
    assert summary.runtime_s == pytest.approx(0.886)
    assert summary.write.mean_lat_us == pytest.approx(job["write"]["lat_ns"]["mean"] / 1e3)
    assert summary.cpu_usr_pct == job["usr_cpu"]


def test_a_verdict_on_a_criterion_that_is_no_number_is_none() -> None:
    facts = steady_state_facts(summarize(load_json_plus(SS1S.read_text())).steadystate)
    assert facts == {"fio_ss_attained": None, "fio_ss_rule": "iops_slope:10.000000%",
                     "fio_ss_criterion": None, "fio_ss_duration_s": 1}
    judged = steady_state_facts({"ss": "iops_slope:10%", "attained": 1, "criterion": "3.2%", "duration": 2})
    assert judged["fio_ss_attained"] is True and judged["fio_ss_criterion"] == "3.2%"
    assert steady_state_facts({"attained": 0})["fio_ss_attained"] is False  # no criterion given: as before


@pytest.mark.parametrize("word", ["nan", "-nan", "inf", "-inf", "NaN", "Infinity", "-Infinity"])
def test_every_spelling_of_no_number_is_null(word: str) -> None:
    text = ('fio: a note, inf and nan in words\n{"jobs": [{"jobname": "nan inf", "usr_cpu": ' + word +
            ', "sys_cpu": 1.5, "x": [' + word + ', 2], "desc": "\\" -nan"}]}')
    job = load_json_plus(text)["jobs"][0]
    assert job == {"jobname": "nan inf", "usr_cpu": None, "sys_cpu": 1.5, "x": [None, 2], "desc": '" -nan'}
    summary = summarize({"jobs": [job]})
    assert summary.cpu_usr_pct is None and summary.cpu_sys_pct == 1.5


def test_numbers_and_names_that_hold_the_letters_are_kept() -> None:
    text = '{"jobs": [{"jobname": "a", "info": 1, "nanos": 2.5e3, "inflight": -1.0e-2}]}'
    assert load_json_plus(text)["jobs"][0] == {"jobname": "a", "info": 1, "nanos": 2500.0, "inflight": -0.01}


@pytest.mark.parametrize("runtime_s", [0.5, 1, 2, 3, 3.9, 4, 5, 30, 600])
def test_the_steady_state_window_is_never_one_check(runtime_s: float) -> None:
    """fio's slope over one one-second check is 0/0 (the fixture above): ss_dur is at least 2 s."""
    from ssdlab.engines.fio import ss_duration_s
    from ssdlab.workload import Workload

    w = Workload(name="w", pattern="write", block_size_bytes=4096, runtime_s=runtime_s, fio_steady_state=True)
    assert ss_duration_s(w) >= 2
