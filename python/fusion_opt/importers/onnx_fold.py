"""Fold the shape arithmetic of a static-shaped ONNX graph into constants, where shape inference stopped.

Why: exporters compute reshape targets at run time (`Shape -> Gather -> Div -> Concat -> Reshape` in
torch's MultiheadAttention: torchvision's ViT-B/16), and onnx's data propagation does not follow every
such chain: the Reshape's output is left without a shape, the torch importer types it rank-0, and the
import fails ("onnx.Transpose ... !torch.vtensor<[],f32>"). With every graph input pinned, each of those
values is a constant; evaluating them with onnx's reference evaluator gives the importer static shapes.

Only small tensors are evaluated (shape vectors, scalars): weights and activations stay in the graph.
Runs only when some node output has no static shape after inference, so graphs that import today are
left exactly as they were.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .onnx_weights import MAX_FOLD_ELEMENTS, light_copy

NEVER_FOLD = {  # ops never evaluated at compile time (control flow, randomness, sequences)
    "If", "Loop", "Scan", "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
    "Bernoulli", "Multinomial", "SequenceConstruct", "SequenceAt", "SequenceInsert", "SplitToSequence",
    "ConcatFromSequence"}


def _static(v: onnx.ValueInfoProto) -> list[int] | None:
    t = v.type.tensor_type
    if not v.type.HasField("tensor_type") or not t.HasField("shape"):
        return None
    dims = [d.dim_value if d.HasField("dim_value") else -1 for d in t.shape.dim]
    return None if any(d < 0 for d in dims) else dims


def unshaped_outputs(proto: onnx.ModelProto) -> list[str]:
    """Node outputs that shape inference left without a static shape."""
    known = {v.name for v in [*proto.graph.value_info, *proto.graph.output, *proto.graph.input]
             if _static(v) is not None}
    return [o for n in proto.graph.node for o in n.output if o and o not in known]


def evaluate_node(node: onnx.NodeProto, values: dict[str, np.ndarray], opsets: list[onnx.OperatorSetIdProto]
                  ) -> list[np.ndarray] | None:
    from onnx.reference import ReferenceEvaluator

    ins = [i for i in node.input if i]
    graph = helper.make_graph([node], "fold", [helper.make_tensor_value_info(i, helper.np_dtype_to_tensor_dtype(
        values[i].dtype), values[i].shape) for i in dict.fromkeys(ins)], [helper.make_value_info(o, onnx.TypeProto())
                                                                         for o in node.output if o])
    try:
        model = helper.make_model(graph, opset_imports=opsets)
        outs = ReferenceEvaluator(model).run(None, {i: values[i] for i in ins})
    except Exception:  # an op the evaluator lacks, or one that fails: leave it to the importer
        return None
    return [np.asarray(o) for o in outs]


def sort_nodes(graph: onnx.GraphProto, outer: frozenset[str] = frozenset()) -> bool:
    """Put the nodes in topological order (stable); True if they were not. ONNX requires the order, the
    importer relies on it ("Non topologically produced ONNX node input"), and some graphs break it (onnx's
    own linear-attention expansions; function bodies spliced in by importers/onnx_functions.py). A node's
    subgraphs count as reading what they take from the enclosing graph."""
    nodes = list(graph.node)
    known = {i.name for i in graph.input} | {t.name for t in graph.initializer} | {""} | outer
    needs = [[*n.input, *_outer_names(n)] for n in nodes]
    scope = frozenset(known | {o for n in nodes for o in n.output})
    inner = False
    for n in nodes:
        for g in subgraphs(n):
            inner = sort_nodes(g, scope) or inner
    todo, order = list(range(len(nodes))), []
    while todo:
        rest = []
        for k in todo:
            if all(i in known for i in needs[k]):
                order.append(k)
                known.update(nodes[k].output)
            else:
                rest.append(k)
        if len(rest) == len(todo):  # a cycle or a name from outside: the rest stays as it was
            order += rest
            break
        todo = rest
    if order == sorted(order):
        if inner:  # only subgraphs were reordered (in the copies `nodes` holds)
            del graph.node[:]
            graph.node.extend(nodes)
        return inner
    ordered = [onnx.NodeProto.FromString(nodes[k].SerializeToString()) for k in order]
    del graph.node[:]
    graph.node.extend(ordered)
    return True


def subgraphs(node: onnx.NodeProto) -> list[onnx.GraphProto]:
    """A node's subgraphs (If branches, Loop / Scan bodies), in attribute order."""
    return [g for a in node.attribute for g in ([a.g] if a.type == onnx.AttributeProto.GRAPH else a.graphs)]


def _outer_names(node: onnx.NodeProto) -> set[str]:
    """Values a node's subgraphs (If / Loop / Scan bodies) read from the enclosing graph."""
    out: set[str] = set()
    for g in subgraphs(node):
        inner = {i.name for i in g.input} | {t.name for t in g.initializer} | {o for n in g.node for o in n.output}
        for n in g.node:
            out.update(i for i in [*n.input, *_outer_names(n)] if i and i not in inner)
        out.update(o.name for o in g.output if o.name not in inner)
    return out


def default_opset(proto: onnx.ModelProto) -> int | None:
    """The model's version of the default ONNX domain, if it imports it."""
    return next((o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")), None)


def node_attrs(node: onnx.NodeProto) -> dict[str, object]:
    """A node's attributes as Python values."""
    return {x.name: helper.get_attribute_value(x) for x in node.attribute}


def attr_text(v: object, default: str = "") -> str:
    """A string attribute's value (onnx gives bytes), or `default` when absent."""
    return default if v is None else v.decode() if isinstance(v, bytes) else str(v)


FLOAT_TYPES = frozenset({onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE})


def _shape_of(node: onnx.NodeProto, dims: list[int]) -> np.ndarray:
    a = node_attrs(node)
    if node.op_type == "Size":
        return np.array(np.prod(dims, dtype=np.int64))
    r = len(dims)
    start, end = a.get("start", 0), a.get("end", r)
    start, end = (max(0, min(r, v + r if v < 0 else v)) for v in (start, end))
    return np.array(dims[start:end], np.int64)


def _fold_once(proto: onnx.ModelProto) -> set[str]:
    """One topological pass: small node outputs computable from constants and static shapes become
    `Constant` nodes (not initializers: IR version 3 models would need them listed as graph inputs)."""
    g = proto.graph
    values: dict[str, np.ndarray] = {t.name: numpy_helper.to_array(t) for t in g.initializer
                                     if np.prod(t.dims, dtype=np.int64) <= MAX_FOLD_ELEMENTS}
    shapes = {v.name: _static(v) for v in [*g.input, *g.value_info, *g.output]}
    folded: dict[str, np.ndarray] = {}
    for node in g.node:
        if node.domain not in ("", "ai.onnx") or node.op_type in NEVER_FOLD or any(
                a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute):
            continue
        if node.op_type in ("Shape", "Size") and shapes.get(node.input[0]) is not None:
            outs = [_shape_of(node, shapes[node.input[0]])]
        elif all(i in values for i in node.input if i):
            outs = evaluate_node(node, values, list(proto.opset_import))
            if outs is None:
                continue
        else:
            continue
        if any(o.size > MAX_FOLD_ELEMENTS or o.dtype == object for o in outs):
            continue
        for name, arr in zip([o for o in node.output if o], outs):
            values[name] = arr
            if node.op_type != "Constant":
                folded[name] = arr
    if not folded:
        return set()
    keep = [n for n in g.node if not (n.output and all(o in folded or not o for o in n.output))]
    # (an If branch reads outer values by name: AffineGrid's expansion divides by a constant of the graph)
    used = {i for n in keep for i in [*n.input, *_outer_names(n)]} | {o.name for o in g.output}
    consts = [helper.make_node("Constant", [], [name], value=numpy_helper.from_array(arr, name))
              for name, arr in folded.items() if name in used]
    del g.node[:]
    g.node.extend(consts + keep)
    forget_downstream(g, set(folded))
    return set(folded)


def forget_downstream(g: onnx.GraphProto, roots: set[str]) -> None:
    """Drop the inferred shapes of every value computed from `roots`: onnx's data propagation had guessed
    them without the folded values, and wrongly (a Slice from an unknown start came out as length 0 and
    the Reshape after it as `[1, 1, 3, 4, 2]` instead of `[1, 3, 4, 2]`; onnx's inference and onnxruntime
    disagree on ConvTranspose's output_padding under auto_pad). Inference derives them again."""
    stale = set(roots)
    for n in g.node:
        if any(i in stale for i in n.input):
            stale.update(o for o in n.output if o)
    kept = [v for v in g.value_info if v.name not in stale]
    del g.value_info[:]
    g.value_info.extend(kept)
    for v in g.output:
        if v.name in stale and v.type.HasField("tensor_type"):
            v.type.tensor_type.ClearField("shape")


def fold_shape_arithmetic(proto: onnx.ModelProto, rounds: int = 64) -> int:
    """Fold, in place, until shape inference leaves no node output unshaped (each round's inference can
    shape values the next round's `Shape` nodes read: one round per layer of a transformer). Inference
    runs on a skeleton whose large initializers are typed graph inputs, so a 350 MB model is not copied
    on every round. Returns how many node outputs were folded."""
    if not unshaped_outputs(proto):
        return 0
    try:
        return _fold(proto, rounds)
    except Exception:  # noqa: BLE001 - the graph is only replaced at the end: it is left as it was
        return 0


def _fold(proto: onnx.ModelProto, rounds: int) -> int:
    skeleton = light_copy(proto)[0]  # the weights as typed inputs: never copied
    folded: set[str] = set()
    for _ in range(rounds):
        names = _fold_once(skeleton)
        folded |= names
        if not names:
            break
        skeleton = onnx.shape_inference.infer_shapes(skeleton, data_prop=True)
        if not unshaped_outputs(skeleton):
            break
    if folded:
        del proto.graph.node[:]
        proto.graph.node.extend(skeleton.graph.node)
        forget_downstream(proto.graph, folded)
    return len(folded)


