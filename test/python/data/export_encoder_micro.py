"""Writes encoder_micro.onnx: torch's nn.TransformerEncoder (2 pre-norm layers, width 32, 2 heads) over an
embedding of 16 tokens, mean-pooled into 3 logits (needs torch 2.13; run from the repository root). Its
embedding gather feeds both the first LayerNorm and the first residual add."""
import torch
from torch import nn

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.e = nn.Embedding(100, 32)
        layer = nn.TransformerEncoderLayer(32, 2, 64, batch_first=True, norm_first=True, activation="gelu")
        self.t = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.o = nn.Linear(32, 3)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.o(self.t(self.e(idx)).mean(1))


torch.onnx.export(Encoder().eval(), (torch.randint(0, 100, (1, 16)),), "test/python/data/encoder_micro.onnx",
                  opset_version=17, dynamo=False, input_names=["input"])
