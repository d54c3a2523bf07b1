"""Headless Chromium for the browser tests: found, run once, or driven over DevTools.

``chromium()`` is Debian's browser and ``CHROMIUM_FLAGS`` load a page once and
dump its DOM. ``browser()`` keeps one tab open instead: Chromium listens on a
port it picks (``--remote-debugging-port=0`` and the ``DevToolsActivePort``
file); the test talks to the page's websocket with ``websockets``' synchronous
client: evaluate JavaScript, press keys, click with real mouse events, take a
screenshot (``keep`` saves it for CI), and keep every console message and
uncaught exception the page produced.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--virtual-time-budget=15000",
    "--dump-dom",
]

# The flags the proxy's browser test uses, without its one-shot --dump-dom mode, and a
# software WebGL (SwiftShader): there is no GPU here.
PAGE_FLAGS = [
    *(f for f in CHROMIUM_FLAGS if f != "--dump-dom" and not f.startswith("--virtual-time")),
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--hide-scrollbars",
    "--mute-audio",
]


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "Debian's chromium is required (.ci/run installs it)"
    return path


def keep(shot: Path) -> None:
    """Copy a screenshot to $ORMA_ARTIFACTS when set (CI collects it from there)."""
    target = os.environ.get("ORMA_ARTIFACTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(target) / shot.name)


@dataclass
class Page:
    """One tab: commands go out, answers and events come back on the same socket."""

    socket: ClientConnection
    events: list[dict[str, Any]] = field(default_factory=list)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def call(self, method: str, timeout: float = 60.0, **params: Any) -> dict[str, Any]:
        number = next(self._ids)
        self.socket.send(json.dumps({"id": number, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self.socket.recv(timeout=max(deadline - time.monotonic(), 0.01)))
            if message.get("id") == number:
                if "error" in message:
                    raise AssertionError(f"{method} failed: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self.events.append(message)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (promises awaited); page errors raise."""
        answer = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in answer:
            raise AssertionError(f"{expression!r} threw: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60.0) -> Any:
        """Poll until ``expression`` is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {expression!r}; errors: {self.errors()}")

    def navigate(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def type_and_enter(self, selector: str, text: str) -> None:
        """Focus a field, type into it as a user would, and press Enter."""
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.call("Input.insertText", text=text)
        for kind in ("keyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                type=kind,
                key="Enter",
                code="Enter",
                windowsVirtualKeyCode=13,
                text="\r" if kind == "keyDown" else "",
            )

    def click(self, x: float, y: float) -> None:
        """A real left click: the pointer moves there, presses and releases."""
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self, path: Path) -> Path:
        shot = self.call("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def errors(self) -> list[str]:
        """Console errors, failed loads and uncaught exceptions seen so far."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(" ".join(str(a.get("value", a)) for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                found.append(json.dumps(params.get("exceptionDetails", {}))[:2000])
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                found.append(f"{entry.get('text')} {entry.get('url', '')}")
        return found


def _devtools_port(profile: Path, proc: subprocess.Popen[bytes], timeout: float) -> int:
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"chromium exited with {proc.returncode}")
        if marker.exists():
            first = marker.read_text("utf-8").split("\n", 1)[0].strip()
            if first.isdigit():
                return int(first)
        time.sleep(0.05)
    raise AssertionError("chromium never opened its DevTools port")


@contextmanager
def browser(profile: Path, *, width: int = 1280, height: int = 800) -> Iterator[Page]:
    """A headless Chromium with one blank tab, closed however the test ends."""
    log = (profile.parent / "chromium.log").open("wb")
    proc = subprocess.Popen(
        [
            "nice", "-n", "19", chromium(), *PAGE_FLAGS, f"--user-data-dir={profile}",
            f"--window-size={width},{height}", "--remote-debugging-port=0", "about:blank",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        port = _devtools_port(profile, proc, timeout=60)
        targets = httpx.get(f"http://127.0.0.1:{port}/json/list", timeout=10).json()
        url = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
        with connect(url, max_size=None, open_timeout=30) as socket:
            page = Page(socket)
            for domain in ("Page", "Runtime", "Log"):
                page.call(f"{domain}.enable")
            page.call(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=False,
            )
            yield page
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
