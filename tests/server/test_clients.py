"""Real clients against `orma proxy` running as a process: the OpenAI SDK (sync and async,
streaming and not) and LangChain's ChatOpenAI, in front of the scripted upstream."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_openai import ChatOpenAI
from openai import AsyncOpenAI, OpenAI

from orma_proxy import Memory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.proxy import wait_for_episodes
from tests.helpers.scripted_upstream import Upstream
from tests.helpers.serving import free_port, wait_until_healthy


@pytest.fixture
def orma_process(upstream: Upstream, tmp_path: Path, embedder: OnnxEmbedder) -> Iterator[str]:
    """`orma proxy` as a subprocess, with one memory stored beforehand."""
    db = tmp_path / "memory.db"
    with Memory(path=db, embedder=embedder) as mem:
        mem.add("I live in Bangalore and work at Zerodha.", space="sahil")
    port = free_port()
    env = {**os.environ, "ORMA_DIR": str(tmp_path / "home")}
    process = subprocess.Popen(
        [sys.executable, "-m", "orma_proxy.cli", "proxy", "--upstream", f"{upstream.url}/v1",
         "--port", str(port), "--db", str(db)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    wait_until_healthy(url, process, "orma proxy", timeout=60)
    try:
        yield url
    finally:
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=30)[0].decode()
        # Ctrl-C: uvicorn shuts down cleanly, then re-raises the signal (exit 130).
        assert process.returncode in (0, 130, -signal.SIGINT), output
        assert "Application shutdown complete" in output, output
        assert "Traceback" not in output, output


def test_openai_sdk_sync_and_streaming(
    orma_process: str, upstream: Upstream, tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    client = OpenAI(base_url=f"{orma_process}/v1", api_key="none")
    messages = [{"role": "user", "content": "Where do I live?"}]
    reply = client.chat.completions.create(model="m", messages=messages, user="sahil")  # type: ignore[arg-type]
    assert reply.choices[0].message.content == "Hello there!"
    assert "Bangalore" in upstream.recorded.requests[-1]["json"]["messages"][0]["content"]
    upstream.script.chunks = ["Ban", "galore", "."]
    stream = client.chat.completions.create(
        model="m", messages=messages, stream=True, user="sahil",  # type: ignore[arg-type]
        stream_options={"include_usage": True},
    )  # fmt: skip
    chunks = list(stream)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Bangalore."
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    rows = wait_for_episodes(
        OrmaConfig(db_path=tmp_path / "memory.db", home=tmp_path), 5, space="sahil"
    )
    assert [r[1] for r in rows[-2:]] == ["Where do I live?", "Bangalore."]


def test_openai_sdk_async_and_error_surfaces(orma_process: str, upstream: Upstream) -> None:
    async def run() -> None:
        client = AsyncOpenAI(base_url=f"{orma_process}/v1", api_key="none")
        stream = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
        assert text == "Hello there!"
        upstream.script.chunks = ["a", "b", "c"]
        upstream.script.break_after = 1
        broken = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        with pytest.raises(Exception, match="upstream"):
            async for _ in broken:
                pass
        await client.close()

    asyncio.run(run())


def test_langchain_chat_openai(orma_process: str, upstream: Upstream) -> None:
    llm = ChatOpenAI(base_url=f"{orma_process}/v1", api_key="none", model="m")  # type: ignore[arg-type]
    answer = llm.invoke("Where do I work?")
    assert answer.content == "Hello there!"
    assert upstream.recorded.requests[-1]["json"]["messages"][-1]["content"] == "Where do I work?"
    streamed = "".join(str(chunk.content) for chunk in llm.stream("Where do I work?"))
    assert streamed == "Hello there!"
