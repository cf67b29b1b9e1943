"""A fuzz graph: a DAG of ops (fuzz/ops.py) in program order, written as one `func.func`.

Why its own small data model rather than MLIR objects: the generator, the float64 reference and the
shrinker all edit and evaluate the graph (cut a node into an argument, bypass it, drop outputs), which
is simple on a list of frozen nodes and needs no MLIR context; the MLIR text is produced at the end.
Every node's result is `%vI`; arguments are nodes too (their data is the graph's input).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .ops import Arg, Bounded, Elementwise, Emitter, Op, Reshape, Slice, Transpose, ttype


def _product_root(e: tuple) -> bool:
    """The expression's result is a product (possibly negated): contractible into a consumer's add."""
    while e[0] == "neg":
        e = e[1]
    return e[0] in ("mul", "square", "half")


def _adds(e: tuple) -> bool:
    return e[0] in ("add", "sub", "sigmoid", "recip1p", "sqrt1p") or any(
        _adds(a) for a in e[1:] if isinstance(a, tuple))


def _adds_a_product(e: tuple) -> bool:
    """Somewhere in the expression a product is added (`a * b + c`): whether LLVM contracts it into a fused
    multiply-add depends on the code around it, not on the op. Which of two added products is contracted
    changed when a splat input was folded into the body (fuzz seed 22438: `fill * 0.5 + x1 * x2`, 7 elements
    1 ulp off `none`); and a `x1 * x1 + x0` of inputs broadcast along the rows was contracted alone in its
    dispatch but not once a transpose was read through the op's map (seed 29627: the loop order changed and
    the loop-invariant product and sum were computed apart, 44 elements 1 ulp off `none`)."""
    if e[0] in ("add", "sub") and any(isinstance(a, tuple) and _product_root(a) for a in e[1:3]):
        return True
    return any(_adds_a_product(a) for a in e[1:] if isinstance(a, tuple))


@dataclass(frozen=True, eq=False)
class Graph:
    """Nodes in program order (each reads only earlier nodes); `outputs` are the returned nodes."""

    nodes: tuple[Op, ...]
    outputs: tuple[int, ...]
    seed: int | None = None

    @property
    def args(self) -> list[int]:
        return [i for i, n in enumerate(self.nodes) if isinstance(n, Arg)]

    def inputs(self) -> list[np.ndarray]:
        """The f32 arrays to call the compiled function with, in argument order."""
        return [np.asarray(self.nodes[i].data, dtype=np.float32) for i in self.args]

    def n_ops(self) -> int:
        return sum(not isinstance(n, Arg) for n in self.nodes)

    def function_text(self, name: str = "main") -> str:
        em = Emitter()
        for i, n in enumerate(self.nodes):
            if not isinstance(n, Arg):
                n.emit(em, f"%v{i}", [f"%v{k}" for k in n.inputs], [self.nodes[k].shape for k in n.inputs])
        params = ", ".join(f"%v{i}: {ttype(self.nodes[i].shape)}" for i in self.args)
        rtypes = ", ".join(ttype(self.nodes[o].shape) for o in self.outputs)
        rets = ", ".join(f"%v{o}" for o in self.outputs)
        return (f"func.func @{name}({params}) -> ({rtypes}) {{\n" + "\n".join(em.lines)
                + f"\n  return {rets} : {rtypes}\n}}\n")

    def module_text(self, name: str = "main", header: Sequence[str] = ()) -> str:
        return "".join(f"// {h}\n" for h in header) + self.function_text(name)

    def evaluate(self) -> list[Bounded]:
        """Every node's float64 value and error bound."""
        vals: list[Bounded] = []
        for n in self.nodes:
            vals.append(n.ref([vals[k] for k in n.inputs]))
        return vals

    def reference(self) -> list[Bounded]:
        vals = self.evaluate()
        return [vals[o] for o in self.outputs]

    def heavy_upstream(self) -> list[bool]:
        """Per output: may fusion change its arithmetic? Yes when it depends on a reduction, contraction,
        convolution or window op (IREE may reorder their sums), or on a product that another op adds to
        (in one dispatch LLVM contracts `a * b + c` into one fused multiply-add, rounded once: seen as a
        1-ulp difference), or on an op whose own body adds a product (whether that is contracted depends on
        the code around it: `_adds_a_product`). Elsewhere fused results must equal unfused ones bitwise."""
        heavy: list[bool] = []
        for n in self.nodes:
            fma = isinstance(n, Elementwise) and (_adds_a_product(n.expr) or _adds(n.expr) and any(
                isinstance(p := self.nodes[self._moved_from(k)], Elementwise) and _product_root(p.expr)
                for k in n.inputs))
            heavy.append(n.heavy or fma or any(heavy[k] for k in n.inputs))
        return [heavy[o] for o in self.outputs]

    def _moved_from(self, k: int) -> int:
        """Node k, or the node a chain of transposes, slices and reshapes ending at k reads: the product
        they move is still added by the reader in one dispatch (seed 31403: `|x| * (y * y)` transposed and
        sliced, then `+ y`, contracted into a fused multiply-add once fused, 2 elements 1 ulp off `none`)."""
        while isinstance(self.nodes[k], (Transpose, Slice, Reshape)):
            k = self.nodes[k].inputs[0]
        return k

    # ---- edits (the shrinker's moves); each returns a new, pruned graph -------------------------------

    def pruned(self) -> Graph:
        """Drop nodes no output depends on and renumber (arguments included, so the signature shrinks)."""
        live = set(self.outputs)
        for i in range(len(self.nodes) - 1, -1, -1):
            if i in live:
                live.update(self.nodes[i].inputs)
        keep = [i for i in range(len(self.nodes)) if i in live]
        new = {old: k for k, old in enumerate(keep)}
        nodes = tuple(self.nodes[i].with_inputs(tuple(new[x] for x in self.nodes[i].inputs)) for i in keep)
        return Graph(nodes, tuple(new[o] for o in self.outputs), self.seed)

    def with_outputs(self, outputs: Sequence[int]) -> Graph:
        return Graph(self.nodes, tuple(outputs), self.seed).pruned()

    def cut(self, i: int) -> Graph:
        """Node i becomes an argument holding its own f32 reference value: everything above it goes."""
        value = self.evaluate()[i].v.astype(np.float32)
        nodes = list(self.nodes)
        nodes[i] = Arg((), nodes[i].shape, value)
        return Graph(tuple(nodes), self.outputs, self.seed).pruned()

    def bypass(self, i: int, by: int) -> Graph:
        """Uses of node i read node `by` (an earlier node of the same shape) instead."""
        nodes = tuple(n.with_inputs(tuple(by if x == i else x for x in n.inputs)) for n in self.nodes)
        outs = tuple(dict.fromkeys(by if o == i else o for o in self.outputs))
        return Graph(nodes, outs, self.seed).pruned()

    def describe(self) -> list[str]:
        lines = []
        for i, n in enumerate(self.nodes):
            ins = ", ".join(f"%v{k}" for k in n.inputs)
            lines.append(f"%v{i} = {n.describe()}({ins}) : {ttype(n.shape)}")
        lines.append("outputs: " + ", ".join(f"%v{o}" for o in self.outputs))
        return lines
