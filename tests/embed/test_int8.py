"""The int8 rewrite: which MatMuls it changes, and that they still compute the product."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.int8 import integer_matmuls
from orma_proxy.embed.models import _minilm_files, load_embedder
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.errors import EmbedderError

ROWS, INNER, COLUMNS = 3, 16, 8


def _save(tmp_path: Path, nodes: list[onnx.NodeProto], inits: list[TensorProto]) -> Path:
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [ROWS, INNER])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [ROWS, COLUMNS])],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path / "tiny.onnx"
    onnx.save(model, str(path))
    return path


def _run(model: bytes | str, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"x": x})[0])


def test_a_dequantised_weight_matmul_becomes_an_integer_one(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    weights = rng.integers(-127, 128, size=(INNER, COLUMNS), dtype=np.int8)
    scale = rng.uniform(0.001, 0.02, size=(1, COLUMNS)).astype(np.float32)
    path = _save(
        tmp_path,
        [
            helper.make_node("Cast", ["w_q"], ["w_f"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["w_f", "w_scale"], ["w"]),
            helper.make_node("MatMul", ["x", "w"], ["y"]),
        ],
        [numpy_helper.from_array(weights, "w_q"), numpy_helper.from_array(scale, "w_scale")],
    )
    model, rewritten = integer_matmuls(path)
    ops = [node.op_type for node in onnx.load_from_string(model).graph.node]
    assert rewritten == 1 and "DynamicQuantizeMatMul" in ops and "MatMul" not in ops

    x = rng.standard_normal((ROWS, INNER)).astype(np.float32)
    exact = x @ (weights.astype(np.float32) * scale)
    got = _run(model, x)
    np.testing.assert_allclose(got, _run(str(path), x), rtol=0.05, atol=0.05 * np.abs(exact).max())


def test_a_float_weight_matmul_is_left_as_it_is(tmp_path: Path) -> None:
    weights = np.ones((INNER, COLUMNS), dtype=np.float32)
    path = _save(
        tmp_path,
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [numpy_helper.from_array(weights, "w")],
    )
    model, rewritten = integer_matmuls(path)
    assert rewritten == 0
    x = np.full((ROWS, INNER), 0.5, dtype=np.float32)
    np.testing.assert_allclose(_run(model, x), np.full((ROWS, COLUMNS), 8.0))


def test_a_file_that_is_not_onnx_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(b"\xff\xfe not a protobuf \x00" * 10)
    with pytest.raises(EmbedderError, match="cannot read the ONNX model"):
        integer_matmuls(path)


def test_minilm_int8_keeps_the_float_runs_meaning(embedder: OnnxEmbedder) -> None:
    """Every weight product of the 6 layers is rewritten; vectors stay near the float run's."""
    _, rewritten = integer_matmuls(_minilm_files()[0])
    assert rewritten == 36  # 6 layers x (q, k, v, out, up, down)
    floats = load_embedder(OrmaConfig(embed_model="all-MiniLM-L6-v2-int8", embed_int8_matmul=False))
    texts = [
        "My dentist is Dr. Rao in Kothrud.",
        "The standup moved to Monday 17:00.",
        "I love hiking in the Western Ghats with my brother.",
        "where does my sister live now?",
    ]
    cosines = (embedder.embed(texts) * floats.embed(texts)).sum(axis=1)
    assert cosines.min() > 0.97 and cosines.mean() > 0.985
