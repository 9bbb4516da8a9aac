"""nn.functional additions and the layers that wrap them, against real PyTorch: values, dtypes, shapes, grad_fn
names, gradients, errors, reprs and parameter shapes."""
from __future__ import annotations

import numpy as np
import pytest

import pjtorch
from tensor_oracle import reference, same


def _grad_case(fn, *shapes, dtype="float64"):
    def run(m):
        F = m.nn.functional
        gen = np.random.default_rng(0)
        leaves = [m.tensor(gen.standard_normal(s), dtype=getattr(m, dtype), requires_grad=True) for s in shapes]
        out = fn(m, F, *leaves)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        first = outs[0]
        name = type(first.grad_fn).__name__ if first.grad_fn is not None else None
        if first.requires_grad:
            (first.double() * m.tensor(gen.standard_normal(tuple(first.shape)))).sum().backward()
        return tuple(outs) + (name,) + tuple(leaf.grad for leaf in leaves)

    return run


T = lambda m: m.tensor([1.0, -1.0, 1.0, -1.0], dtype=m.float64)  # noqa: E731
LABELS = lambda m: m.tensor([0, 2, 1, 4])  # noqa: E731

CASES = {
    "nearest-scale": (lambda m, F, x: F.interpolate(x, scale_factor=2), (2, 3, 4, 5)),
    "nearest-1d-frac": (lambda m, F, x: F.interpolate(x, scale_factor=1.7), (2, 3, 5)),
    "nearest-1d-size": (lambda m, F, x: F.interpolate(x, size=3), (1, 2, 7)),
    "nearest-exact": (lambda m, F, x: F.interpolate(x, scale_factor=1.5, mode="nearest-exact"), (1, 2, 5, 7)),
    "area": (lambda m, F, x: F.interpolate(x, size=(3, 4), mode="area"), (1, 2, 5, 7)),
    "area-1d": (lambda m, F, x: F.interpolate(x, size=3, mode="area"), (2, 5, 7)),
    "linear": (lambda m, F, x: F.interpolate(x, size=9, mode="linear"), (2, 3, 5)),
    "linear-ac": (lambda m, F, x: F.interpolate(x, size=9, mode="linear", align_corners=True), (2, 3, 5)),
    "bilinear": (lambda m, F, x: F.interpolate(x, size=(7, 9), mode="bilinear"), (2, 3, 4, 5)),
    "bilinear-ac": (lambda m, F, x: F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True), (2, 3, 4, 5)),
    "bilinear-scale": (lambda m, F, x: F.interpolate(x, scale_factor=1.5, mode="bilinear"), (1, 2, 4, 5)),
    "group-norm": (lambda m, F, x: F.group_norm(x, 2), (2, 4, 3, 5)),
    "group-norm-affine": (lambda m, F, x, w, b: F.group_norm(x, 3, w, b), (2, 6, 5), (6,), (6,)),
    "instance-norm": (lambda m, F, x: F.instance_norm(x), (2, 3, 4, 5)),
    "instance-norm-affine": (lambda m, F, x, w, b: F.instance_norm(x, weight=w, bias=b), (2, 3, 6), (3,), (3,)),
    "pixel-shuffle": (lambda m, F, x: F.pixel_shuffle(x, 2), (2, 8, 3, 4)),
    "pixel-unshuffle": (lambda m, F, x: F.pixel_unshuffle(x, 2), (2, 3, 4, 6)),
    "pairwise-distance": (lambda m, F, a, b: F.pairwise_distance(a, b), (4, 5), (4, 5)),
    "conv-transpose1d": (lambda m, F, x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1),
                         (2, 4, 5), (4, 3, 3), (3,)),
    "conv-transpose2d": (lambda m, F, x, w: F.conv_transpose2d(x, w, stride=(2, 1), padding=(1, 0)),
                         (2, 4, 5, 6), (4, 3, 3, 2)),
    "conv-transpose2d-groups-dilation": (lambda m, F, x, w: F.conv_transpose2d(x, w, groups=2, dilation=2),
                                         (1, 4, 3, 3), (4, 3, 2, 2)),
    "conv-transpose2d-unbatched": (lambda m, F, x, w: F.conv_transpose2d(x, w), (4, 3, 3), (4, 2, 2, 2)),
    "unfold": (lambda m, F, x: F.unfold(x, 2), (2, 3, 4, 5)),
    "unfold-args": (lambda m, F, x: F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=2), (2, 3, 5, 6)),
    "fold-args": (lambda m, F, x: F.fold(x, (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=2), (1, 6, 6)),
    "adaptive-max-pool2d-indices": (lambda m, F, x: F.adaptive_max_pool2d(x, (2, 4), return_indices=True), (3, 5, 9)),
    "adaptive-max-pool2d-none": (lambda m, F, x: F.adaptive_max_pool2d(x, (None, 2)), (1, 2, 3, 5)),
    "adaptive-max-pool1d": (lambda m, F, x: F.adaptive_max_pool1d(x, 3, return_indices=True), (2, 3, 7)),
    "margin-ranking": (lambda m, F, a, b: F.margin_ranking_loss(a, b, T(m), 0.5), (4,), (4,)),
    "margin-ranking-none": (lambda m, F, a, b: F.margin_ranking_loss(a, b, T(m), reduction="none"), (4,), (4,)),
    "hinge-embedding-none": (lambda m, F, a: F.hinge_embedding_loss(a, T(m), 0.5, reduction="none"), (4,)),
    "soft-margin-none": (lambda m, F, a: F.soft_margin_loss(a, T(m), reduction="none"), (4,)),
    "soft-margin-target-grad": (lambda m, F, a, b: F.soft_margin_loss(a, b), (4,), (4,)),
    "poisson-nll": (lambda m, F, a: F.poisson_nll_loss(a, T(m).abs() * 3), (4,)),
    "poisson-nll-none-full": (lambda m, F, a: F.poisson_nll_loss(a.abs(), T(m).abs() * 3, log_input=False, full=True,
                                                                 reduction="none"), (4,)),
    "gaussian-nll": (lambda m, F, a, b, v: F.gaussian_nll_loss(a, b, v.abs()), (4, 3), (4, 3), (4, 3)),
    "gaussian-nll-full-sum": (lambda m, F, a, b, v: F.gaussian_nll_loss(a, b, v.abs(), full=True, reduction="sum"),
                              (4, 3), (4, 3), (4, 1)),
    "triplet": (lambda m, F, a, p, n: F.triplet_margin_loss(a, p, n), (4, 5), (4, 5), (4, 5)),
    "triplet-swap-none": (lambda m, F, a, p, n: F.triplet_margin_loss(a, p, n, 0.5, 1, swap=True, reduction="none"),
                          (4, 5), (4, 5), (4, 5)),
    "multi-margin": (lambda m, F, x: F.multi_margin_loss(x, LABELS(m)), (4, 5)),
    "multi-margin-p2-weight-none": (lambda m, F, x: F.multi_margin_loss(x, LABELS(m), 2, 0.7, m.arange(1.0, 6.0, dtype=m.float64),
                                                                        reduction="none"), (4, 5)),
    "multi-margin-weight-dtype": (lambda m, F, x: F.multi_margin_loss(x, LABELS(m), weight=m.ones(5)), (4, 5)),
    "multi-margin-weight-grad": (lambda m, F, x, w: F.multi_margin_loss(x, LABELS(m), weight=w), (4, 5), (5,)),
    "cosine-embedding-none": (lambda m, F, a, b: F.cosine_embedding_loss(a, b, T(m), 0.2, reduction="none"),
                              (4, 5), (4, 5)),
}


@pytest.mark.parametrize("name", CASES)
def test_functional_matches_torch(name):
    fn, *shapes = CASES[name]
    same(_grad_case(fn, *shapes))


ERRORS = {
    "interp-both": lambda F, x: F.interpolate(x, size=3, scale_factor=2),
    "interp-neither": lambda F, x: F.interpolate(x),
    "interp-align-nearest": lambda F, x: F.interpolate(x, size=3, align_corners=True),
    "interp-bilinear-3d": lambda F, x: F.interpolate(x[0], size=3, mode="bilinear"),
    "group-norm-groups": lambda F, x: F.group_norm(x, 3),
    "pixel-shuffle-channels": lambda F, x: F.pixel_shuffle(x, 3),
    "pixel-unshuffle-height": lambda F, x: F.pixel_unshuffle(x, 3),
    "pixel-shuffle-2d": lambda F, x: F.pixel_shuffle(x[0, 0], 2),
    "multi-margin-p": lambda F, x: F.multi_margin_loss(x[0, 0], x.new_zeros(4).long(), p=3),
    "fold-blocks": lambda F, x: F.fold(x[0], (4, 4), 2),
    "reduction": lambda F, x: F.margin_ranking_loss(x, x, x, reduction="avg"),
    "gaussian-var-size": lambda F, x: F.gaussian_nll_loss(x, x, x[..., :2, :2]),
    "conv-transpose-channels": lambda F, x: F.conv_transpose2d(x, x.new_ones(3, 2, 1, 1)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_functional_errors_match_torch(name):
    same(lambda m: ERRORS[name](m.nn.functional, m.ones(2, 4, 4, 4)))


def test_float32_results_keep_dtype():
    same(lambda m: (m.nn.functional.interpolate(m.ones(1, 1, 2, 2), scale_factor=2, mode="bilinear"),
                    m.nn.functional.group_norm(m.ones(1, 2, 2), 1), m.nn.functional.pixel_shuffle(m.ones(1, 4, 1, 1), 2),
                    m.nn.functional.interpolate(m.arange(4.0).view(1, 1, 4), scale_factor=2)))


def test_instance_norm_updates_running_stats():
    def run(m):
        x = m.tensor(np.random.default_rng(1).standard_normal((2, 3, 5)))
        rm, rv = m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64)
        out = m.nn.functional.instance_norm(x, rm, rv)
        return out, rm, rv

    same(run)


# ----- layers -----------------------------------------------------------------------------------------

LAYERS = {
    "SELU": lambda nn: nn.SELU(), "SELU-inplace": lambda nn: nn.SELU(True), "CELU": lambda nn: nn.CELU(),
    "CELU-args": lambda nn: nn.CELU(0.5, True), "PReLU": lambda nn: nn.PReLU(), "PReLU-3": lambda nn: nn.PReLU(3, 0.1),
    "GLU": lambda nn: nn.GLU(), "GLU-1": lambda nn: nn.GLU(1), "Softshrink": lambda nn: nn.Softshrink(),
    "Hardshrink": lambda nn: nn.Hardshrink(0.3), "Tanhshrink": lambda nn: nn.Tanhshrink(),
    "Softsign": lambda nn: nn.Softsign(), "Threshold": lambda nn: nn.Threshold(0.1, 20),
    "Threshold-inplace": lambda nn: nn.Threshold(0.1, 20, True), "GroupNorm": lambda nn: nn.GroupNorm(2, 4),
    "GroupNorm-plain": lambda nn: nn.GroupNorm(2, 4, affine=False), "InstanceNorm1d": lambda nn: nn.InstanceNorm1d(4),
    "InstanceNorm2d": lambda nn: nn.InstanceNorm2d(4, affine=True, track_running_stats=True),
    "PixelShuffle": lambda nn: nn.PixelShuffle(2), "PixelUnshuffle": lambda nn: nn.PixelUnshuffle(2),
    "Upsample": lambda nn: nn.Upsample(scale_factor=2),
    "Upsample-bilinear": lambda nn: nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True),
    "UpsamplingNearest2d": lambda nn: nn.UpsamplingNearest2d(scale_factor=2),
    "UpsamplingBilinear2d": lambda nn: nn.UpsamplingBilinear2d(size=3),
    "ConvTranspose1d": lambda nn: nn.ConvTranspose1d(4, 3, 3),
    "ConvTranspose2d": lambda nn: nn.ConvTranspose2d(4, 6, (3, 2), stride=2, padding=1, output_padding=1, groups=2,
                                                     bias=False, dilation=2),
    "PairwiseDistance": lambda nn: nn.PairwiseDistance(), "CosineSimilarity": lambda nn: nn.CosineSimilarity(0),
    "KLDivLoss": lambda nn: nn.KLDivLoss(reduction="batchmean"), "MarginRankingLoss": lambda nn: nn.MarginRankingLoss(0.5),
    "HingeEmbeddingLoss": lambda nn: nn.HingeEmbeddingLoss(), "SoftMarginLoss": lambda nn: nn.SoftMarginLoss(),
    "PoissonNLLLoss": lambda nn: nn.PoissonNLLLoss(), "GaussianNLLLoss": lambda nn: nn.GaussianNLLLoss(),
    "TripletMarginLoss": lambda nn: nn.TripletMarginLoss(), "MultiMarginLoss": lambda nn: nn.MultiMarginLoss(),
    "CosineEmbeddingLoss": lambda nn: nn.CosineEmbeddingLoss(), "Unfold": lambda nn: nn.Unfold(2),
    "Fold": lambda nn: nn.Fold((4, 5), 2, padding=1), "AdaptiveMaxPool1d": lambda nn: nn.AdaptiveMaxPool1d(3),
    "AdaptiveMaxPool2d": lambda nn: nn.AdaptiveMaxPool2d((2, None), True),
}


@pytest.mark.parametrize("name", LAYERS)
def test_layer_repr_and_parameters_match_torch(name):
    def run(m):
        layer = LAYERS[name](m.nn)
        shapes = {key: tuple(value.shape) for key, value in layer.state_dict().items()}
        return repr(layer), str(layer), shapes, [n for n, _ in layer.named_parameters()]

    same(run)


def _copy_parameters(theirs, ours):
    for (name, value), (_, mine) in zip(theirs.state_dict().items(), ours.state_dict().items()):
        mine.copy_(pjtorch.tensor(value.detach().numpy()))


FORWARDS = {
    "PReLU-3": ((2, 3, 4),), "GLU": ((2, 4),), "GroupNorm": ((2, 4, 3),), "InstanceNorm1d": ((2, 4, 5),),
    "InstanceNorm2d": ((2, 4, 3, 5),), "Upsample": ((1, 2, 3, 3),),
    "Upsample-bilinear": ((1, 2, 2, 3),), "ConvTranspose1d": ((2, 4, 5),), "ConvTranspose2d": ((2, 4, 3, 3),),
    "TripletMarginLoss": ((3, 4), (3, 4), (3, 4)),
}


@pytest.mark.parametrize("name", FORWARDS)
def test_layer_forward_matches_torch_with_the_same_parameters(name):
    torch = reference()
    gen = np.random.default_rng(3)
    inputs = [gen.standard_normal(s).astype(np.float32) for s in FORWARDS[name]]
    theirs, ours = LAYERS[name](torch.nn), LAYERS[name](pjtorch.nn)
    _copy_parameters(theirs, ours)
    expected = theirs(*[torch.tensor(a) for a in inputs])
    got = ours(*[pjtorch.tensor(a) for a in inputs])
    np.testing.assert_allclose(np.asarray(got.tolist()), expected.detach().numpy(), rtol=1e-5, atol=1e-5)
    assert type(got.grad_fn).__name__ == type(expected.grad_fn).__name__
    if name == "InstanceNorm2d":  # training with track_running_stats updates the running statistics
        np.testing.assert_allclose(np.asarray(ours.running_mean.tolist()), theirs.running_mean.numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_conv_transpose_initialisation_bounds():
    pjtorch.manual_seed(0)
    layer = pjtorch.nn.ConvTranspose2d(4, 6, 3)
    bound = 1 / np.sqrt(6 * 9)  # fan_in is weight.size(1) * kernel area
    assert np.abs(np.asarray(layer.weight.tolist())).max() <= bound
    assert np.abs(np.asarray(layer.bias.tolist())).max() <= bound
    assert np.abs(np.asarray(layer.weight.tolist())).max() > bound / 2


def test_conv_transpose_output_size():
    def run(m):
        layer = m.nn.ConvTranspose2d(2, 3, 3, stride=2)
        return tuple(layer(m.ones(1, 2, 4, 4), output_size=[10, 9]).shape)

    same(run)
