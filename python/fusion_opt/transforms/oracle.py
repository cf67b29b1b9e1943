"""Correctness oracle for transformed Linalg: run it through IREE and compare with the original.

Why this works: IREE compiles host-level tiled loops (`scf.for` around tiles, one dispatch per tile;
slow, but exact), while host-level `scf.forall` crashes iree-compile (shared/ARCHITECTURE.md). So
the tiled module's `scf.forall`s become nested `scf.for`s first, with IREE's own
`iree-codegen-forall-to-for` pass (verified on 3.13: it handles `shared_outs`, rewriting
`tensor.parallel_insert_slice` into `tensor.insert_slice` on loop-carried tensors; upstream's
`transform.loop.forall_to_for` refuses them: "unsupported shared outputs (didn't bufferize?)").
Both modules are then compiled for llvm-cpu and every public function is run on the same seeded
random inputs.

Two IREE 3.13 workarounds, both semantics-preserving. `iree-codegen-forall-to-for` yields the
loop-carried tensors in the order of the `tensor.parallel_insert_slice` ops in the terminator, not
in the order of `shared_outs`: with two or more outputs written out of order (which
`fuse_into_containing_op` does when a fused producer's result also leaves the loop), the results are
swapped from the second iteration on. The inserts are sorted by destination first. And a Linalg op
whose destination is a tensor slice (of the loop-carried tensor, or of an accumulator fill left
outside the loop), its result inserted into the loop-carried tensor, fails host-level compilation
when the op is a contraction (or a fill feeding one): "write affecting
operations on global resources are restricted to workgroup distributed contexts". Such ops get a
fresh destination: a `tensor.empty` when they do not read it, else a `linalg.copy` of the slice, and
reads of an `scf.forall`'s shared output read its initial value instead (what they mean in a forall).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..ir import PassManager, functions, ir, new_session, symbol_name

FORALL_TO_FOR = "builtin.module(func.func(iree-codegen-forall-to-for),canonicalize,cse)"


@dataclass(frozen=True)
class FunctionCheck:
    """One function compared: the largest absolute and relative differences over its outputs."""

    function: str
    ok: bool
    max_abs: float
    max_rel: float
    detail: str = ""


def forall_to_for(module: ir.Module) -> None:
    """Rewrite every `scf.forall` of `module` into nested `scf.for` (in place)."""
    _sort_parallel_inserts(module)
    _read_shared_outs_from_init(module)
    with module.context:
        PassManager.parse(FORALL_TO_FOR).run(module.operation)
    _fresh_destinations(module)


def _read_shared_outs_from_init(module: ir.Module) -> None:
    """Inside an `scf.forall` a shared output reads as its initial value (writes happen at the
    terminator), so every read of it (not an insert's destination) can read the init instead. After
    the rewrite into `scf.for`, tiles then read the tensor defined before the loop rather than the
    loop-carried one, which IREE's host-level compilation needs (see the module docstring)."""
    foralls: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "scf.forall":
            foralls.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for forall in foralls:
        inits = list(forall.opview.outputs)
        args = list(forall.regions[0].blocks[0].arguments)[-len(inits):] if inits else []
        for arg, init in zip(args, inits):
            for use in list(arg.uses):
                owner = use.owner
                if owner.name == "tensor.parallel_insert_slice" and use.operand_number == 1:
                    continue
                owner.operands[use.operand_number] = init


def _sort_parallel_inserts(module: ir.Module) -> None:
    """Order each `scf.forall.in_parallel`'s inserts by their `shared_outs` destination."""
    terminators: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "scf.forall.in_parallel":
            terminators.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for term in terminators:
        inserts = [o.operation for o in term.regions[0].blocks[0].operations]

        def dest(o: ir.Operation) -> int:
            v = o.operands[1]
            return ir.BlockArgument(v).arg_number if isinstance(v.owner, ir.Block) else -1

        ordered = sorted(inserts, key=dest)
        for prev, cur in zip(ordered, ordered[1:]):
            cur.move_after(prev)


def _fresh_destinations(module: ir.Module) -> None:
    """A Linalg op writing into a tensor slice (of the loop-carried tensor, or of a fill computed
    outside the loop) gets a fresh destination: a
    `tensor.empty` when it does not read its init (fill, elementwise generics), else a `linalg.copy`
    of the slice into one (a contraction's accumulator)."""
    from ..ir import linalg, tensor

    todo: list[tuple[ir.Operation, int]] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name.startswith("linalg.") and op.name != "linalg.yield":
            n_in = _num_inputs(op)
            for k in range(n_in, len(op.operands)):
                src = op.operands[k].owner
                if not isinstance(src, ir.Block) and src.name == "tensor.extract_slice":
                    todo.append((op, k))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op, k in todo:
        dest = op.operands[k]
        ttype = ir.RankedTensorType(dest.type)
        dyn = list(dest.owner.opview.sizes)  # the dynamic sizes, in the order of the `?` dims
        with op.location:
            ip = ir.InsertionPoint(op)
            sizes = [dyn.pop(0) if d == ir.ShapedType.get_dynamic_size() else d for d in ttype.shape]
            fresh = tensor.EmptyOp(sizes, ttype.element_type, ip=ip).result
            if _reads_init(op, k):
                with ip:
                    fresh = linalg.copy(dest, outs=[fresh])
        op.operands[k] = fresh


def _num_inputs(op: ir.Operation) -> int:
    """Inputs of a destination-style Linalg op: operands minus results (one init per result)."""
    return len(op.operands) - len(op.results)


def _reads_init(op: ir.Operation, k: int) -> bool:
    if op.name == "linalg.fill":
        return False
    if op.name == "linalg.generic":
        return any(True for _ in op.regions[0].blocks[0].arguments[k].uses)
    return True  # named contractions, convolutions, reductions accumulate into their init


def random_inputs(shapes: list[tuple[tuple[int, ...] | None, object]], seed: int) -> list[np.ndarray]:
    """Seeded inputs: standard normal floats, small integers, random booleans."""
    rng = np.random.default_rng(seed)
    out = []
    for shape, dtype in shapes:
        dt = np.dtype(dtype or np.float32)
        if dt == np.bool_:
            out.append(rng.integers(0, 2, size=shape).astype(np.bool_))
        elif np.issubdtype(dt, np.integer):
            out.append(rng.integers(-4, 5, size=shape).astype(dt))
        else:
            out.append(rng.standard_normal(size=shape).astype(dt))
    return out


def _public_functions(module: ir.Module) -> list[str]:
    names = []
    for f in functions(module):
        vis = f.attributes["sym_visibility"] if "sym_visibility" in f.attributes else None
        if vis is None or ir.StringAttr(vis).value == "public":
            names.append(symbol_name(f))
    return names


def compare(reference: ir.Module, candidate: ir.Module, *, target: str = "host", seed: int = 0,
            rtol: float = 1e-4, atol: float = 1e-5) -> list[FunctionCheck]:
    """Compile both modules (neither is modified) and compare every public function's outputs."""
    from ..backends.compile import compile_module
    from ..backends.runtime import load

    cand = ir.Module.parse(candidate.operation.get_asm(), candidate.context)
    forall_to_for(cand)
    ref_art = compile_module(reference, None, target, count_dispatches=False, source_name="<reference>")
    cand_art = compile_module(cand, None, target, count_dispatches=False, source_name="<transformed>")
    checks = []
    for k, name in enumerate(_public_functions(reference)):
        ref_run, cand_run = load(ref_art, entry=name), load(cand_art, entry=name)
        args = random_inputs(ref_run.inputs, seed + k)
        want, got = _as_tuple(ref_run(*args)), _as_tuple(cand_run(*args))
        checks.append(_compare_outputs(name, want, got, rtol, atol))
    return checks


def _as_tuple(x) -> tuple[np.ndarray, ...]:
    return x if isinstance(x, tuple) else (x,)


def _compare_outputs(name: str, want, got, rtol: float, atol: float) -> FunctionCheck:
    if len(want) != len(got):
        return FunctionCheck(name, False, float("inf"), float("inf"), f"{len(got)} outputs, expected {len(want)}")
    max_abs = max_rel = 0.0
    ok = True
    for i, (w, g) in enumerate(zip(want, got)):
        if w.shape != g.shape:
            return FunctionCheck(name, False, float("inf"), float("inf"), f"output {i}: shape {g.shape} != {w.shape}")
        w64, g64 = w.astype(np.float64), g.astype(np.float64)
        diff = np.abs(w64 - g64)
        max_abs = max(max_abs, float(diff.max(initial=0.0)))
        max_rel = max(max_rel, float((diff / np.maximum(np.abs(w64), 1e-30)).max(initial=0.0)))
        ok = ok and bool(np.allclose(g64, w64, rtol=rtol, atol=atol))
    return FunctionCheck(name, ok, max_abs, max_rel)


def check_transform(text: str, transform: Callable[[ir.Module], None], *, source_name: str = "<oracle>",
                    target: str = "host", seed: int = 0, rtol: float = 1e-4,
                    atol: float = 1e-5) -> list[FunctionCheck]:
    """Parse `text` twice, apply `transform` to one copy, compare the two (see `compare`)."""
    from ..importers import parse_mlir

    sess = new_session()
    try:
        reference = parse_mlir(text, sess.context, source_name)
        candidate = parse_mlir(text, sess.context, source_name)
        transform(candidate)
        return compare(reference, candidate, target=target, seed=seed, rtol=rtol, atol=atol)
    finally:
        sess.close()


def check_tile_and_fuse(text: str, *, fusion: str = "cost", target: str = "host", seed: int = 0,
                        source_name: str = "<oracle>", rtol: float = 1e-4,
                        atol: float = 1e-5) -> list[FunctionCheck]:
    """The oracle on fusion-opt's own tile-and-fuse of `text` (planned with `fusion`)."""
    from ..pipelines import plan_module
    from .tile_fuse import tile_and_fuse

    def apply(m: ir.Module) -> None:
        tile_and_fuse(m, plan_module(m, fusion, source_name, target), target, source_name)

    return check_transform(text, apply, source_name=source_name, seed=seed, rtol=rtol, atol=atol)


def check_script(text: str, script_path: str, *, seed: int = 0, source_name: str = "<oracle>",
                 rtol: float = 1e-4, atol: float = 1e-5) -> list[FunctionCheck]:
    """The oracle on a transform script file (a strategy or an edited `--emit=transform`)."""
    from .interpreter import apply_script, load_script

    def apply(m: ir.Module) -> None:
        apply_script(m, load_script(script_path, m.context), source_name=source_name, script_name=script_path)

    return check_transform(text, apply, source_name=source_name, seed=seed, rtol=rtol, atol=atol)
