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
_ALIASES = {"llvm-cpu": "host", "cpu": "host", "cuda": "sm_80"}
# Known to IREE as a name but not compilable with flags alone in 3.13.
_UNSUPPORTED = {
    "sm_90": "sm_90 is not a known --iree-cuda-target in IREE 3.13 (it needs an explicit hal.device.targets "
             "attribute with an #iree_gpu.target); use 'sm_80'",
}

# Fusion modes. "iree": IREE forms dispatches itself. "greedy"/"none": our transforms write
# flow.dispatch.region ops; IREE keeps them as dispatch boundaries with no extra flag (verified:
# two hand-written regions -> 2 dispatches, IREE alone fuses the same ops into 1).
FUSION_FLAGS: dict[str, tuple[str, ...]] = {"iree": (), "greedy": (), "none": ()}


def target_names() -> list[str]:
    return sorted([*_TARGETS, *_ALIASES, *_UNSUPPORTED])


def get_target(name: str) -> Target:
    """Look a target up by name or alias; unknown or unsupported names raise UnsupportedError."""
    key = _ALIASES.get(name, name)
    if key in _TARGETS:
        return _TARGETS[key]
    if key in _UNSUPPORTED:
        raise UnsupportedError(_UNSUPPORTED[key], f"target '{name}'")
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
