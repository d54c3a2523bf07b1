"""The bundled MiniLM int8 model: unit vectors, batch-independent, mean-pooled."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.graph import integer_matmuls, read_model
from orma_proxy.embed.models import _minilm_files, load_embedder
from orma_proxy.embed.onnx import OnnxEmbedder

TEXTS = [
    "My dentist is Dr. Rao in Kothrud.",
    "tea",
    "The river flows under the old stone bridge near the mountain village every spring.",
    "我的牙医是拉奥医生。",
    "🙂",
    "",
]


def test_vectors_are_float32_unit_length_and_384_wide(embedder: OnnxEmbedder) -> None:
    vectors = embedder.embed(TEXTS)
    assert embedder.model_id == "all-MiniLM-L6-v2-int8" and embedder.dim == 384
    assert vectors.dtype == np.float32 and vectors.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_a_vector_does_not_depend_on_the_texts_embedded_with_it(embedder: OnnxEmbedder) -> None:
    """Int8 runs scale activations per run, so the default embedder runs one text each."""
    one_by_one = np.stack([embedder.embed([t])[0] for t in TEXTS])
    np.testing.assert_allclose(embedder.embed(TEXTS), one_by_one, atol=1e-5)
    np.testing.assert_allclose(embedder.embed(TEXTS[::-1])[::-1], one_by_one, atol=1e-5)


def test_float_batches_and_padding_do_not_change_a_vector() -> None:
    """Without the int8 rewrite, texts of very different lengths share padded batches."""
    floats = load_embedder(
        OrmaConfig(embed_model="all-MiniLM-L6-v2-int8", embed_int8_matmul=False, embed_batch_size=4)
    )
    one_by_one = np.stack([floats.embed([t])[0] for t in TEXTS])
    np.testing.assert_allclose(floats.embed(TEXTS), one_by_one, atol=1e-5)


def test_pooling_is_the_attention_masked_mean_of_token_states(embedder: OnnxEmbedder) -> None:
    """Recomputed from the ONNX graph's token outputs, independently of OnnxEmbedder."""
    onnx_path, tokenizer_json = _minilm_files()
    tokenizer = Tokenizer.from_str(tokenizer_json)
    tokenizer.no_padding()  # the shipped tokenizer.json pads every text to 128 tokens
    graph = read_model(onnx_path)
    integer_matmuls(graph)
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    text = "Mean pooling averages every token, not just the first one."
    encoding = tokenizer.encode(text)
    ids = np.array([encoding.ids], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    feeds["token_type_ids"] = np.zeros_like(ids)
    tokens = session.run(None, feeds)[0][0]
    mean = tokens.mean(axis=0)
    expected = mean / np.linalg.norm(mean)
    first = tokens[0] / np.linalg.norm(tokens[0])

    got = embedder.embed([text])[0]
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert float(got @ first) < 0.99  # CLS pooling would have given another vector


def test_meaning_is_captured(embedder: OnnxEmbedder) -> None:
    dentist, tooth, weather = embedder.embed(
        ["My dentist is Dr. Rao.", "Who fixes my teeth?", "It will rain in Lisbon tomorrow."]
    )
    assert float(dentist @ tooth) > float(dentist @ weather) + 0.1


def test_a_huge_text_embeds_like_its_readable_start(embedder: OnnxEmbedder) -> None:
    """The model reads 256 tokens; a 2 MB text is cut before tokenising, not after."""
    text = "The harbour lights flicker. " * 80_000
    head = " ".join(text.split()[:400])
    np.testing.assert_allclose(embedder.embed([text]), embedder.embed([head]), atol=1e-5)
    assert embedder.count_tokens("three small words") == 3
