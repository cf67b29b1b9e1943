"""The benchmark model suite: real-weight CNNs and transformer blocks, cached with inputs and reference outputs.

Layout of the cache folder (default `<repo>/.cache/models`, or $FUSION_OPT_CACHE, or an explicit argument):
  NAME.onnx       the model (weights inline);
  NAME.npz        one array per graph input, named after it (seeded: images and activations N(0, 1)), and the
                  onnxruntime reference outputs: `output` for the first graph output, `output_1`, `output_2`, ...
                  for the others (onnxruntime CPU, all graph optimisations, 2 intra-op threads);
  NAME.json       version stamp and output statistics; written last, so its presence marks a complete entry.
Generation is idempotent (an entry whose stamp matches is not rebuilt) and deterministic (same seed -> the same
bytes: weights come from a seeded numpy Generator, and the npz is written with fixed zip timestamps).
Graph inputs must not themselves be called `output` or `output_N`, or `load_inputs` would take them for references.
"""
from __future__ import annotations

import io
import json
import os
import re
import time
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from . import cnn_weights, transformer_blocks

# Bump when a generator changes, so stale cache entries are rebuilt.
VERSION = 1
SUITE: tuple[str, ...] = (
    "resnet50", "squeezenet", "densenet121", "inception_v2", "shufflenet", "vgg19", "inception_v1", "alexnet",
    "zfnet512", "mlp_gelu", "layernorm", "attention", "bert_layer", "mlp4",
)
_OUTPUT_KEY = re.compile(r"^output(_\d+)?$")


def default_cache() -> Path:
    """$FUSION_OPT_CACHE, else <repo>/.cache/models for a source checkout, else ~/.cache/fusion-opt/models."""
    env = os.environ.get("FUSION_OPT_CACHE")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[3]
    if (repo / "pyproject.toml").is_file():
        return repo / ".cache" / "models"
    return Path.home() / ".cache" / "fusion-opt" / "models"


def output_key(i: int) -> str:
    return "output" if i == 0 else f"output_{i}"


# -- onnxruntime (optional dependency, imported lazily) -----------------------------------------------------
def ort_session(model: Path | str | onnx.ModelProto, threads: int = 2) -> Any:
    """An onnxruntime CPU session with all graph optimisations: the reference and the 'ort' column."""
    try:
        import onnxruntime as ort
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("onnxruntime is needed for reference outputs: pip install 'fusion-opt[test]'") from e
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    # Its pool threads stop spinning when Run() returns instead of spinning on for milliseconds:
    # left on, they took the cores from whichever engine fusion-bench ran next (ShuffleNet through
    # IREE: 8.8 ms alone, 11.8 ms right after onnxruntime; 8.5 ms with this), while onnxruntime's own
    # time is unchanged (spinning still runs inside its calls).
    so.add_session_config_entry("session.force_spinning_stop", "1")
    src = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    return ort.InferenceSession(src, so, providers=["CPUExecutionProvider"])


def ort_run(model: Path | str | onnx.ModelProto, inputs: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Run once in onnxruntime; outputs in graph-output order."""
    return list(ort_session(model).run(None, dict(inputs)))


# -- inputs ------------------------------------------------------------------------------------------------
def graph_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """Graph inputs that are real inputs (initializers listed as inputs, as old IR versions do, are not)."""
    inits = {i.name for i in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


_INDEX_OPERAND = {"Gather": 1, "GatherElements": 1}


def index_bound(model: onnx.ModelProto, name: str, default: int = 10) -> int:
    """The largest exclusive bound under which integer input `name` is a valid index everywhere it is one.

    A token-type id feeding a 2-row embedding must stay in [0, 2): [0, 10) would make onnxruntime reject
    the call and compare nothing. Only direct uses as Gather / GatherElements indices of a tensor of
    known shape count; other uses keep `default`.
    """
    shapes = {i.name: list(i.dims) for i in model.graph.initializer}
    bound = default
    for node in model.graph.node:
        pos = _INDEX_OPERAND.get(node.op_type)
        if pos is None or len(node.input) <= pos or node.input[pos] != name or node.input[0] not in shapes:
            continue
        dims = shapes[node.input[0]]
        axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
        if dims and -len(dims) <= axis < len(dims) and dims[axis] > 0:
            bound = min(bound, int(dims[axis]))
    return bound


def random_inputs(model: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded inputs from the graph's shapes: float -> N(0, 1), int -> [0, 10) (narrower where the input
    indexes a smaller table, `index_bound`), bool -> coin flips.

    Symbolic dimensions are taken as 1.
    """
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}
    for vi in graph_inputs(model):
        tt = vi.type.tensor_type
        dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type))
        shape = tuple(d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else 1 for d in tt.shape.dim)
        if dtype.kind == "f":
            out[vi.name] = rng.standard_normal(shape, dtype=np.float32).astype(dtype)
        elif dtype.kind in "iu":
            out[vi.name] = rng.integers(0, index_bound(model, vi.name), shape).astype(dtype)
        elif dtype.kind == "b":
            out[vi.name] = rng.integers(0, 2, shape).astype(bool)
        else:
            raise ValueError(f"cannot generate input '{vi.name}' of type {dtype}")
    return out


def load_inputs(onnx_path: Path | str, seed: int = 0) -> tuple[dict[str, np.ndarray], list[np.ndarray] | None]:
    """Inputs (and reference outputs, if recorded) for a model: from `<stem>.npz` beside it, else seeded random.

    Returns (inputs by graph-input name, [output, output_1, ...] or None).
    """
    onnx_path = Path(onnx_path)
    npz = onnx_path.with_suffix(".npz")
    if npz.is_file():
        with np.load(npz, allow_pickle=False) as z:
            inputs = {k: z[k] for k in z.files if not _OUTPUT_KEY.match(k)}
            refs: list[np.ndarray] = []
            while output_key(len(refs)) in z.files:
                refs.append(z[output_key(len(refs))])
        return inputs, refs or None
    model = onnx.load(str(onnx_path), load_external_data=False)
    return random_inputs(model, seed), None


def save_npz(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """np.savez with fixed zip timestamps and order, so equal arrays give equal bytes."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, arr in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
            zf.writestr(zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0)), buf.getvalue())


# -- generation --------------------------------------------------------------------------------------------
def _seed(name: str, seed: int) -> int:
    return (zlib.crc32(name.encode()) + 1_000_003 * seed) & 0xFFFFFFFF


def build_model(name: str, seed: int = 0) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """Build a suite model and its inputs (no files). CNNs need onnxruntime for the logit calibration."""
    rng = np.random.default_rng(_seed(name, seed))
    if name in transformer_blocks.BUILDERS:
        model = transformer_blocks.BUILDERS[name](rng)
        return model, random_inputs(model, _seed(name, seed) + 1)
    if name not in cnn_weights.LIGHT_MODELS:
        raise KeyError(f"unknown suite model '{name}'; known: {', '.join(SUITE)}")
    model = cnn_weights.reweight(onnx.load(str(cnn_weights.light_path(name))), rng)
    model.graph.name = name
    inputs = random_inputs(model, _seed(name, seed) + 1)
    cnn_weights.calibrate_logits(model, inputs, ort_run)
    return model, inputs


def _stamp(name: str, seed: int) -> dict[str, Any]:
    return {"name": name, "version": VERSION, "seed": seed, "onnx": onnx.__version__}


def _fresh(cache: Path, name: str, seed: int) -> bool:
    meta = cache / f"{name}.json"
    if not ((cache / f"{name}.onnx").is_file() and (cache / f"{name}.npz").is_file() and meta.is_file()):
        return False
    try:
        recorded = json.loads(meta.read_text())
    except (OSError, ValueError):
        return False
    return all(recorded.get(k) == v for k, v in _stamp(name, seed).items())


def output_stats(outputs: Iterable[np.ndarray]) -> list[dict[str, Any]]:
    return [{"shape": list(o.shape), "mean": float(np.mean(o)), "std": float(np.std(o)),
             "min": float(np.min(o)), "max": float(np.max(o)), "finite": bool(np.isfinite(o).all())}
            for o in outputs]


def ensure_model(name: str, cache: Path | None = None, *, seed: int = 0, force: bool = False) -> Path:
    """Generate `name` into the cache unless an up-to-date entry is there; returns the .onnx path."""
    cache = Path(cache) if cache is not None else default_cache()
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"{name}.onnx"
    if not force and _fresh(cache, name, seed):
        return path
    model, inputs = build_model(name, seed)
    # Write to temporaries and rename, the stamp last: an interrupted run never leaves a "fresh" entry.
    # The checker and onnxruntime read the file, so the (up to 575 MB) proto is serialized only once.
    (cache / f"{name}.json").unlink(missing_ok=True)
    tmp = cache / f".{name}.tmp.onnx"
    tmp.write_bytes(model.SerializeToString())
    del model
    onnx.checker.check_model(str(tmp))
    outputs = ort_run(tmp, inputs)
    tmp.replace(path)
    arrays = dict(inputs)
    arrays.update({output_key(i): o for i, o in enumerate(outputs)})
    save_npz(tmp, arrays)
    tmp.replace(cache / f"{name}.npz")
    meta = {**_stamp(name, seed), "inputs": {k: list(v.shape) for k, v in inputs.items()},
            "outputs": output_stats(outputs)}
    (cache / f"{name}.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    return path


def ensure_suite(names: Iterable[str] | None = None, cache: Path | None = None, *, seed: int = 0,
                 verbose: bool = False) -> list[Path]:
    """ensure_model for each name (default: the whole SUITE), in order."""
    paths = []
    for name in (SUITE if names is None else names):
        t0 = time.perf_counter()
        paths.append(ensure_model(name, cache, seed=seed))
        if verbose:
            print(f"  {name}: {time.perf_counter() - t0:.1f}s", flush=True)
    return paths
