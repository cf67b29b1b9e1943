"""Hand-written torch models for the fourth unseen-model batch (docs/reliability.md, 2026-12-02): model
families the suite and the earlier batches lack (recurrences, 1-D audio convs, 3-D convs, style transfer,
sub-pixel upsampling, dilated convs, windowed attention, RMSNorm blocks, einsum attention, two-input
recommenders). Imported by tools/export_torch_models.py, which writes them to ONNX (needs torch)."""
from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F


class SeqLSTM(nn.Module):
    """Embedding, a 2-layer LSTM and a bidirectional GRU over 40 steps, mean-pooled into a classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.emb, self.lstm = nn.Embedding(300, 64), nn.LSTM(64, 96, num_layers=2, batch_first=True)
        self.gru, self.fc = nn.GRU(96, 48, batch_first=True, bidirectional=True), nn.Linear(96, 10)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        h, _ = self.lstm(self.emb(idx))
        g, _ = self.gru(h)
        return self.fc(g.mean(1))


class Audio1d(nn.Module):
    """wav2vec-style feature encoder (strided Conv1d, GroupNorm, GELU) and one pre-norm transformer layer."""

    def __init__(self) -> None:
        super().__init__()
        self.c0, self.gn = nn.Conv1d(1, 64, 10, 5, bias=False), nn.GroupNorm(64, 64)
        self.cs = nn.ModuleList([nn.Conv1d(64, 64, 3, 2, bias=False) for _ in range(4)])
        self.proj = nn.Linear(64, 128)
        self.enc = nn.TransformerEncoderLayer(128, 4, 256, dropout=0.0, batch_first=True, activation="gelu",
                                              norm_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.gelu(self.gn(self.c0(x)))
        for c in self.cs:
            x = F.gelu(c(x))
        return self.enc(self.proj(x.transpose(1, 2)))


def _reflect_block(i: int, o: int, k: int, stride: int) -> nn.Sequential:
    return nn.Sequential(nn.ReflectionPad2d(k // 2), nn.Conv2d(i, o, k, stride), nn.InstanceNorm2d(o, affine=True),
                         nn.ReLU())


class StyleNet(nn.Module):
    """Johnson-style transfer net: reflection pads, InstanceNorm, residual blocks, nearest upsampling."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b, self.c = _reflect_block(3, 16, 9, 1), _reflect_block(16, 32, 3, 2), _reflect_block(32, 64, 3, 2)
        self.res = nn.ModuleList([nn.Sequential(
            nn.ReflectionPad2d(1), nn.Conv2d(64, 64, 3), nn.InstanceNorm2d(64, affine=True), nn.ReLU(),
            nn.ReflectionPad2d(1), nn.Conv2d(64, 64, 3), nn.InstanceNorm2d(64, affine=True)) for _ in range(2)])
        self.u1, self.u2 = _reflect_block(64, 32, 3, 1), _reflect_block(32, 16, 3, 1)
        self.out = nn.Sequential(nn.ReflectionPad2d(4), nn.Conv2d(16, 3, 9))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.c(self.b(self.a(x)))
        for r in self.res:
            x = x + r(x)
        x = self.u1(F.interpolate(x, scale_factor=2, mode="nearest"))
        x = self.u2(F.interpolate(x, scale_factor=2, mode="nearest"))
        return torch.tanh(self.out(x))


class ESPCN(nn.Module):
    """Sub-pixel super-resolution: convs, then PixelShuffle(3) (ONNX DepthToSpace, CRD mode)."""

    def __init__(self) -> None:
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(1, 64, 5, padding=2), nn.Conv2d(64, 32, 3, padding=1)
        self.c3, self.ps = nn.Conv2d(32, 9, 3, padding=1), nn.PixelShuffle(3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.ps(self.c3(torch.tanh(self.c2(torch.tanh(self.c1(x)))))))


class ASPP(nn.Module):
    """DeepLab's atrous pyramid: dilated 3x3 convs, an image-pooling branch resized back, bilinear output."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
                                  nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU())
        self.branches = nn.ModuleList([nn.Sequential(
            nn.Conv2d(64, 32, 1 if d == 1 else 3, padding=0 if d == 1 else d, dilation=d, bias=False),
            nn.BatchNorm2d(32), nn.ReLU()) for d in (1, 6, 12, 18)])
        self.pool, self.out = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(64, 32, 1), nn.ReLU()), nn.Conv2d(160, 21, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        h, w = x.shape[-2:]
        ys = [b(x) for b in self.branches]
        ys.append(F.interpolate(self.pool(x), size=(h, w), mode="bilinear", align_corners=False))
        return F.interpolate(self.out(torch.cat(ys, 1)), scale_factor=4, mode="bilinear", align_corners=False)


class WindowAttn(nn.Module):
    """Swin-style block twice (plain and shifted windows): window partition by view/permute, attention
    with a learned relative bias inside 7x7 windows, `roll` for the shift, MLP."""

    def __init__(self, d: int = 64, ws: int = 7, heads: int = 4) -> None:
        super().__init__()
        self.pe, self.ln, self.qkv, self.proj = nn.Conv2d(3, d, 4, 4), nn.LayerNorm(d), nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln2, self.mlp = nn.LayerNorm(d), nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.bias, self.ws, self.h = nn.Parameter(torch.randn(heads, ws * ws, ws * ws) * 0.02), ws, heads

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pe(x)
        b, c, hh, ww = x.shape
        ws, x = self.ws, x.permute(0, 2, 3, 1)
        for shift in (0, 3):
            y = self.ln(torch.roll(x, (-shift, -shift), (1, 2)) if shift else x)
            y = y.view(b, hh // ws, ws, ww // ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws, c)
            q, k, v = (t.view(t.shape[0], ws * ws, self.h, -1).transpose(1, 2) for t in self.qkv(y).chunk(3, -1))
            a = ((q @ k.transpose(-1, -2)) * (c // self.h) ** -0.5 + self.bias).softmax(-1)
            y = self.proj((a @ v).transpose(1, 2).reshape(-1, ws * ws, c))
            y = y.view(b, hh // ws, ww // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, hh, ww, c)
            x = x + (torch.roll(y, (shift, shift), (1, 2)) if shift else y)
            x = x + self.mlp(self.ln2(x))
        return x.mean((1, 2))


class T5ish(nn.Module):
    """RMSNorm, unscaled attention with a learned bias, gated tanh-GELU feed-forward, SiLU output."""

    def __init__(self, d: int = 128, heads: int = 4, t: int = 32) -> None:
        super().__init__()
        self.emb, self.h = nn.Embedding(200, d), heads
        self.w1, self.w2 = nn.Parameter(torch.ones(d)), nn.Parameter(torch.ones(d))
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.wi0, self.wi1, self.wo = nn.Linear(d, 256, bias=False), nn.Linear(d, 256, bias=False), nn.Linear(256, d, bias=False)
        self.rel = nn.Parameter(torch.randn(1, heads, t, t) * 0.1)

    @staticmethod
    def rms(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return w * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.emb(idx)
        b, t, d = x.shape
        y = self.rms(x, self.w1)
        q, k, v = (m(y).view(b, t, self.h, -1).transpose(1, 2) for m in (self.q, self.k, self.v))
        a = (q @ k.transpose(-1, -2) + self.rel).softmax(-1)
        x = x + self.o((a @ v).transpose(1, 2).reshape(b, t, d))
        y = self.rms(x, self.w2)
        return F.silu(x + self.wo(F.gelu(self.wi0(y), approximate="tanh") * self.wi1(y)))


class MixedOps(nn.Module):
    """Hardswish, a depthwise 5x5, squeeze-excite with hardsigmoid, a grouped 1x1 conv, channel shuffle,
    where/clamp, a global max, log-softmax and cumsum."""

    def __init__(self) -> None:
        super().__init__()
        self.c, self.dw = nn.Conv2d(3, 24, 3, 2, 1), nn.Conv2d(24, 24, 5, 1, 2, groups=24)
        self.se1, self.se2, self.pw, self.fc = nn.Conv2d(24, 8, 1), nn.Conv2d(8, 24, 1), nn.Conv2d(24, 48, 1, groups=2), nn.Linear(48, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.hardswish(self.c(x))
        y = F.hardswish(self.dw(x))
        y = self.pw(y * F.hardsigmoid(self.se2(F.relu(self.se1(y.mean((2, 3), keepdim=True))))))
        b, c, h, w = y.shape
        y = y.view(b, 2, c // 2, h, w).transpose(1, 2).reshape(b, c, h, w)
        z = self.fc(torch.where(y > 0, y, 0.1 * y).clamp(-3, 3).amax((2, 3)))
        return F.log_softmax(z, -1) + torch.cumsum(z, -1) * 0.01


class Video3d(nn.Module):
    """Conv3d + BatchNorm3d + ReLU, a spatial max pool, a (1, 3, 3) strided Conv3d, global mean, Linear."""

    def __init__(self) -> None:
        super().__init__()
        self.c1, self.bn = nn.Conv3d(3, 16, 3, padding=1), nn.BatchNorm3d(16)
        self.c2, self.fc = nn.Conv3d(16, 32, (1, 3, 3), padding=(0, 1, 1), stride=(1, 2, 2)), nn.Linear(32, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool3d(F.relu(self.bn(self.c1(x))), (1, 2, 2))
        return self.fc(F.relu(self.c2(x)).mean((2, 3, 4)))


class Activations(nn.Module):
    """PReLU, GroupNorm, Mish, a dilated conv, ELU, Softplus, LeakyReLU, Hardtanh, a ceil-mode average
    pool without padding counted, an adaptive pool, BatchNorm1d; two outputs."""

    def __init__(self) -> None:
        super().__init__()
        self.c, self.p, self.g = nn.Conv2d(3, 16, 3, padding=1), nn.PReLU(16), nn.GroupNorm(4, 16)
        self.c2, self.bn1, self.fc = nn.Conv2d(16, 16, 3, padding=2, dilation=2), nn.BatchNorm1d(16), nn.Linear(16 * 7 * 7, 8)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = F.mish(self.g(self.p(self.c(x))))
        x = F.hardtanh(F.elu(self.c2(x)) + F.softplus(x) - F.leaky_relu(x, 0.2), -2, 2)
        x = F.max_pool2d(F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), 3, 1, 1)
        x = F.adaptive_avg_pool2d(x, (7, 7))
        return F.gelu(self.fc(x.flatten(1))), torch.sigmoid(self.bn1(x.mean((2, 3))))


class EinsumAttn(nn.Module):
    """Attention written with einsum, an additive key mask as a second input, a pre-LayerNorm residual."""

    def __init__(self, d: int = 64, heads: int = 4) -> None:
        super().__init__()
        self.qkv, self.o, self.ln, self.h = nn.Linear(d, 3 * d), nn.Linear(d, d), nn.LayerNorm(d), heads

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln(x)).view(b, t, 3, self.h, d // self.h).unbind(2)
        a = torch.einsum("bthd,bshd->bhts", q, k) / (d // self.h) ** 0.5 + mask[:, None, None, :]
        return x + self.o(torch.einsum("bhts,bshd->bthd", a.softmax(-1), v).reshape(b, t, d))


class UpsampleAC(nn.Module):
    """A ConvTranspose2d with output_padding, bilinear resizes with align_corners (down and up), a depthwise conv."""

    def __init__(self) -> None:
        super().__init__()
        self.c, self.t = nn.Conv2d(3, 8, 3, 2, 1), nn.ConvTranspose2d(8, 8, 3, 2, 1, output_padding=1)
        self.d = nn.Conv2d(8, 8, 3, padding=1, groups=8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.t(F.relu(self.c(x)))
        u = F.interpolate(x, scale_factor=0.5, mode="bilinear", align_corners=True)
        u = F.interpolate(u, size=y.shape[-2:], mode="bilinear", align_corners=True)
        return self.d(y) + u.sum(1, keepdim=True)


class Recsys(nn.Module):
    """DLRM-style: a dense MLP, four embedding lookups, pairwise dot interactions (bmm, upper triangle
    gathered), a top MLP; two inputs (float features, int64 ids)."""

    def __init__(self) -> None:
        super().__init__()
        self.e = nn.ModuleList([nn.Embedding(1000, 16) for _ in range(4)])
        self.bot = nn.Sequential(nn.Linear(13, 64), nn.ReLU(), nn.Linear(64, 16), nn.ReLU())
        self.top = nn.Sequential(nn.Linear(16 + 10, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, dense: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        z = self.bot(dense)
        t = torch.stack([z] + [e(ids[:, i]) for i, e in enumerate(self.e)], 1)
        inter = torch.bmm(t, t.transpose(1, 2))
        iu = torch.triu_indices(5, 5, 1)
        return torch.sigmoid(self.top(torch.cat([z, inter[:, iu[0], iu[1]]], 1)))


# name -> (module class, example inputs); export_torch_models takes BatchNorm statistics from one such batch.
BATCH4: dict[str, tuple[Callable[[], nn.Module], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "seqlstm": (SeqLSTM, lambda: (torch.randint(0, 300, (1, 40)),)),
    "audio1d": (Audio1d, lambda: (torch.randn(1, 1, 16000),)),
    "stylenet": (StyleNet, lambda: (torch.randn(1, 3, 128, 128),)),
    "espcn": (ESPCN, lambda: (torch.randn(1, 1, 96, 96),)),
    "aspp": (ASPP, lambda: (torch.randn(1, 3, 128, 128),)),
    "windowattn": (WindowAttn, lambda: (torch.randn(1, 3, 112, 112),)),
    "t5ish": (T5ish, lambda: (torch.randint(0, 200, (1, 32)),)),
    "mixedops": (MixedOps, lambda: (torch.randn(1, 3, 96, 96),)),
    "video3d": (Video3d, lambda: (torch.randn(1, 3, 8, 32, 32),)),
    "activations": (Activations, lambda: (torch.randn(2, 3, 26, 26),)),
    "einsumattn": (EinsumAttn, lambda: (torch.randn(2, 16, 64), torch.zeros(2, 16))),
    "upsampleac": (UpsampleAC, lambda: (torch.randn(1, 3, 32, 32),)),
    "recsys": (Recsys, lambda: (torch.randn(4, 13), torch.randint(0, 1000, (4, 4)))),
}

