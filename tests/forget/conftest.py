"""Fixtures for the forgetting and portability tests (their notes: ``tests.helpers.life``)."""

from __future__ import annotations

import pytest

from orma_proxy import OrmaConfig
from tests.helpers.serving import free_port


@pytest.fixture
def config(config: OrmaConfig) -> OrmaConfig:
    """Sleep asks a port nothing listens on, so the rule-based extractor makes the states."""
    return config.model_copy(update={"upstream": f"http://127.0.0.1:{free_port()}/v1"})
