"""Export the unseen-model sets of docs/performance.md (torchvision21) and docs/reliability.md to ONNX
(the fourth batch's hand-written models live in tools/unseen_models.py).

Needs torch and torchvision, which fusion-opt does not depend on: run it from a separate environment,
e.g. `python -m venv /tmp/tv && /tmp/tv/bin/pip install torch torchvision onnx` then
`/tmp/tv/bin/python tools/export_torch_models.py OUT_DIR [NAME ...]`, and benchmark the files with
`.venv/bin/fusion-bench run --models OUT_DIR/*.onnx`. `--dynamo` (before OUT_DIR) exports with torch's
default exporter instead (`dynamo=True`, its default opset): other op patterns for the same models. Weights are random (seeded); BatchNorm statistics are
taken from one random batch so activations stay O(1) and the error checks mean something.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from unseen_models import (BATCH4, BATCH5, BATCH6, BATCH7, BATCH8, BATCH9, BATCH10, BATCH12,  # noqa: E402  (the fourth to
                           BATCH13, BATCH14)  # fourteenth batches)


class MiniGPT(nn.Module):
    """Two GPT blocks with a causal mask (`masked_fill` on a `triu` bool mask) and tanh GELU."""

    def __init__(self, vocab: int = 500, d: int = 128, heads: int = 4, layers: int = 2, T: int = 64) -> None:
        super().__init__()
        self.tok, self.pos, self.h = nn.Embedding(vocab, d), nn.Parameter(torch.randn(1, T, d) * 0.02), heads
        self.blocks = nn.ModuleList([nn.ModuleDict(dict(
            ln1=nn.LayerNorm(d), qkv=nn.Linear(d, 3 * d), proj=nn.Linear(d, d), ln2=nn.LayerNorm(d),
            fc=nn.Linear(d, 4 * d), out=nn.Linear(4 * d, d))) for _ in range(layers)])
        self.lnf, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        B, T = idx.shape
        x = self.tok(idx) + self.pos[:, :T]
        for b in self.blocks:
            q, k, v = b["qkv"](b["ln1"](x)).split(x.shape[-1], dim=2)
            q, k, v = (t.view(B, T, self.h, -1).transpose(1, 2) for t in (q, k, v))
            att = (q @ k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
            att = att.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf")).softmax(-1)
            x = x + b["proj"]((att @ v).transpose(1, 2).reshape(B, T, -1))
            x = x + b["out"](F.gelu(b["fc"](b["ln2"](x)), approximate="tanh"))
        return self.head(self.lnf(x))


class Yoloish(nn.Module):
    """Strided conv + BN + SiLU backbone, nearest upsampling, a skip concat and a YOLO-style decode."""

    def __init__(self) -> None:
        super().__init__()
        c = lambda i, o, st=1: nn.Sequential(nn.Conv2d(i, o, 3, st, 1, bias=False), nn.BatchNorm2d(o), nn.SiLU())
        self.b1, self.b2, self.b3, self.lat, self.head = c(3, 16, 2), c(16, 32, 2), c(32, 64, 2), c(96, 32), \
            nn.Conv2d(32, 3 * 85, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.b2(self.b1(x))
        y = self.head(self.lat(torch.cat([F.interpolate(self.b3(a), scale_factor=2, mode="nearest"), a], 1)))
        y = y.view(1, 3, 85, y.shape[-2], y.shape[-1]).permute(0, 1, 3, 4, 2)
        xy, wh, conf = y.split([2, 2, 81], -1)
        return torch.cat([xy.sigmoid() * 2, torch.exp(wh), conf.sigmoid()], -1)


class UNetish(nn.Module):
    """Two-level U-Net: max pools down, transposed convs up, skip concats."""

    def __init__(self) -> None:
        super().__init__()
        c = lambda i, o: nn.Sequential(nn.Conv2d(i, o, 3, 1, 1), nn.ReLU(), nn.Conv2d(o, o, 3, 1, 1), nn.ReLU())
        self.d1, self.d2, self.m, self.c2, self.c1 = c(3, 16), c(16, 32), c(32, 64), c(64, 32), c(32, 16)
        self.u2, self.u1, self.o = nn.ConvTranspose2d(64, 32, 2, 2), nn.ConvTranspose2d(32, 16, 2, 2), nn.Conv2d(16, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        y = self.c2(torch.cat([self.u2(self.m(F.max_pool2d(b, 2))), b], 1))
        return self.o(self.c1(torch.cat([self.u1(y), a], 1)))


def _torchvision(name: str) -> nn.Module:
    import torchvision.models as M
    import torchvision.models.segmentation as S

    if name == "lraspp":
        return S.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)
    if name == "googlenet":
        return M.googlenet(aux_logits=False, init_weights=True)
    return getattr(M, name)()


TORCHVISION = ("mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "resnet18", "regnet_x_400mf", "mnasnet0_5",
               "shufflenet_v2_x0_5", "googlenet", "convnext_tiny", "lraspp", "vit_b_16")
OWN = {"minigpt": (MiniGPT, lambda: torch.randint(0, 500, (1, 64))),
       "yoloish": (Yoloish, lambda: torch.randn(1, 3, 256, 256)),
       "unetish": (UNetish, lambda: torch.randn(1, 3, 128, 128))}


class _FirstOutput(nn.Module):
    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.net(x)
        return y["out"] if isinstance(y, dict) else y


def _randomize(net: nn.Module, batch: tuple[torch.Tensor, ...], transformer_weights: bool = True) -> None:
    """BatchNorm statistics of one `batch` (momentum None: a plain average), biases N(0, 0.05), and with
    `transformer_weights` the weights of a model without BatchNorm N(0, 0.02); leaves it in eval mode."""
    bns = [m for m in net.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    with torch.no_grad():
        if bns:
            for m in bns:
                m.momentum = None
                m.reset_running_stats()
            net.train()
            net(*batch)
        for n, p in net.named_parameters():
            if p.dim() == 1 and n.endswith("bias"):
                p.normal_(0, 0.05)
            elif transformer_weights and not bns and p.dim() > 1:
                p.normal_(0, 0.02)
    net.eval()


def _export(net: nn.Module, xs: tuple[torch.Tensor, ...], path: Path, names: list[str], dynamo: bool) -> None:
    if dynamo:
        torch.onnx.export(net, xs, str(path), dynamo=True, input_names=names, external_data=False)
    else:
        torch.onnx.export(net, xs, str(path), opset_version=17, dynamo=False, input_names=names)


def export(name: str, out: Path, dynamo: bool = False) -> Path:
    torch.manual_seed(0)
    batches = {**BATCH4, **BATCH5, **BATCH6, **BATCH7, **BATCH8, **BATCH9, **BATCH10, **BATCH12, **BATCH13, **BATCH14}
    if name in batches:
        cls, make_inputs = batches[name]
        net = cls()
        _randomize(net, make_inputs(), transformer_weights=False)
        xs = make_inputs()
        path = out / f"{name}.onnx"
        _export(net, xs, path, [f"in{i}" for i in range(len(xs))] if len(xs) > 1 else ["input"], dynamo)
        return path
    if name in OWN:
        cls, make_input = OWN[name]
        net, x = cls().eval(), make_input()
    else:
        net, x = _torchvision(name), torch.randn(1, 3, 224, 224)
        _randomize(net, (torch.randn(4, 3, 224, 224),))
        net = _FirstOutput(net)
    path = out / f"{name}.onnx"
    _export(net, (x,), path, ["input"], dynamo)
    return path


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    dynamo = argv[0] == "--dynamo"
    argv = argv[1:] if dynamo else argv
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for name in argv[1:] or [*TORCHVISION, *OWN, *BATCH4, *BATCH5, *BATCH6, *BATCH7, *BATCH8, *BATCH9, *BATCH10, *BATCH12,
                                 *BATCH13, *BATCH14]:
        print(export(name, out, dynamo))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
