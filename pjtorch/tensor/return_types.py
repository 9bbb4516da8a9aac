"""`torch.return_types`: named (values, indices) results that print as PyTorch's do."""
from __future__ import annotations

import collections
import functools


@functools.lru_cache(maxsize=None)
def _return_type(name: str, fields: tuple) -> type:
    base = collections.namedtuple(name, fields)

    def __repr__(self) -> str:
        body = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    def __reduce__(self):
        """Pickled through this module: the class claims `torch.return_types`, which may not be importable."""
        return _rebuild, (name, fields, tuple(self))

    def __new__(cls, sequence):
        """Made from one sequence of the fields' values, as a structseq is."""
        return base.__new__(cls, *sequence)

    # PyTorch's are structseqs, which count their fields so
    count = len(fields)
    return type(name, (base,), {"__slots__": (), "__new__": __new__, "__repr__": __repr__, "__reduce__": __reduce__,
                                "__module__": "torch.return_types", "n_fields": count, "n_sequence_fields": count,
                                "n_unnamed_fields": 0})


def _rebuild(name: str, fields: tuple, values: tuple):
    return _return_type(name, fields)(values)


def make_return(name: str, **fields):
    return _return_type(name, tuple(fields))(tuple(fields.values()))


_VALUES_INDICES = ("values", "indices")
# Each result type's fields, for the types user code names (`isinstance(r, torch.return_types.max)`).
FIELDS = {
    **dict.fromkeys(("max", "min", "sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin"),
                    _VALUES_INDICES),
    "aminmax": ("min", "max"), "frexp": ("mantissa", "exponent"), "slogdet": ("sign", "logabsdet"),
    "linalg_slogdet": ("sign", "logabsdet"), "qr": ("Q", "R"), "linalg_qr": ("Q", "R"), "svd": ("U", "S", "V"),
    "linalg_svd": ("U", "S", "Vh"), "linalg_eig": ("eigenvalues", "eigenvectors"),
    "linalg_eigh": ("eigenvalues", "eigenvectors"), "linalg_cholesky_ex": ("L", "info"),
    "linalg_inv_ex": ("inverse", "info"), "linalg_lu": ("P", "L", "U"), "lu_unpack": ("P", "L", "U"),
    "linalg_lu_factor": ("LU", "pivots"), "linalg_lu_factor_ex": ("LU", "pivots", "info"),
    "linalg_solve_ex": ("result", "info"), "triangular_solve": ("solution", "cloned_coefficient"),
    "histogram": ("hist", "bin_edges"), "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"),
}


def __getattr__(name: str) -> type:
    if name in FIELDS:
        return _return_type(name, FIELDS[name])
    raise AttributeError(f"module 'torch.return_types' has no attribute '{name}'")
