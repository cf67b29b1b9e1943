"""Model interface edge cases (outputs that are inputs or constants, scalars, odd names, external data,
f16 / f64 / bf16 tensors, newer IR versions): ours against onnxruntime.

Run from the repository root: `.venv/bin/python tools/sweeps/interfaces.py ...` (docs/reliability.md, op sweeps)."""
import numpy as np, onnx, onnxruntime as ort, fusion_opt as fo, warnings, os, tempfile
from onnx import helper as h, TensorProto as T, numpy_helper as nh
warnings.filterwarnings("ignore")
R = np.random.default_rng(0)
def run(name, m, feeds, path=None):
    try:
        r = ort.InferenceSession(path or m.SerializeToString()).run(None, feeds)
    except Exception as e: print(f"{name:34s} (ort: {str(e)[:90]})"); return
    try:
        c = fo.compile_onnx(path or m)
        got = c(*feeds.values()); got = list(got) if isinstance(got, (list, tuple)) else [got]
        ok = len(got) == len(r) and all(np.asarray(a).shape == b.shape and np.asarray(a).dtype == b.dtype and np.allclose(np.asarray(a), b, atol=1e-5) for a, b in zip(got, r))
        print(f"{name:34s} {'OK' if ok else 'WRONG <<< ' + str([(np.asarray(a).shape, np.asarray(a).dtype, b.shape, b.dtype) for a, b in zip(got, r)])}", flush=True)
    except Exception as e: print(f"{name:34s} ERROR {type(e).__name__}: {str(e)[:200]}")
vi = lambda n, t, s: h.make_tensor_value_info(n, t, s)
mk = lambda nodes, ins, outs, inits=(), opset=17: h.make_model(h.make_graph(nodes, "g", ins, outs, list(inits)), opset_imports=[h.make_opsetid("", opset)])
x = R.standard_normal((2, 3)).astype(np.float32)
run("output is an input", mk([h.make_node("Relu", ["x"], ["y"])], [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3]), vi("x", T.FLOAT, [2, 3])]), {"x": x})
run("output is a constant", mk([h.make_node("Relu", ["x"], ["y"]), h.make_node("Constant", [], ["c"], value=nh.from_array(np.ones((2,), np.float32)))], [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3]), vi("c", T.FLOAT, [2])]), {"x": x})
run("output is an initializer", mk([h.make_node("Relu", ["x"], ["y"])], [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3]), vi("w", T.FLOAT, [3])], [nh.from_array(np.arange(3, dtype=np.float32), "w")]), {"x": x})
run("same output twice", mk([h.make_node("Relu", ["x"], ["y"])], [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3]), vi("y", T.FLOAT, [2, 3])]), {"x": x})
run("output also used inside", mk([h.make_node("Relu", ["x"], ["y"]), h.make_node("Exp", ["y"], ["z"])], [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3]), vi("z", T.FLOAT, [2, 3])]), {"x": x})
run("scalar input", mk([h.make_node("Mul", ["x", "s"], ["y"])], [vi("x", T.FLOAT, [2, 3]), vi("s", T.FLOAT, [])], [vi("y", T.FLOAT, [2, 3])]), {"x": x, "s": np.array(2.5, np.float32)})
run("scalar output", mk([h.make_node("ReduceSum", ["x"], ["y"], keepdims=0)], [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [])]), {"x": x})
run("names with : / .", mk([h.make_node("Relu", ["input_1:0"], ["model/out.0:0"])], [vi("input_1:0", T.FLOAT, [2, 3])], [vi("model/out.0:0", T.FLOAT, [2, 3])]), {"input_1:0": x})
run("unused input", mk([h.make_node("Relu", ["x"], ["y"])], [vi("x", T.FLOAT, [2, 3]), vi("unused", T.FLOAT, [4])], [vi("y", T.FLOAT, [2, 3])]), {"x": x, "unused": np.zeros(4, np.float32)})
run("bool in/out", mk([h.make_node("Not", ["b"], ["y"])], [vi("b", T.BOOL, [2, 3])], [vi("y", T.BOOL, [2, 3])]), {"b": x > 0})
run("zero-size tensor", mk([h.make_node("Concat", ["x", "e"], ["y"], axis=0)], [vi("x", T.FLOAT, [2, 3]), vi("e", T.FLOAT, [0, 3])], [vi("y", T.FLOAT, [2, 3])]), {"x": x, "e": np.zeros((0, 3), np.float32)})
run("int32 in / i64 out", mk([h.make_node("Cast", ["i"], ["y"], to=T.INT64)], [vi("i", T.INT32, [2, 3])], [vi("y", T.INT64, [2, 3])]), {"i": (x * 10).astype(np.int32)})
run("no nodes (identity graph)", mk([], [vi("x", T.FLOAT, [2, 3])], [vi("x", T.FLOAT, [2, 3])]), {"x": x})
run("double in/out", mk([h.make_node("Exp", ["d"], ["y"])], [vi("d", T.DOUBLE, [2, 3])], [vi("y", T.DOUBLE, [2, 3])]), {"d": x.astype(np.float64)})
run("f16 in/out", mk([h.make_node("Exp", ["d"], ["y"])], [vi("d", T.FLOAT16, [2, 3])], [vi("y", T.FLOAT16, [2, 3])]), {"d": x.astype(np.float16)})
run("bf16 initializer", mk([h.make_node("Cast", ["w"], ["wf"], to=T.FLOAT), h.make_node("Add", ["x", "wf"], ["y"])], [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3])], [h.make_tensor("w", T.BFLOAT16, [3], [1.0, 2.0, 3.0])]), {"x": x})
# external data
d = tempfile.mkdtemp()
w = R.standard_normal((3, 4096)).astype(np.float32)
m = mk([h.make_node("MatMul", ["x", "w"], ["y"])], [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 4096])], [nh.from_array(w, "w")])
onnx.save(m, os.path.join(d, "ext.onnx"), save_as_external_data=True, all_tensors_to_one_file=True, location="ext.data", size_threshold=1024)
run("external data (path)", None, {"x": x}, os.path.join(d, "ext.onnx"))
# model with metadata, doc strings, training info? IR version 10, opset 21
m = mk([h.make_node("Relu", ["x"], ["y"])], [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3])], opset=21); m.ir_version = 10
run("opset 21 ir 10", m, {"x": x})
m = mk([h.make_node("Relu", ["x"], ["y"])], [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3])], opset=23); m.ir_version = 11
run("opset 23 ir 11", m, {"x": x})
m = mk([h.make_node("Relu", ["x"], ["y"])], [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3])]); m.opset_import.append(h.make_opsetid("com.microsoft", 1)); m.opset_import.append(h.make_opsetid("ai.onnx.ml", 3))
run("extra domains imported", m, {"x": x})
