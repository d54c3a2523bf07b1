"""`orma purge` in a terminal while `orma proxy` (another process) streams a reply quoting it.

Real processes on one database (a file, or a PostgreSQL database as two
replicas would share it), real sockets: the upstream holds its stream
open until the CLI's purge has returned, so the proxy records the turn after the
purge. The purge must bind that recording too (issue 15, item 13).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from orma_proxy import Memory
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.rawdb import rows
from tests.helpers.scripted_upstream import chunk_event
from tests.helpers.serving import free_port, serve, wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]
SECRET = "My locker code is 88415."
QUESTION = "What is my locker code?"


class HeldStream:
    """An upstream whose chat stream sends its first words, then waits to be let go."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.prompts: list[str] = []

    def app(self) -> Starlette:
        async def chat(request: Request) -> Response:
            body = await request.json()
            self.prompts.append(json.dumps(body["messages"]))

            async def events() -> AsyncIterator[bytes]:
                yield chunk_event(0, "Your locker code is 88415")
                await asyncio.to_thread(self.go.wait)
                yield chunk_event(1, ".")
                yield b"data: [DONE]\n\n"

            return StreamingResponse(events(), media_type="text/event-stream")

        async def props(request: Request) -> Response:
            return JSONResponse({"default_generation_settings": {"n_ctx": 8192}})

        return Starlette(
            routes=[Route("/v1/chat/completions", chat, methods=["POST"]), Route("/props", props)]
        )


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "ORMA_DIR": str(home), "HF_HUB_OFFLINE": "1"}


@pytest.fixture
def held() -> Iterator[tuple[HeldStream, str]]:
    upstream = HeldStream()
    with serve(upstream.app()) as served:
        try:
            yield upstream, served.url
        finally:
            upstream.go.set()


@pytest.mark.slow
@pytest.mark.both_backends
def test_cli_purge_binds_a_reply_the_proxy_process_is_streaming(
    held: tuple[HeldStream, str], tmp_path: Path, embedder: OnnxEmbedder, db: Path | str
) -> None:
    upstream, upstream_url = held
    home = tmp_path / "home"
    with Memory(path=db, embedder=embedder) as mem:
        mem.add(SECRET)
    port = free_port()
    proxy = subprocess.Popen(
        [sys.executable, "-m", "orma_proxy.cli", "proxy", "--upstream", f"{upstream_url}/v1",
         "--port", str(port), "--db", str(db)],
        cwd=ROOT, env=_env(home), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url, proxy, "orma proxy")

        chat = {"model": "m", "stream": True, "messages": [{"role": "user", "content": QUESTION}]}
        with httpx.stream("POST", f"{url}/v1/chat/completions", json=chat, timeout=180) as reply:
            received = b""
            chunks = reply.iter_raw()
            while b"88415" not in received:
                received += next(chunks)
            # The reply is streaming, quoting the secret recalled a moment ago...
            assert "88415" in upstream.prompts[0]
            # ...when the user purges it from a terminal: a process of its own.
            purge = subprocess.run(
                [sys.executable, "-m", "orma_proxy.cli", "purge", "88415", "--yes", "--json",
                 "--db", str(db)],
                cwd=ROOT, env=_env(home), capture_output=True, text=True, timeout=180,
            )  # fmt: skip
            assert purge.returncode == 0, purge.stderr
            result = json.loads(purge.stdout)
            assert result["dry_run"] is False and result["affected"]["episodes"] == [1]
            upstream.go.set()  # the reply ends after the purge: then it is recorded
            received += b"".join(chunks)
        assert b"[DONE]" in received
        # The question (no secret in it) is recorded once the reply has ended.
        deadline = time.monotonic() + 60
        while not rows(db, "SELECT 1 FROM episodes WHERE text = ?", QUESTION):
            assert time.monotonic() < deadline, "the turn was never recorded"
            time.sleep(0.1)
    finally:
        proxy.send_signal(signal.SIGINT)  # a clean stop lets every recording finish
        output = proxy.communicate(timeout=60)[0].decode()
    assert "Traceback" not in output, output
    stored = [str(r[0]) for r in rows(db, "SELECT text FROM episodes ORDER BY id")]
    assert stored == [QUESTION], stored
    assert not rows(db, "SELECT id FROM sentences WHERE text LIKE '%88415%'")
    if isinstance(db, Path):  # PostgreSQL's files: docs/postgresql.md, "Purge on PostgreSQL"
        for file in (db, db.with_name(db.name + "-wal")):
            if file.exists():
                assert b"88415" not in file.read_bytes(), file
