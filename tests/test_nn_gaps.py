"""LBFGS, EmbeddingBag, MaxUnpool, CTCLoss, grid_sample/affine_grid and weight/spectral norm against real
PyTorch: values, gradients of inputs and parameters, reprs and error messages. Each case is a function
of the library (`m` is torch or pjtorch) returning nested tensors/values compared through NumPy."""
from __future__ import annotations

import functools

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from nn_oracle import same_error, same_values  # noqa: E402

check = functools.partial(same_values, rtol=1e-5, atol=1e-6)


def _leaf(m, array, dtype="float64"):
    return m.tensor(np.asarray(array), dtype=getattr(m, dtype), requires_grad=True)


GEN = np.random.default_rng(0)
A, B = GEN.standard_normal((20, 5)), GEN.standard_normal(20)


# ----- LBFGS ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_matches_torch(line_search):
    def run(m):
        lin = m.nn.Linear(5, 1).double()
        with m.no_grad():
            lin.weight.copy_(m.linspace(-1, 1, 5, dtype=m.float64).reshape(1, 5))
            lin.bias.fill_(0.1)
        opt = m.optim.LBFGS(lin.parameters(), lr=0.8, max_iter=6, history_size=3, line_search_fn=line_search)
        x, y = m.tensor(A), m.tensor(B)

        def closure():
            opt.zero_grad()
            loss = m.nn.functional.softplus(lin(x).squeeze(1) * y).mean() + 0.01 * lin.weight.pow(4).sum()
            loss.backward()
            return loss

        trace = []
        for _ in range(2):
            loss = opt.step(closure)
            state = opt.state[lin.weight]
            trace.append([loss, lin.weight, lin.bias, state["func_evals"], state["n_iter"]])
        return trace

    check(run, rtol=1e-6, atol=1e-8)


def test_lbfgs_errors_and_repr():
    same_error(lambda m: m.optim.LBFGS([m.zeros(2, requires_grad=True)], lr=-1))
    same_error(lambda m: m.optim.LBFGS([{"params": [m.zeros(2, requires_grad=True)]},
                                         {"params": [m.zeros(2, requires_grad=True)]}]))
    check(lambda m: repr(m.optim.LBFGS([m.zeros(2, requires_grad=True)], history_size=7)))


# ----- EmbeddingBag -----------------------------------------------------------------------------------

WEIGHT, SAMPLE_WEIGHTS = GEN.standard_normal((10, 3)), GEN.standard_normal(10)
INDICES, OFFSETS = [1, 2, 4, 5, 4, 3, 2, 9, 0, 0], [0, 4, 4, 7]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 4, -1])
@pytest.mark.parametrize("include_last_offset", [False, True])
def test_embedding_bag(mode, padding_idx, include_last_offset):
    def run(m):
        weight = _leaf(m, WEIGHT)
        out = m.nn.functional.embedding_bag(m.tensor(INDICES), weight, m.tensor(OFFSETS), mode=mode,
                                            padding_idx=padding_idx, include_last_offset=include_last_offset)
        (out * m.arange(out.numel(), dtype=m.float64).reshape(out.shape)).sum().backward()
        return [out, weight.grad]

    check(run)


def test_embedding_bag_2d_per_sample_weights_and_module():
    def run(m):
        weight, per_sample = _leaf(m, WEIGHT), _leaf(m, SAMPLE_WEIGHTS)
        out = m.nn.functional.embedding_bag(m.tensor(INDICES), weight, m.tensor(OFFSETS), mode="sum",
                                            per_sample_weights=per_sample)
        out.pow(2).sum().backward()
        bag = m.nn.EmbeddingBag.from_pretrained(m.tensor(WEIGHT), freeze=False, max_norm=1.0)
        rows = bag(m.tensor(INDICES).reshape(2, 5))
        return [out, weight.grad, per_sample.grad, rows, bag.weight, repr(bag),
                repr(m.nn.EmbeddingBag(5, 2, mode="max", padding_idx=-2, norm_type=3.0, scale_grad_by_freq=True))]

    check(run)


@pytest.mark.parametrize("case", [
    lambda m: m.nn.functional.embedding_bag(m.tensor(INDICES).reshape(2, 5), m.ones(10, 3), m.tensor([0, 1])),
    lambda m: m.nn.functional.embedding_bag(m.tensor(INDICES), m.ones(10, 3)),
    lambda m: m.nn.functional.embedding_bag(m.tensor(INDICES), m.ones(10, 3), m.tensor([[0]])),
    lambda m: m.nn.functional.embedding_bag(m.tensor(INDICES), m.ones(10, 3), m.tensor([0]), mode="min"),
    lambda m: m.nn.functional.embedding_bag(m.tensor(INDICES), m.ones(10, 3), m.tensor([0]), mode="max",
                                            per_sample_weights=m.ones(10)),
    lambda m: m.nn.functional.embedding_bag(m.tensor(INDICES), m.ones(10, 3), m.tensor([0]),
                                            per_sample_weights=m.ones(3)),
    lambda m: m.nn.EmbeddingBag(3, 2, padding_idx=3),
])
def test_embedding_bag_errors(case):
    same_error(case)


# ----- MaxUnpool --------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(2, 3, 8), (2, 2, 6, 4), (1, 2, 4, 4, 6)])
def test_max_unpool(shape):
    spatial = len(shape) - 2
    x0, w0 = GEN.standard_normal(shape), GEN.standard_normal(shape)

    def run(m):
        pooled, indices = getattr(m.nn.functional, f"max_pool{spatial}d")(m.tensor(x0), 2, return_indices=True)
        pooled.requires_grad_()
        layer = getattr(m.nn, f"MaxUnpool{spatial}d")(2)
        out = layer(pooled, indices, output_size=list(shape))
        (out * m.tensor(w0)).sum().backward()
        return [out, pooled.grad, repr(layer), repr(getattr(m.nn, f"MaxUnpool{spatial}d")(3, stride=2, padding=1))]

    check(run)


@pytest.mark.parametrize("case", [
    lambda m: m.nn.functional.max_unpool2d(*m.nn.functional.max_pool2d(m.ones(1, 1, 4, 4), 2, return_indices=True),
                                           2, output_size=(9, 9)),
    lambda m: m.nn.functional.max_unpool2d(*m.nn.functional.max_pool2d(m.ones(1, 1, 4, 4), 2, return_indices=True),
                                           2, output_size=(1, 4, 4)),
    lambda m: m.nn.functional.max_unpool2d(m.ones(1, 1, 2, 2), m.zeros(1, 1, 2, 1, dtype=m.int64), 2),
])
def test_max_unpool_errors(case):
    same_error(case)


# ----- CTCLoss ----------------------------------------------------------------------------------------

TARGETS = [[1, 2, 2, 0], [3, 3, 3, 3], [4, 1, 0, 0], [1, 1, 1, 1]]
LOGITS = GEN.standard_normal((12, 4, 5))


def test_ctc_loss():
    def run(m):
        logits, results = _leaf(m, LOGITS), []
        for reduction in ("none", "mean", "sum"):
            for zero_infinity in (False, True):
                results.append(m.nn.functional.ctc_loss(
                    logits.log_softmax(2), m.tensor(TARGETS), m.tensor([12, 10, 7, 3]), m.tensor([3, 4, 0, 2]),
                    reduction=reduction, zero_infinity=zero_infinity))
        sum(results[i].sum() * (i + 1) for i in (1, 3, 5)).backward()
        return results + [logits.grad]

    check(run)


def test_ctc_loss_log_prob_gradient_concatenated_targets_and_module():
    def run(m):
        log_probs = m.tensor(LOGITS, dtype=m.float32).log_softmax(2).requires_grad_()
        loss = m.nn.CTCLoss(blank=4, zero_infinity=True)
        out = loss(log_probs, m.tensor([1, 2, 2, 3, 3, 3, 3, 1, 1]), (12, 10, 7, 3), (3, 4, 0, 2))
        out.backward()
        single = m.nn.functional.ctc_loss(log_probs[:, 0], m.tensor([1, 2, 2]), (12,), (3,), reduction="none")
        return [out, log_probs.grad, single, repr(loss)]

    check(run, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", [
    lambda m: m.nn.functional.ctc_loss(m.zeros(5, 2, 3), m.ones(2, 2, dtype=m.int64), (5,), (2, 2)),
    lambda m: m.nn.functional.ctc_loss(m.zeros(5, 2, 3), m.ones(2, 2, dtype=m.int64), (5, 5), (2, 2), blank=3),
    lambda m: m.nn.functional.ctc_loss(m.zeros(5, 2, 3), m.ones(2, 2, dtype=m.int64), (5, 6), (2, 2)),
])
def test_ctc_loss_errors(case):
    same_error(case)


# ----- grid_sample / affine_grid ----------------------------------------------------------------------

@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid(align_corners):
    theta2, theta3 = GEN.standard_normal((2, 2, 3)), GEN.standard_normal((2, 3, 4))

    def run(m):
        t2, t3 = _leaf(m, theta2), _leaf(m, theta3)
        g2 = m.nn.functional.affine_grid(t2, (2, 3, 4, 5), align_corners=align_corners)
        g3 = m.nn.functional.affine_grid(t3, (2, 3, 2, 3, 4), align_corners=align_corners)
        (g2.pow(2).sum() + g3.pow(3).sum()).backward()
        return [g2, g3, t2.grad, t3.grad]

    check(run)


@pytest.mark.parametrize("shapes", [((2, 3, 5, 6), (2, 4, 7, 2)), ((2, 2, 3, 4, 5), (2, 2, 3, 4, 3))])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample(shapes, mode):
    x0, g0 = GEN.standard_normal(shapes[0]), GEN.standard_normal(shapes[1]) * 1.4

    def run(m):
        results = []
        for padding_mode in ("zeros", "border", "reflection"):
            for align_corners in (False, True):
                x, grid = _leaf(m, x0), _leaf(m, g0)
                out = m.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding_mode,
                                                  align_corners=align_corners)
                (out * m.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)))).sum().backward()
                results += [out, x.grad, grid.grad]
        return results

    check(run)


@pytest.mark.parametrize("case", [
    lambda m: m.nn.functional.grid_sample(m.zeros(1, 1, 3, 3), m.zeros(1, 2, 2, 3), align_corners=False),
    lambda m: m.nn.functional.grid_sample(m.zeros(1, 1, 3, 3), m.zeros(1, 2, 2, 2), mode="x"),
    lambda m: m.nn.functional.grid_sample(m.zeros(1, 1, 3, 3), m.zeros(1, 2, 2, 2), padding_mode="x"),
    lambda m: m.nn.functional.affine_grid(m.zeros(1, 2, 3), (1, 1, 3), align_corners=False),
    lambda m: m.nn.functional.affine_grid(m.zeros(1, 3, 3), (1, 1, 3, 3), align_corners=False),
])
def test_vision_errors(case):
    same_error(case)


# ----- weight_norm ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm(dim):
    weight, x0 = GEN.standard_normal((3, 4)), GEN.standard_normal((2, 4))

    def run(m):
        lin = m.nn.Linear(4, 3).double()
        with m.no_grad():
            lin.weight.copy_(m.tensor(weight))
            lin.bias.zero_()
        with pytest.warns(FutureWarning):
            m.nn.utils.weight_norm(lin, dim=dim)
        names = sorted(name for name, _ in lin.named_parameters())
        lin(m.tensor(x0)).pow(2).sum().backward()
        grads = [lin.weight_g.grad, lin.weight_v.grad]
        m.nn.utils.remove_weight_norm(lin)
        return [names, *grads, lin.weight, sorted(name for name, _ in lin.named_parameters())]

    check(run)
    same_error(lambda m: m.nn.utils.remove_weight_norm(m.nn.Linear(2, 2)))
