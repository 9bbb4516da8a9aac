"""`torch.__config__`: what the build is made of, which for pjtorch is JAX and XLA."""
import jax
import jaxlib

from .tensor.extra_functions import get_num_interop_threads, get_num_threads


def show() -> str:
    return (f"PyTorch built with:\n  - JAX {jax.__version__} (jaxlib {jaxlib.__version__}), XLA compiles every op\n"
            f"  - backends: {', '.join(sorted({d.platform for d in jax.devices()}))}\n")


def parallel_info() -> str:
    return (f"ATen/Parallel:\n\tat::get_num_threads() : {get_num_threads()}\n"
            f"\tat::get_num_interop_threads() : {get_num_interop_threads()}\n")
