"""`make demo` as an ordinary user on Debian installs nothing that is installed. QA: losetup and
mkfs.ext4 are in /usr/sbin, not on a user's PATH, so every `make demo` asked sudo to install
util-linux and e2fsprogs (and failed where there is no sudo)."""

from __future__ import annotations

import os
import re
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
                    "(fd9c4297c 2022-08-10)); update rustup's with `rustup update stable`, then run make again"]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_installed_cargo_passes_the_version_check() -> None:
    done = subprocess.run(["make", "-s", "-C", str(ROOT), "rust-version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_a_cargo_too_old_outside_rustup_is_named_with_rustup_to_install(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    _script(tmp_path / "bin/cargo", 'echo "cargo 1.63.0 (fd9c4297c 2022-08-10)"')
    done = subprocess.run(["make", "-s", "-C", str(ROOT), "rust-version"], capture_output=True, text=True,
                          env={**os.environ, "HOME": str(tmp_path), "PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"},
                          timeout=60)
    said = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert done.returncode != 0 and said == [
        "error: building ssdlab's simulator needs Rust 1.85 or newer (found: cargo 1.63.0 (fd9c4297c 2022-08-10)); "
        "install it with rustup (https://rustup.rs), then run make again"]


# tools/debian-rust.sh on a PATH of stand-ins: what apt offers (rustc's Candidate), the cargo found, what
# dpkg has installed. Debian 12 offers rustc 1.63 and rustc-web 1.96; Debian 13 rustc 1.85.
DEBIAN_12 = {"rustc": "1.63.0+dfsg1-2", "rustc-web": "1.96.0+dfsg1-1~deb12u2"}
DEBIAN_13 = {"rustc": "1.85.0+dfsg3-1", "rustc-web": "1.96.0+dfsg1-1~deb13u1"}


def _script(path: Path, body: str) -> None:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def _debian_rust(tmp_path: Path, *args: str, offered: dict[str, str] | None = None, cargo: str | None = None,
                 clippy: bool = False, installed: str = "", rustup: bool = False) -> str:
    """What the script prints: stand-ins for apt-cache, cargo, dpkg-query and rustup, and the few tools
    it runs, alone on PATH (this machine's own cargo or apt do not answer)."""
    bin_dir, home = tmp_path / "bin", tmp_path / "home"
    bin_dir.mkdir()
    home.mkdir()
    for tool in ("sed", "grep"):
        (bin_dir / tool).symlink_to(shutil.which(tool) or f"/bin/{tool}")
    policy = "\n".join(f'[ "$2" = {name} ] && printf "{name}:\\n  Installed: (none)\\n  Candidate: {version}\\n"'
                       for name, version in (offered or {}).items())
    _script(bin_dir / "apt-cache", f"{policy}\nexit 0")
    if cargo is not None:
        lint = "" if clippy else '[ "$1" = clippy ] || [ "$1" = fmt ] && exit 101'
        _script(bin_dir / "cargo", f'{lint}\necho "cargo {cargo} (abc 2025-01-01)"')
    _script(bin_dir / "dpkg-query", f'[ "$4" = "{installed}" ] && echo "install ok installed"; exit 0')
    if rustup:
        (home / ".cargo/bin").mkdir(parents=True)
        _script(home / ".cargo/bin/cargo", 'echo "cargo 1.70.0 (abc 2023-06-01)"')
    done = subprocess.run(["/bin/sh", str(ROOT / "tools/debian-rust.sh"), *args], capture_output=True, text=True,
                          env={"HOME": str(home), "PATH": str(bin_dir)}, timeout=30)
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize(("offered", "cargo", "rustup", "wanted"), [
    (DEBIAN_12, None, False, "cargo-web rustc-web"),  # a fresh Debian 12: its own 1.63 would not build
    (DEBIAN_12, "1.63.0", False, "cargo-web rustc-web"),  # Debian 12's cargo installed: replaced
    (DEBIAN_13, None, False, "cargo rustc"),  # Debian's plain packages first where new enough
    ({"rustc": "1.63.0+dfsg1-2"}, None, False, "cargo rustc"),  # nothing newer: rust-version names it
    ({"rustc": "1.63.0+dfsg1-2"}, "1.63.0", False, ""),  # and nothing to gain from apt
    ({}, None, False, "cargo rustc"),  # apt knows nothing: the install says why
    (DEBIAN_12, "1.90.0", False, ""),  # new enough: nothing
    (DEBIAN_12, None, True, ""),  # a rustup toolchain, even an old one, is never replaced
])
def test_the_toolchain_packages_are_the_newest_enough_debian_offers(
        tmp_path: Path, offered: dict[str, str], cargo: str | None, rustup: bool, wanted: str) -> None:
    assert _debian_rust(tmp_path, "build", "85", offered=offered, cargo=cargo, rustup=rustup) == wanted


@pytest.mark.parametrize(("installed", "clippy", "rustup", "wanted"), [
    ("cargo-web", False, False, "rust-web-clippy rustfmt-web"),
    ("cargo", False, False, "rust-clippy rustfmt"),
    ("cargo-web", True, False, ""),
    ("cargo", False, True, ""),
])
def test_clippy_and_rustfmt_come_from_the_cargo_packages_family(
        tmp_path: Path, installed: str, clippy: bool, rustup: bool, wanted: str) -> None:
    assert _debian_rust(tmp_path, "lint", cargo="1.96.0", clippy=clippy, installed=installed, rustup=rustup) == wanted


@pytest.mark.skipif(shutil.which("apt-cache") is None, reason="needs Debian's apt")
def test_the_real_apt_caches_candidate_is_read() -> None:
    """The stand-in above writes apt-cache's lines as the script reads them: here the real one's."""
    policy = subprocess.run(["apt-cache", "policy", "rustc"], capture_output=True, text=True, timeout=60).stdout
    candidate = re.search(r"^ *Candidate: (?:\d+:)?1\.(\d+)\.", policy, re.M)
    if candidate is None:
        pytest.skip("apt offers no rustc here")
    done = subprocess.run(["/bin/sh", str(ROOT / "tools/debian-rust.sh"), "offered", "rustc"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == candidate.group(1), done.stdout + done.stderr
