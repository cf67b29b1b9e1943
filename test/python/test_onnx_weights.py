"""importers/onnx_weights.py and the bytecode hand-off between the import children: onnx's whole-model
passes see the model without its weights and give the same model back; the global-opt child's retry
from text computes the same module as its bytecode read; the weights are read by the lowering child only."""
from __future__ import annotations

import os
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from fusion_opt.importers import onnx_import
from fusion_opt.importers.onnx_upgrade import upgrade
from fusion_opt.importers.onnx_weights import weightless
from fusion_opt.ir import new_session

RNG = np.random.default_rng(0)


def _model(opset: int) -> onnx.ModelProto:
    """A matmul by a big weight, then a Reshape whose shape is a (small) constant: the inference must
    still read the shape's values."""
    w = numpy_helper.from_array(RNG.standard_normal((64, 96)).astype(np.float32), "w")
    shape = numpy_helper.from_array(np.array([4, 2, 48], np.int64), "shape")
    b = numpy_helper.from_array(RNG.standard_normal(96).astype(np.float32), "b")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"]), helper.make_node("Add", ["mm", "b"], ["a"]),
             helper.make_node("Reshape", ["a", "shape"], ["y"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w, b, shape])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    return m


def _copy(m: onnx.ModelProto) -> onnx.ModelProto:
    c = onnx.ModelProto()
    c.CopyFrom(m)
    return c


def test_shape_inference_without_weights_gives_the_same_model() -> None:
    m = _model(17)
    infer = lambda p: onnx.shape_inference.infer_shapes(p, data_prop=True)  # noqa: E731
    want = infer(_copy(m))
    got = weightless(infer, _copy(m))
    assert got.SerializeToString(deterministic=True) == want.SerializeToString(deterministic=True)
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in got.graph.output}
    assert shapes["y"] == [4, 2, 48]


def test_the_version_converter_never_sees_the_weights() -> None:
    seen: list[list[str]] = []

    def convert(p: onnx.ModelProto) -> onnx.ModelProto:
        seen.append([t.name for t in p.graph.initializer])
        return onnx.version_converter.convert_version(p, 17)

    m = _model(9)
    got = weightless(convert, _copy(m))
    assert seen == [["b", "shape"]]  # the 64x96 weight went as a typed input
    assert [t.name for t in got.graph.initializer] == ["w", "b", "shape"]
    assert [i.name for i in got.graph.input] == ["x"]
    assert numpy_helper.to_array(got.graph.initializer[0]).tobytes() == \
        numpy_helper.to_array(m.graph.initializer[0]).tobytes()
    full = onnx.version_converter.convert_version(_copy(m), 17)
    assert got.SerializeToString(deterministic=True) == full.SerializeToString(deterministic=True)
    assert upgrade(_copy(m), 17).SerializeToString(deterministic=True) == full.SerializeToString(deterministic=True)
    assert got.opset_import[0].version == 17


def test_global_opt_from_text_computes_the_bytecode_module() -> None:
    """The retry after a crash of the global-opt child (`_global_opt(via_text=True)`) and the first try
    give the same module."""
    proto = onnx_import.prepare(_model(17), "m.onnx")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "linalg.mlirbc")
        onnx_import._to_linalg(proto, "m.onnx", path)
        texts = []
        for via_text in (False, True):
            s = new_session()
            from fusion_opt.ir import ir
            m = ir.Module.parse(onnx_import._global_opt(path, "m.onnx", via_text), s.context)
            texts.append(str(m))
    assert texts[0] == texts[1] and "linalg.matmul" in texts[0]


def test_a_global_opt_crash_is_retried_from_text(monkeypatch) -> None:
    import fusion_opt as fo

    calls: list[tuple] = []
    real = onnx_import.run_isolated

    def fake(stage, args, what, where, retries=2, crash=onnx_import.UnsupportedError, **kw):
        if stage is onnx_import._global_opt:
            calls.append(args[2:])
            if args[2:] == ():
                raise crash("the ONNX-to-Linalg lowering crashed (signal SIGSEGV)", where)
        return real(stage, args, what, where, retries=retries, crash=crash, **kw)

    monkeypatch.setattr(onnx_import, "run_isolated", fake)
    x = RNG.standard_normal((4, 64)).astype(np.float32)
    m = _model(17)
    w, b = (numpy_helper.to_array(t) for t in m.graph.initializer[:2])
    np.testing.assert_allclose(fo.compile_onnx(m)(x), (x @ w + b).reshape(4, 2, 48), rtol=1e-5, atol=1e-5)
    assert calls == [(), (True,)]


def test_import_reads_the_weights_in_the_child_only(monkeypatch) -> None:
    """The model is read and prepared in the lowering child; the parent gets the prepared model back
    without weight values (names, types and dims kept, so graph inputs and outputs are the same), and a
    proto handed in is left as it was."""
    from fusion_opt.ir import new_session

    m = _model(9)
    before = m.SerializeToString(deterministic=True)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.onnx")
        onnx.save(m, path)
        got = [onnx_import.import_onnx(src, new_session().context)[1] for src in (m, path)]
    assert m.SerializeToString(deterministic=True) == before
    for p in got:
        assert p.opset_import[0].version >= onnx_import.MIN_OPSET  # prepared (upgraded from 9)
        w = next(t for t in p.graph.initializer if t.name == "w")
        assert list(w.dims) == [64, 96] and not w.raw_data and not w.float_data
        inits = {t.name for t in p.graph.initializer}
        assert [i.name for i in p.graph.input if i.name not in inits] == ["x"]
        assert [o.name for o in p.graph.output] == ["y"]
    assert got[0].graph.SerializeToString(deterministic=True) == got[1].graph.SerializeToString(deterministic=True)
