"""The pattern registry: canonical shapes recognized on the Linalg graph by structure (maps, iterators,
body ops), each with why it pays and what is done with it.

Two sorts. *Rewrites* change the IR before planning (`conv-bn` folds constant affine chains into the
weights, `sibling-matmuls` stacks Q/K/V-style projections where the cost model predicts a gain).
*Grouping* patterns are shapes the planner must keep in one dispatch (softmax, LayerNorm, conv/matmul
epilogues, ...): they are matched on the planned graph and reported with the group that holds them;
disabling one bars its ops from merging, so its gain can be measured against the split form.
Matchers never look at ONNX op names, so they fire on hand-written `.mlir` too.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..analysis.opdesc import DataflowGraph
from . import match


@dataclass(frozen=True)
class Pattern:
    name: str
    why: str                                                        # why the shape is worth recognizing
    strategy: str                                                   # what is done with it
    find: Callable[[DataflowGraph], list[tuple[int, ...]]]          # hits: the ops of each occurrence
    rewrite: bool = False                                           # applied to the IR before planning


PATTERNS: tuple[Pattern, ...] = (
    Pattern("dead-taps", "an atrous conv on a small image reads its outer window taps only from zero padding "
            "(DeepLabV3's ASPP 3x3 convs with dilation 24 and 36 on 14x14: eight of nine taps), yet computes "
            "them: a 9x window copy and a 9x deeper matmul", "the conv rebuilt over the taps that read real "
            "input: filter sliced, input re-padded or cropped, a one-tap window dim dropped (a 1x1 conv): exact "
            "for a finite constant filter (rewrites/dead_taps.py)", match.dead_taps, rewrite=True),
    Pattern("conv-bn", "inference BatchNorm (and a bias add) after a conv/matmul is y*s[c]+b[c] with constant "
            "s, b: 4-5 elementwise ops per output element", "folded into the weights and one bias add; "
            "s, b and the scaled weights are evaluated by IREE at compile time", match.conv_bn, rewrite=True),
    Pattern("bias-epilogue", "a conv/matmul accumulating into its bias broadcast to the whole output reads (or, "
            "past IREE's const-eval size limit, computes in a dispatch of its own) an output-sized tensor per call",
            "accumulate into a zero fill, add the [F] bias in an epilogue that joins the contraction's group "
            "(rewrites/bias_epilogue.py)", match.bias_epilogue, rewrite=True),
    Pattern("conv3d-slices", "IREE 3.13 has no fast CPU path for a 3-D conv: a 16 -> 32 3x3x3 conv over 8x16x16 "
            "ran at 7-9 GFLOP/s in either layout (6.4-7.8 ms), 0.82 ms as im2col + matmul (its window copy 0.55)",
            "one 2-D conv per kernel plane over the output depths as a batch, each reading a strided depth slice "
            "(a view) and accumulating into the previous one's result; the 2-D convs then get the 2-D strategies "
            "(channels-last 0.36 ms); a depth-only (3, 1, 1) kernel's planes as matmuls over the input viewed "
            "channels-last [D, H*W, C]; CPU targets only (rewrites/conv3d.py)", match.conv3d_slices, rewrite=True),
    Pattern("conv-transpose-phases", "ONNX ConvTranspose imports as a conv over the input spread out with zeros "
            "(a strided insert into a zero fill): at stride 2, three of four products of a 2-D one multiply an "
            "inserted zero (a VAE decoder's 4x4 stride-2 up-convs, a U-Net's 2x2 ones)", "one stride-1 conv over "
            "the input with each output phase's filter taps stacked as output channels, then a depth-to-space "
            "transpose and a crop; the stacked conv gets the conv strategies (a k = s kernel is a matmul): "
            "1/s^2 of the products (rewrites/conv_transpose.py)", match.conv_transpose_phases, rewrite=True),
    Pattern("pool-conv-swap", "a sum/average pool and a 1x1 conv commute (both linear): Inception's pool branch "
            "pads and pools a 192-576 channel concat before projecting it to 32-128 channels, DenseNet's "
            "transitions run a 1x1 conv on 4x the pixels their 2x2 stride-2 pool keeps",
            "the 1x1 conv first where it has no more output than input channels (the pad and pool see its "
            "channels), the strided pool first where the conv's products saved outweigh the pool's adds: exact "
            "in real arithmetic (rewrites/pool_conv.py)", match.pool_conv_swap, rewrite=True),
    Pattern("quant-pair", "QDQ models wrap every activation in QuantizeLinear -> DequantizeLinear: an f32 -> i8 op "
            "and an i8 -> f32 op the planner keeps apart (a prologue of a conv, or after a concat): a dispatch and "
            "an i8 round trip per activation", "the two bodies as one elementwise op over the quantize's domain "
            "(a reshape between them moved after it), an epilogue of the op before: exact (rewrites/quant_pair.py)",
            match.quant_pair, rewrite=True),
    Pattern("transposed-gather", "PyTorch's multi-head attention splits its packed QKV projection by a transposing "
            "copy of the whole projection read by three constant-index Gathers (`tensor.extract` in a body, which no "
            "fusion composes): a copy dispatch per attention layer", "each extract of the copy reads the copy's "
            "source at the permuted indices and the copy is erased: exact (rewrites/transposed_gather.py)",
            match.transposed_gather, rewrite=True),
    Pattern("slice-concat", "rotary embeddings' rotate_half, cat(-x[..., h:], x[..., :h], -1), is slices, a negate "
            "and an innermost-dim concat, which IREE lowers by transposing every piece and the result (three copy "
            "dispatches) with the rotary multiply-add split around them", "one elementwise op over the concat's "
            "result reading the slices' source row at a selected column (`tensor.extract`), each piece's body "
            "selected by `linalg.index`: it fuses with the rotary arithmetic; exact (rewrites/slice_concat.py)",
            match.slice_concat, rewrite=True),
    Pattern("sort-topk", "ONNX TopK imports as a sort of the whole row and slices of its first k entries; IREE "
            "sorts each row with scalar code quadratic in its length (DGCNN's k = 8 of 64: 515 us per TopK)",
            "`iree_linalg_ext.topk`: one pass keeping the k best per row, indices widened to i64; exact, ties "
            "included (rewrites/sort_topk.py)", match.sort_topk, rewrite=True),
    Pattern("int-matmul-narrow", "quantized models' integer matmuls import as i32 x i32 -> i64 (torch's integer "
            "matmul), which IREE runs as scalar-width i64 arithmetic (128x768x3072: 17 ms); i16 x i16 -> i32 is "
            "data-tiled (2.3 ms)", "operands whose values provably fit i16 (extensions of 8-bit values, zero "
            "points subtracted) truncated to i16, an i64 accumulator read only through truncations to i32 made "
            "i32: exact (rewrites/int_narrow.py)", match.int_matmul_narrow, rewrite=True),
    Pattern("unit-batch-matmul", "a batch matmul over a batch of one (ONNX MatMul of [1, S, H] by a weight), or "
            "over one weight broadcast across the batch (a Linear on a 4-D channels-last activation), is not "
            "data-tiled by IREE; the same matmul in 2-D gets packed mmt4d tiles, and the broadcast copy goes",
            "operands viewed as 2-D (the batch folded into M, the broadcast's 2-D weight read directly), one "
            "linalg.matmul, the result expanded back below its epilogue (rewrites/unit_batch.py)", match.unit_batch_matmul, rewrite=True),
    Pattern("bmm-tiles", "IREE's llvm-cpu vector tiles divide a batch matmul's M and N: a prime length (ViT's "
            "197 tokens) leaves tiles of 1, the scores matmul ran 3.3-4.0 ms instead of 0.26",
            "IREE's own peeled 8 x 8 register tile attached as a compilation_info, CPU targets only "
            "(rewrites/bmm_tiles.py)", match.bmm_tiles, rewrite=True),
    Pattern("conv-layout", "IREE's channels-last direct conv runs near the CPU's peak on wide images (ResNet-50's "
            "7x7/2 first conv 0.54 ms against 1.5 ms as NCHW im2col + matmul), the NCHW strategies win on small "
            "or odd-width ones; a depthwise conv is vectorized along its channels, a gather when they come first "
            "(96x56x56 7x7: 8.7 ms NCHW, 0.74 NHWC)", "per windowed or depthwise conv, with layout=auto, by the "
            "cost model: channels-last between transposes (IREE's propagation cancels those between converted "
            "convs) against its best NCHW strategy (rewrites/layout.py)", match.conv_layout, rewrite=True),
    Pattern("winograd", "a 3x3 stride-1 conv as im2col + matmul writes 9x its input and does 9 x C products per "
            "output; Winograd F(6x6, 3x3) does 64 products per 36 outputs and channel (ResNet-50's 64x56x56 "
            "3x3: 4.3 -> 1.4 ms)", "per conv, by the cost model against its best other strategy: IREE's "
            "input transform, one batch matmul (IREE's tiles, not data-tiled), output transform; filters "
            "transformed at compile time (rewrites/winograd.py)", match.winograd, rewrite=True),
    Pattern("conv-strategy", "IREE's direct NCHW conv code is scalar along the window and cannot use data tiling; "
            "as a matmul it gets packed mmt4d tiles (ResNet-50: 729 -> 95 ms in IREE's own build)",
            "per conv, by the cost model: direct, or a window copy (im2col) + one 2-D matmul "
            "(rewrites/im2col.py)", match.conv_strategy, rewrite=True),
    Pattern("depthwise-taps", "IREE's depthwise conv code (no channel reduction, so no matmul form) ran at ~2 "
            "GFLOP/s in either layout; as one elementwise op over the window taps it is vectorized along the row "
            "(ShuffleNet's 136x28x28 3x3: 1.0 -> 0.32 ms)", "per depthwise conv, by the cost model: direct, or "
            "init + sum over taps of a strided input slice x a filter column (rewrites/depthwise.py)",
            match.depthwise_taps, rewrite=True),
    Pattern("grouped-taps", "IREE 3.13's grouped conv code is slow when groups are narrow: ResNeXt-50's layer-1 "
            "3x3 conv (32 groups of 4 channels, 56x56) ran 3.5 ms direct, 4.2 ms channels-last, ~2.4 ms-class as "
            "im2col + a matmul batched over the groups", "per grouped conv with 2-8 input channels a group, by the "
            "cost model against direct and im2col: one elementwise op per input channel of the group adding its "
            "window taps (input slice x filter column) to the previous result, fused by the planner into one "
            "dispatch (0.27 ms); CPU targets only (rewrites/grouped_taps.py)", match.grouped_taps, rewrite=True),
    Pattern("pool-taps", "IREE's code for a window reduction (max/sum pooling, LRN's channel-window sum) is not "
            "vectorized along the output row (ResNet-50's 3x3 max pool: 0.4-0.7 ms for a 3.2 MB read)",
            "per window reduction whose input rows are contiguous, by the cost model: one elementwise op over "
            "the output combining a strided input slice per tap (Inception-v1: 0.86x) (rewrites/pool_taps.py)", match.pool_taps, rewrite=True),
    Pattern("sibling-matmuls", "matmuls reading one input with constant weights (Q/K/V) can share one launch "
            "and one read of the input", "stacked into one contraction where the cost model predicts a gain "
            "(rewrites/siblings.py)", match.sibling_matmuls, rewrite=True),
    Pattern("attention-op", "QK^T, scale, softmax, PV split in three dispatches write and read the score matrix "
            "between each; IREE's fused attention op tiles them with an online softmax, scores never in memory",
            "per chain, by the cost model: kept split (three groups), or one iree_linalg_ext.attention "
            "(rewrites/attention.py; on this CPU IREE 3.13's op runs ~20x slower, so it is taken on GPU targets)",
            match.attention_op, rewrite=True),
    Pattern("conv-epilogue", "bias, BatchNorm, activation and residual add written once from registers instead "
            "of a round trip to memory each", "one group with its conv/matmul (rule root-space)", match.conv_epilogue),
    Pattern("pad-conv", "a conv's zero padding as a separate copy costs a dispatch and a full read/write",
            "the producer writes straight into the padded buffer: IREE's own (handoff `padded`) or a region of "
            "ours whose result has the padded layout (or is a whole 7x7 image to split into rows), ending with an insert "
            "into it (transforms/padded_results.py); a "
            "matmul's epilogue handed to IREE to be written in place where the cost model says so (the matmul stays "
            "collapsible, no copy: fusion/epilogue_split.py; DenseNet-121 0.91x); a matmul result padded for stride-1 window "
            "taps padded flat, the taps flat slices with their column shifts masked (transforms/flat_taps.py; "
            "Inception-v2 copies 9 -> 3)", match.pad_conv),
    Pattern("linear-gelu", "GELU (erf or tanh form) after a matmul: a transcendental epilogue that is free when "
            "fused into the matmul's output tile", "one group with the matmul", match.linear_gelu),
    Pattern("silu", "x*sigmoid(x) and x*sigmoid(1.702x): the sigmoid's result never needs memory",
            "one elementwise group", match.silu),
    Pattern("softmax", "max, exp, sum and divide over a row: 4 passes unfused, one fused",
            "linalg.softmax (raised at import), one dispatch", match.softmax),
    Pattern("layernorm", "mean and variance of a row (multi-reduction) plus normalization: IREE's default "
            "formation makes 2 dispatches", "one row-wise multi-reduction group (rule reduction)", match.layernorm),
    Pattern("rmsnorm", "mean of squares and rsqrt scale of a row, like LayerNorm without the mean",
            "one row-wise multi-reduction group", match.rmsnorm),
    Pattern("attention", "QK^T, scale, softmax, V: the score matrix is the largest intermediate",
            "QK^T with its scale in one group, softmax one, PV one, where `attention-op` keeps it split (IREE "
            "3.13 does not form its fused attention op from Linalg input itself)", match.attention),
    Pattern("elementwise-chain", "elementwise ops of any length need one read and one write when fused",
            "one group", match.elementwise_chain),
)
PATTERN_NAMES = tuple(p.name for p in PATTERNS)


def get(name: str) -> Pattern:
    for p in PATTERNS:
        if p.name == name:
            return p
    raise KeyError(name)


def hits(graph: DataflowGraph, disabled: Iterable[str] = ()) -> dict[str, list[tuple[int, ...]]]:
    """Occurrences of every enabled pattern in `graph` (rewrites: what is left to rewrite)."""
    off = set(disabled)
    return {p.name: p.find(graph) for p in PATTERNS if p.name not in off}


def list_patterns() -> str:
    w = max(len(p.name) for p in PATTERNS)
    rows = [f"{p.name:{w}s} {'rewrite' if p.rewrite else 'grouping':8s} {p.why}\n{'':{w + 9}s}-> {p.strategy}"
            for p in PATTERNS]
    return "\n".join(rows)
