"""ONNX Resize as per-axis gathers (importers/onnx_resize.py, onnx_legalize._resize_separable): every
coordinate mode, nearest mode, linear and cubic, up and down, sizes and scales, against onnxruntime; onnx's
own Resize cases (antialias, tf_crop_and_resize, keep_aspect_ratio_policy, axes) against its reference."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import fusion_opt as fo
from fusion_opt.importers.onnx_legalize import legalize
from fusion_opt.importers.onnx_resize import linear_taps, nearest_indices, source_coordinates

COORDS = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
          "tf_half_pixel_for_nn")
NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _model(cases, shape=(1, 3, 5, 6), opset=18) -> onnx.ModelProto:
    """One Resize per case, all reading `x`: (mode, coordinate mode, nearest mode, sizes or None, scales or None)."""
    nodes, inits, outs = [], [], []
    for k, (mode, coord, nearest, sizes, scales) in enumerate(cases):
        names = ["x", ""]
        if scales is not None:
            inits.append(numpy_helper.from_array(np.array(scales, np.float32), f"scales{k}"))
            names.append(f"scales{k}")
        else:
            inits.append(numpy_helper.from_array(np.array(sizes, np.int64), f"sizes{k}"))
            names += ["", f"sizes{k}"]
        nodes.append(helper.make_node("Resize", names, [f"y{k}"], mode=mode, coordinate_transformation_mode=coord,
                                      nearest_mode=nearest, name=f"resize{k}"))
        outs.append(helper.make_tensor_value_info(f"y{k}", TensorProto.FLOAT, None))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))], outs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def _check(model: onnx.ModelProto, atol: float = 2e-6) -> fo.CompiledModel:
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    refs = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    m = fo.compile_onnx(model)
    got = m(x)
    got = got if isinstance(got, tuple) else (got,)
    for k, (a, b) in enumerate(zip(got, refs)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=atol, err_msg=f"output y{k}")
    return m


def _legalized(model: onnx.ModelProto) -> list[str]:
    proto = onnx.shape_inference.infer_shapes(model)
    legalize(proto)
    return [n.op_type for n in proto.graph.node]


@pytest.mark.parametrize("coord", COORDS)
def test_nearest_modes_match_onnxruntime(coord):
    c = 1 if coord == "tf_half_pixel_for_nn" else 3  # it moves the channels too: see below
    sizes = ((1, c, 10, 12), (1, c, 7, 4), (1, c, 3, 13)) + ((1, c, 5, 6),) * (c == 3)  # (c == 1: see below)
    cases = [("nearest", coord, n, s, None) for n, s in itertools.product(NEAREST, sizes)]
    model = _model(cases, shape=(1, c, 5, 6))
    assert "Resize" not in _legalized(model)
    _check(model)


@pytest.mark.parametrize("coord", COORDS)
def test_linear_matches_onnxruntime(coord):
    c = 1 if coord == "tf_half_pixel_for_nn" else 3
    sizes = ((1, c, 10, 12), (1, c, 7, 4), (1, c, 3, 13)) + ((1, c, 1, 6),) * (c == 3)
    cases = [("linear", coord, "floor", s, None) for s in sizes]
    cases += [("linear", coord, "floor", None, sc) for sc in ((1, 1, 2.0, 1.5), (1, 1, 0.6, 3.0))]
    model = _model(cases, shape=(1, c, 5, 6))
    assert "Resize" not in _legalized(model)
    _check(model)


def test_unresized_axis_moved_by_the_coordinate_mode_is_left_to_the_importer():
    """tf_half_pixel_for_nn maps channel c to c + 0.5 even where the channel axis keeps its size:
    onnxruntime's nearest kernel then reads channel c + 1, its linear kernel does not interpolate
    channels. Such a Resize is left as imported (the importer crashes on it: a clear error, not a wrong
    answer); with one channel (0.5 rounds into element 0) it is rewritten (the parametrized tests)."""
    model = _model([("nearest", "tf_half_pixel_for_nn", "round_prefer_ceil", (1, 3, 10, 12), None)])
    assert "Resize" in _legalized(model)


def test_integer_upsampling_is_a_broadcast():
    """Nearest x2 (YOLO's and FPN's upsampling): each element repeated, no gather left."""
    model = _model([("nearest", "asymmetric", "floor", None, (1, 1, 2.0, 2.0)),
                    ("nearest", "half_pixel", "round_prefer_floor", (1, 3, 15, 18), None)])
    ops = _legalized(model)
    assert "Gather" not in ops and "Resize" not in ops and ops.count("Expand") == 4
    _check(model, atol=0)


def _onnx_cases() -> tuple[onnx.ModelProto, list[np.ndarray], list[np.ndarray], list[str]]:
    """onnx's 39 Resize operator cases (every mode, coordinate mode, nearest mode, cubic coefficient,
    exclude_outside, antialias, tf_crop_and_resize roi and extrapolation, axes, keep_aspect_ratio_policy)
    as one model, one Resize per case, its scales / sizes / roi made initializers (static shapes), with
    the cases' inputs and expected outputs (computed by onnx's reference implementation)."""
    from onnx.backend.test.case.node import collect_testcases
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # other operators' cases divide by zero on purpose
        cases = [c for c in collect_testcases(None) if c.name.startswith("test_resize_")]
    nodes, inits, ins, outs, xs, want, names = [], [], [], [], [], [], []
    for k, c in enumerate(cases):
        feeds, expected = c.data_sets[0]
        rename = {v.name: f"{v.name}_{k}" for v in c.model.graph.input}
        for v, value in zip(c.model.graph.input, feeds):
            if v.name == c.model.graph.input[0].name:
                ins.append(helper.make_tensor_value_info(rename[v.name], TensorProto.FLOAT, list(value.shape)))
                xs.append(value)
            else:
                inits.append(numpy_helper.from_array(value, rename[v.name]))
        (node,) = c.model.graph.node
        node = onnx.NodeProto.FromString(node.SerializeToString())
        node.input[:] = [rename.get(i, i) for i in node.input]
        node.output[:] = [f"y_{k}"]
        nodes.append(node)
        outs.append(helper.make_tensor_value_info(f"y_{k}", TensorProto.FLOAT, None))
        want.append(expected[0])
        names.append(c.name)
    g = helper.make_graph(nodes, "resizes", ins, outs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)]), xs, want, names


def test_every_onnx_resize_case_matches_the_reference():
    """Cubic, antialias, tf_crop_and_resize, keep_aspect_ratio_policy and axes were refused by the
    importer; align_corners downsampling by a scale whose output is not whole (4 -> 2 at 0.6) sampled
    at out - 1 instead of the spec's scale * size - 1 (0.86 off). All written as gathers now."""
    model, xs, want, names = _onnx_cases()
    assert len(names) >= 39
    assert "Resize" not in _legalized(model)
    got = fo.compile_onnx(model)(*xs)
    for name, a, b in zip(names, got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=name)


def test_cubic_matches_onnxruntime():
    """Bicubic up and down (onnxruntime's kernel, not the reference's: a second implementation)."""
    cases = [("cubic", coord, "floor", s, None) for coord in ("half_pixel", "align_corners", "asymmetric",
                                                              "pytorch_half_pixel")
             for s in ((1, 3, 10, 12), (1, 3, 3, 4))]
    model = _model(cases)
    assert "Resize" not in _legalized(model)
    _check(model, atol=1e-5)


def test_tables():
    """DeepLabV3's 14 -> 224 bilinear (half_pixel): the first outputs clamp to element 0, output 8 sits
    exactly between elements 0 and 1 (x = 0.03125 after 8.5 / 16 - 0.5), the last clamps to 13."""
    x = source_coordinates("half_pixel", 224, 14, 16.0)
    x1, x2, w1, w2 = linear_taps(x, 14)
    assert (x1[:8] == 0).all() and w1[0] == 1.0 and w2[0] == 0.0
    assert x1[8] == 0 and x2[8] == 1 and np.isclose(w2[8], 0.03125)
    assert x1[-1] == 13 and x2[-1] == 13 and w1[-1] == w2[-1] == 0.5
    assert (nearest_indices(source_coordinates("asymmetric", 8, 4, 2.0), "floor", 4) == [0, 0, 1, 1, 2, 2, 3, 3]).all()
    assert source_coordinates("tf_crop_and_resize", 8, 4, 2.0) is None

