"""Target names -> IREE compiler flags and runtime driver (verified on iree-base-compiler 3.13).

Only names listed here reach IREE: an unknown `--iree-cuda-target` value aborts the whole process
inside the compiler (LLVM fatal error, not a diagnostic), so we refuse unknown names up front.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ..errors import UnsupportedError

_LOCAL = ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu")


@dataclass(frozen=True)
class Target:
    """One compile target: IREE flags, the runtime driver that runs it, and a one-line note."""

    name: str
    flags: tuple[str, ...]
    driver: str  # iree.runtime driver: local-task | local-sync | cuda | vulkan
    note: str = ""
    # A `hal.device.targets` attribute set on the module before compiling, for chips IREE knows by name but
    # has no target details for (sm_90: "missing GPU target in #hal.executable.target" from the flag alone).
    device_targets: str | None = None

    @property
    def is_cpu(self) -> bool:
        return self.driver.startswith("local")

    @property
    def runnable(self) -> bool:
        """Whether this machine has a device for the driver (CPU targets always do)."""
        return driver_available(self.driver)


_TARGETS: dict[str, Target] = {
    "host": Target("host", (*_LOCAL, "--iree-llvmcpu-target-cpu=host"), "local-task",
                   "llvm-cpu with every feature of this CPU (AVX-512 here)"),
    "cpu-generic": Target("cpu-generic", (*_LOCAL, "--iree-llvmcpu-target-cpu=generic"), "local-task",
                          "llvm-cpu without host features: portable, slower"),
    "sm_80": Target("sm_80", ("--iree-hal-target-device=cuda", "--iree-cuda-target=sm_80"), "cuda", "NVIDIA Ampere"),
    "vulkan": Target("vulkan", ("--iree-hal-target-device=vulkan", "--iree-vulkan-target=ampere"), "vulkan",
                     "SPIR-V for an Ampere-class GPU"),
}
# IREE 3.13's sm_80 description (printed by `--compile-to=executable-targets`) with Hopper's arch, PTX 8.0
# and 227 KiB of shared memory per workgroup. The same MMA intrinsics: IREE's CUDA codegen has no wgmma.
_SM90_DEVICE = (
    '[#hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = '
    '#iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, '
    'storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, '
    '<NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_WMMA_F32_16x16x16_F16>, '
    '<NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 1024], '
    'max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, '
    'max_workgroup_counts = [2147483647, 65535, 65535]>>}>]> : !hal.device]')
_TARGETS["sm_90"] = Target("sm_90", ("--iree-hal-target-device=cuda",), "cuda", "NVIDIA Hopper (H100 / H200)",
                           _SM90_DEVICE)
_ALIASES = {"llvm-cpu": "host", "cpu": "host", "cuda": "sm_80"}

# Fusion modes. "iree": IREE forms dispatches itself. "greedy"/"none": our transforms write
# flow.dispatch.region ops; IREE keeps them as dispatch boundaries with no extra flag (verified:
# two hand-written regions -> 2 dispatches, IREE alone fuses the same ops into 1).
FUSION_FLAGS: dict[str, tuple[str, ...]] = {"iree": (), "greedy": (), "none": ()}


def target_names() -> list[str]:
    return sorted([*_TARGETS, *_ALIASES])


def get_target(name: str) -> Target:
    """Look a target up by name or alias; unknown or unsupported names raise UnsupportedError."""
    key = _ALIASES.get(name, name)
    if key in _TARGETS:
        return _TARGETS[key]
    raise UnsupportedError(f"unknown target; choose one of {', '.join(target_names())}", f"target '{name}'")


def fusion_flags(mode: str) -> tuple[str, ...]:
    if mode not in FUSION_FLAGS:
        raise UnsupportedError(f"unknown fusion mode '{mode}'; choose one of {', '.join(FUSION_FLAGS)}")
    return FUSION_FLAGS[mode]


@functools.lru_cache(maxsize=None)
def driver_available(driver: str) -> bool:
    """True when the runtime has the driver and it sees at least one device.

    The wheel ships cuda/vulkan drivers even on machines without a GPU, so listing drivers is
    not enough: ask the driver for devices.
    """
    if driver.startswith("local"):
        return True
    import iree.runtime as rt

    if driver not in rt.query_available_drivers():
        return False
    try:
        return len(rt.get_driver(driver).query_available_devices()) > 0
    except Exception:  # driver present but no loader/device (no libcuda, no ICD)
        return False
