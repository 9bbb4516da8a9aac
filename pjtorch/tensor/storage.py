"""Storage: the mutable box around a base tensor's immutable jax.Array.

Mutation replaces the array and bumps the version counter that autograd checks. Views and
`detach()` share their base's Storage. A CPU storage that NumPy shares (`from_numpy`,
`.numpy()`) is host-backed: the ndarray is the source of truth, so writes from either side are
seen by the other (JAX would copy).
"""
from __future__ import annotations

import functools
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from ..autograd.grad_mode import STATE
from ..ops import deferred
from ..ops.deferred import Deferred

INFERENCE_INPLACE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to "
                     "get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for "
                     "more details.")


class Storage:
    __slots__ = ("_array", "_host", "version", "device", "dtype", "inference", "__weakref__")

    def __init__(self, array, device, dtype) -> None:
        self._array = array
        self._host = None
        self.version = 0
        self.device = device
        self.dtype = dtype
        self.inference = STATE.inference  # made in inference mode: its tensors are inference tensors

    @classmethod
    def of_host(cls, host: np.ndarray, device, dtype) -> "Storage":
        storage = cls(None, device, dtype)
        storage._host = host
        return storage

    @property
    def array(self):
        """The current value as a jax.Array, in the shape it was produced with."""
        if self._host is not None:
            return jnp.asarray(self._host)
        if type(self._array) is Deferred:
            self._array = self._array.value()
        return self._array

    @property
    def lazy_array(self):
        """The value as it is held: a jax.Array, or a Deferred not computed until someone reads it."""
        if self._host is not None:
            return jnp.asarray(self._host)
        return self._array

    def replace(self, array) -> None:
        """Sets a new value (an in-place op's result) and counts the mutation. An inference tensor changed outside
        inference mode is PyTorch's error, raised (as PyTorch does) once the value is written."""
        self.version += 1
        self._write(self._held(array) if type(array) is Deferred else array)
        if self.inference and not STATE.inference:
            raise RuntimeError(INFERENCE_INPLACE)

    def _held(self, value: Deferred):
        """A deferred new value stays deferred, as a pending write, where the memory holds typed jax.Arrays; memory
        NumPy shares, or read as another dtype, takes the computed value."""
        memory = self.memory
        if value.array is not None or memory._host is not None or self.dtype is not memory.dtype:
            return value.value()
        value.owner = weakref.ref(memory)
        deferred.note_unrecorded(value, write=True)
        return value

    def _write(self, array) -> None:
        if self._host is not None:
            self._host[...] = np.asarray(array).reshape(self._host.shape)
        else:
            self._array = array

    def host(self) -> np.ndarray:
        """A writable ndarray that from now on is this storage's value, shared with NumPy."""
        if self._host is None:
            self._host = np.array(self.array)
            self._array = None
        return self._host

    @property
    def numel(self) -> int:
        return self._host.size if self._host is not None else self._array.size

    def nbytes(self) -> int:
        """`t.untyped_storage().nbytes()`: the size in bytes of the whole memory, as PyTorch reports it."""
        return self.numel * self.dtype.itemsize

    @property
    def shape(self) -> tuple:
        """The shape the value is held in (a base tensor's shape, or a flat span shared with NumPy)."""
        return self._host.shape if self._host is not None else self._array.shape

    def untracked(self) -> "Storage":
        """The same memory under a fresh version counter: `.data`, whose in-place changes autograd does not see."""
        return _Untracked(self)

    @property
    def memory(self) -> "Storage":
        """The storage that owns the memory (this one, or the one a `.data` or dtype view reads through)."""
        return self

    def block_until_ready(self, defer_writes: bool = False) -> None:
        array = self._array
        if array is None:  # a host-backed storage is ready
            return
        if type(array) is Deferred and array.array is None and defer_writes and array.write:
            return
        self.array.block_until_ready()


class _Untracked(Storage):
    """Shares its owner's memory (reads and writes go to it) but counts its own mutations."""

    __slots__ = ("_owner",)

    def __init__(self, owner: Storage) -> None:
        super().__init__(None, owner.device, owner.dtype)
        self.inference = owner.inference
        self._owner = owner

    @property
    def array(self):
        return self._owner.array

    @property
    def lazy_array(self):
        return self._owner.lazy_array

    def _write(self, array) -> None:
        self._owner._write(array)

    def host(self) -> np.ndarray:
        return self._owner.host()

    @property
    def numel(self) -> int:
        return self._owner.numel

    @property
    def shape(self) -> tuple:
        return self._owner.shape

    def untracked(self) -> Storage:
        return _Untracked(self._owner)

    @property
    def memory(self) -> Storage:
        return self._owner.memory

    def block_until_ready(self, defer_writes: bool = False) -> None:
        self._owner.block_until_ready(defer_writes)


def reinterpreted(storage: Storage, dtype) -> Storage:
    """`storage`'s memory read as `dtype`: complex numbers as (real, imaginary) pairs of floats, or such pairs as
    complex numbers (view_as_real, .real, .imag, view_as_complex)."""
    if type(storage) is _Reinterpreted and storage._owner.dtype is dtype:
        return storage._owner
    return _Reinterpreted(storage, dtype)


class _Reinterpreted(Storage):
    """Its owner's memory as another dtype of the same bytes. Storages hold typed jax.Arrays, so bytes cannot be
    shared: reads convert the owner's array, writes convert back into the owner, and the version counter is the
    owner's (so in-place changes on either side are seen, and checked by autograd, on both)."""

    __slots__ = ("_owner",)

    def __init__(self, owner: Storage, dtype) -> None:  # no Storage.__init__: it would reset the owner's version
        self._owner, self._array, self._host = owner, None, None
        self.device, self.dtype, self.inference = owner.device, dtype, owner.inference

    @property
    def version(self) -> int:
        return self._owner.version

    @version.setter
    def version(self, value: int) -> None:
        self._owner.version = value

    @property
    def array(self):
        owner = self._owner.array
        if self.dtype.is_complex:
            return _as_complex(owner, self.shape)
        return _as_pairs(owner)

    lazy_array = array

    def _write(self, array) -> None:
        owner = self._owner
        if self.dtype.is_complex:
            owner._write(_into_pairs(owner.array, array))
        else:
            owner._write(_from_pairs(array.reshape(owner.shape + (2,))))

    def host(self) -> np.ndarray:
        flat = self._owner.host().reshape(-1)
        if self.dtype.is_complex:
            return flat[:flat.size // 2 * 2].view(self.dtype.jax)
        return flat.view(self.dtype.jax)

    @property
    def numel(self) -> int:
        owner = self._owner.numel
        return owner // 2 if self.dtype.is_complex else owner * 2

    @property
    def shape(self) -> tuple:
        """The owner's shape with the pair dim added, or dropped where the owner ends in pairs (else flat)."""
        owner = tuple(self._owner.shape)
        if not self.dtype.is_complex:
            return owner + (2,)
        return owner[:-1] if owner and owner[-1] == 2 else (self.numel,)

    @property
    def memory(self) -> Storage:
        return self._owner.memory

    def block_until_ready(self, defer_writes: bool = False) -> None:
        self._owner.block_until_ready(defer_writes)


@jax.jit
def _as_pairs(z):
    return jnp.stack([jnp.real(z), jnp.imag(z)], axis=-1)


@jax.jit
def _from_pairs(pairs):
    return jax.lax.complex(pairs[..., 0], pairs[..., 1])


@functools.partial(jax.jit, static_argnums=1)
def _as_complex(floats, shape: tuple):
    flat = floats.reshape(-1)
    count = flat.size // 2
    return _from_pairs(flat[:2 * count].reshape(count, 2)).reshape(shape)


@jax.jit
def _into_pairs(floats, z):
    flat = floats.reshape(-1)
    return flat.at[:2 * z.size].set(_as_pairs(z).reshape(-1)).reshape(floats.shape)
