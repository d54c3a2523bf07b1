"""In-memory rewrites of an embedding model's ONNX graph, so it runs faster as it is.

Both keep the model's meaning; each is checked against the unrewritten graph in
the tests. The result is cached on disk by ``cache.py``.

- ``integer_matmuls``: the pip-installed MiniLM stores each weight matrix as
  int8 with a per-column scale, but its graph turns them back into float
  (``Cast`` then ``Mul``) before every ``MatMul``, so the int8 file runs at float
  speed. Each such ``MatMul`` (and the bias ``Add`` after it) becomes one
  onnxruntime ``DynamicQuantizeMatMul``: activations quantised per call, the
  stored int8 weights and scales used as they are. A short query runs ~2x and
  batched indexing ~3x faster on a 2-core x86 machine; cosine >= 0.97 (mean
  0.99) to the float run.
- ``fuse_attention``: each layer's self-attention was exported as ~25 small
  nodes (reshapes, transposes, a mask rebuilt per layer, a NaN guard around
  the softmax); onnxruntime spends ~5 us of overhead per node whatever its size,
  which for a 10-token query is more than their arithmetic. One contrib
  ``MultiHeadAttention`` node per layer computes the same.
- ``gather_int8_rows``: the int8 embedding tables were turned back into float
  whole (``Cast`` then ``Mul`` by a per-row scale) before the ``Gather`` that
  picks a text's rows. onnxruntime folds that into a 47 MB float table when it
  makes a session (a tenth of a second of CPU at every process's first
  embedding), or, told not to fold, redoes it at every run. Gathering the int8
  rows and their scales first, then converting just those, gives the same
  floats bit for bit.
- ``fuse_gelu``: the exact GELU was exported as five nodes (``x * 0.5 * (1 +
  erf(x / sqrt 2))``) that onnxruntime's own fusion does not recognise in this
  order; one contrib ``Gelu`` node computes it.

With both fusions MiniLM's vectors stay within 1e-7 of the unfused graph's and
a 10-token query runs in ~15% less time.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import helper, numpy_helper

from orma_proxy.errors import EmbedderError

# onnxruntime's contrib operator domain, where the fused operators live.
_MS_DOMAIN = "com.microsoft"
_MASK_INPUT = "attention_mask"
_MASK_INT32 = "orma_attention_mask_int32"
# The exported attention's shape around the scores, walking from each product's
# input back to the projection (the last node is nearest the product).
_QUERY_PATH = ("Reshape", "Transpose", "Mul")
_KEY_PATH = ("Reshape", "Transpose", "Reshape", "Transpose", "Reshape", "Mul")
_VALUE_PATH = ("Reshape", "Transpose")


def read_model(onnx_path: Path) -> onnx.ModelProto:
    try:
        return onnx.load(str(onnx_path))
    except (OSError, DecodeError) as exc:
        raise EmbedderError(f"cannot read the ONNX model {onnx_path}: {exc}") from exc


class _Graph:
    """Who produces and who consumes each value, and the constant initializers."""

    def __init__(self, model: onnx.ModelProto) -> None:
        self.graph = model.graph
        self.producer = {out: node for node in self.graph.node for out in node.output}
        self.consumers: dict[str, list[onnx.NodeProto]] = {}
        for node in self.graph.node:
            for name in node.input:
                self.consumers.setdefault(name, []).append(node)
        self.initializers = {init.name: init for init in self.graph.initializer}
        self.outputs = {out.name for out in self.graph.output}

    def only_consumer(self, name: str) -> onnx.NodeProto | None:
        found = self.consumers.get(name, [])
        return found[0] if len(found) == 1 and name not in self.outputs else None

    def constant(self, name: str) -> np.ndarray | None:
        init = self.initializers.get(name)
        return None if init is None else numpy_helper.to_array(init)

    def replace(self, nodes: Iterable[onnx.NodeProto]) -> None:
        """Set the graph's nodes, dropping those no graph output depends on."""
        nodes = list(nodes)
        producer = {out: i for i, node in enumerate(nodes) for out in node.output}
        live: set[int] = set()
        wanted = list(self.outputs)
        while wanted:
            index = producer.get(wanted.pop())
            if index is not None and index not in live:
                live.add(index)
                wanted.extend(nodes[index].input)
        del self.graph.node[:]
        self.graph.node.extend(node for i, node in enumerate(nodes) if i in live)


def _use_contrib_ops(model: onnx.ModelProto) -> None:
    if all(opset.domain != _MS_DOMAIN for opset in model.opset_import):
        model.opset_import.append(helper.make_opsetid(_MS_DOMAIN, 1))


def integer_matmuls(model: onnx.ModelProto) -> int:
    """Run ``model``'s dequantised-weight MatMuls in int8, in place.

    Returns how many were rewritten (0: the model has no int8 weights in that
    pattern and runs as it was).
    """
    graph = _Graph(model)
    nodes: list[onnx.NodeProto] = []
    folded: set[str] = set()  # bias Adds now inside their product
    rewritten = 0
    for node in graph.graph.node:
        if node.name in folded:
            continue
        weights = _int8_weights(node, graph)
        if weights is None:
            nodes.append(node)
            continue
        quantised, scale = weights
        scale_name = f"{scale.name}_per_column"
        per_column = numpy_helper.to_array(scale).reshape(-1).astype(np.float32)
        graph.graph.initializer.append(numpy_helper.from_array(per_column, scale_name))
        inputs, output = [node.input[0], quantised, scale_name], node.output[0]
        bias = _bias_after(node, graph, len(per_column))
        if bias is not None:
            inputs += ["", bias.input[1]]
            output = bias.output[0]
            folded.add(bias.name)
        nodes.append(
            helper.make_node(
                "DynamicQuantizeMatMul",
                inputs,
                [output],
                name=f"{node.name}_int8",
                domain=_MS_DOMAIN,
            )
        )
        rewritten += 1
    if rewritten:
        graph.replace(nodes)
        _use_contrib_ops(model)
    return rewritten


def gather_int8_rows(model: onnx.ModelProto) -> int:
    """Gather int8 table rows before turning them into float, in place; how many tables."""
    graph = _Graph(model)
    nodes: list[onnx.NodeProto] = []
    rewritten = 0
    for node in graph.graph.node:
        table = _int8_table(node, graph)
        if table is None:
            nodes.append(node)
            continue
        quantised, scale, rows = table, f"{table}_scale_rows", f"{table}_rows"
        mul = graph.producer[node.input[0]]
        nodes += [
            helper.make_node("Gather", [quantised, node.input[1]], [rows], axis=0),
            helper.make_node("Cast", [rows], [f"{rows}_f"], to=onnx.TensorProto.FLOAT),
            helper.make_node("Gather", [mul.input[1], node.input[1]], [scale], axis=0),
            helper.make_node("Mul", [f"{rows}_f", scale], [node.output[0]], name=node.name),
        ]
        rewritten += 1
    if rewritten:
        graph.replace(nodes)
    return rewritten


def _int8_table(node: onnx.NodeProto, graph: _Graph) -> str | None:
    """The int8 table's name when ``node`` is ``Gather(Cast(T_int8) * row_scale, ids)``."""
    axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
    if node.op_type != "Gather" or axis != 0 or graph.only_consumer(node.input[0]) is None:
        return None
    found = _dequantised(node.input[0], graph)
    if found is None or list(found[1].dims) != [found[0].dims[0], 1]:
        return None
    return found[0].name


def _int8_weights(node: onnx.NodeProto, graph: _Graph) -> tuple[str, onnx.TensorProto] | None:
    """(int8 weight name, scale) when ``node`` is ``MatMul(x, Cast(W_int8) * scale)``."""
    if node.op_type != "MatMul" or len(node.input) != 2:
        return None
    found = _dequantised(node.input[1], graph)
    if found is None or int(np.prod(found[1].dims)) != found[0].dims[1]:
        return None
    return found[0].name, found[1]


def _dequantised(name: str, graph: _Graph) -> tuple[onnx.TensorProto, onnx.TensorProto] | None:
    """(int8 matrix, float scale) when ``name`` is made by ``Mul(Cast(M_int8), scale)``."""
    mul = graph.producer.get(name)
    if mul is None or mul.op_type != "Mul":
        return None
    cast = graph.producer.get(mul.input[0])
    scale = graph.initializers.get(mul.input[1])
    if cast is None or cast.op_type != "Cast" or scale is None:
        return None
    matrix = graph.initializers.get(cast.input[0])
    if matrix is None or matrix.data_type != onnx.TensorProto.INT8 or len(matrix.dims) != 2:
        return None
    return (matrix, scale) if scale.data_type == onnx.TensorProto.FLOAT else None


def _bias_after(node: onnx.NodeProto, graph: _Graph, columns: int) -> onnx.NodeProto | None:
    """The ``Add`` of a constant per-column bias that alone follows ``node``, if any."""
    add = graph.only_consumer(node.output[0])
    if add is None or add.op_type != "Add" or add.input[0] != node.output[0]:
        return None
    bias = graph.constant(add.input[1])
    if bias is None or bias.shape != (columns,) or bias.dtype != np.float32:
        return None
    return add


def fuse_attention(model: onnx.ModelProto, heads: int) -> int:
    """Replace each exported self-attention block with one ``MultiHeadAttention``, in place.

    Only the exact export this was written against is fused (all layers or
    none); any other graph is left as it was and runs unfused. Returns how many
    layers were fused.
    """
    graph = _Graph(model)
    if _MASK_INPUT not in {i.name for i in graph.graph.input}:
        return 0
    blocks = [_attention(node, graph) for node in graph.graph.node if node.op_type == "Softmax"]
    if not blocks or any(block is None for block in blocks):
        return 0
    fused: dict[str, onnx.NodeProto] = {}
    for index, block in enumerate(blocks):
        assert block is not None
        query, key, value, scale, context = block
        fused[context] = helper.make_node(
            "MultiHeadAttention",
            [query, key, value, "", _MASK_INT32],
            [context],
            name=f"orma_attention_{index}",
            domain=_MS_DOMAIN,
            num_heads=heads,
            scale=scale,
        )
    cast = helper.make_node(
        "Cast", [_MASK_INPUT], [_MASK_INT32], name="orma_mask_cast", to=onnx.TensorProto.INT32
    )
    nodes = [cast] + [fused.get(node.output[0], node) for node in graph.graph.node]
    graph.replace(nodes)
    _use_contrib_ops(model)
    return len(blocks)


def _attention(softmax: onnx.NodeProto, graph: _Graph) -> tuple[str, str, str, float, str] | None:
    """(query, key, value, scale, context) around ``softmax``, if exported as expected."""
    masked = graph.producer.get(softmax.input[0])
    scores = None if masked is None else graph.producer.get(masked.input[0])
    if masked is None or masked.op_type != "Add" or scores is None or scores.op_type != "MatMul":
        return None
    weighted = _after_softmax(softmax, graph)
    if weighted is None:
        return None
    query, query_scale = _walk_back(scores.input[0], _QUERY_PATH, graph)
    key, key_scale = _walk_back(scores.input[1], _KEY_PATH, graph)
    value, _ = _walk_back(weighted.input[1], _VALUE_PATH, graph)
    transpose = graph.only_consumer(weighted.output[0])
    reshape = None if transpose is None else graph.only_consumer(transpose.output[0])
    if query is None or key is None or value is None or reshape is None:
        return None
    if transpose is None or transpose.op_type != "Transpose" or reshape.op_type != "Reshape":
        return None
    return query, key, value, query_scale * key_scale, reshape.output[0]


def _after_softmax(softmax: onnx.NodeProto, graph: _Graph) -> onnx.NodeProto | None:
    """The MatMul of the attention weights and the values (past a NaN guard, if any)."""
    node = softmax
    for _ in range(3):
        following = graph.consumers.get(node.output[0], [])
        products = [n for n in following if n.op_type == "MatMul"]
        if products:
            return products[0] if len(following) == 1 else None
        guards = [n for n in following if n.op_type == "Where"]
        if len(guards) != 1 or any(n.op_type not in ("IsNaN", "Where") for n in following):
            return None
        node = guards[0]
    return None


def _walk_back(name: str, path: tuple[str, ...], graph: _Graph) -> tuple[str | None, float]:
    """The projection ``name`` was reshaped from along ``path``, and the scalar it was scaled by."""
    scale = 1.0
    for op in reversed(path):
        node = graph.producer.get(name)
        if node is None or node.op_type != op:
            return None, scale
        if op == "Mul":
            factor = graph.constant(node.input[1])
            if factor is None or factor.size != 1:
                return None, scale
            scale *= float(factor.reshape(-1)[0])
        name = node.input[0]
    return name, scale


def fuse_gelu(model: onnx.ModelProto) -> int:
    """Replace each exported exact GELU with one contrib ``Gelu`` node (in place); how many."""
    graph = _Graph(model)
    fused: dict[str, onnx.NodeProto] = {}
    for erf in (node for node in graph.graph.node if node.op_type == "Erf"):
        found = _gelu(erf, graph)
        if found is not None:
            source, output = found
            fused[output] = helper.make_node(
                "Gelu", [source], [output], name=f"orma_gelu_{len(fused)}", domain=_MS_DOMAIN
            )
    if fused:
        graph.replace(fused.get(node.output[0], node) for node in graph.graph.node)
        _use_contrib_ops(model)
    return len(fused)


def _gelu(erf: onnx.NodeProto, graph: _Graph) -> tuple[str, str] | None:
    """(x, output) when ``erf`` is in ``x * (0.5 * (erf(x / sqrt 2) + 1))``, any operand order."""
    divide = graph.producer.get(erf.input[0])
    if divide is None or divide.op_type != "Div" or not _is(graph, divide.input[1], np.sqrt(2)):
        return None
    source = divide.input[0]
    step = erf.output[0]
    for op, value in (("Add", 1.0), ("Mul", 0.5)):
        node = graph.only_consumer(step)
        if node is None or node.op_type != op:
            return None
        other = node.input[1] if node.input[0] == step else node.input[0]
        if not _is(graph, other, value):
            return None
        step = node.output[0]
    last = graph.only_consumer(step)
    if last is None or last.op_type != "Mul" or set(last.input) != {source, step}:
        return None
    return source, last.output[0]


def _is(graph: _Graph, name: str, value: float) -> bool:
    """Whether ``name`` is a one-element constant equal to ``value`` (to float32 precision)."""
    constant = graph.constant(name)
    if constant is None or constant.size != 1:
        return False
    return abs(float(constant.reshape(-1)[0]) - value) < 1e-6
