"""The `host` target: this machine's description, read from sysfs / cpuinfo and a short measurement.

Spec sheets do not say what a VM slice of a server CPU achieves, so peak FLOP/s and bandwidths are
measured with numpy (OpenBLAS sgemm for peak, multi-threaded streaming adds for bandwidth; about
1 s) and cached as JSON keyed by CPU model and core count: later processes read the file. Calibrated
constants are stored next to it (`<key>.calibration.json`), applied on load with $FUSION_OPT_CALIBRATED=1.
"""
from __future__ import annotations

import json
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .targets import CacheLevel, TargetDesc, from_json, to_json, with_calibration

# How many times this process ran the microbenchmark (tests check the cache with it).
MEASUREMENTS = 0
_MEMO: dict[str, TargetDesc] = {}


def cache_dir() -> Path:
    """$FUSION_OPT_CACHE/targets, else <repo>/.cache/targets (repo = nearest pyproject.toml), else ~/.cache."""
    env = os.environ.get("FUSION_OPT_CACHE")
    if env:
        return Path(env) / "targets"
    for p in Path(__file__).resolve().parents:
        if (p / "pyproject.toml").exists():
            return p / ".cache" / "targets"
    return Path.home() / ".cache" / "fusion-opt" / "targets"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown-cpu"


def cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def vector_bits(flags: set[str]) -> int:
    """The widest x86 SIMD register the cpuinfo `flags` name (what IREE's llvm-cpu codegen vectorizes to)."""
    return 512 if "avx512f" in flags else 256 if "avx2" in flags or "avx" in flags else 128


def cpu_hz() -> float:
    """Nominal clock from /proc/cpuinfo ("cpu MHz"); used only to size L1 bandwidth (2 loads per cycle)."""
    try:
        m = re.search(r"cpu MHz\s*:\s*([\d.]+)", Path("/proc/cpuinfo").read_text())
        return float(m.group(1)) * 1e6 if m else 2.5e9
    except OSError:
        return 2.5e9


def num_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _size(text: str) -> int:
    m = re.match(r"(\d+)([KMG]?)", text.strip())
    if not m:
        return 0
    return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)]


def sysfs_caches() -> list[tuple[str, int, bool]]:
    """(name, size of one instance, private) for data/unified caches of cpu0, innermost first."""
    out = []
    for d in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            if (d / "type").read_text().strip() == "Instruction":
                continue
            level = int((d / "level").read_text())
            shared = (d / "shared_cpu_list").read_text().strip()
            private = not ("-" in shared or "," in shared)
            out.append((f"L{level}", _size((d / "size").read_text()), private))
        except (OSError, ValueError):
            continue
    return out or [("L1", 32 << 10, True), ("L2", 512 << 10, True), ("L3", 8 << 20, False)]


def _parallel_add_bw(total_bytes: int, threads: int, min_time: float) -> float:
    """B/s of `threads` concurrent numpy adds (z = x + y, 3 streams) over `total_bytes` of arrays."""
    import numpy as np
    n = max(1024, total_bytes // 12 // threads)
    bufs = [(np.ones(n, np.float32), np.ones(n, np.float32), np.empty(n, np.float32)) for _ in range(threads)]
    reps = max(1, int(2e8 // (12 * n * threads)))

    def work(b: tuple[Any, Any, Any]) -> None:
        for _ in range(reps):
            np.add(b[0], b[1], out=b[2])

    best = float("inf")
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(work, bufs))  # warm-up: page faults, thread start
        deadline = time.perf_counter() + min_time
        while True:
            t = time.perf_counter()
            list(pool.map(work, bufs))
            best = min(best, time.perf_counter() - t)
            if time.perf_counter() > deadline:
                break
    return 12 * n * threads * reps / best


def _sgemm_flops(n: int = 1024, min_time: float = 0.25) -> float:
    """Best sgemm rate over at least `min_time` s of runs. The measurement is cached per checkout, so a
    moment of load must not stick: best of 3 runs (~20 ms) cached 137 GFLOP/s on a VM that reads 327-369
    idle (2026-12-05), which every efficiency fitted against it then carries."""
    import numpy as np
    a = np.random.default_rng(0).random((n, n), dtype=np.float32)
    b = a.T.copy()
    a @ b
    best = float("inf")
    deadline = time.perf_counter() + min_time
    while True:
        t = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t)
        if time.perf_counter() > deadline:
            break
    return 2 * n**3 / best


def measure() -> dict[str, float]:
    """Peak f32 FLOP/s (numpy sgemm 1024^3, all cores) and bandwidths (streaming adds sized to DRAM, to
    half the LLC and to half of L2 per core). About a second."""
    global MEASUREMENTS
    MEASUREMENTS += 1
    cores = num_cores()
    caches = {name: (size, private) for name, size, private in sysfs_caches()}
    out = {"f32": _sgemm_flops(), "dram": _parallel_add_bw(256 << 20, cores, 0.2)}
    for name, (size, private) in caches.items():
        if name == "L1":
            continue  # numpy call overhead dominates L1-sized arrays: derived from the clock instead
        total = size // 2 * (cores if private else 1)
        out[name] = _parallel_add_bw(total, cores, 0.1)
    return out


def build_host(measured: dict[str, float]) -> TargetDesc:
    """TargetDesc from sysfs/cpuinfo facts plus `measured` rates (see `measure`)."""
    flags, cores = cpu_flags(), num_cores()
    vbits = vector_bits(flags)
    f32 = measured["f32"]
    # Other types scale with SIMD lanes per op on this ISA (no native f16 math without avx512fp16:
    # converted to f32, so counted at half rate).
    peaks = {"f32": f32, "f64": f32 / 2, "i32": f32, "i64": f32 / 2,
             "f16": f32 * (2 if "avx512fp16" in flags else 0.5),
             "bf16": f32 * (2 if "avx512_bf16" in flags else 0.5),
             "i8": f32 * (4 if {"avx512_vnni", "avx_vnni"} & flags else 2)}
    l1_bw = 2 * (vbits // 8) * cpu_hz() * cores  # two vector loads per cycle per core
    caches = []
    for name, size, private in sysfs_caches():
        bw = l1_bw if name == "L1" else measured.get(name, measured["dram"])
        caches.append(CacheLevel(name, size, max(bw, measured["dram"]), private))
    feats = tuple(sorted(f for f in flags if f in {"avx", "avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16",
                                                     "avx512fp16", "avx_vnni", "amx_tile", "f16c"}))
    return TargetDesc(
        name="host", kind="cpu", peak_flops=tuple(sorted(peaks.items())), vector_bits=vbits,
        dram_bw=measured["dram"], caches=tuple(caches), cores=cores, launch_s=5e-6,
        registers=32 if vbits == 512 else 16, register_bits=vbits, max_workgroup_size=1, features=feats,
        bw_fraction=(("cache", 1.0), ("dram", 1.0)),  # measured rates are already effective
        source=f"measured on {cpu_model()} ({cores} cores): numpy sgemm 1024^3, streaming adds; caches from sysfs",
    )


def host_key() -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", f"{cpu_model()}-{num_cores()}c").strip("-").lower()


def calibration_path(directory: Path | None = None) -> Path:
    return (directory or cache_dir()) / f"host-{host_key()}.calibration.json"


def store_calibration(constants: dict[str, Any], directory: Path | None = None) -> Path:
    """Persist calibrated constants for this host (applied by every later `host_target`)."""
    path = calibration_path(directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(constants, indent=2, sort_keys=True) + "\n")
    _MEMO.clear()
    return path


def load_calibration(directory: Path | None = None) -> dict[str, Any]:
    path = calibration_path(directory)
    return json.loads(path.read_text()) if path.exists() else {}


# Planning uses a stored calibration only when asked: $FUSION_OPT_CALIBRATED=1 (or `calibrated=True`).
# Why: the calibration fits per-dispatch accuracy on the forms the plans chose, while the default constants
# rank the forms the planner chooses between (each conv direct, channels-last, im2col or Winograd) from
# sweeps that timed all of them and from paired A/Bs. Measured 2026-12-05 on this 2-core VM: held-out median
# error 51% -> 24% with a per-key fit, yet its plans ran slower (ZFNet-512 1.35x, AlexNet and Inception-v2
# 1.17x); with one factor on all efficiencies (the default fit) VGG-19, Inception-v2 and DenseNet-121 still
# ran 1.05-1.07x slower. $FUSION_OPT_UNCALIBRATED=1 (the test suites set it) overrides either.
CALIBRATED_ENV = "FUSION_OPT_CALIBRATED"
UNCALIBRATED_ENV = "FUSION_OPT_UNCALIBRATED"


# A target-description JSON (the format of the cached host file) to use as `host` instead of measuring
# this machine: reproducible plans across machines. The test suites set it to test/host-reference.json,
# so that plans, tile sizes and FileCheck expectations do not depend on the CI machine's vector width,
# caches or load (IREE still compiles for the real host CPU).
HOST_DESC_ENV = "FUSION_OPT_HOST_DESC"


def host_target(directory: Path | None = None, *, remeasure: bool = False,
                calibrated: bool | None = None) -> TargetDesc:
    """This machine, measured once and cached (in memory and as `<dir>/host-<key>.json`: the measured rates,
    rebuilt into a description by this version's code on every load, plus that description to read), with the
    calibration stored next to it when `calibrated` (None: when $FUSION_OPT_CALIBRATED=1 and not
    $FUSION_OPT_UNCALIBRATED=1; see CALIBRATED_ENV), or the description $FUSION_OPT_HOST_DESC names (never
    calibrated, never measured)."""
    fixed = os.environ.get(HOST_DESC_ENV) if directory is None and not remeasure else None
    if fixed:
        if fixed not in _MEMO:
            try:
                t = from_json(json.loads(Path(fixed).read_text()))
            except (OSError, ValueError, TypeError, KeyError) as e:
                raise ValueError(f"${HOST_DESC_ENV}={fixed}: not a target description ({e})") from None
            _MEMO[fixed] = t
        return _MEMO[fixed]
    if calibrated is None:
        calibrated = os.environ.get(CALIBRATED_ENV) == "1" and os.environ.get(UNCALIBRATED_ENV) != "1"
    directory = directory or cache_dir()
    path = directory / f"host-{host_key()}.json"
    memo = f"{path}{' calibrated' if calibrated else ''}"
    if remeasure:  # both forms of this file's description are stale
        _MEMO.pop(str(path), None)
        _MEMO.pop(f"{path} calibrated", None)
    elif memo in _MEMO:
        return _MEMO[memo]
    t = None
    if path.exists() and not remeasure:
        try:  # only the measured rates are kept: the model's constants come from this version's code
            t = build_host({k: float(v) for k, v in json.loads(path.read_text())["measured"].items()})
        except (ValueError, TypeError, KeyError, AttributeError):
            t = None  # stale format (a whole description, constants of an older version): measure again
    if t is None:
        measured = measure()
        t = build_host(measured)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"measured": measured, "target": to_json(t)}, indent=2, sort_keys=True) + "\n")
    cal = {} if not calibrated else {k: v for k, v in load_calibration(directory).items() if k != "provenance"}
    if cal:  # provenance: facts only, never applied
        t = with_calibration(t, cal)
    _MEMO[memo] = t
    return t
