"""Tutorial-style nn, optim and data programs run under real torch and pjtorch (round 8): what they print, their
warnings and errors included, must be the same."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
import pjtorch  # noqa: E402
from tensor_oracle import same_output  # noqa: E402


def test_trunc_normal_draws_as_pytorch():
    """Wide bounds redraw normal samples, narrow ones accept uniform proposals: the seeded values agree."""
    same_output("""
        torch.manual_seed(11)
        for args in [(), (0, 1, -0.5, 0.5), (0.5, 0.2, 0, 0.3), (0, 1, 1.5, 3.0), (0, 0.02, -0.04, 0.04)]:
            print(args, torch.nn.init.trunc_normal_(torch.empty(3, 5), *args))
        print(torch.nn.init.trunc_normal_(torch.empty(4, dtype=torch.float64), 0, 1, -0.3, 0.2))
        print(torch.nn.init.trunc_normal_(torch.empty(4, dtype=torch.bfloat16), 0, 1, -0.3, 0.2))
        g = torch.Generator().manual_seed(1)
        print(torch.nn.init.trunc_normal_(torch.empty(6), a=0.1, b=0.2, generator=g), torch.randn(2))
        print(torch.nn.init.trunc_normal_(torch.empty(0, 3)))
    """)


def test_weight_norm_grad_fn():
    """Keeping the first or last dim takes PyTorch's fused kernel, whose grad_fn is its own."""
    same_output("""
        nn = torch.nn
        torch.manual_seed(0)
        for shape, dim in [((3, 2), 0), ((3, 2), 1), ((3, 2), None), ((4, 3, 2), 1), ((4, 3, 2), 2)]:
            m = nn.Module()
            m.weight = nn.Parameter(torch.randn(*shape))
            nn.utils.parametrizations.weight_norm(m, dim=dim)
            print(shape, dim, m.weight.grad_fn.name(), m.weight)
            (m.weight * torch.arange(m.weight.numel()).reshape(shape)).sum().backward()
            print([p.grad.shape for p in m.parameters()])
    """)


def test_optimizer_tensor_hyperparameter_checks():
    """A Tensor lr must hold one element; Adam's betas are both floats or both Tensors, and come back a tuple."""
    same_output("""
        optim = torch.optim
        p = [torch.nn.Parameter(torch.ones(2))]
        for make in (optim.SGD, optim.Adam, optim.AdamW, optim.RMSprop, optim.Adagrad, optim.Adamax, optim.NAdam,
                     optim.RAdam, optim.Adadelta, optim.Rprop, optim.ASGD, optim.LBFGS, optim.Adafactor):
            tr(lambda: make(p, lr=torch.tensor([0.1, 0.2])))
        tr(lambda: optim.Adam(p, lr=torch.tensor(0.1), foreach=True))
        tr(lambda: optim.Adam(p, betas=(0, 0.99)))
        tr(lambda: optim.Adam(p, betas=(torch.tensor(0.9), 0.99)))
        tr(lambda: optim.Adam(p, betas=(torch.tensor([0.9]), torch.tensor(0.99))).defaults['betas'])
        tr(lambda: optim.Adam(p, betas=(torch.tensor([0.9, 0.8]), torch.tensor(0.99))))
        tr(lambda: optim.Adam(p, betas=(torch.tensor(0.9), torch.tensor(0.99)), foreach=True))
        tr(lambda: optim.AdamW(p, betas=[0.9, 0.99]).defaults['betas'])
    """)


def test_sdpa_kernel_selects_the_cpu_kernel():
    """Under sdpa_kernel only the given backends run: the math kernel's grad_fn, or PyTorch's errors."""
    same_output("""
        import warnings
        F, A = torch.nn.functional, torch.nn.attention
        SDPBackend, sdpa_kernel = A.SDPBackend, A.sdpa_kernel
        print(list(SDPBackend.__members__.items()), repr(SDPBackend.MATH), str(SDPBackend.MATH))
        print(int(SDPBackend.FLASH_ATTENTION), SDPBackend.MATH == 0, SDPBackend(1))
        q = torch.ones(1, 2, 3, 4, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            for b in [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                      [SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH], [SDPBackend.ERROR]]:
                with sdpa_kernel(b) as r:
                    print(r, A._cur_sdpa_kernel_backends())
                    tr(lambda: F.scaled_dot_product_attention(q, q, q).grad_fn.name())
                    tr(lambda: F.scaled_dot_product_attention(q[0], q[0], q[0]).grad_fn.name())
                    tr(lambda: F.scaled_dot_product_attention(q, q, q, dropout_p=0.5).shape)
                    tr(lambda: F.scaled_dot_product_attention(q, q, torch.ones(1, 2, 3, 5)).grad_fn.name())
        print([str(w.message) for w in caught])
        with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION], set_priority=True):
            print(A._cur_sdpa_kernel_backends(with_priority=True))
        print(A._cur_sdpa_kernel_backends(), A._cur_sdpa_kernel_backends(with_priority=True))
        tr(lambda: sdpa_kernel('math').__enter__())
    """)


def test_data_parallel_without_accelerators_calls_its_module():
    same_output("""
        nn = torch.nn
        torch.manual_seed(0)
        model = nn.DataParallel(nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)))
        print(model, model.device_ids, list(model.state_dict()))
        y = model(torch.randn(5, 3))
        y.sum().backward()
        print(y, model.module[0].weight.grad)
        print(nn.parallel.DataParallel is nn.DataParallel, type(model).__name__)
    """)


def test_adaptive_log_softmax_with_loss():
    same_output("""
        nn = torch.nn
        torch.manual_seed(0)
        asm = nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs=[4, 10], div_value=2.0)
        print(asm, [n for n, _ in asm.named_parameters()])
        x = torch.randn(6, 8, requires_grad=True)
        t = torch.tensor([0, 5, 12, 3, 19, 9])
        out = asm(x, t)
        print(out, type(out).__name__)
        out.loss.backward()
        print(x.grad[0], asm.tail[1][0].weight.grad.sum())
        print(asm.log_prob(x).exp().sum(1), asm.predict(x), asm(x[0], t[0]))
        tr(lambda: asm(x, t[:3]))
        tr(lambda: asm(x, torch.tensor([0, 1, 2, 3, 4, 20])))
        tr(lambda: asm(x, t[None]))
        tr(lambda: asm(x[0], t))
        tr(lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 20, []))
        tr(lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 20, [10, 4]))
        asm2 = nn.AdaptiveLogSoftmaxWithLoss(8, 6, [2], head_bias=True)
        print(asm2.predict(torch.randn(5, 8) * 3), list(asm2.state_dict()))
    """)


def test_skip_init_draws_nothing():
    same_output("""
        nn = torch.nn
        torch.manual_seed(0)
        m = nn.utils.skip_init(nn.Linear, 3, 4)
        print(m, m.weight.shape, m.weight.dtype, m.weight.device, torch.rand(2))
        m = nn.utils.skip_init(nn.Conv2d, 2, 3, 3, bias=False, dtype=torch.float64)
        print(m, m.weight.dtype, m.weight.requires_grad, torch.rand(2))
        tr(lambda: nn.utils.skip_init(int))
        class NoDevice(nn.Module):
            pass
        tr(lambda: nn.utils.skip_init(NoDevice))
    """)


def test_distributed_sampler_shares():
    """Given the replica count and rank, each rank's share (shuffled per epoch, padded or cut) is PyTorch's."""
    same_output("""
        data = torch.utils.data
        ds = data.TensorDataset(torch.arange(11.))
        for kw in [dict(), dict(shuffle=False), dict(drop_last=True), dict(seed=5)]:
            for rank in range(3):
                s = data.DistributedSampler(ds, num_replicas=3, rank=rank, **kw)
                print(kw, rank, len(s), list(s))
        s = data.DistributedSampler(range(3), num_replicas=8, rank=7)
        print(list(s), s.total_size)
        s.set_epoch(2)
        print(list(s))
        tr(lambda: data.DistributedSampler(ds))
        tr(lambda: data.DistributedSampler(ds, num_replicas=2, rank=2))
        loader = data.DataLoader(ds, batch_size=4, sampler=data.DistributedSampler(ds, 2, 1))
        for epoch in range(2):
            loader.sampler.set_epoch(epoch)
            print([b[0].tolist() for b in loader])
    """)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
def test_antialiased_interpolation(mode):
    """antialias=True widens the filter when downsampling (bicubic's with a = -0.5, lanczos' with three lobes)."""
    same_output(f"""
        F = torch.nn.functional
        torch.manual_seed(0)
        x = torch.randn(2, 3, 17, 13, dtype=torch.float64, requires_grad=True)
        for kw in [dict(size=(4, 3)), dict(size=(5, 13)), dict(scale_factor=0.37), dict(scale_factor=1.7),
                   dict(size=(30, 5)), dict(scale_factor=(0.5, 0.25), recompute_scale_factor=True), dict(size=(1, 1))]:
            for ac in [False, True] if '{mode}' != 'lanczos' else [False]:
                y = F.interpolate(x, mode='{mode}', antialias=True, align_corners=ac, **kw)
                weights = torch.arange(y.numel(), dtype=torch.float64).reshape(y.shape).sin()
                g, = torch.autograd.grad((y * weights).sum(), x)
                print(kw, ac, y.shape, y.grad_fn.name(), y[0, 0, :2], g[1, 2, -2:])
        for dt in [torch.half, torch.bfloat16, torch.int64]:
            tr(lambda: F.interpolate(x.to(dt), size=(5, 4), mode='{mode}', antialias=True))
        tr(lambda: F.interpolate(x[0], size=(5,), mode='{mode}', antialias=True))
        tr(lambda: F.interpolate(x, size=(5, 4), mode='{mode}').shape)
        tr(lambda: F.interpolate(x, size=(5, 4), mode='{mode}', antialias=True, align_corners=True).shape)
        for other in ['nearest', 'area', 'linear']:
            tr(lambda: F.interpolate(x, size=(5, 4), mode=other, antialias=True))
    """)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_modes_and_grad_fn(mode):
    """grid_sample is one GridSampler node; bicubic reads 4 x 4 padded taps; the input and grid get PyTorch's
    gradients (the grid's compared to 1e-9: its zeros' signs and last bits follow another order of sums)."""
    same_output(f"""
        F = torch.nn.functional
        torch.manual_seed(0)
        for shape, grid_shape in [((2, 3, 5, 6), (2, 4, 7, 2)), ((1, 2, 3, 4, 5), (1, 2, 3, 4, 3))]:
            x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
            grid = (torch.rand(*grid_shape, dtype=torch.float64) * 2.6 - 1.3).requires_grad_()
            if '{mode}' == 'bicubic' and len(shape) == 5:
                tr(lambda: F.grid_sample(x, grid, mode='{mode}', align_corners=False))
                continue
            for padding in ['zeros', 'border', 'reflection']:
                for ac in [False, True]:
                    y = F.grid_sample(x, grid, mode='{mode}', padding_mode=padding, align_corners=ac)
                    gx, gg = torch.autograd.grad((y * torch.randn(y.shape, dtype=torch.float64)).sum(), (x, grid))
                    print(y.grad_fn.name(), y.flatten()[:4], gx.flatten()[:4],
                          gg.flatten()[-4:].mul(1e9).round().add(0.0))
    """)


def test_affine_grid_node_and_unit_size_warning():
    same_output("""
        F = torch.nn.functional
        torch.manual_seed(0)
        theta = torch.randn(2, 2, 3, requires_grad=True)
        for ac in [False, True]:
            for size in [(2, 3, 4, 5), (2, 1, 1, 3)]:
                grid = F.affine_grid(theta, size, align_corners=ac)
                grid.pow(2).sum().backward()
                print(grid.grad_fn.name(), grid[0, 0], theta.grad)
                theta.grad = None
        print(F.affine_grid(torch.randn(1, 3, 4, dtype=torch.float64), (1, 1, 2, 2, 3), align_corners=False)[0, 1])
        tr(lambda: F.affine_grid(theta, (2, 3, 0, 5), align_corners=False))
    """)


def test_smooth_l1_with_zero_beta_is_l1():
    same_output("""
        F = torch.nn.functional
        x = torch.linspace(-2, 2, 12).reshape(3, 4).requires_grad_()
        for reduction in ['mean', 'sum', 'none']:
            for beta in [0.0, 0, 0.5]:
                loss = F.smooth_l1_loss(x, torch.zeros(4), reduction=reduction, beta=beta)
                print(reduction, beta, loss.grad_fn.name(), loss.sum())
        print(torch.nn.SmoothL1Loss(beta=0.)(x, torch.ones(3, 4)))
        tr(lambda: F.smooth_l1_loss(x, x, beta=-1))
    """)


def test_max_unpool_nodes():
    """max_unpool2d/3d are their own nodes; max_unpool1d is max_unpool2d on a trailing unit dim, squeezed."""
    same_output("""
        F = torch.nn.functional
        torch.manual_seed(0)
        for d in [1, 2, 3]:
            x = torch.randn(*([2, 2] + [4] * d), requires_grad=True)
            y, i = getattr(F, f'max_pool{d}d')(x, 2, return_indices=True)
            for args in [(y, i), (y[0], i[0])]:
                u = getattr(F, f'max_unpool{d}d')(*args, 2)
                print(d, u.grad_fn.name(), [n[0].name() for n in u.grad_fn.next_functions], u.shape, u.flatten()[:6])
                u.mul(torch.arange(u.numel()).reshape(u.shape)).sum().backward(retain_graph=True)
                print(x.grad.flatten()[:8])
                x.grad = None
            print(getattr(F, f'max_unpool{d}d')(y, i, 2, output_size=[5] * d).sum())
            tr(lambda: getattr(F, f'max_unpool{d}d')(y, i * 0 + 1000, 2))
    """)
