"""Python API: `fo.compile_onnx(model)` -> a callable compiled model, with its plan and report.

Stages (import -> plan -> write regions -> compile) are the same as the CLI's; this module only
keeps the pure results (graphs, plans, the compiled artifact) and drops the IR once compiled.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import warnings
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx

from .analysis.opdesc import DataflowGraph
from .fusion.plan import FusionPlan
from .backends.levers import is_cpu_target
from .importers import import_onnx, parse_mlir
from .importers.mlir_normalize import normalize as normalize_mlir
from .ir import new_session
from .fusion.control import ControlSpec
from .errors import CompileError
from .pipelines import DEFAULT_FUSION, compile_levers, plan_module, retry_without_rewrites, write_regions

# A pin is a list of op matchers (or one comma-separated string) that must end in one group.
Pins = Sequence[str | Sequence[str]]


class FallbackWarning(UserWarning):
    """A fusion group IREE could not compile was left to IREE's own fusion (the result is still correct)."""


@dataclass
class CompiledModel:
    """A model compiled by IREE with our fusion plan; call it with numpy arrays."""

    artifact: object                     # backends.compile.Artifact
    plans: list[FusionPlan]
    graphs: list[DataflowGraph]
    fusion: str
    target: str
    input_names: tuple[str, ...] = ()
    output_names: tuple[str, ...] = ()
    timings: dict[str, float] = field(default_factory=dict)
    fallbacks: tuple = ()                # backends.fallback.Fallback: groups IREE rejected, left to IREE
    configs: tuple = ()                  # backends.lowering.TileConfig: tile sizes given to IREE (tile_sizes="cost")
    strategies: tuple = ()               # (dispatch, codegen sequence): library strategies IREE used (codegen_strategies)
    strategies_dropped: str | None = None  # why codegen_strategies were not used (IREE failed with them)
    output_dtypes: tuple = ()            # numpy dtypes the ONNX graph declares for its outputs (None: unknown)
    # runtime driver: "auto" (CPU targets: local-task or local-sync, whichever runs this module faster,
    # timed once at the first call; backends/driver_choice.py), or a driver name to force one. The
    # default comes from $FUSION_OPT_DRIVER when set.
    driver: str = field(default_factory=lambda: os.environ.get("FUSION_OPT_DRIVER", "auto"))
    driver_choice: object = None         # backends.driver_choice.DriverChoice, once the first call made it
    _runner: object = None

    @property
    def plan(self) -> FusionPlan:
        """The plan of the entry function (ONNX models have exactly one; in a `.mlir` file, `@main` if
        it defines one, else its first public function: the one `m(...)` calls)."""
        entry = getattr(self.artifact, "entry", None)
        return next((p for p in self.plans if p.function == entry), self.plans[0])

    @property
    def dispatch_count(self) -> int:
        """Dispatches IREE actually formed (counted on the flow IR), not just our group count."""
        return int(self.artifact.dispatch_count)

    def __repr__(self) -> str:
        # The dataclass repr printed every op description of every graph (tens of KB for a small model).
        ins = ", ".join(self.input_names) or "?"
        outs = ", ".join(self.output_names) or "?"
        extra = f", {len(self.fallbacks)} fallback(s)" if self.fallbacks else ""
        return (f"<CompiledModel ({ins}) -> ({outs}): fusion={self.fusion!r} target={self.target!r}, "
                f"{sum(len(p.groups) for p in self.plans)} groups, {getattr(self.artifact, 'dispatch_count', None)} dispatches{extra}>")

    def __call__(self, *arrays: np.ndarray):
        if self._runner is None:
            self.driver_choice, self._runner = _runner_for(self.artifact, self.driver, arrays)
        from .backends.runtime import as_declared

        return as_declared(self._runner(*arrays), self.output_dtypes)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the `.vmfb` (and its `.irpa` weights beside it when weights were externalized)."""
        self.artifact.save(Path(path))
        return Path(path)

    def report(self, format: str = "text") -> str:
        from .fusion.report import plan_to_json, plan_to_text

        data = {
            "target": self.target,
            "fusion": self.fusion,
            "dispatch_count": self.dispatch_count,
            "groups": sum(len(p.groups) for p in self.plans),
            "predicted_ms": _predicted_ms(self.plans),
            "ops": sum(len(g.ops) for g in self.graphs),
            "timings_s": {k: round(v, 4) for k, v in self.timings.items()},
            "functions": [plan_to_json(p, g) for p, g in zip(self.plans, self.graphs)],
            "runtime_driver": (str(self.driver_choice) if self.driver_choice is not None
                               else "auto (chosen at the first call)" if self.driver == "auto" else self.driver),
            "fallbacks": [{"group": f.group, "error": f.error} for f in self.fallbacks],
            "tile_configs": [{"function": c.function, "group": c.group, "op": c.op, "loc": c.loc,
                              "lowering_config": c.lowering_config(), "pipeline": c.pipeline} for c in self.configs],
            "codegen_strategies": [{"dispatch": d, "strategy": s} for d, s in self.strategies],
            "codegen_strategies_dropped": self.strategies_dropped,
        }
        if format == "json":
            return json.dumps(data, indent=2)
        if format != "text":
            raise ValueError(f"unknown report format '{format}' (text or json)")
        pred = f", predicted {data['predicted_ms']:.3f} ms" if data["predicted_ms"] is not None else ""
        head = (f"fusion={self.fusion} target={self.target}: {data['ops']} ops -> {data['groups']} groups, "
                f"{self.dispatch_count} IREE dispatches{pred}; "
                + ", ".join(f"{k} {v:.2f}s" for k, v in self.timings.items()))
        fb = f"runtime driver: {data['runtime_driver']}\n"
        fb += "".join(f"fallback: {f}\n" for f in self.fallbacks)
        fb += "".join(f"tile config (applied): {c}\n" for c in self.configs)
        fb += "".join(f"codegen strategy: @{d} -> @{s}\n" for d, s in self.strategies)
        if self.strategies_dropped:
            fb += f"codegen strategies not used: IREE failed with them ({self.strategies_dropped})\n"
        return head + "\n" + fb + "\n".join(plan_to_text(p, g) for p, g in zip(self.plans, self.graphs))


def _runner_for(artifact, driver: str, args: Sequence[np.ndarray]):
    """(DriverChoice, Runner) for `driver`: "auto" times both CPU drivers on the first call's `args`, a
    name is used as given."""
    from .backends.driver_choice import DriverChoice, choose
    from .backends.runtime import load
    from .backends.targets import get_target

    if driver != "auto":
        return DriverChoice(driver, "set"), load(artifact, driver=driver)
    target = get_target(artifact.target)
    if not target.is_cpu:
        return DriverChoice(target.driver, "the target's driver"), load(artifact)
    return choose(lambda d: load(artifact, driver=d), args)


def _predicted_ms(plans: Sequence[FusionPlan]) -> float | None:
    times = [p.predicted_s for p in plans]
    return None if any(t is None for t in times) else round(sum(times) * 1e3, 4)


def _graph_io(proto: onnx.ModelProto) -> tuple[tuple[str, ...], tuple[str, ...]]:
    inits = {i.name for i in proto.graph.initializer}
    return (tuple(i.name for i in proto.graph.input if i.name not in inits),
            tuple(o.name for o in proto.graph.output))


def _output_dtypes(proto: onnx.ModelProto) -> tuple:
    def dtype(et: int):
        try:
            return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(et)) if et else None
        except (KeyError, TypeError):
            return None
    return tuple(dtype(o.type.tensor_type.elem_type) for o in proto.graph.output)


def _compile(module, session, source_name: str, target: str, fusion: str,
             extra_flags: Sequence[str], timings: dict[str, float], control: ControlSpec,
             tile_sizes: str = "iree", codegen_strategies: bool = False, reload=None):
    """Plan, compile and check; `reload()` gives the input module again: when IREE fails the compile
    outside every group of ours (no fallback of `backends/fallback.py` applies) after pattern rewrites
    changed the IR, everything runs once more from it without them, and a FallbackWarning says so (fuzz
    seed 35043: a rewrite's reshapes failed IREE's verifier and the compile failed)."""
    from .backends.fallback import compile_with_strategies
    from .backends.levers import data_tiling_planned
    from .backends.lowering import apply_tile_sizes, dispatch_pipelines, require_applied
    from .transforms.strategies import applied_strategies, codegen_flags

    strategy_flags = codegen_flags(target) if codegen_strategies else ()
    t0 = time.perf_counter()
    tiled = data_tiling_planned(fusion, target, tile_sizes, codegen_strategies, extra_flags)
    planned = plan_module(module, fusion, source_name, target, control=control, data_tiling=tiled)
    control.check_matched()
    write_regions(planned)
    configs = apply_tile_sizes(planned, tile_sizes, target)
    levers = compile_levers(planned, fusion, target, tile_sizes, codegen_strategies, tuple(extra_flags))
    extra_flags = (*extra_flags, *levers)
    timings["plan"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    # Weights of 1 KiB or more go to an .irpa archive (a 100 MB vmfb compiles slower and is copied
    # on load); the CompiledModel owns the temporary folder and removes it when it is collected.
    workdir = tempfile.mkdtemp(prefix="fusion-opt-")
    try:  # the folder is the CompiledModel's once this returns; a failed config check must not leave it
        try:
            artifact, fallbacks, dropped = compile_with_strategies(
                module, session, target, extra_flags=tuple(extra_flags), strategy_flags=strategy_flags,
                params_path=Path(workdir) / "weights.irpa", source_name=source_name, levers=levers,
                own_regions=fusion != "iree")
        except CompileError as err:
            control, note = retry_without_rewrites(err, planned, control, reload)
            shutil.rmtree(workdir, ignore_errors=True)
            warnings.warn(f"{source_name}: {note}", FallbackWarning, stacklevel=3)
            return _compile(reload(), session, source_name, target, fusion, extra_flags, timings, control,
                            tile_sizes, codegen_strategies)
        timings["compile"] = time.perf_counter() - t0
        for fb in fallbacks:
            warnings.warn(f"{source_name}: {fb}", FallbackWarning, stacklevel=3)
        if dropped:
            warnings.warn(f"{source_name}: codegen strategies not used, IREE failed with them ({dropped})",
                          FallbackWarning, stacklevel=3)
            strategy_flags = ()
        extra_flags = (*(f for f in extra_flags if f in artifact.flags), *strategy_flags)  # levers may be dropped
        if configs:  # a config IREE dropped without a word is an error, not a slower model
            failed = {f.group for f in fallbacks}
            configs = [] if any(f.unwrapped_all for f in fallbacks) else [c for c in configs if c.group not in failed]
            t0 = time.perf_counter()
            require_applied(module, planned, configs, target, source_name, tuple(extra_flags))
            timings["check_configs"] = time.perf_counter() - t0
        strategies: list[tuple[str, str]] = []
        if strategy_flags:  # which dispatches the library matched (the rest keep IREE's pipelines)
            t0 = time.perf_counter()
            strategies = applied_strategies(dispatch_pipelines(module, target, tuple(extra_flags), source_name))
            timings["check_strategies"] = time.perf_counter() - t0
        return (artifact, [p.plan for p in planned], [p.graph for p in planned], workdir, fallbacks, tuple(configs),
                (tuple(strategies), dropped))
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise


def compile_onnx(model: str | os.PathLike[str] | onnx.ModelProto, target: str = "llvm-cpu",
                 fusion: str = DEFAULT_FUSION, *, input_shapes: Mapping[str, Sequence[int]] | None = None,
                 extra_flags: Sequence[str] = (), fuse: Pins = (), no_fuse: Pins = (),
                 max_fusions: int | None = None, tile_sizes: str = "iree",
                 disable_patterns: Sequence[str] = (), codegen_strategies: bool = False,
                 layout: str = "auto") -> CompiledModel:
    """Import an ONNX model, plan fusion, compile with IREE; returns a callable CompiledModel.

    `fusion`: "cost" (default: our planner, merges gated by the cost model of `target`), "greedy"
    (the same legality without the cost gate), "iree" (IREE's own dispatch formation), "none" (one op each).
    `fuse`: pins, each a list of op matchers (ONNX node name, `file:line[:col]`, op-name glob) that must
    end in one group; `no_fuse`: matchers of ops kept alone; `max_fusions`: stop after N merges;
    `disable_patterns`: pattern registry names to switch off (`fusion_opt.patterns.PATTERN_NAMES`).
    An illegal pin raises PlanError naming the rule; a matcher that matches nothing raises InputError.
    `tile_sizes`: "iree" (default: IREE picks each dispatch's tiles), "cost": contraction roots get a
    `compilation_info` from the target description (backends/lowering.py), checked after compiling
    (CompileError if IREE dropped one); the applied configs are listed in `report()`.
    `codegen_strategies` (llvm-cpu): dispatches of the library's shapes are compiled by the transform
    sequences of passes/codegen/llvm_cpu.mlir instead of IREE's pipelines; `report()` lists which.
    `layout`: "auto" (default: each windowed conv's layout chosen by the cost model, channels-last where
    it and the transposes it needs are predicted at least 10% faster than its best NCHW strategy;
    pattern `conv-layout`, applied by the cost planner only), "nchw" (convs as imported) or "nhwc" (every
    NCHW conv rewritten channels-last before planning, rewrites/layout.py; cost planner only).
    """
    control = ControlSpec.from_options(fuse, no_fuse, max_fusions, api=True, disable_patterns=disable_patterns,
                                       layout=layout)
    timings: dict[str, float] = {}
    session = new_session()
    t0 = time.perf_counter()
    name = str(model) if not isinstance(model, onnx.ModelProto) else (model.graph.name or "<model>")

    def load():
        return import_onnx(model, session.context, input_shapes, source_name=name, promote_f16=is_cpu_target(target))

    module, proto = load()
    timings["import"] = time.perf_counter() - t0
    artifact, plans, graphs, workdir, fallbacks, configs, (strategies, dropped) = _compile(
        module, session, name, target, fusion, extra_flags, timings, control, tile_sizes, codegen_strategies,
        reload=lambda: load()[0])
    ins, outs = _graph_io(proto)
    return _owning(CompiledModel(artifact, plans, graphs, fusion, target, ins, outs, timings, fallbacks,
                                 configs, strategies, dropped, _output_dtypes(proto)), workdir)


def compile_mlir(source: str | os.PathLike[str], target: str = "llvm-cpu", fusion: str = DEFAULT_FUSION, *,
                 extra_flags: Sequence[str] = (), fuse: Pins = (), no_fuse: Pins = (),
                 max_fusions: int | None = None, tile_sizes: str = "iree",
                 disable_patterns: Sequence[str] = (), codegen_strategies: bool = False,
                 layout: str = "auto") -> CompiledModel:
    """Same as compile_onnx for a Linalg `.mlir` file path or MLIR text (IR attributes
    `fusion_opt.fuse = "tag"` / `fusion_opt.no_fuse` on ops pin and bar as well)."""
    control = ControlSpec.from_options(fuse, no_fuse, max_fusions, api=True, disable_patterns=disable_patterns,
                                       layout=layout)
    timings: dict[str, float] = {}
    session = new_session()
    text, name = str(source), "<string>"
    if "\n" not in text and Path(text).is_file():
        name, text = text, Path(text).read_text()

    def load():
        module = parse_mlir(text, session.context, name)
        normalize_mlir(module, name)
        return module

    artifact, plans, graphs, workdir, fallbacks, configs, (strategies, dropped) = _compile(
        load(), session, name, target, fusion, extra_flags, timings, control, tile_sizes, codegen_strategies,
        reload=load)
    return _owning(CompiledModel(artifact, plans, graphs, fusion, target, (), (), timings, fallbacks, configs,
                                 strategies, dropped), workdir)


def _owning(model: CompiledModel, workdir: str) -> CompiledModel:
    weakref.finalize(model, shutil.rmtree, workdir, True)
    return model
