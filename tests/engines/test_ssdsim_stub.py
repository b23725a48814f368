"""The dicts the binding returns have exactly the keys and value types that
python/ssdlab/_ssdsim.pyi declares. stubtest (make lint) checks the signatures but
cannot see inside a dict, so a field added to a Rust struct would otherwise slip by."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import ssdlab

pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")

from ssdlab import _ssdsim

STUB = Path(ssdlab.__file__).with_name("_ssdsim.pyi")
SCALARS: dict[str, type | tuple[type, ...]] = {"str": str, "int": int, "float": float, "bool": bool, "None": type(None)}


def _typed_dicts() -> dict[str, dict[str, tuple[ast.expr, bool]]]:
    """Each TypedDict of the stub: field -> (annotation, required)."""
    out: dict[str, dict[str, tuple[ast.expr, bool]]] = {}
    for node in ast.parse(STUB.read_text()).body:
        if isinstance(node, ast.ClassDef) and any(ast.unparse(b) == "TypedDict" for b in node.bases):
            fields = {}
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    ann, required = item.annotation, True
                    if isinstance(ann, ast.Subscript) and ast.unparse(ann.value) == "NotRequired":
                        ann, required = ann.slice, False
                    fields[item.target.id] = (ann, required)
            out[node.name] = fields
    return out


TYPED_DICTS = _typed_dicts()


def _check(value: Any, ann: ast.expr, where: str) -> None:
    if isinstance(ann, ast.BinOp):  # X | Y
        errors = []
        for side in (ann.left, ann.right):
            try:
                _check(value, side, where)
                return
            except AssertionError as err:
                errors.append(str(err))
        raise AssertionError("; ".join(errors))
    text = ast.unparse(ann)
    if isinstance(ann, ast.Subscript) and ast.unparse(ann.value) == "list":
        assert isinstance(value, list), f"{where}: {value!r} is not a list"
        for i, item in enumerate(value):
            _check(item, ann.slice, f"{where}[{i}]")
    elif isinstance(ann, ast.Subscript) and ast.unparse(ann.value) == "Literal":
        assert value in ast.literal_eval(ast.unparse(ann.slice)), f"{where}: {value!r} not in {text}"
    elif text in TYPED_DICTS:
        check_dict(value, text, where)
    else:
        expected = SCALARS[text]
        # bool is an int in Python: keep them apart, as serde does.
        assert isinstance(value, expected) and (text == "bool") == isinstance(value, bool), (
            f"{where}: {value!r} is not {text}"
        )


def check_dict(value: Any, name: str, where: str | None = None) -> None:
    where = where or name
    fields = TYPED_DICTS[name]
    assert isinstance(value, dict), f"{where}: not a dict"
    required = {k for k, (_, req) in fields.items() if req}
    assert required <= value.keys() <= fields.keys(), (
        f"{where}: keys {sorted(value)} vs stub {sorted(fields)} (required {sorted(required)})"
    )
    for key, item in value.items():
        _check(item, fields[key][0], f"{where}.{key}")


def test_every_returned_dict_matches_the_stub() -> None:
    for preset in _ssdsim.presets():
        check_dict(preset, "PresetInfo")
    seen: list[Any] = []
    for name, overrides in [("sm951-nvme-256", {"capacity_gib": "2"}), ("sm951-ahci-512", {"capacity_gib": "2"})]:
        drive = _ssdsim.Drive(name, overrides, seed=3)
        check_dict(drive.identity(), "Identity")
        check_dict(drive.state(), "DriveState")
        job = {
            "pattern": "randrw", "block_size_bytes": 4096, "iodepth": 4, "jobs": 1, "read_pct": 50.0,
            "offset_bytes": 0, "span_bytes": 1 << 26, "runtime_s": 0.3, "size_bytes": None, "ramp_s": 0.0,
            "sync": "none", "fsync_every": 0, "log_period_s": 0.1, "seed": 1,
        }
        check_dict(job, "Job")  # the stub's job shape is what the binding accepts
        result = drive.run(job, seen.append, 0.05)
        check_dict(result, "RunResult")
        assert result["series"]["t_s"] and result["write"]["lat_hist"]
        check_dict(drive.trim(0, 1 << 20), "TrimResult")
        check_dict(drive.purge(), "TrimResult")
        check_dict(drive.idle(0.5), "IdleResult")
        check_dict(drive.state(), "DriveState")
    assert seen
    for p in seen:
        check_dict(p, "Progress")
    assert isinstance(_ssdsim.__version__, str) and isinstance(_ssdsim.default_preset(), str)


def test_the_checker_notices_drift() -> None:
    state = dict(_ssdsim.Drive("sm951-nvme-256", {"capacity_gib": "2"}).state())
    with pytest.raises(AssertionError, match="keys"):
        check_dict({**state, "new_field": 1}, "DriveState")
    with pytest.raises(AssertionError, match="is not int"):
        check_dict({**state, "free_blocks": 1.5}, "DriveState")
