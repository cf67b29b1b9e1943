"""Gathers at constant indices made slices (importers/constant_gathers.py): an unrolled GRU's per-step reads."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper as oh, numpy_helper

from ir_helpers import compiled_and_ort, describe_text


def _gru(steps: int = 6, inp: int = 8, hidden: int = 16) -> onnx.ModelProto:
    """ONNX GRU over `steps` steps of one sequence, its Y returned: torch-mlir unrolls it, reading each
    step's input projection `[T, 3H]` at a constant step."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array((rng.standard_normal((1, 3 * hidden, inp)) * 0.3).astype(np.float32), "W")
    r = numpy_helper.from_array((rng.standard_normal((1, 3 * hidden, hidden)) * 0.3).astype(np.float32), "R")
    b = numpy_helper.from_array((rng.standard_normal((1, 6 * hidden)) * 0.1).astype(np.float32), "B")
    node = oh.make_node("GRU", ["x", "W", "R", "B"], ["y"], hidden_size=hidden)
    g = oh.make_graph([node], "gru", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [steps, 1, inp])],
                      [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [steps, 1, 1, hidden])], [w, r, b])
    return oh.make_model(g, opset_imports=[oh.make_opsetid("", 17)])


def test_an_unrolled_gru_reads_its_steps_through_slices():
    m, got, ref = compiled_and_ort(_gru())
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    gathers = [op for g in m.graphs for op in g.ops if "tensor.extract" in op.body_ops]
    slices = [op for g in m.graphs for op in g.ops if op.name == "tensor.extract_slice"]
    assert not gathers and len(slices) >= 6 and not m.fallbacks


def test_only_plain_reads_at_constant_indices_read_by_slices_are_slices():
    from fusion_opt.importers.constant_gathers import _read_by_slices, gather_slice
    from fusion_opt.ir import all_ops

    text = open(__file__.replace("python/test_constant_gathers.py", "lit/import/constant-gather.mlir")).read()
    verdicts = []
    for chunk in text.split("// -----"):
        session, module, _, _, _ = describe_text(chunk)
        with session.context:
            gathers = [o for o in all_ops(module.operation) if o.name == "linalg.generic"
                       and any(b.operation.name == "tensor.extract" for b in o.regions[0].blocks[0].operations)]
            verdicts += [(gather_slice(o) is not None, _read_by_slices(o)) for o in gathers]
    # a plain gather read by slices; a computed index; a transposed read; a row an add reads (no slice)
    assert verdicts == [(True, True), (False, True), (False, True), (True, False)]
