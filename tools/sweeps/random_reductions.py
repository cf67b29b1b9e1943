"""Random softmax / log-softmax / LayerNorm / L2 and mean-variance normalizations / InstanceNorm over
random axes, through the default planner: ours against onnxruntime. Args: SEED COUNT.

Run from the repository root: `.venv/bin/python tools/sweeps/random_reductions.py ...` (docs/reliability.md, op sweeps)."""
import numpy as np, onnx, onnxruntime as ort, fusion_opt as fo, warnings, sys
from onnx import helper as h, TensorProto as T, numpy_helper as nh
warnings.filterwarnings("ignore")
R = np.random.default_rng(int(sys.argv[1]))
for t in range(int(sys.argv[2])):
    shape = [int(R.choice([1, 2, 3, 5, 8, 16, 21, 33])) for _ in range(int(R.integers(2, 5)))]
    r = len(shape); ax = int(R.integers(-r, r))
    kind = str(R.choice(["softmax", "logsoftmax", "layernorm", "argmax+softmax", "l2norm", "meanvar", "instnorm"]))
    nodes, inits, outs = [], [], ["y"]
    if kind == "softmax": nodes = [h.make_node("Softmax", ["x"], ["y"], axis=ax)]
    elif kind == "logsoftmax": nodes = [h.make_node("LogSoftmax", ["x"], ["y"], axis=ax)]
    elif kind == "argmax+softmax": nodes = [h.make_node("Softmax", ["x"], ["y"], axis=ax), h.make_node("ArgMax", ["x"], ["z"], axis=ax), h.make_node("LogSoftmax", ["x"], ["w"], axis=ax)]; outs = ["y", "z", "w"]
    elif kind == "layernorm":
        a = ax % r; inits = [nh.from_array(R.standard_normal(shape[a:]).astype(np.float32), "s"), nh.from_array(R.standard_normal(shape[a:]).astype(np.float32), "b")]
        nodes = [h.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=a)]
    elif kind == "l2norm":
        inits = [nh.from_array(np.array([ax], np.int64), "a")]
        nodes = [h.make_node("ReduceL2", ["x", "a"], ["n"], keepdims=1), h.make_node("Div", ["x", "n"], ["y"])]
    elif kind == "meanvar":
        inits = [nh.from_array(np.array([ax], np.int64), "a")]
        nodes = [h.make_node("ReduceMean", ["x", "a"], ["m"]), h.make_node("Sub", ["x", "m"], ["d"]), h.make_node("Mul", ["d", "d"], ["d2"]), h.make_node("ReduceMean", ["d2", "a"], ["v"]), h.make_node("Sqrt", ["v"], ["sd"]), h.make_node("Div", ["d", "sd"], ["y"])]
    else:
        if r < 3: continue
        inits = [nh.from_array(R.standard_normal(shape[1]).astype(np.float32), "s"), nh.from_array(R.standard_normal(shape[1]).astype(np.float32), "b")]
        nodes = [h.make_node("InstanceNormalization", ["x", "s", "b"], ["y"])]
    x = R.standard_normal(shape).astype(np.float32)
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", T.FLOAT, shape)], [h.make_tensor_value_info(o, T.UNDEFINED, None) for o in outs], inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 18)]); m.ir_version = 8
    name = f"{kind} {shape} axis {ax}"
    try: m = onnx.shape_inference.infer_shapes(m); ref = ort.InferenceSession(m.SerializeToString()).run(None, {"x": x})
    except Exception as e: continue
    try:
        got = fo.compile_onnx(m)(x); got = got if isinstance(got, (list, tuple)) else [got]
        ok = all(np.asarray(a).shape == b.shape and np.allclose(a, b, atol=2e-5, rtol=1e-4, equal_nan=True) for a, b in zip(got, ref))
        print(f"{name:50s} {'OK' if ok else 'WRONG <<<'}", flush=True)
    except Exception as e: print(f"{name:50s} ERROR {type(e).__name__}: {str(e)[:200]}", flush=True)
