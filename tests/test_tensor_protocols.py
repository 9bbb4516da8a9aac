"""Python protocols and legacy constructors of Tensor, each compared with PyTorch: `in`, bool/int/float
conversions, deepcopy, pickle, `torch.Tensor(...)`, `torch.FloatTensor` and kin, `t.new(...)`, `t.type(...)`."""
import copy
import pickle

import numpy as np
import pytest

from tensor_oracle import same

CONVERSIONS = {
    "contains-number": lambda m: (2.0 in m.tensor([[1.0, 2.0]]), 5 in m.tensor([[1.0, 2.0]])),
    "contains-row": lambda m: m.tensor([1.0, 2.0]) in m.tensor([[1.0, 2.0], [3.0, 4.0]]),
    "contains-string": lambda m: "a" in m.tensor([1.0]),
    "bool-of-empty": lambda m: bool(m.tensor([])),
    "bool-of-two": lambda m: bool(m.tensor([1, 2])),
    "is-nonzero-of-empty": lambda m: m.is_nonzero(m.tensor([])),
    "is-nonzero-of-two": lambda m: m.is_nonzero(m.tensor([1, 2])),
    "is-nonzero": lambda m: (m.is_nonzero(m.tensor([0.0])), m.is_nonzero(m.tensor(3))),
    "int-of-real-complex": lambda m: int(m.tensor(2.5 + 0j)),
    "int-of-complex": lambda m: int(m.tensor(1 + 2j)),
    "float-of-complex": lambda m: float(m.tensor(1 + 2j)),
    "float-of-real-complex": lambda m: float(m.tensor(1.5 + 0j)),
    "class-name": lambda m: (repr(type(m.ones(1))), repr(m.Size), repr(type(m.ones(1).shape))),
}

ARGUMENT_ERRORS = {
    "prod-dim-of-0dim": lambda m: m.tensor(3.0).prod(1),
    "prod-dim-0-of-0dim": lambda m: m.tensor(3.0).prod(-1),
    "mode-dim-of-0dim": lambda m: m.tensor(3.0).mode(1),
    "argmax-of-bool": lambda m: m.tensor([True, False]).argmax(),
    "argmin-of-bool-bad-dim": lambda m: m.tensor([True]).argmin(5),
    "trace-of-0dim-bool": lambda m: m.tensor(True).trace(),
    "cumsum-without-dim": lambda m: m.ones(2).cumsum(),
    "cumprod-without-dim": lambda m: m.cumprod(m.ones(2)),
    "cummax-without-dim": lambda m: m.ones(2).cummax(),
    "logsumexp-without-dim": lambda m: m.ones(2).logsumexp(),
    "softmax-without-dim": lambda m: m.softmax(m.ones(2)),
    "log-softmax-without-dim": lambda m: m.ones(2).log_softmax(),
    "flip-without-dims": lambda m: m.ones(2).flip(),
}

LEGACY = {
    "Tensor-data": lambda m: m.Tensor([1, 2]),
    "Tensor-sizes": lambda m: m.Tensor(2, 3).shape,
    "Tensor-Size": lambda m: m.Tensor(m.Size([2, 3])).shape,
    "Tensor-tuple-is-data": lambda m: m.Tensor((2, 3)),
    "Tensor-empty": lambda m: m.Tensor(),
    "Tensor-ndarray": lambda m: m.Tensor(np.array([1, 2])),
    "Tensor-of-long-tensor": lambda m: m.Tensor(m.tensor([1, 2])),
    "Tensor-float-refused": lambda m: m.Tensor(3.5),
    "Tensor-negative-size": lambda m: m.Tensor(-1),
    "Tensor-string": lambda m: m.Tensor("a"),
    "Tensor-dtype-keyword": lambda m: m.Tensor([1, 2], dtype=m.int64),
    "Tensor-ragged": lambda m: m.Tensor([[1, 2], [3]]),
    "FloatTensor": lambda m: m.FloatTensor([1, 2]),
    "LongTensor-truncates": lambda m: m.LongTensor([1.7, 2]),
    "LongTensor-size": lambda m: m.LongTensor(2).shape,
    "ByteTensor": lambda m: m.ByteTensor([1, 2]),
    "BoolTensor": lambda m: m.BoolTensor([1, 0]),
    "DoubleTensor": lambda m: m.DoubleTensor([[1]]),
    "IntTensor-of-int32": lambda m: m.IntTensor(m.tensor([1, 2], dtype=m.int32)),
    "IntTensor-of-int64": lambda m: m.IntTensor(m.tensor([1, 2])),
    "HalfTensor": lambda m: m.HalfTensor([1]),
    "BFloat16Tensor": lambda m: m.BFloat16Tensor([1]),
    "ShortTensor": lambda m: m.ShortTensor([1]),
    "CharTensor": lambda m: m.CharTensor([1]),
    "legacy-repr": lambda m: (repr(m.FloatTensor), repr(m.cuda.LongTensor)),
    "isinstance": lambda m: (isinstance(m.ones(2), m.FloatTensor), isinstance(m.ones(2), m.LongTensor),
                             isinstance(m.ones(2, dtype=m.long), m.LongTensor), isinstance(m.ones(2), m.Tensor),
                             isinstance(m.ones(2), m.cuda.FloatTensor)),
    "legacy-dtype": lambda m: (m.FloatTensor.dtype, m.IntTensor.dtype),
    "type-legacy-class": lambda m: m.ones(2).type(m.LongTensor),
    "type-legacy-name": lambda m: m.ones(2).type("torch.LongTensor"),
    "type-dtype": lambda m: m.ones(2).type(m.int16),
    "type-unknown-name": lambda m: m.ones(2).type("IntTensor"),
    "type-dtype-keyword": lambda m: m.ones(2).type(dtype="torch.DoubleTensor"),
    "type-non-blocking": lambda m: m.ones(2).type(m.float64, non_blocking=True),
    "type-name": lambda m: (m.ones(2).type(), m.ones(2, dtype=m.bool).type()),
    "new-sizes": lambda m: m.ones(2).new(2, 3).shape,
    "new-data-in-own-dtype": lambda m: m.ones(2, dtype=m.int64).new([1.5, 2]),
    "new-empty": lambda m: m.ones(2).new(),
    "new-of-other-dtype": lambda m: m.ones(2).new(m.tensor([1, 2])),
    "new-Size": lambda m: m.ones(2).new(m.Size([1])).shape,
}


@pytest.mark.parametrize("name", CONVERSIONS)
def test_python_conversions_match_torch(name):
    same(CONVERSIONS[name])


@pytest.mark.parametrize("name", ARGUMENT_ERRORS)
def test_argument_errors_match_torch(name):
    same(ARGUMENT_ERRORS[name])


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_constructors_and_types_match_torch(name):
    same(LEGACY[name])


def _deepcopied_views(m):
    base = m.arange(6.0)
    copied_base, copied_view = copy.deepcopy((base, base[2:4]))
    copied_view[0] = -1
    return copied_base, base


def _deepcopied_leaf(m):
    x = m.ones(2, requires_grad=True)
    x.grad = m.full((2,), 3.0)
    copied = copy.deepcopy(x)
    return copied, copied.grad, copied.is_leaf, copied.requires_grad


COPIES = {
    "views-keep-sharing": _deepcopied_views,
    "leaf-with-grad": _deepcopied_leaf,
    "non-leaf-refused": lambda m: copy.deepcopy(m.ones(2, requires_grad=True) * 2),
    "pickle-leaf": lambda m: pickle.loads(pickle.dumps(m.ones(2, requires_grad=True))),
    "pickle-non-leaf": lambda m: pickle.loads(pickle.dumps(m.ones(2, requires_grad=True) * 2)),
    "pickle-bfloat16": lambda m: pickle.loads(pickle.dumps(m.ones(2, dtype=m.bfloat16))),
    "pickle-view": lambda m: pickle.loads(pickle.dumps(m.arange(6).reshape(2, 3).t())),
}


@pytest.mark.parametrize("name", COPIES)
def test_copies_and_pickles_match_torch(name):
    same(COPIES[name])
