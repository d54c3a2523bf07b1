"""Run ASGI apps under real uvicorn servers on free loopback ports, in threads."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import uvicorn
from starlette.types import ASGIApp


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Served:
    url: str
    server: uvicorn.Server

    def open_connections(self) -> int:
        """Client connections this server holds open right now."""
        return len(self.server.server_state.connections)


@contextmanager
def serve(app: ASGIApp, *, startup_timeout: float = 30.0) -> Iterator[Served]:
    """Serve ``app`` on 127.0.0.1 in a thread; yields its URL and server, stops it after."""
    config = uvicorn.Config(
        app, host="127.0.0.1", port=free_port(), log_level="warning", ws="none", lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the test server failed to start")
        if time.monotonic() > deadline:
            raise TimeoutError("the test server did not start in time")
        time.sleep(0.01)
    try:
        yield Served(f"http://127.0.0.1:{config.port}", server)
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def wait_until_healthy(
    url: str, process: subprocess.Popen[bytes], name: str, timeout: float = 120.0
) -> None:
    """Until ``process`` (an ``orma proxy`` on ``url``) answers ``/health`` with 200."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
        assert time.monotonic() < deadline, f"{name} did not come up"
        time.sleep(0.2)


@dataclass
class ProxyProcess:
    """An ``orma proxy`` child: its URL, and once it stopped, what it printed."""

    url: str
    output: list[str] = field(default_factory=list)


@contextmanager
def proxy_process(
    db: str | Path, upstream: str, home: Path, env: dict[str, str] | None = None
) -> Iterator[ProxyProcess]:
    """``orma proxy`` on ``db`` in front of ``upstream``, its own process on loopback, with
    the MiniLM that ships with pip and ``env`` besides; stopped with SIGINT (as Ctrl-C
    would) afterwards."""
    port = free_port()
    environment = {
        **os.environ,
        "ORMA_DB": str(db),
        "ORMA_UPSTREAM": upstream,
        "ORMA_DIR": str(home),
        "ORMA_HOST": "127.0.0.1",
        "ORMA_PORT": str(port),
        "ORMA_EMBED_MODEL": "all-MiniLM-L6-v2-int8",
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        **(env or {}),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "orma_proxy.cli", "proxy"],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    served = ProxyProcess(f"http://127.0.0.1:{port}")
    reader = threading.Thread(target=_drain, args=(process, served.output), daemon=True)
    try:
        wait_until_healthy(served.url, process, "orma proxy")
        # Read what it prints as it prints it: a pipe nobody reads fills at 64 KiB (about
        # 1,100 access-log lines of /health), and then the proxy's next log line blocks
        # its event loop until the test ends.
        reader.start()
        yield served
    finally:
        process.send_signal(signal.SIGINT)
        if reader.ident is None:  # it never came up: read what it said on the way down
            reader.start()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


def _drain(process: subprocess.Popen[bytes], lines: list[str]) -> None:
    assert process.stdout is not None
    for raw in process.stdout:
        lines.append(raw.decode(errors="replace").rstrip("\n"))
