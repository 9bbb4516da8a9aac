"""`torch.version`: the PyTorch release pjtorch follows, labelled by compute platform as PyTorch labels its builds
(`+cpu`, `+cu124`), and the CUDA runtime JAX uses where a GPU is present."""
PYTORCH_RELEASE = "2.13.0"
pjtorch_version = "0.1.0"
debug = False
hip = None


def _cuda_version():
    """None without a GPU, as in a CPU build of PyTorch; else 'major.minor' of JAX's CUDA runtime."""
    from .tensor.device import gpu_devices

    if not gpu_devices():
        return None
    try:
        from jax._src.lib import cuda_versions

        number = cuda_versions.cuda_runtime_get_version()
    except (ImportError, AttributeError):
        return None
    return f"{number // 1000}.{number % 1000 // 10}"


cuda = _cuda_version()
__version__ = f"{PYTORCH_RELEASE}+{'cpu' if cuda is None else 'cu' + cuda.replace('.', '')}"
