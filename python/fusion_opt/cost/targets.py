"""Hardware descriptions for the cost model: frozen, pure data (peak rates, caches, registers, launch cost).

A `TargetDesc` holds spec-sheet or measured figures plus the model's free constants (overlap,
per-kind compute efficiency, effective-bandwidth fractions, tile sizes), so every number a formula
in `model.py` uses is named here and can be replaced by calibration (`with_calibration`) without
touching code. Constant targets ship as JSON files next to this module (`targets/*.json`); `host`
is measured on this machine (see `host.py`).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, NamedTuple

DATA_DIR = Path(__file__).with_name("targets")
ALIASES = {"llvm-cpu": "host", "cpu": "host", "cuda": "sm_80"}
# Free constants that calibration may change (the rest of a TargetDesc is spec or measurement).
CALIBRATABLE = ("overlap", "efficiency", "bw_fraction", "launch_s", "cache_fit", "dispatch_s")


class CacheLevel(NamedTuple):
    """One cache level. `size_bytes` is one instance; `private` levels have one instance per core/SM,
    so the whole chip holds size_bytes x cores. `bandwidth` is the whole chip's (all instances)."""

    name: str
    size_bytes: int
    bandwidth: float
    private: bool = True


Pairs = tuple[tuple[str, float], ...]


def _pairs(d: Mapping[str, float] | Pairs) -> Pairs:
    items = d.items() if isinstance(d, Mapping) else d
    return tuple(sorted((str(k), float(v)) for k, v in items))


@dataclass(frozen=True)
class TargetDesc:
    """One target as data. Rates are per second for the whole chip unless named otherwise."""

    name: str
    kind: str                                  # "cpu" | "gpu"
    peak_flops: Pairs                          # (dtype, FLOP/s); "f16:mma" = matrix units (tensor cores)
    vector_bits: int                           # SIMD width (CPU) / vectorized access width per thread (GPU)
    dram_bw: float                             # B/s
    caches: tuple[CacheLevel, ...]             # innermost first: L1 (/shared), L2, LLC
    cores: int                                 # CPU cores or GPU SMs
    launch_s: float                            # per-dispatch overhead
    registers: int                             # vector registers per core (CPU) / 32-bit registers per thread (GPU)
    register_bits: int                         # width of one register
    shared_mem_per_workgroup: int = 0          # bytes (0 on CPU: no software-managed scratchpad)
    registers_per_sm: int = 0                  # GPU register file per SM (32-bit registers)
    max_workgroup_size: int = 1
    features: tuple[str, ...] = ()             # ISA features ("avx512f", "fma", "tensor-cores")
    # --- free constants (defaults; calibration replaces them) ---
    overlap: float = 0.7                       # in [0, 1]: fraction of min(compute, memory) hidden
    efficiency: Pairs = _pairs({
        "contraction": 0.6, "convolution": 1.0, "elementwise": 0.9, "broadcast": 0.9, "injective": 0.9,
        "reduction": 0.5, "pad": 0.9, "opaque": 0.3,
        # CPU-only refinements (model.efficiency_key / iteration_key): scalar convs (vector tiles not
        # dividing their tiles), strided input reads, convs outside IREE's conv pipeline, and the element
        # iterations of loops that cannot stream (one iteration priced as one f32 FLOP): masked rows,
        # row reductions, transposes. The three direct NCHW conv keys were 0.4 / 0.03 / 0.1 (with a
        # vector utilisation 4-16x lower, tiling.conv_vector_fit) until 2026-12-04, when 41 plain, 12
        # strided and 2 scalar convs measured (tools/sweeps/conv_rates.py) ran at ~170 GFLOP/s, 4-25
        # (F rows 1-16) and 12.5, against ~300 for channels-last ones (`convolution.nhwc` 1.85). The GPU
        # target files keep `convolution` at 0.4 (their convs were never measured against it)
        "convolution.scalar": 0.08, "convolution.strided": 0.14, "convolution.generic": 0.05,
        # a contraction compiled with IREE's data tiling (mmt4d on packed operands: a 4-layer MLP ran
        # its 128x1024x1024 matmuls at 141 GFLOP/s here against the 84 of numpy's sgemm on one core)
        "contraction.data_tiled": 1.5,
        # a batch matmul in IREE's own tiles (not data-tiled): Winograd's 64x100x64x64 ran at 105 GFLOP/s
        # here (0.5 ms), attention's batch matmuls alike; times model.vector_utilisation's row fill. Was
        # 1.1: Inception-v2's 17 Winograd batch matmuls (M = 9, 25, 100) then ran 1.25-1.47x their
        # prediction (2026-12-01; `fusion-bench calibrate` had fitted 0.848 on this host). At 0.85 the
        # 14x14 Winograd convs of ResNet-50 and Inception-v2 go to im2col: paired 0.92-0.93x, 0.95-0.96x;
        # DenseNet-121, Inception-v1, SqueezeNet, VGG-19 and ShuffleNet plan the same
        "contraction.batch": 0.85,
        # a contraction whose M or N loops do not collapse into one (model.split_matmul: a 1x1 conv over a
        # batch as imported): 12 shapes ran at 12-58 GFLOP/s here, 2.4-8.8x their price at `contraction`
        "contraction.split": 0.15,
        # a contraction reading an input with a stride (ResNet-50's stride-2 1x1 convs as matmuls:
        # 1024x14x14x512 at 2.9 GFLOP/s, against 84 for numpy's sgemm on one core)
        "contraction.strided": 0.03,
        # IREE's depthwise conv code (no channel reduction): ShuffleNet's 136x28x28 3x3 at ~2 GFLOP/s
        # (calibrated 0.028 on the host)
        "convolution.depthwise": 0.03,
        # ... and channels-last (rewrites/layout.py, depthwise_perms), vectorized along the channels:
        # 24-42 GFLOP/s on this CPU (iree-benchmark-module, 2026-12-02): 96x56x56 3x3 0.128 ms, 7x7 0.74;
        # 384x14x14 7x7 0.27; 672x14x14 5x5 0.16; 960x7x7 5x5 0.083; 240x14x14 5x5/2 0.096; 32x112x112 3x3
        # 0.26 (a measured f32 peak of ~205)
        "convolution.depthwise.nhwc": 0.15,
        # IREE's channels-last direct conv (rewrites/layout.py): ResNet-50's 3x3 ones at 56x56 and its 7x7
        # stride-2 first conv ran at ~450 GFLOP/s on 2 AVX-512 cores, 1.87x the numpy-sgemm peak
        # (vector_utilisation scales it down for short rows, small images, few channels, big filters;
        # 1.85 until its 2026-12-05 refit on 230 convs, against the 137 GFLOP/s peak of that VM's cached
        # host description, which an idle run measured at 327-369: docs/cost-model.md)
        "convolution.nhwc": 2.65,
        # IREE's code for a window reduction (pooling: not vectorized along the output row): ResNet-50's
        # 3x3 stride-2 max pool, 64x56x56 x 9 taps, took 0.4-0.7 ms here (2.6-4.5 G taps/s; calibrated 0.085)
        "reduction.window": 0.05,
        # IREE's fused attention op (iree_linalg_ext.attention, rewrites/attention.py): on GPUs IREE's
        # tiled online-softmax kernel, priced like other opaque ops until measured. On this CPU IREE
        # 3.13's own tiles ran at 0.6-1.5 GFLOP/s (4x128x128x64 11.6 ms against 0.49 ms split in three),
        # so the rewrite attaches its own (backends/lowering.py, cpu_attention_compilation_info): then
        # 0.88-1.01x the split form at 128 and 512 keys in isolation, 1.02-1.06x inside the suite's
        # attention and BERT blocks, 0.16x at 197 (interleaved, 2026-12-01); 0.7 prices it 1.02-1.09x the
        # split form's prediction for those blocks (with contraction.batch 0.85). 0 on a target means IREE
        # cannot compile it there (Vulkan/SPIR-V in 3.13)
        "attention": 0.3, "attention.cpu": 0.7,
        # IREE's Winograd F(6x6, 3x3) transforms (rewrites/winograd.py), priced per FLOP of their dense
        # tile products (classify.winograd_flops). Measured on this CPU (64 channels, 56x56): input
        # transform 13.1 MFLOP in ~0.52 ms, output transform 8.6 MFLOP in ~0.27 ms (25-32 GFLOP/s). Not
        # offered on GPUs (0) until measured there
        "winograd": 0.0, "winograd.cpu": 0.3,
        # an input transform over at most 2 tiles along a dim (a 7x7 image): DenseNet's 128-channel ones
        # ran at 9 GFLOP/s (1.05 MFLOP in 118 us, 2x2 tiles) against 68 for 3x3 tiles (a peak of ~239)
        "winograd.cpu.few": 0.04,
        # the output transform, re-measured 2026-12-01 (IREE 3.13, this CPU): ResNet-50's 64-channel 10x10
        # tiles 51.5 us, 128-channel 5x5 25.6, 256-channel 3x3 27.8; SqueezeNet's 64-channel 10x10 53.4,
        # i.e. 1.8-2.7x faster than at winograd.cpu's 0.3 (129.5, 67.8, 50.1 us predicted)
        "winograd.cpu.output": 0.7,
        "iteration.masked": 0.01, "iteration.reduction": 0.02, "iteration.transposed": 0.02,
        # a transpose whose input rows, once IREE collapses loops, are shorter than a vector (a broadcast
        # loop in between keeps them apart: an upsample-add written channels-last, FPN's 16x2x2x16x2x2x48
        # one 819 us, predicted 86 at `iteration.transposed`): 1.7-4.1 ns per element over six such ops
        # (2026-12-05, 2-core AVX-512), plain transposes 0.1-0.5
        "iteration.transposed.short": 0.0035,
        # an im2col window copy (model.iteration_key): 0.8-1.2 G elements/s on this 2-core CPU (SqueezeNet's
        # 16x3x3x55x55 copy 0.57 ms, its 3x3x3x111x111 one 0.38 ms, 48x3x3x13x13 0.085 ms) against a
        # measured f32 peak of ~94-150 GFLOP/s
        "iteration.window": 0.008})
    # achieved / nominal bandwidth per level ("dram", "L1", ...); "cold" (absent: 1) scales the shared
    # level's rate for data other cores wrote (CPUs, model.cold_s)
    bw_fraction: Pairs = _pairs({"dram": 0.8})
    cache_fit: float = 0.5                     # usable fraction of a cache for one group's working set
    dispatch_s: float = 1e-6                   # fixed execution time of a dispatch (scheduling its
    #                                            workgroups on the workers), inside its duration unlike launch_s
    # GPUs: seconds per FLOP of one thread's dependent chain (0: no such term). IREE's GPU code reduces
    # over an outer dim (the parallel dim innermost) with one thread per output (per 4 when the parallel
    # extent is a multiple of 128), serially: a group's prologue runs in that loop (model.serial_s)
    serial_flop_s: float = 0.0
    tile_elems: Pairs = _pairs({"elementwise": 64, "reduction": 64, "default": 64})  # output elems per tile
    matmul_tile: int = 64                      # M and N edge of a contraction/conv workgroup tile
    # --- how the compile uses the target (not hardware): changes which code a group runs ---
    data_tiling: bool = False                  # contractions are data-tiled (`--iree-opt-data-tiling`, CPU)
    source: str = ""                           # where the figures come from
    calibrated: tuple[str, ...] = field(default=())  # which free constants came from calibration

    def peak(self, dtype: str, matrix: bool = False) -> float:
        """FLOP/s for `dtype`; `matrix` ops (contraction/conv) use matrix units ("f16:mma") when present.
        Unknown types fall back to f32 (e.g. index arithmetic)."""
        table = dict(self.peak_flops)
        if matrix and f"{dtype}:mma" in table:
            return table[f"{dtype}:mma"]
        return table.get(dtype, table.get("f32", max(table.values())))

    def efficiency_of(self, kind: str) -> float:
        table = dict(self.efficiency)
        return table.get(kind, table.get("opaque", 1.0))

    def bandwidth(self, level: str) -> float:
        """Effective bandwidth of a level ("dram" or a cache name): nominal x bw_fraction[level]."""
        frac = dict(self.bw_fraction)
        nominal = self.dram_bw if level == "dram" else next(c.bandwidth for c in self.caches if c.name == level)
        return nominal * frac.get(level, frac.get("cache", 1.0))

    def capacity(self, level: CacheLevel) -> float:
        """Bytes of `level` one group may use: all instances x cache_fit."""
        return level.size_bytes * (self.cores if level.private else 1) * self.cache_fit

    def tile(self, kind: str) -> int:
        table = dict(self.tile_elems)
        return int(table.get(kind, table.get("default", 64)))

    @property
    def lanes_f32(self) -> int:
        return self.lanes(4)

    def lanes(self, elem_bytes: int) -> int:
        """Elements of `elem_bytes` bytes in one SIMD vector (at least 1)."""
        return max(1, self.vector_bits // (8 * elem_bytes))

    @property
    def private_cache_bytes(self) -> int:
        """One core's largest private cache (0 when none is described)."""
        return max((c.size_bytes for c in self.caches if c.private), default=0)

    @property
    def spirv(self) -> bool:
        """Compiled to SPIR-V (IREE's Vulkan backend): its own miscompiles (fusion/handoff.py)."""
        return "spirv" in self.features

    @property
    def packed_cols(self) -> int:
        """Columns of a data-tiled f32 matmul's packed right-hand tile on a CPU (IREE's mmt4d N0): a
        vector, 16 with AVX-512 (`innerTileSizes = [16, 1]` here), 8 with AVX2 or NEON."""
        return max(8, self.lanes_f32)


def to_json(t: TargetDesc) -> dict[str, Any]:
    d = asdict(t)
    for k in ("peak_flops", "efficiency", "bw_fraction", "tile_elems"):
        d[k] = dict(getattr(t, k))
    d["caches"] = [c._asdict() for c in t.caches]
    d["features"] = list(t.features)
    d["calibrated"] = list(t.calibrated)
    return d


def from_json(d: Mapping[str, Any]) -> TargetDesc:
    """Inverse of `to_json`; missing free constants keep their defaults, unknown keys are an error."""
    known = {f.name for f in fields(TargetDesc)}
    extra = set(d) - known - {"comment"}
    if extra:
        raise ValueError(f"unknown TargetDesc fields: {sorted(extra)}")
    kw: dict[str, Any] = {k: v for k, v in d.items() if k in known}
    for k in ("peak_flops", "efficiency", "bw_fraction", "tile_elems"):
        if k in kw:
            base = dict(getattr(TargetDesc, k)) if k in ("efficiency", "tile_elems") else {}
            kw[k] = _pairs({**base, **kw[k]})
    kw["caches"] = tuple(CacheLevel(**c) if isinstance(c, Mapping) else CacheLevel(*c) for c in kw.get("caches", ()))
    for k in ("features", "calibrated"):
        kw[k] = tuple(kw.get(k, ()))
    return TargetDesc(**kw)


def load_json(path: str | Path) -> TargetDesc:
    return from_json(json.loads(Path(path).read_text()))


def save_json(t: TargetDesc, path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(to_json(t), indent=2, sort_keys=True) + "\n")


def with_calibration(t: TargetDesc, constants: Mapping[str, Any]) -> TargetDesc:
    """`t` with free constants replaced (dict-valued ones merged), recorded in `calibrated`."""
    bad = set(constants) - set(CALIBRATABLE)
    if bad:
        raise ValueError(f"not calibratable: {sorted(bad)} (choose from {', '.join(CALIBRATABLE)})")
    kw: dict[str, Any] = {}
    for k, v in constants.items():
        kw[k] = _pairs({**dict(getattr(t, k)), **v}) if isinstance(v, Mapping) else float(v)
    return replace(t, **kw, calibrated=tuple(sorted(set(t.calibrated) | set(constants))))


def _shipped() -> dict[str, Path]:
    return {p.stem: p for p in sorted(DATA_DIR.glob("*.json"))}


def list_target_descs() -> list[str]:
    """Target names (aliases excluded), `host` first."""
    return ["host", *_shipped()]


def get_target_desc(name: str) -> TargetDesc:
    """A target by name or alias ("llvm-cpu"/"cpu" -> host, "cuda" -> sm_80). `host` is measured once per
    machine and cached; calibrated constants stored with it are applied with $FUSION_OPT_CALIBRATED=1."""
    name = ALIASES.get(name, name)
    if name == "host":
        from .host import host_target
        return host_target()
    shipped = _shipped()
    if name not in shipped:
        raise KeyError(f"unknown target '{name}' (choose from {', '.join(list_target_descs() + sorted(ALIASES))})")
    return load_json(shipped[name])


def _si(x: float, unit: str) -> str:
    for scale, p in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= scale:
            return f"{x / scale:.3g} {p}{unit}"
    return f"{x:.3g} {unit}"


def describe_target(t: TargetDesc) -> str:
    """Human-readable table (for `--list-targets`)."""
    peaks = ", ".join(f"{k} {_si(v, 'FLOP/s')}" for k, v in t.peak_flops)
    caches = ", ".join(f"{c.name} {_si(c.size_bytes, 'B')}{'/core' if c.private else ''} @ {_si(c.bandwidth, 'B/s')}"
                       for c in t.caches)
    rows = [
        ("target", f"{t.name} ({t.kind}, {t.cores} {'cores' if t.kind == 'cpu' else 'SMs'})"),
        ("peak", peaks),
        ("vector", f"{t.vector_bits}-bit; {t.registers} x {t.register_bits}-bit registers"
                   + (f"; {t.registers_per_sm} regs/SM" if t.registers_per_sm else "")),
        ("DRAM", _si(t.dram_bw, "B/s")),
        ("caches", caches),
        ("launch", f"{t.launch_s * 1e6:.3g} us; max workgroup {t.max_workgroup_size}"
                   + (f"; shared {_si(t.shared_mem_per_workgroup, 'B')}/workgroup" if t.shared_mem_per_workgroup else "")),
        ("constants", f"overlap {t.overlap:g}, cache_fit {t.cache_fit:g}, dispatch {t.dispatch_s * 1e6:.3g} us, "
                      f"matmul_tile {t.matmul_tile}, "
                      + ", ".join(f"eff[{k}] {v:g}" for k, v in t.efficiency)),
        ("calibrated", ", ".join(t.calibrated) or "no (defaults)"),
        ("source", t.source),
    ]
    if t.features:
        rows.insert(3, ("features", " ".join(t.features)))
    return "\n".join(f"  {k:<11}{v}" for k, v in rows)
