"""The benchmark model generator (fusion_opt.bench.models) and the fusion-bench argument handling."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from fusion_opt.bench import cli, models, runner, transformer_blocks

needs_ort = pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None,
                               reason="onnxruntime (optional test dependency) is not installed")


@pytest.fixture(scope="module")
def squeezenet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return models.ensure_model("squeezenet", tmp_path_factory.mktemp("cache_a"))


@needs_ort
def test_generation_is_deterministic(squeezenet: Path, tmp_path: Path) -> None:
    again = models.ensure_model("squeezenet", tmp_path)
    for ext in (".onnx", ".npz", ".json"):
        assert squeezenet.with_suffix(ext).read_bytes() == again.with_suffix(ext).read_bytes(), ext


@needs_ort
def test_generation_is_idempotent(squeezenet: Path) -> None:
    before = {ext: squeezenet.with_suffix(ext).stat().st_mtime_ns for ext in (".onnx", ".npz", ".json")}
    assert models.ensure_model("squeezenet", squeezenet.parent) == squeezenet
    assert before == {ext: squeezenet.with_suffix(ext).stat().st_mtime_ns for ext in before}


@needs_ort
def test_stale_stamp_regenerates(tmp_path: Path) -> None:
    path = models.ensure_model("attention", tmp_path)
    stamp = path.with_suffix(".json")
    stamp.write_text(stamp.read_text().replace(f'"version": {models.VERSION}', '"version": -1'))
    models.ensure_model("attention", tmp_path)
    assert f'"version": {models.VERSION}' in stamp.read_text()


@needs_ort
def test_npz_holds_inputs_and_sane_reference(squeezenet: Path) -> None:
    model = onnx.load(str(squeezenet))
    with np.load(squeezenet.with_suffix(".npz")) as z:
        assert sorted(z.files) == sorted([i.name for i in models.graph_inputs(model)] + ["output"])
    inputs, refs = models.load_inputs(squeezenet)
    assert refs is not None and len(refs) == 1
    out = refs[0]
    assert np.isfinite(out).all() and out.std() > 1e-4
    assert np.allclose(out.sum(), 1.0, atol=1e-3)        # softmax over 1000 classes
    assert out.max() < 0.99                               # calibrated logits: not one-hot
    np.testing.assert_allclose(models.ort_run(squeezenet, inputs)[0], out, rtol=1e-5, atol=1e-6)


@needs_ort
def test_no_splat_weights_left(squeezenet: Path) -> None:
    model = onnx.load(str(squeezenet))
    assert not [n for n in model.graph.node if n.op_type in ("ConstantOfShape", "Constant")]
    inits = {i.name for i in model.graph.initializer}
    assert not inits & {i.name for i in model.graph.input}
    for init in model.graph.initializer:
        a = numpy_helper.to_array(init)
        if a.dtype == np.float32 and a.size > 1:
            assert a.std() > 0, f"{init.name} is still a splat"


def test_resnet_reweighting_has_sane_bn() -> None:
    """Without onnxruntime calibration: just the rewrite of a BN model (fast, no files)."""
    from fusion_opt.bench import cnn_weights

    src = onnx.load(str(cnn_weights.light_path("resnet50")))
    model = cnn_weights.reweight(src, np.random.default_rng(0))
    assert not [n for n in model.graph.node if n.op_type == "ConstantOfShape"]
    onnx.checker.check_model(model)
    bn = next(n for n in model.graph.node if n.op_type == "BatchNormalization")
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    var = inits[bn.input[4]]
    assert (var >= 0.5).all() and (var <= 1.5).all()


@pytest.mark.parametrize("name", sorted(transformer_blocks.BUILDERS))
def test_transformer_blocks_validate(name: str) -> None:
    model = transformer_blocks.BUILDERS[name](np.random.default_rng(0))
    onnx.checker.check_model(model, full_check=True)
    assert model.opset_import[0].version == 17
    for vi in list(model.graph.input) + list(model.graph.output):
        assert all(d.dim_value > 0 for d in vi.type.tensor_type.shape.dim)


@needs_ort
def test_layernorm_block_matches_numpy() -> None:
    model, inputs = models.build_model("layernorm")
    x = inputs["input"]
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    gamma = next(v for k, v in inits.items() if k.startswith("ln_gamma"))
    beta = next(v for k, v in inits.items() if k.startswith("ln_beta"))
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-12) * gamma + beta
    np.testing.assert_allclose(models.ort_run(model, inputs)[0], want, atol=1e-4)


# -- fusion-bench inputs and arguments -------------------------------------------------------------------
def tiny_model(path: Path) -> Path:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    idx = helper.make_tensor_value_info("k", TensorProto.INT64, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])
    nodes = [helper.make_node("Relu", ["x"], ["y"]),
             helper.make_node("Add", ["y", "kf"], ["z"]), helper.make_node("Cast", ["k"], ["kf"], to=1)]
    graph = helper.make_graph(nodes, "tiny", [x, idx], [y, z])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def test_load_inputs_without_npz_is_seeded(tmp_path: Path) -> None:
    path = tiny_model(tmp_path / "tiny.onnx")
    inputs, refs = models.load_inputs(path, seed=3)
    assert refs is None and set(inputs) == {"x", "k"}
    assert inputs["x"].dtype == np.float32 and inputs["k"].dtype == np.int64
    assert ((inputs["k"] >= 0) & (inputs["k"] < 10)).all()
    again, _ = models.load_inputs(path, seed=3)
    assert all(np.array_equal(inputs[k], again[k]) for k in inputs)


@needs_ort
def test_load_inputs_with_npz_returns_all_outputs(tmp_path: Path) -> None:
    path = tiny_model(tmp_path / "tiny.onnx")
    inputs, _ = models.load_inputs(path)
    outs = models.ort_run(path, inputs)
    models.save_npz(path.with_suffix(".npz"), {**inputs, "output": outs[0], "output_1": outs[1]})
    got, refs = models.load_inputs(path)
    assert set(got) == {"x", "k"} and refs is not None and len(refs) == 2
    np.testing.assert_array_equal(refs[1], outs[1])


def test_bench_args(tmp_path: Path) -> None:
    path = tiny_model(tmp_path / "tiny.onnx")
    for argv in (["--models", str(path)], ["run", "--models", str(path)]):
        args = cli.parse_args(argv)
        assert args.command == "run" and args.models == [path] and args.suite == []
        assert args.modes == ["cost", "greedy", "iree"] and args.target == "llvm-cpu"
    assert cli.parse_args([]).suite == list(cli.DEFAULT_SUITE)
    assert cli.parse_args(["--suite", "all"]).suite == list(models.SUITE)
    args = cli.parse_args(["--suite", "mlp4,attention", "--fusion-modes", "greedy,iree,none", "--repeat", "3"])
    assert args.suite == ["mlp4", "attention"] and args.modes == ["greedy", "iree", "none"] and args.repeat == 3
    for bad in (["--suite", "nosuch"], ["--models", str(tmp_path / "missing.onnx")], ["--repeat", "0"]):
        with pytest.raises(SystemExit) as e:
            cli.parse_args(bad)
        assert e.value.code == 2


class _OrtModel:
    """Stands in for a CompiledModel: runs the graph in onnxruntime."""

    def __init__(self, path: str, fusion: str) -> None:
        self.sess = models.ort_session(path)
        self.input_names = tuple(i.name for i in self.sess.get_inputs())
        self.dispatch_count = 1 if fusion == "cost" else 2

    def __call__(self, *arrays: np.ndarray):
        return tuple(self.sess.run(None, dict(zip(self.input_names, arrays))))


@needs_ort
def test_bench_records_results_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import fusion_opt as fo

    def fake_compile(path: str, target: str = "llvm-cpu", fusion: str = "cost") -> _OrtModel:
        if fusion == "iree":
            raise RuntimeError("iree broke\nmore text")
        return _OrtModel(path, fusion)

    monkeypatch.setattr(fo, "compile_onnx", fake_compile)
    path = tiny_model(tmp_path / "tiny.onnx")
    rec = runner.bench_model(path, ["cost", "iree"], "llvm-cpu", repeat=3, warmup=1)
    assert rec["model"] == "tiny" and rec["dispatches_ours"] == 1 and rec["max_abs_err"] == 0.0
    assert rec["ours_ms"] > 0 and rec["ort_ms"] > 0 and "ours_over_ort" in rec and "iree_ms" not in rec
    assert rec["error"] == "iree: RuntimeError: iree broke"
    # this graph's nodes are out of topological order: the import sorts them, and the count is real
    assert rec["dispatches_iree_same_graph"] >= 1 and "dispatches_iree_same_graph_error" not in rec
    from fusion_opt.bench import same_graph

    def refuse(*a: object) -> int:
        raise fo.UnsupportedError("refused here")

    monkeypatch.setattr(same_graph, "iree_dispatches_on_our_graph", refuse)
    rec = runner.bench_model(path, ["cost", "iree"], "llvm-cpu", repeat=1, warmup=0)
    assert "refused here" in rec["dispatches_iree_same_graph_error"] and "dispatches_iree_same_graph" not in rec
    out = tmp_path / "r.json"
    assert cli.main(["--models", str(path), "--repeat", "2", "--warmup", "0", "--json", str(out)]) == 0
    assert out.is_file()
    monkeypatch.setattr(fo, "compile_onnx", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("x")))
    assert cli.main(["--models", str(path), "--repeat", "1"]) == 1
