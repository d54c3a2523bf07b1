"""The graph rewrites: what each changes, and that the model still computes the same."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.graph import (
    fuse_attention,
    fuse_gelu,
    gather_int8_rows,
    integer_matmuls,
    read_model,
)
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
    graph = read_model(path)
    rewritten = integer_matmuls(graph)
    ops = [node.op_type for node in graph.graph.node]
    assert rewritten == 1 and "DynamicQuantizeMatMul" in ops and "MatMul" not in ops
    model = graph.SerializeToString()

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
    graph = read_model(path)
    assert integer_matmuls(graph) == 0
    x = np.full((ROWS, INNER), 0.5, dtype=np.float32)
    np.testing.assert_allclose(_run(graph.SerializeToString(), x), np.full((ROWS, COLUMNS), 8.0))


def test_a_file_that_is_not_onnx_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(b"\xff\xfe not a protobuf \x00" * 10)
    with pytest.raises(EmbedderError, match="cannot read the ONNX model"):
        read_model(path)


def test_the_bias_added_after_a_product_goes_into_it(tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    weights = rng.integers(-127, 128, size=(INNER, COLUMNS), dtype=np.int8)
    scale = rng.uniform(0.001, 0.02, size=(1, COLUMNS)).astype(np.float32)
    bias = rng.standard_normal(COLUMNS).astype(np.float32)
    path = _save(
        tmp_path,
        [
            helper.make_node("Cast", ["w_q"], ["w_f"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["w_f", "w_scale"], ["w"]),
            helper.make_node("MatMul", ["x", "w"], ["xw"]),
            helper.make_node("Add", ["xw", "b"], ["y"]),
        ],
        [
            numpy_helper.from_array(weights, "w_q"),
            numpy_helper.from_array(scale, "w_scale"),
            numpy_helper.from_array(bias, "b"),
        ],
    )
    graph = read_model(path)
    assert integer_matmuls(graph) == 1
    assert [node.op_type for node in graph.graph.node] == ["DynamicQuantizeMatMul"]
    x = rng.standard_normal((ROWS, INNER)).astype(np.float32)
    exact = _run(str(path), x)
    got = _run(graph.SerializeToString(), x)
    np.testing.assert_allclose(got, exact, rtol=0.05, atol=0.05 * np.abs(exact).max())


def _gelu_graph(tmp_path: Path, root_two: float) -> Path:
    """``y = x * (0.5 * (erf(x / root_two) + 1))``, as MiniLM's export writes GELU."""
    constants = {"root_two": root_two, "one": 1.0, "half": 0.5}
    return _save(
        tmp_path,
        [
            helper.make_node("MatMul", ["x", "w"], ["h"]),
            helper.make_node("Div", ["h", "root_two"], ["scaled"]),
            helper.make_node("Erf", ["scaled"], ["erf"]),
            helper.make_node("Add", ["erf", "one"], ["plus_one"]),
            helper.make_node("Mul", ["half", "plus_one"], ["halved"]),
            helper.make_node("Mul", ["h", "halved"], ["y"]),
        ],
        [numpy_helper.from_array(np.eye(INNER, COLUMNS, dtype=np.float32), "w")]
        + [numpy_helper.from_array(np.array(v, np.float32), k) for k, v in constants.items()],
    )


def test_the_exported_gelu_becomes_one_node_computing_the_same(tmp_path: Path) -> None:
    path = _gelu_graph(tmp_path, float(np.sqrt(2)))
    graph = read_model(path)
    assert fuse_gelu(graph) == 1
    assert [node.op_type for node in graph.graph.node] == ["MatMul", "Gelu"]
    x = np.linspace(-4, 4, ROWS * INNER, dtype=np.float32).reshape(ROWS, INNER)
    np.testing.assert_allclose(_run(graph.SerializeToString(), x), _run(str(path), x), atol=1e-6)


def test_a_look_alike_that_is_not_gelu_is_left_as_it_is(tmp_path: Path) -> None:
    graph = read_model(_gelu_graph(tmp_path, 2.0))
    assert fuse_gelu(graph) == 0 and len(graph.graph.node) == 6


def test_a_graph_without_attention_is_left_as_it_is(tmp_path: Path) -> None:
    graph = read_model(_gelu_graph(tmp_path, float(np.sqrt(2))))
    assert fuse_attention(graph, heads=12) == 0 and len(graph.graph.node) == 6


def test_minilm_fused_gives_the_same_vectors_and_honours_padding() -> None:
    """All 6 layers fused; vectors as unfused (int8 and float), batched or not."""
    path = _minilm_files()[0]
    graph = read_model(path)
    assert fuse_attention(graph, heads=12) == 6 and fuse_gelu(graph) == 6
    ops = {node.op_type for node in graph.graph.node}
    assert "Softmax" not in ops and "Erf" not in ops and "Transpose" not in ops
    texts = [
        "My dentist is Dr. Rao in Kothrud.",
        "where does my sister live now?",
        "The standup moved to Monday 17:00 after a long weekend in the hills, Priya said.",
    ]
    for int8 in (True, False):
        model = "all-MiniLM-L6-v2-int8"
        fused = load_embedder(
            OrmaConfig(embed_model=model, embed_int8_matmul=int8, embed_fuse_layers=True)
        )
        plain = load_embedder(
            OrmaConfig(embed_model=model, embed_int8_matmul=int8, embed_fuse_layers=False)
        )
        np.testing.assert_allclose(fused.embed(texts), plain.embed(texts), atol=1e-6)
    fused.batch_size = len(texts)  # the float model pads a batch to its longest text
    one_by_one = np.stack([fused.embed([t])[0] for t in texts])
    np.testing.assert_allclose(fused.embed(texts), one_by_one, atol=1e-5)


def test_minilm_gathers_int8_rows_with_the_same_floats_bit_for_bit() -> None:
    """The word and position tables are gathered as int8: no float table left to fold, the
    same hidden states exactly (Cast and Mul commute with picking rows)."""
    graph = read_model(_minilm_files()[0])
    before = graph.SerializeToString()
    assert gather_int8_rows(graph) == 2
    assert gather_int8_rows(graph) == 0  # nothing left in that shape
    gathers = [n for n in graph.graph.node if n.op_type == "Gather"]
    assert {n.input[0] for n in gathers} >= {
        "inner.embeddings.word_embeddings.weight_q",
        "inner.embeddings.position_embeddings.weight_q",
    }
    ids = np.array([[101, 2026, 24385, 2003, 2852, 1012, 102]], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": 0 * ids}
    runs = []
    for model in (before, graph.SerializeToString()):
        session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
        wanted = {i.name for i in session.get_inputs()}
        runs.append(session.run(None, {k: v for k, v in feed.items() if k in wanted})[0])
    assert np.array_equal(runs[0], runs[1])


def test_minilm_int8_keeps_the_float_runs_meaning(embedder: OnnxEmbedder) -> None:
    """Every weight product of the 6 layers is rewritten; vectors stay near the float run's."""
    assert integer_matmuls(read_model(_minilm_files()[0])) == 36  # 6 x (q, k, v, out, up, down)
    floats = load_embedder(OrmaConfig(embed_model="all-MiniLM-L6-v2-int8", embed_int8_matmul=False))
    texts = [
        "My dentist is Dr. Rao in Kothrud.",
        "The standup moved to Monday 17:00.",
        "I love hiking in the Western Ghats with my brother.",
        "where does my sister live now?",
    ]
    cosines = (embedder.embed(texts) * floats.embed(texts)).sum(axis=1)
    assert cosines.min() > 0.97 and cosines.mean() > 0.985


def test_a_rewritten_graph_that_does_not_load_falls_back_to_the_shipped_one(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """An onnxruntime without the fused operators still embeds, with the model as shipped;
    the graph that did not load is not cached."""

    def unknown_operator(graph: onnx.ModelProto, heads: int) -> int:
        last = graph.graph.node[-1]  # what makes the output: now an operator nobody has
        last.op_type, last.domain = "NoSuchOperator", "nowhere"
        graph.opset_import.append(helper.make_opsetid("nowhere", 1))
        return 1

    monkeypatch.setattr("orma_proxy.embed.graph.fuse_attention", unknown_operator)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    model = "all-MiniLM-L6-v2-int8"
    fallen_back = load_embedder(OrmaConfig(home=tmp_path, embed_model=model))
    fallen_back.load()
    assert "did not load" in caplog.text
    assert list(tmp_path.rglob("*.onnx")) == []
    shipped = load_embedder(
        OrmaConfig(
            home=tmp_path, embed_model=model, embed_int8_matmul=False, embed_fuse_layers=False
        )
    )
    texts = ["My dentist is Dr. Rao in Kothrud.", "where does my sister live now?"]
    np.testing.assert_allclose(fallen_back.embed(texts), shipped.embed(texts), atol=1e-6)
