"""The dashboard's server reaches for nothing outside this computer, whatever connects (issue 46: a page of another
site opening its websocket made Streamlit look up its external address, checkip.amazonaws.com, and open a socket
towards 8.8.8.8, on every attempt while offline). The server runs with every lookup and connection beyond the
loopback made to fail and written down: the test fails on any."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support import ROOT, free_port

GUARD = '''
import os, socket
LOG = os.environ["OUTSIDE_LOG"]
LOCAL = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "", None}

def _outside(host):
    return host not in LOCAL and not str(host).startswith("127.")

def _record(what):
    with open(LOG, "a") as log:
        log.write(what + "\\n")

_getaddrinfo = socket.getaddrinfo
def getaddrinfo(host, *args, **kwargs):
    if _outside(host):
        _record(f"lookup {host}")
        raise socket.gaierror("outside lookups are refused in this test")
    return _getaddrinfo(host, *args, **kwargs)

_connect = socket.socket.connect
def connect(self, address):
    if isinstance(address, tuple) and _outside(address[0]):
        _record(f"connect {address}")
        raise OSError("outside connections are refused in this test")
    return _connect(self, address)

socket.getaddrinfo = getaddrinfo
socket.socket.connect = connect
'''


def test_nothing_is_looked_up_or_reached_outside_whatever_connects(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(GUARD)
    log = tmp_path / "outside.log"
    port = free_port()
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]), "OUTSIDE_LOG": str(log)}
    server = subprocess.Popen([sys.executable, "-m", "dashboard.serve", "--server.port", str(port)], cwd=ROOT,
                              env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        _wait_until_up(port)
        for origin in ("http://evil.example", f"http://127.0.0.1:{port}", "http://10.1.2.3"):
            _open_websocket(port, origin)
        time.sleep(1.0)
    finally:
        server.terminate()
        server.wait(timeout=20)
    assert not log.exists() or log.read_text() == ""


def _wait_until_up(port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    pytest.fail("the dashboard did not start within 60 s")


def _open_websocket(port: int, origin: str) -> None:
    """A websocket opened to the dashboard as a page of ``origin`` would open it (refused or not: what matters is
    what the server does to decide)."""
    from tornado.httpclient import HTTPRequest
    from tornado.ioloop import IOLoop
    from tornado.websocket import websocket_connect

    async def attempt() -> None:
        request = HTTPRequest(f"ws://127.0.0.1:{port}/_stcore/stream", headers={"Origin": origin},
                              request_timeout=10)
        try:
            connection = await websocket_connect(request)
            connection.close()
        except Exception:  # noqa: BLE001 - a refusal is an answer
            pass

    IOLoop.current().run_sync(attempt, timeout=20)


def test_a_crash_shows_no_detail_on_the_page():
    config = (Path(ROOT) / ".streamlit" / "config.toml").read_text()
    assert 'showErrorDetails = "none"' in config
