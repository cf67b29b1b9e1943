"""Run compiled modules with `iree.runtime`: numpy in, numpy out, inputs checked before IREE sees them.

Calls are synchronous: the exported function uses IREE's default `sync` ABI (it waits on its own
fences), and results are copied to host numpy arrays before returning, so a timed call covers
upload, every dispatch and download.
"""
from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import RuntimeFailure
from .compile import PARAM_SCOPE, Artifact
from .targets import get_target

_DTYPES = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_, "i8": np.int8, "i16": np.int16,
    "i32": np.int32, "i64": np.int64, "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64,
}
try:  # bf16 arrays are ml_dtypes' (installed with onnx), which IREE's runtime takes as they are
    import ml_dtypes

    _DTYPES["bf16"] = ml_dtypes.bfloat16
except ImportError:  # then unchecked: IREE's own error names the mismatch
    pass
_TYPE = r"\d+: (tensor<([^>]*)>|[a-z]+\d+)"  # group 2: a tensor's spec; None for a scalar
_ARG, _RESULT = re.compile("%input" + _TYPE), re.compile("%output" + _TYPE)


def _parse_tensor(spec: str) -> tuple[tuple[int, ...] | None, Any]:
    """`1x3x224x224xf32` -> ((1, 3, 224, 224), float32); unknown element types -> dtype None."""
    *dims, elt = spec.split("x")
    shape = None if any(d == "?" for d in dims) else tuple(int(d) for d in dims)
    return shape, _DTYPES.get(elt)


def _signless_twin(a: np.dtype, b: Any) -> bool:
    """Integer dtypes of one width and opposite signedness: the same bits to IREE's signless `iN`."""
    b = np.dtype(b)
    return a.kind in "iu" and b.kind in "iu" and a.kind != b.kind and a.itemsize == b.itemsize


def as_declared(arrays: Any, dtypes: Sequence[Any]) -> Any:
    """Results reinterpreted as the model's declared integer types (an ONNX `uint8` output comes back from
    IREE as signless `i8` bits, read by numpy as int8)."""
    single = not isinstance(arrays, tuple)
    outs = [arrays] if single else list(arrays)
    for i, (a, d) in enumerate(zip(outs, dtypes)):
        if d is not None and isinstance(a, np.ndarray) and a.dtype != d and _signless_twin(a.dtype, d):
            outs[i] = a.view(d)
    return outs[0] if single else tuple(outs)


class Runner:
    """A loaded module's entry function: `runner(*arrays)` -> array, or a tuple of arrays."""

    def __init__(self, vmfb: bytes | Path, driver: str, params_path: Path | None = None,
                 entry: str | None = None) -> None:
        import iree.runtime as rt

        try:
            self.config = rt.Config(driver)
        except Exception as e:
            raise RuntimeFailure(f"cannot open a device for driver '{driver}': {e}") from None
        self._staging: dict[int, tuple[np.ndarray, Any]] = {}  # input index -> (aligned array, its buffer view)
        self._lock = threading.Lock()
        inst = self.config.vm_instance
        modules = []
        if params_path is not None:
            index = rt.ParameterIndex()
            index.load(str(params_path))  # mmap: weights are paged in, not copied
            modules.append(rt.create_io_parameters_module(inst, index.create_provider(scope=PARAM_SCOPE)))
        try:
            vm = (rt.VmModule.mmap(inst, str(vmfb)) if isinstance(vmfb, Path)
                  else rt.VmModule.copy_buffer(inst, vmfb))
            self.context = rt.SystemContext(vm_modules=[*modules, vm], config=self.config)
        except Exception as e:
            raise RuntimeFailure(f"cannot load the module: {' '.join(str(e).split())}") from None
        names = [n for n in vm.function_names if not n.startswith("__")]
        self.entry = entry or (names[0] if names else "")
        if self.entry not in names:
            raise RuntimeFailure(f"no function '{self.entry}' in the module (it exports {names})")
        self.driver = driver
        self._fn = self.context.modules[vm.name][self.entry]
        decl = self._fn.vm_function.reflection.get("iree.abi.declaration", "")
        head = decl.split("->")[0]
        args = list(_ARG.finditer(head))
        self.inputs = [(_parse_tensor(m.group(2)) if m.group(2) is not None else ((), _DTYPES.get(m.group(1))))
                       for m in args]
        # Scalar (non-tensor) arguments: IREE takes them as Python numbers, not as 0-d buffer views.
        self.scalars = frozenset(i for i, m in enumerate(args) if m.group(2) is None)
        tail = decl.split("->", 1)[1] if "->" in decl else ""
        self.scalar_results = {i: _DTYPES.get(m.group(1)) for i, m in enumerate(_RESULT.finditer(tail))
                               if m.group(2) is None}  # IREE returns them as Python numbers
        self.declaration = decl

    def check(self, args: Sequence[Any]) -> list[np.ndarray]:
        """Inputs as contiguous arrays; wrong count, shape or dtype raise RuntimeFailure before IREE runs."""
        if len(args) != len(self.inputs):
            raise RuntimeFailure(f"@{self.entry} takes {len(self.inputs)} inputs, got {len(args)}")
        out = []
        for i, (a, (shape, dtype)) in enumerate(zip(args, self.inputs)):
            if i in self.scalars and isinstance(a, (int, float)) and dtype is not None:
                if np.issubdtype(dtype, np.integer) and not float(a).is_integer():
                    raise RuntimeFailure(f"input {i} of @{self.entry}: expected an integer "
                                         f"({np.dtype(dtype).name}), got {a!r}")
                a = np.asarray(a, dtype)  # a Python number for an f32 / i32 argument: taken at its type
            arr = np.ascontiguousarray(a) if np.ndim(a) else np.asarray(a)  # ascontiguousarray makes 0-d 1-d
            if dtype is not None and arr.dtype != dtype and _signless_twin(arr.dtype, dtype):
                arr = arr.view(dtype)  # IREE's integers are signless: uint8 data is passed as its i8 bits
            if dtype is not None and arr.dtype != dtype:
                raise RuntimeFailure(f"input {i} of @{self.entry}: expected dtype {np.dtype(dtype).name}, "
                                     f"got {arr.dtype.name}")
            if shape is not None and arr.shape != shape:
                raise RuntimeFailure(f"input {i} of @{self.entry}: expected shape {shape}, got {arr.shape}")
            out.append(arr)
        return out

    def _view(self, i: int, arr: np.ndarray) -> Any:
        """Input i as a HAL buffer view IREE reads in place (CPU drivers, inputs of IN_PLACE_BYTES or more):
        the array itself when 64-byte aligned and writable, else a copy in this input's staging array
        (allocated once: IREE's copy goes to a fresh buffer, whose pages fault in on every call). Other
        arrays (small, bool, GPU drivers) go to IREE as they are, which copies them."""
        if not self.driver.startswith("local") or arr.nbytes < IN_PLACE_BYTES or arr.dtype == np.bool_:
            return arr  # decided before the dtype lookup: small inputs are the per-call hot path
        from iree.runtime.array_interop import map_dtype_to_element_type

        elt = map_dtype_to_element_type(arr.dtype)
        if elt is None:
            return arr
        if arr.ctypes.data % ALIGN == 0 and arr.flags.c_contiguous and arr.flags.writeable:
            # IREE imports only writable memory ("buffer source array is read-only"): a read-only array
            # (np.frombuffer, a mmap, onnx.numpy_helper.to_array) is staged like an unaligned one.
            return _import(self.config.device, arr, elt)
        staged = self._staging.get(i)
        if staged is None or staged[0].shape != arr.shape or staged[0].dtype != arr.dtype:
            staging = aligned_empty(arr.shape, arr.dtype)
            staged = self._staging[i] = (staging, _import(self.config.device, staging, elt))
        np.copyto(staged[0], arr)
        return staged[1]

    def __call__(self, *args: Any) -> np.ndarray | tuple[np.ndarray, ...]:
        arrays = self.check(args)
        with self._lock:  # the staging arrays are shared by calls
            try:
                res = self._fn(*(_number(a) if i in self.scalars else self._view(i, a)
                                 for i, a in enumerate(arrays)))
            except Exception as e:
                raise RuntimeFailure(f"@{self.entry} failed: {' '.join(str(e).split())}") from None
            outs = res if isinstance(res, tuple) else (res,)
            # A result may be an input's own buffer (a function returning its argument): copied, so that it
            # neither aliases the caller's array nor a staging array the next call overwrites.
            read = [*arrays, *(st for st, _ in self._staging.values())]
            host = tuple(None if r is None
                         else np.asarray(r, self.scalar_results[k]) if k in self.scalar_results
                         else _owned(r.to_host(), read) for k, r in enumerate(outs))
        return host if isinstance(res, tuple) else host[0]


ALIGN = 64  # IREE's CPU HAL imports host memory at this alignment (an unaligned import crashed it)
# Smaller inputs are copied by IREE as before: importing costs a few us of Python per input, a copy of a
# few KB less (a GRU's 4 KB input: 1.07x slower imported). An 8x128x768 LayerNorm's 3 MB input: 0.91x.
IN_PLACE_BYTES = 1 << 16


def _import(device: Any, arr: np.ndarray, elt: Any) -> Any:
    """A buffer view over `arr`'s own memory (kept alive by the buffer): no copy."""
    import iree.runtime as rt

    buf = device.allocator.import_host_allocation(arr, rt.MemoryType.DEVICE_LOCAL | rt.MemoryType.HOST_VISIBLE,
                                                  rt.BufferUsage.DEFAULT)
    return rt.HalBufferView(buf, arr.shape, elt)


def aligned_empty(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """An uninitialized C-contiguous array whose data starts at an ALIGN-byte boundary."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    raw = np.empty(n + ALIGN, np.uint8)
    off = -raw.ctypes.data % ALIGN
    return raw[off:off + n].view(dt).reshape(shape)


def _number(arr: np.ndarray) -> int | float:
    """A scalar argument as IREE takes it: a Python int or float (an i1 as 0 / 1: it refuses a bool)."""
    v = arr.item()
    return int(v) if isinstance(v, bool) else v


def _owned(out: np.ndarray, inputs: Sequence[np.ndarray]) -> np.ndarray:
    return out.copy() if any(np.shares_memory(out, a) for a in inputs) else out


def load(artifact: Artifact, driver: str | None = None, entry: str | None = None) -> Runner:
    """A Runner for an in-memory artifact; `driver` overrides the target's (e.g. local-sync)."""
    drv = driver or get_target(artifact.target).driver
    return Runner(artifact.vmfb, drv, artifact.params_path, entry or artifact.entry)


def load_file(path: str | os.PathLike[str], target: str = "host", driver: str | None = None,
              entry: str | None = None) -> Runner:
    """A Runner for a saved `.vmfb`; the `.irpa` beside it (from Artifact.save) is loaded when present."""
    vmfb = Path(path)
    if not vmfb.is_file():
        raise RuntimeFailure("no such file", str(vmfb))
    irpa = vmfb.with_suffix(".irpa")
    return Runner(vmfb, driver or get_target(target).driver, irpa if irpa.is_file() else None, entry)


def benchmark(runner: Runner, inputs: Sequence[Any], warmup: int = 3, repeat: int = 10) -> list[float]:
    """Milliseconds per synchronous call (host->device copy, execution, device->host copy)."""
    arrays = runner.check(inputs)
    for _ in range(warmup):
        runner(*arrays)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        runner(*arrays)
        times.append((time.perf_counter() - t) * 1e3)
    return times
