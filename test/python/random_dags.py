"""Seeded random elementwise/matmul DAGs as MLIR text, for the tile-and-fuse numeric oracle.

Every value is an S0 x S1 f32 tensor; ops pick their operands among earlier values (a DAG with
multi-consumer producers); matmuls multiply by an S1 x S1 weight argument (accumulating into a
fill); a bias is a broadcast of an S1 vector argument. Bounded ops (tanh, scale, max) keep the
magnitudes small so a float difference means a wrong tile, not rounding.
"""
from __future__ import annotations

import random

UNARY = {"tanh": "math.tanh %v : f32", "neg": "arith.negf %v : f32", "abs": "math.absf %v : f32",
         "half": "arith.mulf %v, %half : f32"}
BINARY = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf", "max": "arith.maximumf"}
SHAPES = [(8, 16), (16, 32), (24, 48), (32, 64), (64, 32), (16, 96)]


def random_function(rng: random.Random, name: str, n_ops: int) -> str:
    s0, s1 = rng.choice(SHAPES)
    t, w, b = f"tensor<{s0}x{s1}xf32>", f"tensor<{s1}x{s1}xf32>", f"tensor<{s1}xf32>"
    args = [f"%x: {t}", f"%y: {t}", f"%w0: {w}", f"%w1: {w}", f"%b: {b}"]
    body = ["  %zero = arith.constant 0.0 : f32", "  %half = arith.constant 0.5 : f32",
            f"  %e = tensor.empty() : {t}"]
    values = ["%x", "%y"]
    consumed: set[str] = set()
    for i in range(n_ops):
        kind = rng.choices(["unary", "binary", "matmul", "bias"], weights=[4, 4, 2, 2])[0]
        a = rng.choice(values[-3:])  # mostly recent values: chains, with some fan-out
        out = f"%v{i}"
        if kind == "matmul":
            wt = rng.choice(["%w0", "%w1"])
            body.append(f"  %f{i} = linalg.fill ins(%zero : f32) outs(%e : {t}) -> {t}")
            body.append(f"  {out} = linalg.matmul ins({a}, {wt} : {t}, {w}) outs(%f{i} : {t}) -> {t}")
            consumed.add(a)
        elif kind == "bias":
            body.append(_generic(out, [(a, t, "#id"), ("%b", b, "#row")], t, "arith.addf %a0, %a1 : f32"))
            consumed.add(a)
        elif kind == "unary":
            op = rng.choice(list(UNARY))
            body.append(_generic(out, [(a, t, "#id")], t, UNARY[op].replace("%v", "%a0")))
            consumed.add(a)
        else:
            c = rng.choice(values)
            op = rng.choice(list(BINARY))
            body.append(_generic(out, [(a, t, "#id"), (c, t, "#id")], t, f"{BINARY[op]} %a0, %a1 : f32"))
            consumed.update((a, c))
        values.append(out)
    results = [values[-1]]
    extra = [v for v in values[2:-1] if v not in consumed]
    if extra:  # an op nobody reads is returned too (a second output)
        results.append(rng.choice(extra))
    ret_types = ", ".join([t] * len(results))
    return (f"func.func @{name}({', '.join(args)}) -> ({ret_types}) {{\n" + "\n".join(body)
            + f"\n  return {', '.join(results)} : {ret_types}\n}}\n")


def _generic(out: str, ins: list[tuple[str, str, str]], t: str, expr: str) -> str:
    maps = ", ".join(m for _, _, m in ins) + ", #id"
    names = ", ".join(v for v, _, _ in ins)
    types = ", ".join(ty for _, ty, _ in ins)
    bb = ", ".join(f"%a{k}: f32" for k in range(len(ins))) + ", %o: f32"
    return (f"  {out} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [\"parallel\", \"parallel\"]}}\n"
            f"      ins({names} : {types}) outs(%e : {t}) {{\n"
            f"  ^bb0({bb}):\n    %r = {expr}\n    linalg.yield %r : f32\n  }} -> {t}")


def random_module(seed: int, n_functions: int, min_ops: int = 3, max_ops: int = 9) -> str:
    """`n_functions` random DAG functions (@dag0, @dag1, ...) in one module."""
    rng = random.Random(seed)
    head = "#id = affine_map<(d0, d1) -> (d0, d1)>\n#row = affine_map<(d0, d1) -> (d1)>\n"
    return head + "\n".join(random_function(rng, f"dag{k}", rng.randint(min_ops, max_ops))
                            for k in range(n_functions))
