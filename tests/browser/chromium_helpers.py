"""Headless Debian chromium: find (or, as root in CI, install) it, dump a page's DOM, screenshot."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
# No network at all: any host name fails to resolve, so an offline page is proven offline.
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND", "--hide-scrollbars",
)
VIRTUAL_TIME_BUDGET_MS = 20_000
TIMEOUT_S = 120


def chromium_or_skip() -> str:
    """The chromium binary; installs it with apt-get when root in CI, else skips the test."""
    if Path(CHROMIUM).exists():
        return CHROMIUM
    if os.geteuid() == 0 and os.environ.get("CI") and shutil.which("apt-get"):
        install = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]
        if subprocess.run(install, capture_output=True, timeout=900, check=False).returncode != 0:
            subprocess.run(["apt-get", "update"], capture_output=True, timeout=900, check=False)
            subprocess.run(install, capture_output=True, timeout=900, check=True)
        if Path(CHROMIUM).exists():
            return CHROMIUM
    pytest.skip("needs /usr/bin/chromium (apt-get install -y chromium)")


def _run(binary: str, page: Path, extra: list[str]) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="ssdlab-chromium-") as profile:
        args = [binary, *FLAGS, f"--user-data-dir={profile}", f"--virtual-time-budget={VIRTUAL_TIME_BUDGET_MS}",
                *extra, page.resolve().as_uri()]
        return subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)


def dump_dom(binary: str, page: Path) -> str:
    result = _run(binary, page, ["--dump-dom"])
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def screenshot(binary: str, page: Path, out_png: Path, width_px: int = 1280, height_px: int = 2400) -> Path:
    out_png.parent.mkdir(parents=True, exist_ok=True)
    result = _run(binary, page, [f"--screenshot={out_png}", f"--window-size={width_px},{height_px}"])
    assert result.returncode == 0 and out_png.is_file(), result.stderr[-2000:]
    return out_png


def render_status(dom: str) -> dict[str, Any]:
    """The JSON the page's script wrote into #render-status."""
    start = dom.index('<pre id="render-status">') + len('<pre id="render-status">')
    text = dom[start:dom.index("</pre>", start)]
    status: dict[str, Any] = json.loads(text.replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                                        .replace("&amp;", "&"))
    return status
