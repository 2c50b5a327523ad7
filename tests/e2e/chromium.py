"""Headless Chromium (Debian's ``chromium``; .ci/run installs it) driven over the DevTools
protocol with the standard library only (a websocket client of a few lines), for the tests of
the report page in a real browser."""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium on PATH (apt-get install chromium; .ci/run does)"
)


class DevTools:
    """One page of a headless Chromium, over the DevTools protocol's websocket."""

    def __init__(self, url: str) -> None:
        host, port_path = url.removeprefix("ws://").split(":", 1)
        port, path = port_path.split("/", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET /{path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += self.sock.recv(1)
        assert answer.startswith(b"HTTP/1.1 101"), answer
        self.events: list[dict[str, Any]] = []
        self.next_id = 0

    def _recv(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            assert chunk, "the browser closed the connection"
            data += chunk
        return data

    def _message(self) -> dict[str, Any]:
        payload = b""
        while True:
            first, second = self._recv(2)
            size = second & 0x7F
            if size == 126:
                size = struct.unpack(">H", self._recv(2))[0]
            elif size == 127:
                size = struct.unpack(">Q", self._recv(8))[0]
            payload += self._recv(size)
            if first & 0x80:  # the last frame of the message
                return dict(json.loads(payload))

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        data = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        mask = os.urandom(4)
        head = bytes([0x81])
        if len(data) < 126:
            head += bytes([0x80 | len(data)])
        elif len(data) < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", len(data))
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", len(data))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(head + mask + masked)
        while True:
            message = self._message()
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                return dict(message.get("result", {}))
            self.events.append(message)

    def wait_for(self, method: str) -> None:
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self._message())

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def open(self, url: str, width: int, height: int) -> None:
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=width < 600,
        )
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def errors(self) -> list[str]:
        """The console errors, uncaught exceptions and failed loads seen since the last open."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(json.dumps(params.get("args")))
            elif method == "Runtime.exceptionThrown":
                found.append(json.dumps(params.get("exceptionDetails")))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(params["entry"].get("text", ""))
        return found

    def requests(self) -> list[str]:
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]


@contextmanager
def launched(profile: Path) -> Iterator[DevTools]:
    """A headless Chromium with its profile in profile, and its one page; ended after."""
    assert CHROMIUM is not None
    process = subprocess.Popen(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",  # root in CI's container
            "--disable-gpu",
            "--no-first-run",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
            assert time.monotonic() < deadline, "chromium did not open its DevTools port"
            assert process.poll() is None, f"chromium exited with {process.returncode}"
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as answer:
            pages = [t for t in json.load(answer) if t["type"] == "page"]
        tools = DevTools(pages[0]["webSocketDebuggerUrl"])
        for domain in ("Page", "Runtime", "Log", "Network"):
            tools.call(f"{domain}.enable")
        yield tools
    finally:
        process.terminate()
        process.wait(timeout=30)


def screenshot(browser: DevTools) -> bytes:
    return base64.b64decode(browser.call("Page.captureScreenshot", format="png")["data"])
