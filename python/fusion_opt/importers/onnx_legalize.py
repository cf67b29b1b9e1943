"""ONNX -> ONNX rewrites of nodes the torch-mlir importer or IREE 3.13 cannot take, into equal graphs they can.

Why here and not in MLIR: each failure is in the importer's lowering of one ONNX op (found by `fusion-bench
conformance` on the onnx package's cases), and the ONNX node still says what it means; after import the
op is gone or the import has already failed. Every rewrite keeps the node's output names, so the graph's
interface, value_info and the nodes downstream are untouched. Each returns the number of nodes rewritten.

- `Pad` with mode reflect / edge / wrap: IREE's llvm-cpu fails on the importer's reflect lowering ("LLVM
  Translation failed for operation: builtin.unrealized_conversion_cast") and lowers edge mode into 8
  dispatches; one `Gather` per padded axis with constant indices is the same copy, and crops (negative
  pads) come free.
- `ConvTranspose` with `group > 1`: the importer's grouped path builds an invalid `tensor.collapse_shape`;
  split into one ConvTranspose per group and concatenate (depthwise upsampling layers in segmentation
  models have as many groups as channels).
- `ConvTranspose` with `auto_pad` SAME_UPPER / SAME_LOWER, or unequal explicit pads: not lowered; the
  pads are computed from the shapes as the ONNX spec says, and since the importer takes symmetric pads
  only, unequal ones become the smaller on both sides and a `Slice` of the rest.
- uint8 operands of MaxPool, Div, Mod, Clip, TopK: the importer's arithmetic on them is signed (200 < 100);
  they are computed on a wider type and cast back. MatMulInteger on uint8 without zero points gets
  explicit zeros (its default came out wrong).
- QLinearMatMul with a batch dim (wrong values; the 2-D form is right): MatMulInteger, then the
  accumulator scaled in f32 and QuantizeLinear. SpaceToDepth in CRD mode (lowered in DCR order): the
  spec's reshape / transpose / reshape.
- `PRelu` from opset < 7 with a per-channel `[C]` slope: opset 7 made the slope broadcast numpy-style
  (right-aligned), so after the opset upgrade it would broadcast against the last dim; it is reshaped to
  `[C, 1, ...]` first, which is what those models meant.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .onnx_fold import forget_downstream

Node = onnx.NodeProto
SMALL = 4096  # elements: the largest initializer read as a value


class _Graph:
    """Constants, shapes and fresh names of one graph, for rewrites that replace a node by several."""

    def __init__(self, proto: onnx.ModelProto) -> None:
        self.graph = proto.graph
        # Only small initializers are read (pads, axes, split sizes): converting a model's weights on
        # every rewrite cost VGG-19's import 9 s.
        self.consts: dict[str, np.ndarray] = {t.name: numpy_helper.to_array(t) for t in self.graph.initializer
                                              if np.prod(t.dims, dtype=np.int64) <= SMALL}
        for n in self.graph.node:
            if n.op_type == "Constant" and n.attribute and n.attribute[0].name == "value":
                self.consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
        self.shapes: dict[str, list[int]] = {}
        self.types: dict[str, int] = {}
        for v in [*self.graph.input, *self.graph.value_info, *self.graph.output]:
            if v.type.HasField("tensor_type") and v.type.tensor_type.elem_type:
                self.types[v.name] = v.type.tensor_type.elem_type
            dims = v.type.tensor_type.shape.dim
            if v.type.HasField("tensor_type") and all(d.HasField("dim_value") for d in dims):
                self.shapes[v.name] = [d.dim_value for d in dims]
        for name, arr in self.consts.items():
            self.shapes.setdefault(name, list(arr.shape))
            self.types.setdefault(name, helper.np_dtype_to_tensor_dtype(arr.dtype))
        for t in self.graph.initializer:
            self.shapes.setdefault(t.name, list(t.dims))
            self.types.setdefault(t.name, t.data_type)
        self.names = {o for n in self.graph.node for o in n.output} | set(self.consts) | {
            i.name for i in self.graph.input}

    def fresh(self, base: str) -> str:
        k = 0
        while f"{base}__legal{k}" in self.names:
            k += 1
        self.names.add(f"{base}__legal{k}")
        return f"{base}__legal{k}"

    def const(self, base: str, value: np.ndarray, into: list[Node]) -> str:
        """A `Constant` node appended to `into` (an initializer would need a graph input in IR version < 4
        models, or shape inference leaves its users untyped and the importer makes them rank-0)."""
        name = self.fresh(base)
        into.append(helper.make_node("Constant", [], [name], value=numpy_helper.from_array(value, name)))
        self.consts[name] = value
        return name


def _attrs(node: Node) -> dict[str, object]:
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _replace(g: _Graph, rewrite: Callable[[_Graph, Node], list[Node] | None]) -> int:
    """Apply `rewrite` to every node; a list replaces the node in place (topological order is kept)."""
    out: list[Node] = []
    rewritten: set[str] = set()
    hits = 0
    for node in list(g.graph.node):
        try:
            new = rewrite(g, node)
        except Exception:  # noqa: BLE001 - a form a rewrite did not foresee: the importer gets the node as is
            new = None
        if new is None:
            out.append(node)
        else:
            out.extend(new)
            rewritten.update(o for n in new for o in n.output)
            hits += 1
    if hits:
        del g.graph.node[:]
        g.graph.node.extend(out)
        forget_downstream(g.graph, rewritten)
    return hits


def _pad_indices(mode: str, n: int, before: int, after: int) -> np.ndarray | None:
    """Source index of each output position along one axis; None where the mode cannot reach it."""
    i = np.arange(-before, n + after, dtype=np.int64)
    if mode == "edge":
        return np.clip(i, 0, n - 1)
    if mode == "wrap":
        return np.mod(i, n)
    if n < 2 or before >= n or after >= n:  # reflect needs a second element and one reflection
        return None
    return np.where(i < 0, -i, np.where(i >= n, 2 * (n - 1) - i, i))


def _pad_gather(g: _Graph, node: Node) -> list[Node] | None:
    mode = _attrs(node).get("mode", b"constant")
    mode = mode.decode() if isinstance(mode, bytes) else str(mode)
    if node.op_type != "Pad" or mode not in ("reflect", "edge", "wrap") or node.input[0] not in g.shapes:
        return None
    shape = g.shapes[node.input[0]]
    pads = _attrs(node).get("pads") if len(node.input) < 2 or not node.input[1] else g.consts.get(node.input[1])
    if pads is None:
        return None
    pads = [int(p) for p in np.asarray(pads).reshape(-1)]
    axes = list(range(len(shape)))
    if len(node.input) > 3 and node.input[3]:
        if node.input[3] not in g.consts:
            return None
        axes = [int(a) % len(shape) for a in np.asarray(g.consts[node.input[3]]).reshape(-1)]
    k = len(axes)
    if len(pads) != 2 * k:
        return None
    nodes: list[Node] = []
    cur = node.input[0]
    todo = [(ax, pads[j], pads[j + k]) for j, ax in enumerate(axes) if pads[j] or pads[j + k]]
    for step, (ax, before, after) in enumerate(todo):
        idx = _pad_indices(mode, shape[ax], before, after)
        if idx is None:
            return None
        out = node.output[0] if step == len(todo) - 1 else g.fresh(node.output[0])
        nodes.append(helper.make_node("Gather", [cur, g.const(f"{node.output[0]}_idx", idx, nodes)], [out], axis=ax,
                                      name=f"{node.name}/{mode}{ax}" if node.name else ""))
        cur = out
    return nodes or [helper.make_node("Identity", [node.input[0]], [node.output[0]], name=node.name)]


def _convtranspose_pads(g: _Graph, node: Node) -> list[Node] | None:
    a = _attrs(node)
    auto = a.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else str(auto)
    if node.op_type != "ConvTranspose":
        return None
    x, w = g.shapes.get(node.input[0]), g.shapes.get(node.input[1])
    if x is None or w is None:
        return None
    sp = len(x) - 2
    strides = list(a.get("strides", [1] * sp))
    dil = list(a.get("dilations", [1] * sp))
    opad = list(a.get("output_padding", [0] * sp))
    kernel = list(a.get("kernel_shape", w[2:]))
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        out_shape = list(a.get("output_shape", [x[2 + i] * strides[i] for i in range(sp)]))
        begin, end = [], []
        for i in range(sp):
            total = max(strides[i] * (x[2 + i] - 1) + opad[i] + (kernel[i] - 1) * dil[i] + 1 - out_shape[i], 0)
            small, big = total // 2, total - total // 2
            begin.append(small if auto == "SAME_UPPER" else big)
            end.append(big if auto == "SAME_UPPER" else small)
    elif auto == "NOTSET" and "pads" in a and "output_shape" not in a:
        pads = list(a["pads"])
        begin, end = pads[:sp], pads[sp:]
        if begin == end:
            return None
    else:
        return None
    keep = {k: v for k, v in a.items() if k not in ("auto_pad", "output_shape", "pads")}
    if begin == end:
        return [helper.make_node("ConvTranspose", list(node.input), list(node.output), name=node.name,
                                 **keep, pads=begin + end)]
    # The importer lowers symmetric pads only: pad both sides by the smaller one, crop the rest.
    nodes: list[Node] = []
    sym = [min(b, e) for b, e in zip(begin, end)]
    full = g.fresh(node.output[0])
    nodes.append(helper.make_node("ConvTranspose", list(node.input), [full], name=node.name, **keep,
                                  pads=sym + sym))
    size = [strides[i] * (x[2 + i] - 1) + opad[i] + (kernel[i] - 1) * dil[i] + 1 - 2 * sym[i] for i in range(sp)]
    starts = g.const(f"{full}_starts", np.array([b - p for b, p in zip(begin, sym)], np.int64), nodes)
    ends = g.const(f"{full}_ends", np.array([n - (e - p) for n, e, p in zip(size, end, sym)], np.int64), nodes)
    axes = g.const(f"{full}_axes", np.arange(2, 2 + sp, dtype=np.int64), nodes)
    nodes.append(helper.make_node("Slice", [full, starts, ends, axes], list(node.output)))
    return nodes


def _convtranspose_groups(g: _Graph, node: Node) -> list[Node] | None:
    a = _attrs(node)
    groups = int(a.get("group", 1))
    if node.op_type != "ConvTranspose" or groups == 1 or node.input[1] not in g.shapes:
        return None
    cin = g.shapes[node.input[1]][0]
    cout_g = g.shapes[node.input[1]][1]
    if cin % groups:
        return None
    keep = {k: v for k, v in a.items() if k != "group"}
    base = node.output[0]
    nodes: list[Node] = []
    xs = [g.fresh(f"{base}_x") for _ in range(groups)]
    ws = [g.fresh(f"{base}_w") for _ in range(groups)]
    per_group = g.const(f"{base}_cin", np.full(groups, cin // groups, np.int64), nodes)
    nodes.append(helper.make_node("Split", [node.input[0], per_group], xs, axis=1))
    nodes.append(helper.make_node("Split", [node.input[1], per_group], ws, axis=0))
    bias = len(node.input) > 2 and node.input[2]
    if bias:
        bs = [g.fresh(f"{base}_b") for _ in range(groups)]
        sizes = g.const(f"{base}_cout", np.full(groups, cout_g, np.int64), nodes)
        nodes.append(helper.make_node("Split", [node.input[2], sizes], bs, axis=0))
    ys = [g.fresh(f"{base}_y") for _ in range(groups)]
    for k in range(groups):
        ins = [xs[k], ws[k], *([bs[k]] if bias else [])]
        nodes.append(helper.make_node("ConvTranspose", ins, [ys[k]], name=f"{node.name}/g{k}" if node.name else "",
                                      **keep))
    nodes.append(helper.make_node("Concat", ys, [node.output[0]], axis=1, name=node.name))
    return nodes


# Ops the importer lowers with signed arithmetic on uint8 (signless i8 in Linalg): max pool's comparisons,
# division, clamping, top-k (each measured against onnxruntime, test_onnx_legalize.py). They run on a
# type that holds every uint8 exactly (MaxPool takes no int32), and the results are cast back.
_UNSIGNED_WIDEN = {"MaxPool": onnx.TensorProto.FLOAT, "Div": onnx.TensorProto.INT32, "Mod": onnx.TensorProto.INT32,
                   "Clip": onnx.TensorProto.INT32, "TopK": onnx.TensorProto.INT32}


def _widen_uint8(g: _Graph, node: Node) -> list[Node] | None:
    wide = _UNSIGNED_WIDEN.get(node.op_type)
    narrow = [i for i, name in enumerate(node.input) if name and g.types.get(name) == onnx.TensorProto.UINT8]
    if wide is None or not narrow:
        return None
    nodes: list[Node] = []
    ins = list(node.input)
    for i in narrow:
        ins[i] = g.fresh(f"{node.input[i]}_wide")
        nodes.append(helper.make_node("Cast", [node.input[i]], [ins[i]], to=wide))
    outs = list(node.output)
    back = [k for k, o in enumerate(outs) if o and g.types.get(o, onnx.TensorProto.UINT8) == onnx.TensorProto.UINT8
            and not (node.op_type == "TopK" and k == 1) and not (node.op_type == "MaxPool" and k == 1)]
    for k in back:
        outs[k] = g.fresh(f"{node.output[k]}_wide")
    nodes.append(helper.make_node(node.op_type, ins, outs, name=node.name, domain=node.domain,
                                  **_attrs(node)))
    nodes += [helper.make_node("Cast", [outs[k]], [node.output[k]], to=onnx.TensorProto.UINT8) for k in back]
    return nodes


def _explicit_zero_points(g: _Graph, node: Node) -> list[Node] | None:
    """MatMulInteger on two uint8 inputs without zero points came out wrong; explicit zeros are right."""
    if node.op_type != "MatMulInteger" or (len(node.input) >= 4 and all(node.input[2:4])):
        return None
    ins = list(node.input) + [""] * (4 - len(node.input))
    nodes: list[Node] = []
    for k in (2, 3):
        if not ins[k]:
            et = g.types.get(ins[k - 2])
            if et is None:
                return None
            ins[k] = g.const(f"{node.output[0]}_zp", np.zeros((), helper.tensor_dtype_to_np_dtype(et)), nodes)
    nodes.append(helper.make_node("MatMulInteger", ins, list(node.output), name=node.name))
    return nodes


def _batched_qlinear_matmul(g: _Graph, node: Node) -> list[Node] | None:
    """QLinearMatMul with a batch dim came out wrong (the 2-D form is right): as MatMulInteger, its int32
    accumulator scaled in f32 by `a_scale * b_scale` and quantized by QuantizeLinear. Scales and zero
    points of one element become scalars (QuantizeLinear reads a 1-D scale as per-axis)."""
    if node.op_type != "QLinearMatMul" or len(node.input) < 8:
        return None
    a_shape, b_shape = g.shapes.get(node.input[0]), g.shapes.get(node.input[3])
    if a_shape is None or b_shape is None or (len(a_shape) <= 2 and len(b_shape) <= 2):
        return None
    nodes: list[Node] = []
    base = node.output[0]
    scalar = g.const(f"{base}_scalar", np.zeros(0, np.int64), nodes)

    def per_tensor(name: str, to: int | None = None) -> str | None:
        shape = g.shapes.get(name)
        if shape is None or int(np.prod(shape)) != 1:
            return None
        out = g.fresh(f"{name}_s")
        nodes.append(helper.make_node("Reshape", [name, scalar], [out]))
        if to is not None:
            cast = g.fresh(f"{name}_f")
            nodes.append(helper.make_node("Cast", [out], [cast], to=to))
            out = cast
        return out
    f32 = onnx.TensorProto.FLOAT
    a_s, a_zp, b_s, b_zp, y_s, y_zp = (per_tensor(node.input[i], f32 if i in (1, 4, 6) else None)
                                       for i in (1, 2, 4, 5, 6, 7))
    if None in (a_s, a_zp, b_s, b_zp, y_s, y_zp):
        return None
    acc, accf, scale, real = (g.fresh(f"{base}_{k}") for k in ("acc", "accf", "scale", "real"))
    nodes += [helper.make_node("MatMulInteger", [node.input[0], node.input[3], a_zp, b_zp], [acc]),
              helper.make_node("Cast", [acc], [accf], to=f32),
              helper.make_node("Mul", [a_s, b_s], [scale]),
              helper.make_node("Mul", [accf, scale], [real]),
              helper.make_node("QuantizeLinear", [real, y_s, y_zp], [base], name=node.name)]
    return nodes


def _space_to_depth_crd(g: _Graph, node: Node) -> list[Node] | None:
    """SpaceToDepth's CRD mode (opset 25) was lowered as the default DCR order; spelled out as the spec
    defines it: reshape to `[b, c, h/s, s, w/s, s]`, transpose `[0, 1, 3, 5, 2, 4]`, reshape."""
    if node.op_type != "SpaceToDepth":
        return None
    a = _attrs(node)
    mode = a.get("mode", b"DCR")
    mode = mode.decode() if isinstance(mode, bytes) else str(mode)
    x = g.shapes.get(node.input[0])
    if mode != "CRD" or x is None or len(x) != 4:
        return None
    bs = int(a["blocksize"])
    b, c, h, w = x
    nodes: list[Node] = []
    six = g.const(f"{node.output[0]}_6d", np.array([b, c, h // bs, bs, w // bs, bs], np.int64), nodes)
    four = g.const(f"{node.output[0]}_4d", np.array([b, c * bs * bs, h // bs, w // bs], np.int64), nodes)
    t0, t1 = g.fresh(node.output[0]), g.fresh(node.output[0])
    nodes += [helper.make_node("Reshape", [node.input[0], six], [t0]),
              helper.make_node("Transpose", [t0], [t1], perm=[0, 1, 3, 5, 2, 4]),
              helper.make_node("Reshape", [t1, four], [node.output[0]], name=node.name)]
    return nodes


def legacy_prelu_slopes(proto: onnx.ModelProto) -> int:
    """Before the opset upgrade (opset < 7 only): per-channel `[C]` slopes -> `[C, 1, ...]` initializers."""
    opset = next((o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")), None)
    if opset is None or opset >= 7:
        return 0
    g = _Graph(onnx.shape_inference.infer_shapes(proto))
    inits = {t.name: t for t in proto.graph.initializer}
    hits = 0
    for node in proto.graph.node:
        if node.op_type != "PRelu" or node.input[1] not in inits or node.input[0] not in g.shapes:
            continue
        x, slope = g.shapes[node.input[0]], numpy_helper.to_array(inits[node.input[1]])
        if slope.ndim == 1 and slope.size > 1 and len(x) > 2 and x[1] == slope.size:
            shaped = slope.reshape([slope.size] + [1] * (len(x) - 2))
            inits[node.input[1]].CopyFrom(numpy_helper.from_array(shaped, node.input[1]))
            for v in proto.graph.input:
                if v.name == node.input[1]:
                    v.CopyFrom(helper.make_tensor_value_info(v.name, v.type.tensor_type.elem_type, shaped.shape))
            hits += 1
    return hits


REWRITES: tuple[Callable[[_Graph, Node], list[Node] | None], ...] = (
    _pad_gather, _convtranspose_pads, _convtranspose_groups, _widen_uint8, _batched_qlinear_matmul,
    _explicit_zero_points, _space_to_depth_crd)


def legalize(proto: onnx.ModelProto) -> int:
    """Rewrite, in place, the nodes of a shape-inferred model that the importer cannot take."""
    hits = 0
    for rewrite in REWRITES:
        hits += _replace(_Graph(proto), rewrite)
    return hits
