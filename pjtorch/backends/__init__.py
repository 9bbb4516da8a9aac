"""`torch.backends`: the flags PyTorch's backends expose. XLA chooses its own kernels, so the flags are kept for
code that sets and reads them; availability answers as PyTorch's CPU-only build where JAX sees no GPU."""
import contextlib
import warnings
from types import SimpleNamespace
from typing import Callable, Iterator

from ..tensor.device import gpu_devices


def _has_gpu() -> bool:
    return bool(gpu_devices())


def _enabled() -> bool:
    return True


# The attention kernels each `torch.backends.cuda.*_sdp` pair names, and the name in its setter's error (sic).
_SDP_KERNELS = {"flash": ("FLASH_ATTENTION", "set_sdp_use_math expects a bool, but got "),
                "mem_efficient": ("EFFICIENT_ATTENTION", "set_sdp_use_math expects a bool, but got "),
                "math": ("MATH", "set_sdp_use_math expects a bool, but got "),
                "cudnn": ("CUDNN_ATTENTION", "set_sdp_use_cudnn expects a bool, but got %s")}


def _sdp_backend(name: str):
    from ..nn import attention  # imported late: pjtorch.nn imports much of pjtorch
    return attention.SDPBackend[name]


def _sdp_reader(kernel: str) -> Callable[[], bool]:
    def enabled() -> bool:
        from ..nn import attention
        return attention.enabled(_sdp_backend(kernel))
    return enabled


def _sdp_setter(kernel: str, error: str) -> Callable[[bool], None]:
    def enable(enabled: bool) -> None:
        from ..nn import attention
        if not isinstance(enabled, bool):
            raise RuntimeError(error + type(enabled).__name__)
        attention.set_enabled(_sdp_backend(kernel), enabled)
    return enable


@contextlib.contextmanager
def _sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
                enable_cudnn: bool = True) -> Iterator[dict]:
    """The deprecated spelling of `torch.nn.attention.sdpa_kernel`, one flag per kernel."""
    from ..nn import attention
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated "
                  "signature.", FutureWarning, stacklevel=3)
    flags = {"FLASH_ATTENTION": enable_flash, "MATH": enable_math, "EFFICIENT_ATTENTION": enable_mem_efficient,
             "CUDNN_ATTENTION": enable_cudnn}
    with attention.sdpa_kernel([_sdp_backend(name) for name, flag in flags.items() if flag]) as result:
        yield result


_sdp_kernel.__name__ = _sdp_kernel.__qualname__ = "sdp_kernel"
_SDP_FUNCTIONS = {f"{prefix}_sdp_enabled": _sdp_reader(kernel) for prefix, (kernel, _) in _SDP_KERNELS.items()}
_SDP_FUNCTIONS.update({f"enable_{prefix}_sdp": _sdp_setter(kernel, error)
                       for prefix, (kernel, error) in _SDP_KERNELS.items()})

mps = SimpleNamespace(is_available=lambda: False, is_built=lambda: False, is_macos13_or_newer=lambda *a: False)
cuda = SimpleNamespace(
    is_built=_has_gpu,
    matmul=SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                           allow_bf16_reduced_precision_reduction=True),
    sdp_kernel=_sdp_kernel, is_flash_attention_available=_has_gpu, **_SDP_FUNCTIONS,
)
cudnn = SimpleNamespace(enabled=True, benchmark=False, deterministic=False, allow_tf32=True,
                        is_available=_has_gpu, version=lambda: None, is_acceptable=lambda tensor: False)
mkldnn = SimpleNamespace(enabled=True, is_available=_enabled)
mkl = SimpleNamespace(is_available=_enabled)
openmp = SimpleNamespace(is_available=_enabled)
opt_einsum = SimpleNamespace(enabled=True, strategy="auto", is_available=_enabled)
quantized = SimpleNamespace(engine="x86", supported_engines=["qnnpack", "onednn", "x86", "fbgemm"])
