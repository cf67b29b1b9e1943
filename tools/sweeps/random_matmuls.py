"""Random MatMul shapes (batch broadcasting, 1-D operands, constant or input weights, transposed) with
epilogues (bias, GELU forms, SiLU, softmax), through the default planner. Args: SEED COUNT.

Run from the repository root: `.venv/bin/python tools/sweeps/random_matmuls.py ...` (docs/reliability.md, op sweeps)."""
import numpy as np, onnx, onnxruntime as ort, fusion_opt as fo, warnings, sys
from onnx import helper as h, TensorProto as T, numpy_helper as nh
warnings.filterwarnings("ignore")
R = np.random.default_rng(int(sys.argv[1]))
def dims(): return int(R.choice([1, 2, 3, 5, 7, 8, 16, 17, 32, 64, 96, 128]))
for t in range(int(sys.argv[2])):
    M, K, N = dims(), dims(), dims()
    batch_a = [int(R.choice([1, 2, 3, 4])) for _ in range(int(R.choice([0, 0, 1, 2])))]
    batch_b = list(batch_a[len(batch_a) - int(R.integers(0, len(batch_a) + 1)):]) if batch_a else []
    batch_b = [1 if R.random() < 0.3 else b for b in batch_b]
    a_shape, b_shape = batch_a + [M, K], batch_b + [K, N]
    if R.random() < 0.1: a_shape = [K]
    if R.random() < 0.1: b_shape = [K]
    b_const = R.random() < 0.6
    nodes, inits, inputs = [], [], {"a": R.standard_normal(a_shape).astype(np.float32)}
    if b_const: inits.append(nh.from_array(R.standard_normal(b_shape).astype(np.float32), "b"))
    else: inputs["b"] = R.standard_normal(b_shape).astype(np.float32)
    trans = R.random() < 0.2 and len(b_shape) >= 2
    bname = "b"
    if trans:
        perm = list(range(len(b_shape))); perm[-1], perm[-2] = perm[-2], perm[-1]
        if b_const: inits[-1] = nh.from_array(np.ascontiguousarray(np.swapaxes(nh.to_array(inits[-1]), -1, -2)), "b")
        else: inputs["b"] = np.ascontiguousarray(np.swapaxes(inputs["b"], -1, -2))
        nodes.append(h.make_node("Transpose", ["b"], ["bt"], perm=perm)); bname = "bt"
    nodes.append(h.make_node("MatMul", ["a", bname], ["mm"]))
    out_n = N if len(b_shape) >= 2 else None
    epi = str(R.choice(["none", "bias", "bias_gelu", "silu", "bias_relu", "softmax", "scale_add", "erf_gelu", "tanh_gelu"]))
    cur = "mm"
    if epi.startswith("bias") and out_n:
        inits.append(nh.from_array(R.standard_normal([out_n]).astype(np.float32), "bias")); nodes.append(h.make_node("Add", [cur, "bias"], ["bb"])); cur = "bb"
    if epi.endswith("relu"): nodes.append(h.make_node("Relu", [cur], ["e"])); cur = "e"
    if epi.endswith("gelu") or epi == "erf_gelu": nodes.append(h.make_node("Gelu", [cur], ["e"], approximate="tanh" if epi == "tanh_gelu" else "none")); cur = "e"
    if epi == "silu": nodes += [h.make_node("Sigmoid", [cur], ["sg"]), h.make_node("Mul", [cur, "sg"], ["e"])]; cur = "e"
    if epi == "softmax": nodes.append(h.make_node("Softmax", [cur], ["e"], axis=-1)); cur = "e"
    if epi == "scale_add": inits.append(nh.from_array(np.array(0.125, np.float32), "sc")); nodes += [h.make_node("Mul", [cur, "sc"], ["s1"]), h.make_node("Add", ["s1", "a" if a_shape == b_shape else "s1"], ["e"])]; cur = "e"
    nodes.append(h.make_node("Identity", [cur], ["y"]))
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info(k, T.FLOAT, list(v.shape)) for k, v in inputs.items()], [h.make_tensor_value_info("y", T.FLOAT, None)], inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 20)]); m.ir_version = 9
    name = f"A{a_shape} B{b_shape}{' T' if trans else ''}{' const' if b_const else ''} {epi}"
    try: r = ort.InferenceSession(m.SerializeToString()).run(None, inputs)[0]
    except Exception as e: continue
    try:
        got = fo.compile_onnx(m)(*inputs.values())
        err = np.abs(got - r).max() / max(1, np.abs(r).max()) if got.shape == r.shape else 1e9
        print(f"{name:70s} {'OK' if err < 1e-4 else 'WRONG <<< %.2e' % err}", flush=True)
    except Exception as e: print(f"{name:70s} ERROR {type(e).__name__}: {str(e)[:200]}", flush=True)
