"""Parsing MLIR text for the rewrite tests (imported by test modules; not a test module itself)."""
from __future__ import annotations

from fusion_opt.analysis.describe import describe_function
from fusion_opt.ir import functions, ir, new_session


def parse_module(text: str):
    """(session, module): the session owns the context, so keep it alive as long as the module."""
    sess = new_session()
    with sess.context:
        module = ir.Module.parse(text)
    return sess, module


def describe_text(text: str):
    """(session, module, first function, its DataflowGraph, its ops)."""
    sess, module = parse_module(text)
    f = functions(module)[0]
    graph, ops = describe_function(f)
    return sess, module, f, graph, ops
