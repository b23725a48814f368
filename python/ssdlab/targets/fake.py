"""A fake drive for exact tests of the CLI and the analysis (used with the fake engine)."""

from __future__ import annotations

from dataclasses import dataclass

from ssdlab.errors import UsageError
from ssdlab.targets.base import Target, TargetInfo
from ssdlab.targets.spec import split_query
from ssdlab.units import GIB, MIB, parse_size


@dataclass
class FakeTarget(Target):
    spec: str
    capacity_bytes: int = 4 * GIB
    nvme: bool = True
    fua: bool = True  # fua=0: a write-back cache without FUA, as many SATA drives report
    kind = "fake"

    @classmethod
    def from_spec(cls, spec: str) -> FakeTarget:
        _, options = split_query(spec.removeprefix("fake:"))
        unknown = set(options) - {"capacity", "nvme", "fua"}
        if unknown:
            raise UsageError(f"fake target: unknown option {sorted(unknown)[0]!r}; use capacity=, nvme= and fua=")
        capacity = parse_size(options.get("capacity", "4g"))
        if capacity < MIB:
            raise UsageError("fake target: capacity must be at least 1m (one MiB)")
        return cls(spec=spec, capacity_bytes=capacity, nvme=options.get("nvme", "1") != "0",
                   fua=options.get("fua", "1") != "0")

    def info(self) -> TargetInfo:
        return TargetInfo(
            spec=self.spec, kind="fake", model="ssdlab fake drive", serial="FAKE0001",
            firmware="1.0", capacity_bytes=self.capacity_bytes,
            transport="fake-nvme" if self.nvme else "fake-sata", write_cache="write back",
            fua=self.fua, discard=True,
        )

    def prepare(self) -> None:
        return None
