"""The bench's on-disk corpus vectors: one cache serves every size, never stale vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench import corpus, vector_cache
from bench.vector_cache import VectorCache, distinct_sentences, notes_distinct
from tests.helpers.embedders import HashingEmbedder

MAX_CHARS = 480


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.embedded = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.embedded += len(texts)
        return super().embed(texts)


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_cache, "CHUNK", 4)


def test_a_smaller_size_is_served_from_a_larger_sizes_chunks(
    tmp_path: Path, small_chunks: None
) -> None:
    texts = notes_distinct(corpus.notes(20), MAX_CHARS)
    cache = VectorCache(tmp_path, "test-hashing-64", corpus.DEFAULT_SEED, MAX_CHARS)
    model = CountingEmbedder()
    whole = cache.vectors(texts[:10], model)
    assert model.embedded == 10 and cache.cached() == 8  # the partial third chunk is not kept
    assert np.array_equal(whole, model.embed(texts[:10]))
    again = cache.vectors(texts[:6], None)  # no model: only the cache can answer
    assert np.array_equal(again, whole[:6])
    with pytest.raises(LookupError):
        cache.vectors(texts[:10], None)


def test_vectors_stored_for_other_texts_are_not_served(tmp_path: Path, small_chunks: None) -> None:
    texts = notes_distinct(corpus.notes(20), MAX_CHARS)
    cache = VectorCache(tmp_path, "test-hashing-64", corpus.DEFAULT_SEED, MAX_CHARS)
    cache.vectors(texts[:8], CountingEmbedder())
    changed = ["a sentence the corpus never had", *texts[1:8]]
    with pytest.raises(LookupError):
        cache.vectors(changed, None)


def test_the_first_notes_distinct_sentences_are_a_prefix_of_a_larger_corpus() -> None:
    small = notes_distinct(corpus.notes(300), MAX_CHARS)
    large, notes = distinct_sentences(2_000, corpus.DEFAULT_SEED, MAX_CHARS)
    assert large[: len(small)] == small and len(set(large)) == len(large)
    assert notes == len(corpus.notes(notes)) and notes < 2_000
