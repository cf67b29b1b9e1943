"""Writes gpt_micro.onnx: a one-block GPT with a causal mask (64 tokens, width 32), from the MiniGPT of
tools/export_torch_models.py (needs torch 2.13; run from the repository root)."""
import sys

import torch

sys.path.insert(0, "tools")
from export_torch_models import MiniGPT  # noqa: E402

torch.manual_seed(0)
net = MiniGPT(vocab=64, d=32, heads=2, layers=1, T=64).eval()
torch.onnx.export(net, (torch.randint(0, 64, (1, 64)),), "test/python/data/gpt_micro.onnx", opset_version=17,
                  dynamo=False, input_names=["input"])
