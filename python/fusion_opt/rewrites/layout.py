"""Channels-last layout (`layout="nhwc"`): every NCHW convolution of a function rewritten to NHWC.

Why: on this CPU (AVX-512) IREE 3.13's direct channels-last conv code runs near the machine's peak
where the output has many positions (a 3x3 64->64 conv at 56x56: 517 us, ~450 GFLOP/s on 2 cores),
which none of the NCHW strategies reach (Winograd, im2col + matmul). Rewriting a conv alone would put
two activation transposes around it; IREE's own passes convert every conv and then move the
transposes through the elementwise ops, pads, pools and reshapes between convs until they cancel,
leaving one transpose of the model input and constant filter transposes (folded at compile time).
They are run here, in process, on the Linalg the planner then sees:
`iree-preprocessing-convert-conv-to-channels-last` and `iree-global-opt-propagate-linalg-transpose`,
then canonicalize + cse.

Measured 2026-11-30 (uncalibrated defaults, paired NHWC / NCHW time of the whole model, builds run
interleaved): Inception-v2 0.87x, DenseNet-121 0.91x, ShuffleNet 1.00x; slower on ResNet-50 1.07x,
VGG-19 1.28x, SqueezeNet 1.66x, Inception-v1 1.92x. Per conv (ResNet-50, per-dispatch profiles) the
channels-last direct conv wins where the output has many positions (the 7x7 stride-2 first conv 520 us
against 1570 us for im2col copy + matmul + pad; 3x3 at 56x56 517 against 808 us of Winograd) and
loses where it has few (3x3 at 7x7: 1689 against 978 us im2col), while our NCHW rewrites (Winograd,
im2col) do not apply to the channels-last convs. So it is the user's choice per model, not the
default, until the cost model prices channels-last convs (they fall under `convolution.generic`
today, predicted ~10x slower than measured) and can choose per conv.
"""
from __future__ import annotations

from ..analysis.describe import describe_function
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind
from ..errors import PlanError
from ..ir import PassManager, ir

LAYOUTS = ("nchw", "nhwc")
PIPELINE = ("func.func(iree-preprocessing-convert-conv-to-channels-last,"
            "iree-global-opt-propagate-linalg-transpose,canonicalize,cse)")


def channels_first(op: OpDesc) -> bool:
    """A convolution (named or generic) whose output channel, the loop only the filter and the output
    read, is not the output's innermost dim: what the conversion rewrites."""
    if op.kind is not OpKind.CONVOLUTION or op.num_dps_inputs != 2 or len(op.map_dims) < 3:
        return False
    inp, flt, out = op.map_dims[0], op.map_dims[1], op.map_dims[-1]
    chans = [k for k, d in enumerate(out) if d >= 0 and d in flt and d not in inp]
    return len(out) >= 3 and bool(chans) and chans[0] < len(out) - 1


def nchw_convs(graph: DataflowGraph) -> int:
    """Channels-first convolutions of a described function."""
    return sum(channels_first(op) for op in graph.ops)


def to_channels_last(func_op: ir.Operation, graph: DataflowGraph) -> int:
    """Rewrite the channels-first convolutions of `func_op` (described by `graph`) to channels-last in
    place; returns how many were rewritten (counted on the function described again after)."""
    n = nchw_convs(graph)
    if n == 0:
        return 0
    try:
        PassManager.parse(PIPELINE, func_op.context).run(func_op)
    except ir.MLIRError as e:
        raise PlanError(f"internal error: the channels-last conversion failed: {' '.join(str(e).split())}") from None
    return n - nchw_convs(describe_function(func_op, "-")[0])
