"""onnx's whole-model passes (version converter, shape inference) run on a model without its weights.

Why: each of them serializes the whole model to C++ and parses its result back, and the version
converter also copies every tensor into its own IR: on VGG-19 (548 MB of weights, opset 9) the upgrade
took 31 s and each shape inference 11 s, against 0.2 s and 0.1 s without the weights. Neither needs a
weight's values: shape inference reads a constant's values only where they are a shape, axes or scales
(a few elements), and the converter only rewrites nodes. A tensor above `MAX_FOLD_ELEMENTS` (the bound
below which the shape folding evaluates values too, importers/onnx_fold.py) is therefore handed to them
as a typed graph input and put back as an initializer afterwards.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
from google.protobuf.message import Message
from onnx import helper

# Largest tensor (elements) folded: shape arithmetic is tiny; anything bigger is real computation.
MAX_FOLD_ELEMENTS = 4096


def is_big(t: onnx.TensorProto) -> bool:
    """More elements than any shape, axes or scales operand has: a weight."""
    return int(np.prod(t.dims, dtype=np.int64)) > MAX_FOLD_ELEMENTS


def weightless(fn: Callable[[onnx.ModelProto], onnx.ModelProto], proto: onnx.ModelProto) -> onnx.ModelProto:
    """`fn(proto)` run on a copy without the big initializers; what it returns is written back into
    `proto` (the caller's own copy), whose big initializers never move: copying them costs seconds (each
    GB of tensors 2.5 s on the 2-core VM), moving them in a repeated field costs nothing."""
    big = {t.name for t in proto.graph.initializer if is_big(t)}
    if not big:
        return fn(proto)
    light, added = light_copy(proto)
    out = fn(light)
    order = {t.name: i for i, t in enumerate(proto.graph.initializer)}
    _clear_fields(proto, skip={"graph"})
    _copy_fields(out, proto, skip={"graph"})
    _clear_fields(proto.graph, skip={"initializer"})
    _copy_fields(out.graph, proto.graph, skip={"initializer", "input"})
    proto.graph.input.extend(v for v in out.graph.input if v.name not in added)
    for i in reversed([i for i, t in enumerate(proto.graph.initializer) if t.name not in big]):
        del proto.graph.initializer[i]
    proto.graph.initializer.extend(t for t in out.graph.initializer if t.name not in big)
    proto.graph.initializer.sort(key=lambda t: order.get(t.name, len(order)))  # moves, no copies
    return proto


def light_copy(proto: onnx.ModelProto) -> tuple[onnx.ModelProto, set[str]]:
    """A copy of `proto` whose big initializers are typed graph inputs instead (the weights themselves
    are not copied), and the names of the inputs that adds (those the graph did not list already)."""
    big = {t.name for t in proto.graph.initializer if is_big(t)}
    light = onnx.ModelProto()
    _copy_fields(proto, light, skip={"graph"})
    _copy_fields(proto.graph, light.graph, skip={"initializer"})
    light.graph.initializer.extend(t for t in proto.graph.initializer if t.name not in big)
    listed = {i.name for i in proto.graph.input}
    added = {t.name for t in proto.graph.initializer if t.name in big and t.name not in listed}
    light.graph.input.extend(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
                             for t in proto.graph.initializer if t.name in added)
    return light, added


def without_data(proto: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of `proto` whose initializers keep their names, types and dims but no values: what the
    import's parent process needs of the prepared model (its inputs, outputs and their types), sent back
    from the child that read the weights (VGG-19: a few KB instead of 548 MB)."""
    light = onnx.ModelProto()
    _copy_fields(proto, light, skip={"graph"})
    _copy_fields(proto.graph, light.graph, skip={"initializer"})
    light.graph.initializer.extend(onnx.TensorProto(name=t.name, data_type=t.data_type, dims=t.dims)
                                   for t in proto.graph.initializer)
    return light


def _copy_fields(src: Message, dst: Message, skip: set[str]) -> None:
    for fd, value in src.ListFields():
        if fd.name in skip:
            continue
        if fd.is_repeated:
            getattr(dst, fd.name).extend(value)
        elif fd.message_type is not None:
            getattr(dst, fd.name).CopyFrom(value)
        else:
            setattr(dst, fd.name, value)


def _clear_fields(msg: Message, skip: set[str]) -> None:
    for fd in msg.DESCRIPTOR.fields:
        if fd.name not in skip:
            msg.ClearField(fd.name)
