"""Random Max / Average / Lp pools (1-3-D, ceil mode, pads, dilations) between convs or ReLUs, through the
default planner: ours against onnxruntime. Args: SEED COUNT.

Run from the repository root: `.venv/bin/python tools/sweeps/random_pools.py ...` (docs/reliability.md, op sweeps)."""
import numpy as np, onnx, onnxruntime as ort, fusion_opt as fo, warnings, sys
from onnx import helper as h, TensorProto as T, numpy_helper as nh
warnings.filterwarnings("ignore")
R = np.random.default_rng(int(sys.argv[1]))
for t in range(int(sys.argv[2])):
    nd = int(R.choice([1, 2, 2, 2, 3]))
    n, c = int(R.choice([1, 2])), int(R.choice([1, 3, 8, 16, 32]))
    k = [int(R.integers(1, 5)) for _ in range(nd)]; s = [int(R.choice([1, 2, 3])) for _ in range(nd)]
    d = [int(R.choice([1, 1, 2])) for _ in range(nd)]
    op = str(R.choice(["MaxPool", "AveragePool", "AveragePool", "MaxPool", "LpPool"]))
    if op != "MaxPool": d = [1] * nd
    pads = [int(R.integers(0, kk)) if kk > 1 else 0 for kk in k] * 2
    pads = [min(p, (kk - 1) * dd // 2 if op != "MaxPool" else (kk - 1) * dd) for p, kk, dd in zip(pads, k * 2, d * 2)]
    size = [int(R.integers(max(kk * dd, 2), max(kk * dd, 2) + (14 if nd < 3 else 5))) for kk, dd in zip(k, d)]
    attrs = dict(kernel_shape=k, strides=s, pads=pads)
    if op == "MaxPool": attrs.update(dilations=d, ceil_mode=int(R.random() < 0.3))
    if op == "AveragePool": attrs.update(count_include_pad=int(R.random() < 0.5), ceil_mode=int(R.random() < 0.3))
    if op == "LpPool": attrs.update(p=int(R.choice([1, 2, 3])))
    x = R.standard_normal([n, c] + size).astype(np.float32)
    pre = R.choice(["none", "conv", "relu"])
    nodes, inits = [], []
    src = "x"
    if pre == "conv":
        nodes.append(h.make_node("Conv", ["x", "w"], ["cv"], kernel_shape=[1] * nd)); inits.append(nh.from_array(R.standard_normal([c, c] + [1] * nd).astype(np.float32), "w")); src = "cv"
    elif pre == "relu":
        nodes.append(h.make_node("Relu", ["x"], ["cv"])); src = "cv"
    nodes.append(h.make_node(op, [src], ["p"], **attrs))
    post = R.choice(["none", "conv", "add"])
    if post == "conv":
        nodes.append(h.make_node("Conv", ["p", "w2"], ["y"], kernel_shape=[1] * nd)); inits.append(nh.from_array(R.standard_normal([4, c] + [1] * nd).astype(np.float32), "w2"))
    elif post == "add": nodes.append(h.make_node("Add", ["p", "p"], ["y"]))
    else: nodes.append(h.make_node("Identity", ["p"], ["y"]))
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", T.FLOAT, list(x.shape))], [h.make_tensor_value_info("y", T.FLOAT, None)], inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 19)]); m.ir_version = 8
    name = f"{pre}->{op}{nd}d n{n} c{c} {attrs} x{size}->{post}"
    try: r = ort.InferenceSession(m.SerializeToString()).run(None, {"x": x})[0]
    except Exception as e: continue
    try:
        got = fo.compile_onnx(m)(x)
        err = np.abs(got - r).max() / max(1, np.abs(r).max()) if got.shape == r.shape else 1e9
        print(f"{name:150s} {'OK' if err < 1e-4 else 'WRONG <<< %.2e' % err}", flush=True)
    except Exception as e: print(f"{name:150s} ERROR {type(e).__name__}: {str(e)[:160]}", flush=True)
