"""The proxy under failure: upstream down, slow, failing, breaking off; clients leaving;
memory failing; bad requests. Chat keeps working whenever it can."""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest

from orma_proxy import Memory, OrmaConfig
from orma_proxy.embed.base import Vectors
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.server import create_app
from orma_proxy.store.connect import open_sync
from tests.helpers.proxy import Proxy, wait_for_episodes
from tests.helpers.scripted_upstream import Upstream
from tests.helpers.serving import free_port, serve

CHAT = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}


def assert_openai_error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code and error["message"] and error["type"]


def test_upstream_refusing_connections_gives_502(tmp_path: Path, embedder: OnnxEmbedder) -> None:
    config = OrmaConfig(
        home=tmp_path, db_path=tmp_path / "m.db", upstream=f"http://127.0.0.1:{free_port()}/v1"
    )
    with serve(create_app(config, embedder=embedder)) as proxy:
        assert_openai_error(
            httpx.post(f"{proxy.url}/v1/chat/completions", json=CHAT), 502, "upstream_unreachable"
        )
        streamed = httpx.post(f"{proxy.url}/v1/chat/completions", json={**CHAT, "stream": True})
        assert_openai_error(streamed, 502, "upstream_unreachable")
        assert_openai_error(httpx.get(f"{proxy.url}/v1/models"), 502, "upstream_unreachable")
        health = httpx.get(f"{proxy.url}/health").json()
        assert health["status"] == "degraded" and health["upstream"]["ok"] is False


def test_upstream_too_slow_gives_504(
    upstream: Upstream, tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    config = OrmaConfig(
        home=tmp_path, db_path=tmp_path / "m.db", upstream=f"{upstream.url}/v1", read_timeout=0.3
    )
    upstream.script.delay = 0.5
    with serve(create_app(config, embedder=embedder)) as proxy:
        response = httpx.post(f"{proxy.url}/v1/chat/completions", json=CHAT)
        assert_openai_error(response, 504, "upstream_timeout")


def test_upstream_errors_are_relayed_as_they_are(proxy: Proxy) -> None:
    proxy.upstream.script.fail_status = 429
    for stream in (False, True):
        response = httpx.post(f"{proxy.url}/v1/chat/completions", json={**CHAT, "stream": stream})
        assert response.status_code == 429
        assert response.json() == {"error": {"message": "scripted failure"}}


def test_stream_breaking_off_ends_with_an_error_event_and_done(
    proxy: Proxy, embedder: OnnxEmbedder
) -> None:
    proxy.upstream.script.chunks = ["a", "b", "c", "d"]
    proxy.upstream.script.break_after = 2
    response = httpx.post(f"{proxy.url}/v1/chat/completions", json={**CHAT, "stream": True})
    assert response.status_code == 200
    events = [e for e in response.content.split(b"\n\n") if e]
    assert len(events) == 4
    error = json.loads(events[2][len(b"data: ") :])["error"]
    assert error["code"] == "upstream_error" and error["message"]
    assert events[3] == b"data: [DONE]"
    rows = wait_for_episodes(proxy.config, 2)
    assert rows[1][:2] == ("assistant", "ab") and rows[1][2]["partial"] is True


@pytest.mark.both_backends
def test_client_leaving_mid_stream_closes_upstream_and_records_partial(
    proxy: Proxy, embedder: OnnxEmbedder
) -> None:
    proxy.upstream.script.chunks = ["first", " second", *[" more"] * 20]
    proxy.upstream.script.delay = 0.3
    with httpx.Client(timeout=10) as client:  # noqa: SIM117 - leave the stream mid-way
        with client.stream(
            "POST", f"{proxy.url}/v1/chat/completions", json={**CHAT, "stream": True}
        ) as response:
            for chunk in response.iter_raw():
                if b"second" in chunk:
                    break
    left = time.monotonic()
    while proxy.upstream.recorded.streams_cancelled == 0 and time.monotonic() - left < 3:
        time.sleep(0.02)
    assert proxy.upstream.recorded.streams_cancelled == 1
    assert time.monotonic() - left < 1.0
    assert proxy.upstream.recorded.streams_finished == 0
    rows = wait_for_episodes(proxy.config, 2)
    assert rows[0][:2] == ("user", "hello")
    assert rows[1][0] == "assistant" and rows[1][1].startswith("first second")
    assert rows[1][2]["partial"] is True


@pytest.mark.slow
def test_client_leaving_before_the_first_byte_frees_the_upstream(
    proxy: Proxy, embedder: OnnxEmbedder
) -> None:
    proxy.upstream.script.delay = 2.0  # non-streamed answer only after 6 s
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"{proxy.url}/v1/chat/completions", json=CHAT, timeout=0.5)
    left = time.monotonic()
    while proxy.upstream.served.open_connections() and time.monotonic() - left < 3:
        time.sleep(0.02)
    assert proxy.upstream.served.open_connections() == 0
    assert time.monotonic() - left < 1.0
    rows = wait_for_episodes(proxy.config, 1)
    assert [r[:2] for r in rows] == [("user", "hello")]


class FlakyEmbedder:
    """The real model, until ``broken`` is set: then it raises like a crashed runtime."""

    def __init__(self, inner: OnnxEmbedder) -> None:
        self.model_id, self.dim, self.inner, self.broken = inner.model_id, inner.dim, inner, False

    def embed(self, texts: list[str]) -> Vectors:
        if self.broken:
            raise RuntimeError("onnxruntime exploded")
        vectors: Vectors = self.inner.embed(texts)
        return vectors.astype(np.float32)


@pytest.fixture
def flaky(
    upstream: Upstream, tmp_path: Path, embedder: OnnxEmbedder
) -> Iterator[tuple[str, FlakyEmbedder]]:
    config = OrmaConfig(home=tmp_path, db_path=tmp_path / "m.db", upstream=f"{upstream.url}/v1")
    flaky = FlakyEmbedder(embedder)
    with Memory(config=config, embedder=flaky) as mem:
        mem.add("My favourite colour is teal.")
    with serve(create_app(config, embedder=flaky)) as proxy:
        yield proxy.url, flaky


def test_recall_failure_still_answers_unchanged(
    flaky: tuple[str, FlakyEmbedder], upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    url, embedder = flaky
    embedder.broken = True
    with caplog.at_level(logging.WARNING):
        response = httpx.post(f"{url}/v1/chat/completions", json=CHAT)
    assert response.status_code == 200 and response.json()["choices"]
    assert response.headers["x-orma-recall"] == "error"
    assert upstream.recorded.requests[-1]["json"]["messages"] == CHAT["messages"]
    assert any("recall failed" in r.getMessage() for r in caplog.records)


@pytest.mark.slow
def test_recording_failure_still_answers(proxy: Proxy, caplog: pytest.LogCaptureFixture) -> None:
    lock = open_sync(proxy.config.resolved_db_path(), busy_timeout_ms=100)
    lock.execute("BEGIN EXCLUSIVE")
    try:
        proxy.config.busy_timeout_ms = 100  # the proxy shares this config object
        with caplog.at_level(logging.WARNING):
            response = httpx.post(f"{proxy.url}/v1/chat/completions", json=CHAT)
            assert response.status_code == 200
            deadline = time.monotonic() + 20
            while not any("recording" in r.getMessage() for r in caplog.records):
                assert time.monotonic() < deadline, "no warning about the failed recording"
                time.sleep(0.05)
    finally:
        lock.execute("ROLLBACK")
        lock.close()


def test_bad_requests_get_clean_openai_errors(proxy: Proxy) -> None:
    url = f"{proxy.url}/v1/chat/completions"
    bad = httpx.post(
        url, content=b'{"model": "m", "messages": [', headers={"content-type": "application/json"}
    )
    assert_openai_error(bad, 400, "invalid_request")
    assert_openai_error(httpx.post(url, content=b"\xff\xfe\x00"), 400, "invalid_request")
    assert_openai_error(httpx.post(url, json=["not", "an", "object"]), 400, "invalid_request")
    assert_openai_error(httpx.get(f"{proxy.url}/_orma/nothing-here"), 404, "not_found")
    assert_openai_error(httpx.post(f"{proxy.url}/health"), 405, "method_not_allowed")
    assert not proxy.upstream.recorded.requests


def test_oversized_bodies_get_413(
    upstream: Upstream, tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    config = OrmaConfig(
        home=tmp_path, db_path=tmp_path / "m.db", upstream=f"{upstream.url}/v1", max_body_bytes=4096
    )
    big = {"model": "m", "messages": [{"role": "user", "content": "x" * 10_000}]}
    with serve(create_app(config, embedder=embedder)) as proxy:
        response = httpx.post(f"{proxy.url}/v1/chat/completions", json=big)
        assert_openai_error(response, 413, "payload_too_large")

        def chunked() -> Iterator[bytes]:  # no content-length: the limit applies while reading
            yield json.dumps(big).encode()

        response = httpx.post(f"{proxy.url}/v1/chat/completions", content=chunked())
        assert_openai_error(response, 413, "payload_too_large")
    assert not upstream.recorded.requests


def test_a_client_still_sending_past_the_limit_reads_the_413_not_a_reset(
    upstream: Upstream, tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    """The proxy reads what is still coming (to a bound) before it answers 413: closing on
    a client mid-send resets its connection, and the client never reads the answer."""
    config = OrmaConfig(
        home=tmp_path, db_path=tmp_path / "m.db", upstream=f"{upstream.url}/v1",
        max_body_bytes=1 << 20,
    )  # fmt: skip
    size, piece = 25 << 20, b"x" * (1 << 20)
    with serve(create_app(config, embedder=embedder)) as proxy:
        host, port = proxy.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=60) as client:
            client.sendall(
                f"POST /v1/chat/completions HTTP/1.1\r\nhost: {host}\r\n"
                f"content-type: application/json\r\ncontent-length: {size}\r\n\r\n".encode()
            )
            for sent in range(0, size, len(piece)):
                client.sendall(piece)
                if sent == 2 * len(piece):
                    time.sleep(0.5)  # a slow client: the answer would be out by now
            answer = b""
            while b"\r\n\r\n" not in answer:
                answer += client.recv(65536)
        assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
        chunked = iter([piece] * 25)  # no content-length: the limit applies while reading
        response = httpx.post(f"{proxy.url}/v1/chat/completions", content=chunked, timeout=60)
        assert_openai_error(response, 413, "payload_too_large")
    assert not upstream.recorded.requests


@pytest.mark.slow
def test_a_ten_megabyte_message_goes_through_and_is_recorded(
    upstream: Upstream, tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    config = OrmaConfig(home=tmp_path, db_path=tmp_path / "m.db", upstream=f"{upstream.url}/v1")
    text = "The quick brown fox jumps over the lazy dog. " * 230_000  # ~10 MB
    with serve(create_app(config, embedder=embedder)) as proxy:
        body = {"model": "m", "messages": [{"role": "user", "content": text}]}
        response = httpx.post(f"{proxy.url}/v1/chat/completions", json=body, timeout=60)
        assert response.status_code == 200
        assert upstream.recorded.requests[-1]["json"]["messages"][-1]["content"] == text
        rows = wait_for_episodes(config, 2, timeout=60)
        assert rows[0][1] == text
