"""Sizes typed in a target or a parameter are binary (4k, 64m, 1GiB); '64MB' is refused, naming
both readings, since ssdlab prints MB and GB as decimal (docs/methods/README.md, Conventions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ssdlab.errors import UsageError
from ssdlab.targets.file import FileTarget
from ssdlab.units import KIB, MIB, SizeError, parse_size


@pytest.mark.parametrize(("text", "size"), [("64m", 64 * MIB), ("64MiB", 64 * MIB), ("64mib", 64 * MIB),
                                            ("4k", 4 * KIB), ("512", 512), ("512b", 512), ("512B", 512)])
def test_binary_sizes_are_taken(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize(("text", "binary", "decimal"), [
    ("64MB", "64m (64 MiB = 67,108,864 bytes)", "64000000 (64 MB)"),
    ("1.5GB", "1.5g (1.5 GiB = 1,610,612,736 bytes)", "1500000000 (1.5 GB)"),
    ("4kb", "4k (4 KiB = 4,096 bytes)", "4000 (4 KB)"),
])
def test_a_decimal_unit_is_refused_naming_both_readings(text: str, binary: str, decimal: str) -> None:
    """QA: size=64MB made a 64 MiB (67.1 MB) file, though ssdlab prints MB as 10^6 bytes."""
    with pytest.raises(SizeError) as err:
        parse_size(text)
    assert binary in str(err.value) and decimal in str(err.value) and "\n" not in str(err.value)


def test_a_file_target_of_64mb_is_refused(tmp_path: Any) -> None:
    with pytest.raises(UsageError, match=r"'64MB' is ambiguous.*give 64m .* or 64000000"):
        FileTarget.from_spec(f"file:{tmp_path}/x.img?size=64MB")
    assert not (tmp_path / "x.img").exists()


def test_a_parameter_of_1gb_is_refused(cli: Callable[..., Any], tmp_path: Any) -> None:
    result = cli("plan", "--test", "linear", "-p", "span_bytes=1GB", "-t", "fake:")
    assert result.code == 2 and "span_bytes=1GB is ambiguous" in result.stderr, result.stderr
