"""Front ends: ONNX models and `.mlir` files become Linalg-on-tensors modules in one context."""
from __future__ import annotations

from .mlir_import import parse_mlir, split_input
from .onnx_import import import_onnx, load_onnx

__all__ = ["import_onnx", "load_onnx", "parse_mlir", "split_input"]
