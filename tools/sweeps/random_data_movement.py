"""Random chains of Transpose / Reshape / Slice / Concat / Gather / Pad / Expand / Tile / Split with
elementwise ops and reductions, through the default planner: ours against onnxruntime. Args: SEED COUNT
[-v]; failing models are saved as dm_bad_* / dm_err_* in the working directory.

Run from the repository root: `.venv/bin/python tools/sweeps/random_data_movement.py ...` (docs/reliability.md, op sweeps)."""
import numpy as np, onnx, onnxruntime as ort, fusion_opt as fo, warnings, sys
from onnx import helper as h, TensorProto as T, numpy_helper as nh
warnings.filterwarnings("ignore")
R = np.random.default_rng(int(sys.argv[1]))
def build():
    shape = [int(R.choice([1, 2, 3, 4, 6, 8])) for _ in range(int(R.integers(2, 5)))]
    x = R.standard_normal(shape).astype(np.float32)
    nodes, inits, cur, cs = [], [], "x", list(shape)
    live = [("x", list(shape))]
    for i in range(int(R.integers(2, 7))):
        cur, cs = live[int(R.integers(0, len(live)))]
        op = str(R.choice(["Transpose", "Reshape", "Slice", "Concat", "Gather", "Pad", "Expand", "Tile", "Relu", "Add", "ReduceSum", "Softmax", "Mul", "Split"]))
        o = f"t{i}"; c = lambda n, v: (inits.append(nh.from_array(np.array(v, np.int64), f"{o}_{n}")), f"{o}_{n}")[1]
        r = len(cs)
        if op == "Transpose":
            p = list(R.permutation(r)); nodes.append(h.make_node(op, [cur], [o], perm=p)); ns = [cs[j] for j in p]
        elif op == "Reshape":
            tot = int(np.prod(cs)); f = [d for d in range(1, tot + 1) if tot % d == 0]; a = int(R.choice(f)); ns = [a, tot // a] if R.random() < .5 else [tot]
            if R.random() < 0.3: ns = [-1] + ns[1:]
            nodes.append(h.make_node(op, [cur, c("s", ns)], [o])); ns = [tot // int(np.prod([d for d in ns if d != -1])) if d == -1 else d for d in ns]
        elif op == "Slice":
            ax = int(R.integers(0, r)); n = cs[ax]; st = int(R.choice([1, 1, 2, -1]))
            if st > 0: s0 = int(R.integers(0, n)); e0 = int(R.integers(s0 + 1, n + 1))
            else: s0 = int(R.integers(0, n)); e0 = int(R.integers(-n - 1, s0))
            nodes.append(h.make_node(op, [cur, c("st", [s0]), c("en", [e0]), c("ax", [ax]), c("sp", [st])], [o]))
            ns = list(cs); ns[ax] = len(range(n)[s0:e0 if e0 >= 0 else None if e0 < -n else e0:st]) if st > 0 else len(range(n)[s0:(e0 if e0 >= 0 else None):st])
            if ns[ax] == 0: nodes.pop(); continue
        elif op == "Concat":
            ax = int(R.integers(0, r)); other = [n for n, s in live if len(s) == r and all(s[k] == cs[k] for k in range(r) if k != ax)]
            o2 = other[int(R.integers(0, len(other)))]; nodes.append(h.make_node(op, [cur, o2], [o], axis=ax)); ns = list(cs); ns[ax] += dict(live)[o2][ax]
        elif op == "Gather":
            ax = int(R.integers(0, r)); idx = R.integers(-cs[ax], cs[ax], int(R.integers(1, 4))).tolist()
            nodes.append(h.make_node(op, [cur, c("i", idx)], [o], axis=ax)); ns = list(cs); ns[ax] = len(idx)
        elif op == "Pad":
            p = [int(R.integers(0, 3)) for _ in range(2 * r)]; nodes.append(h.make_node(op, [cur, c("p", p)], [o], mode=str(R.choice(["constant", "reflect", "edge"]))))
            ns = [cs[k] + p[k] + p[k + r] for k in range(r)]
            if any(p[k] >= cs[k] or p[k + r] >= cs[k] for k in range(r)): nodes[-1] = h.make_node(op, [cur, c("p2", p)], [o], mode="constant")
        elif op == "Expand":
            ns = [int(R.choice([d, 3])) if d == 1 else d for d in cs]; nodes.append(h.make_node(op, [cur, c("s", ns)], [o]))
        elif op == "Tile":
            rep = [int(R.choice([1, 1, 2])) for _ in cs]; nodes.append(h.make_node(op, [cur, c("r", rep)], [o])); ns = [a * b for a, b in zip(cs, rep)]
        elif op == "ReduceSum":
            ax = int(R.integers(0, r)); kd = int(R.integers(0, 2)); nodes.append(h.make_node(op, [cur, c("a", [ax])], [o], keepdims=kd)); ns = [d for k, d in enumerate(cs) if k != ax or kd]; ns = [1 if (k == ax and kd) else d for k, d in enumerate(cs) if k != ax or kd]
            if not ns: nodes.pop(); continue
        elif op == "Softmax":
            nodes.append(h.make_node(op, [cur], [o], axis=int(R.integers(-r, r)))); ns = list(cs)
        elif op == "Split":
            ax = int(R.integers(0, r))
            if cs[ax] < 2: continue
            a = int(R.integers(1, cs[ax])); nodes.append(h.make_node(op, [cur, c("sp", [a, cs[ax] - a])], [o, o + "b"], axis=ax)); ns = list(cs); ns[ax] = a
            nb = list(cs); nb[ax] = cs[ax] - a; live.append((o + "b", nb))
        elif op in ("Add", "Mul"):
            other = [n for n, s in live if s == cs]; nodes.append(h.make_node(op, [cur, other[int(R.integers(0, len(other)))]], [o])); ns = list(cs)
        else:
            nodes.append(h.make_node(op, [cur], [o])); ns = list(cs)
        live.append((o, ns))
    outs = [live[-1][0]] + ([live[-2][0]] if len(live) > 2 and R.random() < 0.4 else [])
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", T.FLOAT, shape)], [h.make_tensor_value_info(n, T.FLOAT, None) for n in outs], inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 18)]); m.ir_version = 8
    return m, x
bad = 0
for t in range(int(sys.argv[2])):
    m, x = build()
    desc = " ".join(n.op_type for n in m.graph.node)
    try: r = ort.InferenceSession(m.SerializeToString()).run(None, {"x": x})
    except Exception as e:
        if "-v" in sys.argv: print("skip", desc, str(e)[:150])
        continue
    try:
        got = fo.compile_onnx(m)(x); got = got if isinstance(got, (list, tuple)) else [got]
        ok = all(np.asarray(a).shape == b.shape and np.allclose(a, b, atol=1e-5, rtol=1e-5) for a, b in zip(got, r))
        print(f"{t:3d} {desc:80s} {'OK' if ok else 'WRONG <<<'}", flush=True)
        if not ok: onnx.save(m, f"dm_bad_{sys.argv[1]}_{t}.onnx")
    except Exception as e:
        print(f"{t:3d} {desc:80s} ERROR {type(e).__name__}: {str(e)[:200]}", flush=True); onnx.save(m, f"dm_err_{sys.argv[1]}_{t}.onnx")
