"""Fixtures for sleep tests: a memory whose upstream is the scripted LLM, a fixed timezone."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.scripted_llm import BASE, ScriptedLLM

ZONE = "Asia/Kolkata"


@pytest.fixture
def config(config: OrmaConfig) -> OrmaConfig:
    """Sleep on its own: nothing drawn as lines are recorded (``test_on_record.py`` does both)."""
    return config.model_copy(update={"enable_facts_on_record": False})


@pytest.fixture
def sleep_config(config: OrmaConfig) -> OrmaConfig:
    update = {"upstream": BASE, "timezone": ZONE, "sleep_max_attempts": 2}
    update["sleep_backoff_seconds"] = 0  # failed tries are retried at once
    return config.model_copy(update=update)


@pytest.fixture
async def smem(sleep_config: OrmaConfig, embedder: OnnxEmbedder) -> AsyncIterator[AsyncMemory]:
    async with AsyncMemory(config=sleep_config, embedder=embedder) as mem:
        yield mem


@pytest.fixture
def llm() -> ScriptedLLM:
    return ScriptedLLM()


@pytest.fixture
async def http(llm: ScriptedLLM) -> AsyncIterator[httpx.AsyncClient]:
    async with llm.client() as client:
        yield client
