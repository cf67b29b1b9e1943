"""What the CLI does with one input: import, plan, write regions, print or compile."""
from __future__ import annotations

import argparse

from .errors import CompileError, InputError
from .backends.levers import is_cpu_target
from .importers import import_onnx, parse_mlir, split_input
from .importers.mlir_normalize import normalize as normalize_mlir
from .ir import ir, new_session, strip_source_names
from .pipelines import PlannedFunction, compile_levers, plan_module, retry_without_rewrites, write_regions


def print_module(module: ir.Module, args: argparse.Namespace) -> str:
    strip_source_names(module)
    return module.operation.get_asm(
        large_elements_limit=args.mlir_elide_elementsattrs_if_larger,
        enable_debug_info=args.mlir_print_debuginfo,
    )


def emit(module: ir.Module, source_name: str, args: argparse.Namespace,
         session, input_kind: str, reload=None) -> str | bytes | dict:
    """Run the stages `--emit` asks for, and nothing more. `reload()` gives the input module again, for
    the retry without pattern rewrites when IREE fails outside every group (api._compile's)."""
    if args.emit == "linalg":
        return print_module(module, args)
    if getattr(args, "transform", None) or getattr(args, "strategy", None):
        return apply_user_script(module, source_name, args)
    from .backends.levers import data_tiling_planned

    tiled = data_tiling_planned(args.fusion, args.target, getattr(args, "tile_sizes", "iree"),
                                getattr(args, "codegen_strategies", False))
    planned = plan_module(module, args.fusion, source_name, args.target, control=getattr(args, "control", None),
                          data_tiling=tiled)
    if args.emit in ("plan", "json", "dot"):
        return render_plans(planned, args.emit)
    if args.emit == "transform":
        from .transforms.tile_fuse import build_script, plan_tilings, script_text

        tilings = plan_tilings(planned, args.target)
        return script_text(planned, tilings, build_script(planned, tilings, module.context))
    if getattr(args, "tile_and_fuse", False):
        from .transforms.tile_fuse import tile_and_fuse

        tile_and_fuse(module, planned, args.target, source_name)
        return print_module(module, args)
    write_regions(planned)
    from .backends.lowering import apply_tile_sizes

    configs = apply_tile_sizes(planned, getattr(args, "tile_sizes", "iree"), args.target)
    if args.emit == "regions":
        return print_module(module, args)
    levers = compile_levers(planned, args.fusion, args.target, getattr(args, "tile_sizes", "iree"),
                            getattr(args, "codegen_strategies", False))
    try:
        compile_and_save(module, session, source_name, args, levers)
    except CompileError as err:
        import sys

        args.control, note = retry_without_rewrites(err, planned, getattr(args, "control", None), reload)
        print(f"{source_name}: warning: {note}", file=sys.stderr)
        return emit(reload(), source_name, args, session, input_kind)
    if configs:  # a config IREE dropped without a word is an error (the .vmfb is removed)
        from .backends.lowering import require_applied

        try:
            require_applied(module, planned, configs, args.target, source_name, codegen_flags(args))
        except BaseException:
            _remove_outputs(args.output)
            raise
    return None


def apply_user_script(module: ir.Module, source_name: str, args: argparse.Namespace) -> str:
    """`--transform=SCRIPT` / `--strategy=NAME`: apply the script's @__transform_main, print the result."""
    from .transforms.interpreter import apply_script, load_script
    from .transforms.strategies import strategy_path

    path = args.transform or str(strategy_path(args.strategy))
    script = load_script(path, module.context)
    apply_script(module, script, source_name=source_name, script_name=path)
    return print_module(module, args)


def codegen_flags(args: argparse.Namespace) -> tuple[str, ...]:
    """The IREE flags of `--codegen-strategies` (none without it)."""
    if not getattr(args, "codegen_strategies", False):
        return ()
    from .transforms.strategies import codegen_flags as library_flags

    return library_flags(args.target)


def compile_and_save(module: ir.Module, session, source_name: str, args: argparse.Namespace,
                     extra_flags: tuple[str, ...] = ()) -> None:
    """Compile and write OUT.vmfb (+ OUT.irpa with the weights of 1 KiB or more). Returns None: written."""
    import shutil
    import tempfile
    from pathlib import Path

    import sys

    from .backends.fallback import compile_with_strategies

    workdir = tempfile.mkdtemp(prefix="fusion-opt-")
    try:
        artifact, fallbacks, dropped = compile_with_strategies(
            module, session, args.target, extra_flags=extra_flags, strategy_flags=codegen_flags(args),
            params_path=Path(workdir) / "w.irpa", source_name=source_name, levers=extra_flags,
            own_regions=args.fusion != "iree")
        for fb in fallbacks:
            print(f"{source_name}: warning: {fb}", file=sys.stderr)
        if dropped:
            args.codegen_strategies = False  # the config check below must not assume them
            print(f"{source_name}: warning: codegen strategies not used, IREE failed with them ({dropped})",
                  file=sys.stderr)
        artifact.save(args.output)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _remove_outputs(path: str) -> None:
    from pathlib import Path

    for p in (Path(path), Path(path).with_suffix(".irpa")):
        p.unlink(missing_ok=True)


def render_plans(planned: list[PlannedFunction], fmt: str) -> str | dict:
    from .fusion.report import plan_to_json, plan_to_text

    if fmt == "dot":
        from .fusion.dot import plan_to_dot

        return "".join(plan_to_dot(p.plan, p.graph) for p in planned)
    if fmt == "json":
        return {"functions": [plan_to_json(p.plan, p.graph) for p in planned]}
    return "\n".join(plan_to_text(p.plan, p.graph) for p in planned)


def process_mlir(text: str, source_name: str, args: argparse.Namespace) -> str | bytes | dict:
    chunks = split_input(text, args.split_input_file)
    if args.emit == "vmfb" and len(chunks) > 1:
        raise InputError("--emit=vmfb cannot be combined with --split-input-file")
    results = []
    for chunk in chunks:
        session = new_session()

        def load(chunk=chunk, session=session) -> ir.Module:
            module = parse_mlir(chunk.text, session.context, source_name)
            normalize_mlir(module, source_name)  # what --emit=transform's op ids and --transform scripts see
            return module

        results.append(emit(load(), source_name, args, session, "mlir", reload=load))
    if not getattr(args, "defer_match_check", False):
        check_matched(args)
    return join_results(results)


def check_matched(args: argparse.Namespace) -> None:
    """Every --fuse/--no-fuse matcher must have matched an op somewhere in the input (all chunks)."""
    control = getattr(args, "control", None)
    if control is not None and args.emit != "linalg":
        control.check_matched()


def join_results(results: list) -> str | bytes | dict:
    if len(results) == 1:
        return results[0]
    if isinstance(results[0], dict):
        return {"functions": [f for r in results for f in r["functions"]]}
    return "// -----\n".join(r if r.endswith("\n") else r + "\n" for r in results)


def process_onnx(data: bytes, source_name: str, args: argparse.Namespace,
                 shapes: dict[str, tuple[int, ...]], path: str | None = None) -> str | bytes | dict:
    """`path`: the file `data` was read from, handed to the import child as it is (it reads the weights
    and any external data next to it itself: parsing and reserializing here cost VGG-19 6 s)."""
    import onnx

    model: str | onnx.ModelProto
    if path is not None:
        model = path
    else:
        try:
            model = onnx.load_from_string(data)
        except Exception as e:
            raise InputError(f"cannot parse ONNX protobuf: {type(e).__name__}: {e}", source_name) from None
        if not model.graph.node and not model.graph.output:
            raise InputError("not an ONNX model (empty graph)", source_name)
    session = new_session()
    def load() -> ir.Module:
        return import_onnx(model, session.context, shapes, source_name=source_name,
                           promote_f16=is_cpu_target(args.target))[0]

    result = emit(load(), source_name, args, session, "onnx", reload=load)
    check_matched(args)
    return result
