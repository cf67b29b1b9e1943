"""Roofline bound of a model: max(FLOPs / peak, minimum bytes / bandwidth), from the ONNX graph alone.

Why: a ratio to IREE or onnxruntime says who is faster, not how far from what the machine could do; the
roofline says how much is left. FLOPs: 2 x MACs for Conv, ConvTranspose, Gemm and MatMul, one per output
element for every other node except pure shape/layout bookkeeping (SHAPE_OPS, zero). Minimum bytes: graph
inputs, initializers (weights) and graph outputs, each read or written once. Peak and bandwidth are this
machine's: bandwidth as measured (streaming adds) and cached by cost/host.py, peak from one numpy sgemm
per core at once (measured each run).
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import onnx
from onnx import helper, shape_inference

# Ops that move no data of their own or only relabel it: no arithmetic counted.
SHAPE_OPS = frozenset({"Shape", "Size", "Constant", "ConstantOfShape", "Reshape", "Flatten", "Squeeze",
                       "Unsqueeze", "Identity", "Dropout"})


class GraphCost(NamedTuple):
    flops: int
    min_bytes: int


def _dims(t: onnx.TypeProto) -> list[int] | None:
    """Static dims of a tensor type (symbolic or unknown dims taken as 1, as models.random_inputs does);
    None without a shape."""
    tt = t.tensor_type
    if not tt.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else 1 for d in tt.shape.dim]


def _itemsize(elem_type: int) -> int:
    return np.dtype(helper.tensor_dtype_to_np_dtype(elem_type)).itemsize


def _nbytes(dims: Sequence[int] | None, elem_type: int) -> int:
    return 0 if dims is None else math.prod(dims) * _itemsize(elem_type)


def _attr(node: onnx.NodeProto, name: str, default: Any) -> Any:
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def node_flops(node: onnx.NodeProto, shapes: dict[str, list[int]]) -> int:
    """FLOPs of one node given the inferred shapes by value name (missing shapes count as 0)."""
    out = shapes.get(node.output[0]) if node.output else None
    if node.op_type in SHAPE_OPS or out is None:
        return 0
    if node.op_type == "Conv":
        w = shapes.get(node.input[1])
        return 2 * math.prod(out) * math.prod(w[1:]) if w else 0  # W: M x C/group x k...
    if node.op_type == "ConvTranspose":
        x, w = shapes.get(node.input[0]), shapes.get(node.input[1])
        return 2 * math.prod(x) * math.prod(w[1:]) if x and w else 0  # W: C x M/group x k...
    if node.op_type == "Gemm":
        a = shapes.get(node.input[0])
        k = (a[0] if _attr(node, "transA", 0) else a[-1]) if a else 0
        return 2 * math.prod(out) * k
    if node.op_type == "MatMul":
        a = shapes.get(node.input[0])
        return 2 * math.prod(out) * (a[-1] if a else 0)
    return sum(math.prod(shapes[o]) for o in node.output if o in shapes)


def graph_cost(model: onnx.ModelProto) -> GraphCost:
    """FLOPs and minimum bytes of `model`'s main graph (shape inference first; subgraphs not counted)."""
    inferred = shape_inference.infer_shapes(model)
    g = inferred.graph
    shapes: dict[str, list[int]] = {}
    types: dict[str, int] = {}
    for vi in (*g.input, *g.value_info, *g.output):
        dims = _dims(vi.type)
        if dims is not None:
            shapes[vi.name], types[vi.name] = dims, vi.type.tensor_type.elem_type
    inits = {i.name: i for i in g.initializer}
    for name, init in inits.items():
        shapes[name], types[name] = list(init.dims), init.data_type
    flops = sum(node_flops(n, shapes) for n in g.node)
    data = [vi for vi in g.input if vi.name not in inits] + list(g.output)
    min_bytes = sum(_nbytes(shapes.get(vi.name), vi.type.tensor_type.elem_type) for vi in data)
    min_bytes += sum(_nbytes(list(i.dims), i.data_type) for i in inits.values())
    return GraphCost(flops, min_bytes)


def roofline_ms(flops: float, min_bytes: float, peak_flops: float, bandwidth: float) -> float:
    """The roofline bound in milliseconds: compute-bound or memory-bound, whichever is slower."""
    return max(flops / peak_flops, min_bytes / bandwidth) * 1e3


def model_cost(path: Path) -> GraphCost:
    """graph_cost of an ONNX file (weights loaded: shape inference may need constant values)."""
    return graph_cost(onnx.load(str(path)))


def concurrent_sgemm_flops(n: int = 1024, reps: int = 3) -> float:
    """f32 FLOP/s of one numpy sgemm per core, run at once in threads (numpy releases the GIL in BLAS).
    Why: the numpy wheel's BLAS ran a single 1024^3 sgemm on one core here (84 GFLOP/s on 2 cores),
    which onnxruntime beat on every conv net; one sgemm per core measures the whole machine."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    cores = os.cpu_count() or 1
    mats = [np.random.default_rng(k).random((n, n), dtype=np.float32) for k in range(cores)]

    def one(a: np.ndarray) -> None:
        for _ in range(reps):
            a @ a

    with ThreadPoolExecutor(cores) as pool:
        list(pool.map(one, mats))  # warm-up
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            list(pool.map(one, mats))
            best = min(best, time.perf_counter() - t0)
    return 2 * n**3 * reps * cores / best


def machine_rates() -> dict[str, Any]:
    """Peak f32 FLOP/s and DRAM bandwidth of this machine: bandwidth from cost/host.py's measurement
    (streaming adds over 256 MiB, cached under .cache/targets per CPU); peak the larger of its sgemm and
    one sgemm per core at once (`concurrent_sgemm_flops`, measured on every run: about a second)."""
    from ..cost.host import host_target

    t = host_target()
    host_peak = float(dict(t.peak_flops)["f32"])
    peak = max(host_peak, concurrent_sgemm_flops())
    return {"peak_flops": peak, "bandwidth": float(t.dram_bw),
            "source": f"{t.source}; peak: max(that sgemm, one numpy sgemm 1024^3 per core at once)"}
