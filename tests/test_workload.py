from __future__ import annotations

import pytest
from pydantic import ValidationError

from ssdlab.errors import UsageError
from ssdlab.units import GIB, KIB, MIB, TIB, decimal_capacity, format_size, parse_size, signed
from ssdlab.workload import Workload, workload_from_dict


def test_parse_and_format_sizes() -> None:
    assert parse_size("4k") == 4 * KIB
    assert parse_size("128KiB") == 128 * KIB
    assert parse_size("1g") == GIB
    assert parse_size("512") == 512
    assert format_size(1536) == "1536B"
    assert format_size(64 * MIB) == "64MiB"
    with pytest.raises(UsageError, match="bad size"):
        parse_size("four k")
    # QA: `offset_bytes=1.5` became 1 without a word; bytes are whole, a suffix may carry a fraction.
    with pytest.raises(UsageError, match=r"bad size '1.5': a size in bytes is a whole number; give e.g. 1"):
        parse_size("1.5")
    assert parse_size("1.0") == 1 and parse_size("1.5k") == 1536
    with pytest.raises(UsageError, match="whole number"):
        parse_size("1.5b")


def test_decimal_capacity_never_prints_an_exponent() -> None:
    assert decimal_capacity(512 * GIB) == "550 GB"
    assert decimal_capacity(256_060_514_304) == "256 GB"
    assert decimal_capacity(2 * TIB) == "2.2 TB"
    assert decimal_capacity(MIB) == "1.05 MB"
    assert decimal_capacity(512) == "512 B"
    assert decimal_capacity(999_999 * TIB) == "1.1 EB"  # a mistyped size=999999t
    assert decimal_capacity(2**80) == "1,208,926 EB"


def test_a_change_that_rounds_to_nothing_has_no_sign() -> None:
    assert [signed(v) for v in (-0.004, 0.4, -0.6, 12.0)] == ["±0", "±0", "-1", "+12"]
    assert [signed(v, 1) for v in (-0.04, 4.66, -4.66)] == ["±0.0", "+4.7", "-4.7"]


def test_malformed_workload_is_one_line() -> None:
    with pytest.raises(UsageError) as err:
        workload_from_dict({"name": "x", "pattern": "randwrite", "block_size_bytes": 1000, "runtime_s": 1})
    assert "\n" not in str(err.value)
    assert "multiple of 512" in str(err.value)
    with pytest.raises(UsageError, match="pattern"):
        workload_from_dict({"name": "x", "pattern": "sideways", "block_size_bytes": 4096, "runtime_s": 1})
    with pytest.raises(UsageError, match="runtime_s or size_bytes"):
        workload_from_dict({"name": "x", "pattern": "read", "block_size_bytes": 4096})


def test_span_resolution_and_shape() -> None:
    w = Workload(name="w", pattern="randrw", read_pct=70, block_size_bytes=4096, runtime_s=10,
                 offset_bytes=MIB, span_bytes=10 * GIB)
    assert w.resolve_span(2 * GIB) == 2 * GIB - MIB
    assert w.effective_read_pct() == 70
    assert w.is_write and not w.is_sequential
    assert w.describe() == "4KiB randrw 70%R QD1 T1 10s"
    with pytest.raises(UsageError, match="past the end"):
        w.resolve_span(MIB)
    read = Workload(name="r", pattern="read", block_size_bytes=MIB, size_bytes=GIB)
    assert not read.is_write and read.effective_read_pct() == 100


def test_workload_is_immutable() -> None:
    w = Workload(name="w", pattern="read", block_size_bytes=4096, runtime_s=1)
    with pytest.raises(ValidationError):
        w.iodepth = 4  # type: ignore[misc]
