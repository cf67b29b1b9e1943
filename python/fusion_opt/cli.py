"""`fusion-opt`: the mlir-opt style driver. Reads .mlir or .onnx, plans fusion, emits IR, a plan or a .vmfb.

Every failure a user can cause ends as one `where: error: what` line on stderr and a nonzero exit;
tracebacks only with --debug; output files are written atomically, so a failure leaves none behind.
"""
from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from . import diagnostics
from .errors import FusionOptError, InputError
from .outputs import write_atomic
from .pipelines import DEFAULT_FUSION, FUSION_MODES

EMITS = ("linalg", "regions", "plan", "json", "dot", "vmfb", "transform")
# What --tile-and-fuse may print besides the tiled IR (the default): the plan it follows, its script.
TILE_EMITS = ("plan", "json", "dot", "transform")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fusion-opt",
        description="Plan operator fusion on Linalg (from .mlir or .onnx) and hand it to IREE.",
    )
    p.add_argument("input", nargs="?", default="-", help="input .mlir or .onnx file ('-' for stdin)")
    p.add_argument("-o", dest="output", default="-", help="output file ('-' for stdout)")
    p.add_argument("--fusion", default=DEFAULT_FUSION, choices=FUSION_MODES,
                   help="cost (default): merges gated by the target's cost model; greedy: same legality, no "
                        "cost gate; iree: IREE's own dispatch formation; none: one dispatch per op")
    p.add_argument("--target", default="host",
                   help="target for the cost model and the compile (see --list-targets)")
    p.add_argument("--list-targets", action="store_true", help="print the known targets and exit")
    p.add_argument("--emit", default=None, choices=EMITS,
                   help="linalg: imported IR; regions (default): IR with flow.dispatch.region per group; "
                        "plan: readable plan; json: plan as JSON; dot: Graphviz graph, groups as clusters; "
                        "vmfb: compiled IREE module (needs -o); transform: the tile-and-fuse transform "
                        "script of the plan (replay it with --transform=)")
    p.add_argument("--tile-and-fuse", action="store_true",
                   help="print the Linalg tiled and fused per group (scf.forall), applied by a generated "
                        "transform script (see --emit=transform)")
    p.add_argument("--transform", default=None, metavar="SCRIPT.mlir",
                   help="apply @__transform_main of a transform-dialect script (e.g. from --emit=transform, "
                        "edited) to the input and print the result, instead of planning")
    p.add_argument("--tile-sizes", default="iree", choices=("iree", "cost"),
                   help="iree (default): IREE picks each dispatch's tile sizes; cost: contraction roots get a "
                        "compilation_info from the target description, checked after compiling (--emit=vmfb)")
    p.add_argument("--codegen-strategies", action="store_true",
                   help="with --emit=vmfb on llvm-cpu: dispatches of the strategy library's shapes are "
                        "compiled by the transform sequences of passes/codegen/llvm_cpu.mlir (IREE's "
                        "--iree-codegen-transform-dialect-library) instead of IREE's pipelines")
    p.add_argument("--strategy", default=None, metavar="NAME",
                   help="apply the library strategy passes/NAME.mlir (same as --transform=passes/NAME.mlir)")
    p.add_argument("--fuse", action="append", default=[], metavar="OPS",
                   help="pin: the comma-separated ops must end in one group (repeatable). An op is matched "
                        "by location (file:line, file:line:col, ONNX node name) or op-name glob ('*conv*')")
    p.add_argument("--no-fuse", action="append", default=[], metavar="OPS",
                   help="barrier: each matched op is kept alone in its own group (repeatable)")
    p.add_argument("--list-patterns", action="store_true", help="print the pattern registry and exit")
    p.add_argument("--disable-pattern", action="append", default=[], metavar="NAME",
                   help="switch a pattern off (repeatable): a rewrite is not applied, a grouping pattern's "
                        "ops are kept apart (see --list-patterns)")
    p.add_argument("--layout", choices=("nchw", "nhwc", "auto"), default="auto",
                   help="auto (default): the cost model chooses per windowed convolution, channels-last or "
                        "as imported (pattern conv-layout; --fusion=cost only); nchw: convs as imported; nhwc: "
                        "every NCHW convolution rewritten channels-last (transposes propagated until they cancel). "
                        "docs/patterns.md")
    p.add_argument("--max-fusions", type=non_negative, default=None, metavar="N",
                   help="stop after N merges (bisect a bad fusion: the first N that pass is good)")
    p.add_argument("--split-input-file", action="store_true",
                   help="process each '// -----' separated chunk of the input on its own")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check errors against 'expected-error' annotations in the input")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=1x3x224x224",
                   help="pin a dynamic ONNX graph input to a static shape (repeatable)")
    p.add_argument("--mlir-elide-elementsattrs-if-larger", type=int, default=None, metavar="N",
                   help="print large constants as dense_resource placeholders (for reading, not re-parsing)")
    p.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks on errors")
    return p


def non_negative(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got '{text}'")
    return n


def parse_input_shapes(specs: Sequence[str]) -> dict[str, tuple[int, ...]]:
    shapes = {}
    for spec in specs:
        name, sep, dims = spec.rpartition("=")
        try:
            if not sep or not name:
                raise ValueError
            shapes[name] = tuple(int(d) for d in dims.lower().split("x"))
        except ValueError:
            raise InputError(f"bad --input-shape '{spec}', expected NAME=1x3x224x224") from None
    return shapes


def read_input(path: str) -> tuple[bytes, str]:
    """(contents, name); an `.onnx` file's contents are not read here: the import child reads the model,
    and its weights, from the path (process_onnx)."""
    if path == "-":
        return sys.stdin.buffer.read(), "<stdin>"
    p = Path(path)
    if not p.is_file():
        raise InputError("no such file" if not p.exists() else "not a regular file", path)
    return (b"" if path.endswith(".onnx") else p.read_bytes()), path


def is_onnx(data: bytes, name: str) -> bool:
    """By suffix, else by content: ONNX protobufs are binary, MLIR is text."""
    if name.endswith(".onnx"):
        return True
    if name.endswith(".mlir"):
        return False
    try:
        data.decode("utf-8")
        return False
    except UnicodeDecodeError:
        return True


def list_targets() -> str:
    from .cost import describe_target, get_target_desc, list_target_descs

    return "\n\n".join(describe_target(get_target_desc(n)) for n in list_target_descs()) + "\n"


def run(args: argparse.Namespace) -> int:
    from .driver import process_mlir, process_onnx

    if args.list_targets:
        write_atomic(args.output, list_targets())
        return 0
    if args.list_patterns:
        from .patterns import list_patterns
        write_atomic(args.output, list_patterns() + "\n")
        return 0

    from .fusion.control import ControlSpec

    check_transform_options(args)
    data, name = read_input(args.input)
    args.control = ControlSpec.from_options(args.fuse, args.no_fuse, args.max_fusions,
                                            disable_patterns=args.disable_pattern, layout=args.layout)
    if args.emit == "vmfb" and args.output == "-":
        raise InputError("--emit=vmfb writes a binary module: give an output file with -o")
    shapes = parse_input_shapes(args.input_shape)
    if is_onnx(data, name):
        if args.verify_diagnostics or args.split_input_file:
            raise InputError("--split-input-file and --verify-diagnostics apply to .mlir input only")
        result = process_onnx(data, name, args, shapes, path=None if args.input == "-" else args.input)
        write_result(result, args)
        return 0
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"input is neither UTF-8 MLIR text nor an ONNX file ({e.reason})", name) from None
    if args.verify_diagnostics:
        return diagnostics.verify(text, name, args, process_mlir)
    result = process_mlir(text, name, args)
    write_result(result, args)
    return 0


def check_transform_options(args: argparse.Namespace) -> None:
    """Resolve the default --emit and refuse combinations with no meaning."""
    script = args.transform or args.strategy
    if args.transform and args.strategy:
        raise InputError("give either --transform=SCRIPT or --strategy=NAME, not both")
    if script and args.tile_and_fuse:
        raise InputError("--tile-and-fuse applies the plan's own script; --transform/--strategy apply another: "
                         "choose one")
    if script and args.emit is not None:
        raise InputError("--transform/--strategy print the transformed IR: drop --emit")
    if args.tile_and_fuse and args.emit is not None and args.emit not in TILE_EMITS:
        raise InputError(f"--tile-and-fuse prints the tiled IR (or --emit={'|'.join(TILE_EMITS)}); tiled loops "
                         f"cannot be handed to IREE as dispatch regions (--emit={args.emit})")
    if args.emit is None:  # `-o m.vmfb` alone means the module (as iree-compile): IR text in a .vmfb is a trap
        out = args.output or "-"
        args.emit = "vmfb" if out.endswith(".vmfb") and not (script or args.tile_and_fuse) else "regions"
    if getattr(args, "codegen_strategies", False) and args.emit != "vmfb":
        raise InputError("--codegen-strategies changes how IREE compiles dispatches: use it with --emit=vmfb")


def write_result(result, args: argparse.Namespace) -> None:
    if result is None:  # already written (a compiled .vmfb and its .irpa)
        return
    if isinstance(result, dict):
        result = json.dumps(result, indent=2) + "\n"
    write_atomic(args.output, result)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.debug:  # a library's Python warning (the ONNX importer's) would break the one-line contract
        warnings.simplefilter("ignore")
    try:
        return run(args)
    except FusionOptError as e:
        if args.debug:
            raise
        print(str(e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # an internal bug: still one line unless --debug
        if args.debug:
            raise
        msg = " ".join(str(e).split())
        print(f"error: internal error: {type(e).__name__}: {msg} (rerun with --debug for a traceback)",
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
