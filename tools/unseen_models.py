"""Hand-written torch models for the fourth unseen-model batch (docs/reliability.md, 2026-12-02): model
families the suite and the earlier batches lack (recurrences, 1-D audio convs, 3-D convs, style transfer,
sub-pixel upsampling, dilated convs, windowed attention, RMSNorm blocks, einsum attention, two-input
recommenders). Imported by tools/export_torch_models.py, which writes them to ONNX (needs torch)."""
from __future__ import annotations

import math
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


# --- fifth batch (2026-12-03): families the batches above lack -------------------------------------------

class PointNet(nn.Module):
    """PointNet classifier: a T-Net predicting a 3x3 transform (bmm), shared 1x1 Conv1d + BN + ReLU, a
    global max over points."""

    def __init__(self) -> None:
        super().__init__()
        mlp = lambda i, o: nn.Sequential(nn.Conv1d(i, o, 1), nn.BatchNorm1d(o), nn.ReLU())
        self.t1, self.t2, self.tfc = mlp(3, 32), mlp(32, 128), nn.Linear(128, 9)
        self.m1, self.m2, self.m3, self.fc = mlp(3, 64), mlp(64, 128), mlp(128, 256), nn.Linear(256, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = self.tfc(self.t2(self.t1(x)).amax(2)).view(-1, 3, 3) + torch.eye(3)
        x = torch.bmm(t, x)
        return F.log_softmax(self.fc(self.m3(self.m2(self.m1(x))).amax(2)), -1)


class TCN(nn.Module):
    """Temporal convolutional net: causal dilated Conv1d (left pad, F.pad), weight-norm-free residual blocks
    with a 1x1 downsample, dilations 1, 2, 4, 8."""

    def __init__(self) -> None:
        super().__init__()
        chans = [8, 32, 32, 48, 48]
        self.c1 = nn.ModuleList([nn.Conv1d(chans[i], chans[i + 1], 3, dilation=2 ** i) for i in range(4)])
        self.c2 = nn.ModuleList([nn.Conv1d(chans[i + 1], chans[i + 1], 3, dilation=2 ** i) for i in range(4)])
        self.down = nn.ModuleList([nn.Conv1d(chans[i], chans[i + 1], 1) if chans[i] != chans[i + 1] else nn.Identity()
                                   for i in range(4)])
        self.fc = nn.Linear(48, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i, (a, b, d) in enumerate(zip(self.c1, self.c2, self.down)):
            p = 2 * 2 ** i
            y = F.relu(a(F.pad(x, (p, 0))))
            y = F.relu(b(F.pad(y, (p, 0))))
            x = F.relu(y + d(x))
        return self.fc(x[:, :, -1])


class Mixer(nn.Module):
    """MLP-Mixer: patch embedding, token mixing (LayerNorm, transpose, MLP over tokens, transpose back) and
    channel mixing, GELU, mean over tokens."""

    def __init__(self, d: int = 96, tokens: int = 64, layers: int = 2) -> None:
        super().__init__()
        self.embed = nn.Conv2d(3, d, 8, 8)
        self.blocks = nn.ModuleList([nn.ModuleDict(dict(
            n1=nn.LayerNorm(d), t1=nn.Linear(tokens, 128), t2=nn.Linear(128, tokens),
            n2=nn.LayerNorm(d), c1=nn.Linear(d, 192), c2=nn.Linear(192, d))) for _ in range(layers)])
        self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.embed(x).flatten(2).transpose(1, 2)
        for b in self.blocks:
            x = x + b["t2"](F.gelu(b["t1"](b["n1"](x).transpose(1, 2)))).transpose(1, 2)
            x = x + b["c2"](F.gelu(b["c1"](b["n2"](x))))
        return self.head(self.norm(x).mean(1))


class GCN(nn.Module):
    """Two-layer graph convolution on a dense normalized adjacency (a second input): D^-1/2 (A + I) D^-1/2
    computed in the graph, then A X W twice, log-softmax per node."""

    def __init__(self) -> None:
        super().__init__()
        self.w1, self.w2 = nn.Linear(32, 64), nn.Linear(64, 7)

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        a = adj + torch.eye(adj.shape[-1])
        d = a.sum(-1).rsqrt()
        a = d[:, None] * a * d[None, :]
        h = F.relu(a @ self.w1(x))
        return F.log_softmax(a @ self.w2(h), -1)


class Inception3ish(nn.Module):
    """Inception-v3's factorized blocks: 1x7 / 7x1 convs (asymmetric padding), a 3x3 average pool branch,
    BN + ReLU, a stride-2 reduction block with a 3x3 max pool without padding, concats."""

    def __init__(self) -> None:
        super().__init__()
        cbr = lambda i, o, k, s=1, p=0: nn.Sequential(nn.Conv2d(i, o, k, s, p, bias=False), nn.BatchNorm2d(o), nn.ReLU())
        self.stem = cbr(3, 32, 3, 2)
        self.b1, self.b7a, self.b7b, self.b7c = cbr(32, 24, 1), cbr(32, 16, 1), cbr(16, 16, (1, 7), p=(0, 3)), cbr(16, 24, (7, 1), p=(3, 0))
        self.bp = cbr(32, 16, 1)
        self.r3, self.r3b = cbr(64, 48, 1), cbr(48, 64, 3, 2)
        self.fc = nn.Linear(64 + 64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        x = torch.cat([self.b1(x), self.b7c(self.b7b(self.b7a(x))), self.bp(F.avg_pool2d(x, 3, 1, 1))], 1)
        x = torch.cat([self.r3b(self.r3(x)), F.max_pool2d(x, 3, 2)], 1)
        return self.fc(x.mean((2, 3)))


class PreActResNet(nn.Module):
    """Pre-activation residual blocks (BN -> ReLU -> conv, BN not foldable into the conv it precedes), a
    strided block with a 1x1 shortcut."""

    def __init__(self) -> None:
        super().__init__()
        self.c0 = nn.Conv2d(3, 32, 3, 1, 1, bias=False)
        self.bn1, self.c1, self.bn2, self.c2 = nn.BatchNorm2d(32), nn.Conv2d(32, 32, 3, 1, 1, bias=False), nn.BatchNorm2d(32), nn.Conv2d(32, 32, 3, 1, 1, bias=False)
        self.bn3, self.c3, self.bn4, self.c4 = nn.BatchNorm2d(32), nn.Conv2d(32, 64, 3, 2, 1, bias=False), nn.BatchNorm2d(64), nn.Conv2d(64, 64, 3, 1, 1, bias=False)
        self.sc, self.bnf, self.fc = nn.Conv2d(32, 64, 1, 2, bias=False), nn.BatchNorm2d(64), nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.c0(x)
        x = x + self.c2(F.relu(self.bn2(self.c1(F.relu(self.bn1(x))))))
        o = F.relu(self.bn3(x))
        x = self.sc(o) + self.c4(F.relu(self.bn4(self.c3(o))))
        return self.fc(F.relu(self.bnf(x)).mean((2, 3)))


class VAEDecoder(nn.Module):
    """A VAE decoder: Linear to 4x4x64, ConvTranspose2d stride 2 (k 4, p 1) three times with BN + LeakyReLU,
    sigmoid output."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 64 * 4 * 4)
        up = lambda i, o: nn.Sequential(nn.ConvTranspose2d(i, o, 4, 2, 1), nn.BatchNorm2d(o), nn.LeakyReLU(0.2))
        self.u1, self.u2, self.u3 = up(64, 32), up(32, 16), nn.ConvTranspose2d(16, 3, 4, 2, 1)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.u3(self.u2(self.u1(self.fc(z).view(-1, 64, 4, 4)))))


class Siamese(nn.Module):
    """Two inputs through one shared encoder, L2-normalized embeddings, cosine similarity and a pairwise
    distance."""

    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 16, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, 1, 1),
                                 nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 24))

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        ea, eb = F.normalize(self.enc(a), dim=1), F.normalize(self.enc(b), dim=1)
        return torch.stack([F.cosine_similarity(ea, eb), F.pairwise_distance(ea, eb)], 1)


class Perceiver(nn.Module):
    """Perceiver-style: 32 learned latents cross-attend to 256 input tokens (different query and key
    lengths, nn.MultiheadAttention), then one latent self-attention block."""

    def __init__(self, d: int = 64) -> None:
        super().__init__()
        self.lat, self.inp = nn.Parameter(torch.randn(1, 32, d) * 0.5), nn.Linear(16, d)
        self.cross, self.ln1, self.ln2 = nn.MultiheadAttention(d, 1, batch_first=True), nn.LayerNorm(d), nn.LayerNorm(d)
        self.self_ = nn.TransformerEncoderLayer(d, 4, 128, dropout=0.0, batch_first=True)
        self.head = nn.Linear(d, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        kv = self.ln1(self.inp(x))
        q = self.ln2(self.lat.expand(x.shape[0], -1, -1))
        h = q + self.cross(q, kv, kv, need_weights=False)[0]
        return self.head(self.self_(h).mean(1))


class Xceptionish(nn.Module):
    """Xception's entry flow: separable convs (depthwise 3x3 + pointwise) with BN, ReLU between, a 3x3
    stride-2 max pool with padding 1 added to a 1x1 stride-2 conv shortcut, twice."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU())
        sep = lambda i, o: nn.Sequential(nn.Conv2d(i, i, 3, 1, 1, groups=i, bias=False), nn.Conv2d(i, o, 1, bias=False), nn.BatchNorm2d(o))
        self.s1a, self.s1b, self.sc1 = sep(32, 64), sep(64, 64), nn.Sequential(nn.Conv2d(32, 64, 1, 2, bias=False), nn.BatchNorm2d(64))
        self.s2a, self.s2b, self.sc2 = sep(64, 128), sep(128, 128), nn.Sequential(nn.Conv2d(64, 128, 1, 2, bias=False), nn.BatchNorm2d(128))
        self.fc = nn.Linear(128, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        x = F.max_pool2d(self.s1b(F.relu(self.s1a(x))), 3, 2, 1) + self.sc1(x)
        x = F.max_pool2d(self.s2b(F.relu(self.s2a(F.relu(x)))), 3, 2, 1) + self.sc2(x)
        return self.fc(F.relu(x).mean((2, 3)))


class TopKHead(nn.Module):
    """Classification post-processing: softmax, top-5 values and indices (int64 output), argmax, a gather of
    the chosen class's logit."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(64, 128), nn.Linear(128, 100)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        z = self.fc2(F.relu(self.fc1(x)))
        vals, idx = z.softmax(-1).topk(5, -1)
        best = z.argmax(-1, keepdim=True)
        return vals, idx, torch.gather(z, 1, best)


class QuartzNet(nn.Module):
    """QuartzNet-style 1-D ASR blocks: depthwise-separable Conv1d (k 33, 39), BN, ReLU, a residual
    pointwise branch, then a 1x1 classifier and log-softmax over classes per frame."""

    def __init__(self) -> None:
        super().__init__()
        self.c0 = nn.Sequential(nn.Conv1d(64, 64, 33, 2, 16, groups=64, bias=False), nn.Conv1d(64, 96, 1, bias=False), nn.BatchNorm1d(96), nn.ReLU())
        sep = lambda c, k: nn.Sequential(nn.Conv1d(c, c, k, 1, k // 2, groups=c, bias=False), nn.Conv1d(c, c, 1, bias=False), nn.BatchNorm1d(c))
        self.a, self.b, self.res = sep(96, 33), sep(96, 39), nn.Sequential(nn.Conv1d(96, 96, 1, bias=False), nn.BatchNorm1d(96))
        self.out = nn.Conv1d(96, 29, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.c0(x)
        x = F.relu(self.b(F.relu(self.a(x))) + self.res(x))
        return F.log_softmax(self.out(x), 1)


BATCH5: dict[str, tuple[Callable[[], nn.Module], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "pointnet": (PointNet, lambda: (torch.randn(2, 3, 512),)),
    "tcn": (TCN, lambda: (torch.randn(1, 8, 200),)),
    "mixer": (Mixer, lambda: (torch.randn(1, 3, 64, 64),)),
    "gcn": (GCN, lambda: (torch.randn(100, 32), (torch.rand(100, 100) > 0.9).float())),
    "inception3ish": (Inception3ish, lambda: (torch.randn(1, 3, 75, 75),)),
    "preact": (PreActResNet, lambda: (torch.randn(1, 3, 32, 32),)),
    "vaedecoder": (VAEDecoder, lambda: (torch.randn(2, 16),)),
    "siamese": (Siamese, lambda: (torch.randn(2, 1, 28, 28), torch.randn(2, 1, 28, 28))),
    "perceiver": (Perceiver, lambda: (torch.randn(1, 256, 16),)),
    "xceptionish": (Xceptionish, lambda: (torch.randn(1, 3, 64, 64),)),
    "topkhead": (TopKHead, lambda: (torch.randn(4, 64),)),
    "quartznet": (QuartzNet, lambda: (torch.randn(1, 64, 256),)),
}


# --- sixth batch (2026-12-03): grouped / attention-in-CNN / pyramid / padding modes ----------------------

class ResNeXtBlock(nn.Module):
    """Two ResNeXt bottlenecks (1x1, grouped 3x3 with 32 groups, 1x1, BN, ReLU), the second strided with a
    projection shortcut."""

    def __init__(self) -> None:
        super().__init__()
        bn = nn.BatchNorm2d

        def block(i: int, w: int, o: int, s: int) -> nn.ModuleDict:
            return nn.ModuleDict(dict(a=nn.Conv2d(i, w, 1, bias=False), ba=bn(w), b=nn.Conv2d(w, w, 3, s, 1, groups=32, bias=False),
                                      bb=bn(w), c=nn.Conv2d(w, o, 1, bias=False), bc=bn(o),
                                      sc=nn.Sequential(nn.Conv2d(i, o, 1, s, bias=False), bn(o)) if s != 1 or i != o else nn.Identity()))
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 3, 2, 1, bias=False), bn(64), nn.ReLU())
        self.blocks = nn.ModuleList([block(64, 128, 128, 1), block(128, 256, 256, 2)])
        self.fc = nn.Linear(256, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        for b in self.blocks:
            y = F.relu(b["ba"](b["a"](x)))
            y = F.relu(b["bb"](b["b"](y)))
            x = F.relu(b["bc"](b["c"](y)) + b["sc"](x))
        return self.fc(x.mean((2, 3)))


class FPN(nn.Module):
    """A three-level feature pyramid: strided convs down, 1x1 laterals, nearest 2x upsampling added top-down,
    3x3 smoothing convs, outputs of three sizes."""

    def __init__(self) -> None:
        super().__init__()
        self.c1, self.c2, self.c3 = nn.Conv2d(3, 32, 3, 2, 1), nn.Conv2d(32, 64, 3, 2, 1), nn.Conv2d(64, 128, 3, 2, 1)
        self.l1, self.l2, self.l3 = nn.Conv2d(32, 48, 1), nn.Conv2d(64, 48, 1), nn.Conv2d(128, 48, 1)
        self.s1, self.s2 = nn.Conv2d(48, 48, 3, 1, 1), nn.Conv2d(48, 48, 3, 1, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        a = F.relu(self.c1(x))
        b = F.relu(self.c2(a))
        c = F.relu(self.c3(b))
        p3 = self.l3(c)
        p2 = self.l2(b) + F.interpolate(p3, scale_factor=2, mode="nearest")
        p1 = self.l1(a) + F.interpolate(p2, scale_factor=2, mode="nearest")
        return self.s1(p1), self.s2(p2), p3


class CBAM(nn.Module):
    """A conv followed by CBAM: channel attention (shared MLP over avg- and max-pooled maps, sigmoid) then
    spatial attention (channel-wise mean and max stacked, a 7x7 conv, sigmoid)."""

    def __init__(self) -> None:
        super().__init__()
        self.c = nn.Conv2d(3, 32, 3, 1, 1)
        self.mlp = nn.Sequential(nn.Conv2d(32, 8, 1), nn.ReLU(), nn.Conv2d(8, 32, 1))
        self.sp = nn.Conv2d(2, 1, 7, 1, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.c(x))
        ca = torch.sigmoid(self.mlp(F.adaptive_avg_pool2d(x, 1)) + self.mlp(F.adaptive_max_pool2d(x, 1)))
        x = x * ca
        sa = torch.sigmoid(self.sp(torch.cat([x.mean(1, keepdim=True), x.amax(1, keepdim=True)], 1)))
        return x * sa


class NonLocal(nn.Module):
    """A non-local block: theta / phi / g 1x1 convs, attention over the 16x16 positions (permute, bmm,
    softmax), a 1x1 conv back and a residual add, after a strided conv."""

    def __init__(self) -> None:
        super().__init__()
        self.c = nn.Conv2d(3, 64, 3, 2, 1)
        self.t, self.p, self.g, self.o = nn.Conv2d(64, 32, 1), nn.Conv2d(64, 32, 1), nn.Conv2d(64, 32, 1), nn.Conv2d(32, 64, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.c(x))
        b, c, h, w = x.shape
        t = self.t(x).flatten(2).permute(0, 2, 1)
        p = self.p(x).flatten(2)
        g = self.g(x).flatten(2).permute(0, 2, 1)
        a = torch.softmax(torch.bmm(t, p), -1)
        y = torch.bmm(a, g).permute(0, 2, 1).reshape(b, 32, h, w)
        return x + self.o(y)


class Ghost(nn.Module):
    """GhostNet modules: a primary 1x1 conv, a cheap depthwise 3x3 on its output, concatenated and sliced to
    the wanted channels; two modules with a residual add."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 40, 3, 2, 1)
        self.p1, self.d1 = nn.Sequential(nn.Conv2d(40, 20, 1, bias=False), nn.BatchNorm2d(20), nn.ReLU()), \
            nn.Sequential(nn.Conv2d(20, 20, 3, 1, 1, groups=20, bias=False), nn.BatchNorm2d(20), nn.ReLU())
        self.p2, self.d2 = nn.Sequential(nn.Conv2d(40, 20, 1, bias=False), nn.BatchNorm2d(20)), \
            nn.Sequential(nn.Conv2d(20, 20, 3, 1, 1, groups=20, bias=False), nn.BatchNorm2d(20))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        a = self.p1(x)
        y = torch.cat([a, self.d1(a)], 1)[:, :40]
        b = self.p2(y)
        return x + torch.cat([b, self.d2(b)], 1)[:, :40]


class AdaIN(nn.Module):
    """Adaptive instance normalization between two inputs: content features normalized per channel and
    given the style features' mean and std (unbiased variance), after a shared conv encoder."""

    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 32, 3, 1, 1), nn.ReLU(), nn.Conv2d(32, 32, 3, 2, 1), nn.ReLU())
        self.dec = nn.Conv2d(32, 3, 3, 1, 1)

    def forward(self, content: torch.Tensor, style: torch.Tensor) -> torch.Tensor:
        c, s = self.enc(content), self.enc(style)
        cm, cs = c.mean((2, 3), keepdim=True), (c.var((2, 3), keepdim=True) + 1e-5).sqrt()
        sm, ss = s.mean((2, 3), keepdim=True), (s.var((2, 3), keepdim=True) + 1e-5).sqrt()
        return self.dec((c - cm) / cs * ss + sm)


class SegHead(nn.Module):
    """A segmentation head: convs, softmax over the class dim (dim 1 of NCHW), argmax over classes (int64),
    and a log-softmax over the class dim too."""

    def __init__(self) -> None:
        super().__init__()
        self.b = nn.Sequential(nn.Conv2d(3, 32, 3, 1, 1), nn.ReLU(), nn.Conv2d(32, 21, 1))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        y = self.b(x)
        return y.softmax(1), y.argmax(1), F.log_softmax(y, 1)


class TransposedMix(nn.Module):
    """A ConvTranspose1d (stride 2), a grouped ConvTranspose2d (groups 4, stride 2, output_padding 1) and a
    depthwise conv with stride 2 and dilation 2."""

    def __init__(self) -> None:
        super().__init__()
        self.t1 = nn.ConvTranspose1d(8, 16, 5, 2, 2)
        self.c = nn.Conv2d(3, 16, 3, 1, 1)
        self.t2 = nn.ConvTranspose2d(16, 16, 3, 2, 1, output_padding=1, groups=4)
        self.dw = nn.Conv2d(16, 16, 3, 2, 2, dilation=2, groups=16)

    def forward(self, s: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return F.relu(self.t1(s)), self.dw(F.relu(self.t2(F.relu(self.c(x)))))


class PadModes(nn.Module):
    """Convs with padding_mode replicate and circular, an asymmetric stride (1, 2) conv, a constant pad of
    a non-zero value, then a 3x3 max pool with ceil mode."""

    def __init__(self) -> None:
        super().__init__()
        self.r = nn.Conv2d(3, 16, 3, 1, 1, padding_mode="replicate")
        self.c = nn.Conv2d(16, 16, 3, 1, 1, padding_mode="circular")
        self.a = nn.Conv2d(16, 24, (3, 3), (1, 2), (1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.c(F.relu(self.r(x))))
        x = F.pad(self.a(x), (1, 2, 0, 1), value=0.5)
        return F.max_pool2d(x, 3, 2, ceil_mode=True)


class BroadcastMatmul(nn.Module):
    """Matmuls with batch broadcasting (4-D x 3-D, 3-D x 2-D weight shared), a gated linear unit and SwiGLU."""

    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 32, 48) * 0.1)
        self.glu, self.up, self.gate, self.down = nn.Linear(48, 96), nn.Linear(48, 64), nn.Linear(48, 64), nn.Linear(64, 48)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.matmul(x, self.w)                      # [2, 4, 16, 32] x [4, 32, 48]
        y = F.glu(self.glu(y), -1)
        return self.down(F.silu(self.gate(y)) * self.up(y))


class ElmanRNN(nn.Module):
    """A two-layer tanh nn.RNN over 30 steps and a ReLU nn.RNN cell layer, last step classified."""

    def __init__(self) -> None:
        super().__init__()
        self.r1, self.r2, self.fc = nn.RNN(16, 32, 2, batch_first=True), nn.RNN(32, 24, nonlinearity="relu", batch_first=True), nn.Linear(24, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.r1(x)
        h, _ = self.r2(h)
        return self.fc(h[:, -1])


class HRFuse(nn.Module):
    """HRNet-style fusion of two resolutions: the low branch upsampled (bilinear) into the high one, the high
    branch downsampled by a strided conv into the low one, both summed, ReLU, then a concat of the two."""

    def __init__(self) -> None:
        super().__init__()
        self.h, self.l = nn.Conv2d(3, 18, 3, 1, 1), nn.Conv2d(3, 36, 3, 2, 1)
        self.up, self.down = nn.Conv2d(36, 18, 1), nn.Conv2d(18, 36, 3, 2, 1)
        self.out = nn.Conv2d(54, 8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, l = F.relu(self.h(x)), F.relu(self.l(x))
        h2 = F.relu(h + F.interpolate(self.up(l), size=h.shape[-2:], mode="bilinear", align_corners=False))
        l2 = F.relu(l + self.down(h))
        return self.out(torch.cat([h2, F.interpolate(l2, size=h.shape[-2:], mode="bilinear", align_corners=False)], 1))


BATCH6: dict[str, tuple[Callable[[], nn.Module], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "resnext": (ResNeXtBlock, lambda: (torch.randn(1, 3, 64, 64),)),
    "fpn": (FPN, lambda: (torch.randn(1, 3, 128, 128),)),
    "cbam": (CBAM, lambda: (torch.randn(1, 3, 48, 48),)),
    "nonlocal": (NonLocal, lambda: (torch.randn(1, 3, 32, 32),)),
    "ghost": (Ghost, lambda: (torch.randn(1, 3, 64, 64),)),
    "adain": (AdaIN, lambda: (torch.randn(1, 3, 64, 64), torch.randn(1, 3, 64, 64))),
    "seghead": (SegHead, lambda: (torch.randn(1, 3, 64, 64),)),
    "transposedmix": (TransposedMix, lambda: (torch.randn(1, 8, 50), torch.randn(1, 3, 24, 24))),
    "padmodes": (PadModes, lambda: (torch.randn(1, 3, 40, 40),)),
    "broadcastmm": (BroadcastMatmul, lambda: (torch.randn(2, 4, 16, 32),)),
    "elmanrnn": (ElmanRNN, lambda: (torch.randn(2, 30, 16),)),
    "hrfuse": (HRFuse, lambda: (torch.randn(1, 3, 64, 64),)),
}


# --- seventh batch (2026-12-03): decoders, in-graph position codes, spectrograms, graph attention, MoE -----

class Decoder(nn.Module):
    """nn.TransformerDecoderLayer (self-attention with a causal mask, cross-attention to a 24-token memory,
    a second input), pre-norm, GELU, then a vocabulary projection."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Linear(32, 64)
        self.dec = nn.TransformerDecoderLayer(64, 4, 128, dropout=0.0, batch_first=True, norm_first=True, activation="gelu")
        self.out = nn.Linear(64, 100)

    def forward(self, tgt: torch.Tensor, memory: torch.Tensor) -> torch.Tensor:
        t = tgt.shape[1]
        mask = torch.triu(torch.full((t, t), float("-inf")), 1)
        return self.out(self.dec(self.emb(tgt), memory, tgt_mask=mask))


class SinePos(nn.Module):
    """DETR's sine position embedding computed in the graph (cumsum of a mask, scaled, divided by powers of a
    temperature, interleaved sin / cos) added to conv features, then a transformer encoder layer."""

    def __init__(self) -> None:
        super().__init__()
        self.c = nn.Conv2d(3, 64, 4, 4)
        self.enc = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.c(x)
        b, c, h, w = f.shape
        ones = torch.ones(b, h, w)
        y, xx = ones.cumsum(1) / h * 6.2831853, ones.cumsum(2) / w * 6.2831853
        dim_t = 10000 ** (2 * (torch.arange(c // 2) // 2) / (c // 2))
        px, py = xx[..., None] / dim_t, y[..., None] / dim_t
        px = torch.stack((px[..., 0::2].sin(), px[..., 1::2].cos()), 4).flatten(3)
        py = torch.stack((py[..., 0::2].sin(), py[..., 1::2].cos()), 4).flatten(3)
        pos = torch.cat((py, px), 3).permute(0, 3, 1, 2)
        return self.enc((f + pos).flatten(2).transpose(1, 2))


class Spectrogram(nn.Module):
    """An STFT front end as a strided Conv1d with fixed DFT weights (real and imaginary), magnitude, log, a
    mel-like linear projection, then two 1-D convs."""

    def __init__(self) -> None:
        super().__init__()
        n, hop = 128, 64
        k = torch.arange(n // 2 + 1)[:, None] * torch.arange(n)[None] * 2 * 3.14159265 / n
        win = torch.hann_window(n)
        self.dft = nn.Conv1d(1, 2 * (n // 2 + 1), n, hop, bias=False)
        self.dft.weight.data = torch.cat([k.cos() * win, -k.sin() * win])[:, None]
        self.mel = nn.Linear(n // 2 + 1, 40)
        self.c1, self.c2 = nn.Conv1d(40, 64, 3, 1, 1), nn.Conv1d(64, 64, 3, 2, 1)

    def forward(self, wav: torch.Tensor) -> torch.Tensor:
        s = self.dft(wav)
        re, im = s.chunk(2, 1)
        mag = torch.log(re * re + im * im + 1e-6)
        m = self.mel(mag.transpose(1, 2)).transpose(1, 2)
        return self.c2(F.relu(self.c1(m))).mean(2)


class GAT(nn.Module):
    """A graph attention layer (4 heads): per-edge scores from LeakyReLU of projected pairs, masked by the
    adjacency (a second input, `where`), softmax over neighbours, ELU, then a mean over heads."""

    def __init__(self) -> None:
        super().__init__()
        self.w, self.a_src, self.a_dst = nn.Linear(16, 4 * 8, bias=False), nn.Parameter(torch.randn(4, 8) * 0.3), nn.Parameter(torch.randn(4, 8) * 0.3)

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        h = self.w(x).view(-1, 4, 8)                               # [N, H, D]
        s = (h * self.a_src).sum(-1)                               # [N, H]
        d = (h * self.a_dst).sum(-1)
        e = F.leaky_relu(s[:, None, :] + d[None, :, :], 0.2)       # [N, N, H]
        e = torch.where(adj[..., None] > 0, e, torch.full_like(e, -1e9))
        a = e.softmax(1)
        return F.elu(torch.einsum("ijh,jhd->ihd", a, h)).mean(1)


class MoE(nn.Module):
    """A mixture of four expert MLPs with top-1 routing computed densely: router softmax, argmax, one-hot
    mask, every expert run and the chosen one's output kept, scaled by its gate."""

    def __init__(self) -> None:
        super().__init__()
        self.router = nn.Linear(32, 4)
        self.e1, self.e2 = nn.Parameter(torch.randn(4, 32, 64) * 0.1), nn.Parameter(torch.randn(4, 64, 32) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        g = self.router(x).softmax(-1)                             # [T, E]
        top = g.argmax(-1)
        onehot = F.one_hot(top, 4).to(x.dtype)                     # [T, E]
        y = torch.einsum("td,edf->tef", x, self.e1)
        y = torch.einsum("tef,efd->ted", F.gelu(y), self.e2)       # [T, E, D]
        return (y * (onehot * g)[..., None]).sum(1)


BATCH7: dict[str, tuple[Callable[[], nn.Module], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "decoder": (Decoder, lambda: (torch.randn(1, 16, 32), torch.randn(1, 24, 64))),
    "sinepos": (SinePos, lambda: (torch.randn(1, 3, 64, 64),)),
    "spectrogram": (Spectrogram, lambda: (torch.randn(1, 1, 8000),)),
    "gat": (GAT, lambda: (torch.randn(50, 16), (torch.rand(50, 50) > 0.8).float())),
    "moe": (MoE, lambda: (torch.randn(64, 32),)),
}


# --- eighth batch (2026-12-04): diffusion, detection heads, GRN, weighted fusion, two towers, KV cache ---------

class DiffusionBlock(nn.Module):
    """A diffusion U-Net stage: GroupNorm(32) + SiLU + conv, a timestep embedding (sinusoid computed in the
    graph, MLP with SiLU) added per channel, a second norm/conv with a 1x1 skip, then a self-attention block
    over the 16x16 positions (GroupNorm, 1x1 q/k/v convs, softmax over positions, residual)."""

    def __init__(self) -> None:
        super().__init__()
        self.n1, self.c1 = nn.GroupNorm(32, 64), nn.Conv2d(64, 96, 3, 1, 1)
        self.t = nn.Sequential(nn.Linear(64, 128), nn.SiLU(), nn.Linear(128, 96))
        self.n2, self.c2, self.skip = nn.GroupNorm(32, 96), nn.Conv2d(96, 96, 3, 1, 1), nn.Conv2d(64, 96, 1)
        self.na, self.qkv, self.proj = nn.GroupNorm(32, 96), nn.Conv2d(96, 3 * 96, 1), nn.Conv2d(96, 96, 1)

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        f = torch.exp(-math.log(10000.0) * torch.arange(32, dtype=torch.float32) / 32)
        e = t[:, None] * f[None]
        temb = self.t(torch.cat([e.sin(), e.cos()], 1))
        h = self.c1(F.silu(self.n1(x))) + temb[:, :, None, None]
        h = self.c2(F.silu(self.n2(h))) + self.skip(x)
        B, C, H, W = h.shape
        q, k, v = self.qkv(self.na(h)).reshape(B, 3, C, H * W).unbind(1)
        a = torch.softmax(q.transpose(1, 2) @ k / math.sqrt(C), -1)        # [B, HW, HW]
        o = (v @ a.transpose(1, 2)).reshape(B, C, H, W)
        return h + self.proj(o)


class DFLHead(nn.Module):
    """A YOLOv8-style decoupled head: box branch as 4 x 16-bin distributions (softmax, then a fixed 1x1 conv
    with weights 0..15 = the expectation), decoded against constant anchor points into xyxy boxes, class
    branch through a sigmoid, both concatenated."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.SiLU(),
                                  nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.SiLU())
        self.box = nn.Sequential(nn.Conv2d(64, 64, 3, 1, 1), nn.SiLU(), nn.Conv2d(64, 64, 1))
        self.cls = nn.Sequential(nn.Conv2d(64, 64, 3, 1, 1), nn.SiLU(), nn.Conv2d(64, 20, 1))
        self.dfl = nn.Conv2d(16, 1, 1, bias=False)
        self.dfl.weight.data[:] = torch.arange(16, dtype=torch.float32).view(1, 16, 1, 1)
        self.dfl.weight.requires_grad_(False)
        ys, xs = torch.meshgrid(torch.arange(16) + 0.5, torch.arange(16) + 0.5, indexing="ij")
        self.register_buffer("anchors", torch.stack([xs, ys]).reshape(1, 2, 256))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.stem(x)
        b = self.box(f).view(1, 4, 16, 256).transpose(2, 1).softmax(1)   # [1, 16, 4, A]
        d = self.dfl(b).view(1, 4, 256)
        lt, rb = d.chunk(2, 1)
        boxes = torch.cat([self.anchors - lt, self.anchors + rb], 1) * 4.0
        return torch.cat([boxes, self.cls(f).view(1, 20, 256).sigmoid()], 1)


class ConvNeXtV2(nn.Module):
    """Two ConvNeXt-V2 blocks: depthwise 7x7, channels-last LayerNorm, 4x MLP with GELU and global response
    normalization (L2 norm over H, W divided by its channel mean), layer scale, residual; a downsampling
    LayerNorm + 2x2 stride-2 conv between them."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 48, 4, 4)

        def block(c: int) -> nn.ModuleDict:
            return nn.ModuleDict(dict(dw=nn.Conv2d(c, c, 7, 1, 3, groups=c), ln=nn.LayerNorm(c), fc1=nn.Linear(c, 4 * c),
                                      fc2=nn.Linear(4 * c, c), g=nn.ParameterList([nn.Parameter(torch.randn(4 * c) * 0.1),
                                                                                   nn.Parameter(torch.randn(4 * c) * 0.1)])))
        self.b1, self.b2 = block(48), block(96)
        self.down_ln, self.down = nn.LayerNorm(48), nn.Conv2d(48, 96, 2, 2)

    @staticmethod
    def _run(b: nn.ModuleDict, x: torch.Tensor) -> torch.Tensor:
        y = b["ln"](b["dw"](x).permute(0, 2, 3, 1))
        y = F.gelu(b["fc1"](y))
        gx = torch.norm(y, p=2, dim=(1, 2), keepdim=True)
        nx = gx / (gx.mean(dim=-1, keepdim=True) + 1e-6)
        y = b["g"][0] * (y * nx) + b["g"][1] + y
        return x + b["fc2"](y).permute(0, 3, 1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self._run(self.b1, self.stem(x))
        x = self.down(self.down_ln(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2))
        return self._run(self.b2, x).mean((2, 3))


class BiFPN(nn.Module):
    """EfficientDet's BiFPN node pair: fast normalized fusion (ReLU'd learned weights over their sum) of a
    level with the upsampled coarser one and, bottom-up, with a max-pooled finer one; depthwise-separable
    conv + BN + SiLU after each fusion; three inputs of three sizes."""

    def __init__(self) -> None:
        super().__init__()
        self.w_td, self.w_out = nn.Parameter(torch.tensor([1.0, 0.7])), nn.Parameter(torch.tensor([0.5, 1.0, 0.8]))

        def sep() -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(64, 64, 3, 1, 1, groups=64, bias=False), nn.Conv2d(64, 64, 1), nn.BatchNorm2d(64), nn.SiLU())
        self.td, self.out = sep(), sep()

    def forward(self, p3: torch.Tensor, p4: torch.Tensor, p5: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        w = F.relu(self.w_td)
        w = w / (w.sum() + 1e-4)
        td = self.td(w[0] * p4 + w[1] * F.interpolate(p5, scale_factor=2, mode="nearest"))
        w = F.relu(self.w_out)
        w = w / (w.sum() + 1e-4)
        up = self.out(w[0] * p4 + w[1] * td + w[2] * F.max_pool2d(p3, 3, 2, 1))
        return td, up


class TwoTower(nn.Module):
    """CLIP-style: an image tower (patch conv, class token, one pre-norm layer with quick-GELU) and a text
    tower (token + position embeddings, a causal layer, the features at each text's argmax token), both
    L2-normalized, logits scaled by exp(logit_scale)."""

    def __init__(self) -> None:
        super().__init__()
        d = 64
        self.patch, self.cls = nn.Conv2d(3, d, 8, 8), nn.Parameter(torch.randn(1, 1, d) * 0.1)
        self.ipos, self.tok, self.tpos = nn.Parameter(torch.randn(1, 17, d) * 0.1), nn.Embedding(100, d), nn.Parameter(torch.randn(1, 12, d) * 0.1)
        self.ilayer, self.tlayer = self._layer(d), self._layer(d)
        self.iproj, self.tproj = nn.Linear(d, 32, bias=False), nn.Linear(d, 32, bias=False)
        self.scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    @staticmethod
    def _layer(d: int) -> nn.ModuleDict:
        return nn.ModuleDict(dict(ln1=nn.LayerNorm(d), qkv=nn.Linear(d, 3 * d), o=nn.Linear(d, d), ln2=nn.LayerNorm(d),
                                  fc1=nn.Linear(d, 4 * d), fc2=nn.Linear(4 * d, d)))

    @staticmethod
    def _run(m: nn.ModuleDict, x: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        B, T, D = x.shape
        q, k, v = m["qkv"](m["ln1"](x)).view(B, T, 3, 4, D // 4).permute(2, 0, 3, 1, 4)
        s = q @ k.transpose(-1, -2) / math.sqrt(D // 4)
        if mask is not None:
            s = s + mask
        x = x + m["o"]((s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D))
        h = m["fc1"](m["ln2"](x))
        return x + m["fc2"](h * torch.sigmoid(1.702 * h))

    def forward(self, img: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        p = self.patch(img).flatten(2).transpose(1, 2)
        x = self._run(self.ilayer, torch.cat([self.cls.expand(p.shape[0], -1, -1), p], 1) + self.ipos, None)
        fi = F.normalize(self.iproj(x[:, 0]), dim=-1)
        mask = torch.full((12, 12), float("-inf")).triu(1)
        t = self._run(self.tlayer, self.tok(ids) + self.tpos, mask)
        ft = F.normalize(self.tproj(t[torch.arange(t.shape[0]), ids.argmax(-1)]), dim=-1)
        return self.scale.exp() * fi @ ft.t()


class KVStep(nn.Module):
    """One decoder step with a KV cache: the new token's k / v appended to past_k / past_v (inputs), ALiBi
    position biases, one query over 33 keys, RMSNorm and a SwiGLU MLP; three outputs (y, new k, new v)."""

    def __init__(self) -> None:
        super().__init__()
        d, self.h = 64, 4
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.norm_w = nn.Parameter(torch.ones(d) + 0.1 * torch.randn(d))
        self.w1, self.w3, self.w2 = nn.Linear(d, 128, bias=False), nn.Linear(d, 128, bias=False), nn.Linear(128, d, bias=False)
        self.register_buffer("slopes", torch.tensor([2.0 ** (-8 * (i + 1) / 4) for i in range(4)]).view(1, 4, 1, 1))

    def forward(self, x: torch.Tensor, pk: torch.Tensor, pv: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        B, _, D = x.shape
        q = self.q(x).view(B, 1, self.h, D // self.h).transpose(1, 2)
        k = torch.cat([pk, self.k(x).view(B, 1, self.h, D // self.h).transpose(1, 2)], 2)
        v = torch.cat([pv, self.v(x).view(B, 1, self.h, D // self.h).transpose(1, 2)], 2)
        T = k.shape[2]
        bias = self.slopes * (torch.arange(T, dtype=torch.float32) - (T - 1)).view(1, 1, 1, T)
        a = (q @ k.transpose(-1, -2) / math.sqrt(D // self.h) + bias).softmax(-1)
        x = x + self.o((a @ v).transpose(1, 2).reshape(B, 1, D))
        n = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.norm_w
        return x + self.w2(F.silu(self.w1(n)) * self.w3(n)), k, v


class UnshuffleNet(nn.Module):
    """PixelUnshuffle(2) (SpaceToDepth) into convs with LeakyReLU and an ECA channel attention (a Conv1d over
    the pooled channels, through transposes), then PixelShuffle(2) back and a global residual."""

    def __init__(self) -> None:
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(12, 48, 3, 1, 1), nn.Conv2d(48, 12, 3, 1, 1)
        self.eca = nn.Conv1d(1, 1, 5, padding=2, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.leaky_relu(self.c1(F.pixel_unshuffle(x, 2)), 0.1)
        a = self.eca(y.mean((2, 3))[:, None, :]).sigmoid()            # [B, 1, C]
        y = y * a.transpose(1, 2)[..., None]
        return x + F.pixel_shuffle(self.c2(y), 2)


class GMLP(nn.Module):
    """Two gMLP blocks: LayerNorm, channel projection to 2x with GELU, a spatial gating unit (half the channels
    LayerNorm'd and mixed across the 32 tokens by a Linear over the token axis, gating the other half)."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([nn.ModuleDict(dict(ln=nn.LayerNorm(48), up=nn.Linear(48, 192), sln=nn.LayerNorm(96),
                                                        sp=nn.Linear(32, 32), down=nn.Linear(96, 48))) for _ in range(2)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for b in self.blocks:
            u, v = F.gelu(b["up"](b["ln"](x))).chunk(2, -1)
            v = b["sp"](b["sln"](v).transpose(1, 2)).transpose(1, 2)
            x = x + b["down"](u * v)
        return x


class ConformerConv(nn.Module):
    """A Conformer block's half-step feed-forward (0.5 x Swish MLP) and convolution module: pointwise conv to
    2C, GLU over channels, depthwise Conv1d (k 15), BatchNorm, SiLU, pointwise conv, residuals, final LayerNorm."""

    def __init__(self) -> None:
        super().__init__()
        c = 64
        self.ff = nn.Sequential(nn.LayerNorm(c), nn.Linear(c, 4 * c), nn.SiLU(), nn.Linear(4 * c, c))
        self.ln, self.pw1, self.dw = nn.LayerNorm(c), nn.Conv1d(c, 2 * c, 1), nn.Conv1d(c, c, 15, padding=7, groups=c)
        self.bn, self.pw2, self.out = nn.BatchNorm1d(c), nn.Conv1d(c, c, 1), nn.LayerNorm(c)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 0.5 * self.ff(x)
        y = F.glu(self.pw1(self.ln(x).transpose(1, 2)), dim=1)
        y = self.pw2(F.silu(self.bn(self.dw(y))))
        return self.out(x + y.transpose(1, 2))


BATCH8: dict[str, tuple[Callable[[], nn.Module], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "diffusion": (DiffusionBlock, lambda: (torch.randn(1, 64, 16, 16), torch.tensor([37.0]))),
    "dflhead": (DFLHead, lambda: (torch.randn(1, 3, 64, 64),)),
    "convnextv2": (ConvNeXtV2, lambda: (torch.randn(1, 3, 64, 64),)),
    "bifpn": (BiFPN, lambda: (torch.randn(1, 64, 32, 32), torch.randn(1, 64, 16, 16), torch.randn(1, 64, 8, 8))),
    "twotower": (TwoTower, lambda: (torch.randn(2, 3, 32, 32), torch.randint(0, 100, (3, 12)))),
    "kvstep": (KVStep, lambda: (torch.randn(1, 1, 64), torch.randn(1, 4, 32, 16), torch.randn(1, 4, 32, 16))),
    "unshuffle": (UnshuffleNet, lambda: (torch.randn(1, 3, 48, 48),)),
    "gmlp": (GMLP, lambda: (torch.randn(2, 32, 48),)),
    "conformer": (ConformerConv, lambda: (torch.randn(1, 50, 64),)),
}


class LlamaGQA(nn.Module):
    """A Llama block with grouped-query attention: RMSNorm, rotary embeddings (cos / sin tables computed in the
    graph, rotate-half by slicing), 8 query heads over 2 key/value heads (repeat_interleave), torch's
    scaled_dot_product_attention with is_causal, and a SwiGLU MLP."""

    def __init__(self) -> None:
        super().__init__()
        d, self.h, self.kv = 64, 8, 2
        self.hd = d // self.h
        self.q, self.o = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)
        self.k, self.v = nn.Linear(d, self.kv * self.hd, bias=False), nn.Linear(d, self.kv * self.hd, bias=False)
        self.n1, self.n2 = nn.Parameter(1 + 0.1 * torch.randn(d)), nn.Parameter(1 + 0.1 * torch.randn(d))
        self.w1, self.w3, self.w2 = nn.Linear(d, 160, bias=False), nn.Linear(d, 160, bias=False), nn.Linear(160, d, bias=False)

    @staticmethod
    def _rms(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w

    def _rope(self, x: torch.Tensor) -> torch.Tensor:
        T = x.shape[2]
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2, dtype=torch.float32) / self.hd))
        ang = torch.arange(T, dtype=torch.float32)[:, None] * inv[None, :]
        cos, sin = torch.cat([ang, ang], -1).cos(), torch.cat([ang, ang], -1).sin()
        x1, x2 = x[..., : self.hd // 2], x[..., self.hd // 2:]
        return x * cos + torch.cat([-x2, x1], -1) * sin

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, D = x.shape
        n = self._rms(x, self.n1)
        q = self._rope(self.q(n).view(B, T, self.h, self.hd).transpose(1, 2))
        k = self._rope(self.k(n).view(B, T, self.kv, self.hd).transpose(1, 2))
        v = self.v(n).view(B, T, self.kv, self.hd).transpose(1, 2)
        k, v = k.repeat_interleave(self.h // self.kv, 1), v.repeat_interleave(self.h // self.kv, 1)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(B, T, D))
        n = self._rms(x, self.n2)
        return x + self.w2(F.silu(self.w1(n)) * self.w3(n))


class SelectiveScan(nn.Module):
    """A Mamba-style block: in-projection to x and gate, a causal depthwise Conv1d (k 4, left-padded), softplus
    step sizes, a diagonal state-space recurrence over 16 steps written out (exp of dt * A, a running state
    per step, C-weighted sums), SiLU gating and an out-projection."""

    def __init__(self) -> None:
        super().__init__()
        d, e, self.n = 32, 64, 8
        self.inp, self.out = nn.Linear(d, 2 * e), nn.Linear(e, d)
        self.conv = nn.Conv1d(e, e, 4, groups=e, padding=3)
        self.dt, self.bc = nn.Linear(e, e), nn.Linear(e, 2 * self.n)
        self.A = nn.Parameter(-torch.rand(e, self.n) - 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, _ = x.shape
        u, g = self.inp(x).chunk(2, -1)
        u = F.silu(self.conv(u.transpose(1, 2))[..., :T].transpose(1, 2))          # [B, T, E]
        dt = F.softplus(self.dt(u))                                              # [B, T, E]
        Bm, Cm = self.bc(u).chunk(2, -1)                                         # [B, T, N]
        dA = torch.exp(dt[..., None] * self.A)                                   # [B, T, E, N]
        dBu = (dt * u)[..., None] * Bm[:, :, None, :]                            # [B, T, E, N]
        h = torch.zeros(B, u.shape[-1], self.n)
        ys = []
        for t in range(T):
            h = dA[:, t] * h + dBu[:, t]
            ys.append((h * Cm[:, t, None, :]).sum(-1))
        y = torch.stack(ys, 1) * F.silu(g)
        return x + self.out(y)


class STN(nn.Module):
    """A spatial transformer: a small localization net (conv, max pool, ReLU, Linear) predicting a 2x3 affine
    matrix, an affine sampling grid + bilinear grid_sample of the input (zeros padding), then a conv classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.loc = nn.Sequential(nn.Conv2d(1, 8, 7), nn.MaxPool2d(2), nn.ReLU(), nn.Conv2d(8, 10, 5), nn.MaxPool2d(2), nn.ReLU())
        self.fc = nn.Sequential(nn.Linear(10 * 3 * 3, 32), nn.ReLU(), nn.Linear(32, 6))
        with torch.no_grad():
            self.fc[2].weight.mul_(0.01)
            self.fc[2].bias.copy_(torch.tensor([1.0, 0, 0, 0, 1, 0]))
        self.head = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        theta = self.fc(self.loc(x).flatten(1)).view(-1, 2, 3)
        B, _, H, W = x.shape                     # affine_grid by hand (torch exports AffineGrid from opset 20)
        ys, xs = torch.meshgrid((torch.arange(H) * 2 + 1) / H - 1, (torch.arange(W) * 2 + 1) / W - 1, indexing="ij")
        base = torch.stack([xs, ys, torch.ones_like(xs)], -1).view(1, H * W, 3)
        grid = (base @ theta.transpose(1, 2)).view(B, H, W, 2)
        return self.head(F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False))


class DGCNN(nn.Module):
    """DGCNN's EdgeConv: pairwise squared distances (matmul and norms), top-k nearest neighbours (TopK indices),
    neighbour features gathered by flattened index, edge features [x_j - x_i, x_i] through a 1x1 Conv2d + BN +
    LeakyReLU, max over neighbours, twice; global max pool and a Linear."""

    def __init__(self) -> None:
        super().__init__()
        self.k = 8
        self.e1 = nn.Sequential(nn.Conv2d(6, 32, 1, bias=False), nn.BatchNorm2d(32), nn.LeakyReLU(0.2))
        self.e2 = nn.Sequential(nn.Conv2d(64, 32, 1, bias=False), nn.BatchNorm2d(32), nn.LeakyReLU(0.2))
        self.fc = nn.Linear(64, 10)

    def _edge(self, x: torch.Tensor, conv: nn.Module) -> torch.Tensor:
        B, C, N = x.shape
        inner = -2 * x.transpose(1, 2) @ x
        sq = (x ** 2).sum(1, keepdim=True)
        idx = (-sq - inner - sq.transpose(1, 2)).topk(self.k, -1)[1]            # [B, N, k]
        idx = (idx + torch.arange(B).view(-1, 1, 1) * N).view(-1)
        xt = x.transpose(1, 2).reshape(B * N, C)
        nb = xt[idx].view(B, N, self.k, C)
        ctr = xt.view(B, N, 1, C).expand(-1, -1, self.k, -1)
        f = torch.cat([nb - ctr, ctr], 3).permute(0, 3, 1, 2)                    # [B, 2C, N, k]
        return conv(f).max(-1)[0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self._edge(x, self.e1)
        b = self._edge(a, self.e2)
        return self.fc(torch.cat([a, b], 1).max(-1)[0])


class MobileViT(nn.Module):
    """A MobileViT block: local 3x3 conv + 1x1 projection, unfold into 2x2 patches by reshape / permute,
    a transformer layer over the patches (nn.TransformerEncoderLayer, SiLU), fold back, 1x1 projection, concat
    with the input and a 3x3 fusion conv; BN + SiLU throughout."""

    def __init__(self) -> None:
        super().__init__()
        c, d = 32, 48

        def cbs(i: int, o: int, k: int) -> nn.Module:
            return nn.Sequential(nn.Conv2d(i, o, k, padding=k // 2, bias=False), nn.BatchNorm2d(o), nn.SiLU())
        self.stem, self.local, self.proj = cbs(3, c, 3), cbs(c, c, 3), nn.Conv2d(c, d, 1, bias=False)
        self.tf = nn.TransformerEncoderLayer(d, 4, 2 * d, dropout=0.0, activation=F.silu, batch_first=True, norm_first=True)
        self.back, self.fuse = cbs(d, c, 1), cbs(2 * c, c, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        y = self.proj(self.local(x))
        B, D, H, W = y.shape
        p = y.reshape(B, D, H // 2, 2, W // 2, 2).permute(0, 3, 5, 2, 4, 1).reshape(B * 4, (H // 2) * (W // 2), D)
        p = self.tf(p)
        y = p.reshape(B, 2, 2, H // 2, W // 2, D).permute(0, 5, 3, 1, 4, 2).reshape(B, D, H, W)
        return self.fuse(torch.cat([x, self.back(y)], 1))


BATCH9: dict[str, tuple[Callable[[], nn.Module], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "llamagqa": (LlamaGQA, lambda: (torch.randn(1, 24, 64),)),
    "selscan": (SelectiveScan, lambda: (torch.randn(2, 16, 32),)),
    "stn": (STN, lambda: (torch.randn(2, 1, 28, 28),)),
    "dgcnn": (DGCNN, lambda: (torch.randn(2, 3, 64),)),
    "mobilevit": (MobileViT, lambda: (torch.randn(1, 3, 32, 32),)),
}


class BertMask(nn.Module):
    """A BERT encoder layer fed like Hugging Face's: int64 token ids, token types and a 0/1 attention mask
    (cast, `(1 - m) * -1e4` additive mask broadcast over heads and queries), word + position + type
    embeddings with LayerNorm, post-norm attention and GELU (erf) feed-forward, a tanh pooler on token 0."""

    def __init__(self) -> None:
        super().__init__()
        v, d, self.h, t = 300, 64, 4, 32
        self.word, self.pos, self.typ = nn.Embedding(v, d), nn.Embedding(t, d), nn.Embedding(2, d)
        self.ln0, self.ln1, self.ln2 = nn.LayerNorm(d, eps=1e-12), nn.LayerNorm(d, eps=1e-12), nn.LayerNorm(d, eps=1e-12)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.fc1, self.fc2, self.pool = nn.Linear(d, 4 * d), nn.Linear(4 * d, d), nn.Linear(d, d)

    def forward(self, ids: torch.Tensor, types: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        B, T = ids.shape
        x = self.ln0(self.word(ids) + self.pos(torch.arange(T).unsqueeze(0)) + self.typ(types))
        ext = (1.0 - mask[:, None, None, :].to(torch.float32)) * -10000.0
        sh = lambda t: t.view(B, T, self.h, -1).transpose(1, 2)
        q, k, v = sh(self.q(x)), sh(self.k(x)), sh(self.v(x))
        a = torch.softmax(q @ k.transpose(-1, -2) / 4.0 + ext, -1) @ v
        x = self.ln1(x + self.o(a.transpose(1, 2).reshape(B, T, -1)))
        x = self.ln2(x + self.fc2(F.gelu(self.fc1(x))))
        return x, torch.tanh(self.pool(x[:, 0]))


class FakeQuant(nn.Module):
    """Quantization-aware-training export: per-tensor fake quantization of activations and per-channel of
    weights (ONNX QuantizeLinear / DequantizeLinear pairs with uint8 and int8 zero points) around a conv,
    a depthwise conv and a Linear."""

    def __init__(self) -> None:
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(3, 16, 3, padding=1), nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.fc = nn.Linear(16, 10)

    @staticmethod
    def _act(x: torch.Tensor) -> torch.Tensor:
        return torch.fake_quantize_per_tensor_affine(x, 0.05, 128, 0, 255)

    @staticmethod
    def _w(w: torch.Tensor) -> torch.Tensor:
        s = w.detach().abs().flatten(1).amax(1).clamp_min(1e-6) / 127
        return torch.fake_quantize_per_channel_affine(w, s, torch.zeros_like(s, dtype=torch.int32), 0, -128, 127)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self._act(x)
        x = self._act(F.relu(F.conv2d(x, self._w(self.c1.weight), self.c1.bias, padding=1)))
        x = self._act(F.relu(F.conv2d(x, self._w(self.c2.weight), self.c2.bias, padding=1, groups=16)))
        return F.linear(self._act(x.mean((2, 3))), self._w(self.fc.weight), self.fc.bias)


class Capsules(nn.Module):
    """Capsule routing: primary capsules from a conv (reshape, squash by their norm), predictions by a
    per-route weight (einsum), three iterations of routing by agreement (softmax over output capsules,
    weighted sums, squash, agreement dot products added to the logits), capsule lengths out."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 32, 9, stride=2)
        self.W = nn.Parameter(torch.randn(1, 4 * 4 * 4, 10, 16, 8) * 0.1)

    @staticmethod
    def _squash(s: torch.Tensor) -> torch.Tensor:
        n2 = (s * s).sum(-1, keepdim=True)
        return n2 / (1 + n2) * s / torch.sqrt(n2 + 1e-8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B = x.shape[0]
        u = self._squash(self.conv(x).view(B, 4, 8, 4 * 4).permute(0, 1, 3, 2).reshape(B, 64, 8))
        uhat = torch.einsum("brcij,brj->brci", self.W.expand(B, -1, -1, -1, -1), u)     # [B, 64, 10, 16]
        b = torch.zeros(B, 64, 10)
        for _ in range(3):
            c = b.softmax(-1)
            v = self._squash((c[..., None] * uhat).sum(1))                               # [B, 10, 16]
            b = b + (uhat * v[:, None]).sum(-1)
        return v.norm(dim=-1)


class RealNVP(nn.Module):
    """Two affine coupling layers of a normalizing flow: split channels (chunk), a small conv net predicting
    tanh-bounded log-scales and shifts, exp, the other half transformed, a channel flip between layers, and
    the log-determinant summed over all but the batch dim as a second output."""

    def __init__(self) -> None:
        super().__init__()
        net = lambda: nn.Sequential(nn.Conv2d(2, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 4, 3, padding=1))
        self.n1, self.n2 = net(), net()
        self.scale = nn.Parameter(torch.ones(1, 2, 1, 1) * 0.5)

    def _couple(self, x: torch.Tensor, net: nn.Module) -> tuple[torch.Tensor, torch.Tensor]:
        a, b = x.chunk(2, 1)
        s, t = net(a).chunk(2, 1)
        s = self.scale * torch.tanh(s)
        return torch.cat([a, b * torch.exp(s) + t], 1), s.flatten(1).sum(-1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, l1 = self._couple(x, self.n1)
        x, l2 = self._couple(x.flip(1), self.n2)
        return x, l1 + l2


class Misc10(nn.Module):
    """Ops the other models lack: one-hot of an argmax (OneHot), GatherElements along a dim, cumsum, flip,
    logsumexp, log_softmax, unbiased variance, a LayerNorm over the last two dims, triu of an input (Trilu),
    a bilinear form as a three-operand einsum (nn.Bilinear does not export), and clamp with tensor bounds."""

    def __init__(self) -> None:
        super().__init__()
        self.ln, self.fc = nn.LayerNorm([8, 16]), nn.Linear(16, 16)
        self.bil = nn.Parameter(torch.randn(8, 16, 16) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:                                  # x: [2, 8, 16]
        y = self.ln(x)
        oh = F.one_hot(y.argmax(-1), 16).to(torch.float32)                                # [2, 8, 16]
        g = torch.gather(y, 2, y.argsort(-1, descending=True)[..., :4])                   # [2, 8, 4]
        c = torch.cumsum(self.fc(y), 1).flip(2)
        z = torch.log_softmax(c, -1) + torch.logsumexp(c, -1, keepdim=True) + oh
        z = z + torch.triu(y[:, :, :8].transpose(1, 2) @ y[:, :, :8], 1).sum(-1, keepdim=True)
        z = torch.clamp(z, -y.abs(), y.abs() + 1) + y.var(-1, keepdim=True)
        return torch.cat([torch.einsum("bti,oij,btj->bto", z, self.bil, y), g], -1)


class Unfold(nn.Module):
    """Local attention by F.unfold (ONNX has no Im2Col: exported as pads, gathers and reshapes): 3x3
    neighbourhoods of keys per query pixel, softmax over the 9 neighbours, weighted values, then a conv."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv, self.out = nn.Conv2d(3, 48, 1), nn.Conv2d(16, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, _, H, W = x.shape
        q, k, v = self.qkv(x).chunk(3, 1)                                                 # [B, 16, H, W]
        kn = F.unfold(k, 3, padding=1).view(B, 16, 9, H * W)
        vn = F.unfold(v, 3, padding=1).view(B, 16, 9, H * W)
        a = (q.view(B, 16, 1, H * W) * kn).sum(1, keepdim=True).softmax(2)                 # [B, 1, 9, HW]
        return self.out((a * vn).sum(2).view(B, 16, H, W))


BATCH10: dict[str, tuple[Callable[[], nn.Module], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "bertmask": (BertMask, lambda: (torch.randint(0, 300, (2, 32)), torch.randint(0, 2, (2, 32)),
                                    torch.cat([torch.ones(2, 24, dtype=torch.int64), torch.zeros(2, 8, dtype=torch.int64)], 1))),
    "fakequant": (FakeQuant, lambda: (torch.rand(1, 3, 32, 32),)),
    "capsules": (Capsules, lambda: (torch.randn(2, 1, 15, 15),)),
    "realnvp": (RealNVP, lambda: (torch.randn(2, 4, 16, 16),)),
    "misc10": (Misc10, lambda: (torch.randn(2, 8, 16),)),
    "unfold": (Unfold, lambda: (torch.randn(1, 3, 24, 24),)),
}


class PreNormEncoder(nn.Module):
    """Two pre-norm `nn.TransformerEncoderLayer`s (GELU, 4 heads of 32) and a mean-pooled head."""

    def __init__(self) -> None:
        super().__init__()
        layer = nn.TransformerEncoderLayer(128, 4, 256, dropout=0.0, batch_first=True, norm_first=True, activation="gelu")
        self.enc, self.head = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), nn.Linear(128, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.enc(x).mean(1))


class BiGRU(nn.Module):
    """A 2-layer bidirectional GRU over 50 steps and a per-step classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.gru, self.out = nn.GRU(40, 64, 2, batch_first=True, bidirectional=True), nn.Linear(128, 12)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.gru(x)[0])


def _video(name: str) -> Callable[[], nn.Module]:
    def make() -> nn.Module:
        import torchvision.models.video as V

        return getattr(V, name)()
    return make


def _vision(name: str) -> Callable[[], nn.Module]:
    def make() -> nn.Module:
        import torchvision.models as M

        # Inception-V3's auxiliary head pools to 1x1: BatchNorm statistics of one image fail (eval drops it)
        kw = {"aux_logits": False, "init_weights": True} if name == "inception_v3" else {}
        net = getattr(M, name)(**kw)
        with torch.no_grad():  # ViT's head starts at zero: every output would be its zero bias
            for p in net.parameters():
                if p.dim() > 1 and not p.any():
                    p.normal_(0, 0.02)
        return net
    return make


# The eleventh batch lives in docs/reliability.md only (written ad hoc); the twelfth (2026-12-05): video nets
# with (2+1)-D and 3-D convs, RegNet-Y and Swin from torchvision, a pre-norm encoder, a bidirectional GRU.
BATCH12: dict[str, tuple[Callable[[], nn.Module], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "r2plus1d_18": (_video("r2plus1d_18"), lambda: (torch.randn(1, 3, 8, 56, 56),)),
    "mc3_18": (_video("mc3_18"), lambda: (torch.randn(1, 3, 8, 56, 56),)),
    "regnet_y_400mf": (_vision("regnet_y_400mf"), lambda: (torch.randn(1, 3, 224, 224),)),
    "swin_t": (_vision("swin_t"), lambda: (torch.randn(1, 3, 224, 224),)),
    "prenorm_encoder": (PreNormEncoder, lambda: (torch.randn(2, 64, 128),)),
    "bigru": (BiGRU, lambda: (torch.randn(2, 50, 40),)),
}
# The thirteenth (2026-12-05): torchvision families not in TORCHVISION (grouped ResNeXt, ShuffleNet-V2 1.0,
# Inception-V3, DeepLabV3 on MobileNet-V3, EfficientNet-V2 with fused MBConv, ViT-B/32, MaxViT).
BATCH13: dict[str, tuple[Callable[[], nn.Module], Callable[[], tuple[torch.Tensor, ...]]]] = {
    name: (_vision(name), lambda size=size: (torch.randn(1, 3, size, size),))
    for name, size in (("resnext50_32x4d", 224), ("shufflenet_v2_x1_0", 224), ("inception_v3", 299),
                       ("efficientnet_v2_s", 224), ("vit_b_32", 224), ("maxvit_t", 224))
}  # Inception-V3's stem leaves 3x3 of a 224 image before a 5x5 conv: it takes 299


class CausalDecoder(nn.Module):
    """torch's nn.TransformerDecoder (2 post-norm layers, batch_first) with a causal mask over 20 target
    tokens and cross-attention to 30 memory tokens (MHA with different query and key inputs packs K and V)."""

    def __init__(self) -> None:
        super().__init__()
        layer = nn.TransformerDecoderLayer(96, 4, 192, dropout=0.0, batch_first=True)
        self.dec, self.out = nn.TransformerDecoder(layer, 2), nn.Linear(96, 50)
        self.register_buffer("mask", torch.triu(torch.full((20, 20), float("-inf")), 1))

    def forward(self, tgt: torch.Tensor, memory: torch.Tensor) -> torch.Tensor:
        return self.out(self.dec(tgt, memory, tgt_mask=self.mask))


class PaddedMHA(nn.Module):
    """nn.MultiheadAttention with a boolean key-padding mask as a second input (True: ignore the key)."""

    def __init__(self) -> None:
        super().__init__()
        self.mha, self.ln = nn.MultiheadAttention(64, 4, batch_first=True), nn.LayerNorm(64)

    def forward(self, x: torch.Tensor, pad: torch.Tensor) -> torch.Tensor:
        y, _ = self.mha(x, x, x, key_padding_mask=pad, need_weights=False)
        return self.ln(x + y)


class ConvTasNet(nn.Module):
    """Conv-TasNet's separation stack: 1x1 bottleneck, then blocks of 1x1 conv, PReLU, global layer norm
    (GroupNorm with one group), dilated depthwise Conv1d, PReLU, GroupNorm, 1x1 residual and skip convs; masks by sigmoid."""

    def __init__(self, c: int = 64, h: int = 128) -> None:
        super().__init__()
        self.enc, self.bott = nn.Conv1d(1, c, 16, 8, bias=False), nn.Conv1d(c, c, 1)
        self.blocks = nn.ModuleList([nn.ModuleDict(dict(
            inp=nn.Conv1d(c, h, 1), a1=nn.PReLU(), n1=nn.GroupNorm(1, h),
            dw=nn.Conv1d(h, h, 3, padding=2 ** i, dilation=2 ** i, groups=h), a2=nn.PReLU(), n2=nn.GroupNorm(1, h),
            res=nn.Conv1d(h, c, 1), skip=nn.Conv1d(h, c, 1))) for i in range(4)])
        self.mask = nn.Conv1d(c, 2 * c, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.enc(x)
        y, skips = self.bott(w), 0
        for b in self.blocks:
            z = b["n2"](b["a2"](b["dw"](b["n1"](b["a1"](b["inp"](y))))))
            y, skips = y + b["res"](z), skips + b["skip"](z)
        m = torch.sigmoid(self.mask(skips)).view(x.shape[0], 2, -1, w.shape[-1])
        return m * w.unsqueeze(1)


class WaveNet(nn.Module):
    """WaveNet residual stack: causal dilated Conv1d (left pad) into tanh * sigmoid gates, 1x1 residual and
    skip convs, ReLU, a 1x1 head and log-softmax over 32 classes."""

    def __init__(self, c: int = 32) -> None:
        super().__init__()
        self.inp, self.dil = nn.Conv1d(1, c, 1), [1, 2, 4, 8, 1, 2, 4, 8]
        self.filt = nn.ModuleList([nn.Conv1d(c, 2 * c, 2, dilation=d) for d in self.dil])
        self.res = nn.ModuleList([nn.Conv1d(c, c, 1) for _ in self.dil])
        self.skip = nn.ModuleList([nn.Conv1d(c, c, 1) for _ in self.dil])
        self.head = nn.Sequential(nn.ReLU(), nn.Conv1d(c, c, 1), nn.ReLU(), nn.Conv1d(c, 32, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, s = self.inp(x), 0
        for d, f, r, k in zip(self.dil, self.filt, self.res, self.skip):
            a, b = f(F.pad(h, (d, 0))).chunk(2, 1)
            g = torch.tanh(a) * torch.sigmoid(b)
            h, s = h + r(g), s + k(g)
        return F.log_softmax(self.head(s), 1)


class UNetSmall(nn.Module):
    """A three-level U-Net: double conv + BN + ReLU blocks, max-pool down, ConvTranspose2d up, skip concats."""

    def __init__(self) -> None:
        super().__init__()
        def dc(i: int, o: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(),
                                 nn.Conv2d(o, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU())
        self.d1, self.d2, self.d3 = dc(3, 16), dc(16, 32), dc(32, 64)
        self.u2, self.c2 = nn.ConvTranspose2d(64, 32, 2, 2), dc(64, 32)
        self.u1, self.c1 = nn.ConvTranspose2d(32, 16, 2, 2), dc(32, 16)
        self.out = nn.Conv2d(16, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        c = self.d3(F.max_pool2d(b, 2))
        b = self.c2(torch.cat([self.u2(c), b], 1))
        return self.out(self.c1(torch.cat([self.u1(b), a], 1)))


class SPPFNeck(nn.Module):
    """A YOLOv5-style stem and neck: Conv-BN-SiLU, a C3-like split block, SPPF (three chained 5x5 max pools
    concatenated), nearest upsampling and a concat with the earlier feature map, a detection 1x1 conv."""

    def __init__(self) -> None:
        super().__init__()
        def cbs(i: int, o: int, k: int = 1, s: int = 1) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(i, o, k, s, k // 2, bias=False), nn.BatchNorm2d(o), nn.SiLU())
        self.stem, self.down = nn.Sequential(cbs(3, 16, 3, 2), cbs(16, 32, 3, 2)), cbs(32, 64, 3, 2)
        self.c3a, self.c3b, self.c3m, self.c3o = cbs(64, 32), cbs(64, 32), nn.Sequential(cbs(32, 32), cbs(32, 32, 3)), cbs(64, 64)
        self.sppf_in, self.sppf_out = cbs(64, 32), cbs(128, 64)
        self.lat, self.head = cbs(96, 32, 3), nn.Conv2d(32, 3 * 9, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p3 = self.stem(x)
        y = self.down(p3)
        y = self.c3o(torch.cat([self.c3m(self.c3a(y)) + self.c3a(y), self.c3b(y)], 1))
        s = self.sppf_in(y)
        m1 = F.max_pool2d(s, 5, 1, 2)
        m2 = F.max_pool2d(m1, 5, 1, 2)
        y = self.sppf_out(torch.cat([s, m1, m2, F.max_pool2d(m2, 5, 1, 2)], 1))
        y = torch.cat([F.interpolate(y, scale_factor=2.0, mode="nearest"), p3], 1)
        return self.head(self.lat(y))


# The fourteenth (2026-12-05): torchvision ViT-B/16 (197 tokens) and Swin-V2-T (cosine attention, a
# continuous position-bias MLP), torch's TransformerDecoder with a causal mask and cross-attention, MHA with a
# boolean key-padding input, Conv-TasNet and WaveNet audio stacks, a U-Net, a YOLOv5-style SPPF neck.
BATCH14: dict[str, tuple[Callable[[], nn.Module], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "vit_b_16": (_vision("vit_b_16"), lambda: (torch.randn(1, 3, 224, 224),)),
    "swin_v2_t": (_vision("swin_v2_t"), lambda: (torch.randn(1, 3, 256, 256),)),
    "causaldecoder": (CausalDecoder, lambda: (torch.randn(2, 20, 96), torch.randn(2, 30, 96))),
    "paddedmha": (PaddedMHA, lambda: (torch.randn(2, 24, 64), torch.arange(24).expand(2, 24) >= torch.tensor([[20], [24]]))),
    "convtasnet": (ConvTasNet, lambda: (torch.randn(1, 1, 4000),)),
    "wavenet": (WaveNet, lambda: (torch.randn(1, 1, 1000),)),
    "unetsmall": (UNetSmall, lambda: (torch.randn(1, 3, 64, 64),)),
    "sppfneck": (SPPFNeck, lambda: (torch.randn(1, 3, 128, 128),)),
}
