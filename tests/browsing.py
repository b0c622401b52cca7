"""What the browser tests share (tests/test_browser.py, tests/test_browser_phone.py): ``kb serve`` on a free
loopback port, started as a user starts it and waited for until /api/health answers."""
from __future__ import annotations

import contextlib
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path(os.environ.get("KB_CHROMIUM", "/usr/bin/chromium"))  # Debian's; Playwright never downloads one here


def free_port() -> int:
    """A loopback port for a ``kb serve`` to bind, below the kernel's ephemeral range: a port the kernel hands out
    (bind to 0) can be taken by another test's client socket before granian binds it ("Address already in use" in
    CI while a test held 4,100 connections); a port below the range is taken only by an explicit bind."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    for port in random.Random().sample(range(10_000, low), 200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free loopback port below the ephemeral range")


@contextlib.contextmanager
def kb_serving(data: Path, *args: str, stdout: IO[bytes] | int = subprocess.DEVNULL, wait: float = 60
               ) -> Iterator[str]:
    """The URL of ``kb serve --data data --workers 1 *args``, stopped at the end; a test fails when it exits or does
    not answer within ``wait`` seconds."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "web.cli", "--data", str(data), "serve", "--port", str(port), "--workers", "1", *args],
        cwd=ROOT, env={**os.environ, "KB_DATA": str(data)}, stdout=stdout, stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    stderr = proc.stderr
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(url + "/api/health", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("kb serve exited: " + stderr.read().decode(errors="replace"))
                time.sleep(0.2)
        else:
            proc.kill()
            pytest.fail(f"kb serve did not answer within {wait:g} s")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        stderr.close()
