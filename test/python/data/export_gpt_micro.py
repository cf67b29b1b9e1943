"""Writes gpt_micro.onnx (torch 2.13, torch.onnx.export with dynamo=False): a one-block GPT with a causal mask."""
import torch, torch.nn as nn, torch.nn.functional as F, warnings
warnings.filterwarnings("ignore")
torch.manual_seed(0)

class MiniGPT(nn.Module):
    def __init__(s, vocab=500, d=128, heads=4, layers=2, T=64):
        super().__init__()
        s.tok = nn.Embedding(vocab, d); s.pos = nn.Parameter(torch.randn(1, T, d) * 0.02)
        s.blocks = nn.ModuleList([nn.ModuleDict(dict(ln1=nn.LayerNorm(d), qkv=nn.Linear(d, 3 * d), proj=nn.Linear(d, d),
                                  ln2=nn.LayerNorm(d), fc=nn.Linear(d, 4 * d), out=nn.Linear(4 * d, d))) for _ in range(layers)])
        s.lnf = nn.LayerNorm(d); s.head = nn.Linear(d, vocab, bias=False); s.h = heads
    def forward(s, idx):
        B, T = idx.shape
        x = s.tok(idx) + s.pos[:, :T]
        for b in s.blocks:
            q, k, v = b["qkv"](b["ln1"](x)).split(x.shape[-1], dim=2)
            q, k, v = (t.view(B, T, s.h, -1).transpose(1, 2) for t in (q, k, v))
            att = (q @ k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
            mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
            att = att.masked_fill(mask, float("-inf")).softmax(-1)
            y = (att @ v).transpose(1, 2).reshape(B, T, -1)
            x = x + b["proj"](y)
            x = x + b["out"](F.gelu(b["fc"](b["ln2"](x)), approximate="tanh"))
        return s.head(s.lnf(x))


torch.manual_seed(0)
net = MiniGPT(vocab=64, d=32, heads=2, layers=1, T=64).eval()
torch.onnx.export(net, (torch.randint(0, 64, (1, 64)),), "gpt_micro.onnx", opset_version=17, dynamo=False,
                  input_names=["input"])
