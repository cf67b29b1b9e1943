"""Writes vit_micro.onnx (torch 2.13 + torchvision 0.28): a one-layer VisionTransformer, random weights."""
import torch, warnings
from torchvision.models.vision_transformer import VisionTransformer
warnings.filterwarnings("ignore")
torch.manual_seed(0)
net = VisionTransformer(image_size=16, patch_size=8, num_layers=1, num_heads=2, hidden_dim=32, mlp_dim=64, num_classes=10).eval()
with torch.no_grad():
    for p in net.parameters(): p.normal_(0, 0.3)
torch.onnx.export(net, (torch.randn(1,3,16,16),), "vit_micro.onnx", opset_version=17, dynamo=False, input_names=["input"])
