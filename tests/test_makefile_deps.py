"""`make demo` as an ordinary user on Debian installs nothing that is installed. QA: losetup and
mkfs.ext4 are in /usr/sbin, not on a user's PATH, so every `make demo` asked sudo to install
util-linux and e2fsprogs (and failed where there is no sudo)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
USER_PATH = "/usr/local/bin:/usr/bin:/bin"  # Debian's ENV_PATH for users (/etc/login.defs): no sbin


def _installed_outside_sbin(tool: str) -> bool:
    return shutil.which(tool, path=USER_PATH) is not None


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_system_deps_finds_sbin_tools_from_a_users_path() -> None:
    if not all(_installed_outside_sbin(tool) for tool in ("fio", "python3")):
        pytest.skip("fio and python3 are needed on a user's PATH")
    if not any(Path(d, "losetup").exists() for d in ("/usr/sbin", "/sbin")) or \
            not any(Path(d, "mkfs.ext4").exists() for d in ("/usr/sbin", "/sbin")):
        pytest.skip("losetup and mkfs.ext4 are needed in /usr/sbin")
    rustup_cargo = Path(os.environ.get("HOME", "/nonexistent"), ".cargo/bin/cargo")
    if not (_installed_outside_sbin("cargo") or rustup_cargo.exists()):
        pytest.skip("cargo is needed")
    # APT=false: any install asked for fails, and says what it wanted.
    done = subprocess.run(["make", "-s", "-C", str(ROOT), "system-deps", "APT=false"], capture_output=True, text=True,
                          env={**os.environ, "PATH": USER_PATH}, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "installing" not in done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_a_cargo_too_old_for_the_simulator_is_named_before_the_build(tmp_path: Path) -> None:
    """Debian 12's cargo is 1.63; the simulator's dependencies need 1.85 (toml 0.9, rand 0.10), and
    the build failed deep in a dependency. `make` says so in one line first."""
    (tmp_path / ".cargo/bin").mkdir(parents=True)
    cargo = tmp_path / ".cargo/bin/cargo"
    cargo.write_text('#!/bin/sh\necho "cargo 1.63.0 (fd9c4297c 2022-08-10)"\n')
    cargo.chmod(0o755)
    done = subprocess.run(["make", "-s", "-C", str(ROOT), "rust-version"], capture_output=True, text=True,
                          env={**os.environ, "HOME": str(tmp_path)}, timeout=60)
    assert done.returncode != 0
    said = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert said == ["error: building ssdlab's simulator needs Rust 1.85 or newer (found: cargo 1.63.0 "
                    "(fd9c4297c 2022-08-10)); install it with rustup (https://rustup.rs), then run make again"]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_installed_cargo_passes_the_version_check() -> None:
    done = subprocess.run(["make", "-s", "-C", str(ROOT), "rust-version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
