"""Random Conv / ConvTranspose (1-3-D, groups, depthwise, strides, dilations, pads, output_padding) with
epilogues, through the default planner: ours against onnxruntime. Args: SEED COUNT.

Run from the repository root: `.venv/bin/python tools/sweeps/random_convs.py ...` (docs/reliability.md, op sweeps)."""
import numpy as np, onnx, onnxruntime as ort, fusion_opt as fo, warnings, itertools, sys
from onnx import helper as h, TensorProto as T, numpy_helper as nh
warnings.filterwarnings("ignore")
R = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
def run(name, nodes, x, inits, post=()):
    g = h.make_graph(nodes + list(post), "g", [h.make_tensor_value_info("x", T.FLOAT, list(x.shape))], [h.make_tensor_value_info("y", T.FLOAT, None)], [nh.from_array(v, k) for k, v in inits])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)]); m.ir_version = 8
    try: r = ort.InferenceSession(m.SerializeToString()).run(None, {"x": x})[0]
    except Exception as e: return
    try:
        got = fo.compile_onnx(m)(x)
        err = np.abs(got - r).max() / max(1, np.abs(r).max())
        print(f"{name:90s} {'OK' if err < 1e-4 else 'WRONG <<< %.2e' % err}", flush=True)
    except Exception as e: print(f"{name:90s} ERROR {type(e).__name__}: {str(e)[:160]}", flush=True)
for t in range(int(sys.argv[2]) if len(sys.argv) > 2 else 30):
    nd = int(R.choice([1, 2, 2, 2, 3]))
    n = int(R.choice([1, 1, 2])); g_ = int(R.choice([1, 1, 2, 4])); cin = g_ * int(R.integers(1, 5)) * (1 if R.random() < .5 else 4)
    dw = R.random() < 0.25
    if dw: g_ = cin
    cout = g_ * int(R.integers(1, 4)) * (1 if R.random() < .5 else 8)
    k = [int(R.integers(1, 6)) for _ in range(nd)]
    s = [int(R.choice([1, 1, 2, 3])) for _ in range(nd)]
    d = [int(R.choice([1, 1, 1, 2])) for _ in range(nd)]
    size = [int(R.integers(max(kk * dd, 3), max(kk * dd, 3) + (16 if nd < 3 else 6))) for kk, dd in zip(k, d)]
    pads = [int(R.integers(0, kk)) for kk in k] + [int(R.integers(0, kk)) for kk in k]
    transpose = R.random() < 0.25
    x = R.standard_normal([n, cin] + size).astype(np.float32)
    if transpose:
        w = R.standard_normal([cin, cout // g_] + k).astype(np.float32)
        op = pads_ok = None
        attrs = dict(kernel_shape=k, strides=s, dilations=d, group=g_, pads=pads, output_padding=[int(R.integers(0, min(ss, dd))) if max(ss, dd) > 1 else 0 for ss, dd in zip(s, d)])
        node = h.make_node("ConvTranspose", ["x", "w", "b"], ["c"], **attrs)
    else:
        w = R.standard_normal([cout, cin // g_] + k).astype(np.float32)
        attrs = dict(kernel_shape=k, strides=s, dilations=d, group=g_, pads=pads)
        node = h.make_node("Conv", ["x", "w", "b"], ["c"], **attrs)
    b = R.standard_normal([cout]).astype(np.float32)
    post = R.choice(["relu", "bn_relu", "clip", "none", "add_self"])
    extra, inits = [], [("w", w), ("b", b)]
    if post == "relu": extra = [h.make_node("Relu", ["c"], ["y"])]
    elif post == "clip": extra = [h.make_node("Clip", ["c", "lo", "hi"], ["y"])]; inits += [("lo", np.array(0, np.float32)), ("hi", np.array(6, np.float32))]
    elif post == "bn_relu":
        extra = [h.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["bn"]), h.make_node("Relu", ["bn"], ["y"])]
        inits += [("s", R.standard_normal(cout).astype(np.float32)), ("bb", R.standard_normal(cout).astype(np.float32)), ("m", R.standard_normal(cout).astype(np.float32)), ("v", (R.random(cout) + 0.5).astype(np.float32))]
    elif post == "add_self": extra = [h.make_node("Mul", ["c", "c"], ["y"])]
    else: extra = [h.make_node("Identity", ["c"], ["y"])]
    run(f"{'ConvT' if transpose else 'Conv'}{nd}d n{n} {cin}->{cout} g{g_} k{k} s{s} d{d} p{pads} x{size} {post} {attrs.get('output_padding', '')}", [node], x, inits, extra)
