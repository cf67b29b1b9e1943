"""Module-wide IREE levers the cost mode turns on (backends/levers.py), and what the planner is told."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from fusion_opt.analysis.opdesc import OpDesc, OpKind
from fusion_opt.backends.levers import DATA_TILING, data_tiling_flags, data_tiling_planned, packing_pays


def contraction(batch: bool = False, size: int = 256, first: int | None = -1, stored_nm: bool = False) -> OpDesc:
    """[B?, M, K] x [B?, K, N] of `size`^3: a plain matmul (its first operand a function argument, or
    `first` = None: a constant; `stored_nm`: the result stored [N, M]), or a batch matmul (attention's QK^T)."""
    if batch:
        maps = ("(d0, d1, d2, d3) -> (d0, d1, d3)", "(d0, d1, d2, d3) -> (d0, d3, d2)", "(d0, d1, d2, d3) -> (d0, d1, d2)")
        its, dims = ("parallel",) * 3 + ("reduction",), ((0, 1, 3), (0, 3, 2), (0, 1, 2))
    else:
        maps = ("(d0, d1, d2) -> (d0, d2)", "(d0, d1, d2) -> (d2, d1)", "(d0, d1, d2) -> (d0, d1)")
        its, dims = ("parallel", "parallel", "reduction"), ((0, 2), (2, 1), (0, 1))
        if stored_nm:
            maps, dims = (*maps[:2], "(d0, d1, d2) -> (d1, d0)"), (*dims[:2], (1, 0))
    return OpDesc(0, "linalg.generic", "t", OpKind.CONTRACTION, (size,) * len(its), its, maps, dims,
                  num_dps_inputs=2, operands=(first, -2, None))


def graph(*ops):
    return SimpleNamespace(ops=[o if isinstance(o, OpDesc) else SimpleNamespace(kind=o, num_dps_inputs=1)
                                for o in ops])


@pytest.mark.parametrize("fusion,target,tiles,strategies,user,expected", [
    ("cost", "llvm-cpu", "iree", False, (), True),
    ("cost", "host", "iree", False, (), True),
    ("greedy", "llvm-cpu", "iree", False, (), False),      # comparison modes stay IREE's defaults
    ("none", "llvm-cpu", "iree", False, (), False),
    ("cost", "llvm-cpu", "cost", False, (), False),        # our tile sizes would be dropped by data tiling
    ("cost", "llvm-cpu", "iree", True, (), False),         # so would codegen strategies
    ("cost", "sm_90", "iree", False, (), False),           # a cost-model-only target: no CPU backend
    ("cost", "cuda", "iree", False, (), False),
    ("none", "llvm-cpu", "iree", False, (DATA_TILING,), True),            # the user's flag decides
    ("cost", "llvm-cpu", "iree", False, (f"{DATA_TILING}=false",), False),
])
def test_data_tiling_planned(fusion, target, tiles, strategies, user, expected):
    assert data_tiling_planned(fusion, target, tiles, strategies, user) is expected


def test_data_tiling_flag_only_for_a_plain_matmul_and_never_twice():
    mm = contraction()
    assert data_tiling_flags([graph(OpKind.ELEMENTWISE, mm)], "cost", "llvm-cpu") == (DATA_TILING,)
    assert data_tiling_flags([graph(OpKind.ELEMENTWISE, OpKind.CONVOLUTION)], "cost", "llvm-cpu") == ()
    assert data_tiling_flags([graph(contraction(batch=True))], "cost", "llvm-cpu") == ()  # attention only
    assert data_tiling_flags([graph(contraction(batch=True), mm)], "cost", "llvm-cpu") == (DATA_TILING,)
    assert data_tiling_flags([graph(mm)], "greedy", "llvm-cpu") == ()
    assert data_tiling_flags([graph(mm)], "cost", "llvm-cpu", user_flags=(DATA_TILING,)) == ()


def test_packing_pays_for_large_transposed_or_filter_first_matmuls_only():
    """Measured in models (docs/performance.md): small activation x weight matmuls ran faster untiled (a
    Llama block 0.43x, gMLP 0.80x), a 1x1 conv's filter x activations 3.8x slower untiled (BiFPN), the
    attention block's 128 x 256 x 256 projections 1.10x slower."""
    assert not packing_pays(contraction(size=64))                       # 262k MACs: activation x weight
    assert packing_pays(contraction(size=64, first=None))               # a constant filter first
    assert packing_pays(contraction(size=64, stored_nm=True))           # result stored [N, M]
    assert packing_pays(contraction(size=128))                          # 2M MACs
    assert not packing_pays(contraction(size=100))                      # 1M MACs, just below 2^20
    small = graph(OpKind.ELEMENTWISE, contraction(size=64))
    assert data_tiling_flags([small], "cost", "llvm-cpu") == ()
    assert data_tiling_flags([small, graph(contraction(size=64, first=None))], "cost", "llvm-cpu") == (DATA_TILING,)


def test_the_planner_prices_contractions_as_the_compile_runs_them():
    """plan_module tells the cost model whether contractions will be data-tiled (by default: as the
    compile of that fusion mode does), so plan notes and predictions follow the build."""
    from fusion_opt.ir import new_session
    from fusion_opt.importers import parse_mlir
    from fusion_opt.pipelines import plan_module

    src = """func.func @mm(%a: tensor<128x256xf32>, %b: tensor<256x512xf32>) -> tensor<128x512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x256xf32>, tensor<256x512xf32>) outs(%f : tensor<128x512xf32>) -> tensor<128x512xf32>
  return %r : tensor<128x512xf32>
}"""
    times = {}
    for tiled in (False, True, None):
        s = new_session()
        pf = plan_module(parse_mlir(src, s.context, "mm.mlir"), "cost", "mm.mlir", "host", data_tiling=tiled)[0]
        times[tiled] = pf.plan.predicted_s
    assert times[None] == times[True] != times[False]


def test_opt_level_is_o3_for_the_cost_mode_on_cpus_unless_the_user_chose():
    from fusion_opt.backends.levers import OPT_LEVEL, module_flags, opt_level_flags

    assert opt_level_flags("cost", "llvm-cpu") == (f"{OPT_LEVEL}=O3",)
    assert opt_level_flags("greedy", "llvm-cpu") == () and opt_level_flags("cost", "sm_80") == ()
    assert opt_level_flags("cost", "llvm-cpu", user_flags=(f"{OPT_LEVEL}=O1",)) == ()
    assert f"{OPT_LEVEL}=O3" in module_flags([], "cost", "host")


_CONCATS = """
func.func @f(%a: tensor<16x8xf32>, %b: tensor<16x24xf32>, %c: tensor<1x4x8xf32>, %w: tensor<32x24xf32>)
    -> (tensor<16x24xf32>, tensor<1x8x8xf32>) {
  %inner = tensor.concat dim(1) %a, %b : (tensor<16x8xf32>, tensor<16x24xf32>) -> tensor<16x32xf32>
  %outer = tensor.concat dim(1) %c, %c : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x8x8xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x24xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  %m = linalg.matmul ins(%inner, %w : tensor<16x32xf32>, tensor<32x24xf32>) outs(%f : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %m, %outer : tensor<16x24xf32>, tensor<1x8x8xf32>
}
"""


def test_inner_dim_concats_keep_iree_from_transposing_them_beside_our_regions():
    """IREE rewrote a concat along an inner dim as transposes around an outer-dim concat, which it could not
    fuse into our matmul's region: 5 dispatches (4 transposes) against 4 (3 copies) in its own formation.
    A concat along the outermost non-unit dim (`[1, 8, 8]` along 1) is not rewritten and asks for nothing."""
    import numpy as np

    import fusion_opt as fo
    from fusion_opt.backends.levers import OUTER_DIM_CONCAT, concat_flags, inner_concat
    from ir_helpers import describe_text

    _, _, _, g, _ = describe_text(_CONCATS)
    concats = [op for op in g.ops if op.name == "tensor.concat"]
    assert [inner_concat(op) for op in concats] == [True, False]
    flag = (f"{OUTER_DIM_CONCAT}=false",)
    assert concat_flags([g], "cost") == flag and concat_flags([g], "greedy") == ()
    assert concat_flags([g], "cost", user_flags=(f"{OUTER_DIM_CONCAT}=true",)) == ()
    assert concat_flags([SimpleNamespace(ops=concats[1:])], "cost") == ()

    m = fo.compile_mlir(_CONCATS, fusion="cost")
    iree = fo.compile_mlir(_CONCATS, fusion="iree")
    assert flag[0] in m.artifact.flags and m.dispatch_count <= iree.dispatch_count
    rng = np.random.default_rng(0)
    a, b, c, w = (rng.standard_normal(s).astype(np.float32) for s in ((16, 8), (16, 24), (1, 4, 8), (32, 24)))
    mm, outer = m(a, b, c, w)
    np.testing.assert_allclose(mm, np.concatenate([a, b], 1) @ w, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(outer, np.concatenate([c, c], 1))
