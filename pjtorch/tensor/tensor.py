"""The Tensor facade: a mutable-feeling handle on a Storage plus a strided layout.

A Tensor is (storage, shape, stride, offset) as in PyTorch, so views share memory and report
PyTorch's strides. Its value is read from the storage's array (a compiled strided read for
views); in-place ops write back through the layout. Autograd state (grad_fn, leaf flag, grad)
lives here as plain attributes; the graph and engine live in `pjtorch.autograd`. Operation
methods are attached from the op tables in `pjtorch.tensor.methods`.
"""
from __future__ import annotations

import warnings

import jax
import numpy as np

from ..autograd import grad_mode
from ..ops import strided
from . import dtypes, printing
from .device import device as Device, of_jax
from .size import Size
from .storage import Storage

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
    "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
    "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
    "you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information. "
    "(Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)


class Tensor:
    """A PyTorch tensor whose operations run as compiled JAX functions."""

    __module__ = "torch"  # printed as PyTorch prints it: <class 'torch.Tensor'>

    # Autograd and view state: class defaults, so a fresh op result sets only its layout.
    _base = None
    _view_version = 0
    _requires_grad = False
    _grad_fn = None
    _output_nr = 0
    _grad = None
    _accumulator = None
    _retains_grad = False
    _leaf_hooks = None
    _post_accumulate_hooks = None
    _is_param = False
    # Why a view may not be changed in place under grad (dispatch.VIEW_ADVICE): "multi_output" (an output of
    # unbind/split, or a view of one) or "custom_function" (an output of a custom Function that is a view).
    _view_creation = None
    # A view made under "no_grad" (or "inference_mode") of a tensor that requires grad: no in-place under grad.
    _created_in_no_grad = None
    _reinterpreted_from = None  # the tensor a view_as_real / view_as_complex result reads as another dtype
    _tangent = None  # forward AD: the tangent of a dual tensor, within a dual level
    __array_priority__ = 1000

    # ----- construction -------------------------------------------------------------------------
    @classmethod
    def _wrap(cls, array, device) -> "Tensor":
        """A new tensor owning `array` (an op's result)."""
        return cls._wrap_typed(array, device if device is not None else of_jax(_device_of(array)),
                               dtypes.from_jax(array.dtype))

    @classmethod
    def _wrap_typed(cls, array, device, dtype) -> "Tensor":
        shape, stride = contiguous_layout(array.shape)
        return cls._wrap_layout(array, device, dtype, shape, stride)

    @staticmethod
    def _wrap_layout(array, device, dtype, shape: Size, stride: tuple) -> "Tensor":
        """`_wrap` when the device, dtype and contiguous layout are already known: the per-op hot path."""
        t = object.__new__(Tensor)
        t._storage = Storage(array, device, dtype)
        t._shape = shape
        t._stride = stride
        t._offset = 0
        t._whole = True
        return t

    @classmethod
    def _from_storage(cls, storage: Storage, shape: tuple, stride: tuple, offset: int) -> "Tensor":
        t = object.__new__(Tensor)
        t._storage = storage
        t._shape = Size(shape)
        t._stride = tuple(stride)
        t._offset = offset
        t._whole = (offset == 0 and tuple(shape) == storage.shape
                    and tuple(stride) == strided.contiguous_strides(shape))
        return t

    def __new__(cls, *args, **kwargs) -> "Tensor":
        """`torch.Tensor(...)`, PyTorch's legacy constructor in the default dtype."""
        from .legacy import legacy_new

        return legacy_new(dtypes.get_default_dtype(), kwargs.pop("device", None), args, kwargs, any_tensor=True)

    def __init__(self, *args, **kwargs) -> None:
        """Everything happens in __new__."""

    def new(self, *args, **kwargs) -> "Tensor":
        """The legacy constructor in this tensor's dtype and device."""
        from .legacy import legacy_new

        return legacy_new(self.dtype, kwargs.pop("device", self.device), args, kwargs)

    # ----- value access -------------------------------------------------------------------------
    def _value(self):
        """The current value as a jax.Array of this tensor's shape."""
        if self._whole:
            return self._storage.array
        return strided.compiled_read(self._shape, self._stride)(self._storage.array, self._offset)

    def _assign(self, value) -> None:
        """Writes `value` (this tensor's shape and dtype, or broadcastable) through the layout."""
        storage = self._storage
        if storage.dtype is not storage.memory.dtype and grad_mode.STATE.enabled:
            _check_reinterpreted_inplace(self)
        if not _broadcasts_to(value.shape, self._shape):
            raise RuntimeError(f"output with shape {_dims(self._shape)} doesn't match the broadcast shape "
                               f"{_dims(_broadcast_or_first(value.shape, self._shape))}")
        if self._whole and value.shape == tuple(self._shape):
            target = storage.dtype.jax
            storage.replace(value if value.dtype == target else value.astype(target))
        else:
            write = strided.compiled_write(self._shape, self._stride)
            storage.replace(write(storage.array, value, self._offset))

    # ----- metadata -----------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return self._shape

    def size(self, dim: int | None = None):
        if dim is None:
            return self._shape
        return self._shape[wrap_dim(dim, len(self._shape))]

    @property
    def dtype(self) -> dtypes.dtype:
        return self._storage.dtype

    @property
    def device(self) -> Device:
        return self._storage.device

    @property
    def is_cuda(self) -> bool:
        return self._storage.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self._storage.device.type == "cpu"

    def get_device(self) -> int:
        """-1 on the CPU, else the accelerator's index."""
        return -1 if self._storage.device.type == "cpu" else self._storage.device.index

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    def numel(self) -> int:
        return self._shape.numel()

    nelement = numel

    def stride(self, dim: int | None = None):
        if dim is None:
            return self._stride
        return self._stride[wrap_dim(dim, len(self._shape))]

    def storage_offset(self) -> int:
        return self._offset

    def is_contiguous(self, memory_format=None) -> bool:
        if 0 in self._shape:
            return True
        expected = 1
        for size, step in zip(reversed(self._shape), reversed(self._stride)):
            if size != 1 and step != expected:
                return False
            expected *= size
        return True

    def element_size(self) -> int:
        return self._storage.dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._storage.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self._storage.dtype.itemsize

    @property
    def _version(self) -> int:
        if self._storage.inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._storage.version

    def is_floating_point(self) -> bool:
        return self._storage.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._storage.dtype.is_complex

    def data_ptr(self) -> int:
        return id(self._storage.memory) * 16 + self._offset * self._storage.dtype.itemsize

    def is_set_to(self, tensor: "Tensor") -> bool:
        """Whether both tensors are the same memory, offset, sizes and strides."""
        return (self._storage.memory is tensor._storage.memory and self.data_ptr() == tensor.data_ptr()
                and self._shape == tensor._shape and self._stride == tensor._stride)

    def untyped_storage(self) -> Storage:
        return self._storage

    def type(self, dtype=None, non_blocking: bool = False, **kwargs):
        """The legacy type name (`'torch.FloatTensor'`), or this tensor converted to a dtype or legacy type."""
        if dtype is None:
            dtype = kwargs.pop("dtype", None)
        if dtype is None:
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return prefix + dtypes.LEGACY_NAMES[self.dtype]
        from .legacy import convert_type

        return convert_type(self, dtype, non_blocking)

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    def is_inference(self) -> bool:
        return self._storage.inference

    @property
    def is_view(self):
        return self._base is not None

    # ----- autograd attributes ------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad or self._grad_fn is not None

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self._set_requires_grad(flag, "only Tensors of floating point and complex dtype can require gradients")

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        return self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can require gradients")

    def _set_requires_grad(self, requires_grad: bool, not_floating: str) -> "Tensor":
        """The attribute and the method refuse integer tensors in different words in PyTorch."""
        if self._grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
            )
        if requires_grad and self.dtype.category < dtypes.FLOATING:
            raise RuntimeError(not_floating)
        if requires_grad and self._storage.inference and not grad_mode.STATE.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        if self._base is not None and self._view_version != self._storage.version:
            from ..dispatch import edge_of

            edge_of(self)
        return self._grad_fn

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            _check_assigned_grad(self, value)
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if not self._retains_grad:
            from ..autograd import hooks

            hooks.retain_grad(self)
        self._retains_grad = True

    def register_hook(self, hook):
        """Calls `hook(grad)` when this tensor's gradient is computed; a returned tensor replaces it."""
        from ..autograd import hooks

        return hooks.register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Calls `hook(self)` after backward has accumulated into this leaf's `.grad`."""
        from ..autograd import hooks

        return hooks.register_post_accumulate_hook(self, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        from .. import autograd

        autograd.backward(self, gradient, retain_graph, create_graph, inputs)

    def detach(self) -> "Tensor":
        """Shares storage and version counter, drops history."""
        return Tensor._from_storage(self._storage, self._shape, self._stride, self._offset)

    def detach_(self) -> "Tensor":
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
                "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> "Tensor":
        """Shares memory but not the version counter: in-place changes through it are invisible to autograd."""
        return Tensor._from_storage(self._storage.untracked(), self._shape, self._stride, self._offset)

    @data.setter
    def data(self, other: "Tensor") -> None:
        if not isinstance(other, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(other).__name__}")
        if self.requires_grad and other.dtype.category < dtypes.FLOATING:
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        self._storage = other._storage
        self._shape, self._stride, self._offset = other._shape, other._stride, other._offset
        self._whole = other._whole

    # ----- conversion to Python and NumPy --------------------------------------------------------
    def _host_values(self) -> np.ndarray:
        """A read-only host copy for printing, Python conversion and data-dependent checks. On the CPU the storage
        is read whole (JAX keeps that host copy on the array) and the layout applied with NumPy strides, so reading
        a view runs no XLA call; elsewhere only the view's values cross to the host."""
        storage = self._storage
        if not self._whole and storage.device.type != "cpu":
            return np.asarray(self._value())
        flat = (storage._host if storage._host is not None else np.asarray(storage.array)).reshape(-1)
        if self._whole:
            return flat.reshape(self._shape)
        itemsize = flat.itemsize
        return np.lib.stride_tricks.as_strided(flat[self._offset:] if flat.size else flat, self._shape,
                                               tuple(s * itemsize for s in self._stride), writeable=False)

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return self._host_values().reshape(()).item()

    def tolist(self):
        values = self._host_values()
        if self.dtype is dtypes.bfloat16:
            values = values.astype(np.float32)
        return values.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """An ndarray sharing this tensor's memory (CPU tensors), as PyTorch's does."""
        if not force and self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self.device.type != "cpu":
            if force:
                return np.array(self._value())
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to copy "
                            "the tensor to host memory first.")
        if self.dtype is dtypes.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        host = self._storage.host().reshape(-1)
        itemsize = host.itemsize
        return np.lib.stride_tricks.as_strided(
            host[self._offset:] if host.size else host, self._shape, tuple(s * itemsize for s in self._stride))

    def __array__(self, dtype=None, copy=None):
        """`np.asarray(t)`: `t.numpy()` (so sharing memory, and refusing as it does), converted on request."""
        values = self.numpy()
        if dtype is not None:
            return values.astype(dtype, copy=bool(copy))
        return values.copy() if copy else values

    def __array_wrap__(self, array, context=None, return_scalar=False) -> "Tensor":
        """A NumPy ufunc applied to a tensor (`np.sin(t)`) gives a tensor sharing the result, bool results as
        uint8, as PyTorch's does."""
        from .factories import from_numpy

        array = np.asarray(array)
        return from_numpy(array.astype(np.uint8) if array.dtype == np.bool_ else array)

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        if self.numel() != 1:
            amount = "no values" if self.numel() == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return bool(self.item())

    def __contains__(self, element) -> bool:
        if not isinstance(element, (Tensor, bool, int, float, complex)):
            raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                               f"{type(element)}.")
        return bool((self == element).any().item())

    def __float__(self) -> float:
        return float(self._scalar_for("float"))

    def __int__(self) -> int:
        return int(self._scalar_for("int"))

    def __complex__(self) -> complex:
        return complex(self._scalar_for("complex"))

    def __index__(self) -> int:
        if self.dtype.category != dtypes.INTEGER and self.dtype is not dtypes.bool or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def _scalar_for(self, kind: str):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        value = self.item()
        if kind != "complex" and isinstance(value, complex):
            if value.imag != 0:
                raise RuntimeError(f"value cannot be converted to type {'int64_t' if kind == 'int' else 'double'} "
                                   "without overflow")
            return value.real
        return value

    def __format__(self, spec: str) -> str:
        """A plain 0-dim tensor formats as its number; anything else only with an empty spec, as in PyTorch."""
        if not self._shape and type(self) is Tensor:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __hash__(self) -> int:
        return id(self)

    def __deepcopy__(self, memo: dict) -> "Tensor":
        """A leaf's copy with its own memory (views copied together keep sharing it), requires_grad and grad."""
        if self._grad_fn is not None:
            raise RuntimeError(DEEPCOPY_OF_NON_LEAF)
        if id(self) in memo:
            return memo[id(self)]
        import copy

        new = object.__new__(type(self))
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            if name == "_storage":
                value = _copied_storage(value, memo)
            elif name == "_accumulator":
                value = None
            else:
                value = copy.deepcopy(value, memo)
            new.__dict__[name] = value
        return new

    def __reduce_ex__(self, protocol):
        """Pickled as its values, dtype and requires_grad (a non-leaf comes back a leaf, as in PyTorch)."""
        return (_unpickle, (self._host_values().copy(), self.dtype.name, self.requires_grad))

    def __repr__(self, *, tensor_contents=None) -> str:
        values = self._host_values()
        if self.dtype is dtypes.bfloat16:
            values = values.astype(np.float32)
        grad_fn = self.grad_fn
        return printing.format_tensor(
            values,
            dtype_name=self.dtype.name,
            default_float_dtype_name=dtypes.get_default_dtype().name,
            device=None if self.device.type == "cpu" else str(self.device),
            requires_grad=self.requires_grad and grad_fn is None,
            grad_fn_name=type(grad_fn).__name__ if grad_fn is not None else None,
            tangent=None if self._tangent is None else repr(self._tangent),
        )

    __str__ = __repr__

    def block_until_ready(self, *, defer_writes: bool = False) -> "Tensor":
        """Waits until the value is computed (JAX dispatches asynchronously; a deferred value is computed now).
        With `defer_writes`, a pending write (an in-place change made under no_grad) is left to the next
        computation, which always computes the pending writes too."""
        self._storage.block_until_ready(defer_writes)
        return self


_LAYOUTS: dict = {}


DEEPCOPY_OF_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  If "
    "you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, see "
    "https://github.com/pytorch/pytorch/pull/103001")


def _copied_storage(storage: Storage, memo: dict) -> Storage:
    """One copy per storage in a deepcopy, so tensors that shared memory share the copy's."""
    key = ("storage", id(storage))
    if key not in memo:
        copied = Storage(storage.array, storage.device, storage.dtype)  # a jax.Array is immutable: shared safely
        copied.version, copied.inference = storage.version, storage.inference
        memo[key] = copied
    return memo[key]


def _unpickle(values: np.ndarray, dtype_name: str, requires_grad: bool) -> "Tensor":
    from .factories import tensor

    return tensor(values, dtype=getattr(dtypes, dtype_name), requires_grad=requires_grad)


# How PyTorch's messages name a dtype's C++ type, as the compiler spells it.
_CPP_TYPE_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


def cpp_type_name(dtype: dtypes.dtype) -> str:
    return _CPP_TYPE_NAMES[dtype.name]


def _check_assigned_grad(t: Tensor, grad) -> None:
    """PyTorch's checks on `t.grad = grad`: a tensor, not t itself, of t's dtype, device and size."""
    if not isinstance(grad, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(grad).__name__}")
    if grad is t:
        raise RuntimeError("can't assign Variable as its own grad")
    if grad.dtype is not t.dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{cpp_type_name(grad.dtype)}' to a tensor with "
            f"grad_dtype '{dtypes.LEGACY_NAMES[t.dtype].removesuffix('Tensor')}'. The gradient must match the "
            "tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute "
            "with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of "
            "a tensor and its gradient may break downstream systems that assume they match.")
    if grad.device != t.device:
        raise RuntimeError(f"attempting to assign a gradient with device type '{grad.device.type}' to a tensor with "
                           f"device type '{t.device.type}'. Please ensure that the gradient and the tensor are on the "
                           "same device")
    if grad._shape != t._shape:
        raise RuntimeError(f"attempting to assign a gradient of size '[{', '.join(map(str, grad._shape))}]' to a "
                           f"tensor of size '[{', '.join(map(str, t._shape))}]'. Please ensure that the gradient and "
                           "the tensor are the same size")


def contiguous_layout(shape: tuple) -> tuple:
    """(Size, contiguous strides) for a shape, shared between results: both are immutable."""
    found = _LAYOUTS.get(shape)
    if found is None:
        if len(_LAYOUTS) >= 4096:
            _LAYOUTS.clear()
        found = _LAYOUTS[shape] = (Size(shape), strided.contiguous_strides(shape))
    return found


_REINTERPRETED_INPLACE = (
    "pjtorch does not support in-place changes, with grad mode on, through view_as_real, view_as_complex, .real or "
    ".imag of a tensor that requires grad: the change could not be recorded on that tensor's history. Build the "
    "new value out of place (torch.complex(re, im)) or make the change under torch.no_grad().")


def _check_reinterpreted_inplace(t: Tensor) -> None:
    """dispatch rebases an in-place change onto the written view's base, in the view's dtype; a view across
    dtypes has no such base (see views._reinterpret), so where autograd would have to track the change on the
    reinterpreted tensor, refuse rather than leave its history stale. A leaf gets PyTorch's own error."""
    origin = t
    while True:
        origin = origin._base if origin._base is not None else origin
        if origin._reinterpreted_from is None:
            break
        origin = origin._reinterpreted_from
    if not origin.requires_grad:
        return
    if origin._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    raise RuntimeError(_REINTERPRETED_INPLACE)


def _device_of(array):
    return next(iter(array.devices())) if isinstance(array, jax.Array) else jax.devices("cpu")[0]


def _dims(shape: tuple) -> str:
    return f"[{', '.join(map(str, shape))}]"


def _broadcast_or_first(shape: tuple, other: tuple) -> tuple:
    try:
        return np.broadcast_shapes(shape, other)
    except ValueError:
        return shape


def _broadcasts_to(shape: tuple, target: tuple) -> bool:
    if shape == target:
        return True
    return len(shape) <= len(target) and all(s in (1, t) for s, t in zip(reversed(shape), reversed(target)))


def wrap_dim(dim: int, ndim: int) -> int:
    """A dim index in range, or PyTorch's IndexError."""
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], "
                         f"but got {dim})")
    return dim + bound if dim < 0 else dim


def is_grad_enabled() -> bool:
    return grad_mode.STATE.enabled
