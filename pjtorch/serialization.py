"""`torch.save` / `torch.load` in PyTorch's own file format, so checkpoints move both ways between the two.

The format is PyTorch's zip archive: `<name>/data.pkl` pickles the object, each storage's bytes are a
record `<name>/data/<key>`, and the pickle names PyTorch's globals (`torch._utils._rebuild_tensor_v2`,
`torch.FloatStorage`, `torch.float32`, `torch.Size`...). Tensors sharing a storage (views) share it again
after loading. Writing uses the pure-Python pickler, because the C pickler only writes globals it can
import and pjtorch never imports torch; reading maps those names to pjtorch's. As in PyTorch 2.6+,
`load` defaults to `weights_only=True`: only tensors, containers and allowlisted globals load.
"""
from __future__ import annotations

import _compat_pickle
import codecs
import contextlib
import io
import os
import pickle
import random
import zipfile
from collections import Counter, OrderedDict
from typing import Any, Callable, Iterator

import numpy as np

from . import cuda
from .nn.parameter import Parameter
from .ops.strided import contiguous_strides
from .tensor import dtypes
from .tensor.device import device as Device, put
from .tensor.size import Size
from .tensor.storage import Storage
from .tensor.tensor import Tensor

DEFAULT_PROTOCOL = 2
_STORAGE_NAMES = {d: name.replace("Tensor", "Storage") for d, name in dtypes.LEGACY_NAMES.items()}
_SAFE_GLOBALS: list = []


# ----- saving -------------------------------------------------------------------------------------

class _Global:
    """A global written by name (`torch._utils _rebuild_tensor_v2`): the pickle refers to PyTorch's objects."""

    _made: dict = {}

    def __new__(cls, module: str, name: str) -> "_Global":
        key = (module, name)
        if key not in cls._made:
            made = cls._made[key] = object.__new__(cls)
            made.module, made.name = module, name
        return cls._made[key]

    def __call__(self, *args):
        """Never called: the pickler requires reduce functions to be callable, and this one only names one."""
        raise TypeError(f"{self.module}.{self.name} is only named in a pickle")


class _Pickler(pickle._Pickler):
    """Pickles pjtorch objects as PyTorch pickles its own; storages become persistent ids."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol: int) -> None:
        super().__init__(file, protocol)
        self.storages: dict = {}

    def _save_global_name(self, obj: _Global) -> None:
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
        self.memoize(obj)

    def _save_dtype(self, obj: dtypes.dtype) -> None:
        self.save(_Global("torch", obj.name))

    dispatch[_Global] = _save_global_name
    dispatch[dtypes.dtype] = _save_dtype

    def persistent_id(self, obj) -> tuple | None:
        if type(obj) is not Storage:
            return None
        key = self.storages.setdefault(id(obj), (str(len(self.storages)), obj))[0]
        location = str(obj.device) if obj.device.type != "cuda" else f"cuda:{obj.device.index or 0}"
        return ("storage", _Global("torch", _STORAGE_NAMES[obj.dtype]), key, location, _numel(obj))

    def reducer_override(self, obj):
        if isinstance(obj, Parameter):
            return _Global("torch._utils", "_rebuild_parameter"), (obj.detach(), obj.requires_grad, OrderedDict())
        if isinstance(obj, Tensor):
            return _Global("torch._utils", "_rebuild_tensor_v2"), (
                obj._storage, obj._offset, tuple(obj.shape), tuple(obj._stride), obj.requires_grad, OrderedDict())
        if isinstance(obj, Size):
            return _Global("torch", "Size"), (tuple(obj),)
        if isinstance(obj, Device):
            return _Global("torch", "device"), (str(obj),)
        return NotImplemented


def _numel(storage: Storage) -> int:
    return int(np.prod(storage.array.shape))


def save(obj: Any, f, pickle_module: Any = pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Writes `obj` to a path or a writable binary file, in PyTorch's zip format."""
    data = io.BytesIO()
    pickler = _Pickler(data, pickle_protocol)
    pickler.dump(obj)
    name = _archive_name(f)
    with _opened(f, "wb") as file, zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(f"{name}/data.pkl", data.getvalue())
        archive.writestr(f"{name}/.format_version", "1")
        archive.writestr(f"{name}/.storage_alignment", "64")
        if not _disable_byteorder_record:
            archive.writestr(f"{name}/byteorder", "little")
        for key, storage in pickler.storages.values():
            archive.writestr(f"{name}/data/{key}", np.asarray(storage.array).tobytes())
        archive.writestr(f"{name}/version", "3\n")
        archive.writestr(f"{name}/.data/serialization_id", "".join(random.choices("0123456789", k=40)))


def _archive_name(f) -> str:
    """The archive's top folder: the file's name without extension, as PyTorch names it, or `archive`."""
    if isinstance(f, (str, os.PathLike)):
        return os.path.basename(os.fspath(f)).split(".")[0] or "archive"
    return "archive"


@contextlib.contextmanager
def _opened(f, mode: str) -> Iterator:
    if isinstance(f, (str, os.PathLike)):
        with open(f, mode) as file:
            yield file
    else:
        yield f


# ----- loading ------------------------------------------------------------------------------------

class _StorageType:
    """What a storage class name (`torch.FloatStorage`) loads as: the dtype of its elements."""

    def __init__(self, dtype: dtypes.dtype) -> None:
        self.dtype = dtype


class _LoadedStorage:
    """A storage read from the archive; it becomes a Storage when the first tensor on it is rebuilt, shaped as
    that tensor when it spans the whole storage (so the tensor reads its storage directly)."""

    def __init__(self, host: np.ndarray, device: Device, dtype: dtypes.dtype) -> None:
        self.host, self.device, self.dtype = host, device, dtype
        self.storage = None

    def tensor(self, offset: int, size: tuple, stride: tuple) -> Tensor:
        if self.storage is None:
            whole = offset == 0 and int(np.prod(size)) == self.host.size and tuple(stride) == contiguous_strides(size)
            shaped = self.host.reshape(size) if whole else self.host
            self.storage = Storage(put(shaped, self.device), self.device, self.dtype)
        return Tensor._from_storage(self.storage, tuple(size), tuple(stride), offset)


def _rebuild_tensor_v2(storage: _LoadedStorage, storage_offset: int, size, stride, requires_grad: bool,
                       backward_hooks, metadata=None) -> Tensor:
    return storage.tensor(storage_offset, tuple(size), tuple(stride)).requires_grad_(requires_grad)


def _rebuild_tensor(storage: _LoadedStorage, storage_offset: int, size, stride) -> Tensor:
    return storage.tensor(storage_offset, tuple(size), tuple(stride))


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks) -> Parameter:
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data: Tensor, requires_grad: bool, backward_hooks, state) -> Parameter:
    return _with_state(Parameter(data, requires_grad), state)


def _rebuild_from_type_v2(func: Callable, new_type: type, args: tuple, state) -> Tensor:
    """A tensor PyTorch saved with Python attributes (an nn.Buffer's flags, say): rebuilt, then given them."""
    return _with_state(func(*args), state)


def _with_state(t: Tensor, state) -> Tensor:
    """Sets the attributes of PyTorch's saved object state: a dict, or (dict, slots dict)."""
    for part in (state if isinstance(state, tuple) else (state,)):
        for name, value in (part or {}).items():
            setattr(t, name, value)
    return t


# PyTorch's globals a checkpoint may name, as pjtorch's objects; all of them load under weights_only.
_TORCH_GLOBALS = {
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
    ("torch._utils", "_rebuild_tensor"): _rebuild_tensor,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter_with_state,
    ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2,
    ("torch.nn.parameter", "Parameter"): Parameter,
    ("torch", "Tensor"): Tensor,
    ("torch", "Size"): Size,
    ("torch", "device"): Device,
    **{("torch", d.name): d for d in _STORAGE_NAMES},
    **{("torch", name): _StorageType(d) for d, name in _STORAGE_NAMES.items()},
    **{("torch.cuda", name): _StorageType(d) for d, name in _STORAGE_NAMES.items()},
}
_SAFE_BUILTINS = {("collections", "OrderedDict"): OrderedDict, ("collections", "Counter"): Counter,
                  ("_codecs", "encode"): codecs.encode, ("builtins", "bytearray"): bytearray,
                  ("builtins", "set"): set, ("builtins", "complex"): complex}


class _Unpickler(pickle.Unpickler):
    """Reads PyTorch's pickle into pjtorch objects; under weights_only, refuses any other global."""

    def __init__(self, file, archive: zipfile.ZipFile, prefix: str, map_location, weights_only: bool,
                 **pickle_load_args) -> None:
        super().__init__(file, **pickle_load_args)
        self.archive, self.prefix, self.map_location = archive, prefix, map_location
        self.weights_only = weights_only
        self.loaded: dict = {}

    def find_class(self, module: str, name: str):
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)  # protocol 2 names Python 2's modules
        found = _TORCH_GLOBALS.get((module, name), _SAFE_BUILTINS.get((module, name)))
        if found is not None:
            return found
        allowed = {(getattr(g, "__module__", None), getattr(g, "__qualname__", None)): g for g in _allowed_globals()}
        if (module, name) in allowed:
            return allowed[(module, name)]
        if self.weights_only:
            raise pickle.UnpicklingError(_weights_only_message(module, name))
        if module == "torch" or module.startswith("torch."):
            module = "pjtorch" + module[len("torch"):]
        return super().find_class(module, name)

    def persistent_load(self, pid) -> _LoadedStorage:
        _, storage_type, key, location, numel = pid
        if key not in self.loaded:
            raw = self.archive.read(f"{self.prefix}/data/{key}")
            host = np.frombuffer(raw, np.dtype(storage_type.dtype.jax), count=numel)
            self.loaded[key] = _LoadedStorage(host, self._device(host, storage_type.dtype, location),
                                              storage_type.dtype)
        return self.loaded[key]

    def _device(self, host: np.ndarray, dtype: dtypes.dtype, location: str) -> Device:
        """Where a storage saved at `location` goes, as map_location says (a callable gets the storage's values
        on the CPU, as a tensor, and returns them moved, or None for the default)."""
        mapping = self.map_location
        if isinstance(mapping, dict):
            location = mapping.get(location, location)
        elif isinstance(mapping, (str, Device)):
            location = mapping
        elif callable(mapping):
            moved = mapping(Tensor._wrap(put(host, Device("cpu")), Device("cpu")), location)
            if moved is not None:
                return moved.device
        target = Device(location) if isinstance(location, str) else location
        if target.type == "cuda" and not cuda.is_available():
            raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                               "False. If you are running on a CPU-only machine, please use torch.load with "
                               "map_location=torch.device('cpu') to map your storages to the CPU.")
        return target


def _weights_only_message(module: str, name: str) -> str:
    qualified = name if module == "builtins" else f"{module}.{name}"
    return (
        "Weights only load failed. This file can still be loaded, to do so you have two options, \x1b[1mdo those "
        "steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In PyTorch 2.6, we changed the default "
        "value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with "
        "`weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only "
        "if you got the file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please "
        "check the recommended steps in the following error message.\n\tWeightsUnpickler error: Unsupported global: "
        f"GLOBAL {qualified} was not an allowed global by default. Please use `torch.serialization.add_safe_globals("
        f"[{qualified}])` or the `torch.serialization.safe_globals([{qualified}])` context manager to allowlist this "
        "global if you trust this class/function.\n\nCheck the documentation of torch.load to learn more about types "
        "accepted by default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def load(f, map_location=None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args) -> Any:
    """Reads what `save` (pjtorch's or PyTorch's) wrote, from a path or a readable, seekable binary file.

    map_location: None (where it was saved), a device or its name, a dict from saved location to location, or
    a callable `(storage, location) -> moved storage or None`. `mmap` is accepted; the file is read whole."""
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    with _opened(f, "rb") as file:
        if not zipfile.is_zipfile(file):
            raise RuntimeError("pjtorch.load reads PyTorch's zip format (torch.save's default since PyTorch 1.6); "
                               "this file is not a zip archive")
        file.seek(0)
        with zipfile.ZipFile(file) as archive:
            pickled = next(n for n in archive.namelist() if n.endswith("/data.pkl") and n.count("/") == 1)
            prefix = pickled[:-len("/data.pkl")]
            unpickler = _Unpickler(io.BytesIO(archive.read(pickled)), archive, prefix, map_location, weights_only,
                                   **pickle_load_args)
            return unpickler.load()


# ----- the weights_only allowlist -----------------------------------------------------------------

def _allowed_globals() -> list:
    return [g[0] if isinstance(g, tuple) else g for g in _SAFE_GLOBALS]


def add_safe_globals(safe_globals: list[Callable | tuple[Callable, str]]) -> None:
    """Allows these classes and functions in `load(weights_only=True)`."""
    _SAFE_GLOBALS.extend(safe_globals)


def get_safe_globals() -> list[Callable | tuple[Callable, str]]:
    return list(_SAFE_GLOBALS)


def clear_safe_globals() -> None:
    _SAFE_GLOBALS.clear()


class safe_globals:
    """Context manager allowing these globals in `load(weights_only=True)` for its duration."""

    def __init__(self, safe_globals: list[Callable | tuple[Callable, str]]) -> None:
        self.safe_globals = list(safe_globals)

    def __enter__(self) -> None:
        self._before = list(_SAFE_GLOBALS)
        _SAFE_GLOBALS.extend(self.safe_globals)

    def __exit__(self, *exc) -> None:
        _SAFE_GLOBALS[:] = self._before
