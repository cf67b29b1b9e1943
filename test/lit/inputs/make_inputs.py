"""Regenerate the small binary ONNX inputs of the lit tests (committed; run by hand when changed)."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def linear_relu() -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((16, 8)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal((8,)).astype(np.float32), "b")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["mm"], name="fc"),
        helper.make_node("Add", ["mm", "b"], ["biased"], name="bias"),
        helper.make_node("Relu", ["biased"], ["y"], name="relu"),
    ]
    g = helper.make_graph(nodes, "linear_relu",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])], [w, b])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def dynamic_batch() -> onnx.ModelProto:
    m = linear_relu()
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "N"
    m.graph.output[0].type.tensor_type.shape.dim[0].dim_param = "N"
    return m


def unsupported_op() -> onnx.ModelProto:
    nodes = [helper.make_node("FancyOp", ["x"], ["y"], name="mystery", domain="com.example")]
    g = helper.make_graph(nodes, "unsupported",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)])


def shape_from_input() -> onnx.ModelProto:
    """An Expand whose target shape is a graph input: the output shape depends on its values."""
    nodes = [helper.make_node("Expand", ["x", "shape"], ["y"], name="grow")]
    g = helper.make_graph(nodes, "expand", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 1]),
                                            helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def axes_from_input() -> onnx.ModelProto:
    """A ReduceMax (opset 18) whose axes are a graph input: which dims it reduces depends on its values."""
    nodes = [helper.make_node("ReduceMax", ["x", "axes"], ["y"], name="peak", keepdims=0)]
    g = helper.make_graph(nodes, "reduce", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4]),
                                            helper.make_tensor_value_info("axes", TensorProto.INT64, [1])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def resize(mode: str, coord: str, sizes: list[int]) -> onnx.ModelProto:
    """A Resize to `sizes` (constant) of a [1, 2, 3, 4] input."""
    nodes = [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="up", mode=mode,
                              coordinate_transformation_mode=coord, nearest_mode="floor")]
    g = helper.make_graph(nodes, "resize", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, sizes)],
                          [numpy_helper.from_array(np.array(sizes, np.int64), "sizes")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def unary(op: str, opset: int, **attrs: object) -> onnx.ModelProto:
    """One `op` node on a [2, 8] input."""
    vi = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 8])  # noqa: E731
    g = helper.make_graph([helper.make_node(op, ["x"], ["y"], name=op.lower(), **attrs)], op.lower(), [vi("x")], [vi("y")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


if __name__ == "__main__":
    onnx.save(linear_relu(), "linear_relu.onnx")
    onnx.save(dynamic_batch(), "dynamic_batch.onnx")
    onnx.save(unsupported_op(), "unsupported_op.onnx")
    onnx.save(shape_from_input(), "shape_from_input.onnx")
    onnx.save(axes_from_input(), "axes_from_input.onnx")
    onnx.save(resize("linear", "half_pixel", [1, 2, 6, 10]), "resize_linear.onnx")
    onnx.save(resize("nearest", "asymmetric", [1, 2, 6, 8]), "resize_nearest.onnx")
    onnx.save(unary("Gelu", 20, approximate="tanh"), "gelu_tanh.onnx")
    onnx.save(unary("Asinh", 17), "asinh.onnx")
    data = open("linear_relu.onnx", "rb").read()
    open("truncated.onnx", "wb").write(data[: len(data) // 2])
