"""Recall's background vectors, kept in the user's cache: read by the next process, never wrong."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from orma_proxy import Memory, OrmaConfig
from orma_proxy.embed.base import fit
from orma_proxy.embed.fixed import fixed_file, keep_fixed, read_fixed
from orma_proxy.embed.models import load_embedder
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.recall.floor import BACKGROUND
from tests.helpers.embedders import HashingEmbedder

NOTES = ["My dog is called Rex.", "My dentist is Dr. Rao in Kothrud.", "I moved to Pune in March."]
QUERY = "what is my dog called?"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "orma" / "vectors"


def _search(config: OrmaConfig, embedder: object) -> list[tuple[int, float, bool]]:
    with Memory(config=config, embedder=embedder) as mem:  # type: ignore[arg-type]
        if not mem.stats().episodes:
            for note in NOTES:
                mem.add(note)
            mem.flush()
        found = mem.search(QUERY, k=3)
    return [(p.sentence_id, p.score, p.sentence_id in found.below_floor) for p in found.passages]


def _embedded_texts(embedder: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text ``embedder`` embeds from now on (it still embeds them)."""
    seen: list[str] = []
    real = embedder.embed

    def embed(texts: list[str]) -> object:
        seen.extend(texts)
        return real(texts)

    monkeypatch.setattr(embedder, "embed", embed)
    return seen


def test_a_new_memory_reads_the_background_instead_of_embedding_it_again(
    config: OrmaConfig, embedder: OnnxEmbedder, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _search(config, embedder)
    assert first[0][0] == 1 and any(low for *_, low in first)  # the floor was asked
    (kept,) = cache.iterdir()
    assert kept.stat().st_size == len(BACKGROUND) * 384 * 4
    embedded = _embedded_texts(embedder, monkeypatch)
    assert _search(config, embedder) == first  # the same floor, the same hits
    assert QUERY in embedded
    assert not set(embedded) & set(BACKGROUND)


def test_kept_vectors_are_exactly_the_embedders_own(embedder: OnnxEmbedder, cache: Path) -> None:
    path = fixed_file(embedder, BACKGROUND)
    assert path is not None and path.parent == cache
    made = fit(embedder.embed(list(BACKGROUND)), len(BACKGROUND), 384, embedder.model_id)
    keep_fixed(path, made)
    read = read_fixed(path, len(BACKGROUND), embedder.dim)
    assert read is not None and read.dtype == np.float32
    assert np.array_equal(read, made)
    assert read_fixed(path, len(BACKGROUND) - 1, embedder.dim) is None  # not these texts
    assert fixed_file(embedder, BACKGROUND[:-1]) != path


def test_a_damaged_file_is_embedded_again_and_rewritten(
    config: OrmaConfig, embedder: OnnxEmbedder, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _search(config, embedder)
    (kept,) = cache.iterdir()
    whole = kept.read_bytes()
    kept.write_bytes(whole[:1000])
    embedded = _embedded_texts(embedder, monkeypatch)
    assert _search(config, embedder) == first
    assert set(BACKGROUND) <= set(embedded)
    assert kept.read_bytes() == whole
    nan = np.frombuffer(whole, dtype="<f4").copy()
    nan[5] = np.nan
    kept.write_bytes(nan.tobytes())
    assert read_fixed(kept, len(BACKGROUND), 384) is None


def test_a_callers_own_embedder_keeps_nothing(config: OrmaConfig, cache: Path) -> None:
    embedder = HashingEmbedder()
    assert fixed_file(embedder, BACKGROUND) is None
    _search(config, embedder)
    assert not cache.exists()


def test_another_graph_or_setting_is_another_file(embedder: OnnxEmbedder, cache: Path) -> None:
    shipped = load_embedder(
        OrmaConfig(embed_model=embedder.model_id, embed_int8_matmul=False, embed_fuse_layers=False)
    )
    assert fixed_file(shipped, BACKGROUND) != fixed_file(embedder, BACKGROUND)
    assert shipped.fingerprint() != embedder.fingerprint()
    assert embedder.fingerprint() == embedder.fingerprint()


def test_an_unwritable_cache_only_means_embedding_again(
    embedder: OnnxEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    path = fixed_file(embedder, BACKGROUND)
    assert path is not None
    keep_fixed(path, np.zeros((len(BACKGROUND), 384), dtype=np.float32))
    assert read_fixed(path, len(BACKGROUND), 384) is None


def test_a_rewritten_graph_has_one_fingerprint_made_now_or_read_from_the_cache(
    embedder: OnnxEmbedder, cache: Path
) -> None:
    """The process that rewrites the graph and the next ones, which read it, keep and find
    the background under one name."""
    config = OrmaConfig(embed_model=embedder.model_id)
    made_now = load_embedder(config)
    first = made_now.fingerprint()
    assert any((cache.parent / "rewritten").glob("*.onnx"))  # it was rewritten, and kept
    read_back = load_embedder(config)
    assert read_back.fingerprint() == first
