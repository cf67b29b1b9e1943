"""Direct conv rates against the cost model: random single Conv models (2-D, 1-2 images, C 2-256, F 4-256,
3x3-7x7, stride 1-2), each compiled with its conv left as IREE's direct conv in the chosen layout, its
dispatch timed under IREE's host-execution profiling, and priced by the cost model on this host.
Args: SEED COUNT [nchw|nhwc] [odd]. `odd`: image sizes whose output rows 8 does not divide (7-55),
where IREE's channels-last row tile shrinks to a divisor of the row. Prints one line per conv and the
geometric mean and rms of log(predicted / measured) at the end: the data behind docs/cost-model.md's
direct-conv fit (2026-12-04) and channels-last fit (2026-12-05: seeds 5, 7-9, 12-13 odd).

Run from the repository root: `FUSION_OPT_UNCALIBRATED=1 .venv/bin/python tools/sweeps/conv_rates.py 2 40`."""
import math, sys, warnings
import numpy as np
from onnx import TensorProto as T, helper as h, numpy_helper as nh
import fusion_opt as fo
from fusion_opt.backends.profile import profile_dispatches
from fusion_opt.cost.host import host_target
from fusion_opt.cost.model import efficiency_key, estimate, vector_utilisation
warnings.filterwarnings("ignore")
R = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
layout = sys.argv[3] if len(sys.argv) > 3 else "nchw"
sizes = [7, 13, 15, 25, 27, 55] if sys.argv[4:5] == ["odd"] else [8, 14, 16, 28, 32, 56]
t, logs = host_target(), []
for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 20):
    n, c, f = int(R.choice([1, 2])), int(R.choice([2, 3, 4, 8, 16, 32, 64, 128, 256])), int(R.choice([4, 8, 16, 32, 64, 128, 256]))
    hw, k, s = int(R.choice(sizes)), int(R.choice([3, 3, 5, 7])), int(R.choice([1, 1, 1, 2]))
    x = R.standard_normal([n, c, hw, hw]).astype(np.float32)
    w = R.standard_normal([f, c, k, k]).astype(np.float32)
    g = h.make_graph([h.make_node("Conv", ["x", "w"], ["y"], pads=[k // 2] * 4, strides=[s, s])], "g",
                     [h.make_tensor_value_info("x", T.FLOAT, list(x.shape))], [h.make_tensor_value_info("y", T.FLOAT, None)],
                     [nh.from_array(w, "w")])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)]); m.ir_version = 8
    cm = fo.compile_onnx(m, layout=layout, disable_patterns=("conv-strategy", "winograd"))
    op = next((o for o in cm.graphs[0].ops if o.kind.name == "CONVOLUTION"), None)
    if op is None:
        continue
    us = sum(st.median_us for st in profile_dispatches(cm.artifact, [x], repetitions=15).sites if "conv" in st.key)
    pred = estimate([op], t).time_s * 1e6
    flops = 2 * n * c * f * ((hw - 1) // s + 1) ** 2 * k * k
    logs.append(math.log(pred / us))
    print(f"n{n} c{c} f{f} hw{hw} k{k} s{s} key={efficiency_key(op, t)} util={vector_utilisation(op, t):.3f} "
          f"measured {us:.1f} us ({flops / us / 1e3:.1f} GFLOP/s) predicted {pred:.1f} us, ratio {pred / us:.2f}", flush=True)
if logs:
    print(f"predicted / measured: geometric mean {math.exp(sum(logs) / len(logs)):.2f}, "
          f"rms factor {math.exp(math.sqrt(sum(v * v for v in logs) / len(logs))):.2f} over {len(logs)} convs")
