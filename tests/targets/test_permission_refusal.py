"""A target this user cannot open as the run would is said up front, with what to do (QA as an
ordinary user: a root-owned loop device read "writable" in `info`, `run` asked for --destroy --yes
first and then failed "cannot open /dev/loop0 (Permission denied)"). Checked in a child that
drops to `nobody` after importing ssdlab (the checkout need not be readable by that user)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from loop_helpers import attached_loop

pytestmark = pytest.mark.root

NOBODY = 65534
CHILD = """
import os, sys
from ssdlab.errors import SsdlabError
from ssdlab.targets import parse_target
targets = [parse_target(spec) for spec in sys.argv[1:]]
os.setgid({uid}); os.setuid({uid})
for target in targets:
    print(target.setup_refusal(True))
try:
    targets[0].authorize_writes(destroy=False, confirmed_serial=None)
except SsdlabError as error:
    print(type(error).__name__, error)
"""


@pytest.fixture
def root_only_node(tmp_path: Path) -> Iterator[str]:
    with attached_loop(tmp_path / "loop.img") as node:
        os.chmod(node, 0o600)
        yield node


def as_nobody(*specs: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", CHILD.format(uid=NOBODY), *specs], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "python")},
                          timeout=60, check=True)
    return done.stdout.splitlines()


@pytest.fixture
def reachable(tmp_path: Path) -> Iterator[Path]:
    """A folder of root's that `nobody` can reach and read, not write (pytest's own are root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="ssdlab-perm-", dir="/tmp"))
    os.chmod(folder, 0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def test_targets_this_user_cannot_open_are_refused_with_what_to_do(root_only_node: str, reachable: Path) -> None:
    folder = reachable
    (folder / "file.img").write_bytes(b"x")
    device, existing, new = as_nobody(root_only_node, f"file:{folder}/file.img?size=64m",
                                      f"file:{folder}/new.img?size=64m")[:3]
    todo = "run ssdlab as root (sudo), or give a target you can write"
    assert device == f"{root_only_node}: this user cannot open {root_only_node} for writing (it is root's, mode " \
                     f"brw-------); {todo}"
    assert existing.endswith(f"cannot open {folder}/file.img for writing (it is root's, mode -rw-r--r--); {todo}")
    assert new.endswith(f"cannot make a file in {folder} (it is root's, mode drwxr-xr-x); {todo}")


def test_the_device_is_refused_before_the_confirmation_is_asked_for(root_only_node: str) -> None:
    said = as_nobody(root_only_node)[-1]
    assert said.startswith("TargetError ") and "this user cannot open" in said and "--destroy" not in said


def test_root_is_not_refused(root_only_node: str, tmp_path: Path) -> None:
    from ssdlab.targets import parse_target

    assert parse_target(root_only_node).setup_refusal(True) is None
    assert parse_target(f"file:{tmp_path}/x.img?size=64m").setup_refusal(True) is None
