"""importers/onnx_gridsample.py: GridSample in every mode, padding mode and alignment, 2-D and 3-D, through
compile_onnx against onnx's reference implementation of the spec (onnxruntime has no 3-D or cubic 3-D)."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import fusion_opt as fo
from fusion_opt.importers.onnx_legalize import legalize

RNG = np.random.default_rng(7)


def _model(x_shape: list[int], grid_shape: list[int], combos: list[tuple[str, str, int]],
           shared_grid: bool = False) -> onnx.ModelProto:
    """One GridSample per combination, each with a grid of its own (or all reading `grid0`)."""
    grids = ["grid0"] if shared_grid else [f"grid{k}" for k in range(len(combos))]
    nodes = [helper.make_node("GridSample", ["x", grids[0] if shared_grid else grids[k]], [f"y{k}"], f"gs{k}",
                              mode=mode, padding_mode=pad, align_corners=align)
             for k, (mode, pad, align) in enumerate(combos)]
    out = [helper.make_tensor_value_info(f"y{k}", TensorProto.FLOAT, None) for k in range(len(combos))]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)]
    ins += [helper.make_tensor_value_info(gr, TensorProto.FLOAT, grid_shape) for gr in grids]
    g = helper.make_graph(nodes, "g", ins, out)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 22)])


def _grid(shape: list[int]) -> np.ndarray:
    """Points inside and outside [-1, 1] (every padding mode acts), with exact values among them that land
    halfway between pixels (nearest rounds those half to even: 2.5 -> 2)."""
    grid = RNG.uniform(-1.7, 1.7, shape).astype(np.float32)
    flat = grid.reshape(-1)
    exact = np.array([0.0, 0.5, -0.5, 1.0, -1.0, 1.25, -1.25, 2.5, -3.0], np.float32)
    k = min(flat.size, exact.size * 3)
    flat[:k] = np.tile(exact, 3)[:k]
    return grid


def _check(x_shape: list[int], grid_shape: list[int], combos: list[tuple[str, str, int]],
           shared_grid: bool = False) -> None:
    m = _model(x_shape, grid_shape, combos, shared_grid)
    feeds = {"x": RNG.standard_normal(x_shape).astype(np.float32)}
    feeds.update({v.name: _grid(grid_shape) for v in m.graph.input[1:]})
    want = ReferenceEvaluator(m).run(None, feeds)
    with warnings.catch_warnings():
        warnings.simplefilter("error", fo.FallbackWarning)  # every plan compiles as planned
        got = fo.compile_onnx(m)(*feeds.values())
    for (mode, pad, align), w, o in zip(combos, want, got):
        np.testing.assert_allclose(o, w, rtol=1e-4, atol=1e-5, err_msg=f"{mode} {pad} align_corners={align}")


def test_every_2d_mode_padding_and_alignment_matches_the_reference() -> None:
    combos = list(itertools.product(("linear", "nearest", "cubic"), ("zeros", "border", "reflection"), (0, 1)))
    _check([2, 3, 5, 6], [2, 4, 7, 2], combos)


def test_volumetric_inputs_match_the_reference() -> None:
    # (cubic in 3-D is 64 gathers, 1,200 ops that the planner takes 100 s to plan: checked by conformance runs)
    combos = [("linear", "zeros", 0), ("nearest", "reflection", 1), ("linear", "border", 1), ("nearest", "zeros", 0)]
    _check([1, 2, 3, 4, 5], [1, 2, 3, 2, 3], combos)


def test_samplers_sharing_a_grid_compile_as_planned() -> None:
    """Their coordinate ops are shared: a group holding those and a gather, with a result also read
    inside it, failed IREE codegen (legality rule `gather-result`)."""
    _check([1, 2, 4, 5], [1, 3, 2, 2], [("nearest", "reflection", 1), ("linear", "border", 1)], shared_grid=True)


def test_opset_16_names_and_defaults() -> None:
    """Opset 16 spelled the modes bilinear / bicubic; no attributes means linear, zeros, align_corners=0
    (checked against onnxruntime: onnx's reference knows only the opset 20 names)."""
    nodes = [helper.make_node("GridSample", ["x", "grid"], ["y0"]),
             helper.make_node("GridSample", ["x", "grid"], ["y1"], mode="bicubic", padding_mode="border")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4]),
                                       helper.make_tensor_value_info("grid", TensorProto.FLOAT, [1, 3, 3, 2])],
                          [helper.make_tensor_value_info(f"y{k}", TensorProto.FLOAT, None) for k in range(2)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
    x, grid = RNG.standard_normal((1, 2, 4, 4)).astype(np.float32), _grid([1, 3, 3, 2])
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    want = sess.run(None, {"x": x, "grid": grid})
    for w, o in zip(want, fo.compile_onnx(m)(x, grid)):
        np.testing.assert_allclose(o, w, rtol=1e-4, atol=1e-5)


def test_every_read_is_clamped_and_dynamic_shapes_are_left_alone() -> None:
    m = onnx.shape_inference.infer_shapes(_model([1, 1, 3, 3], [1, 2, 2, 2], [("linear", "zeros", 0)], True))
    assert legalize(m) == 1
    ops = [n.op_type for n in m.graph.node]
    assert "GridSample" not in ops and ops.count("GatherElements") == 4
    # each gather's index is a Cast of a Clip into the axis: no read outside the input, whatever the grid
    made = {o: n for n in m.graph.node for o in n.output}
    for n in m.graph.node:
        if n.op_type == "Cast":
            assert made[n.input[0]].op_type == "Clip"
    dynamic = _model([1, 1, 3, 3], [1, 2, 2, 2], [("linear", "zeros", 0)], True)
    dynamic.graph.input[1].type.tensor_type.shape.dim[1].dim_param = "h"
    assert legalize(onnx.shape_inference.infer_shapes(dynamic)) == 0
