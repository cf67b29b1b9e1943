"""importers/constant_reads.py: unit dims read at a constant index leave the maps of elementwise generics
before IREE's transpose propagation (which reads such a constant as a dim position and crashed on a torch
TransformerEncoder export); the rewritten module computes the same numbers."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

import fusion_opt as fo
from fusion_opt.importers import onnx_import
from fusion_opt.importers.constant_reads import drop_constant_reads
from fusion_opt.ir import affine_constant, functions, indexing_maps, ir, new_session

RNG = np.random.default_rng(0)

TEXT = """
func.func @main(%x: tensor<4x32x64xf32>, %g: tensor<1x32x64xf32>, %s: tensor<1x1xf32>, %v: tensor<4xf32>,
                %r: tensor<4x1xf32>) -> (tensor<4x32x64xf32>, tensor<4x32xf32>) {
  %e = tensor.empty() : tensor<4x32x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (0, d1, d2)>,
                                        affine_map<(d0, d1, d2) -> (0, 0)>, affine_map<(d0, d1, d2) -> (0)>,
                                        affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %g, %s, %v : tensor<4x32x64xf32>, tensor<1x32x64xf32>, tensor<1x1xf32>, tensor<4xf32>) outs(%e : tensor<4x32x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %d: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %n = arith.addf %m, %c : f32
    %p = arith.subf %n, %d : f32
    linalg.yield %p : f32
  } -> tensor<4x32x64xf32>
  %cst = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<4x32xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e2 : tensor<4x32xf32>) -> tensor<4x32xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0)>,
                                        affine_map<(d0, d1, d2) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %r : tensor<4x32x64xf32>, tensor<4x1xf32>) outs(%f : tensor<4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %n = arith.addf %m, %o : f32
    linalg.yield %n : f32
  } -> tensor<4x32xf32>
  return %y, %z : tensor<4x32x64xf32>, tensor<4x32xf32>
}
"""


def _constant_results(module: ir.Module) -> list[tuple[str, int]]:
    """(op, input) pairs of all-parallel generics reading an input through a constant map result."""
    found = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "linalg.generic":
            iters = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
            n_in = len(op.operands) - len(op.results)
            for k, m in enumerate(indexing_maps(op)[:n_in]):
                if all("parallel" in t for t in iters) and any(affine_constant(e) is not None for e in m.results):
                    found.append((str(op.location), k))
        return ir.WalkResult.ADVANCE

    with module.context:
        for f in functions(module):
            f.walk(visit)
    return found


def test_unit_dim_broadcasts_are_read_through_a_collapse() -> None:
    """The (0, d1, d2) read becomes a collapse to 32x64 read by (d1, d2); the 1x1 scalar a rank-0 tensor
    read by (); element 0 of a 4-element vector (not a unit dim) a rank-0 slice; the reduction's input stays."""
    s = new_session()
    module = ir.Module.parse(TEXT, s.context)
    assert drop_constant_reads(module) == 3
    module.operation.verify()
    text = str(module)
    assert "tensor.collapse_shape %arg1 [[0, 1], [2]] : tensor<1x32x64xf32> into tensor<32x64xf32>" in text
    assert "tensor.collapse_shape %arg2 [] : tensor<1x1xf32> into tensor<f32>" in text
    assert "tensor.extract_slice %arg3[0] [1] [1] : tensor<4xf32> to tensor<f32>" in text
    assert _constant_results(module) == []
    assert drop_constant_reads(module) == 0


def test_rewritten_module_computes_the_same_numbers() -> None:
    s = new_session()
    module = ir.Module.parse(TEXT, s.context)
    drop_constant_reads(module)
    args = [RNG.standard_normal(shape).astype(np.float32) for shape in [(4, 32, 64), (1, 32, 64), (1, 1), (4,), (4, 1)]]
    before = fo.compile_mlir(TEXT, fusion="none")(*args)
    after = fo.compile_mlir(str(module), fusion="none")(*args)
    for a, b in zip(before, after):
        np.testing.assert_array_equal(a, b)
    x, g, c, v, r = args
    np.testing.assert_allclose(before[0], x * g + c[0, 0] - v[0], rtol=1e-6, atol=1e-6)


def test_encoder_import_gives_global_opt_no_constant_reads() -> None:
    """torch's TransformerEncoder (the model that crashed in CI): its Linalg module has LayerNorm's kept-dim
    reads; after the rewrite the global-opt steps see none."""
    path = str(Path(__file__).parent / "data" / "encoder_micro.onnx")
    original, where = onnx_import.load_onnx(path)
    proto = onnx_import.prepare(original, where, None, onnx_import.PREEXPAND, False)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "linalg.mlirbc")
        onnx_import.run_isolated(onnx_import._to_linalg, (proto, where, out), "lowering", where)
        s = new_session()
        with open(out, "rb") as f:
            module = ir.Module.parse(f.read(), s.context)
    assert _constant_results(module), "the export no longer has kept-dim reads: this test checks nothing"
    assert drop_constant_reads(module) > 0
    module.operation.verify()
    assert _constant_results(module) == []
