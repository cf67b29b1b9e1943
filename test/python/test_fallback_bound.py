"""backends/fallback.py: after MAX_FALLBACKS groups given back one at a time, the rest of the plan goes back
at once and the module compiles (before, the 17th failure was raised: 18 GridSamples sharing one grid)."""
from __future__ import annotations

import warnings

import numpy as np

import fusion_opt as fo
from fusion_opt import testhooks
from fusion_opt.backends.fallback import MAX_FALLBACKS

N = MAX_FALLBACKS + 4


def _chains(n: int) -> str:
    """n independent exp -> add chains, each its own group."""
    args = ", ".join(f"%x{i}: tensor<16xf32>" for i in range(n))
    res = ", ".join("tensor<16xf32>" for _ in range(n))
    body = []
    for i in range(n):
        body.append(f"""  %e{i} = tensor.empty() : tensor<16xf32>
  %a{i} = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel"]}}
      ins(%x{i} : tensor<16xf32>) outs(%e{i} : tensor<16xf32>) {{
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  }} -> tensor<16xf32>
  %b{i} = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}}
      ins(%a{i}, %x{i} : tensor<16xf32>, tensor<16xf32>) outs(%e{i} : tensor<16xf32>) {{
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.addf %v, %w : f32
    linalg.yield %r : f32
  }} -> tensor<16xf32>""")
    rets = ", ".join(f"%b{i}" for i in range(n))
    return (f"#id = affine_map<(d0) -> (d0)>\nfunc.func @chains({args}) -> ({res}) {{\n" + "\n".join(body)
            + f"\n  return {rets} : {res}\n}}\n")


def test_more_failing_groups_than_the_bound_fall_back_to_iree_whole() -> None:
    testhooks.inject({g: "fail" for g in range(N)})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", fo.FallbackWarning)
            m = fo.compile_mlir(_chains(N))
    finally:
        testhooks.inject()
    assert len(m.fallbacks) == MAX_FALLBACKS + 1
    last = m.fallbacks[-1]
    assert last.group is None and last.unwrapped_all and "all" in last.action
    xs = [np.full(16, i / 10, np.float32) for i in range(N)]
    for x, y in zip(xs, m(*xs)):
        np.testing.assert_allclose(y, np.exp(x) + x, rtol=1e-6)
