"""QuantizeLinear -> DequantizeLinear pairs as one elementwise op (rewrites/quant_pair.py): fewer dispatches,
the same numbers (the same scalar ops in the same order)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import fusion_opt as fo


def _qdq_model():
    """Conv -> Relu -> Q/DQ, a second branch Q/DQ, Concat -> Q/DQ -> 1x1 Conv: QDQ as onnxruntime writes it
    (uint8 activations, int8 weights dequantized)."""
    rng = np.random.default_rng(0)
    w1 = rng.integers(-127, 128, (8, 4, 3, 3)).astype(np.int8)
    w2 = rng.integers(-127, 128, (6, 16, 1, 1)).astype(np.int8)
    inits = [numpy_helper.from_array(w1, "w1q"), numpy_helper.from_array(w2, "w2q"),
             numpy_helper.from_array(np.float32(0.02), "ws"), numpy_helper.from_array(np.float32(0.05), "s"),
             numpy_helper.from_array(np.uint8(3), "z"), numpy_helper.from_array(np.float32(0.1), "s2"),
             numpy_helper.from_array(np.uint8(0), "z2")]
    n = helper.make_node
    nodes = [n("DequantizeLinear", ["w1q", "ws"], ["w1"]), n("DequantizeLinear", ["w2q", "ws"], ["w2"]),
             n("QuantizeLinear", ["x", "s", "z"], ["xq"]), n("DequantizeLinear", ["xq", "s", "z"], ["xd"]),
             n("Conv", ["xd", "w1"], ["c1"], pads=[1, 1, 1, 1]), n("Relu", ["c1"], ["r1"]),
             n("QuantizeLinear", ["r1", "s2", "z2"], ["r1q"]), n("DequantizeLinear", ["r1q", "s2", "z2"], ["r1d"]),
             n("Sigmoid", ["r1d"], ["g"]),
             n("QuantizeLinear", ["g", "s", "z"], ["gq"]), n("DequantizeLinear", ["gq", "s", "z"], ["gd"]),
             n("Concat", ["r1d", "gd"], ["cat"], axis=1),
             n("QuantizeLinear", ["cat", "s2", "z2"], ["catq"]), n("DequantizeLinear", ["catq", "s2", "z2"], ["catd"]),
             n("Conv", ["catd", "w2"], ["y"])]
    g = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 12, 12])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6, 12, 12])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_qdq_pairs_fold_without_changing_results():
    model = _qdq_model()
    x = np.random.default_rng(1).standard_normal((1, 4, 12, 12)).astype(np.float32)
    folded = fo.compile_onnx(model)
    kept = fo.compile_onnx(model, disable_patterns=["quant-pair"])
    assert dict(folded.plan.patterns).get("quant-pair") == 4
    assert folded.dispatch_count < kept.dispatch_count
    np.testing.assert_array_equal(np.asarray(folded(x)), np.asarray(kept(x)))
    ort = pytest.importorskip("onnxruntime")
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    want = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    # Against onnxruntime the convs sum in another order (IREE's direct conv since the conv pricing refit
    # of 2026-12-04): a value within float rounding of a quantization tie may land one step of the
    # concat's quantizer (0.1) away, carried to the output through one 1x1 filter row (6 of 864 outputs
    # moved 0.21 at most, one pixel). Everything else agrees to float precision.
    got = np.asarray(folded(x))
    w2 = numpy_helper.to_array(next(i for i in model.graph.initializer if i.name == "w2q")).astype(np.float32) * 0.02
    bound = 0.1 * np.abs(w2).reshape(6, -1).sum(1)[None, :, None, None]  # every input channel one step off
    off = np.abs(got - want)
    assert (off <= 1e-4 + 1e-5 * np.abs(want)).mean() > 0.98 and np.all(off <= bound + 1e-4), off.max()


def test_qoperator_format_contrib_ops_run_as_standard_ones(tmp_path):
    """onnxruntime's QOperator quantization writes com.microsoft ops (QLinearAdd, QLinearConcat,
    QLinearGlobalAveragePool, QGemm, ...), which were refused; they and the standard QLinearConv (an
    integer conv accumulating in i64 as imported: SqueezeNet 98 ms -> 11 ms) run as DequantizeLinear ->
    float op -> QuantizeLinear (importers/onnx_legalize.py). Within a step of the quantized tensor before the
    Gemm (through its weights) plus one output step of onnxruntime."""
    ort = pytest.importorskip("onnxruntime")
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    rng = np.random.default_rng(0)
    w1, w2 = (numpy_helper.from_array((rng.standard_normal(s) * 0.3).astype(np.float32), n)
              for s, n in (((8, 4, 3, 3), "w1"), ((8, 4, 1, 1), "w2")))
    fc = numpy_helper.from_array((rng.standard_normal((16, 5)) * 0.3).astype(np.float32), "fc")
    n = helper.make_node
    nodes = [n("Conv", ["x", "w1"], ["a"], pads=[1, 1, 1, 1]), n("Relu", ["a"], ["ar"]), n("Conv", ["x", "w2"], ["b"]),
             n("Add", ["ar", "b"], ["s"]), n("Concat", ["s", "ar"], ["c"], axis=1),
             n("GlobalAveragePool", ["c"], ["p"]), n("Flatten", ["p"], ["f"]), n("Gemm", ["f", "fc"], ["y"])]
    g = helper.make_graph(nodes, "qop", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], [w1, w2, fc])
    src, dst = tmp_path / "f.onnx", tmp_path / "q.onnx"
    import onnx
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), src)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.left = 4

        def get_next(self):
            self.left -= 1
            return None if self.left < 0 else {"x": rng.standard_normal((1, 4, 8, 8)).astype(np.float32)}

    quantize_static(str(src), str(dst), Reader(), quant_format=QuantFormat.QOperator,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    q = onnx.load(dst)
    assert {"QLinearConv", "QLinearAdd"} <= {nd.op_type for nd in q.graph.node}
    assert "com.microsoft" in {nd.domain for nd in q.graph.node}
    x = rng.standard_normal((1, 4, 8, 8)).astype(np.float32)
    want = ort.InferenceSession(str(dst), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = np.asarray(fo.compile_onnx(dst)(x))
    # A step of the pooled input to the Gemm, carried through its weights, plus the output's own rounding
    # step: how far a tie rounded the other way before the last quantize moves the result (the sums' order
    # follows the vector width: 2 output steps on an AVX2 host, 1 on AVX-512 ones).
    scales = {i.name: float(numpy_helper.to_array(i)) for i in q.graph.initializer if i.name.endswith("_scale")}
    bound = np.abs(numpy_helper.to_array(fc)).sum(0).max() * scales["p_scale"] + scales["y_scale"]
    assert np.abs(got - want).max() <= bound, (np.abs(got - want).max(), bound)
