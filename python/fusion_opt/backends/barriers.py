"""Remove IREE's tensor compute barriers from inside our `flow.dispatch.region`s after global-opt.

Why: IREE 3.13's global optimization (`InsertTensorBarriersPass`) puts an
`iree_tensor_ext.compute_barrier.end` after every compute op whose result has no compute user, to stop
reshape propagation at the program's edges. In a module that already holds dispatch regions, the
op feeding each `flow.return` is such a result, so every region of ours ends in a barrier. Dispatch
creation only removes barriers at its very end, and before that `FuseEncodingOpsIntoDispatchRegions`
refuses a producer region holding any op outside its list (the barrier is not in it): with data
tiling on, the next matmul's `set_encoding` then became a dispatch of its own that re-reads and
re-writes the activation, where IREE's own regions pack it in the producer's epilogue. Measured on
a 4-layer MLP (128x1024x1024, this 2-core VM, 200 interleaved rounds): 8.60 ms with the barriers,
8.05 ms without, IREE's best flags 8.22 ms. Barriers outside regions (the function's edges) stay.

Except in a region of parallel ops only (elementwise, a pool as window taps or as a window reduction)
whose result is collapsed before its use, image rows merged (`[C, H, W]` -> `[C, H*W]`, the input of a
1x1 conv's matmul): packed there, the region stores the matmul's register tiles, which run across its
rows, and the store no longer vectorizes. Inception-v2's `[576, 14, 14]` average pool: 89.8 us with the
packing, 17.7 us + 7.7 us for IREE's own packing dispatch with the barrier kept (2026-12-02); a window
reduction too (DenseNet-121's stride-2 transition pools moved before their 1x1 convs, SqueezeNet's max
pools before its fire modules: 0.95-0.96x). A region holding a contraction keeps stripping: with its
barrier, IREE left ResNet-50's `[512, 28, 28]` strided 1x1 conv uncollapsed and not data-tiled (1.12 ->
4.26 ms).
"""
from __future__ import annotations

from ..ir import ir
from ..transforms.dispatch_regions import nested_ops, regions_where

BARRIER_OPS = ("iree_tensor_ext.compute_barrier.start", "iree_tensor_ext.compute_barrier.end")


def has_dispatch_regions(module: ir.Module) -> bool:
    """Whether the module carries planned `flow.dispatch.region`s (the only case barriers get inside)."""
    return bool(regions_where(module, lambda region: True))


def strip_region_barriers(module: ir.Module) -> int:
    """Erase the compute barriers nested in a `flow.dispatch.region` (uses take its operand) except in
    regions of parallel ops whose rows are merged after them (`parallel_only`, `merges_rows`); returns
    how many. A barrier is an identity on its tensor, so the region computes the same values."""
    inside = [op for region in regions_where(module, _strippable) for op in nested_ops(region)
              if op.name in BARRIER_OPS]
    for op in inside:
        for res, src in zip(op.results, op.operands):
            res.replace_all_uses_with(src)
        op.erase()
    return len(inside)


def _strippable(region: ir.Operation) -> bool:
    return not (merges_rows(region) and parallel_only(region))


def merges_rows(region: ir.Operation) -> bool:
    """Whether a result of `region` is used by a `tensor.collapse_shape` that merges two or more
    dims of size > 1 (dropping unit dims merges no rows)."""
    for res in region.results:
        for use in res.uses:
            o = use.owner
            if o.name != "tensor.collapse_shape":
                continue
            shape = ir.RankedTensorType(res.type).shape
            for group in ir.ArrayAttr(o.attributes["reassociation"]):
                if sum(shape[ir.IntegerAttr(d).value] > 1 for d in ir.ArrayAttr(group)) > 1:
                    return True
    return False


def parallel_only(region: ir.Operation) -> bool:
    """Whether every Linalg op in `region` is a fill, a generic with parallel iterators only, or a window
    reduction without products (a pool; no contraction, other reduction or IREE LinalgExt op)."""
    for o in nested_ops(region):
        if o.name.startswith("iree_linalg_ext."):
            return False
        if o.name.startswith("linalg.") and o.name not in ("linalg.fill", "linalg.yield", "linalg.index"):
            if o.name != "linalg.generic":
                return False
            if any("reduction" in str(it) for it in ir.ArrayAttr(o.attributes["iterator_types"])) and \
                    not _window_reduction(o):
                return False
    return True


def _window_reduction(op: ir.Operation) -> bool:
    """A generic reducing window taps of its first input (an `out * stride + tap` read) by a plain
    `addf`/`maximumf`/`minimumf`: a pool, whose rows IREE stores as it does the taps form's."""
    body = [o.name for o in op.regions[0].blocks[0].operations if o.name != "linalg.yield"]
    maps = ir.ArrayAttr(op.attributes["indexing_maps"])
    return len(body) == 1 and body[0] in ("arith.addf", "arith.maximumf", "arith.minimumf") and \
        "+" in str(ir.AffineMapAttr(maps[0]).value)
