"""Hand-written `.mlir` brought to the form the ONNX importer gives the planner (and IREE gives its own).

Why: the planner reasons on indexing maps, and the ONNX path reaches it through IREE's global
optimization (onnx_import.GLOBAL_OPT / FOLD_UNIT_DIMS): named elementwise, broadcast, transpose,
reduce, conv and pooling ops generalized, transposes folded into the matmuls that read them. A `.mlir`
file written with named ops (`linalg.transpose` of K before `linalg.batch_matmul`, a `linalg.map`
ReLU after `linalg.conv_2d_nchw_fchw`, a `linalg.broadcast` bias) skipped that, and the plan paid for
it: a transpose dispatch IREE folds away, a conv layout change whose transposes stayed between the conv
and its ReLU (measured 2026-12-03: attention 4 dispatches against IREE's 3; conv + ReLU + max pool 6
against 3; matmul + broadcast bias + exp + softmax 3 against 2). Normalized, they plan as 3, 4 (1.85x
faster than IREE's 3) and 2.

The steps, in order:
0. calls inlined (MLIR's inliner, which also drops the private callees left unused) and `arith` / `math`
   ops on whole tensors made generics (`convert-elementwise-to-linalg`), as IREE does before it forms
   dispatches: a helper called twice planned one group per call (2 dispatches, IREE 1), a tensor-level
   `cmpf` + `select` after a reduction stayed outside every group (2 dispatches, IREE 1);
   Then a generic that only gathers `x[c, ...]` at constant indices becomes a `tensor.extract_slice`
   (importers/constant_gathers.py, as on the ONNX path: an unrolled recurrence's per-step reads);
1. unit dims folded where a reduction keeps one (IREE's fold-unit-extent-dims, as the ONNX path runs
   it; named transposes generalized first, since the pass leaves them alone): a keepdim LayerNorm
   3 -> 1 dispatch, a torch-mlir style [1, H, S, D] attention 5 -> 4;
2. transposes propagated (IREE's `iree-global-opt-propagate-linalg-transpose`, which the ONNX path runs
   on every function): folded into the maps of the contractions and elementwise ops that read them,
   inverse pairs cancelled; the transposes it leaves generalized again, as the ONNX path has them (a
   reduce + two inverse transposes 4 -> 2 dispatches, transpose + exp + inverse transpose 2 -> 1: IREE's
   own formation 2 and 1). Until 2026-12-05 it ran only where a transpose fed a contraction;
3. `linalg.map`, `linalg.broadcast`, `linalg.elementwise`, `linalg.reduce` and `linalg.copy` generalized
   (maps the layout propagation and epilogue rules read; a `linalg.elementwise` add of a broadcast bias
   kept it out of its matmul's group; IREE's global optimization generalizes reduce and copy, but only
   outside dispatches, so a named reduce in a region of ours compiled 4-5x slower: a column sum of exp
   1.02 ms against 0.21, and a named LayerNorm's region overflowed IREE's stack limit and fell back),
   then reshapes that generics read moved past them (IREE's bubble-up-expand-shapes and sink-reshapes, as
   its dispatch formation runs them; reshapes stay outside our regions, so a matmul over a collapsed
   `[B*S, K]` input expanded back before its epilogue planned 2 dispatches, IREE 1; now 1. A torch-mlir
   style `[1, H, S, D]` attention 4 -> 3, IREE 4);
4. a generic applying an idempotent op to one tensor twice (`max(t, t)`) replaced by `t`, as IREE's own
   formation folds it first (in a region of ours IREE folded it after, and a region returning the value
   twice came back wrong, fuzz seed 31670); then
   a copy-only generic (a broadcast or transpose) whose every reader is a generic folded into those
   readers' maps, as IREE's elementwise fusion does before it forms dispatches (the `side-input` rule
   would otherwise keep a broadcast bias out of its matmul's epilogue). The ONNX importer runs this
   step too, for an `Expand` read by an `Add`: matmul + Expand + Add + Relu 2 -> 1 dispatch (none of
   the 14 suite models has such an op).
Named convs, pools, matmuls and softmax keep their names. Ops the user pinned or barred
(`fusion_opt.fuse` / `fusion_opt.no_fuse`) are left as written. Numbers are unchanged: only where
elements are read from changes. A `--transform` script runs on the normalized IR too: the op ids of an
`--emit=transform` script must find the same ops when it is replayed.
"""
from __future__ import annotations

from ..analysis.opdesc import RESHAPE_OPS
from ..errors import UnsupportedError
from .constant_gathers import slice_constant_gathers
from .constant_reads import drop_constant_reads
from .pad_chains import fold_pad_chains
from ..ir import (FUSE_ATTR, NO_FUSE_ATTR, SOURCE_ATTR, PassManager, affine_constant, all_ops, block_ops,
                  functions, indexing_maps, ir, use_owner)

PIPELINE = "builtin.module(func.func(iree-global-opt-propagate-linalg-transpose))"
INLINE = "builtin.module(inline)"
RESHAPES = ("builtin.module(func.func(iree-dispatch-creation-bubble-up-expand-shapes,"
            "iree-dispatch-creation-sink-reshapes,canonicalize,cse))")
TENSOR_ARITH = "builtin.module(func.func(convert-elementwise-to-linalg))"
UNIT_DIMS = ("builtin.module(func.func(iree-dispatch-creation-fold-unit-extent-dims-for-func,"
             "iree-dispatch-creation-bubble-up-expand-shapes,iree-dispatch-creation-sink-reshapes,canonicalize,cse))")
GENERALIZED = ("linalg.map", "linalg.broadcast", "linalg.elementwise", "linalg.reduce", "linalg.copy")
CONV_PREFIXES = ("linalg.conv_", "linalg.depthwise_conv_", "linalg.pooling_")
KEPT_CONVS = frozenset({"linalg.conv_2d_nchw_fchw", "linalg.conv_2d_nhwc_hwcf", "linalg.depthwise_conv_2d_nchw_chw",
                        "linalg.depthwise_conv_2d_nhwc_hwc"})
KEPT_POOLS = ("linalg.pooling_nchw_", "linalg.pooling_nhwc_")
PINS = (FUSE_ATTR, NO_FUSE_ATTR)
_GENERALIZE = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{[OPS]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.structured.generalize %ops : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}"""


def normalize(module: ir.Module, source_name: str) -> int:
    """Run the steps above on every function of `module`; returns how many copy-only generics were folded.
    Each generic that was a named op or a tensor `arith` / `math` op keeps that name in `SOURCE_ATTR`."""
    _inline(module, source_name)
    names = _source_names(module)
    _linalgize(module, source_name)
    slice_constant_gathers(module)
    _fold_unit_dims(module, source_name)  # a batch of one folded first: a transpose may then feed its matmul
    _propagate_transposes(module, source_name)
    _generalize(module, source_name, GENERALIZED + _named_convs(module))
    _move_reshapes(module, source_name)
    fold_pad_chains(module)
    fold_idempotent_generics(module)
    folded = fold_copy_generics(module)
    _mark_sources(module, names)
    return folded


def _source_names(module: ir.Module) -> dict[str, str]:
    """Location text -> name of the op written there, for the ops normalization may turn into generics.
    Passes rebuild ops without their attributes but keep their locations, so the location carries the name
    through every step; a location two differently named ops share names neither. Ops inside a body are
    not looked at (`linalg.map { math.tanh }` gives its `tanh` the map's location)."""
    names: dict[str, str] = {}
    for o in all_ops(module.operation):
        if (o.parent is None or not o.parent.name.startswith("linalg.")) and \
                (o.name.startswith("linalg.") and o.name != "linalg.generic" or _tensor_arith(o)):
            key = str(o.location)
            names[key] = o.name if names.get(key, o.name) == o.name else ""
    return {k: v for k, v in names.items() if v}


def _mark_sources(module: ir.Module, names: dict[str, str]) -> None:
    if not names:
        return
    with module.context:
        for o in all_ops(module.operation):
            name = names.get(str(o.location)) if o.name == "linalg.generic" else None
            if name and SOURCE_ATTR not in o.attributes:
                o.attributes[SOURCE_ATTR] = ir.StringAttr.get(name)


# Body ops f with f(a, a) = a: a generic applying one to the same tensor twice is that tensor.
IDEMPOTENT = frozenset({"arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf", "arith.andi",
                        "arith.ori", "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui"})


def fold_idempotent_generics(module: ir.Module) -> int:
    """Replace each `max(t, t)`-like generic by `t`; returns how many. IREE folds such an op inside a
    dispatch region of ours into the value it reads, and a region then returning that value twice came
    back wrong from IREE 3.13: exp, tanh and max(tanh, tanh) in one region returned the exp for the max
    (fuzz seed 31670, where CSE had made two equal tanh ops one; test/fuzz/iree/idempotent-result.mlir).
    IREE's own formation folds it before forming dispatches, as this does before planning."""
    folded = 0
    with module.context:
        for f in functions(module):
            for o in block_ops(f):
                src = _idempotent_source(o)
                if src is not None:
                    o.results[0].replace_all_uses_with(src)
                    o.erase()
                    folded += 1
    return folded


def _idempotent_source(o: ir.Operation) -> ir.Value | None:
    """The tensor `o` reads twice when it is an all-parallel, identity-mapped generic whose body is one
    `IDEMPOTENT` op of its two inputs, both that tensor; else None."""
    if o.name != "linalg.generic" or len(o.results) != 1 or len(o.operands) != 3 or any(p in o.attributes for p in PINS):
        return None
    a, b = o.operands[0], o.operands[1]
    maps = indexing_maps(o)
    body = block_ops(o)
    if a != b or a.type != o.results[0].type or any(m != ir.AffineMap.get_identity(m.n_dims) for m in maps) \
            or len(body) != 2 or body[0].name not in IDEMPOTENT:
        return None
    args = o.regions[0].blocks[0].arguments
    op = body[0]
    if {op.operands[0], op.operands[1]} != {args[0], args[1]} or body[1].operands[0] != op.results[0]:
        return None
    return a


def fold_copy_generics(module: ir.Module) -> int:
    """The last step alone (the ONNX importer's output needs only this one: an `Expand` before an `Add`);
    returns how many were folded."""
    folded = 0
    with module.context:
        for f in functions(module):  # declarations (no body) skipped
            folded += sum(fold_copy_generic(o) for o in block_ops(f))
    return folded


def _pins(op: ir.Operation) -> int:
    return sum(p in o.attributes for o in all_ops(op) for p in PINS)


def _reduces(o: ir.Operation) -> bool:
    """A generic with a reduction loop."""
    return o.name == "linalg.generic" and any("reduction" in str(t) for t in ir.ArrayAttr(o.attributes["iterator_types"]))


def _any_op(module: ir.Module, pred) -> bool:
    found = False

    def visit(o: ir.Operation) -> ir.WalkResult:
        nonlocal found
        if pred(o):
            found = True
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    with module.context:
        module.operation.walk(visit)
    return found


def _transpose(o: ir.Operation) -> bool:
    if o.name == "linalg.transpose":
        return True
    src = indexing_maps(o)[0] if copy_only(o) else None
    return src is not None and src.is_permutation and src != ir.AffineMap.get_identity(src.n_dims)


def _keepdim_reduction(o: ir.Operation) -> bool:
    """A reduction writing a kept unit dim (`(d0, d1) -> (d0, 0)`): not invertible, so the tile-fuse rule
    keeps its readers out of its group (a hand-written LayerNorm in three dispatches)."""
    if not _reduces(o):
        return False
    outs = indexing_maps(o)[len(o.operands) - len(o.results):]
    return any(affine_constant(e) is not None for m in outs for e in m.results)


def _run_keeping_pins(module: ir.Module, pipeline: str, source_name: str) -> bool:
    """IREE's passes rebuild the ops they touch without their discardable attributes: where the module has
    pins, `pipeline` is tried on a copy first and run only if every pin survives it (pinned ops stay as
    written); without pins it runs once."""
    try:
        pins = _pins(module.operation)
        if pins:
            probe = module.operation.clone()
            PassManager.parse(pipeline, context=module.context).run(probe)
            if _pins(probe) != pins:
                return False
        PassManager.parse(pipeline, context=module.context).run(module.operation)
    except ir.MLIRError as e:
        raise _failed(e, source_name) from None
    return True


def _propagate_transposes(module: ir.Module, source_name: str) -> None:
    """Its greedy rewriting also folds constants and turns every copy-only transpose into a named
    `linalg.transpose` (which the `transpose` rule keeps alone), so it runs only where there is a transpose,
    and the transposes it leaves are generalized again, as the ONNX path's FOLD_UNIT_DIMS does."""
    if not _any_op(module, _transpose):
        return
    drop_constant_reads(module)  # the pass reads a constant in a map as a dim (importers/constant_reads.py)
    if _run_keeping_pins(module, PIPELINE, source_name):
        _generalize(module, source_name, ("linalg.transpose",))


def _tensor_arith(o: ir.Operation) -> bool:
    """An `arith` / `math` op on whole tensors (`arith.addf %a, %b : tensor<...>`), outside any body."""
    return o.name.split(".")[0] in ("arith", "math") and len(o.results) == 1 \
        and isinstance(o.results[0].type, ir.RankedTensorType) and o.name != "arith.constant"


def _inline(module: ir.Module, source_name: str) -> None:
    """Calls inlined (IREE inlines them before it forms dispatches; planned apart, a helper called twice
    was a dispatch per call where IREE fuses both into one)."""
    if _any_op(module, lambda o: o.name == "func.call"):
        _run_keeping_pins(module, INLINE, source_name)


def _linalgize(module: ir.Module, source_name: str) -> None:
    """arith / math ops on tensors as generics (left outside every group, a `cmpf` + `select` after a
    reduction was a dispatch of its own: IREE fuses them into the reduction's)."""
    if _any_op(module, _tensor_arith):
        _run_keeping_pins(module, TENSOR_ARITH, source_name)


def _fold_unit_dims(module: ir.Module, source_name: str) -> None:
    """The ONNX path's unit-dim folding (FOLD_UNIT_DIMS' first steps), where a reduction keeps a unit dim:
    the row statistics of LayerNorm / softmax then read through `(d0)` and join one group. Only there:
    it rewrites every unit dim of the function (a batch of one included) and folds constants."""
    if _any_op(module, _keepdim_reduction):
        _generalize(module, source_name, ("linalg.transpose",))  # the pass leaves named transposes 4-D
        _run_keeping_pins(module, UNIT_DIMS, source_name)


def _reshape_into_generic(o: ir.Operation) -> bool:
    """An expand_shape / collapse_shape whose result a generic reads."""
    return o.name in RESHAPE_OPS and \
        any(use_owner(u).name == "linalg.generic" for u in o.results[0].uses)


def _move_reshapes(module: ir.Module, source_name: str) -> None:
    """Reshapes between a producer and the generics that read it moved past those generics (IREE's
    bubble-up-expand-shapes and sink-reshapes, as its dispatch formation runs them): a matmul over a
    collapsed `[B*S, K]` input expanded back before its elementwise epilogue planned the epilogue apart."""
    if _any_op(module, _reshape_into_generic):
        _run_keeping_pins(module, RESHAPES, source_name)


def _named_convs(module: ir.Module) -> tuple[str, ...]:
    """The named convolutions and pools of `module` to generalize: IREE's generalization takes every op of
    the convolution interface, outside dispatches only, and inside a region of ours a named
    `conv_1d_nwc_wcf` ran 8.5x, a `conv_2d_nhwc_fhwc` and a `conv_3d_ndhwc_dhwcf` 1.7x slower than IREE's own
    compile (generalized: the same). `KEPT_CONVS` stay named: they ran as fast named as generalized (direct,
    and with our conv rewrites), and our tile configs and codegen strategies read them by name."""
    return tuple(sorted({o.name for o in all_ops(module.operation) if o.name.startswith(CONV_PREFIXES)
                         and o.name not in KEPT_CONVS and not o.name.startswith(KEPT_POOLS)}))


def _generalize(module: ir.Module, source_name: str, ops: tuple[str, ...] = GENERALIZED) -> None:
    """Named `ops` as generics, by the transform interpreter (pins and other discardable attributes kept)."""
    from iree.compiler.dialects.transform import interpreter

    names = ", ".join(f'"{n}"' for n in ops)
    script = ir.Operation.parse(_GENERALIZE.replace("OPS", names), context=module.context)
    seq = script.regions[0].blocks[0].operations[0].operation
    try:
        interpreter.apply_named_sequence(module.operation, seq, script)
    except (ValueError, ir.MLIRError) as e:
        raise _failed(e, source_name) from None


def _failed(e: Exception, source_name: str) -> UnsupportedError:
    """A pass or the interpreter refusing the module: one line naming the first diagnostic."""
    diags = getattr(e, "error_diagnostics", None)
    msg = f"{diags[0].message} at {diags[0].location}" if diags else str(e).strip().splitlines()[0]
    return UnsupportedError(f"normalizing the input failed: {msg}", source_name)


def copy_only(op: ir.Operation) -> bool:
    """A generic that only moves elements: one input read through a projected permutation, its result
    written through the identity, every loop parallel, the body `yield %in` (a broadcast or transpose)."""
    if op.name != "linalg.generic" or len(op.results) != 1 or len(op.operands) != 2:
        return False
    iters = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    src, out = indexing_maps(op)
    body = list(op.regions[0].blocks[0].operations)
    return (all("parallel" in t for t in iters) and out == ir.AffineMap.get_identity(out.n_dims)
            and src.is_projected_permutation and src.n_symbols == 0 and len(body) == 1
            and body[0].operation.name == "linalg.yield"
            and body[0].operation.operands[0] == op.regions[0].blocks[0].arguments[0])


def fold_copy_generic(op: ir.Operation) -> bool:
    """Fold copy-only generic `op` into its readers when every use is an input of a `linalg.generic`:
    each reader reads the source directly, through the source map composed with its own; `op` goes."""
    if not copy_only(op) or any(p in op.attributes for p in PINS):
        return False
    uses = [(use_owner(u), u.operand_number) for u in op.results[0].uses]
    if not uses:
        return False
    for g, k in uses:
        n_in = len(g.operands) - len(g.results) if g.name == "linalg.generic" else 0
        if g.name != "linalg.generic" or k >= n_in:
            return False
    src_map = indexing_maps(op)[0]
    source = op.operands[0]
    for g, k in uses:
        maps = indexing_maps(g)
        reader = maps[k]
        exprs = [reader.results[ir.AffineDimExpr(e).position] for e in src_map.results]
        maps[k] = ir.AffineMap.get(reader.n_dims, 0, exprs)
        g.operands[k] = source
        g.attributes["indexing_maps"] = ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps])
    op.erase()
    return True
