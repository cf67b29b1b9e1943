"""Gathers from a transposing copy read its source (rewrites/transposed_gather.py): PyTorch multi-head
attention's q, k, v split without the copy dispatch, the same numbers."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import fusion_opt as fo
from fusion_opt.analysis.opdesc import OpDesc, OpKind
from fusion_opt.rewrites.transposed_gather import source_dims

from ir_helpers import compiled_and_ort, rewritten_like_ort

L, N, E = 6, 2, 8


def _qkv_model(perm=(3, 1, 2, 0, 4), also_output: bool = False):
    """x [L, N, E] -> packed projection [L, N, 3E] -> nn.MultiheadAttention's split (unflatten to
    [L, N, 3, E], unsqueeze(0), transpose(0, -2) as `perm`, squeeze(-2)) -> q, k, v by constant Gathers,
    then q * k + v (and the transposed projection itself when `also_output`)."""
    rng = np.random.default_rng(0)
    c = lambda a, name: numpy_helper.from_array(np.asarray(a), name)
    inits = [c(rng.standard_normal((E, 3 * E)).astype(np.float32), "w"), c(np.array([L, N, 3, E], np.int64), "shape"),
             c(np.array([0], np.int64), "zero"), c(np.array([3], np.int64), "three")]
    inits += [c(np.array(i, np.int64), f"i{i}") for i in range(3)]
    n = helper.make_node
    nodes = [n("MatMul", ["x", "w"], ["p"]), n("Reshape", ["p", "shape"], ["r"]), n("Unsqueeze", ["r", "zero"], ["u"]),
             n("Transpose", ["u"], ["t"], perm=list(perm)), n("Squeeze", ["t", "three"], ["s"])]
    nodes += [n("Gather", ["s", f"i{i}"], [name], axis=0) for i, name in enumerate("qkv")]
    nodes += [n("Mul", ["q", "k"], ["qk"]), n("Add", ["qk", "v"], ["y"])]
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [L, N, E])]
    if also_output:
        outs.append(helper.make_tensor_value_info("s", TensorProto.FLOAT, [3, L, N, E]))
    g = helper.make_graph(nodes, "qkv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [L, N, E])], outs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_qkv_split_reads_the_projection_with_the_same_numbers():
    model = _qkv_model()
    on, got = rewritten_like_ort(model, "transposed-gather", 1, tol=1e-5)
    off = fo.compile_onnx(model, disable_patterns=["transposed-gather"])
    assert on.dispatch_count < off.dispatch_count, (on.dispatch_count, off.dispatch_count)
    x = np.random.default_rng(1).standard_normal((L, N, E)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(off(x)))


def test_a_returned_copy_is_kept():
    """The transposed projection is also an output: materialized anyway, the gathers keep reading it."""
    m, got, ref = compiled_and_ort(_qkv_model(also_output=True))
    assert dict(m.plan.patterns).get("transposed-gather", 0) == 0
    np.testing.assert_allclose(np.asarray(got[0]), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("maps,expected", [
    (((1, 2, 0, 3), (0, 1, 2, 3)), (1, 2, 0, 3)),   # [L, N, 3, E] -> [3, L, N, E]
    (((0, 1, 2), (0, 1, 2)), None),                 # a plain copy: nothing to permute
    (((0, 1), (0, 1, 2)), None),                    # a broadcast, not a permutation
    (((2, 0, 1), (1, 2, 0)), None),                 # output not written in loop order
])
def test_only_pure_permuting_copies_are_sites(maps, expected):
    rank = len(maps[1])
    op = OpDesc(index=0, name="linalg.generic", loc="-", kind=OpKind.ELEMENTWISE, loop_ranges=(2,) * rank, iterator_types=("parallel",) * rank,
                map_dims=maps, num_dps_inputs=1, result_shapes=((2,) * rank,))
    assert source_dims(op) == expected
