"""Op kinds of fuzz graphs: each writes its MLIR (Linalg on tensors) and computes its float64 reference
together with a bound on how far an f32 evaluation may be from it.

Why a bound instead of one tolerance: an f32 result differs from the float64 reference by rounding
that grows with the reduction length and with the magnitudes summed. The bound is a first-order
running error analysis (Higham, Accuracy and Stability of Numerical Algorithms, ch. 3): every f32
operation adds at most `U * |result|`, sums of n terms `gamma(n) * sum|terms|` in any order (so
IREE may split, vectorize or reassociate a reduction), and input errors are propagated through each
op's derivative bound. A long reduction thus gets a wide tolerance and an elementwise chain a tight
one, with no per-graph tuning, and a fusion bug (a wrong element read, a partial sum) stands out.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

U = 2.0 ** -24          # unit roundoff of f32
TRANS_ULPS = 16.0       # IREE's polynomial exp/tanh approximations: a few ulps, counted generously
NEG_INF = "0xFF800000"  # f32 -inf, as MLIR's hex float literal


def gamma(n: int) -> float:
    """Bound factor of an n-term f32 sum (any order)."""
    return n * U / (1.0 - n * U)


@dataclass(frozen=True)
class Bounded:
    """A float64 reference value `v` and a bound `e` on |f32 evaluation - v|, elementwise. `fold_k`: the value
    is a contraction's sum of `fold_k` products into a zero fill, which IREE may start from an addend instead
    when an add of it shares its dispatch (FoldAddIntoDest): each partial sum then rounds at the addend's
    magnitude (fuzz seed 19589: bias + 3 products, one ulp of 1.0 past the unfolded bound)."""

    v: np.ndarray
    e: np.ndarray
    fold_k: int | None = None


def ttype(shape: Sequence[int]) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def f32(c: float) -> float:
    """The f32 value MLIR will hold for the literal we print for `c`."""
    return float(np.float32(c))


def lit(c: float) -> str:
    """An f32 literal that parses back to exactly `f32(c)`."""
    c = f32(c)
    return NEG_INF if c == -math.inf else f"{c:.9e}"


def amap(n_dims: int, results: Sequence[str]) -> str:
    dims = ", ".join(f"d{i}" for i in range(n_dims))
    return f"affine_map<({dims}) -> ({', '.join(results)})>"


def map_text(n_dims: int, m: Sequence[int | None]) -> str:
    """A projected map: each result is a loop dim, or the constant 0 (a size-1 operand dim)."""
    return amap(n_dims, ["0" if k is None else f"d{k}" for k in m])


def view(a: np.ndarray, m: Sequence[int | None], space: Sequence[int]) -> np.ndarray:
    """Operand `a` read through map `m` over the loop space: broadcast to the space's shape."""
    a = a[tuple(0 if k is None else slice(None) for k in m)]
    ks = [k for k in m if k is not None]
    a = np.transpose(a, sorted(range(len(ks)), key=lambda j: ks[j]))
    shape = [space[d] if d in ks else 1 for d in range(len(space))]
    return np.broadcast_to(a.reshape(shape), tuple(space))


class Emitter:
    """Collects the function body's lines and hands out fresh SSA names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._n = 0

    def fresh(self, base: str) -> str:
        self._n += 1
        return f"{base}_{self._n}"

    def add(self, line: str) -> None:
        self.lines.append("  " + line)

    def empty(self, out: str, shape: Sequence[int]) -> str:
        name = self.fresh(out + "_e")
        self.add(f"{name} = tensor.empty() : {ttype(shape)}")
        return name

    def fill(self, out: str, shape: Sequence[int], value: float) -> str:
        e = self.empty(out, shape)
        c, f = self.fresh(out + "_c"), self.fresh(out + "_f")
        self.add(f"{c} = arith.constant {lit(value)} : f32")
        self.add(f"{f} = linalg.fill ins({c} : f32) outs({e} : {ttype(shape)}) -> {ttype(shape)}")
        return f

    def generic(self, out: str, n_dims: int, iters: Sequence[str], ins: Sequence[tuple[str, Sequence[int], str]],
                init: str, out_shape: Sequence[int], out_map: str, body: Sequence[str], result: str) -> None:
        """`ins`: (value, shape, map text); `body` lines may use %i0.. (inputs) and %o (accumulator)."""
        maps = ", ".join([m for _, _, m in ins] + [out_map])
        it = ", ".join(f'"{i}"' for i in iters)
        names = ", ".join(v for v, _, _ in ins)
        types = ", ".join(ttype(s) for _, s, _ in ins)
        args = ", ".join([f"%i{k}: f32" for k in range(len(ins))] + ["%o: f32"])
        ins_text = f"ins({names} : {types}) " if ins else ""
        self.add(f"{out} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{it}]}} "
                 f"{ins_text}outs({init} : {ttype(out_shape)}) {{")
        self.lines.append(f"  ^bb0({args}):")
        self.lines.extend("    " + b for b in body)
        self.lines.append(f"    linalg.yield {result} : f32")
        self.add(f"}} -> {ttype(out_shape)}")


@dataclass(frozen=True, eq=False)
class Op:
    """A node of a fuzz graph: `inputs` are indices of earlier nodes, `shape` its result's shape."""

    inputs: tuple[int, ...]
    shape: tuple[int, ...]
    kind: ClassVar[str] = "op"
    heavy: ClassVar[bool] = False  # a reduction/contraction: fusion may reorder its arithmetic

    def emit(self, em: Emitter, out: str, ins: list[str], shapes: list[tuple[int, ...]]) -> None:
        raise NotImplementedError

    def ref(self, ins: list[Bounded]) -> Bounded:
        raise NotImplementedError

    def with_inputs(self, inputs: tuple[int, ...]) -> Op:
        return replace(self, inputs=inputs)

    def describe(self) -> str:
        return self.kind


@dataclass(frozen=True, eq=False)
class Arg(Op):
    """A function argument; `data` is the f32 input the graph is run with."""

    data: np.ndarray = field(default_factory=lambda: np.zeros(()))
    kind: ClassVar[str] = "arg"

    def ref(self, ins: list[Bounded]) -> Bounded:
        return Bounded(self.data.astype(np.float64), np.zeros(self.shape))


@dataclass(frozen=True, eq=False)
class Const(Op):
    """A dense constant (weights), written as a hex literal so it round-trips exactly."""

    data: np.ndarray = field(default_factory=lambda: np.zeros(()))
    kind: ClassVar[str] = "const"

    def emit(self, em, out, ins, shapes):
        hexdata = np.ascontiguousarray(self.data, dtype="<f4").tobytes().hex().upper()
        em.add(f'{out} = arith.constant dense<"0x{hexdata}"> : {ttype(self.shape)}')

    def ref(self, ins):
        return Bounded(self.data.astype(np.float64), np.zeros(self.shape))


@dataclass(frozen=True, eq=False)
class Fill(Op):
    value: float = 0.0
    kind: ClassVar[str] = "fill"

    def emit(self, em, out, ins, shapes):
        e = em.empty(out, self.shape)
        c = em.fresh(out + "_c")
        em.add(f"{c} = arith.constant {lit(self.value)} : f32")
        em.add(f"{out} = linalg.fill ins({c} : f32) outs({e} : {ttype(self.shape)}) -> {ttype(self.shape)}")

    def ref(self, ins):
        return Bounded(np.full(self.shape, f32(self.value)), np.zeros(self.shape))

    def describe(self):
        return f"fill {self.value}"


# ---- elementwise expressions ---------------------------------------------------------------------
# An expression is a tuple tree: ("in", k) | ("const", c) | (unary, x) | (binary, x, y).
UNARY = ("tanh", "neg", "abs", "half", "relu", "sigmoid", "exp", "recip1p", "sqrt1p", "square")
BINARY = ("add", "sub", "mul", "max", "min")
_BIN_MLIR = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf", "max": "arith.maximumf",
             "min": "arith.minimumf"}
Expr = tuple


def _emit_expr(x: Expr, em: Emitter, body: list[str]) -> str:
    op = x[0]
    if op == "in":
        return f"%i{x[1]}"
    t = em.fresh("%t")
    if op == "const":
        body.append(f"{t} = arith.constant {lit(x[1])} : f32")
        return t
    if op in _BIN_MLIR:
        a, b = _emit_expr(x[1], em, body), _emit_expr(x[2], em, body)
        body.append(f"{t} = {_BIN_MLIR[op]} {a}, {b} : f32")
        return t
    a = _emit_expr(x[1], em, body)
    one = em.fresh("%one")
    simple = {"tanh": f"math.tanh {a} : f32", "neg": f"arith.negf {a} : f32", "abs": f"math.absf {a} : f32",
              "exp": f"math.exp {a} : f32"}
    if op in simple:
        body.append(f"{t} = {simple[op]}")
    elif op == "half":
        body += [f"{one} = arith.constant 5.000000000e-01 : f32", f"{t} = arith.mulf {a}, {one} : f32"]
    elif op == "relu":
        body += [f"{one} = arith.constant 0.000000000e+00 : f32", f"{t} = arith.maximumf {a}, {one} : f32"]
    elif op == "square":
        body.append(f"{t} = arith.mulf {a}, {a} : f32")
    elif op == "sigmoid":
        n, x1, d = em.fresh("%t"), em.fresh("%t"), em.fresh("%t")
        body += [f"{one} = arith.constant 1.000000000e+00 : f32", f"{n} = arith.negf {a} : f32",
                 f"{x1} = math.exp {n} : f32", f"{d} = arith.addf {x1}, {one} : f32",
                 f"{t} = arith.divf {one}, {d} : f32"]
    elif op in ("recip1p", "sqrt1p"):
        ab, d = em.fresh("%t"), em.fresh("%t")
        body += [f"{one} = arith.constant 1.000000000e+00 : f32", f"{ab} = math.absf {a} : f32",
                 f"{d} = arith.addf {ab}, {one} : f32"]
        body.append(f"{t} = arith.divf {one}, {d} : f32" if op == "recip1p" else f"{t} = math.sqrt {d} : f32")
    else:
        raise ValueError(f"unknown unary op {op}")
    return t


def eval_expr(x: Expr, ins: list[Bounded]) -> Bounded:
    """The expression in float64 with its error bound (first-order; each f32 op adds U * |result|)."""
    op = x[0]
    if op == "in":
        return ins[x[1]]
    if op == "const":
        c = f32(x[1])
        return Bounded(np.asarray(c), np.asarray(0.0))
    if op in _BIN_MLIR:
        a, b = eval_expr(x[1], ins), eval_expr(x[2], ins)
        if op in ("add", "sub"):
            v = a.v + b.v if op == "add" else a.v - b.v
            folded = sum(gamma(s.fold_k + 1) * np.abs(t.v) for s, t in ((a, b), (b, a)) if s.fold_k)
            return Bounded(v, a.e + b.e + U * np.abs(v) + folded)
        if op == "mul":
            v = a.v * b.v
            return Bounded(v, np.abs(a.v) * b.e + np.abs(b.v) * a.e + a.e * b.e + U * np.abs(v))
        v = np.maximum(a.v, b.v) if op == "max" else np.minimum(a.v, b.v)
        return Bounded(v, np.maximum(a.e, b.e))
    a = eval_expr(x[1], ins)
    tu = TRANS_ULPS * U
    if op == "neg":
        return Bounded(-a.v, a.e)
    if op == "abs":
        return Bounded(np.abs(a.v), a.e)
    if op == "half":
        return Bounded(a.v * 0.5, a.e * 0.5)
    if op == "relu":
        return Bounded(np.maximum(a.v, 0.0), a.e)
    if op == "square":
        v = a.v * a.v
        return Bounded(v, 2 * np.abs(a.v) * a.e + a.e * a.e + U * v)
    if op == "tanh":  # |tanh'| <= 1; the approximation's error is relative, plus a tiny absolute floor
        v = np.tanh(a.v)
        return Bounded(v, a.e + tu * (np.abs(v) + 1e-6))
    if op == "exp":
        v = np.exp(a.v)
        return Bounded(v, v * np.expm1(a.e) + tu * v)
    if op == "sigmoid":
        v = 1.0 / (1.0 + np.exp(-a.v))
        return Bounded(v, 0.25 * a.e + (tu + 3 * U) * v)
    if op == "recip1p":
        v = 1.0 / (1.0 + np.abs(a.v))
        return Bounded(v, a.e + 3 * U * v)
    if op == "sqrt1p":
        v = np.sqrt(1.0 + np.abs(a.v))
        return Bounded(v, 0.5 * a.e + 3 * U * v)
    raise ValueError(f"unknown unary op {op}")


def expr_text(x: Expr) -> str:
    if x[0] == "in":
        return f"x{x[1]}"
    if x[0] == "const":
        return repr(f32(x[1]))
    return f"{x[0]}(" + ", ".join(expr_text(a) for a in x[1:]) + ")"


@dataclass(frozen=True, eq=False)
class Elementwise(Op):
    """A linalg.generic with parallel loops over `shape`: inputs read through projected maps (broadcast
    along missing dims, size-1 dims read at 0, permuted dims: a transposed read)."""

    maps: tuple[tuple[int | None, ...], ...] = ()
    expr: Expr = ("in", 0)
    kind: ClassVar[str] = "elementwise"

    def emit(self, em, out, ins, shapes):
        r = len(self.shape)
        body: list[str] = []
        res = _emit_expr(self.expr, em, body)
        init = em.empty(out, self.shape)
        em.generic(out, r, ["parallel"] * r, [(v, s, map_text(r, m)) for v, s, m in zip(ins, shapes, self.maps)],
                   init, self.shape, map_text(r, range(r)), body, res)

    def ref(self, ins):
        # an addend folds into a contraction read in its own layout or transposed (IREE propagates transposes
        # until they cancel: fuzz seed 23106, a matmul read through (1, 0), transposed back, plus 3.0); not
        # into one read by a broadcast
        r = list(range(len(self.shape)))
        views = [Bounded(view(b.v, m, self.shape), view(b.e, m, self.shape),
                         b.fold_k if None not in m and sorted(m) == r else None)
                 for b, m in zip(ins, self.maps)]
        out = eval_expr(self.expr, views)
        return Bounded(np.broadcast_to(out.v, self.shape).copy(), np.broadcast_to(out.e, self.shape).copy())

    def describe(self):
        return f"elementwise {expr_text(self.expr)} maps {list(self.maps)}"


@dataclass(frozen=True, eq=False)
class Reduce(Op):
    """A linalg.generic reducing `dims` of its input (sum, max, mean, sum of squares; `dot`: sum of the
    product of two same-shaped inputs). The result drops the reduced dims."""

    dims: tuple[int, ...] = ()
    combiner: str = "sum"
    kind: ClassVar[str] = "reduction"
    heavy: ClassVar[bool] = True

    def emit(self, em, out, ins, shapes):
        space = shapes[0]
        r = len(space)
        kept = [d for d in range(r) if d not in self.dims]
        init = em.fill(out, self.shape, -math.inf if self.combiner == "max" else 0.0)
        body, term = [], "%i0"
        if self.combiner in ("mean", "sumsq", "dot"):
            term = em.fresh("%t")
            if self.combiner == "mean":
                c = em.fresh("%t")
                body += [f"{c} = arith.constant {lit(1.0 / self._n(space))} : f32",
                         f"{term} = arith.mulf %i0, {c} : f32"]
            else:
                body.append(f"{term} = arith.mulf %i0, {'%i1' if self.combiner == 'dot' else '%i0'} : f32")
        acc = em.fresh("%t")
        body.append(f"{acc} = {'arith.maximumf' if self.combiner == 'max' else 'arith.addf'} {term}, %o : f32")
        iters = ["reduction" if d in self.dims else "parallel" for d in range(r)]
        ident = map_text(r, range(r))
        em.generic(out, r, iters, [(v, s, ident) for v, s in zip(ins, shapes)], init, self.shape,
                   map_text(r, kept), body, acc)

    def _n(self, space: Sequence[int]) -> int:
        return math.prod(space[d] for d in self.dims)

    def ref(self, ins):
        x = ins[0]
        ax = self.dims
        if self.combiner == "max":
            return Bounded(np.max(x.v, axis=ax), np.max(x.e, axis=ax))
        n = self._n(x.v.shape)
        if self.combiner == "mean":
            c = f32(1.0 / n)
            t = Bounded(x.v * c, abs(c) * x.e + U * np.abs(x.v * c))
        elif self.combiner == "sum":
            t = x
        else:
            y = ins[1] if self.combiner == "dot" else x
            v = x.v * y.v
            t = Bounded(v, np.abs(x.v) * y.e + np.abs(y.v) * x.e + x.e * y.e + U * np.abs(v))
        v = np.sum(t.v, axis=ax)
        return Bounded(v, np.sum(t.e, axis=ax) + gamma(n) * np.sum(np.abs(t.v), axis=ax) + U * np.abs(v))

    def describe(self):
        return f"reduce {self.combiner} over dims {list(self.dims)}"


@dataclass(frozen=True, eq=False)
class Matmul(Op):
    """linalg.matmul (2-D) or linalg.batch_matmul (3-D); accumulating into a fill of `init`, or into a
    third input (a value of the graph: the accumulator has a producer)."""

    init: float = 0.0
    kind: ClassVar[str] = "contraction"
    heavy: ClassVar[bool] = True

    def emit(self, em, out, ins, shapes):
        acc = ins[2] if len(ins) > 2 else em.fill(out, self.shape, self.init)
        name = "linalg.batch_matmul" if len(self.shape) == 3 else "linalg.matmul"
        em.add(f"{out} = {name} ins({ins[0]}, {ins[1]} : {ttype(shapes[0])}, {ttype(shapes[1])}) "
               f"outs({acc} : {ttype(self.shape)}) -> {ttype(self.shape)}")

    def ref(self, ins):
        a, b = ins[0], ins[1]
        k = a.v.shape[-1]
        c = ins[2] if len(ins) > 2 else Bounded(np.full(self.shape, f32(self.init)), np.zeros(self.shape))
        v = c.v + a.v @ b.v
        mag = np.abs(c.v) + np.abs(a.v) @ np.abs(b.v)
        e = c.e + a.e @ np.abs(b.v) + np.abs(a.v) @ b.e + a.e @ b.e + gamma(k + 1) * mag
        return Bounded(v, e, k if len(ins) == 2 and self.init == 0.0 else None)

    def describe(self):
        return ("batch_matmul" if len(self.shape) == 3 else "matmul") + (" +acc" if len(self.inputs) > 2 else "")


def _windows(x: np.ndarray, kh: int, kw: int, stride: tuple[int, int], dil: tuple[int, int],
             oh: int, ow: int):
    """(i, j, x[..., window tap (i, j) for every output position]) for NCHW input x."""
    for i in range(kh):
        for j in range(kw):
            h0, w0 = i * dil[0], j * dil[1]
            hs = slice(h0, h0 + stride[0] * (oh - 1) + 1, stride[0])
            yield i, j, x[:, :, hs, w0:w0 + stride[1] * (ow - 1) + 1:stride[1]]


@dataclass(frozen=True, eq=False)
class Conv(Op):
    """linalg.conv_2d_nchw_fchw, or linalg.depthwise_conv_2d_nchw_chw, into a zero fill."""

    strides: tuple[int, int] = (1, 1)
    dilations: tuple[int, int] = (1, 1)
    depthwise: bool = False
    kind: ClassVar[str] = "convolution"
    heavy: ClassVar[bool] = True

    def emit(self, em, out, ins, shapes):
        acc = em.fill(out, self.shape, 0.0)
        name = "linalg.depthwise_conv_2d_nchw_chw" if self.depthwise else "linalg.conv_2d_nchw_fchw"
        em.add(f"{out} = {name} {{dilations = dense<[{self.dilations[0]}, {self.dilations[1]}]> : tensor<2xi64>, "
               f"strides = dense<[{self.strides[0]}, {self.strides[1]}]> : tensor<2xi64>}} "
               f"ins({ins[0]}, {ins[1]} : {ttype(shapes[0])}, {ttype(shapes[1])}) "
               f"outs({acc} : {ttype(self.shape)}) -> {ttype(self.shape)}")

    def ref(self, ins):
        x, w = ins
        oh, ow = self.shape[2], self.shape[3]
        kh, kw = w.v.shape[-2], w.v.shape[-1]
        v, e, mag = (np.zeros(self.shape) for _ in range(3))
        taps = zip(_windows(x.v, kh, kw, self.strides, self.dilations, oh, ow),
                   _windows(x.e, kh, kw, self.strides, self.dilations, oh, ow))
        for (i, j, xs), (_, _, es) in taps:
            if self.depthwise:
                wt, we = w.v[None, :, i, j, None, None], w.e[None, :, i, j, None, None]
                v += xs * wt
                mag += np.abs(xs) * np.abs(wt)
                e += es * np.abs(wt) + np.abs(xs) * we + es * we
            else:
                wt, we = w.v[:, :, i, j], w.e[:, :, i, j]
                v += np.einsum("nchw,fc->nfhw", xs, wt)
                mag += np.einsum("nchw,fc->nfhw", np.abs(xs), np.abs(wt))
                e += (np.einsum("nchw,fc->nfhw", es, np.abs(wt)) + np.einsum("nchw,fc->nfhw", np.abs(xs), we)
                      + np.einsum("nchw,fc->nfhw", es, we))
        k = kh * kw * (1 if self.depthwise else x.v.shape[1])
        return Bounded(v, e + gamma(k + 1) * mag, k)

    def describe(self):
        return f"{'depthwise ' if self.depthwise else ''}conv strides {self.strides} dilations {self.dilations}"


@dataclass(frozen=True, eq=False)
class Pool(Op):
    """linalg.pooling_nchw_max / pooling_nchw_sum over a `window` (an empty window tensor operand)."""

    window: tuple[int, int] = (2, 2)
    strides: tuple[int, int] = (1, 1)
    combiner: str = "max"
    kind: ClassVar[str] = "pool"
    heavy: ClassVar[bool] = True

    def emit(self, em, out, ins, shapes):
        acc = em.fill(out, self.shape, -math.inf if self.combiner == "max" else 0.0)
        win = em.fresh(out + "_w")
        em.add(f"{win} = tensor.empty() : {ttype(self.window)}")
        em.add(f"{out} = linalg.pooling_nchw_{self.combiner} {{dilations = dense<1> : tensor<2xi64>, "
               f"strides = dense<[{self.strides[0]}, {self.strides[1]}]> : tensor<2xi64>}} "
               f"ins({ins[0]}, {win} : {ttype(shapes[0])}, {ttype(self.window)}) "
               f"outs({acc} : {ttype(self.shape)}) -> {ttype(self.shape)}")

    def ref(self, ins):
        x = ins[0]
        oh, ow = self.shape[2], self.shape[3]
        taps = list(_windows(x.v, *self.window, self.strides, (1, 1), oh, ow))
        etaps = list(_windows(x.e, *self.window, self.strides, (1, 1), oh, ow))
        if self.combiner == "max":
            return Bounded(np.max([t for _, _, t in taps], axis=0), np.max([t for _, _, t in etaps], axis=0))
        v = np.sum([t for _, _, t in taps], axis=0)
        mag = np.sum([np.abs(t) for _, _, t in taps], axis=0)
        return Bounded(v, np.sum([t for _, _, t in etaps], axis=0) + gamma(len(taps)) * mag)

    def describe(self):
        return f"pool {self.combiner} window {self.window} strides {self.strides}"


@dataclass(frozen=True, eq=False)
class Stencil(Op):
    """A linalg.generic reading its input at d_last + t (t > 0) for each tap t, with constant weights: a
    1-D window along the last dim at positive offsets, which fusion must not tile through."""

    taps: tuple[tuple[int, float], ...] = ((0, 1.0),)
    kind: ClassVar[str] = "stencil"
    heavy: ClassVar[bool] = True

    def emit(self, em, out, ins, shapes):
        r = len(self.shape)
        res = ["d%d" % d for d in range(r - 1)]
        maps = [amap(r, res + [f"d{r - 1} + {t}" if t else f"d{r - 1}"]) for t, _ in self.taps]
        body, acc = [], None
        for k, (_, w) in enumerate(self.taps):
            c, p = em.fresh("%t"), em.fresh("%t")
            body += [f"{c} = arith.constant {lit(w)} : f32", f"{p} = arith.mulf %i{k}, {c} : f32"]
            if acc is not None:
                s = em.fresh("%t")
                body.append(f"{s} = arith.addf {acc}, {p} : f32")
                p = s
            acc = p
        init = em.empty(out, self.shape)
        em.generic(out, r, ["parallel"] * r, [(ins[0], shapes[0], m) for m in maps], init, self.shape,
                   map_text(r, range(r)), body, acc)

    def ref(self, ins):
        x = ins[0]
        n = self.shape[-1]
        v, e, mag = (np.zeros(self.shape) for _ in range(3))
        for t, w in self.taps:
            w = f32(w)
            xs, es = x.v[..., t:t + n], x.e[..., t:t + n]
            v += w * xs
            mag += abs(w) * np.abs(xs)
            e += abs(w) * es
        return Bounded(v, e + gamma(len(self.taps) + 1) * mag)

    def describe(self):
        return f"stencil taps {[t for t, _ in self.taps]}"


@dataclass(frozen=True, eq=False)
class Transpose(Op):
    perm: tuple[int, ...] = ()
    kind: ClassVar[str] = "transpose"

    def emit(self, em, out, ins, shapes):
        init = em.empty(out, self.shape)
        em.add(f"{out} = linalg.transpose ins({ins[0]} : {ttype(shapes[0])}) outs({init} : {ttype(self.shape)}) "
               f"permutation = [{', '.join(map(str, self.perm))}]")

    def ref(self, ins):
        return Bounded(np.transpose(ins[0].v, self.perm), np.transpose(ins[0].e, self.perm))

    def describe(self):
        return f"transpose {list(self.perm)}"


@dataclass(frozen=True, eq=False)
class Gather(Op):
    """A linalg.generic with no tensor input that reads its input inside the body (`tensor.extract`, as the
    ONNX importer writes a Gather of constant indices): input dim `at` (None: none) at index `index`, the
    other input dims, in order, read at the loop dims through `perm` (output dim k reads the perm[k]-th)."""

    perm: tuple[int, ...] = ()
    at: int | None = None
    index: int = 0
    kind: ClassVar[str] = "gather"

    def emit(self, em, out, ins, shapes):
        r, rank_in = len(self.shape), len(shapes[0])
        rest = [d for d in range(rank_in) if d != self.at]
        idx: list[str] = [""] * rank_in
        body = []
        for k, q in enumerate(self.perm):
            v = em.fresh("%t")
            body.append(f"{v} = linalg.index {k} : index")
            idx[rest[q]] = v
        if self.at is not None:
            c = em.fresh("%t")
            body.append(f"{c} = arith.constant {self.index} : index")
            idx[self.at] = c
        v = em.fresh("%t")
        body.append(f"{v} = tensor.extract {ins[0]}[{', '.join(idx)}] : {ttype(shapes[0])}")
        init = em.empty(out, self.shape)
        em.generic(out, r, ["parallel"] * r, [], init, self.shape, map_text(r, range(r)), body, v)

    def _take(self, a: np.ndarray) -> np.ndarray:
        return np.transpose(np.take(a, self.index, axis=self.at) if self.at is not None else a, self.perm)

    def ref(self, ins):
        return Bounded(self._take(ins[0].v), self._take(ins[0].e))

    def describe(self):
        return f"gather perm {list(self.perm)}" + (f" at dim {self.at} index {self.index}" if self.at is not None else "")


def _reassoc_text(groups: Sequence[Sequence[int]]) -> str:
    return "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"


@dataclass(frozen=True, eq=False)
class Reshape(Op):
    """tensor.collapse_shape (`expand` False) or tensor.expand_shape with reassociation `groups`
    (indices of the larger-rank side, one group per dim of the smaller-rank side)."""

    groups: tuple[tuple[int, ...], ...] = ()
    expand: bool = False
    kind: ClassVar[str] = "reshape"

    def emit(self, em, out, ins, shapes):
        if self.expand:
            em.add(f"{out} = tensor.expand_shape {ins[0]} {_reassoc_text(self.groups)} output_shape "
                   f"[{', '.join(map(str, self.shape))}] : {ttype(shapes[0])} into {ttype(self.shape)}")
        else:
            em.add(f"{out} = tensor.collapse_shape {ins[0]} {_reassoc_text(self.groups)} : "
                   f"{ttype(shapes[0])} into {ttype(self.shape)}")

    def ref(self, ins):
        return Bounded(ins[0].v.reshape(self.shape), ins[0].e.reshape(self.shape))

    def describe(self):
        return f"{'expand' if self.expand else 'collapse'} {list(self.groups)}"


@dataclass(frozen=True, eq=False)
class Pad(Op):
    low: tuple[int, ...] = ()
    high: tuple[int, ...] = ()
    value: float = 0.0
    kind: ClassVar[str] = "pad"

    def emit(self, em, out, ins, shapes):
        c = em.fresh(out + "_c")
        em.add(f"{c} = arith.constant {lit(self.value)} : f32")
        idx = ", ".join(f"%p{k}: index" for k in range(len(self.shape)))
        em.add(f"{out} = tensor.pad {ins[0]} low[{', '.join(map(str, self.low))}] "
               f"high[{', '.join(map(str, self.high))}] {{")
        em.lines.append(f"  ^bb0({idx}):")
        em.lines.append(f"    tensor.yield {c} : f32")
        em.add(f"}} : {ttype(shapes[0])} to {ttype(self.shape)}")

    def ref(self, ins):
        pw = list(zip(self.low, self.high))
        return Bounded(np.pad(ins[0].v, pw, constant_values=f32(self.value)), np.pad(ins[0].e, pw))

    def describe(self):
        return f"pad low {list(self.low)} high {list(self.high)} value {self.value}"


def strided_index(offsets: Sequence[int], sizes: Sequence[int], strides: Sequence[int]) -> tuple[slice, ...]:
    """numpy's index of `tensor.extract_slice` / `insert_slice` positions: `sizes` elements per dim from `offsets`
    by `strides`."""
    return tuple(slice(o, o + s * (n - 1) + 1, s) for o, n, s in zip(offsets, sizes, strides))


@dataclass(frozen=True, eq=False)
class Spread(Op):
    """The input spread out with zeros: a strided `tensor.insert_slice` into a zero fill, as torch-mlir imports
    ONNX ConvTranspose in front of its stride-1 conv (rewrites/conv_transpose.py)."""

    offsets: tuple[int, ...] = ()
    strides: tuple[int, ...] = ()
    kind: ClassVar[str] = "spread"

    def emit(self, em, out, ins, shapes):
        zeros = em.fill(out, self.shape, 0.0)
        em.add(f"{out} = tensor.insert_slice {ins[0]} into {zeros}[{', '.join(map(str, self.offsets))}] "
               f"[{', '.join(map(str, shapes[0]))}] [{', '.join(map(str, self.strides))}] : "
               f"{ttype(shapes[0])} into {ttype(self.shape)}")

    def ref(self, ins):
        v, e = np.zeros(self.shape), np.zeros(self.shape)
        at = strided_index(self.offsets, ins[0].v.shape, self.strides)
        v[at], e[at] = ins[0].v, ins[0].e
        return Bounded(v, e)

    def describe(self):
        return f"spread offsets {list(self.offsets)} strides {list(self.strides)}"


@dataclass(frozen=True, eq=False)
class Slice(Op):
    offsets: tuple[int, ...] = ()
    strides: tuple[int, ...] = ()
    kind: ClassVar[str] = "slice"

    def emit(self, em, out, ins, shapes):
        em.add(f"{out} = tensor.extract_slice {ins[0]}[{', '.join(map(str, self.offsets))}] "
               f"[{', '.join(map(str, self.shape))}] [{', '.join(map(str, self.strides))}] : "
               f"{ttype(shapes[0])} to {ttype(self.shape)}")

    def ref(self, ins):
        at = strided_index(self.offsets, self.shape, self.strides)
        return Bounded(ins[0].v[at], ins[0].e[at])

    def describe(self):
        return f"slice offsets {list(self.offsets)} strides {list(self.strides)}"


@dataclass(frozen=True, eq=False)
class Concat(Op):
    dim: int = 0
    kind: ClassVar[str] = "concat"

    def emit(self, em, out, ins, shapes):
        em.add(f"{out} = tensor.concat dim({self.dim}) {', '.join(ins)} : "
               f"({', '.join(ttype(s) for s in shapes)}) -> {ttype(self.shape)}")

    def ref(self, ins):
        return Bounded(np.concatenate([b.v for b in ins], axis=self.dim),
                       np.concatenate([b.e for b in ins], axis=self.dim))

    def describe(self):
        return f"concat dim {self.dim}"
