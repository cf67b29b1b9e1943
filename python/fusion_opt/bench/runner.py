"""Measure one model: our fusion vs IREE's vs onnxruntime, in one process, interleaved.

Interleaving (one run of each engine per round, in a shuffled order) spreads slow drifts of a shared 2-core machine
(thermal state, other processes, page cache) evenly over the engines instead of biasing whichever ran last;
the median of the rounds is the headline number and min/max/stdev go into the JSON to judge the noise.
"""
from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from . import iree_best, models, roofline, same_graph
from .timing import as_outputs, max_abs_err, measure, paired_ratio, short_error, wrong  # noqa: F401 - re-exported
from .summary import geomean  # noqa: F401 - re-exported: older callers use runner.geomean

# Engines ours is divided by in the records (ours_over_X).
OTHERS = ("iree", "iree_best", "greedy", "nchw", "nhwc", "ort", "roofline")
# Pseudo fusion modes: our cost planner with every conv as imported (layout="nchw") or rewritten
# channels-last (layout="nhwc"); "auto" is the cost planner's default (each conv by the cost model).
LAYOUT_MODES = ("nchw", "nhwc", "auto")


def label(mode: str) -> str:
    """Column name of a fusion mode: our default planner (cost) is 'ours', the others keep their name."""
    return "ours" if mode == "cost" else mode


def bench_model(path: Path, modes: Sequence[str], target: str, repeat: int, warmup: int, seed: int = 0,
                name: str | None = None, verbose: bool = False, tile_sizes: str = "iree",
                iree_best_flags: Sequence[str] | None = None,
                rates: dict[str, float] | None = None) -> dict[str, Any]:
    """One JSON record for one model. Failures are recorded in `error`, never raised. `tile_sizes` goes
    to compile_onnx for every mode (the tile configs applied are counted per mode). With `iree_best_flags`
    IREE's own pipeline at those flags is one more engine (`iree_best`, see iree_best.py); with `rates`
    ({"peak_flops", "bandwidth"}) the record gets the roofline bound `roofline_ms`."""
    import fusion_opt as fo
    from ..backends.flow_ir import copy_dispatches

    rec: dict[str, Any] = {"model": name or path.stem, "path": str(path), "target": target}
    errors: list[str] = []
    try:
        inputs, refs = models.load_inputs(path, seed)
    except Exception as e:  # noqa: BLE001 - a broken model must not stop the suite
        rec["error"] = f"inputs: {short_error(e)}"
        return rec
    rec["reference"] = "npz" if refs is not None else "onnxruntime"
    try:
        cost = roofline.model_cost(path)
        rec["flops"], rec["min_bytes"] = cost.flops, cost.min_bytes
        if rates:
            bound = roofline.roofline_ms(cost.flops, cost.min_bytes, rates["peak_flops"], rates["bandwidth"])
            rec["roofline_ms"] = float(f"{bound:.4g}")  # 4 significant digits: tiny models are ~1e-5 ms
    except Exception as e:  # noqa: BLE001 - e.g. shape inference refuses the model: no bound, still timed
        errors.append(f"roofline: {short_error(e)}")
    fns: dict[str, Callable[[], Any]] = {}
    outs: dict[str, list[np.ndarray]] = {}
    for mode in modes:
        col = label(mode)
        try:
            t0 = time.perf_counter()
            tiles = {"tile_sizes": tile_sizes} if tile_sizes != "iree" else {}  # "iree": the default
            how = {"fusion": "cost", "layout": mode} if mode in LAYOUT_MODES else {"fusion": mode}
            m = fo.compile_onnx(str(path), target=target, **how, **tiles)
            rec[f"compile_s_{col}"] = round(time.perf_counter() - t0, 3)
            rec[f"dispatches_{col}"] = m.dispatch_count
            rec[f"copies_{col}"] = copy_dispatches(getattr(getattr(m, "artifact", None), "sites", None))
            if mode == "cost":  # the planner against IREE's formation of the same rewritten graph
                try:
                    rec["dispatches_iree_same_graph"] = same_graph.iree_dispatches_on_our_graph(path, target)
                except Exception as e:  # noqa: BLE001 - a count, not the benchmark: recorded, never fatal
                    rec["dispatches_iree_same_graph_error"] = short_error(e)
            if tile_sizes != "iree":
                rec[f"tile_configs_{col}"] = len(getattr(m, "configs", ()))
            if isinstance(getattr(m, "timings", None), dict):  # import/plan/compile split, when available
                rec[f"compile_phases_{col}"] = {k: round(v, 3) for k, v in m.timings.items()}
            args = [inputs[n] for n in (getattr(m, "input_names", ()) or tuple(inputs))]
            outs[col] = as_outputs(m(*args))
            if getattr(m, "driver_choice", None) is not None:  # the runtime driver the first call chose
                rec[f"driver_{col}"] = m.driver_choice.driver
            fns[col] = (lambda m=m, args=args: m(*args))
        except Exception as e:  # noqa: BLE001
            errors.append(f"{col}: {short_error(e)}")
            if verbose:
                traceback.print_exc()
    if iree_best_flags is not None:
        try:
            best = iree_best.build(path, tuple(iree_best_flags))
            rec["compile_s_iree_best"] = round(best.import_s + best.compile_s, 3)
            args = [inputs[n] for n in best.input_names]
            outs["iree_best"] = as_outputs(best(*args))
            fns["iree_best"] = (lambda best=best, args=args: best(*args))
        except Exception as e:  # noqa: BLE001
            errors.append(f"iree_best: {short_error(e)}")
            if verbose:
                traceback.print_exc()
    try:
        sess = models.ort_session(path)
        outs["ort"] = as_outputs(sess.run(None, inputs))
        fns["ort"] = (lambda: sess.run(None, inputs))
    except Exception as e:  # noqa: BLE001
        errors.append(f"ort: {short_error(e)}")
    if refs is None:
        refs = outs.get("ort")
    wrong_cols = set()
    for col, got in outs.items():
        if refs is not None and not (col == "ort" and rec["reference"] == "onnxruntime"):
            err = rec["max_abs_err" if col == "ours" else f"{col}_max_abs_err"] = max_abs_err(got, refs)
            if wrong(got, refs):  # timed still, but no ratio: a wrong result is no baseline (nor a win)
                wrong_cols.add(col)
                rec["wrong" if col == "ours" else f"{col}_wrong"] = True
                errors.append(f"{col}: wrong results (max abs error {err:.2e} against the {rec['reference']} "
                              "outputs): no ratio")
    rounds: dict[str, list[float]] = {}
    if fns:
        for col, t in measure(fns, repeat, warmup, rounds).items():
            rec[f"{col}_ms"] = round(t["ms"], 4)
            for k in ("min_ms", "max_ms", "stdev_ms"):
                rec[f"{col}_{k}"] = round(t[k], 4)
    for other in OTHERS:
        if "ours" in wrong_cols or other in wrong_cols:
            continue
        if "ours_ms" in rec and rec.get(f"{other}_ms"):
            rec[f"ours_over_{other}"] = round(rec["ours_ms"] / rec[f"{other}_ms"], 4)
        if "ours" in rounds and rounds.get(other):
            rec[f"ours_over_{other}_paired"] = round(paired_ratio(rounds["ours"], rounds[other]), 4)
    if errors:
        rec["error"] = "; ".join(errors)
    return rec
