"""`torch.backends`: pjtorch has no MPS or cuDNN backends; XLA chooses its own kernels."""
from types import SimpleNamespace

mps = SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
cuda = SimpleNamespace(is_built=lambda: True, matmul=SimpleNamespace(allow_tf32=False))
cudnn = SimpleNamespace(enabled=True, benchmark=False, deterministic=False, allow_tf32=True,
                        is_available=lambda: False)
