"""A size parameter's refusal of 0 names the least it takes, and that least is taken: no later
check of the same parameter refuses it as too small (methods/params.py RegionBytes)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ssdlab.methods import REGISTRY
from ssdlab.units import unit_from_name

SIZE_FIELDS = sorted((name, field) for name, test in REGISTRY.items()
                     for field in test.params_model.model_fields
                     if unit_from_name(field) == "bytes" and not field.startswith(("offset", "budget")))


@pytest.mark.parametrize(("name", "field"), SIZE_FIELDS)
def test_the_least_a_size_parameter_names_is_taken(cli: Any, name: str, field: str) -> None:
    """QA: `size_bytes=0` was refused "under 512B, the least it takes", and 512 then "under 1MiB, the
    least test region"; a span of 512 B "smaller than 1 MiB, the smallest region a method uses"."""
    refused = cli("plan", "-t", "fake:?capacity=64g", "--test", name, "-p", f"{field}=0")
    assert refused.code == 2 and refused.stderr.count("\n") == 1, refused.stderr
    floor = re.search(r"is under (\S+), the least it takes", refused.stderr)
    assert floor is not None, refused.stderr
    least = cli("plan", "-t", "fake:?capacity=64g", "--test", name, "-p", f"{field}={floor[1]}")
    assert f"{field}={floor[1]} is under" not in least.stderr, least.stderr
    assert "the smallest region a method uses" not in least.stderr, least.stderr
