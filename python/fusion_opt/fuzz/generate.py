"""Seeded random fuzz graphs that cover the shapes fusion bugs hide in.

Why these shapes: the fusion bugs reported against IREE, XLA, Inductor and TVM (and the ones fuzzers
such as NNSmith found) cluster on a few patterns: a reduction feeding a consumer that broadcasts it
back (softmax, layernorm), producers with several consumers and diamonds (multi-output fusion,
cycles), horizontal siblings, transposes and reshapes between fused ops, pads in front of windows,
size-1 dimensions read at index 0, contractions and convolutions with epilogues, odd sizes that
leave remainder tiles. Each step of the generator either adds one random op reading recent values
(so chains, fan-out and diamonds form) or one of these motifs.

Values are kept where f32 comparisons are meaningful: inputs ~ N(0, 1), weights scaled by
1/sqrt(K), and any value whose magnitude exceeds MAX_MAG is squashed (tanh or a power-of-two scale)
before others read it; exp only sees arguments it cannot overflow on.
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

import numpy as np

from .graph import Graph
from .ops import (UNARY, Arg, Bounded, Concat, Const, Conv, Elementwise, Fill, Gather, Matmul, Op, Pad, Pool, Spread,
                  Reduce, Reshape, Slice, Stencil, Transpose)

DIMS = (1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 24, 31, 32)
MAX_NUMEL = 4096      # per value: graphs compile and run in well under a second
MAX_MAG = 64.0        # values above this are squashed before reuse
MAX_NODES = 28
RANK_WEIGHTS = {1: 2, 2: 4, 3: 2.5, 4: 1.5}


class Builder:
    """Grows one graph; every node's float64 reference is computed as it is added (for squashing)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        # Draws added after a campaign's seeds were published (transposed convs): their own stream, so that a
        # graph which draws none of them is the one the seed always gave
        self.rng2 = random.Random(seed ^ 0x5EED)
        self.np = np.random.default_rng(seed)
        self.seed = seed
        self.nodes: list[Op] = []
        self.vals: list[Bounded] = []

    # ---- values ------------------------------------------------------------------------------------
    def add(self, op: Op) -> int:
        self.vals.append(op.ref([self.vals[k] for k in op.inputs]))
        self.nodes.append(op)
        return len(self.nodes) - 1

    def shape(self, i: int) -> tuple[int, ...]:
        return self.nodes[i].shape

    def arg(self, shape: Sequence[int], scale: float = 1.0) -> int:
        data = np.asarray(self.np.standard_normal(tuple(shape)) * scale, dtype=np.float32)
        return self.add(Arg((), tuple(shape), data))

    def weight(self, shape: Sequence[int], fan_in: int) -> int:
        """A weight: a function argument, or (smaller ones, sometimes) a dense constant."""
        scale = 1.0 / math.sqrt(max(fan_in, 1))
        if math.prod(shape) <= 512 and self.rng.random() < 0.35:
            data = np.asarray(self.np.standard_normal(tuple(shape)) * scale, dtype=np.float32)
            return self.add(Const((), tuple(shape), data))
        return self.arg(shape, scale)

    def pick(self, ok: Callable[[tuple[int, ...]], bool] = lambda s: True) -> int | None:
        """A value (not a constant) whose shape passes `ok`, mostly a recent one."""
        pool = [i for i, n in enumerate(self.nodes) if not isinstance(n, Const) and ok(n.shape)]
        if not pool:
            return None
        return pool[max(0, len(pool) - 1 - int(self.rng.expovariate(0.6)))]

    def random_shape(self, rank: int | None = None, cap: int = MAX_NUMEL) -> tuple[int, ...]:
        rank = rank if rank is not None else self.rng.choices(list(RANK_WEIGHTS), list(RANK_WEIGHTS.values()))[0]
        while True:
            s = tuple(self.rng.choice(DIMS) for _ in range(rank))
            if math.prod(s) <= cap:
                return s

    def squash(self, i: int) -> int:
        """Keep magnitudes bounded: a large or non-finite-prone value goes through tanh or a 2^-k scale."""
        m = float(np.max(np.abs(self.vals[i].v))) if self.vals[i].v.size else 0.0
        if m <= MAX_MAG:
            return i
        r = len(self.shape(i))
        ident = (tuple(range(r)),)
        if self.rng.random() < 0.5:
            return self.add(Elementwise((i,), self.shape(i), ident, ("tanh", ("in", 0))))
        k = math.ceil(math.log2(m / 4.0))
        return self.add(Elementwise((i,), self.shape(i), ident, ("mul", ("in", 0), ("const", 2.0 ** -k))))

    # ---- elementwise ---------------------------------------------------------------------------------
    def _map_for(self, q: tuple[int, ...], space: tuple[int, ...],
                 permute: bool) -> tuple[int | None, ...] | None:
        """A projected map reading a value of shape q over `space`: dims matched to loop dims of equal
        size (in order, or any order when `permute`), size-1 dims read at 0 (sometimes)."""
        out: list[int | None] = []
        used: set[int] = set()
        last = -1
        for n in q:
            if n == 1 and self.rng.random() < 0.6:
                out.append(None)
                continue
            cands = [k for k in range(len(space)) if space[k] == n and k not in used and (permute or k > last)]
            if not cands:
                if n == 1:
                    out.append(None)
                    continue
                return None
            k = self.rng.choice(cands) if permute else cands[0]
            used.add(k)
            last = k
            out.append(k)
        return tuple(out)

    def _broadcast_operand(self, space: tuple[int, ...], exclude: int) -> tuple[int, tuple[int | None, ...]]:
        """Another operand for an op over `space`: a compatible value of the graph, or a new argument
        (or fill) of a broadcast shape."""
        r = len(space)
        if self.rng.random() < 0.65:
            order = list(range(len(self.nodes) - 1, -1, -1))
            self.rng.shuffle(order[:8])
            for q in order:
                n = self.nodes[q]
                if q == exclude or isinstance(n, Const) or len(n.shape) > r:
                    continue
                m = self._map_for(n.shape, space, permute=self.rng.random() < 0.15)
                if m is not None and self.rng.random() < 0.7:
                    return q, m
        keep = [k for k in range(r) if self.rng.random() < 0.6]
        shape, m = [], []
        for k in keep:
            if self.rng.random() < 0.15:
                shape.append(1)
                m.append(None)
            else:
                shape.append(space[k])
                m.append(k)
        if self.rng.random() < 0.1:
            return self.add(Fill((), tuple(shape), self.rng.choice((0.5, -1.0, 2.0)))), tuple(m)
        return self.arg(shape), tuple(m)

    def random_expr(self, n_in: int) -> tuple:
        leaves: list[tuple] = [("in", k) for k in range(n_in)]
        if self.rng.random() < 0.2:
            leaves.append(("const", self.rng.choice((0.5, 2.0, -1.5, 0.25, 3.0))))
        self.rng.shuffle(leaves)
        while len(leaves) > 1:
            a, b = leaves.pop(), leaves.pop()
            if self.rng.random() < 0.3:
                a = (self.rng.choice(UNARY), a)
            leaves.insert(0, (self.rng.choice(("add", "sub", "mul", "max", "min", "add", "mul")), a, b))
        e = leaves[0]
        for _ in range(self.rng.choice((0, 1, 1, 2)) if n_in > 1 else self.rng.choice((1, 1, 2))):
            e = (self.rng.choice(UNARY), e)
        return e

    def elementwise(self, p: int | None = None, n_in: int | None = None, expr: tuple | None = None) -> int | None:
        p = p if p is not None else self.pick()
        if p is None:
            return None
        s = self.shape(p)
        r = len(s)
        space, pm = s, tuple(range(r))
        if r >= 2 and self.rng.random() < 0.15:  # iterate over a permuted space: a transposed read of p
            perm = self.rng.sample(range(r), r)
            space = tuple(s[k] for k in perm)
            inv = [0] * r
            for k, j in enumerate(perm):
                inv[j] = k
            pm = tuple(inv)
        pm = tuple(None if s[j] == 1 and self.rng.random() < 0.3 else k for j, k in enumerate(pm))
        n_in = n_in if n_in is not None else self.rng.choice((1, 2, 2, 2, 3))
        ins, maps = [p], [pm]
        for _ in range(n_in - 1):
            q, m = self._broadcast_operand(space, p)
            ins.append(q)
            maps.append(m)
        order = list(range(len(ins)))
        self.rng.shuffle(order)
        e = expr if expr is not None else self.random_expr(len(ins))
        if expr is not None:
            order = list(range(len(ins)))
        remap = {old: new for new, old in enumerate(order)}
        op = Elementwise(tuple(ins[k] for k in order), space, tuple(maps[k] for k in order), _rename(e, remap))
        return self._tame_add(op)

    def _tame_add(self, op: Elementwise) -> int | None:
        ref = op.ref([self.vals[k] for k in op.inputs])
        if not (np.all(np.isfinite(ref.v)) and np.max(np.abs(ref.v), initial=0) < 1e4):
            op = Elementwise(op.inputs, op.shape, op.maps, _tame(op.expr))
            ref = op.ref([self.vals[k] for k in op.inputs])
            if not (np.all(np.isfinite(ref.v)) and np.max(np.abs(ref.v), initial=0) < 1e4):
                return None
        return self.squash(self.add(op))

    # ---- heavy ops and motifs ---------------------------------------------------------------------------
    def reduce(self, p: int | None = None, dims: tuple[int, ...] | None = None, combiner: str | None = None,
               keepdim: bool | None = None) -> int | None:
        p = p if p is not None else self.pick(lambda s: len(s) >= 1)
        if p is None:
            return None
        s = self.shape(p)
        r = len(s)
        if dims is None:
            u = self.rng.random()
            dims = ((r - 1,) if u < 0.45 else (0,) if u < 0.6 else tuple(range(r)) if u < 0.7
                    else tuple(sorted(self.rng.sample(range(r), self.rng.randint(1, r)))))
        combiner = combiner or self.rng.choice(("sum", "sum", "max", "mean", "sumsq", "dot"))
        ins: tuple[int, ...] = (p,)
        if combiner == "dot":
            q = self.pick(lambda t: t == s)
            ins = (p, q if q is not None and q != p and self.rng.random() < 0.7 else self.arg(s))
        out = tuple(n for d, n in enumerate(s) if d not in dims)
        i = self.squash(self.add(Reduce(ins, out, dims, combiner)))
        keepdim = keepdim if keepdim is not None else self.rng.random() < 0.25
        if keepdim and out:  # re-insert the reduced dims as size 1 (an expand_shape between ops)
            target = tuple(1 if d in dims else n for d, n in enumerate(s))
            i = self.add(Reshape((i,), target, _unit_groups(target, dims), expand=True))
        return i

    def reduce_broadcast(self) -> int | None:
        """A reduction whose result is broadcast back over its input's space (x - mean(x), x * max(x))."""
        p = self.pick(lambda s: len(s) >= 1 and math.prod(s) > 1)
        if p is None:
            return None
        s = self.shape(p)
        r = self.reduce(p, keepdim=False if self.rng.random() < 0.6 else None)
        if r is None:
            return None
        expr = self.rng.choice([("sub", ("in", 0), ("in", 1)), ("mul", ("in", 0), ("recip1p", ("in", 1))),
                                ("add", ("in", 0), ("in", 1)), ("max", ("in", 0), ("tanh", ("in", 1)))])
        m = self._map_for(self.shape(r), s, permute=False)
        if m is None:
            return None
        return self._tame_add(Elementwise((p, r), s, (tuple(range(len(s))), m), expr))

    def softmax(self) -> int | None:
        p = self.pick(lambda s: len(s) >= 1 and s[-1] > 1)
        if p is None:
            return None
        s = self.shape(p)
        r = len(s)
        d = (r - 1,) if self.rng.random() < 0.8 else (0,)
        keep = tuple(k for k in range(r) if k not in d)
        mx = self.add(Reduce((p,), tuple(s[k] for k in keep), d, "max"))
        ex = self.add(Elementwise((p, mx), s, (tuple(range(r)), keep), ("exp", ("sub", ("in", 0), ("in", 1)))))
        z = self.add(Reduce((ex,), tuple(s[k] for k in keep), d, "sum"))
        return self.add(Elementwise((ex, z), s, (tuple(range(r)), keep),
                                    ("mul", ("in", 0), ("recip1p", ("in", 1)))))

    def layernorm(self) -> int | None:
        p = self.pick(lambda s: len(s) >= 1 and s[-1] > 1)
        if p is None:
            return None
        s = self.shape(p)
        r = len(s)
        d = (r - 1,)
        keep = tuple(range(r - 1))
        red = tuple(s[:-1])
        mu = self.add(Reduce((p,), red, d, "mean"))
        dev = self.add(Elementwise((p, mu), s, (tuple(range(r)), keep), ("sub", ("in", 0), ("in", 1))))
        var = self.add(Reduce((dev,), red, d, "sumsq"))
        g = self.arg((s[-1],))
        return self._tame_add(Elementwise((dev, var, g), s, (tuple(range(r)), keep, (r - 1,)),
                                          ("mul", ("mul", ("in", 0), ("recip1p", ("in", 1))), ("in", 2))))

    def matmul(self) -> int | None:
        a = self.pick(lambda s: len(s) in (2, 3) and s[-1] <= 64)
        if a is None or self.rng.random() < 0.25:
            a = self.arg(self.random_shape(self.rng.choice((2, 2, 3)), cap=1024))
        s = self.shape(a)
        k = s[-1]
        batch = s[:-2]
        m = s[-2]
        n = self.rng.choice([d for d in DIMS if m * d * math.prod(batch) <= MAX_NUMEL and d * k <= 2048] or [1])
        bshape = (*batch, k, n)
        siblings = 1 if batch or self.rng.random() > 0.25 else self.rng.choice((2, 3))
        outs = []
        for _ in range(siblings):
            u = self.rng.random()
            if siblings > 1:  # stackable siblings: one input, constant weights of one type, zero init
                data = (self.np.standard_normal(bshape) / math.sqrt(k)).astype(np.float32)
                b = self.add(Const((), bshape, data))
            elif u < 0.15 and (q := self.pick(lambda t: t == bshape)) is not None and q != a:
                b = q
            elif u < 0.3 and not batch and (q := self.pick(lambda t: t == (n, k))) is not None:
                b = self.add(Transpose((q,), bshape, (1, 0)))
            else:
                b = self.weight(bshape, k)
            out = (*batch, m, n)
            if siblings == 1 and self.rng.random() < 0.15:
                acc = self.pick(lambda t: t == out)
                acc = acc if acc is not None and acc not in (a, b) else self.arg(out)
                i = self.add(Matmul((a, b, acc), out))
            else:
                i = self.add(Matmul((a, b), out, 0.0 if siblings > 1 or self.rng.random() < 0.85 else 0.5))
            i = self.squash(i)
            if self.rng.random() < 0.6:
                i = self.epilogue(i, bias_dim=len(out) - 1)
            outs.append(i)
        if len(outs) > 1 and self.rng.random() < 0.5:
            r = len(self.shape(outs[0]))
            ident = tuple(range(r))
            return self._tame_add(Elementwise(tuple(outs[:2]), self.shape(outs[0]), (ident, ident),
                                              ("add", ("in", 0), ("in", 1))))
        return outs[-1]

    def epilogue(self, i: int, bias_dim: int) -> int:
        """Bias along `bias_dim` and/or an activation: the ops fused after a contraction or convolution."""
        s = self.shape(i)
        r = len(s)
        ins, maps = [i], [tuple(range(r))]
        e: tuple = ("in", 0)
        if self.rng.random() < 0.7:
            ins.append(self.weight((s[bias_dim],), 1))
            maps.append((bias_dim,))
            e = ("add", e, ("in", 1))
        if self.rng.random() < 0.7:
            e = (self.rng.choice(("relu", "tanh", "sigmoid", "abs")), e)
        if len(ins) == 1 and e == ("in", 0):
            e = ("relu", e)
        out = self._tame_add(Elementwise(tuple(ins), s, tuple(maps), e))
        return out if out is not None else i

    def conv(self) -> int | None:
        if self.rng2.random() < 0.2 and (spread := self.transposed_conv()) is not None:
            return spread  # (None drew nothing from the main streams: the conv below is the seed's old one)
        x = self.pick(lambda s: len(s) == 4 and s[2] >= 2 and s[3] >= 2 and s[1] <= 16)
        if x is None or self.rng.random() < 0.3:
            x = self.arg((self.rng.choice((1, 1, 2)), self.rng.choice((1, 2, 3, 4, 8)),
                          self.rng.randint(3, 11), self.rng.randint(3, 11)))
        n, c, h, w = self.shape(x)
        if self.rng.random() < 0.5:  # pad in front of the window
            ph, pw = self.rng.choice((1, 1, 2)), self.rng.choice((0, 1))
            val = 0.0 if self.rng.random() < 0.8 else -0.5
            x = self.add(Pad((x,), (n, c, h + 2 * ph, w + 2 * pw), (0, 0, ph, pw), (0, 0, ph, pw), val))
            h, w = h + 2 * ph, w + 2 * pw
        kh, kw = self.rng.choice((1, 2, 3)), self.rng.choice((1, 2, 3))
        st = (self.rng.choice((1, 1, 2)), self.rng.choice((1, 1, 2)))
        dl = (self.rng.choice((1, 1, 2)), self.rng.choice((1, 1, 2)))
        oh, ow = (h - dl[0] * (kh - 1) - 1) // st[0] + 1, (w - dl[1] * (kw - 1) - 1) // st[1] + 1
        if oh < 1 or ow < 1:
            return None
        u = self.rng.random()
        if u < 0.15:
            out = (n, c, (h - kh) // st[0] + 1, (w - kw) // st[1] + 1)
            return self.add(Pool((x,), out, (kh, kw), st, self.rng.choice(("max", "sum"))))
        if u < 0.35:
            wt = self.weight((c, kh, kw), kh * kw)
            i = self.add(Conv((x, wt), (n, c, oh, ow), st, dl, depthwise=True))
        else:
            f = self.rng.choice((1, 2, 3, 4, 8, 16))
            wt = self.weight((f, c, kh, kw), c * kh * kw)
            i = self.add(Conv((x, wt), (n, f, oh, ow), st, dl))
        i = self.squash(i)
        return self.epilogue(i, bias_dim=1) if self.rng.random() < 0.6 else i

    def transposed_conv(self) -> int | None:
        """A conv over a fresh input spread out with zeros (ONNX ConvTranspose as imported): stride s per dim,
        kernel k >= s (mostly), offset k - 1 - pad, output padding below s; images up to twice `MAX_NUMEL`, so
        that some phase convs of `conv-transpose-phases` have a vector of rows."""
        r = self.rng2
        n, c, f = r.choice((1, 1, 1, 2)), r.choice((1, 2, 3)), r.choice((1, 2, 3))
        h, w = r.randint(12, 18), r.randint(12, 18)
        s = (r.choice((2, 2, 3)), r.choice((1, 2, 2, 2)))
        k = tuple(r.choice((si, si + 1, 2 * si)) if r.random() < 0.9 else 1 for si in s)
        lo = tuple(r.randint(0, ki - 1) for ki in k)
        hi = tuple(lo_i + r.randint(0, si - 1) for lo_i, si in zip(lo, s))
        spread = (n, c, *(l + (x - 1) * si + 1 + hh for l, x, si, hh in zip(lo, (h, w), s, hi)))
        out = (n, f, spread[2] - k[0] + 1, spread[3] - k[1] + 1)
        if math.prod(spread) > 2 * MAX_NUMEL or math.prod(out) > 2 * MAX_NUMEL or min(out[2:]) < 1:
            return None
        x = self.arg((n, c, h, w))
        z = self.add(Spread((x,), spread, (0, 0, *lo), (1, 1, *s)))
        wt = self.weight((f, c, *k), c * math.ceil(k[0] / s[0]) * math.ceil(k[1] / s[1]))
        i = self.squash(self.add(Conv((z, wt), out, (1, 1), (1, 1))))
        return self.epilogue(i, bias_dim=1) if r.random() < 0.6 else i

    def transpose(self) -> int | None:
        p = self.pick(lambda s: len(s) >= 2)
        return None if p is None else self.transpose_of(p)

    def transpose_of(self, p: int) -> int:
        s = self.shape(p)
        perm = tuple(range(len(s)))
        while perm == tuple(range(len(s))):
            perm = tuple(self.rng.sample(range(len(s)), len(s)))
        return self.add(Transpose((p,), tuple(s[k] for k in perm), perm))

    def reshape(self) -> int | None:
        p = self.pick(lambda s: 1 <= len(s) <= 4)
        if p is None:
            return None
        s = self.shape(p)
        r = len(s)
        if r >= 2 and self.rng.random() < 0.5:  # collapse a run of adjacent dims
            a = self.rng.randrange(r - 1)
            b = self.rng.randint(a + 1, r - 1)
            groups = [(k,) for k in range(a)] + [tuple(range(a, b + 1))] + [(k,) for k in range(b + 1, r)]
            shape = tuple(math.prod(s[g[0]:g[-1] + 1]) for g in groups)
            return self.add(Reshape((p,), shape, tuple(groups)))
        if r >= 4:
            return None
        d = self.rng.randrange(r)
        factors = [k for k in range(2, s[d]) if s[d] % k == 0]
        if factors and self.rng.random() < 0.6:
            k = self.rng.choice(factors)
            split = (k, s[d] // k)
        else:  # a unit dim before or after
            split = (1, s[d]) if self.rng.random() < 0.5 else (s[d], 1)
        shape = s[:d] + split + s[d + 1:]
        groups = [(k,) for k in range(d)] + [(d, d + 1)] + [(k + 1,) for k in range(d + 1, r)]
        return self.add(Reshape((p,), shape, tuple(groups), expand=True))

    def pad(self) -> int | None:
        p = self.pick(lambda s: 1 <= len(s) and math.prod(s) <= MAX_NUMEL // 4)
        if p is None:
            return None
        s = self.shape(p)
        low = tuple(self.rng.choice((0, 0, 1, 2)) for _ in s)
        high = tuple(self.rng.choice((0, 0, 1, 2)) for _ in s)
        if not any(low) and not any(high):
            high = high[:-1] + (1,)
        out = tuple(n + a + b for n, a, b in zip(s, low, high))
        i = self.add(Pad((p,), out, low, high, self.rng.choice((0.0, 0.0, 0.5, -1.0))))
        if self.rng.random() < 0.7:  # something reads the padded value (a window or a plain consumer)
            j = self.stencil(i) if self.rng.random() < 0.5 else self.elementwise(i, n_in=self.rng.choice((1, 2)))
            return j if j is not None else i
        return i

    def stencil(self, p: int | None = None) -> int | None:
        p = p if p is not None else self.pick(lambda s: len(s) >= 1 and s[-1] >= 4)
        if p is None or self.shape(p)[-1] < 4:
            return None
        s = self.shape(p)
        # One tap, not at offset 0: an input read at plain d_last would make MLIR infer the loop's range
        # from the input's (longer) extent; two offset reads of one operand crash IREE 3.13 even unfused
        # (test/fuzz/iree/stencil-two-taps.mlir), which says nothing about fusion.
        offs = [self.rng.choice((1, 2, 3))]
        taps = tuple((t, self.rng.choice((0.5, -1.0, 0.25, 1.5))) for t in offs)
        return self.add(Stencil((p,), s[:-1] + (s[-1] - offs[-1],), taps))

    def slice(self) -> int | None:
        p = self.pick(lambda s: len(s) >= 1 and max(s) > 1)
        if p is None:
            return None
        s = self.shape(p)
        offs, sizes, strides = [], [], []
        for n in s:
            st = 2 if n >= 3 and self.rng.random() < 0.3 else 1
            size = self.rng.randint(1, (n - 1) // st + 1)
            off = self.rng.randint(0, n - (st * (size - 1) + 1))
            offs.append(off)
            sizes.append(size)
            strides.append(st)
        return self.add(Slice((p,), tuple(sizes), tuple(offs), tuple(strides)))

    def gather(self) -> int | None:
        """A read inside a body (`tensor.extract`) of a value, half the time of a fresh transpose of it (as
        PyTorch's attention splits q, k, v): a permutation of the loop dims, maybe one dim at a constant."""
        p = self.pick(lambda s: 1 <= len(s) <= 4)
        if p is None:
            return None
        if len(self.shape(p)) >= 2 and self.rng.random() < 0.5:
            p = self.transpose_of(p)
        s = self.shape(p)
        at = self.rng.randrange(len(s)) if len(s) >= 2 and self.rng.random() < 0.5 else None
        rest = [d for d in range(len(s)) if d != at]
        perm = tuple(self.rng.sample(range(len(rest)), len(rest)))
        index = self.rng.randrange(s[at]) if at is not None else 0
        return self.add(Gather((p,), tuple(s[rest[q]] for q in perm), perm, at, index))

    def concat(self) -> int | None:
        p = self.pick(lambda s: len(s) >= 1 and math.prod(s) <= MAX_NUMEL // 2)
        if p is None:
            return None
        s = self.shape(p)
        d = self.rng.randrange(len(s))
        q = self.pick(lambda t: len(t) == len(s) and all(a == b for k, (a, b) in enumerate(zip(s, t)) if k != d)
                      and math.prod(t) <= MAX_NUMEL // 2)
        if q is None or self.rng.random() < 0.3:
            q = p if self.rng.random() < 0.5 else self.arg(s)
        out = tuple(a + b if k == d else a for k, (a, b) in enumerate(zip(s, self.shape(q))))
        return self.add(Concat((p, q), out, d))

    def diamond(self) -> int | None:
        """a -> b1, a -> b2, (b1, b2) -> c; one branch sometimes goes through ops that cannot join a's
        group (a transpose and back, a matmul), so fusing a with c would need that branch too (a cycle)."""
        a = self.pick()
        if a is not None and isinstance(self.nodes[a], Arg):  # the fork is an op (one a group can hold)
            a = self.elementwise(a, n_in=1)
        if a is None:
            return None
        b1 = self.elementwise(a, n_in=1)
        s = self.shape(a)
        u = self.rng.random()
        if u < 0.3 and len(s) >= 2:
            perm = tuple(range(len(s) - 2)) + (len(s) - 1, len(s) - 2)
            t = self.add(Transpose((a,), tuple(s[k] for k in perm), perm))
            b2 = self.add(Transpose((t,), s, perm))
        elif u < 0.45 and len(s) == 2 and s[1] <= 64:
            b2 = self.add(Matmul((a, self.weight((s[1], s[1]), s[1])), s))
        elif u < 0.6:
            b2 = self.reduce_broadcast()
        else:
            b2 = self.elementwise(a, n_in=1)
        if b1 is None or b2 is None or self.shape(b1) != self.shape(b2):
            return b2
        r = len(self.shape(b1))
        ident = tuple(range(r))
        return self._tame_add(Elementwise((b1, b2), self.shape(b1), (ident, ident),
                                          (self.rng.choice(("add", "sub", "mul", "max")), ("in", 0), ("in", 1))))

    # ---- the graph -------------------------------------------------------------------------------------
    STEPS: tuple[tuple[str, float], ...] = (
        ("elementwise", 26), ("reduce", 8), ("reduce_broadcast", 10), ("softmax", 3), ("layernorm", 3),
        ("matmul", 11), ("conv", 7), ("transpose", 5), ("reshape", 6), ("pad", 5), ("stencil", 3),
        ("slice", 3), ("concat", 2), ("diamond", 8), ("gather", 3),
    )

    def build(self, steps: int) -> Graph:
        for _ in range(self.rng.choice((1, 1, 2))):
            self.arg(self.random_shape())
        names, weights = zip(*self.STEPS)
        for _ in range(steps):
            if len(self.nodes) >= MAX_NODES:
                break
            getattr(self, self.rng.choices(names, weights)[0])()
        return self.finish()

    def finish(self) -> Graph:
        consumed = {k for n in self.nodes for k in n.inputs}
        ops = [i for i, n in enumerate(self.nodes) if not isinstance(n, (Arg, Const))]
        if not ops:  # nothing grew: one elementwise op on the argument
            self.elementwise(0, n_in=1)
            return self.finish()
        sinks = [i for i in ops if i not in consumed]
        outs = sinks[-4:] if sinks else [ops[-1]]
        inner = [i for i in ops if i in consumed and i not in outs]
        if inner and self.rng.random() < 0.35:  # an intermediate that is also returned (escapes its group)
            outs.insert(self.rng.randrange(len(outs) + 1), self.rng.choice(inner))
        return Graph(tuple(self.nodes), tuple(outs), self.seed).pruned()


def _rename(e: tuple, remap: dict[int, int]) -> tuple:
    if e[0] == "in":
        return ("in", remap[e[1]])
    if e[0] == "const":
        return e
    return (e[0], *(_rename(a, remap) for a in e[1:]))


def _tame(e: tuple) -> tuple:
    """The same expression with its growth removed: exp -> tanh, square -> abs, mul -> add."""
    if e[0] in ("in", "const"):
        return e
    swap = {"exp": "tanh", "square": "abs", "mul": "add"}
    return (swap.get(e[0], e[0]), *(_tame(a) for a in e[1:]))


def _unit_groups(target: Sequence[int], dims: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """Reassociation of an expand_shape re-inserting unit dims `dims` into the kept dims of `target`."""
    kept = [k for k in range(len(target)) if k not in dims]
    groups = [[k] for k in kept]
    for u in dims:
        after = [g for g in groups if g[0] > u]
        (after[0] if after else groups[-1]).append(u)
    return tuple(tuple(sorted(g)) for g in groups)


def random_graph(seed: int, steps: int | None = None) -> Graph:
    """The graph of `seed`: reproducible from the seed alone (numpy and Python generators seeded by it)."""
    b = Builder(seed)
    return b.build(steps if steps is not None else b.rng.randint(2, 7))
