"""nn, optim and data against real torch (round 9): DataLoader iterators, the sdp kernel flags, torch.nn.grad,
conv_tbc, fractional max pooling, Muon and LBFGS's scalar arithmetic, plus what differential fuzzing found."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import pjtorch  # noqa: E402
from tensor_oracle import assert_same_tensor, same, same_output  # noqa: E402


def test_dataloader_iterator_has_length_and_pytorch_class():
    same_output("""
        DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset
        ds = TensorDataset(torch.arange(10.))
        for kw in [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)]:
            it = iter(DataLoader(ds, **kw))
            print(type(it).__name__, len(it), next(it), len(it), iter(it) is it, len(list(it)))
    """)
    # PyTorch's worker processes warn under pytest (fork in a threaded process), so this one is checked directly.
    data = pjtorch.utils.data
    it = iter(data.DataLoader(data.TensorDataset(pjtorch.arange(10.)), batch_size=4, num_workers=2))
    assert (type(it).__name__, len(it), len(list(it))) == ("_MultiProcessingDataLoaderIter", 3, 3)


def test_sdp_flags_follow_sdpa_kernel_and_setters():
    same_output("""
        import warnings
        A, C = torch.nn.attention, torch.backends.cuda
        flags = lambda: (C.flash_sdp_enabled(), C.mem_efficient_sdp_enabled(), C.math_sdp_enabled(),
                         C.cudnn_sdp_enabled())
        for b in [A.SDPBackend.MATH, A.SDPBackend.FLASH_ATTENTION,
                  [A.SDPBackend.EFFICIENT_ATTENTION, A.SDPBackend.CUDNN_ATTENTION]]:
            with A.sdpa_kernel(b):
                print(b, flags())
        print(flags())
        C.enable_flash_sdp(False)
        print(flags(), A._cur_sdpa_kernel_backends())
        C.enable_flash_sdp(True)
        for name in ['flash', 'mem_efficient', 'math', 'cudnn']:
            tr(lambda: getattr(C, f'enable_{name}_sdp')(1))
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with C.sdp_kernel(enable_flash=False, enable_math=False) as r:
                print(r, flags(), A._cur_sdpa_kernel_backends())
        print(flags(), C.sdp_kernel.__name__, C.is_flash_attention_available())
    """)


GRAD_CASES = {1: ((2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, dilation=2, groups=2)),
              2: ((1, 3, 7, 6), (4, 3, 2, 3), dict(stride=(2, 1), padding=(1, 0))),
              3: ((1, 2, 5, 4, 4), (2, 1, 2, 2, 2), dict(groups=2, padding=1))}


@pytest.mark.parametrize("n", [1, 2, 3])
def test_nn_grad_convolution_gradients(n):
    """torch.nn.grad.convNd_input/weight agree with PyTorch's, and an input gradient is differentiable."""
    xs, ws, kw = GRAD_CASES[n]

    def case(m):
        x = m.arange(float(np.prod(xs))).reshape(xs).sin()
        w = m.arange(float(np.prod(ws))).reshape(ws).cos().requires_grad_()
        go = m.ones_like(getattr(m.nn.functional, f"conv{n}d")(x, w, **kw)).cumsum(-1)
        gi = getattr(m.nn.grad, f"conv{n}d_input")(list(x.shape), w, go, **kw)
        gw = getattr(m.nn.grad, f"conv{n}d_weight")(x, w.shape, go, **kw)
        gi.pow(2).sum().backward()
        return gi.detach(), gw, w.grad, gw.requires_grad

    got = case(pjtorch)
    want = case(torch)
    for mine, theirs in zip(got[:3], want[:3]):
        assert_same_tensor(mine, theirs, rtol=1e-4)
    assert got[3] == want[3]
    assert sorted(n for n in dir(pjtorch.nn.grad) if not n.startswith("_")) == \
        sorted(n for n in dir(torch.nn.grad) if not n.startswith("_") and n != "torch")


def _conv_tbc(m):
    """torch.conv_tbc (F.conv_tbc in pjtorch until pjtorch/__init__ exports it too)."""
    return m.conv_tbc if m is torch else m.nn.functional.conv_tbc


def test_conv_tbc_values_gradients_and_errors():
    def case(m):
        x = m.arange(30.).reshape(5, 2, 3).sin().requires_grad_()
        w = m.arange(24.).reshape(2, 3, 4).cos().requires_grad_()
        b = m.arange(4.).requires_grad_()
        y = _conv_tbc(m)(x, w, b, 1)
        y.pow(2).sum().backward()
        return y.detach(), y.grad_fn.name(), x.grad, w.grad, b.grad, _conv_tbc(m)(x, w, b.double()).dtype

    same(case)
    x, w, b = (lambda m: m.ones(5, 2, 3)), (lambda m: m.ones(2, 3, 4)), (lambda m: m.ones(4))
    for bad in [lambda m: (x(m)[0], w(m), b(m)), lambda m: (x(m), w(m)[0], b(m)), lambda m: (x(m), w(m), b(m)[:2]),
                lambda m: (x(m), w(m), b(m).view(2, 2)), lambda m: (x(m), m.ones(2, 2, 4), b(m)),
                lambda m: (x(m), m.ones(9, 3, 4), b(m)), lambda m: (x(m).double(), w(m), b(m))]:
        same(lambda m: _conv_tbc(m)(*bad(m)))


FRACTIONAL = """
    F = torch.nn.functional
    x = torch.arange(2*3*9*8.).reshape(2,3,9,8).sin().requires_grad_()
    s = torch.tensor([[[0.1,0.9],[0.5,0.3],[0.99,0.0]],[[0.7,0.2],[0.25,0.75],[0.4,0.6]]])
    v, i = F.fractional_max_pool2d(x, (2,3), (4,3), return_indices=True, _random_samples=s)
    print(v, i)
    (v * torch.arange(v.numel()).reshape(v.shape)).sum().backward()
    print(x.grad.sum(), (x.grad != 0).sum())
    print(F.fractional_max_pool2d(x[1], (3,2), (5,6), return_indices=True, _random_samples=s))
    torch.manual_seed(5)
    y = torch.arange(2*3*6*7*8.).reshape(2,3,6,7,8).cos().double().requires_grad_()
    v, i = F.fractional_max_pool3d(y, (2,3,1), (3,4,5), return_indices=True,
                                   _random_samples=torch.rand(2,3,3, dtype=torch.double))
    print(v.sum(), i, v.grad_fn.name())
    v.sum().backward()
    print(y.grad.sum(), (y.grad != 0).sum())
    torch.manual_seed(3)
    print(F.fractional_max_pool2d(x, 2, output_size=(4, 5)))
    print(F.fractional_max_pool3d(y, 2, output_ratio=0.5).shape, F.fractional_max_pool2d_with_indices(x, 2, 3)[1])
    for t in [x.half(), x.bfloat16()]:
        print(F.fractional_max_pool2d(t, 2, output_size=3, _random_samples=s.to(t.dtype)))
    print(F.fractional_max_pool2d(x, 2, output_size=(0, 2)), F.fractional_max_pool2d(x[:0], 2, output_size=(3, 2)))
"""


def test_fractional_max_pool_values_indices_and_gradients():
    """Given samples fix the windows; PyTorch's random stream gives the same samples after manual_seed."""
    same_output(FRACTIONAL)


def test_fractional_max_pool_modules_and_errors():
    same_output("""
        F = torch.nn.functional
        x = torch.arange(2*3*9*8.).reshape(2,3,9,8).sin()
        y = torch.zeros(2, 3, 6, 7, 8)
        torch.manual_seed(0)
        m = torch.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.7), return_indices=True)
        print(m, m.kernel_size, m.output_ratio, m.output_size, m.state_dict(), m(x)[1])
        m = torch.nn.FractionalMaxPool3d(2, output_size=(2, 3, 4), _random_samples=torch.rand(2, 3, 3))
        print(m, m.output_size, m.state_dict(), m(y).shape)
        for a in [dict(), dict(output_size=3, output_ratio=0.5), dict(output_ratio=1.5), dict(output_ratio=(0.5, 0)),
                  dict(output_ratio=(0.5, 0.5, 1))]:
            tr(lambda: torch.nn.FractionalMaxPool2d(2, **a))
            tr(lambda: torch.nn.FractionalMaxPool3d(2, **a))
        tr(lambda: F.fractional_max_pool2d(x, 2, output_ratio=0.5))
        tr(lambda: F.fractional_max_pool2d(x, 2))
        tr(lambda: F.fractional_max_pool3d(y, 2))
        tr(lambda: F.fractional_max_pool2d(x.long(), 2, output_size=2))
        s = torch.rand(2, 3, 2)
        tr(lambda: F.fractional_max_pool2d(x.long(), 2, output_size=2, _random_samples=s.long()))
        for size in [(9, 8), (8, 8), (2, 3, 4), (-1, 3)]:
            tr(lambda: F.fractional_max_pool2d(x, 2, output_size=size))
        tr(lambda: F.fractional_max_pool2d(x, (2, 3, 4), output_size=(2, 3)))
        tr(lambda: F.fractional_max_pool2d(x[0, 0], 2, output_size=(1, 3)))
        tr(lambda: F.fractional_max_pool2d(x[None], 2, output_size=(1, 3)))
        for ss in [torch.rand(2, 3, 3), s.double(), torch.rand(1, 3, 2), torch.rand(2, 2, 2), torch.rand(6)]:
            tr(lambda: F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=ss).shape)
        for size in [(5, 6, 7), (4, 6, 7), (4, 5, 7), (4, 7, 6), (4, 6, 6), (4, 5, 6), (2, 2)]:
            tr(lambda: F.fractional_max_pool3d(y, 2, output_size=size).shape)
        tr(lambda: F.fractional_max_pool3d(y[0, 0], 2, output_size=2).shape)
    """)


def test_muon_matches_pytorch():
    """Momentum, Nesterov, Newton-Schulz in bfloat16 and both lr adjustments, for tall, wide and square
    parameters in float32 and float64."""
    def run(m):
        m.manual_seed(0)
        results = []
        for shape in [(3, 5), (6, 2), (4, 4)]:
            for nesterov in [True, False]:
                for adjust in [None, "original", "match_rms_adamw"]:
                    for dtype in [m.float32, m.float64]:
                        p = m.nn.Parameter(m.randn(shape, dtype=dtype))
                        opt = m.optim.Muon([p], lr=0.1, nesterov=nesterov, adjust_lr_fn=adjust, weight_decay=0.05,
                                           momentum=0.9)
                        for _ in range(3):
                            p.grad = m.randn(shape, dtype=dtype)
                            opt.step()
                        results += [p.detach(), opt.state[p]["momentum_buffer"]]
        return results

    got, want = run(pjtorch), run(torch)
    assert len(got) == 72
    for mine, theirs in zip(got, want):
        assert_same_tensor(mine, theirs, rtol=1e-5)


def test_muon_validation_and_state():
    same_output("""
        M = torch.optim.Muon
        p = torch.nn.Parameter(torch.ones(3, 4))
        for kw in [dict(lr=-1), dict(weight_decay=-1), dict(momentum=-1), dict(adjust_lr_fn='x'),
                   dict(lr=-1, momentum=-1), dict(lr=torch.tensor([1., 2.]))]:
            tr(lambda: M([p], **kw))
        tr(lambda: M([torch.nn.Parameter(torch.ones(3))]))
        tr(lambda: M([p], ns_steps=0, eps=-1, momentum=1.5).defaults)
        o = M([p], lr=torch.tensor(0.01))
        print(o.step())
        p.grad = torch.ones(3, 4)
        o.step()
        print(p, o.state_dict())
        q = torch.nn.Parameter(torch.ones(3, 4, dtype=torch.complex64))
        q.grad = torch.ones(3, 4, dtype=torch.complex64)
        tr(lambda: M([q]).step())
        print(M([p]), 'Muon' in dir(torch.optim))
    """)


def test_lbfgs_compares_tensor_scalars_in_their_dtype():
    """PyTorch compares a float32 gradient norm with tolerance_grad in float32: a gradient of float32(1e-7)
    has converged at the default tolerance, so the step returns before iterating. A step size computed from
    tensors stays a tensor in the state."""
    same_output("""
        for c in [torch.tensor([1e-7, -5e-8, 2e-8]), torch.tensor([1.5e-7, 0.0, 0.0])]:
            x = torch.zeros(3, requires_grad=True)
            opt = torch.optim.LBFGS([x], lr=1)
            def closure():
                opt.zero_grad()
                loss = (x * c).sum()
                loss.backward()
                return loss
            opt.step(closure)
            print(sorted(opt.state[x]), opt.state[x]['func_evals'], opt.state[x]['n_iter'])
        for ls, iterations in [(None, 1), (None, 3), ('strong_wolfe', 1), ('strong_wolfe', 4)]:
            x = torch.tensor([-1.5, 2.0], requires_grad=True)
            opt = torch.optim.LBFGS([x], max_iter=iterations, line_search_fn=ls)
            def closure():
                opt.zero_grad()
                loss = ((x - 1) ** 4).sum() + (x ** 2).sum()
                loss.backward()
                return loss
            opt.step(closure)
            print(ls, iterations, opt.state[x]['t'], opt.state[x]['H_diag'])
    """)


def test_lbfgs_float64_trajectory_matches():
    """Rosenbrock with and without the strong-Wolfe search, several steps, in float64 (where PyTorch's and
    XLA's rounding cannot steer the line search apart)."""
    same_output("""
        for ls in [None, 'strong_wolfe']:
            x = torch.tensor([-1.5, 2.0, 0.5, -0.7], dtype=torch.float64, requires_grad=True)
            opt = torch.optim.LBFGS([x], lr=1, max_iter=20, history_size=10, line_search_fn=ls)
            def closure():
                opt.zero_grad()
                loss = sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
                loss.backward()
                return loss
            for i in range(3):
                loss = opt.step(closure)
                print(ls, i, '%.8g' % loss.item(), ['%.7f' % v for v in x.tolist()], opt.state[x]['func_evals'],
                      opt.state[x]['n_iter'])
    """)


def test_fuzz_found_grad_fn_names():
    """An unbatched convolution runs batched and squeezes; a 3-d adaptive average to one element is a mean;
    channel_shuffle is its own op."""
    same_output("""
        x = torch.ones(3, 5, 5, 5, requires_grad=True)
        print(torch.nn.Conv2d(5, 2, 2)(x[0]).grad_fn, torch.nn.Conv1d(5, 2, 3, padding='same')(x[0, 0]).grad_fn)
        print(torch.nn.Conv3d(3, 2, 2)(x).grad_fn, torch.nn.Conv3d(3, 2, 2)(x[None]).grad_fn)
        for size in [1, (1, 1, 1), (1, 1, 2)]:
            print(torch.nn.functional.adaptive_avg_pool3d(x, size).grad_fn)
        print(torch.nn.functional.adaptive_avg_pool2d(x, 1).grad_fn, torch.nn.ChannelShuffle(5)(x).grad_fn)
        y = torch.nn.functional.channel_shuffle(torch.arange(12.).reshape(1, 6, 2), 3)
        print(y, torch.nn.ChannelShuffle(3))
    """)


def test_capturable_refused_for_cpu_parameters():
    same_output("""
        import inspect, warnings
        warnings.simplefilter('ignore')
        for name in ['Adam', 'AdamW', 'Adamax', 'NAdam', 'RAdam', 'RMSprop', 'Rprop', 'ASGD', 'Adadelta']:
            for foreach in [None, True]:
                p = torch.nn.Parameter(torch.ones(2))
                p.grad = torch.ones(2)
                tr(lambda: getattr(torch.optim, name)([p], capturable=True, foreach=foreach).step())
    """)


def test_fuzz_found_error_messages():
    """bilinear's shape checks, reflect padding's argument numbers (last dim first) and fold's full stop."""
    same_output("""
        F = torch.nn.functional
        for shape, pad in [((1, 1, 3, 5), (1, 1, 3, 3)), ((1, 1, 5, 3), (3, 3, 1, 1)), ((1, 1, 3, 3, 3), (1, 1, 1, 1, 3, 3)),
                           ((1, 1, 3, 3, 3), (1, 1, 3, 3, 1, 1)), ((1, 3, 3), (1, 1, 3, 3)), ((2, 1, 3), (0, 3))]:
            tr(lambda: F.pad(torch.ones(shape), pad, mode='reflect').shape)
        for a, b, w, bias in [((2, 4), (2, 4), (2, 3, 4), None), ((2, 3), (3, 4), (2, 3, 4), None),
                              ((2, 3), (2, 4), (2, 3, 4), (3,)), ((2, 3), (2, 5), (2, 3, 4), None),
                              ((2, 3), (2, 2, 4), (2, 3, 4), None), ((3,), (4,), (2, 3, 4), (2,))]:
            tr(lambda: F.bilinear(torch.ones(a), torch.ones(b), torch.ones(w), bias and torch.ones(bias)).shape)
        tr(lambda: torch.nn.Bilinear(3, 4, 2)(torch.ones(2, 3), torch.ones(2, 5)))
        tr(lambda: torch.nn.Fold(3, 2)(torch.ones(1, 5, 4)))
    """)
