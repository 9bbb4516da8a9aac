"""The one path between the Tensor facade and the ops.

Every call: check devices, apply PyTorch's type promotion, read the inputs (views included),
run the op's compiled kernel, wrap the result, and, when grad mode is on and an input requires
grad, record a Node. In-place variants write the result back through the target's view into
its Storage, bump the version, and rebase the target's history.
"""
from __future__ import annotations

import functools
import weakref
from typing import Sequence

import jax
import numpy as np

from .autograd import forward_ad, grad_mode, saved_hooks
from .autograd.graph import (AccumulateGrad, CopySlices, Edge, NoDerivative, SavedVersion, forward_name, holes_of,
                             node_class, punch_holes, saved_for_backward)
from .ops import deferred, pointwise, strided
from .ops.registry import Op, SAVES_INPUTS, SAVES_NOTHING
from .tensor import dtypes
from .tensor.device import to_jax
from .tensor.size import Size
from .tensor.storage import Storage
from .tensor.tensor import Tensor, contiguous_layout

_SCALAR_CACHE: dict = {}
_SCALAR_CACHE_LIMIT = 4096


def scalar_array(value, dtype, device):
    """A device array for a Python scalar, cached: making one costs ~40 µs, a lookup ~0.1 µs. A zero keys on its
    repr, since 0.0 == -0.0 would otherwise hand out whichever sign was cached first."""
    key = (type(value), value if value else repr(value), dtype, device.type, device.index)
    found = _SCALAR_CACHE.get(key)
    if found is None:
        if len(_SCALAR_CACHE) >= _SCALAR_CACHE_LIMIT:
            _SCALAR_CACHE.clear()
        found = _SCALAR_CACHE[key] = jax.device_put(_host_scalar(value, dtype), to_jax(device))
    return found


def _host_scalar(value, dtype) -> np.ndarray:
    """A Python int out of an integer dtype's range wraps, as PyTorch's scalar conversion does (uint8 + -1 is
    uint8 - 1); beyond 64 bits it is PyTorch's OverflowError."""
    try:
        with np.errstate(over="ignore"):  # a float past float16's range is inf, silently, as in PyTorch
            return np.asarray(value, dtype)
    except OverflowError:
        if type(value) is not int or not -2**63 <= value < 2**64:
            raise OverflowError("int too big to convert") from None
        return np.asarray(value % 2**64, np.uint64).astype(dtype)


def common_device(tensors: Sequence[Tensor]):
    """The device all tensor operands share; 0-dim CPU tensors may join any device, as in PyTorch."""
    device = tensors[0]._storage.device
    for t in tensors[1:]:
        other = t._storage.device
        if other is not device and other != device:
            if other.type == "cpu" and not t._shape:
                continue
            if device.type == "cpu" and not tensors[0]._shape:
                device = other
                continue
            first, second = sorted((str(device), str(other)), key=lambda name: name == "cpu")
            raise RuntimeError(
                f"Expected all tensors to be on the same device, but found at least two devices, {first} and {second}!"
            )
    return device


def promoted_dtype(op: Op, inputs: Sequence) -> dtypes.dtype:
    """PyTorch's result dtype for the operands this op promotes."""
    common = _same_dtype(inputs, op.promote_from)
    if common is None:
        common = _promote_mixed(inputs, op.promote_from)
    if op.promote == "float" and common.category < dtypes.FLOATING:
        return dtypes.get_default_dtype()
    return common


def _same_dtype(inputs: Sequence, start: int):
    """The shared dtype when every promoted operand is a tensor of one dtype (the common case), else None."""
    found = None
    for x in inputs[start:]:
        if type(x) is not Tensor:
            return None
        dtype = x._storage.dtype
        if found is None:
            found = dtype
        elif dtype is not found:
            return None
    return found


def _promote_mixed(inputs: Sequence, start: int) -> dtypes.dtype:
    dimensioned, zero_dim, scalars = [], [], []
    for x in inputs[start:]:
        if isinstance(x, Tensor):
            (dimensioned if x._shape else zero_dim).append(x.dtype)
        elif x is not None:
            scalars.append(x)
    return dtypes.result_type(dimensioned, zero_dim, scalars)


def _arrays(inputs: Sequence, cast, device) -> list:
    arrays = []
    for x in inputs:
        if isinstance(x, Tensor):
            arrays.append(x._value())
        else:
            arrays.append(scalar_array(x, cast if cast is not None else _scalar_dtype(x), device))
    return arrays


def _scalar_dtype(value):
    return dtypes.default_for_category(dtypes.scalar_category(value)).jax


_REDUCED_FLOATS = (dtypes.float16.jax, dtypes.bfloat16.jax)


def _computed_in(op: Op, cast):
    """The dtype `op` computes in, given the dtype its operands promote to (see Op.opmath_numbers)."""
    return dtypes.float32.jax if op.opmath_numbers and cast in _REDUCED_FLOATS else cast


class Decision:
    """What promotion, the kernel lookup and a first run decided for one call signature, so that a repeated
    call only runs the kernel: its result's dtype and layout, and (per set of inputs that need gradient) which
    saved inputs backward never reads."""

    __slots__ = ("kernel", "cast", "dtype", "layout", "out_meta", "holes")

    def __init__(self, kernel, cast, result) -> None:
        outputs = result if type(result) is tuple else (result,)
        self.kernel = kernel
        self.cast = cast
        self.out_meta = tuple([(Size(r.shape), dtypes.from_jax(r.dtype).jax) for r in outputs])
        single = type(result) is not tuple
        self.dtype = dtypes.from_jax(result.dtype) if single else None
        self.layout = contiguous_layout(result.shape) if single else None
        self.holes: dict = {}

    def saved(self, edges: list, arrays: Sequence) -> tuple:
        """What a node keeps of its input arrays: all of them if its op saves inputs, else those backward reads."""
        if self.kernel.op.saves:
            return tuple(arrays)
        wanted = tuple([edge is not None for edge in edges])
        holes = self.holes.get(wanted)
        if holes is None:
            holes = self.holes[wanted] = holes_of(self.kernel, wanted, arrays, self.out_meta,
                                                  self.dtype is None)
        return punch_holes(arrays, holes)


# (op, static, default dtype, operand signature) -> Decision. A signature names each tensor operand's dtype and
# shape, or a scalar operand's Python type.
_DECIDED: dict = {}
_DECIDED_LIMIT = 4096


def apply(op: Op, inputs: Sequence, static: tuple = ()):
    """Runs `op` out of place; returns a Tensor, or a tuple of them for multi-output ops. (The per-op hot path:
    one scan of the inputs builds the signature and collects the arrays as they are held.)"""
    signature = [op, static, _DEFAULT_DTYPE.value]
    arrays = []
    wants_grad = False
    deferred_inputs = False
    scalars = False
    views = False
    device = None
    for x in inputs:
        if isinstance(x, Tensor):
            if x._tangent is not None:
                return _apply_dual(op, inputs, static)
            storage = x._storage
            if storage.device is not device:
                if device is not None and storage.device != device:
                    return _apply_general(op, inputs, static)
                device = storage.device
            if x._whole:
                array = storage._array
                if type(array) is not _ARRAY_TYPE:
                    array = storage.lazy_array
                    deferred_inputs = True
                arrays.append(array)
            else:
                arrays.append(x)  # read below, once it is known whether the call is recorded
                views = True
            signature.append(storage.dtype)
            signature.append(x._shape)
            if x._grad_fn is not None or x._requires_grad:
                wants_grad = True
        else:
            arrays.append(x)
            signature.append(type(x))
            scalars = True
    decision = _DECIDED.get(tuple(signature))
    if decision is None or device is None:
        if views and op.elementwise:
            return _elementwise_layout(inputs, _apply_general(op, inputs, static, signature))
        return _apply_general(op, inputs, static, signature)
    restride = views and op.elementwise and _laid_out_otherwise(inputs, decision)
    if scalars:
        _put_scalars_on_device(inputs, arrays, decision.cast, device)
    recording = wants_grad and grad_mode.STATE.enabled
    unrecorded = not grad_mode.STATE.enabled
    lazily = unrecorded or (recording and decision.dtype is not None)
    if views:
        _read_views(inputs, arrays, lazily, unrecorded)
    if lazily:
        if recording:
            output = _apply_deferred(decision, inputs, arrays, device)
        elif decision.dtype is None:
            return _apply_unrecorded_outputs(decision, arrays, device)
        else:
            output = _apply_unrecorded(decision, arrays, device)
    else:
        if deferred_inputs:  # read through the storage, which keeps the computed value
            arrays = [x._storage.array if isinstance(x, Tensor) and x._whole else a for x, a in zip(inputs, arrays)]
        result = decision.kernel.jit(*arrays)
        if decision.dtype is None:
            return _finish(decision, inputs, arrays, result, device, recording)
        shape, stride = decision.layout
        output = Tensor._wrap_layout(result, device, decision.dtype, shape, stride)
    return _elementwise_layout(inputs, output) if restride else output


_DEFAULT_DTYPE = dtypes._default
_ARRAY_TYPE = type(jax.numpy.zeros(()))


def _read_views(inputs: Sequence, arrays: list, lazily: bool, unrecorded: bool) -> None:
    """The values of the operands that are views. A call whose result is deferred defers the reads too, so the
    fused backward computes them inside its own single call."""
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and not x._whole:
            arrays[i] = lazy_value(x, unrecorded) if lazily else x._value()


def lazy_value(t: Tensor, unrecorded: bool = False):
    """`t`'s value as it is held, left pending where it is (a view's read deferred too): what a recorded call
    passes on, so that recording it computes nothing."""
    if t._whole:
        return t._storage.lazy_array
    offset = scalar_array(t._offset, np.int64, t._storage.device)
    read = deferred.defer(strided.read_kernel(t._shape, t._stride), (t._storage.lazy_array, offset), t._shape,
                          t._storage.dtype.jax, unrecorded)
    return t._value() if read is None else read


def _put_scalars_on_device(inputs: Sequence, arrays: list, cast, device) -> None:
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            arrays[i] = scalar_array(x, cast or _scalar_dtype(x), device)


def _apply_unrecorded(decision: Decision, arrays: list, device) -> Tensor:
    """Under no_grad a result is left for its first read, which computes it with the other pending values."""
    shape, stride = decision.layout
    result = deferred.defer(decision.kernel, arrays, shape, decision.dtype.jax, unrecorded=True)
    if result is None:
        return Tensor._wrap_layout(decision.kernel.jit(*deferred.concrete_all(arrays)), device, decision.dtype,
                                   shape, stride)
    return _holding(Tensor._wrap_layout(result, device, decision.dtype, shape, stride), result, unrecorded=True)


def _apply_unrecorded_outputs(decision: Decision, arrays: list, device) -> tuple:
    """`_apply_unrecorded` for a call with several outputs (max with a dim, an optimizer's update)."""
    results = deferred.defer_outputs(decision.kernel, arrays, decision.out_meta)
    if results is None:
        return tuple(Tensor._wrap(r, device) for r in decision.kernel.jit(*deferred.concrete_all(arrays)))
    return tuple(_holding(Tensor._wrap_layout(r, device, dtypes.from_jax(r.dtype), *contiguous_layout(r.shape)), r,
                          unrecorded=True) for r in results)


def _apply_deferred(decision: Decision, inputs: Sequence, arrays: list, device) -> Tensor:
    """A recorded op's result is left for the fused backward (or the first read) to compute."""
    kernel = decision.kernel
    shape, stride = decision.layout
    result = deferred.defer(kernel, arrays, shape, decision.dtype.jax)
    if result is None:
        arrays = deferred.concrete_all(arrays)
        output = Tensor._wrap_layout(kernel.jit(*arrays), device, decision.dtype, shape, stride)
    else:
        output = _holding(Tensor._wrap_layout(result, device, decision.dtype, shape, stride), result, unrecorded=False)
    record(kernel, inputs, arrays, (output,), decision=decision)
    return output


def _holding(output: Tensor, result: deferred.Deferred, unrecorded: bool) -> Tensor:
    """`output`, whose storage now owns the pending `result` (a computation returns a value only while its owner
    still holds it); a value made under no_grad joins the next computation."""
    result.owner = weakref.ref(output._storage)
    if unrecorded:
        deferred.note_unrecorded(result, write=False)
    return output


def _apply_dual(op: Op, inputs: Sequence, static: tuple):
    """A call with dual tensors among its inputs (forward AD): the result, and its tangent."""
    output = _apply_general(op, inputs, static, dual=True)
    return _elementwise_layout(inputs, output) if op.elementwise and isinstance(output, Tensor) else output


def _apply_general(op: Op, inputs: Sequence, static: tuple, signature: list | None = None, dual: bool = False):
    tensors = []
    wants_grad = False
    for x in inputs:
        if isinstance(x, Tensor):
            tensors.append(x)
            wants_grad = wants_grad or x._grad_fn is not None or x._requires_grad
    device = common_device(tensors) if tensors else None
    promoted = promoted_dtype(op, inputs).jax if op.promote != "none" else None
    cast = _computed_in(op, promoted)
    kernel = op.kernel(static, cast, None if cast is promoted else promoted)
    arrays = _arrays(inputs, cast, device)
    result = kernel.jit(*arrays)
    decision = Decision(kernel, cast, result)
    if signature is not None and tensors and len(_DECIDED) < _DECIDED_LIMIT:
        _DECIDED[tuple(signature)] = decision
    output = _finish(decision, inputs, arrays, result, device, wants_grad and grad_mode.STATE.enabled)
    if dual:
        forward_ad.propagate(kernel, inputs, arrays, output if type(output) is tuple else (output,))
    return output


def _elementwise_layout(inputs: Sequence, output: Tensor) -> Tensor:
    """An elementwise result laid out as PyTorch lays it out for these operands (`x.t().exp()` keeps x.t()'s
    strides)."""
    stride = _elementwise_strides(tuple(output._shape), _operand_layouts(inputs))
    return output if stride == output._stride else laid_out(output, stride)


def _operand_layouts(inputs: Sequence) -> tuple:
    return tuple((tuple(x._shape), x._stride) if isinstance(x, Tensor) else ((), ()) for x in inputs
                 if x is not None)  # a number is PyTorch's 0-dim wrapped tensor


_elementwise_strides = functools.lru_cache(maxsize=4096)(strided.elementwise_strides)


def _laid_out_otherwise(inputs: Sequence, decision: Decision) -> bool:
    """Whether PyTorch lays out this (single) elementwise result other than contiguously: operands that are views,
    such as `x.t()`, decide."""
    if decision.dtype is None:
        return False
    shape, stride = decision.layout
    return _elementwise_strides(shape, _operand_layouts(inputs)) != stride


def laid_out(t: Tensor, stride: tuple) -> Tensor:
    """`t`, a fresh contiguous result, re-stored with dense `stride`: its storage holds the values in stride order,
    so its layout (and that of `.numpy()`) is PyTorch's. Reading it back costs a transpose; a pending `t` leaves
    the reordering pending too."""
    order = sorted(range(len(t._shape)), key=lambda d: -stride[d])
    reorder = strided.read_kernel(tuple(t._shape[d] for d in order), tuple(t._stride[d] for d in order))
    storage = t._storage
    value = storage.lazy_array
    buffer = None
    if deferred.pending(value):
        unrecorded = value.unrecorded
        buffer = deferred.defer(reorder, (value, scalar_array(0, np.int64, storage.device)), reorder.shape,
                                storage.dtype.jax, unrecorded)
    out = Tensor._from_storage(Storage(reorder.jit(t._value(), 0) if buffer is None else buffer, storage.device,
                                       storage.dtype), t._shape, stride, 0)
    if buffer is not None:
        _holding(out, buffer, unrecorded)
    out._grad_fn, out._output_nr = t._grad_fn, t._output_nr
    return out


def _finish(decision: Decision, inputs: Sequence, arrays: list, result, device, recording: bool):
    if type(result) is tuple:
        outputs = tuple(Tensor._wrap(r, device) for r in result)
        if recording:
            record(decision.kernel, inputs, arrays, outputs, tuple_output=True, decision=decision)
        return outputs
    output = Tensor._wrap(result, device)
    if recording:
        record(decision.kernel, inputs, arrays, (output,), decision=decision)
    return output


def _any_requires_grad(tensors: Sequence[Tensor]) -> bool:
    for t in tensors:
        if t._grad_fn is not None or t._requires_grad:
            return True
    return False


def edge_of(t: Tensor) -> Edge | None:
    """Where gradient for `t` flows: its grad_fn output, or its leaf accumulator."""
    if t._base is not None and t._view_version != t._storage.version and t._base.requires_grad:
        if t._created_in_no_grad and t._grad_fn is None:
            raise RuntimeError(view_error(t, directly=False))
        _regenerate_view_history(t)
    if t._grad_fn is not None:
        return Edge(t._grad_fn, t._output_nr)
    if t._requires_grad and not t._created_in_no_grad:
        return Edge(accumulator(t), 0)
    return None


def accumulator(leaf: Tensor) -> AccumulateGrad:
    """The leaf's AccumulateGrad node, kept alive by the graphs that use it, not by the leaf."""
    node = leaf._accumulator() if leaf._accumulator is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._accumulator = weakref.ref(node)
    return node


_new_tuple = tuple.__new__  # a NamedTuple made through its own __new__ costs twice as much


def record(kernel, inputs: Sequence, arrays: Sequence, outputs: Sequence[Tensor], tuple_output: bool = False,
           decision: Decision | None = None) -> None:
    """Attaches a Node for this call to its differentiable outputs (`decision`, where dispatch has one, caches
    what the node keeps)."""
    saves = kernel.op.saves
    saves_inputs = "inputs" in saves
    edges, versions = [], []
    inference_inputs = []
    for position, x in enumerate(inputs):
        if isinstance(x, Tensor):
            if x._base is None and x._grad_fn is not None:  # edge_of's common case, inline
                edges.append(_new_tuple(Edge, (x._grad_fn, x._output_nr)))
            else:
                edges.append(edge_of(x))
            storage = x._storage
            if storage.inference:
                inference_inputs.append(position)
            if saves_inputs:
                versions.append(_new_tuple(SavedVersion, (storage, storage.version, storage.dtype, x._shape, x, None,
                                                          0, position)))
        else:
            edges.append(None)
    if "result" in saves:
        versions.extend(_saved_version(o, kernel.op.grad_name, nr) for nr, o in enumerate(outputs))
    elif "indices" in saves:
        versions.extend(_saved_version(o) for o in outputs if o._storage.dtype.category < dtypes.FLOATING)
    if decision is None:
        out_meta = tuple([(o._shape, o._storage.dtype.jax) for o in outputs])
        saved = tuple(arrays) if saves else saved_for_backward(kernel, edges, arrays, out_meta, tuple_output)
    else:
        out_meta, saved = decision.out_meta, decision.saved(edges, arrays)
    node = node_class(kernel.op.grad_name)(kernel, tuple(edges), saved, tuple(versions), out_meta, tuple_output)
    if inference_inputs:
        _refuse_saved_inference_tensors(node, inference_inputs)
    for nr, out in enumerate(outputs):
        if out._storage.dtype.category >= dtypes.FLOATING:
            out._grad_fn = node
            out._output_nr = nr
    if saved_hooks.STATE.hooks:
        node.packed = saved_hooks.pack(_tensors_saved(node, inputs, outputs))


def record_without_derivative(op_name: str, grad_name: str, input: Tensor, output: Tensor) -> None:
    """Gives `output` the grad_fn PyTorch gives a result it declares no derivative for (unique's Unique2Backward0):
    the graph prints as PyTorch's, and backward through it raises PyTorch's NotImplementedError."""
    if not grad_mode.STATE.enabled or (input._grad_fn is None and not input._requires_grad):
        return
    kernel = _underived_op(op_name, grad_name).kernel()
    out_meta = ((output._shape, output._storage.dtype.jax),)
    output._grad_fn = node_class(grad_name, NoDerivative)(kernel, (edge_of(input),), (), (), out_meta)
    output._output_nr = 0


@functools.lru_cache(maxsize=None)
def _underived_op(op_name: str, grad_name: str) -> Op:
    return Op(op_name, lambda x: x, grad_name=grad_name, saves=SAVES_NOTHING, promote="none")


_INFERENCE_SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
                    "in computation tracked by autograd. To work around this, you can make a clone to get a normal "
                    "tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")


def _tensors_saved(node, inputs: Sequence, outputs: Sequence[Tensor]) -> list:
    """The (input position or None, tensor) pairs PyTorch would save for this node, in its order: the tensor inputs
    its backward reads where the op saves inputs (by PyTorch's names of them), then its results where it saves
    them."""
    op = node.kernel.op
    saved = []
    if "result" not in op.saves or "inputs" in op.saves:
        reads = node.primals_read()
        saved = [(p, x) for p, x in enumerate(inputs) if isinstance(x, Tensor) and reads[p]]
        saved.sort(key=lambda pair: op.save_rank(pair[0]))
    if "result" in op.saves:
        saved += [(None, out) for out in outputs if out._grad_fn is node]
    return saved


def _refuse_saved_inference_tensors(node, positions: list) -> None:
    """PyTorch refuses to save an inference tensor, which is whatever input this node's backward reads."""
    reads = node.primals_read()
    if any(reads[p] for p in positions):
        raise RuntimeError(_INFERENCE_SAVED)


def _saved_version(t: Tensor, producer: str | None = None, output_nr: int = 0, position=None) -> SavedVersion:
    """Saved inputs are named by their grad_fn when the error is raised; saved results by the saving op."""
    saved_input = t if producer is None else None
    return SavedVersion(t._storage, t._storage.version, t.dtype, t._shape, saved_input, producer, output_nr,
                        position)


def _copy_slices(base, *others, inner, shape, stride, offset, base_layout=None):
    layout = {"shape": shape, "stride": stride}
    buffer = base if base_layout is None else _buffer_of(base, *base_layout)
    buffer = strided.write(buffer, inner.fn(strided.read(buffer, offset, **layout), *others), offset, **layout)
    return buffer if base_layout is None else strided.read(buffer, base_layout[3], shape=base_layout[1],
                                                           stride=base_layout[2])


def _read_view(base, *, shape, stride, offset, base_layout=None):
    buffer = base if base_layout is None else _buffer_of(base, *base_layout)
    return strided.read(buffer, offset, shape=shape, stride=stride)


def _buffer_of(base, size, shape, stride, offset):
    """The storage buffer holding `base`'s value where its layout there is not row-major from the start (a clone
    that kept a transposed layout, a tensor after t_()), so a view's storage layout applies to it."""
    return strided.write(jax.numpy.zeros(size, base.dtype), base, offset, shape=shape, stride=stride)


# An in-place op through a view, as a function of the base. Like PyTorch's CopySlices it is freed by
# backward whatever its inner op saves; the inner op's saved operands get their versions in _rebase_history.
COPY_SLICES = Op("copy_slices", _copy_slices, grad_name="CopySlices", saves=SAVES_INPUTS, promote="none")
AS_STRIDED = Op("as_strided", _read_view, grad_name="AsStridedBackward0", saves=SAVES_NOTHING, promote="none")


def check_inplace_allowed(target: Tensor) -> None:
    """PyTorch forbids in-place changes to leaves that require grad while grad mode is on."""
    if not grad_mode.STATE.enabled:
        return
    if target._created_in_no_grad or (target._view_creation and target._grad_fn is not None):
        raise RuntimeError(view_error(target, directly=True))
    base = target._base  # the view case comes first, and asks whether the view itself requires grad
    if base is not None and base._grad_fn is None and (target._requires_grad or target._grad_fn is not None):
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if target._grad_fn is None and target._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def _check_castable(result: dtypes.dtype, target: dtypes.dtype) -> None:
    if not dtypes.can_cast(result, target):
        raise RuntimeError(
            f"result type {_legacy_scalar_name(result)} can't be cast to the desired output type "
            f"{_legacy_scalar_name(target)}"
        )


def _check_broadcasts_into(target: Tensor, tensors: Sequence) -> None:
    """PyTorch checks an in-place result's broadcast shape against the target before the cast of its dtype."""
    shape = pointwise.broadcast_shapes(*(x._shape for x in tensors))
    if shape != tuple(target._shape):
        raise RuntimeError(f"output with shape [{', '.join(map(str, target._shape))}] doesn't match the broadcast "
                           f"shape [{', '.join(map(str, shape))}]")


def _legacy_scalar_name(d: dtypes.dtype) -> str:
    return dtypes.LEGACY_NAMES[d].replace("Tensor", "")


_RESULT_DTYPES: dict = {}


def _result_dtype(kernel, arrays: Sequence, common: dtypes.dtype) -> dtypes.dtype:
    """What `kernel` returns (a comparison's bool, not its inputs' common dtype), traced once per kernel. Where the
    kernel refuses its inputs, the common dtype: PyTorch checks that cast before it looks for a kernel."""
    found = _RESULT_DTYPES.get(kernel)
    if found is None:
        try:
            found = _RESULT_DTYPES[kernel] = dtypes.from_jax(jax.eval_shape(kernel.fn, *arrays).dtype)
        except (NotImplementedError, RuntimeError):
            return common
    return found


# Ops PyTorch lets write into a tensor whose elements share memory (fills, and index_put_ with a warning).
_OVERLAP_ALLOWED = frozenset({"fill_", "zero_", "masked_fill", "index_fill", "index_put", "tril", "triu"})


def check_no_partial_overlap(target: Tensor, inputs: Sequence) -> None:
    """PyTorch's assert_no_partial_overlap: an input reading memory that an op writes must be the written tensor's
    very elements (or share none of them)."""
    for other in inputs:
        if (isinstance(other, Tensor) and other._storage.memory is target._storage.memory
                and other.dtype is target.dtype and strided.partially_overlap(
                    (target._shape, target._stride, target._offset), (other._shape, other._stride, other._offset))):
            raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor "
                               "refer to a single memory location. Please clone() the tensor before performing the "
                               "operation.")


def _check_no_internal_overlap(target: Tensor) -> None:
    """PyTorch's assert_no_internal_overlap: a stride-0 dim of size > 1 (an expanded tensor) can't be written."""
    for size, step in zip(target._shape, target._stride):
        if step == 0 and size > 1:
            raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                               "single memory location. Please clone() the tensor before performing the operation.")


# (op, static, default dtype, operand signature) -> _InplaceKernel, for an in-place op on a whole tensor whose checks
# (devices, cast, broadcast) passed once with nothing recorded: a repeat only runs the kernel and stores the result.
_INPLACE_DECIDED: dict = {}


def apply_inplace(op: Op, target: Tensor, others: Sequence, static: tuple = ()) -> Tensor:
    """Runs `op(target, *others)` and writes the result into `target`, keeping its dtype."""
    check_inplace_allowed(target)
    dual = forward_ad.LEVEL.active and forward_ad.has_tangent((target, *others))
    signature = _inplace_signature(op, target, others, static) if target._whole and not dual else None
    if signature is not None:
        decided = _INPLACE_DECIDED.get(signature)
        if decided is not None and not (grad_mode.STATE.enabled and decided.may_record(target, others)):
            return decided.run(target, others)
    elif not target._whole and op.name not in _OVERLAP_ALLOWED:
        _check_no_internal_overlap(target)
    if op.name not in _OVERLAP_ALLOWED:
        check_no_partial_overlap(target, others)
    inputs = (target, *others)
    tensors = [x for x in inputs if isinstance(x, Tensor)]
    device = common_device(tensors)
    cast = promoted_dtype(op, inputs) if op.promote != "none" else None
    arrays = _arrays(inputs, cast.jax if cast is not None else None, device)
    if op.elementwise:
        _check_broadcasts_into(target, tensors)
    if cast is not None and cast.category > target.dtype.category:
        _check_castable(_result_dtype(op.kernel(static, cast.jax), arrays, cast), target.dtype)
    cast = cast.jax if cast is not None else None
    computed_in = _computed_in(op, cast)
    if computed_in is not cast:
        arrays = _arrays(inputs, computed_in, device)
        cast = computed_in
    out_cast = target.dtype.jax if cast is not None and cast != target.dtype.jax else None
    kernel = op.kernel(static, cast, out_cast)
    value = kernel.jit(*arrays)
    recording = grad_mode.STATE.enabled and _any_requires_grad(tensors)
    if (signature is not None and not recording and value.shape == target._shape
            and value.dtype == target.dtype.jax and len(_INPLACE_DECIDED) < _DECIDED_LIMIT):
        _INPLACE_DECIDED[signature] = _InplaceKernel(kernel, inputs, cast)
    edges_before = tuple(edge_of(x) if isinstance(x, Tensor) else None for x in inputs) if recording else None
    through_view = recording and target._base is not None
    base_before = target._base._value() if through_view else None
    saved_versions = _versions_of_others(kernel, others) if recording else ()
    if dual:
        forward_ad.propagate(kernel, inputs, arrays, (target,))
    target._assign(value)
    if recording:
        _rebase_history(kernel, inputs, arrays, edges_before, saved_versions, base_before)
    return target


def _inplace_signature(op: Op, target: Tensor, others: Sequence, static: tuple) -> tuple | None:
    """The key of `_INPLACE_DECIDED`; None where an operand is on another device or is not whole (the general path
    checks and reads those)."""
    storage = target._storage
    signature = [op, static, _DEFAULT_DTYPE.value, storage.dtype, target._shape]
    for x in others:
        if isinstance(x, Tensor):
            if x._storage.device is not storage.device or not x._whole:
                return None
            signature.append(x._storage.dtype)
            signature.append(x._shape)
        else:
            signature.append(type(x))
    return tuple(signature)


class _InplaceKernel:
    """A decided in-place call: its kernel, and the dtype each scalar operand goes on the device as."""

    __slots__ = ("kernel", "scalar_casts")

    def __init__(self, kernel, inputs: Sequence, cast) -> None:
        self.kernel = kernel
        self.scalar_casts = tuple(None if isinstance(x, Tensor) else cast if cast is not None else _scalar_dtype(x)
                                  for x in inputs)

    @staticmethod
    def may_record(target: Tensor, others: Sequence) -> bool:
        """Whether autograd could record this call (with grad mode on): then it takes the general path."""
        if target._grad_fn is not None or target._requires_grad or target._base is not None:
            return True
        return any(isinstance(x, Tensor) and (x._grad_fn is not None or x._requires_grad) for x in others)

    def run(self, target: Tensor, others: Sequence) -> Tensor:
        """Under no_grad the new value is a pending write, computed with whatever computation runs next."""
        storage = target._storage
        device = storage.device
        lazily = not grad_mode.STATE.enabled
        arrays = [(x._storage.lazy_array if lazily else x._value()) if isinstance(x, Tensor)
                  else scalar_array(x, cast, device) for x, cast in zip((target, *others), self.scalar_casts)]
        value = deferred.defer(self.kernel, arrays, target._shape, storage.dtype.jax, True) if lazily else None
        storage.replace(self.kernel.jit(*deferred.concrete_all(arrays)) if value is None else value)
        return target


def _versions_of_others(kernel, others: Sequence) -> tuple:
    """An in-place op's saved inputs, bar the target: its old value is kept as a copy (PyTorch's
    `original_self`), so only a later change to another operand (or to the target, when it is also
    an operand) is an error."""
    if "inputs" not in kernel.op.saves:
        return ()
    return tuple(_saved_version(x, position=position) for position, x in enumerate(others, 1)
                 if isinstance(x, Tensor))


def _rebase_history(kernel, inputs, arrays, edges, versions, base_before) -> None:
    """After an in-place op on `inputs[0]`, the target's (or its base's) grad_fn becomes that op's node."""
    target = inputs[0]
    if "result" in kernel.op.saves:
        versions = (*versions, _saved_version(target, kernel.op.grad_name, 0))
    target_meta = ((target._shape, target._storage.dtype.jax),)
    if base_before is None:
        saved = tuple(arrays) if kernel.op.saves else saved_for_backward(kernel, edges, arrays, target_meta,
                                                                          False)
        node = node_class(kernel.op.grad_name)(kernel, edges, saved, versions, target_meta)
        target._grad_fn, target._output_nr = node, 0
        return
    base = target._base
    copy_kernel = COPY_SLICES.kernel((("inner", kernel),) + _layout(target), None)
    base_edges = (edge_of(base),) + edges[1:]
    base_meta = ((base._shape, base._storage.dtype.jax),)
    node = CopySlices(copy_kernel, base_edges, (base_before, *arrays[1:]), versions, base_meta)
    base._grad_fn, base._output_nr = node, 0
    _regenerate_view_history(target)


_MODE_ADVICE = ("Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
                "moving both the view and the inplace either both inside the {} block (if you don't want the inplace "
                "to be tracked) or both outside (if you want the inplace to be tracked).")
VIEW_ADVICE = {
    "no_grad": _MODE_ADVICE.format("no_grad"),
    "inference_mode": _MODE_ADVICE.format("inference_mode"),
    "multi_output": "This view is the output of a function that returns multiple views. Such functions do not allow "
                    "the output views to be modified inplace. You should replace the inplace operation by an "
                    "out-of-place one.",
    "custom_function": "This view was created inside a custom Function (or because an input was returned as-is) and "
                       "the autograd logic to handle view+inplace would override the custom backward associated with "
                       "the custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix "
                       "this by cloning the output of the custom Function.",
}
# Where a view made with grad mode off was made, and the mode an in-place change to it is refused in.
_MODE_WORDS = {"no_grad": ("no_grad mode", "with grad mode enabled"), "inference_mode": ("inference mode",
                                                                                          "in normal mode")}


def view_error(view: Tensor, directly: bool) -> str:
    """PyTorch's message for an in-place change, with grad mode on, to a view it forbids changing (`directly`), or
    to its base or another view of it: named by the view's node where it has one, and followed by the advice of
    why it was refused (VIEW_ADVICE)."""
    what = "is being" if directly else "its base or another view of its base has been"
    node, why = view._grad_fn, view._view_creation or view._created_in_no_grad
    made, refused = _MODE_WORDS.get(view._created_in_no_grad or "no_grad")
    if node is None:
        head = f"A view was created in {made} and {what} modified inplace {refused}."
    elif view._view_creation:
        head = f"Output {view._output_nr} of {forward_name(node.name())} is a view and {what} modified inplace."
    else:
        head = (f"Output {view._output_nr} of {forward_name(node.name())} is a view of a view which was created in "
                f"{made} and {what} modified inplace {refused}.")
    return f"{head} {VIEW_ADVICE[why]}"


def _layout(view: Tensor) -> tuple:
    """A view's layout in its storage, and its base's where that is not the base's row-major value."""
    layout = (("offset", view._offset), ("shape", view._shape), ("stride", view._stride))
    base = view._base
    if base._whole:
        return layout
    return (("base_layout", (base._storage.numel, base._shape, base._stride, base._offset)),) + layout


def _regenerate_view_history(view: Tensor) -> None:
    """A view's grad_fn after its base's history changed: read the view out of the base."""
    base = view._base
    view._view_version = view._storage.version
    if not base.requires_grad:
        return
    if view._view_creation:
        raise RuntimeError(view_error(view, directly=False))
    kernel = AS_STRIDED.kernel(_layout(view), None)
    edges, meta = (edge_of(base),), ((view._shape, view._storage.dtype.jax),)
    saved = saved_for_backward(kernel, edges, (base._value(),), meta, False)
    view._grad_fn, view._output_nr = node_class("AsStridedBackward0")(kernel, edges, saved, (), meta), 0
