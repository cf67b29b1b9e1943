"""Building ONNX nodes that replace one node (importers/onnx_gridsample.py, importers/onnx_det.py): every node
named as the node it replaces, so IREE's errors and the plan still point at the user's node."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from onnx import helper

if TYPE_CHECKING:
    from .onnx_legalize import _Graph


class Emitter:
    """Appends nodes to one list, each named `name` (the node replaced); float constants in `dtype`, one
    `Constant` per value."""

    def __init__(self, g: _Graph, base: str, dtype: np.dtype, name: str) -> None:
        self.g, self.base, self.dtype, self.name, self.nodes = g, base, dtype, name, []
        self.consts: dict[tuple[str, object], str] = {}

    def op(self, op_type: str, *inputs: str, **attrs: object) -> str:
        out = self.g.fresh(f"{self.base}_{op_type.lower()}")
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], name=self.name or None, **attrs))
        return out

    def f(self, v: float) -> str:
        return self._const("f", float(v), self.dtype)

    def i64(self, v: list[int] | int) -> str:
        return self._const("i", v if isinstance(v, int) else tuple(v), np.int64)

    def _const(self, kind: str, v: object, dtype: object) -> str:
        name = self.consts.get((kind, v))
        if name is None:
            name = self.consts[(kind, v)] = self.g.const(f"{self.base}_{kind}", np.array(v, dtype), self.nodes)
        return name
