"""`torch.backends`: the flags PyTorch's backends expose. XLA chooses its own kernels, so the flags are kept for
code that sets and reads them; availability answers as PyTorch's CPU-only build where JAX sees no GPU."""
from types import SimpleNamespace

from ..tensor.device import gpu_devices


def _has_gpu() -> bool:
    return bool(gpu_devices())


def _enabled() -> bool:
    return True


mps = SimpleNamespace(is_available=lambda: False, is_built=lambda: False, is_macos13_or_newer=lambda *a: False)
cuda = SimpleNamespace(
    is_built=_has_gpu,
    matmul=SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                           allow_bf16_reduced_precision_reduction=True),
    flash_sdp_enabled=_enabled, mem_efficient_sdp_enabled=_enabled, math_sdp_enabled=_enabled,
    cudnn_sdp_enabled=_enabled,
)
cudnn = SimpleNamespace(enabled=True, benchmark=False, deterministic=False, allow_tf32=True,
                        is_available=_has_gpu, version=lambda: None, is_acceptable=lambda tensor: False)
mkldnn = SimpleNamespace(enabled=True, is_available=_enabled)
mkl = SimpleNamespace(is_available=_enabled)
openmp = SimpleNamespace(is_available=_enabled)
opt_einsum = SimpleNamespace(enabled=True, strategy="auto", is_available=_enabled)
quantized = SimpleNamespace(engine="x86", supported_engines=["qnnpack", "onednn", "x86", "fbgemm"])
